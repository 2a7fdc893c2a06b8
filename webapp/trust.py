"""How far the trainer trusts a player: whether their answers move a puzzle's rating (which
decides everyone's next puzzle) and whether their reports take a puzzle out of service.

Each decision is one small predicate with its constants in sight (docs/trainer.md, "Trust"):

- **Established**: a player with at least ``ESTABLISHED_ATTEMPTS`` rated attempts (the setting
  of that name, 10 by default), or an account with at least one.
- **A puzzle's rating** moves on a player's first try only (``record.record_attempt``), and then
  by a share of what Glicko-2 says: nothing for a player who is both anonymous and not
  established (so throwaway players move no puzzle), half while the player's deviation is above
  ``PROVISIONAL_DEVIATION`` (their rating is still a guess), all of it otherwise; and never by
  more than ``PUZZLE_MAX_CHANGE`` points an attempt.
- **Reports**: every report hides its puzzle from its reporter at once. Only an established
  player's report has weight 1; a puzzle leaves service for everyone when ``REPORT_QUORUM``
  distinct players' open reports have weight (``out_of_service``), never today's daily (it waits
  for a maintainer), and whenever a maintainer blocks it.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, Select, and_, distinct, exists, false, func, or_, select, union
from sqlalchemy.orm import Session

from webapp.db import Player, Report
from webapp.glicko2 import Rating

ESTABLISHED_ATTEMPTS = 10  # rated attempts; the default of the setting of that name
REPORT_QUORUM = 3  # established players agreeing; the default of the setting REPORT_QUORUM
# Lichess calls a rating provisional above a deviation of 110; a newcomer starts at 350.
PROVISIONAL_DEVIATION = 110.0
PROVISIONAL_SHARE = 0.5
PUZZLE_MAX_CHANGE = 30.0  # rating points one attempt may move a puzzle, at most
HIDING_STATES = ("open", "blocked")  # a reporter's own report hides the puzzle from them in these


def established(player: Player, min_attempts: int = ESTABLISHED_ATTEMPTS) -> bool:
    """Whether ``player`` has played enough to be trusted with other players' puzzles."""
    rated = player.rated_attempts or 0
    return rated >= min_attempts or (player.username is not None and rated >= 1)


def puzzle_share(player: Player, min_attempts: int = ESTABLISHED_ATTEMPTS) -> float:
    """The share of Glicko-2's change to a puzzle's rating that ``player``'s first try makes."""
    if player.username is None and not established(player, min_attempts):
        return 0.0
    if player.deviation > PROVISIONAL_DEVIATION:
        return PROVISIONAL_SHARE
    return 1.0


def moved_puzzle(before: Rating, glicko: Rating, share: float) -> Rating:
    """The puzzle's rating after an attempt: ``share`` of the way from ``before`` to what
    Glicko-2 gave (``glicko``), the rating's step capped at ``PUZZLE_MAX_CHANGE``."""
    step = max(-PUZZLE_MAX_CHANGE, min(PUZZLE_MAX_CHANGE, share * (glicko.rating - before.rating)))
    return Rating(before.rating + step,
                  before.deviation + share * (glicko.deviation - before.deviation),
                  before.volatility + share * (glicko.volatility - before.volatility))


def report_weight(player: Player, min_attempts: int = ESTABLISHED_ATTEMPTS) -> int:
    """What a report by ``player`` counts towards taking its puzzle out of service."""
    return 1 if established(player, min_attempts) else 0


# ---- which puzzles are not served ---------------------------------------------------------------------


def _agreed(quorum: int, today_daily: str | None) -> Select[str]:
    """Puzzles enough established players have reported (open reports), today's daily excepted."""
    query = (select(Report.puzzle_id).where(Report.state == "open", Report.weight > 0)
             .group_by(Report.puzzle_id).having(func.count(distinct(Report.player_id)) >= quorum))
    if today_daily is not None:
        query = query.where(Report.puzzle_id != today_daily)
    return query


def out_of_service(db: Session, quorum: int, today_daily: str | None) -> set[str]:
    """Every puzzle served to nobody: blocked by a maintainer, or reported by a quorum."""
    blocked = select(Report.puzzle_id).where(Report.state == "blocked")
    return set(db.scalars(union(blocked, _agreed(quorum, today_daily))))


def hidden_from(db: Session, player: Player, quorum: int, today_daily: str | None) -> set[str]:
    """The puzzles not served to ``player``: those out of service and those they reported."""
    hidden = out_of_service(db, quorum, today_daily)
    if player.id is not None:
        hidden |= set(db.scalars(select(Report.puzzle_id).where(
            Report.player_id == player.id, Report.state.in_(HIDING_STATES))))
    return hidden


def is_hidden(puzzle_id: str, player: Player, quorum: int, today_daily: str | None) -> ColumnElement[bool]:
    """``hidden_from`` for one puzzle, as an expression to ask in the page's one statement."""
    blocked = exists().where(Report.puzzle_id == puzzle_id, Report.state == "blocked")
    agreed = (exists(_agreed(quorum, today_daily).where(Report.puzzle_id == puzzle_id))
              if puzzle_id != today_daily else false())
    mine = (exists().where(and_(Report.puzzle_id == puzzle_id, Report.player_id == player.id,
                                Report.state.in_(HIDING_STATES)))
            if player.id is not None else false())
    return or_(blocked, agreed, mine)


def withdrawn(db: Session, puzzle_id: str) -> bool:
    """Whether a maintainer has blocked ``puzzle_id`` (today's daily leaves service only so)."""
    return bool(db.scalar(select(exists().where(Report.puzzle_id == puzzle_id, Report.state == "blocked"))))

