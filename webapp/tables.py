"""A round against the computer, kept as its game record (docs/records.md): the record IS the
state. A game is rebuilt on every request by dealing the seed again and playing the record's
events through the table (``analyzer.Table``, every move checked by the engine); the computer
players think only past the record's end. The person's seat pauses the table at each of its
decisions (``Pause``); their answer is given to a fresh rebuild, which plays on, the computer's
turns included, up to their next decision or the round's end, and the new record is stored.

A turn after the draw is several steps on the page (lay down, lay off, take a joker back,
discard): the steps made so far (``pending``) are checked move by move on a ``Turn`` and kept
beside the record until the turn ends; only a whole turn enters the table.

Replaying costs the engine's checks only (no solver for the recorded turns): a few ms for a
round of sixty events (measured: 16 ms, progressive round 1, 3 players)."""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analyzer import (
    Card,
    CardError,
    End,
    LayOff,
    MeldKind,
    PlacedMeld,
    Play,
    Recorder,
    Rules,
    SeatView,
    Substitution,
    Table,
    TableError,
    Turn,
    card_of,
    deterministic_work,
    game_record,
    load_rules,
)
from arena.duplicate import WORK, deal_seed
from arena.policies import PolicyName, Round, Sight, make_policy
from puzzles.answers import row_readings

STRENGTHS = ("greedy", "simulated", "advised")
HUMAN_NAME = "you"


class MoveError(ValueError):
    """A move the page may not make now: the engine's message, or why it is no move."""


@dataclass(frozen=True)
class Pause(Exception):
    """The table waits for the person: ``kind`` "take" (take the face-up card or draw), "buy"
    (buy another's declined discard or pass) or "play" (after the draw)."""

    kind: str
    card: Card | None = None


@dataclass(frozen=True)
class _Stop(Exception):
    """A computer player is to decide and the game may not think (``think=False``): the table
    stops here, at ``seat``'s decision: "take" or "buy" ``card``, or "play"."""

    seat: int
    kind: str = "play"
    card: Card | None = None


@dataclass(frozen=True)
class Setup:
    rules: str
    round: int
    players: int
    seat: int
    strength: str
    seed: int


class _Seat:
    """A seat's policy on the rebuilt table: the record's choice while the record lasts, then
    the computer's (a live policy) or the person's (``answer``, else ``Pause``)."""

    def __init__(self, game: Game, seat: int) -> None:
        self.game, self.seat = game, seat

    def _recorded(self) -> Mapping[str, Any] | None:
        index = len(self.game.table.events)
        events = self.game.stored
        return events[index] if index < len(events) else None

    def _live(self) -> bool:
        return len(self.game.table.events) >= len(self.game.stored)

    def wants_discard(self, seat: SeatView, card: Card) -> bool:
        return self._yes_no("take", seat, card)

    def wants_to_buy_at(self, seat: SeatView, card: Card) -> bool:
        return self._yes_no("buy", seat, card)

    def _yes_no(self, kind: str, view: SeatView, card: Card) -> bool:
        if not self._live():
            upcoming = self._recorded()
            return upcoming is not None and upcoming.get("event") == kind and upcoming.get("seat") == self.seat
        if self.seat != self.game.setup.seat:
            self.game.may_think(self.seat, kind, card)
            policy = self.game.policy()
            decide = policy.wants_discard if kind == "take" else policy.wants_to_buy_at
            return bool(decide(self.game.sight(view), card))
        answer = self.game.take_answer(kind)
        if answer is None:
            raise Pause(kind, card)
        return bool(answer)

    def choose_play_after_draw(self, seat: SeatView) -> Play:
        if not self._live():
            return _recorded_play(self.game.stored, len(self.game.table.events), self.seat)
        if self.seat != self.game.setup.seat:
            self.game.may_think(self.seat)
            play = self.game.policy().choose_play_after_draw(self.game.sight(seat))
            assert isinstance(play, Play)
            return play
        answer = self.game.take_answer("play")
        if answer is None:
            raise Pause("play")
        assert isinstance(answer, Play)
        return answer


