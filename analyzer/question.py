"""One question to the analyser as a value: the fields of an ``analyze --batch`` line, read and
checked all at once, and its answer, the JSON that ``analyze --json`` prints.

    >>> from analyzer import Question, answer
    >>> question = Question.from_json({"hand": "7H 8H 9H 10H 5C 5D 5S", "round": 2})
    >>> answer(question)["can_lay_down"]
    True

Every field a person got wrong is named at once in one ``QuestionError``::

    >>> Question.from_json({"hand": "7H 8X", "round": "2"})
    Traceback (most recent call last):
    ...
    analyzer.question.QuestionError: hand: unknown card '8X' (card 2, line 1); \
round: expected a whole number, not '2'

The command line, its batches, the web page and the web API all read questions here; what a
caller adds (a server's caps, a command line's defaults) comes in as ``limits`` and ``defaults``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from analyzer import DEFAULT_TIME_LIMIT
from analyzer.advice import Advice
from analyzer.api import advise, analyze
from analyzer.arguments import BUY_ONLY, DOWN_ONLY, FIELDS, MAX_TIME_LIMIT, NOT_DOWN, Kind, cards_argument
from analyzer.buy import (
    DEFAULT_ROLLOUTS,
    DEFAULT_TURN,
    AdviceError,
    check_buy_allowed,
    check_buys_held,
    check_simulation,
)
from analyzer.cards import Card, sorted_cards
from analyzer.down import DownAdvice, advise_down, check_down, check_table, melds_text, read_melds, read_table
from analyzer.hand import HandError, check_deck, read_hand
from analyzer.result import LayDown, PlacedMeld
from analyzer.rules import Rules, RulesError, load_rules, preset
from analyzer.turn import Moment, place_in_turn

DEFAULT_RULES = "progressive"
SAMPLE = '{"hand": "7H 8H 9H 10H 5C 5D 5S", "round": 2}'
MAX_DIGITS = 9  # a whole number of a sensible size (never 5000 digits)


class QuestionError(ValueError):
    """A question that cannot be answered. ``fields`` maps each bad field to what is wrong with
    it (``"round": "expected a whole number, not '2'"``); a field that is no field of a question
    (an unknown name, the ``request`` itself) is not named again in the message."""

    def __init__(self, fields: Mapping[str, str]) -> None:
        self.fields = dict(fields)
        super().__init__("; ".join(f"{name}: {message}" if name in FIELDS else message
                                   for name, message in self.fields.items()))


@dataclass(frozen=True)
class Limits:
    """What a caller allows beyond the analyser's own bounds (a server's caps)."""

    time_limit: float = MAX_TIME_LIMIT  # most seconds for the whole answer
    rollouts: int | None = None  # most simulated rounds of a buy verdict (None: the analyser's bound)
    digits: int = MAX_DIGITS  # most digits of a whole number
    text: int | None = None  # most characters of a text field (None: any)
    rule_files: bool = True  # whether "rules" may name a .toml file to read
    where: str = ""  # said after a cap of these limits: " on this server"


@dataclass(frozen=True)
class Question:
    """Everything that decides an answer, in canonical form: equal questions are equal values
    (the hand and the seen cards sorted, the rule set a value, an alias its preset). ``None``
    in a buy option is the analyser's default."""

    hand: tuple[Card, ...]
    rules: Rules
    round: int
    players: int | None = None  # None: the rule set's largest deck
    moment: Moment | None = None  # None: told from the hand's size
    time_limit: float = DEFAULT_TIME_LIMIT  # seconds for the whole answer
    seen: tuple[Card, ...] = ()
    outs: bool = False  # the advice keys even when nothing else asks for them
    discards: bool = False
    buy: Card | None = None  # the offered discard
    turn: int | None = None
    horizon: int | None = None
    rollouts: int | None = None
    seed: int | None = None
    buys_used: int | None = None
    bought_last: bool = False
    down: tuple[PlacedMeld, ...] | None = None  # the player's melds: the contract is down (``advise_down``)
    table: tuple[tuple[PlacedMeld, ...], ...] = ()  # with ``down``: the other players' melds
    face_up: Card | None = None  # with ``down``: the face-up discard, the hand before the draw

    @property
    def asks_advice(self) -> bool:
        """Whether the answer is ``advise``'s (the outs and the rest), as ``analyze --json`` decides."""
        return bool(self.outs or self.seen or self.discards or self.buy)

    @classmethod
    def from_json(cls, obj: Any, *, defaults: Mapping[str, Any] | None = None, limits: Limits = Limits()) -> Question:
        """The question a JSON object asks (a batch line, the API's body): a field left out or
        null takes its value from ``defaults`` (JSON values as in ``obj``), then the analyser's.
        Raises ``QuestionError`` naming every bad field."""
        if not isinstance(obj, dict):
            raise QuestionError({"request": f"expected a JSON object such as {SAMPLE}, not {_shown(obj)}"})
        unknown = [name for name in obj if name not in FIELDS]
        if unknown:  # a misspelt field: its value would be taken for a default's, never read
            raise QuestionError({name: f"unknown field {name!r}; the fields are {', '.join(FIELDS)}" for name in unknown})
        given = {**(defaults or {}), **{name: value for name, value in obj.items() if value is not None}}
        return _Reading(given, limits).question()

    def to_json(self) -> dict[str, Any]:
        """The fields that differ from a question's defaults, as ``from_json`` reads them back
        (a rule set read from a file is given by its name)."""
        fields: dict[str, Any] = {"hand": _text(self.hand), "rules": self.rules.name, "round": self.round}
        for name in FIELDS:
            value = getattr(self, name)
            if name in fields or value is None or value is False or value == () \
                    or (name == "time_limit" and value == DEFAULT_TIME_LIMIT):
                continue
            if name == "down":
                value = melds_text(value)
            elif name == "table":
                value = " ; ".join(melds_text(melds) for melds in value)
            elif isinstance(value, Moment):
                value = value.value
            elif isinstance(value, Card):
                value = value.token
            elif isinstance(value, tuple):
                value = _text(value)
            fields[name] = value
        return fields


