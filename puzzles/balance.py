"""The bank's balance, shard by shard: the figures ``puzzles stats`` prints.

- a buy shard's share of "pass" answers (a player who always buys scores the rest);
- a lay-down shard's share the rule-aware greedy player solves (``puzzles.hasty.greedy_play``),
  of every puzzle and of those that can be laid down;
- a discard shard's share whose criterion is "lays down" or "goes out" (the card that lets you
  lay down or go out);
- the puzzles of each shard without a theme;
- the daily calendar: the first day whose puzzle an earlier day (from the epoch) has shown, and
  the days of a span whose puzzle shows a rating outside the band.

Each is a pure function of the puzzles (and the dates), so a test can ask it of a small sample.

The same figures are the bank's **balance rule** (``CAPS``, ``balanced_size``, ``has_room``),
which ``puzzles bank`` keeps when it fills a shard: no answer more than 65% of a buy shard, at
most 40% of a lay-down shard solved by the greedy player (a "cannot" puzzle always is), at most a
third of a discard shard "lays down" or "goes out". A shard whose stored puzzles exceed a share
grows past its target instead (nothing is retired for balance), taking only puzzles of the
other classes until the share holds.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from fractions import Fraction

from analyzer import preset
from puzzles.check import play_problems
from puzzles.daily import BAND, EPOCH, band_rating, daily_run
from puzzles.hasty import greedy_play
from puzzles.model import PASS, DiscardMargin, Kind, Puzzle

LAYS_DOWN_OR_GOES_OUT = ("lays-down", "goes-out")
# The largest share of a shard each class may hold (the balance rule).
CAPS = {
    "answer buy": Fraction(13, 20),
    "answer pass": Fraction(13, 20),
    "greedy solves": Fraction(2, 5),
    "lays down or goes out": Fraction(1, 3),
}


@dataclass(frozen=True)
class ShardBalance:
    """One shard's balance figures; a figure that does not apply to its kind is None."""

    preset: str
    kind: str
    puzzles: int
    unthemed: int
    passes: int | None = None  # buy: answers "pass"
    can_lay_down: int | None = None  # lay-down: puzzles whose answer is a play
    greedy_solves: int | None = None  # lay-down: of those, solved by the greedy player
    greedy_cannot: int | None = None  # lay-down: "cannot" puzzles (the greedy player finds no legal play either)
    lays_down_or_goes_out: int | None = None  # discard: criterion "lays-down" or "goes-out"

    def line(self) -> str:
        """The shard's figures in one line."""
        said = [f"{self.puzzles} puzzles", f"no theme {self.unthemed}"]
        if self.passes is not None:
            said.append(f"pass {_share(self.passes, self.puzzles)}")
        if self.greedy_solves is not None and self.can_lay_down is not None:
            said.append(
                f"greedy solves {_share(self.greedy_solves + (self.greedy_cannot or 0), self.puzzles)}"
                f" ({_share(self.greedy_solves, self.can_lay_down)} of the lay-downs that can be made)"
            )
        if self.lays_down_or_goes_out is not None:
            said.append(f"lays down / goes out {_share(self.lays_down_or_goes_out, self.puzzles)}")
        return f"{self.preset}-{self.kind}: " + ", ".join(said)


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else f"{part}/0"


def greedy_solves(puzzle: Puzzle) -> bool:
    """Whether the rule-aware greedy player answers a lay-down puzzle right: "cannot" when no
    lay-down exists, else a legal play keeping the fewest points."""
    play = greedy_play(puzzle.hand, preset(puzzle.rules), puzzle.round)
    if puzzle.best_points is None:
        return play.cannot
    if play.cannot:
        return False
    _, points = play_problems(puzzle.hand, preset(puzzle.rules), puzzle.round, play)
    return points == puzzle.best_points


def capped_class(puzzle: Puzzle) -> str | None:
    """The class of ``CAPS`` the puzzle belongs to, or None when its class is not capped."""
    if puzzle.kind is Kind.BUY:
        return f"answer {puzzle.answers[0]}"
    if puzzle.kind is Kind.LAY_DOWN:
        return "greedy solves" if greedy_solves(puzzle) else None
    if isinstance(puzzle.margin, DiscardMargin) and puzzle.margin.criterion in LAYS_DOWN_OR_GOES_OUT:
        return "lays down or goes out"
    return None


