"""The ``rummy-arena`` command: seeded rounds between two policies in duplicate, and who is stronger.

    rummy-arena --rules progressive --rounds 1-7 --players 4 --challenger advised \\
        --opponents simulated --seeds 0-199 [--workers N | --engine ray] [--json] [--plot FILE] [--game] \\
        [--records DIR] [--save FILE]

The text has a table per round and the total; ``--json`` the same figures as one object, but for
the time per decision (machines differ), so that the same seeds give it byte for byte here, in
``--workers`` processes or as Ray tasks. A progress bar goes to stderr when it is a terminal.
``--save FILE`` keeps each seed in FILE as it finishes and takes from it the seeds it holds
already (``arena.saved``): a long run resumes, and a figure grows over several sittings.

Bad input (an unknown policy or rule set, seeds ``5-2``, 0 players, a round the rules lack,
``--workers 0``) is one line ``rummy-arena: ...`` on stderr and exit status 2, never a traceback.
A worker process that dies (killed, out of memory) ends the run with one line and status 1, the
seeds saved so far kept, rather than a run that waits for its seed for ever.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from analyzer import Policy, Rules, Table, load_rules, write_record
from analyzer.parallel import ENGINES, EngineError, WorkerLost, ordered_map
from arena import saved as saved_seeds
from arena.duplicate import Match, SeedResult, play_seed
from arena.policies import PolicyName
from arena.report import report, svg, text
from arena.saved import Saved, SaveError

PROG = "rummy-arena"
BAD_INPUT = 2
WORKER_LOST = 1
Job = tuple[Match, int, int, bool]  # (match, round, seed, keep each table's game record)
_NOBODY: Policy = None  # type: ignore[assignment]  # a seat of a trial deal, never asked to play


class UsageError(Exception):
    """Bad input on the command line: one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Duplicate play between two policies: each seed's deal is played "
                     "with the challenger in every seat against copies of the opponents' policy.")
    names = ", ".join(PolicyName)
    parser.add_argument("--rules", default="progressive", help="a preset name or a .toml rules file (default progressive)")
    parser.add_argument("--rounds", help="rounds, e.g. 1-7 or 1,3,6 (default: every round of the rules)")
    parser.add_argument("--players", type=_whole, default=4, help="at the table (default 4)")
    parser.add_argument("--challenger", default="advised", help=f"the policy measured: {names} (default advised)")
    parser.add_argument("--opponents", default="simulated", help="the other seats' policy (default simulated)")
    parser.add_argument("--seeds", default="0-99", help="deals, e.g. 0-199 (default 0-99)")
    parser.add_argument("--workers", type=_positive, default=1, help="processes (default 1)")
    parser.add_argument("--engine", choices=ENGINES, default="process",
                        help="process (default: --workers processes here) or ray (Ray tasks: the cluster "
                             "RAY_ADDRESS names, else a local one; needs pip install '.[cluster]')")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    parser.add_argument("--plot", metavar="FILE", help="write an SVG of relative points per round with their 95%% CI")
    parser.add_argument("--records", metavar="DIR",
                        help="write each table as a game record, DIR/RULES-round-R-seed-S-seat-N.json (the "
                             "challenger's seat); review one with: analyze review FILE --seat N")
    parser.add_argument("--save", metavar="FILE",
                        help="add each seed to FILE as it finishes, and take from FILE the seeds it holds "
                             "(a stopped run resumes; FILE holds one match)")
    parser.add_argument("--game", action="store_true",
                        help="a whole game: every round of the rules, the total each seed's sum over them")
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(build_parser().parse_args(argv))
    except (UsageError, SaveError, EngineError) as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return BAD_INPUT
    except WorkerLost as error:
        print(f"{PROG}: {error}; the seeds saved so far are kept: the same command with --save resumes",
              file=sys.stderr)
        return WORKER_LOST


def _run(args: argparse.Namespace) -> int:
    rules = _rules(args.rules)
    if args.game and args.rounds:
        raise UsageError("--game plays every round of the rules: leave out --rounds")
    rounds = list(range(1, len(rules.rounds) + 1)) if args.game or not args.rounds else _rounds(args.rounds, rules)
    first, last = _seeds(args.seeds)
    _check_table(rules, rounds, args.players)
    match = Match(args.rules, args.players, _policy(args.challenger), _policy(args.opponents))
    records = _records_dir(args.records) if args.records else None
    saved: Saved = {}
    if args.save:
        saved, note = saved_seeds.load(Path(args.save), match)
        if note:
            print(f"{PROG}: {note}", file=sys.stderr)
    wanted = [(number, seed) for number in rounds for seed in range(first, last + 1)]
    jobs = [(match, number, seed, records is not None) for number, seed in wanted if (number, seed) not in saved]
    played: dict[tuple[int, int], SeedResult] = {}
    with contextlib.ExitStack() as stack, _progress(len(jobs)) as tick:
        save = stack.enter_context(saved_seeds.appender(Path(args.save))) if args.save else None
        for result in stack.enter_context(contextlib.closing(play_all(jobs, args.workers, args.engine))):
            if records is not None:
                _write_records(records, rules.name, result)
            if save is not None:
                saved_seeds.append(save, match, [result])
            played[result.round_number, result.seed] = result
            tick()
    results = [saved[key] if key in saved else played[key] for key in wanted]
    rep = report(match, rules.name, (first, last), args.game, results)
    if args.plot:
        try:
            Path(args.plot).write_text(svg(rep))
        except OSError as error:
            raise UsageError(f"cannot write {args.plot}: {error.strerror}") from None
    if args.json:
        sys.stdout.write(json.dumps(rep.to_dict(), indent=1) + "\n")
    else:
        sys.stdout.write(text(rep))
    return 0


