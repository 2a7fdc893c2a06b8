"""Advice once the contract is down: which cards to lay off (on any meld on the table, as the
rules allow), which card to discard, whether to take the face-up card, and how to go out soonest.

Every play is searched move by move on copies of ``analyzer.moves.Turn``, the one home of the
table's rules: lay-offs on the player's own melds and, where ``lay_off_on_others`` allows, on
the other players'; a run grown at either end (chains count: the 9♠ then the 10♠); jokers taken
back where ``joker_substitution`` allows and laid off again the same turn; the discard and going
out as ``discard_to_go_out`` says. Each distinct discard (and, where the rules allow it, no
discard) is one row of the table, ranked best first by docs/advice.md ("Once your contract is
down"): going out now, then fewer cards kept, then more unseen outs (cards that would let a kept
card be laid off next turn), then fewer points kept.

    >>> advice = advise_down("9S 10S 4D KC", "progressive", 2, "5S 6S 7S 8S | QH QD QC", table="KH KD KS")
    >>> best = advice.best
    >>> [move_text(move, made) for move, made in zip(best.moves, best.made)], best.discard.token, best.kept
    (['9♠ on your 5♠ 6♠ 7♠ 8♠', '10♠ on your 5♠ 6♠ 7♠ 8♠ 9♠', 'K♣ on K♥ K♦ K♠ of opponent 1'], '4D', ())
    >>> best.goes_out
    True

Melds are written as the analyser writes cards, one meld after another with ``|`` between them
and, for the other players, ``;`` between players (``read_melds``, ``read_table``). A wild card
stands for the place it takes in a run (``4H 5H JK 7H``: the joker is the 6♥) or the rank of a
set; ``JK=9H`` says it outright.

    >>> from analyzer.rules import preset
    >>> read_meld("4H 5H JK 7H", preset("progressive")).describe()
    '4♥ 5♥ Joker=6♥ 7♥'
"""

from __future__ import annotations

import enum
import functools
from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from analyzer.advice import Out, read_cards, read_one_card
from analyzer.arguments import optional_whole_number, rules_in_use, time_limit_in_seconds, whole_number
from analyzer.buy import AdviceError
from analyzer.cards import ALL_CARD_KINDS, Card, CardError, Suit, sorted_cards, tokens
from analyzer.hand import HandError, check_deck, deck_copies, read_hand
from analyzer.melds import card_at, card_places, meld_problems, wild_cards
from analyzer.moves import End, LayOff, Move, Substitution, TableError, Turn, grown
from analyzer.result import PlacedMeld
from analyzer.round_solver import Deadline
from analyzer.rules import DiscardToGoOut, MeldKind, MeldSpec, Rules

MAX_STATES = 50_000  # table positions one search may reach; far above a real hand's (a few hundred)
DEADLINE_EVERY = 256  # positions between two looks at the clock
MELDS_KEPT = 4096  # melds whose lay-offs and joker swaps are kept in a process (``_meld_tries``)
YOU = 0  # the player's seat in the searched turn; the other players follow in the order given

MeldsText = str | Sequence[PlacedMeld | str]


class FaceUpChoice(enum.StrEnum):
    """Before the draw: take the face-up card, or draw from the stock."""

    TAKE = "take"
    DRAW = "draw"


# ---- result objects --------------------------------------------------------------------------


@dataclass(frozen=True)
class DownRow:
    """One row of the discard table once the contract is down: the best play of the turn that
    ends with ``discard`` (None: no discard, where the rules let the turn end without one)."""

    discard: Card | None
    moves: tuple[Move, ...]  # the lay-offs and jokers taken back, in order
    made: tuple[PlacedMeld, ...]  # the meld each move made, in order
    kept: tuple[Card, ...]  # the hand when the turn ends, in card order
    goes_out: bool
    outs: tuple[Out, ...]  # cards that would let a kept card be laid off next turn, in card order
    unseen_outs: int  # their unseen copies
    points_kept: int
    rank: int  # place in the table from 1; equal rows share a rank
    equal_to_previous: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "discard": None if self.discard is None else self.discard.token,
            "moves": [move_dict(move, made) for move, made in zip(self.moves, self.made)],
            "kept": tokens(self.kept),
            "cards_kept": len(self.kept),
            "goes_out": self.goes_out,
            "outs": [out.to_dict() for out in self.outs],
            "unseen_outs": self.unseen_outs,
            "points_kept": self.points_kept,
            "rank": self.rank,
            "equal_to_previous": self.equal_to_previous,
        }


@dataclass(frozen=True)
class DrawOption:
    """Taking the face-up card or drawing from the stock, by the figures of the best play of the
    turn after it: for the stock, the mean over the unseen cards (each copy once). None: a
    figure not worked out, as it decides nothing (``advise_down(..., best_only=True)``)."""

    choice: FaceUpChoice
    goes_out: float  # the chance of going out this turn (taking the card: 0 or 1)
    cards_kept: float
    unseen_outs: float | None
    points_kept: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"choice": self.choice.value, "goes_out": round(self.goes_out, 4),
                "cards_kept": round(self.cards_kept, 4), "unseen_outs": _rounded(self.unseen_outs),
                "points_kept": _rounded(self.points_kept)}


def _rounded(figure: float | None) -> float | None:
    return None if figure is None else round(figure, 4)


@dataclass(frozen=True)
class FaceUp:
    """Whether to take the face-up card: both options, best first (``options[0].choice``)."""

    card: Card
    options: tuple[DrawOption, ...]

    @property
    def take(self) -> bool:
        return self.options[0].choice is FaceUpChoice.TAKE

    def to_dict(self) -> dict[str, Any]:
        return {"card": self.card.token, "take": self.take, "options": [o.to_dict() for o in self.options]}


