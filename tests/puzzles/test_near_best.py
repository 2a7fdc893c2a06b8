"""The rating's near-best term: a lay-down puzzle's ``margin["near_best"]``
is the number of distinct plays within ``NEAR_MARGIN`` points of the best (``near_best_plays``,
capped at ``NEAR_CAP``), it makes a position with many close plays rate harder than one with a
single play, ``verify`` re-derives it, and ``puzzles.rerate`` rewrites a bank's ratings without
touching ids or answers."""

from __future__ import annotations

import dataclasses

import pytest

from analyzer import near_best_plays
from puzzles.bank import read_puzzles, write_puzzles
from puzzles.daily import BAND, band_rating, eligible
from puzzles.generate import GENERATOR, NEAR_CAP, NEAR_MARGIN, difficulty, generate
from puzzles.rerate import RerateError, rerate, rerate_file
from puzzles.verify import verify


def _lay_down_puzzle(seed_from: int = 0):
    for seed in range(seed_from, seed_from + 60):
        puzzle = generate("lay-down", "progressive", 1 + seed % 7, seed)
        if puzzle is not None and puzzle.best_points is not None:
            return puzzle
    raise AssertionError("no lay-down puzzle in 60 seeds")


def test_many_near_best_plays_rate_harder_than_one_otherwise_equal() -> None:
    puzzle = _lay_down_puzzle()
    ratings = {}
    for near in (1, 2, 4, NEAR_CAP):
        changed = dataclasses.replace(puzzle, margin=dataclasses.replace(puzzle.margin, near_best=near))
        ratings[near] = difficulty(changed)
    assert ratings[1] < ratings[2] < ratings[4] < ratings[NEAR_CAP]
    assert ratings[2] - ratings[1] == pytest.approx(100, abs=10)  # 100 a doubling (rounded to tens)
    cannot = dataclasses.replace(puzzle, margin=dataclasses.replace(puzzle.margin, near_best=0))
    assert difficulty(cannot) == ratings[1]  # no play, or one: no term


def test_the_term_is_the_count_of_plays_near_the_best() -> None:
    for seed in range(40):
        puzzle = generate("lay-down", "progressive", 1 + seed % 7, seed)
        if puzzle is None or puzzle.best_points is None:
            continue
        counted = near_best_plays(puzzle.hand, puzzle.rules, puzzle.round, puzzle.players,
                                  margin=NEAR_MARGIN, cap=NEAR_CAP).count
        assert puzzle.margin.near_best == min(counted, NEAR_CAP) >= 1
        assert puzzle.generator == GENERATOR


def test_verify_re_derives_the_term() -> None:
    puzzle = _lay_down_puzzle()
    assert verify(puzzle) == []
    wrong = puzzle.margin.near_best % NEAR_CAP + 1
    tampered = dataclasses.replace(puzzle, margin=dataclasses.replace(puzzle.margin, near_best=wrong))
    assert any("margin" in problem for problem in verify(tampered))
    rerated = dataclasses.replace(tampered, rating=difficulty(tampered))
    problems = verify(rerated)
    assert any("margin" in problem for problem in problems)
    if rerated.rating != puzzle.rating:
        assert any("rating" in problem for problem in problems)


def test_rerate_keeps_ids_and_answers_and_is_what_generating_gives(tmp_path) -> None:
    puzzle = _lay_down_puzzle(7)
    old = dataclasses.replace(puzzle, generator="puzzles-1", rating=1500,
                              margin=dataclasses.replace(puzzle.margin, near_best=None))
    path = tmp_path / "shard.jsonl.gz"
    write_puzzles(path, [old])
    rerate_file(path)
    (new,) = read_puzzles(path)
    assert new.id == old.id and new.answers == old.answers and new.solution == old.solution
    assert new.to_dict() == puzzle.to_dict()  # the same seed generated now
    assert rerate(new) == new  # a fixed point


def test_rerate_refuses_a_puzzle_whose_answer_changed() -> None:
    puzzle = _lay_down_puzzle()
    with pytest.raises(RerateError):
        rerate(dataclasses.replace(puzzle, best_points=(puzzle.best_points or 0) + 1))


def test_the_shipped_lay_downs_carry_the_term() -> None:
    puzzles = read_puzzles("puzzles/bank/progressive-lay-down.jsonl.gz")
    assert all(puzzle.margin.near_best is not None for puzzle in puzzles)
    counts = [puzzle.margin.near_best for puzzle in puzzles if puzzle.best_points is not None]
    assert min(counts) >= 1 and max(counts) > 1
    for puzzle in puzzles:
        assert puzzle.rating == difficulty(puzzle)
        assert puzzle.generator == GENERATOR
    assert max(counts) <= NEAR_CAP


def test_the_daily_band_reads_the_rating_without_the_term() -> None:
    # Re-rating the bank must not re-deal the daily calendar: the band reads the rating the
    # position had before the near-best term.
    puzzle = _lay_down_puzzle()
    base = difficulty(puzzle, near_best=False)
    crowded = dataclasses.replace(puzzle, margin=dataclasses.replace(puzzle.margin, near_best=NEAR_CAP))
    crowded = dataclasses.replace(crowded, rating=difficulty(crowded))
    assert crowded.rating > base == band_rating(crowded)
    if BAND[0] <= base <= BAND[1]:
        assert crowded in eligible([crowded])[crowded.rules, "lay-down"]
    discard = dataclasses.replace(puzzle, kind="discard", margin=None, analysis=None, rating=1234)
    assert band_rating(discard) == 1234
