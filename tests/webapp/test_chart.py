"""The rating chart (webapp/chart.py): well-formed SVG whose line, band and axis say the history
it was given: each vertex read back through the axis ticks is that point's rating."""

from __future__ import annotations

import itertools
import math
from datetime import datetime, timedelta
from xml.etree import ElementTree

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webapp.chart import MOST_TICKS, TICK_STEPS, ChartError, rating_chart

SVG = "{http://www.w3.org/2000/svg}"


@st.composite
def histories(draw: st.DrawFn, min_size: int = 0, max_size: int = 60) -> list[tuple[datetime, float, float]]:
    """Oldest first: a start, then ratings and deviations as a trainer could store them."""
    size = draw(st.integers(min_size, max_size))
    when = draw(st.datetimes(datetime(2020, 1, 1), datetime(2030, 1, 1)))
    points = []
    for _ in range(size):
        when += timedelta(minutes=draw(st.integers(0, 60 * 24 * 30)))
        points.append((when, draw(st.floats(0, 4000)), draw(st.floats(0, 350))))
    return points


sizes = st.tuples(st.integers(300, 1200), st.integers(160, 500))


def parse(svg: str) -> ElementTree.Element:
    root = ElementTree.fromstring(svg)
    assert root.tag == f"{SVG}svg" and root.get("role") == "img"
    return root


def pairs(text: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in (pair.split(",") for pair in text.split())]


def by_class(root: ElementTree.Element, name: str) -> list[ElementTree.Element]:
    return [element for element in root.iter() if name in (element.get("class") or "").split()]


def axis(root: ElementTree.Element) -> tuple[list[int], list[float]]:
    """The tick values and the y at which each is drawn."""
    ticks = by_class(root, "tick")
    values = [int(tick.get("data-value", "")) for tick in ticks]
    ys = [float(tick.find(f"{SVG}line").get("y1", "")) for tick in ticks]  # type: ignore[union-attr]
    return values, ys


def value_at(y: float, values: list[int], ys: list[float]) -> float:
    """The rating the axis puts at height y (from its lowest and highest ticks)."""
    return values[0] + (y - ys[0]) * (values[-1] - values[0]) / (ys[-1] - ys[0])


@given(history=histories(min_size=2), size=sizes)
def test_the_line_has_one_vertex_per_point_in_order_at_its_rating(
    history: list[tuple[datetime, float, float]], size: tuple[int, int]
) -> None:
    width, height = size
    svg = rating_chart(history, width=width, height=height)
    root = parse(svg)
    assert "nan" not in svg.lower() and "inf" not in svg.lower()
    (line,) = by_class(root, "rating-line")
    vertices = pairs(line.get("points", ""))
    assert len(vertices) == len(history)
    xs = [x for x, _ in vertices]
    assert all(left < right for left, right in itertools.pairwise(xs))
    values, ys = axis(root)
    # One pixel is this many rating points; coordinates are rounded to 0.1 pixel.
    points_per_pixel = (values[-1] - values[0]) / (ys[0] - ys[-1])
    for (_, rating, _), (_, y) in zip(history, vertices):
        assert value_at(y, values, ys) == pytest.approx(rating, abs=0.2 * points_per_pixel)
    # A higher rating is drawn higher (SVG's y grows downwards).
    for (_, a, _), (_, y_a) in zip(history, vertices):
        for (_, b, _), (_, y_b) in zip(history, vertices):
            if a > b + 0.5 * points_per_pixel:
                assert y_a < y_b


