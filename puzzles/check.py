"""Scoring a lay-down answer with the analyser's independent validator, never a string compare.

A play is legal when its melds are a legal lay-down (``analyzer.validate_lay_down``) of the hand
less the discard, and the turn ends as the rules say (docs/lay-down.md, "The best play of a
turn"): a discard is one of the cards no meld takes; no discard only when every card is melded
and the rules let a player go out that way (always in a go-out round, where no card is
discarded); going out by discarding the last card only where that is allowed. An answer is right
when it is legal and keeps the puzzle's fewest points when the turn ends, or when it says
"cannot" and no lay-down exists.

    >>> from analyzer import MeldKind, PlacedMeld, parse_cards, preset
    >>> hand = parse_cards("5C 5D 5S 9H 9S 9C KD")
    >>> fives, nines = hand[0:3], hand[3:6]
    >>> sets = (PlacedMeld(MeldKind.SET, fives, fives), PlacedMeld(MeldKind.SET, nines, nines))
    >>> play_problems(hand, preset("progressive"), 1, LayDownAnswer(sets, hand[6]))
    ([], 0)
    >>> play_problems(hand, preset("progressive"), 1, LayDownAnswer(sets, None))[0]
    ['the turn ends with a discard, but no card is discarded']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from analyzer import Card, DiscardToGoOut, Rules, preset, validate_lay_down
from puzzles.model import Kind, LayDownAnswer, Puzzle


@dataclass(frozen=True)
class Judgement:
    """A lay-down judged: right or not, and why not (``analyzer.Verdict`` is a buy's verdict)."""

    right: bool
    problems: tuple[str, ...]  # why the play is illegal (empty: legal, or a "cannot")
    points: int | None  # held when the turn ends, for a legal play


def play_problems(
    hand: Sequence[Card], rules: Rules, round_number: int, play: LayDownAnswer
) -> tuple[list[str], int | None]:
    """Every way ``play`` breaks the rules of a turn after the draw, and the points it keeps when
    the turn ends (None when it is illegal)."""
    if play.cannot:
        return ["not a play: the answer is 'cannot'"], None
    round_rule = rules.round(round_number)
    problems: list[str] = []
    rest = Counter(hand)
    if play.discard is not None:
        if round_rule.go_out:
            problems.append(
                f"round {round_number} is a go-out round: every card is melded and none discarded"
            )
        if rest[play.discard] <= 0:
            problems.append(f"the discard {play.discard.token} is not in the hand")
        else:
            rest[play.discard] -= 1
    melded = Counter(card for meld in play.melds for card in meld.cards)
    leftover = sorted((rest - melded).elements(), key=Card.sort_key)
    problems += validate_lay_down(
        sorted(rest.elements(), key=Card.sort_key), rules, round_number, play.melds, leftover
    )
    if not round_rule.go_out:
        if play.discard is None and leftover:
            problems.append("the turn ends with a discard, but no card is discarded")
        elif play.discard is None and rules.discard_to_go_out == DiscardToGoOut.REQUIRED:
            problems.append("going out needs a discard under these rules, and every card is melded")
        elif play.discard is not None and not leftover and rules.discard_to_go_out == DiscardToGoOut.NEVER:
            problems.append("these rules do not let a player go out by discarding the last card")
    if problems:
        return problems, None
    return [], sum(rules.points_of(card) for card in leftover)


def check_lay_down(puzzle: Puzzle, answer: LayDownAnswer) -> Judgement:
    """Score ``answer`` to a lay-down puzzle against its accepted answers."""
    if puzzle.kind is not Kind.LAY_DOWN:
        raise ValueError(f"puzzle {puzzle.id} is a {puzzle.kind} puzzle, not a lay-down puzzle")
    can = puzzle.best_points is not None
    if answer.cannot:
        return Judgement(not can, (), None)
    problems, points = play_problems(puzzle.hand, preset(puzzle.rules), puzzle.round, answer)
    return Judgement(points is not None and points == puzzle.best_points, tuple(problems), points)


def check_answer(puzzle: Puzzle, answer: str | LayDownAnswer) -> bool:
    """Whether ``answer`` is right: a ``LayDownAnswer`` for a lay-down puzzle, a card token for a
    discard puzzle (any spelling), ``buy`` or ``pass`` for a buy puzzle."""
    if puzzle.kind is Kind.LAY_DOWN:
        if not isinstance(answer, LayDownAnswer):
            raise TypeError("a lay-down puzzle is answered with a LayDownAnswer")
        return check_lay_down(puzzle, answer).right
    if not isinstance(answer, str):
        raise TypeError(f"a {puzzle.kind} puzzle is answered with text")
    if puzzle.kind is Kind.DISCARD:
        try:
            token = Card.parse(answer.strip()).token
        except ValueError:
            return False
        return token in puzzle.answers
    return answer.strip().lower() in puzzle.answers
