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
import dataclasses
import io
import json
import math
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from importlib import resources
from typing import IO, Any, NoReturn

from analyzer import (
    DEFAULT_TIME_LIMIT,
    AdviceError,
    HandError,
    Moment,
    OptionError,
    Question,
    QuestionError,
    RulesError,
    answer,
    load_rules,
)
from analyzer.advice import Advice
from analyzer.arguments import BUY_ONLY, DOWN_ONLY, FIELDS, MAX_TIME_LIMIT
from analyzer.buy import DEFAULT_ROLLOUTS, DEFAULT_TURN
from analyzer.files import open_regular_file
from analyzer.question import DEFAULT_RULES, MAX_DIGITS, SAMPLE, ask
from analyzer.render import render_advice, render_rule_set, render_rule_sets, rules_title
from analyzer.rules import PRESETS, parse_rules_text, preset_key, read_rules_file

PROG = "analyze"
MAX_FILE_BYTES = 64 * 1024  # a hand is a few dozen bytes: refuse anything larger before reading it
MAX_LINE_BYTES = 64 * 1024  # per batch line; the batch file itself may be as long as it likes
MAX_SKIPPED_BYTES = 16 * 1024 * 1024  # a "line" longer than this is no batch (``--batch - < /dev/zero``)
EXAMPLE_FILE, EXAMPLE_ROUND = "round3.txt", 3  # the bundled hand is for progressive round 3
SUIT_LETTERS = str.maketrans({"♣": "C", "♦": "D", "♥": "H", "♠": "S", "×": "x", "—": "-", "←": "<-"})


USER_ERRORS = (QuestionError, HandError, RulesError, AdviceError, OptionError)  # ValueErrors the API documents


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
    """``--round``, ``--players``...: a whole number of a sensible size (never 5000 digits), as
    a question's fields are."""
    digits = text.strip().lstrip("+-")
    if not digits.isdigit() or len(digits) > MAX_DIGITS:
        shown = text if len(text) <= 20 else text[:17] + "..."
        raise argparse.ArgumentTypeError(f"a whole number of at most {MAX_DIGITS} digits, not {shown!r}")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Find the best lay-down of a Contract Rummy round's contract for a hand: the melds "
        "that leave the fewest penalty points, or how many cards away the hand is and which cards "
        "would do it.",
        epilog="Cards: 7H 10h TH QS joker (or JK, *), separated by spaces, commas or new lines; "
        "# starts a comment. Exit status: 0 done, 2 bad input (in a batch: some line was bad). "
        "Review a game record: analyze review GAME.json [--seat N] [--json] (see analyze review --help).",
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
                        help="buys you have made this round (default 0): where buying is unlimited, the hand "
                        "may hold their cards; with --buy, whether the rules allow another")
    advice.add_argument("--bought-last", action="store_true",
                        help="with --buy: the last card bought this round was bought by you")
    down = parser.add_argument_group(
        "once your contract is down", "which cards to lay off (on any meld on the table the rules allow), which "
        "to discard, and whether to take the face-up card; melds are cards with | between them, JK=9H says what "
        "a wild card stands for; see docs/advice.md")
    down.add_argument("--down", metavar="MELDS", help="your melds on the table, e.g. \"5S 6S 7S 8S | QH QD QC\"; "
                      "the hand is after your draw")
    down.add_argument("--table", metavar="MELDS", help="with --down: the other players' melds, ; between players, "
                      "e.g. \"KH KD KS ; 7D 8D JK 10D\"")
    down.add_argument("--face-up", metavar="CARD", help="with --down: the face-up discard, the hand before your "
                      "draw: take it or draw?")
    parser.add_argument("--batch", metavar="FILE.jsonl",
                        help=f"analyse one JSON object per line, e.g. {SAMPLE}; one JSON line out per "
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
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["review"]:
        return run_review(words[1:])
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
        if args.down is not None:
            return run_down(args)
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


class _ReviewParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {PROG} review --help)")


def build_review_parser() -> argparse.ArgumentParser:
    parser = _ReviewParser(prog=f"{PROG} review",
                     description="Review a game record: each decision of one seat beside the analyser's advice, "
                     "the ranked choices, whether they match, and an estimated cost of each mismatch in points "
                     "(docs/records.md).",
                     epilog="Exit status: 0 done, 2 a file that is no game record or does not replay.")
    parser.add_argument("record", metavar="GAME.json", help="a game record (rummy-arena --records writes them)")
    parser.add_argument("--seat", type=_whole_number, default=0, metavar="N",
                        help="the seat to review, from 0 as in the record (default 0)")
    parser.add_argument("--json", action="store_true", help="print the review as JSON")
    return parser


