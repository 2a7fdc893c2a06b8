"""The hasty player's run (``puzzles.hasty._run``) against a brute-force reading of what it
looks for, where it stops early: without wild cards, only a suit holding every place of a window
gives a run."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from analyzer import Card, Rank, Suit, preset
from analyzer.rules import MeldKind, MeldSpec
from puzzles.hasty import _run
from tests.strategies import hands

PROGRESSIVE = preset("progressive")


def _places(card: Card) -> tuple[int, ...]:
    assert card.rank is not None
    return (1, 14) if card.rank == Rank.ACE else (int(card.rank),)


def _some_window_held(cards: Counter[Card], size: int) -> bool:
    held = {(card.suit, place) for card in cards for place in _places(card)}
    return any(all((suit, place) in held for place in range(low, low + size))
               for suit in Suit for low in range(1, 16 - size))


@given(hands(PROGRESSIVE, 1, 14), st.integers(3, 6), st.booleans())
def test_without_wild_cards_a_run_is_found_exactly_when_a_window_is_held(
        hand: tuple[Card, ...], size: int, longer: bool) -> None:
    pool = Counter(card for card in hand if not PROGRESSIVE.is_wild(card))
    run = _run(pool, MeldSpec(MeldKind.RUN, size), PROGRESSIVE, longer)
    assert (run is not None) == _some_window_held(pool, size)
    if run is not None:
        assert len(run.cards) >= size and all(pool[card] for card in run.cards)


def test_a_run_of_fourteen_from_ace_to_ace_is_found_without_wild_cards() -> None:
    # The stretch loop splits A..K from the high ace; the window of 14 holds both.
    hearts = [Card(Rank(r), Suit.HEARTS) for r in range(1, 14)] + [Card(Rank.ACE, Suit.HEARTS)]
    run = _run(Counter(hearts), MeldSpec(MeldKind.RUN, 14), PROGRESSIVE, False)
    assert run is not None and len(run.cards) == 14
