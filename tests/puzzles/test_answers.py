"""Answers as typed values: each kind's JSON round trip, scoring from the value (a stored answer
is scored again from what it reads back as), the readings of wild cards by their places, and
what is not an answer to a puzzle."""

from __future__ import annotations

import dataclasses
import functools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analyzer import Card, MeldKind, Moment, PlacedMeld, parse_cards, preset
from puzzles.answers import (
    AnswerError,
    BuyChoice,
    DiscardChoice,
    IncompleteAnswer,
    WrittenPlay,
    answer_from_dict,
    check_complete,
    check_held,
    incomplete,
    meld_readings,
    score,
)
from puzzles.bank import BANK_DIR, read_puzzles
from puzzles.check import check_lay_down
from puzzles.model import Kind, Puzzle


@functools.cache
def shipped(kind: Kind, rules: str = "progressive") -> tuple[Puzzle, ...]:
    return tuple(read_puzzles(BANK_DIR / f"{rules}-{kind}.jsonl.gz"))


def _written_solution(puzzle: Puzzle, rng: random.Random, *, say_wilds: bool) -> WrittenPlay:
    """The stored best play as a player writes it: every wild card said (``JK=3H``) or left to
    its place."""
    rules = preset(puzzle.rules)
    assert puzzle.solution is not None
    rows = []
    for meld in puzzle.solution.melds:
        row = [(card, meaning if say_wilds and rules.is_wild(card) and card != meaning else None)
               for card, meaning in zip(meld.cards, meld.stands_for)]
        if meld.kind != MeldKind.RUN:
            rng.shuffle(row)  # a set's order is free
        rows.append(tuple(row))
    return WrittenPlay(tuple(rows), puzzle.solution.discard)


@given(st.data())
def test_every_kind_of_answer_reads_back_from_its_json(data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(list(Kind)))
    puzzle = data.draw(st.sampled_from(shipped(kind)))
    if kind is Kind.DISCARD:
        answer: DiscardChoice | BuyChoice | WrittenPlay = DiscardChoice(data.draw(st.sampled_from(puzzle.hand)))
    elif kind is Kind.BUY:
        answer = BuyChoice(data.draw(st.booleans()))
    elif puzzle.solution is None or puzzle.solution.cannot or data.draw(st.booleans()):
        answer = WrittenPlay(cannot=True)
    else:
        answer = _written_solution(puzzle, random.Random(data.draw(st.integers())), say_wilds=data.draw(st.booleans()))
    assert answer_from_dict(puzzle, answer.to_dict()) == answer


@pytest.mark.parametrize("rules", ["progressive", "shanghai", "eveleigh"])
def test_the_best_play_written_any_way_scores_right_and_again_from_its_json(rules: str) -> None:
    rng = random.Random(7)
    plays = [puzzle for puzzle in shipped(Kind.LAY_DOWN, rules) if puzzle.solution and not puzzle.solution.cannot]
    for puzzle in rng.sample(plays, 12):
        for say_wilds in (False, True):
            answer = _written_solution(puzzle, rng, say_wilds=say_wilds)
            scored = score(puzzle, answer)
            assert scored.right and not scored.problems and scored.points == puzzle.best_points, puzzle.id
            assert scored.play is not None and check_lay_down(puzzle, scored.play).right
            again = score(puzzle, answer_from_dict(puzzle, scored.answer.to_dict()))
            assert again == scored


def test_discards_and_buys_score_by_the_accepted_answers() -> None:
    for puzzle in shipped(Kind.DISCARD)[:20]:
        for card in set(puzzle.hand):
            assert score(puzzle, DiscardChoice(card)).right == (card.token in puzzle.answers)
    for puzzle in shipped(Kind.BUY)[:20]:
        for buy in (True, False):
            assert score(puzzle, BuyChoice(buy)).right == (BuyChoice(buy).choice in puzzle.answers)


def test_cannot_is_right_exactly_when_no_lay_down_exists() -> None:
    for puzzle in shipped(Kind.LAY_DOWN)[:40]:
        assert score(puzzle, WrittenPlay(cannot=True)).right == (puzzle.best_points is None)


def test_a_wild_card_stands_for_its_place_in_a_run_and_the_free_suit_in_a_set() -> None:
    rules = preset("progressive")
    joker, = parse_cards("JK")
    gap = [(card, None) for card in parse_cards("4H 5H JK 7H")]
    assert PlacedMeld(MeldKind.RUN, parse_cards("4H 5H JK 7H"), parse_cards("4H 5H 6H 7H")) in meld_readings(
        gap, MeldKind.RUN, rules)
    ace_high = [(card, None) for card in parse_cards("QS KS JK")]
    readings = meld_readings(ace_high, MeldKind.RUN, rules)
    assert [meld.stands_for[-1].token for meld in readings][:1] == ["AS"]  # the place after the king
    assert all(meld.cards[:2] == parse_cards("QS KS") or meld.cards[0] == joker for meld in readings)
    nines = [(card, None) for card in parse_cards("9H JK 9C")]
    (set_reading,) = meld_readings(nines, MeldKind.SET, rules)
    assert set_reading.stands_for == parse_cards("9H 9D 9C")  # the first suit the naturals leave free


