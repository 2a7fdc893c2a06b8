"""Cards and hands: parsing forgiving input, printing canonical tokens and suit symbols.

A card is a value. ``Card.parse('10h')`` and ``Card.parse('T♥')`` give the same card; its
canonical token is ``10H`` and its face for people is ``10♥``. The joker is ``JK`` / ``🃏``-free
``Joker``. A hand is a multiset: several decks are shuffled together.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Iterable


class Rank(enum.IntEnum):
    """Card ranks, valued by their low position in a run (the ace is 1 here, 14 when high)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def token(self) -> str:
        return _RANK_TOKENS[self]


class Suit(enum.Enum):
    """The four suits, in the order the project prints them."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @property
    def index(self) -> int:
        return _SUIT_ORDER.index(self)

    def __lt__(self, other: Suit) -> bool:
        return self.index < other.index


_RANK_TOKENS = {
    Rank.ACE: "A", Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K",
    **{Rank(n): str(n) for n in range(2, 11)},
}
_SUIT_ORDER = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
_SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}

_RANK_INPUT = {
    "A": Rank.ACE, "1": Rank.ACE, "J": Rank.JACK, "Q": Rank.QUEEN, "K": Rank.KING,
    "T": Rank.TEN, **{str(n): Rank(n) for n in range(2, 11)},
}
_SUIT_INPUT = {
    "C": Suit.CLUBS, "♣": Suit.CLUBS, "♧": Suit.CLUBS,
    "D": Suit.DIAMONDS, "♦": Suit.DIAMONDS, "♢": Suit.DIAMONDS,
    "H": Suit.HEARTS, "♥": Suit.HEARTS, "♡": Suit.HEARTS,
    "S": Suit.SPADES, "♠": Suit.SPADES, "♤": Suit.SPADES,
}
_JOKER_INPUT = {"JK", "JOKER", "*", "JKR", "🃏"}
_SEPARATORS = re.compile(r"[\s,;]+")


class CardError(ValueError):
    """A piece of input that is not a card; the message quotes it and says where it stands."""


@dataclass(frozen=True)
class Card:
    """One playing card. ``rank`` and ``suit`` are both ``None`` for the joker."""

    rank: Rank | None
    suit: Suit | None

    def __post_init__(self) -> None:
        if (self.rank is None) != (self.suit is None):
            raise ValueError("a card has both a rank and a suit, or neither (the joker)")

    @property
    def is_joker(self) -> bool:
        return self.rank is None

    @property
    def token(self) -> str:
        """Canonical token for machines: ``AS``, ``10H``, ``JK``."""
        if self.rank is None or self.suit is None:
            return "JK"
        return self.rank.token + self.suit.value

    @property
    def face(self) -> str:
        """How a person reads it: ``A♠``, ``10♥``, ``Joker``."""
        if self.rank is None or self.suit is None:
            return "Joker"
        return self.rank.token + self.suit.symbol

    def sort_key(self) -> tuple[int, int]:
        """Suit then rank; jokers last."""
        if self.rank is None or self.suit is None:
            return (4, 0)
        return (self.suit.index, int(self.rank))

    def __lt__(self, other: Card) -> bool:
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        return self.token

    def __repr__(self) -> str:
        return f"Card.parse({self.token!r})"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read one card token in any accepted spelling.

        >>> Card.parse('t♡').token
        '10H'
        >>> Card.parse('Joker').is_joker
        True
        >>> Card.parse('1X')
        Traceback (most recent call last):
        ...
        analyzer.cards.CardError: unknown card '1X'
        """
        token = text.strip().upper()
        if token in _JOKER_INPUT:
            return JOKER
        if len(token) >= 2:
            rank = _RANK_INPUT.get(token[:-1])
            suit = _SUIT_INPUT.get(token[-1])
            if rank is not None and suit is not None:
                return cls(rank, suit)
            # Also accept suit first ("H10", "♥Q"), a common way of writing cards down.
            rank = _RANK_INPUT.get(token[1:])
            suit = _SUIT_INPUT.get(token[0])
            if rank is not None and suit is not None:
                return cls(rank, suit)
        raise CardError(f"unknown card {text.strip()!r}")


JOKER = Card(None, None)
ALL_NATURALS: tuple[Card, ...] = tuple(Card(rank, suit) for suit in _SUIT_ORDER for rank in Rank)
ALL_CARD_KINDS: tuple[Card, ...] = ALL_NATURALS + (JOKER,)


def parse_cards(text: str) -> tuple[Card, ...]:
    """Read a hand or a list of cards, in the order written.

    Separators are spaces, commas, semicolons and new lines; ``#`` starts a comment.
    An error names the token, its place in the list and its line.

    >>> [c.token for c in parse_cards('7h 8♥, 9H # my run\\njoker')]
    ['7H', '8H', '9H', 'JK']
    >>> parse_cards('7H 8Z')
    Traceback (most recent call last):
    ...
    analyzer.cards.CardError: unknown card '8Z' (card 2, line 1)
    """
    cards: list[Card] = []
    for line_number, line in enumerate(text.splitlines() or [""], start=1):
        for token in _SEPARATORS.split(line.split("#", 1)[0]):
            if not token:
                continue
            try:
                cards.append(Card.parse(token))
            except CardError as error:
                raise CardError(f"{error} (card {len(cards) + 1}, line {line_number})") from None
    return tuple(cards)


def sorted_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """The canonical order: by suit (♣ ♦ ♥ ♠), then rank, jokers last."""
    return tuple(sorted(cards, key=Card.sort_key))


def tokens(cards: Iterable[Card]) -> list[str]:
    return [card.token for card in cards]


def faces(cards: Iterable[Card]) -> str:
    return " ".join(card.face for card in cards)
