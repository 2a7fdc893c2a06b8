"""Entering a lay-down without JavaScript: a slip (a row short or over its size, an empty meld, a
card used twice or not held, no discard where one is needed) comes back with the problem beside
its row, recorded nowhere and never rated; Enter in a row submits nothing."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.webapp.test_trainer import LAY_DOWN, answer, counts, lay_down_form


def slips() -> list[tuple[str, dict[str, str], str, str]]:
    """(what, the form, the row it is beside, what it says)."""
    form = lay_down_form(LAY_DOWN)
    meld0, meld1 = form["meld-0"].split(), form["meld-1"].split()
    hand = [card.token for card in LAY_DOWN.hand]
    once = next(token for token in meld0 if hand.count(token) == 1)
    absent = next(token for token in ("AS", "KH", "2D", "7C", "QS", "9H") if token not in hand)
    assert LAY_DOWN.solution is not None and LAY_DOWN.solution.discard is not None
    return [
        ("a row short", {**form, "meld-0": " ".join(meld0[:-1])}, "meld-0", "but a"),
        ("a row over its size", {**form, "meld-1": " ".join([*meld1, form["discard"]]), "discard": ""}, "meld-1", "takes exactly"),
        ("an empty meld", {**form, "meld-1": ""}, "meld-1", "empty: put the cards"),
        ("a card used twice", {**form, "meld-1": " ".join([*meld1[:-1], once])}, "meld-1", "already in meld 1"),
        ("a card not in the hand", {**form, "meld-0": " ".join([*meld0[:-1], absent])}, "meld-0", "not in your hand"),
        ("no discard", {**form, "discard": ""}, "discard", "choose the card to discard"),
        ("a discard already melded", {**form, "discard": once}, "discard", "already in meld 1"),
        ("a token that is not a card", {**form, "meld-0": " ".join([*meld0[:-1], "7X"])}, "meld-0", "is not a card"),
    ]


def problem_beside(page: str, row: str) -> str:
    found = re.search(rf'<p class="field-error row-problem" id="error-{row}">([^<]*)</p>', page)
    assert found, row
    return found.group(1).replace("&#39;", "'")


@pytest.mark.parametrize("case", slips(), ids=lambda case: case[0])
def test_a_slip_comes_back_beside_its_row_unrecorded_and_unrated(app: Flask, client: FlaskClient, case: Any) -> None:
    _, form, row, says = case
    client.get(f"/puzzles/{LAY_DOWN.id}")
    response = answer(client, LAY_DOWN, **form)
    assert response.status_code == 400
    assert says in problem_beside(response.text, row)
    assert all(not problem_beside(response.text, other) for other in ("meld-0", "meld-1", "discard") if other != row)
    assert "Not recorded, and your rating is unchanged" in response.text
    assert 'class="badge rated"' in response.text  # still the first try: the next answer is rated
    for name, value in form.items():  # the form as the player left it
        if name.startswith("meld-") and value:
            assert f'value="{value}"' in response.text
    after = counts(app)
    assert after["attempts"] == 0 and after["rated"] == 0 and not after["puzzles"]
    # the whole play, sent next from the refused page's own form, is scored and rated
    token = re.search(r'name="token" value="([^"]+)"', response.text)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', response.text)
    assert token and csrf
    right = answer(client, LAY_DOWN, {"token": token.group(1), "csrf_token": csrf.group(1)}, **lay_down_form(LAY_DOWN))
    assert right.status_code == 200 and "Right!" in right.text
    assert counts(app)["rated"] == 1


def test_a_slip_leaves_the_players_rating_as_it_was(app: Flask, client: FlaskClient) -> None:
    from tests.webapp.test_trainer import DISCARD, wrong_discard  # a player row with a rating first
    answer(client, DISCARD, card=wrong_discard(DISCARD))
    before = counts(app)
    assert len(before["players"]) == 1 and before["rated"] == 1
    response = answer(client, LAY_DOWN, **{**lay_down_form(LAY_DOWN), "discard": ""})
    assert response.status_code == 400
    assert counts(app) == before  # no attempt, the rating and the puzzle's rating unchanged


def test_an_all_empty_lay_down_is_still_refused_at_the_top(app: Flask, client: FlaskClient) -> None:
    response = answer(client, LAY_DOWN, **{"meld-0": "", "meld-1": "", "discard": ""})
    assert response.status_code == 400 and "It can't be done" in response.text.replace("&#39;", "'")
    assert counts(app)["attempts"] == 0


def test_enter_in_a_row_submits_nothing_without_script(client: FlaskClient) -> None:
    """A browser submits a form on Enter in a text box by clicking its default button, the first
    submit button in the form; the lay-down form's is disabled, so Enter does nothing."""
    page = client.get(f"/puzzles/{LAY_DOWN.id}").text
    form = re.search(r'<form class="answer-form.*?</form>', page, re.DOTALL)
    assert form
    buttons = re.findall(r"<button[^>]*>", form.group(0))
    submits = [button for button in buttons if 'type="submit"' in button]
    assert submits and " disabled" in submits[0] and "enter-guard" in submits[0]
    assert form.group(0).index(submits[0]) < form.group(0).index('name="meld-0"')
