"""The /play benchmark run in quick mode (benchmarks/play.py): both parts print their tables,
every move of the served app answered. No timing is asserted: speed is the benchmark's to print."""

from __future__ import annotations

import pytest

from benchmarks.play import main


def test_the_quick_run_prints_the_turns_and_the_web_layer(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--quick", "--strengths", "greedy", "simulated", "--players", "2", "--seconds", "1"]) == 0
    printed = capsys.readouterr().out
    for row in ("greedy: a computer turn", "simulated: a computer turn", "replaying the record (reference)",
                "p95 <= 200 ms", "table page", "move ", "reference: static file",
                "p99 <= 100 ms", "(in the server)", "load average at the end"):
        assert row in printed, row


@pytest.mark.parametrize("arguments", [["--players", "0"], ["--seconds", "-1"], ["--think", "nan"],
                                       ["--strengths", "perfect"]])
def test_bad_arguments_are_one_line_and_status_2(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(arguments)
    assert stopped.value.code == 2
    assert "Traceback" not in capsys.readouterr().err
