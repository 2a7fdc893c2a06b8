"""The meld geometry (analyzer/melds.py) against docs/lay-down.md, restated here from scratch:
the places a card can take and the card at each place, by brute force over every card, every
place and every ace rule; a run's span and its problems over every window; and which cards of a
meld count as wild, a wild 2 standing for itself included."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from analyzer.cards import JOKER, Card, Suit, parse_cards
from analyzer.melds import (
    HIGH_ACE,
    LOW_ACE,
    card_at,
    card_places,
    meld_problems,
    run_places,
    run_span,
    wild_cards,
    within_wild_limits,
)
from analyzer.result import PlacedMeld
from analyzer.rules import MeldKind, Rules, check_rules, preset
from analyzer.simulate import extend_meld, meld_is_valid
from analyzer.validate import validate_lay_down

# The faces of a run's places, low ace to high ace, written out rather than computed.
FACES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_LETTERS = "CDHS"


def house(base: str, **changes: object) -> Rules:
    return check_rules(dataclasses.replace(preset(base), name=f"{base}-house", **changes))


# Every ace rule a rule set may have, with and without the 2's place (without it the ace is high).
ACE_RULES = [
    house("progressive", ace_low=low, ace_high=high, two_position_in_runs=two)
    for low, high, two in itertools.product((True, False), repeat=3)
    if (low or high) and (two or high)
]


def places_that_exist(rules: Rules) -> set[int]:
    """Places 1..14 a run may use, from the rules' words: the low ace only where it is low and a
    2 may follow it, the 2's place only where runs use it, the high ace only where it is high."""
    exist = set(range(3, 14))
    if rules.two_position_in_runs:
        exist.add(2)
        if rules.ace_low:
            exist.add(1)
    if rules.ace_high:
        exist.add(14)
    return exist


def card(face: str, suit_letter: str) -> Card:
    return Card.parse(face + suit_letter)


@pytest.mark.parametrize("rules", ACE_RULES, ids=lambda r: f"low{r.ace_low:d}-high{r.ace_high:d}-two{r.two_position_in_runs:d}")
def test_run_places_of_every_card_at_every_place(rules: Rules) -> None:
    exist = places_that_exist(rules)
    assert set(rules.run_positions()) == exist
    for letter, face in itertools.product(SUIT_LETTERS, FACES[1:14]):
        natural = card(face, letter)
        fits = tuple(place for place in range(1, 15) if FACES[place] == face and place in exist)
        assert run_places(natural, rules) == fits, natural
        assert card_places(natural) == tuple(place for place in range(1, 15) if FACES[place] == face)


def test_the_card_at_every_place() -> None:
    for letter, place in itertools.product(SUIT_LETTERS, range(1, 15)):
        suit = Card.parse("2" + letter).suit
        assert suit is not None
        assert card_at(place, suit) == card(FACES[place], letter)
    assert (LOW_ACE, HIGH_ACE) == (1, 14)
    for outside in (0, 15, -1):
        with pytest.raises(ValueError, match="no run position"):
            card_at(outside, Suit.HEARTS)


def window(first: int, length: int, letter: str = "H") -> tuple[Card, ...]:
    """The cards of places first .. first + length - 1, turning the corner past the high ace."""
    return tuple(card(FACES[(place - 1) % 13 + 1], letter) for place in range(first, first + length))


@pytest.mark.parametrize("rules", ACE_RULES, ids=lambda r: f"low{r.ace_low:d}-high{r.ace_high:d}-two{r.two_position_in_runs:d}")
def test_every_window_is_a_run_exactly_where_its_places_exist(rules: Rules) -> None:
    exist = places_that_exist(rules)
    # From 14 the cards are those from 1 (A 2 3 ...): starting at 1 to 13 covers every window.
    for first, length in itertools.product(range(1, 14), range(3, 8)):
        cards = window(first, length)
        meld = PlacedMeld(MeldKind.RUN, cards, cards)
        is_run = set(range(first, first + length)) <= exist
        assert (meld_problems(meld, rules) == []) == is_run, (cards, rules.name)
        assert meld_is_valid(meld, rules) == is_run
        if is_run:
            assert run_span(meld) == (first, first + length - 1)


def test_the_span_reads_the_ace_by_its_neighbour() -> None:
    low = parse_cards("AS 2S 3S")
    high = parse_cards("QS KS AS")
    assert run_span(PlacedMeld(MeldKind.RUN, low, low)) == (1, 3)
    assert run_span(PlacedMeld(MeldKind.RUN, high, high)) == (12, 14)
    with_wild = PlacedMeld(MeldKind.RUN, (JOKER, *parse_cards("2S 3S")), parse_cards("AS 2S 3S"))
    assert run_span(with_wild) == (1, 3)


def meld(kind: MeldKind, cards: str, meanings: str) -> PlacedMeld:
    return PlacedMeld(kind, parse_cards(cards), parse_cards(meanings))


PROGRESSIVE = preset("progressive")  # jokers only
EVELEIGH = preset("eveleigh")  # 2s wild, natural where they stand for themselves
ALWAYS = house("eveleigh", deuces_always_wild=True)  # 2s wild wherever they stand


