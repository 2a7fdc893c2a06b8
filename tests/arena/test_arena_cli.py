"""The ``rummy-arena`` command: its JSON the same for the same seeds (in one process or several),
its picture, and bad input as one line and exit status 2."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from arena.cli import run
from arena.duplicate import play_seed

ARGS = ["--rounds", "1,3", "--challenger", "greedy", "--opponents", "random", "--seeds", "0-3", "--json"]


def test_the_same_seeds_give_the_same_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(ARGS) == 0
    first = capsys.readouterr().out
    assert run([*ARGS, "--workers", "2"]) == 0
    assert capsys.readouterr().out == first
    report = json.loads(first)
    assert {"rules", "players", "challenger", "opponents", "rounds", "total"} <= report.keys()
    assert (report["rules"], report["players"], report["challenger"], report["opponents"]) == (
        "progressive", 4, "greedy", "random")
    assert [row["round"] for row in report["rounds"]] == [1, 3]
    for row in [*report["rounds"], report["total"]]:
        assert row["seeds"] == 4
        points = row["relative_points"]
        assert points["ci_low"] <= points["mean"] <= points["ci_high"] < 0  # random loses
        assert 0 <= row["went_out_first"] <= 1 and row["buys_per_round"] >= 0


def test_text_plot_and_game(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    picture = tmp_path / "arena.svg"
    args = ["--rules", "shanghai", "--game", "--challenger", "greedy", "--opponents", "greedy", "--players", "3",
            "--seeds", "0-1", "--plot", str(picture)]
    assert run(args) == 0
    out = capsys.readouterr().out
    assert "greedy against greedy: shanghai, 3 players, seeds 0-1" in out
    assert "total" in out and "a whole game" in out and "ms/decision" in out
    svg = ET.parse(picture).getroot()
    rounds = len([line for line in out.splitlines() if line.strip()[:1].isdigit()])
    assert svg.tag.endswith("svg") and len(svg.findall("{http://www.w3.org/2000/svg}circle")) == rounds == 7


@pytest.mark.parametrize("args, message", [
    (["--challenger", "nobody"], "unknown policy 'nobody'"),
    (["--opponents", "x"], "unknown policy 'x'"),
    (["--rules", "nope"], "unknown rule set 'nope'"),
    (["--seeds", "5-2"], "seeds are a range from a smaller to a larger number, not '5-2'"),
    (["--seeds", "a-b"], "seeds are a range such as 0-199"),
    (["--players", "0"], "a table needs at least 2 players, not 0"),
    (["--players", "9"], "not 9"),
    (["--rounds", "8"], "round 8 does not exist in 'progressive'"),
    (["--rounds", "3-1"], "rounds are a range from a smaller to a larger number"),
    (["--workers", "0"], "must be at least 1, not 0"),
    (["--engine", "spark"], "invalid choice: 'spark'"),
    (["--game", "--rounds", "1"], "--game plays every round"),
    (["--plot", "/nonexistent/dir/a.svg", "--seeds", "0", "--rounds", "1", "--challenger", "random",
      "--opponents", "random"], "cannot write /nonexistent/dir/a.svg"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("rummy-arena: ") and message in captured.err
    assert captured.err.count("\n") == 1


def test_a_saved_run_resumes_and_gives_the_same_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(ARGS) == 0
    whole = capsys.readouterr().out
    save = tmp_path / "greedy-random.jsonl"
    # Seeds 0-1 first, as a sitting stopped half way; then 0-3 plays only seeds 2-3.
    assert run([*ARGS[:-3], "--seeds", "0-1", "--json", "--save", str(save)]) == 0
    capsys.readouterr()
    assert [(row["round"], row["seed"]) for row in map(json.loads, save.read_text().splitlines())] == [
        (1, 0), (1, 1), (3, 0), (3, 1)]
    with mock.patch("arena.cli.play_seed", wraps=play_seed) as played:
        assert run([*ARGS, "--save", str(save)]) == 0
    assert sorted((c.args[1], c.args[2]) for c in played.call_args_list) == [(1, 2), (1, 3), (3, 2), (3, 3)]
    assert capsys.readouterr().out == whole
    assert len(save.read_text().splitlines()) == 8
    # Asked again, nothing is played: every seed is in the file.
    with mock.patch("arena.cli.play_seed", side_effect=AssertionError("played again")):
        assert run([*ARGS, "--save", str(save)]) == 0
    assert capsys.readouterr().out == whole


def test_a_line_cut_off_by_a_stop_is_played_again(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(ARGS) == 0
    whole = capsys.readouterr().out
    save = tmp_path / "cut.jsonl"
    assert run([*ARGS, "--save", str(save)]) == 0
    capsys.readouterr()
    lines = save.read_text().splitlines(keepends=True)
    save.write_text("".join(lines[:5]) + lines[5][:40])  # stopped while writing the sixth seed
    assert run([*ARGS, "--save", str(save)]) == 0
    captured = capsys.readouterr()
    assert captured.out == whole and "last line was cut off" in captured.err
    assert len(save.read_text().splitlines()) == 8 and save.read_text().endswith("\n")


@pytest.mark.parametrize("change, message", [
    (lambda text: text.replace('"greedy"', '"simulated"', 1),
     "holds another match (progressive, 4 players, simulated against random)"),
    (lambda text: "not json\n" + text, "line 1: not a saved seed of rummy-arena"),
    (lambda text: text.replace('"points":[', '"points":["x",', 1), "line 1: not a saved seed"),
])
def test_a_save_file_of_another_match_or_garbled_is_refused(change: Any, message: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "run.jsonl"
    args = [*ARGS[:-3], "--seeds", "0", "--rounds", "1", "--save", str(save)]
    assert run(args) == 0
    capsys.readouterr()
    before = change(save.read_text())
    save.write_text(before)
    assert run(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("rummy-arena: ") and message in err and err.count("\n") == 1
    assert save.read_text() == before  # nothing written


def test_a_worker_killed_ends_the_run_with_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A worker that dies (here SIGKILL, as the kernel's out-of-memory killer) ends the run at
    once, status 1, the seeds saved before it kept; a Pool would wait for its seed for ever."""
    save = tmp_path / "killed.jsonl"
    args = [*ARGS[:-3], "--seeds", "0-39", "--workers", "2", "--save", str(save)]
    status: list[int] = []
    running = threading.Thread(target=lambda: status.append(run(args)), daemon=True)
    running.start()
    deadline = time.monotonic() + 120
    while not (save.exists() and save.read_text().count("\n") >= 2) and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = multiprocessing.active_children()
    assert workers and running.is_alive()
    os.kill(workers[0].pid, signal.SIGKILL)
    running.join(120)
    assert not running.is_alive() and status == [1]
    err = capsys.readouterr().err
    assert err.startswith("rummy-arena: a worker process stopped") and err.count("\n") == 1
    kept = save.read_text().splitlines()
    assert 2 <= len(kept) < 80 and all(json.loads(line)["rules"] == "progressive" for line in kept)
    assert not multiprocessing.active_children()  # the other worker stopped too
