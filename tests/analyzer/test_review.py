"""``analyze review``: a hand-made record whose best choices are known by card sense, reviewed
decision by decision; bad files end as one line and exit status 2."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from analyzer import Card, preset, replay
from analyzer.cards import ALL_CARD_KINDS
from analyzer.cli import run
from analyzer.records import card_of, dumps_record
from analyzer.review import review_game

RULES = preset("progressive")  # round 1: two sets of 3 from 6 cards; 3 players: 2 decks and a joker
HANDS = [["5C#1", "5D#1", "5S#1", "9H#1", "9D#1", "KC#1"],  # one card from two sets: any 9 completes them
         ["7C#1", "7D#1", "7S#1", "8C#1", "8D#1", "QH#1"],  # one card away too: any 8
         ["2C#1", "3D#1", "6H#1", "10S#1", "JD#1", "AC#1"]]
FACE_UP = "9S#1"
TOP = ["4H#1", "8S#1"]  # the stock's first two cards


def order(ident: str) -> tuple[tuple[int, int], int]:
    return card_of(ident).sort_key(), int(ident.split("#")[1])


def points(ids: list[str]) -> int:
    return sum(RULES.points_of(card_of(ident)) for ident in ids)


def hand_made() -> dict[str, Any]:
    """Player 1 lets the 9♠ that completes its contract go and draws the 4♥, then keeps the K♣
    and discards the 4♥; player 2 draws the 8♠ it needs, lays down and goes out."""
    dealt = {*(i for hand in HANDS for i in hand), FACE_UP, *TOP}
    every = [f"{card.token}#{n}" for card in ALL_CARD_KINDS for n in range(1, (1 if card.is_joker else 2) + 1)]
    stock = TOP + sorted((i for i in every if i not in dealt), key=order)
    held = [sorted(HANDS[0], key=order), [], sorted(HANDS[2], key=order)]
    events = [
        {"event": "deal", "hands": HANDS, "face_up": FACE_UP, "stock": stock},
        {"event": "draw", "seat": 0, "card": "4H#1"},
        {"event": "discard", "seat": 0, "card": "4H#1"},
        {"event": "draw", "seat": 1, "card": "8S#1"},
        {"event": "lay_down", "seat": 1, "melds": [
            {"kind": "set", "cards": ["7C#1", "7D#1", "7S#1"], "as": ["7C", "7D", "7S"]},
            {"kind": "set", "cards": ["8C#1", "8D#1", "8S#1"], "as": ["8C", "8D", "8S"]}]},
        {"event": "discard", "seat": 1, "card": "QH#1"},
        {"event": "go_out", "seat": 1},
        {"event": "score", "points": [points(h) for h in held], "hands": held},
    ]
    return {"format": "contract-rummy-game", "version": 1, "rules": "progressive",
            "players": [{"seat": s, "name": name} for s, name in enumerate(["you", "bob", "cy"])],
            "rounds": [{"round": 1, "events": events}]}


def test_the_hand_made_record_replays() -> None:
    played = replay(hand_made()).rounds[0]
    assert played.outcome.winner == 1 and played.outcome.penalty_points[0] == points(HANDS[0])


@pytest.fixture(scope="module")
def reviewed() -> Any:
    return review_game(hand_made(), 0)


def test_the_review_finds_each_decision_and_the_known_best_choices(reviewed: Any) -> None:
    decisions = {d.kind: d for d in reviewed.decisions}
    assert [d.kind for d in reviewed.decisions] == ["take or draw", "discard"]
    # The 9♠ on offer completes the set of 9s: taking it is the best choice, and player 1 drew.
    taking = decisions["take or draw"]
    assert (taking.event, taking.offered, taking.chosen, taking.advised, taking.match) == (
        1, Card.parse("9S"), "draw", "take 9♠", False)
    assert taking.cost > 0  # one turn more before laying down, at the risk the others go out then
    # Both cards outside the two near-sets leave the hand one card away with the same outs (the
    # 9s and the joker): the K♣ is the one to let go, as it keeps fewer points.
    discard = decisions["discard"]
    assert (discard.event, discard.chosen, discard.advised, discard.match) == (2, "discard 4♥", "discard K♣", False)
    king, four = RULES.points_of(Card.parse("KC")), RULES.points_of(Card.parse("4H"))
    assert discard.cost == king - four  # the same cards away and outs: only the points kept differ
    assert [c.choice for c in discard.choices[:2]] == ["discard K♣", "discard 4♥"]
    assert reviewed.matches == 0 and reviewed.match_rate == 0
    assert reviewed.total_cost == pytest.approx(taking.cost + discard.cost)
    assert reviewed.costliest[0].cost >= reviewed.costliest[-1].cost


def test_a_seat_that_plays_the_advice_matches() -> None:
    mine = review_game(hand_made(), 1)
    kinds = [d.kind for d in mine.decisions]
    assert kinds == ["buy or pass", "take or draw", "lay down or wait", "discard"]
    by_kind = {d.kind: d for d in mine.decisions}
    # The 4♥ is no 8 and no joker: drawing is the advice; with the 8♠ both sets go down and the Q♥ out.
    assert by_kind["take or draw"].match and by_kind["take or draw"].advised == "draw"
    assert by_kind["lay down or wait"].match and by_kind["discard"].match
    assert by_kind["discard"].advised == "discard Q♥"


def test_the_command_prints_the_review_in_players_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text(dumps_record(hand_made()))
    assert run(["review", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2 decisions, 0 as the advice (0%)" in out and "advice: take 9♠" in out and "Costliest mistakes" in out
    assert run(["review", str(path), "--seat", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["seat"] == 1 and data["summary"]["decisions"] == 4
    assert {"chosen", "advised", "match", "cost", "choices"} <= data["decisions"][0].keys()


def tampered(change: Any) -> dict[str, Any]:
    record = copy.deepcopy(hand_made())
    change(record)
    return record


@pytest.mark.parametrize(("content", "message"), [
    ("{oops", "is not JSON"),
    (json.dumps([1]), "not an object"),
    (json.dumps(tampered(lambda r: r.update(version=9))), "version: this analyser reads version 1"),
    (json.dumps(tampered(lambda r: r["rounds"][0]["events"][2].update(card="KC#2"))),
     "rounds[0].events[2] (player 1 discards K♣ KC#2): player 1 does not hold KC#2: it is in the stock"),
    (json.dumps(tampered(lambda r: r["rounds"][0]["events"][-1]["points"].__setitem__(2, 0))),
     "rounds[0].events[7] (the scores): player 3 scores"),
    (b"\xff\xfe", "is not text"),
])
def test_bad_files_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: Any,
                                        message: str) -> None:
    path = tmp_path / "game.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert run(["review", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("analyze: review: ") and message in captured.err, captured.err


def test_bad_arguments_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(hand_made()))
    for args, message in [([str(tmp_path / "nope.json")], "not found"), ([str(tmp_path)], "is a directory"),
                          ([str(path), "--seat", "5"], "seats 0 to 2, not 5"), ([], "the following arguments")]:
        assert run(["review", *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("analyze: review: ") and message in err, err




def go_out_round(hand: str) -> dict[str, Any]:
    """``pagat``'s last round (three runs of 4 from 12 cards, going out at once): player 1 is dealt
    the first 12 cards of ``hand``, draws the 13th and discards it; player 2, dealt three runs,
    draws the card that makes one a run of 5 and goes out, laying down every card."""
    rules = preset("pagat")
    ids = [f"{token}#1" if token not in hand.split()[:i] else f"{token}#2" for i, token in enumerate(hand.split())]
    runs = [[f"{rank}{suit}#2" for rank in ("9", "10", "J", "Q")] for suit in "SHD"]
    every = [f"{card.token}#{n}" for card in ALL_CARD_KINDS
             for n in range(1, (rules.deck_for(3).jokers if card.is_joker else 2) + 1)]
    rest = sorted((i for i in every if i not in ids and i != "KS#2" and all(i not in run for run in runs)), key=order)
    hands = [ids[:12], [i for run in runs for i in run], rest[:12]]
    runs[0].append("KS#2")
    events = [
        {"event": "deal", "hands": hands, "face_up": rest[12], "stock": [ids[12], "KS#2", *rest[13:]]},
        {"event": "draw", "seat": 0, "card": ids[12]},
        {"event": "discard", "seat": 0, "card": ids[12]},
        {"event": "draw", "seat": 1, "card": "KS#2"},
        {"event": "lay_down", "seat": 1, "melds": [
            {"kind": "run", "cards": run, "as": [i.split("#")[0] for i in run]} for run in runs]},
        {"event": "go_out", "seat": 1},
    ]
    held = [sorted(ids[:12], key=order), [], sorted(rest[:12], key=order)]
    events.append({"event": "score", "hands": held,
                   "points": [sum(rules.points_of(card_of(i)) for i in h) for h in held]})
    return {"format": "contract-rummy-game", "version": 1, "rules": "pagat",
            "players": [{"seat": s, "name": name} for s, name in enumerate(["you", "bob", "cy"])],
            "rounds": [{"round": 7, "events": events}]}


@pytest.mark.parametrize(("hand", "order_said"), [
    # Four draws from going out: whoever does not go out pays for every card held, so the points
    # kept come before the outs (analyzer.advice.points_first).
    ("5C QC 4C 2C 9C 5H 6D 3C 8C 8D 3D 3H 3H", "fewest cards away, then fewest points kept, then most unseen outs"),
    # One draw away: the outs are the chance of going out next draw.
    ("3D 4D 5D 6D AS 2S 3S 4S 4C 5C 6C 8C 5S", "fewest cards away, then most unseen outs, then fewest points kept"),
])
def test_the_review_says_the_discard_order_of_a_go_out_round(hand: str, order_said: str) -> None:
    review = review_game(go_out_round(hand), 0)
    discard = next(d for d in review.decisions if d.kind == "discard")
    assert discard.why.startswith(f"the discard table: {order_said}"), discard.why
    assert discard.chosen == f"discard {Card.parse(hand.split()[12]).face}"
