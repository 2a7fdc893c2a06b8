"""Advice (outs, the discard table, buying) against the brute-force reference and common sense.

The outs property compares every card kind with the reference's own answer to "does this card
bring the hand closer?", so an outs finder that returned every card, or none, or a near miss,
fails it (``test_the_outs_check_catches_wrong_finders`` shows that it does).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ortools.sat.python import cp_model

from analyzer import AdviceError, HandError, advise, analyze
from analyzer import advice as advice_module
from analyzer.cards import ALL_CARD_KINDS, JOKER, Card, Suit, parse_cards
from analyzer.hand import deck_copies
from analyzer.result import LayDown, PlacedMeld
from analyzer.round_solver import RoundSolver, outs_by_resolving
from analyzer.rules import DeckRule, MeldKind, Rules, preset
from analyzer.solver import outs as outs_module
from analyzer.solver.lay_down import solve_lay_down
from analyzer.solver.model import Problem, build_model, make_problem
from analyzer.solver.outs import (
    KnownArrangements,
    MissingBound,
    _moved_meld_outs,
    _neighbour_outs,
    _placed_sets,
    _read_outs,
    _swapped_outs,
    find_outs,
)
from analyzer.solver.translate import DeckTooSmall, new_solver, skeleton, translate_solution, wilds_used
from tests.reference import reference_best, reference_cards_away
from tests.strategies import deck_cards, hands, near_contract

Hand = tuple[Card, ...]
OutsFinder = Callable[[Hand, Rules, int, DeckRule, float, bool], tuple[LayDown, frozenset[Card]]]

# Contracts 2S3, S3+R4 and 2R4 under several presets: exact and minimum melds, ace high only,
# one wild per meld, distinct set ranks, wild 2s, every same-suit policy but gap.
SMALL_ROUNDS = [
    ("progressive", 1), ("progressive", 2), ("progressive", 3),
    ("shanghai", 1), ("shanghai", 2), ("may-i", 3), ("pagat", 2),
    ("shanghai-powe", 3), ("eveleigh", 1), ("eveleigh", 4),
]
# The discard table asks for the outs of every hand one card smaller: the presets whose
# outs come fast (window-counted contracts), and one with minimum melds.
TABLE_ROUNDS = [("progressive", 1), ("progressive", 2), ("progressive", 3), ("pagat", 2), ("shanghai", 1)]
MAX_AWAY = 2  # the reference looks for at most this many missing cards
# Each example runs the solver and the brute force dozens of times: a share of the profile's count.
FEW = settings(max_examples=max(4, settings().max_examples // 10))


def reference_outs(hand: Hand, rules: Rules, round_number: int, deck: DeckRule, away: int) -> set[Card]:
    """Every card kind the deck still has a copy of whose addition makes the hand closer than
    ``away`` (the hand's own cards away), by brute force."""
    held = Counter(hand)
    return {
        card for card in ALL_CARD_KINDS
        if held[card] < deck_copies(card, deck)
        and reference_cards_away(hand + (card,), rules, round_number, deck, max_extra=away - 1) is not None
    }


def check_outs(hand: Hand, rules: Rules, round_number: int, seen: Hand,
               finder: OutsFinder | None = None) -> int | None:
    """The outs of ``advise`` (through ``finder`` when given) against the brute force, and their
    unseen counts against a direct count. Returns the hand's cards away."""
    deck = rules.deck_for(None)
    away = reference_cards_away(hand, rules, round_number, deck, max_extra=MAX_AWAY)
    if away is None:  # too far for the brute force: only check that the solver agrees
        far = analyze(hand, rules, round_number).cards_away
        assert far is None or far > MAX_AWAY
        return None
    if finder is not None:
        lay_down, found = RoundSolver(rules, round_number, deck, 5.0, finder).outs(hand)
        assert lay_down.cards_away == away
        expected = reference_outs(hand, rules, round_number, deck, away) if away else set()
        assert found == expected, (sorted(c.token for c in found), sorted(c.token for c in expected))
        return away
    result = advise(hand, rules, round_number, seen=seen)
    assert result.lay_down.cards_away == away
    outs = {out.card for out in result.outs}
    expected = reference_outs(hand, rules, round_number, deck, away) if away else set()
    assert outs == expected, (sorted(c.token for c in outs), sorted(c.token for c in expected))
    assert [out.card for out in result.outs] == [c for c in ALL_CARD_KINDS if c in outs]  # card order
    for out in result.outs:
        assert out.unseen == deck_copies(out.card, deck) - hand.count(out.card) - seen.count(out.card)
    assert result.unseen_outs == sum(out.unseen for out in result.outs)
    return away


@st.composite
def seen_cards(draw: st.DrawFn, rules: Rules, hand: Hand) -> Hand:
    """Cards seen elsewhere, from what the deck has left after the hand."""
    rest = Counter(deck_cards(rules.deck_for(None))) - Counter(hand)
    pool = sorted(rest.elements(), key=Card.sort_key)
    indices = draw(st.lists(st.integers(0, len(pool) - 1), max_size=8, unique=True))
    return tuple(pool[i] for i in indices)


# ---- outs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("rules_name, round_number", SMALL_ROUNDS)
@FEW
@given(data=st.data())
def test_outs_are_exactly_the_cards_that_bring_the_hand_closer(
    rules_name: str, round_number: int, data: st.DataObject
) -> None:
    rules = preset(rules_name)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    hand = data.draw(hands(rules, min_size=max(3, need - 2), max_size=min(9, need + 1)))
    check_outs(hand, rules, round_number, data.draw(seen_cards(rules, hand)))


def test_the_outs_check_catches_wrong_finders() -> None:
    """The property above fails for a finder that returns every card, none, or one too few."""
    rules = preset("progressive")
    hand = parse_cards("7H 8H 10H 5C 5D 5S KC")  # round 2: needs the 9H or a joker

    def every_card(*args: object) -> tuple[LayDown, frozenset[Card]]:
        return outs_by_resolving(*args)[0], frozenset(ALL_CARD_KINDS)  # type: ignore[arg-type]

    def no_card(*args: object) -> tuple[LayDown, frozenset[Card]]:
        return outs_by_resolving(*args)[0], frozenset()  # type: ignore[arg-type]

    def no_joker(*args: object) -> tuple[LayDown, frozenset[Card]]:
        lay_down, outs = outs_by_resolving(*args)  # type: ignore[arg-type]
        return lay_down, outs - {JOKER}

    assert check_outs(hand, rules, 2, (), outs_by_resolving) == 1
    for wrong in (every_card, no_card, no_joker):
        with pytest.raises(AssertionError):
            check_outs(hand, rules, 2, (), wrong)


@pytest.mark.parametrize("rules_name, round_number", SMALL_ROUNDS)
@FEW
@given(data=st.data())
def test_outs_asked_within_a_larger_hands_are_the_same(rules_name: str, round_number: int,
                                                       data: st.DataObject) -> None:
    """Outside a go-out round, a hand a card smaller and as far from its contract has no out
    the larger hand lacks (by brute force), so ``find_outs`` asked only within the larger hand's
    outs gives its outs all the same."""
    rules = preset(rules_name)
    assert not rules.round(round_number).go_out
    _, _, cards = data.draw(near_contract([rules], [round_number], list(Suit), 8, within_largest_deck=True))
    deck = rules.deck_for(None)
    stray = data.draw(st.sampled_from([card for card in ALL_CARD_KINDS
                                       if Counter(cards)[card] < deck_copies(card, deck)]))
    hand = cards + (stray,)
    rest = list(hand)
    rest.remove(data.draw(st.one_of(st.just(stray), st.sampled_from(hand))))  # the stray: often left over
    away = reference_cards_away(hand, rules, round_number, deck, max_extra=MAX_AWAY)
    if not away or reference_cards_away(tuple(rest), rules, round_number, deck, max_extra=MAX_AWAY) != away:
        return  # the bound holds only for a hand as far away (the next example)
    larger = reference_outs(hand, rules, round_number, deck, away)
    expected = reference_outs(tuple(rest), rules, round_number, deck, away)
    assert expected <= larger
    lay_down, found = find_outs(tuple(rest), rules, round_number, deck, 5.0, within=frozenset(larger))
    assert lay_down.cards_away == away and found == expected


def test_outs_asked_within_a_bound_ask_no_card_outside_it() -> None:
    """The bound spares the search: of "4C 4D 9S 9H 9C JD KS" (Shanghai round 1, two sets of 3,
    1 away), discarding the KS leaves a hand as far away whose outs are asked card by card
    (``ExtraCard``), only of the whole hand's outs not yet read off an arrangement."""
    rules = preset("shanghai")
    deck = rules.deck_for(None)
    hand = parse_cards("4C 4D 9S 9H 9C JD KS")
    rest = parse_cards("4C 4D 9S 9H 9C JD")
    whole, bound = find_outs(hand, rules, 1, deck, 5.0)
    asked: list[list[Card]] = []
    extra_card = outs_module.ExtraCard.__init__

    def recorded(self: outs_module.ExtraCard, problem: Problem, candidates: list[Card], *args: Any,
                 **kwargs: Any) -> None:
        asked.append(list(candidates))
        extra_card(self, problem, candidates, *args, **kwargs)

    with mock.patch.object(outs_module.ExtraCard, "__init__", recorded):
        free = find_outs(rest, rules, 1, deck, 5.0)
        free_asked = [card for candidates in asked for card in candidates]
        asked.clear()
        bounded = find_outs(rest, rules, 1, deck, 5.0, within=bound)
    assert whole.cards_away == free[0].cards_away == 1 and bounded == free
    assert set(free_asked) - bound  # without the bound, cards that are no out of the whole hand were asked
    assert asked and all(set(candidates) <= bound for candidates in asked)


def test_the_naive_and_the_solver_outs_agree_on_large_hands() -> None:
    rules = preset("progressive")
    for text, round_number in [
        ("7C 7D 4H 5H 6H 9S 10S JS KD 2C 3C QD", 6),
        ("AS 2S 3S 5D 6D 7D 9C 9H KH KD 4C JK", 7),
        ("3H 4H 6H 7H 8H 10H JH QH 2S 5C 9D", 7),
    ]:
        hand = parse_cards(text)
        deck = rules.deck_for(4)
        naive = outs_by_resolving(hand, rules, round_number, deck, 5.0)
        fast = RoundSolver(rules, round_number, deck, 5.0).outs(hand)
        assert naive[0].cards_away is not None and naive[0].cards_away >= 1
        assert naive[0].cards_away == fast[0].cards_away
        assert naive[1] == fast[1] and naive[1]


# Rounds of the rule sets with one wild card per meld, whose outs are asked card by card behind
# a bound: sets and runs, two and three runs, go-out rounds (before the draw, as the discard
# table asks, and after it).
SLOT_ROUNDS = [("shanghai", 2), ("shanghai", 3), ("shanghai-powe", 6), ("kolsov", 5), ("kolsov", 7),
               ("shanghai", 7), ("kolsov", 10)]
# Rounds of rule sets where any gap may take any wild card (window-counted runs): exact and
# minimum contracts, sets and runs, three runs, go-out rounds.
WINDOW_ROUNDS = [("progressive", 2), ("progressive", 7), ("may-i", 2), ("may-i", 7), ("pagat", 7),
                 ("eveleigh", 7), ("ill-buy-it", 8)]


@pytest.mark.parametrize("rules_name, round_number", SLOT_ROUNDS)
@settings(max_examples=max(3, settings().max_examples // 20), deadline=None)
@given(data=st.data())
def test_outs_with_per_meld_wild_limits_agree_with_resolving_every_card(
    rules_name: str, round_number: int, data: st.DataObject
) -> None:
    """Larger hands than the brute force takes: the solver's outs (a bound skips cards, the
    arrangements found name others) against asking the solver about every card kind. The
    bound on its own never rules out a card that is an out."""
    rules = preset(rules_name)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    deck = rules.deck_for(4)
    go_out = rules.round(round_number).go_out
    before_draw = go_out and data.draw(st.booleans())
    hand = data.draw(near_contract([rules], [round_number], [Suit.HEARTS, Suit.SPADES], need + 1,
                                   within_largest_deck=True))[2]
    hand = hand[:need - 1 if before_draw else need + 1]
    naive = outs_by_resolving(hand, rules, round_number, deck, 30.0, before_draw)
    fast = find_outs(hand, rules, round_number, deck, 30.0, before_draw)
    assert fast[0].cards_away == naive[0].cards_away
    assert fast[1] == naive[1], (sorted(c.token for c in fast[1]), sorted(c.token for c in naive[1]))
    if naive[0].cards_away and (not go_out or before_draw):
        bound = MissingBound(make_problem(hand, rules, round_number, deck, before_draw))
        assert all(bound.could_be_missing(out, naive[0].cards_away) for out in naive[1])


def assert_each_brings_closer(cards: Iterable[Card], hand: Hand, rules: Rules, round_number: int,
                              deck: DeckRule, cards_away: int) -> None:
    """Each of ``cards`` is an out: added to the hand, it brings the hand closer than
    ``cards_away``, re-solved from scratch."""
    for card in cards:
        closer = solve_lay_down(hand + (card,), rules, round_number, deck, 30.0)
        assert closer.cards_away is not None and closer.cards_away < cards_away, card.token


@pytest.mark.parametrize("rules_name, round_number", SLOT_ROUNDS + WINDOW_ROUNDS)
@settings(max_examples=max(3, settings().max_examples // 10), deadline=None)
@given(data=st.data())
def test_outs_read_off_a_best_arrangement_bring_the_hand_closer(
    rules_name: str, round_number: int, data: st.DataObject
) -> None:
    """The outs read off the hand's own best arrangement (its missing cards; a trade of one
    missing card: another suit in a set, the natural a wild card stands for in a run; and where
    any gap may take any wild card, the naturals of the places its wild cards fill) are outs:
    each, added to the hand, brings it closer, re-solved from scratch."""
    rules = preset(rules_name)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    deck = data.draw(st.sampled_from(rules.decks))
    before_draw = rules.round(round_number).go_out  # hand + card is then a hand after the draw
    hand = data.draw(near_contract([rules], [round_number], [Suit.HEARTS, Suit.SPADES], need + 1,
                                   within_largest_deck=True))[2]
    hand = hand[:need - 1 if before_draw else need]
    if any(hand.count(card) > deck_copies(card, deck) for card in hand):
        return
    lay_down = solve_lay_down(hand, rules, round_number, deck, 30.0, before_draw=before_draw)
    if not lay_down.cards_away:
        return
    read = _read_outs(make_problem(hand, rules, round_number, deck, before_draw),
                      lay_down.with_missing, lay_down.missing)
    assert set(lay_down.missing) <= read
    assert_each_brings_closer(read, hand, rules, round_number, deck, lay_down.cards_away)


def walked_outs(problem: Problem, cards_away: int) -> set[Card] | None:
    """The outs the neighbourhood walk names from a best arrangement the window-counted model
    finds, as the gap-site search does; None when the deck cannot supply that arrangement."""
    built = build_model(problem, strict_deck=False)
    built.model.add(built.missing_total == cards_away)
    built.model.clear_objective()
    solver = new_solver(30.0)
    assert solver.solve(built.model) in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    try:
        translate_solution(problem, built, solver, True, False)
    except DeckTooSmall:
        return None
    runs, sets = skeleton(built, solver)
    return _neighbour_outs(problem, runs, _placed_sets(built, solver, sets), wilds_used(built, solver))


@pytest.mark.parametrize("rules_name, round_number", WINDOW_ROUNDS)
@settings(max_examples=max(3, settings().max_examples // 10), deadline=None)
@given(data=st.data())
def test_the_neighbourhood_walk_names_only_outs(
    rules_name: str, round_number: int, data: st.DataObject
) -> None:
    """The best arrangements one move from one the window-counted model finds (a run to another
    window, a set to another rank; under a minimum contract, a rank's sets together, with the
    places the model gives them, which may be more than the contract's size) name only outs:
    each, added to the hand, brings it closer, re-solved from scratch. In go-out rounds the hand
    is before the draw, as a discard table's row."""
    rules = preset(rules_name)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    deck = rules.deck_for(4)
    before_draw = rules.round(round_number).go_out
    hand = data.draw(near_contract([rules], [round_number], [Suit.HEARTS, Suit.SPADES], need + 1,
                                   within_largest_deck=True))[2]
    hand = hand[:need - 1 if before_draw else need]
    lay_down = solve_lay_down(hand, rules, round_number, deck, 30.0, before_draw=before_draw)
    if not lay_down.cards_away:
        return
    walked = walked_outs(make_problem(hand, rules, round_number, deck, before_draw), lay_down.cards_away)
    assert_each_brings_closer(walked or (), hand, rules, round_number, deck, lay_down.cards_away)


def test_the_walk_names_outs_of_a_go_out_row() -> None:
    """ill-buy-it round 8 (three sets and a run, going out, so melds may grow), a row of the
    discard table (the model's arrangement there holds a set of 3s grown to four places): the
    walk from the model's arrangement names outs the arrangement does not miss, and all of them
    are outs of the row."""
    rules = preset("ill-buy-it")
    deck = rules.deck_for(4)
    row = parse_cards("7D 3S 2S 3H 5S KC KH 5H 2H 7C JS JK 3C")
    problem = make_problem(row, rules, 8, deck, before_draw=True)
    lay_down, outs = find_outs(row, rules, 8, deck, 30.0, before_draw=True)
    assert lay_down.cards_away
    walked = walked_outs(problem, lay_down.cards_away)
    assert walked and walked <= outs and not walked <= set(lay_down.missing)


# Per-meld wild limits, three runs and a set with a run, far from the contract and near it.
MOVED_MELD_ROUNDS = [("shanghai", 2), ("shanghai", 7), ("shanghai-powe", 8), ("kolsov", 5)]


@pytest.mark.parametrize("rules_name, round_number", MOVED_MELD_ROUNDS)
@settings(max_examples=max(3, settings().max_examples // 10), deadline=None)
@given(data=st.data())
def test_moving_one_meld_names_only_outs(rules_name: str, round_number: int, data: st.DataObject) -> None:
    """The arrangements one meld away from the hand's best one, each meld keeping its own wild
    cards (a run to another suit or window, a set to another rank), name only outs: each card,
    added to the hand, brings it closer, re-solved from scratch. Hands dealt (often many cards
    away, where moves name the most) and near the contract; in go-out rounds before the draw,
    as a discard table's row."""
    rules = preset(rules_name)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    deck = rules.deck_for(4)
    before_draw = rules.round(round_number).go_out
    size = need - 1 if before_draw else need
    if data.draw(st.booleans()):
        hand = data.draw(hands(rules, size - 2, size, players=4))
    else:
        hand = data.draw(near_contract([rules], [round_number], [Suit.HEARTS, Suit.SPADES], need + 1,
                                       within_largest_deck=True))[2][:size]
    if any(hand.count(card) > deck_copies(card, deck) for card in hand):
        return
    lay_down = solve_lay_down(hand, rules, round_number, deck, 30.0, before_draw=before_draw)
    if not lay_down.cards_away:
        return
    moved = _moved_meld_outs(make_problem(hand, rules, round_number, deck, before_draw),
                             lay_down.with_missing, lay_down.missing)
    assert_each_brings_closer(moved, hand, rules, round_number, deck, lay_down.cards_away)


def test_moving_one_meld_names_outs_the_arrangement_does_not_miss() -> None:
    """shanghai-powe round 8 (three runs of four, one wild card per meld, every run its own
    suit), eight cards away (a row of the benchmark's suite): the witness and the trades read
    off it name 8 of the 36 outs, the runs moved to other windows and suits 30, all of them
    outs (the solver asked card by card). The arrangement is given, not the solver's: which of
    the equally good ones CP-SAT returns may change."""
    rules = preset("shanghai-powe")
    deck = rules.deck_for(4)
    hand = parse_cards("6D 2D 3C 7C 3C 2D 2C 8C 5D 8C")
    problem = make_problem(hand, rules, 8, deck)
    lay_down, outs = outs_by_resolving(hand, rules, 8, deck, 30.0)
    assert lay_down.cards_away == 8
    witness = tuple(PlacedMeld(MeldKind.RUN, tuple(parse_cards(cards)), tuple(parse_cards(cards)))
                    for cards in ("5C 6C 7C 8C", "2D 3D 4D 5D 6D", "2H 3H 4H 5H"))
    missing = tuple(parse_cards("5C 6C 3D 4D 2H 3H 4H 5H"))
    moved = _moved_meld_outs(problem, witness, missing)
    assert moved <= outs
    assert len(set(missing) | _swapped_outs(problem, witness, missing)) == 8
    assert len(moved) == 30 and _read_outs(problem, witness, missing) >= moved


def test_a_held_card_is_missing_only_where_runs_can_take_every_copy() -> None:
    """Shanghai round 7 (three runs of four, going out), a row before the draw, 5 away: a card
    the hand holds is missing in a best arrangement only if the hand's own copy is melded too
    (else it could take the missing copy's place), so in two runs of its suit over its place.
    The bound rules out the seven held cards no such pair of runs can bring within 5 missing,
    and none of them is an out (the solver asked card by card); it keeps the spades of J-A."""
    rules = preset("shanghai")
    deck = rules.deck_for(4)
    hand = parse_cards("AD 4D 7D 8D QD AS 4S 8S 10S QS KS")
    lay_down, outs = outs_by_resolving(hand, rules, 7, deck, 30.0, before_draw=True)
    assert lay_down.cards_away == 5
    bound = MissingBound(make_problem(hand, rules, 7, deck, before_draw=True))
    ruled_out = {card for card in hand if not bound.could_be_missing(card, 5)}
    assert ruled_out == set(parse_cards("AD 4D 7D 8D QD 4S 8S")) and not ruled_out & outs
    assert all(bound.could_be_missing(out, 5) for out in outs)


def test_one_swap_names_outs_the_best_arrangement_does_not_hold() -> None:
    """Shanghai round 2 (a set of 3 and a run of 4, one wild card per meld), 2 away: a best
    arrangement misses a 5 for its set of 5s and the A♠ for its run J♠ Joker K♠ A♠. Another
    suit's 5 fits the set as well, and the Q♠ fits where the joker stands once the joker moves
    to the ace's place. (The arrangement is given, not the solver's: which of the equally good
    ones CP-SAT returns may change.)"""
    rules, deck = preset("shanghai"), preset("shanghai").deck_for(4)
    hand = parse_cards("5C 5D 7H 8H JK KS QD 2C 3D JS 4S")
    assert solve_lay_down(hand, rules, 2, deck, 30.0).cards_away == 2
    witness = (PlacedMeld(MeldKind.SET, tuple(parse_cards("5C 5D 5H")), tuple(parse_cards("5C 5D 5H"))),
               PlacedMeld(MeldKind.RUN, tuple(parse_cards("JS JK KS AS")), tuple(parse_cards("JS QS KS AS"))))
    missing = tuple(parse_cards("5H AS"))
    swapped = _swapped_outs(make_problem(hand, rules, 2, deck), witness, missing)
    assert {Card.parse("5S"), Card.parse("QS")} <= swapped
    assert swapped <= find_outs(hand, rules, 2, deck, 30.0)[1]
    # With one deck there is no 5♣ or 5♦ beyond the hand's: those trades are refused.
    one_deck = replace(deck, decks=1)
    swapped = _swapped_outs(make_problem(hand, rules, 2, one_deck), witness, missing)
    assert Card.parse("5S") in swapped and not {Card.parse("5C"), Card.parse("5D")} & swapped


@pytest.mark.parametrize("rules_name, round_number", SLOT_ROUNDS + WINDOW_ROUNDS)
@settings(max_examples=max(3, settings().max_examples // 10), deadline=None)
@given(data=st.data())
def test_arrangements_found_for_one_row_name_only_outs_of_another(
    rules_name: str, round_number: int, data: st.DataObject
) -> None:
    """Two rows of a discard table (the hand after the draw less one card, then less another):
    what the first row's search finds, read for the second row, names only outs of it (its
    outs found on their own, which the property above holds to re-solving every card); and
    the first row's outs are the same with the shared store as without."""
    rules = preset(rules_name)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    deck = rules.deck_for(4)
    before_draw = rules.round(round_number).go_out  # a row is a hand before the next draw
    whole = data.draw(near_contract([rules], [round_number], [Suit.HEARTS, Suit.SPADES], need + 1,
                                    within_largest_deck=True))[2]
    whole = whole[:need if before_draw else need + 2]
    first, second = data.draw(st.lists(st.sampled_from(range(len(whole))), min_size=2, max_size=2, unique=True))
    one = whole[:first] + whole[first + 1:]
    other = whole[:second] + whole[second + 1:]
    known = KnownArrangements()
    shared = find_outs(one, rules, round_number, deck, 30.0, before_draw, known=known)
    assert shared == find_outs(one, rules, round_number, deck, 30.0, before_draw)
    lay_down, outs = find_outs(other, rules, round_number, deck, 30.0, before_draw)
    if lay_down.cards_away:
        named = known.outs_of(make_problem(other, rules, round_number, deck, before_draw), lay_down.cards_away)
        assert named <= outs, sorted(c.token for c in named - outs)


def test_an_arrangement_of_one_row_names_the_outs_of_the_next() -> None:
    """Shanghai round 2: dropping the 9♣ or the 2♣ (neither in any meld) leaves hands whose
    best arrangements are the same: the first row's search names all of the second's outs."""
    rules, deck = preset("shanghai"), preset("shanghai").deck_for(4)
    whole = parse_cards("5C 5D 7H 8H JK KS QD 2C 3D JS 4S 9C")
    one = tuple(c for c in whole if c != Card.parse("9C"))
    other = tuple(c for c in whole if c != Card.parse("2C"))
    known = KnownArrangements()
    find_outs(one, rules, 2, deck, 30.0, known=known)
    lay_down, outs = find_outs(other, rules, 2, deck, 30.0)
    assert lay_down.cards_away == 2 and len(outs) == 11
    assert known.outs_of(make_problem(other, rules, 2, deck), 2) == outs
    # Not for a hand lacking a card they take (the 5♣ of the set of 5s): it is 3 away, and no
    # arrangement with 2 missing cards is one of its best.
    lacking = tuple(c for c in whole if c != Card.parse("5C"))
    assert find_outs(lacking, rules, 2, deck, 30.0)[0].cards_away == 3
    assert known.outs_of(make_problem(lacking, rules, 2, deck), 3) == set()


def test_a_discard_tables_shared_arrangements_change_no_rows_outs() -> None:
    """ill-buy-it round 8 (three sets and a run, going out, so melds may grow): every row's
    outs, with the arrangements found for the rows before it shared, are its outs found alone.
    (Arrangements read back from the window-counted model of a contract whose melds may grow
    are not the model's: sharing them named 24 unseen cards too many for the J♠ row.)"""
    rules = preset("ill-buy-it")
    deck = rules.deck_for(4)
    whole = parse_cards("7D 3S 2S 3H 5S KC KH 5H 2H 7C JS JK 3C QH")
    known = KnownArrangements()
    for card in dict.fromkeys(whole):
        row = list(whole)
        row.remove(card)
        shared = find_outs(tuple(row), rules, 8, deck, 30.0, before_draw=True, known=known)
        alone = find_outs(tuple(row), rules, 8, deck, 30.0, before_draw=True)
        assert shared == alone, (card.token, sorted(c.token for c in shared[1] ^ alone[1]))


def test_go_out_rows_outs_agree_with_resolving_every_card() -> None:
    """ill-buy-it round 8 (three sets and a run, going out: the melds hold exactly the hand
    after the draw), rows of a discard table: the gap-site question's outs (whose model rules
    out runs longer than the other melds leave room for, and sets holding naturals without a
    set of their rank laid) are those of asking about every card. Each row's outs come from a
    best arrangement with a run of five, which a run window rule one place too short loses."""
    rules = preset("ill-buy-it")
    deck = rules.deck_for(4)
    whole = parse_cards("2D 5H 6S 3D AD 6S 3C 2H 9H 4S JD 5C KS 7H")
    for card in parse_cards("5H 9H 3C"):
        row = list(whole)
        row.remove(card)
        fast = find_outs(tuple(row), rules, 8, deck, 30.0, before_draw=True)
        naive = outs_by_resolving(tuple(row), rules, 8, deck, 30.0, True)
        assert fast[0].cards_away == naive[0].cards_away == 6
        assert fast[1] == naive[1], (card.token, sorted(c.token for c in fast[1] ^ naive[1]))


def test_outs_of_a_hand_that_lays_down_or_never_can_are_empty() -> None:
    laid = advise("7H 8H 9H 10H 5C 5D 5S", "progressive", 2)
    assert laid.lay_down.can_lay_down and laid.outs == () and laid.unseen_outs == 0
    never = advise("KC KC KD KD KH KH KS KS", "shanghai", 7)  # go-out round: eight kings never fit
    assert never.lay_down.cards_away is None and never.outs == ()


def test_seen_cards_and_the_offered_card_are_not_unseen() -> None:
    hand = "7H 8H 10H 5C 5D 5S KC"
    fresh = advise(hand, "progressive", 2, players=4)
    assert [(o.card.token, o.unseen) for o in fresh.outs] == [("9H", 2), ("JK", 1)]
    seen = advise(hand, "progressive", 2, players=4, seen="9H", buy="JK", rollouts=4)
    assert [(o.card.token, o.unseen) for o in seen.outs] == [("9H", 1), ("JK", 0)]
    assert seen.unseen_outs == 1 and [c.token for c in seen.seen] == ["9H"]


# ---- the discard table ---------------------------------------------------------------------------


@pytest.mark.parametrize("rules_name, round_number", TABLE_ROUNDS)
@FEW
@given(data=st.data())
def test_discard_table_matches_brute_force(rules_name: str, round_number: int, data: st.DataObject) -> None:
    rules = preset(rules_name)
    deck = rules.deck_for(None)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    hand = data.draw(hands(rules, min_size=max(4, need - 1), max_size=min(9, need + 1)))
    seen = data.draw(seen_cards(rules, hand))
    result = advise(hand, rules, round_number, seen=seen, discards=True)
    table = result.discards
    assert table is not None
    assert sorted(row.card.sort_key() for row in table) == sorted(c.sort_key() for c in set(hand))

    after_draw = result.lay_down.moment == "after-draw"

    def merit(row: advice_module.DiscardRow) -> tuple[bool, float, int, int, bool]:
        """Laying down this turn first, then the hand without the card, then natural before wild."""
        return (not row.lays_down, (math.inf if row.cards_away is None else row.cards_away), -row.unseen_outs,
                row.points_kept, rules.is_wild(row.card))

    for place, row in enumerate(table, start=1):
        rest = list(hand)
        rest.remove(row.card)
        away = reference_cards_away(tuple(rest), rules, round_number, deck, max_extra=MAX_AWAY)
        if away is None:
            assert row.cards_away is None or row.cards_away > MAX_AWAY
        else:
            assert row.cards_away == away
        best = reference_best(tuple(rest), rules, round_number)
        assert row.lays_down == (after_draw and best is not None)  # progressive: any leftover may go
        assert row.leftover_points == best
        assert row.points_kept == (best if best is not None else sum(rules.points_of(c) for c in rest))
        assert row.card_points == rules.points_of(row.card)
        # Ranked best first; equal rows share the rank of the first of them.
        assert row.rank == 1 + sum(merit(other) < merit(row) for other in table)
        if place > 1:
            assert merit(table[place - 2]) <= merit(row)
            assert row.equal_to_previous == (merit(table[place - 2]) == merit(row))
        else:
            assert not row.equal_to_previous

    # One row's unseen outs, in full, by brute force (the discarded copy is seen now).
    row = table[data.draw(st.integers(0, len(table) - 1))]
    rest = list(hand)
    rest.remove(row.card)
    if row.cards_away and row.cards_away <= MAX_AWAY:
        outs = reference_outs(tuple(rest), rules, round_number, deck, row.cards_away)
        gone = Counter(hand) + Counter(seen)
        assert row.unseen_outs == sum(deck_copies(c, deck) - gone[c] for c in outs)
    elif row.cards_away == 0:
        assert row.unseen_outs == 0


def test_discard_table_puts_the_useless_card_on_top() -> None:
    table = advise("7H 8H 10H 5C 5D 5S KC 2D", "progressive", 2, players=4, discards=True).discards
    assert table is not None
    assert [row.card.token for row in table[:2]] == ["KC", "2D"]
    assert [(row.cards_away, row.unseen_outs, row.points_kept) for row in table[:2]] == [(1, 3, 42), (1, 3, 50)]
    assert table[0].rank == 1 and not table[0].equal_to_previous
    fives = [row for row in table if row.card.token in ("5C", "5D", "5S")]
    assert len({row.rank for row in fives}) == 1 and [row.equal_to_previous for row in fives] == [False, True, True]


@pytest.mark.parametrize("hand", [
    "5C QC 4C 2C 9C 5H 6D 3C 8C 8D 3D 3H 3H",  # 4 draws away
    "3H 10D 8C 9D QS 7C 3H 6C 7D 5D QH 2C 6D",  # 5
    "6D AS 9C 8D 8C 2H AH QC 10H 4D 3C 9S 2S",  # 6
])
def test_far_from_going_out_the_table_sheds_points_before_keeping_outs(hand: str) -> None:
    """pagat's last round melds every card at once, and whoever does not go out pays for all the
    cards held: more than one draw away, of the discards keeping the fewest draws away, those
    keeping the fewest points come first, and the unseen outs only break their tie. Each hand
    here has a nearest discard with more unseen outs that the outs-first order would pick."""
    advice = advise(hand, "pagat", 7, players=4, discards=True)
    table = advice.discards
    assert table is not None
    first = table[0]
    assert first.cards_away is not None and first.cards_away > advice_module.OUTS_COUNT_WITHIN
    assert advice.discard_order == advice.to_dict()["discard_order"]
    assert advice.discard_order is not None and advice.discard_order.startswith(
        "fewest cards away, then fewest points kept, then most unseen outs")
    nearest = [row for row in table if row.cards_away == first.cards_away]
    assert first.points_kept == min(row.points_kept for row in nearest)
    assert first.unseen_outs == max(row.unseen_outs for row in nearest if row.points_kept == first.points_kept)
    assert any(row.unseen_outs > first.unseen_outs for row in nearest)  # outs first would throw another


def test_one_draw_from_going_out_the_table_keeps_outs_before_points() -> None:
    advice = advise("3D 4D 5D 6D AS 2S 3S 4S 4C 5C 6C 8C 5S", "pagat", 7, players=4, discards=True)
    table = advice.discards
    assert table is not None
    assert advice.discard_order == "fewest cards away, then most unseen outs, then fewest points kept"
    first = table[0]
    nearest = [row for row in table if row.cards_away == first.cards_away == 1]
    assert first.unseen_outs == max(row.unseen_outs for row in nearest)
    assert any(row.points_kept < first.points_kept for row in nearest)  # points first would throw another


def test_discard_table_when_the_hand_can_lay_down_ranks_by_leftover_points() -> None:
    advice = advise("7H 8H 9H 10H 5C 5D 5S KC 3D", "progressive", 2, discards=True)
    table = advice.discards
    assert table is not None
    assert table[0].card.token == "KC" and table[0].cards_away == 0 and table[0].leftover_points == 3
    assert table[1].card.token == "3D" and table[1].leftover_points == 10
    # Before the draw every row is 0 away without outs: the points kept decide, as the order says.
    assert advice.discard_order == "fewest cards away, then most unseen outs, then fewest points kept"
    assert advise("7H 8H 9H 10H 5C 5D 5S KC 3D", "progressive", 2).discard_order is None  # no table asked
    after_draw = advise("7H 8H 9H 10H 5C 5D 5S KC", "progressive", 2, discards=True)
    assert after_draw.discards is not None and after_draw.discards[0].lays_down
    assert after_draw.discard_order is not None and after_draw.discard_order.startswith(
        "a discard that lets you lay down this turn first")


# ---- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("options", "error", "words"), [
    ({"seen": "9H 9H 9H"}, HandError, ["the hand and the seen cards", "3 copies of 9H"]),
    ({"seen": "9H 9Z"}, HandError, ["seen cards", "'9Z'"]),
    ({"buy": "7H"}, HandError, ["offered 7H", "3 copies of 7H"]),
    ({"buy": "9H 10H"}, AdviceError, ["one card"]),
    ({"buy": "9H", "horizon": 0}, AdviceError, ["horizon"]),
    ({"buy": "9H", "rollouts": 0}, AdviceError, ["rollouts"]),
])
def test_bad_advice_input_is_refused(options: dict[str, object], error: type[Exception], words: list[str]) -> None:
    with pytest.raises(error) as caught:
        advise("7H 7H 8H 10H 5C 5D 5S", "progressive", 2, players=4, **options)  # type: ignore[arg-type]
    for word in words:
        assert word in str(caught.value)
