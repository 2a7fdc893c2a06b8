"""The trainer: practice near your rating, a given puzzle, answers scored and recorded exactly
once, the daily puzzle, the dashboard, and reports of wrong puzzles.

    GET  /practice                 the next puzzle near the player's rating (rules, kind, theme,
                                   difficulty chosen on the page or in the query, and remembered)
    GET  /puzzles/<id>             a puzzle: rated on the first try, a replay afterwards (unrated)
    POST /puzzles/<id>/answer      the answer: feedback at once; a repeat of the form changes nothing
    POST /puzzles/<id>/report      "this puzzle is wrong": hidden from the reporter at once, from
                                   everyone when enough established players agree (webapp/trust.py)
    GET  /daily                    today's puzzle, the player's result, how many solved it
    GET  /dashboard                rating over time, results by theme, failed puzzles to replay,
                                   games against the computer and their reviews' match rate

The pages only read: a visitor becomes a player row on their first answer or report (or name,
or account), never by looking (``players.visitor``). Answers and reports are limited per player
and per address (``ANSWERS_PER_PLAYER`` and the like, in ``webapp/__init__.py``).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import date
from typing import Any, NoReturn

from flask import Blueprint, abort, current_app, g, redirect, render_template, request, url_for
from flask import session as cookie
from sqlalchemy import ColumnElement, Exists, exists, func, select
from sqlalchemy.orm import Session
from werkzeug.wrappers import Response

from analyzer import PRESETS, TITLES
from puzzles.answers import AnswerError, IncompleteAnswer, Scored, answer_from_dict
from puzzles.answers import score as score_answer
from puzzles.model import KINDS, Puzzle
from webapp.answers import score
from webapp.bank import Bank, bank, today
from webapp.chart import match_rate_chart, rating_chart
from webapp.choose import EASIER, HARDER, choose_puzzle, theme_line, unseen_counts
from webapp.db import Attempt, DailyResult, Game, Player, Report, session, transaction, write_transaction
from webapp.feedback import feedback
from webapp.players import (
    current_player,
    display_name,
    limit_key,
    player_id_in_cookie,
    remember_rules,
    visitor,
)
from webapp.puzzle_parts import position_view
from webapp.puzzle_ratings import puzzle_ratings
from webapp.record import TokenError, daily_streak, issue_token, read_token, record_attempt
from webapp.safety import limited
from webapp.trust import hidden_from, is_hidden, report_weight, withdrawn

blueprint = Blueprint("train", __name__)

DIFFICULTY = {"": 0, "easier": EASIER, "normal": 0, "harder": HARDER}
MAX_REASON = 500  # characters in a report's reason


@contextmanager
def player_transaction() -> Iterator[tuple[Session, Player]]:
    """A page's read transaction and the cookie's player: its row, or for a visitor who has not
    written anything yet a stand-in never stored (``players.visitor``). Only reads: a look at a
    page takes no write lock and adds no row."""
    with transaction() as db:
        yield db, visitor(db)


def _quorum() -> int:
    return int(current_app.config["REPORT_QUORUM"])


def _established_attempts() -> int:
    return int(current_app.config["ESTABLISHED_ATTEMPTS"])


# ---- practice --------------------------------------------------------------------------------------


PRACTICE_KEY = "practice"  # the cookie's remembered kind, theme and difficulty (the rule set is the player's)
CHOSEN = ("kind", "theme", "difficulty")


def _filters(args: Mapping[str, str], player: Player) -> dict[str, str]:
    """The practice filters: each one given in the query string (checked: an unknown value is a
    400), else the one this browser chose last (``PRACTICE_KEY``), else any. An empty value in the
    query is a choice too: any kind, any theme, normal difficulty."""
    remembered = cookie.get(PRACTICE_KEY)
    remembered = remembered if isinstance(remembered, dict) else {}
    rules = args.get("rules", "").strip() or player.rules
    if rules not in PRESETS:
        abort(400, f"there is no rule set {rules[:40]!r}: choose one of {', '.join(PRESETS)}")
    filters = {"rules": rules}
    for name in CHOSEN:
        value = args[name].strip() if name in args else str(remembered.get(name, ""))
        problem = _filter_problem(name, value)
        if problem and name in args:
            abort(400, problem)
        filters[name] = "" if problem else value  # a remembered choice the bank no longer has: any
    return filters


def _filter_problem(name: str, value: str) -> str | None:
    """What is wrong with a practice filter's value, or None when it is one the page offers."""
    if name == "kind" and value and value not in KINDS:
        return f"a puzzle kind is one of {', '.join(KINDS)}, not {value[:40]!r}"
    if name == "theme" and value and value not in bank().themes:
        return f"there is no theme {value[:40]!r}"
    if name == "difficulty" and value not in DIFFICULTY:
        return f"difficulty is easier, normal or harder, not {value[:40]!r}"
    return None


