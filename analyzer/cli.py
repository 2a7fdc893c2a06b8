"""The ``analyze`` command: a hand in, its best lay-down out, for people or as JSON.

Every mistake a user can make (a bad card, a round the rule set lacks, a missing file, a bad
batch line...) ends as one line ``analyze: ...`` on stderr and exit status 2; in a batch, as an
``{"error": ...}`` line in place of that line's answer. An answer that cannot be written
(standard output closed or full) is one line and exit status 1; Ctrl-C at any point is
``analyze: interrupted`` and exit status 130. A traceback is a bug.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import math
import os
import stat
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from importlib import resources
from typing import IO, Any, NoReturn

from analyzer import (
    DEFAULT_TIME_LIMIT,
    Advice,
    AdviceError,
    HandError,
    LayDown,
    Moment,
    OptionError,
    PlacedMeld,
    Rules,
    RulesError,
    advise,
    analyze,
    load_rules,
)
from analyzer.advice import DiscardRow
from analyzer.arguments import MAX_TIME_LIMIT
from analyzer.buy import DEFAULT_ROLLOUTS, DEFAULT_TURN, BuyAdvice, Verdict
from analyzer.cards import Card, Rank, faces
from analyzer.files import open_regular_file
from analyzer.rules import (
    ALIASES,
    PRESETS,
    ContractMode,
    DeckRule,
    Points,
    parse_rules_text,
    preset_key,
    read_rules_file,
)
from analyzer.turn import cards_off, witness_turn_end
from analyzer.words import plural as _plural

PROG = "analyze"
DEFAULT_RULES = "progressive"
MAX_FILE_BYTES = 64 * 1024  # a hand is a few dozen bytes: refuse anything larger before reading it
MAX_LINE_BYTES = 64 * 1024  # per batch line; the batch file itself may be as long as it likes
MAX_SKIPPED_BYTES = 16 * 1024 * 1024  # a "line" longer than this is no batch (``--batch - < /dev/zero``)
MAX_NUMBER_DIGITS = 9  # --round, --players...: a whole number of at most this many digits
EXAMPLE_FILE, EXAMPLE_ROUND = "round3.txt", 3  # the bundled hand is for progressive round 3
BATCH_FIELDS = ("hand", "round", "rules", "players", "moment", "time_limit", "seen", "outs", "discards", "buy", "turn",
                "horizon", "rollouts", "seed", "buys_used", "bought_last")
BATCH_SAMPLE = '{"hand": "7H 8H 9H 10H 5C 5D 5S", "round": 2}'
FACE = "face value"
SUIT_LETTERS = str.maketrans({"♣": "C", "♦": "D", "♥": "H", "♠": "S", "×": "x", "—": "-", "←": "<-"})


USER_ERRORS = (HandError, RulesError, AdviceError, OptionError)  # ValueErrors the API documents


class UsageError(Exception):
    """A command line, file or batch line the command cannot use; the message is for the user."""


class OutputError(Exception):
    """Standard output is closed or cannot take the answer (a full disk, ``>/dev/full``)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # argparse would print the usage and a second line; one line is the rule here.
        raise UsageError(f"{message} (see {PROG} --help)")


