"""Nothing lost, nothing doubled: answers submitted at once from several clients (threads with
their own test clients, as two browser tabs or two players would), against SQLite and, where a
server is given, PostgreSQL; the rows are counted afterwards."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from tests.webapp.conftest import establish, make_app
from tests.webapp.test_trainer import BANK, BUY, DISCARD, form_of
from webapp.db import Attempt, Player, PuzzleRating, session


def at_once(jobs: list[Callable[[], Any]]) -> list[Any]:
    """Run the jobs in threads released together; their results in order (an exception fails)."""
    start = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            start.wait()
            results[index] = jobs[index]()
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    return results


def tab_of(app: Flask, client: FlaskClient) -> FlaskClient:
    """Another tab of the same browser: a new client with the same cookies."""
    tab = app.test_client()
    for cookie in client._cookies.values():
        tab.set_cookie(cookie.key, cookie.value, domain=cookie.domain, path=cookie.path)
    return tab


def post(client: FlaskClient, puzzle_id: str, data: dict[str, str]) -> Callable[[], int]:
    return lambda: client.post(f"/puzzles/{puzzle_id}/answer", data=data).status_code


def test_the_same_form_from_two_tabs_at_once_is_recorded_once(tmp_path: Path, database_url: str) -> None:
    app = make_app(tmp_path, database_url)
    client = app.test_client()
    fields = form_of(client, f"/puzzles/{BUY.id}")
    tabs = [tab_of(app, client) for _ in range(4)]
    statuses = at_once([post(tab, BUY.id, {**fields, "choice": BUY.answers[0]}) for tab in tabs])
    assert statuses == [200] * 4
    with app.app_context():
        db = session()
        assert db.scalar(select(func.count()).select_from(Attempt)) == 1
        rating = db.get(PuzzleRating, BUY.id)
        assert rating is not None and rating.attempts == 1
        (player,) = db.scalars(select(Player)).all()
        assert player.streak == 1


def test_two_forms_of_one_puzzle_at_once_make_two_attempts_and_one_rating(tmp_path: Path, database_url: str) -> None:
    app = make_app(tmp_path, database_url)
    client = app.test_client()
    forms = [form_of(client, f"/puzzles/{DISCARD.id}") for _ in range(4)]
    tabs = [tab_of(app, client) for _ in forms]
    at_once([post(tab, DISCARD.id, {**form, "card": DISCARD.answers[0]}) for tab, form in zip(tabs, forms)])
    with app.app_context():
        db = session()
        attempts = db.scalars(select(Attempt)).all()
        assert len(attempts) == 4 and sum(attempt.rated for attempt in attempts) == 1
        assert db.get(PuzzleRating, DISCARD.id).attempts == 1  # type: ignore[union-attr]


def test_many_players_on_one_puzzle_at_once_lose_no_rating_update(tmp_path: Path, database_url: str) -> None:
    """Each rated attempt moves the puzzle from where the one before left it: the puzzle's
    attempt count and its chain of ratings before/after have no gap and no fork."""
    app = make_app(tmp_path, database_url)
    players = [app.test_client() for _ in range(6)]
    for client in players:
        establish(app, client)  # players whose answers move puzzles (webapp.trust)
    forms = [form_of(client, f"/puzzles/{DISCARD.id}") for client in players]
    wrong = next(card.token for card in DISCARD.hand if card.token not in DISCARD.answers)
    jobs = [post(client, DISCARD.id, {**form, "card": DISCARD.answers[0] if index % 2 else wrong})
            for index, (client, form) in enumerate(zip(players, forms))]
    assert at_once(jobs) == [200] * 6
    with app.app_context():
        db = session()
        attempts = db.scalars(select(Attempt).order_by(Attempt.id)).all()
        assert len(attempts) == 6 and all(attempt.rated for attempt in attempts)
        row = db.get(PuzzleRating, DISCARD.id)
        assert row is not None and row.attempts == 6 and row.solved == 3
        chain = sorted(((a.puzzle_rating_before, a.puzzle_rating_after) for a in attempts), key=lambda pair: 0)
        befores = {before for before, _ in chain}
        afters = {after for _, after in chain}
        assert float(DISCARD.rating) in befores and row.rating in afters
        assert len(befores) == 6 and len(befores - afters) == 1  # a single chain from the start


def test_a_burst_of_answers_from_many_clients_is_counted_exactly(tmp_path: Path, database_url: str) -> None:
    app = make_app(tmp_path, database_url)
    discards = [puzzle for puzzle in BANK if puzzle.kind == "discard"][:5]
    clients = [app.test_client() for _ in range(5)]
    jobs = []
    for client in clients:
        for puzzle in discards:
            fields = form_of(client, f"/puzzles/{puzzle.id}")
            data = {**fields, "card": puzzle.answers[0]}
            jobs += [post(client, puzzle.id, data), post(tab_of(app, client), puzzle.id, data)]  # each form twice
    assert at_once(jobs) == [200] * len(jobs)
    with app.app_context():
        db = session()
        assert db.scalar(select(func.count()).select_from(Attempt)) == 25
        assert {row.puzzle_id: row.attempts for row in db.scalars(select(PuzzleRating))} == {
            puzzle.id: 5 for puzzle in discards}
        assert sorted(player.streak for player in db.scalars(select(Player))) == [5] * 5
