"""The home page: what this is, and the ways in: analysing a hand, practising, the daily puzzle."""

from __future__ import annotations

from flask import Blueprint, render_template

from webapp.questions import RULE_SET_NAMES

blueprint = Blueprint("home", __name__)


@blueprint.get("/")
def index() -> str:
    return render_template("home.html", rule_sets=RULE_SET_NAMES)
