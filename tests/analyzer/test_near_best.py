"""``near_best_plays`` (analyzer/near_best.py) against the brute-force reference: the distinct
plays of a turn within a margin of the best, counted by CP-SAT, and every play the reference
lists, told apart as a player tells them apart (written out again here, sharing nothing with the
module: a meld is its kind, its rank or its run's places, and its cards as a multiset)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from analyzer import OptionError, analyze, near_best_plays, parse_cards, preset
from analyzer.cards import ALL_CARD_KINDS, JOKER, Card, Rank, Suit
from analyzer.result import PlacedMeld
from analyzer.rules import MeldKind, Rules
from analyzer.validate import validate_lay_down
from tests.reference import reference_lay_downs
from tests.strategies import near_contract, within_deck

PROGRESSIVE = preset("progressive")
RULE_SETS = [PROGRESSIVE, preset("may-i"), preset("shanghai"), preset("eveleigh"), preset("shanghai-powe"),
             preset("pagat"), preset("kolsov")]


def _place(meaning: Card, first: bool, next_meaning: Card | None) -> int:
    assert meaning.rank is not None
    if meaning.rank != Rank.ACE:
        return int(meaning.rank)
    return 1 if first and next_meaning is not None and next_meaning.rank == Rank.TWO else 14


def meld_seen(meld: PlacedMeld, rules: Rules) -> tuple[object, ...]:
    """What a player sees of a meld: a set's rank (none for a set of wild cards only, which shows
    the same cards whatever rank it is called), a run's suit and ends, the cards as a multiset."""
    cards = tuple(sorted(card.token for card in meld.cards))
    if meld.kind != MeldKind.RUN:
        shown = None if all(rules.is_wild(card) for card in meld.cards) else meld.stands_for[0].rank
        return (meld.kind.value, shown, cards)
    meanings = meld.stands_for
    low = _place(meanings[0], True, meanings[1] if len(meanings) > 1 else None)
    high = _place(meanings[-1], len(meanings) == 1, None)
    return ("run", meanings[0].suit, low, high, cards)


def reference_plays(hand: Sequence[Card], rules: Rules, round_number: int) -> dict[tuple[object, ...], int]:
    """Every distinct play of the turn, with the points kept, from every lay-down the reference
    lists: a discard among the cards left over (a card kept where going out by discarding is
    not allowed), or none when every card is melded and the rules let the player go out so; in a
    go-out round every card melded and nothing discarded."""
    plays: dict[tuple[object, ...], int] = {}
    go_out = rules.round(round_number).go_out
    for melds, leftover in reference_lay_downs(hand, rules, round_number):
        seen = tuple(sorted((meld_seen(meld, rules) for meld in melds), key=repr))
        if go_out or (not leftover and rules.discard_to_go_out != "required"):
            if not leftover:
                plays[seen, None] = 0
            if go_out:
                continue
        for discard in set(leftover):
            kept = list(leftover)
            kept.remove(discard)
            if not kept and rules.discard_to_go_out == "never":
                continue
            plays[seen, discard.token] = sum(rules.points_of(card) for card in kept)
    return plays


def counted_plays(hand: Sequence[Card], rules: Rules, round_number: int, margin: int, cap: int):
    near = near_best_plays(hand, rules, round_number, margin=margin, cap=cap)
    keys = {(tuple(sorted((meld_seen(meld, rules) for meld in play.melds), key=repr)), play.discard.token if play.discard else None)
            for play in near.plays}
    return near, keys


def assert_agrees(hand: Sequence[Card], rules: Rules, round_number: int, margin: int, cap: int = 20) -> int:
    """The module and the reference agree; the number of plays within the margin."""
    plays = reference_plays(hand, rules, round_number)
    near, keys = counted_plays(hand, rules, round_number, margin, cap)
    if not plays:
        assert near.best_points is None and near.count == 0 and near.complete
        return 0
    best = min(plays.values())
    wanted = {key for key, points in plays.items() if points <= best + margin}
    assert near.best_points == best
    assert len(keys) == near.count, "two plays counted that a player cannot tell apart"
    assert near.count == min(len(wanted), cap)
    assert keys <= wanted
    if len(wanted) <= cap:
        assert keys == wanted
    assert near.complete == (len(wanted) < cap)  # at the cap there may be more: not told
    for play in near.plays:  # each play is legal and keeps what it says
        kept = Counter(hand) - Counter(card for meld in play.melds for card in meld.cards)
        leftover = list(kept.elements())
        assert validate_lay_down(hand, rules, round_number, play.melds, leftover) == []
        if play.discard is not None:
            kept[play.discard] -= 1
        assert play.points == sum(rules.points_of(card) for card in (+kept).elements()) <= best + margin
    return len(wanted)


