"""The public entry points, ``analyze``, ``advise`` and ``advised_play``, with their arguments checked first
(``analyzer.arguments``); ``analyzer`` re-exports them."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from typing import Any, ParamSpec, TypeVar

from analyzer import DEFAULT_TIME_LIMIT
from analyzer import advice as _advice
from analyzer.advice import Asked
from analyzer.arguments import (
    ARGUMENT_NAMES,
    FIELDS,
    Kind,
    cards_argument,
    flag,
    offered_card,
    optional_whole_number,
    rules_in_use,
    time_limit_in_seconds,
    whole_number,
)
from analyzer.cards import Card
from analyzer.result import LayDown
from analyzer.rules import Rules
from analyzer.turn import Moment, answer_turn

P = ParamSpec("P")
R = TypeVar("R")


def analyze(
    hand: str | Iterable[Card],
    rules: str | Rules = "progressive",
    round_number: int = 1,
    players: int | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
    moment: Moment | str | None = None,
    buys_used: int = 0,
) -> LayDown:
    """The analysis of ``hand`` in round ``round_number`` under ``rules``, where it stands in its
    turn: ``moment`` (``"before-draw"`` or ``"after-draw"``), or told from the hand's size.
    ``buys_used``: the buys the player has made this round, where buying is unlimited and the
    hand holds more cards than the buys the analyser otherwise reads give (``hand_sizes``).
    After the draw a hand that can lay down gets the turn's best play (melds, discard, going
    out); otherwise the best lay-down, or how many cards away it is (docs/lay-down.md).

    ``hand`` is text or a list of cards and card tokens (``["7H", "8H", "JK"]``).

    Raises ``HandError``, ``RulesError``, ``OptionError`` or ``AdviceError`` (all ``ValueError``)
    for input a user can get wrong (a hand size no turn of the round gives among them; a time
    limit of 0; more buys than the round allows), and
    ``TypeError`` for an argument of the wrong type. A ``Rules`` value passes ``check_rules``.
    """
    rule_set = _rules_checked(rules)
    round_number = whole_number(round_number, "round_number")
    players = optional_whole_number(players, "players")
    time_limit = time_limit_in_seconds(time_limit)
    buys_used = whole_number(buys_used, "buys_used")
    asked = Asked.read(hand, rule_set, round_number, players, (), buys_used, moment)
    # One budget for the whole answer: the turn's best play may take several solves.
    return answer_turn(asked.solver(time_limit), asked.cards, asked.place)


# Rule sets that passed ``check_rules`` lately, by identity (each kept here, so that its id is
# not reused): a ``Rules`` is frozen, so the same object passes again. Callers that analyse hand
# after hand under one rule set (the puzzle generator, benchmarks) have it checked once; the
# check was a twentieth of a typical lay-down's time.
_PASSED: dict[int, Rules] = {}
_PASSED_AT_MOST = 32


def _rules_checked(rules: str | Rules) -> Rules:
    if isinstance(rules, Rules) and _PASSED.get(id(rules)) is rules:
        return rules
    rule_set = rules_in_use(rules)
    if rule_set is rules:
        if len(_PASSED) >= _PASSED_AT_MOST:
            _PASSED.clear()
        _PASSED[id(rule_set)] = rule_set
    return rule_set


def _checks(function: Callable[..., Any]) -> dict[str, Callable[[Any], Any]]:
    """The check of each argument of ``function`` that is a question's field, by the field's
    kind: a TypeError naming the argument for a wrong type (None allowed where it is the
    default), the value as the analyser takes it."""
    parameters = inspect.signature(function).parameters
    checks: dict[str, Callable[[Any], Any]] = {}
    for field, kind in FIELDS.items():
        name = ARGUMENT_NAMES.get(field, field)
        if name not in parameters:
            continue
        optional = parameters[name].default is None
        if kind is Kind.WHOLE:
            checks[name] = functools.partial(optional_whole_number if optional else whole_number, name=name)
        elif kind is Kind.FLAG:
            checks[name] = functools.partial(flag, name=name)
        elif kind is Kind.SECONDS:
            checks[name] = _none_or(time_limit_in_seconds) if optional else time_limit_in_seconds
    checks.update({"rules": _rules_checked, "seen": lambda value: cards_argument(value, "the seen cards"),
                   "buy": offered_card, "simulate_buy": functools.partial(flag, name="simulate_buy"),
                   "best_discards": functools.partial(flag, name="best_discards")})
    # (the texts a Python caller may also give as values; ``simulate_buy`` and ``best_discards``
    # are advise's own)
    return {name: check for name, check in checks.items() if name in parameters}


def _none_or(check: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else check(value)


def _checked(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` with its arguments checked first, as ``analyze`` checks its own, then handed
    on: wrong types are a TypeError naming the argument, a Rules value passes check_rules."""
    signature, checks = inspect.signature(function), _checks(function)

    @functools.wraps(function)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        given = signature.bind(*args, **kwargs).arguments
        for name, check in checks.items():
            if name in given:
                given[name] = check(given[name])
        return function(**given)  # type: ignore[call-arg]

    return checked


advise = _checked(_advice.advise)
advised_play = _checked(_advice.advised_play)
