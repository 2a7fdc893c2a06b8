"""Re-rate a bank in place: every puzzle's rating (and the generator version it records)
brought up to the generator's, its position and answers unchanged.

    python -m puzzles.rerate                 # the shipped bank (puzzles/bank/)
    python -m puzzles.rerate DIR_OR_FILE ...
    python -m puzzles.rerate --reasons       # only the lay-downs' "why" sentences written again

A lay-down puzzle is derived again from its position (``puzzles.generate.derive``, with its
stored best play, as ``puzzles verify`` does): that gives its ``margin`` the plays near the best
and its rating the term they make. Its answers, optimum and themes must come out as stored, or
the file is left as it was and the command fails (exit 1). A discard or buy puzzle keeps its
figures: ``difficulty`` reads them again (deriving a buy again would cost minutes of rollouts
and re-rate nothing: the near-best term is the lay-down's). What it writes is what generating
the same seed gives now, so ``puzzles bank`` builds the same files; ids hash the position
only, so they, the daily rule's answers and the trainer's stored attempts do not change.

``--reasons`` writes again only each lay-down's reason sentence (``analysis["reason"]``, what a
player reads under "Why"), from the puzzle's stored hand and analysis with the generator's own
``lay_down_reason``: no solving, nothing else changed, so ids, answers, ratings and the daily
puzzles stay as they were, and the file is what generating the same seeds gives now.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from analyzer import preset
from puzzles.bank import BANK_DIR, bank_files, read_puzzles, write_puzzles
from puzzles.generate import GENERATOR, derive, difficulty, lay_down_reason
from puzzles.model import Kind, LayDownAnalysis, Puzzle
from puzzles.verify import position_of


class RerateError(RuntimeError):
    """A stored puzzle whose answers do not come out again: the bank needs verifying."""


def rerate(puzzle: Puzzle) -> Puzzle:
    if puzzle.kind is not Kind.LAY_DOWN:
        return dataclasses.replace(puzzle, generator=GENERATOR, rating=difficulty(puzzle))
    again = derive(position_of(puzzle), puzzle.solution)
    if again is None:
        raise RerateError(f"puzzle {puzzle.id}: no longer accepted")
    for name in ("answers", "best_points", "themes", "solution"):
        if getattr(again, name) != getattr(puzzle, name):
            raise RerateError(f"puzzle {puzzle.id}: {name} stored {getattr(puzzle, name)}, derived {getattr(again, name)}")
    return dataclasses.replace(again, generator=GENERATOR)


def reword(puzzle: Puzzle) -> Puzzle:
    """The puzzle with its lay-down reason sentence written again from what it stores."""
    analysis = puzzle.analysis
    if not isinstance(analysis, LayDownAnalysis):
        return puzzle
    reason = lay_down_reason(puzzle.hand, preset(puzzle.rules), puzzle.round, analysis.best, analysis.hasty)
    return dataclasses.replace(puzzle, analysis=dataclasses.replace(analysis, reason=reason))


def rerate_file(path: Path) -> int:
    """Re-rate one file; the number of ratings that changed."""
    puzzles = read_puzzles(path)
    rated = [rerate(puzzle) for puzzle in puzzles]
    write_puzzles(path, rated)
    return sum(old.rating != new.rating for old, new in zip(puzzles, rated))


def reword_file(path: Path) -> int:
    """Write one file's reason sentences again; the number that changed."""
    puzzles = read_puzzles(path)
    reworded = [reword(puzzle) for puzzle in puzzles]
    write_puzzles(path, reworded)
    return sum(old.analysis != new.analysis for old, new in zip(puzzles, reworded))


def main(argv: list[str] | None = None) -> int:
    names = sys.argv[1:] if argv is None else argv
    reasons_only = "--reasons" in names
    names = [name for name in names if name != "--reasons"]
    paths = [p for name in (names or [str(BANK_DIR)])
             for p in (bank_files(name) if Path(name).is_dir() else [Path(name)])]
    try:
        for path in paths:
            if reasons_only:
                print(f"{path.name}: {reword_file(path)} reasons written again", flush=True)
            else:
                print(f"{path.name}: {rerate_file(path)} ratings changed", flush=True)
    except RerateError as error:
        print(f"puzzles rerate: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