@st.composite
def ready_hands(draw: st.DrawFn) -> tuple[Rules, int, tuple[Card, ...]]:
    """A two-meld round's contract laid out in cards, a wild card or two among them or added,
    and one to three more cards: hands that mostly lay down, often in several ways."""
    rules = draw(st.sampled_from(RULE_SETS))
    round_number = draw(st.sampled_from([1, 2, 3]))
    cards: list[Card] = []
    for spec in rules.round(round_number).contract:
        if spec.kind == MeldKind.RUN:
            suit = draw(st.sampled_from([Suit.HEARTS, Suit.SPADES]))
            first = draw(st.integers(1, 10))
            cards += [Card(Rank(1 + (first + offset - 1) % 13), suit) for offset in range(spec.size)]
        else:
            rank = draw(st.sampled_from(list(Rank)))
            cards += [Card(rank, draw(st.sampled_from(list(Suit)))) for _ in range(spec.size)]
    wild = st.sampled_from([JOKER, Card(Rank.TWO, Suit.CLUBS)])
    if draw(st.booleans()):
        cards[draw(st.integers(0, len(cards) - 1))] = draw(wild)
    if draw(st.booleans()):
        cards.append(draw(wild))
    cards += draw(st.lists(st.sampled_from(ALL_CARD_KINDS), min_size=1, max_size=3))
    return rules, round_number, tuple(within_deck(cards, rules.deck_for(None))[:10])


@settings(deadline=None)
@given(case=st.one_of(ready_hands(), near_contract(RULE_SETS, [1, 2, 3], [Suit.HEARTS, Suit.SPADES], max_cards=9,
                                                  within_largest_deck=True)))
def test_counts_agree_with_the_reference(case: tuple[Rules, int, tuple[Card, ...]]) -> None:
    rules, round_number, hand = case
    for margin in (0, 10):
        found = assert_agrees(hand, rules, round_number, margin)
        event(f"margin {margin}: {'none' if found == 0 else 'one' if found == 1 else 'several'}")


@settings(deadline=None, max_examples=25)
@given(case=ready_hands())
def test_the_cap_stops_the_count(case: tuple[Rules, int, tuple[Card, ...]]) -> None:
    rules, round_number, hand = case
    assert_agrees(hand, rules, round_number, margin=15, cap=2)


@pytest.mark.parametrize(
    ("rules", "round_number", "text", "margin", "count"),
    [
        # The joker fills any place of the hearts run, or joins the fives: ten plays keep 0 points.
        ("progressive", 2, "7H 8H 9H 10H JK 5C 5D 5S", 0, 10),
        # One way only: the two sets, the king thrown.
        ("progressive", 1, "5C 5D 5S 9H 9S 9C KD", 0, 1),
        # Keep the four (4 points) or, within 10 points of that, the king (10).
        ("progressive", 1, "5C 5D 5S 9H 9S 9C KD 4C", 10, 2),
        ("progressive", 1, "5C 5D 5S 9H 9S 9C KD 4C", 5, 1),
        ("progressive", 1, "5C 5D 9H 9S KD 4C QH", 10, 0),  # no lay-down
        ("pagat", 7, "3H 4H 5H 6H 7S 8S 9S 10S JD QD KD AD", 0, 1),  # a go-out round
        # Sets of wild cards only (2s are wild in eveleigh) show no rank: 2C 2C 2D called aces,
        # twos or kings is one play (hypothesis found the module counting some ranks apart). Since
        # Eveleigh goes out without a discard, melding all seven cards counts too (11 -> 14, 15 -> 18).
        ("eveleigh", 1, "AC AC AD 2C 2C 2D 3C", 0, 14),
        ("eveleigh", 1, "JK JK 2C 5C 5D 5S KD", 0, 18),
    ],
)
def test_named_hands(rules: str, round_number: int, text: str, margin: int, count: int) -> None:
    found = assert_agrees(parse_cards(text), preset(rules), round_number, margin)
    assert found == count


def test_best_points_are_the_turn_s_best_play() -> None:
    for rules, round_number, text in [("progressive", 1, "5C 5D 5S 9H 9S 9C KD 4C"),
                                      ("shanghai", 2, "7H 8H 9H 10H 2C 5C 5D 5S KS"),
                                      ("may-i", 1, "5C 5D 5S 9H 9S JK KD 4C")]:
        hand = parse_cards(text)
        best = analyze(hand, rules, round_number, moment="after-draw")
        near = near_best_plays(hand, rules, round_number, margin=0)
        assert near.best_points == best.points_after_discard
        assert near.count >= 1 and near.to_dict()["count"] == near.count


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(OptionError):
        near_best_plays("5C 5D 5S 9H 9S 9C KD", "progressive", 1, margin=-1)
    with pytest.raises(TypeError):
        near_best_plays("5C 5D 5S 9H 9S 9C KD", "progressive", 1, cap="many")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        near_best_plays("5C 5D 5S 9H 9S 9C XX", "progressive", 1)


def _tokens(cards: Iterable[Card]) -> list[str]:
    return [card.token for card in cards]
