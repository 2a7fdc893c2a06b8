"""The daily puzzle: a pure rule from the bank and the calendar date, the same on every machine.

- **The day's slot.** Days count from ``EPOCH``. Six days of seven are ``progressive``; the
  seventh takes the other presets in turn (in name order), one per week. The kind cycles
  lay-down, discard, buy day by day. A slot with no eligible puzzle falls back to the next kind,
  then to ``progressive`` (and so does a slot used up: below).
- **Eligible**: puzzles of mid difficulty, rated within ``BAND`` (when a slot has none there,
  every puzzle of the slot is eligible).
- **No repeats**: each slot's eligible puzzles are put in a fixed shuffled order (seeded by the
  slot's name and the pass through them); the slot's *n*-th day takes the *n*-th puzzle of that
  order. A slot whose eligible puzzles have all been shown lends its day to the next kind of its
  preset, then to ``progressive``'s kinds, then to the other presets in name order, the first
  with one not shown yet; slots share no puzzle, so nothing repeats until every eligible puzzle
  of the bank has been shown. Then each slot takes its own days again, a new pass of its order.
- **Days already dealt stay dealt.** The bank grows and is carried over to new generators, which
  would deal the calendar again. The days up to 2026-11-30 are read from the calendar as
  the trainer dealt them (``puzzles/bank/daily-dealt.txt``, ids) while their puzzle is served
  (a retired one is never served again: its day shows the first puzzle of its slot's order,
  counting no day); the rule deals the days after it, its slot counts starting there, among the puzzles not dealt
  before (the rated band read as shown), so none of those comes back before the new ones are used
  up. A bank that serves none of the dealt puzzles (a test's own) is dealt by the rule from the
  epoch, as it was before the calendar was kept.

    >>> from datetime import date
    >>> [(rules, str(kind)) for rules, kind in (slot_of(date(2026, 1, 1)), slot_of(date(2026, 1, 7)))]
    [('progressive', 'lay-down'), ('contract', 'lay-down')]
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from pathlib import Path

from analyzer import PRESETS
from puzzles.generate import difficulty
from puzzles.model import KINDS, LayDownMargin, Puzzle

EPOCH = date(2026, 1, 1)
BAND = (1250, 1750)  # mid difficulty, on the rating scale
DEALT_FILE = Path(__file__).with_name("bank") / "daily-dealt.txt"
WEEK = 7
OTHER_PRESETS = tuple(sorted(name for name in PRESETS if name != "progressive"))


class DailyError(ValueError):
    """No daily puzzle for that date: before the epoch, or an empty bank."""


def slot_of(day: date) -> tuple[str, str]:
    """The preset and kind the date asks for, before any fallback."""
    index = _index(day)
    kind = KINDS[index % len(KINDS)]
    if index % WEEK != WEEK - 1:
        return "progressive", kind
    return OTHER_PRESETS[(index // WEEK) % len(OTHER_PRESETS)], kind


def eligible(bank: Sequence[Puzzle], rating: Callable[[Puzzle], int] | None = None,
             dealt: frozenset[str] = frozenset()) -> dict[tuple[str, str], list[Puzzle]]:
    """The eligible puzzles of each (preset, kind) slot, in id order: rated within the band
    (``rating``: by default the band's old reading, ``band_rating``), not among ``dealt`` (when
    the slot has any such puzzle)."""
    rating = rating or band_rating
    slots: dict[tuple[str, str], list[Puzzle]] = {}
    for puzzle in bank:
        slots.setdefault((puzzle.rules, puzzle.kind), []).append(puzzle)
    chosen = {}
    for slot, puzzles in slots.items():
        unique = {puzzle.id: puzzle for puzzle in puzzles}
        fresh = [p for p in unique.values() if p.id not in dealt] or list(unique.values())
        mid = [p for p in fresh if BAND[0] <= rating(p) <= BAND[1]]
        chosen[slot] = sorted(mid or fresh, key=lambda puzzle: puzzle.id)
    return chosen


def band_rating(puzzle: Puzzle) -> int:
    """The rating the difficulty band read for the days dealt before the calendar was kept (up
    to 2026-11-30): a lay-down's without the plays-near-the-best term
    (``difficulty(near_best=False)``), which came with generator puzzles-2 and would have moved
    a third of the days already dealt. The days after it read the rating as shown."""
    if isinstance(puzzle.margin, LayDownMargin) and puzzle.margin.near_best is not None:
        return difficulty(puzzle, near_best=False)
    return puzzle.rating


@functools.cache
def dealt_calendar() -> Mapping[date, str]:
    """The days already dealt (``DEALT_FILE``): each date's puzzle id, from the epoch on."""
    days = {}
    for line in DEALT_FILE.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            day, puzzle_id = line.split()
            days[date.fromisoformat(day)] = puzzle_id
    assert list(days) == [date.fromordinal(EPOCH.toordinal() + n) for n in range(len(days))], "a gap in the calendar"
    return days