def ask(question: Question) -> LayDown | Advice | DownAdvice:
    """The analyser's result for ``question``: ``advise_down``'s when the contract is down,
    ``advise``'s when it asks for advice, else ``analyze``'s."""
    if question.down is not None:
        return advise_down(question.hand, question.rules, question.round, question.down, question.table,
                           question.players, question.seen, question.face_up, question.time_limit)
    if not question.asks_advice:
        return analyze(question.hand, question.rules, question.round, question.players, question.time_limit,
                       question.moment, question.buys_used or 0)
    options = {name: value for name in ("turn", "horizon", "rollouts", "seed", "buys_used")
               if (value := getattr(question, name)) is not None}
    return advise(question.hand, question.rules, question.round, question.players, seen=question.seen,
                  discards=question.discards, buy=question.buy, time_limit=question.time_limit,
                  moment=question.moment, bought_last=question.bought_last, **options)


def answer(question: Question) -> dict[str, Any]:
    """The answer to ``question``: what ``analyze --json`` prints for it, as a dict."""
    return ask(question).to_dict()


# ---- reading ------------------------------------------------------------------------------------


class _Reading:
    """One object's fields read in turn; each problem is kept under its field and the fields it
    leaves unknown are not checked against it (a hand is not counted against a bad round)."""

    def __init__(self, given: dict[str, Any], limits: Limits) -> None:
        self.given = given
        self.limits = limits
        self.errors: dict[str, str] = {}

    def question(self) -> Question:
        values = {name: self.typed(name, kind) for name, kind in FIELDS.items()}
        self.required_and_paired(values)
        rules = self.rules_checked(values)
        number, players = values["round"], values["players"]
        moment = self.moment(values["moment"])
        time_limit = self.time_limit(values["time_limit"])
        seen = self.check("seen", lambda: sorted_cards(cards_argument(values["seen"] or "", "the seen cards")))
        offered = self.check("buy", lambda: self.offered(values["buy"])) if values["buy"] is not None else None
        self.buy_options(values, rules, number)
        down, table, face_up = self.down_position(values, rules)
        hand = self.hand_checked(values, rules, moment, seen, offered, down is not None)
        if down is not None and hand is not None and not self.errors:
            assert rules is not None and number is not None
            self.check("table", lambda: check_table(table, rules, number, values["players"]))
        if down is not None and hand is not None and not self.errors:
            assert rules is not None and number is not None
            self.check("down", lambda: check_down(hand, rules, number, down, table, values["players"], seen or (),
                                                  face_up))
        if self.errors:
            raise QuestionError(dict(sorted(self.errors.items(), key=lambda item: list(FIELDS).index(item[0]))))
        assert hand is not None and rules is not None and number is not None and time_limit is not None
        return Question(hand=hand, rules=rules, round=number, players=players, moment=moment, time_limit=time_limit,
                        seen=seen or (), outs=bool(values["outs"]), discards=bool(values["discards"]), buy=offered,
                        turn=values["turn"], horizon=values["horizon"], rollouts=values["rollouts"],
                        seed=values["seed"], buys_used=values["buys_used"], bought_last=bool(values["bought_last"]),
                        down=down, table=table, face_up=face_up)

    def down_position(self, values: dict[str, Any], rules: Rules | None
                      ) -> tuple[tuple[PlacedMeld, ...] | None, tuple[tuple[PlacedMeld, ...], ...], Card | None]:
        """Once the contract is down: the player's melds, the other players' and the face-up
        card; the fields that go only with ``down``, or never with it, refused."""
        if values["down"] is None:
            for name in DOWN_ONLY:
                if values[name] is not None and name not in self.errors:
                    self.errors[name] = f'"{name}" goes with "down" (your melds on the table, e.g. "5S 6S 7S 8S | QH QD QC")'
            return None, (), None
        for name in NOT_DOWN:
            if values[name] not in (None, False) and name not in self.errors:
                self.errors[name] = (f'"{name}" does not go with "down" (the hand is after your draw, or before it '
                                     'with "face_up"; the discard table is always given)')
        if rules is None:
            return None, (), None
        down = self.check("down", lambda: read_melds(values["down"], rules))
        table = self.check("table", lambda: read_table(values["table"] or "", rules)) or ()
        face_up = self.check("face_up", lambda: self.offered(values["face_up"], "the face-up card")) \
            if values["face_up"] is not None else None
        return down, table, face_up

    def required_and_paired(self, values: dict[str, Any]) -> None:
        """The hand and the round are required; the buy verdict's options go with ``buy``."""
        for name, what in (("hand", 'the cards as text, e.g. "7H 8H 9H JK"'), ("round", "the round the hand is for")):
            if values[name] is None and name not in self.errors:
                self.errors[name] = f'missing "{name}": {what}'
        if values["buy"] is None:
            for name in BUY_ONLY:
                if values[name] not in (None, False) and name not in self.errors:
                    self.errors[name] = f'"{name}" goes with "buy" (the offered card, e.g. "buy": "9H")'

    def rules_checked(self, values: dict[str, Any]) -> Rules | None:
        """The rule set, with the round and the number of players checked against it."""
        rules: Rules | None = self.check("rules", lambda: self.rule_set(values["rules"] or DEFAULT_RULES))
        number, players = values["round"], values["players"]
        if rules is not None and number is not None:
            self.check("round", lambda: rules.round(number))
        if rules is not None and players is not None:
            self.check("players", lambda: rules.deck_for(players))
        return rules

    def hand_checked(self, values: dict[str, Any], rules: Rules | None, moment: Moment | None,
                     seen: tuple[Card, ...] | None, offered: Card | None, down: bool = False) -> tuple[Card, ...] | None:
        """The hand read against the rule set and its deck, where it stands in the turn, and the
        seen and offered cards checked with it. Without a rule set, its cards at least (the deck
        is not known). Once the contract is down a hand may be of any size (``check_down``
        counts it with the table)."""
        text, number = values["hand"], values["round"]
        if text is None:
            return None
        if rules is None:
            self.check("hand", lambda: cards_argument(text, "the hand"))
            return None
        players = None if "players" in self.errors else values["players"]  # counted in the largest deck
        deck = rules.deck_for(players)
        hand: tuple[Card, ...] | None = self.check("hand", lambda: read_hand(text, rules, players))
        if hand is None or number is None or "round" in self.errors or down:
            return hand
        held = hand
        bought = values["buys_used"] if isinstance(values.get("buys_used"), int) and "buys_used" not in self.errors \
            else 0
        place = self.check("hand", lambda: place_in_turn(rules, number, len(held), moment, bought))
        if seen:
            self.check("seen", lambda: check_deck(held + seen, rules, deck, "the hand and the seen cards"))
        if offered is not None and place is not None and "seen" not in self.errors:
            self.check("buy", lambda: self.buy_before_draw(place.moment, len(held), number))
            self.check("buy", lambda: check_deck(held + (seen or ()) + (offered,), rules, deck,
                                                 f"the hand, the seen cards and the offered {offered.token}"))
        return hand

    def typed(self, name: str, kind: Kind) -> Any:
        """The field's value if it is of its kind (None when absent); else None and an error."""
        value = self.given.get(name)
        if value is None:
            return None
        if kind is Kind.TEXT:
            right = isinstance(value, str)
        elif kind is Kind.FLAG:
            right = isinstance(value, bool)
        else:
            kinds = (int,) if kind is Kind.WHOLE else (int, float)
            right = isinstance(value, kinds) and not isinstance(value, bool)
        if not right:
            self.errors[name] = f"expected {kind.value}, not {_shown(value)}"
        elif kind is Kind.WHOLE and abs(value) >= 10**self.limits.digits:
            self.errors[name] = f"far too large: a whole number of at most {self.limits.digits} digits, not {_shown(value)}"
        elif kind is Kind.TEXT and self.limits.text is not None and len(value) > self.limits.text:
            self.errors[name] = (f"{len(value)} characters is more than any real answer needs "
                                 f"(at most {self.limits.text})")  # refused before any of it is read
        else:
            return value
        return None

    def check(self, name: str, step: Callable[[], Any]) -> Any:
        """``step()``, or None with its error kept under ``name`` (the first one a field has)."""
        if name in self.errors:
            return None
        try:
            return step()
        except (HandError, RulesError, AdviceError) as error:
            self.errors[name] = str(error)
        return None

    def rule_set(self, name: str) -> Rules:
        """A preset (checked once, by ``analyze``) or, where the limits allow files, a rules file."""
        if self.limits.rule_files and name.lower().endswith(".toml"):
            return load_rules(name)
        return preset(name)

    def moment(self, text: str | None) -> Moment | None:
        if text is None:
            return None
        for moment in Moment:
            if text.lower().replace("_", "-") == moment.value:
                return moment
        self.errors.setdefault("moment", f"before-draw or after-draw (or leave it out), not {_shown(text)}")
        return None

    def time_limit(self, value: float | None) -> float | None:
        cap = min(self.limits.time_limit, MAX_TIME_LIMIT)
        if value is None:
            return min(DEFAULT_TIME_LIMIT, cap)
        if not (math.isfinite(value) and 0 < value <= cap):
            self.errors["time_limit"] = (f"a number of seconds above 0 and at most {cap:g}{self.limits.where}, "
                                         f"not {_shown(value)}")
            return None
        return float(value)

    @staticmethod
    def offered(text: str, what: str = "the offered card") -> Card:
        cards = cards_argument(text, what)
        if len(cards) != 1:
            raise AdviceError(f"one card, the discard you are offered, not {len(cards)}")
        return cards[0]

    @staticmethod
    def buy_before_draw(moment: Moment, size: int, number: int) -> None:
        if moment is Moment.AFTER_DRAW:
            raise AdviceError(f"a discard is bought before your draw, and a hand of {size} cards in round {number} "
                              "has drawn already; give the hand as it was before the draw (or say it is before-draw)")

    def buy_options(self, values: dict[str, Any], rules: Rules | None, number: int | None) -> None:
        """The buy verdict's options, each checked on its own (the analyser checks them together,
        so each is asked with the others at their defaults, to know whose error it is). Without
        ``buy``, the buys used are the hand's: no more than the round allows."""
        if values["buy"] is None:
            used = values["buys_used"]
            if used is not None and rules is not None and number is not None and "round" not in self.errors:
                self.check("buys_used", lambda: check_buys_held(rules, number, used))
            return
        if rules is not None and number is not None and "round" not in self.errors:
            used = values["buys_used"] or 0
            self.check("buy", lambda: check_buy_allowed(rules, number, 0, False))
            if "buy" not in self.errors:
                self.check("buys_used", lambda: check_buy_allowed(rules, number, used, False))
                self.check("bought_last", lambda: check_buy_allowed(rules, number, 0, bool(values["bought_last"])))
        if values["horizon"] is not None:
            self.check("horizon", lambda: check_simulation(values["horizon"], DEFAULT_ROLLOUTS))
        if values["turn"] is not None:
            self.check("turn", lambda: check_simulation(None, DEFAULT_ROLLOUTS, values["turn"]))
        rollouts, most = values["rollouts"], self.limits.rollouts
        if rollouts is not None and most is not None and not 1 <= rollouts <= most and "rollouts" not in self.errors:
            self.errors["rollouts"] = f"1 to {most} simulated rounds{self.limits.where}, not {rollouts}"
        elif rollouts is not None:
            self.check("rollouts", lambda: check_simulation(None, rollouts, DEFAULT_TURN))


def _text(cards: tuple[Card, ...]) -> str:
    return " ".join(card.token for card in cards)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
