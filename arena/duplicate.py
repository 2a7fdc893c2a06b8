"""Duplicate play: one seed deals one round once, and the challenger plays that deal from every
seat in turn against copies of the opponent policy, so the luck of the deal cancels.

``play_seed(match, round_number, seed)`` is a pure function: the deal, every policy's choices and
every solve (bounded by CP-SAT's deterministic work) follow from its arguments, so a seed gives the
same tables on any machine, in any process, in any order.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from analyzer import (
    Card,
    EventKind,
    Play,
    Recorder,
    SeatView,
    Table,
    deterministic_work,
    game_record,
    load_rules,
)
from arena.policies import ArenaPolicy, PolicyName, Round, Sight, make_policy

# Deterministic work per solve of the advice (analyzer/solver/work.py; a unit is 2-4 s of one core
# here, real hands take thousandths): the answers are the same on any machine, however loaded.
WORK = 5.0
STREAM = "arena-1"  # the name of the deals' random stream: a new name deals new tables
Dealt = tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...], tuple[Card, ...]]  # hands, stock, discards
PolicyMaker = Callable[[PolicyName, Round, str], ArenaPolicy]  # as ``make_policy``


@dataclass(frozen=True)
class Match:
    """Who plays what: the rule set (a preset's name or a .toml file), players at the table, the
    challenger and the opponents' policy."""

    rules: str
    players: int
    challenger: PolicyName
    opponents: PolicyName


@dataclass(frozen=True)
class TableResult:
    """One table of a seed: the challenger in ``seat``, the others the opponent policy."""

    seat: int
    points: tuple[int, ...]  # penalty points per seat when the round ends (0: went out)
    winner: int | None  # the seat that went out (None: the round stopped unfinished)
    turns: int  # table turns played
    buys: tuple[int, ...]  # per seat
    decisions: int  # the challenger's (offers to take or buy, plays after the draw)
    seconds: float  # the challenger's thinking time, wall clock (not part of the JSON: machines differ)
    record: dict[str, Any] | None = None  # the game record of the table (``analyzer.records``), when asked

    @property
    def challenger_points(self) -> int:
        return self.points[self.seat]

    @property
    def opponent_points(self) -> float:
        """The mean of the other seats' points."""
        others = [p for s, p in enumerate(self.points) if s != self.seat]
        return sum(others) / len(others)

    @property
    def relative_points(self) -> float:
        return self.relative_sum / (len(self.points) - 1)

    @property
    def relative_sum(self) -> int:
        """``relative_points`` times the number of opponents: a whole number, summed exactly."""
        return (len(self.points) - 1) * self.challenger_points - (sum(self.points) - self.challenger_points)

    @property
    def went_out_first(self) -> bool:
        return self.winner == self.seat


@dataclass(frozen=True)
class SeedResult:
    """The tables of one seed's deal, the challenger in seats 0, 1, ... in turn."""

    round_number: int
    seed: int
    tables: tuple[TableResult, ...]

    @property
    def relative_points(self) -> float:
        """The challenger's mean points less the opponents' mean points, over its seats (one
        division of whole numbers: the same policy in every seat gives exactly 0)."""
        return sum(t.relative_sum for t in self.tables) / (len(self.tables) * (len(self.tables[0].points) - 1))


def deal_seed(rules_name: str, round_number: int, seed: int) -> int:
    """The shuffle of ``seed``'s deal for the round: one per rule set, round and seed."""
    return random.Random(f"{STREAM}/{rules_name}/{round_number}/{seed}").randrange(2**63)


def play_seed(match: Match, round_number: int, seed: int, deals: list[Dealt] | None = None,
              record: bool = False, make_challenger: PolicyMaker = make_policy) -> SeedResult:
    """The seed's deal played once with the challenger in each seat (``deals``, ``make_challenger``:
    see ``play_table``; ``record``: each table's game record kept in its result)."""
    with deterministic_work(WORK):
        rules = load_rules(match.rules)
        at = Round(rules, round_number, match.players)
        shuffle = deal_seed(rules.name, round_number, seed)
        tables = tuple(play_table(match, at, shuffle, seat, f"{rules.name}/{round_number}/{seed}/{seat}",
                                  deals, record, make_challenger)
                       for seat in range(match.players))
    return SeedResult(round_number, seed, tables)


def play_table(match: Match, at: Round, shuffle: int, challenger_seat: int, name: str,
               deals: list[Dealt] | None = None, record: bool = False,
               make_challenger: PolicyMaker = make_policy) -> TableResult:
    """One table of the deal ``shuffle``: the challenger in ``challenger_seat``, one opponent
    policy shared by the other seats (as a table of ``SimulatedPlayer``s shares one). ``deals``,
    when given, receives the cards as dealt (tests compare the tables of a seed); with
    ``record``, the result holds the table's game record (the players named by their policies).
    ``make_challenger`` builds the challenger's player (``benchmarks.arena_pairs`` swaps one kind
    of its decisions for the opponents' there)."""
    challenger = make_challenger(match.challenger, at, f"{name}/challenger")
    opponent = make_policy(match.opponents, at, f"{name}/opponents")
    seats = [Seat(challenger if seat == challenger_seat else opponent, seat) for seat in range(at.players)]
    table = Table.deal(at.rules, at.number, at.players, shuffle, seats)
    for seat in seats:
        seat.table = table
    if deals is not None:
        deals.append((tuple(map(tuple, table.hands)), tuple(table.stock), tuple(table.discards)))
    recorder = Recorder(table, seed=shuffle) if record else None
    outcome = table.play()
    buys = [0] * at.players
    for event in table.events:
        if event.kind is EventKind.BUY:
            buys[event.seat] += 1
    mine = seats[challenger_seat]
    written = None
    if recorder is not None:
        names = [str(match.challenger if seat == challenger_seat else match.opponents) for seat in range(at.players)]
        written = game_record(at.rules, names, [recorder.round_record()])
    return TableResult(challenger_seat, outcome.penalty_points, outcome.winner, table.turn, tuple(buys),
                       mine.decisions, mine.seconds, written)


class Seat:
    """A seat at the table: the table's ``Policy``, which shows its player a ``Sight`` (the seat's
    view and what lies open on the table) and nothing else of the table, and counts its
    decisions and their time."""

    def __init__(self, player: ArenaPolicy, seat: int) -> None:
        self.player, self.seat = player, seat
        self.table: Table | None = None
        self.decisions = 0
        self.seconds = 0.0

    def sight(self, view: SeatView) -> Sight:
        table = self.table
        assert table is not None and view.seat == self.seat
        return Sight.at(view, table)

    def wants_discard(self, seat: SeatView, card: Card) -> bool:
        return bool(self._timed(self.player.wants_discard, self.sight(seat), card))

    def wants_to_buy_at(self, seat: SeatView, card: Card) -> bool:
        return bool(self._timed(self.player.wants_to_buy_at, self.sight(seat), card))

    def choose_play_after_draw(self, seat: SeatView) -> Play:
        play = self._timed(self.player.choose_play_after_draw, self.sight(seat))
        assert isinstance(play, Play)
        return play

    def _timed(self, decide: Any, *args: Any) -> Any:
        start = time.perf_counter()
        try:
            return decide(*args)
        finally:
            self.decisions += 1
            self.seconds += time.perf_counter() - start
