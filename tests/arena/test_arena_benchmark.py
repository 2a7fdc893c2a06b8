"""The arena benchmark run tiny (benchmarks/arena.py): it prints the advised player's rate, its
tables' tails, the reference measured beside it and the decisions it timed, and puts the
advised player back as it was. No timing is asserted: speed is the benchmark's to print."""

from __future__ import annotations

import re

import pytest

from arena.policies import AdvisedPlayer
from benchmarks.arena import DECISIONS, main


def test_a_tiny_run_prints_the_rate_beside_its_reference(capsys: pytest.CaptureFixture[str]) -> None:
    before = {name: getattr(AdvisedPlayer, name) for name in DECISIONS}
    assert main(["--tables", "2", "--rules", "shanghai"]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"advised rounds per CPU-minute: [\d.]+ \(goal >= 100\)", printed)
    assert re.search(r"CPU s a table: median [\d.]+, p95 [\d.]+, max [\d.]+", printed)
    assert re.search(r"reference \(simulated in every seat, the same deals\): [\d.]+ rounds per CPU-minute; "
                     r"advised / reference CPU [\d.]+", printed)
    calls = {name: int(re.search(rf"{name} +(\d+) calls", printed).group(1)) for name in DECISIONS}  # type: ignore[union-attr]
    assert calls["choose_play_after_draw"] > 0 and calls["wants_discard"] > 0
    assert {name: getattr(AdvisedPlayer, name) for name in DECISIONS} == before


@pytest.mark.parametrize("arguments", [["--tables", "0"], ["--tables", "x"], ["--players", "1"],
                                       ["--players", "99"], ["--rules", "nope"]])
def test_bad_arguments_are_one_line_and_status_2(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(arguments)
    assert stopped.value.code == 2
    assert "Traceback" not in capsys.readouterr().err
