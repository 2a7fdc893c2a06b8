"""Cards and hands: parsing forgiving input, printing canonical tokens and suit symbols.

A card is a value. ``Card.parse('10h')`` and ``Card.parse('T♥')`` give the same card; its
canonical token is ``10H`` and its face for people is ``10♥``. The joker is ``JK`` / ``🃏``-free
``Joker``. A hand is a multiset: several decks are shuffled together.
"""

from __future__ import annotations

import enum
import operator
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING


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
    "A": Rank.ACE, "J": Rank.JACK, "Q": Rank.QUEEN, "K": Rank.KING,
    "T": Rank.TEN, **{str(n): Rank(n) for n in range(2, 11)},
}
_SUIT_INPUT = {
    "C": Suit.CLUBS, "♣": Suit.CLUBS, "♧": Suit.CLUBS,
    "D": Suit.DIAMONDS, "♦": Suit.DIAMONDS, "♢": Suit.DIAMONDS,
    "H": Suit.HEARTS, "♥": Suit.HEARTS, "♡": Suit.HEARTS, "❤": Suit.HEARTS,
    "S": Suit.SPADES, "♠": Suit.SPADES, "♤": Suit.SPADES,
}
_JOKER_INPUT = {"JK", "JOKER", "*", "JKR", "🃏"}
# Characters that change how a symbol is drawn, never what it is: the emoji and text
# variation selectors phones add after a suit (7♥️), and zero-width joiners and spaces.
_INVISIBLE = dict.fromkeys(map(ord, "\ufe0f\ufe0e\u200b\u200c\u200d\u2060\ufeff"))
# Between cards: white space, commas, semicolons, and the brackets and quotes of a JSON array
# or of the analyser's own lines (``Hand (12 cards, after your draw): 7♣ ...``).
_SEPARATORS = re.compile(r"""[\s,;()\[\]{}"'`]+""")
# Words of the analyser's own lines around cards, skipped when pasted back; a number is
# skipped only where it counts them ("12 cards", "8 points").
_LABEL_WORDS = {"HAND", "HANDS", "CARD", "CARDS", "AFTER", "BEFORE", "YOUR", "DRAW", "SEEN", "KEEP",
                "YOU", "DISCARD", "POINT", "POINTS", "UNSEEN", "OFFERED", "MISSING", "LEFTOVER",
                "SET", "SETS", "RUN", "RUNS", "PAIR", "OF"}