@dataclass(frozen=True)
class DownAdvice:
    """The advice for a player whose contract is down. ``rows``: the discard table of the turn,
    best first (its first row is the best play); with a face-up card, of the turn after taking
    it, and ``face_up`` says whether to."""

    rules: str
    round: int
    hand: tuple[Card, ...]  # as given: after the draw, or before it with a face-up card
    melds: tuple[PlacedMeld, ...]  # the player's own melds on the table
    table: tuple[tuple[PlacedMeld, ...], ...]  # the other players' melds, player by player
    seen: tuple[Card, ...]
    rows: tuple[DownRow, ...]
    face_up: FaceUp | None
    complete: bool = True  # False: a search stopped at MAX_STATES positions or the time limit

    @property
    def best(self) -> DownRow:
        return self.rows[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "round": self.round,
            "hand": tokens(self.hand),
            "melds": [meld.to_dict() for meld in self.melds],
            "table": [[meld.to_dict() for meld in melds] for melds in self.table],
            "seen": tokens(self.seen),
            "best": self.best.to_dict(),
            "discards": [row.to_dict() for row in self.rows],
            "face_up": None if self.face_up is None else self.face_up.to_dict(),
            "complete": self.complete,
        }


def move_text(move: Move, made: PlacedMeld) -> str:
    """One move for people, with the meld it made: ``9♠ on your 5♠ 6♠ 7♠ 8♠``."""
    before = made.describe() if isinstance(move, Substitution) else _before(move, made).describe()
    where = f"your {before}" if move.seat == YOU else f"{before} of opponent {move.seat}"
    if isinstance(move, Substitution):
        return f"{move.card.face} for the joker in {where} (the joker to your hand)"
    return f"{move.card.face} on {where}"


def move_dict(move: Move, made: PlacedMeld) -> dict[str, Any]:
    return {"move": "substitute" if isinstance(move, Substitution) else "lay_off", "card": move.card.token,
            "seat": move.seat, "meld": move.meld, "end": None if isinstance(move, Substitution) or move.end is None
            else move.end.value, "made": made.to_dict(), "text": move_text(move, made)}


def _before(move: LayOff, made: PlacedMeld) -> PlacedMeld:
    """The meld ``move`` laid its card off on: ``made`` less that card at its end."""
    if move.end is End.LOW:
        return PlacedMeld(made.kind, made.cards[1:], made.stands_for[1:])
    return PlacedMeld(made.kind, made.cards[:-1], made.stands_for[:-1])


# ---- reading melds -----------------------------------------------------------------------------


def read_meld(text: str | PlacedMeld, rules: Rules) -> PlacedMeld:
    """A meld written as cards (``5S 6S JK 8S``, ``QH QD JK``, ``JK=9H``), checked by the rules
    (``analyzer.melds.meld_problems``); ``AdviceError`` names what is wrong."""
    if isinstance(text, PlacedMeld):
        return _checked(text, rules)
    written = [_written_card(token, rules, text) for token in text.split()]
    if not written:
        raise AdviceError("an empty meld: write its cards, such as 5S 6S 7S 8S")
    known = _known(written, rules, text)
    cards = tuple(card for card, _ in written)
    if len({card.rank for card in known}) == 1:
        kind = MeldKind.PAIR if len(cards) == 2 else MeldKind.SET
        meanings = tuple(meaning or (card if not rules.is_wild(card) else known[0]) for card, meaning in written)
        return _checked(PlacedMeld(kind, cards, meanings), rules, text)
    return _checked(PlacedMeld(MeldKind.RUN, cards, _run_meanings(written, rules, text)), rules, text)


def _known(written: Sequence[tuple[Card, Card | None]], rules: Rules, text: str) -> list[Card]:
    """The cards of a written meld whose meaning is known: the naturals and the wild cards said
    to stand for one; wild cards alone are a set of their rank (Eveleigh's 2s), else unknowable."""
    known = [meaning or card for card, meaning in written if meaning is not None or not rules.is_wild(card)]
    if known:
        return known
    if len({card.rank for card, _ in written}) == 1 and not written[0][0].is_joker:
        return [written[0][0]]
    raise AdviceError(f"the meld {text.strip()!r} is wild cards only: say what one stands for (JK=9H)")


def _written_card(token: str, rules: Rules, text: str) -> tuple[Card, Card | None]:
    """One card of a written meld and what it is said to stand for (``JK=9H``; None: not said)."""
    card_text, _, meaning_text = token.partition("=")
    try:
        card = Card.parse(card_text)
        meaning = Card.parse(meaning_text) if meaning_text else None
    except CardError as error:
        raise HandError(f"the meld {text.strip()!r}: {error}") from None
    if meaning is not None and (not rules.is_wild(card) or meaning.is_joker):
        raise AdviceError(f"the meld {text.strip()!r}: only a wild card stands for another, and for a natural "
                          f"card ({token!r})")
    return card, meaning


def _run_meanings(written: Sequence[tuple[Card, Card | None]], rules: Rules, text: str) -> tuple[Card, ...]:
    """What each card of a run stands for: a wild card its place, counted from the first card
    whose meaning is known (an ace low, then high)."""
    first = next(i for i, (card, meaning) in enumerate(written) if meaning is not None or not rules.is_wild(card))
    anchor = written[first][1] or written[first][0]
    assert anchor.suit is not None
    for place in card_places(anchor):
        start = place - first
        if not (1 <= start and start + len(written) - 1 <= 14):
            continue
        meanings = tuple(card_at(start + i, anchor.suit) for i in range(len(written)))
        if all((meaning or card) == at or (meaning is None and rules.is_wild(card))
               for (card, meaning), at in zip(written, meanings)):
            return meanings
    raise AdviceError(f"the meld {text.strip()!r} is neither a set nor a run in rising order")


