"""The lay-down validator, rule by rule: each rule once accepted and once broken.

Examples come from the rule seeds (RULES.md): same-suit runs, the ace, Shanghai's limits,
exact and minimum contracts, go-out rounds, wild cards.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from hypothesis import event, given, settings
from hypothesis import strategies as st

from analyzer.cards import JOKER, Card, Suit, parse_cards
from analyzer.result import PlacedMeld
from analyzer.rules import DeckRule, MeldKind, Rules, SameSuitRuns, preset
from analyzer.validate import leftover_points, validate_lay_down
from tests.reference import reference_best, reference_lay_downs
from tests.strategies import near_contract

PROGRESSIVE = preset("progressive")
MAY_I = preset("may-i")
PAGAT = preset("pagat")
SHANGHAI = preset("shanghai")
EVELEIGH = preset("eveleigh")


def set_(text: str, as_: str | None = None) -> PlacedMeld:
    """A set; ``as_`` gives what each card stands for (default: itself)."""
    return _meld(MeldKind.SET, text, as_)


def run(text: str, as_: str | None = None) -> PlacedMeld:
    return _meld(MeldKind.RUN, text, as_)


def _meld(kind: MeldKind, text: str, as_: str | None) -> PlacedMeld:
    cards = parse_cards(text)
    return PlacedMeld(kind, cards, cards if as_ is None else parse_cards(as_))


def check(
    rules: Rules,
    round_number: int,
    melds: list[PlacedMeld],
    leftover: str = "",
    hand: str | None = None,
    extra: str = "",
    deck: DeckRule | None = None,
) -> list[str]:
    """Validate; the hand defaults to the melded cards plus the leftover."""
    left = parse_cards(leftover)
    if hand is None:
        cards = tuple(card for meld in melds for card in meld.cards) + left
    else:
        cards = parse_cards(hand)
    return validate_lay_down(cards, rules, round_number, melds, left, parse_cards(extra), deck=deck)


def only_problem(problems: list[str], words: str) -> None:
    """Exactly one problem, and it mentions ``words``."""
    assert len(problems) == 1, problems
    assert words in problems[0], problems


# ---- acceptances -----------------------------------------------------------------------


def test_two_sets_with_a_card_left_over() -> None:
    assert check(PROGRESSIVE, 1, [set_("5C 5D 5S"), set_("9H 9S 9C")], leftover="KD") == []


def test_set_and_run_with_a_joker() -> None:
    melds = [set_("8C 8D JK", as_="8C 8D 8S"), run("3H 4H 5H 6H")]
    assert check(PROGRESSIVE, 2, melds, leftover="KS") == []


def test_identical_cards_in_a_set_from_two_decks() -> None:
    assert check(PROGRESSIVE, 1, [set_("7H 7H 7C"), set_("9H 9S 9C")]) == []


def test_leftover_points() -> None:
    assert leftover_points(parse_cards("KD 5C AS JK"), PROGRESSIVE) == 10 + 5 + 15 + 25
    assert leftover_points(parse_cards("JK"), PAGAT) == 15
    assert leftover_points(parse_cards("2C 7C"), EVELEIGH) == 20 + 5


# ---- same-suit runs --------------------------------------------------------------------


def test_contiguous_runs_are_one_run_under_no_touch() -> None:
    # progressive round 3, 2 runs of 4: 3456 + 78910 of hearts reads as one run of eight.
    melds = [run("3H 4H 5H 6H"), run("7H 8H 9H 10H")]
    only_problem(check(PROGRESSIVE, 3, melds), "touch")
    only_problem(check(PROGRESSIVE, 3, melds[::-1]), "touch")


def test_contiguous_runs_are_allowed_under_may_i() -> None:
    assert check(MAY_I, 3, [run("3H 4H 5H 6H"), run("7H 8H 9H 10H")]) == []


def test_overlapping_runs_of_one_suit_under_pagat() -> None:
    # Two decks: 3456 + 5678 of hearts are two runs (no-touch allows overlap).
    assert check(PAGAT, 3, [run("3H 4H 5H 6H"), run("5H 6H 7H 8H")]) == []


def test_runs_with_a_gap_under_no_touch() -> None:
    assert check(PROGRESSIVE, 3, [run("3H 4H 5H 6H"), run("8H 9H 10H JH")]) == []


def test_gap_policy() -> None:
    gap = dataclasses.replace(PROGRESSIVE, same_suit_runs=SameSuitRuns.GAP)
    assert check(gap, 3, [run("3H 4H 5H 6H"), run("8H 9H 10H JH")]) == []
    only_problem(check(gap, 3, [run("3H 4H 5H 6H"), run("5H 6H 7H 8H")]), "gap")
    only_problem(check(gap, 3, [run("3H 4H 5H 6H"), run("7H 8H 9H 10H")]), "gap")


def test_distinct_suits_policy() -> None:
    powe = preset("shanghai-powe")  # round 3: 2 runs of 4, one run per suit
    assert check(powe, 3, [run("3H 4H 5H 6H"), run("3S 4S 5S 6S")]) == []
    only_problem(check(powe, 3, [run("3H 4H 5H 6H"), run("9H 10H JH QH")]), "distinct-suits")


def test_free_policy_allows_same_suit_runs() -> None:
    free = dataclasses.replace(PROGRESSIVE, same_suit_runs=SameSuitRuns.FREE)
    assert check(free, 3, [run("3H 4H 5H 6H"), run("7H 8H 9H 10H")]) == []


# ---- the ace ---------------------------------------------------------------------------


def test_low_ace_run_needs_ace_low() -> None:
    melds = [set_("8C 8D 8S"), run("AH 2H 3H 4H")]
    assert check(PROGRESSIVE, 2, melds) == []
    only_problem(check(SHANGHAI, 2, melds), "high only")  # Shanghai: A-2-3-4 is not a run


def test_high_ace_run() -> None:
    melds = [set_("8C 8D 8S"), run("JH QH KH AH")]
    assert check(PROGRESSIVE, 2, melds) == []
    assert check(SHANGHAI, 2, melds) == []
    low_only = dataclasses.replace(PROGRESSIVE, ace_high=False)
    only_problem(check(low_only, 2, melds), "low only")


def test_a_run_never_turns_the_corner() -> None:
    melds = [set_("8C 8D 8S"), run("KH AH 2H 3H")]
    only_problem(check(PROGRESSIVE, 2, melds), "corner")
    only_problem(check(MAY_I, 2, melds), "corner")


def test_a_wild_card_needs_a_position_that_exists() -> None:
    # Nothing lies above the high ace: a joker after A♥ would be the 2♥ of K-A-2.
    past_the_ace = [set_("8C 8D 8S"), run("JH QH KH AH JK", as_="JH QH KH AH 2H")]
    only_problem(check(MAY_I, 2, past_the_ace), "not a run")
    below = [set_("8C 8D 8S"), run("JK JH QH KH AH", as_="10H JH QH KH AH")]
    assert check(MAY_I, 2, below) == []


def test_run_of_fourteen_has_an_ace_at_each_end() -> None:
    cards = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"
    assert check(MAY_I, 2, [set_("8C 8D 8S"), run(cards)]) == []


def test_run_cards_must_rise() -> None:
    only_problem(check(PROGRESSIVE, 2, [set_("8C 8D 8S"), run("6H 5H 4H 3H")]), "rising order")


# ---- Shanghai's limits -----------------------------------------------------------------


def test_shanghai_forbids_two_sets_of_one_rank() -> None:
    only_problem(check(SHANGHAI, 1, [set_("7C 7D 7H"), set_("7S 7C 7D")]), "share a rank")
    assert check(MAY_I, 1, [set_("7C 7D 7H"), set_("7S 7C 7D")]) == []
    assert check(SHANGHAI, 1, [set_("7C 7D 7H"), set_("9S 9C 9D")]) == []


def test_shanghai_allows_one_joker_per_meld() -> None:
    one = [set_("9S 9C 9D"), run("5H JK 7H 8H", as_="5H 6H 7H 8H")]
    assert check(SHANGHAI, 2, one) == []
    two = [set_("9S 9C 9D"), run("5H JK JK 8H", as_="5H 6H 7H 8H")]
    only_problem(check(SHANGHAI, 2, two), "at most 1")
    assert check(MAY_I, 2, two) == []


# ---- contract sizes --------------------------------------------------------------------


def test_exact_contract_rejects_a_set_of_four() -> None:
    melds = [set_("5C 5D 5S 5H"), set_("9H 9S 9C")]
    only_problem(check(PROGRESSIVE, 1, melds), "exactly")


def test_minimum_contract_accepts_a_set_of_four() -> None:
    assert check(MAY_I, 1, [set_("5C 5D 5S 5H"), set_("9H 9S 9C")]) == []


def test_too_small_a_meld() -> None:
    only_problem(check(MAY_I, 1, [set_("5C 5D"), set_("9H 9S 9C")], leftover="5S"), "at least")


def test_melds_must_match_the_contract_kinds() -> None:
    # Round 2 is a set of 3 and a run of 4, not two sets.
    only_problem(check(PROGRESSIVE, 2, [set_("5C 5D 5S"), set_("9H 9S 9C")]), "do not match")


def test_the_whole_contract_goes_down() -> None:
    only_problem(check(PROGRESSIVE, 1, [set_("5C 5D 5S")], leftover="9H 9S 9C"), "contract has 2")


def test_run_longer_than_max_run_length() -> None:
    short = dataclasses.replace(MAY_I, max_run_length=5)
    only_problem(check(short, 2, [set_("8C 8D 8S"), run("3H 4H 5H 6H 7H 8H")]), "longer than")
    assert check(short, 2, [set_("8C 8D 8S"), run("3H 4H 5H 6H 7H")]) == []


# ---- go-out rounds ---------------------------------------------------------------------


def test_go_out_round_melds_every_card() -> None:
    # pagat round 7: 3 runs of 4, and the player must meld every card at once.
    melds = [run("3H 4H 5H 6H"), run("9S 10S JS QS"), run("AC 2C 3C 4C")]
    assert check(PAGAT, 7, melds) == []
    only_problem(check(PAGAT, 7, melds, leftover="KD"), "go-out")
    assert check(PROGRESSIVE, 7, melds, leftover="KD") == []  # progressive round 7 is normal


def test_go_out_round_allows_longer_melds_in_an_exact_rule_set() -> None:
    melds = [run("3H 4H 5H 6H 7H"), run("9S 10S JS QS"), run("AC 2C 3C 4C")]
    assert check(PAGAT, 7, melds) == []
    only_problem(check(PROGRESSIVE, 7, melds), "exactly")


# ---- wild cards ------------------------------------------------------------------------


def test_wilds_may_not_outnumber_naturals() -> None:
    strict = dataclasses.replace(MAY_I, wilds_may_outnumber_naturals=False)
    even = [set_("8C 8D 8S"), run("JK JK 5H 6H", as_="3H 4H 5H 6H")]
    assert check(strict, 2, even) == []
    more = [set_("8C 8D 8S"), run("5H JK JK JK", as_="5H 6H 7H 8H")]
    only_problem(check(strict, 2, more), "outnumber")
    assert check(MAY_I, 2, more) == []


def test_deuces_wild_sets() -> None:
    # Eveleigh round 1 (2 sets of 3): 2s are wild; in a set of 2s they are natural.
    assert check(EVELEIGH, 1, [set_("2C 2D 2H"), set_("9C 9D 2S", as_="9C 9D 9S")]) == []
    strict = dataclasses.replace(EVELEIGH, wilds_may_outnumber_naturals=False)
    assert check(strict, 1, [set_("2C 2D JK", as_="2C 2D 2S"), set_("9C 9D 9S")]) == []
    only_problem(check(strict, 1, [set_("9C 2S JK", as_="9C 9S 9D"), set_("5C 5D 5S")]), "outnumber")


def test_a_wild_two_on_its_own_place_counts_as_natural() -> None:
    # Eveleigh round 4: 2 runs of 4. A-2♥-JK-JK: the 2♥ stands for itself, so two naturals.
    strict = dataclasses.replace(EVELEIGH, wilds_may_outnumber_naturals=False)
    natural_two = [run("AH 2H JK JK", as_="AH 2H 3H 4H"), run("5S 6S 7S 8S")]
    assert check(strict, 4, natural_two) == []
    wild_two = [run("AH 2C JK JK", as_="AH 2H 3H 4H"), run("5S 6S 7S 8S")]
    only_problem(check(strict, 4, wild_two), "outnumber")


def test_a_two_is_natural_without_deuces_wild() -> None:
    only_problem(check(PROGRESSIVE, 2, [set_("8C 8D 2S", as_="8C 8D 8S"), run("3H 4H 5H 6H")]),
                 "not wild")


# ---- what each card stands for ---------------------------------------------------------


def test_meanings_and_cards_have_the_same_length() -> None:
    bad = PlacedMeld(MeldKind.SET, parse_cards("5C 5D 5S"), parse_cards("5C 5D"))
    only_problem(check(PROGRESSIVE, 1, [bad, set_("9H 9S 9C")]), "meanings")


def test_a_natural_stands_for_itself() -> None:
    only_problem(check(PROGRESSIVE, 1, [set_("5C 5D 6S", as_="5C 5D 5S"), set_("9H 9S 9C")]),
                 "not wild")


def test_a_joker_stands_for_a_natural_card() -> None:
    bad = PlacedMeld(MeldKind.SET, parse_cards("5C 5D JK"), (Card.parse("5C"), Card.parse("5D"), JOKER))
    only_problem(check(PROGRESSIVE, 1, [bad, set_("9H 9S 9C")]), "joker")


def test_a_set_has_one_rank() -> None:
    only_problem(check(PROGRESSIVE, 1, [set_("5C 5D 6S"), set_("9H 9S 9C")]), "one rank")


def test_a_run_has_one_suit() -> None:
    only_problem(check(PROGRESSIVE, 2, [set_("8C 8D 8S"), run("3H 4H 5S 6H")]), "one suit")


def test_a_run_has_no_holes() -> None:
    only_problem(check(PROGRESSIVE, 2, [set_("8C 8D 8S"), run("3H 4H 6H 7H")]), "not a run")


# ---- the cards add up ------------------------------------------------------------------


def test_a_card_not_in_the_hand() -> None:
    problems = check(PROGRESSIVE, 1, [set_("5C 5D 5S"), set_("9H 9S 9C")], hand="5C 5D 5S 9H 9S 9D")
    assert any("not in the hand" in problem for problem in problems)
    assert any("neither melded nor left over" in problem for problem in problems)


def test_a_hand_card_that_vanished() -> None:
    problems = check(PROGRESSIVE, 1, [set_("5C 5D 5S"), set_("9H 9S 9C")], hand="5C 5D 5S 9H 9S 9C KD")
    only_problem(problems, "neither melded nor left over")


def test_extra_cards_are_melded_on_top_of_the_hand() -> None:
    melds = [set_("5C 5D 5S"), set_("9H 9S 9C")]
    assert check(PROGRESSIVE, 1, melds, leftover="KD", hand="5C 5D 9H 9S KD", extra="5S 9C") == []


def test_extra_cards_are_never_left_over() -> None:
    melds = [set_("5C 5D 5S"), set_("9H 9S 9C")]
    problems = check(PROGRESSIVE, 1, melds, leftover="KD", hand="5C 5D 5S 9H 9S 9C", extra="KD")
    only_problem(problems, "extra cards must be melded")


def test_an_extra_copy_of_a_hand_card_may_be_melded() -> None:
    # 7♥ is in the hand and among the extras: one copy melded, one left over is the hand's own.
    melds = [set_("7H 7C 7D"), set_("9H 9S 9C")]
    assert check(PROGRESSIVE, 1, melds, leftover="7H", hand="7H 7C 9H 9S 9C", extra="7H 7D") == []


def test_deck_limits_hold_for_hand_and_extras() -> None:
    melds = [set_("7H 7H 7H"), set_("9H 9S 9C")]
    two_decks = DeckRule(2, 4, 2, 1)
    only_problem(check(PROGRESSIVE, 1, melds, hand="7H 7H 9H 9S 9C", extra="7H", deck=two_decks),
                 "the deck only 2")


# ---- the validator accepts every lay-down the brute-force reference finds -----------------

SMALL_CASES = [
    (PROGRESSIVE, 1, "5C 5D 5S 5H 9H 9S 9C JK"),
    (PROGRESSIVE, 2, "3H 4H 5H 6H 7H 7C 7D 7S JK"),
    (PROGRESSIVE, 3, "3H 4H 5H 6H 5H 6H 7H 8H 9H"),
    (MAY_I, 3, "3H 4H 5H 6H 7H 8H 9H 10H JK"),
    (SHANGHAI, 2, "JH QH KH AH JK 8C 8D 8S"),
    (PAGAT, 7, "3H 4H 5H 6H 7H 9S 10S JS QS AC 2C 3C 4C"),
    (EVELEIGH, 4, "AH 2H 3H JK 5S 6S 2S 8S 2C"),
]


def test_reference_lay_downs_pass_the_validator() -> None:
    for rules, round_number, text in SMALL_CASES:
        hand = parse_cards(text)
        count = 0
        for melds, leftover in reference_lay_downs(hand, rules, round_number):
            assert validate_lay_down(hand, rules, round_number, melds, leftover) == [], (text, melds)
            count += 1
        assert count > 0, text


def near_cases() -> st.SearchStrategy[tuple[Rules, int, tuple[Card, ...]]]:
    """A round of 2 melds and 3 to 9 cards near its contract (tests/strategies.py)."""
    return near_contract([PROGRESSIVE, MAY_I, SHANGHAI, EVELEIGH, preset("shanghai-powe")], [1, 2, 3],
                         list(Suit), max_cards=9)


@settings(deadline=None)
@given(case=near_cases())
def test_every_reference_lay_down_is_valid_and_the_best_matches(
    case: tuple[Rules, int, tuple[Card, ...]]
) -> None:
    rules, round_number, hand = case
    best = None
    for melds, leftover in reference_lay_downs(hand, rules, round_number):
        assert validate_lay_down(hand, rules, round_number, melds, leftover) == [], melds
        assert Counter(leftover) <= Counter(hand)
        points = leftover_points(leftover, rules)
        best = points if best is None else min(best, points)
    event("can lay down" if best is not None else "cannot lay down")
    assert best == reference_best(hand, rules, round_number)


def test_an_empty_meld_is_named_without_a_stray_space() -> None:
    problems = check(PROGRESSIVE, 1, [set_("7C 7D 7S"), set_("")], leftover="")
    assert problems and all("(set )" not in text for text in problems), problems
    assert any(text.startswith("meld 2 (set): ") for text in problems), problems
