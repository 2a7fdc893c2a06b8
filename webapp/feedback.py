"""What a result page shows beside a wrong answer: the player's own choice evaluated next to the
best, so the player learns from the choice they made.

- a discard: the player's row of the discard table next to the best row (cards away, unseen
  outs, points kept) and a sentence on the difference (``puzzles.answers.discard_difference``).
  A puzzle stores its table's top rows; another card's row is the analyser's, asked as the
  puzzle's "See this position on the analysis page" link asks it (the same question, so the two
  share the answer cache). When the analyser cannot answer now (the server's limits, a busy
  pool, a table cut short) the page says so and offers the link;
- a lay-down: the player's play scored (legal or not, the points it keeps) beside the best
  (``puzzles.answers.play_difference``);
- a buy: the verdict's own words on why it stands (``analyzer.why_still``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from werkzeug.exceptions import HTTPException

from analyzer import DISCARD_COLUMNS, BuyObjective, BuyOption, QuestionError, Verdict, preset, why_still
from puzzles.answers import (
    DiscardChoice,
    Scored,
    best_discard_row,
    discard_difference,
    play_difference,
    stored_discard_row,
)
from puzzles.model import BuyAnalysis, Kind, Puzzle
from webapp.pool import answer
from webapp.puzzle_parts import analysis_fields
from webapp.questions import read_query


def feedback(puzzle: Puzzle, scored: Scored) -> dict[str, Any] | None:
    """The comparison a wrong answer gets (None for a right one, or a buy: its solution says why)."""
    if scored.right:
        return None
    if puzzle.kind is Kind.DISCARD and isinstance(scored.answer, DiscardChoice):
        return _discard(puzzle, scored.answer)
    if puzzle.kind is Kind.LAY_DOWN:
        cannot = bool(scored.answer.to_dict().get("cannot"))
        return {"kind": "lay-down", "sentence": play_difference(puzzle, scored), "cannot": cannot,
                "legal": not cannot and not scored.problems and scored.points is not None,
                "points": scored.points, "best_points": puzzle.best_points,
                "best_cannot": puzzle.solution is not None and puzzle.solution.cannot}
    return None


def _discard(puzzle: Puzzle, choice: DiscardChoice) -> dict[str, Any]:
    best = best_discard_row(puzzle)
    row = stored_discard_row(puzzle, choice.card) or _worked_out_row(puzzle, choice.card.token)
    view: dict[str, Any] = {"kind": "discard", "mine": row, "best": best, "columns": DISCARD_COLUMNS}
    if row is not None and best is not None:
        view["sentence"] = discard_difference(row, best, preset(puzzle.rules))
    return view


def _worked_out_row(puzzle: Puzzle, token: str) -> Mapping[str, Any] | None:
    """The row for throwing ``token`` from the analyser's discard table for the puzzle's
    position; None when it cannot be had now."""
    try:
        answered = answer(read_query(analysis_fields(puzzle)))
    except (QuestionError, HTTPException):  # the server's limits or a busy pool: the link still works
        return None
    row: Mapping[str, Any] | None = next((row for row in answered.get("discards") or () if row["card"] == token),
                                         None)
    return row


def buy_note(puzzle: Puzzle) -> str:
    """Why a buy puzzle's verdict stands when its reason's last figure points the other way."""
    if not isinstance(puzzle.analysis, BuyAnalysis):
        return ""
    return verdict_note(puzzle.analysis.verdict)


def verdict_note(verdict: Mapping[str, Any]) -> str:
    """``analyzer.why_still`` for a buy verdict as ``BuyAdvice.to_dict`` wrote it."""
    try:
        options = [BuyOption(option["hand_size"], option["lay_down_probability"], option["expected_points"],
                             option["go_out_probability"], option["opponent_points"])
                   for option in (verdict["passing"], verdict["buying"])]
        return why_still(Verdict(verdict["verdict"]), BuyObjective(verdict.get("objective", "against the table")),
                         options[0], options[1], verdict["difference"])
    except (KeyError, TypeError, ValueError):  # an undecided verdict's figures are null
        return ""


def init_app(app: Any) -> None:
    app.add_template_global(buy_note)
    app.add_template_global(verdict_note)
