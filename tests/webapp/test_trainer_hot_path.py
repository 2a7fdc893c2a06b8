"""The trainer's hot path, kept cheap under load without losing a guarantee: the puzzle ratings
/practice chooses from (webapp/puzzle_ratings.py: this process's answers seen at once, another
process's within ``TRAINER_RATINGS_MAX_AGE``, a reported puzzle never served from a copy); a
page reads its player once, header included; a first visit's player is made in a write
transaction (SQLite: in its turn among the writers)."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import event, select, update

from tests.webapp.conftest import make_app
from tests.webapp.test_trainer import BUY, DISCARD, answer, form_of, wrong_discard
from webapp.db import PuzzleRating, Report, engine, session, transaction
from webapp.puzzle_ratings import puzzle_ratings


def ratings_now(app: Flask) -> dict[str, float]:
    """What /practice would choose from at this moment, through the app's copy."""
    with app.test_request_context():
        with transaction() as db:
            return dict(puzzle_ratings().current(db))


def table(app: Flask) -> dict[str, float]:
    with app.app_context():
        return {row.puzzle_id: row.rating for row in session().scalars(select(PuzzleRating))}


def test_this_process_answers_are_seen_at_once(tmp_path: Path, database_url: str) -> None:
    app = make_app(tmp_path, database_url, TRAINER_RATINGS_MAX_AGE=3600.0)
    client = app.test_client()
    assert ratings_now(app) == {}  # read once, now kept for an hour
    assert answer(client, DISCARD, card=DISCARD.answers[0]).status_code == 200
    assert answer(client, BUY, choice="pass" if BUY.answers[0] == "buy" else "buy").status_code == 200
    moved = table(app)
    assert set(moved) == {DISCARD.id, BUY.id} and moved[DISCARD.id] != DISCARD.rating
    assert ratings_now(app) == moved
    replay = answer(client, DISCARD, card=wrong_discard(DISCARD))  # unrated: no rating moves
    assert replay.status_code == 200 and ratings_now(app) == moved == table(app)


def test_another_process_answers_are_seen_within_the_max_age(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(tmp_path, TRAINER_RATINGS_MAX_AGE=5.0)
    client = app.test_client()
    assert answer(client, DISCARD, card=DISCARD.answers[0]).status_code == 200
    ours = ratings_now(app)[DISCARD.id]
    with app.app_context():  # another process's answer, as far as this one can tell
        with transaction() as db:
            db.execute(update(PuzzleRating).where(PuzzleRating.puzzle_id == DISCARD.id)
                       .values(rating=ours + 40))
    assert ratings_now(app)[DISCARD.id] == ours  # the copy is younger than 5 s
    later = time.monotonic() + 5.0
    monkeypatch.setattr(time, "monotonic", lambda: later)
    assert ratings_now(app)[DISCARD.id] == ours + 40


def test_a_report_stops_a_puzzle_at_once_whatever_the_copy(tmp_path: Path) -> None:
    app = make_app(tmp_path, TRAINER_RATINGS_MAX_AGE=3600.0)
    client = app.test_client()
    fields = form_of(client, f"/puzzles/{BUY.id}")
    ratings_now(app)
    with app.app_context():  # a report committed by another process (or the reports command)
        with transaction() as db:
            db.add(Report(puzzle_id=BUY.id, reason="elsewhere"))
    assert client.get(f"/puzzles/{BUY.id}").status_code == 404
    assert answer(client, BUY, fields, choice="buy").status_code == 400
    for _ in range(20):
        assert BUY.id not in client.get(f"/practice?rules={BUY.rules}&kind=buy").headers.get("Location", "")


def players_read(app: Flask, client: Any, method: str, path: str, **data: str) -> tuple[int, int]:
    """The status of one request and how many statements it sent that read the players table."""
    statements: Counter[str] = Counter()

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements["players"] += "FROM players" in statement

    with app.app_context():
        bind = engine()
    event.listen(bind, "before_cursor_execute", seen)
    try:
        response = client.open(path, method=method, data=data or None)
    finally:
        event.remove(bind, "before_cursor_execute", seen)
    return response.status_code, statements["players"]


def test_a_page_reads_its_player_once_header_included(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    client = app.test_client()
    fields = form_of(client, f"/puzzles/{DISCARD.id}")  # the player exists from here on
    assert players_read(app, client, "GET", f"/puzzles/{DISCARD.id}") == (200, 1)
    assert players_read(app, client, "POST", f"/puzzles/{DISCARD.id}/answer", **fields,
                        card=DISCARD.answers[0]) == (200, 1)
    assert players_read(app, client, "GET", "/dashboard") == (200, 1)
    page = client.get("/name")
    assert page.status_code == 200 and "Your name" in page.text


def test_a_first_visit_makes_its_player_in_a_write_transaction(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    with app.app_context():
        bind = engine()
    for path in ("/practice", f"/puzzles/{DISCARD.id}", "/daily", "/dashboard"):
        client = app.test_client()
        statements: list[str] = []

        def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            statements.append(statement.split("(")[0].strip().upper())

        event.listen(bind, "before_cursor_execute", seen)
        try:
            assert client.get(path).status_code in (200, 303)
        finally:
            event.remove(bind, "before_cursor_execute", seen)
        inserted = statements.index("INSERT INTO PLAYERS")
        began = [index for index, statement in enumerate(statements[:inserted]) if statement.startswith("BEGIN")]
        assert statements[began[-1]] == "BEGIN IMMEDIATE", (path, statements)
        assert players_read(app, client, "GET", path)[1] == 1  # known from now on: no write, one read
