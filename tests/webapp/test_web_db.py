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
        assert version == "0006"


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


def test_the_rounds_finished_before_whole_games_get_their_totals(tmp_path: Path, database_url: str) -> None:
    """Migration 0005: a finished round stored by 0004 gets its scores as its totals."""
    import sqlalchemy as sa
    from alembic import command

    from webapp.db import alembic_config, make_engine

    url = database_url
    command.upgrade(alembic_config(url), "0004")
    players = sa.table("players", sa.column("id", sa.Integer), sa.column("public_id", sa.String),
                       sa.column("rules", sa.String))
    games = sa.table("games", *(sa.column(name, sa.String) for name in ("id", "rules", "strength")),
                     *(sa.column(name, sa.Integer) for name in ("player_id", "round", "players", "seat", "seed")),
                     sa.column("record", sa.JSON), sa.column("pending", sa.JSON), sa.column("finished", sa.Boolean))
    scored = [{"event": "deal"}, {"event": "score", "points": [12, 0, 30], "hands": [[], [], []]}]
    database = make_engine(url)
    with database.begin() as connection:
        connection.execute(players.insert().values(public_id="p", rules="progressive"))
        player = connection.execute(sa.select(players.c.id)).scalar_one()
        for game_id, record, finished in (("over", scored, True), ("on", scored[:1], False)):
            connection.execute(games.insert().values(
                id=game_id, player_id=player, rules="progressive", round=1, players=3, seat=0, strength="greedy",
                seed=7, record=record, pending=[], finished=finished))
    upgrade(url)
    with database.connect() as connection:
        totals = dict(connection.execute(sa.select(sa.column("id"), sa.column("totals", sa.JSON))
                                         .select_from(sa.table("games"))).all())
    database.dispose()
    assert totals == {"over": [12, 0, 30], "on": None}
