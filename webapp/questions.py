"""A question to the analyser as the web asks it (the page's query string or the API's JSON),
checked field by field, and its answer, cached by question.

Both readers build the same frozen ``Question``; every mistake becomes a ``QuestionError``
whose ``errors`` map a field name to a message for the person who typed it. Rule sets are
presets only: a name the server would open as a ``.toml`` file is never passed on.

Answers are the analyser's own ``to_dict()``: the JSON of ``analyze --json``, which the API
returns and the page's templates draw.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, g

from analyzer import (
    PRESETS,
    AdviceError,
    CardError,
    HandError,
    OptionError,
    Rules,
    RulesError,
    advise,
    analyze,
    parse_cards,
    preset,
    read_hand,
)

MAX_TEXT = 1000  # characters in a card field: 60 cards with comments fit; a pasted novel does not
MAX_DIGITS = 6
MOMENTS = ("before-draw", "after-draw")
TEXT_FIELDS = ("hand", "rules", "seen", "buy", "moment")
# The API's fields: those of an ``analyze --batch`` line (README, "Batches").
API_FIELDS = ("hand", "round", "rules", "players", "moment", "time_limit", "seen", "outs", "discards", "buy",
              "turn", "horizon", "rollouts", "seed", "buys_used", "bought_last")
BUY_ONLY = ("turn", "horizon", "rollouts", "seed", "buys_used", "bought_last")
RULE_SET_NAMES = tuple(PRESETS)


class QuestionError(ValueError):
    """Input that cannot be analysed; ``errors`` maps each bad field to its message."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        self.errors = dict(errors)
        super().__init__("; ".join(f"{field}: {message}" for field, message in self.errors.items()))


@dataclass(frozen=True)
class Question:
    """Everything that decides an answer, in canonical form (so equal questions are equal keys)."""

    hand: tuple[str, ...]  # canonical tokens, sorted
    rules: str  # a preset's key
    round: int
    players: int | None  # None: the rule set's largest deck
    moment: str | None  # "before-draw", "after-draw", None: told from the hand's size
    seen: tuple[str, ...] = ()
    buy: str | None = None  # the offered card's token
    discards: bool = False
    outs: bool = False  # the API's "outs": the advice keys even when nothing else asks for them
    time_limit: float = 2.0  # seconds per solver call, within the server's cap
    turn: int | None = None  # the buy verdict's options (None: the analyser's defaults)
    horizon: int | None = None
    rollouts: int | None = None
    seed: int | None = None
    buys_used: int | None = None
    bought_last: bool = False

    @property
    def wants_advice(self) -> bool:
        """Whether the answer is ``advise``'s (outs and the rest), as ``analyze --json`` decides."""
        return bool(self.outs or self.seen or self.discards or self.buy)

    def query(self) -> dict[str, str]:
        """The page's query string for this question: the link that shares it."""
        fields = {"hand": " ".join(self.hand), "rules": self.rules, "round": str(self.round)}
        if self.players is not None:
            fields["players"] = str(self.players)
        if self.moment:
            fields["moment"] = self.moment
        if self.seen:
            fields["seen"] = " ".join(self.seen)
        if self.buy:
            fields["buy"] = self.buy
        if self.discards:
            fields["discards"] = "on"
        return fields


# ---- reading -------------------------------------------------------------------------------------


def read_query(args: Mapping[str, str]) -> Question:
    """The analysis page's fields, all text (a query string): missing ones take their defaults."""
    errors: dict[str, str] = {}
    fields: dict[str, Any] = {
        "hand": args.get("hand", ""),
        "rules": args.get("rules", "").strip() or "progressive",
        "seen": args.get("seen", ""),
        "buy": args.get("buy", "").strip() or None,
        "moment": args.get("moment", "").strip() or None,
        "discards": args.get("discards", "") not in ("", "0", "off", "false"),
    }
    for name, required in (("round", True), ("players", False)):
        text = args.get(name, "").strip()
        if not text:
            if required:
                errors[name] = "say which round the hand is for, e.g. 6"
            fields[name] = None
        elif not (text.isascii() and text.isdigit()) or len(text) > MAX_DIGITS:
            errors[name] = f"a whole number such as 6, not {_shown(text)}"
        else:
            fields[name] = int(text)
    return _checked(fields, errors)


