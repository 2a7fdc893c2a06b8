"""A question to the analyser as the web asks it (the page's query string or the API's JSON),
read by ``analyzer.Question.from_json`` within the server's caps, and its answer, cached by
question.

What is the web's own: reading the query string (all text), the server's caps (a time limit,
the buy verdict's simulated rounds, the size of a field), and the cache. Rule sets are presets
only: a name the server would open as a ``.toml`` file is never read. Answers are the
analyser's own: the JSON of ``analyze --json``, which the API returns and the page's templates
draw.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from flask import Flask, current_app

import analyzer
from analyzer import PRESETS, Limits, Question, QuestionError

MAX_TEXT = 1000  # characters in a card field: 60 cards with comments fit; a pasted novel does not
MAX_DIGITS = 6
RULE_SET_NAMES = tuple(PRESETS)  # the presets; their display names: analyzer.TITLES
OFF = ("", "0", "off", "false")  # a tick box's values that mean "no"


def server_limits() -> Limits:
    """What this server allows: its time limit for an answer, its most simulated rounds."""
    return Limits(time_limit=float(current_app.config["ANALYSIS_TIME_LIMIT"]),
                  rollouts=int(current_app.config["ANALYSIS_MAX_ROLLOUTS"]), digits=MAX_DIGITS, text=MAX_TEXT,
                  rule_files=False, where=" on this server")


def read_json(job: Any) -> Question:
    """The API's JSON object: the fields of an ``analyze --batch`` line; a question that gives
    no time limit gets the server's."""
    limits = server_limits()
    return Question.from_json(job, defaults={"time_limit": limits.time_limit}, limits=limits)


def read_query(args: Mapping[str, str]) -> Question:
    """The analysis page's fields, all text (a query string): missing ones take their defaults.
    The page always shows the outs. ``turn`` goes with ``buy``, as in a batch line.
    Once the contract is down (``down``: your melds) the question is ``advise_down``'s, with
    ``table`` and ``face_up``; its discard table is always given, so the tick box is not read."""
    errors: dict[str, str] = {}
    job: dict[str, Any] = {
        "hand": args.get("hand", ""),
        "rules": args.get("rules", "").strip() or None,
        "seen": args.get("seen", ""),
        "buy": args.get("buy", "").strip() or None,
        "moment": args.get("moment", "").strip() or None,
        "discards": args.get("discards", "") not in OFF,
        "outs": True,
    }
    for name in ("down", "table", "face_up"):  # Question says which go only with "down"
        job[name] = args.get(name, "").strip() or None
    if job["down"]:
        del job["discards"], job["outs"]
    for name, required in (("round", True), ("players", False), ("turn", False), ("buys_used", False)):
        text = args.get(name, "").strip()
        if not text:
            if required:
                errors[name] = "say which round the hand is for, e.g. 6"
        elif not (text.isascii() and text.isdigit()) or len(text) > MAX_DIGITS:
            errors[name] = f"a whole number such as 6, not {_shown(text)}"
        else:
            job[name] = int(text)
    try:
        question = read_json(job)
    except QuestionError as error:
        raise QuestionError({**error.fields, **errors}) from None
    if errors:
        raise QuestionError(errors)
    return question


def _shown(text: str) -> str:
    shown = repr(text)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def answer(question: Question) -> dict[str, Any]:
    """The analyser's answer as ``analyze --json`` prints it; from the cache when asked before."""
    cache: AnswerCache = current_app.extensions["answers"]
    found = cache.get(question)
    if found is not None:
        return found
    answered = analyzer.answer(question)
    # An answer the time limit cut short (a lay-down not proven best, outs or discards left
    # unranked, a buy verdict stopped early, a search once down not complete) may come out
    # better next time: it is not kept.
    if answered.get("proven_optimal", True) and answered.get("complete", True) and not answered.get("unfinished"):
        cache.put(question, answered)
    return answered


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