def _seconds(text: str) -> float:
    """``--time-limit``: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not _is_time_limit(value):
        raise argparse.ArgumentTypeError(f"a time limit is a positive number of seconds, not {text!r}")
    return value


def _is_time_limit(value: float) -> bool:
    return math.isfinite(value) and 0 < value <= MAX_TIME_LIMIT


def _whole_number(text: str) -> int:
    """``--round``, ``--players``...: a whole number of a sensible size (never 5000 digits)."""
    digits = text.strip().lstrip("+-")
    if not digits.isdigit() or len(digits) > MAX_NUMBER_DIGITS:
        shown = text if len(text) <= 20 else text[:17] + "..."
        raise argparse.ArgumentTypeError(f"a whole number of at most {MAX_NUMBER_DIGITS} digits, not {shown!r}")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Find the best lay-down of a Contract Rummy round's contract for a hand: the melds "
        "that leave the fewest penalty points, or how many cards away the hand is and which cards "
        "would do it.",
        epilog="Cards: 7H 10h TH QS joker (or JK, *), separated by spaces, commas or new lines; "
        "# starts a comment. Exit status: 0 done, 2 bad input (in a batch: some line was bad).",
    )
    parser.add_argument("hand_file", nargs="?", metavar="HAND_FILE", help="file with the hand; - reads standard input")
    parser.add_argument("-r", "--round", type=_whole_number, metavar="N", help="the round (deal) the hand is for, from 1")
    parser.add_argument("--rules", metavar="NAME|FILE.toml",
                        help=f"a rule set (see --list-rules) or a TOML rules file; default {DEFAULT_RULES}")
    parser.add_argument("--players", type=_whole_number, metavar="N",
                        help="players at the table, which decides the decks and jokers (default: the largest deck)")
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    moment = parser.add_mutually_exclusive_group()
    moment.add_argument("--before-draw", dest="moment", action="store_const", const=Moment.BEFORE_DRAW.value,
                        help="the hand is as it stands before your draw (default: told from its size)")
    moment.add_argument("--after-draw", dest="moment", action="store_const", const=Moment.AFTER_DRAW.value,
                        help="the hand is as it stands after your draw, when you lay down and discard")
    parser.add_argument("--time-limit", type=_seconds, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
                        help=f"stop the search after this long (default {DEFAULT_TIME_LIMIT:g})")
    advice = parser.add_argument_group(
        "advice", "what would help the hand (always shown when it is 1 or more cards away), which card to "
        "discard, and whether to buy a discard; see docs/advice.md")
    advice.add_argument("--seen", metavar="CARDS", help="cards you have seen (discard pile, melds on the table), "
                        "e.g. \"9H 9C 5S\"; not the offered card: they are not counted as unseen")
    advice.add_argument("--outs", action="store_true",
                        help="add the outs to --json (the text output always shows them)")
    advice.add_argument("--discards", action="store_true", help="the discard table: each card you could discard, "
                        "best first")
    advice.add_argument("--buy", metavar="CARD", help="the discard you are offered: should you buy it?")
    advice.add_argument("--turn", type=_whole_number, metavar="N",
                        help=f"with --buy: which of your own turns of the round comes next (default {DEFAULT_TURN}); "
                        "later turns mean the others are nearer going out")
    advice.add_argument("--horizon", type=_whole_number, metavar="TURNS",
                        help="with --buy: look at most this many of your own turns ahead (default: to the end of "
                        "the round)")
    advice.add_argument("--rollouts", type=_whole_number, metavar="N",
                        help=f"with --buy: most simulated deals per option (default {DEFAULT_ROLLOUTS}; fewer once "
                        "the verdict is settled)")
    advice.add_argument("--seed", type=_whole_number, metavar="N", help="with --buy: seed of the simulation (default 0)")
    advice.add_argument("--buys-used", type=_whole_number, metavar="N",
                        help="with --buy: buys you have already made this round (default 0)")
    advice.add_argument("--bought-last", action="store_true",
                        help="with --buy: the last card bought this round was bought by you")
    parser.add_argument("--batch", metavar="FILE.jsonl",
                        help=f"analyse one JSON object per line, e.g. {BATCH_SAMPLE}; one JSON line out per "
                        "line in; the other options are the defaults (the fields are named like them: "
                        "\"seen\", \"discards\": true, \"buy\": \"9H\", \"buys_used\"...)")
    parser.add_argument("--list-rules", action="store_true",
                        help="show the rule sets and their rounds; with --rules, only that one (a .toml file: "
                        "as it was read)")
    parser.add_argument("--example", action="store_true",
                        help=f"analyse the bundled example hand (progressive, round {EXAMPLE_ROUND})")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The ``analyze`` command (``analyzer.command.main`` is the installed entry point)."""
    from analyzer.command import main as command

    return command(argv)


