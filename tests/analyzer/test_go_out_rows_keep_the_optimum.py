"""The go-out lay-down model's tighter relaxation (``SolverOptions.tight_go_out``: the sets' rows of
``sets_hold_naturals_only_when_laid``, no run window longer than the target leaves) holds
for every lay-down: with them the optimum is the same as without them, hand by hand, in the
go-out rounds where they are meant to cut the LP's fractions (ill-buy-it's sets and run, the
others' runs of any length), before and after the draw. A row that cut a real lay-down (a set
holding one copy fewer than the hand has) changes some optimum here and fails."""

from __future__ import annotations

import random

import pytest

from analyzer.cards import ALL_NATURALS, JOKER, Suit
from analyzer.rules import preset
from analyzer.solver import solve_lay_down
from analyzer.solver.model import SolverOptions

GO_OUT_ROUNDS = [("ill-buy-it", 8), ("pagat", 7), ("shanghai", 7), ("kolsov", 10)]
HANDS = 12  # per round and moment: a few seconds in all


def _values(name: str, round_number: int, before_draw: bool, tight: bool) -> list[tuple[object, ...]]:
    options = SolverOptions(tight_go_out=tight)
    rules = preset(name)
    deck = rules.deck_for(None)
    cards = list(ALL_NATURALS) * deck.decks + [JOKER] * deck.jokers
    rng = random.Random(f"{name}-{before_draw}")
    values = []
    for _ in range(HANDS):
        # Hands near the contract too: a few suits and ranks, where sets and runs compete.
        if rng.random() < 0.5:
            pool = [c for c in cards if c.is_joker or c.suit in (Suit.HEARTS, Suit.SPADES)]
        else:
            pool = cards
        hand = tuple(rng.sample(pool, rng.randint(12, 17)))
        laid = solve_lay_down(hand, rules, round_number, deck, 10.0, before_draw=before_draw, options=options)
        values.append((hand, laid.can_lay_down, laid.cards_away, laid.leftover_points, laid.proven_optimal))
    return values


@pytest.mark.parametrize("before_draw", [True, False], ids=["before-draw", "after-draw"])
@pytest.mark.parametrize(("name", "round_number"), GO_OUT_ROUNDS)
def test_the_extra_rows_keep_every_optimum(name: str, round_number: int, before_draw: bool) -> None:
    without = _values(name, round_number, before_draw, False)
    with_rows = _values(name, round_number, before_draw, True)
    assert all(proven for *_, proven in without + with_rows)
    assert with_rows == without
    # Real answers, not a solver that says "never" for every hand: these hands lie a few cards
    # from going out, each its own distance.
    assert len({cards_away for _, _, cards_away, _, _ in with_rows if cards_away is not None}) >= 3
