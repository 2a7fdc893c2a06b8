"""Glicko-2 ratings for players and puzzles: our own short implementation of Mark Glickman's
"Example of the Glicko-2 system" (2013), steps 1 to 8, the new volatility found by the Illinois
algorithm of step 5 exactly as the paper gives it.

A trainer attempt is one rating period of one game: ``rate_attempt`` rates the player against
the puzzle and the puzzle against the player, each against the other's rating from before the
attempt (as Lichess rates its puzzles). Ratings are on the Glicko scale (1500, 350, 0.06).

Every value that goes in is checked (``RatingError`` names the field), and every value that comes
out is a valid input again: the rating is kept within ``RATING_LIMITS``, the deviation at most
``MAX_DEVIATION`` and the volatility at most ``MAX_VOLATILITY``. Within these limits no step can
overflow, so a rating is never NaN.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SCALE = 173.7178  # Glicko scale -> Glicko-2 scale (step 2): 400 / ln(10)
DEFAULT_RATING, DEFAULT_DEVIATION, DEFAULT_VOLATILITY = 1500.0, 350.0, 0.06
DEFAULT_TAU = 0.5  # the system constant: how fast the volatility may change (paper: 0.3 to 1.2)
CONVERGENCE = 0.000001  # step 5's epsilon

# An unrated player's deviation is 350: a larger one would say we know less about someone than
# about a newcomer of whom we know nothing, and would let one game move a rating by more than a
# newcomer's first game does. Idle periods (step 6) therefore stop growing it at 350, as Glickman
# advises for Glicko and as Lichess does.
MAX_DEVIATION = DEFAULT_DEVIATION
# Far above any real player or puzzle, yet small enough that no exponential in the steps overflows.
RATING_LIMITS = (0.0, 10_000.0)
# Lichess's cap: a volatility above it only appears after absurd upsets, and it bounds how fast
# the deviation regrows.
MAX_VOLATILITY = 0.1
TAU_LIMITS = (0.01, 10.0)
MAX_ITERATIONS = 200  # step 5 converges in well under 20; this only guarantees it ends


class RatingError(ValueError):
    """A value Glicko-2 cannot rate: NaN or infinite, a rating outside ``RATING_LIMITS``, a
    deviation not in (0, 350], a volatility not in (0, 0.1], a score outside [0, 1] or a tau
    outside ``TAU_LIMITS``. The message names the field and quotes the value."""


def _check(value: Any, field: str, low: float, high: float, *, open_low: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RatingError(f"{field} must be a number, not {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise RatingError(f"{field} must be a finite number, not {value!r}")
    if number < low or number > high or (open_low and number == low):
        bracket = "(" if open_low else "["
        raise RatingError(f"{field} must be in {bracket}{low:g}, {high:g}], not {value!r}")
    return number


@dataclass(frozen=True)
class Rating:
    """A rating on the Glicko scale: the strength, its deviation (the 95% interval is rating
    +- 2 deviations) and the volatility (how erratic the results have been)."""

    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY

    def __post_init__(self) -> None:
        rating = _check(self.rating, "rating", *RATING_LIMITS)
        deviation = _check(self.deviation, "deviation", 0.0, MAX_DEVIATION, open_low=True)
        volatility = _check(self.volatility, "volatility", 0.0, MAX_VOLATILITY, open_low=True)
        object.__setattr__(self, "rating", rating)  # stored as floats: Rating(1500) == Rating(1500.0)
        object.__setattr__(self, "deviation", deviation)
        object.__setattr__(self, "volatility", volatility)

    def to_dict(self) -> dict[str, float]:
        return {"rating": self.rating, "deviation": self.deviation, "volatility": self.volatility}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rating:
        if not isinstance(data, Mapping):
            raise RatingError(f"a rating is an object with rating, deviation and volatility, not {data!r}")
        return cls(
            data.get("rating", DEFAULT_RATING),
            data.get("deviation", DEFAULT_DEVIATION),
            data.get("volatility", DEFAULT_VOLATILITY),
        )


@dataclass(frozen=True)
class Game:
    """One result of a rating period: the opponent's rating before it, and the score (1 a win,
    0 a loss, 0.5 a draw)."""

    opponent: Rating
    score: float

    def __post_init__(self) -> None:
        if not isinstance(self.opponent, Rating):
            raise RatingError(f"opponent must be a Rating, not {self.opponent!r}")
        object.__setattr__(self, "score", _check(self.score, "score", 0.0, 1.0))


# ---- the paper's functions, on the Glicko-2 scale ------------------------------------------------


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / math.pi**2)


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    """E(mu, mu_j, phi_j): the expected score against opponent j."""
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _information(mu: float, mu_j: float, phi_j: float) -> float:
    """E (1 - E), computed as e^-z / (1 + e^-z)^2 so that it never rounds to 0 (which would make
    step 3's v infinite) when the ratings are thousands of points apart."""
    z = _g(phi_j) * (mu - mu_j)
    w = math.exp(-abs(z))  # symmetric in z
    return w / (1.0 + w) ** 2


def expected_score(player: Rating, opponent: Rating) -> float:
    """The player's expected score against the opponent (step 3's E): 0.5 between equals, the
    opponent's deviation flattening it towards 0.5."""
    mu, _ = _mu_phi(player)
    mu_j, phi_j = _mu_phi(opponent)
    return _expected(mu, mu_j, phi_j)


def _mu_phi(rating: Rating) -> tuple[float, float]:
    return (rating.rating - DEFAULT_RATING) / SCALE, rating.deviation / SCALE


def new_volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: sigma' = e^(A/2) where A is the root of f, found by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        spread = phi * phi + v + ex
        return ex * (delta * delta - spread) / (2.0 * spread * spread) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(MAX_ITERATIONS):
        if abs(big_b - big_a) <= CONVERGENCE:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:  # the root lies between B and C: C becomes B, B becomes A
            big_a, f_a = big_b, f_b
        else:  # the Illinois step: halve f(A) so that A moves next time
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def rate(player: Rating, games: Sequence[Game], *, tau: float = DEFAULT_TAU) -> Rating:
    """The player's rating after one rating period with these games (every game against the
    opponent's rating from before the period). No games: only the deviation grows (step 6)."""
    tau = _check(tau, "tau", *TAU_LIMITS)
    if not isinstance(player, Rating):
        raise RatingError(f"player must be a Rating, not {player!r}")
    for game in games:
        if not isinstance(game, Game):
            raise RatingError(f"games must be Game values, not {game!r}")
    if not games:  # step 6 alone, on the Glicko scale so that the rating stays exactly as it was
        grown = math.hypot(player.deviation, SCALE * player.volatility)
        return Rating(player.rating, min(grown, MAX_DEVIATION), player.volatility)
    mu, phi = _mu_phi(player)
    sigma = player.volatility
    # Steps 3 and 4: the estimated variance v from the results alone, and the improvement delta.
    opponents = [(*_mu_phi(game.opponent), game.score) for game in games]
    v = 1.0 / sum(_g(phi_j) ** 2 * _information(mu, mu_j, phi_j) for mu_j, phi_j, _ in opponents)
    surprise = sum(_g(phi_j) * (score - _expected(mu, mu_j, phi_j)) for mu_j, phi_j, score in opponents)
    delta = v * surprise
    # Steps 5 to 7: the new volatility, the pre-period deviation grown by it, then the update.
    sigma_new = new_volatility(phi, sigma, delta, v, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * surprise
    return _rating(mu_new, phi_new, sigma_new)


def _rating(mu: float, phi: float, sigma: float) -> Rating:
    """Step 8, back to the Glicko scale, kept within the limits (see MAX_DEVIATION)."""
    low, high = RATING_LIMITS
    return Rating(
        min(max(SCALE * mu + DEFAULT_RATING, low), high),
        min(SCALE * phi, MAX_DEVIATION),
        min(sigma, MAX_VOLATILITY),
    )


def rate_attempt(
    player: Rating, puzzle: Rating, solved: bool, *, tau: float = DEFAULT_TAU
) -> tuple[Rating, Rating]:
    """One attempt as a game between player and puzzle: the player wins when solving it. Each is
    rated against the other's rating from before the attempt. Returns (new player, new puzzle)."""
    if not isinstance(solved, bool):
        raise RatingError(f"solved must be true or false, not {solved!r}")
    score = 1.0 if solved else 0.0
    return (
        rate(player, [Game(puzzle, score)], tau=tau),
        rate(puzzle, [Game(player, 1.0 - score)], tau=tau),
    )
