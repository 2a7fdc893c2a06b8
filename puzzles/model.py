"""The puzzle: a position at a definite moment of a turn, its accepted answers, and why.

A ``Puzzle`` is a frozen value with ``to_dict()`` / ``from_dict()`` (JSON lines in the bank) and
an ``id`` derived from its position, so the same position always has the same id:

    >>> from analyzer import Moment, parse_cards
    >>> puzzle = Puzzle(kind=Kind.DISCARD, rules="progressive", round=1, players=4, moment=Moment.AFTER_DRAW,
    ...                 hand=parse_cards("5C 5D 9H 9S KD 2C 3H"), answers=("KD",))
    >>> Puzzle.from_dict(puzzle.to_dict()) == puzzle, len(puzzle.id)
    (True, 12)

The three kinds and what is right:

- ``lay-down``: lay the contract down and discard (``LayDownAnswer``), or say it cannot be done.
  Any legal play that keeps the fewest points when the turn ends is right; "cannot" is right
  exactly when no lay-down exists. ``puzzles.check.check_lay_down`` scores an answer with the
  analyser's independent validator, never by comparing text.
- ``discard``: every card of the top group (``answers``) is right.
- ``buy``: ``answers`` is ``("buy",)`` or ``("pass",)``.

Each kind stores what made it clear (``margin``) and why (``analysis``) as its own frozen values
(``LayDownMargin``, ``DiscardAnalysis``, ...); a player's answer and its scoring live in
``puzzles.answers``.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Self

from analyzer import Card, MeldKind, Moment, PlacedMeld, parse_cards


class Kind(enum.StrEnum):
    """What a puzzle asks; the value is the JSON's ``kind`` (and the bank's file names)."""

    LAY_DOWN = "lay-down"
    DISCARD = "discard"
    BUY = "buy"

    @classmethod
    def named(cls, value: Any, what: str = "kind") -> Kind:
        """The kind called ``value``; ``PuzzleError`` for any other value."""
        return cls(_choice(value, KINDS, what))


KINDS: tuple[Kind, ...] = tuple(Kind)  # in the bank's order
SOURCES = ("play", "planted")
CANNOT = "cannot"  # the lay-down answer "it cannot be done"
BUY, PASS = "buy", "pass"


class PuzzleError(ValueError):
    """A puzzle that cannot be read: a missing field, a wrong type, an unknown kind or card."""


@dataclass(frozen=True)
class LayDownAnswer:
    """A player's answer to a lay-down puzzle: the melds and the discard (None: no discard, going
    out by melding every card), or ``cannot`` (no lay-down exists)."""

    melds: tuple[PlacedMeld, ...] = ()
    discard: Card | None = None
    cannot: bool = False

    def __post_init__(self) -> None:
        if self.cannot and (self.melds or self.discard is not None):
            raise PuzzleError("an answer says 'cannot' or gives a play, not both")

    def to_dict(self) -> dict[str, Any]:
        if self.cannot:
            return {"cannot": True}
        return {
            "melds": [meld.to_dict() for meld in self.melds],
            "discard": None if self.discard is None else self.discard.token,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LayDownAnswer:
        if not isinstance(data, Mapping):
            raise PuzzleError(f"a lay-down answer is an object, not {type(data).__name__}")
        if data.get("cannot"):
            return cls(cannot=True)
        discard = data.get("discard")
        return cls(
            tuple(meld_from_dict(meld) for meld in _list(data.get("melds"), "melds")),
            None if discard is None else _card(discard, "discard"),
        )


class _Record:
    """A frozen value written as a JSON object of its fields, in their order; a field named in
    ``OMITTED_WHEN_NONE`` is left out while it is None (puzzles written before it existed)."""

    OMITTED_WHEN_NONE: ClassVar[frozenset[str]] = frozenset()

    def to_dict(self) -> dict[str, Any]:
        written = {}
        for item in fields(self):  # type: ignore[arg-type]
            value = getattr(self, item.name)
            if value is not None or item.name not in self.OMITTED_WHEN_NONE:
                written[item.name] = _plain(value)
        return written

    @classmethod
    def from_dict(cls, data: Any, what: str) -> Self:
        data = _mapping(data, what)
        names = [item.name for item in fields(cls)]  # type: ignore[arg-type]
        unknown = [name for name in data if name not in names]
        if unknown:
            raise PuzzleError(f"{what} has no field {unknown[0]!r}")
        missing = [name for name in names if name not in data and name not in cls.OMITTED_WHEN_NONE]
        if missing:
            raise PuzzleError(f"{what} needs the field {missing[0]!r}")
        return cls(**data)


@dataclass(frozen=True)
class LayDownMargin(_Record):
    """What made a lay-down puzzle clear (``puzzles.generate``)."""

    OMITTED_WHEN_NONE = frozenset({"near_best"})

    proven_optimal: bool  # the best play is proven optimal
    hasty_failures: int  # hasty players who got it wrong
    hasty_players: int  # hasty players tried
    looks_ready: bool  # the hand looks ready to a loose reading of the rules
    near_best: int | None = None  # distinct plays near the best (capped); None: not counted


@dataclass(frozen=True)
class LayDownAnalysis(_Record):
    """Why a lay-down's answer is right: the solver's best play, each hasty player's play."""

    best: Mapping[str, Any]  # the analyser's lay-down, as ``analyze --json`` writes it
    hasty: Sequence[Mapping[str, Any]]  # strategy, cannot, fails, play, problems, points, broken
    reason: str


