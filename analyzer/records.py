"""Game records: rounds at the table written as JSON that replay exactly (docs/records.md).

A record holds the rule set, the players by seat and, for each round, every card with its own id
(``7H#2``: the second 7♥ of the decks) as dealt, then every event in order: draws, takes, buys
with their penalty cards, lay-downs with what each wild card stands for, lay-offs on their target
meld, jokers taken back, discards, reshuffles, going out and the round's scores. ``replay`` plays
the record again through the table (``analyzer.simulate.Table``, every move checked by
``analyzer.moves``): a record is valid only if that reproduces every event, every hand and the
scores; otherwise ``RecordError`` names the first bad event, its index and what is wrong.

    >>> from analyzer.rules import preset
    >>> table = Table.deal(preset("progressive"), 1, players=3, seed=1)
    >>> recorder = Recorder(table, seed=1)
    >>> outcome = table.play()
    >>> record = game_record(table.rules, ["ann", "bob", "cy"], [recorder.round_record()])
    >>> replay(record).rounds[0].outcome == outcome
    True
    >>> record["rounds"][0]["events"][1]["card"] = "KS#9"
    >>> replay(record)
    Traceback (most recent call last):
    ...
    analyzer.records.RecordError: rounds[0].events[1] (player 1 draws K♠ KS#9): the stock's top card is AC#1, not 'KS#9'
"""

from __future__ import annotations

import copy
import enum
import functools
import json
import os
import random
import re
from collections import Counter
from collections.abc import Mapping, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any

from analyzer.cards import Card, CardError
from analyzer.files import open_regular_file
from analyzer.hand import deck_copies
from analyzer.moves import End, LayOff, Substitution, TableError, Turn, player
from analyzer.result import PlacedMeld
from analyzer.rules import MeldKind, Rules, RulesError, load_rules, preset, rules_from_dict
from analyzer.simulate import (
    MAX_TURNS_EACH,
    Event,
    EventKind,
    Outcome,
    Play,
    Position,
    SeatView,
    Table,
    deck_cards,
)

FORMAT = "contract-rummy-game"
VERSION = 1
MAX_RECORD_BYTES = 16 * 2**20  # a round of hundreds of turns is a few hundred KiB
CardId = str  # "7H#2": the card's token, then which copy of it in the decks, from 1

# The record's name of each event, snake_case as JSON keys are.
EVENT_NAMES = {kind: kind.name.lower() for kind in EventKind}
SCORE = "score"  # the last event of a round: its points and the hands as they end
_TURN_MOVES = ("lay_down", "lay_off", "substitute", "discard")  # what a player does after its draw


class RecordError(ValueError):
    """A record that is not one, or does not replay: the message names the first bad event
    (``rounds[0].events[17]``) or field, and what is wrong with it."""


# ---- card ids ------------------------------------------------------------------------------------

_ID = re.compile(r"(?P<token>[0-9AJQK]{1,2}[CDHS]|JK)#(?P<copy>[1-9][0-9]{0,2})")


def card_id(card: Card, copy_number: int) -> CardId:
    return f"{card.token}#{copy_number}"


def card_of(ident: Any) -> Card:
    """The card an id names: ``7H#2`` is a 7♥. ``ValueError`` for anything else."""
    if isinstance(ident, str):
        return _card_of_id(ident)
    raise ValueError(f"{_shown(ident)} is no card id (a card id is its token and copy, as 7H#2 or JK#1)")


@functools.lru_cache(maxsize=4096)  # a deck's ids are few; a replay reads them thousands of times
def _card_of_id(ident: str) -> Card:
    match = _ID.fullmatch(ident)
    if match is None:
        raise ValueError(f"{_shown(ident)} is no card id (a card id is its token and copy, as 7H#2 or JK#1)")
    try:
        card = Card.parse(match["token"])
    except CardError:
        raise ValueError(f"{ident!r} is no card id: {match['token']!r} is no card") from None
    if card.token != match["token"]:
        raise ValueError(f"{ident!r} is no card id: the card is written {card.token}")
    return card


def _copy_number(ident: CardId) -> int:
    return int(ident.partition("#")[2])


def _id_order(ident: CardId) -> tuple[tuple[int, int], int]:
    return card_of(ident).sort_key(), _copy_number(ident)


def deck_ids(cards: Sequence[Card]) -> list[CardId]:
    """Ids for cards in this order: each kind's copies numbered from 1 as they come."""
    seen: Counter[Card] = Counter()
    ids = []
    for card in cards:
        seen[card] += 1
        ids.append(card_id(card, seen[card]))
    return ids


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ---- where every card is -------------------------------------------------------------------------


