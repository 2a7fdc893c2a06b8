"""A mean with its 95% Student t interval (the arena's statistic over seeds, the in-play judge's over deals).

Duplicate play pairs the challenger with the opponents on each deal, so each seed gives one
number (the challenger's mean points less the opponents' mean, over its seats) and the interval
is the one-sample t interval of those numbers (a paired t interval).

    >>> interval([-3.0, -1.0, -2.0, -4.0]).rounded()
    (-2.5, -4.554, -0.446)
    >>> round(t_quantile(10), 3), round(t_quantile(30), 3), round(t_quantile(120), 3)
    (2.228, 2.042, 1.98)
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

Z_975 = 1.959963984540054  # the standard normal's 97.5% point
# Student t's 97.5% point for 1 to 30 degrees of freedom (any statistics table); above 30 the
# Cornish-Fisher expansion in 1/df below is within 1e-4 of it.
T_975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t_quantile(df: int) -> float:
    """Student t's 97.5% point with ``df`` degrees of freedom (a 95% two-sided interval)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    if df <= len(T_975):
        return T_975[df - 1]
    z, v = Z_975, float(df)
    return (z + (z**3 + z) / (4 * v) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
            + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4))


@dataclass(frozen=True)
class Interval:
    """A mean and its 95% t interval (None for the bounds of a single value)."""

    n: int
    mean: float
    low: float | None
    high: float | None

    def rounded(self, digits: int = 3) -> tuple[float, float | None, float | None]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, digits) + 0.0  # no -0.0 in the JSON

        return r(self.mean), r(self.low), r(self.high)  # type: ignore[return-value]

    def contains(self, value: float) -> bool:
        return self.low is not None and self.high is not None and self.low <= value <= self.high


def interval(values: Sequence[float]) -> Interval:
    """The mean of ``values`` with its 95% Student t interval."""
    if not values:
        raise ValueError("no values")
    mean = math.fsum(values) / len(values)
    if len(values) < 2:
        return Interval(len(values), mean, None, None)
    half = t_quantile(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return Interval(len(values), mean, mean - half, mean + half)
