"""Choosing the trainer's next puzzle: one near the player's level (or a step easier or harder),
of the player's rule set and, when asked, of one kind and one theme.

The rule: among the eligible puzzles (that preset, kind and theme, not excluded) take the
``NEAREST`` whose ratings are closest to the target (the player's rating plus the offset; equal
distances in id order), and pick one of them at random. So the choice is always among the closest
the bank has, however far that is, yet the same player does not meet the puzzles in the same
order every time. Pure: the caller passes the random generator and everything the choice reads.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import Counter
from collections.abc import Collection, Mapping, Sequence

from analyzer import PRESETS
from puzzles.model import KINDS, Puzzle
from puzzles.themes import THEMES

NEAREST = 12  # the pick is among this many puzzles closest to the target
EASIER, LEVEL, HARDER = -300, 0, 300  # offsets in rating points: a clear step, a third of a class
OFFSETS = {"easier": EASIER, "level": LEVEL, "harder": HARDER}
OFFSET_LIMIT = 1000


class ChoiceError(ValueError):
    """A choice that cannot be made: an unknown rule set, kind or theme, a rating or offset that
    is not a finite number (or an offset beyond +-``OFFSET_LIMIT``), or a puzzle whose rating in
    ``ratings`` is not. The message names the field and quotes the value."""


def check_filters(rules: str, kind: str | None = None, theme: str | None = None) -> None:
    """Raise ``ChoiceError`` unless rules is a preset, kind one of ``KINDS`` and theme one of
    ``THEMES`` (kind and theme may be None: any)."""
    if rules not in PRESETS:
        raise ChoiceError(f"rules must be one of {', '.join(PRESETS)}, not {rules!r}")
    if kind is not None and kind not in KINDS:
        raise ChoiceError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if theme is not None and theme not in THEMES:
        raise ChoiceError(f"theme must be one of {', '.join(THEMES)}, not {theme!r}")


def _number(value: object, field: str, limit: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ChoiceError(f"{field} must be a finite number, not {value!r}")
    if abs(value) > limit:
        raise ChoiceError(f"{field} must be between -{limit:g} and {limit:g}, not {value!r}")
    return float(value)


def closest_puzzles(
    candidates: Sequence[Puzzle],
    ratings: Mapping[str, float],
    player_rating: float,
    *,
    rules: str,
    kind: str | None = None,
    theme: str | None = None,
    offset: int = LEVEL,
    exclude: Collection[str] = (),
) -> list[Puzzle]:
    """The eligible puzzles the choice is made among: the ``NEAREST`` closest to
    ``player_rating + offset``, closest first. A puzzle missing from ``ratings`` (puzzle id to
    its current rating) is at its initial ``rating``."""
    check_filters(rules, kind, theme)
    target = _number(player_rating, "player_rating") + _number(offset, "offset", OFFSET_LIMIT)
    excluded = set(exclude)
    # (distance, id, puzzle): compared as tuples, ids unique (run on every /practice, over a
    # rule set's few hundred puzzles: no call per puzzle unless its rating needs checking).
    keyed = []
    for puzzle in candidates:
        if (puzzle.rules != rules or (kind is not None and puzzle.kind != kind)
                or (theme is not None and theme not in puzzle.themes) or puzzle.id in excluded):
            continue
        rating = ratings.get(puzzle.id, puzzle.rating)
        if type(rating) not in (float, int) or not math.isfinite(rating):  # the rare case, checked and named
            rating = _number(rating, f"the rating of puzzle {puzzle.id}")
        keyed.append((abs(rating - target), puzzle.id, puzzle))
    return [puzzle for _, _, puzzle in heapq.nsmallest(NEAREST, keyed)]


def choose_puzzle(
    candidates: Sequence[Puzzle],
    ratings: Mapping[str, float],
    player_rating: float,
    *,
    rules: str,
    kind: str | None = None,
    theme: str | None = None,
    offset: int = LEVEL,
    exclude: Collection[str] = (),
    rng: random.Random,
) -> Puzzle | None:
    """The next puzzle: one of ``closest_puzzles(...)`` at random, or None when none is eligible."""
    closest = closest_puzzles(
        candidates, ratings, player_rating,
        rules=rules, kind=kind, theme=theme, offset=offset, exclude=exclude,
    )
    return rng.choice(closest) if closest else None


def theme_line(theme: str) -> str:
    """A theme's one-line explanation: the first line of its predicate's docstring."""
    predicate = THEMES.get(theme)
    doc = (predicate.__doc__ or "") if predicate else ""
    return " ".join(doc.split("\n\n")[0].split())


def unseen_counts(candidates: Sequence[Puzzle], exclude: Collection[str]) -> dict[str, Counter[str]]:
    """How many of ``candidates`` (one rule set's puzzles) are left to meet, not in ``exclude``:
    by kind and by theme (what /practice offers when a narrower choice has none left)."""
    kinds: Counter[str] = Counter()
    themes: Counter[str] = Counter()
    excluded = set(exclude)
    for puzzle in candidates:
        if puzzle.id in excluded:
            continue
        kinds[str(puzzle.kind)] += 1
        themes.update(puzzle.themes)
    return {"kinds": kinds, "themes": themes}
