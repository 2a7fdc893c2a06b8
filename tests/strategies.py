"""Hypothesis strategies: hands drawn from a rule set's real deck, small enough for brute force."""

from __future__ import annotations

from hypothesis import strategies as st

from analyzer.cards import ALL_NATURALS, JOKER, Card, Rank, Suit
from analyzer.rules import DeckRule, Rules


def deck_cards(deck: DeckRule) -> list[Card]:
    return list(ALL_NATURALS) * deck.decks + [JOKER] * deck.jokers


@st.composite
def hands(draw: st.DrawFn, rules: Rules, min_size: int, max_size: int, players: int | None = None,
          focus: bool = True) -> tuple[Card, ...]:
    """A hand dealt from the rule set's deck. With ``focus`` the cards come from two suits and a
    few neighbouring ranks, so that melds (and near-melds) are common, as in real hands."""
    pool = deck_cards(rules.deck_for(players))
    if focus:
        suits = draw(st.lists(st.sampled_from(list(Suit)), min_size=1, max_size=2, unique=True))
        low = draw(st.integers(1, 8))
        ranks = {Rank(r) for r in range(low, low + 6)}
        pool = [c for c in pool if c.is_joker or (c.suit in suits and c.rank in ranks)]
    indices = draw(st.lists(st.integers(0, len(pool) - 1), min_size=min_size, max_size=max_size, unique=True))
    return tuple(pool[i] for i in indices)
