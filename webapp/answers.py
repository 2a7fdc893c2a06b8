"""A submitted answer read from the puzzle page's form into the typed answer ``puzzles.answers``
scores.

The forms (which work without JavaScript; the page's script only fills them in):

- ``discard``: ``card`` is the token of the card thrown;
- ``buy``: ``choice`` is ``buy`` or ``pass``;
- ``lay-down``: ``cannot`` (any value) says it cannot be done; otherwise ``meld-0``, ``meld-1``, ...
  hold one meld of the contract each, in the contract's order, as card tokens in table order
  (``4H 5H JK 7H``, ``JK=3H`` for a wild card and what it stands for), and ``discard`` the card
  thrown (empty: none, going out by melding all).

Input that is not an answer (a meld row for a meld the contract does not have, an all-empty
lay-down, and what ``puzzles.answers.check_held`` refuses) raises ``AnswerError``; a lay-down that
is not yet a play (a token that is not a card, and what ``puzzles.answers.check_complete``
finds: a row short or over its size, an empty meld, a card used twice, no discard where one is
needed) raises ``IncompleteAnswer``, with a message per row. Either way the route answers 400
with the form again and records nothing: a slip costs no rating.
"""

from __future__ import annotations

from collections.abc import Mapping

from analyzer import preset
from puzzles.answers import (
    Answer,
    AnswerError,
    BuyChoice,
    DiscardChoice,
    IncompleteAnswer,
    Scored,
    Written,
    WrittenPlay,
    check_complete,
    read_card,
    read_written,
)
from puzzles.answers import score as score_answer
from puzzles.model import BUY, PASS, Kind, Puzzle

__all__ = ["AnswerError", "IncompleteAnswer", "Scored", "contract_rows", "read_form", "score"]

MAX_FIELD = 200  # characters in one meld row: 20 cards with room to spare


def score(puzzle: Puzzle, form: Mapping[str, str]) -> Scored:
    """Read ``form`` as an answer to ``puzzle`` and score it; ``AnswerError`` when it is not one,
    ``IncompleteAnswer`` (one) when a lay-down is not yet a play (``check_complete``)."""
    answer = read_form(puzzle, form)
    check_complete(puzzle, answer)
    return score_answer(puzzle, answer)


def read_form(puzzle: Puzzle, form: Mapping[str, str]) -> Answer:
    """The answer the form's fields give for ``puzzle``'s kind."""
    if puzzle.kind is Kind.DISCARD:
        return DiscardChoice(read_card(form.get("card", ""), "the card to discard"))
    if puzzle.kind is Kind.BUY:
        choice = form.get("choice", "").strip().lower()
        if choice not in (BUY, PASS):
            raise AnswerError("answer Buy or Pass")
        return BuyChoice(choice == BUY)
    if form.get("cannot"):
        return WrittenPlay(cannot=True)
    rules = preset(puzzle.rules)
    contract = rules.round(puzzle.round).contract
    names = {f"meld-{index}" for index in range(len(contract))}
    extra = sorted(key for key in form if key.startswith("meld-") and key not in names)
    if extra:
        raise AnswerError(f"the contract has {len(contract)} melds: there is no {extra[0]}")
    rows: list[tuple[Written, ...]] = []
    problems: list[str | None] = []  # a token that is not a card, beside its row
    for index in range(len(contract)):
        text = form.get(f"meld-{index}", "")
        if len(text) > MAX_FIELD:
            raise AnswerError(f"meld {index + 1} is longer than any meld")
        try:
            rows.append(tuple(read_written(token, rules, "this row") for token in text.replace(",", " ").split()))
            problems.append(None)
        except AnswerError as error:
            rows.append(())
            problems.append(str(error).removeprefix("this row: "))
    discard_text = form.get("discard", "").strip()
    try:
        discard = read_card(discard_text, "the discard") if discard_text else None
    except AnswerError as error:
        raise IncompleteAnswer(problems, str(error)) from None
    if any(problems):
        raise IncompleteAnswer(problems)
    return WrittenPlay(tuple(rows), discard)


def contract_rows(puzzle: Puzzle) -> list[str]:
    """The meld rows of a lay-down puzzle's form, one per meld of the contract: ``set of 3``."""
    return [spec.describe() for spec in preset(puzzle.rules).round(puzzle.round).contract]
