"""A hand checked against a rule set's deck: the input side of every analysis."""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from analyzer.cards import Card, CardError, parse_cards, sorted_cards
from analyzer.rules import DeckRule, Rules

MAX_HAND_CARDS = 60  # far above any real hand (13 dealt + buys); refuse early instead of hanging


class HandError(ValueError):
    """A hand that cannot be analysed: empty, too large, or more copies than the deck holds."""


def deck_copies(card: Card, deck: DeckRule) -> int:
    """How many of this card the deck holds."""
    return deck.jokers if card.is_joker else deck.decks


def check_deck(cards: Iterable[Card], rules: Rules, deck: DeckRule, what: str = "the hand") -> None:
    """Refuse more copies of a card, or more jokers, than ``deck`` holds."""
    for card, count in sorted(Counter(cards).items(), key=lambda item: item[0].sort_key()):
        limit = deck_copies(card, deck)
        if count > limit:
            if card.is_joker:
                raise HandError(
                    f"{what} has {count} jokers but {rules.name!r} with {_players(deck)} uses only {limit}"
                )
            raise HandError(
                f"{what} has {count} copies of {card.token} but {rules.name!r} with {_players(deck)} "
                f"uses {limit} deck{'s' if limit != 1 else ''}"
            )


def _players(deck: DeckRule) -> str:
    if deck.min_players == deck.max_players:
        return f"{deck.min_players} players"
    return f"{deck.min_players}-{deck.max_players} players"


def read_hand(hand: str | Iterable[Card], rules: Rules, players: int | None = None) -> tuple[Card, ...]:
    """Parse (if text) and check a hand; return it in canonical order."""
    try:
        cards = parse_cards(hand) if isinstance(hand, str) else tuple(hand)
    except CardError as error:
        raise HandError(str(error)) from None
    if not cards:
        raise HandError("the hand is empty: give the cards as tokens such as 7H 8H 9H JK")
    if len(cards) > MAX_HAND_CARDS:
        raise HandError(f"the hand has {len(cards)} cards; at most {MAX_HAND_CARDS} can be analysed")
    check_deck(cards, rules, rules.deck_for(players))
    return sorted_cards(cards)
