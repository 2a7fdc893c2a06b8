"""Glicko-2 (webapp/glicko2.py): Glickman's worked example to the paper's printed figures, the
volatility step checked against an independent root of the paper's f at other configurations
(where the PyPI package's bug shows), properties of single games and idle periods, bad input."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from webapp.glicko2 import (
    MAX_DEVIATION,
    MAX_VOLATILITY,
    RATING_LIMITS,
    SCALE,
    Game,
    Rating,
    RatingError,
    expected_score,
    new_volatility,
    rate,
    rate_attempt,
)

# Ratings as a trainer sees them: players and puzzles from beginners to experts.
ratings = st.builds(
    Rating,
    rating=st.floats(500, 3000),
    deviation=st.floats(30, MAX_DEVIATION),
    volatility=st.floats(0.03, 0.09),
)
taus = st.floats(0.3, 1.2)

# ---- Glickman's example (2013, pages 3-5) -----------------------------------------------------------

PLAYER = Rating(1500, 200, 0.06)
OPPONENTS = [Game(Rating(1400, 30), 1), Game(Rating(1550, 100), 0), Game(Rating(1700, 300), 0)]


def test_glickmans_worked_example() -> None:
    after = rate(PLAYER, OPPONENTS, tau=0.5)
    # The paper prints mu' = -0.2069 and from it r' = 173.7178 * -0.2069 + 1500 = 1464.06; the
    # unrounded mu' (-0.20694) gives 1464.05, so the rating is checked at the paper's mu'.
    assert round((after.rating - 1500) / SCALE, 4) == -0.2069
    assert abs(after.rating - 1464.06) < 0.01
    assert round(after.deviation, 2) == 151.52
    assert round(after.deviation / SCALE, 4) == 0.8722  # phi'
    assert math.floor(after.volatility * 1e5) / 1e5 == 0.05999  # the paper prints 0.059995... cut at 5 places
    assert abs(after.volatility - 0.05999) < 0.00001


def test_glickmans_step_5_from_the_papers_own_intermediate_figures() -> None:
    # phi = 1.1513, v = 1.7785, Delta = -0.4834 (steps 2 to 4) give sigma' = 0.05999.
    sigma = new_volatility(phi=1.1513, sigma=0.06, delta=-0.4834, v=1.7785, tau=0.5)
    assert abs(sigma - 0.05999) < 0.00001


# ---- the volatility step, independently ----------------------------------------------------------------


def _paper_v_and_delta(player: Rating, games: list[Game]) -> tuple[float, float, float]:
    """Steps 2 to 4 written out again from the paper: (phi, v, Delta)."""
    mu, phi = (player.rating - 1500) / 173.7178, player.deviation / 173.7178
    total_v = total_delta = 0.0
    for game in games:
        mu_j, phi_j = (game.opponent.rating - 1500) / 173.7178, game.opponent.deviation / 173.7178
        g = 1 / math.sqrt(1 + 3 * phi_j**2 / math.pi**2)
        e = 1 / (1 + math.exp(-g * (mu - mu_j)))
        total_v += g * g * e * (1 - e)
        total_delta += g * (game.score - e)
    v = 1 / total_v
    return phi, v, v * total_delta


def _root_by_bisection(f: Callable[[float], float], low: float, high: float) -> float:
    """A root of f in [low, high] by plain bisection (no Illinois step), to 1e-12."""
    f_low = f(low)
    assert f_low * f(high) <= 0
    for _ in range(200):
        middle = (low + high) / 2
        if f_low * f(middle) <= 0:
            high = middle
        else:
            low, f_low = middle, f(middle)
    return (low + high) / 2


def _sigma_by_bisection(player: Rating, games: list[Game], tau: float, *, square: str = "phi") -> float:
    """sigma' = e^(x/2) for the root x of the paper's f(x) = e^x (Delta^2 - phi^2 - v - e^x) /
    (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2. ``square="mu"`` puts mu^2 where the paper has
    phi^2: the PyPI ``glicko2`` package's mistake, to show that these tests see it."""
    phi, v, delta = _paper_v_and_delta(player, games)
    mu = (player.rating - 1500) / 173.7178
    s2 = phi**2 if square == "phi" else mu**2
    a = math.log(player.volatility**2)

    def f(x: float) -> float:
        e = math.exp(x)
        return e * (delta**2 - s2 - v - e) / (2 * (s2 + v + e) ** 2) - (x - a) / tau**2

    # f is decreasing, positive far left and negative far right: widen until the root is inside.
    low, high = a - 1, a + 1
    while f(low) < 0:
        low -= 1
    while f(high) > 0:
        high += 1
    return math.exp(_root_by_bisection(f, low, high) / 2)


CONFIGURATIONS = [
    # (player, games, tau): a strong player upset by weaker ones, and a weak one beating strong ones.
    (
        Rating(2100, 80, 0.06),
        [Game(Rating(1700, 60), 0), Game(Rating(1800, 120), 0), Game(Rating(1650, 50), 0.5)],
        0.5,
    ),
    (Rating(900, 150, 0.05), [Game(Rating(1500, 50), 1), Game(Rating(1600, 90), 1)], 0.8),
]


@pytest.mark.parametrize(("player", "games", "tau"), CONFIGURATIONS)
def test_the_volatility_is_the_root_of_the_papers_f(player: Rating, games: list[Game], tau: float) -> None:
    tolerance = 1e-7
    expected = _sigma_by_bisection(player, games, tau)
    assert abs(rate(player, games, tau=tau).volatility - expected) < tolerance
    # The PyPI package's f (mu^2 in place of phi^2) has its root far outside the tolerance here
    # (at r = 1500, as in Glickman's example, mu = 0 and the mistake hides): it would fail.
    assert abs(_sigma_by_bisection(player, games, tau, square="mu") - expected) > 100 * tolerance


@given(
    player=ratings,
    opponents=st.lists(st.tuples(ratings, st.sampled_from([0.0, 0.5, 1.0])), min_size=1, max_size=5),
    tau=taus,
)
def test_the_volatility_is_the_papers_root_everywhere(
    player: Rating, opponents: list[tuple[Rating, float]], tau: float
) -> None:
    games = [Game(opponent, score) for opponent, score in opponents]
    expected = min(_sigma_by_bisection(player, games, tau), MAX_VOLATILITY)
    assert rate(player, games, tau=tau).volatility == pytest.approx(expected, abs=1e-6)


def test_the_rating_and_deviation_follow_steps_6_to_8() -> None:
    player, games, tau = CONFIGURATIONS[0]
    phi, v, delta = _paper_v_and_delta(player, games)
    sigma = _sigma_by_bisection(player, games, tau)
    phi_new = 1 / math.sqrt(1 / (phi**2 + sigma**2) + 1 / v)
    mu_new = (player.rating - 1500) / 173.7178 + phi_new**2 * delta / v
    after = rate(player, games, tau=tau)
    assert after.rating == pytest.approx(173.7178 * mu_new + 1500, abs=1e-4)
    assert after.deviation == pytest.approx(173.7178 * phi_new, abs=1e-4)
    assert after.rating < player.rating  # lost to weaker players


# ---- properties ------------------------------------------------------------------------------------------


@given(player=ratings, opponent=ratings, tau=taus)
def test_a_win_never_lowers_a_rating_and_a_loss_never_raises_it(
    player: Rating, opponent: Rating, tau: float
) -> None:
    won = rate(player, [Game(opponent, 1)], tau=tau)
    lost = rate(player, [Game(opponent, 0)], tau=tau)
    assert lost.rating < player.rating < won.rating
    drawn = rate(player, [Game(opponent, 0.5)], tau=tau)
    assert lost.rating < drawn.rating < won.rating


@given(player=ratings, opponent=ratings, score=st.sampled_from([0.0, 0.5, 1.0]), tau=taus)
def test_a_game_shrinks_the_deviation_the_period_leaves(
    player: Rating, opponent: Rating, score: float, tau: float
) -> None:
    after = rate(player, [Game(opponent, score)], tau=tau)
    # Below the deviation grown by the new volatility over the period (step 6, phi*).
    assert after.deviation < math.hypot(player.deviation, SCALE * after.volatility)
    assert 0 < after.volatility <= MAX_VOLATILITY
    # Below the deviation before the game too, unless that was already so small that one game
    # tells less than the period's volatility adds (a deviation of 30 against an equal opponent
    # grows to 31.8): so from 150 up, against anyone within 400 points.
    if player.deviation >= 150 and abs(player.rating - opponent.rating) <= 400:
        assert after.deviation < player.deviation


def test_a_low_deviation_can_grow_after_one_game() -> None:
    settled = Rating(1500, 30, 0.06)
    after = rate(settled, [Game(Rating(1500, 30, 0.06), 0)])
    assert settled.deviation < after.deviation < math.hypot(30, 0.06 * SCALE)


def test_games_bring_a_newcomers_deviation_down() -> None:
    player = Rating()
    for number in range(30):
        player = rate(player, [Game(Rating(1500, 60), number % 2)])
    assert player.deviation < 100


@given(player=ratings)
def test_idle_periods_grow_the_deviation_up_to_the_cap(player: Rating) -> None:
    idle = rate(player, [])
    assert idle.rating == player.rating and idle.volatility == player.volatility
    grown = math.sqrt((player.deviation / SCALE) ** 2 + player.volatility**2) * SCALE  # step 6
    assert idle.deviation == pytest.approx(min(grown, MAX_DEVIATION))
    assert idle.deviation >= player.deviation
    # n idle periods give sqrt(RD^2 + n (sigma SCALE)^2): the cap is reached exactly when that passes 350.
    periods = math.ceil((MAX_DEVIATION**2 - player.deviation**2) / (player.volatility * SCALE) ** 2)
    idle = player
    for _ in range(periods - 1):
        idle = rate(idle, [])
    assert idle.deviation < MAX_DEVIATION or periods <= 1
    idle = rate(idle, [])
    assert idle.deviation == MAX_DEVIATION and idle.rating == player.rating


@given(player=ratings, puzzle=ratings, solved=st.booleans(), tau=taus)
def test_an_attempt_moves_player_and_puzzle_in_opposite_directions(
    player: Rating, puzzle: Rating, solved: bool, tau: float
) -> None:
    new_player, new_puzzle = rate_attempt(player, puzzle, solved, tau=tau)
    if solved:
        assert new_player.rating > player.rating and new_puzzle.rating < puzzle.rating
    else:
        assert new_player.rating < player.rating and new_puzzle.rating > puzzle.rating
    # Each against the other's rating from before the attempt.
    assert new_player == rate(player, [Game(puzzle, float(solved))], tau=tau)
    assert new_puzzle == rate(puzzle, [Game(player, float(not solved))], tau=tau)


@given(player=ratings, puzzle_deviation=st.floats(30, 150), gap=st.floats(400, 1500))
def test_a_player_far_above_a_puzzle_gains_little_from_solving_it(
    player: Rating, puzzle_deviation: float, gap: float
) -> None:
    assume(player.rating - gap - 200 >= 0)
    easy, easier = (Rating(player.rating - below, puzzle_deviation) for below in (gap, gap + 200))
    level = Rating(player.rating, puzzle_deviation)
    gain_easier, gain_easy, gain_level = (
        rate_attempt(player, puzzle, True)[0].rating - player.rating for puzzle in (easier, easy, level)
    )
    assert 0 < gain_easier < gain_easy < gain_level / 3
    assert expected_score(player, easy) > 0.85


@given(player=ratings, opponent=ratings)
def test_expected_scores_of_two_players_are_ordered_and_bounded(player: Rating, opponent: Rating) -> None:
    score = expected_score(player, opponent)
    assert 0 < score < 1
    # Ratings a few ulps apart (500.0 and 500.00000000000006, found by hypothesis) score exactly
    # 0.5 in floating point; a gap of a billionth of a point already moves the score ~1e-12.
    gap = player.rating - opponent.rating
    if gap > 1e-9:
        assert score > 0.5
    elif gap < -1e-9:
        assert score < 0.5
    else:
        assert score == pytest.approx(0.5)
    assert expected_score(player, player) == 0.5


# Anything the limits allow, to the edges.
any_rating = st.builds(
    Rating, st.floats(*RATING_LIMITS), st.floats(1e-3, MAX_DEVIATION), st.floats(1e-4, MAX_VOLATILITY)
)


@given(
    player=any_rating,
    opponents=st.lists(any_rating, min_size=0, max_size=4),
    scores=st.lists(st.floats(0, 1), min_size=4, max_size=4),
    tau=st.floats(0.01, 10),
)
def test_any_valid_input_gives_a_valid_rating(
    player: Rating, opponents: list[Rating], scores: list[float], tau: float
) -> None:
    after = rate(player, [Game(opponent, score) for opponent, score in zip(opponents, scores)], tau=tau)
    assert Rating(**after.to_dict()) == after  # every output is a valid input: finite, within the limits


def test_to_dict_and_from_dict() -> None:
    rating = Rating(1612.5, 80.25, 0.059)
    assert rating.to_dict() == {"rating": 1612.5, "deviation": 80.25, "volatility": 0.059}
    assert Rating.from_dict(rating.to_dict()) == rating
    assert Rating.from_dict({}) == Rating()


# ---- bad input -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"rating": math.nan}, "rating"),
        ({"rating": math.inf}, "rating"),
        ({"rating": -1.0}, "rating"),
        ({"rating": "1500"}, "rating"),
        ({"deviation": 0.0}, "deviation"),
        ({"deviation": -5.0}, "deviation"),
        ({"deviation": 351.0}, "deviation"),
        ({"deviation": math.nan}, "deviation"),
        ({"volatility": 0.0}, "volatility"),
        ({"volatility": -0.06}, "volatility"),
        ({"volatility": math.inf}, "volatility"),
        ({"volatility": 0.5}, "volatility"),
    ],
)
def test_a_bad_rating_is_refused_naming_the_field(fields: dict[str, object], named: str) -> None:
    with pytest.raises(RatingError, match=f"^{named} must be"):
        Rating(**fields)  # type: ignore[arg-type]
    with pytest.raises(RatingError, match=f"^{named} must be"):
        Rating.from_dict(fields)


