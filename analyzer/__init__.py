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
from analyzer.round_solver import RoundSolver
from analyzer.rules import PRESETS, MeldKind, MeldSpec, Rules, RulesError, load_rules, preset
from analyzer.turn import Moment, TurnPlay, answer_turn, place_in_turn, read_moment

DEFAULT_TIME_LIMIT = 5.0  # seconds; far above what real hands need (see benchmarks)

__all__ = [
    "Advice", "AdviceError", "BuyAdvice", "BuyOption", "DiscardRow", "Out", "Verdict", "advise",
    "analyze", "Moment", "TurnPlay", "Card", "CardError", "HandError", "JOKER", "LayDown", "MeldKind", "MeldSpec",
    "PlacedMeld", "PRESETS", "Rank", "Rules", "RulesError", "Suit", "load_rules", "parse_cards",
    "preset", "read_hand",
]


def analyze(
    hand: str | Iterable[Card],
    rules: str | Rules = "progressive",
    round_number: int = 1,
    players: int | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
    moment: Moment | str | None = None,
) -> LayDown:
    """The analysis of ``hand`` in round ``round_number`` under ``rules``, where it stands in its
    turn: ``moment`` (``"before-draw"`` or ``"after-draw"``), or told from the hand's size.
    After the draw a hand that can lay down gets the turn's best play (melds, discard, going
    out); otherwise the best lay-down, or how many cards away it is (docs/lay-down.md).

    Raises ``HandError`` or ``RulesError`` (both ``ValueError``) for input a user can get wrong,
    a hand size no turn of the round gives among them.
    """
    rule_set = load_rules(rules) if isinstance(rules, str) else rules
    rule_set.round(round_number)
    deck = rule_set.deck_for(players)
    cards = read_hand(hand, rule_set, players)
    place = place_in_turn(rule_set, round_number, len(cards), read_moment(moment))
    return answer_turn(RoundSolver(rule_set, round_number, deck, time_limit), cards, place)