def run_review(argv: Sequence[str]) -> int:
    """``analyze review GAME.json [--seat N] [--json]``: the exit status."""
    from analyzer.records import RecordError, read_record
    from analyzer.review import render_review, review_game

    try:
        args = build_review_parser().parse_args(argv)
        reviewed = review_game(read_record(args.record), args.seat)
        _write(json.dumps(reviewed.to_dict()) if args.json else render_review(reviewed))
        return 0
    except (UsageError, RecordError, *USER_ERRORS) as error:
        _say(f"review: {_one_line(str(error))}")
        return 2
    except BrokenPipeError:
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
        _write(render_rule_set(rules, rules_title(rules.name)))
    return 0


# ---- one hand --------------------------------------------------------------------------------


def run_one(args: argparse.Namespace) -> int:
    round_number = args.round
    if round_number is None and args.example:
        round_number = EXAMPLE_ROUND
    if round_number is None:
        raise UsageError("missing --round: say which round the hand is for, e.g. --round 6")
    down_only = [name for name in DOWN_ONLY if getattr(args, name) is not None]
    if down_only:
        raise UsageError(f"--{down_only[0].replace('_', '-')} goes with --down MELDS (your melds on the table)")
    stray = [name for name in BUY_ONLY if getattr(args, name) not in (None, False)]
    if args.buy is None and stray:
        raise UsageError(f"{'--' + stray[0].replace('_', '-')} goes with --buy CARD")
    if args.example:
        text = resources.files("analyzer").joinpath("examples", EXAMPLE_FILE).read_text(encoding="utf-8")
    else:
        text = read_hand_file(args.hand_file)
    question = Question.from_json({**_options(args), "hand": text, "round": round_number})
    if args.json:
        _write(json.dumps(answer(question)))
        return 0
    advice = ask(dataclasses.replace(question, outs=True))  # the text always shows the outs
    assert isinstance(advice, Advice)
    _write(render_advice(advice, question.rules, args.players, asked_rules=args.rules))
    return 0


def run_down(args: argparse.Namespace) -> int:
    """``--down``: the advice once the contract is down (``analyzer.advise_down``)."""
    from analyzer.down import DownAdvice
    from analyzer.render import render_down

    stray = [option for option, given in (("--buy", args.buy), ("--discards", args.discards), ("--outs", args.outs),
                                          ("--before-draw or --after-draw", args.moment),
                                          *((f"--{name.replace('_', '-')}", getattr(args, name))
                                            for name in ("buys_used", *BUY_ONLY)))
             if given not in (None, False)]
    if stray:
        raise UsageError(f"{stray[0]} does not go with --down (the hand is after your draw; with --face-up, before "
                         "it; the discard table is always shown)")
    if args.round is None and not args.example:
        raise UsageError("missing --round: say which round the hand is for, e.g. --round 6")
    number = args.round if args.round is not None else EXAMPLE_ROUND
    if args.example:
        text = resources.files("analyzer").joinpath("examples", EXAMPLE_FILE).read_text(encoding="utf-8")
    else:
        text = read_hand_file(args.hand_file)
    advice = ask(Question.from_json({**_options(args), "hand": text, "round": number}))
    assert isinstance(advice, DownAdvice)
    _write(json.dumps(advice.to_dict()) if args.json else render_down(advice))
    return 0


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The question's fields the command line gives, as JSON values (a batch line's defaults)."""
    return {name: value for name, value in vars(args).items() if name in FIELDS}


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
    defaults = _options(args)
    errors: list[str] = []
    asked = 0
    with _opened(args.batch, "standard input" if args.batch == "-" else f"batch file {args.batch!r}") as stream:
        for number, (line, whole) in enumerate(_batch_lines(stream), start=1):
            if whole and not line.strip():
                continue
            asked += 1
            try:
                if not whole:
                    raise UsageError(f"the line is longer than {MAX_LINE_BYTES // 1024} KiB")
                answered = answer(Question.from_json(_batch_job(line), defaults=defaults))
            except (UsageError, *USER_ERRORS) as error:
                answered = {"error": f"line {number}: {_one_line(str(error))}"}
                errors.append(answered["error"])
            _write(json.dumps(answered))
    if errors:
        raise UsageError(f"{len(errors)} of {asked} batch lines had errors, the first at {errors[0]}")
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


def _batch_job(line: bytes) -> Any:
    """A batch line's JSON value."""
    try:
        text = line.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError("the line is not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"not JSON ({error.msg} at column {error.colno}); expected e.g. {SAMPLE}") from None
    except RecursionError:
        raise UsageError("the JSON is nested too deeply; each line is one flat object") from None
    except ValueError:  # an integer of thousands of digits
        raise UsageError("the line holds a number far too large") from None


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
