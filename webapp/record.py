"""Recording an answer exactly once, with the ratings and streaks it moves, in one transaction.

The puzzle page issues a one-time token (``issue_token``): random, signed with the app's key
together with the player and the puzzle, so it cannot be forged or moved to another puzzle.
``record_attempt`` then, in ONE write transaction:

1. locks the player's row (``SELECT ... FOR UPDATE`` on PostgreSQL; on SQLite the transaction
   began with BEGIN IMMEDIATE and holds the database's write lock), so one player's answers
   are recorded one after another;
2. finds an attempt with the same token: a second submission returns it and changes nothing;
3. rates only the player's first attempt at the puzzle: the puzzle's rating row is made if
   missing (INSERT ... ON CONFLICT DO NOTHING) and locked, both ratings move (Glicko-2; the
   puzzle's by the share the player is trusted with, capped: ``webapp.trust``), the streak moves;
4. for today's daily puzzle, the player's first answer today is their daily result, and a
   solve extends the daily streak;
5. adds the attempt. The unique key (player, token) is the last line of defence.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from flask import current_app
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from puzzles.model import Puzzle
from webapp.db import Attempt, DailyResult, Player, PuzzleRating
from webapp.glicko2 import Rating, rate_attempt
from webapp.trust import ESTABLISHED_ATTEMPTS, moved_puzzle, puzzle_share

# A puzzle's first rating row: the bank's estimate, held loosely until players have met it.
PUZZLE_START_DEVIATION = 250.0
PUZZLE_START_VOLATILITY = 0.06


class TokenError(ValueError):
    """An answer form's token that this site did not issue for this player and puzzle."""


def _signer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt="trainer-attempt")


def issue_token(player_public_id: str, puzzle_id: str) -> str:
    """A fresh one-time token for an answer form."""
    return _signer().dumps([player_public_id, puzzle_id, secrets.token_hex(16)])


def read_token(signed: str, player_public_id: str, puzzle_id: str) -> str:
    """The token's random part, when ``signed`` was issued to this player for this puzzle."""
    try:
        owner, puzzle, nonce = _signer().loads(signed)
    except (BadSignature, ValueError, TypeError):
        raise TokenError("the answer form was not issued by this site: reload the puzzle") from None
    if owner != player_public_id or puzzle != puzzle_id or not isinstance(nonce, str) or len(nonce) != 32:
        raise TokenError("the answer form belongs to another puzzle or player: reload the puzzle")
    return nonce


@dataclass(frozen=True)
class Recorded:
    """What recording an answer did: the attempt (the first one recorded for its token) and
    whether this submission was a repeat that changed nothing."""

    attempt: Attempt
    repeat: bool


def record_attempt(db: Session, player: Player, puzzle: Puzzle, token: str, answer: dict[str, Any],
                   right: bool, *, daily_day: date | None, established_attempts: int = ESTABLISHED_ATTEMPTS,
                   ) -> Recorded:
    """Record one answer, inside the caller's write transaction, ``player`` locked by the caller;
    ``established_attempts``: the rated attempts after which an anonymous player's answers move
    puzzle ratings (``webapp.trust``)."""
    # The player's attempts at this puzzle: one with this token makes this a repeat (a token is
    # issued for one puzzle), any other makes it a replay. One query on (player, puzzle).
    earlier = list(db.scalars(select(Attempt).where(Attempt.player_id == player.id, Attempt.puzzle_id == puzzle.id)))
    for attempt in earlier:
        if attempt.token == token:
            return Recorded(attempt, True)
    seen_before = bool(earlier)
    attempt = Attempt(player_id=player.id, puzzle_id=puzzle.id, token=token, answer=answer, right=right,
                      rated=not seen_before, daily=None, rating_before=player.rating)
    if attempt.rated:
        puzzle_rating = _locked_puzzle_rating(db, puzzle)
        attempt.puzzle_rating_before = puzzle_rating.rating
        puzzle_before = Rating(puzzle_rating.rating, puzzle_rating.deviation, puzzle_rating.volatility)
        new_player, glicko_puzzle = rate_attempt(
            Rating(player.rating, player.deviation, player.volatility), puzzle_before, right)
        # Trust judged before this attempt counts: the tenth attempt is still a newcomer's.
        new_puzzle = moved_puzzle(puzzle_before, glicko_puzzle, puzzle_share(player, established_attempts))
        player.rating, player.deviation, player.volatility = (
            new_player.rating, new_player.deviation, new_player.volatility)
        puzzle_rating.rating, puzzle_rating.deviation, puzzle_rating.volatility = (
            new_puzzle.rating, new_puzzle.deviation, new_puzzle.volatility)
        puzzle_rating.attempts += 1
        puzzle_rating.solved += int(right)
        attempt.puzzle_rating_after = new_puzzle.rating
        player.rated_attempts = (player.rated_attempts or 0) + 1
        player.streak = player.streak + 1 if right else 0
        player.best_streak = max(player.best_streak, player.streak)
    attempt.rating_after = player.rating
    attempt.deviation_after = player.deviation
    if daily_day is not None:
        _daily_result(db, player, puzzle, right, daily_day, attempt)
    db.add(attempt)
    db.flush()
    return Recorded(attempt, False)


def _locked_puzzle_rating(db: Session, puzzle: Puzzle) -> PuzzleRating:
    locked = (select(PuzzleRating).where(PuzzleRating.puzzle_id == puzzle.id).with_for_update()
              .execution_options(populate_existing=True))
    row = db.scalars(locked).one_or_none()
    if row is not None:  # the usual case: one statement
        return row
    values = {"puzzle_id": puzzle.id, "rating": float(puzzle.rating), "deviation": PUZZLE_START_DEVIATION,
              "volatility": PUZZLE_START_VOLATILITY, "attempts": 0, "solved": 0}
    dialect = postgresql if db.get_bind().dialect.name == "postgresql" else sqlite
    # Another player's first attempt may be making it at this moment: theirs or ours, one row.
    db.execute(dialect.insert(PuzzleRating).values(**values).on_conflict_do_nothing(index_elements=["puzzle_id"]))
    return db.scalars(locked).one()


def _daily_result(db: Session, player: Player, puzzle: Puzzle, right: bool, day: date, attempt: Attempt) -> None:
    """The day's first answer to its daily puzzle is the day's result; a solve extends the daily
    streak when yesterday's was solved too, and starts it again otherwise."""
    if db.get(DailyResult, (player.id, day)) is not None:
        return
    attempt.daily = day
    db.add(DailyResult(player_id=player.id, day=day, puzzle_id=puzzle.id, solved=right))
    if right:
        if player.last_daily_solved == day - timedelta(days=1):
            player.daily_streak += 1
        elif player.last_daily_solved != day:
            player.daily_streak = 1
        player.last_daily_solved = day


def daily_streak(player: Player, today: date) -> int:
    """The daily streak as it stands today: broken once a day passes without the daily solved."""
    if player.last_daily_solved is None or player.last_daily_solved < today - timedelta(days=1):
        return 0
    return player.daily_streak
