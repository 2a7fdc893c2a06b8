"""The dashboard's rating chart: a player's rating over their rated puzzles as inline SVG, drawn on
the server so that it reads without JavaScript.

The line is the rating after each rated attempt, the shaded band rating +- 2 deviations (the 95%
interval), the y axis has round-number ticks, the first and last dates sit under the ends and the
current rating is labelled. Attempts are evenly spaced rather than placed by time: a rating only
moves at an attempt, and thirty puzzles in one evening would otherwise be one vertical stroke.

Colours are SVG presentation attributes, not ``style``, so the site's Content-Security-Policy
(no inline styles) lets them through; every element has a class for the stylesheet to override.
The output is deterministic: the same history gives the same text, numbers to one decimal.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date, datetime
from html import escape

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
TICK_STEPS = (10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000)
MOST_TICKS = 6
SIZE_LIMITS = (160, 4000)  # pixels, each of width and height
# Room around the plot for the tick labels (left), the current rating (right) and the dates (below).
LEFT, RIGHT, TOP, BOTTOM = 44, 52, 10, 22
EMPTY_HEIGHT = 40

Point = tuple[date, float, float]  # (when, rating, deviation); a datetime is a date


class ChartError(ValueError):
    """A history that cannot be drawn: a point that is not (date, rating, deviation), a rating
    or deviation that is not a finite number (deviation >= 0), or a size out of ``SIZE_LIMITS``."""


def rating_chart(
    history: Sequence[tuple[datetime, float, float]], *, width: int = 640, height: int = 220
) -> str:
    """The history (oldest first) as an ``<svg>`` element with ``role="img"``, a ``<title>`` and
    a ``<desc>`` that say the current rating and the range in words."""
    for name, size in (("width", width), ("height", height)):
        low, high = SIZE_LIMITS
        if isinstance(size, bool) or not isinstance(size, int) or not low <= size <= high:
            raise ChartError(f"{name} must be a whole number of pixels from {low} to {high}, not {size!r}")
    points = [_checked(number, point) for number, point in enumerate(history)]
    if not points:
        return _empty(width)
    return _chart(points, width, height)


def match_rate_chart(history: Sequence[tuple[datetime, float]], *, width: int = 640, height: int = 180) -> str:
    """The review's match rate (0 to 1) of each reviewed game (oldest first) as an ``<svg>``
    like ``rating_chart``'s, in percent, without a band (a match rate is measured, not estimated)."""
    points = [_checked(number, (*point, 0.0) if isinstance(point, (tuple, list)) and len(point) == 2 else point)
              for number, point in enumerate(history)]
    if not points:
        return _empty(width, "No reviewed games yet", "No reviewed games yet: your match rate appears here "
                      "after the review of your first finished game.")
    percent = [(when, 100 * rate, 0.0) for when, rate, _ in points]
    return _chart(percent, width, height, noun="match rate", unit="%", counted="reviewed game", band=False,
                  scale=(0, 100, [0, 25, 50, 75, 100]))


def _checked(number: int, point: object) -> Point:
    if not isinstance(point, (tuple, list)) or len(point) != 3:
        raise ChartError(f"point {number} must be (date, rating, deviation), not {point!r}")
    when, rating, deviation = point
    if not isinstance(when, date):
        raise ChartError(f"point {number}: the date must be a datetime, not {when!r}")
    for name, value in (("rating", rating), ("deviation", deviation)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ChartError(f"point {number}: the {name} must be a finite number, not {value!r}")
    if deviation < 0:
        raise ChartError(f"point {number}: the deviation must not be negative, not {deviation!r}")
    return when, float(rating), float(deviation)


def _empty(width: int, title: str = "No rated puzzles yet",
           words: str = "No rated puzzles yet: your rating appears here after your first rated attempt.") -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="rating-chart empty" role="img" '
        f'width="{width}" height="{EMPTY_HEIGHT}" viewBox="0 0 {width} {EMPTY_HEIGHT}">'
        f"<title>{escape(title)}</title><desc>{escape(words)}</desc>"
        f'<text x="8" y="{EMPTY_HEIGHT // 2 + 5}" font-family="sans-serif" font-size="13" fill="#555">'
        f"{escape(words)}</text></svg>"
    )


def _ticks(low: float, high: float) -> tuple[float, float, list[int]]:
    """Round-number ticks covering [low, high]: the smallest step giving at most MOST_TICKS."""
    if high - low < 1:  # a single value with no deviation: show a little around it
        low, high = low - 50, high + 50
    for step in TICK_STEPS:
        bottom, top = math.floor(low / step) * step, math.ceil(high / step) * step
        if (top - bottom) // step + 1 <= MOST_TICKS:
            break
    return bottom, top, list(range(bottom, top + 1, step))


def _date(when: date) -> str:
    return f"{when.day} {MONTHS[when.month - 1]} {when.year}"


def _n(value: float) -> str:
    """A coordinate to one decimal (``-0.0`` written ``0.0``)."""
    return f"{round(value, 1) + 0.0:.1f}"


