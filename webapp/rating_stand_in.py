"""STAND-IN until the ``rating`` branch lands webapp/glicko2.py, webapp/choose.py and
webapp/chart.py: the same interfaces, crude insides. Deleted on that merge."""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from puzzles.model import Puzzle

EASIER, HARDER = -300.0, 300.0


class RatingError(ValueError):
    pass


class ChoiceError(ValueError):
    pass


@dataclass(frozen=True)
class Rating:
    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def expected_score(player: Rating, opponent: Rating) -> float:
    return 1 / (1 + 10 ** ((opponent.rating - player.rating) / 400))


def rate_attempt(player: Rating, puzzle: Rating, solved: bool, *, tau: float = 0.5) -> tuple[Rating, Rating]:
    change = 32 * ((1.0 if solved else 0.0) - expected_score(player, puzzle))
    return (Rating(player.rating + change, max(60.0, player.deviation * 0.95), player.volatility),
            Rating(puzzle.rating - change, max(60.0, puzzle.deviation * 0.95), puzzle.volatility))


def choose_puzzle(candidates: Sequence[Puzzle], ratings: Mapping[str, float], player_rating: float, *,
                  rules: str, kind: str | None = None, theme: str | None = None, offset: int = 0,
                  exclude: Collection[str] = (), rng: random.Random) -> Puzzle | None:
    fitting = [p for p in candidates if p.rules == rules and (kind is None or p.kind == kind)
               and (theme is None or theme in p.themes) and p.id not in exclude]
    if not fitting:
        return None
    target = player_rating + offset
    fitting.sort(key=lambda p: abs(ratings.get(p.id, p.rating) - target))
    return rng.choice(fitting[:10])


def rating_chart(history: Sequence[tuple[datetime, float, float]], *, width: int = 640, height: int = 220) -> str:
    if not history:
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img"><title>No rated answers yet</title></svg>'
    low = min(r for _, r, _ in history) - 50
    high = max(r for _, r, _ in history) + 50
    step = width / max(1, len(history) - 1)
    points = " ".join(f"{i * step:.1f},{height - (r - low) / (high - low) * height:.1f}" for i, (_, r, _) in enumerate(history))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img">'
            f'<title>Rating over time</title><polyline fill="none" stroke="#1348b0" points="{points}"/></svg>')