def play_all(jobs: Sequence[Job], workers: int = 1, engine: str = "process") -> Generator[SeedResult, None, None]:
    """``play_seed`` of each job, in job order: here, in ``workers`` processes or as Ray tasks
    (``analyzer.parallel``), the same results (each a pure function of its job)."""
    return ordered_map(_play, jobs, workers, engine)


def _play(job: Job) -> SeedResult:
    match, number, seed, record = job
    return play_seed(match, number, seed, record=record)


def _records_dir(name: str) -> Path:
    """The directory for ``--records``, made if it is not there."""
    path = Path(name)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"cannot make the records directory {name}: {error.strerror}") from None
    return path


def _write_records(path: Path, rules: str, result: SeedResult) -> None:
    """Each table of the seed as its own record file, named by the challenger's seat."""
    for table in result.tables:
        assert table.record is not None
        name = path / f"{rules}-round-{result.round_number}-seed-{result.seed}-seat-{table.seat}.json"
        try:
            write_record(table.record, name)
        except OSError as error:
            raise UsageError(f"cannot write {name}: {error.strerror}") from None


@contextlib.contextmanager
def _progress(total: int) -> Iterator[Any]:
    """A progress bar on stderr, when it is a terminal: seeds played of all, and the time left."""
    done = 0
    start = time.monotonic()
    shown = sys.stderr.isatty()

    def tick() -> None:
        nonlocal done
        done += 1
        if not shown:
            return
        width = 30
        filled = width * done // total
        elapsed = time.monotonic() - start
        left = elapsed / done * (total - done)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} seeds, "
                         f"{elapsed:.0f} s, about {left:.0f} s left ")
        sys.stderr.flush()

    try:
        yield tick
    finally:
        if shown and done:
            sys.stderr.write("\n")


# ---- arguments ---------------------------------------------------------------------------------------


def _whole(text_: str) -> int:
    try:
        return int(text_)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text_!r}") from None


def _positive(text_: str) -> int:
    value = _whole(text_)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _rules(name: str) -> Rules:
    try:
        return load_rules(name)
    except (ValueError, OSError) as error:
        raise UsageError(str(error)) from None


def _check_table(rules: Rules, rounds: Sequence[int], players: int) -> None:
    """That the rules deal every round to ``players`` (a trial deal: nobody plays it)."""
    if players < 2:
        raise UsageError(f"a table needs at least 2 players, not {players}")
    try:
        for number in rounds:
            Table.deal(rules, number, players, 0, [_NOBODY] * players)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _policy(name: str) -> PolicyName:
    try:
        return PolicyName.named(name)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _seeds(spec: str) -> tuple[int, int]:
    """``A-B`` (A to B, both in) or ``N`` (one seed)."""
    first, _, last = spec.partition("-")
    try:
        a, b = int(first), int(last or first)
    except ValueError:
        raise UsageError(f"seeds are a range such as 0-199, not {spec!r}") from None
    if a < 0 or b < a:
        raise UsageError(f"seeds are a range from a smaller to a larger number, not {spec!r}")
    return a, b


def _rounds(spec: str, rules: Rules) -> list[int]:
    """``1-7``, ``1,3,6`` or both (``1,3-5``), each a round the rules have."""
    numbers: list[int] = []
    for part in spec.split(","):
        first, _, last = part.strip().partition("-")
        try:
            a, b = int(first), int(last or first)
        except ValueError:
            raise UsageError(f"rounds are numbers or ranges such as 1-7 or 1,3,6, not {spec!r}") from None
        if b < a:
            raise UsageError(f"rounds are a range from a smaller to a larger number, not {part.strip()!r}")
        for number in range(a, b + 1):
            if not 1 <= number <= len(rules.rounds):
                raise UsageError(f"round {number} does not exist in {rules.name!r}: it has rounds 1 to "
                                 f"{len(rules.rounds)}")
            if number not in numbers:
                numbers.append(number)
    return sorted(numbers)
