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

and one question as data, the fields of an ``analyze --batch`` line, answered with the JSON of
``analyze --json`` (``Question.from_json`` names every bad field at once)::

    >>> from analyzer import Question, answer
    >>> answer(Question.from_json({"hand": "7H 8H 9H 10H 5C 5D 5S", "round": 2}))["leftover_points"]
    0
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

DEFAULT_TIME_LIMIT = 60.0  # seconds for a whole answer (lay-down, outs, discard table, buy verdict)

# Names are imported when first used (PEP 562), so ``import analyzer`` stays light: the command
# sets up its Ctrl-C handling before CP-SAT and numpy (which starts threads) are loaded.
_HOMES = {
    "analyzer.advice": ("OUTS_COUNT_WITHIN", "Advice", "DiscardRow", "Out"),
    "analyzer.api": ("advise", "advised_play", "analyze"),
    "analyzer.arguments": ("OptionError",),
    "analyzer.command": ("end_on_interrupt",),
    "analyzer.down": ("DownAdvice", "DownRow", "DrawOption", "FaceUp", "FaceUpChoice", "advise_down", "read_melds",
                      "read_table"),
    "analyzer.buy": ("AdviceError", "BuyAdvice", "BuyAnswer", "BuyObjective", "BuyOption", "Verdict", "answer_buy",
                     "why_still"),
    "analyzer.cards": ("JOKER", "Card", "CardError", "Rank", "Suit", "parse_cards"),
    "analyzer.hand": ("HandError", "read_hand"),
    "analyzer.melds": ("HIGH_ACE", "LOW_ACE", "card_at", "card_places", "run_ends", "run_span", "wild_cards"),
    "analyzer.moves": ("End", "LayOff", "Substitution", "TableError", "Turn"),
    "analyzer.near_best": ("NearBest", "NearPlay", "near_best_plays"),
    "analyzer.question": ("Limits", "Question", "QuestionError", "answer"),
    "analyzer.records": ("Decision", "DecisionKind", "RecordError", "Recorder", "Replayed", "RoundReplay",
                         "card_of", "game_record", "read_record", "replay", "write_record"),
    "analyzer.render": ("DISCARD_COLUMNS", "DOWN_COLUMNS", "lay_off_notes"),
    "analyzer.result": ("LayDown", "PlacedMeld"),
    "analyzer.review": ("Review", "Reviewed", "render_review", "review_game"),
    "analyzer.round_solver": ("RoundSolver",),
    "analyzer.rules": ("PRESETS", "TITLES", "ContractMode", "DiscardToGoOut", "JokerSubstitution", "MeldKind",
                       "MeldSpec", "Rules", "RulesError", "SameSuitRuns", "check_rules", "load_rules", "preset"),
    "analyzer.simulate": ("Event", "EventKind", "Outcome", "Play", "Policy", "Position", "SeatView", "SimulatedPlayer",
                          "Table", "deck_cards", "extend_meld"),
    "analyzer.stats": ("Interval", "interval"),
    "analyzer.solver.bounds": ("kept_at_least", "wild_cards_short"),
    "analyzer.solver.work": ("deterministic_work", "work_limit"),
    "analyzer.turn": ("Moment", "TurnPlay", "hand_sizes", "place_in_turn", "witness_turn_end"),
    "analyzer.validate": ("validate_lay_down",),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "DISCARD_COLUMNS",
    "DOWN_COLUMNS",
    "HIGH_ACE",
    "JOKER",
    "LOW_ACE",
    "OUTS_COUNT_WITHIN",
    "PRESETS",
    "TITLES",
    "Advice",
    "AdviceError",
    "BuyAdvice",
    "BuyAnswer",
    "BuyObjective",
    "BuyOption",
    "Card",
    "CardError",
    "ContractMode",
    "Decision",
    "DecisionKind",
    "DiscardRow",
    "DiscardToGoOut",
    "DownAdvice",
    "DownRow",
    "DrawOption",
    "End",
    "Event",
    "EventKind",
    "FaceUp",
    "FaceUpChoice",
    "HandError",
    "Interval",
    "JokerSubstitution",
    "LayDown",
    "LayOff",
    "Limits",
    "MeldKind",
    "MeldSpec",
    "Moment",
    "NearBest",
    "NearPlay",
    "OptionError",
    "Out",
    "Outcome",
    "PlacedMeld",
    "Play",
    "Policy",
    "Position",
    "Question",
    "QuestionError",
    "Rank",
    "RecordError",
    "Recorder",
    "Replayed",
    "Review",
    "Reviewed",
    "RoundReplay",
    "RoundSolver",
    "Rules",
    "RulesError",
    "SameSuitRuns",
    "SeatView",
    "SimulatedPlayer",
    "Substitution",
    "Suit",
    "Table",
    "TableError",
    "Turn",
    "TurnPlay",
    "Verdict",
    "advise",
    "advise_down",
    "advised_play",
    "analyze",
    "answer",
    "answer_buy",
    "card_at",
    "card_of",
    "card_places",
    "check_rules",
    "deck_cards",
    "deterministic_work",
    "end_on_interrupt",
    "extend_meld",
    "game_record",
    "hand_sizes",
    "interval",
    "kept_at_least",
    "lay_off_notes",
    "load_rules",
    "near_best_plays",
    "parse_cards",
    "place_in_turn",
    "preset",
    "read_hand",
    "read_melds",
    "read_record",
    "read_table",
    "render_review",
    "replay",
    "review_game",
    "run_ends",
    "run_span",
    "validate_lay_down",
    "why_still",
    "wild_cards",
    "wild_cards_short",
    "witness_turn_end",
    "work_limit",
    "write_record",
]

