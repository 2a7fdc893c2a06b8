"""A hand's lay-down is solved once: the outs of a hand whose lay-down is known (the advice
asks the lay-down first) reuse it instead of solving its strict model again, and come out the
same as the outs found from scratch."""

from __future__ import annotations

from typing import Any
from unittest import mock

from analyzer import preset
from analyzer.cards import parse_cards
from analyzer.round_solver import RoundSolver
from analyzer.solver import find_outs, translate

# Eveleigh round 12, from the buy benchmark's suite: the relaxed model's best lay-down draws a
# card the deck no longer has, so the strict model answers (0.5-0.8 s of CPU time).
HAND = tuple(parse_cards("2C 4D 7D 7H 8H 10H JH JH AS 9S QS"))
ROUND = 12
TIME_LIMIT = 120.0


def _strict_solves() -> tuple[list[bool], Any]:
    """Record whether each lay-down solve is of the strict model."""
    strict: list[bool] = []

    def recording(problem: Any, time_limit: float, strict_deck: bool = False) -> Any:
        strict.append(strict_deck)
        return translate.solve(problem, time_limit, strict_deck)

    return strict, mock.patch("analyzer.solver.lay_down.solve", recording)


def test_outs_reuse_a_known_strict_lay_down() -> None:
    rules = preset("eveleigh")
    deck = rules.deck_for(None)
    strict, patched = _strict_solves()
    with patched:
        solver = RoundSolver(rules, ROUND, deck, TIME_LIMIT)
        lay_down = solver.lay_down(HAND)
        assert lay_down.proven_optimal and lay_down.cards_away
        assert strict.count(True) == 1, "the hand needs the strict model"
        known_lay_down, outs = solver.outs(HAND)
        assert strict.count(True) == 1, "the outs solved the strict model again"
    assert known_lay_down == lay_down
    fresh_lay_down, fresh_outs = find_outs(HAND, rules, ROUND, deck, TIME_LIMIT)
    assert fresh_lay_down == lay_down
    assert outs == fresh_outs and outs
