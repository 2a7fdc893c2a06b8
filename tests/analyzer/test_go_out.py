"""Go-out rounds counted in draws (docs/lay-down.md): the solver against the brute force that
plays the draws and discards out (tests/reference.py), every witness re-validated card by card,
and the hands worked out by hand.

A hand before the draw of n cards is k draws away when some k drawn cards and k - 1 discards
leave n + 1 cards that go out; a hand after the draw of m cards is 0 away when it goes out,
else k when k draws and k discards (the first before the first draw) leave m cards that do.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from analyzer.cards import ALL_CARD_KINDS, Card, Suit, parse_cards
from analyzer.hand import deck_copies
from analyzer.result import LayDown
from analyzer.rules import Rules, preset
from analyzer.solver import find_outs, solve_lay_down
from analyzer.validate import leftover_points, validate_lay_down
from tests.reference import reference_draws_away, reference_draws_witness
from tests.strategies import near_contract, same_suit_runs

TIME_LIMIT = 10.0
PAGAT, SHANGHAI, KOLSOV, ILL_BUY_IT = preset("pagat"), preset("shanghai"), preset("kolsov"), preset("ill-buy-it")
# The go-out rounds: three runs of 4 (exact elsewhere, longer allowed here), the same with one
# wild per meld and the ace high only, three runs of 5 likewise, and three sets and a run.
GO_OUT_ROUNDS = [(PAGAT, 7), (SHANGHAI, 7), (KOLSOV, 10), (ILL_BUY_IT, 8)]
FEW = settings(max_examples=max(6, settings().max_examples // 6))  # the reference takes up to ~2 s


def solve(rules: Rules, round_number: int, hand: tuple[Card, ...], before_draw: bool) -> LayDown:
    return solve_lay_down(hand, rules, round_number, rules.deck_for(None), TIME_LIMIT, before_draw=before_draw)


def check_draws(result: LayDown, hand: tuple[Card, ...], rules: Rules, round_number: int,
                before_draw: bool) -> tuple[Card, ...]:
    """Re-validate a go-out answer card by card; return the cards it lets go."""
    assert Counter(result.hand) == Counter(hand) and result.go_out
    if result.can_lay_down:
        assert not before_draw, "a hand before the draw must draw first"
        assert result.cards_away == 0 and not result.leftover and not result.missing
        assert validate_lay_down(hand, rules, round_number, result.melds, ()) == []
        assert sum(len(meld.cards) for meld in result.melds) == len(hand)
        return ()
    if result.cards_away is None:
        return ()
    assert result.cards_away == len(result.missing) >= 1 and not result.melds
    let_go = result.kept_with_missing()
    assert not Counter(let_go) - Counter(hand), "only the hand's cards are let go"
    kept = tuple((Counter(hand) - Counter(let_go)).elements())
    # The hand it ends with: the cards kept and the cards drawn, all melded.
    assert validate_lay_down(kept, rules, round_number, result.with_missing, (), extra=result.missing,
                             deck=rules.deck_for(None)) == [], result.to_dict()
    target = len(hand) + (1 if before_draw else 0)
    assert sum(len(meld.cards) for meld in result.with_missing) == target
    assert len(let_go) == result.cards_away - (1 if before_draw else 0)
    return let_go


def wilds(cards: tuple[Card, ...], rules: Rules) -> int:
    return sum(1 for card in cards if rules.is_wild(card))


# ---- hands worked out by hand ----------------------------------------------------------------


def test_a_stray_card_is_let_go_after_the_draw() -> None:
    # Shanghai round 7: three runs of 4, ace high only, one wild per meld. Clubs and diamonds
    # are runs, 3-5♥ lacks one card and the K♠ fits nowhere: discard it, draw 2♥, 6♥ or a
    # joker, and all 12 cards meld.
    hand = parse_cards("4C 5C 6C 7C 9D 10D JD QD 3H 4H 5H KS")
    result = solve(SHANGHAI, 7, hand, before_draw=False)
    assert result.cards_away == 1 and result.proven_optimal
    assert check_draws(result, hand, SHANGHAI, 7, before_draw=False) == parse_cards("KS")
    assert result.missing[0].token in ("2H", "6H", "JK")
    assert reference_draws_away(hand, SHANGHAI, 7, SHANGHAI.deck_for(None), before_draw=False) == 1


def test_outs_before_the_draw() -> None:
    # The same hand once the K♠ is gone, before the next draw: 11 cards, 12 to meld.
    hand = parse_cards("4C 5C 6C 7C 9D 10D JD QD 3H 4H 5H")
    lay_down, outs = find_outs(hand, SHANGHAI, 7, SHANGHAI.deck_for(None), TIME_LIMIT, before_draw=True)
    assert lay_down.cards_away == 1
    check_draws(lay_down, hand, SHANGHAI, 7, before_draw=True)
    assert sorted(card.token for card in outs) == ["2H", "6H", "JK"]


def test_a_scattered_hand_gets_a_distance() -> None:
    # Shanghai round 7, after the draw, 12 cards. Twelve cards in three runs of at least 4 are
    # three runs of exactly 4. A 4-card window holds at most three of the hand's naturals in
    # clubs (4-6♣) and one in every other suit, and the joker goes to one run: at most 6 of
    # the hand's cards, so 6 draws. Keep the joker and the 5-point cards (4♣ 5♣ 6♣ 3♥ 2♠),
    # let the six 10-point cards go.
    hand = parse_cards("4C 5C 6C QC 9D KD 3H 9H KH 2S 9S JK")
    result = solve(SHANGHAI, 7, hand, before_draw=False)
    assert result.cards_away == 6 and result.proven_optimal
    let_go = check_draws(result, hand, SHANGHAI, 7, before_draw=False)
    assert Counter(let_go) == Counter(parse_cards("QC 9D KD 9H KH 9S"))
    assert leftover_points(let_go, SHANGHAI) == 60


def test_thirteen_cards_after_the_draw_meld_thirteen() -> None:
    # pagat round 7, 12 dealt and one drawn: 3-7♥, 9-K♠, 2-4♣. The clubs need a fourth card;
    # with it the runs would hold 14 cards, so one card goes: the K♠ (10 points; 3♥, 7♥ or 9♠
    # would do too but cost less). One draw: A♣, 5♣ or a joker.
    hand = parse_cards("3H 4H 5H 6H 7H 9S 10S JS QS KS 2C 3C 4C")
    result = solve(PAGAT, 7, hand, before_draw=False)
    assert result.cards_away == 1 and result.proven_optimal
    assert check_draws(result, hand, PAGAT, 7, before_draw=False) == parse_cards("KS")
    assert sum(len(meld.cards) for meld in result.with_missing) == 13
    assert result.missing[0].token in ("AC", "5C", "JK")
    # Before a draw the same 13 cards want 14 in the melds: one draw, nothing let go.
    before = solve(PAGAT, 7, hand, before_draw=True)
    assert before.cards_away == 1 and check_draws(before, hand, PAGAT, 7, before_draw=True) == ()


def test_before_the_draw_a_hand_that_melds_still_draws() -> None:
    # 12 cards that meld as they are, before the draw: the drawn card must fit too (A♣/5♣ on
    # the clubs, 2♥/7♥, 8♠/K♠, a joker), so one draw; with nothing let go.
    hand = parse_cards("3H 4H 5H 6H 9S 10S JS QS AC 2C 3C 4C")
    after = solve(PAGAT, 7, hand, before_draw=False)
    assert after.can_lay_down and after.cards_away == 0
    check_draws(after, hand, PAGAT, 7, before_draw=False)
    before = solve(PAGAT, 7, hand, before_draw=True)
    assert not before.can_lay_down and before.cards_away == 1
    assert check_draws(before, hand, PAGAT, 7, before_draw=True) == ()


def test_two_draws_and_one_discard() -> None:
    # 12 cards before the draw, 13 to meld: 3-7♥ and 9-K♠ are ten, the clubs 2♣ 3♣ need two
    # more (A♣ 4♣, 4♣ 5♣, or a joker and one of them): 14 cards, so the K♠ goes.
    hand = parse_cards("3H 4H 5H 6H 7H 9S 10S JS QS KS 2C 3C")
    result = solve(PAGAT, 7, hand, before_draw=True)
    assert result.cards_away == 2
    assert check_draws(result, hand, PAGAT, 7, before_draw=True) == parse_cards("KS")
    assert reference_draws_away(hand, PAGAT, 7, PAGAT.deck_for(None), before_draw=True) == 2


def test_a_joker_is_kept_rather_than_let_go() -> None:
    # After the draw: 3-6♥, 9-Q♠, 2-5♣ and a joker, 13 cards. Every run can take the joker
    # (7♥, 8♠ or K♠, A♣ or 6♣), so it goes out with nothing to draw.
    hand = parse_cards("3H 4H 5H 6H 9S 10S JS QS 2C 3C 4C 5C JK")
    assert solve(PAGAT, 7, hand, before_draw=False).can_lay_down
    # With a K♦ instead of the 5♣ the K♦ (10) fits nowhere: let it go and draw; the joker
    # (15 points in pagat) is worth more but stays.
    hand = parse_cards("3H 4H 5H 6H 9S 10S JS QS 2C 3C 4C KD JK")
    result = solve(PAGAT, 7, hand, before_draw=False)
    assert result.cards_away == 1
    assert check_draws(result, hand, PAGAT, 7, before_draw=False) == parse_cards("KD")


def test_a_surplus_joker_is_kept_and_a_natural_let_go() -> None:
    # Shanghai round 7 (one wild per meld), after the draw, 13 cards. The clubs 2♣ JK 4♣ need
    # a natural (3♣ or 5♣): one draw, and 14 cards for 13 places. The second joker can extend
    # the spades, so one card goes: the joker (50 points) or a 10-point spade. The joker stays,
    # and of the spades the highest goes.
    hand = parse_cards("2C JK 4C 3H 4H 5H 6H 7H 9S 10S JS QS JK")
    result = solve(SHANGHAI, 7, hand, before_draw=False)
    assert result.cards_away == 1
    assert check_draws(result, hand, SHANGHAI, 7, before_draw=False) == parse_cards("QS")
    assert reference_draws_witness(hand, SHANGHAI, 7, SHANGHAI.deck_for(None), before_draw=False,
                                   max_draws=1) == (1, 0, 10)


def test_too_few_cards_is_no_distance() -> None:
    # The contract needs 12 cards; a hand of 10 before the draw ends with 11.
    hand = parse_cards("3H 4H 5H 6H 9S 10S JS QS 2C 3C")
    assert solve(PAGAT, 7, hand, before_draw=True).cards_away is None
    assert solve(PAGAT, 7, hand, before_draw=False).cards_away is None
    assert solve(PAGAT, 7, hand + parse_cards("4C"), before_draw=True).cards_away == 1


def test_rounds_without_the_go_out_rule_ignore_before_draw() -> None:
    hand = parse_cards("3H 4H 5H 6H 9S 10S JS QS 2C 3C")
    rules = preset("progressive")
    assert solve(rules, 7, hand, before_draw=True) == solve(rules, 7, hand, before_draw=False)
    assert solve(rules, 7, hand, before_draw=False).cards_away == 2


# ---- the brute force -------------------------------------------------------------------------


def compare_with_brute_force(result: LayDown, hand: tuple[Card, ...], rules: Rules, round_number: int,
                             before_draw: bool) -> None:
    """The distance against the brute force (up to two draws); at one draw or none also what is
    let go: the fewest wild cards, then the most penalty points (more draws make the brute
    force's list of every way too slow)."""
    let_go = check_draws(result, hand, rules, round_number, before_draw)
    deck = rules.deck_for(None)
    away = reference_draws_away(hand, rules, round_number, deck, before_draw, max_draws=2)
    event(f"{away} away")
    if away is None:
        assert result.cards_away is None or result.cards_away > 2, result.to_dict()
        return
    assert result.cards_away == away, result.to_dict()
    if away <= 1:
        witness = reference_draws_witness(hand, rules, round_number, deck, before_draw, max_draws=away)
        assert witness is not None
        assert (wilds(let_go, rules), leftover_points(let_go, rules)) == witness[1:], result.to_dict()


def go_out_cases() -> st.SearchStrategy[tuple[Rules, int, tuple[Card, ...]]]:
    """Hands built from a go-out round's contract, a card dropped, a joker swapped in, a stray
    card added now and then (distances 0 to 2 mostly)."""
    return st.one_of(*[near_contract([rules], [round_number], [Suit.HEARTS, Suit.SPADES], max_cards=16,
                                     within_largest_deck=True)
                       for rules, round_number in GO_OUT_ROUNDS])


@FEW
@given(case=go_out_cases(), before_draw=st.booleans(), data=st.data())
def test_draws_away_match_the_brute_force(case: tuple[Rules, int, tuple[Card, ...]], before_draw: bool,
                                          data: st.DataObject) -> None:
    rules, round_number, hand = case
    if before_draw and data.draw(st.booleans()):
        hand = hand[:-1]  # the hand before a draw is a card short of the hand after it
    result = solve(rules, round_number, hand, before_draw)
    assert result.proven_optimal
    event(f"{rules.name} {'before' if before_draw else 'after'} the draw")
    compare_with_brute_force(result, hand, rules, round_number, before_draw)


@pytest.mark.parametrize("rules, round_number", GO_OUT_ROUNDS[:3], ids=["pagat", "shanghai", "kolsov"])
@FEW
@given(data=st.data(), before_draw=st.booleans())
def test_draws_away_with_used_up_cards_match_the_brute_force(
    rules: Rules, round_number: int, data: st.DataObject, before_draw: bool
) -> None:
    # Three same-suit runs in two decks: a missing card standing for a used-up card is a joker.
    hand = data.draw(same_suit_runs(rules, round_number, max_cards=13 if round_number == 7 else 15))
    if before_draw:
        hand = hand[:-1]  # as many cards to meld as after the draw: the brute force's pace
    result = solve(rules, round_number, hand, before_draw)
    event(f"{'before' if before_draw else 'after'} the draw")
    compare_with_brute_force(result, hand, rules, round_number, before_draw)


@FEW
@given(case=go_out_cases())
def test_outs_before_the_draw_are_the_cards_whose_draw_brings_it_closer(
    case: tuple[Rules, int, tuple[Card, ...]]
) -> None:
    rules, round_number, hand = case
    hand = hand[:-1]
    deck = rules.deck_for(None)
    lay_down, outs = find_outs(hand, rules, round_number, deck, TIME_LIMIT, before_draw=True)
    away = reference_draws_away(hand, rules, round_number, deck, before_draw=True, max_draws=2)
    if away is None:
        assert lay_down.cards_away is None or lay_down.cards_away > 2
        return
    assert lay_down.cards_away == away
    # Drawn, a card c turns the hand into a hand after the draw; it is an out when that hand
    # is fewer draws away.
    expected = {card for card in ALL_CARD_KINDS if Counter(hand)[card] < deck_copies(card, deck)
                and reference_draws_away(hand + (card,), rules, round_number, deck, before_draw=False,
                                         max_draws=away - 1) is not None}
    event(f"{len(expected)} outs")
    assert outs == expected