@dataclass
class _Cards:
    """Where each card is, by id, as the table holds the cards themselves."""

    hands: list[list[CardId]]
    stock: list[CardId]  # the top card last, as the table's stock
    discards: list[CardId]  # the face-up card last
    melds: list[list[list[CardId]]]  # per seat, its melds' cards in table order

    def where(self, ident: CardId) -> str:
        for seat, hand in enumerate(self.hands):
            if ident in hand:
                return f"{player(seat)}'s hand"
        if ident in self.stock:
            return "the stock"
        if ident in self.discards:
            return "the discard pile"
        for seat, melds in enumerate(self.melds):
            for index, meld in enumerate(melds):
                if ident in meld:
                    return f"meld {index + 1} of {player(seat)}"
        return "nowhere"

    def take_from_hand(self, seat: int, card: Card, wanted: Any) -> CardId:
        """Take ``card`` from the seat's hand: the copy ``wanted`` names (a replay), else the
        lowest-numbered copy held (a recording)."""
        hand = self.hands[seat]
        if wanted is None:
            ident = min((i for i in hand if card_of(i) == card), key=_copy_number)
        else:
            if card_of(wanted) != card:
                raise _Problem(f"{wanted} is no {card.face}")
            if wanted not in hand:
                raise _Problem(f"{player(seat)} does not hold {wanted}: it is in {self.where(wanted)}")
            ident = wanted
        hand.remove(ident)
        return ident


class _Problem(Exception):
    """What is wrong with the event being read (``RecordError`` adds where it is)."""


def _wanted(event: Mapping[str, Any] | None, *path: Any) -> Any:
    """``event[path...]`` of the record's event, or None where it has no such part."""
    value: Any = event
    for key in path:
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            return None
    return value


class _Track:
    """The record's events made from the table's, each card by its id: the cards' places kept
    up to date, the ids of copies chosen as the record says (a replay) or lowest first."""

    def __init__(self, cards: _Cards) -> None:
        self.cards = cards

    def event(self, table: Table, event: Event, wanted: Mapping[str, Any] | None = None) -> dict[str, Any]:
        cards = self.cards
        kind, seat = event.kind, event.seat
        written: dict[str, Any] = {"event": EVENT_NAMES[kind], "seat": seat}
        if kind is EventKind.TAKE:
            written["card"] = cards.discards.pop()
            cards.hands[seat].append(written["card"])
        elif kind is EventKind.DRAW:
            written["card"] = cards.stock.pop()
            cards.hands[seat].append(written["card"])
        elif kind is EventKind.BUY:
            written["card"] = cards.discards.pop()
            written["penalty"] = [cards.stock.pop() for _ in event.cards[1:]]
            cards.hands[seat] += [written["card"], *written["penalty"]]
        elif kind is EventKind.RESHUFFLE:
            del written["seat"]
            self._reshuffle(table, written, wanted)
        elif kind is EventKind.LAY_DOWN:
            laid = []
            for m, meld in enumerate(event.melds):
                ids = [cards.take_from_hand(seat, card, _wanted(wanted, "melds", m, "cards", c))
                       for c, card in enumerate(meld.cards)]
                laid.append({"kind": meld.kind.value, "cards": ids, "as": [c.token for c in meld.stands_for]})
            written["melds"] = laid
            cards.melds[seat] = [list(meld["cards"]) for meld in laid]
        elif kind in (EventKind.LAY_OFF, EventKind.SUBSTITUTE):
            self._on_table(event, written, wanted)
        elif kind is EventKind.DISCARD:
            written["card"] = cards.take_from_hand(seat, event.cards[0], _wanted(wanted, "card"))
            cards.discards.append(written["card"])
        return written

    def _reshuffle(self, table: Table, written: dict[str, Any], wanted: Mapping[str, Any] | None) -> None:
        """The discard pile less its top card becomes the stock, in the record's order if it has one."""
        cards = self.cards
        top = cards.discards.pop()
        pile = sorted(cards.discards, key=_id_order)
        order = _wanted(wanted, "stock")
        if isinstance(order, list) and sorted(map(str, order), key=_safe_order) == pile:
            stock = list(order)
        else:
            stock = _ids_in_order(reversed(table.stock), pile)  # top first
        written["stock"] = stock
        cards.stock, cards.discards = stock[::-1], [top]

    def _on_table(self, event: Event, written: dict[str, Any], wanted: Mapping[str, Any] | None) -> None:
        """A lay-off or a substitution: the card's id leaves the hand for a meld on the table."""
        cards, kind, seat = self.cards, event.kind, event.seat
        assert event.meld is not None
        target, index = event.meld
        card = event.cards[0]
        ident = cards.take_from_hand(seat, card, _wanted(wanted, "card"))
        made = event.melds[0]
        before = cards.melds[target][index]
        written["card"] = ident
        written["meld"] = {"seat": target, "index": index}
        if kind is EventKind.LAY_OFF:
            held = tuple(card_of(i) for i in before)
            low = made.kind is MeldKind.RUN and made.cards[1:] == held and made.cards[:-1] != held
            if made.kind is MeldKind.RUN:
                written["end"] = End.LOW.value if low else End.HIGH.value
            written["as"] = (made.stands_for[0] if low else made.stands_for[-1]).token
            cards.melds[target][index] = [ident, *before] if low else [*before, ident]
        else:
            place = next(p for p, (i, c) in enumerate(zip(before, made.cards)) if card_of(i) != c)
            written["joker"] = before[place]
            cards.hands[seat].append(before[place])
            cards.melds[target][index] = [*before[:place], ident, *before[place + 1:]]

    def score(self, outcome: Outcome) -> dict[str, Any]:
        return {"event": SCORE, "points": list(outcome.penalty_points),
                "hands": [sorted(hand, key=_id_order) for hand in self.cards.hands]}


