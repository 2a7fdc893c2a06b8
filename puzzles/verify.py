"""Re-derive a stored puzzle from its position and say where it differs.

``check(puzzle)`` strips a puzzle to its position (``position_of``), derives it again with the
analyser (``puzzles.generate.derive``: the generator's own acceptance rules, every solve bounded
by deterministic work, so the same code derives the same puzzle on any machine) and lists

- **problems**, any of which fails ``puzzles verify`` (exit 1, each named):

  - every kind: the position is no longer accepted as a clear puzzle; the accepted ``answers``
    differ; the ``themes`` differ;
  - **lay-down**: the stored best play is not right (the validator-based checker of
    ``puzzles.check``: illegal, or it keeps other points than the stored ``best_points``); the
    re-derived optimum (``best_points``, proven by the solver) differs; the stored play keeps
    more than that optimum; the ``margin`` (hasty players failed, looks ready) or ``rating``
    differs. Themes are read off the stored play once it is proven legal and optimal, so a
    solver that prefers another play of equal merit changes nothing;
  - **discard**: the ``margin`` (the criterion, the top row, the runner-up) or ``rating``
    differs;
  - **buy**: the stored figures do not show an accepted puzzle by themselves (the verdict, the
    answer and the second verdict agree, the difference lies on the verdict's side, clear of the
    close-call margin by three standard errors), or its ``rating`` is not the one they give;
    the re-derived verdict differs or is not accepted (clear by three standard errors, the
    second seed with twice the rollouts agrees: ``derive`` rejects it otherwise);

- **notes**, which do not fail: a buy puzzle's simulated figures (difference, margin, standard
  error, the second verdict's difference) stored and re-derived, when they differ. They follow
  the simulated player, which a change to the analyser may steer to other plays of equal merit;
  the answer and its acceptance may not change.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from puzzles.check import check_lay_down
from puzzles.generate import derive, difficulty
from puzzles.model import BUY, PASS, BuyMargin, Kind, Puzzle

BUY_FIGURES = ("difference", "margin", "std_error")
CLEAR_BY = 3  # standard errors clear of the close-call margin (as generation accepts)
ROUNDING = 0.02  # the stored figures are rounded to hundredths


@dataclass(frozen=True)
class Report:
    """What verifying one puzzle found: problems fail it, notes only inform."""

    problems: tuple[str, ...]
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"problems": list(self.problems), "notes": list(self.notes)}


def position_of(puzzle: Puzzle) -> Puzzle:
    """The puzzle with everything derived cleared: what the player is shown, and how it was made."""
    return dataclasses.replace(
        puzzle,
        answers=(),
        best_points=None,
        solution=None,
        margin=None,
        analysis=None,
        themes=(),
        rating=Puzzle.rating,
    )


def verify(puzzle: Puzzle) -> list[str]:
    """Every problem ``check`` finds (an empty list: it verifies)."""
    return list(check(puzzle).problems)


def check(puzzle: Puzzle) -> Report:
    """The stored puzzle against the one derived again from its position (module docstring)."""
    problems: list[str] = []
    best_play = None
    if puzzle.kind is Kind.LAY_DOWN and puzzle.solution is not None:
        verdict = check_lay_down(puzzle, puzzle.solution)
        if not verdict.right:
            problems.append(
                f"the stored best play is not right: {'; '.join(verdict.problems) or verdict.points}"
            )
        else:
            best_play = puzzle.solution
    if puzzle.kind is Kind.BUY:
        problems += _buy_figures_problems(puzzle)
    again = derive(position_of(puzzle), best_play)
    if again is None:
        return Report(tuple(problems + ["the position is no longer accepted as a clear puzzle"]))
    compared = ("answers", "themes") if puzzle.kind is Kind.BUY else ("answers", "best_points", "themes", "rating")
    for name in compared:
        stored, derived = getattr(puzzle, name), getattr(again, name)
        if stored != derived:
            problems.append(f"{name}: stored {_show(stored)}, derived {_show(derived)}")
    if puzzle.kind is Kind.LAY_DOWN and puzzle.solution is not None and again.best_points is not None:
        points = check_lay_down(again, puzzle.solution).points
        if points is not None and points != again.best_points:
            problems.append(f"the stored best play keeps {points} points, the optimum {again.best_points}")
    notes: list[str] = []
    if puzzle.kind is Kind.BUY:
        notes += _buy_figures_notes(puzzle, again)
    elif puzzle.to_dict()["margin"] != again.to_dict()["margin"]:
        problems.append(f"margin: stored {puzzle.to_dict()['margin']}, derived {again.to_dict()['margin']}")
    return Report(tuple(problems), tuple(notes))


def _buy_figures_problems(puzzle: Puzzle) -> list[str]:
    """A stored buy puzzle whose own figures do not show an accepted puzzle."""
    margin = puzzle.margin
    if not isinstance(margin, BuyMargin):
        return ["margin: not a buy verdict's figures"]
    try:
        verdict, second = margin.verdict, margin.second["verdict"]
        difference, close, error = float(margin.difference), float(margin.margin), margin.std_error
    except (KeyError, TypeError, ValueError) as missing:
        return [f"margin: not a buy verdict's figures ({missing})"]
    problems = []
    if puzzle.answers != (verdict,) or verdict not in (BUY, PASS) or second != verdict:
        problems.append(f"stored answer {_show(puzzle.answers)}, verdict {verdict}, second verdict {second}")
    side = difference < -close if verdict == BUY else difference > close
    clear = abs(difference) - close
    if not side or (error is not None and clear < CLEAR_BY * float(error) - ROUNDING):
        problems.append(
            f"stored figures not clear: difference {difference}, margin {close}, standard error {error}"
        )
    if puzzle.rating != difficulty(puzzle):
        problems.append(f"rating: stored {puzzle.rating}, its figures give {difficulty(puzzle)}")
    return problems


def _buy_figures_notes(puzzle: Puzzle, again: Puzzle) -> list[str]:
    stored, derived = _buy_figures(puzzle), _buy_figures(again)
    if stored == derived:
        return []
    return [
        "figures differ (answer and acceptance agree): "
        + ", ".join(f"{name} stored {stored[name]}, derived {derived[name]}" for name in stored if stored[name] != derived[name])
    ]


def _buy_figures(puzzle: Puzzle) -> dict[str, Any]:
    """A buy puzzle's simulated figures, by name ({} without a buy margin)."""
    margin = puzzle.margin.to_dict() if isinstance(puzzle.margin, BuyMargin) else {}
    figures = {name: margin.get(name) for name in BUY_FIGURES}
    figures["second difference"] = margin.get("second", {}).get("difference")
    return figures


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
