"""Who is asking: a player known by a random id in Flask's signed session cookie, anonymous,
perhaps named, perhaps logged in to an account (the same row).

A visitor is given an id in the cookie on their first visit but becomes a row only when they
first write: answer a puzzle, report one, take a name or register (``current_player``). Until
then the pages read a stand-in that is never stored (``visitor``), so looking takes no write
lock and leaves nothing behind; new rows are limited per address (``NEW_PLAYERS_PER_ADDRESS``).

An account is a player row with a ``username`` and a password hash. Logging in from a browser
whose anonymous player has answered puzzles ADOPTS that history into the account
(``adopt``): one transaction moves the attempts, daily results and reports, settles the
ratings and streaks, and deletes the emptied anonymous row.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, cast

from flask import g
from flask import session as cookie
from sqlalchemy import CursorResult, delete, exists, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from analyzer import PRESETS
from webapp.db import (
    START_DEVIATION,
    START_RATING,
    START_VOLATILITY,
    Attempt,
    DailyResult,
    Game,
    Player,
    Report,
)
from webapp.safety import spend

COOKIE_KEY = "player"
RULES_KEY = "rules"  # a visitor's rule set, remembered in the cookie until they are a row
DEFAULT_RULES = "progressive"


def current_player(db: Session, *, create: bool = True, lock: bool = False) -> Player | None:
    """The cookie's player row; when there is none and ``create``, made now (a write: call it
    inside a write transaction) with the id the cookie already carries, so the answer forms the
    visitor was given stay theirs. ``lock`` takes the row's write lock (PostgreSQL; SQLite's
    write transaction has it already). A new row counts against ``NEW_PLAYERS_PER_ADDRESS``."""
    public_id = player_id_in_cookie()
    if public_id is not None:
        player = _read(db, public_id, lock)
        if player is not None:
            g.request_player = player
            return player
    if not create:
        return None
    spend("NEW_PLAYERS_PER_ADDRESS", "new players from your address")
    public_id = public_id or new_public_id()
    values = {"public_id": public_id, "rules": _cookie_rules()}
    dialect = postgresql if db.get_bind().dialect.name == "postgresql" else sqlite
    # The same browser's two first answers at once: one row, whichever insert comes first.
    db.execute(dialect.insert(Player).values(**values).on_conflict_do_nothing(index_elements=["public_id"]))
    player = _read(db, public_id, lock=True)
    assert player is not None
    cookie[COOKIE_KEY] = player.public_id
    cookie.pop(RULES_KEY, None)
    cookie.permanent = True
    g.request_player = player
    return player


def _read(db: Session, public_id: str, lock: bool) -> Player | None:
    query = select(Player).where(Player.public_id == public_id)
    if lock:
        query = query.with_for_update().execution_options(populate_existing=True)
    return db.scalars(query).one_or_none()


def visitor(db: Session) -> Player:
    """The cookie's player for a page that only reads: the row when there is one, else a stand-in
    at the starting rating that is never stored (``id`` None), its id put in the cookie so the
    row made on the first write is this one."""
    player = current_player(db, create=False)
    if player is not None:
        return player
    public_id = player_id_in_cookie()
    if public_id is None:
        public_id = cookie[COOKIE_KEY] = new_public_id()
        cookie.permanent = True
    return Player(public_id=public_id, name=None, username=None, rules=_cookie_rules(), rating=START_RATING,
                  deviation=START_DEVIATION, volatility=START_VOLATILITY, streak=0, best_streak=0,
                  daily_streak=0, last_daily_solved=None, rated_attempts=0)


def limit_key() -> str:
    """A rate limit's key for "per player": the cookie's id, given now when it has none yet (so
    the request that makes the row counts for the player it makes)."""
    public_id = player_id_in_cookie()
    if public_id is None:
        public_id = cookie[COOKIE_KEY] = new_public_id()
        cookie.permanent = True
    return f"player:{public_id}"


def remember_rules(rules: str) -> None:
    """A visitor's rule set, kept in the cookie until they are a row (which then takes it)."""
    cookie[RULES_KEY] = rules


def _cookie_rules() -> str:
    rules = cookie.get(RULES_KEY)
    return rules if isinstance(rules, str) and rules in PRESETS else DEFAULT_RULES


def request_player(db: Session) -> Player | None:
    """The cookie's player for a page's header: the row this request already read, when it read
    the cookie's player (one query a page fewer), else read now; never made."""
    seen = g.get("request_player")
    if isinstance(seen, Player) and seen.public_id == cookie.get(COOKIE_KEY):
        return seen
    return current_player(db, create=False)


def player_id_in_cookie() -> str | None:
    public_id = cookie.get(COOKIE_KEY)
    return public_id if isinstance(public_id, str) else None


def display_name(player: Player) -> str:
    return player.name or player.username or "Anonymous player"


def start_session(player: Player) -> None:
    """A fresh cookie session for ``player`` (log in, register): everything the old session held,
    its CSRF token included, is dropped, so a session planted before cannot ride along."""
    cookie.clear()
    cookie[COOKIE_KEY] = player.public_id
    cookie.permanent = True


def end_session() -> None:
    """Log out: the cookie session emptied; the next page the browser asks for gives it a new
    anonymous id (a row once it answers)."""
    cookie.clear()


def new_public_id() -> str:
    return uuid.uuid4().hex