def _checked(meld: PlacedMeld, rules: Rules, text: str | None = None) -> PlacedMeld:
    problems = meld_problems(meld, rules)
    if problems:
        raise AdviceError(f"the meld {text.strip() if text else meld.describe()!r} breaks the rules: {problems[0]}")
    return meld


def read_melds(melds: MeldsText, rules: Rules) -> tuple[PlacedMeld, ...]:
    """Melds written one after another with ``|`` between them, or given one by one."""
    parts = melds.split("|") if isinstance(melds, str) else list(melds)
    if isinstance(melds, str) and not melds.strip():
        return ()
    return tuple(read_meld(part, rules) for part in parts)


def read_table(table: str | Sequence[MeldsText], rules: Rules) -> tuple[tuple[PlacedMeld, ...], ...]:
    """The other players' melds: text with ``;`` between players (``|`` between melds), or one
    entry per player. A player with no melds on the table may be left out."""
    players = table.split(";") if isinstance(table, str) else list(table)
    return tuple(melds for melds in (read_melds(player, rules) for player in players) if melds)


# ---- the public entry point --------------------------------------------------------------------


def advise_down(
    hand: str | Iterable[Card],
    rules: str | Rules,
    round_number: int,
    melds: MeldsText,
    table: str | Sequence[MeldsText] = (),
    players: int | None = None,
    seen: str | Iterable[Card] = (),
    face_up: str | Card | None = None,
    time_limit: float | None = None,
    best_only: bool = False,
) -> DownAdvice:
    """The ranked advice for a player whose contract is down: ``hand`` after the draw (with
    ``face_up``, before it), ``melds`` the player's own melds on the table, ``table`` the other
    players'. ``seen``: other cards the player has seen (the discard pile); the melds on the table
    are seen already. Unseen copies are counted in the deck for ``players`` (None: the largest).
    ``time_limit`` bounds the whole answer (None: the analyser's default); a search cut short by
    it, or by ``MAX_STATES`` positions, says so in ``complete``. ``best_only``: only what the
    answer's choices rest on (a player after the choices alone: the arena's, the computer's
    seat): of the discard table the rows that may rank first, and of drawing from the stock its
    mean cards kept alone where that settles taking against drawing (its unseen outs and
    points None). The choices are the full answer's: the same discard and take-or-draw, the
    lay-offs maybe by other moves to the same end.

    Raises ``HandError``, ``RulesError`` or ``AdviceError`` (all ``ValueError``) for input a user
    can get wrong: a meld the rules do not allow, cards not in the deck or more copies than it
    holds, melds that are not the round's contract (the contract is not down), a go-out round.
    """
    from analyzer import DEFAULT_TIME_LIMIT

    deadline = Deadline(time_limit_in_seconds(DEFAULT_TIME_LIMIT if time_limit is None else time_limit))
    rule_set = rules_in_use(rules)
    round_number = whole_number(round_number, "round_number")
    players = optional_whole_number(players, "players")
    rule_set.round(round_number)
    cards = read_hand(hand, rule_set, players)
    own = read_melds(melds, rule_set)
    others = read_table(table, rule_set)
    seen_cards = read_cards(seen, "the seen cards")
    offered = None if face_up is None else read_one_card(face_up, "the face-up card")
    unseen = check_down(cards, rule_set, round_number, own, others, players, seen_cards, offered)
    search = _Search(rule_set, round_number, (own, *others), unseen, deadline)
    choice = None
    if offered is None:
        rows = search.rows(cards, best_only)
    else:
        rows = search.rows(cards + (offered,), best_only)
        choice = FaceUp(offered, search.face_up(cards, offered, rows[0], best_only))
    return DownAdvice(rule_set.name, round_number, cards, own, others, sorted_cards(seen_cards), rows, choice,
                      not search.truncated)


def check_down(cards: tuple[Card, ...], rules: Rules, round_number: int, own: tuple[PlacedMeld, ...],
               others: tuple[tuple[PlacedMeld, ...], ...], players: int | None, seen: tuple[Card, ...],
               offered: Card | None) -> dict[Card, int]:
    """Whether the position can be advised once down (``AdviceError``, ``HandError`` if not):
    not a go-out round, the player's melds the round's contract and the others' of its kinds, no
    more other players than the table seats, no more copies than the deck. The unseen copies of each card kind."""
    round_rule = rules.round(round_number)
    if round_rule.go_out:
        raise AdviceError(f"round {round_number} of {rules.name} is a go-out round: laying down melds every "
                          f"card, so there is no turn once the contract is down")
    if not own:
        raise AdviceError("your contract is not down (no melds of yours given): ask the advice before laying down")
    if Counter(meld.kind for meld in own) != Counter(spec.kind for spec in round_rule.contract):
        raise AdviceError(f"your melds ({' | '.join(meld.describe() for meld in own)}) are not the contract of round "
                          f"{round_number} ({round_rule.describe_contract()})")
    short = _short_of_contract(own, round_rule.contract)
    if short:
        raise AdviceError(f"your meld {short.describe()} is shorter than the contract of round {round_number} "
                          f"asks ({round_rule.describe_contract()})")
    check_table(others, rules, round_number, players)
    deck = rules.deck_for(players)
    on_table = tuple(card for seat in (own, *others) for meld in seat for card in meld.cards)
    check_deck(cards + on_table + seen + ((offered,) if offered else ()), rules, deck,
               "the hand, the melds on the table" + (", the seen cards and the face-up card" if offered else
                                                      " and the seen cards"))
    gone = Counter(cards) + Counter(on_table) + Counter(seen) + Counter([offered] if offered else [])
    return {card: deck_copies(card, deck) - gone[card] for card in ALL_CARD_KINDS}


