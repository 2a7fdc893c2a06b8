"""The solver against the brute-force reference on house rules no preset has.

The presets leave model paths unexercised: an exact contract with a per-meld wild limit or
``wilds_may_outnumber_naturals = false`` (runs built as slots, not windows), the ace low only
or high only under exact contracts, the ``gap`` policy (as windows and as slots),
``distinct-suits`` and ``free`` under exact contracts, ``no-touch`` under minimum ones, 2s wild
under an exact contract. Each house rule set below reaches one of them; every answer is compared with ``tests/reference.py``
(leftover points and cards away, exactly) and re-validated card by card by
``analyzer/validate.py``, so a solver that answered nothing, "never", or the first legal
lay-down instead of the best fails here. The named examples pin each rule on a hand whose
answer is plain.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer import analyze
from analyzer.cards import Card, parse_cards
from analyzer.hand import deck_copies
from analyzer.result import LayDown
from analyzer.rules import DeckRule, Rules, SameSuitRuns, check_rules, preset
from analyzer.validate import leftover_points, validate_lay_down
from tests.reference import reference_best, reference_cards_away
from tests.strategies import hands_around


def house(base: str, name: str, **changes: object) -> Rules:
    return check_rules(dataclasses.replace(preset(base), name=name, **changes))


MORE_JOKERS = (DeckRule(2, 8, 2, 4),)  # two decks and four jokers: wild-heavy hands are common

HOUSE = {
    "exact-one-wild": house("progressive", "exact-one-wild", max_wilds_per_meld=1, decks=MORE_JOKERS),
    "exact-no-outnumber": house("progressive", "exact-no-outnumber", wilds_may_outnumber_naturals=False,
                                decks=MORE_JOKERS),
    "exact-ace-low-only": house("progressive", "exact-ace-low-only", ace_high=False),
    "exact-ace-high-only": house("progressive", "exact-ace-high-only", ace_low=False),
    "minimum-ace-low-only": house("may-i", "minimum-ace-low-only", ace_high=False),
    "exact-gap": house("progressive", "exact-gap", same_suit_runs=SameSuitRuns.GAP),
    "minimum-gap": house("may-i", "minimum-gap", same_suit_runs=SameSuitRuns.GAP),
    "exact-distinct-suits": house("progressive", "exact-distinct-suits", same_suit_runs=SameSuitRuns.DISTINCT_SUITS),
    "exact-free": house("progressive", "exact-free", same_suit_runs=SameSuitRuns.FREE),
    "minimum-no-touch": house("may-i", "minimum-no-touch", same_suit_runs=SameSuitRuns.NO_TOUCH),
    # A wild limit builds runs as slots, not windows: the same-suit policies again, that way.
    "slots-gap": house("may-i", "slots-gap", same_suit_runs=SameSuitRuns.GAP, max_wilds_per_meld=2),
    "slots-free": house("may-i", "slots-free", max_wilds_per_meld=2),
    "exact-deuces": house("contract", "exact-deuces", deuces_wild=True),
    "exact-deuces-one-wild": house("contract", "exact-deuces-one-wild", deuces_wild=True, max_wilds_per_meld=1),
}

# (house rule set, round): round 1 two sets of 3, round 2 a set and a run, round 3 two runs.
CASES = [
    ("exact-one-wild", 1), ("exact-one-wild", 2), ("exact-one-wild", 3),
    ("exact-no-outnumber", 1), ("exact-no-outnumber", 2), ("exact-no-outnumber", 3),
    ("exact-ace-low-only", 2), ("exact-ace-low-only", 3),
    ("exact-ace-high-only", 2), ("exact-ace-high-only", 3),
    ("minimum-ace-low-only", 2),
    ("exact-gap", 3), ("minimum-gap", 3),
    ("exact-distinct-suits", 3), ("exact-free", 3), ("minimum-no-touch", 3),
    ("slots-gap", 3), ("slots-free", 3),
    ("exact-deuces", 1), ("exact-deuces", 2), ("exact-deuces-one-wild", 2),
]
# 21 cases, two properties each; the cards-away reference (every pair of extra cards) is the dear one.
FEW = settings(max_examples=max(10, settings().max_examples // 3))
FEWER = settings(max_examples=max(8, settings().max_examples // 5))


def check_answer(result: LayDown, hand: tuple[Card, ...], rules: Rules, round_number: int) -> None:
    """Whatever the solver returned, re-validated card by card with the independent validator."""
    assert Counter(result.hand) == Counter(hand)
    assert result.proven_optimal
    if result.can_lay_down:
        assert result.cards_away == 0 and not result.missing
        assert validate_lay_down(hand, rules, round_number, result.melds, result.leftover) == [], result.to_dict()
        assert result.leftover_points == leftover_points(result.leftover, rules)
    elif result.cards_away is not None:
        assert result.cards_away == len(result.missing) >= 1 and not result.melds
        assert validate_lay_down(hand, rules, round_number, result.with_missing, result.kept_with_missing(),
                                 extra=result.missing, deck=rules.deck_for(None)) == [], result.to_dict()
        for card, count in Counter(hand + result.missing).items():
            assert count <= deck_copies(card, rules.deck_for(None))


def need(rules: Rules, round_number: int) -> int:
    return sum(spec.size for spec in rules.round(round_number).contract)


@pytest.mark.parametrize(("name", "round_number"), CASES)
@FEW
@given(data=st.data())
def test_best_lay_down_matches_brute_force_under_house_rules(name: str, round_number: int,
                                                              data: st.DataObject) -> None:
    rules = HOUSE[name]
    size = need(rules, round_number)
    hand = data.draw(hands_around(rules, min_size=size, max_size=size + 2))
    result = analyze(hand, rules, round_number, moment="before-draw")
    check_answer(result, hand, rules, round_number)
    best = reference_best(hand, rules, round_number)
    assert result.can_lay_down == (best is not None), result.to_dict()
    if best is not None:
        assert result.leftover_points == best, result.to_dict()


@pytest.mark.parametrize(("name", "round_number"), CASES)
@FEWER
@given(data=st.data())
def test_cards_away_matches_brute_force_under_house_rules(name: str, round_number: int,
                                                           data: st.DataObject) -> None:
    rules = HOUSE[name]
    size = need(rules, round_number)
    hand = data.draw(hands_around(rules, min_size=max(3, size - 2), max_size=size))
    result = analyze(hand, rules, round_number, moment="before-draw")
    check_answer(result, hand, rules, round_number)
    expected = reference_cards_away(hand, rules, round_number, rules.deck_for(None), max_extra=2)
    if expected is not None:
        assert result.cards_away == expected, result.to_dict()
    else:
        assert result.cards_away is None or result.cards_away > 2


# ---- each rule on a hand whose answer is plain -------------------------------------------------


def lay(hand: str, rules: Rules, round_number: int) -> LayDown:
    result = analyze(hand, rules, round_number, moment="before-draw")
    check_answer(result, parse_cards(hand), rules, round_number)
    return result


def test_an_exact_run_with_a_wild_limit_ends_at_the_high_ace() -> None:
    # Q K A is three cards, never a run of 4: the J♠ (or a joker) is missing.
    for name in ("exact-one-wild", "exact-no-outnumber", "exact-deuces-one-wild"):
        rules = HOUSE[name]
        short = lay("QS KS AS 9C 9D 9H", rules, 2)
        assert not short.can_lay_down and short.cards_away == 1, name
        assert lay("JS QS KS AS 9C 9D 9H", rules, 2).can_lay_down, name
        assert lay("10S JS QS KS AS 9C 9D 9H", rules, 2).leftover_points == 10, name  # 10♠ or A♠ kept: 10


def test_an_exact_run_with_a_wild_limit_starts_at_the_low_ace() -> None:
    rules = HOUSE["exact-one-wild"]
    assert not lay("AS 2S 3S 9C 9D 9H", rules, 2).can_lay_down
    assert lay("AS 2S 3S 4S 9C 9D 9H", rules, 2).can_lay_down
    assert lay("AS 2S JK 4S 9C 9D 9H", rules, 2).can_lay_down


def test_one_wild_per_meld_under_an_exact_contract() -> None:
    rules = HOUSE["exact-one-wild"]
    assert not lay("7H JK JK 10H 5C 5D 5S", rules, 2).can_lay_down
    assert lay("7H JK 9H 10H 5C 5D JK", rules, 2).can_lay_down
    assert lay("7H JK JK 10H 5C 5D 5S", preset("progressive"), 2).can_lay_down


def test_wilds_may_not_outnumber_naturals() -> None:
    rules = HOUSE["exact-no-outnumber"]
    assert not lay("7C JK JK 9D 9H 9S", rules, 1).can_lay_down  # 7 JK JK: two wilds, one natural
    assert lay("7C 7D JK 9D 9H JK", rules, 1).can_lay_down
    assert lay("7H JK JK 10H 5C 5D 5S", rules, 2).can_lay_down  # two and two in the run: allowed
    assert not lay("7H JK JK JK 5C 5D 5S", rules, 2).can_lay_down


def test_the_ace_low_only() -> None:
    for name in ("exact-ace-low-only", "minimum-ace-low-only"):
        rules = HOUSE[name]
        high = lay("JS QS KS AS 9C 9D 9H", rules, 2)
        assert not high.can_lay_down and high.cards_away == 1, name  # 10♠ (or a joker) below J♠
        assert lay("AS 2S 3S 4S 9C 9D 9H", rules, 2).can_lay_down, name
        assert not lay("QS KS AS JK 9C 9D 9H", rules, 2).can_lay_down, name  # no J♠-A♠: the ace is low only


def test_the_ace_high_only_under_an_exact_contract() -> None:
    rules = HOUSE["exact-ace-high-only"]
    low = lay("AH 2H 3H 4H 9C 9D 9S", rules, 2)
    assert not low.can_lay_down and low.cards_away == 1  # 5♥ (2-5) or a joker
    assert lay("JH QH KH AH 9C 9D 9S", rules, 2).can_lay_down


@pytest.mark.parametrize(("hand", "allowed"), [
    # two runs of 4 in one suit: (no-touch, gap, distinct-suits, free)
    ("3H 4H 5H 6H 8H 9H 10H JH", (True, True, False, True)),  # a gap of one rank
    ("3H 4H 5H 6H 5H 6H 7H 8H", (True, False, False, True)),  # overlapping
    ("3H 4H 5H 6H 7H 8H 9H 10H", (False, False, False, True)),  # touching: one run of eight
])
def test_each_same_suit_policy_under_an_exact_contract(hand: str, allowed: tuple[bool, bool, bool, bool]) -> None:
    for name, may in zip(("exact", "exact-gap", "exact-distinct-suits", "exact-free"), allowed):
        rules = preset("progressive") if name == "exact" else HOUSE[name]
        assert lay(hand, rules, 3).can_lay_down == may, name


def test_same_suit_policies_under_a_minimum_contract() -> None:
    touching = "3H 4H 5H 6H 7H 8H 9H 10H"
    for name in ("minimum-no-touch", "minimum-gap", "slots-gap"):
        assert not lay(touching, HOUSE[name], 3).can_lay_down, name
    assert not lay(touching, preset("shanghai"), 3).can_lay_down  # no-touch, one wild per meld (slots)
    assert lay(touching, preset("may-i"), 3).can_lay_down  # free
    assert lay(touching, HOUSE["slots-free"], 3).can_lay_down
    # 3-6 and 8-J with the 7 between left out: every policy allows it.
    for name in ("minimum-no-touch", "minimum-gap", "slots-gap"):
        gapped = lay("3H 4H 5H 6H 7H 8H 9H 10H JH", HOUSE[name], 3)
        assert gapped.can_lay_down and gapped.leftover_points == 7, name
    # Overlapping (two decks): no-touch and free allow it, gap does not.
    overlapping = "3H 4H 5H 6H 5H 6H 7H 8H"
    assert lay(overlapping, HOUSE["minimum-no-touch"], 3).can_lay_down
    assert lay(overlapping, preset("shanghai"), 3).can_lay_down
    assert not lay(overlapping, HOUSE["minimum-gap"], 3).can_lay_down
    assert not lay(overlapping, HOUSE["slots-gap"], 3).can_lay_down


def test_touching_runs_under_an_exact_contract_with_a_wild_limit() -> None:
    # Slots, not windows: 3-6 + 7-10 of one suit is one run of eight under no-touch.
    rules = HOUSE["exact-one-wild"]
    assert not lay("3H 4H 5H 6H 7H 8H 9H 10H", rules, 3).can_lay_down
    assert lay("3H 4H 5H 6H 8H 9H 10H JH", rules, 3).can_lay_down
    assert lay("3H 4H 5H 6H 5H 6H 7H 8H", rules, 3).can_lay_down


def test_deuces_wild_under_an_exact_contract() -> None:
    rules = HOUSE["exact-deuces"]
    result = lay("5S 6S 2C 8S KC KD KH", rules, 2)
    assert result.can_lay_down and result.leftover_points == 0
    assert not lay("5S 6S 2C 8S KC KD KH", preset("contract"), 2).can_lay_down
    # A second 2 is not kept at 25 points: 6♠ 2♣=7♠ 8♠ 2♦=9♠ keeps the 5♠ (no limit on wilds);
    # with one wild per meld the 2♦ stands in the set for a king, which is kept (10).
    hand = "5S 6S 2C 8S KC KD KH 2D"
    kept = lay(hand, rules, 2)
    assert kept.can_lay_down and kept.leftover_points == 5 == reference_best(parse_cards(hand), rules, 2)
    limited = lay(hand, HOUSE["exact-deuces-one-wild"], 2)
    assert limited.can_lay_down and limited.leftover_points == 10
    assert reference_best(parse_cards(hand), HOUSE["exact-deuces-one-wild"], 2) == 10
    assert not lay("5S 6S 2C 2D KC KD KH", HOUSE["exact-deuces-one-wild"], 2).can_lay_down


def test_a_natural_is_discarded_before_a_wild_card_worth_as_much() -> None:
    # README: of two plays equal in points, the one that throws a natural card. Jokers worth 10
    # and one wild per meld: K♣ K♦ JK + 5♣ 5♦ JK leave a joker and the Q♥ (10 each); throwing
    # either keeps 10, and the joker is the one to keep.
    rules = house("progressive", "joker-ten-one-wild", max_wilds_per_meld=1, decks=MORE_JOKERS,
                  points=dataclasses.replace(preset("progressive").points, joker=10))
    hand = "KC KD JK 5C 5D JK JK QH"  # round 1, after the draw (said outright)
    turn = analyze(hand, rules, 1, moment="after-draw")
    assert turn.moment == "after-draw" and turn.can_lay_down
    assert sorted(card.token for card in turn.leftover) == ["JK", "QH"]
    assert turn.discard == Card.parse("QH") and turn.points_after_discard == 10 and not turn.goes_out