# ---- adoption -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Adopted:
    """What ``adopt`` moved into the account, and whose rating the account kept."""

    attempts: int
    daily_results: int  # moved, or replacing the account's unsolved result of the same day
    daily_collisions: int  # days both had a result: the solved one was kept
    reports: int
    rating_from: str  # "account" or "anonymous"

    def to_dict(self) -> dict[str, int | str]:
        return {"attempts": self.attempts, "daily_results": self.daily_results,
                "daily_collisions": self.daily_collisions, "reports": self.reports,
                "rating_from": self.rating_from}


def lock_pair(db: Session, first: int, second: int) -> dict[int, Player]:
    """Both rows locked, in id order, so two log-ins crossing each other cannot deadlock
    (PostgreSQL; on SQLite the write transaction holds the database already)."""
    rows = db.scalars(select(Player).where(Player.id.in_((first, second))).order_by(Player.id)
                      .with_for_update().execution_options(populate_existing=True))
    return {row.id: row for row in rows}


def adopt(db: Session, anonymous: Player, account: Player) -> Adopted:
    """Move ``anonymous``'s history into ``account`` and delete ``anonymous``, inside the
    caller's write transaction with both rows locked (``lock_pair``): it all happens or none.

    The decisions where the histories meet:

    - Attempts and reports move as they are: they are facts (the puzzle ratings they moved
      stay moved). A puzzle both had met keeps both first attempts marked rated.
    - Daily results: a day only one of them has moves; a day both have keeps the solved one
      (the account's on a tie), and the other's attempt loses its ``daily`` mark.
    - Rating, deviation, volatility and the running streak: the account keeps its own when
      it has any rated attempt (its rating means something); otherwise it takes the anonymous
      one's, so a player who practised before registering elsewhere keeps what they earned.
      The best streak is the better of the two; the daily streak is counted again from the
      merged daily results.
    - Games against the computer move as they are (their reviews with them).
    - Name: the account's; the anonymous one's when the account has none. The rule set
      remembered stays the account's.
    """
    if anonymous.id == account.id or anonymous.username is not None:
        raise ValueError("only an anonymous player's history is adopted, and never into itself")
    account_rated = db.scalar(select(exists().where(Attempt.player_id == account.id,
                                                    Attempt.rated.is_(True))))
    rating_from = "account" if account_rated else "anonymous"

    collisions = 0
    moved_days = 0
    theirs = list(db.scalars(select(DailyResult).where(DailyResult.player_id == anonymous.id)))
    for result in theirs:
        own = db.get(DailyResult, (account.id, result.day))
        if own is None:
            moved_days += 1
            continue  # moved with the others below
        collisions += 1
        if result.solved and not own.solved:
            moved_days += 1
            own.puzzle_id, own.solved = result.puzzle_id, True
            _undaily(db, account.id, result.day)  # the account's own answer is no longer the result
        else:
            _undaily(db, anonymous.id, result.day)
        db.delete(result)
    db.flush()
    db.execute(update(DailyResult).where(DailyResult.player_id == anonymous.id)
               .values(player_id=account.id), execution_options={"synchronize_session": False})
    # An UPDATE's result is a cursor's, which counts the rows it changed.
    attempts = cast(CursorResult[Any], db.execute(
        update(Attempt).where(Attempt.player_id == anonymous.id).values(player_id=account.id),
        execution_options={"synchronize_session": False}))
    reports = cast(CursorResult[Any], db.execute(
        update(Report).where(Report.player_id == anonymous.id).values(player_id=account.id),
        execution_options={"synchronize_session": False}))
    db.execute(update(Game).where(Game.player_id == anonymous.id).values(player_id=account.id),
               execution_options={"synchronize_session": False})  # games against the computer move whole

    if rating_from == "anonymous":
        account.rating, account.deviation, account.volatility = (
            anonymous.rating, anonymous.deviation, anonymous.volatility)
        account.streak = anonymous.streak
    account.best_streak = max(account.best_streak, anonymous.best_streak, account.streak)
    account.rated_attempts += anonymous.rated_attempts  # both first tries at a puzzle stay rated
    account.last_daily_solved, account.daily_streak = _daily_run(db, account.id)
    if not account.name and anonymous.name:
        account.name = anonymous.name
    db.flush()
    db.execute(delete(Player).where(Player.id == anonymous.id))
    db.expunge(anonymous)
    return Adopted(attempts=attempts.rowcount, daily_results=moved_days, daily_collisions=collisions,
                   reports=reports.rowcount, rating_from=rating_from)


def _undaily(db: Session, player_id: int, day: date) -> None:
    db.execute(update(Attempt).where(Attempt.player_id == player_id, Attempt.daily == day)
               .values(daily=None), execution_options={"synchronize_session": False})


def _daily_run(db: Session, player_id: int) -> tuple[date | None, int]:
    """The last day with the daily solved and the run of consecutive solved days ending there:
    what ``record`` would have counted had one player answered them all."""
    days = list(db.scalars(select(DailyResult.day).where(DailyResult.player_id == player_id,
                                                         DailyResult.solved.is_(True))
                           .order_by(DailyResult.day.desc())))
    if not days:
        return None, 0
    run = 1
    while run < len(days) and days[run] == days[run - 1] - timedelta(days=1):
        run += 1
    return days[0], run