if TYPE_CHECKING:
    from analyzer.advice import OUTS_COUNT_WITHIN, Advice, DiscardRow, Out
    from analyzer.api import advise, advised_play, analyze
    from analyzer.arguments import OptionError
    from analyzer.buy import (
        AdviceError,
        BuyAdvice,
        BuyAnswer,
        BuyObjective,
        BuyOption,
        Verdict,
        answer_buy,
        why_still,
    )
    from analyzer.cards import JOKER, Card, CardError, Rank, Suit, parse_cards
    from analyzer.command import end_on_interrupt
    from analyzer.down import (
        DownAdvice,
        DownRow,
        DrawOption,
        FaceUp,
        FaceUpChoice,
        advise_down,
        read_melds,
        read_table,
    )
    from analyzer.hand import HandError, read_hand
    from analyzer.melds import HIGH_ACE, LOW_ACE, card_at, card_places, run_ends, run_span, wild_cards
    from analyzer.moves import End, LayOff, Substitution, TableError, Turn
    from analyzer.near_best import NearBest, NearPlay, near_best_plays
    from analyzer.question import Limits, Question, QuestionError, answer
    from analyzer.records import (
        Decision,
        DecisionKind,
        Recorder,
        RecordError,
        Replayed,
        RoundReplay,
        card_of,
        game_record,
        read_record,
        replay,
        write_record,
    )
    from analyzer.render import DISCARD_COLUMNS, DOWN_COLUMNS, lay_off_notes
    from analyzer.result import LayDown, PlacedMeld
    from analyzer.review import Review, Reviewed, render_review, review_game
    from analyzer.round_solver import RoundSolver
    from analyzer.rules import (
        PRESETS,
        TITLES,
        ContractMode,
        DiscardToGoOut,
        JokerSubstitution,
        MeldKind,
        MeldSpec,
        Rules,
        RulesError,
        SameSuitRuns,
        check_rules,
        load_rules,
        preset,
    )
    from analyzer.simulate import (
        Event,
        EventKind,
        Outcome,
        Play,
        Policy,
        Position,
        SeatView,
        SimulatedPlayer,
        Table,
        deck_cards,
        extend_meld,
    )
    from analyzer.solver.bounds import kept_at_least, wild_cards_short
    from analyzer.solver.work import deterministic_work, work_limit
    from analyzer.stats import Interval, interval
    from analyzer.turn import Moment, TurnPlay, hand_sizes, place_in_turn, witness_turn_end
    from analyzer.validate import validate_lay_down


def __getattr__(name: str) -> Any:
    if name not in _HOME_OF:
        raise AttributeError(f"module 'analyzer' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME_OF[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOME_OF])