def run(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and answer it; the exit status."""
    try:
        args = build_parser().parse_args(argv)
        modes = [bool(args.hand_file), args.batch is not None, args.list_rules, args.example]
        if sum(modes) != 1:
            raise UsageError("give one of: a hand file (- for standard input), --batch FILE.jsonl, "
                             "--example, --list-rules")
        if sys.stdout is None:
            raise OutputError("standard output is closed: there is nowhere to write the answer")
        if args.list_rules:
            return list_rules(args)
        if args.batch is not None:
            return run_batch(args)
        return run_one(args)
    except (UsageError, *USER_ERRORS) as error:
        _say(_one_line(str(error)))
        return 2
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
    except BrokenPipeError:
        # The reader stopped early (``| head``): nothing to report.
        _silence_stdout()
        return 1
    except OutputError as error:
        _silence_stdout()
        _say(str(error))
        return 1


def _say(message: str) -> None:
    """One line ``analyze: ...`` on stderr, if there is a stderr to write to."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.write(f"{PROG}: {message}\n")
        sys.stderr.flush()


def _silence_stdout() -> None:
    """Point stdout at devnull, so the interpreter's final flush does not fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def list_rules(args: argparse.Namespace) -> int:
    """Every preset; with ``--rules``, only that rule set (a file: as it was read)."""
    if args.rules is None:
        if args.json:
            _write(json.dumps({name: rules.to_dict() for name, rules in PRESETS.items()}, indent=2))
        else:
            _write(render_rule_sets())
        return 0
    rules = load_rules(args.rules)
    if args.json:
        _write(json.dumps(rules.to_dict(), indent=2))
    elif args.rules.lower().endswith(".toml"):
        base = parse_rules_text(read_rules_file(args.rules), args.rules).get("base", DEFAULT_RULES)
        _write(render_rule_set(rules, f"{rules.name} (read from {args.rules}, based on {preset_key(base)}; "
                                      f"fields it does not set are {preset_key(base)}'s)"))
    else:
        _write(render_rule_set(rules, _rules_title(rules.name)))
    return 0


# ---- one hand --------------------------------------------------------------------------------


def run_one(args: argparse.Namespace) -> int:
    round_number = args.round
    if round_number is None and args.example:
        round_number = EXAMPLE_ROUND
    if round_number is None:
        raise UsageError("missing --round: say which round the hand is for, e.g. --round 6")
    rules = load_rules(args.rules or DEFAULT_RULES)
    if args.example:
        text = resources.files("analyzer").joinpath("examples", EXAMPLE_FILE).read_text(encoding="utf-8")
    else:
        text = read_hand_file(args.hand_file)
    options, asked = _advice_options(vars(args))
    if args.json and not asked:
        _write(json.dumps(analyze(text, rules, round_number, args.players, args.time_limit, args.moment).to_dict()))
        return 0
    advice = advise(text, rules, round_number, args.players, time_limit=args.time_limit, moment=args.moment,
                    **options)
    _write(json.dumps(advice.to_dict()) if args.json else
           render_advice(advice, rules, args.players, asked_rules=args.rules))
    return 0


ADVICE_DEFAULTS: dict[str, Any] = {
    "seen": None, "outs": False, "discards": False, "buy": None, "turn": None, "horizon": None, "rollouts": None,
    "seed": None, "buys_used": None, "bought_last": False,
}
BUY_ONLY = ("turn", "horizon", "rollouts", "seed", "buys_used", "bought_last")


def _advice_options(given: dict[str, Any], batch: bool = False) -> tuple[dict[str, Any], bool]:
    """The keyword arguments of ``advise`` from the command line's (or a batch line's) options,
    and whether the JSON answer carries the advice keys (the outs, seen cards, table or a buy).
    Errors name the options as the user wrote them: flags, or a batch line's JSON fields."""
    options = {key: given.get(key, default) for key, default in ADVICE_DEFAULTS.items()}
    if options["buy"] is None:
        stray = [key for key in BUY_ONLY if options[key] not in (None, False)]
        if stray and batch:
            raise UsageError(f"\"{stray[0]}\" goes with \"buy\" (the offered card, e.g. \"buy\": \"9H\")")
        if stray:
            raise UsageError(f"{'--' + stray[0].replace('_', '-')} goes with --buy CARD")
    chosen: dict[str, Any] = {
        "seen": options["seen"] or (),
        "discards": bool(options["discards"]),
        "buy": options["buy"],
        "bought_last": bool(options["bought_last"]),
    }
    chosen.update({key: options[key] for key in ("turn", "horizon", "rollouts", "seed", "buys_used")
                   if options[key] is not None})
    asked = bool(options["outs"] or options["seen"] or options["discards"] or options["buy"])
    return chosen, asked


def read_hand_file(name: str) -> str:
    """The text of a hand file (``-``: standard input), refused unread when it is too large."""
    what = "standard input" if name == "-" else f"hand file {name!r}"
    with _opened(name, what) as stream:
        data = _read_limited(stream, what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"{what} is not text (UTF-8): is it really a hand?") from None


@contextlib.contextmanager
def _opened(name: str, what: str) -> Iterator[IO[bytes]]:
    """``name`` open for reading bytes (``-``: standard input); why it cannot be, as a message.

    Only a regular file or standard input: a file is opened without waiting (``O_NONBLOCK``: a
    FIFO with no writer would block the open itself) and refused unless it is a regular file,
    so no pipe, device (``/dev/zero``), socket or directory named as a file can hang the command."""
    if name == "-":
        stream = sys.stdin.buffer if sys.stdin is not None else None
        if stream is None or _closed(stream):
            raise UsageError("standard input is closed: give the hand (or the batch) on it, or name a file")
        yield stream
        return
    descriptor = open_regular_file(name, what, UsageError, "give a file, or - and pipe it in")
    try:
        stream = os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise
    with stream:
        yield stream


