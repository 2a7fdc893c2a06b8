"""Who is asking: a player from the first visit, anonymous, known by a random id in Flask's
signed session cookie; perhaps named; perhaps logged in to an account (the same row)."""

from __future__ import annotations

from flask import session as cookie
from sqlalchemy import select
from sqlalchemy.orm import Session

from webapp.db import Player

COOKIE_KEY = "player"


def current_player(db: Session, *, create: bool = True, lock: bool = False) -> Player | None:
    """The cookie's player, made (and the cookie set) on the first visit when ``create``;
    ``lock`` takes the row's write lock (PostgreSQL; SQLite's write transaction has it already)."""
    public_id = cookie.get(COOKIE_KEY)
    if isinstance(public_id, str):
        query = select(Player).where(Player.public_id == public_id)
        if lock:
            query = query.with_for_update().execution_options(populate_existing=True)
        player = db.scalars(query).one_or_none()
        if player is not None:
            return player
    if not create:
        return None
    player = Player()
    db.add(player)
    db.flush()
    cookie[COOKIE_KEY] = player.public_id
    cookie.permanent = True
    return player


def player_id_in_cookie() -> str | None:
    public_id = cookie.get(COOKIE_KEY)
    return public_id if isinstance(public_id, str) else None


def display_name(player: Player) -> str:
    return player.name or player.username or "Anonymous player"
