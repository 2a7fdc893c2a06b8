"""``analyze --down``: the advice once the contract is down, as text and as JSON, and every
mistake one line ``analyze: ...`` with exit status 2."""

from __future__ import annotations

import json

import pytest

from analyzer import advise_down
from tests.analyzer.test_cli import assert_refused, run, succeeded

OWN = "5S 6S 7S 8S | QH QD QC"


def test_the_text_shows_the_best_play_and_the_discard_table() -> None:
    text = succeeded(run("-", "-r", "2", "--down", OWN, "--table", "KH KD KS", stdin="9S 10S 4D KC"))
    assert "Best play:\n  9♠ on your 5♠ 6♠ 7♠ 8♠\n  10♠ on your 5♠ 6♠ 7♠ 8♠ 9♠\n" in text
    assert "  K♣ on K♥ K♦ K♠ of opponent 1\n  discard 4♦: you go out" in text
    assert "Which card to discard, best first:" in text
    assert "(lays off: " in text and "unseen outs: unseen copies of the cards that would let a kept card" in text


def test_json_is_the_api_answer() -> None:
    out = succeeded(run("-", "-r", "2", "--players", "4", "--down", OWN, "--face-up", "9S", "--json",
                        stdin="10S 4D 2H 9C"))
    expected = advise_down("10S 4D 2H 9C", "progressive", 2, OWN, players=4, face_up="9S").to_dict()
    assert json.loads(out) == expected
    assert expected["face_up"]["take"] is True


def test_the_face_up_card_is_weighed_in_the_text() -> None:
    text = succeeded(run("-", "-r", "2", "--players", "4", "--down", OWN, "--face-up", "KD", stdin="9S 10S 4D"))
    assert "Take the face-up K♦? DRAW from the stock." in text
    assert "If you take the K♦, the best play:" in text


@pytest.mark.parametrize(("args", "words"), [
    (("--down", "5S 6S 7S 8S | QH QD QX"), ("unknown card 'QX'",)),
    (("--down", "5S 6S 8S 9S | QH QD QC"), ("neither a set nor a run",)),
    (("--table", OWN), ("--table goes with --down",)),
    (("--face-up", "9S"), ("--face-up goes with --down",)),
    (("--down", OWN, "--buy", "9H"), ("--buy does not go with --down",)),
    (("--down", OWN, "--before-draw"), ("does not go with --down",)),
    (("--down", ""), ("your contract is not down",)),
    (("--down", "5S 6S 7S 8S | 9D 10D JD QD"), ("not the contract of round 2",)),
    (("--down", OWN, "--table", "QH QD QS", "--players", "4"), ("3 copies of QH",)),
    (("--down", OWN, "--table", "KH KD"), ("of opponent 1 is no meld of the contract of round 2",)),
])
def test_mistakes_are_one_line(args: tuple[str, ...], words: tuple[str, ...]) -> None:
    assert_refused(run("-", "-r", "2", *args, stdin="9S QH"), *words)


def test_a_batch_line_may_be_down() -> None:
    line = {"hand": "9S 10S 4D KC", "round": 2, "down": OWN, "table": "KH KD KS"}
    out = succeeded(run("--batch", "-", stdin=json.dumps(line) + "\n"))
    assert json.loads(out) == advise_down("9S 10S 4D KC", "progressive", 2, OWN, "KH KD KS").to_dict()
