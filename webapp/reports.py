"""Reported puzzles, for maintainers: ``flask --app webapp reports list | block ID | clear ID``.

A puzzle with an open report is not served; ``block`` keeps it out for good (the puzzle is wrong:
fix or drop it in the bank), ``clear`` serves it again (the puzzle is right). Both mark every
report of the puzzle with the verdict; a later report opens it again. The list and the states live in the web app's database, so the
``puzzles`` package stays free of it.
"""

from __future__ import annotations

from datetime import datetime, timezone

import click
from flask import Flask
from flask.cli import AppGroup
from sqlalchemy import select, update

from webapp.db import Report, session, transaction

reports_command = AppGroup("reports", help="List reported puzzles and block or clear them.")


@reports_command.command("list")
@click.option("--all", "show_all", is_flag=True, help="Reviewed reports too, not only the open and blocked ones.")
def list_reports(show_all: bool) -> None:
    """The reported puzzles, oldest report first: state, puzzle id, when, reason."""
    query = select(Report).order_by(Report.id)
    if not show_all:
        query = query.where(Report.state.in_(("open", "blocked")))
    rows = session().scalars(query).all()
    if not rows:
        click.echo("No reports.")
    for report in rows:
        reason = report.reason or "(no reason given)"
        click.echo(f"{report.state:8} {report.puzzle_id}  {report.created_at:%Y-%m-%d %H:%M}  {reason}")


def _review(puzzle_id: str, state: str) -> None:
    with transaction() as db:
        found = db.scalars(select(Report.id).where(Report.puzzle_id == puzzle_id)).first()
        if found is None:
            raise click.UsageError(f"no report of puzzle {puzzle_id!r}")
        db.execute(update(Report).where(Report.puzzle_id == puzzle_id)
                   .values(state=state, reviewed_at=datetime.now(timezone.utc)))
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
