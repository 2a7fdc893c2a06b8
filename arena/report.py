"""From the seeds' tables to the arena's report: per round and in total, relative points with their
95% t interval over seeds, going out first against the fair share, buys, and (text only) the
challenger's time per decision. ``Report.to_dict`` is the JSON; ``text`` is for people;
``svg`` draws relative points per round with their intervals."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from analyzer import Interval, interval
from arena.duplicate import Match, SeedResult


@dataclass(frozen=True)
class Row:
    """One round (or the total) over its seeds."""

    label: str  # the round number, or "total"
    relative: Interval  # per seed: the challenger's mean points less the opponents' mean
    challenger_points: float  # per table, mean
    opponent_points: float  # per table, mean of the others' mean
    went_out_first: float  # share of the challenger's tables it went out first
    unfinished: float  # share of tables nobody went out of
    buys_per_round: float  # the challenger's buys per table
    opponent_buys_per_round: float  # each opponent's, per table
    turns: float  # table turns per table
    decisions: int  # the challenger's
    seconds: float  # ...and their time (wall clock)

    @property
    def ms_per_decision(self) -> float:
        return 1000 * self.seconds / self.decisions if self.decisions else 0.0

    def to_dict(self) -> dict[str, Any]:
        mean, low, high = self.relative.rounded()
        return {
            "seeds": self.relative.n,
            "relative_points": {"mean": mean, "ci_low": low, "ci_high": high},
            "challenger_points": round(self.challenger_points, 3),
            "opponent_points": round(self.opponent_points, 3),
            "went_out_first": round(self.went_out_first, 4),
            "unfinished": round(self.unfinished, 4),
            "buys_per_round": round(self.buys_per_round, 4),
            "opponent_buys_per_round": round(self.opponent_buys_per_round, 4),
            "turns_per_round": round(self.turns, 2),
        }


def row(label: str, seeds: Sequence[SeedResult], relative: Sequence[float]) -> Row:
    """The row of these seeds' tables, ``relative`` being each seed's figure (a round's relative
    points, or the seed's mean or sum over the rounds)."""
    tables = [table for seed in seeds for table in seed.tables]
    count = len(tables)
    others = len(tables[0].points) - 1
    return Row(
        label,
        interval(relative),
        sum(t.challenger_points for t in tables) / count,
        sum(t.opponent_points for t in tables) / count,
        sum(t.went_out_first for t in tables) / count,
        sum(t.winner is None for t in tables) / count,
        sum(t.buys[t.seat] for t in tables) / count,
        sum(sum(t.buys) - t.buys[t.seat] for t in tables) / count / others,
        sum(t.turns for t in tables) / count,
        sum(t.decisions for t in tables),
        sum(t.seconds for t in tables),
    )


@dataclass(frozen=True)
class Report:
    match: Match
    rules: str  # the rule set's name
    seeds: tuple[int, int]  # first and last
    game: bool  # the total is each seed's sum over every round of the rule set (a whole game)
    rounds: tuple[Row, ...]
    total: Row

    @property
    def fair_share(self) -> float:
        return 1 / self.match.players

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "players": self.match.players,
            "challenger": str(self.match.challenger),
            "opponents": str(self.match.opponents),
            "seeds": f"{self.seeds[0]}-{self.seeds[1]}",
            "game": self.game,
            "statistic": "relative points: per seed, the challenger's mean penalty points over its seats less the "
                         "opponents' mean; 95% Student t interval over seeds (paired by the deal)",
            "fair_share": round(self.fair_share, 4),
            "rounds": [{"round": int(r.label), **r.to_dict()} for r in self.rounds],
            "total": self.total.to_dict(),
        }


def report(match: Match, rules: str, seeds: tuple[int, int], game: bool, results: Sequence[SeedResult]) -> Report:
    """The report of every seed of every round (``results`` in any order of rounds, seeds in
    order within a round)."""
    by_round: dict[int, list[SeedResult]] = {}
    for result in results:
        by_round.setdefault(result.round_number, []).append(result)
    rows = tuple(row(str(number), seeds_, [s.relative_points for s in seeds_])
                 for number, seeds_ in sorted(by_round.items()))
    per_seed: dict[int, list[float]] = {}
    for result in results:
        per_seed.setdefault(result.seed, []).append(result.relative_points)
    # A whole game: each seed's sum over the rounds (the game's score difference); else its mean.
    totals = [sum(values) if game else sum(values) / len(values) for _, values in sorted(per_seed.items())]
    return Report(match, rules, seeds, game, rows, row("total", results, totals))


# ---- text ---------------------------------------------------------------------------------------------


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.1f}"