def _remember(filters: Mapping[str, str]) -> None:
    """Keep this browser's kind, theme and difficulty for its next visit to /practice."""
    chosen = {name: filters[name] for name in CHOSEN}
    if cookie.get(PRACTICE_KEY) != chosen:
        cookie[PRACTICE_KEY] = chosen


@blueprint.get("/practice")
def practice() -> Response | tuple[str, int]:
    with player_transaction() as (db, player):
        filters = _filters(request.args, player)
        _remember(filters)
        remember = filters["rules"] != player.rules
        chosen = None if remember else _choose(db, player, filters)
    if remember and player.id is None:  # a visitor: remembered in the cookie, no row made
        remember_rules(filters["rules"])
        with transaction() as db:
            player = visitor(db)
            chosen = _choose(db, player, filters)
    elif remember:
        # The rule set asked for is the one remembered: a write to the row just read, so in a
        # write transaction (on SQLite a read transaction that then writes fails outright when
        # another writer got in between: a 500 under load, found by benchmarks/trainer_load).
        with write_transaction() as db:
            locked = current_player(db, create=False, lock=True)
            assert locked is not None
            locked.rules = filters["rules"]
            chosen = _choose(db, locked, filters)
    if chosen is None:
        with player_transaction() as (db, player):
            left = unseen_counts(bank().by_rules.get(filters["rules"], ()), _attempted(db, player) | hidden_ids(db, player))
        return render_template("train/none_left.html", left=left, **choices(filters)), 200
    query: dict[str, Any] = {name: value for name, value in filters.items() if value and name != "rules"}
    return redirect(url_for("train.puzzle", puzzle_id=chosen.id, **query), code=303)


def _choose(db: Session, player: Player, filters: Mapping[str, str]) -> Puzzle | None:
    return choose_puzzle(
        bank().by_rules.get(filters["rules"], ()), puzzle_ratings().current(db), player.rating,
        rules=filters["rules"],
        kind=filters["kind"] or None, theme=filters["theme"] or None,
        offset=int(DIFFICULTY[filters["difficulty"]]),
        exclude=_attempted(db, player) | hidden_ids(db, player), rng=random.Random(),
    )


def _attempted(db: Session, player: Player) -> set[str]:
    if player.id is None:
        return set()
    return set(db.scalars(select(Attempt.puzzle_id).where(Attempt.player_id == player.id).distinct()))


def hidden_ids(db: Session, player: Player) -> set[str]:
    """Puzzles not served to ``player``: out of service, or reported by them (``webapp.trust``).
    Read on every request, never kept: a report hides its puzzle the moment it commits, in
    every process (a kept copy would need a query to check it anyway)."""
    return hidden_from(db, player, _quorum(), _daily_id(today()))


def choices(filters: Mapping[str, str]) -> dict[str, Any]:
    """The practice form: what may be chosen, each with its name for people, and what is chosen."""
    return {
        "filters": filters,
        "rule_sets": [(name, TITLES[name][0]) for name in PRESETS],
        "kinds": [("", "any kind"), *((kind, kind) for kind in KINDS)],
        "themes": [("", "any theme", "")] + [(theme, theme, theme_line(theme)) for theme in bank().themes],
        "difficulties": [("easier", "easier (-300)"), ("", "normal"), ("harder", "harder (+300)")],
    }


# ---- one puzzle -------------------------------------------------------------------------------------


def _served(db: Session, puzzle_id: str, player: Player) -> tuple[Puzzle, bool]:
    """The puzzle to show (a 404 when there is none or it is blocked) and whether the player has
    tried it before, in one statement."""
    puzzle = bank().by_id.get(puzzle_id)
    if puzzle is None:
        _no_such_puzzle(404, puzzle_id)
    blocked, tried = db.execute(select(_hidden(puzzle_id, player), _tried(player, puzzle_id))).one()
    if blocked:
        abort(404, "this puzzle was reported as wrong and is waiting for review")
    return puzzle, bool(tried)


def _no_such_puzzle(code: int, puzzle_id: str, purpose: str = "") -> NoReturn:
    """Refuse a puzzle the bank does not serve, saying when it was one and has been retired."""
    if puzzle_id in bank().retired:
        abort(code, f"puzzle {puzzle_id[:20]!r} was retired: a newer analyser no longer finds its answer clear")
    abort(code, f"there is no puzzle {puzzle_id[:20]!r}{purpose}")


