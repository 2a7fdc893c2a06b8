"""Each theme's predicate tags one puzzle and not another.

The puzzles are derived from hand-made positions (one from a shipped one) by the generator's
own ``derive`` (the analyser decides the answers), except the buy themes, whose verdicts take seconds each: those
are a real buy position with its verdict fields set by hand.
"""

from __future__ import annotations

import dataclasses
import functools

import pytest

from analyzer import parse_cards
from puzzles.bank import read_puzzles
from puzzles.generate import derive
from puzzles.model import BuyAnalysis, Puzzle
from puzzles.themes import THEMES, tag
from puzzles.verify import position_of


@functools.cache
def derived(kind: str, rules: str, round_number: int, hand: str) -> Puzzle:
    position = Puzzle(
        kind=kind,
        rules=rules,
        round=round_number,
        players=4,
        moment="after-draw",
        hand=parse_cards(hand),
        source="planted",
    )
    puzzle = derive(position)
    assert puzzle is not None, f"{hand} in {rules} round {round_number} is no longer a clear {kind} puzzle"
    return puzzle


def readme() -> Puzzle:  # the best play keeps 8 points, the obvious one 11
    return derived("lay-down", "progressive", 3, "6C 7C 8C 9C 10C AD 2D 3D 4D 5D 6D")


def touching_runs() -> Puzzle:  # 3-6 and 7-10 of diamonds touch: not two runs under no-touch
    return derived("lay-down", "progressive", 3, "3D 4D 5D 6D 7D 8D 9D 10D KS")


def two_jokers_one_set() -> Puzzle:  # Shanghai: at most one wild card per meld
    return derived("lay-down", "shanghai", 1, "9H 9S 9D 5C JK JK 3D 7S KD 4H 8C QS")


def low_ace() -> Puzzle:  # Shanghai: the ace is high only
    return derived("lay-down", "shanghai", 2, "AH 2H 3H 4H 7C 7D 7S 9C JD KS 5S 8D")


def joker_go_out() -> Puzzle:  # round 7's three runs of 4 from one suit and a joker, going out
    return derived("lay-down", "progressive", 7, "10C 3S 4S 5S 6S 6S 7S 8S 8S 9S 9S 10S JK")


def long_meld() -> Puzzle:  # May I?: melds may be longer than the contract
    return derived("lay-down", "may-i", 4, "2C 2C 3C 8C 10C 2D 3D 7D 8D 8D 3H JH JK")


def set_or_run() -> Puzzle:  # the jack: in the set of jacks, or the club run 8-J?
    return derived("lay-down", "progressive", 5, "2C 7C 8C 9C 10C JC KC KD KD JH 7S KS JK")


def unseen_lay_down() -> Puzzle:  # the hasty players see no lay-down; nothing else is a trap
    return derived("lay-down", "progressive", 2, "8C 2D 8D 4H 5H 6H 7H 8H")


def goes_out_against_the_rule() -> Puzzle:  # Shanghai (Powe): the hasty play goes out as the rules forbid
    return derived("lay-down", "shanghai-powe", 4, "3C 4C 4D 4D 7D 3H 4H 8H 8H 3S 8S")


def discard_goes_out() -> Puzzle:
    return derived("discard", "progressive", 1, "5C 5D 5S 9H 9S 9C KD")


@functools.cache
def discard_outs() -> Puzzle:
    """A shipped position whose answer keeps more unseen outs, and only that: a hand-made one
    (with no discard pile) seldom wins clearly enough in play to be accepted since generator
    puzzles-8. Derived again here from its position."""
    shipped = next(puzzle for puzzle in read_puzzles("puzzles/bank/contract-discard.jsonl.gz")
                   if puzzle.themes == ("more-outs",))
    return derive(position_of(shipped))


def discard_away() -> Puzzle:
    return derived("discard", "progressive", 2, "5C 5D 5S 7H 8H 10H 10S KD")


def discard_keeps_joker() -> Puzzle:
    return derived("discard", "progressive", 2, "5C 5D 5S 7H 8H JK KD 6H")


def buy(answer: str, away: int, with_card: int, needs_buying: bool = False) -> Puzzle:
    position = Puzzle(
        kind="buy",
        rules="progressive",
        round=2,
        players=4,
        moment="before-draw",
        hand=parse_cards("7H 8H 10H 5C 5D 5S KC"),
        offered=parse_cards("9H")[0],
        turn=2,
    )
    return dataclasses.replace(
        position,
        answers=(answer,),
        analysis=BuyAnalysis(verdict={}, second={}, cards_away=away, cards_away_with_card=with_card,
                             needs_buying=needs_buying, reason=""),
    )


CASES = {  # theme: (a puzzle it tags, a puzzle it does not)
    "joker-placement": (joker_go_out, readme),
    "same-suit-runs": (touching_runs, readme),
    "ace-high-or-low": (low_ace, touching_runs),
    "one-wild-per-meld": (two_jokers_one_set, low_ace),
    "go-out": (joker_go_out, readme),
    "set-or-run": (set_or_run, readme),
    "looks-ready": (touching_runs, readme),
    "points-trap": (readme, touching_runs),
    "long-melds": (long_meld, readme),
    "keep-the-wild": (discard_keeps_joker, discard_outs),
    "lay-down-now": (discard_goes_out, discard_outs),
    "fewer-cards-away": (discard_away, discard_outs),
    "more-outs": (discard_outs, discard_away),
    "buy-completes": (lambda: buy("buy", 1, 0), lambda: buy("buy", 2, 1)),
    "buy-gets-closer": (lambda: buy("buy", 2, 1), lambda: buy("buy", 1, 0)),
    "penalty-too-costly": (lambda: buy("pass", 2, 1), lambda: buy("buy", 2, 1)),
    "buy-the-round-needs": (lambda: buy("buy", 1, 0, True), lambda: buy("buy", 1, 0)),
    "straightforward-lay-down": (unseen_lay_down, readme),
    "last-card-rule": (goes_out_against_the_rule, readme),
    "card-does-not-help": (lambda: buy("pass", 2, 2), lambda: buy("pass", 2, 1)),
    "more-cards-more-chances": (lambda: buy("buy", 2, 2), lambda: buy("buy", 2, 1)),
    "wait-for-a-better-card": (lambda: buy("pass", 2, 2, True), lambda: buy("buy", 2, 2, True)),
}


def test_the_themes_are_a_closed_set_of_at_least_eight_each_with_a_case() -> None:
    assert len(THEMES) >= 8
    assert set(CASES) == set(THEMES)


@pytest.mark.parametrize("theme", sorted(CASES))
def test_the_theme_tags_one_puzzle_and_not_another(theme: str) -> None:
    tagged, untagged = (factory() for factory in CASES[theme])
    assert THEMES[theme](tagged)
    assert theme in tag(tagged)
    assert not THEMES[theme](untagged)
    assert theme not in tag(untagged)


def test_derived_puzzles_carry_their_tags() -> None:
    for factory in (readme, touching_runs, discard_outs):
        puzzle = factory()
        assert puzzle.themes == tag(puzzle)