@pytest.mark.parametrize(
    ("kind", "cards", "meanings", "wild_in"),
    [
        # A 2 standing for its own card in a run is natural while 2s are not always wild...
        (MeldKind.RUN, "2H 3H 4H", "2H 3H 4H", {PROGRESSIVE: "", EVELEIGH: "", ALWAYS: "2H"}),
        # ...but a 2 of another suit standing for it is a wild card (the hasty player's old slip).
        (MeldKind.RUN, "2C 3H 4H", "2H 3H 4H", {EVELEIGH: "2C", ALWAYS: "2C"}),
        (MeldKind.RUN, "3H 2C JK 6H", "3H 4H 5H 6H", {EVELEIGH: "2C JK", ALWAYS: "2C JK"}),
        (MeldKind.RUN, "7H JK 9H", "7H 8H 9H", {PROGRESSIVE: "JK", EVELEIGH: "JK", ALWAYS: "JK"}),
        # In a set suits are free: any 2 in a set of 2s stands for itself.
        (MeldKind.SET, "2C 2D 2H", "2C 2D 2H", {EVELEIGH: "", ALWAYS: "2C 2D 2H"}),
        (MeldKind.SET, "2C 2D JK", "2C 2D 2S", {EVELEIGH: "JK", ALWAYS: "2C 2D JK"}),
        (MeldKind.SET, "5C 5D 2H", "5C 5D 5S", {EVELEIGH: "2H", ALWAYS: "2H"}),
        (MeldKind.SET, "JK JK JK", "5C 5D 5S", {PROGRESSIVE: "JK JK JK", EVELEIGH: "JK JK JK"}),
    ],
)
def test_the_wild_cards_of_a_meld(kind: MeldKind, cards: str, meanings: str, wild_in: dict[Rules, str]) -> None:
    placed = meld(kind, cards, meanings)
    for rules, wild in wild_in.items():
        assert " ".join(c.token for c in wild_cards(placed, rules)) == wild, rules.name
        assert meld_problems(placed, rules) == [], rules.name


def test_a_deuce_standing_for_itself_within_the_wild_limits() -> None:
    one_wild = house("shanghai", deuces_wild=True, ace_low=True)
    always_one_wild = house("shanghai", deuces_wild=True, deuces_always_wild=True)
    as_itself = meld(MeldKind.RUN, "2H 3H JK 5H", "2H 3H 4H 5H")
    for_another = meld(MeldKind.RUN, "2C 3H JK 5H", "2H 3H 4H 5H")
    assert within_wild_limits(as_itself, one_wild) and meld_problems(as_itself, one_wild) == []
    assert not within_wild_limits(for_another, one_wild)
    assert meld_problems(for_another, one_wild) == ["2 wild cards, at most 1 allowed per meld"]
    assert meld_problems(as_itself, always_one_wild) == ["2 wild cards, at most 1 allowed per meld"]
    # The validator says the same of the meld in a lay-down.
    hand = parse_cards("2C 3H JK 5H 7S 7D 7C")
    sevens = meld(MeldKind.SET, "7S 7D 7C", "7S 7D 7C")
    assert any("2 wild cards" in problem for problem in validate_lay_down(hand, one_wild, 2, [sevens, for_another], ()))
    # No more wild cards than natural ones: the 2 standing for itself is one of the naturals.
    even = house("eveleigh", wilds_may_outnumber_naturals=False)
    assert meld_problems(meld(MeldKind.RUN, "2H JK JK 5H", "2H 3H 4H 5H"), even) == []
    assert meld_problems(meld(MeldKind.RUN, "2C JK JK 5H", "2H 3H 4H 5H"), even) == [
        "3 wild cards outnumber its 1 natural cards"]


def test_a_meld_s_problems() -> None:
    assert meld_problems(meld(MeldKind.RUN, "QH KH AH 2H", "QH KH AH 2H"), PROGRESSIVE) == [
        ("QH KH AH 2H is not a run in rising order on consecutive positions "
         "(the ace is low or high, a run never turns the corner)")]
    assert meld_problems(meld(MeldKind.RUN, "AH 2H 3H", "AH 2H 3H"), preset("shanghai")) == [
        ("AH 2H 3H is not a run in rising order on consecutive positions (the ace is high only, "
         "a run never turns the corner)")]
    assert meld_problems(meld(MeldKind.RUN, "5H 6H 7S", "5H 6H 7S"), PROGRESSIVE) == ["a run needs one suit, not 2"]
    assert meld_problems(meld(MeldKind.SET, "5H 5S 6S", "5H 5S 6S"), PROGRESSIVE) == ["a set needs one rank, not 2"]
    assert meld_problems(meld(MeldKind.SET, "5H 5S 6S", "5H 5S 5D"), PROGRESSIVE) == [
        "6S is not wild, so it cannot stand for 5D"]
    assert meld_problems(PlacedMeld(MeldKind.SET, (), ()), PROGRESSIVE) == ["a meld with no cards"]


@pytest.mark.parametrize("rules", [PROGRESSIVE, EVELEIGH, ALWAYS, preset("shanghai"),
                                   house("eveleigh", max_wilds_per_meld=1),
                                   house("progressive", two_position_in_runs=False)], ids=lambda r: r.name)
def test_a_card_laid_off_always_leaves_a_meld(rules: Rules) -> None:
    """Every card kind on a few melds: what extend_meld makes is a meld by the validator's test."""
    melds = [meld(MeldKind.RUN, "3H 4H 5H", "3H 4H 5H"), meld(MeldKind.RUN, "JS QS KS", "JS QS KS"),
             meld(MeldKind.SET, "9C 9D 9H", "9C 9D 9H"), meld(MeldKind.RUN, "3D JK 5D", "3D 4D 5D"),
             meld(MeldKind.SET, "2C 2D 2H", "2C 2D 2H")]
    kinds = [*(card(face, letter) for letter in SUIT_LETTERS for face in FACES[1:14]), JOKER]
    for placed in melds:
        if not meld_is_valid(placed, rules):
            continue
        for laid in kinds:
            extended = extend_meld(placed, laid, rules)
            if extended is not None:
                assert meld_is_valid(extended, rules), (placed, laid, rules.name)
