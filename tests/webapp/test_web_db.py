"""The database: migrations build the models' schema from nothing, on SQLite (WAL, busy
timeout) and on PostgreSQL; one transaction per change."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import select, text

from tests.webapp.conftest import make_app
from webapp.db import Base, Player, WriterTurns, engine, session, transaction, upgrade


def test_the_migrations_build_exactly_the_models(tmp_path: Path, database_url: str) -> None:
    app = make_app(tmp_path, database_url)
    with app.app_context(), engine().connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
        assert differences == []
        version = connection.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
        assert version == "0005"


def test_upgrading_twice_changes_nothing(tmp_path: Path, database_url: str) -> None:
    app = make_app(tmp_path, database_url)
    upgrade(app.config["DATABASE_URL"])


def test_a_transaction_commits_or_rolls_back_whole(tmp_path: Path, database_url: str) -> None:
    app = make_app(tmp_path, database_url)
    with app.app_context():
        with transaction() as db:
            db.add(Player(name="Ada"))
        with pytest.raises(RuntimeError), transaction() as db:
            db.add(Player(name="Bob"))
            db.flush()
            raise RuntimeError("interrupted")
        players = session().scalars(select(Player)).all()
        assert [player.name for player in players] == ["Ada"]
        assert len(players[0].public_id) == 32 and players[0].rules == "progressive"
        assert players[0].created_at is not None


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    assert app.config["DATABASE_URL"].startswith("sqlite:///")
    with app.app_context(), engine().connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
        assert connection.execute(text("PRAGMA busy_timeout")).scalar_one() == 5000


def test_the_default_database_lives_in_the_instance_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp import create_app

    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("RUMMY_INSTANCE_PATH", str(tmp_path / "instance"))
    app = create_app({"TESTING": True})
    assert app.config["DATABASE_URL"] == f"sqlite:///{tmp_path / 'instance' / 'rummy.sqlite3'}"


def _queued(turns: WriterTurns, waiting: int) -> None:
    deadline = time.monotonic() + 10
    while len(turns._queue) < waiting:
        assert time.monotonic() < deadline, "a writer never queued"
        time.sleep(0.001)


def test_writers_take_their_turns_in_the_order_they_asked() -> None:
    """The SQLite writers' turn (webapp.db.WriterTurns) goes to whoever asked first: a writer that
    lets it go and asks again at once, as a busy thread does, queues behind those already waiting
    (threading.Lock lets it barge in ahead of them, again and again)."""
    turns = WriterTurns()
    order: list[str] = []

    def writer(name: str) -> None:
        with turns:
            order.append(name)

    turns.__enter__()
    waiting = []
    for number, name in enumerate("BCD", start=1):
        waiting.append(threading.Thread(target=writer, args=(name,)))
        waiting[-1].start()
        _queued(turns, number)
    turns.__exit__(None, None, None)
    with turns:  # straight back: after B, C and D
        order.append("A again")
    for thread in waiting:
        thread.join(10)
    assert order == ["B", "C", "D", "A again"]
    with turns:  # and free once everyone is done
        pass