def _lay_down(hand: str) -> Puzzle:
    return Puzzle(kind=Kind.LAY_DOWN, rules="progressive", round=1, players=4, moment=Moment.AFTER_DRAW,
                  hand=parse_cards(hand))


def test_what_is_not_an_answer_to_the_puzzle_is_refused() -> None:
    puzzle = _lay_down("5C 5D 5S 9H 9S 9C KD")
    fives = tuple((card, None) for card in parse_cards("5C 5D 5S"))
    with pytest.raises(AnswerError, match="not in your hand"):
        check_held(puzzle, WrittenPlay((fives, ((Card.parse("QH"), None),)), None))
    with pytest.raises(AnswerError, match="used 2 times"):
        check_held(puzzle, WrittenPlay((fives, fives[:1]), None))
    with pytest.raises(AnswerError, match="no meld-2"):
        check_held(puzzle, WrittenPlay((fives, (), ()), None))
    with pytest.raises(AnswerError, match="each meld in its row"):
        check_held(puzzle, WrittenPlay(((), ()), Card.parse("KD")))
    with pytest.raises(AnswerError, match="WrittenPlay"):
        check_held(puzzle, DiscardChoice(Card.parse("KD")))
    with pytest.raises(AnswerError, match="Buy or Pass"):
        answer_from_dict(shipped(Kind.BUY)[0], {"choice": "maybe"})
    with pytest.raises(AnswerError, match="only a wild card"):
        answer_from_dict(puzzle, {"melds": ["5C=5H 5D 5S"], "discard": "KD"})


def _rows(*texts: str) -> tuple[tuple[tuple[Card, None], ...], ...]:
    return tuple(tuple((card, None) for card in parse_cards(text)) if text else () for text in texts)


def test_a_lay_down_not_yet_a_play_is_incomplete_beside_its_row_and_a_whole_one_is_not() -> None:
    puzzle = _lay_down("5C 5D 5S 9H 9S 9C KD")
    kd = Card.parse("KD")
    assert incomplete(puzzle, WrittenPlay(_rows("5C 5D 5S", "9H 9S 9C"), kd)) == ([None, None], None)
    assert incomplete(puzzle, WrittenPlay(_rows("5C 5D", "9H 9S 9C"), kd))[0][0] == "2 cards, but a set of 3 takes exactly 3"
    assert incomplete(puzzle, WrittenPlay(_rows("5C 5D 5S", ""), kd))[0][1] == "empty: put the cards of this set of 3 here"
    assert incomplete(puzzle, WrittenPlay(_rows("5C 5D 5S", "9H 9S 5S"), kd))[0][1] == "the 5S is already in meld 1"
    assert incomplete(puzzle, WrittenPlay(_rows("5C 5D 5S", "9H 9S 9C"), None))[1] == (
        "choose the card to discard: 1 card is left in your hand after your melds")
    with pytest.raises(IncompleteAnswer, match="meld 2: the QH is not in your hand"):
        check_complete(puzzle, WrittenPlay(_rows("5C 5D 5S", "9H 9S QH"), kd))
    with pytest.raises(AnswerError, match="each meld in its row"):
        check_complete(puzzle, WrittenPlay(_rows("", ""), kd))
    # a set of 5, 9 and K is complete: wrong, and scored so
    check_complete(puzzle, WrittenPlay(_rows("5C 9S KD", "9H 5D 5S"), Card.parse("9C")))


def test_sizes_are_exact_only_where_the_rules_say_and_rows_may_come_in_another_order() -> None:
    exact = Puzzle(kind=Kind.LAY_DOWN, rules="progressive", round=2, players=4, moment=Moment.AFTER_DRAW,
                   hand=parse_cards("5C 5D 5S 6H 7H 8H 9H 10H"))
    run_first = WrittenPlay(_rows("6H 7H 8H 9H", "5C 5D 5S"), Card.parse("10H"))
    assert incomplete(exact, run_first) == ([None, None], None)  # sizes fit the contract in another order
    longer = WrittenPlay(_rows("5C 5D 5S", "6H 7H 8H 9H 10H"), None)
    assert incomplete(exact, longer)[0][1] == "5 cards, but a run of 4 takes exactly 4"
    minimum = dataclasses.replace(exact, rules="shanghai")
    assert incomplete(minimum, longer) == ([None, None], None)  # melds may be longer; every card melded