def _hidden(puzzle_id: str, player: Player) -> ColumnElement[bool]:
    """Whether a puzzle is hidden from ``player`` now: asked on every request, see ``hidden_ids``."""
    return is_hidden(puzzle_id, player, _quorum(), _daily_id(today()))


def _tried(player: Player, puzzle_id: str) -> Exists:
    return exists().where(Attempt.player_id == player.id, Attempt.puzzle_id == puzzle_id)


@blueprint.get("/puzzles/<puzzle_id>")
def puzzle(puzzle_id: str) -> tuple[str, int]:
    with player_transaction() as (db, player):
        puzzle, tried = _served(db, puzzle_id, player)
        context = _puzzle_context(db, player, puzzle, tried=tried)
    return render_template("train/puzzle.html", **context), 200


def _puzzle_context(db: Session, player: Player, puzzle: Puzzle, errors: str | None = None, *,
                    tried: bool | None = None) -> dict[str, Any]:
    """What a puzzle's page shows the player; ``tried``: whether they have answered it before
    (asked here when not known)."""
    if tried is None:
        tried = bool(db.scalar(select(_tried(player, puzzle.id))))
    day = today()
    return {
        "player": player,
        "puzzle": puzzle,
        "view": position_view(puzzle),
        "replay": tried,
        "daily": _daily_id(day) == puzzle.id,
        "day": day,
        "token": issue_token(player.public_id, puzzle.id),
        "next_query": _next_query(request.values),
        "error": errors,
        "values": request.form if request.method == "POST" else {},
        **choices(_filters(request.values, player) if request.method == "GET" else
                  {"rules": player.rules, "kind": "", "theme": "", "difficulty": "",
                   **_next_query(request.values)}),
    }


def _next_query(values: Mapping[str, str]) -> dict[str, str]:
    """The practice filters a puzzle page carries along to its "next puzzle" link."""
    return {name: values[name] for name in ("kind", "theme", "difficulty") if values.get(name)}


def _written(response: Response) -> bool:
    """An answer or report that reached the database (recorded, or a repeat read back)."""
    return bool(g.get("trainer_wrote"))


@blueprint.post("/puzzles/<puzzle_id>/answer")
@limited("ANSWERS_PER_ADDRESS", "answers from your address", deduct_when=_written)
@limited("ANSWERS_PER_PLAYER", "answers from this browser", key_func=limit_key, deduct_when=_written)
def answer(puzzle_id: str) -> tuple[str, int]:
    puzzle = bank().by_id.get(puzzle_id)
    if puzzle is None:
        _no_such_puzzle(400, puzzle_id, " to answer")
    try:
        scored = score(puzzle, request.form)
    except AnswerError as error:
        return _refused(puzzle, error)
    day = today()
    daily_day = day if _daily_id(day) == puzzle.id else None
    # The token is checked before any write: a forged form makes no row. The cookie's id is the
    # row's (a first answer makes the row with the id its form was issued to).
    token = _check_token(player_id_in_cookie(), puzzle.id)
    with write_transaction() as db:
        player = current_player(db, lock=True)
        assert player is not None
        if db.scalar(select(_hidden(puzzle.id, player))):
            abort(400, "this puzzle was reported as wrong and is waiting for review")
        recorded = record_attempt(db, player, puzzle, token, scored.answer.to_dict(), scored.right,
                                  daily_day=daily_day, established_attempts=_established_attempts())
        solved_today = _solved_count(db, day) if daily_day else None
        g.trainer_wrote = True
    # Committed: the page is drawn from what was recorded, after the write lock is let go.
    attempt = recorded.attempt
    if not recorded.repeat and attempt.puzzle_rating_after is not None:
        puzzle_ratings().rated(puzzle.id, attempt.puzzle_rating_after)
    if recorded.repeat:  # the first submission's answer is the one shown
        scored = score_stored(puzzle, attempt) or dataclasses.replace(scored, right=attempt.right)
    context = {
        "player": player, "puzzle": puzzle, "view": position_view(puzzle), "scored": scored,
        "attempt": attempt, "repeat": recorded.repeat, "daily": daily_day is not None, "day": day,
        "daily_streak": daily_streak(player, day), "solved_today": solved_today,
        "next_query": _next_query(request.form), "feedback": feedback(puzzle, scored),
    }
    return render_template("train/result.html", **context), 200


