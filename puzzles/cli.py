"""The ``puzzles`` command: generate, verify, show, daily, stats, and bank (build the shipped bank).

Bad input (an unknown kind or preset, a bad date, a missing or broken file, an unknown id) is one
line ``puzzles: ...`` on stderr and exit status 2, never a traceback; ``verify`` exits 1 when a
puzzle fails, naming each difference.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import date
from pathlib import Path
from typing import Any, NoReturn

from analyzer import preset
from analyzer.parallel import ENGINES, WorkerLost, ordered_map
from puzzles.balance import bank_balance, calendar_balance
from puzzles.bank import BANK_DIR, BankError, build_shard, load_bank, plan, read_puzzles
from puzzles.daily import DailyError, daily
from puzzles.model import KINDS, Kind, Puzzle

PROG = "puzzles"
BAD_INPUT = 2
FAILED = 1
DAILY_SPAN = (date(2026, 12, 1), date(2029, 11, 30))  # the three years the daily must not repeat in


class UsageError(Exception):
    """Bad input on the command line: one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


_ENGINE_HELP = (
    "process (default: --workers processes here) or ray (Ray tasks: the cluster RAY_ADDRESS names, "
    "else a local one; needs pip install '.[cluster]')"
)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG, description="Contract Rummy puzzles: generate, verify, show, the daily puzzle."
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    gen = commands.add_parser("generate", help="generate puzzles from play (JSON lines out)")
    gen.add_argument("--kind", required=True, help="lay-down, discard or buy")
    gen.add_argument("--rules", default="progressive", help="a preset name (default progressive)")
    gen.add_argument("--rounds", help="rounds to cycle through, e.g. 1,3,5-7 (default: every round)")
    gen.add_argument("--count", type=_positive, required=True, help="puzzles wanted")
    gen.add_argument("--seed", type=_natural, default=0, help="the first attempt's seed (default 0)")
    gen.add_argument("--workers", type=_positive, default=1, help="processes (default 1)")
    gen.add_argument("--engine", choices=ENGINES, default="process", help=_ENGINE_HELP)
    gen.add_argument("--planted", action="store_true", help="planted lay-down positions instead of play")
    gen.add_argument(
        "--max-attempts", type=_positive, help="give up after this many seeds (default 200 x count)"
    )
    gen.add_argument("--out", help="write to this file (.jsonl or .jsonl.gz) instead of standard output")

    ver = commands.add_parser("verify", help="re-derive every puzzle of a file; exit 1 on any difference")
    ver.add_argument("file", nargs="+", help="a .jsonl or .jsonl.gz file, or a bank directory (every shard)")
    ver.add_argument("--sample", type=_positive, help="verify a seeded sample of this many puzzles")
    ver.add_argument("--seed", type=_natural, default=0)
    ver.add_argument(
        "--in-play",
        action="store_true",
        help="judge each discard and buy puzzle's answer against its runner-up (buy: the other "
        "choice) by playing the round on over the same deals of the hidden cards (a verdict per "
        "puzzle, a summary by criterion)",
    )
    ver.add_argument("--deals", type=_positive, default=40, help="--in-play: deals per puzzle (default 40)")

    show = commands.add_parser("show", help="show a puzzle as a player sees it")
    show.add_argument("id", help="the puzzle's id (12 hex digits, or a unique prefix)")
    show.add_argument("--answer", action="store_true", help="also the answers and why")
    show.add_argument("--bank", help="a bank file or directory (default: the shipped bank)")

    day = commands.add_parser("daily", help="the daily puzzle")
    day.add_argument("--date", help="YYYY-MM-DD (default today)")
    day.add_argument("--answer", action="store_true")
    day.add_argument("--bank", help="a bank file or directory (default: the shipped bank)")

    stats = commands.add_parser("stats", help="counts by kind, preset, theme and difficulty")
    stats.add_argument("--bank", help="a bank file or directory (default: the shipped bank)")

    bank = commands.add_parser("bank", help="build (or resume) the bank by the fixed plan")
    bank.add_argument(
        "--dir", default=str(BANK_DIR), help="where the shards go (default: the package's bank)"
    )
    bank.add_argument(
        "--scale", type=float, default=1.0, help="targets times this (default 1: the full bank)"
    )
    bank.add_argument("--rules", action="append", help="only this preset (repeatable)")
    bank.add_argument("--kind", action="append", help="only this kind (repeatable)")
    bank.add_argument("--workers", type=_positive, default=1)
    bank.add_argument("--engine", choices=ENGINES, default="process", help=_ENGINE_HELP)
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return int(COMMANDS[args.command](args))
    except UsageError as error:
        return _fail(str(error))
    except (BankError, DailyError, ValueError) as error:  # ValueError: also an engine unknown or missing
        return _fail(str(error))
    except WorkerLost as error:  # `puzzles bank` resumes from the shards it wrote
        print(f"{PROG}: {error}", file=sys.stderr)
        return FAILED
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def main() -> int:
    return run()


