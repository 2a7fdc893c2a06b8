"""The analysis page: paste a hand, see the answer drawn as cards, share the link.

The whole question lives in the query string (``/analyze?hand=7C+7D+...&rules=progressive&round=6``),
so an answer can be bookmarked; the form submits by GET and works without JavaScript. With
htmx the answer follows the typing: a request marked ``HX-Request`` gets only the answer and
the fields' messages (swapped out of band), and ``hx-sync`` drops a slower, older answer.
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

from flask import Blueprint, Flask, current_app, render_template, request
from markupsafe import Markup, escape

from analyzer import (
    DISCARD_COLUMNS,
    DOWN_COLUMNS,
    PRESETS,
    Card,
    Question,
    QuestionError,
    Rank,
    Rules,
    Suit,
    lay_off_notes,
    witness_turn_end,
)
from puzzles.model import meld_from_dict
from webapp.pool import answer
from webapp.questions import RULE_SET_NAMES, read_query

blueprint = Blueprint("analysis", __name__)

FORM_FIELDS = ("hand", "rules", "round", "players", "moment", "seen", "buy", "turn", "buys_used", "down", "table",
               "face_up", "discards")
MESSAGE_FIELDS = FORM_FIELDS[:-1]  # the fields with a message beside them (a tick box cannot be wrong)
EXAMPLE = {"hand": "7C 7D 4H 5H 6H 9S 10S JS KD joker 2C QD", "rules": "progressive", "round": "6"}
SUIT_NAMES = {Suit.CLUBS: "clubs", Suit.DIAMONDS: "diamonds", Suit.HEARTS: "hearts", Suit.SPADES: "spades"}
RANK_NAMES = {Rank.ACE: "ace", Rank.JACK: "jack", Rank.QUEEN: "queen", Rank.KING: "king"}


@blueprint.get("/analyze")
def page() -> tuple[str, int] | str:
    asked = any(name in request.args for name in ("hand", "round"))
    values = {name: request.args.get(name, "") for name in FORM_FIELDS}
    if not asked:
        values["discards"] = "on"  # the empty form: the discard table is wanted unless unticked
        return _render(values, {}, None, None, 200)
    try:
        question = read_query(request.args)
        answered = answer(question)
    except QuestionError as error:
        return _render(values, error.fields, None, None, 400)
    return _render(values, {}, question, answered, 200)


def _render(values: dict[str, str], errors: dict[str, str], question: Question | None,
            answered: dict[str, Any] | None, status: int) -> tuple[str, int]:
    live = bool(request.headers.get("HX-Request"))
    template = "analysis/live.html" if live else "analysis/page.html"
    context = {
        "live": live,
        "values": values,
        "errors": errors,
        "question": question,
        "answer": answered,
        "view": _view(question, answered) if question and answered else None,
        "rule_sets": RULE_SET_NAMES,
        "fields": MESSAGE_FIELDS,
        "example": EXAMPLE,
    }
    return render_template(template, **context), status


def _view(question: Question, answered: dict[str, Any]) -> dict[str, Any]:
    """What the templates show beyond the answer's own fields: the contract in words, the cards
    kept after the discard, what "unseen" counted, the link that shares the question."""
    if question.down is not None:
        return _down_view(question, answered)
    rules = question.rules
    kept = Counter(answered["leftover"])
    if answered.get("discard"):
        kept[answered["discard"]] -= 1
    discards = answered.get("discards") or []
    return {
        **_context(question, answered),
        "witness_end": _witness_end(answered, rules),
        "lay_offs": _lay_offs(answered, kept, rules),
        "kept": sorted(kept.elements(), key=lambda token: Card.parse(token).sort_key()),
        "best_discards": [row["card"] for row in discards if row["rank"] == 1],
        "tied_ranks": {row["rank"] for row in discards if row["equal_to_previous"]},
    }


def _down_view(question: Question, answered: dict[str, Any]) -> dict[str, Any]:
    """The same for the advice once the contract is down (``advise_down``'s answer)."""
    rows = answered["discards"]
    return {**_context(question, answered), "down": True,
            "tied_ranks": {row["rank"] for row in rows if row["equal_to_previous"]}}


def _context(question: Question, answered: dict[str, Any]) -> dict[str, Any]:
    """What every answer shows: the round's contract and deal, the deck counted, the link."""
    rules = question.rules
    rule = rules.round(question.round)
    deck = rules.deck_for(question.players)
    return {
        "contract": rule.describe_contract(),
        "deal": rule.deal,
        "rounds": len(rules.rounds),
        "deck": f"{deck.decks} deck{'s' * (deck.decks != 1)} + {deck.jokers} joker{'s' * (deck.jokers != 1)}",
        "for_players": question.players,
        "query": {name: "on" if value is True else str(value) for name, value in question.to_json().items()
                  if name in FORM_FIELDS},
    }


def _witness_end(answered: dict[str, Any], rules: Rules) -> dict[str, Any] | None:
    """After the draw, a hand that cannot lay down yet: the witness's turn (the lay-down with the
    missing cards) ends with a discard and what it keeps. None otherwise."""
    if not (answered["cards_away"] and answered.get("moment") == "after-draw" and not answered["go_out"]):
        return None
    melded = [Card.parse(token) for meld in answered["with_missing"] for token in meld["cards"]]
    discard, held = witness_turn_end(map(Card.parse, answered["hand"]), map(Card.parse, answered["missing"]),
                                     melded, rules)
    return {"discard": None if discard is None else discard.token, "kept": [c.token for c in held],
            "points": sum(map(rules.points_of, held))}


def _lay_offs(answered: dict[str, Any], kept: Counter[str], rules: Rules) -> list[str]:
    """A lay-down this turn that keeps cards: which of them a later turn can lay off."""
    if not (answered["can_lay_down"] and answered.get("moment") == "after-draw" and answered.get("discard")
            and not answered["goes_out"]):
        return []
    return lay_off_notes([Card.parse(token) for token in kept.elements()],
                         [meld_from_dict(meld) for meld in answered["melds"]], rules)


# ---- drawing cards -----------------------------------------------------------------------------
# Cards are drawn by these cached helpers rather than Jinja macros: an answer page draws a
# hundred cards or more, and 53 distinct cards make a small cache (benchmarks/web.py).


@functools.cache
def card_view(token: str) -> dict[str, str]:
    """How a card token is drawn: its rank and suit symbol, the colour class, words for screen readers."""
    card = Card.parse(token)
    if card.rank is None or card.suit is None:
        return {"token": "JK", "rank": "Joker", "symbol": "", "suit": "joker", "face": "Joker", "words": "joker"}
    rank_words = RANK_NAMES.get(card.rank, card.rank.token)
    return {"token": card.token, "rank": card.rank.token, "symbol": card.suit.symbol,
            "suit": SUIT_NAMES[card.suit], "face": card.face, "words": f"{rank_words} of {SUIT_NAMES[card.suit]}"}


@functools.lru_cache(maxsize=4096)
def card_html(token: str, stands_for: str | None = None) -> Markup:
    """One card as HTML: rank and suit symbol in the suit's colour (the text copies as ``7♥``);
    a wild card with the card it stands for beside it (``Joker =3♥``)."""
    c = card_view(token)
    label = ""
    if stands_for and stands_for != token:
        m = card_view(stands_for)
        label = (f'<span class="stands-for {m["suit"]}" title="stands for the {escape(m["words"])}">'
                 f'={escape(m["rank"])}{m["symbol"]}</span>')
    return Markup(f'<span class="card {c["suit"]}" data-card="{escape(c["token"])}" title="{escape(c["words"])}">'
                  f'<span class="rank">{escape(c["rank"])}</span><span class="symbol">{c["symbol"]}</span>'
                  f'{label}</span>')


def picker_rows() -> list[list[str]]:
    """The card picker's grid: a row per suit, ace to king, and the joker."""
    suits = sorted(Suit, key=lambda suit: suit.index)
    return [[Card(rank, suit).token for rank in Rank if rank <= Rank.KING] for suit in suits] + [["JK"]]


def picker_html() -> Markup:
    """The card picker, the same on every page: drawn once per app."""
    if "picker" not in current_app.extensions:
        current_app.extensions["picker"] = Markup(render_template("analysis/_picker.html"))
    picker: Markup = current_app.extensions["picker"]
    return picker


def init_app(app: Flask) -> None:
    app.add_template_global(card_view)
    app.add_template_global(card_html)
    app.add_template_global(picker_rows)
    app.add_template_global(picker_html)
    app.jinja_env.globals["discard_columns"] = DISCARD_COLUMNS  # the command's words for the columns
    app.jinja_env.globals["down_columns"] = DOWN_COLUMNS
    app.add_template_global(lambda name: len(PRESETS[name].rounds), "rounds_of")