def _check_token(public_id: str | None, puzzle_id: str) -> str:
    """The answer form's one-time token, when it was issued to ``public_id`` for this puzzle."""
    if public_id is None:
        abort(400, "answer a puzzle from its page: this browser has no player yet (are cookies on?)")
    try:
        return read_token(request.form.get("token", ""), public_id, puzzle_id)
    except TokenError as error:
        abort(400, str(error))


def score_stored(puzzle: Puzzle, attempt: Attempt) -> Scored | None:
    """The stored answer scored again from its value (a repeated submission shows what was
    recorded); None when it cannot be read as an answer to this puzzle."""
    try:
        return score_answer(puzzle, answer_from_dict(puzzle, attempt.answer or {}))
    except AnswerError:
        return None


def _refused(puzzle: Puzzle, error: AnswerError) -> tuple[str, int]:
    """A submission that is not an answer: the puzzle again with the message, 400, nothing
    recorded; a lay-down not yet a play has each problem beside its row, the form as it was."""
    db = session()
    player = visitor(db)
    if isinstance(error, IncompleteAnswer):
        message = "Not recorded, and your rating is unchanged: this lay-down is not complete yet. Fix what is marked below and lay down again."
    else:
        message = str(error)
    context = _puzzle_context(db, player, puzzle, errors=message)
    if isinstance(error, IncompleteAnswer):
        context["row_problems"] = error.rows
        context["discard_problem"] = error.discard
    db.rollback()
    return render_template("train/puzzle.html", **context), 400


def _daily_id(day: date) -> str | None:
    puzzle = bank().daily(day)
    return None if puzzle is None else puzzle.id


def _solved_count(db: Session, day: date) -> int:
    return db.scalar(select(func.count()).select_from(DailyResult).where(
        DailyResult.day == day, DailyResult.solved.is_(True))) or 0


@blueprint.post("/puzzles/<puzzle_id>/report")
@limited("REPORTS_PER_ADDRESS", "reports from your address", deduct_when=_written)
@limited("REPORTS_PER_PLAYER", "reports from this browser", key_func=limit_key, deduct_when=_written)
def report(puzzle_id: str) -> tuple[str, int]:
    """A report: hidden from its reporter at once; its weight (``trust.report_weight``) is
    judged now, from the rated attempts the reporter has made so far. A second report of the
    same puzzle by the same player adds nothing."""
    if puzzle_id not in bank().by_id:
        _no_such_puzzle(400, puzzle_id, " to report")
    reason = request.form.get("reason", "").strip()
    if len(reason) > MAX_REASON:
        abort(400, f"say what is wrong in at most {MAX_REASON} characters")
    with write_transaction() as db:  # reads the player, then writes: see practice()
        player = current_player(db, lock=True)
        assert player is not None
        again = db.scalar(select(exists().where(Report.puzzle_id == puzzle_id, Report.player_id == player.id,
                                                Report.state == "open")))
        if not again:
            db.add(Report(puzzle_id=puzzle_id, player_id=player.id, reason=reason,
                          weight=report_weight(player, _established_attempts())))
        g.trainer_wrote = True
    daily = _daily_id(today()) == puzzle_id
    return render_template("train/reported.html", puzzle_id=puzzle_id, daily=daily), 200


# ---- the daily puzzle ----------------------------------------------------------------------------------


@blueprint.get("/daily")
def daily_page() -> tuple[str, int]:
    day = today()
    puzzle = bank().daily(day)
    if puzzle is None:
        abort(404, "there is no daily puzzle for today")
    with player_transaction() as (db, player):
        result = db.get(DailyResult, (player.id, day)) if player.id is not None else None
        set_aside = result is None and bool(db.scalar(select(_hidden(puzzle.id, player))))
        context = (_puzzle_context(db, player, puzzle) if result is None and not set_aside
                   else {"player": player, "puzzle": puzzle})
        context.update({
            "set_aside": set_aside, "withdrawn": set_aside and withdrawn(db, puzzle.id),
            "result": result, "day": day, "solved_today": _solved_count(db, day),
            "daily_streak": daily_streak(player, day),
            "tried_today": db.scalar(select(func.count()).select_from(DailyResult).where(DailyResult.day == day)) or 0,
        })
    return render_template("train/daily.html", **context), 200


# ---- the dashboard --------------------------------------------------------------------------------------


@blueprint.get("/dashboard")
def dashboard() -> tuple[str, int]:
    with player_transaction() as (db, player):
        attempts = [] if player.id is None else list(
            db.scalars(select(Attempt).where(Attempt.player_id == player.id).order_by(Attempt.id)))
        context = {"player": player, "name": display_name(player), **summary(player, attempts, today()),
                   **played(db, player)}
    return render_template("train/dashboard.html", **context), 200


