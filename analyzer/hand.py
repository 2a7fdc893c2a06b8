"""A hand checked against a rule set's deck: the input side of every analysis."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from analyzer.cards import Card, CardError, cards_from, sorted_cards
from analyzer.rules import DeckRule, Rules
from analyzer.words import players_text, plural

MAX_HAND_CARDS = 60  # far above any real hand (13 dealt + buys); refuse early instead of hanging


class HandError(ValueError):
    """A hand that cannot be analysed: empty, too large, or more copies than the deck holds."""


def deck_copies(card: Card, deck: DeckRule) -> int:
    """How many of this card the deck holds."""
    return deck.jokers if card.is_joker else deck.decks


def check_deck(cards: Iterable[Card], rules: Rules, deck: DeckRule, what: str = "the hand") -> None:
    """Refuse more copies of a card, or more jokers, than ``deck`` holds. ``deck`` is one of the
    rule set's entries, or (for no player count) ``rules.deck_for(None)``, the largest."""
    counts = Counter(cards)
    if all(count <= deck_copies(card, deck) for card, count in counts.items()):
        return  # most hands: no need to sort them to name the first card over the deck's copies
    verb = "have" if " and " in what or what.endswith("cards") else "has"
    for card, count in sorted(counts.items(), key=lambda item: item[0].sort_key()):
        limit = deck_copies(card, deck)
        if count > limit:
            held = plural(count, "joker") if card.is_joker else plural(count, f"copy of {card.token}",
                                                                       f"copies of {card.token}")
            raise HandError(f"{what} {verb} {held} but {_deck_says(rules, deck, card.is_joker)}")


def _deck_says(rules: Rules, deck: DeckRule, jokers: bool) -> str:
    """``'progressive' with 2-4 players uses 2 decks``; for no player count, the largest deck and
    the players it is for: ``'progressive' uses at most 3 decks (the largest deck, for 5-8 players)``."""
    limit = deck.jokers if jokers else deck.decks
    amount = plural(limit, "joker") if jokers else plural(limit, "deck")
    if deck in rules.decks:
        return f"{rules.name!r} with {players_text(deck.min_players, deck.max_players)} uses " + (
            f"only {amount}" if jokers else amount)
    largest = [entry for entry in rules.decks if (entry.jokers if jokers else entry.decks) == limit]
    tables = ", ".join(players_text(entry.min_players, entry.max_players) for entry in largest)
    return f"{rules.name!r} uses at most {amount} (the largest deck, for {tables})"


def read_hand(hand: str | Iterable[Card], rules: Rules, players: int | None = None) -> tuple[Card, ...]:
    """Parse (text, or a list of cards and card tokens) and check a hand; return it in canonical
    order. ``CardError`` becomes ``HandError``; a value that is no hand at all is a ``TypeError``."""
    try:
        cards = cards_from(hand, "the hand")
    except CardError as error:
        raise HandError(str(error)) from None
    if not cards:
        raise HandError("the hand is empty: give the cards as tokens such as 7H 8H 9H JK")
    if len(cards) > MAX_HAND_CARDS:
        raise HandError(f"the hand has {len(cards)} cards; at most {MAX_HAND_CARDS} can be analysed")
    check_deck(cards, rules, rules.deck_for(players))
    return sorted_cards(cards)
