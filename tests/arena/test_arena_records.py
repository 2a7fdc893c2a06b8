"""``rummy-arena --records DIR``: every table of the arena written as a game record that replays
exactly (analyzer.records), in every preset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer import PRESETS, preset, read_record, replay
from analyzer.records import dumps_record
from arena.cli import run
from arena.duplicate import Match, play_seed
from arena.policies import PolicyName


def players_for(name: str) -> int:
    return 4 if any(deck.min_players <= 4 <= deck.max_players for deck in preset(name).decks) else 3


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_arena_records_of_every_preset_replay_exactly(name: str) -> None:
    rounds = len(preset(name).rounds)
    match = Match(name, players_for(name), PolicyName.GREEDY, PolicyName.SIMULATED)
    for number in (2, rounds):
        result = play_seed(match, number, 0, record=True)
        for table in result.tables:
            assert table.record is not None
            record = json.loads(dumps_record(table.record))
            names = [entry["name"] for entry in record["players"]]
            assert names[table.seat] == "greedy" and names.count("greedy") == 1
            replayed = replay(record).rounds[0]
            assert replayed.number == number
            assert replayed.outcome.penalty_points == table.points
            assert replayed.outcome.winner == table.winner
            assert sum(1 for e in record["rounds"][0]["events"] if e["event"] == "buy") == sum(table.buys)


def test_the_command_writes_a_record_a_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "records"
    assert run(["--rounds", "1", "--seeds", "3-4", "--challenger", "greedy", "--opponents", "random", "--players", "3",
                "--records", str(folder), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    files = sorted(path.name for path in folder.iterdir())
    assert files == [f"progressive-round-1-seed-{seed}-seat-{seat}.json" for seed in (3, 4) for seat in range(3)]
    points = 0.0
    for path in folder.iterdir():
        replayed = replay(read_record(str(path)))
        seat = int(path.stem.rsplit("-", 1)[1])
        mine = replayed.rounds[0].outcome.penalty_points
        points += (mine[seat] - (sum(mine) - mine[seat]) / 2) / 6
    assert points / 1 == pytest.approx(report["rounds"][0]["relative_points"]["mean"], abs=0.01)


def test_a_records_directory_that_cannot_be_made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("")
    assert run(["--rounds", "1", "--seeds", "0", "--records", str(tmp_path / "file" / "x")]) == 2
    assert capsys.readouterr().err.startswith("rummy-arena: cannot make the records directory")


def test_records_of_bot_games_review_like_any_other() -> None:
    from analyzer import card_of, review_game

    result = play_seed(Match("progressive", 3, PolicyName.GREEDY, PolicyName.SIMULATED), 1, 2, record=True)
    table = result.tables[1]
    assert table.record is not None
    events = table.record["rounds"][0]["events"]
    reviewed = review_game(table.record, table.seat)
    assert reviewed.name == "greedy" and reviewed.decisions
    assert {"take or draw", "discard"} <= {d.kind for d in reviewed.decisions}
    for decision in reviewed.decisions:  # each choice the review reads is the record's
        event = events[decision.event]
        if decision.kind == "take or draw":
            took = event["event"] == "take" and event["seat"] == table.seat
            assert decision.chosen.startswith("take") == took
        elif decision.kind == "buy or pass":
            bought = event["event"] == "buy" and event["seat"] == table.seat
            assert decision.chosen.startswith("buy") == bought
        elif decision.kind == "discard":
            assert event["event"] == "discard" and event["seat"] == table.seat
            assert decision.chosen == f"discard {card_of(event['card']).face}"
    assert 0 <= reviewed.match_rate <= 1 and reviewed.total_cost >= 0
