"""Choosing the next puzzle (webapp/choose.py): the pick satisfies the filters, is never excluded,
is among the NEAREST closest to the target, moves up with HARDER and down with EASIER; on
generated candidate lists (bank puzzles with other ratings and themes) and on the shipped bank."""

from __future__ import annotations

import dataclasses
import math
import random
import statistics
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analyzer import PRESETS
from puzzles.bank import load_bank
from puzzles.model import KINDS, Puzzle
from puzzles.themes import THEMES
from webapp.choose import (
    EASIER,
    HARDER,
    LEVEL,
    NEAREST,
    OFFSETS,
    ChoiceError,
    check_filters,
    choose_puzzle,
    closest_puzzles,
)


@cache
def bank() -> tuple[Puzzle, ...]:
    return tuple(load_bank())


def rating_of(puzzle: Puzzle, ratings: dict[str, float]) -> float:
    return ratings.get(puzzle.id, puzzle.rating)


@st.composite
def situations(draw: st.DrawFn) -> tuple[list[Puzzle], dict[str, float], float, dict[str, object]]:
    """Candidates (distinct bank positions given new initial ratings and themes), current ratings
    for some of them, a player rating, and filters that are sometimes unmatched."""
    chosen = draw(st.lists(st.sampled_from(bank()), max_size=40, unique_by=lambda puzzle: puzzle.id))
    candidates = [
        dataclasses.replace(
            puzzle,
            rating=draw(st.integers(600, 2600)),
            themes=tuple(draw(st.lists(st.sampled_from(list(THEMES)), max_size=3, unique=True))),
        )
        for puzzle in chosen
    ]
    ratings = {
        puzzle.id: draw(st.floats(400, 2800))
        for puzzle in candidates
        if draw(st.booleans())
    }
    present = sorted({puzzle.rules for puzzle in candidates}) or ["progressive"]
    filters: dict[str, object] = {
        "rules": draw(st.sampled_from(present + ["may-i"])),
        "kind": draw(st.none() | st.sampled_from(KINDS)),
        "theme": draw(st.none() | st.sampled_from(list(THEMES))),
        "offset": draw(st.sampled_from([EASIER, LEVEL, HARDER]) | st.integers(-1000, 1000)),
        "exclude": draw(st.sets(st.sampled_from([puzzle.id for puzzle in candidates] or ["none"]))),
    }
    return candidates, ratings, draw(st.floats(500, 2500)), filters


def eligible(candidates: list[Puzzle], filters: dict[str, object]) -> list[Puzzle]:
    return [
        puzzle
        for puzzle in candidates
        if puzzle.rules == filters["rules"]
        and filters["kind"] in (None, puzzle.kind)
        and (filters["theme"] is None or filters["theme"] in puzzle.themes)
        and puzzle.id not in filters["exclude"]  # type: ignore[operator]
    ]


@given(situation=situations(), seed=st.integers(0, 2**32))
def test_the_pick_is_eligible_and_among_the_nearest(
    situation: tuple[list[Puzzle], dict[str, float], float, dict[str, object]], seed: int
) -> None:
    candidates, ratings, player, filters = situation
    rng = random.Random(seed)
    pick = choose_puzzle(candidates, ratings, player, rng=rng, **filters)  # type: ignore[arg-type]
    allowed = eligible(candidates, filters)
    if not allowed:
        assert pick is None
        return
    assert pick is not None and pick in allowed
    assert pick.id not in filters["exclude"]  # type: ignore[operator]
    # Fewer than NEAREST eligible puzzles are strictly closer to the target than the pick.
    target = player + filters["offset"]  # type: ignore[operator]
    distance = abs(rating_of(pick, ratings) - target)
    closer = [puzzle for puzzle in allowed if abs(rating_of(puzzle, ratings) - target) < distance]
    assert len(closer) < NEAREST
    # With at most NEAREST eligible, any of them may come; the window is exactly that many.
    window = closest_puzzles(candidates, ratings, player, **filters)  # type: ignore[arg-type]
    assert len(window) == min(NEAREST, len(allowed)) and pick in window


@given(situation=situations())
def test_harder_chooses_among_higher_rated_puzzles(
    situation: tuple[list[Puzzle], dict[str, float], float, dict[str, object]]
) -> None:
    candidates, ratings, player, filters = situation
    windows = [
        sorted(rating_of(puzzle, ratings) for puzzle in closest_puzzles(
            candidates, ratings, player, **{**filters, "offset": offset}  # type: ignore[arg-type]
        ))
        for offset in (EASIER, LEVEL, HARDER)
    ]
    easier, level, harder = windows
    assert len(easier) == len(level) == len(harder)
    # Window by window, the k-th lowest rating never goes down as the target goes up, so a
    # random pick from the harder window is rated at least as high in expectation.
    for lower, higher in ((easier, level), (level, harder)):
        assert all(a <= b for a, b in zip(lower, higher))
        if lower:
            assert statistics.mean(lower) <= statistics.mean(higher)


