"""Contract Rummy analyser: the best lay-down of a round's contract, exactly, with CP-SAT.

Public API (the CLI, the puzzles and the web app use only this)::

    >>> from analyzer import analyze
    >>> result = analyze("7H 8H 9H 10H 5C 5D 5S", "progressive", 2)
    >>> result.can_lay_down, result.leftover_points
    (True, 0)

and advice for a hand that is not there yet (``advise``: outs, the discard table, buying)::

    >>> from analyzer import advise
    >>> advice = advise("7H 8H 10H 5C 5D 5S", "progressive", 2, players=4)
    >>> advice.lay_down.cards_away, [(out.card.token, out.unseen) for out in advice.outs]
    (1, [('9H', 2), ('JK', 1)])
"""

from __future__ import annotations

from typing import Iterable

from analyzer.advice import Advice, DiscardRow, Out, advise
from analyzer.buy import AdviceError, BuyAdvice, BuyOption, Verdict
from analyzer.cards import JOKER, Card, CardError, Rank, Suit, parse_cards
from analyzer.hand import HandError, read_hand
from analyzer.result import LayDown, PlacedMeld
from analyzer.rules import PRESETS, MeldKind, MeldSpec, Rules, RulesError, load_rules, preset

DEFAULT_TIME_LIMIT = 5.0  # seconds; far above what real hands need (see benchmarks)

__all__ = [
    "Advice", "AdviceError", "BuyAdvice", "BuyOption", "DiscardRow", "Out", "Verdict", "advise",
    "analyze", "Card", "CardError", "HandError", "JOKER", "LayDown", "MeldKind", "MeldSpec",
    "PlacedMeld", "PRESETS", "Rank", "Rules", "RulesError", "Suit", "load_rules", "parse_cards",
    "preset", "read_hand",
]


def analyze(
    hand: str | Iterable[Card],
    rules: str | Rules = "progressive",
    round_number: int = 1,
    players: int | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> LayDown:
    """Best lay-down of round ``round_number``'s contract for ``hand`` under ``rules``.

    Raises ``HandError`` or ``RulesError`` (both ``ValueError``) for input a user can get wrong.
    """
    from analyzer.solver import solve_lay_down

    rule_set = load_rules(rules) if isinstance(rules, str) else rules
    rule_set.round(round_number)
    deck = rule_set.deck_for(players)
    cards = read_hand(hand, rule_set, players)
    return solve_lay_down(cards, rule_set, round_number, deck, time_limit)
