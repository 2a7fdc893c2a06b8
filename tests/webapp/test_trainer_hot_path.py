"""The trainer's hot path, kept cheap under load without losing a guarantee: the puzzle ratings
/practice chooses from (webapp/puzzle_ratings.py: this process's answers seen at once, another
process's within ``TRAINER_RATINGS_MAX_AGE``, a blocked puzzle never served from a copy); a
page reads its player once, header included; a first visit writes nothing, and the first answer
makes the player in a write transaction (SQLite: in its turn among the writers); a puzzle's own parts of its pages are drawn
once and kept (webapp/puzzle_parts.py), never carrying one player's tokens or form to another."""

from __future__ import annotations

import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import event, select, update

from tests.webapp.conftest import establish, make_app
from tests.webapp.test_trainer import BUY, DISCARD, LAY_DOWN, answer, fields_of, form_of, wrong_discard
from webapp.db import PuzzleRating, Report, engine, session, transaction
from webapp.puzzle_ratings import puzzle_ratings


def ratings_now(app: Flask) -> dict[str, float]:
    """What /practice would choose from at this moment, through the app's copy."""
    with app.test_request_context(), transaction() as db:
        return dict(puzzle_ratings().current(db))


def table(app: Flask) -> dict[str, float]:
    with app.app_context():
        return {row.puzzle_id: row.rating for row in session().scalars(select(PuzzleRating))}


def test_this_process_answers_are_seen_at_once(tmp_path: Path, database_url: str) -> None:
    app = make_app(tmp_path, database_url, TRAINER_RATINGS_MAX_AGE=3600.0)
    client = app.test_client()
    establish(app, client)  # a player whose answers move puzzles
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
    # another process's answer, as far as this one can tell
    with app.app_context(), transaction() as db:
        db.execute(update(PuzzleRating).where(PuzzleRating.puzzle_id == DISCARD.id).values(rating=ours + 40))
    assert ratings_now(app)[DISCARD.id] == ours  # the copy is younger than 5 s
    later = time.monotonic() + 5.0
    monkeypatch.setattr(time, "monotonic", lambda: later)
    assert ratings_now(app)[DISCARD.id] == ours + 40


def test_a_block_stops_a_puzzle_at_once_whatever_the_copy(tmp_path: Path) -> None:
    app = make_app(tmp_path, TRAINER_RATINGS_MAX_AGE=3600.0)
    client = app.test_client()
    fields = form_of(client, f"/puzzles/{BUY.id}")
    ratings_now(app)
    # a block committed by another process (the reports command)
    with app.app_context(), transaction() as db:
        db.add(Report(puzzle_id=BUY.id, reason="elsewhere", state="blocked"))
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
    assert answer(client, BUY, choice="buy").status_code == 200  # the player exists from here on
    fields = form_of(client, f"/puzzles/{DISCARD.id}")
    assert players_read(app, client, "GET", f"/puzzles/{DISCARD.id}") == (200, 1)
    assert players_read(app, client, "POST", f"/puzzles/{DISCARD.id}/answer", **fields,
                        card=DISCARD.answers[0]) == (200, 1)
    assert players_read(app, client, "GET", "/dashboard") == (200, 1)
    page = client.get("/name")
    assert page.status_code == 200 and "Your name" in page.text


def test_a_first_visit_writes_nothing_and_the_first_answer_makes_the_player_in_a_write_transaction(
        tmp_path: Path) -> None:
    app = make_app(tmp_path)
    with app.app_context():
        bind = engine()
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement.split("(")[0].strip().upper())

    client = app.test_client()
    event.listen(bind, "before_cursor_execute", seen)
    try:
        for path in ("/practice", f"/puzzles/{DISCARD.id}", "/daily", "/dashboard"):
            assert client.get(path).status_code in (200, 303)
        assert not [statement for statement in statements if statement.startswith(("INSERT", "UPDATE", "DELETE"))]
        assert "BEGIN IMMEDIATE" not in statements  # no page took SQLite's write lock
        assert answer(client, DISCARD, card=DISCARD.answers[0]).status_code == 200
    finally:
        event.remove(bind, "before_cursor_execute", seen)
    inserted = statements.index("INSERT INTO PLAYERS")
    began = [index for index, statement in enumerate(statements[:inserted]) if statement.startswith("BEGIN")]
    assert statements[began[-1]] == "BEGIN IMMEDIATE", statements
    assert players_read(app, client, "GET", "/dashboard")[1] == 1  # known from now on: one read


# ---- a puzzle's kept parts ----------------------------------------------------------------------------


def without_tokens(html: str) -> str:
    """A page with its per-session and one-time values blanked (the parts a player owns)."""
    return re.sub(r'(name="(?:csrf_token|token)" value="|name="csrf-token" content=")[^"]+"', r'\1"', html)


@pytest.mark.parametrize("puzzle", [LAY_DOWN, DISCARD, BUY], ids=lambda puzzle: puzzle.kind)
def test_kept_parts_are_the_puzzles_alone(tmp_path: Path, puzzle: Any) -> None:
    """The second player's page and result come from the parts the first player's drew: they must
    carry the second player's own tokens, and be the same page as the first's but for them."""
    app = make_app(tmp_path)
    first, second = app.test_client(), app.test_client()
    pages = [client.get(f"/puzzles/{puzzle.id}").text for client in (first, second)]
    # each page's own fields (a CSRF token carries the second it was signed in: a second visit's
    # may differ from the first's)
    tokens = [fields_of(page) for page in pages]
    assert tokens[0]["csrf_token"] != tokens[1]["csrf_token"]
    assert tokens[0]["csrf_token"] not in pages[1] and tokens[1]["csrf_token"] in pages[1]
    assert without_tokens(pages[0]) == without_tokens(pages[1])
    assert pages[0].count('class="card ') >= len(puzzle.hand)  # the hand was drawn, not left out
    given = {"card": wrong_discard(puzzle)} if puzzle.kind == "discard" else (
        {"choice": "buy"} if puzzle.kind == "buy" else {"cannot": "1"})
    results = [answer(client, puzzle, fields, **given) for client, fields in zip((first, second), tokens)]
    assert [result.status_code for result in results] == [200, 200]
    solutions = [re.search(r'<section class="solution">.*?</section>', result.text, re.DOTALL) for result in results]
    assert solutions[0] and solutions[1] and solutions[0].group() == solutions[1].group()


def test_a_refused_answer_shows_what_was_typed_though_the_form_is_kept(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    client = app.test_client()
    fields = form_of(client, f"/puzzles/{LAY_DOWN.id}")  # the empty form's part is kept now
    typed = LAY_DOWN.hand[0].token + " 7X"
    refused = answer(client, LAY_DOWN, fields, **{"meld-0": typed})
    assert refused.status_code == 400
    assert f'value="{typed}"' in refused.text
    assert f'value="{typed}"' not in client.get(f"/puzzles/{LAY_DOWN.id}").text  # and kept out of the part
