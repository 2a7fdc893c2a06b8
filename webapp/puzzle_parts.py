"""What a puzzle's pages show of the puzzle itself, worked out and drawn once per process.

A puzzle in the bank never changes: its position, its answer form's cards and its solution are
the same for every player on every visit. Only the player's parts differ (the CSRF and one-time
tokens, the replay and daily badges, what a refused form had filled in). So ``position_view``
and the HTML of those parts (``puzzle_part``) are kept, keyed by the bank and the puzzle's id:
a puzzle page or an answer draws its hundred-odd cards once, not on every request. The most
recently used are kept (``PARTS_KEPT``): drawing a part costs about 0.15 ms, and the whole
bank's parts would take some 45 MB a process.

The kept HTML is what the template gives with only the puzzle in its context, so a template
given here must read nothing of the request or the player (the page's own template renders
those parts around it).
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any
from urllib.parse import urlencode

from flask import render_template, request, url_for
from markupsafe import Markup

from analyzer import ContractMode, lay_off_notes, preset
from puzzles.model import Kind, Puzzle
from webapp.answers import contract_rows
from webapp.bank import bank

KIND_QUESTIONS = {Kind.LAY_DOWN: "Can you lay down?", Kind.DISCARD: "Which discard?", Kind.BUY: "Should you buy?"}

VIEWS_KEPT = 2048  # position views (small dicts)
PARTS_KEPT = 1536  # pieces of HTML: about three a puzzle, 5 KB each


def position_view(puzzle: Puzzle) -> dict[str, Any]:
    """What the page shows of the position besides the hand: shared by every request for this
    puzzle, so never changed by a caller."""
    return _kept_view(id(bank()), puzzle.id, request.script_root)


@functools.lru_cache(maxsize=VIEWS_KEPT)
def _kept_view(bank_id: int, puzzle_id: str, script_root: str) -> dict[str, Any]:
    # Keyed by the bank (apps in one process, as in tests, may serve different banks whose
    # puzzles share ids; a bank is kept for the process's life, so its id is never reused)
    # and the app's root, which analysis_url's address starts with.
    return _position_view(bank().by_id[puzzle_id])


def _position_view(puzzle: Puzzle) -> dict[str, Any]:
    rules = preset(puzzle.rules)
    rule = rules.round(puzzle.round)
    table = [{"seat": seat, "melds": [meld.to_dict() for meld in melds], "mine": seat == puzzle.seat}
             for seat, melds in enumerate(puzzle.table) if melds]
    return {
        "question": KIND_QUESTIONS[puzzle.kind],
        "contract": rule.describe_contract(),
        "rows": contract_rows(puzzle),
        "sizes": [spec.size for spec in rule.contract],
        "kinds": list(dict.fromkeys(spec.kind.value for spec in rule.contract)),  # "make a set", "make a run"
        # a row holds exactly its meld's size (the builder then takes no more), else at least it
        "exact": rules.contract_mode == ContractMode.EXACT and not rule.go_out,
        "rounds": len(rules.rounds),
        "go_out": rule.go_out,
        "hand": [card.token for card in puzzle.hand],
        "wild": sorted({card.token for card in puzzle.hand if rules.is_wild(card)}),  # the builder asks what they stand for
        "discard_pile": [card.token for card in puzzle.discard_pile],
        "top_discard": puzzle.discard_pile[-1].token if puzzle.discard_pile else None,
        "table": table,
        "analysis_url": analysis_url(puzzle),
        "lay_offs": _solution_lay_offs(puzzle),
    }


def _solution_lay_offs(puzzle: Puzzle) -> list[str]:
    """The lay-off notes of a lay-down puzzle's best play, as the command prints them."""
    solution = puzzle.solution
    if puzzle.kind is not Kind.LAY_DOWN or solution is None or solution.cannot:
        return []
    kept = Counter(puzzle.hand) - Counter(card for meld in solution.melds for card in meld.cards)
    if solution.discard is not None:
        kept[solution.discard] -= 1
    return lay_off_notes(list(kept.elements()), solution.melds, preset(puzzle.rules))


def analysis_url(puzzle: Puzzle) -> str:
    """The analysis page with this puzzle's position: the solver's full answer, to explore."""
    return url_for("analysis.page") + "?" + urlencode(analysis_fields(puzzle))


def analysis_fields(puzzle: Puzzle) -> dict[str, str]:
    """The analysis page's fields that ask the puzzle's question (``webapp.questions.read_query``)."""
    fields = {"hand": " ".join(card.token for card in puzzle.hand), "rules": puzzle.rules,
              "round": str(puzzle.round), "players": str(puzzle.players), "moment": puzzle.moment.value}
    if puzzle.seen:
        fields["seen"] = " ".join(card.token for card in puzzle.seen)
    if puzzle.kind is Kind.BUY and puzzle.offered is not None:
        # The same question as the puzzle's: the verdict depends on how far into the round it is.
        fields.update(buy=puzzle.offered.token, turn=str(puzzle.turn), buys_used=str(puzzle.buys_used))
    if puzzle.kind is Kind.DISCARD:
        fields["discards"] = "on"
    return fields


def puzzle_part(template: str, puzzle: Puzzle) -> Markup:
    """``template`` drawn for ``puzzle`` alone (its context: ``puzzle``, ``view`` and no form
    ``values``), kept for the next request that shows it."""
    return _kept_part(template, id(bank()), puzzle.id, request.script_root)


@functools.lru_cache(maxsize=PARTS_KEPT)
def _kept_part(template: str, bank_id: int, puzzle_id: str, script_root: str) -> Markup:
    puzzle = bank().by_id[puzzle_id]
    return Markup(render_template(template, puzzle=puzzle, view=position_view(puzzle), values={}))


def init_app(app: Any) -> None:
    app.add_template_global(puzzle_part)
    app.add_template_global(Kind, "Kind")  # templates ask ``puzzle.kind == Kind.BUY``