def test_harder_and_easier_on_a_fixed_example() -> None:
    base = [puzzle for puzzle in bank() if puzzle.rules == "progressive" and puzzle.kind == "discard"][:60]
    ratings = {puzzle.id: 900.0 + 25 * number for number, puzzle in enumerate(base)}  # 900 to 2375
    picks: dict[str, list[float]] = {}
    for name, offset in OFFSETS.items():
        chosen = [
            choose_puzzle(base, ratings, 1600, rules="progressive", offset=offset, rng=random.Random(seed))
            for seed in range(40)
        ]
        picks[name] = [rating_of(puzzle, ratings) for puzzle in chosen if puzzle is not None]
        assert len(picks[name]) == 40
    # Twelve nearest to 1300, 1600, 1900 at 25-point spacing: within 150 of each target.
    assert all(1150 <= rating <= 1450 for rating in picks["easier"])
    assert all(1450 <= rating <= 1750 for rating in picks["level"])
    assert all(1750 <= rating <= 2050 for rating in picks["harder"])
    means = [statistics.mean(picks[name]) for name in ("easier", "level", "harder")]
    assert means == sorted(means) and len(set(means)) == 3


def test_the_order_varies_but_stays_near_the_level() -> None:
    candidates = [puzzle for puzzle in bank() if puzzle.rules == "progressive"]
    orders = set()
    for seed in range(10):
        rng, seen, order = random.Random(seed), set[str](), []
        for _ in range(5):
            pick = choose_puzzle(candidates, {}, 1500, rules="progressive", exclude=seen, rng=rng)
            assert pick is not None and pick.id not in seen
            seen.add(pick.id)
            order.append(pick.id)
        orders.add(tuple(order))
    assert len(orders) >= 8  # ten sessions, (nearly) ten different orders


def test_a_missing_rating_is_the_puzzles_own() -> None:
    low, high = (dataclasses.replace(puzzle, rating=value) for puzzle, value in zip(bank()[:2], (1000, 2000)))
    # Without a current rating each is at its initial rating; a current rating overrides it.
    assert low.rules == high.rules
    assert closest_puzzles([high, low], {}, 1100, rules=low.rules) == [low, high]
    assert closest_puzzles([high, low], {low.id: 2500.0}, 1100, rules=low.rules) == [high, low]


# ---- the shipped bank ---------------------------------------------------------------------------------


def test_every_shard_of_the_bank_serves_a_puzzle_near_the_level() -> None:
    puzzles = bank()
    rng = random.Random(11)
    for rules, kind in sorted({(puzzle.rules, puzzle.kind) for puzzle in puzzles}):
        shard = [puzzle for puzzle in puzzles if puzzle.rules == rules and puzzle.kind == kind]
        for player in (1200, 1500, 1800):
            pick = choose_puzzle(puzzles, {}, player, rules=rules, kind=kind, rng=rng)
            assert pick is not None and pick.rules == rules and pick.kind == kind
            nearest = sorted(abs(puzzle.rating - player) for puzzle in shard)
            assert abs(pick.rating - player) <= nearest[min(NEAREST, len(shard)) - 1]


def test_the_bank_by_theme_and_until_exhausted() -> None:
    puzzles = bank()
    rng = random.Random(5)
    for theme in THEMES:
        pick = choose_puzzle(puzzles, {}, 1500, rules="progressive", theme=theme, rng=rng)
        has = any(puzzle.rules == "progressive" and theme in puzzle.themes for puzzle in puzzles)
        assert (pick is not None) == has
        assert pick is None or theme in pick.themes
    # A player who has attempted every contract buy puzzle gets None, and never a repeat before.
    seen: set[str] = set()
    while (pick := choose_puzzle(puzzles, {}, 1500, rules="contract", kind="buy", exclude=seen, rng=rng)):
        assert pick.id not in seen
        seen.add(pick.id)
    assert seen == {puzzle.id for puzzle in puzzles if puzzle.rules == "contract" and puzzle.kind == "buy"}
    # A preset with no puzzle of a kind among the candidates: None, not an error.
    without = [puzzle for puzzle in puzzles if (puzzle.rules, puzzle.kind) != ("may-i", "buy")]
    assert choose_puzzle(without, {}, 1500, rules="may-i", kind="buy", rng=rng) is None


# ---- bad input -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"rules": "poker"}, "rules must be one of"),
        ({"rules": "progressive", "kind": "checkmate"}, "kind must be one of"),
        ({"rules": "progressive", "theme": "fork"}, "theme must be one of"),
        ({"rules": "progressive", "offset": math.nan}, "offset must be a finite number"),
        ({"rules": "progressive", "offset": 5000}, "offset must be between"),
    ],
)
def test_unknown_filters_are_refused_naming_them(fields: dict[str, object], problem: str) -> None:
    with pytest.raises(ChoiceError, match=f"^{problem}"):
        choose_puzzle(bank(), {}, 1500, rng=random.Random(0), **fields)  # type: ignore[arg-type]
    with pytest.raises(ChoiceError, match="'(poker|checkmate|fork)'|nan|5000"):
        closest_puzzles(bank(), {}, 1500, **fields)  # type: ignore[arg-type]


def test_bad_ratings_are_refused() -> None:
    assert issubclass(ChoiceError, ValueError)
    with pytest.raises(ChoiceError, match="^player_rating must be a finite number"):
        choose_puzzle(bank(), {}, math.inf, rules="progressive", rng=random.Random(0))
    puzzle = next(puzzle for puzzle in bank() if puzzle.rules == "progressive")
    for bad in (math.nan, -math.inf, True, "1500", None):
        with pytest.raises(ChoiceError, match=f"^the rating of puzzle {puzzle.id} must be a finite number"):
            choose_puzzle(bank(), {puzzle.id: bad}, 1500, rules="progressive", rng=random.Random(0))  # type: ignore[dict-item]


def test_every_preset_kind_and_theme_is_accepted() -> None:
    for rules in PRESETS:
        for kind in (None, *KINDS):
            for theme in (None, *THEMES):
                check_filters(rules, kind, theme)