def read_json(job: Any) -> Question:
    """The API's JSON object: the fields of an ``analyze --batch`` line, typed as there."""
    if not isinstance(job, dict):
        raise QuestionError({"request": 'expected a JSON object such as {"hand": "7H 8H 9H 10H 5C 5D 5S", '
                                        '"round": 2}'})
    unknown = sorted(set(job) - set(API_FIELDS))
    if unknown:
        raise QuestionError({unknown[0]: f"unknown field {unknown[0]!r}; the fields are {', '.join(API_FIELDS)}"})
    errors: dict[str, str] = {}
    kinds: dict[str, tuple[type, ...]] = {
        "hand": (str,), "rules": (str,), "seen": (str,), "buy": (str,), "moment": (str,),
        "round": (int,), "players": (int,), "turn": (int,), "horizon": (int,), "rollouts": (int,), "seed": (int,),
        "buys_used": (int,), "time_limit": (int, float), "outs": (bool,), "discards": (bool,), "bought_last": (bool,),
    }
    fields: dict[str, Any] = {}
    for name, types in kinds.items():
        value = job.get(name)
        wrong_bool = isinstance(value, bool) and bool not in types
        if value is not None and (wrong_bool or not isinstance(value, types)):
            errors[name] = f"expected {_kind_words(types)}, not {_shown(value)}"
            continue
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**MAX_DIGITS:
            errors[name] = f"a number of at most {MAX_DIGITS} digits, not {_shown(value)}"
            continue
        fields[name] = value
    if job.get("hand") is None and "hand" not in errors:
        errors["hand"] = 'missing "hand": the cards as text, e.g. "7H 8H 9H JK"'
    if job.get("round") is None and "round" not in errors:
        errors["round"] = 'missing "round": the round the hand is for'
    fields["rules"] = fields.get("rules") or "progressive"
    fields["seen"] = fields.get("seen") or ""
    if fields.get("buy") is None:
        stray = [name for name in BUY_ONLY if fields.get(name) not in (None, False)]
        if stray:
            errors.setdefault(stray[0], f'"{stray[0]}" goes with "buy" (the offered card, e.g. "buy": "9H")')
    return _checked(fields, errors)


def _checked(fields: dict[str, Any], errors: dict[str, str]) -> Question:
    """The question from typed fields, each checked against the rule set; all problems at once."""
    cap = float(current_app.config["ANALYSIS_TIME_LIMIT"])
    for name in TEXT_FIELDS:  # refused before any of it is read
        value = fields.get(name)
        if isinstance(value, str) and len(value) > MAX_TEXT:
            errors[name] = f"{len(value)} characters is more than any real answer needs (at most {MAX_TEXT})"
    rules: Rules | None = None
    if "rules" not in errors:
        try:
            rules = preset(fields["rules"])
        except RulesError as error:
            errors["rules"] = str(error)
    number = fields.get("round")
    if rules is not None and number is not None and "round" not in errors:
        try:
            rules.round(number)
        except RulesError as error:
            errors["round"] = str(error)
    players = fields.get("players")
    if rules is not None and players is not None and "players" not in errors:
        try:
            rules.deck_for(players)
        except RulesError as error:
            errors["players"] = str(error)
    moment = fields.get("moment")
    if moment is not None and moment not in MOMENTS and "moment" not in errors:
        errors["moment"] = f"before-draw or after-draw (or leave it out), not {_shown(moment)}"
    hand: tuple[str, ...] = ()
    if "hand" not in errors:
        try:
            cards = read_hand(fields.get("hand") or "", rules or PRESETS["progressive"],
                              None if "players" in errors else players)
            hand = tuple(card.token for card in cards)
        except HandError as error:
            errors["hand"] = str(error)
    seen = _cards(fields, "seen", errors)
    buy = _cards(fields, "buy", errors) if fields.get("buy") else ()
    if len(buy) > 1 and "buy" not in errors:
        errors["buy"] = f"one card, the discard you are offered, not {len(buy)}"
    time_limit = fields.get("time_limit")
    if time_limit is None:
        time_limit = cap
    elif not (math.isfinite(time_limit) and 0 < time_limit <= cap):
        errors["time_limit"] = f"a number of seconds above 0 and at most {cap:g} on this server, not {_shown(time_limit)}"
    rollouts = fields.get("rollouts")
    most = int(current_app.config["ANALYSIS_MAX_ROLLOUTS"])
    if rollouts is not None and not 1 <= rollouts <= most:
        errors["rollouts"] = f"1 to {most} simulated rounds on this server, not {rollouts}"
    if errors:
        raise QuestionError(errors)
    assert rules is not None and number is not None
    return Question(
        hand=hand, rules=rules.name, round=number, players=players, moment=moment,
        seen=seen, buy=buy[0] if buy else None, discards=bool(fields.get("discards")),
        outs=bool(fields.get("outs")), time_limit=float(time_limit),
        **{name: fields.get(name) for name in ("turn", "horizon", "rollouts", "seed", "buys_used")},
        bought_last=bool(fields.get("bought_last")),
    )


