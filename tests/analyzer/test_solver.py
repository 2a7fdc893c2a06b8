"""The CP-SAT solver against the brute-force reference, and every answer re-validated card by card.

The properties would fail for a solver that returned nothing (the reference finds lay-downs),
or the first legal lay-down instead of the best (leftover points are compared exactly).
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer import analyze
from analyzer.cards import Card, parse_cards
from analyzer.hand import deck_copies
from analyzer.result import LayDown
from analyzer.rules import preset
from analyzer.solver import solve_lay_down
from analyzer.turn import Moment, hand_sizes
from analyzer.validate import leftover_points, validate_lay_down
from tests.reference import reference_best, reference_cards_away, reference_fewest_extras
from tests.strategies import hands, same_suit_runs

# (rule set, round) pairs small enough for brute force, covering exact and minimum contracts,
# every same-suit policy, ace high only, one wild per meld, distinct set ranks, wild 2s, pairs.
SMALL_ROUNDS = [
    ("progressive", 1), ("progressive", 2), ("progressive", 3),
    ("ill-buy-it", 2), ("contract", 3),
    ("pagat", 2), ("pagat", 3),
    ("may-i", 2), ("may-i", 3),
    ("shanghai", 1), ("shanghai", 2), ("shanghai", 3),
    ("shanghai-powe", 3), ("kolsov", 2),
    ("eveleigh", 1), ("eveleigh", 3), ("eveleigh", 4),
]


def check_answer(result: LayDown, hand: tuple[Card, ...], rules_name: str, round_number: int,
                 players: int | None = None) -> None:
    """Re-validate whatever the solver returned, with the independent validator."""
    rules = preset(rules_name)
    assert Counter(result.hand) == Counter(hand)
    if result.can_lay_down:
        assert result.cards_away == 0 and not result.missing
        problems = validate_lay_down(hand, rules, round_number, result.melds, result.leftover)
        assert problems == [], result.to_dict()
        assert result.leftover_points == leftover_points(result.leftover, rules)
    elif result.cards_away is not None:
        assert result.cards_away == len(result.missing) >= 1
        assert not result.melds
        extra = result.missing
        kept, leftover = hand, result.kept_with_missing()
        if result.go_out:  # counted in draws: the hand's cards the melds leave out are let go
            kept, leftover = tuple((Counter(hand) - Counter(leftover)).elements()), ()
            drawn = 1 if result.moment == "before-draw" else 0  # before the draw, one card more
            assert sum(len(meld.cards) for meld in result.with_missing) == len(hand) + drawn
        elif result.moment == "after-draw":
            # The witness is a turn's play: a missing card its melds leave is held (or discarded)
            # like the hand's own cards (docs/lay-down.md, "Not this turn").
            melded = Counter(card for meld in result.with_missing for card in meld.cards)
            held = Counter(extra) - melded
            kept, extra = tuple((Counter(hand) + held).elements()), tuple((Counter(extra) - held).elements())
            leftover = tuple((Counter(kept) - (melded - Counter(extra))).elements())
        problems = validate_lay_down(kept, rules, round_number, result.with_missing,
                                     leftover, extra=extra, deck=rules.deck_for(players))
        assert problems == [], result.to_dict()
        for card, count in Counter(hand + result.missing).items():
            assert count <= deck_copies(card, rules.deck_for(players))


@pytest.mark.parametrize("rules_name, round_number", SMALL_ROUNDS)
@given(data=st.data())
def test_best_lay_down_matches_brute_force(rules_name: str, round_number: int, data: st.DataObject) -> None:
    rules = preset(rules_name)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    hand = data.draw(hands(rules, min_size=need, max_size=need + 2))
    result = analyze(hand, rules, round_number, moment="before-draw")
    check_answer(result, hand, rules_name, round_number)
    assert result.proven_optimal
    best = reference_best(hand, rules, round_number)
    assert result.can_lay_down == (best is not None)
    if best is not None:
        assert result.leftover_points == best


@pytest.mark.parametrize("rules_name, round_number", SMALL_ROUNDS)
@given(data=st.data())
def test_cards_away_matches_brute_force(rules_name: str, round_number: int, data: st.DataObject) -> None:
    rules = preset(rules_name)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    hand = data.draw(hands(rules, min_size=max(3, need - 2), max_size=need))
    result = analyze(hand, rules, round_number, moment="before-draw")
    check_answer(result, hand, rules_name, round_number)
    expected = reference_cards_away(hand, rules, round_number, rules.deck_for(None), max_extra=2)
    if expected is not None:
        assert result.cards_away == expected
    else:
        assert result.cards_away is None or result.cards_away > 2


# Three runs in a two-deck game (rounds without the go-out rule; tests/analyzer/test_go_out.py has the
# others): with several copies of one suit's cards some cards are used up, and a missing card
# standing for one of them must be a joker (the strict deck model).
THREE_RUNS = [("kolsov", 7, None), ("may-i", 7, 4), ("progressive", 7, 4)]
SOME = settings(max_examples=max(8, settings().max_examples // 4))  # the reference takes up to 2 s


@pytest.mark.parametrize("rules_name, round_number, players", THREE_RUNS)
@SOME
@given(data=st.data())
def test_cards_away_with_used_up_cards_matches_brute_force(
    rules_name: str, round_number: int, players: int | None, data: st.DataObject
) -> None:
    rules = preset(rules_name)
    hand = data.draw(same_suit_runs(rules, round_number, players))
    result = analyze(hand, rules, round_number, players=players, moment="before-draw")
    check_answer(result, hand, rules_name, round_number, players)
    assert result.proven_optimal
    expected = reference_fewest_extras(hand, rules, round_number, rules.deck_for(players), max_extra=2)
    if expected is None:
        assert result.cards_away is None or result.cards_away > 2
        return
    away, kept_points = expected
    assert result.cards_away == away, result.to_dict()
    points = result.leftover_points if away == 0 else leftover_points(result.kept_with_missing(), rules)
    assert points == kept_points, result.to_dict()


@pytest.mark.parametrize("rules_name, round_number", SMALL_ROUNDS[::2])
@SOME
@given(data=st.data())
def test_meld_at_most_matches_brute_force(rules_name: str, round_number: int, data: st.DataObject) -> None:
    # A player who must keep cards in hand: the melds hold at most this many of the hand's cards.
    rules = preset(rules_name)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    hand = data.draw(hands(rules, min_size=max(3, need - 1), max_size=need + 2))
    keep = data.draw(st.integers(1, 2))
    result = solve_lay_down(hand, rules, round_number, rules.deck_for(None), 5.0, meld_at_most=len(hand) - keep)
    check_answer(result, hand, rules_name, round_number)
    assert result.proven_optimal
    best = reference_best(hand, rules, round_number, min_leftover=keep)
    assert result.can_lay_down == (best is not None)
    if best is not None:
        assert len(result.leftover) >= keep and result.leftover_points == best
        return
    away = reference_cards_away(hand, rules, round_number, rules.deck_for(None), max_extra=2, min_leftover=keep)
    if away is None:
        assert result.cards_away is None or result.cards_away > 2
    else:
        assert result.cards_away == away and len(result.kept_with_missing()) >= keep, result.to_dict()


@pytest.mark.parametrize("rules_name, round_number", SMALL_ROUNDS + [("progressive", 6), ("ill-buy-it", 7)])
@given(data=st.data())
def test_adding_a_missing_card_brings_the_hand_one_closer(
    rules_name: str, round_number: int, data: st.DataObject
) -> None:
    # Fewer cards than the contract melds: every such hand is at least that many cards away,
    # and (no go-out rule in these rounds) some cards always do it, so the answer is a number.
    rules = preset(rules_name)
    assert not rules.round(round_number).go_out
    need = sum(spec.size for spec in rules.round(round_number).contract)
    hand = data.draw(hands(rules, min_size=max(3, need - 4), max_size=need - 1))
    result = analyze(hand, rules, round_number, moment="before-draw")
    check_answer(result, hand, rules_name, round_number)
    assert not result.can_lay_down
    assert result.cards_away is not None and result.cards_away >= need - len(hand), result.to_dict()
    index = data.draw(st.integers(0, len(result.missing) - 1))
    closer = analyze(hand + (result.missing[index],), rules, round_number, moment="before-draw")
    check_answer(closer, hand + (result.missing[index],), rules_name, round_number)
    assert closer.cards_away == result.cards_away - 1
    # ...and all of them together lay the contract down.
    done = analyze(hand + result.missing, rules, round_number, moment="before-draw")
    assert done.can_lay_down and done.cards_away == 0


@pytest.mark.parametrize("rules_name", ["progressive", "ill-buy-it", "shanghai", "may-i", "eveleigh"])
@given(data=st.data())
def test_larger_hands_are_valid_and_deterministic(rules_name: str, data: st.DataObject) -> None:
    rules = preset(rules_name)
    round_number = data.draw(st.integers(1, len(rules.rounds)))
    deal = rules.round(round_number).deal
    largest = max(hand_sizes(rules, round_number)[Moment.AFTER_DRAW])  # with every buy the round allows
    hand = data.draw(hands(rules, min_size=deal, max_size=min(deal + 3, largest), focus=data.draw(st.booleans())))
    result = analyze(hand, rules, round_number)
    check_answer(result, hand, rules_name, round_number)
    assert result.proven_optimal
    # Outside a go-out round some cards always complete the contract: "never" is wrong, and
    # no hand is further away than the contract's own size.
    if not rules.round(round_number).go_out:
        need = sum(spec.size for spec in rules.round(round_number).contract)
        assert result.cards_away is not None and result.cards_away <= need, result.to_dict()
        assert result.can_lay_down == (result.cards_away == 0)
        if not result.can_lay_down:
            assert result.cards_away >= need - len(hand)
    shuffled = tuple(reversed(hand))
    assert analyze(shuffled, rules, round_number) == result


# ---- the seeds' own examples -------------------------------------------------------------


def lay(hand: str, rules: str, round_number: int, moment: str | None = None) -> LayDown:
    result = analyze(hand, rules, round_number, moment=moment)
    check_answer(result, parse_cards(hand), rules, round_number)
    return result


def test_contiguous_same_suit_runs_are_one_run_under_progressive() -> None:
    # seed 000: 3456 + 78910 of one suit "counts as one sequence".
    assert not lay("3H 4H 5H 6H 7H 8H 9H 10H", "progressive", 3).can_lay_down


def test_contiguous_same_suit_runs_are_two_runs_under_may_i() -> None:
    # seed 003, May I? point 4: no prohibition against contiguous sequences.
    assert lay("3H 4H 5H 6H 7H 8H 9H 10H", "may-i", 3).can_lay_down


def test_overlapping_runs_are_two_runs_under_pagat() -> None:
    # seed 003: "3 4 5 6 and 5 6 7 8" are valid as a pair of sequences.
    result = lay("3H 4H 5H 6H 5H 6H 7H 8H", "pagat", 3)
    assert result.can_lay_down and result.leftover_points == 0


def test_runs_with_a_gap_are_two_runs_under_pagat() -> None:
    # seed 003: "3 4 5 6 and 8 9 10 J" are valid.
    assert lay("3H 4H 5H 6H 8H 9H 10H JH", "pagat", 3).can_lay_down


def test_low_ace_run_is_no_run_under_shanghai() -> None:
    # seed 003: "In a run, aces are high only. A-2-3-4 is not a run."
    assert not lay("AH 2H 3H 4H 9C 9D 9S", "shanghai", 2).can_lay_down
    assert lay("AH 2H 3H 4H 9C 9D 9S", "progressive", 2).can_lay_down


def test_runs_never_turn_the_corner() -> None:
    # K-A-2-3 is no run anywhere; J-Q-K-A is.
    assert not lay("KS AS 2S 3S 9C 9D 9S", "progressive", 2).can_lay_down
    assert lay("JS QS KS AS 9C 9D 9H", "progressive", 2).can_lay_down


def test_shanghai_allows_one_joker_per_meld_and_distinct_set_ranks() -> None:
    assert not lay("8C 8D 8H 8S 8C 8D", "shanghai", 1).can_lay_down  # six eights are not two books
    assert not lay("7C JK JK 9D 9H 9S", "shanghai", 1).can_lay_down
    assert lay("7C 7D JK 9D 9H JK", "shanghai", 1).can_lay_down


def test_exact_contract_keeps_the_fourth_card_for_later() -> None:
    result = lay("7C 7D 7H 7S 9D 9H 9S", "progressive", 1)
    assert result.can_lay_down and result.leftover_points == 7
    longer = lay("7C 7D 7H 7S 9D 9H 9S", "may-i", 1)
    assert longer.can_lay_down and longer.leftover_points == 0


def test_go_out_round_needs_every_card_melded() -> None:
    # pagat round 7: three runs, every card melded at once, runs may be longer. A go-out round
    # counts draws (tests/analyzer/test_go_out.py has more): analyze() takes the hand after the draw.
    out = "3H 4H 5H 6H 7H 8C 9C 10C JC 2S 3S 4S 5S"
    assert lay(out, "pagat", 7).can_lay_down
    # K♣ extends 8♣-J♣ only with Q♣ between: let the K♣ go and draw a card that fits (or keep
    # it, draw the Q♣ and let a 3♥ go): one draw, and the melds hold 14 cards.
    stuck = lay(out + " KC", "pagat", 7, moment="after-draw")
    assert not stuck.can_lay_down and stuck.cards_away == 1
    assert sum(len(meld.cards) for meld in stuck.with_missing) == 14
    # K♦ has no diamond run to join and only three runs may be melded: it goes, one draw.
    stray = lay(out + " KD", "pagat", 7, moment="after-draw")
    assert stray.cards_away == 1 and stray.kept_with_missing() == parse_cards("KD")
    # Eleven cards cannot be three runs of 4: no number of draws will do.
    hopeless = lay("3H 4H 5H 6H 7H 8C 9C 10C JC 2S 3S", "pagat", 7, moment="after-draw")
    assert hopeless.cards_away is None and hopeless.proven_optimal


def test_joker_is_placed_and_reported_as_what_it_stands_for() -> None:
    result = lay("7H 8H JK 10H 5C 5D 5S", "progressive", 2)
    run = next(m for m in result.melds if m.kind.value == "run")
    assert [c.token for c in run.stands_for] == ["7H", "8H", "9H", "10H"]
    assert [c.token for c in run.cards] == ["7H", "8H", "JK", "10H"]


@pytest.mark.parametrize("hand, round_number, kept", [
    # Three sets of three, two to meld: the 9s (27) are kept, not the aces (45) or kings (30).
    ("AC AD AH 9C 9D 9H KC KD KH", 1, "9C 9D 9H"),
    ("AC AD AH 2C 2D 2H 3C 3D 3S", 1, "2C 2D 2H"),
    # Five hearts in a row and a run of 4 to make: the cheaper end card is kept.
    ("7H 8H 9H 10H JH 5C 5D 5S", 2, "7H"),
    ("6H 7H 8H 9H 10H 5C 5D 5S", 2, "6H"),
])
def test_best_lay_down_keeps_the_cheapest_cards(hand: str, round_number: int, kept: str) -> None:
    # An exact contract melds the same number of cards whichever melds are chosen: only the
    # points tell these lay-downs apart.
    result = lay(hand, "progressive", round_number, moment="before-draw")
    assert sorted(result.leftover, key=Card.sort_key) == sorted(parse_cards(kept), key=Card.sort_key)
    assert result.leftover_points == reference_best(parse_cards(hand), preset("progressive"), round_number)


def within_the_deck(hand: tuple[Card, ...], result: LayDown, players: int) -> None:
    """The witness asks for no card beyond the copies the deck holds less those in hand."""
    rules = preset("progressive")
    for card, count in Counter(hand + result.missing).items():
        assert count <= deck_copies(card, rules.deck_for(players)), (card, result.to_dict())
    assert validate_lay_down(hand, rules, result.round, result.with_missing, result.kept_with_missing(),
                             extra=result.missing, deck=rules.deck_for(players)) == []


def test_cards_away_respects_the_deck() -> None:
    # Round 7, three runs of 4 (exact), four players: two decks and one joker. Both J♥ and both
    # Q♥ are in hand: 8♥-J♥, 9♥ 10♥ JK Q♥, J♥-A♥ with 8♥ 10♥ and the joker. 9 cards, 12 to meld:
    # at least 3 away, and 3 do it; a third J♥ is no missing card.
    rules = preset("progressive")
    hand = parse_cards("JH QH 9H 9H QH JH KH 10H AH")
    result = analyze(hand, rules, 7, players=4)
    assert result.cards_away == 3 and len(result.missing) == 3
    within_the_deck(hand, result, 4)
    # Round 3 (two runs): both 7♥ in hand; the reference agrees.
    hand = parse_cards("7H 7H 5H 6H 8H 9H 10H JH")
    result = analyze(hand, rules, 3, players=4)
    assert result.cards_away == reference_cards_away(hand, rules, 3, rules.deck_for(4), max_extra=2) == 1
    within_the_deck(hand, result, 4)


def test_strict_deck_model_when_the_deck_runs_short() -> None:
    # Four players: two decks and one joker. The looser model would ask for more copies of a
    # card than are left; the strict one must answer, and its witness must fit the deck.
    rules = preset("progressive")
    hand = parse_cards("7D 8D 10D 8S 9S 9S 10S 10S JS JS KS")
    result = analyze(hand, rules, 6, players=4)
    assert result.cards_away == reference_cards_away(hand, rules, 6, rules.deck_for(4), max_extra=3)
    assert result.cards_away is not None and result.cards_away >= 1
    within_the_deck(hand, result, 4)
    # Round 7: the joker and both 6♥ 7♥ 9♥ are in hand: 5♥-8♥, 6♥-9♥ and 9♥ 10♥ J♥ JK with
    # 5♥ 8♥ 10♥. At least 3 away (9 cards, 12 to meld), and 3 do it within the deck.
    hand = parse_cards("JH 6H 9H 6H 7H JK 8H 9H 7H")
    result = analyze(hand, rules, 7, players=4)
    assert result.cards_away == 3 and result.proven_optimal
    within_the_deck(hand, result, 4)


# ---- cards away when a joker must stand for a used-up card (three runs, two decks) --------


@pytest.mark.parametrize("hand, away, kept_points", [
    # 2345 + 234 JK=5 + 5678: the deck's second 5♥ and a joker (or two jokers); 7♥ 8♥ kept.
    ("2H 2H 3H 3H 4H 4H 5H 6H 7H 7H 8H 8H", 2, 15),
    # 7♣-10♣ + JK=10♣ J♣ Q♣ K♣ + 10♣-K♣: both 10♣ in hand, so the third is a joker.
    ("8C 8C 9C 10C 10C JC JC QC QC KC KC 4H 8H", 2, 25),
    # 4♥ 5♥ 6♥ JK=7♥ + 5♥-8♥ + 7♥-10♥ with the deck's other 9♥.
    ("4H 5H 5H 6H 6H 7H 7H 8H 8H 10H AC 9S", 2, 30),
    # 7♣-J♣ + 9♣ 10♣ JK=J♣ Q♣ + J♣-A♣ melds every card; 6♣ 7♣ 8♣ 9♣ would keep a 10♣.
    ("7C 8C 9C 9C 10C 10C JC JC QC QC KC AC", 1, 0),
])
def test_a_missing_joker_for_a_used_up_card_counts_once(hand: str, away: int, kept_points: int) -> None:
    # kolsov round 7: three runs of 4 (longer allowed), no-touch, one wild per meld, two decks.
    # Asked before the draw: the witness is a lay-down, as the reference's (after the draw it is
    # a turn's play, which must end with a discard here).
    rules = preset("kolsov")
    result = lay(hand, "kolsov", 7, moment="before-draw")
    assert result.cards_away == away and result.proven_optimal
    assert validate_lay_down(parse_cards(hand), rules, 7, result.with_missing, result.kept_with_missing(),
                             extra=result.missing, deck=rules.deck_for(None)) == []
    assert leftover_points(result.kept_with_missing(), rules) == kept_points
    assert reference_fewest_extras(parse_cards(hand), rules, 7, rules.deck_for(None)) == (away, kept_points)
