"""A hand's lay-down is solved once: the outs of a hand whose lay-down is known (the advice
asks the lay-down first) reuse it instead of solving its strict model again, and come out the
same as the outs found from scratch."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer import preset
from analyzer.cards import parse_cards
from analyzer.round_solver import RoundSolver
from analyzer.solver import find_outs, translate
from tests.strategies import hands

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


# Every way ``find_outs`` goes about the outs: window-counted exact contracts (progressive,
# contract), minimum contracts (may-i, eveleigh), per-meld wild limits (shanghai, resolved card
# by card) and a go-out round counted in draws (pagat's round 7).
OUTS_ROUNDS = [("progressive", 2), ("progressive", 6), ("contract", 5), ("may-i", 3), ("eveleigh", 5),
               ("shanghai", 3), ("pagat", 7)]


@pytest.mark.parametrize("rules_name, round_number", OUTS_ROUNDS)
@settings(max_examples=max(5, settings().max_examples // 8), deadline=None)
@given(data=st.data())
def test_outs_of_a_solved_hand_solve_no_lay_down_and_are_the_same(rules_name: str, round_number: int,
                                                                   data: st.DataObject) -> None:
    """A discard table solves each row's lay-down, then the outs of its best rows: with the
    lay-down proven, the outs finder solves no lay-down again, and finds the outs it finds from
    scratch (the lay-down and the outs, card for card)."""
    rules = preset(rules_name)
    deck = rules.deck_for(None)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    hand = data.draw(hands(rules, min_size=max(4, need - 2), max_size=need + 1))
    before_draw = data.draw(st.booleans())
    fresh_lay_down, fresh_outs = find_outs(hand, rules, round_number, deck, TIME_LIMIT, before_draw)
    solver = RoundSolver(rules, round_number, deck, TIME_LIMIT)
    lay_down = solver.lay_down(hand, before_draw)
    assert lay_down == fresh_lay_down and lay_down.proven_optimal
    with mock.patch("analyzer.solver.outs.best_lay_down", side_effect=AssertionError("solved again")):
        assert solver.outs(hand, before_draw) == (lay_down, fresh_outs)
    assert solver.outs_complete(hand, before_draw)