@dataclass(frozen=True)
class DiscardMargin(_Record):
    """What made a discard puzzle clear: the criterion the top row wins by over the runner-up,
    and (since generator puzzles-8) the answer's gain over the runner-up in play
    (``puzzles.inplay``: deals, mean, and its 95% interval, all above 0)."""

    OMITTED_WHEN_NONE = frozenset({"in_play"})

    criterion: str  # "lays-down", "goes-out", "cards-away" or "outs"
    top: Mapping[str, Any]  # the discard table's rows (``analyzer.DiscardRow.to_dict``)
    runner_up: Mapping[str, Any]
    in_play: Mapping[str, Any] | None = None  # {"deals", "gain", "low", "high"}


@dataclass(frozen=True)
class DiscardAnalysis(_Record):
    """The discard table's top rows and where the hand stands."""

    rows: Sequence[Mapping[str, Any]]
    cards_away: int | None
    unseen_outs: int
    reason: str


@dataclass(frozen=True)
class BuyMargin(_Record):
    """What made a buy puzzle clear: the verdict's figures and the second seed's verdict."""

    verdict: str  # "buy" or "pass"
    difference: float  # expected points buying less passing
    margin: float  # the close-call margin
    std_error: float | None
    second: Mapping[str, Any]  # seed, rollouts, verdict, difference


@dataclass(frozen=True)
class BuyAnalysis(_Record):
    """The two buy verdicts in full and what the offered card does for the hand."""

    verdict: Mapping[str, Any]  # ``analyzer.BuyAdvice.to_dict``
    second: Mapping[str, Any]
    cards_away: int | None  # before the offered card, and with it
    cards_away_with_card: int | None
    needs_buying: bool
    reason: str


Margin = LayDownMargin | DiscardMargin | BuyMargin
Analysis = LayDownAnalysis | DiscardAnalysis | BuyAnalysis
MARGINS: dict[Kind, type[Margin]] = {Kind.LAY_DOWN: LayDownMargin, Kind.DISCARD: DiscardMargin, Kind.BUY: BuyMargin}
ANALYSES: dict[Kind, type[Analysis]] = {
    Kind.LAY_DOWN: LayDownAnalysis, Kind.DISCARD: DiscardAnalysis, Kind.BUY: BuyAnalysis}


