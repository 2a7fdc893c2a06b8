"""The public API's arguments checked before any work: wrong types are a ``TypeError`` that
names the argument, values out of range a ``ValueError`` subclass (``RulesError``,
``HandError``, ``OptionError``), never an ``AttributeError`` from deep inside."""

from __future__ import annotations

import enum
import math
from typing import Any

from analyzer.cards import Card, CardError, cards_from
from analyzer.hand import HandError
from analyzer.rules import Rules, check_rules, load_rules

MAX_TIME_LIMIT = 3600.0  # seconds; an hour for one solver call is already far past any real hand


class Kind(enum.Enum):
    """What a question's field is, in the words an error about its JSON value uses."""

    TEXT = "text"
    WHOLE = "a whole number"
    SECONDS = "a number of seconds"
    FLAG = "true or false"


# A question's fields (``analyzer.Question``, a batch line, the web API), in the order the
# command's help gives them; ``analyze`` and ``advise`` take them by these names but the round's.
FIELDS: dict[str, Kind] = {
    "hand": Kind.TEXT, "rules": Kind.TEXT, "round": Kind.WHOLE, "players": Kind.WHOLE, "moment": Kind.TEXT,
    "time_limit": Kind.SECONDS, "seen": Kind.TEXT, "outs": Kind.FLAG, "discards": Kind.FLAG, "buy": Kind.TEXT,
    "turn": Kind.WHOLE, "horizon": Kind.WHOLE, "rollouts": Kind.WHOLE, "seed": Kind.WHOLE, "buys_used": Kind.WHOLE,
    "bought_last": Kind.FLAG, "down": Kind.TEXT, "table": Kind.TEXT, "face_up": Kind.TEXT,
}
ARGUMENT_NAMES = {"round": "round_number"}  # a field's name as a Python argument, where it differs
BUY_ONLY = ("turn", "horizon", "rollouts", "seed", "bought_last")  # the buy verdict's options
DOWN_ONLY = ("table", "face_up")  # the options of the advice once the contract is down ("down": your melds)
# the fields a question once down has no use for (``buys_used``: the hand sizes it reads, and
# with ``buy`` whether another buy is allowed)
NOT_DOWN = ("moment", "outs", "discards", "buy", "buys_used", *BUY_ONLY)


class OptionError(ValueError):
    """An option of ``analyze`` or ``advise`` outside what it can mean (a time limit of 0)."""


def rules_in_use(rules: Any) -> Rules:
    """A rule set by name or file (``load_rules``), or a ``Rules`` value once it passes ``check_rules``."""
    if isinstance(rules, str):
        return load_rules(rules)
    if isinstance(rules, Rules):
        return check_rules(rules, rules.name if isinstance(rules.name, str) else "rules")
    raise TypeError(f"rules must be a rule set's name, a .toml file or a Rules value, not {type(rules).__name__}")


def whole_number(value: Any, name: str) -> int:
    """``value`` if it is an ``int`` (never a bool)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a whole number, not {type(value).__name__} {_short(value)}")
    return value


def optional_whole_number(value: Any, name: str) -> int | None:
    """``value`` if it is None or an ``int`` (never a bool)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise TypeError(f"{name} must be a whole number or None, not {type(value).__name__} {_short(value)}")
    return value


def flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__} {_short(value)}")
    return value


def time_limit_in_seconds(value: Any) -> float:
    """A positive, finite number of seconds, at most an hour: 0, negative or NaN would turn "not
    found in time" into "impossible"."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"time_limit must be a number of seconds, not {type(value).__name__} {_short(value)}")
    if not (math.isfinite(value) and 0 < value <= MAX_TIME_LIMIT):
        raise OptionError(f"a time limit is a number of seconds above 0 and at most {MAX_TIME_LIMIT:g}, "
                          f"not {_short(value)}")
    return float(value)


def cards_argument(value: Any, what: str) -> tuple[Card, ...]:
    """Cards given as text or a list of cards and tokens; a bad token is a ``HandError`` naming ``what``."""
    try:
        return cards_from(value, what)
    except CardError as error:
        raise HandError(f"{what}: {error}") from None


def offered_card(value: Any) -> Card | str | None:
    """``buy``: a ``Card``, a token such as ``'9H'`` (read, and counted, by ``advise``) or None."""
    if value is None or isinstance(value, (Card, str)):
        return value
    raise TypeError(f"buy must be a card such as '9H' or a Card, not {type(value).__name__}")


def _short(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**12:
        return "(a number far too large)"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
