"""The home page: what this is, and the ways in: analysing a hand, practising, the daily puzzle;
and the rule sets, each in full (``analyze --list-rules``)."""

from __future__ import annotations

from flask import Blueprint, render_template

from analyzer import PRESETS, TITLES
from analyzer.render import render_rule_set, rules_title

blueprint = Blueprint("home", __name__)


@blueprint.get("/")
def index() -> str:
    return render_template("home.html", rule_sets=[(name, *TITLES[name]) for name in PRESETS])


@blueprint.get("/rules")
def rules() -> str:
    """Every rule set as ``analyze --list-rules`` prints it, one section each (``/rules#shanghai``)."""
    return render_template("rules.html", rule_sets=[
        (name, TITLES[name][0], TITLES[name][1], render_rule_set(rules, rules_title(name)))
        for name, rules in PRESETS.items()])
