"""``POST /api/analyze``: the fields of an ``analyze --batch`` line in, the bytes of
``analyze --json`` out; every mistake ``{"error": ...}`` with 400."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from analyzer.cli import run
from tests.webapp.conftest import make_app


def cli_json(capsys: pytest.CaptureFixture[str], tmp_path: Path, hand: str, *args: str) -> str:
    hand_file = tmp_path / "hand.txt"
    hand_file.write_text(hand)
    assert run([str(hand_file), "--json", *args]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(("job", "args"), [
    ({"hand": "7H 8H 9H 10H 5C 5D 5S", "round": 2}, ["-r", "2"]),
    ({"hand": "7C 7D 4H 5H 6H 9S 10S JS KD JK 2C QD", "round": 6, "rules": "progressive", "players": 4,
      "discards": True, "seen": "7H 7S"}, ["-r", "6", "--players", "4", "--discards", "--seen", "7H 7S"]),
    ({"hand": "5H 6H 7H JK 9C 10C JC QC KS 2D 3D", "round": 3, "rules": "shanghai", "players": 4, "outs": True},
     ["-r", "3", "--rules", "shanghai", "--players", "4", "--outs"]),
    ({"hand": "7C 7D 4H 5H 6H 9S 10S JS QS KD 3C", "round": 6, "players": 4, "buy": "7H", "rollouts": 40,
      "seed": 3}, ["-r", "6", "--players", "4", "--buy", "7H", "--rollouts", "40", "--seed", "3"]),
    # once the contract is down (an answer with no "proven_optimal": it was a 500 before)
    ({"hand": "9S 10S 4D KC", "round": 2, "players": 4, "down": "5S 6S 7S 8S | QH QD QC", "table": "KH KD KS",
      "seen": "3D"}, ["-r", "2", "--players", "4", "--down", "5S 6S 7S 8S | QH QD QC", "--table", "KH KD KS",
                      "--seen", "3D"]),
    ({"hand": "9S 10S 4D", "round": 2, "down": "5S 6S 7S 8S | QH QD QC", "face_up": "KC"},
     ["-r", "2", "--down", "5S 6S 7S 8S | QH QD QC", "--face-up", "KC"]),
])
def test_the_answer_is_the_bytes_of_analyze_json(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                 job: dict[str, Any], args: list[str]) -> None:
    # The server's budget raised to the command line's default (60 s): the bytes must agree, and
    # under a loaded machine the buy verdict can outlast the server's usual 2 s and stop unfinished.
    client = make_app(tmp_path, ANALYSIS_TIME_LIMIT=60.0).test_client()
    response = client.post("/api/analyze", json=job)
    assert response.status_code == 200, response.text
    assert response.mimetype == "application/json"
    assert response.text == cli_json(capsys, tmp_path, job["hand"], *args)


@pytest.mark.parametrize(("body", "words"), [
    (b"not json", "not JSON"),
    (b"\xff\xfe\x00", "not"),
    (b"[1, 2]", "expected a JSON object"),
    (b"[" * 5000 + b"]" * 5000, ""),
    (json.dumps({"hand": "7H", "round": 2, "colour": "red"}).encode(), "unknown field 'colour'"),
    (json.dumps({"round": 2}).encode(), 'missing "hand"'),
    (json.dumps({"hand": "7H 8H"}).encode(), 'missing "round"'),
    (json.dumps({"hand": 7, "round": 2}).encode(), "hand: expected text"),
    (json.dumps({"hand": "7H", "round": True}).encode(), "round: expected a whole number"),
    (json.dumps({"hand": "7H", "round": "2"}).encode(), "round: expected a whole number"),
    (json.dumps({"hand": "7H", "round": 10**30}).encode(), "at most 6 digits"),
    (json.dumps({"hand": "7H 9X", "round": 2}).encode(), "hand: unknown card '9X'"),
    (json.dumps({"hand": "7H", "round": 99}).encode(), "round: round 99 does not exist"),
    (json.dumps({"hand": "7H", "round": 2, "rules": "house.toml"}).encode(), "rules: unknown rule set"),
    (json.dumps({"hand": "7H", "round": 2, "time_limit": 60}).encode(), "at most 2 on this server"),
    (json.dumps({"hand": "7H", "round": 2, "time_limit": 0}).encode(), "time_limit"),
    (json.dumps({"hand": "7H 8H 9H 10H 5C 5D 5S", "round": 2, "buy": "9H", "rollouts": 5000}).encode(),
     "rollouts: 1 to 200"),
    (json.dumps({"hand": "7H", "round": 2, "seed": 4}).encode(), '"seed" goes with "buy"'),
    (json.dumps({"hand": "7H 8H 9H 10H 5C 5D 5S KD", "round": 2, "buy": "9H"}).encode(), "before your draw"),
    (json.dumps({"hand": "7H 8H 9H 10H 5C 5D 5S", "round": 2, "buy": "9H", "rules": "eveleigh"}).encode(),
     "buy: "),
])
def test_bad_questions_are_a_json_error_with_400(client: FlaskClient, body: bytes, words: str) -> None:
    response = client.post("/api/analyze", data=body, content_type="application/json")
    assert response.status_code == 400, response.text
    answer = response.get_json()
    assert set(answer) >= {"error"}
    assert words in answer["error"]


def test_a_get_is_405_and_an_unknown_api_address_404_both_in_json(client: FlaskClient) -> None:
    wrong = client.get("/api/analyze")
    assert wrong.status_code == 405 and "error" in wrong.get_json()
    assert "POST" in wrong.headers["Allow"]
    missing = client.post("/api/nothing", json={})
    assert missing.status_code == 404 and "error" in missing.get_json()


def test_an_oversized_body_is_413(client: FlaskClient) -> None:
    response = client.post("/api/analyze", data=json.dumps({"hand": "7H " * 10000, "round": 2}),
                           content_type="application/json")
    assert response.status_code == 413
    assert "larger" in response.get_json()["error"]
