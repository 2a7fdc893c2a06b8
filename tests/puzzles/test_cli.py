"""The ``puzzles`` command: bad input is one line and exit 2; ``verify`` passes a good bank and
fails loudly on a tampered one; ``show``, ``daily`` and ``stats`` read a bank; the shipped bank
verifies on a seeded sample."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analyzer import parse_cards
from puzzles.bank import bank_files, load_bank, read_puzzles, write_puzzles
from puzzles.cli import generate_many, run
from puzzles.generate import derive
from puzzles.model import Puzzle
from puzzles.verify import sample, verify


def _position(kind: str, rules: str, round_number: int, hand: str) -> Puzzle:
    return Puzzle(
        kind=kind,
        rules=rules,
        round=round_number,
        players=4,
        moment="after-draw",
        hand=parse_cards(hand),
        source="planted",
    )


@pytest.fixture(scope="module")
def small_bank(tmp_path_factory: pytest.TempPathFactory) -> Path:
    puzzles = [
        derive(_position("lay-down", "progressive", 3, "6C 7C 8C 9C 10C AD 2D 3D 4D 5D 6D")),
        derive(_position("lay-down", "progressive", 3, "3D 4D 5D 6D 7D 8D 9D 10D KS")),
        derive(_position("discard", "progressive", 2, "5C 5D 5S 7H 8H 10H 10S KD")),
        derive(_position("discard", "progressive", 1, "5C 5D 5S 9H 9S 9C KD")),  # goes out: wins in play
    ]
    assert all(puzzles)
    path = tmp_path_factory.mktemp("bank") / "small.jsonl.gz"
    write_puzzles(path, puzzles)  # type: ignore[arg-type]
    return path


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "required: command"),
        (["frobnicate"], "invalid choice"),
        (["generate", "--kind", "chess", "--count", "1"], "unknown kind 'chess'"),
        (["generate", "--kind", "buy", "--rules", "shanghaj", "--count", "1"], "did you mean 'shanghai'"),
        (
            ["generate", "--kind", "buy", "--rules", "eveleigh", "--rounds", "2", "--count", "1"],
            "no buying in round 2",
        ),
        (["generate", "--kind", "discard", "--rounds", "9", "--count", "1"], "round 9 does not exist"),
        (["generate", "--kind", "discard", "--rounds", "x", "--count", "1"], "--rounds"),
        (["generate", "--kind", "discard", "--count", "0"], "at least 1"),
        (["generate", "--kind", "discard", "--count", "-3"], "whole number"),
        (["generate", "--kind", "discard", "--planted", "--count", "1"], "lay-down puzzles only"),
        (["verify", "/no/such/file.jsonl"], "no such file"),
        (["daily", "--date", "2026-02-30"], "YYYY-MM-DD"),
        (["bank", "--scale", "0"], "--scale"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("puzzles: ") and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_broken_bank_file_is_named_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"kind": "discard"}\n\nnot json\n')
    assert run(["verify", str(path)]) == 2
    assert "line 1: a puzzle needs the field" in capsys.readouterr().err
    path.write_text("not json\n")
    assert run(["stats", "--bank", str(path)]) == 2
    assert "line 1: not JSON" in capsys.readouterr().err
    gz = tmp_path / "fake.jsonl.gz"
    gz.write_text("plain")
    assert run(["verify", str(gz)]) == 2 and "not a gzip file" in capsys.readouterr().err
    assert run(["show", "ffff", "--bank", str(tmp_path / "nothing.jsonl")]) == 2


def test_verify_passes_a_good_bank_and_fails_loudly_on_a_tampered_one(
    small_bank: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["verify", str(small_bank)]) == 0
    assert "4 puzzles verified, 0 failed" in capsys.readouterr().out
    puzzles = read_puzzles(small_bank)
    lines = [puzzle.to_dict() for puzzle in puzzles]
    lines[2]["answers"] = ["KD"]  # one card of the top group dropped
    lines[0]["best_points"] = 11  # the obvious play's points
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert run(["verify", str(tampered)]) == 1
    out = capsys.readouterr().out
    assert f"{puzzles[2].id} (discard, progressive round 2): answers" in out
    assert f"{puzzles[0].id} (lay-down, progressive round 3): best_points: stored 11, derived 8" in out
    assert "4 puzzles verified, 2 failed" in out
    assert run(["verify", str(tampered), "--sample", "1", "--seed", "3"]) in (0, 1)
    assert "1 puzzles verified" in capsys.readouterr().out


def test_show_daily_and_stats_read_a_bank(small_bank: Path, capsys: pytest.CaptureFixture[str]) -> None:
    puzzle = read_puzzles(small_bank)[0]
    assert run(["show", puzzle.id[:6], "--bank", str(small_bank)]) == 0
    shown = capsys.readouterr().out
    assert "Can you lay down?" in shown and "6♣ 7♣ 8♣" in shown and "Answer" not in shown
    assert run(["show", puzzle.id, "--answer", "--bank", str(small_bank)]) == 0
    assert "keeps 8 points" in capsys.readouterr().out
    assert run(["daily", "--date", "2026-06-01", "--bank", str(small_bank)]) == 0
    assert "Daily puzzle for 2026-06-01" in capsys.readouterr().out
    assert run(["stats", "--bank", str(small_bank)]) == 0
    stats = capsys.readouterr().out
    assert "4 puzzles" in stats and "lay-down 2, discard 2, buy 0" in stats and "looks-ready" in stats


def test_generate_writes_json_lines_that_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["generate", "--kind", "lay-down", "--planted", "--count", "2", "--rounds", "3,7"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    puzzles = [Puzzle.from_dict(json.loads(line)) for line in lines]
    assert all(p.source == "planted" and p.round in (3, 7) for p in puzzles)
    assert all(verify(p) == [] for p in puzzles)
    out = tmp_path / "again.jsonl"
    assert (
        run(
            [
                "generate",
                "--kind",
                "lay-down",
                "--planted",
                "--count",
                "2",
                "--rounds",
                "3,7",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert read_puzzles(out) == puzzles  # reproducible


def test_the_console_script_exits_2_on_bad_input() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from puzzles.command import main; raise SystemExit(main())",
            "generate",
            "--kind",
            "nope",
            "--count",
            "1",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_the_shipped_bank_verifies_on_a_seeded_sample() -> None:
    """CI verifies a sample (a buy puzzle costs seconds); the benchmark verifies the whole bank."""
    if not bank_files():
        pytest.skip("no bank shipped yet")
    puzzles = load_bank()
    quick = [p for p in puzzles if p.kind != "buy"]
    slow = [p for p in puzzles if p.kind == "buy"]
    for puzzle in [*sample(quick, 12, seed=1), *sample(slow, 1, seed=1)]:
        assert verify(puzzle) == [], puzzle.id
    assert len({p.id for p in puzzles}) == len(puzzles)  # no puzzle twice


def test_workers_give_the_same_puzzles_as_one_process() -> None:
    one = list(generate_many("lay-down", "progressive", [3, 7], "planted", 0, 2))
    two = list(generate_many("lay-down", "progressive", [3, 7], "planted", 0, 2, workers=2))
    assert one == two and len(one) == 2


def test_ctrl_c_ends_the_command_with_one_line_and_status_130() -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from puzzles.command import main; raise SystemExit(main())",
            "generate",
            "--kind",
            "buy",
            "--count",
            "50",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(4)  # loading and the first verdicts
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and err == "puzzles: interrupted\n"


def test_engine_ray_without_ray_installed_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the cluster extra were not installed
    assert run(["generate", "--kind", "lay-down", "--count", "1", "--engine", "ray"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install '.[cluster]'" in err
    assert run(["generate", "--kind", "lay-down", "--count", "1", "--engine", "spark"]) == 2


def _workers_of(pid: int) -> list[int]:
    """The spawned worker processes of process ``pid`` (not its resource tracker), from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid and b"spawn_main" in command:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the workers in /proc")
def test_a_worker_killed_ends_generate_with_one_line_and_status_1() -> None:
    """A worker that dies (SIGKILL, as the out-of-memory killer) ends the command at once with one
    line; a multiprocessing.Pool would wait for its attempt for ever."""
    process = subprocess.Popen(
        [sys.executable, "-c", "from puzzles.command import main; raise SystemExit(main())",
         "generate", "--kind", "buy", "--count", "50", "--workers", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(workers := _workers_of(process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(workers) == 2
        time.sleep(3)  # the workers at their first attempts
        os.kill(workers[0], signal.SIGKILL)
        _, err = process.communicate(timeout=60)
    finally:  # a command that hangs is not left running
        process.kill()
    assert process.returncode == 1
    assert err.startswith("puzzles: a worker process stopped") and err.count("\n") == 1
    assert not any(Path(f"/proc/{worker}").exists() for worker in workers)
