"""Lower bounds the solver's answers meet, worked out without it: cheap tests that spare a solve
(the puzzles' generator, the turn's witness search)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from analyzer.cards import Card, Suit
from analyzer.melds import card_places
from analyzer.result import LayDown
from analyzer.rules import MeldKind, Rules


def wild_cards_short(hand: Sequence[Card], rules: Rules, round_number: int) -> int:
    """A lower bound on how many wild cards beyond those it holds ``hand`` needs to meld the
    round's contract: above 0, no lay-down of it exists, and the solver says it cannot lay down.
    Why it is a bound: docs/lay-down.md, "Wild cards short"."""
    wild = sum(1 for card in hand if rules.is_wild(card))
    copies = Counter(card.rank for card in hand if card.rank is not None)
    places: dict[Suit, set[int]] = {suit: set() for suit in Suit}
    for card in hand:
        if card.suit is not None and card.rank is not None:
            places[card.suit].update(card_places(card))
    in_suit = Counter(card.suit for card in hand if card.suit is not None)
    short = -wild
    runs: Counter[int] = Counter()
    sets: Counter[int] = Counter()
    for spec in rules.round(round_number).contract:
        (runs if spec.kind == MeldKind.RUN else sets)[spec.size] += 1
    for size, count in runs.items():
        short += size * count - _most_naturals_in_runs(places, in_suit, size, count)
    for size, count in sets.items():
        gains = sorted((min(size, n - k * size) for n in copies.values() for k in range(count) if n > k * size),
                       reverse=True)
        short += size * count - sum(gains[:count])
    return short


def _most_naturals_in_runs(places: dict[Suit, set[int]], in_suit: Counter[Suit], size: int, count: int) -> int:
    """The most naturals ``count`` runs of ``size`` can hold, the suits taken one by one: in one
    suit, at most the most places a window holds each, and no more than its cards in all."""
    most = [0] + [-1] * count  # by m: the most naturals m of the runs hold in the suits so far (-1: none yet)
    for suit, suit_places in places.items():
        held = max((sum(1 for place in range(low, low + size) if place in suit_places)
                    for low in range(1, 16 - size)), default=0)
        most = [max(most[m - j] + min(j * held, in_suit[suit]) for j in range(m + 1) if most[m - j] >= 0)
                for m in range(count + 1)]
    return most[count]


def kept_at_least(hand: Sequence[Card], rules: Rules, whole: LayDown) -> int | None:
    """A lower bound on the points any legal play of the turn keeps, outside go-out rounds, from
    the whole hand's proven best lay-down ``whole`` (None when it has none): a play is a
    lay-down of the whole hand with its discard left over, so it keeps at least the fewest
    leftover points less the costliest card's (``play_keeps_at_least``)."""
    if not (whole.can_lay_down and whole.proven_optimal):
        return None
    return play_keeps_at_least(hand, rules, whole.leftover_points)


def play_keeps_at_least(hand: Sequence[Card], rules: Rules, leftover_points: int) -> int:
    """What a play of ``hand`` keeps after its discard, at least, when the hand's best lay-down
    leaves ``leftover_points``: those points less the costliest card's, and never less than
    nothing."""
    return max(0, leftover_points - max(rules.points_of(card) for card in hand))
