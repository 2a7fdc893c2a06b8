"""The brute-force reference on hands whose answers are worked out by hand, and against a
second brute force that asks the validator about every way of splitting a tiny hand."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

from hypothesis import event, given, settings
from hypothesis import strategies as st

from analyzer.cards import ALL_CARD_KINDS, Card, Rank, Suit, parse_cards
from analyzer.result import PlacedMeld
from analyzer.rules import DeckRule, MeldKind, MeldSpec, RoundRule, Rules, preset
from analyzer.validate import leftover_points, validate_lay_down
from tests.reference import reference_best, reference_cards_away
from tests.strategies import near_contract

PROGRESSIVE = preset("progressive")
MAY_I = preset("may-i")
PAGAT = preset("pagat")
SHANGHAI = preset("shanghai")
EVELEIGH = preset("eveleigh")


def best(rules: Rules, round_number: int, text: str) -> int | None:
    return reference_best(parse_cards(text), rules, round_number)


def away(rules: Rules, round_number: int, text: str, deck: DeckRule | None = None, max_extra: int = 3) -> int | None:
    return reference_cards_away(parse_cards(text), rules, round_number, deck or rules.deck_for(None), max_extra)


# ---- reference_best: answers worked out by hand ----------------------------------------


def test_two_sets_and_a_king_left() -> None:
    # 555 + 999; the K♦ (10) stays in hand.
    assert best(PROGRESSIVE, 1, "5C 5D 5S 9H 9S 9C KD") == 10


def test_exact_contract_leaves_the_fourth_card() -> None:
    # Exact sets of 3: one 5 must stay (5 points). May I? takes sets of 4: nothing left.
    assert best(PROGRESSIVE, 1, "5C 5D 5S 5H 9H 9S 9C") == 5
    assert best(MAY_I, 1, "5C 5D 5S 5H 9H 9S 9C") == 0


def test_the_cheapest_card_is_left() -> None:
    # Round 2, set of 3 + run of 4, exact. Run 3-6♥ + set 7♣7♦7♠ leaves 7♥ (7); run 4-7♥ +
    # the same set leaves 3♥ (3); run 3-6♥ + a set with 7♥ leaves a black 7 (7). Best: 3.
    assert best(PROGRESSIVE, 2, "3H 4H 5H 6H 7H 7C 7D 7S") == 3


def test_a_joker_is_melded_rather_than_kept() -> None:
    # 555 + 999 leaves the joker (25); 5 5 JK + 999 leaves a 5 (5).
    assert best(PROGRESSIVE, 1, "5C 5D 5S 9H 9S 9C JK") == 5
    # Two 9-sets would need six cards (four 9s and a joker are five): 999 + 5 5 JK, 9♦ left.
    assert best(PROGRESSIVE, 1, "9H 9S 9C 9D 5C 5D JK") == 9


def test_one_joker_cannot_complete_two_sets() -> None:
    assert best(PROGRESSIVE, 1, "5C 5D JK 9H 9S KD") is None


def test_shanghai_forbids_two_sets_of_one_rank() -> None:
    # Six 7s from two decks are two sets of 7s: Shanghai says no; the others say yes.
    assert best(SHANGHAI, 1, "7C 7D 7H 7S 7C 7D") is None
    assert best(PROGRESSIVE, 1, "7C 7D 7H 7S 7C 7D") == 0
    assert best(MAY_I, 1, "7C 7D 7H 7S 7C 7D") == 0


def test_shanghai_ace_is_high_only() -> None:
    assert best(SHANGHAI, 2, "AH 2H 3H 4H 8C 8D 8S") is None
    assert best(PROGRESSIVE, 2, "AH 2H 3H 4H 8C 8D 8S") == 0
    assert best(SHANGHAI, 2, "JH QH KH AH 8C 8D 8S") == 0
    assert best(PROGRESSIVE, 2, "KH AH 2H 3H 8C 8D 8S") is None  # never round the corner


def test_shanghai_one_joker_per_meld() -> None:
    # Run 5♥ JK JK 8♥ would need two jokers in one meld.
    assert best(SHANGHAI, 2, "5H JK JK 8H 9C 9D 9S") is None
    assert best(MAY_I, 2, "5H JK JK 8H 9C 9D 9S") == 0
    # With one joker in each meld it works: 9♣ 9♦ JK and 5♥ JK 7♥ 8♥.
    assert best(SHANGHAI, 2, "5H JK 7H 8H 9C 9D JK") == 0


def test_same_suit_runs() -> None:
    # 3-10♥ as 3456 + 78910: contiguous, one run of eight under no-touch; fine under May I?.
    assert best(PROGRESSIVE, 3, "3H 4H 5H 6H 7H 8H 9H 10H") is None
    assert best(MAY_I, 3, "3H 4H 5H 6H 7H 8H 9H 10H") == 0
    # 3456 + 5678 of hearts overlap, which no-touch allows (pagat).
    assert best(PAGAT, 3, "3H 4H 5H 6H 5H 6H 7H 8H") == 0


def test_go_out_round_melds_every_card() -> None:
    # pagat round 7: 3 runs of 4, every card melded. A stray K♦ cannot join any run (the
    # three runs are hearts, spades and clubs and no diamond run can be made), so no lay-down.
    runs = "3H 4H 5H 6H 9S 10S JS QS AC 2C 3C 4C"
    assert best(PAGAT, 7, runs) == 0
    assert best(PAGAT, 7, runs + " KD") is None
    assert best(PROGRESSIVE, 7, runs + " KD") == 10  # not a go-out round: K♦ stays
    # In the go-out round runs may be longer than 4, even with exact contracts.
    assert best(PAGAT, 7, runs + " 7H") == 0


def test_deuces_wild() -> None:
    # Eveleigh round 1, 2 sets of 3, 2s wild: 9 9 2 + 5 5 5; the K♦ stays (10).
    assert best(EVELEIGH, 1, "9C 9D 2S 5C 5D 5H KD") == 10
    strict = dataclasses.replace(EVELEIGH, wilds_may_outnumber_naturals=False)
    # 9 2 JK has two wild cards to one natural: not allowed, and nothing else works.
    assert best(strict, 1, "9C 2S JK 5C 5D 5H") is None
    # A-2♥-JK-JK in hearts: the 2♥ stands for itself, so two naturals to two wilds.
    assert best(strict, 4, "AH 2H JK JK 5S 6S 7S 8S") == 0
    assert best(strict, 4, "AH 2C JK JK 5S 6S 7S 8S") is None


# ---- reference_cards_away --------------------------------------------------------------


def test_cards_away_zero_when_the_hand_can_lay_down() -> None:
    assert away(PROGRESSIVE, 1, "5C 5D 5S 9H 9S 9C KD") == 0


def test_cards_away_two_pairs() -> None:
    # Each pair needs a third card (a 5, a 9 or a joker); one card completes only one set,
    # and K♦ Q♦ would need two cards each. So two cards.
    assert away(PROGRESSIVE, 1, "5C 5D 9H 9S KD QD") == 2


def test_cards_away_depends_on_the_deck() -> None:
    # 3-9♥ for two runs of 4 (no-touch). Two decks: a second 6♥ gives 3456 + 6789.
    # One deck and a joker: JK as 6♥ gives the same. One deck, no joker: every 8-card split
    # of 3-9♥ plus one heart touches (3456 + 789 10, 2345 + 6789), so two cards: A♥ 2♥ for
    # A234 + 6789 (5♥ left over).
    hand = "3H 4H 5H 6H 7H 8H 9H"
    assert away(PROGRESSIVE, 3, hand, DeckRule(2, 4, 2, 1)) == 1
    assert away(PROGRESSIVE, 3, hand, DeckRule(2, 4, 1, 1)) == 1
    assert away(PROGRESSIVE, 3, hand, DeckRule(2, 4, 1, 0)) == 2


def test_cards_away_with_one_joker_per_meld() -> None:
    # Shanghai round 2, set of 3 + run of 4, at most one joker per meld. 8♣ 8♦ JK is a set and
    # 5♥ 6♥ needs two more; or JK joins 5♥ 6♥ and each meld lacks one card. Two either way.
    assert away(SHANGHAI, 2, "8C 8D JK 5H 6H") == 2


def test_cards_away_in_a_go_out_round() -> None:
    # pagat round 7: one 4♣ (or a joker) completes the third run and every card is melded.
    assert away(PAGAT, 7, "3H 4H 5H 6H 9S 10S JS QS AC 2C 3C") == 1


def test_cards_away_none() -> None:
    # Three runs cannot hold four suits, whatever is added, and in the go-out round every
    # card must be melded.
    assert away(PAGAT, 7, "3C 3D 3H 3S") is None
    # More cards than fit: 3 sets of 3 (pagat round 4 is 3S3, not a go-out round) need 9
    # cards; 2 cards and 3 extras are 5.
    assert away(PAGAT, 4, "KD QD") is None


# ---- a second brute force: every split of a tiny hand, judged by the validator ---------


def validator_best(hand: tuple[Card, ...], rules: Rules, round_number: int) -> int | None:
    """Fewest leftover points over every split of the hand into contract melds and leftover,
    each meld tried with every set rank and run window, as judged by validate_lay_down."""
    contract = rules.round(round_number).contract
    go_out = rules.round(round_number).go_out
    options: dict[tuple[MeldSpec, tuple[Card, ...]], list[PlacedMeld]] = {}

    def meld_options(spec: MeldSpec, cards: tuple[Card, ...]) -> list[PlacedMeld]:
        key = (spec, cards)
        if len(cards) < spec.size:
            return []  # no rule set takes a meld below its contract size (saves time)
        if key not in options:
            # The meld alone, checked as a one-meld contract of the same round type.
            alone = dataclasses.replace(rules, rounds=(RoundRule(len(cards), (spec,), go_out=go_out),))
            options[key] = [meld for meld in _arrangements(spec.kind, cards, rules)
                            if validate_lay_down(cards, alone, 1, [meld], ()) == []]
        return options[key]

    found: list[int] = []
    for owners in itertools.product(range(len(contract) + 1), repeat=len(hand)):
        groups = [tuple(card for card, owner in zip(hand, owners) if owner == index)
                  for index in range(len(contract))]
        leftover = tuple(card for card, owner in zip(hand, owners) if owner == len(contract))
        choices = [meld_options(spec, group) for spec, group in zip(contract, groups)]
        for melds in itertools.product(*choices):
            if validate_lay_down(hand, rules, round_number, melds, leftover) == []:
                found.append(leftover_points(leftover, rules))
                break
    return min(found, default=None)


def _arrangements(kind: MeldKind, cards: tuple[Card, ...], rules: Rules) -> list[PlacedMeld]:
    """Every meaning worth asking about: a set of each rank (natural cards and a 2 in a set of
    2s stand for themselves, others for that rank), a run in each suit and window (each card
    on its own place when it has one, wild cards on the others)."""
    if kind != MeldKind.RUN:
        return [PlacedMeld(kind, cards, tuple(card if card.rank == rank else Card(rank, Suit.CLUBS)
                                              for card in cards)) for rank in Rank]
    arranged = []
    for suit in Suit:
        for low in range(1, 16 - len(cards)):
            window = [Card(Rank.ACE if p in (1, 14) else Rank(p), suit) for p in range(low, low + len(cards))]
            rest = Counter(cards)
            placed: list[Card | None] = []
            for target in window:
                if rest[target] > 0:
                    rest[target] -= 1
                    placed.append(target)
                else:
                    placed.append(None)
            spare = list(rest.elements())
            order = tuple(card if card is not None else spare.pop() for card in placed)
            arranged.append(PlacedMeld(kind, order, tuple(window)))
    return arranged


def test_validator_brute_force_on_named_hands() -> None:
    cases = [
        (PROGRESSIVE, 1, "5C 5D 5S 9H 9S JK"),
        (PROGRESSIVE, 1, "5C 5D 5S 5H 9H 9S 9C"),
        (PROGRESSIVE, 2, "3H 4H 5H 6H 7H 7C 7D"),
        (SHANGHAI, 1, "7C 7D 7H 7S 7C 7D"),
        (SHANGHAI, 2, "JH QH KH AH JK 8C 8D"),
        (MAY_I, 2, "AH 2H 3H 4H 5H 8C 8D"),
        (EVELEIGH, 1, "2C 2D 9H 9S JK 5C"),
    ]
    for rules, round_number, text in cases:
        hand = parse_cards(text)
        assert validator_best(hand, rules, round_number) == reference_best(hand, rules, round_number), text


def tiny_cases() -> st.SearchStrategy[tuple[Rules, int, tuple[Card, ...]]]:
    """A two-meld round (2 sets of 3; a set of 3 and a run of 4) and up to 7 cards near it."""
    return near_contract([PROGRESSIVE, MAY_I, SHANGHAI, EVELEIGH, preset("shanghai-powe")], [1, 2],
                         [Suit.HEARTS, Suit.SPADES], max_cards=7)


@settings(max_examples=50, deadline=None)  # each example tries every split: keep it short
@given(case=tiny_cases())
def test_reference_agrees_with_the_validator_brute_force(case: tuple[Rules, int, tuple[Card, ...]]) -> None:
    rules, round_number, hand = case
    answer = reference_best(hand, rules, round_number)
    event("can lay down" if answer is not None else "cannot lay down")
    assert answer == validator_best(hand, rules, round_number)


def test_reference_cards_away_is_the_fewest_extras() -> None:
    # Sanity for the search order: the answer k works, and no single card does better.
    hand = parse_cards("5C 5D 9H 9S KD QD")
    deck = PROGRESSIVE.deck_for(None)
    assert reference_cards_away(hand, PROGRESSIVE, 1, deck) == 2
    assert all(reference_best(hand + (card,), PROGRESSIVE, 1) is None for card in ALL_CARD_KINDS)
    assert reference_best(hand + parse_cards("5H 9C"), PROGRESSIVE, 1) == 20