def _cards(fields: dict[str, Any], name: str, errors: dict[str, str]) -> tuple[str, ...]:
    if name in errors:
        return ()
    try:
        return tuple(sorted(card.token for card in parse_cards(fields.get(name) or "")))
    except CardError as error:
        errors[name] = str(error)
    return ()


def _kind_words(types: tuple[type, ...]) -> str:
    words = {str: "text", int: "a whole number", float: "a number", bool: "true or false"}
    return " or ".join(dict.fromkeys(words[kind] for kind in types))


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ---- answering ----------------------------------------------------------------------------------


def answer(question: Question) -> dict[str, Any]:
    """The analyser's answer as ``analyze --json`` prints it; from the cache when asked before.

    The page always asks for advice (it shows the outs); the API only when its fields ask."""
    cache: AnswerCache = current_app.extensions["answers"]
    found = cache.get(question)
    if found is not None:
        return found
    rules = preset(question.rules)  # a Rules value: the analyser never reads a file for the web
    g.solver_ran = True  # counted against the client's rate limit (webapp.safety)
    hand = list(question.hand)
    try:
        if not question.wants_advice:
            result = analyze(hand, rules, question.round, question.players, question.time_limit, question.moment)
            answered = result.to_dict()
        else:
            options = {name: value for name in ("turn", "horizon", "rollouts", "seed", "buys_used")
                       if (value := getattr(question, name)) is not None}
            advice = advise(hand, rules, question.round, question.players, seen=list(question.seen),
                            discards=question.discards, buy=question.buy, time_limit=question.time_limit,
                            moment=question.moment, bought_last=question.bought_last, **options)
            answered = advice.to_dict()
    except (HandError, RulesError, AdviceError, OptionError) as error:
        raise QuestionError({_field_of(error): str(error)}) from None
    # An answer the time limit cut short (a lay-down not proven best, outs or discards left
    # unranked, a buy verdict stopped early) may come out better next time: it is not kept.
    if answered["proven_optimal"] and not answered.get("unfinished"):
        cache.put(question, answered)
    return answered


def _field_of(error: ValueError) -> str:
    """The form field an analyser error is about, from its kind and wording."""
    text = str(error)
    if isinstance(error, AdviceError) or "offered" in text:
        return "buy"
    if isinstance(error, OptionError):
        return "time_limit"
    if "seen" in text:
        return "seen"
    if isinstance(error, RulesError):
        return "round"
    return "hand"


def with_advice(question: Question) -> Question:
    """The page's question: the outs are always shown, so always ``advise``."""
    return dataclasses.replace(question, outs=True)


class AnswerCache:
    """The most recent answers by question (least recently used dropped first); thread-safe.
    Answers are deterministic (fixed seeds, proven optima), so a hit is the same answer."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._answers: OrderedDict[Question, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, question: Question) -> dict[str, Any] | None:
        with self._lock:
            found = self._answers.get(question)
            if found is not None:
                self._answers.move_to_end(question)
            return found

    def put(self, question: Question, answered: dict[str, Any]) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._answers[question] = answered
            self._answers.move_to_end(question)
            while len(self._answers) > self.size:
                self._answers.popitem(last=False)


def init_app(app: Flask) -> None:
    app.extensions["answers"] = AnswerCache(int(app.config["ANALYSIS_CACHE_SIZE"]))
