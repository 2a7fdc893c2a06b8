"""Runs counted per window under a limit of one wild card a run (``WindowWilds`` in
analyzer/solver/model.py) against the run slots they replaced.

Under ``max_wilds_per_meld = 1`` (the Shanghai family; also with ``wilds_may_outnumber_naturals
= false``, and under the ``gap`` policy, whose windows hold one run each) the lay-down's runs are
counted per window, and the read-back deals each window's naturals and wild cards out to its
runs. Every answer here is re-validated card by card by analyzer/validate.py, and its points
and cards away must equal those of the slot model, the way these rules were solved before
(still built for the strict deck model and for limits of two or more, and here forced with
``one_wild_a_run`` patched to say no). The hands put several runs in one suit on overlapping
windows, with extra jokers, where the per-window limits bite.
"""

from __future__ import annotations

import dataclasses
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer import analyze
from analyzer.cards import JOKER, Card, Rank, Suit, parse_cards
from analyzer.result import LayDown
from analyzer.rules import DeckRule, Rules, SameSuitRuns, check_rules, preset
from analyzer.solver import model as solver_model
from analyzer.solver.model import build_model, make_problem
from analyzer.turn import Moment, hand_sizes
from tests.analyzer.test_go_out import check_draws
from tests.analyzer.test_house_rule_properties import check_answer
from tests.strategies import hands_around, same_suit_runs, within_deck


def house(base: str, name: str, **changes: object) -> Rules:
    return check_rules(dataclasses.replace(preset(base), name=name, **changes))


MORE_JOKERS = (DeckRule(2, 8, 2, 4),)

ONE_WILD = {
    "shanghai": preset("shanghai"),
    "kolsov": preset("kolsov"),
    "shanghai-powe": preset("shanghai-powe"),
    "shanghai-no-outnumber": house("shanghai", "shanghai-no-outnumber", wilds_may_outnumber_naturals=False),
    "exact-one-wild-no-outnumber": house("progressive", "exact-one-wild-no-outnumber", max_wilds_per_meld=1,
                                         wilds_may_outnumber_naturals=False, decks=MORE_JOKERS),
    "minimum-gap-one-wild": house("may-i", "minimum-gap-one-wild", same_suit_runs=SameSuitRuns.GAP,
                                  max_wilds_per_meld=1),
    "free-deuces-one-wild": house("eveleigh", "free-deuces-one-wild", max_wilds_per_meld=1),
    "always-wild-deuces-no-wilds": house("eveleigh", "always-wild-deuces-no-wilds", deuces_always_wild=True,
                                         max_wilds_per_meld=0),
}

# (rule set, round): rounds with two to five runs, some with a set beside them, and go-out rounds.
CASES = [
    ("shanghai", 3), ("shanghai", 6), ("shanghai", 7),
    ("kolsov", 3), ("kolsov", 7), ("kolsov", 10),
    ("shanghai-powe", 8), ("shanghai-powe", 6), ("shanghai-powe", 3),
    ("shanghai-no-outnumber", 3), ("shanghai-no-outnumber", 7),
    ("exact-one-wild-no-outnumber", 3), ("exact-one-wild-no-outnumber", 6),
    ("exact-one-wild-no-outnumber", 7),
    ("minimum-gap-one-wild", 3), ("minimum-gap-one-wild", 7),
    ("free-deuces-one-wild", 10), ("free-deuces-one-wild", 12),
    ("always-wild-deuces-no-wilds", 10),
]


def checked(hand: tuple[Card, ...], rules: Rules, round_number: int) -> LayDown:
    """The answer before the draw, re-validated card by card (a go-out round's, counted in draws)."""
    result = analyze(hand, rules, round_number, moment="before-draw")
    if rules.round(round_number).go_out:
        check_draws(result, hand, rules, round_number, before_draw=True)
    else:
        check_answer(result, hand, rules, round_number)
    return result


def slot_answer(hand: tuple[Card, ...], rules: Rules, round_number: int) -> LayDown:
    """The answer of the run slots, as these rules were solved before."""
    with mock.patch.object(solver_model, "one_wild_a_run", lambda rules: False):
        return analyze(hand, rules, round_number, moment="before-draw")


