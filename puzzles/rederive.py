"""Carry the bank over a deliberate change of the generator: every puzzle derived again, kept
when its answers come out as stored, retired when they do not.

    python -m puzzles.rederive                    # the shipped bank (puzzles/bank/)
    python -m puzzles.rederive DIR --workers 2
    python -m puzzles.bank ... / puzzles bank      # then top the short shards up from new seeds

Speed work on the analyser may change which of several equally good arrangements CP-SAT returns
(a new ``GENERATOR``). Simulated play then takes other turns, a buy verdict's rollouts other
figures, and the capped count of plays near the best other plays. A stored puzzle's position
stays a position, so each is derived again from it (``derive``, with its stored best play, as
``puzzles verify`` does):

- **kept**: the position is still accepted, and its answers (a lay-down's optimum and best play
  too) come out as stored. It is written as derived now: its rating, figures and themes those of
  the new generator, its id (a hash of the position), position and answers the same, so the
  trainer's stored attempts and the daily rule's answers stand. A lay-down keeps the analysis of
  its stored play and the "why" sentence about it;
- **retired**: anything else (no longer clear: a buy verdict now within three standard errors of
  the close call, or the second seed disagreeing). It moves, as stored, to the bank's ``retired``
  folder (``puzzles.bank.RETIRED``): never served again, still readable for the attempts made
  on it. The daily calendar deals its slot's days among the puzzles left.

Every file is written whole (``write_puzzles``: a temporary file, then renamed), the retired one
first, so an interrupted run loses nothing: run it again and it derives again.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from analyzer.parallel import WorkerLost, ordered_map
from puzzles.bank import BANK_DIR, RETIRED, BankError, bank_files, read_puzzles, write_puzzles
from puzzles.check import check_lay_down
from puzzles.generate import GENERATOR, derive
from puzzles.model import Kind, LayDownAnalysis, Puzzle
from puzzles.verify import position_of

# What must come out of the new generator as stored for a puzzle to be kept: the answers a
# player is scored against, and a lay-down's optimum and the play shown as its solution.
KEPT_FIELDS = ("answers", "best_points", "solution")


@dataclass(frozen=True)
class Outcome:
    """One puzzle carried over: the puzzle to ship (None: retired) and why it was retired."""

    stored: Puzzle
    kept: Puzzle | None
    reasons: tuple[str, ...] = ()


def derive_again(puzzle: Puzzle) -> Puzzle | None:
    """The puzzle derived from its position by this generator, with its stored best play when
    that play is right (``puzzles verify``'s own derivation)."""
    best_play = None
    if puzzle.kind is Kind.LAY_DOWN and puzzle.solution is not None and check_lay_down(puzzle, puzzle.solution).right:
        best_play = puzzle.solution
    return derive(position_of(puzzle), best_play)


def settle(stored: Puzzle, again: Puzzle | None) -> Outcome:
    """Keep ``again`` (the new derivation) when its answers are the stored ones, else retire."""
    if again is None:
        return Outcome(stored, None, ("the position is no longer accepted as a clear puzzle",))
    reasons = tuple(
        f"{name}: stored {getattr(stored, name)}, derived {getattr(again, name)}"
        for name in KEPT_FIELDS
        if getattr(stored, name) != getattr(again, name)
    )
    if reasons:
        return Outcome(stored, None, reasons)
    kept = dataclasses.replace(again, generator=GENERATOR)
    if isinstance(stored.analysis, LayDownAnalysis) and isinstance(again.analysis, LayDownAnalysis):
        # The stored play is the answer shown; the new solver may prefer another of equal merit
        # (or, for a hand that cannot lay down, name another missing card). What the player reads
        # under "Why" stays the sentence about the play they are shown.
        analysis = dataclasses.replace(again.analysis, best=stored.analysis.best, reason=stored.analysis.reason)
        kept = dataclasses.replace(kept, analysis=analysis)
    return Outcome(stored, kept)


def rederive(puzzle: Puzzle) -> Outcome:
    return settle(puzzle, derive_again(puzzle))


def carry_shard(path: Path, outcomes: Sequence[Outcome]) -> tuple[int, int]:
    """Write one shard's outcomes: the kept puzzles in their order, the retired ones appended to
    ``retired/<shard>``. Returns (kept, retired)."""
    retired = [outcome.stored for outcome in outcomes if outcome.kept is None]
    if retired:
        retired_path = path.parent / RETIRED / path.name
        retired_path.parent.mkdir(exist_ok=True)
        before = read_puzzles(retired_path) if retired_path.exists() else []
        known = {puzzle.id for puzzle in before}
        write_puzzles(retired_path, [*before, *(puzzle for puzzle in retired if puzzle.id not in known)])
    write_puzzles(path, [outcome.kept for outcome in outcomes if outcome.kept is not None])
    return len(outcomes) - len(retired), len(retired)


def rederive_files(
    paths: Iterable[Path], workers: int = 1, report: Callable[[str], None] = print
) -> tuple[int, int]:
    """Carry every file over (``rederive`` each puzzle, ``carry_shard``); (kept, retired) in all.
    Every file is read before any is written, so a broken one stops the carry-over with the bank
    as it was; ``workers`` processes derive the same outcomes in the same order."""
    kept = retired = 0
    shards = [(path, read_puzzles(path)) for path in paths]
    every = (puzzle for _, puzzles in shards for puzzle in puzzles)
    with contextlib.closing(ordered_map(rederive, every, workers)) as derived:
        for path, puzzles in shards:
            outcomes = list(itertools.islice(derived, len(puzzles)))
            for outcome in outcomes:
                if outcome.kept is None:
                    report(f"{path.name}: {outcome.stored.id} retired: {'; '.join(outcome.reasons)}")
            shard_kept, shard_retired = carry_shard(path, outcomes)
            report(f"{path.name}: {shard_kept} kept, {shard_retired} retired")
            kept, retired = kept + shard_kept, retired + shard_retired
    return kept, retired


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m puzzles.rederive", description=__doc__.splitlines()[0])
    parser.add_argument("where", nargs="*", help="bank folders or shard files (default: the shipped bank)")
    parser.add_argument("--workers", type=int, default=1, help="processes deriving at once (default 1)")
    args = parser.parse_args(argv)
    if args.workers < 1:
        print(f"{parser.prog}: --workers must be 1 or more, not {args.workers}", file=sys.stderr)
        return 2
    names = args.where or [str(BANK_DIR)]
    try:
        paths = [path for name in names for path in (bank_files(name) if Path(name).is_dir() else [Path(name)])]
        kept, retired = rederive_files(paths, args.workers, lambda line: print(line, flush=True))
    except BankError as error:
        print(f"{parser.prog}: {error}", file=sys.stderr)
        return 2
    except WorkerLost as error:  # the shards carried before it stay carried: the same command again
        print(f"{parser.prog}: {error}", file=sys.stderr)
        return 1
    print(f"{kept} kept, {retired} retired", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