GAMES_SHOWN = 50  # the dashboard's finished games, newest first


def played(db: Session, player: Player) -> dict[str, Any]:
    """The player's finished games against the computer (newest first, ``GAMES_SHOWN``): date,
    rule set, rounds, their total against the others', the review's match rate once made; and the
    match rate over time as a chart."""
    if player.id is None:
        return {"games": [], "games_chart": None}
    rows = db.execute(
        select(Game.id, Game.created_at, Game.rules, Game.round, Game.whole, Game.seat, Game.totals,
               Game.match_rate, Game.hints)
        .where(Game.player_id == player.id, Game.finished.is_(True))
        .order_by(Game.created_at.desc(), Game.id).limit(GAMES_SHOWN)).all()
    games = []
    for row in rows:
        totals = list(row.totals or [])
        mine = totals[row.seat] if totals else None
        others = [total for seat, total in enumerate(totals) if seat != row.seat]
        games.append({
            "id": row.id, "date": row.created_at, "rules": TITLES.get(row.rules, (row.rules,))[0],
            "rounds": f"1-{row.round}" if row.whole else str(row.round), "whole": row.whole,
            "mine": mine, "others": others, "won": mine is not None and all(mine <= other for other in others),
            "match_rate": row.match_rate, "hints": row.hints,
        })
    reviewed = [(game["date"], game["match_rate"]) for game in reversed(games) if game["match_rate"] is not None]
    return {"games": games, "games_chart": match_rate_chart(reviewed) if reviewed else None}


def summary(player: Player, attempts: list[Attempt], day: date) -> dict[str, Any]:
    """The dashboard's figures from a player's attempts (oldest first)."""
    served = bank()
    rated = [attempt for attempt in attempts if attempt.rated]
    line = rating_line(player, attempts)
    history = [(attempt.created_at, attempt.rating_after, attempt.deviation_after)
               for attempt in rated if attempt.id in line]
    rows = _theme_rows(rated, served)
    ranked = [row for row in rows if row["tried"] >= 2] or rows
    failed = _to_try_again(attempts, rated, served)
    return {
        "chart": rating_chart([(when, rating, deviation) for when, rating, deviation in history]) if history else None,
        "themes": rows,
        "weakest": ranked[0]["theme"] if ranked else None,
        "strongest": ranked[-1]["theme"] if len(ranked) > 1 else None,
        "failed": failed,
        "rated_count": len(rated),
        "right_count": sum(attempt.right for attempt in rated),
        "replays": len(attempts) - len(rated),
        "daily_streak": daily_streak(player, day),
        "recent": [(attempt, served.known(attempt.puzzle_id), attempt.id in line)
                   for attempt in reversed(attempts[-10:])],
        "adopted": sum(attempt.id not in line for attempt in rated),
        "missed_any": any(not attempt.right for attempt in rated),
        "practisable": set(served.themes),
    }


def _theme_rows(rated: list[Attempt], served: Bank) -> list[dict[str, Any]]:
    """Right and tried per theme of the rated attempts, weakest first."""
    themes: dict[str, list[int]] = {}
    for attempt in rated:
        puzzle = served.known(attempt.puzzle_id)
        for theme in puzzle.themes if puzzle else ():
            counts = themes.setdefault(theme, [0, 0])
            counts[0] += int(attempt.right)
            counts[1] += 1
    return sorted(
        ({"theme": theme, "right": right, "tried": tried, "share": right / tried}
         for theme, (right, tried) in themes.items()),
        key=lambda row: (row["share"], -row["tried"], row["theme"]))


def _to_try_again(attempts: list[Attempt], rated: list[Attempt], served: Bank) -> list[Puzzle]:
    """The puzzles missed and not solved since, still in service (retired ones are not)."""
    solved = {attempt.puzzle_id for attempt in attempts if attempt.right}
    return [served.by_id[attempt.puzzle_id] for attempt in rated
            if not attempt.right and attempt.puzzle_id not in solved and attempt.puzzle_id in served.by_id]


def rating_line(player: Player, attempts: list[Attempt]) -> set[int]:
    """The ids of the attempts (oldest first) that made the player's rating: followed back from
    it, each attempt's rating before is the one after the attempt before it. Attempts another
    browser made before logging in adopted them carry that browser's ratings, not this line's
    (the account keeps its own rating: ``players.adopt``), so they are left out of the chart."""
    line: set[int] = set()
    rating = player.rating
    for attempt in reversed(attempts):
        if attempt.rating_after == rating:
            line.add(attempt.id)
            rating = attempt.rating_before
    return line

