"""``puzzles.balance``: the figures ``puzzles stats`` prints, on a small bank."""

from __future__ import annotations

import gzip
import json
from datetime import date
from pathlib import Path

import pytest

from puzzles.balance import bank_balance, calendar_balance, greedy_solves
from puzzles.bank import load_bank, read_puzzles
from puzzles.cli import DAILY_SPAN, run
from puzzles.model import Kind, Puzzle


@pytest.fixture(scope="module")
def bank() -> list[Puzzle]:
    return load_bank()


def test_every_shard_gets_the_figures_of_its_kind(bank: list[Puzzle]) -> None:
    sample = [p for p in bank if p.rules in ("progressive", "may-i")]
    shards = {(s.preset, s.kind): s for s in bank_balance(sample)}
    assert set(shards) == {(name, str(kind)) for name in ("progressive", "may-i") for kind in Kind}
    buy, discard, lay_down = (shards["progressive", str(kind)] for kind in (Kind.BUY, Kind.DISCARD, Kind.LAY_DOWN))
    assert buy.passes is not None and discard.lays_down_or_goes_out is not None
    assert lay_down.greedy_solves is not None and lay_down.can_lay_down is not None
    assert 0 <= lay_down.greedy_solves <= lay_down.can_lay_down <= lay_down.puzzles
    assert "greedy solves" in lay_down.line() and "pass" in buy.line() and "goes out" in discard.line()
    # The counts again, read from the shipped shards' JSON without the puzzles' model.
    raw = {kind: [json.loads(line) for line in gzip.decompress(
        (Path("puzzles/bank") / f"progressive-{kind}.jsonl.gz").read_bytes()).decode().splitlines()]
        for kind in ("buy", "discard", "lay-down")}
    assert buy.passes == sum(p["answers"] == ["pass"] for p in raw["buy"]) > 0
    assert discard.lays_down_or_goes_out == sum(
        p["margin"]["criterion"] in ("lays-down", "goes-out") for p in raw["discard"]) > 0
    assert lay_down.can_lay_down == sum(p["best_points"] is not None for p in raw["lay-down"]) > 0


def test_every_shipped_puzzle_has_a_theme(bank: list[Puzzle]) -> None:
    shards = bank_balance(bank)
    assert len(shards) == 27 and all(shard.unthemed == 0 for shard in shards)
    assert all(puzzle.themes for puzzle in bank)


def test_the_greedy_player_solves_a_cannot_puzzle_and_not_every_lay_down(bank: list[Puzzle]) -> None:
    lay_downs = [p for p in bank if p.kind is Kind.LAY_DOWN and p.rules == "shanghai"]
    assert all(greedy_solves(p) for p in lay_downs if p.best_points is None)
    assert not all(greedy_solves(p) for p in lay_downs)


def test_the_calendar_s_first_repeat_and_days_outside_the_band(bank: list[Puzzle]) -> None:
    # The shipped bank lasts the three years the daily must not repeat in.
    calendar = calendar_balance(bank, *DAILY_SPAN)
    assert calendar.first_repeat is None and "none up to 2029-11-30" in calendar.line()
    # The days after the dealt ones read the rating as shown (the band's older reading is printed
    # beside it).
    assert calendar.outside_band == 0 <= calendar.outside_band_reading <= 396
    few = calendar_balance(bank[-3:], date(2026, 1, 1), date(2026, 1, 10))
    assert few.first_repeat is not None and few.first_repeat <= date(2026, 1, 4)


def test_stats_prints_the_balance(capsys: pytest.CaptureFixture[str]) -> None:
    shard = Path("puzzles/bank/may-i-buy.jsonl.gz")
    assert read_puzzles(shard)
    assert run(["stats", "--bank", str(shard)]) == 0
    out = capsys.readouterr().out
    count = len(read_puzzles(shard))
    assert "balance by shard:" in out and f"may-i-buy: {count} puzzles" in out and "daily: first repeat" in out


def test_a_shard_past_a_share_grows_with_the_other_answer_only(tmp_path: Path) -> None:
    """Four stored buy puzzles all answering "buy" (a share of 100% of a target of 4): the shard
    grows to 7 (four is 57% of seven, within 65%), taking only "pass" puzzles from the seeds
    after its last; the "buy" puzzles offered meanwhile are passed over."""
    from collections.abc import Iterator, Sequence

    from puzzles.balance import CAPS, class_counts
    from puzzles.bank import Shard, build_shard, write_puzzles
    from puzzles.model import PASS

    shipped = sorted(read_puzzles(Path("puzzles/bank/progressive-buy.jsonl.gz")), key=lambda p: p.seed)
    buys = [p for p in shipped if p.answers != (PASS,)]
    stored = buys[:4]
    later = [p for p in shipped if p.seed > stored[-1].seed]
    assert sum(p.answers == (PASS,) for p in later) >= 3 and sum(p.answers != (PASS,) for p in later) >= 3
    shard = Shard("progressive", Kind.BUY, 4)
    write_puzzles(tmp_path / shard.name, stored)
    asked: list[tuple[int, int]] = []

    def generate_many(kind: str, rules: str, rounds: Sequence[int], source: str, start: int,
                      count: int) -> Iterator[Puzzle]:
        asked.append((start, count))
        return iter([p for p in later if p.seed >= start][:count])

    built = build_shard(shard, tmp_path, generate_many)
    assert len(built) == 7 and built[:4] == stored
    assert all(p.answers == (PASS,) for p in built[4:])
    assert asked[0] == (stored[-1].seed + 1, 3)
    counts = class_counts(built)
    assert counts["answer buy"] == 4 and all(count <= CAPS[name] * 7 for name, count in counts.items())
    # Built again, it is full: nothing more is asked.
    asked.clear()
    assert build_shard(shard, tmp_path, generate_many) == built and asked == []
