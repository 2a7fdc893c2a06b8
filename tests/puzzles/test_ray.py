"""``--engine ray``: generation as Ray tasks on a local Ray gives exactly what processes give.
Skipped, saying why, where Ray is not installed (``pip install '.[cluster]'``; CI installs it)."""

from __future__ import annotations

import pytest

from puzzles.cli import generate_many, run


@pytest.mark.usefixtures("local_ray")
def test_ray_tasks_give_the_same_puzzles_as_processes() -> None:
    for kind, rules, rounds, source, start, count in [
        ("lay-down", "progressive", [3, 7], "planted", 0, 2),
        ("lay-down", "pagat", [1, 2, 3], "play", 5, 2),
        ("discard", "progressive", [2], "play", 0, 1),
    ]:
        here = list(generate_many(kind, rules, rounds, source, start, count))
        tasks = list(generate_many(kind, rules, rounds, source, start, count, engine="ray"))
        assert tasks == here and len(here) == count


@pytest.mark.usefixtures("local_ray")
def test_the_command_takes_engine_ray(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["generate", "--kind", "lay-down", "--planted", "--count", "1", "--seed", "3"]
    assert run([*args, "--engine", "ray"]) == 0
    by_ray = capsys.readouterr().out
    assert run(args) == 0
    assert capsys.readouterr().out == by_ray and by_ray.count("\n") == 1