@pytest.mark.parametrize("score", [-0.1, 1.5, math.nan, math.inf, None, True])
def test_a_bad_score_is_refused(score: object) -> None:
    with pytest.raises(RatingError, match="^score must be"):
        Game(Rating(), score)  # type: ignore[arg-type]


@pytest.mark.parametrize("tau", [0.0, -0.5, math.nan, math.inf, 100.0])
def test_a_bad_tau_is_refused(tau: float) -> None:
    with pytest.raises(RatingError, match="^tau must be"):
        rate(Rating(), [], tau=tau)
    with pytest.raises(RatingError, match="^tau must be"):
        rate_attempt(Rating(), Rating(), True, tau=tau)


def test_wrong_types_are_refused() -> None:
    assert issubclass(RatingError, ValueError)
    with pytest.raises(RatingError, match="^opponent must be"):
        Game((1500, 350), 1)  # type: ignore[arg-type]
    with pytest.raises(RatingError, match="^player must be"):
        rate((1500, 350), [])  # type: ignore[arg-type]
    with pytest.raises(RatingError, match="^games must be"):
        rate(Rating(), [(Rating(), 1)])  # type: ignore[list-item]
    with pytest.raises(RatingError, match="^solved must be"):
        rate_attempt(Rating(), Rating(), 1)  # type: ignore[arg-type]