def _cards(ids: Sequence[str]) -> tuple[Card, ...]:
    return tuple(card_of(i) for i in ids)


def _recorded_play(events: Sequence[Mapping[str, Any]], index: int, seat: int) -> Play:
    """The play after the draw the record holds from ``events[index]``."""
    lay_down: tuple[PlacedMeld, ...] = ()
    moves: list[LayOff | Substitution] = []
    discard = None
    while index < len(events) and events[index].get("seat") == seat and discard is None:
        event = events[index]
        name = event.get("event")
        if name == "lay_down":
            lay_down = tuple(PlacedMeld(MeldKind(m["kind"]), _cards(m["cards"]),
                                        tuple(Card.parse(t) for t in m["as"])) for m in event["melds"])
        elif name == "lay_off":
            end = event.get("end")
            moves.append(LayOff(card_of(event["card"]), event["meld"]["seat"], event["meld"]["index"],
                                None if end is None else End(end)))
        elif name == "substitute":
            moves.append(Substitution(card_of(event["card"]), event["meld"]["seat"], event["meld"]["index"]))
        elif name == "discard":
            discard = card_of(event["card"])
        else:
            break
        index += 1
    return Play(lay_down, (), discard, tuple(moves))


class Game:
    """One round rebuilt from its record (``stored``: the round's events so far)."""

    def __init__(self, setup: Setup, stored: Sequence[Mapping[str, Any]], answer: tuple[str, Any] | None = None,
                 *, turns: int | None = None, think: bool = True):
        """``turns``: how many of the computer's turns to play past the record (the turn the
        answer belongs to finished first); None plays on to the person's next decision or the
        round's end. ``think`` False: no computer decision past the answer at all (the decisions
        that lead to the person's pending decision are asked again, as they are not events), the
        table stopping at the first, mid-turn if need be (``stopped_mid_turn``). Stopped, the game
        has no ``pause``: ``thinking`` names the seat to play or decide next."""
        self.setup = setup
        self._turns, self._think = turns, think
        self._stopped: _Stop | None = None
        self.rules: Rules = load_rules(setup.rules)
        self.stored = list(stored)
        self._answer = answer
        self._policy: Any = None
        self.pause: Pause | None = None
        seats = [_Seat(self, seat) for seat in range(setup.players)]
        self.table = Table.deal(self.rules, setup.round, setup.players, setup.seed, seats)
        self.recorder = Recorder(self.table, seed=setup.seed)
        self._run()

    def policy(self) -> Any:
        """The computer players' policy (one shared by their seats, as the arena's opponents)."""
        if self._policy is None:
            at = Round(self.rules, self.setup.round, self.setup.players)
            self._policy = make_policy(PolicyName.named(self.setup.strength), at, f"play/{self.setup.seed}")
        return self._policy

    def sight(self, view: SeatView) -> Sight:
        return Sight.at(view, self.table)

    def may_think(self, seat: int, kind: str = "play", card: Card | None = None) -> None:
        """Before a computer player's live decision: stop the table there if the game may not think."""
        if not self._think and self._answer is None:
            raise _Stop(seat, kind, card)

    def take_answer(self, kind: str) -> Any:
        if self._answer is None:
            return None
        wanted, value = self._answer
        if wanted != kind:
            raise MoveError(f"that is not the decision the table waits for (it asks you to {_ASKS[kind]})")
        self._answer = None
        return value

    def _run(self) -> None:
        table = self.table
        played = 0  # the computer's turns begun past the record
        # The computer thinks as in the arena: every solve bounded by deterministic work (and its
        # seconds), so the same deal and the same moves give the same game on any machine.
        # (Caught inside the bound: a frozen exception cannot pass a context manager's exit.)
        with deterministic_work(WORK):
            try:
                while not table.finished and not self._stops(played):
                    live = self._live()
                    table.play_turn()
                    played += live
            except Pause as pause:
                self.pause = pause
            except _Stop as stop:
                self._stopped = stop
            except TableError as error:
                raise MoveError(str(error)) from None
        if self._answer is not None:
            raise MoveError("the table is not waiting for that decision")
        events = self.recorder.round_record()["events"]
        if events[:len(self.stored)] != self.stored[:len(events)]:  # the record must replay as stored
            raise RuntimeError("the stored game does not replay: its record was changed")

    def _live(self) -> bool:
        """Past the record, the answer given: the next turn is the computer's thinking (or the
        person's next decision)."""
        return len(self.table.events) >= len(self.stored) and self._answer is None

    def _stops(self, played: int) -> bool:
        """Whether to stop before the next turn: the computer's turns allowed are played and
        the next is a computer's."""
        return (self._turns is not None and played >= self._turns and self._live()
                and self.table.current != self.setup.seat)

    @property
    def thinking(self) -> int | None:
        """The computer's seat to play or decide next when the game stopped before its turn or
        its decision, else None."""
        if self._stopped is not None:
            return self._stopped.seat
        if self.finished or self.pause is not None:
            return None
        return self.table.current

    @property
    def thinking_about(self) -> tuple[str, Card] | None:
        """What the computer player stopped at decides, if a card: ("take" or "buy", the card)."""
        stop = self._stopped
        return None if stop is None or stop.card is None else (stop.kind, stop.card)

    @property
    def stopped_mid_turn(self) -> bool:
        """Whether the table stopped at a computer's decision inside a turn (``think`` False)."""
        return self._stopped is not None

    @property
    def finished(self) -> bool:
        return self.table.finished

    def round_record(self) -> dict[str, Any]:
        return self.recorder.round_record()

    def record(self, earlier: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
        """The game record: the ``earlier`` rounds (a whole game's rounds over, each its
        ``round_record``), then this one."""
        return game_record(self.rules, self.names(), [*earlier, self.round_record()])

    def names(self) -> list[str]:
        """The players as the record names them, by seat."""
        return [HUMAN_NAME if seat == self.setup.seat else f"computer ({self.setup.strength})"
                for seat in range(self.setup.players)]

    def hand(self) -> list[Card]:
        return sorted(self.table.hands[self.setup.seat], key=Card.sort_key)

    def turn(self, pending: Sequence[Mapping[str, Any]]) -> Turn:
        """The person's turn after the draw with the steps made so far applied."""
        if self.pause is None or self.pause.kind != "play":
            raise MoveError("it is not your turn to play: " + self.waiting())
        seat = self.setup.seat
        turn = Turn(self.rules, self.setup.round, seat, self.table.hands[seat], self.table.melds)
        for step in pending:
            apply_step(turn, self.rules, step)
        return turn

    def waiting(self) -> str:
        if self.finished:
            return "the round is over"
        if self.pause is None:
            return "the computer is playing"
        return f"the table asks you to {_ASKS[self.pause.kind]}"


_ASKS = {"take": "take the face-up card or draw", "buy": "buy the discard or pass",
         "play": "play your turn (lay down, lay off, discard)"}


@dataclass(frozen=True)
class Played:
    """What playing on made of a game (``play_on``): plain values, as a worker process sends them."""

    events: list[dict[str, Any]]  # the round's record, as stored
    finished: bool
    thinking: bool  # stopped before more of the computer's thinking (``Game.thinking``)
    stopped_mid_turn: bool


def play_on(setup: Setup, stored: Sequence[Mapping[str, Any]], answer: tuple[str, Any] | None,
            turns: int | None, think: bool) -> Played:
    """The game rebuilt and played on as ``Game`` does with these arguments; what it made."""
    game = Game(setup, stored, answer, turns=turns, think=think)
    return Played(game.round_record()["events"], game.finished, game.thinking is not None, game.stopped_mid_turn)


# ---- the person's steps ---------------------------------------------------------------------------


def parse_card(text: Any) -> Card:
    if not isinstance(text, str) or not text.strip():
        raise MoveError("choose a card")
    try:
        return Card.parse(text.strip())
    except CardError as error:
        raise MoveError(str(error)) from None


def lay_down_melds(turn: Turn, rules: Rules, rows: Sequence[Sequence[Card]]) -> tuple[PlacedMeld, ...]:
    """The contract's melds from the rows of cards the person chose, each wild card read as the
    first reading the engine accepts (``puzzles.answers.row_readings``)."""
    contract = rules.round(turn.round_number).contract
    if len(rows) != len(contract) or any(not row for row in rows):
        raise MoveError(f"put cards in each of the contract's {len(contract)} meld rows")
    kinds = list(dict.fromkeys(spec.kind for spec in contract))
    readings = [row_readings([(card, None) for card in row], spec.kind, kinds, rules)
                for row, spec in zip(rows, contract, strict=True)]
    first: TableError | None = None
    for melds in itertools.islice(itertools.product(*readings), 512):
        trial = copy.deepcopy(turn)
        try:
            trial.lay_down(melds)
        except TableError as error:
            first = first or error
            continue
        return tuple(melds)
    raise MoveError(str(first) if first else "those rows are not the contract")


def apply_step(turn: Turn, rules: Rules, step: Mapping[str, Any]) -> None:
    """One step of the person's turn on ``turn`` (``TableError`` from the engine)."""
    kind = step.get("move")
    if kind == "lay_down":
        turn.lay_down(tuple(PlacedMeld(MeldKind(m["kind"]), tuple(map(Card.parse, m["cards"])),
                                       tuple(map(Card.parse, m["as"]))) for m in step["melds"]))
    elif kind == "lay_off":
        turn.lay_off(LayOff(Card.parse(step["card"]), step["seat"], step["meld"]))
    elif kind == "substitute":
        turn.substitute(Substitution(Card.parse(step["card"]), step["seat"], step["meld"]))
    elif kind == "discard":
        turn.discard(Card.parse(step["card"]))
    else:
        raise MoveError(f"no such move {kind!r}")


def step_of_melds(melds: Sequence[PlacedMeld]) -> dict[str, Any]:
    return {"move": "lay_down", "melds": [{"kind": m.kind.value, "cards": [c.token for c in m.cards],
                                           "as": [c.token for c in m.stands_for]} for m in melds]}


def play_of(steps: Sequence[Mapping[str, Any]]) -> Play:
    """The whole turn's ``Play`` from its steps."""
    lay_down: tuple[PlacedMeld, ...] = ()
    moves: list[LayOff | Substitution] = []
    discard = None
    for step in steps:
        kind = step["move"]
        if kind == "lay_down":
            lay_down = tuple(PlacedMeld(MeldKind(m["kind"]), tuple(map(Card.parse, m["cards"])),
                                        tuple(map(Card.parse, m["as"]))) for m in step["melds"])
        elif kind == "lay_off":
            moves.append(LayOff(Card.parse(step["card"]), step["seat"], step["meld"]))
        elif kind == "substitute":
            moves.append(Substitution(Card.parse(step["card"]), step["seat"], step["meld"]))
        elif kind == "discard":
            discard = Card.parse(step["card"])
    return Play(lay_down, (), discard, tuple(moves))


def turn_can_end(turn: Turn) -> bool:
    """Whether the turn may end now as it stands (the discard made, or going out without one)."""
    trial = copy.deepcopy(turn)
    try:
        trial.finish()
    except TableError:
        return False
    return True


def round_seed(rules: str, number: int, seed: int) -> int:
    """The deal of a whole game's round: the arena's (``arena.duplicate.deal_seed``), so a whole
    game of seed S deals the rounds ``rummy-arena --game --seeds S`` deals."""
    return deal_seed(load_rules(rules).name, number, seed)


def points_of(events: Sequence[Mapping[str, Any]]) -> list[int] | None:
    """Each seat's points of a round's events, once it is scored (the last event)."""
    if events and events[-1].get("event") == "score":
        return list(events[-1]["points"])
    return None


def random_seed() -> int:
    return random.SystemRandom().randrange(1, 2**31)
