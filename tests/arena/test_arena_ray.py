"""``rummy-arena --engine ray``: the same pure function per seed as Ray tasks on a local Ray, the
JSON byte for byte that of one process. Skipped, saying why, where Ray is not installed."""

from __future__ import annotations

import pytest

from arena.cli import run


@pytest.mark.usefixtures("local_ray")
def test_ray_gives_the_json_of_one_process(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--rounds", "1-2", "--challenger", "simulated", "--opponents", "greedy", "--seeds", "0-2", "--json"]
    assert run([*args, "--engine", "ray"]) == 0
    by_ray = capsys.readouterr().out
    assert run(args) == 0
    assert capsys.readouterr().out == by_ray and '"seeds": 3' in by_ray