def daily(bank: Sequence[Puzzle], day: date) -> Puzzle:
    """The puzzle of ``day``."""
    return daily_run(bank, day, day)[0]


def daily_run(bank: Sequence[Puzzle], first: date, last: date) -> list[Puzzle]:
    """The puzzles of every day from ``first`` to ``last``, inclusive (cheaper than day by day:
    the count of earlier days per slot is carried along). A day already dealt shows its puzzle
    while the bank serves it; a dealt puzzle retired since is never served again, and its day is
    dealt by the rule like the days after."""
    if not bank:
        raise DailyError("the bank has no puzzles")
    _index(first)
    served = {puzzle.id: puzzle for puzzle in bank}
    calendar = dealt_calendar()
    if not any(puzzle_id in served for puzzle_id in calendar.values()):
        calendar = {}  # not the shipped bank: the rule from the epoch
    pinned = [calendar.get(date.fromordinal(EPOCH.toordinal() + index)) for index in range(len(calendar))]
    if calendar:
        slots = eligible(bank, lambda puzzle: puzzle.rating, frozenset(calendar.values()))
    else:
        slots = eligible(bank)
    used: dict[tuple[str, str], int] = {}
    found = []
    for index in range(_index(last) + 1):
        dealt = pinned[index] if index < len(pinned) else None
        if dealt is not None:
            if index >= _index(first):
                # A dealt puzzle retired since is never served again: its day shows the first
                # puzzle of its slot's order instead, which counts no day of the slot.
                slot = _resolve(slot_of(date.fromordinal(EPOCH.toordinal() + index)), slots)
                found.append(served[dealt] if dealt in served else _pick(slots[slot], slot, 0))
            continue
        slot = _resolve(slot_of(date.fromordinal(EPOCH.toordinal() + index)), slots, used)
        count = used.get(slot, 0)
        used[slot] = count + 1
        if index >= _index(first):
            found.append(_pick(slots[slot], slot, count))
    return found


def _index(day: date) -> int:
    if not isinstance(day, date):
        raise TypeError(f"a daily puzzle is asked for a date, not {type(day).__name__}")
    index = day.toordinal() - EPOCH.toordinal()
    if index < 0:
        raise DailyError(f"daily puzzles start on {EPOCH.isoformat()}, not {day.isoformat()}")
    return index


def _resolve(
    slot: tuple[str, str], slots: dict[tuple[str, str], list[Puzzle]], used: Mapping[tuple[str, str], int] | None = None
) -> tuple[str, str]:
    """The slot itself when it has puzzles, else the next kind of its preset, else progressive's,
    else the first slot in name order. With ``used`` (the days each slot has taken), a slot whose
    eligible puzzles have all been shown is passed over the same way, then the other presets' in
    name order, for one with a puzzle not shown yet; when none has, the slot as without ``used``."""
    name, kind = slot
    start = KINDS.index(kind)
    order = [(preset_name, KINDS[(start + step) % len(KINDS)])
             for preset_name in dict.fromkeys((name, "progressive", *OTHER_PRESETS))
             for step in range(len(KINDS))]
    if used is not None:
        for candidate in order:
            if candidate in slots and used.get(candidate, 0) < len(slots[candidate]):
                return candidate
    for preset_name in (name, "progressive"):
        for step in range(len(KINDS)):
            candidate = (preset_name, KINDS[(start + step) % len(KINDS)])
            if candidate in slots:
                return candidate
    return min(slots)


def _pick(puzzles: Sequence[Puzzle], slot: tuple[str, str], count: int) -> Puzzle:
    """The ``count``-th puzzle of the slot's order: pass ``count // len`` shuffles them afresh."""
    rounds, place = divmod(count, len(puzzles))
    order = list(puzzles)
    random.Random(f"daily/{slot[0]}/{slot[1]}/{rounds}").shuffle(order)
    return order[place]