@dataclass(frozen=True)
class Puzzle:
    """One puzzle. The position (``kind`` to ``bought_last``) is what the player sees; the rest
    is what the generator derived from it and ``puzzles verify`` derives again."""

    kind: Kind
    rules: str  # a preset name
    round: int
    players: int
    moment: Moment  # after the draw (lay-down, discard) or before it (buy)
    hand: tuple[Card, ...]  # in card order
    discard_pile: tuple[Card, ...] = ()  # oldest first; for a buy the offered card is not in it
    table: tuple[tuple[PlacedMeld, ...], ...] = ()  # the melds on the table, by seat
    seat: int = 0  # the player's seat at the table
    offered: Card | None = None  # buy: the face-up discard on offer
    turn: int = 1  # the player's own turn of the round (buy: the turn about to be played)
    buys_used: int = 0
    bought_last: bool = False
    # ---- derived: the answers and why ----
    answers: tuple[str, ...] = ()  # discard: card tokens; buy: ("buy",) or ("pass",); lay-down: see below
    best_points: int | None = None  # lay-down: points held when the turn ends after a best play
    solution: LayDownAnswer | None = None  # lay-down: one best play (or cannot)
    margin: Margin | None = field(default=None, hash=False)  # what made it clear ({} in the JSON: None)
    analysis: Analysis | None = field(default=None, hash=False, compare=False)  # explanation
    themes: tuple[str, ...] = ()
    rating: int = 1500  # initial difficulty (Glicko-2 scale)
    source: str = "play"  # "play" or "planted"
    seed: int = 0
    generator: str = ""

    def __post_init__(self) -> None:
        # A kind or moment given by its JSON value becomes the enum member, here and only here.
        if not isinstance(self.kind, Kind):
            object.__setattr__(self, "kind", Kind.named(self.kind))
        if not isinstance(self.moment, Moment):
            object.__setattr__(self, "moment", _moment(self.moment))
        # A margin or analysis given as its JSON object becomes the kind's value (``{}``: None).
        for name, types in (("margin", MARGINS), ("analysis", ANALYSES)):
            value = getattr(self, name)
            if value is None or isinstance(value, types[self.kind]):
                continue
            if isinstance(value, _Record):
                raise PuzzleError(f"a {self.kind} puzzle's {name} is a {types[self.kind].__name__}, "
                                  f"not a {type(value).__name__}")
            object.__setattr__(self, name, _typed(value, types[self.kind], name))

    @property
    def seen(self) -> tuple[Card, ...]:
        """The cards the player has seen besides the hand and the offered card: the discard
        pile and the melds on the table."""
        return self.discard_pile + tuple(
            card for melds in self.table for meld in melds for card in meld.cards
        )

    @functools.cached_property
    def id(self) -> str:
        """12 hex digits from the position (kind, rules, round, players, moment, cards, turn):
        the same position has the same id on every machine."""
        return _id_of(self._fields_dict())

    def to_dict(self) -> dict[str, Any]:
        """The puzzle as JSON: ``id`` first, then every field, cards as tokens."""
        data = self._fields_dict()
        return {"id": _id_of(data), **data}

    def _fields_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "rules": self.rules,
            "round": self.round,
            "players": self.players,
            "moment": self.moment.value,
            "hand": [card.token for card in self.hand],
            "discard_pile": [card.token for card in self.discard_pile],
            "table": [[meld.to_dict() for meld in melds] for melds in self.table],
            "seat": self.seat,
            "offered": None if self.offered is None else self.offered.token,
            "turn": self.turn,
            "buys_used": self.buys_used,
            "bought_last": self.bought_last,
            "answers": list(self.answers),
            "best_points": self.best_points,
            "solution": None if self.solution is None else self.solution.to_dict(),
            "margin": {} if self.margin is None else self.margin.to_dict(),
            "analysis": {} if self.analysis is None else self.analysis.to_dict(),
            "themes": list(self.themes),
            "rating": self.rating,
            "source": self.source,
            "seed": self.seed,
            "generator": self.generator,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Puzzle:
        """The puzzle ``to_dict`` wrote; ``PuzzleError`` names what is wrong, and an ``id`` that
        does not match the position is wrong."""
        if not isinstance(data, Mapping):
            raise PuzzleError(f"a puzzle is a JSON object, not {type(data).__name__}")
        try:
            solution = data.get("solution")
            offered = data.get("offered")
            puzzle = cls(
                kind=Kind.named(data["kind"]),
                rules=_text(data["rules"], "rules"),
                round=_int(data["round"], "round"),
                players=_int(data["players"], "players"),
                moment=_moment(data["moment"]),
                hand=_cards(data["hand"], "hand"),
                discard_pile=_cards(data.get("discard_pile", []), "discard_pile"),
                table=tuple(
                    tuple(meld_from_dict(meld) for meld in _list(melds, "table"))
                    for melds in _list(data.get("table", []), "table")
                ),
                seat=_int(data.get("seat", 0), "seat"),
                offered=None if offered is None else _card(offered, "offered"),
                turn=_int(data.get("turn", 1), "turn"),
                buys_used=_int(data.get("buys_used", 0), "buys_used"),
                bought_last=_bool(data.get("bought_last", False), "bought_last"),
                answers=tuple(
                    _text(answer, "answers") for answer in _list(data.get("answers", []), "answers")
                ),
                best_points=None
                if data.get("best_points") is None
                else _int(data["best_points"], "best_points"),
                solution=None if solution is None else LayDownAnswer.from_dict(solution),
                margin=data.get("margin", {}),
                analysis=data.get("analysis", {}),
                themes=tuple(_text(theme, "themes") for theme in _list(data.get("themes", []), "themes")),
                rating=_int(data.get("rating", 1500), "rating"),
                source=_choice(data.get("source", "play"), SOURCES, "source"),
                seed=_int(data.get("seed", 0), "seed"),
                generator=_text(data.get("generator", ""), "generator"),
            )
        except KeyError as missing:
            raise PuzzleError(f"a puzzle needs the field {missing.args[0]!r}") from None
        if "id" in data and data["id"] != puzzle.id:
            raise PuzzleError(
                f"puzzle id {data['id']!r} does not match its position (which gives {puzzle.id!r})"
            )
        return puzzle