def check_table(others: tuple[tuple[PlacedMeld, ...], ...], rules: Rules, round_number: int,
                players: int | None) -> None:
    """Whether the other players' melds can be on the table (``AdviceError`` if not): each a meld
    of a kind of the round's contract and at least its size (every player lays down the same
    contract), no more players than the table seats."""
    round_rule = rules.round(round_number)
    least = {spec.kind: min(s.size for s in round_rule.contract if s.kind == spec.kind) for spec in round_rule.contract}
    for seat, melds in enumerate(others, start=1):
        stray = [meld for meld in melds if meld.kind not in least or len(meld.cards) < least[meld.kind]]
        if stray:
            raise AdviceError(f"the meld {stray[0].describe()} of opponent {seat} is no meld of the contract of "
                              f"round {round_number} ({round_rule.describe_contract()})")
    if players is not None and len(others) > players - 1:
        raise AdviceError(f"the table holds the melds of {len(others)} other players, but there are {players} players")


def _short_of_contract(melds: Sequence[PlacedMeld], contract: Sequence[MeldSpec]) -> PlacedMeld | None:
    """A meld of ``melds`` (one per meld of the contract, by kind) shorter than the contract's
    meld it stands for, matched longest to longest within each kind; None when every one holds
    at least its size (lay-offs only lengthen them)."""
    for kind in {spec.kind for spec in contract}:
        sizes = sorted((spec.size for spec in contract if spec.kind == kind), reverse=True)
        mine = sorted((meld for meld in melds if meld.kind == kind), key=lambda meld: len(meld.cards), reverse=True)
        for meld, size in zip(mine, sizes):
            if len(meld.cards) < size:
                return meld
    return None


def melds_text(melds: Sequence[PlacedMeld]) -> str:
    """Melds as ``read_melds`` reads them back: every wild card with what it stands for."""
    return " | ".join(" ".join(card.token if card == meaning else f"{card.token}={meaning.token}"
                               for card, meaning in zip(meld.cards, meld.stands_for)) for meld in melds)


# ---- the search ----------------------------------------------------------------------------------

Key = tuple[tuple[Card, ...], tuple[tuple[PlacedMeld, ...], ...], int]
Alike = tuple[tuple[Card, ...], tuple[int, ...], int]  # a position by what can happen from it (``alike``)


@dataclass(frozen=True)
class _End:
    """A way the turn may end: the position after the moves, and the discard."""

    turn: Turn
    moves: tuple[Move, ...]
    discard: Card | None
    kept: tuple[Card, ...]
    points: int