def _safe_order(ident: str) -> tuple[Any, ...]:
    try:
        return _id_order(ident)
    except ValueError:
        return (9, 9), 0, ident


def _ids_in_order(cards: Any, ids: Sequence[CardId]) -> list[CardId]:
    """``ids`` put in the order of ``cards``, each card its lowest-numbered id left."""
    left = list(ids)
    order = []
    for card in cards:
        ident = min((i for i in left if card_of(i) == card), key=_copy_number)
        left.remove(ident)
        order.append(ident)
    return order


# ---- recording -----------------------------------------------------------------------------------


class Recorder:
    """Writes a round as the table plays it, as the record's round (``round_record``). Made
    right after the deal, before the first turn: it numbers the cards as dealt (each hand in
    card order, seat by seat, then the face-up card, then the stock from its top) and watches
    the table (``Table.observers``) from then on."""

    def __init__(self, table: Table, seed: int | None = None) -> None:
        if len(table.events) != 1:
            raise ValueError("a recorder starts at the deal, before the first turn")
        dealt = [card for hand in table.hands for card in hand] + table.discards[::-1] + table.stock[::-1]
        ids = iter(deck_ids(dealt))
        hands = [[next(ids) for _ in hand] for hand in table.hands]
        face_up = [next(ids) for _ in table.discards][::-1]
        stock = [next(ids) for _ in table.stock][::-1]
        self.table, self.seed = table, seed
        self.track = _Track(_Cards(hands, stock, face_up, [[] for _ in hands]))
        self.events: list[dict[str, Any]] = [
            {"event": "deal", "hands": [list(hand) for hand in hands], "face_up": face_up[-1], "stock": stock[::-1]}]
        table.observers.append(self._seen)

    def _seen(self, table: Table, event: Event) -> None:
        self.events.append(self.track.event(table, event))

    def round_record(self) -> dict[str, Any]:
        """The round as the record holds it (its scores once the round is over)."""
        table = self.table
        written: dict[str, Any] = {"round": table.round_number}
        if self.seed is not None:
            written["seed"] = self.seed
        written["max_turns"] = table.max_turns or MAX_TURNS_EACH * table.players
        written["events"] = self.events + ([self.track.score(table.outcome())] if table.finished else [])
        return written