def _fail(message: str) -> int:
    print(f"{PROG}: {message.splitlines()[0] if message else 'bad input'}", file=sys.stderr)
    return BAD_INPUT


# ---- argument types ------------------------------------------------------------------------------


def _positive(text: str) -> int:
    value = _natural(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {text!r}")
    return value


def _natural(text: str) -> int:
    if not text.isdigit() or len(text) > 9:
        raise argparse.ArgumentTypeError(f"not a whole number from 0 to 999999999: {text!r}")
    return int(text)


def _kind(text: str) -> Kind:
    if text not in KINDS:
        raise UsageError(f"unknown kind {text!r}: lay-down, discard or buy")
    return Kind(text)


def _preset(text: str) -> str:
    rules = preset(text)  # RulesError names the nearest preset
    return rules.name


def _rounds(text: str | None, rules: str, kind: str) -> list[int]:
    rule_set = preset(rules)
    every = [n for n in range(1, len(rule_set.rounds) + 1) if kind != Kind.BUY or rule_set.buys_in(n) != 0]
    if text is None:
        if not every:
            raise UsageError(f"{rules!r} allows no buying in any round")
        return every
    numbers: list[int] = []
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        if not low.isdigit() or (high and not high.isdigit()) or len(part) > 9:
            raise UsageError(f"--rounds: not a round or a range of rounds: {part.strip()!r}")
        numbers += range(int(low), int(high or low) + 1)
    for number in numbers:
        rule_set.round(number)
        if kind == Kind.BUY and rule_set.buys_in(number) == 0:
            raise UsageError(f"{rules!r} allows no buying in round {number}")
    if not numbers:
        raise UsageError("--rounds names no round")
    return numbers


def _date(text: str | None) -> date:
    if text is None:
        return date.today()
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--date: not a date in the form YYYY-MM-DD: {text!r}") from None


def _bank(where: str | None) -> list[Puzzle]:
    if where is None:
        puzzles = load_bank()
    elif Path(where).is_dir():
        puzzles = load_bank(where)
    else:
        puzzles = read_puzzles(where)
    if not puzzles:
        raise BankError(f"no puzzles in {where or BANK_DIR}")
    return puzzles


# ---- generate ------------------------------------------------------------------------------------


def _attempt(job: tuple[str, str, int, int, str]) -> Puzzle | None:
    from puzzles.generate import GenerationError, generate

    kind, rules, round_number, seed, source = job
    try:
        return generate(kind, rules, round_number, seed, source=source)
    except GenerationError as error:  # the analyser contradicts itself: say so, skip the seed
        print(
            f"{PROG}: seed {seed} ({kind}, {rules} round {round_number}): {error}",
            file=sys.stderr,
            flush=True,
        )
        return None


def generate_many(
    kind: str,
    rules: str,
    rounds: Sequence[int],
    source: str,
    start: int,
    count: int,
    workers: int = 1,
    max_attempts: int | None = None,
    engine: str = "process",
) -> Iterator[Puzzle]:
    """The first ``count`` puzzles of attempts ``start``, ``start + 1``, ...: attempt ``i`` is
    ``generate(kind, rules, rounds[i % len(rounds)], i)``. The same for any number of workers,
    and on either engine: ``ray`` runs the same pure function as Ray tasks, taken in order."""
    limit = max_attempts or 200 * count
    jobs = ((kind, rules, rounds[i % len(rounds)], i, source) for i in range(start, start + limit))
    with contextlib.closing(ordered_map(_attempt, jobs, workers, engine)) as results:
        yield from itertools.islice((puzzle for puzzle in results if puzzle is not None), count)


def _generate(args: argparse.Namespace) -> int:
    kind = _kind(args.kind)
    rules = _preset(args.rules)
    if args.planted and kind != Kind.LAY_DOWN:
        raise UsageError("--planted makes lay-down puzzles only")
    rounds = _rounds(args.rounds, rules, kind)
    puzzles = generate_many(
        kind,
        rules,
        rounds,
        "planted" if args.planted else "play",
        args.seed,
        args.count,
        args.workers,
        args.max_attempts,
        args.engine,
    )
    if args.out:
        from puzzles.bank import write_puzzles

        write_puzzles(args.out, list(puzzles))
        return 0
    for puzzle in puzzles:
        sys.stdout.write(json.dumps(puzzle.to_dict(), separators=(",", ":")) + "\n")
        sys.stdout.flush()
    return 0


# ---- verify --------------------------------------------------------------------------------------


def _verify(args: argparse.Namespace) -> int:
    from puzzles.verify import check, sample

    puzzles = [puzzle for path in args.file
               for puzzle in (load_bank(path) if Path(path).is_dir() else read_puzzles(path))]
    if args.in_play:
        from puzzles.inplay import run

        run(sample([p for p in puzzles if p.kind in ("discard", "buy")], args.sample, args.seed), args.deals)
        return 0
    failed = checked = noted = 0
    for puzzle in sample(puzzles, args.sample, args.seed):
        checked += 1
        report = check(puzzle)
        where = f"{puzzle.id} ({puzzle.kind}, {puzzle.rules} round {puzzle.round})"
        for problem in report.problems:
            print(f"{where}: {problem}")
        for note in report.notes:
            print(f"{where}: note: {note}")
        failed += bool(report.problems)
        noted += bool(report.notes)
    notes = f" ({noted} with figures that differ, answers and acceptance the same)" if noted else ""
    print(f"{checked} puzzles verified, {failed} failed{notes}")
    return FAILED if failed else 0


# ---- show and daily ------------------------------------------------------------------------------


def _show(args: argparse.Namespace) -> int:
    puzzles = _bank(args.bank)
    matches = {p.id: p for p in puzzles if p.id.startswith(args.id.lower())}
    if not args.id or len(matches) != 1:
        raise UsageError(
            f"no puzzle with id {args.id!r}"
            if not matches
            else f"{len(matches)} puzzles have ids starting {args.id!r}; give more digits"
        )
    print(describe(next(iter(matches.values())), args.answer))
    return 0


def _daily(args: argparse.Namespace) -> int:
    day = _date(args.date)
    puzzle = daily(_bank(args.bank), day)
    print(f"Daily puzzle for {day.isoformat()}: {puzzle.id}")
    print(describe(puzzle, args.answer))
    return 0


def _faces(cards: Sequence[Any]) -> str:
    return " ".join(card.face for card in cards) or "(none)"


def describe(puzzle: Puzzle, answer: bool = False) -> str:
    """The position as the player sees it; with ``answer`` the accepted answers and why."""
    rules = preset(puzzle.rules)
    rule = rules.round(puzzle.round)
    question = {
        Kind.LAY_DOWN: "Can you lay down? Lay down the contract and discard, or say it cannot be done.",
        Kind.DISCARD: "Which card do you discard?",
        Kind.BUY: f"The player before you passes the {puzzle.offered.face if puzzle.offered else '?'}: "
        f"buy it (with {rules.buy_penalty_in(puzzle.round)} penalty card(s)) or pass?",
    }[puzzle.kind]
    lines = [
        (
            f"Puzzle {puzzle.id}: {puzzle.kind}, {puzzle.rules} round {puzzle.round} "
            f"({rule.describe_contract()}"
            f"{', go-out round' if rule.go_out else ''}), {puzzle.players} players, your turn {puzzle.turn}, "
            f"{puzzle.moment.value.replace('-', ' ')}"
        ),
        f"Your hand ({len(puzzle.hand)} cards): {_faces(puzzle.hand)}",
        (
            f"Discard pile ({len(puzzle.discard_pile)}): {_faces(puzzle.discard_pile[-12:])}"
            + (" (last 12)" if len(puzzle.discard_pile) > 12 else "")
        ),
    ]
    for seat, melds in enumerate(puzzle.table):
        if melds:
            who = "you" if seat == puzzle.seat else f"seat {seat}"
            lines.append(f"On the table ({who}): " + "; ".join(meld.describe() for meld in melds))
    lines.append(question)
    if answer:
        lines.append("")
        lines += _answer_lines(puzzle)
    return "\n".join(lines)


def _answer_lines(puzzle: Puzzle) -> list[str]:
    lines = []
    if puzzle.kind is Kind.LAY_DOWN:
        if puzzle.best_points is None:
            lines.append("Answer: it cannot be done.")
        else:
            assert puzzle.solution is not None
            lines.append(
                f"Answer: any legal play that keeps {puzzle.best_points} points when the turn ends, e.g."
            )
            lines += [f"  {meld.kind.value}: {meld.describe()}" for meld in puzzle.solution.melds]
            lines.append(
                f"  discard {puzzle.solution.discard.face}" if puzzle.solution.discard else "  no discard"
            )
    elif puzzle.kind is Kind.DISCARD:
        lines.append("Answer: discard " + " or ".join(a for a in puzzle.answers))
    else:
        lines.append(f"Answer: {puzzle.answers[0]}")
    if puzzle.analysis is not None and puzzle.analysis.reason:
        lines.append(f"Why: {puzzle.analysis.reason}")
    lines.append(
        f"Themes: {', '.join(puzzle.themes) or '(none)'}; rating {puzzle.rating}; "
        f"{'planted' if puzzle.source == 'planted' else 'from play'} (seed {puzzle.seed}, {puzzle.generator})"
    )
    return lines


# ---- stats ---------------------------------------------------------------------------------------


def _stats(args: argparse.Namespace) -> int:
    puzzles = _bank(args.bank)
    print(f"{len(puzzles)} puzzles")
    print("by kind and preset:")
    by = Counter((p.rules, p.kind) for p in puzzles)
    for name in sorted({p.rules for p in puzzles}, key=lambda n: (n != "progressive", n)):
        counts = ", ".join(f"{kind} {by[name, kind]}" for kind in KINDS)
        print(f"  {name:15} {counts}")
    print(
        "by source: " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(p.source for p in puzzles).items()))
    )
    print("by theme:")
    for theme, count in Counter(t for p in puzzles for t in p.themes).most_common():
        print(f"  {theme:20} {count}")
    print("by difficulty:")
    for low, count in sorted(Counter(p.rating // 200 * 200 for p in puzzles).items()):
        print(f"  {low}-{low + 199}: {count}")
    print("balance by shard:")
    for shard in bank_balance(puzzles):
        print(f"  {shard.line()}")
    if puzzles:
        print(calendar_balance(puzzles, DAILY_SPAN[0], DAILY_SPAN[1]).line())
    return 0


# ---- bank ----------------------------------------------------------------------------------------


def _build_bank(args: argparse.Namespace) -> int:
    presets = [_preset(name) for name in args.rules] if args.rules else None
    kinds = [_kind(kind) for kind in args.kind] if args.kind else list(KINDS)
    if not 0 < args.scale <= 10:
        raise UsageError(f"--scale must be above 0 and at most 10, not {args.scale}")
    directory = Path(args.dir)
    directory.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()

    def report(text: str) -> None:
        print(f"[{time.monotonic() - started:7.0f}s] {text}", file=sys.stderr, flush=True)

    def many(
        kind: str, rules: str, rounds: Sequence[int], source: str, start: int, count: int
    ) -> Iterator[Puzzle]:
        return generate_many(kind, rules, rounds, source, start, count, args.workers, engine=args.engine)

    for shard in plan(args.scale, presets, kinds):
        puzzles = build_shard(shard, directory, many, report)
        report(f"{shard.name}: done, {len(puzzles)} puzzles")
    return 0


COMMANDS = {
    "generate": _generate,
    "verify": _verify,
    "show": _show,
    "daily": _daily,
    "stats": _stats,
    "bank": _build_bank,
}
