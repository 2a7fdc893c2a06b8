"""The paired comparison of two versions of a policy (benchmarks/arena_pairs.py), run tiny: the
same code on both sides differs on no seed, and a stopped run resumes without playing again; two
policies' ``rummy-arena --save`` files compare seed by seed; ``--swap`` hands exactly one kind of
decision to the opponents' policy."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from analyzer import Play, parse_cards
from arena.cli import run
from arena.saved import seed_result
from benchmarks.arena_pairs import Decisions, Swapped, compare, play

SEVEN = parse_cards("7H")[0]


class Asked:
    """A stub player that answers every decision and notes which it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def wants_discard(self, sight: Any, card: Any) -> bool:
        self.asked.append("take")
        return True

    def wants_to_buy_at(self, sight: Any, card: Any) -> bool:
        self.asked.append("buy")
        return True

    def choose_play_after_draw(self, sight: Any) -> Play:
        self.asked.append("play")
        return Play(discard=SEVEN)


@pytest.mark.parametrize("swapped", list(Decisions))
def test_a_swap_hands_its_kind_of_decision_and_no_other_to_the_opponents_policy(swapped: Decisions) -> None:
    own, other = Asked(), Asked()
    player = Swapped(own, other, swapped)  # type: ignore[arg-type]
    before, down = SimpleNamespace(melds=()), SimpleNamespace(melds=(("a meld",),))
    for sight in (before, down):
        player.wants_discard(sight, SEVEN)  # type: ignore[arg-type]
        player.wants_to_buy_at(sight, SEVEN)  # type: ignore[arg-type]
        player.choose_play_after_draw(sight)  # type: ignore[arg-type]
    kinds = {Decisions.TAKE: ["take"], Decisions.BUY: ["buy", "buy"], Decisions.DISCARD: ["play"],
             Decisions.DOWN: ["take", "play"]}
    assert other.asked == kinds[swapped]
    assert len(own.asked) + len(other.asked) == 6  # each decision asked of exactly one of them


def test_a_challenger_swapped_to_the_better_play_after_the_draw_loses_less(tmp_path: Path) -> None:
    """``random`` making its plays after the draw as ``greedy`` does (laying down when it can,
    discarding its costliest loose card) is another, stronger player against ``greedy``."""
    plain, swapped = tmp_path / "random.jsonl", tmp_path / "random-greedy-plays.jsonl"
    play(plain, "progressive", [1], "random", "greedy", [0, 1], 4)
    play(swapped, "progressive", [1], "random", "greedy", [0, 1], 4, Decisions.DISCARD)
    assert compare(plain, swapped).splitlines()[-1].split()[-4] != "0"  # some seed came out differently
    lost = {path: sum(json.loads(line)["rel"] for line in path.read_text().splitlines()) for path in (plain, swapped)}
    assert lost[swapped] < lost[plain]  # relative points: lower is better


def test_the_same_code_twice_differs_on_no_seed_and_a_run_resumes(tmp_path: Path) -> None:
    before, after = tmp_path / "before.jsonl", tmp_path / "after.jsonl"
    for out in (before, after):
        play(out, "progressive", [1, 2], "greedy", "simulated", [0, 1], 4)
    rows = [json.loads(line) for line in before.read_text().splitlines()]
    assert [(row["round"], row["seed"]) for row in rows] == [(1, 0), (2, 0), (1, 1), (2, 1)]
    assert before.read_text().splitlines()[0].split('"cpu"')[0] == after.read_text().splitlines()[0].split('"cpu"')[0]
    play(before, "progressive", [1, 2], "greedy", "simulated", [0, 1, 2], 4)  # resumes: only seed 2 is new
    assert len(before.read_text().splitlines()) == 6
    table = compare(before, after).splitlines()
    assert table[0].split()[:2] == ["round", "seeds"]
    total = table[-1].split()
    assert total[0] == "total" and total[1] == "2"  # the seeds both files hold
    assert "+0.0" in table[-1] and total[-4] == "0"  # after less before: 0 on every seed, none differ
    assert any(row["rel"] != 0 for row in rows)  # greedy and simulated differ: the figures are real


def test_two_policies_saved_by_the_arena_compare_seed_by_seed(tmp_path: Path) -> None:
    """``compare`` reads ``rummy-arena --save`` files: each seed's relative points are the
    arena's own, and the difference is taken seed by seed."""
    greedy, randomly = tmp_path / "greedy.jsonl", tmp_path / "random.jsonl"
    for name, out in (("greedy", greedy), ("random", randomly)):
        assert run(["--rounds", "1", "--challenger", name, "--opponents", "simulated", "--seeds", "0-2",
                    "--save", str(out)]) == 0
    mine = {row["seed"]: seed_result(row).relative_points for row in map(json.loads, greedy.read_text().splitlines())}
    theirs = {row["seed"]: seed_result(row).relative_points
              for row in map(json.loads, randomly.read_text().splitlines())}
    differences = [theirs[seed] - mine[seed] for seed in range(3)]
    table = compare(greedy, randomly).splitlines()
    first = table[1].split()
    assert first[:2] == ["1", "3"]
    assert f"{sum(differences) / 3:+.1f}" in table[1]  # random less greedy, per seed
    assert sum(differences) > 0  # random loses more than greedy to the same opponents
