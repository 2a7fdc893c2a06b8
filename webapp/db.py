"""Database access: the engine, one session per request, the models, and migrations.

SQLite in the instance folder by default (WAL, so readers never wait for a writer; synchronous
NORMAL; a busy timeout, so a writer waits its turn instead of failing), PostgreSQL through
``DATABASE_URL``. The schema is Alembic's (``webapp/migrations``); ``upgrade`` brings a database up to date and
is what ``rummy-trainer`` and ``flask --app webapp init-db`` run.

Blueprints query through ``session()``; a request that changes state does so in one
transaction: ``with transaction() as db: ...`` commits at the end, or rolls back on error.
"""

from __future__ import annotations

import threading
import uuid
from collections import deque
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import date, datetime
from pathlib import Path
from typing import Any, Self

import click
from alembic import command
from alembic.config import Config
from flask import Flask, current_app, g
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    false,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

SQLITE_BUSY_TIMEOUT_MS = 5000
MIGRATIONS = Path(__file__).parent / "migrations"


class Base(DeclarativeBase):
    pass


# Glicko-2's starting point for a player (a puzzle starts from the bank's own rating).
START_RATING, START_DEVIATION, START_VOLATILITY = 1500.0, 350.0, 0.06


class Player(Base):
    """Someone using the trainer: anonymous from the first visit (``public_id`` in a signed
    cookie), perhaps named, perhaps with an account (``username`` and a password hash)."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(primary_key=True)
    # What the cookie carries: random, so a row id never leaks and cannot be guessed.
    public_id: Mapped[str] = mapped_column(String(32), unique=True, default=lambda: uuid.uuid4().hex)
    name: Mapped[str | None] = mapped_column(String(40))
    rules: Mapped[str] = mapped_column(String(40), default="progressive")  # the rule set they play, remembered
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    # ---- 0002: the trainer ----
    rating: Mapped[float] = mapped_column(Float, default=START_RATING, server_default=str(START_RATING))
    deviation: Mapped[float] = mapped_column(Float, default=START_DEVIATION, server_default=str(START_DEVIATION))
    volatility: Mapped[float] = mapped_column(Float, default=START_VOLATILITY, server_default=str(START_VOLATILITY))
    streak: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # rated answers right in a row
    best_streak: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    daily_streak: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # days in a row, daily solved
    last_daily_solved: Mapped[date | None] = mapped_column(Date)
    username: Mapped[str | None] = mapped_column(String(40), unique=True)  # an account's log-in name
    password_hash: Mapped[str | None] = mapped_column(String(256))
    # ---- 0003: trust ----
    # Rated attempts so far: how much this player's answers move puzzle ratings and whether their
    # reports count (webapp/trust.py).
    rated_attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class PuzzleRating(Base):
    """A puzzle's Glicko-2 rating as players meet it: a row per puzzle id, made on its first
    rated attempt (from the bank's rating), updated with each rated attempt."""

    __tablename__ = "puzzle_ratings"

    puzzle_id: Mapped[str] = mapped_column(String(12), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # rated attempts
    solved: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class Attempt(Base):
    """One answer to one puzzle, kept for ever. ``token`` is the one-time key the puzzle page
    issued: a second submission of it finds this row and changes nothing. Only a player's
    first attempt at a puzzle is rated (``rated``; the ratings before and after are kept)."""

    __tablename__ = "attempts"
    __table_args__ = (
        UniqueConstraint("player_id", "token", name="uq_attempts_player_token"),
        Index("ix_attempts_player_puzzle", "player_id", "puzzle_id"),
        Index("ix_attempts_puzzle", "puzzle_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    puzzle_id: Mapped[str] = mapped_column(String(12))
    token: Mapped[str] = mapped_column(String(32))
    answer: Mapped[Any] = mapped_column(JSON)  # what was submitted, as read: {"discard": "7H"}, {"melds": ...}
    right: Mapped[bool] = mapped_column(Boolean)
    rated: Mapped[bool] = mapped_column(Boolean)
    daily: Mapped[date | None] = mapped_column(Date)  # the day whose daily puzzle this answered, if it did
    rating_before: Mapped[float] = mapped_column(Float)  # the player's
    rating_after: Mapped[float] = mapped_column(Float)
    deviation_after: Mapped[float] = mapped_column(Float)
    puzzle_rating_before: Mapped[float | None] = mapped_column(Float)  # None when unrated
    puzzle_rating_after: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class DailyResult(Base):
    """A player's result on one day's daily puzzle: their first answer to it that day."""

    __tablename__ = "daily_results"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    puzzle_id: Mapped[str] = mapped_column(String(12))
    solved: Mapped[bool] = mapped_column(Boolean)


REPORT_STATES = ("open", "blocked", "cleared")


class Report(Base):
    """A player saying a puzzle is wrong. The puzzle is hidden from its reporter at once; it
    leaves service for everyone when ``REPORT_QUORUM`` established players (``weight`` 1) have
    open reports of it, or when a maintainer blocks it (``flask --app webapp reports``); a
    maintainer's review marks the reports ``blocked`` or ``cleared`` (webapp/trust.py)."""

    __tablename__ = "reports"
    __table_args__ = (Index("ix_reports_puzzle", "puzzle_id"), Index("ix_reports_player", "player_id"))

    id: Mapped[int] = mapped_column(primary_key=True)
    puzzle_id: Mapped[str] = mapped_column(String(12))
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    reason: Mapped[str] = mapped_column(Text, default="", server_default="")
    state: Mapped[str] = mapped_column(String(10), default="open", server_default="open")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    reviewed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # ---- 0003 ----
    weight: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # 1: an established reporter


class Game(Base):
    """A round (or a whole game: every round of the rule set) against the computer, stored as
    its game record (webapp/tables.py): the record is the state, rebuilt on each request by
    replaying it through the table. ``version`` counts the person's moves: a move form carries
    it (signed), so a replayed form changes nothing."""

    __tablename__ = "games"
    __table_args__ = (Index("ix_games_player", "player_id"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=lambda: uuid.uuid4().hex)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    rules: Mapped[str] = mapped_column(String(40))
    round: Mapped[int] = mapped_column(Integer)  # a whole game's: the round in play
    players: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)  # the person's
    strength: Mapped[str] = mapped_column(String(20))  # the computer players' policy
    seed: Mapped[int] = mapped_column(BigInteger)  # the deal's; a whole game's, each round's derived from it
    record: Mapped[Any] = mapped_column(JSON)  # the round's events so far (the record's round)
    pending: Mapped[Any] = mapped_column(JSON)  # the steps of the person's turn in progress
    version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    hints: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # hints asked for
    finished: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())  # the game over
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    whole: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())  # every round in order
    past: Mapped[Any] = mapped_column(JSON, nullable=True)  # a whole game's rounds over: each its events
    totals: Mapped[Any] = mapped_column(JSON, nullable=True)  # each seat's points, once the game is over
    review: Mapped[Any] = mapped_column(JSON, nullable=True)  # the review (``Review.to_dict``) once made
    match_rate: Mapped[float | None] = mapped_column(Float, nullable=True)  # the review's, for the dashboard
    # ---- 0006 ----
    # The table stopped for the computer's thinking, which the page asks for next (a table
    # that waits for the person is not: its record may end before the turn of a computer player
    # whose declined card the person is offered). ``answer``: the person's decision given and
    # checked, whose turn goes on with the computer's thinking (the other players offered the
    # card the person declined); None when the record holds everything.
    thinking: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    answer: Mapped[Any] = mapped_column(JSON, nullable=True)


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
        # The driver's own transaction handling off: SQLAlchemy says BEGIN itself (below), so a
        # writer can take the write lock up front.
        connection.isolation_level = None
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # In WAL mode NORMAL syncs at checkpoints, not at every commit (an fsync of several ms
        # inside the write lock, which serialized every answer behind the disk). The database
        # stays consistent after any crash; only a power cut or an OS crash may take back the
        # last commits before the checkpoint (SQLite's own advice for WAL: "a good choice").
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        # BEGIN IMMEDIATE for ``write_transaction``: two writers queue (the busy timeout) instead
        # of both reading first and one failing to upgrade its lock.
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")

    return engine


def init_app(app: Flask) -> None:
    engine = make_engine(app.config["DATABASE_URL"])
    app.extensions["db"] = sessionmaker(engine, expire_on_commit=False)
    # SQLite: this process's writers take turns before BEGIN IMMEDIATE, in the order they came.
    # Without it they all wait in SQLite's busy handler, which polls at growing intervals (up to
    # 100 ms) and in no order: under load a writer could sleep through many turns. Other
    # processes on the same file still meet the busy timeout. PostgreSQL's row locks queue
    # writers already.
    app.extensions["db_writer_turn"] = WriterTurns() if engine.dialect.name == "sqlite" else None
    app.teardown_appcontext(_close_session)
    app.cli.add_command(init_db_command)


class WriterTurns:
    """A lock taken in the order it was asked for. ``threading.Lock`` promises no order: a writer
    that has just let it go, or one that happens to be running, can take it again ahead of one
    that has waited, so under a steady stream of answers one request could wait for seconds.
    Here each waiter queues, and the writer leaving hands the turn to the first in the queue."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._queue: deque[threading.Lock] = deque()
        self._taken = False

    def __enter__(self) -> Self:
        with self._guard:
            if not self._taken:
                self._taken = True
                return self
            turn = threading.Lock()
            turn.acquire()
            self._queue.append(turn)
        turn.acquire()  # released by the writer before us, who passed the turn on (still taken)
        return self

    def __exit__(self, *_exc: object) -> None:
        with self._guard:
            if self._queue:
                self._queue.popleft().release()
            else:
                self._taken = False


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


@contextmanager
def write_transaction() -> Iterator[Session]:
    """``transaction()`` for a change that reads what it then writes (an answer and the ratings
    it moves): on SQLite the write lock is taken at BEGIN (BEGIN IMMEDIATE), so writers
    serialize; on PostgreSQL the caller locks the rows it reads (``with_for_update``)."""
    db = session()
    if db.in_transaction():  # a read earlier in the request: end it, the write starts afresh
        db.commit()
    with _writer_turn(), db.begin():
        db.connection(execution_options={"sqlite_begin": "IMMEDIATE"})
        yield db


def _writer_turn() -> AbstractContextManager[Any]:
    """This process's turn to write (SQLite), held until the write transaction has ended."""
    turn: WriterTurns | None = current_app.extensions.get("db_writer_turn")
    return turn if turn is not None else nullcontext()


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