@given(history=histories(min_size=2), size=sizes)
def test_the_band_holds_the_line_and_spans_two_deviations(
    history: list[tuple[datetime, float, float]], size: tuple[int, int]
) -> None:
    root = parse(rating_chart(history, width=size[0], height=size[1]))
    (line,) = by_class(root, "rating-line")
    (band,) = by_class(root, "band")
    vertices = pairs(line.get("points", ""))
    outline = pairs(band.get("points", ""))
    upper, lower = outline[: len(history)], outline[len(history):][::-1]
    assert len(upper) == len(lower) == len(history)
    values, ys = axis(root)
    points_per_pixel = (values[-1] - values[0]) / (ys[0] - ys[-1])
    for (x, y), (ux, uy), (lx, ly), (_, rating, deviation) in zip(vertices, upper, lower, history):
        assert x == ux == lx
        assert uy <= y <= ly
        assert value_at(uy, values, ys) == pytest.approx(rating + 2 * deviation, abs=0.2 * points_per_pixel)
        assert value_at(ly, values, ys) == pytest.approx(rating - 2 * deviation, abs=0.2 * points_per_pixel)


@given(history=histories(min_size=1), size=sizes)
def test_round_ticks_cover_everything_drawn(
    history: list[tuple[datetime, float, float]], size: tuple[int, int]
) -> None:
    svg = rating_chart(history, width=size[0], height=size[1])
    root = parse(svg)
    values, ys = axis(root)
    assert 2 <= len(values) <= MOST_TICKS or values[1] - values[0] == TICK_STEPS[-1]
    step = values[1] - values[0]
    assert step in TICK_STEPS and all(value % step == 0 for value in values)
    assert values == list(range(values[0], values[-1] + 1, step))
    assert ys == sorted(ys, reverse=True)  # the higher tick higher up
    low = min(rating - 2 * deviation for _, rating, deviation in history)
    high = max(rating + 2 * deviation for _, rating, deviation in history)
    assert values[0] <= low and high <= values[-1]
    # Everything is inside the picture.
    width, height = size
    for element in root.iter():
        for name in ("x", "x1", "x2", "cx"):
            if element.get(name) is not None:
                assert 0 <= float(element.get(name, "")) <= width
        for name in ("y", "y1", "y2", "cy"):
            if element.get(name) is not None:
                assert 0 <= float(element.get(name, "")) <= height


@given(history=histories(min_size=1))
def test_title_desc_and_labels_say_the_current_rating_and_the_range(
    history: list[tuple[datetime, float, float]]
) -> None:
    svg = rating_chart(history)
    assert svg == rating_chart(list(history))  # deterministic
    root = parse(svg)
    _, current, deviation = history[-1]
    title = root.find(f"{SVG}title").text or ""  # type: ignore[union-attr]
    desc = root.find(f"{SVG}desc").text or ""  # type: ignore[union-attr]
    ratings = [rating for _, rating, _ in history]
    assert f"rating: {round(current)} " in title
    assert f"lowest {round(min(ratings))}, highest {round(max(ratings))}" in title
    assert f"now {round(current)}, 95% sure between {round(current - 2 * deviation)} and " in desc
    assert f"{len(history)} rated puzzle" in desc
    (label,) = by_class(root, "current-label")
    assert label.text == str(round(current))
    dates = by_class(root, "date")
    first, last = history[0][0], history[-1][0]
    assert dates[0].text == f"{first.day} {first:%b} {first.year}"
    assert dates[-1].text == f"{last.day} {last:%b} {last.year}"


def test_a_worked_history() -> None:
    start = datetime(2026, 3, 1, 20, 0)
    history = [
        (start, 1500.0, 350.0),
        (start + timedelta(days=1), 1620.0, 250.0),
        (start + timedelta(days=9), 1580.4, 200.0),
    ]
    root = parse(rating_chart(history, width=640, height=220))
    values, _ = axis(root)
    assert values == [500, 1000, 1500, 2000, 2500]  # 800..2200 in steps of 500
    (line,) = by_class(root, "rating-line")
    (_, y0), (_, y1), (_, y2) = pairs(line.get("points", ""))
    assert y1 < y2 < y0  # 1620 highest, then 1580, then 1500
    assert [element.text for element in by_class(root, "date")] == ["1 Mar 2026", "10 Mar 2026"]
    assert root.find(f"{SVG}desc").text == (  # type: ignore[union-attr]
        "Your rating after 3 rated puzzles, from 1 Mar 2026 to 10 Mar 2026: now 1580, "
        "95% sure between 1180 and 1980; lowest 1500, highest 1620."
    )