def _chart(points: list[Point], width: int, height: int, *, noun: str = "rating", unit: str = "",
           counted: str = "rated puzzle", band: bool = True,
           scale: tuple[int, int, list[int]] | None = None) -> str:
    ratings = [rating for _, rating, _ in points]
    lows = [rating - 2 * deviation for _, rating, deviation in points]
    highs = [rating + 2 * deviation for _, rating, deviation in points]
    bottom, top, ticks = scale if scale is not None else _ticks(min(lows), max(highs))
    plot_left, plot_right = LEFT, width - RIGHT
    plot_top, plot_bottom = TOP, height - BOTTOM

    def x(index: int) -> float:
        if len(points) == 1:
            return (plot_left + plot_right) / 2
        return plot_left + (plot_right - plot_left) * index / (len(points) - 1)

    def y(value: float) -> float:  # higher ratings higher up: SVG's y grows downwards
        return plot_bottom - (plot_bottom - plot_top) * (value - bottom) / (top - bottom)

    first, last = points[0], points[-1]
    current, deviation = last[1], last[2]
    title = f"Your {noun}: {round(current)}{unit} (lowest {round(min(ratings))}{unit}, highest {round(max(ratings))}{unit})"
    sure = f", 95% sure between {round(current - 2 * deviation)} and {round(current + 2 * deviation)}" if band else ""
    words = (
        f"Your {noun} after {len(points)} {counted}{'s' if len(points) != 1 else ''}, "
        + (f"on {_date(first[0])}" if _date(first[0]) == _date(last[0]) else f"from {_date(first[0])} to {_date(last[0])}")
        + f": now {round(current)}{unit}{sure}; lowest {round(min(ratings))}{unit}, highest {round(max(ratings))}{unit}."
    )
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="rating-chart" role="img" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">'
        ),
        f"<title>{escape(title)}</title><desc>{escape(words)}</desc>",
    ]
    # The y axis: a gridline and a label at each round number.
    for tick in ticks:
        parts.append(
            f'<g class="tick" data-value="{tick}"><line x1="{_n(plot_left)}" x2="{_n(plot_right)}" '
            f'y1="{_n(y(tick))}" y2="{_n(y(tick))}" stroke="#ddd" stroke-width="1"/>'
            f'<text x="{_n(plot_left - 4)}" y="{_n(y(tick) + 4)}" text-anchor="end" fill="#555">{tick}</text>'
            "</g>"
        )
    parts.append(
        f'<line class="axis" x1="{_n(plot_left)}" x2="{_n(plot_left)}" y1="{_n(plot_top)}" '
        f'y2="{_n(plot_bottom)}" stroke="#888" stroke-width="1"/>'
    )
    # The band and the line.
    if len(points) == 1:
        if band:
            parts.append(
                f'<line class="band" x1="{_n(x(0))}" x2="{_n(x(0))}" y1="{_n(y(highs[0]))}" '
                f'y2="{_n(y(lows[0]))}" stroke="#9ec5e8" stroke-width="8"/>'
            )
        parts.append(
            f'<circle class="rating-dot current" cx="{_n(x(0))}" cy="{_n(y(current))}" r="4" fill="#1f5fa8"/>'
        )
    else:
        outline = [(x(i), y(high)) for i, high in enumerate(highs)]
        outline += [(x(i), y(low)) for i, low in reversed(list(enumerate(lows)))]
        if band:
            parts.append(f'<polygon class="band" points="{_pairs(outline)}" fill="#9ec5e8" fill-opacity="0.45"/>')
        line = [(x(i), y(rating)) for i, rating in enumerate(ratings)]
        parts.append(
            f'<polyline class="rating-line" points="{_pairs(line)}" fill="none" stroke="#1f5fa8" '
            f'stroke-width="2" stroke-linejoin="round"/>'
        )
        parts.append(
            f'<circle class="current" cx="{_n(line[-1][0])}" cy="{_n(line[-1][1])}" r="3.5" fill="#1f5fa8"/>'
        )
    # The current rating beside the last point, and the dates under the ends.
    parts.append(
        f'<text class="current-label" x="{_n(x(len(points) - 1) + 8)}" y="{_n(y(current) + 4)}" '
        f'font-weight="bold" fill="#1f5fa8">{round(current)}{unit}</text>'
    )
    date_y = _n(height - 6)
    if _date(first[0]) == _date(last[0]):  # one day: its date once, under the middle of the line
        parts.append(
            f'<text class="date first last" x="{_n((x(0) + x(len(points) - 1)) / 2)}" y="{date_y}" '
            f'text-anchor="middle" fill="#555">{_date(first[0])}</text>'
        )
    else:
        parts.append(
            f'<text class="date first" x="{_n(plot_left)}" y="{date_y}" fill="#555">{_date(first[0])}</text>'
        )
        parts.append(
            f'<text class="date last" x="{_n(plot_right)}" y="{date_y}" text-anchor="end" '
            f'fill="#555">{_date(last[0])}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _pairs(points: list[tuple[float, float]]) -> str:
    return " ".join(f"{_n(px)},{_n(py)}" for px, py in points)