def class_counts(puzzles: Iterable[Puzzle]) -> Counter[str]:
    """How many puzzles of each capped class (``capped_class``)."""
    return Counter(filter(None, map(capped_class, puzzles)))


def balanced_size(counts: Counter[str], target: int) -> int:
    """The size a shard holding ``counts`` of the capped classes must reach for each to fit
    its cap: the target, or more when a class is already past its share of it.

        >>> balanced_size(Counter({"answer buy": 36, "answer pass": 4}), 40)
        56
        >>> balanced_size(Counter({"answer buy": 20, "answer pass": 20}), 40)
        40
    """
    return max([target, *(math.ceil(count / CAPS[name]) for name, count in counts.items())])


def has_room(name: str | None, counts: Counter[str], size: int) -> bool:
    """Whether a shard holding ``counts``, to reach ``size``, may take one more puzzle of the
    class ``name`` (None: not capped): the class stays within its share of ``size``."""
    return name is None or counts[name] + 1 <= CAPS[name] * size


def shard_balance(puzzles: Sequence[Puzzle]) -> ShardBalance:
    """The balance of one shard (every puzzle of one preset and kind)."""
    first = puzzles[0]
    unthemed = sum(not puzzle.themes for puzzle in puzzles)
    base = ShardBalance(first.rules, str(first.kind), len(puzzles), unthemed)
    if first.kind is Kind.BUY:
        return replace(base, passes=sum(puzzle.answers == (PASS,) for puzzle in puzzles))
    if first.kind is Kind.DISCARD:
        return replace(base, lays_down_or_goes_out=sum(
            isinstance(p.margin, DiscardMargin) and p.margin.criterion in LAYS_DOWN_OR_GOES_OUT for p in puzzles
        ))
    can = [puzzle for puzzle in puzzles if puzzle.best_points is not None]
    return replace(
        base,
        can_lay_down=len(can),
        greedy_solves=sum(greedy_solves(puzzle) for puzzle in can),
        greedy_cannot=sum(greedy_solves(puzzle) for puzzle in puzzles if puzzle.best_points is None),
    )


def bank_balance(puzzles: Iterable[Puzzle]) -> list[ShardBalance]:
    """Every shard's balance, progressive first, then by preset and kind."""
    shards: dict[tuple[str, str], list[Puzzle]] = {}
    for puzzle in puzzles:
        shards.setdefault((puzzle.rules, str(puzzle.kind)), []).append(puzzle)
    order = sorted(shards, key=lambda key: (key[0] != "progressive", key))
    return [shard_balance(shards[key]) for key in order]


@dataclass(frozen=True)
class CalendarBalance:
    """The daily calendar's figures: its first repeat (None: none up to ``last``), and the days
    from ``first`` to ``last`` whose puzzle's shown rating is outside ``BAND`` (and by the
    rating the band reads, ``puzzles.daily.band_rating``, without the near-best term)."""

    first_repeat: date | None
    outside_band: int
    outside_band_reading: int
    first: date
    last: date

    def line(self) -> str:
        """The calendar's figures in one line."""
        repeat = self.first_repeat.isoformat() if self.first_repeat else f"none up to {self.last.isoformat()}"
        return (
            f"daily: first repeat {repeat}; from {self.first.isoformat()} to {self.last.isoformat()}, "
            f"{self.outside_band} days show a rating outside {BAND[0]}-{BAND[1]} "
            f"({self.outside_band_reading} by the band's reading, without the near-best term)"
        )


def calendar_balance(bank: Sequence[Puzzle], first: date, last: date) -> CalendarBalance:
    """The daily calendar's first repeat from ``first`` on (a day whose puzzle a day from
    ``first`` on has shown already) and the days of ``first`` to ``last`` rated outside the band."""
    days = daily_run(bank, EPOCH, last)
    seen: set[str] = set()
    repeat = None
    start = first.toordinal() - EPOCH.toordinal()
    for index, puzzle in enumerate(days[start:], start=start):
        if puzzle.id in seen:
            repeat = date.fromordinal(EPOCH.toordinal() + index)
            break
        seen.add(puzzle.id)
    shown = days[start:]
    outside = sum(not BAND[0] <= puzzle.rating <= BAND[1] for puzzle in shown)
    reading = sum(not BAND[0] <= band_rating(puzzle) <= BAND[1] for puzzle in shown)
    return CalendarBalance(repeat, outside, reading, first, last)
