"""Database access: the engine, one session per request, the models, and migrations.

SQLite in the instance folder by default (WAL, so readers never wait for a writer, and a busy
timeout, so a writer waits its turn instead of failing), PostgreSQL through ``DATABASE_URL``.
The schema is Alembic's (``webapp/migrations``); ``upgrade`` brings a database up to date and
is what ``rummy-trainer`` and ``flask --app webapp init-db`` run.

Blueprints query through ``session()``; a request that changes state does so in one
transaction: ``with transaction() as db: ...`` commits at the end, or rolls back on error.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import click
from alembic import command
from alembic.config import Config
from flask import Flask, current_app, g
from sqlalchemy import DateTime, Engine, String, create_engine, event, func
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

SQLITE_BUSY_TIMEOUT_MS = 5000
MIGRATIONS = Path(__file__).parent / "migrations"


class Base(DeclarativeBase):
    pass


class Player(Base):
    """Someone using the trainer: anonymous from the first visit (``public_id`` in a signed
    cookie), perhaps named. Issue 11 adds ratings and accounts in later migrations."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(primary_key=True)
    # What the cookie carries: random, so a row id never leaks and cannot be guessed.
    public_id: Mapped[str] = mapped_column(String(32), unique=True, default=lambda: uuid.uuid4().hex)
    name: Mapped[str | None] = mapped_column(String(40))
    rules: Mapped[str] = mapped_column(String(40), default="progressive")  # the rule set they play, remembered
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


# ---- engine and sessions -------------------------------------------------------------------------


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL and a busy timeout on every connection."""
    if url.startswith("postgres://"):  # the form some hosts hand out; SQLAlchemy wants the dialect
        url = "postgresql+psycopg://" + url.removeprefix("postgres://")
    elif url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})

    @event.listens_for(engine, "connect")
    def _pragmas(connection: Any, _record: Any) -> None:
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    return engine


def init_app(app: Flask) -> None:
    engine = make_engine(app.config["DATABASE_URL"])
    app.extensions["db"] = sessionmaker(engine, expire_on_commit=False)
    app.teardown_appcontext(_close_session)
    app.cli.add_command(init_db_command)


def engine() -> Engine:
    bind = current_app.extensions["db"].kw["bind"]
    assert isinstance(bind, Engine)
    return bind


def session() -> Session:
    """This request's session, opened on first use and closed when the request ends."""
    if "db_session" not in g:
        g.db_session = current_app.extensions["db"]()
    result: Session = g.db_session
    return result


@contextmanager
def transaction() -> Iterator[Session]:
    """The request's session inside one transaction: committed on success, rolled back on error."""
    db = session()
    with db.begin():
        yield db


def _close_session(_error: BaseException | None) -> None:
    db = g.pop("db_session", None)
    if db is not None:
        db.close()


# ---- migrations ------------------------------------------------------------------------------------


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["url"] = url  # read by migrations/env.py; never interpolated (a % in a password)
    return config


def upgrade(url: str) -> None:
    """Bring the database at ``url`` to the newest schema (creating it from nothing if need be)."""
    command.upgrade(alembic_config(url), "head")


@click.command("init-db")
def init_db_command() -> None:
    """Create or upgrade the database to the newest schema."""
    upgrade(current_app.config["DATABASE_URL"])
    click.echo(f"Database ready: {engine().url.render_as_string(hide_password=True)}")
