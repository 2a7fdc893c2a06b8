"""Reported puzzles, for maintainers: ``flask --app webapp reports list | block ID | clear ID``.

A report hides its puzzle from its reporter at once. The puzzle leaves service for everyone
when ``REPORT_QUORUM`` established players (weight 1: ``webapp.trust``) have open reports of it,
except today's daily, which waits here for a maintainer; ``block`` keeps it out for good (the
puzzle is wrong: fix or drop it in the bank), ``clear`` serves it again (the puzzle is right).
Both mark every report of the puzzle with the verdict; a later report opens it again. The list
and the states live in the web app's database, so the ``puzzles`` package stays free of it.
"""

from __future__ import annotations

from datetime import UTC, datetime

import click
from flask import Flask, current_app
from flask.cli import AppGroup
from sqlalchemy import select, update

from webapp.bank import bank, today
from webapp.db import Player, Report, session, transaction

reports_command = AppGroup("reports", help="List reported puzzles and block or clear them.")


@reports_command.command("list")
@click.option("--all", "show_all", is_flag=True, help="Reviewed reports too, not only the open and blocked ones.")
def list_reports(show_all: bool) -> None:
    """The reported puzzles, each with its verdict so far, then its reports oldest first: state,
    weight (1: an established player's), when, who, reason."""
    query = (select(Report, Player.username, Player.rated_attempts)
             .outerjoin(Player, Player.id == Report.player_id).order_by(Report.puzzle_id, Report.id))
    if not show_all:
        query = query.where(Report.state.in_(("open", "blocked")))
    rows = session().execute(query).all()
    if not rows:
        click.echo("No reports.")
        return
    quorum = int(current_app.config["REPORT_QUORUM"])
    daily = bank().daily(today())
    by_puzzle: dict[str, list[tuple[Report, str | None, int | None]]] = {}
    for row in rows:
        by_puzzle.setdefault(row[0].puzzle_id, []).append((row[0], row[1], row[2]))
    for puzzle_id, reports in by_puzzle.items():
        agreeing = len({report.player_id for report, _, _ in reports if report.state == "open" and report.weight})
        click.echo(f"{puzzle_id}: {_verdict(reports, agreeing, quorum, daily is not None and daily.id == puzzle_id)}")
        for report, username, rated in reports:
            who = (f"account {username}" if username else "anonymous" if report.player_id else "a deleted player")
            who += f", {rated} rated" if rated is not None else ""
            reason = report.reason or "(no reason given)"
            click.echo(f"  {report.state:8} weight {report.weight}  {report.created_at:%Y-%m-%d %H:%M}  "
                       f"({who})  {reason}")


def _verdict(reports: list[tuple[Report, str | None, int | None]], agreeing: int, quorum: int, daily: bool) -> str:
    if any(report.state == "blocked" for report, _, _ in reports):
        return "blocked by a maintainer"
    if not any(report.state == "open" for report, _, _ in reports):
        return "cleared"
    weight = f"{agreeing} of {quorum} established players agree"
    if agreeing >= quorum:
        return f"{weight}: today's daily, still served until reviewed" if daily else f"{weight}: out of service"
    return f"{weight}: still served (hidden from its reporters)"


def _review(puzzle_id: str, state: str) -> None:
    with transaction() as db:
        found = db.scalars(select(Report.id).where(Report.puzzle_id == puzzle_id)).first()
        if found is None:
            raise click.UsageError(f"no report of puzzle {puzzle_id!r}")
        db.execute(update(Report).where(Report.puzzle_id == puzzle_id)
                   .values(state=state, reviewed_at=datetime.now(UTC)))
    click.echo(f"{puzzle_id}: {state}")


@reports_command.command("block")
@click.argument("puzzle_id")
def block(puzzle_id: str) -> None:
    """Keep PUZZLE_ID out of practice and its page for good."""
    _review(puzzle_id, "blocked")


@reports_command.command("clear")
@click.argument("puzzle_id")
def clear(puzzle_id: str) -> None:
    """The puzzle is right: serve PUZZLE_ID again."""
    _review(puzzle_id, "cleared")


def init_app(app: Flask) -> None:
    app.cli.add_command(reports_command)
