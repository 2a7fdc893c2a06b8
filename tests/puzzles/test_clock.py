"""Verdicts the clock cannot change: simulated play and every derived puzzle are pure functions
of their inputs. Each CP-SAT solve is bounded by deterministic work (``analyzer.deterministic_work``),
not seconds; the seconds left of a whole answer's budget may only stop it, and generation then
rejects the position rather than accept it with other figures."""

from __future__ import annotations

import functools
import itertools

import pytest

import analyzer.round_solver
import analyzer.solver.outs
import puzzles.generate
from analyzer import Table, deterministic_work, preset
from analyzer.solver.work import work_limit
from puzzles.generate import derive, generate
from puzzles.model import Puzzle
from puzzles.verify import position_of


class SlowClock:
    """``time`` as the analyser reads it, on a machine so loaded that every look at the clock
    finds ``step`` seconds gone."""

    def __init__(self, step: float) -> None:
        self.ticks = itertools.count()
        self.step = step

    def monotonic(self) -> float:
        return next(self.ticks) * self.step


def slow_clock(monkeypatch: pytest.MonkeyPatch, step: float) -> None:
    for module in (analyzer.round_solver, analyzer.solver.outs):
        monkeypatch.setattr(module, "time", SlowClock(step))


def played(rules: str, round_number: int, seed: int) -> list[object]:
    table = Table.deal(preset(rules), round_number, 4, seed)
    table.play()
    return [(event.kind, event.seat, event.cards) for event in table.events]


def test_simulated_play_is_the_same_however_slow_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    quick = played("shanghai", 2, 3), played("progressive", 4, 8)
    slow_clock(monkeypatch, 1000.0)  # any seconds-based bound would be spent at once
    assert (played("shanghai", 2, 3), played("progressive", 4, 8)) == quick


def test_the_work_limit_is_kept_by_the_solver_and_undone_after() -> None:
    assert work_limit() is None
    with deterministic_work(0.5):
        assert work_limit() == 0.5
        with deterministic_work(None):
            assert work_limit() is None
        assert analyzer.round_solver.RoundSolver(preset("progressive"), 1, preset("progressive").deck_for(4),
                                                 1.0).work == 0.5
    assert work_limit() is None


@functools.cache
def buy_puzzle() -> Puzzle:
    # Seed 1 served until the simulated player came to keep its near-melds, re-plan and buy what
    # its plan misses: its position is no longer a clear verdict. Seed 2: buy, -14.18 (margin 3).
    puzzle = generate("buy", "progressive", 2, 2)
    assert puzzle is not None
    return puzzle


def test_a_buy_puzzle_is_the_same_with_a_huge_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(puzzles.generate, "TIME_LIMIT", 3600.0)
    assert derive(position_of(buy_puzzle())) == buy_puzzle()


@pytest.mark.parametrize("budget", [0.001, 0.3])
def test_a_buy_verdict_the_budget_stops_is_rejected_not_changed(monkeypatch: pytest.MonkeyPatch, budget: float) -> None:
    monkeypatch.setattr(puzzles.generate, "TIME_LIMIT", budget)
    assert derive(position_of(buy_puzzle())) in (None, buy_puzzle())
    slow_clock(monkeypatch, budget / 50)  # the budget runs out after fifty looks at the clock
    assert derive(position_of(buy_puzzle())) is None
