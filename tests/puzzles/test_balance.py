"""``puzzles.balance``: the figures ``puzzles stats`` prints, on a small bank."""

from __future__ import annotations

import gzip
import json
from datetime import date
from pathlib import Path

import pytest

from puzzles.balance import bank_balance, calendar_balance, greedy_solves
from puzzles.bank import load_bank, read_puzzles
from puzzles.cli import run
from puzzles.model import Kind, Puzzle


@pytest.fixture(scope="module")
def bank() -> list[Puzzle]:
    return load_bank()


def test_every_shard_gets_the_figures_of_its_kind(bank: list[Puzzle]) -> None:
    sample = [p for p in bank if p.rules in ("progressive", "may-i")]
    shards = {(s.preset, s.kind): s for s in bank_balance(sample)}
    assert set(shards) == {(name, str(kind)) for name in ("progressive", "may-i") for kind in Kind}
    buy, discard, lay_down = (shards["may-i", str(kind)] for kind in (Kind.BUY, Kind.DISCARD, Kind.LAY_DOWN))
    assert buy.passes is not None and discard.lays_down_or_goes_out is not None
    assert lay_down.greedy_solves is not None and lay_down.can_lay_down is not None
    assert 0 <= lay_down.greedy_solves <= lay_down.can_lay_down <= lay_down.puzzles
    assert "greedy solves" in lay_down.line() and "pass" in buy.line() and "goes out" in discard.line()
    # The counts again, read from the shipped shards' JSON without the puzzles' model.
    raw = {kind: [json.loads(line) for line in gzip.decompress(
        (Path("puzzles/bank") / f"may-i-{kind}.jsonl.gz").read_bytes()).decode().splitlines()]
        for kind in ("buy", "discard", "lay-down")}
    assert buy.passes == sum(p["answers"] == ["pass"] for p in raw["buy"]) > 0
    assert discard.lays_down_or_goes_out == sum(
        p["margin"]["criterion"] in ("lays-down", "goes-out") for p in raw["discard"]) > 0
    assert lay_down.can_lay_down == sum(p["best_points"] is not None for p in raw["lay-down"]) > 0


def test_the_greedy_player_solves_a_cannot_puzzle_and_not_every_lay_down(bank: list[Puzzle]) -> None:
    lay_downs = [p for p in bank if p.kind is Kind.LAY_DOWN and p.rules == "shanghai"]
    assert all(greedy_solves(p) for p in lay_downs if p.best_points is None)
    assert not all(greedy_solves(p) for p in lay_downs)


def test_the_calendar_s_first_repeat_and_days_outside_the_band(bank: list[Puzzle]) -> None:
    calendar = calendar_balance(bank, date(2026, 12, 1), date(2027, 12, 31))
    assert calendar.first_repeat is not None and calendar.first_repeat > date(2026, 12, 1)
    assert 0 <= calendar.outside_band_reading <= calendar.outside_band <= 396
    few = calendar_balance(bank[:3], date(2026, 1, 1), date(2026, 1, 10))
    assert few.first_repeat is not None and few.first_repeat <= date(2026, 1, 4)


def test_stats_prints_the_balance(capsys: pytest.CaptureFixture[str]) -> None:
    shard = Path("puzzles/bank/may-i-buy.jsonl.gz")
    assert read_puzzles(shard)
    assert run(["stats", "--bank", str(shard)]) == 0
    out = capsys.readouterr().out
    assert "balance by shard:" in out and "may-i-buy: 40 puzzles" in out and "daily: first repeat" in out