_COUNTED_WORDS = {"CARD", "CARDS", "POINT", "POINTS"}
_EDGE_PUNCTUATION = ".:!?"


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
        # Worked out once: simulated play hashes and sorts cards millions of times (an eighth of
        # a puzzle seed's CPU, profiled). The hash is the dataclass's own, hash((rank, suit)), so
        # sets and dicts of cards keep their order; pickling makes the card anew (``__reduce__``)
        # because a suit's hash differs between processes.
        rank, suit = self.rank, self.suit
        object.__setattr__(self, "_hash", hash((rank, suit)))
        object.__setattr__(self, "_sort_key", (4, 0) if rank is None or suit is None else (suit.index, int(rank)))

    if TYPE_CHECKING:  # set in __post_init__; not dataclass fields when the program runs
        _hash: int = field(init=False, repr=False, compare=False)
        _sort_key: tuple[int, int] = field(init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        # Equal when of one kind, as the dataclass's own comparison says, but by the sort key
        # (one per kind) rather than by (rank, suit) tuples made anew: about a third of the
        # time, and simulated play compares cards hundreds of thousands of times a buy verdict
        # (``list.remove``, ``in``; profiled).
        if type(other) is not Card:
            return NotImplemented
        return self._sort_key == other._sort_key

    def __reduce__(self) -> tuple[type[Card], tuple[Rank | None, Suit | None]]:
        return Card, (self.rank, self.suit)

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
        return self._sort_key

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
        >>> Card.parse('7♥\ufe0f').token
        '7H'
        >>> Card.parse('Joker').is_joker
        True
        >>> Card.parse('1X')
        Traceback (most recent call last):
        ...
        analyzer.cards.CardError: unknown card '1X'
        >>> Card.parse('1H')
        Traceback (most recent call last):
        ...
        analyzer.cards.CardError: unknown card '1H': did you mean 10H (ten) or AH (ace)?
        """
        if not isinstance(text, str):
            raise TypeError(f"a card is read from text such as '7H', not {type(text).__name__}")
        card = _BY_TOKEN.get(text)  # the canonical token, as records and forms write it: no reading
        if card is not None:
            return card
        card, problem = _read_token(text)
        if card is None:
            raise CardError(f"unknown card {_quote(text)}{problem}")
        return card


JOKER = Card(None, None)
ALL_NATURALS: tuple[Card, ...] = tuple(Card(rank, suit) for suit in _SUIT_ORDER for rank in Rank)
ALL_CARD_KINDS: tuple[Card, ...] = ALL_NATURALS + (JOKER,)
# Each kind by its canonical token: ``Card.parse`` of a token as machines write it (a replayed
# record reads some 400 a round; profiled: the reading was a quarter of a /play move's time).
_BY_TOKEN: dict[str, Card] = {card.token: card for card in ALL_CARD_KINDS}
# Each suit's naturals by rank (index 0 unused), the cards above: ``natural`` looks one up.
_NATURALS_OF_SUIT: dict[Suit, tuple[Card | None, ...]] = {
    suit: (None, *ALL_NATURALS[13 * i:13 * (i + 1)]) for i, suit in enumerate(_SUIT_ORDER)}


def natural(rank: Rank, suit: Suit) -> Card:
    """The natural card of ``rank`` and ``suit``: equal to ``Card(rank, suit)``, looked up rather
    than made (making a card works out its hash and sort key, a microsecond; reading a solver's
    answer back names a card by rank and suit a few dozen times a hand).

    >>> natural(Rank.TEN, Suit.HEARTS) == Card.parse('10H')
    True
    """
    card = _NATURALS_OF_SUIT[suit][rank]
    assert card is not None
    return card


def _clean(text: str) -> str:
    return unicodedata.normalize("NFKC", text.translate(_INVISIBLE)).strip()


def _quote(text: str) -> str:
    """A bad token as a message quotes it: ``'9X'``, cut short when it is long."""
    text = text.strip()
    return repr(text if len(text) <= 20 else text[:17] + "...")


def _read_token(text: str) -> tuple[Card | None, str]:
    """The card a token names, or None and what to add to "unknown card 'X'"."""
    token = _clean(text).upper()
    if token in _JOKER_INPUT:
        return JOKER, ""
    if len(token) < 2 or len(token) > 4:
        return None, ""
    for rank_text, suit_text in ((token[:-1], token[-1]), (token[1:], token[0])):  # 7H, also H7
        rank, suit = _RANK_INPUT.get(rank_text), _SUIT_INPUT.get(suit_text)
        if rank is not None and suit is not None:
            return Card(rank, suit), ""
        if rank_text == "1" and suit is not None:
            # A 1 is most often a 10 that lost its 0: ask rather than guess an ace.
            return None, f": did you mean 10{suit.value} (ten) or A{suit.value} (ace)?"
    return None, ""


def _problem(token: str, where: str, question: str) -> str:
    """``'9X' (card 3, line 1)``, with the question a token raises: ``'1H' (card 1; did you mean ...?)``."""
    return f"{_quote(token)} ({where}{'; ' + question.lstrip(': ') if question else ''})"


def cards_and_problems(text: str) -> tuple[tuple[Card, ...], list[str]]:
    """The cards ``text`` names and, for every token that is not one, ``'9X' (card 3, line 1)``.

    Skipped: separators (white space, commas, semicolons, brackets and quotes, so a JSON array
    reads), ``#`` comments, the words of the analyser's own lines (``Hand (12 cards, after your
    draw):``) and what a card stands for (``Joker=8♥`` is the joker).
    """
    cards: list[Card] = []
    problems: list[str] = []
    position = 0
    for line_number, line in enumerate(text.splitlines() or [""], start=1):
        words = [word for word in _SEPARATORS.split(_clean(line.split("#", 1)[0])) if word]
        for index, word in enumerate(words):
            bare = word.strip(_EDGE_PUNCTUATION)
            upper = bare.upper()
            if not bare or upper in _LABEL_WORDS:
                continue
            following = words[index + 1].strip(_EDGE_PUNCTUATION).upper() if index + 1 < len(words) else ""
            before = words[index - 1].strip(_EDGE_PUNCTUATION).upper() if index else ""
            if upper.isdigit() and len(upper) <= 3 and (following in _COUNTED_WORDS or before == "OF"):
                continue  # "12 cards", "8 points", "run of 4:"
            position += 1
            card, problem = _read_token(bare)
            if card is None and "=" in bare:  # "Joker=8♥", "2♣=7♠": the card, not what it stands for
                held, _, meaning = bare.partition("=")
                card, problem = _read_token(held)
                if card is not None and _read_token(meaning)[0] is None:
                    card, problem = None, ""
            if card is None:
                problems.append(_problem(word, f"card {position}, line {line_number}", problem))
            else:
                cards.append(card)
    return tuple(cards), problems


def parse_cards(text: str) -> tuple[Card, ...]:
    """Read a hand or a list of cards, in the order written.

    Separators are spaces, commas, semicolons, new lines, brackets and quotes; ``#`` starts a
    comment; the analyser's own output reads back (``Hand (3 cards): 7♣ 7♦ Joker``). Every
    token that is not a card is named at once, with its place in the list and its line.

    >>> [c.token for c in parse_cards('7h 8♥, 9H # my run\\njoker')]
    ['7H', '8H', '9H', 'JK']
    >>> [c.token for c in parse_cards('Hand (3 cards, after your draw): 7♣ 10♥️ Joker=8♥')]
    ['7C', '10H', 'JK']
    >>> [c.token for c in parse_cards('["7C", "JK"]')]
    ['7C', 'JK']
    >>> parse_cards('7H 8Z')
    Traceback (most recent call last):
    ...
    analyzer.cards.CardError: unknown card '8Z' (card 2, line 1)
    >>> parse_cards('7H 8H 9X 5C\\n5D 5S ZZ')
    Traceback (most recent call last):
    ...
    analyzer.cards.CardError: unknown cards: '9X' (card 3, line 1), 'ZZ' (card 7, line 2)
    """
    if not isinstance(text, str):
        raise TypeError(f"cards are read from text such as '7H 8H JK', not {type(text).__name__}")
    cards, problems = cards_and_problems(text)
    if problems:
        raise CardError(_unknown(problems))
    return cards


def _unknown(problems: list[str]) -> str:
    if len(problems) == 1:
        return "unknown card " + problems[0]
    shown = problems if len(problems) <= 10 else problems[:10] + [f"and {len(problems) - 10} more"]
    return "unknown cards: " + ", ".join(shown)


def cards_from(value: object, what: str = "the cards") -> tuple[Card, ...]:
    """Cards from text, or from a list of cards and card tokens (``["7H", "8H", Card.parse('JK')]``).

    A token that is not a card is a ``CardError``; a value of another type a ``TypeError``.

    >>> [c.token for c in cards_from(["7h", "10♥", JOKER])]
    ['7H', '10H', 'JK']
    """
    if isinstance(value, str):
        return parse_cards(value)
    if isinstance(value, Card):
        return (value,)
    if isinstance(value, (bytes, bytearray, dict)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{what} must be text such as '7H 8H JK' or a list of cards, not {type(value).__name__}")
    cards: list[Card] = []
    problems: list[str] = []
    for position, item in enumerate(value, start=1):
        if isinstance(item, Card):
            cards.append(item)
        elif isinstance(item, str):
            card, problem = _read_token(item)
            if card is None:
                problems.append(_problem(item, f"card {position}", problem))
            else:
                cards.append(card)
        else:
            raise TypeError(f"{what}: item {position} must be a Card or a token such as '7H', "
                            f"not {type(item).__name__}")
        if position > 1000:
            raise CardError(f"{what}: more than 1000 cards")
    if problems:
        raise CardError(_unknown(problems))
    return tuple(cards)


def sorted_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """The canonical order: by suit (♣ ♦ ♥ ♠), then rank, jokers last."""
    return tuple(sorted(cards, key=_SORT_KEY))


_SORT_KEY = operator.attrgetter("_sort_key")  # Card.sort_key, read without a Python call a card


def tokens(cards: Iterable[Card]) -> list[str]:
    return [card.token for card in cards]


def faces(cards: Iterable[Card]) -> str:
    return " ".join(card.face for card in cards)