def test_no_points_says_there_are_no_rated_puzzles_yet() -> None:
    svg = rating_chart([])
    root = parse(svg)
    assert "No rated puzzles yet" in (root.find(f"{SVG}title").text or "")  # type: ignore[union-attr]
    assert "No rated puzzles yet" in "".join(root.itertext())
    assert not by_class(root, "rating-line") and not by_class(root, "band")


def test_one_point_is_a_dot_inside_its_band() -> None:
    root = parse(rating_chart([(datetime(2026, 11, 22, 9, 30), 1512.6, 120.0)]))
    assert not by_class(root, "rating-line")
    (dot,) = root.iter(f"{SVG}circle")
    (band,) = by_class(root, "band")
    assert float(band.get("y1", "")) < float(dot.get("cy", "")) < float(band.get("y2", ""))
    values, ys = axis(root)
    assert value_at(float(dot.get("cy", "")), values, ys) == pytest.approx(1512.6, abs=1)
    assert [element.text for element in by_class(root, "date")] == ["22 Nov 2026"]
    assert by_class(root, "current-label")[0].text == "1513"


def test_a_flat_history_without_deviation_still_has_an_axis() -> None:
    when = datetime(2026, 1, 1)
    root = parse(rating_chart([(when, 1500.0, 0.0), (when, 1500.0, 0.0)]))
    values, _ = axis(root)
    assert values[0] < 1500 < values[-1]


@pytest.mark.parametrize(
    ("history", "problem"),
    [
        ([(datetime(2026, 1, 1), math.nan, 50.0)], "point 0: the rating must be a finite number"),
        (
            [(datetime(2026, 1, 1), 1500.0, 50.0), (datetime(2026, 1, 2), 1500.0, math.inf)],
            "point 1: the deviation must be a finite number",
        ),
        ([(datetime(2026, 1, 1), 1500.0, -1.0)], "point 0: the deviation must not be negative"),
        ([("2026-01-01", 1500.0, 50.0)], "point 0: the date must be a datetime"),
        ([(datetime(2026, 1, 1), 1500.0)], "point 0 must be (date, rating, deviation)"),
        ([(datetime(2026, 1, 1), "1500", 50.0)], "point 0: the rating must be a finite number"),
    ],
)
def test_a_bad_history_is_refused_naming_the_point(history: list[object], problem: str) -> None:
    with pytest.raises(ChartError) as error:
        rating_chart(history)  # type: ignore[arg-type]
    assert str(error.value).startswith(problem)


@pytest.mark.parametrize(("width", "height"), [(0, 220), (640, -1), (640, 10**6), (640.5, 220), (True, 220)])
def test_a_bad_size_is_refused(width: object, height: object) -> None:
    with pytest.raises(ChartError, match="^(width|height) must be"):
        rating_chart([], width=width, height=height)  # type: ignore[arg-type]


def test_the_match_rate_chart_is_in_percent_on_a_fixed_axis_without_a_band() -> None:
    from webapp.chart import match_rate_chart

    start = datetime(2026, 11, 1, 20)
    svg = match_rate_chart([(start, 0.5), (start + timedelta(days=2), 1.0), (start + timedelta(days=3), 0.75)])
    root = ElementTree.fromstring(svg)
    assert root.findtext(f"{SVG}title") == "Your match rate: 75% (lowest 50%, highest 100%)"
    assert "after 3 reviewed games" in (root.findtext(f"{SVG}desc") or "")
    assert [tick.get("data-value") for tick in root.iter(f"{SVG}g")] == ["0", "25", "50", "75", "100"]
    assert not [e for e in root.iter() if e.get("class") == "band"]
    assert "No reviewed games yet" in match_rate_chart([])
    with pytest.raises(ChartError):
        match_rate_chart([(start, math.nan)])