def text(rep: Report) -> str:
    match = rep.match
    lines = [
        (f"{match.challenger} against {match.opponents}: {rep.rules}, {match.players} players, seeds "
        f"{rep.seeds[0]}-{rep.seeds[1]} (duplicate: {match.players} tables a seed)"),
        "",
        (f"{'round':>5}  {'seeds':>5}  {'relative points (95% CI)':<26}  {'out first':>9}  {'buys':>5}  "
        f"{'opp. buys':>9}  {'turns':>5}  {'ms/decision':>11}"),
    ]
    for r in (*rep.rounds, rep.total):
        ci = f"{_figure(r.relative.mean)} ({_figure(r.relative.low)}, {_figure(r.relative.high)})"
        lines.append(f"{r.label:>5}  {r.relative.n:>5}  {ci:<26}  {r.went_out_first:>9.1%}  {r.buys_per_round:>5.2f}  "
                     f"{r.opponent_buys_per_round:>9.2f}  {r.turns:>5.1f}  {r.ms_per_decision:>11.1f}")
    total = "each seed's sum over every round (a whole game)" if rep.game else "each seed's mean over the rounds"
    lines += [
        "",
        *textwrap.wrap(f"Relative points: per seed, {match.challenger}'s mean penalty points over its {match.players} seats less "
        f"the mean of the {match.opponents} opponents'; negative is better. 95% Student t interval over seeds. "
        f"Total: {total}. Out first: share of {match.challenger}'s tables it went out first "
        f"(fair share {rep.fair_share:.0%}). Buys: per round, {match.challenger}'s and each opponent's.", 100),
    ]
    return "\n".join(lines) + "\n"


# ---- the picture ---------------------------------------------------------------------------------------

WIDTH, HEIGHT = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 64, 24, 40, 48


def svg(rep: Report) -> str:
    """Relative points per round, each with its 95% interval as an error bar, and a line at 0."""
    rows = list(rep.rounds)
    values = [0.0] + [v for r in rows for v in (r.relative.mean, r.relative.low, r.relative.high) if v is not None]
    low, high = min(values), max(values)
    pad = max(1.0, (high - low) * 0.08)
    low, high = low - pad, high + pad
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def y(value: float) -> float:
        return TOP + (high - value) / (high - low) * plot_h

    def x(index: int) -> float:
        return LEFT + (index + 0.5) * plot_w / len(rows)

    title = (f"{rep.match.challenger} vs {rep.match.opponents}, {rep.rules}, {rep.match.players} players, "
             f"seeds {rep.seeds[0]}-{rep.seeds[1]}")
    parts = [
        (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">'),
        f"<title>{escape(title)}</title>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>',
    ]
    for tick in _ticks(low, high):
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
                     f'stroke="{"#444" if tick == 0 else "#ddd"}"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>')
    for index, r in enumerate(rows):
        cx = x(index)
        if r.relative.low is not None and r.relative.high is not None:
            top, bottom = y(r.relative.high), y(r.relative.low)
            parts.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{top:.1f}" y2="{bottom:.1f}" stroke="#1f5fa8" '
                         'stroke-width="2"/>')
            for end in (top, bottom):
                parts.append(f'<line x1="{cx - 8:.1f}" x2="{cx + 8:.1f}" y1="{end:.1f}" y2="{end:.1f}" '
                             'stroke="#1f5fa8" stroke-width="2"/>')
        parts.append(f'<circle cx="{cx:.1f}" cy="{y(r.relative.mean):.1f}" r="4" fill="#1f5fa8">'
                     f"<title>round {r.label}: {r.relative.mean:+.1f} ({_figure(r.relative.low)}, "
                     f"{_figure(r.relative.high)}), {r.relative.n} seeds</title></circle>")
        parts.append(f'<text x="{cx:.1f}" y="{HEIGHT - BOTTOM + 18}" text-anchor="middle">{r.label}</text>')
    parts += [
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 10}" text-anchor="middle">round</text>',
        (f'<text transform="translate(16 {TOP + plot_h / 2}) rotate(-90)" text-anchor="middle">'
        "relative points (95% CI; below 0: challenger better)</text>"),
        "</svg>",
    ]
    return "\n".join(parts) + "\n"


def _ticks(low: float, high: float) -> list[float]:
    """Round numbers between ``low`` and ``high``, about five of them, 0 among them when in range."""
    span = high - low
    step = 1.0
    for candidate in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500):
        step = float(candidate)
        if span / step <= 6:
            break
    first = int(low // step) + 1
    return [k * step for k in range(first, int(high // step) + 1)]
