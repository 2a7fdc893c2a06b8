"""Re-derive every accepted answer, margin, theme and rating from a stored position.

``verify(puzzle)`` strips a puzzle to its position, derives it again with the analyser
(``puzzles.generate.derive``, the generator's own acceptance rules) and lists every difference;
a lay-down puzzle's stored best play must also pass the validator-based checker with the best
points. ``puzzles verify FILE`` fails loudly (exit 1, each difference named) on any.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable, Iterator

from puzzles.check import check_lay_down
from puzzles.generate import derive
from puzzles.model import Puzzle


def position_of(puzzle: Puzzle) -> Puzzle:
    """The puzzle with everything derived cleared: what the player is shown, and how it was made."""
    return dataclasses.replace(
        puzzle,
        answers=(),
        best_points=None,
        solution=None,
        margin={},
        analysis={},
        themes=(),
        rating=Puzzle.rating,
    )


def verify(puzzle: Puzzle) -> list[str]:
    """Every difference between the stored puzzle and the one derived again from its position
    (an empty list: it verifies)."""
    problems = []
    if puzzle.kind == "lay-down" and puzzle.solution is not None:
        verdict = check_lay_down(puzzle, puzzle.solution)
        if not verdict.right:
            problems.append(
                f"the stored best play is not right: {'; '.join(verdict.problems) or verdict.points}"
            )
    again = derive(position_of(puzzle))
    if again is None:
        return problems + ["the position is no longer accepted as a clear puzzle"]
    for name in ("answers", "best_points", "themes", "rating"):
        stored, derived = getattr(puzzle, name), getattr(again, name)
        if stored != derived:
            problems.append(f"{name}: stored {_show(stored)}, derived {_show(derived)}")
    if puzzle.to_dict()["margin"] != again.to_dict()["margin"]:
        problems.append(f"margin: stored {dict(puzzle.margin)}, derived {dict(again.margin)}")
    return problems


def sample(puzzles: Iterable[Puzzle], size: int | None, seed: int = 0) -> Iterator[Puzzle]:
    """All puzzles (``size`` None), or a seeded sample of ``size`` of them, in bank order."""
    every = list(puzzles)
    if size is None or size >= len(every):
        yield from every
        return
    chosen = set(random.Random(seed).sample(range(len(every)), size))
    yield from (puzzle for index, puzzle in enumerate(every) if index in chosen)


def _show(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)