class _Search:
    """Every play of a turn on one table, found move by move on ``Turn`` copies."""

    def __init__(self, rules: Rules, round_number: int, melds: Sequence[Sequence[PlacedMeld]],
                 unseen: dict[Card, int], deadline: Deadline) -> None:
        self.rules = rules
        self.deadline = deadline
        self.round_number = round_number
        self.melds = melds
        self.unseen = unseen
        self.truncated = False
        self._left: dict[Alike, int] = {}
        self._outs: dict[tuple[tuple[Card, ...], tuple[int, ...]], tuple[Out, ...]] = {}
        self._shapes: dict[PlacedMeld, int] = {}  # a meld's shape (``shape``), numbered
        self._numbers: dict[PlacedMeld | tuple[Any, ...], int] = {}

    def turn(self, hand: Sequence[Card], melds: Sequence[Sequence[PlacedMeld]] | None = None) -> Turn:
        return Turn(self.rules, self.round_number, YOU, hand, self.melds if melds is None else melds)

    # -- positions alike -------------------------------------------------------------------------

    def shape(self, meld: PlacedMeld) -> int:
        """What ``meld`` takes from now on, numbered (equal numbers: equal shapes). A run: the
        run itself (its places, and which of them a joker or another wild card holds). A set (or
        pair): its kind, rank, size, wild cards and jokers. Which naturals of its rank a set
        holds changes nothing: it takes any card of its rank (``grown``), a wild card within the
        limits counted from its wild and natural cards (``wild_limit_problems``), a natural of
        its rank in a joker's place (``Turn.substitute``), and each move changes the shape alike."""
        number = self._shapes.get(meld)
        if number is None:
            shape: PlacedMeld | tuple[Any, ...] = meld
            if meld.kind is not MeldKind.RUN:
                shape = (meld.kind, meld.stands_for[0].rank, len(meld.cards), len(wild_cards(meld, self.rules)),
                         sum(card.is_joker for card in meld.cards))
            number = self._shapes[meld] = self._numbers.setdefault(shape, len(self._numbers))
        return number

    def alike_table(self, melds: Sequence[Sequence[PlacedMeld]]) -> tuple[int, ...]:
        """A table by the shapes of the melds the player may play on, in any order: a player
        down plays on its own melds and, where ``lay_off_on_others`` allows, on every other
        player's as on its own (``Turn._may_play_on_table`` asks nothing else of a meld)."""
        seats = melds if self.rules.lay_off_on_others else melds[YOU:YOU + 1]
        return tuple(sorted(self.shape(meld) for seat in seats for meld in seat))

    def alike(self, turn: Turn) -> Alike:
        """A position by what can happen from it: the hand, the table (``alike_table``), the
        jokers owed. Positions alike allow the same moves, each leaving positions alike: they
        leave as few cards, and a drawn card is an out on both or on neither."""
        return tuple(turn.held()), self.alike_table(turn.melds), turn.jokers_owed

    # -- positions -------------------------------------------------------------------------------

    def moves(self, turn: Turn) -> Iterator[Move]:
        """The moves worth trying on ``turn``: each distinct card on each meld it grows (a run at
        either end), and each natural card in a joker's place; ``Turn`` judges them."""
        held = dict.fromkeys(turn.held())
        for seat, seat_melds in enumerate(turn.melds):
            for index, meld in enumerate(seat_melds):
                lay_offs, substitutes = _meld_tries(meld, self.rules)
                for card in held:
                    for end in lay_offs.get(card, ()):
                        yield LayOff(card, seat, index, end)
                    if card in substitutes:
                        yield Substitution(card, seat, index)

    def played(self, turn: Turn, move: Move) -> Turn | None:
        """``turn`` after ``move``, on a copy; None where ``Turn`` refuses the move."""
        after = turn.copy()
        try:
            if isinstance(move, LayOff):
                after.lay_off(move)
            else:
                after.substitute(move)
        except TableError:
            return None
        return after

    def _enough(self, found: int) -> bool:
        """Whether a search that has found ``found`` positions stops (``MAX_STATES``, or the
        time limit, looked at every ``DEADLINE_EVERY``): then the answer says it is incomplete."""
        if found >= MAX_STATES or (found % DEADLINE_EVERY == 0 and self.deadline.expired):
            self.truncated = True
            return True
        return False

    def reach(self, start: Turn, alike: bool = False) -> list[tuple[Turn, tuple[Move, ...]]]:
        """Every position the moves reach from ``start`` (itself too) with no joker owed, each
        once, with the fewest moves that reach it (breadth first); with ``alike``, one of each
        set of positions alike (``alike``: the same figures, by other moves)."""
        key_of: Callable[[Turn], Hashable] = self.alike if alike else _key
        found: dict[Hashable, tuple[Turn, tuple[Move, ...]]] = {key_of(start): (start, ())}
        queue: deque[tuple[Turn, tuple[Move, ...]]] = deque([(start, ())])
        while queue:
            turn, path = queue.popleft()
            for move in self.moves(turn):
                after = self.played(turn, move)
                if after is None:
                    continue
                key = key_of(after)
                if key in found:
                    continue
                if self._enough(len(found)):
                    queue.clear()
                    break
                found[key] = (after, path + (move,))
                queue.append((after, path + (move,)))
        return [(turn, path) for turn, path in found.values() if not turn.jokers_owed]

    def ends(self, hand: Sequence[Card], alike: bool = False) -> list[_End]:
        """Every legal end of the turn: each position reached (``reach``), with each discard
        ``Turn`` allows there (and none, where it allows that)."""
        return [end for turn, path in self.reach(self.turn(hand), alike) for end in self._ends_at(turn, path)]

    def _ends_at(self, turn: Turn, path: tuple[Move, ...]) -> Iterator[_End]:
        """The legal ends of the turn at one position: each discard ``Turn`` allows there (and
        none, where it allows that)."""
        for discard in (None, *dict.fromkeys(turn.held())):
            done = turn.copy()
            try:
                if discard is not None:
                    done.discard(discard)
                done.finish()
            except TableError:
                continue
            kept = tuple(done.held())
            yield _End(done, path, discard, kept, sum(self.rules.points_of(card) for card in kept))

    def left(self, hand: Sequence[Card], melds: Sequence[Sequence[PlacedMeld]]) -> int:
        """The fewest cards of ``hand`` the moves can leave on ``melds`` (no discard), searched
        over positions alike (``alike``: they allow the same moves) once, and stopped at an
        emptied hand; remembered by the position's likeness."""
        start = self.turn(hand, melds)
        key = self.alike(start)
        if key not in self._left:
            fewest = sum(start.hand.values())
            for turn in self._positions(start):
                if not turn.jokers_owed:
                    fewest = min(fewest, sum(turn.hand.values()))
                    if not fewest:
                        break
            self._left[key] = fewest
        return self._left[key]

    def _positions(self, start: Turn) -> Iterator[Turn]:
        """``start`` and every position the moves reach from it, one of each set of positions
        alike (``alike``), depth first; at most ``MAX_STATES`` (then ``truncated``)."""
        seen = {self.alike(start)}
        stack = [start]
        while stack:
            turn = stack.pop()
            yield turn
            for move in self.moves(turn):
                after = self.played(turn, move)
                if after is None:
                    continue
                key = self.alike(after)
                if key in seen:
                    continue
                if self._enough(len(seen)):
                    return
                seen.add(key)
                stack.append(after)

    def outs(self, kept: Sequence[Card], melds: Sequence[Sequence[PlacedMeld]]) -> tuple[Out, ...]:
        """The unseen cards that, drawn next turn, would let one more kept card be laid off on
        ``melds`` (the table as this turn leaves it), asked on the melds that matter to them
        (``_within_reach``) and remembered by those. Where the last card may not be a discard
        and every kept card can be laid off already, the cards that would let the whole hand go
        (``_goes_whole``: the drawn card itself must go too, on any meld)."""
        if not kept:
            return ()
        if self.deadline.expired:  # no time left to count them: the answer says it is incomplete
            self.truncated = True
            return ()
        near = self._within_reach(kept, melds)
        whole = self._goes_whole(kept, near)
        if whole:
            near = tuple(tuple(seat) for seat in melds)
        key = (tuple(sorted(kept, key=Card.sort_key)), self.alike_table(near))
        if key not in self._outs:
            self._outs[key] = self._outs_on(kept, near, whole)
        return self._outs[key]

    def _goes_whole(self, kept: Sequence[Card], melds: Sequence[Sequence[PlacedMeld]]) -> bool:
        """Whether going out is by melding only and the moves can lay off every kept card: the
        player keeps them because a last card may not be discarded, and goes out next turn when
        the drawn card can be laid off with them."""
        return self.rules.discard_to_go_out == DiscardToGoOut.NEVER and self.left(kept, melds) == 0

    def _outs_on(self, kept: Sequence[Card], melds: Sequence[Sequence[PlacedMeld]],
                 whole: bool = False) -> tuple[Out, ...]:
        found = []
        if whole:
            # Going whole, the drawn card may go after a kept card (the 10♠ once the 9♠ is laid
            # off): only a card with a move on some table the kept cards' moves reach can.
            placeable, last = self._placeable(kept, melds)
            for card in ALL_CARD_KINDS:
                if self.unseen.get(card, 0) > 0 and card in placeable and (
                        card in last or not self.left((*kept, card), melds)):
                    found.append(Out(card, self.unseen[card]))
            return tuple(found)
        below = self.left(kept, melds)  # an out leaves fewer cards than this
        probe = self.turn((), melds)
        may_free = self._may_free(kept, melds)
        for card in ALL_CARD_KINDS:
            if self.unseen.get(card, 0) <= 0 or not may_free(card) or not self._fits(probe, card):
                continue  # it moves nothing, or nothing it moves lets a kept card go
            if self.left((*kept, card), melds) < below:
                found.append(Out(card, self.unseen[card]))
        return tuple(found)

    def _placeable(self, kept: Sequence[Card], melds: Sequence[Sequence[PlacedMeld]]
                   ) -> tuple[frozenset[Card], frozenset[Card]]:
        """The cards with a move worth trying (``moves``) on some table the moves of ``kept``
        reach from ``melds``, and among them those laid off last: on a table where every kept
        card is laid off. A drawn card goes on a table some of the kept cards' moves leave, and
        those moves never depend on it (a move asks only for its own card): a card outside the
        first set cannot go this turn, and a card of the second goes after the whole hand."""
        tried: set[Card] = set()
        last: set[Card] = set()
        played_on = range(len(melds)) if self.rules.lay_off_on_others else (YOU,)
        for turn in self._positions(self.turn(kept, melds)):
            emptied = not turn.hand.total() and not turn.jokers_owed
            for seat, seat_melds in enumerate(turn.melds):
                for meld in seat_melds:
                    lay_offs, substitutes = _meld_tries(meld, self.rules)
                    tried.update(lay_offs)
                    tried.update(substitutes)
                    if emptied and seat in played_on:
                        last.update(lay_offs)  # each a legal lay-off there (``grown``)
        return frozenset(tried), frozenset(last)

    def _any_card_may_free(self, kept: Sequence[Card]) -> bool:
        """Whether any drawn card, laid off on any meld, may let a kept card go: when a wild card
        is kept (a longer meld may change its places), or wild cards may not outnumber natural
        ones (a natural card laid off anywhere may make room for a joker a kept card takes back)."""
        return not self.rules.wilds_may_outnumber_naturals or any(self.rules.is_wild(card) for card in kept)

    def _may_free(self, kept: Sequence[Card], melds: Sequence[Sequence[PlacedMeld]]) -> Callable[[Card], bool]:
        """A quick test that a drawn card might let one more kept card go (False: it certainly
        cannot, so its search is not made), for kept cards none of which the moves can lay off
        now (as every row's end keeps: the fewest cards), so a drawn card moves first. A natural
        card laid off changes only the end of a run it grows: what then fits there is a card of
        its suit next to it (and what fits next to that, a card next to one kept). A set takes
        any card of its rank with or without it. So a drawn natural card that is no neighbour in
        suit of a kept natural card frees nothing, nor one whose suit has no run on ``melds``
        (lay-offs never make a run), unless it takes a joker's place (the joker then goes
        anywhere) or a wild card is kept (whose places a longer meld may change), or wild cards
        may not outnumber natural ones (a natural card laid off anywhere may then make room for
        a joker a kept card takes back). On ``melds``
        without a run no drawn card frees anything: a kept natural card goes there exactly when
        a set or pair of its rank lies where the player may play, whatever else is laid off (a
        natural card never breaks a set's wild limits), and a joker taken back from a set, or
        drawn, has no run to lengthen for a kept card."""
        if self._any_card_may_free(kept):
            return lambda card: True
        run_suits = {meld.stands_for[0].suit for seat in melds for meld in seat if meld.kind is MeldKind.RUN}
        if not run_suits:
            return lambda card: False
        substitutes = frozenset().union(*(_meld_tries(meld, self.rules)[1] for seat in melds for meld in seat))
        neighbours = {(card.suit, rank) for card in kept if card.rank is not None and card.suit in run_suits
                      for rank in _next_to(int(card.rank))}

        def may_free(card: Card) -> bool:
            return (card.rank is None or self.rules.is_wild(card) or card in substitutes
                    or (card.suit, int(card.rank)) in neighbours)

        return may_free

    def _within_reach(self, kept: Sequence[Card], melds: Sequence[Sequence[PlacedMeld]]
                      ) -> tuple[tuple[PlacedMeld, ...], ...]:
        """The melds, seat by seat, that a card drawn could change to let a kept card go: the
        sets of a kept natural card's rank, the runs of its suit, and every meld holding a joker
        (a joker taken back may go anywhere), and the player's own; all of them when a wild card
        is kept, or wild cards may not outnumber natural ones (a natural card laid off on any
        meld may make room there for a joker). A drawn card laid off elsewhere frees no kept
        card, so the outs on these melds are the outs on all."""
        if self._any_card_may_free(kept):
            return tuple(tuple(seat) for seat in melds)
        ranks = {card.rank for card in kept}
        suits = {card.suit for card in kept}

        def matters(meld: PlacedMeld) -> bool:
            if any(held.is_joker for held in meld.cards):
                return True
            if meld.kind is MeldKind.RUN:
                return meld.stands_for[0].suit in suits
            return meld.stands_for[0].rank in ranks

        # The player's own melds all stay: a Turn knows its player is down by them.
        return tuple(tuple(meld for meld in seat if at == YOU or matters(meld)) for at, seat in enumerate(melds))

    @functools.cached_property
    def _run_suits(self) -> frozenset[Suit | None]:
        """The suits of the runs on the table the search starts from."""
        return frozenset(meld.stands_for[0].suit for seat in self.melds for meld in seat if meld.kind is MeldKind.RUN)

    def _drawn_alike(self, card: Card) -> Hashable:
        """A key shared by the cards whose draw gives the same figures. A natural card with no
        run of its suit and no set of its rank anywhere is *inert*: it never moves, is never an
        out and never frees a kept card, so inert cards of the same points are alike. Beyond
        that, a card's suit matters only to runs of its suit (as a natural card, a wild 2 as
        itself, a natural card in a run joker's place); sets take any suit, and a wild card goes
        anywhere whatever its suit. So the cards of one rank and wildness whose suits have no run
        on the table play alike: each is an out exactly when the others are, and drawing any of
        them leaves the same count of unseen outs (the drawn copy is one of them or not, alike).
        Any other card is its own key."""
        if card.suit in self._run_suits:
            return card
        if self._inert(card):
            return "inert", self.rules.points_of(card)
        return "sets only", card.rank, self.rules.is_wild(card), self.rules.points_of(card)

    def _inert(self, card: Card) -> bool:
        """A natural card with no run of its suit and no set of its rank on the table: no move
        this turn can take it (a lay-off or a joker's place needs such a meld, and moves make no
        new meld)."""
        return (card.suit not in self._run_suits and not self.rules.is_wild(card)
                and not any(meld.stands_for[0].rank == card.rank for seat in self.melds for meld in seat
                            if meld.kind is not MeldKind.RUN))

    def _fits(self, probe: Turn, card: Card) -> bool:
        """Whether ``card`` has a legal first move on the table of ``probe``."""
        probe.hand = Counter([card])
        return any(self.played(probe, move) is not None for move in self.moves(probe))

    # -- the discard table -----------------------------------------------------------------------

    def _distinct(self, ends: Iterable[_End]) -> list[_End]:
        """The first end of each kept hand and table alike (the outs depend on nothing else)."""
        found: dict[tuple[Any, ...], _End] = {}
        for end in ends:
            found.setdefault((end.kept, self.alike_table(end.turn.melds)), end)
        return list(found.values())

    def rows(self, hand: Sequence[Card], best_only: bool = False) -> tuple[DownRow, ...]:
        """One row per discard (None: no discard), each its best end, best first; with
        ``best_only``, only the rows that may come first (those keeping the fewest cards), for
        their figures: each row's play is one of the plays that reach them."""
        ends = self.ends(hand, alike=best_only)
        if best_only:
            fewest = min(len(end.kept) for end in ends)
            ends = [end for end in ends if len(end.kept) == fewest]
        by_discard: dict[Card | None, list[_End]] = {}
        for end in ends:
            by_discard.setdefault(end.discard, []).append(end)
        chosen = []
        for discard, its_ends in by_discard.items():
            fewest = min(len(end.kept) for end in its_ends)
            tied = [end for end in its_ends if len(end.kept) == fewest]
            best: tuple[Any, ...] | None = None
            for end in self._distinct(tied):
                outs = self.outs(end.kept, end.turn.melds)
                unseen_outs = sum(out.unseen for out in outs)
                figures = (-unseen_outs, end.points)
                if best is None or figures < best[0]:
                    best = (figures, end, outs, unseen_outs)
            assert best is not None
            _, end, outs, unseen_outs = best
            chosen.append((discard, end, outs, unseen_outs))

        def merit(row: tuple[Card | None, _End, tuple[Out, ...], int]) -> tuple[Any, ...]:
            """Going out first; then fewer cards kept, more unseen outs, fewer points kept; then a
            natural discard before a wild one."""
            discard, end, _, unseen_outs = row
            return (bool(end.kept), len(end.kept), -unseen_outs, end.points,
                    discard is not None and self.rules.is_wild(discard))

        chosen.sort(key=lambda row: (merit(row), (-1, -1) if row[0] is None else row[0].sort_key()))
        table: list[DownRow] = []
        for place, row in enumerate(chosen, start=1):
            discard, end, outs, unseen_outs = row
            equal = bool(table) and merit(row) == merit(chosen[place - 2])
            table.append(DownRow(discard, end.moves, tuple(end.turn.made), end.kept, not end.kept, outs, unseen_outs,
                                 end.points, table[-1].rank if equal else place, equal))
        if not table:  # pragma: no cover - a turn can always end with some discard or none
            raise AdviceError("no legal end of this turn was found")
        return tuple(table)

    def face_up(self, hand: Sequence[Card], card: Card, taken: DownRow, settle: bool = False
                ) -> tuple[DrawOption, ...]:
        """Taking ``card`` (the best row after taking it) against drawing from the stock (the
        mean of the best rows over the unseen cards, each copy once), best first: fewer cards
        kept on average (going out keeps none), then more unseen outs, then fewer points; drawing
        when they are equal. With ``settle``, the stock's cards kept first (no outs counted:
        ``fewest_kept``), and its outs and points only where its mean ties the take's."""
        take = DrawOption(FaceUpChoice.TAKE, float(taken.goes_out), float(len(taken.kept)), float(taken.unseen_outs),
                          float(taken.points_kept))
        if settle:
            kept = self._drawn_mean(hand, lambda drawn: (not (fewest := self.fewest_kept(drawn)), fewest),
                                    self._kept_alike(hand))
            if kept is None:  # no card left unseen, or no time
                return (take,)
            (goes_out, cards_kept), weighed, total = kept
            if total[1] != len(taken.kept) * weighed:  # the mean is not the take's: it alone decides
                draw = DrawOption(FaceUpChoice.DRAW, goes_out, cards_kept, None, None)
                return (take, draw) if take.cards_kept < draw.cards_kept else (draw, take)

        def figures(drawn: tuple[Card, ...]) -> tuple[int, ...]:
            row = self.rows(drawn, best_only=True)[0]
            return row.goes_out, len(row.kept), row.unseen_outs, row.points_kept

        mean = self._drawn_mean(hand, figures)
        if mean is None:
            return (take,)
        draw = DrawOption(FaceUpChoice.DRAW, *mean[0])

        def merit(option: DrawOption) -> tuple[float, ...]:
            assert option.unseen_outs is not None and option.points_kept is not None
            return (option.cards_kept, -option.unseen_outs, option.points_kept, option.choice is FaceUpChoice.TAKE)

        return tuple(sorted((take, draw), key=merit))

    def _drawn_mean(self, hand: Sequence[Card], figures: Callable[[tuple[Card, ...]], tuple[int, ...]],
                    drawn_alike: Callable[[Card], Hashable] | None = None
                    ) -> tuple[tuple[float, ...], int, tuple[int, ...]] | None:
        """The mean of ``figures`` of ``hand`` with a card drawn, over the unseen cards (each
        copy once; the cards alike by ``drawn_alike``, by default ``_drawn_alike``, worked out
        once), the copies weighed and the sums; None where no card is weighed (none unseen, or
        no time)."""
        drawn_alike = drawn_alike or self._drawn_alike
        sums: list[int] = []
        alike: dict[Hashable, tuple[int, ...]] = {}  # the figures after drawing a card, by ``_drawn_alike``
        weighed = 0
        for drawn, count in [(drawn, count) for drawn, count in self.unseen.items() if count > 0]:
            if self.deadline.expired:  # the mean of the cards weighed so far, said incomplete
                self.truncated = True
                break
            weighed += count
            key = drawn_alike(drawn)
            found = alike.get(key)
            if found is None:
                self.unseen[drawn] -= 1  # the drawn copy is no longer unseen
                found = alike[key] = tuple(figures((*hand, drawn)))
                self.unseen[drawn] += 1
            sums = [a + count * b for a, b in zip(sums, found)] if sums else [count * b for b in found]
        if not weighed:
            return None
        return tuple(value / weighed for value in sums), weighed, tuple(sums)

    def _kept_alike(self, hand: Sequence[Card]) -> Callable[[Card], Hashable]:
        """A key shared by the cards whose draw leaves as few cards kept (``fewest_kept``):
        beyond ``_drawn_alike``, every card with no move worth trying on any table the moves of
        ``hand`` reach (``_placeable``). Such a card never moves once drawn (the other cards'
        moves never depend on it), so the ends after drawing it are the hand's positions holding
        it besides, each with a discard of it or of another card: as many cards kept, whichever
        card it is (its points and outs aside, which this count leaves out). Where that search
        stopped short of every position, ``_drawn_alike`` alone."""
        truncated, self.truncated = self.truncated, False
        placeable, _ = self._placeable(hand, self.melds)
        cut, self.truncated = self.truncated, truncated or self.truncated
        if cut:
            return self._drawn_alike
        return lambda card: "never moves" if card not in placeable else self._drawn_alike(card)

    def fewest_kept(self, hand: Sequence[Card]) -> int:
        """The cards the best row of ``hand`` keeps (``rows``' first), without counting outs: the
        fewest any end of the turn keeps. The positions are searched depth first, one of each
        set alike (``_positions``), their ends asked only where a discard could keep fewer than
        found so far (a discard lets one card go), and the search stops at the least any end
        can keep: the inert cards (``_inert``: they never move) less one discard."""
        least = max(0, sum(map(self._inert, hand)) - 1)
        fewest = None
        for turn in self._positions(self.turn(hand)):
            if fewest is not None and turn.hand.total() - 1 >= fewest:
                continue
            for end in self._ends_at(turn, ()):
                fewest = len(end.kept) if fewest is None else min(fewest, len(end.kept))
            if fewest == least:
                break
        assert fewest is not None  # a turn can always end with some discard or none
        return fewest


