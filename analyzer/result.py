"""Result objects shared by the CLI, the JSON output, the puzzles and the web app."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from analyzer.cards import Card, Rank, faces, sorted_cards, tokens
from analyzer.rules import MeldKind, MeldSpec


@dataclass(frozen=True)
class PlacedMeld:
    """One meld as laid down: the cards in table order and, position by position, the card
    each one stands for (a natural stands for itself, a wild for the card it replaces)."""

    kind: MeldKind
    cards: tuple[Card, ...]
    stands_for: tuple[Card, ...]

    def __post_init__(self) -> None:
        # Worked out once, as a card's: the advice once down looks melds and tables of melds up
        # millions of times a decision (the hash of every card of a meld, each time: profiled,
        # a third of a slow take-or-draw decision). The dataclass's own hash, so nothing else moves.
        object.__setattr__(self, "_hash", hash((self.kind, self.cards, self.stands_for)))

    if TYPE_CHECKING:  # set in __post_init__; not a dataclass field when the program runs
        _hash: int = field(init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[type[PlacedMeld], tuple[MeldKind, tuple[Card, ...], tuple[Card, ...]]]:
        # Made anew when unpickled: an enum's hash differs between processes.
        return PlacedMeld, (self.kind, self.cards, self.stands_for)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "cards": tokens(self.cards), "as": tokens(self.stands_for)}

    def run_places(self) -> list[int]:
        """A run's places, card by card in table order: 2 to 13 by rank, the ace 1 when it comes
        first before a 2 (low), else 14 (high)."""
        places = []
        for index, meaning in enumerate(self.stands_for):
            assert meaning.rank is not None
            if meaning.rank != Rank.ACE:
                places.append(int(meaning.rank))
            else:
                low = index == 0 and len(self.stands_for) > 1 and self.stands_for[1].rank == Rank.TWO
                places.append(1 if low else 14)
        return places

    def describe(self) -> str:
        """Text for people, wild cards shown as what they stand for: ``7♥ 8♥ Joker=9♥ 10♥``."""
        shown = []
        for card, meaning in zip(self.cards, self.stands_for, strict=True):
            shown.append(card.face if card == meaning else f"{card.face}={meaning.face}")
        return " ".join(shown)


@dataclass(frozen=True)
class LayDown:
    """The best lay-down of a round's contract for one hand, or how far the hand is from it."""

    rules: str
    round: int
    contract: tuple[MeldSpec, ...]
    go_out: bool  # a go-out round: laying down means melding every card
    hand: tuple[Card, ...]
    can_lay_down: bool
    melds: tuple[PlacedMeld, ...]  # empty when it cannot lay down
    leftover: tuple[Card, ...]
    leftover_points: int
    cards_away: int | None  # 0 when it can lay down; None when no extra cards would do
    missing: tuple[Card, ...]  # one set of cards_away cards that would make it possible
    with_missing: tuple[PlacedMeld, ...]  # the lay-down those missing cards would allow
    proven_optimal: bool  # False when the time limit stopped the search first
    # The turn (analyzer.turn): where the hand stands and, after the draw, the turn's play.
    moment: str | None = None  # "before-draw" or "after-draw"; None: not placed in a turn
    note: str | None = None  # about the hand's size, e.g. fewer cards than dealt
    discard: Card | None = None  # after the draw, laying down: the turn's discard (None: no discard)
    points_after_discard: int | None = None  # after the draw, laying down: held when the turn ends
    goes_out: bool = False  # the turn's play leaves no card in hand

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "round": self.round,
            "contract": [spec.to_dict() for spec in self.contract],
            "go_out": self.go_out,
            "hand": tokens(self.hand),
            "can_lay_down": self.can_lay_down,
            "melds": [meld.to_dict() for meld in self.melds],
            "leftover": tokens(self.leftover),
            "leftover_points": self.leftover_points,
            "cards_away": self.cards_away,
            "missing": tokens(self.missing),
            "with_missing": [meld.to_dict() for meld in self.with_missing],
            "proven_optimal": self.proven_optimal,
            "moment": self.moment,
            "note": self.note,
            "discard": None if self.discard is None else self.discard.token,
            "points_after_discard": self.points_after_discard,
            "goes_out": self.goes_out,
        }

    def describe_missing(self) -> str:
        return faces(self.missing)

    def kept_with_missing(self) -> tuple[Card, ...]:
        """The hand's own cards that the ``with_missing`` lay-down would leave in hand."""
        used_from_hand = Counter(c for meld in self.with_missing for c in meld.cards) - Counter(self.missing)
        return sorted_cards((Counter(self.hand) - used_from_hand).elements())