def _closed(stream: IO[bytes]) -> bool:
    try:
        os.fstat(stream.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        return True
    return stream.closed


def _read_limited(stream: IO[bytes], what: str) -> bytes:
    too_big = f"{what} is larger than {MAX_FILE_BYTES // 1024} KiB; a hand is a few dozen cards"
    try:
        info = os.fstat(stream.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        info = None
    if info is not None and stat.S_ISREG(info.st_mode) and info.st_size > MAX_FILE_BYTES:
        raise UsageError(too_big)
    try:
        data = stream.read(MAX_FILE_BYTES + 1)  # pipes and devices have no size: read no further
    except OSError as error:  # /proc/self/mem, a file on a failing disk
        raise UsageError(f"{what} cannot be read: {error.strerror or error}") from None
    if data is None:
        raise UsageError(f"{what} has nothing to read yet")
    if len(data) > MAX_FILE_BYTES:
        raise UsageError(too_big)
    return data


# ---- a batch ---------------------------------------------------------------------------------


def run_batch(args: argparse.Namespace) -> int:
    """One JSON line out per non-blank line in, in order (a blank line is skipped, with no output
    line); a bad line gets ``{"error": "line N: ..."}`` and the rest go on. Bad lines are then
    summed up on stderr, with exit status 2."""
    rules_for = functools.lru_cache(maxsize=None)(load_rules)  # each distinct rule set read once
    errors: list[str] = []
    answered = 0
    with _opened(args.batch, "standard input" if args.batch == "-" else f"batch file {args.batch!r}") as stream:
        for number, (line, whole) in enumerate(_batch_lines(stream), start=1):
            if whole and not line.strip():
                continue
            answered += 1
            try:
                if not whole:
                    raise UsageError(f"the line is longer than {MAX_LINE_BYTES // 1024} KiB")
                answer = _batch_answer(line, args, rules_for)
            except (UsageError, *USER_ERRORS) as error:
                answer = {"error": f"line {number}: {_one_line(str(error))}"}
                errors.append(answer["error"])
            _write(json.dumps(answer))
    if errors:
        raise UsageError(f"{len(errors)} of {answered} batch lines had errors, the first at {errors[0]}")
    return 0


def _batch_lines(stream: IO[bytes]) -> Iterator[tuple[bytes, bool]]:
    """Each line without its ending, and whether it is whole (a line over the cap is skipped;
    one with no end in sight, as from ``/dev/zero``, ends the batch)."""
    try:
        while line := stream.readline(MAX_LINE_BYTES + 1):
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                skipped = len(line)
                while (rest := stream.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                    skipped += len(rest)
                    if skipped > MAX_SKIPPED_BYTES:
                        raise UsageError(f"the batch has a line longer than {MAX_SKIPPED_BYTES // 2**20} MiB: "
                                         f"is it really a batch of JSON lines?")
                yield b"", False
            else:
                yield line.rstrip(b"\r\n"), True
    except OSError as error:
        raise UsageError(f"the batch cannot be read: {error.strerror or error}") from None


def _batch_answer(line: bytes, defaults: argparse.Namespace, rules_for: Callable[[str], Rules]) -> dict[str, Any]:
    try:
        text = line.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError("the line is not UTF-8 text") from None
    try:
        job = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"not JSON ({error.msg} at column {error.colno}); expected e.g. {BATCH_SAMPLE}") from None
    except RecursionError:
        raise UsageError("the JSON is nested too deeply; each line is one flat object") from None
    except ValueError:  # an integer of thousands of digits
        raise UsageError("the line holds a number far too large") from None
    if not isinstance(job, dict):
        raise UsageError(f"expected a JSON object such as {BATCH_SAMPLE}, not {text.strip()[:40]!r}")
    unknown = sorted(set(job) - set(BATCH_FIELDS))
    if unknown:
        raise UsageError(f"unknown field {unknown[0]!r}; the fields are {', '.join(BATCH_FIELDS)}")
    hand = _field(job, "hand", str, None, "text such as \"7H 8H 9H JK\"")
    round_number = _field(job, "round", int, defaults.round, "a whole number")
    rules_name = _field(job, "rules", str, defaults.rules or DEFAULT_RULES, "a rule set name or a .toml file")
    players = _field(job, "players", int, defaults.players, "a whole number")
    time_limit = _field(job, "time_limit", (int, float), defaults.time_limit, "a number of seconds")
    moment = _field(job, "moment", str, defaults.moment, "\"before-draw\" or \"after-draw\"")
    if hand is None:
        raise UsageError("missing \"hand\"")
    if round_number is None:
        raise UsageError("missing \"round\" (or give --round for every line)")
    if not _is_time_limit(time_limit):
        raise UsageError(f"\"time_limit\" is a number of seconds above 0 and at most {MAX_TIME_LIMIT:g}, "
                         f"not {json.dumps(time_limit)[:40]}")
    given = {key: value for key, value in vars(defaults).items() if key in ADVICE_DEFAULTS}
    for key, kinds, expected in (("seen", str, "text such as \"9H 9C\""), ("buy", str, "a card such as \"9H\""),
                                 ("turn", int, "a whole number"),
                                 ("horizon", int, "a whole number"), ("rollouts", int, "a whole number"),
                                 ("seed", int, "a whole number"), ("buys_used", int, "a whole number")):
        given[key] = _field(job, key, kinds, given[key], expected)
    for key in ("outs", "discards", "bought_last"):
        given[key] = _flag(job, key, given[key])
    options, asked = _advice_options(given, batch=True)
    if not asked:
        return analyze(hand, rules_for(rules_name), round_number, players, time_limit, moment).to_dict()
    return advise(hand, rules_for(rules_name), round_number, players, time_limit=time_limit, moment=moment,
                  **options).to_dict()


def _flag(job: dict[str, Any], key: str, default: bool) -> bool:
    """``job[key]`` as true or false; absent or null gives ``default``."""
    value = job.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise UsageError(f"{key!r} must be true or false, not {json.dumps(value)[:40]}")
    return value


def _field(job: dict[str, Any], key: str, kinds: type | tuple[type, ...], default: Any, expected: str) -> Any:
    """``job[key]`` checked against ``kinds``; absent or null gives ``default``."""
    value = job.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise UsageError(f"{key!r} must be {expected}, not {json.dumps(value)[:40]}")
    if isinstance(value, int) and abs(value) >= 10**MAX_NUMBER_DIGITS:
        raise UsageError(f"{key!r} is far too large: a whole number of at most {MAX_NUMBER_DIGITS} digits")
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageError(f"{key!r} must be a finite number")
    return value


# ---- text for people -------------------------------------------------------------------------


def render(result: LayDown, rules: Rules, asked_rules: str | None = None) -> str:
    """The analysis as a card player reads it: where the hand stands in its turn, then the
    turn's play (melds, discard, going out), or how far the hand is and what would do it.
    ``asked_rules``: the name the player gave (``liverpool`` is shown as ``pagat (liverpool)``)."""
    round_rule = rules.round(result.round)
    where = f", {Moment(result.moment).describe()}" if result.moment else ""
    lines = [
        f"Rules: {_rules_named(result.rules, asked_rules)}, round {result.round} of {len(rules.rounds)}: "
        f"{round_rule.describe_contract()}, {round_rule.deal} cards dealt"
        + (" (go-out round: every card must be melded)" if result.go_out else ""),
        f"Hand ({len(result.hand)} cards{where}): {faces(result.hand)}",
    ]
    if result.note:
        lines.append(f"Note: {result.note}")
    lines.append("")
    after_draw = result.moment == Moment.AFTER_DRAW.value
    if result.can_lay_down:
        lines += _play_lines(result, rules, after_draw)
        shown = result.melds
    elif result.cards_away is None and result.proven_optimal:
        lines.append("This hand cannot lay down the contract, whatever cards it draws"
                     + (": in this round every card must fit into the melds." if result.go_out else "."))
        shown = ()
    elif result.cards_away is None:
        lines.append("Nothing found within the time limit, not even with extra cards (not proven impossible: "
                     "a longer --time-limit may find a lay-down).")
        return "\n".join(lines)
    else:
        lines += _away_lines(result, rules, after_draw)
        shown = result.with_missing
    stand_ins = [(card, meaning) for meld in shown for card, meaning in zip(meld.cards, meld.stands_for)
                 if card != meaning]
    if stand_ins:
        card, meaning = stand_ins[0]
        wild = "joker" if card.is_joker else f"wild {card.face}"
        lines.append(f"({card.face}={meaning.face}: the {wild} stands for the {meaning.face}.)")
    if not result.proven_optimal:
        lines.append("Note: best found within the time limit, not proven optimal "
                     "(a longer --time-limit may find better).")
    return "\n".join(lines)


def _play_lines(result: LayDown, rules: Rules, after_draw: bool) -> list[str]:
    """A hand that lays down: after the draw the whole turn, before it the lay-down to come."""
    if result.go_out and after_draw:
        return ["You go out:", *_meld_lines(result.melds)]
    if not after_draw:
        return ["After your draw you can lay down:", *_meld_lines(result.melds),
                _left_line(result.leftover, result.leftover_points, "Left in hand, with the card you draw",
                           "Every card you hold is melded; the card you draw is left to discard.")]
    lines = ["You can lay down:", *_meld_lines(result.melds)]
    if result.discard is None:
        lines.append("and meld every card: you go out without a discard.")
        return lines
    if result.goes_out:
        lines.append(f"and discard {result.discard.face}: you go out.")
        return lines
    kept = list(result.leftover)
    kept.remove(result.discard)
    lines.append(f"and discard {result.discard.face}: you keep {faces(kept)} "
                 f"({_plural(result.points_after_discard or 0, 'point')}).")
    for card, meld in cards_off(kept, result.melds, rules):
        lines.append(f"(On a later turn you can lay off the {card.face} on your {meld.kind.value} {meld.describe()}.)")
    return lines


def _away_lines(result: LayDown, rules: Rules, after_draw: bool) -> list[str]:
    """A hand that cannot lay down this turn: how far it is and one way there."""
    away = result.cards_away
    assert away is not None
    let_go = result.kept_with_missing()
    if result.go_out:
        # Go-out rounds count draws: each turn draws a card and lets one go (docs/lay-down.md).
        lines = [f"Not {'this turn' if after_draw else 'yet'}: you are {_plural(away, 'draw')} from going out "
                 "(each turn you draw a card and discard one)."]
        if after_draw and let_go:
            lines.append(f"Let go of {faces(let_go)} (discard {'it' if len(let_go) == 1 else 'them'} on this and "
                         f"later turns), draw {result.describe_missing()}, and you could go out:")
        elif let_go:
            lines.append(f"Draw {result.describe_missing()} and let go of {faces(let_go)}, and you could go out:")
        else:
            lines.append(f"Draw {result.describe_missing()}, and you could go out:")
        return lines + _meld_lines(result.with_missing)
    lines = [f"Not {'this turn' if after_draw else 'yet'}: you are {_plural(away, 'card')} away.",
             f"{'This card' if away == 1 else 'These cards'} would do it: {result.describe_missing()}",
             "and then you could lay down:", *_meld_lines(result.with_missing)]
    if not after_draw:
        return lines + [_left_line(let_go, sum(rules.points_of(card) for card in let_go), "You would keep",
                                   "Every card you hold would be melded.")]
    # After the draw the witness is a whole turn's play: the melds, then its discard.
    discard, kept = witness_turn_end(result, rules)
    if discard is None:
        return lines + ["and meld every card: you would go out without a discard."]
    if not kept:
        return lines + [f"and discard {discard.face}: you would go out."]
    return lines + [f"and discard {discard.face}: you would keep {faces(kept)} "
                    f"({_plural(sum(map(rules.points_of, kept)), 'point')})."]


def render_advice(advice: Advice, rules: Rules, players: int | None = None, asked_rules: str | None = None) -> str:
    """The analysis, then the cards that would help, the discard table and the buy comparison."""
    blocks = [render(advice.lay_down, rules, asked_rules)]
    if advice.outs:
        listed = ", ".join(f"{out.card.face} ×{out.unseen}" for out in advice.outs)
        after = " after your discard" if advice.lay_down.moment == Moment.AFTER_DRAW.value else ""
        blocks.append(f"Cards that help{after} (unseen copies): {listed} — {advice.unseen_outs} in all\n"
                      + _unseen_note(advice, rules, players))
    if advice.discards:  # none when the time limit came before any row was ranked
        blocks.append(_discard_lines(advice.discards))
    if advice.buy is not None:
        blocks.append(_buy_lines(advice.buy))
    if advice.unfinished:
        blocks.append("\n".join(["Not finished within the time limit (--time-limit gives more):",
                                 *(f"  {note}" for note in advice.unfinished)]))
    return "\n\n".join(blocks)


def _unseen_note(advice: Advice, rules: Rules, players: int | None) -> str:
    """Which cards "unseen" counts: the deck less the hand, the seen cards and the offered card."""
    deck = rules.deck_for(players)
    gone = ["your hand"]
    if advice.seen:
        gone.append(_plural(len(advice.seen), "seen card"))
    if advice.buy:
        gone.append(f"the offered {advice.buy.offered.face}")
    which = f"for {players} players" if players else "the largest deck; --players N gives yours"
    return (f"(Unseen: {_plural(deck.decks, 'deck')} + {_plural(deck.jokers, 'joker')} ({which}), "
            f"less {', '.join(gone[:-1]) + ' and ' + gone[-1] if len(gone) > 1 else gone[0]}.)")


def _discard_lines(rows: Sequence[DiscardRow]) -> str:
    """The discard table, best first, columns aligned, equal rows marked ``2=``; the equal best
    rows are one line, "any of" their cards."""
    header = ("rank", "discard", "cards away", "unseen outs", "points kept", "card points")
    tied = {row.rank for row in rows if row.equal_to_previous}
    best = [row for row in rows if row.rank == 1]
    grouped = [best[0], *[row for row in rows if row.rank != 1]]
    cells = [
        ("1" if row.rank == 1 else f"{row.rank}{'=' if row.rank in tied else ''}",
         row.card.face if row.rank != 1 or len(best) == 1 else "any of " + " ".join(r.card.face for r in best),
         "never" if row.cards_away is None else str(row.cards_away), str(row.unseen_outs), str(row.points_kept),
         str(row.card_points) if row.rank != 1 or len(best) == 1 else
         "")
        for row in grouped
    ]
    widths = [max(len(text) for text in column) for column in zip(header, *cells)]
    lines = ["Which card to discard, best first:",
             "  " + "  ".join(f"{text:<{w}}" if i < 2 else f"{text:>{w}}" for i, (text, w) in
                              enumerate(zip(header, widths)))]
    for row, line in zip(grouped, cells):
        text = "  " + "  ".join(f"{cell:<{w}}" if i < 2 else f"{cell:>{w}}" for i, (cell, w) in
                                enumerate(zip(line, widths)))
        if row.rank == 1:
            text += "  ← discard " + ("this" if len(best) == 1 else "any of these")
            text += ": you go out" if row.goes_out else ": you lay down" if row.lays_down else ""
        lines.append(text)
    lines.append("(points kept: when you lay down this turn, what you hold once the turn ends; else what the "
                 "best lay-down leaves when 0 away, or all the cards you keep; unseen outs: unseen copies of "
                 "the cards that would then help)")
    return "\n".join(lines)


def _buy_lines(buy: BuyAdvice) -> str:
    """Passing and buying side by side, the verdict and its reason."""
    how = ("exact" if buy.method == "exact"
           else f"{buy.rollouts} simulated rounds, seed {buy.seed}")
    until = ("to the end of the round" if buy.horizon is None
             else f"over at most {_plural(buy.horizon, 'turn')} of yours")
    penalty = _plural(buy.penalty_cards, "penalty card") if buy.penalty_cards else "no penalty card"
    header = ("", "cards", "lays down", "goes out first", "points held")
    cells = [(name, str(option.hand_size), f"{option.lay_down_probability:.0%}",
              f"{option.go_out_probability:.0%}", f"{option.expected_points:.1f}")
             for name, option in (("pass", buy.passing), ("buy", buy.buying))]
    widths = [max(len(text) for text in column) for column in zip(header, *cells)]
    table = ["  " + "  ".join(f"{text:<{w}}" if i == 0 else f"{text:>{w}}" for i, (text, w) in
                              enumerate(zip(line, widths))) for line in (header, *cells)]
    spread = f" ±{buy.std_error:.1f}" if buy.std_error is not None else ""
    change = abs(buy.difference)
    verdict = {
        Verdict.BUY: f"BUY: buying leaves you holding {change:.1f}{spread} fewer points on average",
        Verdict.PASS: f"PASS: buying leaves you holding {change:.1f}{spread} more points on average",
        Verdict.CLOSE_CALL: f"CLOSE CALL: the two differ by {change:.1f}{spread} points on average",
        Verdict.UNDECIDED: "UNDECIDED: the time limit came before a verdict",
    }[buy.verdict]
    if buy.verdict is Verdict.UNDECIDED:
        table = []
    return "\n".join([
        f"Buy the {buy.offered.face}? With {penalty}, from your turn {buy.turn} {until}, {buy.players} players "
        f"({how}):",
        *table,
        f"Verdict: {verdict} (a close call is within {buy.margin:.1f}).",
        f"Why: {buy.reason}",
    ])


def _meld_lines(melds: Sequence[PlacedMeld]) -> list[str]:
    labels = [f"{meld.kind.value} of {len(meld.cards)}:" for meld in melds]
    width = max(map(len, labels), default=0)
    return [f"  {label:<{width}}  {meld.describe()}" for label, meld in zip(labels, melds)]


def _left_line(cards: Sequence[Card], points: int, what: str, when_none: str) -> str:
    if not cards:
        return when_none
    return f"{what}: {faces(cards)} ({points} point{'s' if points != 1 else ''})"


# ---- the rule sets ---------------------------------------------------------------------------


def render_rule_sets() -> str:
    """Every preset: source, decks, how melds work, points, and each round's deal and contract."""
    return "\n\n".join(render_rule_set(rules, _rules_title(name)) for name, rules in PRESETS.items())


def _rules_title(name: str) -> str:
    """A preset's title line: ``pagat, also liverpool``, ``progressive (default)``."""
    aliases = [alias for alias, target in ALIASES.items() if target == name]
    return name + (" (default)" if name == DEFAULT_RULES else "") + "".join(f", also {a}" for a in aliases)


def _rules_named(name: str, asked: str | None) -> str:
    """The rule set's name as the answer shows it; for an alias the player ``asked`` for, both:
    ``pagat (liverpool)``."""
    key = (asked or "").lower()
    if not key or key.endswith(".toml") or key == name or preset_key(key) != name:
        return name
    return f"{name} ({key})"


def render_rule_set(rules: Rules, title: str) -> str:
    """One rule set: source, decks, how melds work, points, and each round's deal and contract."""
    lines = [title, *_wrapped("source: " + rules.source), *_wrapped("players: " + _decks_text(rules.decks)),
             *_wrapped("melds: " + _melds_text(rules)), *_wrapped("play: " + _play_text(rules)),
             *_wrapped("points: " + _points_text(rules)),
             "    rounds:"]
    for number, rule in enumerate(rules.rounds, start=1):
        notes = []
        if rule.go_out:
            notes.append("go out")
        if rule.buys is not None or rule.buy_penalty_cards is not None:
            notes.append(_buys_text(rules.buys_in(number), rules.buy_penalty_in(number), ""))
        note = f"  [{'; '.join(notes)}]" if notes else ""
        lines.append(f"    {number:>6}. {rule.deal:>2} cards: {rule.describe_contract()}{note}")
    return "\n".join(lines)


def _wrapped(text: str) -> list[str]:
    return textwrap.wrap(text, width=96, initial_indent="    ", subsequent_indent="        ")


def _decks_text(decks: Sequence[DeckRule]) -> str:
    parts = []
    for deck in decks:
        players = str(deck.min_players) if deck.min_players == deck.max_players else f"{deck.min_players}-{deck.max_players}"
        parts.append(f"{players}: {_plural(deck.decks, 'deck')} + {_plural(deck.jokers, 'joker')}")
    return "; ".join(parts)


def _melds_text(rules: Rules) -> str:
    exact = rules.contract_mode == ContractMode.EXACT
    ace = {(True, True): "low or high", (False, True): "high only", (True, False): "low only"}
    wild = "jokers and 2s" if rules.deuces_wild else "jokers"
    if rules.deuces_wild and rules.deuces_always_wild:
        wild += " (a 2 is always wild, never natural)"
    if rules.max_wilds_per_meld is not None:
        wild += f", at most {rules.max_wilds_per_meld} per meld"
    if not rules.wilds_may_outnumber_naturals:
        wild += ", never more than the natural cards"
    parts = [
        "exactly the contract's sizes" if exact else "may be longer than the contract's sizes",
        f"same-suit runs: {rules.same_suit_runs.value}",
        f"ace {ace[rules.ace_low, rules.ace_high]}" if rules.two_position_in_runs
        else "runs from 3 up to the ace (never the 2's place), ace high only",
        f"wild: {wild}",
    ]
    if rules.distinct_set_ranks:
        parts.append("no two sets of one rank")
    return "; ".join(parts)


def _play_text(rules: Rules) -> str:
    by_round = [rule.buys is not None or rule.buy_penalty_cards is not None for rule in rules.rounds]
    if all(by_round):
        buys = "by round"
    else:
        buys = _buys_text(rules.buys_per_round, rules.buy_penalty_cards, " a round")
        buys += ", other rounds as marked" if any(by_round) else ""
    if rules.no_consecutive_buys:
        buys += ", never the same player twice in a row"
    return f"discard to go out: {rules.discard_to_go_out}; buying: {buys}"


def _buys_text(buys: int | None, penalty: int, per: str) -> str:
    if buys == 0:
        return "no buying"
    count = "unlimited buys" if buys is None else _plural(buys, "buy") + per
    return f"{count}, {_plural(penalty, 'penalty card') if penalty else 'no penalty card'}"


def _points_text(rules: Rules) -> str:
    """``A 15, 2-10 face value, J-K 10, joker 25``: consecutive ranks worth alike, grouped."""
    points: Points = rules.points
    groups: list[list[Any]] = []  # [first rank, last rank, points or FACE]
    for number, value in enumerate(points.by_rank, start=1):
        last = groups[-1] if groups else None
        if last and last[2] == value:
            last[1] = number
        elif last and value == number and (last[2] == FACE or last[0] == last[1] == last[2] == number - 1 >= 2):
            last[1:] = [number, FACE]  # 2, 3, 4...: each worth its own number
        else:
            groups.append([number, number, value])
    parts = [
        Rank(first).token + (f"-{Rank(last).token}" if last != first else "") + f" {value}"
        for first, last, value in groups
    ]
    parts.append(f"joker {points.joker}")
    if rules.deuces_wild:
        parts.append(f"wild 2 {points.wild_deuce}")
    return ", ".join(parts)


# ---- output ----------------------------------------------------------------------------------


def _write(text: str) -> None:
    """Print, falling back to suit letters (7H) where the terminal cannot show suit symbols, and
    flush: a batch streams its lines, and an output that cannot take them is said at once."""
    if sys.stdout is None:
        raise OutputError("standard output is closed: there is nowhere to write the answer")
    try:
        try:
            sys.stdout.write(text + "\n")
        except UnicodeEncodeError:
            encoding = sys.stdout.encoding or "ascii"
            sys.stdout.write(text.translate(SUIT_LETTERS).encode(encoding, "replace").decode(encoding) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise OutputError(f"cannot write the answer to standard output: {reason}") from None


def _one_line(text: str) -> str:
    return " ".join(text.split("\n"))