def _next_to(rank: int) -> tuple[int, ...]:
    """The ranks next to ``rank`` in a run, the ace (1) next to both the two and the king."""
    return tuple(1 + (rank - 1 + step) % 13 for step in (-1, 1))


@functools.lru_cache(maxsize=MELDS_KEPT)
def _meld_tries(meld: PlacedMeld, rules: Rules) -> tuple[Mapping[Card, tuple[End | None, ...]], frozenset[Card]]:
    """For ``meld``: the cards ``grown`` lets it take, with the ends (None: a set's), and the
    natural cards worth trying in a joker's place (what a run's jokers stand for, any card of a
    set's rank). A pure function of the meld and the rules, worked out once a process for the
    last ``MELDS_KEPT`` melds asked (the same melds lie on the table turn after turn)."""
    ends = (End.HIGH, End.LOW) if meld.kind is MeldKind.RUN else (None,)
    lay_offs = {card: fits for card in ALL_CARD_KINDS
                if (fits := tuple(end for end in ends if isinstance(grown(meld, card, rules, end), PlacedMeld)))}
    jokers = [meaning for held, meaning in zip(meld.cards, meld.stands_for) if held.is_joker]
    if meld.kind is not MeldKind.RUN and jokers:
        jokers = [card for card in ALL_CARD_KINDS if card.rank == meld.stands_for[0].rank]
    return MappingProxyType(lay_offs), frozenset(card for card in jokers if not rules.is_wild(card))


def _key(turn: Turn) -> Key:
    return tuple(turn.held()), tuple(tuple(melds) for melds in turn.melds), turn.jokers_owed



__all__ = [
    "DownAdvice",
    "DownRow",
    "DrawOption",
    "FaceUp",
    "FaceUpChoice",
    "advise_down",
    "move_text",
    "read_meld",
    "read_melds",
    "read_table",
]
