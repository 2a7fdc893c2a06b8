"""The paired comparison of two versions of a policy (benchmarks/arena_pairs.py), run tiny: the
same code on both sides differs on no seed, and a stopped run resumes without playing again."""

from __future__ import annotations

import json
from pathlib import Path

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
