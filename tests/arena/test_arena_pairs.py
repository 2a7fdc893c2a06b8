"""The paired comparison of two versions of a policy (benchmarks/arena_pairs.py), run tiny: the
same code on both sides differs on no seed, and a stopped run resumes without playing again; two
policies' ``rummy-arena --save`` files compare seed by seed."""

from __future__ import annotations

import json
from pathlib import Path

from arena.cli import run
from arena.saved import seed_result
from benchmarks.arena_pairs import compare, play


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