# The fields that make the position; the id is a hash of them.
POSITION_KEYS = frozenset(
    {
        "kind",
        "rules",
        "round",
        "players",
        "moment",
        "hand",
        "discard_pile",
        "table",
        "seat",
        "offered",
        "turn",
        "buys_used",
        "bought_last",
    }
)


def _id_of(fields: Mapping[str, Any]) -> str:
    position = {key: value for key, value in fields.items() if key in POSITION_KEYS}
    text = json.dumps(position, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def meld_from_dict(data: Any) -> PlacedMeld:
    """A ``PlacedMeld`` from its ``to_dict()``: ``{"kind": "run", "cards": [...], "as": [...]}``;
    ``as`` may be left out when no card is wild (every card stands for itself)."""
    if not isinstance(data, Mapping):
        raise PuzzleError(f"a meld is an object with kind, cards and as, not {type(data).__name__}")
    kinds = {kind.value: kind for kind in MeldKind}
    kind = _choice(data.get("kind"), tuple(kinds), "meld kind")
    cards = _cards(data.get("cards"), "meld cards")
    stands_for = _cards(data["as"], "meld as") if "as" in data else cards
    return PlacedMeld(kinds[kind], cards, stands_for)


def _plain(value: Any) -> Any:
    """A JSON value with tuples as lists and mappings as dicts, so equal values print equally."""
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _list(value: Any, what: str) -> Sequence[Any]:
    if not isinstance(value, (list, tuple)):
        raise PuzzleError(f"{what} must be a list, not {type(value).__name__}")
    return value


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise PuzzleError(f"{what} must be an object, not {type(value).__name__}")
    plain: dict[str, Any] = _plain(value)
    return plain


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PuzzleError(f"{what} must be a whole number, not {value!r}")
    return value


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise PuzzleError(f"{what} must be true or false, not {value!r}")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise PuzzleError(f"{what} must be text, not {value!r}")
    return value


def _choice(value: Any, choices: Sequence[str], what: str) -> str:
    if value not in choices:
        raise PuzzleError(f"{what} must be one of {', '.join(choices)}, not {value!r}")
    return str(value)


def _typed(value: Any, kind: type[Margin | Analysis], what: str) -> Margin | Analysis | None:
    """The record ``kind`` from its JSON object; None for ``{}``."""
    return kind.from_dict(value, what) if _mapping(value, what) else None


def _moment(value: Any) -> Moment:
    moments = {moment.value: moment for moment in Moment}
    return moments[_choice(value, tuple(moments), "moment")]


def _card(value: Any, what: str) -> Card:
    cards = _cards([value], what)
    return cards[0]


def _cards(value: Any, what: str) -> tuple[Card, ...]:
    items = _list(value, what)
    if not all(isinstance(item, str) for item in items):
        raise PuzzleError(f"{what} must be a list of card tokens such as '7H'")
    try:
        cards = parse_cards(" ".join(items)) if items else ()
    except ValueError as error:
        raise PuzzleError(f"{what}: {error}") from None
    if len(cards) != len(items):
        raise PuzzleError(f"{what}: {len(items)} tokens but {len(cards)} cards")
    return cards