@st.composite
def wild_heavy_hands(draw: st.DrawFn, rules: Rules, round_number: int) -> tuple[Card, ...]:
    """Runs of the round in one suit on overlapping windows (or cards around a few positions),
    with up to three jokers more: more wild cards than one a run can take."""
    if draw(st.booleans()):
        cards = list(draw(same_suit_runs(rules, round_number, max_cards=16)))
    else:
        size = sum(spec.size for spec in rules.round(round_number).contract)
        cards = list(draw(hands_around(rules, min_size=size - 2, max_size=size + 3)))
    cards += [JOKER] * draw(st.integers(0, 3))
    largest = max(hand_sizes(rules, round_number)[Moment.BEFORE_DRAW])  # with every buy allowed
    return tuple(within_deck(cards, rules.deck_for(None))[-largest:])  # the jokers kept


@pytest.mark.parametrize(("name", "round_number"), CASES)
@settings(max_examples=max(15, settings().max_examples // 3), deadline=None)
@given(data=st.data())
def test_window_counted_runs_answer_as_run_slots_did(name: str, round_number: int, data: st.DataObject) -> None:
    rules = ONE_WILD[name]
    hand = data.draw(wild_heavy_hands(rules, round_number))
    result = checked(hand, rules, round_number)
    slots = slot_answer(hand, rules, round_number)
    assert (result.can_lay_down, result.cards_away, result.leftover_points) == \
        (slots.can_lay_down, slots.cards_away, slots.leftover_points), (result.to_dict(), slots.to_dict())


def test_the_rules_here_count_runs_per_window() -> None:
    """Each rule set above builds window-counted runs with their wild cards per window where the
    contract repeats a run, not run slots (which the strict deck model, a lone run, and limits of
    two or more still build)."""
    hand = (JOKER, JOKER) + tuple(Card(Rank(rank), Suit.HEARTS) for rank in range(3, 12))
    for name, round_number in CASES:
        rules = ONE_WILD[name]
        problem = make_problem(hand, rules, round_number, rules.deck_for(None))
        built = build_model(problem, strict_deck=False)
        if len(problem.run_specs) > 1:
            assert not built.runs and built.windows, name
            assert all(group.per_window is not None for group in built.windows), name
        else:
            assert built.runs and not built.windows, name
        assert build_model(problem, strict_deck=True).runs, name
    two = house("shanghai", "two-wilds", max_wilds_per_meld=2)
    assert build_model(make_problem(hand, two, 3, two.deck_for(None)), strict_deck=False).runs


@pytest.mark.parametrize(("hand", "round_number", "cards_away"), [
    # Four hearts in a row and two jokers, two runs of four: J 3H 4H 5H and J 5H 6H 7H (the 5H
    # and the 7H missing). Counting the naturals per position only, H3-6 (no gap) and S3-6
    # would seem to take a joker each, one card away.
    ("3H 4H 5H 6H JK JK", 3, 2),
    # Both jokers used: 3H-6H J(7H) 8H and J(8H) 9H 10H JH.
    ("3H 4H 5H 6H 8H 9H 10H JH JK JK", 3, 0),
])
def test_one_wild_a_run_on_plain_hands(hand: str, round_number: int, cards_away: int) -> None:
    rules = preset("shanghai")
    cards = parse_cards(hand)
    result = checked(cards, rules, round_number)
    assert result.cards_away == cards_away, result.to_dict()
    assert result.cards_away == slot_answer(cards, rules, round_number).cards_away


def test_three_runs_on_the_same_hearts_take_one_joker_each() -> None:
    # Eight hearts 3-6 and four jokers, three runs of four (Kolsov round 7): twelve places for
    # eight naturals and three jokers (one a run), one card missing, the fourth joker kept.
    rules = preset("kolsov")
    cards = parse_cards("3H 4H 5H 6H 3H 4H 5H 6H JK JK JK JK")
    result = checked(cards, rules, 7)
    assert (result.cards_away, result.leftover_points) == (1, 240), result.to_dict()
    assert all(sum(card == JOKER for card in meld.cards) == 1 for meld in result.with_missing)