def game_record(rules: Rules, players: Sequence[str], rounds: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A whole record: the rule set (a preset's name, else every field), the players by seat,
    the rounds (``Recorder.round_record``) and each seat's total."""
    totals = [0] * len(players)
    for one in rounds:
        score = one["events"][-1]
        if score.get("event") == SCORE:
            totals = [total + points for total, points in zip(totals, score["points"], strict=True)]
    named = _preset_name(rules)
    return {"format": FORMAT, "version": VERSION, "rules": named if named is not None else rules.to_dict(),
            "players": [{"seat": seat, "name": name} for seat, name in enumerate(players)],
            "rounds": list(rounds), "totals": totals}


def _preset_name(rules: Rules) -> str | None:
    try:
        return rules.name if preset(rules.name) == rules else None
    except RulesError:
        return None


def dumps_record(record: Mapping[str, Any]) -> str:
    """The record as JSON text for people too: a field a line, an event a line."""
    lines = ["{"]
    fields = list(record.items())
    for number, (key, value) in enumerate(fields):
        comma = "," if number < len(fields) - 1 else ""
        if key == "rounds" and isinstance(value, list):
            lines.append('  "rounds": [')
            for r, one in enumerate(value):
                head = {k: v for k, v in one.items() if k != "events"}
                lines.append("    " + json.dumps(head, ensure_ascii=False)[:-1] + ', "events": [')
                events = one.get("events", [])
                lines += [f"      {json.dumps(e, ensure_ascii=False)}{',' if e_ < len(events) - 1 else ''}"
                          for e_, e in enumerate(events)]
                lines.append("    ]}" + ("," if r < len(value) - 1 else ""))
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    return "\n".join([*lines, "}", ""])


def write_record(record: Mapping[str, Any], path: str | os.PathLike[str]) -> None:
    """Write the record to a file (``dumps_record``'s text)."""
    with open(path, "w", encoding="utf-8") as file:
        file.write(dumps_record(record))


# ---- reading ---------------------------------------------------------------------------------------


def read_record(path: str) -> dict[str, Any]:
    """A record file's JSON (not yet replayed); ``RecordError`` when it cannot be read or is no
    JSON object. Only a regular file, opened without waiting (``analyzer.files``)."""
    what = f"game record {path!r}"
    descriptor = open_regular_file(path, what, RecordError, "give a .json file")
    try:
        with os.fdopen(descriptor, "rb") as file:
            raw = file.read(MAX_RECORD_BYTES + 1)
    except OSError as error:
        raise RecordError(f"{what} cannot be read: {error.strerror or error}") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError(f"{what} is larger than {MAX_RECORD_BYTES // 2**20} MiB: is it really a game record?")
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise RecordError(f"{what} is not text (UTF-8): is it really a game record?") from None
    except json.JSONDecodeError as error:
        raise RecordError(f"{what} is not JSON ({error.msg} at line {error.lineno}, column {error.colno})") \
            from None
    except (RecursionError, ValueError):
        raise RecordError(f"{what} is not a game record (nested too deeply, or a number far too large)") from None
    if not isinstance(data, dict):
        raise RecordError(f"{what} is not a game record: it holds a JSON {type(data).__name__}, not an object")
    return data


def record_rules(record: Mapping[str, Any]) -> Rules:
    rules = record.get("rules")
    try:
        if isinstance(rules, str):
            if rules.lower().endswith(".toml"):
                raise RulesError("a record names a preset or holds every field of its rules, never a file")
            return load_rules(rules)
        return rules_from_dict(rules, "rules")
    except RulesError as error:
        raise RecordError(f"rules: {error}") from None


def _check_header(record: Any) -> tuple[Rules, list[str], list[Any]]:
    if not isinstance(record, Mapping):
        raise RecordError(f"a game record is a JSON object, not {_shown(record)}")
    if record.get("format") != FORMAT:
        raise RecordError(f"format: a game record says \"format\": \"{FORMAT}\", not {_shown(record.get('format'))}")
    version = record.get("version")
    if version != VERSION or isinstance(version, bool):
        raise RecordError(f"version: this analyser reads version {VERSION} records, not {_shown(version)}")
    rules = record_rules(record)
    seats = record.get("players")
    if not isinstance(seats, list) or not seats:
        raise RecordError("players: a list of the players, one object a seat")
    names = []
    for seat, entry in enumerate(seats):
        if not isinstance(entry, Mapping) or entry.get("seat") != seat or not isinstance(entry.get("name"), str):
            raise RecordError(f"players[{seat}]: each player is {{\"seat\": {seat}, \"name\": \"...\"}} in seat order")
        names.append(entry["name"])
    rounds = record.get("rounds")
    if not isinstance(rounds, list) or not rounds:
        raise RecordError("rounds: a list of the rounds played, at least one")
    return rules, names, rounds


# ---- replaying -------------------------------------------------------------------------------------


class DecisionKind(enum.StrEnum):
    """The decisions a seat makes, as the table asks them."""

    TAKE_OR_DRAW = "take or draw"  # the face-up card offered to the player in turn
    BUY_OR_PASS = "buy or pass"  # a declined face-up card offered to another player
    PLAY = "play"  # after the draw: lay down or wait, lay off, take jokers back, discard


@dataclass(frozen=True)
class Decision:
    """One decision met in a replay, and what the record says was chosen."""

    kind: DecisionKind
    seat: int
    event: int  # the index of the event that shows the choice (a pass: the event after the offers)
    position: Position  # the seat's view as it decides (PLAY: the hand after the draw)
    offered: Card | None = None  # TAKE_OR_DRAW, BUY_OR_PASS: the face-up card
    chosen: bool = False  # TAKE_OR_DRAW: took it; BUY_OR_PASS: bought it
    play: Play | None = None  # PLAY: the play made
    kept: tuple[Card, ...] = ()  # PLAY: the hand as the turn ends


@dataclass(frozen=True)
class RoundReplay:
    """One round of a record, replayed."""

    number: int
    table: Table  # as the round ends
    outcome: Outcome
    decisions: tuple[Decision, ...]


@dataclass(frozen=True)
class Replayed:
    """A record that replays exactly."""

    rules: Rules
    players: tuple[str, ...]
    rounds: tuple[RoundReplay, ...]


def replay(record: Any) -> Replayed:
    """Play the record again through the table; ``RecordError`` naming the first bad event
    (``rounds[0].events[17] (player 2 discards 7♥ 7H#2): ...``) or field."""
    rules, names, rounds = _check_header(record)
    replayed = []
    totals = [0] * len(names)
    for index, one in enumerate(rounds):
        played = _RoundReplayer(rules, len(names), one, f"rounds[{index}]").run()
        replayed.append(played)
        totals = [total + points for total, points in zip(totals, played.outcome.penalty_points, strict=True)]
    if "totals" in record and record["totals"] != totals:
        raise RecordError(f"totals: the rounds add up to {totals}, not {_shown(record['totals'])}")
    return Replayed(rules, tuple(names), tuple(replayed))


class _Shuffles(random.Random):
    """The table's reshuffles as the record has them: the stock in the record's order."""

    def __init__(self, replayer: _RoundReplayer) -> None:
        super().__init__(0)
        self.replayer = replayer

    def shuffle(self, x: MutableSequence[Any]) -> None:
        assert isinstance(x, list)
        self.replayer.reshuffled(x)


class _Scripted:
    """A seat of the replayed table: it answers what the record says, and notes each decision."""

    def __init__(self, replayer: _RoundReplayer, seat: int) -> None:
        self.replayer, self.seat = replayer, seat

    def wants_discard(self, seat: SeatView, card: Card) -> bool:
        return self.replayer.offered(self.seat, card, DecisionKind.TAKE_OR_DRAW, "take")

    def wants_to_buy_at(self, seat: SeatView, card: Card) -> bool:
        return self.replayer.offered(self.seat, card, DecisionKind.BUY_OR_PASS, "buy")

    def choose_play_after_draw(self, seat: SeatView) -> Play:
        return self.replayer.play(self.seat)


class _RoundReplayer:
    def __init__(self, rules: Rules, players: int, record: Any, where: str) -> None:
        self.rules, self.players, self.where = rules, players, where
        if not isinstance(record, Mapping):
            raise RecordError(f"{where}: a round is an object with its round, events...")
        number = record.get("round")
        if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= len(rules.rounds):
            raise RecordError(f"{where}.round: {rules.name} has rounds 1 to {len(rules.rounds)}, not {_shown(number)}")
        self.number = number
        events = record.get("events")
        if not isinstance(events, list) or not events or not all(isinstance(e, Mapping) for e in events):
            raise RecordError(f"{where}.events: a list of event objects, the deal first")
        self.events: list[Mapping[str, Any]] = events
        max_turns = record.get("max_turns", MAX_TURNS_EACH * players)
        if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
            raise RecordError(f"{where}.max_turns: a whole number of table turns, not {_shown(max_turns)}")
        self.seed = record.get("seed")
        if self.seed is not None and (not isinstance(self.seed, int) or isinstance(self.seed, bool)):
            raise RecordError(f"{where}.seed: a whole number, not {_shown(self.seed)}")
        self.decisions: list[Decision] = []
        self.table = self._deal(max_turns)
        self.synced = 1

    # -- the deal ------------------------------------------------------------------------------

    def _deal(self, max_turns: int) -> Table:
        rules, players, deal = self.rules, self.players, self.events[0]
        try:
            deck = rules.deck_for(players)
        except RulesError as error:
            raise RecordError(f"players: {error}") from None
        at = f"{self.where}.events[0]"
        if deal.get("event") != "deal":
            raise RecordError(f"{at}: the first event is the deal, not {_shown(deal.get('event'))}")
        hands, face_up, stock = self._dealt(deal, at)
        dealt = [*(i for hand in hands for i in hand), face_up, *stock]
        cards = self._cards(dealt, at)
        expected = sorted((card_id(card, n) for card in set(deck_cards(deck))
                           for n in range(1, deck_copies(card, deck) + 1)), key=_id_order)
        counted = Counter(dealt)
        twice = next((i for i in dealt if counted[i] > 1), None)
        if twice is not None:
            raise RecordError(f"{at}: {twice} is dealt twice")
        if len(dealt) != len(expected):
            missing = sorted(set(expected) - set(dealt), key=_id_order)
            raise RecordError(f"{at}: the deal holds {len(dealt)} cards, the deck for {players} players "
                              f"{len(expected)}" + (f" ({missing[0]} is missing)" if missing else ""))
        table = Table.deal(rules, self.number, players, self.seed or 0,
                           [_Scripted(self, seat) for seat in range(players)])
        size = [len(h) for h in hands]
        values = iter(cards)
        dealt_hands = [[next(values) for _ in range(n)] for n in size]
        up = next(values)
        dealt_stock = list(values)[::-1]
        if self.seed is not None:
            same = ([sorted(h, key=Card.sort_key) for h in dealt_hands] == table.hands and
                    table.discards == [up] and table.stock == dealt_stock)
            if not same:
                raise RecordError(f"{at}: these are not the cards seed {self.seed} deals (leave the seed out of a "
                                  f"deal made otherwise)")
        table.hands = [sorted(hand, key=Card.sort_key) for hand in dealt_hands]
        table.stock, table.discards = dealt_stock, [up]
        table.events[0] = Event(EventKind.DEAL, 0, (up,))
        table.rng = _Shuffles(self)
        table.max_turns = max_turns
        self.track = _Track(_Cards([list(h) for h in hands], list(stock)[::-1], [str(face_up)],
                                   [[] for _ in range(players)]))
        return table

    def _dealt(self, deal: Mapping[str, Any], at: str) -> tuple[list[list[Any]], Any, list[Any]]:
        """The deal event's hands, face-up card and stock, checked for shape: a hand a seat, each
        of the round's size."""
        hands, face_up, stock = deal.get("hands"), deal.get("face_up"), deal.get("stock")
        if not (isinstance(hands, list) and all(isinstance(h, list) for h in hands) and isinstance(stock, list)):
            raise RecordError(f"{at}: the deal has \"hands\" (a list of card ids a seat), \"face_up\" and \"stock\"")
        if len(hands) != self.players:
            raise RecordError(f"{at}: {len(hands)} hands dealt to {self.players} players")
        deal_size = self.rules.round(self.number).deal
        for seat, hand in enumerate(hands):
            if len(hand) != deal_size:
                raise RecordError(f"{at}: {player(seat)} is dealt {len(hand)} cards; round {self.number} deals "
                                  f"{deal_size}")
        return hands, face_up, stock

    def _cards(self, ids: Sequence[Any], at: str) -> list[Card]:
        deck = self.rules.deck_for(self.players)
        cards = []
        for ident in ids:
            try:
                card = card_of(ident)
            except ValueError as error:
                raise RecordError(f"{at}: {error}") from None
            if _copy_number(ident) > deck_copies(card, deck):
                raise RecordError(f"{at}: {ident} is no card of the deck (a card is {card.token}#1 to "
                                  f"{card.token}#{deck_copies(card, deck)} here)")
            cards.append(card)
        return cards

    # -- the table asks ------------------------------------------------------------------------

    def next_event(self) -> Mapping[str, Any] | None:
        index = len(self.table.events)
        return self.events[index] if index < len(self.events) else None

    def offered(self, seat: int, card: Card, kind: DecisionKind, name: str) -> bool:
        self.sync()
        upcoming = self.next_event()
        chosen = upcoming is not None and upcoming.get("event") == name and upcoming.get("seat") == seat
        self.decisions.append(Decision(kind, seat, len(self.table.events), self.table.position(seat), card, chosen))
        return chosen

    def reshuffled(self, stock: list[Card]) -> None:
        """The table's stock after a reshuffle, put in the record's order when it has one."""
        self.sync()  # a buy may come before it in the same turn
        upcoming = self.next_event()
        if upcoming is None or upcoming.get("event") != "reshuffle":
            return  # the table's event will differ from the record's: ``sync`` says so
        at = f"{self.where}.events[{len(self.table.events)}] (the reshuffle)"
        order = upcoming.get("stock")
        if not isinstance(order, list):
            raise RecordError(f"{at}: a reshuffle has \"stock\", the new stock's card ids from its top")
        pile = sorted(self.track.cards.discards[:-1], key=_id_order)
        cards = self._cards(order, at)
        if sorted(order, key=_id_order) != pile:
            extra = next((i for i in order if i not in pile), None)
            why = f"{extra} is in {self.track.cards.where(extra)}" if extra else "cards of the pile are missing"
            raise RecordError(f"{at}: the new stock is the discard pile less its top card, but {why}")
        stock[:] = cards[::-1]

    def play(self, seat: int) -> Play:
        """The record's play after the draw, checked move by move (``analyzer.moves.Turn``, the
        table's own check) and card by card, so that the first bad event is named."""
        self.sync()
        table = self.table
        position = table.position(seat)
        turn = Turn(self.rules, self.number, seat, table.hands[seat], table.melds)
        track = _Track(copy.deepcopy(self.track.cards))
        index = len(table.events)
        lay_down: tuple[PlacedMeld, ...] = ()
        moves: list[LayOff | Substitution] = []
        discard: Card | None = None
        while index < len(self.events) and self.events[index].get("event") in _TURN_MOVES \
                and self.events[index].get("seat") == seat and discard is None:
            event = self.events[index]
            at = f"{self.where}.events[{index}] ({_describe(event)})"
            try:
                made = self._move(turn, seat, event, at)
            except TableError as error:
                raise RecordError(f"{at}: {error}") from None
            name = event["event"]
            kind = EventKind[name.upper()]
            melds = made if name == "lay_down" else (made[0],) if made else ()
            values = tuple(card for meld in made for card in meld.cards) if name == "lay_down" else \
                (card_of(event["card"]),)
            target = None if name in ("lay_down", "discard") else (event["meld"]["seat"], event["meld"]["index"])
            try:
                written = track.event(table, Event(kind, seat, values, table.turn, target, melds), event)
            except _Problem as problem:
                raise RecordError(f"{at}: {problem}") from None
            if written != event:
                raise RecordError(f"{at}: the replay makes it {_describe(written)} ({_difference(event, written)})")
            if name == "lay_down":
                lay_down = made
            elif name == "discard":
                discard = card_of(event["card"])
            else:
                moves.append(self._as_move(event))
            index += 1
        try:
            turn.finish()
        except TableError as error:
            after = self.events[index] if index < len(self.events) else None
            at = f"{self.where}.events[{index}]" + (f" ({_describe(after)})" if after else " (the record ends)")
            raise RecordError(f"{at}: {player(seat)}'s turn ends before it: {error}") from None
        play = Play(lay_down, (), discard, tuple(moves))
        event_index = len(table.events)
        self.decisions.append(Decision(DecisionKind.PLAY, seat, event_index, position, None, False, play,
                                       tuple(turn.held())))
        return play

    def _move(self, turn: Turn, seat: int, event: Mapping[str, Any], at: str) -> tuple[PlacedMeld, ...]:
        """Make one move of the record on ``turn``: the melds it makes (a discard: none)."""
        name = event["event"]
        try:
            if name == "lay_down":
                melds = event.get("melds")
                if not isinstance(melds, list) or not all(isinstance(m, Mapping) for m in melds):
                    raise RecordError(f"{at}: a lay-down has \"melds\", each with its kind, cards and \"as\"")
                placed = tuple(PlacedMeld(MeldKind(m.get("kind")), tuple(self._cards(m.get("cards") or [], at)),
                                          tuple(Card.parse(t) for t in m.get("as") or [])) for m in melds)
                turn.lay_down(placed)
                return placed
            card = self._cards([event.get("card")], at)[0]
            if name == "discard":
                turn.discard(card)
                return ()
            move = self._as_move(event)
            return (turn.lay_off(move) if isinstance(move, LayOff) else turn.substitute(move),)
        except (ValueError, TypeError, KeyError) as error:
            if isinstance(error, (RecordError, TableError)):
                raise
            raise RecordError(f"{at}: {error}") from None

    def _as_move(self, event: Mapping[str, Any]) -> LayOff | Substitution:
        meld = event.get("meld")
        if not isinstance(meld, Mapping) or not all(isinstance(meld.get(k), int) for k in ("seat", "index")):
            raise ValueError("a lay-off or substitution names its meld: {\"seat\": S, \"index\": I}")
        card = card_of(event.get("card"))
        if event["event"] == "substitute":
            return Substitution(card, meld["seat"], meld["index"])
        end = event.get("end")
        return LayOff(card, meld["seat"], meld["index"], None if end is None else End(end))

    # -- the table's events against the record's -------------------------------------------------

    def sync(self) -> None:
        """Compare the table's new events with the record's, in order; keep the cards' places."""
        table = self.table
        while self.synced < len(table.events):
            index = self.synced
            event = table.events[index]
            upcoming = self.events[index] if index < len(self.events) else None
            at = f"{self.where}.events[{index}]"
            try:
                written = self.track.event(table, event, upcoming)
            except _Problem as problem:
                raise RecordError(f"{at} ({_describe(upcoming)}): {problem}") from None
            if upcoming is None:
                raise RecordError(f"{at}: the record ends before the round does: next, {_describe(written)}")
            if written != upcoming:
                raise RecordError(f"{at} ({_describe(upcoming)}): {self._why(written, upcoming)}")
            self.synced += 1

    def _why(self, written: Mapping[str, Any], recorded: Mapping[str, Any]) -> str:
        name, seat = recorded.get("event"), recorded.get("seat")
        if name == SCORE:
            return f"the round is not over: next, {_describe(written)}"
        if name == "buy" and written.get("event") != "buy" and isinstance(seat, int):
            return f"{player(seat)} may not buy now: {_why_no_buy(self.table, seat)}"
        if name == "take" and written.get("event") != "take":
            if written.get("seat") != seat and isinstance(written.get("seat"), int):
                return f"it is {player(written['seat'])}'s turn"
            return "no face-up card is on offer now (the last turn ended without a discard)"
        if name == written.get("event") and name in ("draw", "take", "buy") and seat == written.get("seat"):
            place = "stock's top card" if name == "draw" else "face-up card"
            return f"the {place} is {written.get('card')}, not {_shown(recorded.get('card'))}" + \
                (f" (penalty cards: {written.get('penalty')})" if name == "buy" else "")
        return f"the replay has {_describe(written)} here"

    def run(self) -> RoundReplay:
        table = self.table
        while not table.finished:
            try:
                table.play_turn()
            except TableError as error:  # the moves were checked one by one: only a bad deal gets here
                raise RecordError(f"{self.where}.events[{len(table.events)}]: {error}") from None
            self.sync()
        index = len(table.events)
        outcome = table.outcome()
        score = self.track.score(outcome)
        recorded = self.events[index] if index < len(self.events) else None
        at = f"{self.where}.events[{index}]"
        if recorded is None or recorded.get("event") != SCORE:
            raise RecordError(f"{at}: the round is over: the record ends it with its scores "
                              f"({_describe(score)}), not {_describe(recorded) if recorded else 'nothing'}")
        if recorded.get("points") != score["points"]:
            seat = next((s for s, p in enumerate(score["points"])
                         if not isinstance(recorded.get("points"), list) or s >= len(recorded["points"])
                         or recorded["points"][s] != p), 0)
            raise RecordError(f"{at} (the scores): {player(seat)} scores {score['points'][seat]} points, "
                              f"the record says {_shown(recorded.get('points'))}")
        if recorded != score:
            raise RecordError(f"{at} (the scores): the hands as the round ends are {score['hands']}")
        if index + 1 < len(self.events):
            raise RecordError(f"{self.where}.events[{index + 1}]: the round ended with its scores; "
                              f"nothing comes after them")
        return RoundReplay(self.number, table, outcome, tuple(self.decisions))


def _why_no_buy(table: Table, seat: int) -> str:
    if not 0 <= seat < table.players:
        return "there is no such seat"
    if seat == table.current:
        return "it is its own turn (it takes the face-up card or draws)"
    discarder = (table.current - 1) % table.players
    if seat == discarder:
        return "it discarded the card"
    if not table.discards or not table.offer_open:
        return "no discard is on offer"
    allowed = table.rules.buys_in(table.round_number)
    if allowed is not None and table.buys_used[seat] >= allowed:
        return f"it has used its {allowed} buy(s) of the round"
    if table.rules.no_consecutive_buys and table.last_buyer == seat:
        return "it bought last, and nobody buys twice in succession here"
    if len(table.stock) < table.rules.buy_penalty_in(table.round_number):
        return "the stock has too few cards for the penalty"
    return "a player before it in turn order bought the card, or was asked first"


# ---- events in words -------------------------------------------------------------------------------


def _face(ident: Any) -> str:
    try:
        return f"{card_of(ident).face} {ident}"
    except ValueError:
        return _shown(ident)


def _describe(event: Mapping[str, Any] | None) -> str:
    """An event of the record in words: ``player 2 discards 7♥ 7H#2``."""
    if event is None:
        return "nothing"
    name, seat = event.get("event"), event.get("seat")
    who = player(seat) if isinstance(seat, int) else "a player"
    if name == "deal":
        return "the deal"
    if name in ("draw", "take", "discard"):
        verb = {"draw": "draws", "take": "takes", "discard": "discards"}[name]
        return f"{who} {verb} {_face(event.get('card'))}"
    if name == "buy":
        penalty = event.get("penalty")
        extra = f" and {len(penalty)} penalty card(s)" if isinstance(penalty, list) and penalty else ""
        return f"{who} buys {_face(event.get('card'))}{extra}"
    if name == "lay_down":
        return f"{who} lays down"
    if name in ("lay_off", "substitute"):
        meld = event.get("meld")
        target = f" on meld {meld.get('index', 0) + 1} of {player(meld.get('seat', 0))}" \
            if isinstance(meld, Mapping) and isinstance(meld.get("index"), int) and isinstance(meld.get("seat"), int) \
            else ""
        verb = "lays off" if name == "lay_off" else "takes a joker back with"
        return f"{who} {verb} {_face(event.get('card'))}{target}"
    if name == "reshuffle":
        return "the reshuffle"
    if name == "go_out":
        return f"{who} goes out"
    if name == "stop":
        return "the round stops unfinished"
    if name == SCORE:
        return f"the scores {event.get('points')}"
    return f"an event {_shown(name)}"


def _difference(recorded: Mapping[str, Any], written: Mapping[str, Any]) -> str:
    keys = [key for key in {**recorded, **written} if recorded.get(key) != written.get(key)]
    return "; ".join(f"{key}: {_shown(written.get(key))}, not {_shown(recorded.get(key))}" for key in keys)


__all__ = [
    "FORMAT",
    "VERSION",
    "Decision",
    "DecisionKind",
    "RecordError",
    "Recorder",
    "Replayed",
    "RoundReplay",
    "card_id",
    "card_of",
    "deck_ids",
    "dumps_record",
    "game_record",
    "read_record",
    "replay",
    "write_record",
]
