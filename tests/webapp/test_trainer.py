"""The trainer through Flask's test client: practice near the rating, answers scored on the server
and recorded exactly once, only first attempts rated, streaks, the daily puzzle, the dashboard,
reports, and every bad submission a 400 that records nothing."""

from __future__ import annotations

import random
import re
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from puzzles.bank import RETIRED, load_bank, write_puzzles
from puzzles.model import Puzzle
from tests.webapp.conftest import establish, make_app
from webapp.db import Attempt, DailyResult, Player, PuzzleRating, Report, session

BANK = load_bank()
BY_ID = {puzzle.id: puzzle for puzzle in BANK}


def first(kind: str, rules: str = "progressive", **where: Any) -> Puzzle:
    for puzzle in BANK:
        if puzzle.kind == kind and puzzle.rules == rules and all(getattr(puzzle, k) == v for k, v in where.items()):
            return puzzle
    raise LookupError(kind)


DISCARD = first("discard")
BUY = first("buy")
LAY_DOWN = next(p for p in BANK if p.kind == "lay-down" and p.solution and not p.solution.cannot
                and any(card.is_joker for meld in p.solution.melds for card in meld.cards))
CANNOT = next((p for p in BANK if p.kind == "lay-down" and p.solution and p.solution.cannot), None)


def form_of(client: FlaskClient, path: str) -> dict[str, str]:
    """The hidden fields of the answer form on the page at ``path``."""
    response = client.get(path)
    assert response.status_code == 200, response.text
    return fields_of(response.text)


def fields_of(page: str) -> dict[str, str]:
    """The hidden fields of the answer form in a puzzle page's HTML."""
    fields = dict(re.findall(r'<input type="hidden" name="(csrf_token|token)" value="([^"]+)"', page))
    assert set(fields) == {"csrf_token", "token"}
    return fields


def answer(client: FlaskClient, puzzle: Puzzle, fields: dict[str, str] | None = None, **given: str):  # type: ignore[no-untyped-def]
    fields = fields if fields is not None else form_of(client, f"/puzzles/{puzzle.id}")
    return client.post(f"/puzzles/{puzzle.id}/answer", data={**fields, **given})


def wrong_discard(puzzle: Puzzle) -> str:
    return next(card.token for card in puzzle.hand if card.token not in puzzle.answers)


def lay_down_form(puzzle: Puzzle, shuffle: random.Random | None = None) -> dict[str, str]:
    assert puzzle.solution is not None
    form = {}
    for index, meld in enumerate(puzzle.solution.melds):
        tokens = [card.token for card in meld.cards]
        if shuffle:
            shuffle.shuffle(tokens)
        form[f"meld-{index}"] = " ".join(tokens)
    form["discard"] = puzzle.solution.discard.token if puzzle.solution.discard else ""
    return form


def counts(app: Flask) -> dict[str, Any]:
    with app.app_context():
        db = session()
        return {
            "attempts": db.scalar(select(func.count()).select_from(Attempt)),
            "rated": db.scalar(select(func.count()).select_from(Attempt).where(Attempt.rated.is_(True))),
            "players": {p.id: (p.rating, p.deviation, p.streak) for p in db.scalars(select(Player))},
            "puzzles": {r.puzzle_id: (r.rating, r.attempts, r.solved) for r in db.scalars(select(PuzzleRating))},
        }


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app(tmp_path)


# ---- practice ------------------------------------------------------------------------------------


def test_a_first_visit_makes_no_player_and_practice_serves_a_puzzle_of_their_rule_set(app: Flask, client: FlaskClient) -> None:
    response = client.get("/practice")
    assert response.status_code == 303
    puzzle = BY_ID[response.headers["Location"].split("/puzzles/")[1].split("?")[0]]
    assert puzzle.rules == "progressive"
    assert "session=" in response.headers.get("Set-Cookie", "")
    page = client.get(response.headers["Location"])
    assert "Rated: your first try" in page.text
    assert counts(app)["players"] == {}  # a row comes with the first answer, not the first look
    # the rule set asked for is remembered for the next puzzle (in the cookie until there is a row)
    chosen = client.get("/practice?rules=contract")
    assert BY_ID[chosen.headers["Location"].split("/puzzles/")[1]].rules == "contract"
    again = client.get("/practice")
    assert BY_ID[again.headers["Location"].split("/puzzles/")[1]].rules == "contract"
    contract = BY_ID[again.headers["Location"].split("/puzzles/")[1]]
    assert answer(client, contract, choice="pass", card=contract.hand[0].token, cannot="1").status_code == 200
    (player_id,) = counts(app)["players"]
    with app.app_context():
        assert session().get(Player, player_id).rules == "contract"  # the row took the cookie's rule set


@pytest.mark.parametrize("kind", ["lay-down", "discard", "buy"])
def test_practice_filters_by_kind_and_carries_the_filter_to_the_next_link(client: FlaskClient, kind: str) -> None:
    response = client.get(f"/practice?kind={kind}&difficulty=harder")
    target = response.headers["Location"]
    assert BY_ID[target.split("/puzzles/")[1].split("?")[0]].kind == kind
    assert f"kind={kind}" in target and "difficulty=harder" in target
    assert f'name="kind" value="{kind}"' in client.get(target).text


def test_practice_filters_by_theme(client: FlaskClient) -> None:
    response = client.get("/practice?theme=joker-placement")
    assert "joker-placement" in BY_ID[response.headers["Location"].split("/puzzles/")[1].split("?")[0]].themes


@pytest.mark.parametrize("query", ["rules=poker", "kind=chess", "theme=nonsense", "difficulty=impossible"])
def test_practice_refuses_an_unknown_filter(client: FlaskClient, query: str) -> None:
    response = client.get(f"/practice?{query}")
    assert response.status_code == 400
    assert "Traceback" not in response.text


def test_practice_never_serves_a_puzzle_already_attempted(app: Flask, client: FlaskClient) -> None:
    seen = set()
    for _ in range(6):
        location = client.get("/practice?kind=buy&rules=contract").headers["Location"]
        puzzle = BY_ID[location.split("/puzzles/")[1].split("?")[0]]
        assert puzzle.id not in seen
        seen.add(puzzle.id)
        assert answer(client, puzzle, choice="buy").status_code == 200
    contract_buys = [p for p in BANK if p.kind == "buy" and p.rules == "contract"]
    assert len(seen) == min(6, len(contract_buys))


# ---- answers, ratings, replays ---------------------------------------------------------------------------


def test_a_right_discard_is_rated_and_moves_both_ratings_up_and_down(app: Flask, client: FlaskClient) -> None:
    establish(app, client, deviation=90.0)  # trusted: its answers move puzzles (webapp.trust)
    response = answer(client, DISCARD, card=DISCARD.answers[-1])
    assert response.status_code == 200
    assert "Right!" in response.text and "Streak: <span id=\"streak\">1</span>" in response.text
    after = counts(app)
    (player,) = after["players"].values()
    assert player[0] > 1500 and player[1] < 90 and player[2] == 1
    rating, attempts, solved = after["puzzles"][DISCARD.id]
    assert DISCARD.rating - 30 <= rating < DISCARD.rating and attempts == 1 and solved == 1
    assert after["attempts"] == 1 and after["rated"] == 1


def test_a_wrong_buy_lowers_the_rating_and_shows_the_answer_and_why(app: Flask, client: FlaskClient) -> None:
    wrong = "pass" if BUY.answers[0] == "buy" else "buy"
    response = answer(client, BUY, choice=wrong)
    assert response.status_code == 200
    assert "Not quite" in response.text
    assert "The answer: " + BUY.answers[0].capitalize() in response.text
    assert "Why:" in response.text and "/analyze?" in response.text
    (player,) = counts(app)["players"].values()
    assert player[0] < 1500 and player[2] == 0
    # a new anonymous player's answer moves their own rating, never the puzzle's (webapp.trust)
    assert counts(app)["puzzles"][BUY.id][0] == BUY.rating


def test_a_provisional_account_moves_a_puzzle_by_less_than_an_established_player(tmp_path: Path) -> None:
    moved = {}
    for deviation in (300.0, 90.0):
        app = make_app(tmp_path / str(deviation))
        client = app.test_client()
        establish(app, client, deviation=deviation)
        with app.app_context():  # a puzzle players have met often: Glicko-2 moves it by less than the cap
            session().add(PuzzleRating(puzzle_id=BUY.id, rating=float(BUY.rating), deviation=60.0, volatility=0.06))
            session().commit()
        answer(client, BUY, choice="pass" if BUY.answers[0] == "buy" else "buy")
        moved[deviation] = counts(app)["puzzles"][BUY.id][0] - BUY.rating
    assert 0 < moved[300.0] < moved[90.0] < 30


def test_a_replay_is_not_rated_and_the_page_says_so(app: Flask, client: FlaskClient) -> None:
    answer(client, DISCARD, card=wrong_discard(DISCARD))
    before = counts(app)
    page = client.get(f"/puzzles/{DISCARD.id}")
    assert "Replay: not rated" in page.text and "Rated: your first try" not in page.text
    response = answer(client, DISCARD, card=DISCARD.answers[0])
    assert "Right!" in response.text and "Replay: not rated" in response.text
    after = counts(app)
    assert after["attempts"] == 2 and after["rated"] == 1
    assert after["players"] == before["players"] and after["puzzles"] == before["puzzles"]


def test_the_same_form_sent_twice_is_recorded_once(app: Flask, client: FlaskClient) -> None:
    fields = form_of(client, f"/puzzles/{BUY.id}")
    first_response = answer(client, BUY, fields, choice=BUY.answers[0])
    before = counts(app)
    second = answer(client, BUY, fields, choice="pass" if BUY.answers[0] == "buy" else "buy")
    assert second.status_code == 200
    assert "already recorded" in second.text and "Right!" in second.text  # the first answer is what counts
    assert "already recorded" not in first_response.text
    assert counts(app) == before and before["attempts"] == 1


def test_any_equivalent_lay_down_is_right_in_any_order_with_the_joker_placed_by_the_server(app: Flask) -> None:
    rng = random.Random(7)
    for shuffle in (None, rng):
        client = app.test_client()
        response = answer(client, LAY_DOWN, **lay_down_form(LAY_DOWN, shuffle))
        assert response.status_code == 200
        assert "Right!" in response.text, re.findall(r'class="problem">([^<]*)', response.text)
        assert 'class="stands-for' in response.text  # the best play drawn with the joker labelled


def test_an_illegal_lay_down_is_wrong_and_says_why(client: FlaskClient) -> None:
    form = lay_down_form(LAY_DOWN)
    first, second = form["meld-0"].split(), form["meld-1"].split()
    first[0], second[0] = second[0], first[0]  # whole rows, but not melds
    form["meld-0"], form["meld-1"] = " ".join(first), " ".join(second)
    response = answer(client, LAY_DOWN, **form)
    assert response.status_code == 200 and "Not quite" in response.text
    assert re.search(r'<li class="problem">[^<]+</li>', response.text)


def test_it_cannot_be_done_is_wrong_when_it_can(client: FlaskClient) -> None:
    response = answer(client, LAY_DOWN, cannot="1")
    assert "Not quite" in response.text and "A best play" in response.text


@pytest.mark.skipif(CANNOT is None, reason="the bank has no lay-down puzzle that cannot be done")
def test_it_cannot_be_done_is_right_when_it_cannot(client: FlaskClient) -> None:
    assert CANNOT is not None
    assert "Right!" in answer(client, CANNOT, cannot="1").text


def test_the_streak_counts_rated_right_answers_in_a_row(app: Flask, client: FlaskClient) -> None:
    discards = [p for p in BANK if p.kind == "discard"][:3]
    for puzzle in discards[:2]:
        answer(client, puzzle, card=puzzle.answers[0])
    assert [p[2] for p in counts(app)["players"].values()] == [2]
    answer(client, discards[2], card=wrong_discard(discards[2]))
    assert [p[2] for p in counts(app)["players"].values()] == [0]


# ---- bad submissions ------------------------------------------------------------------------------------


def bad_submissions() -> list[tuple[str, Puzzle, dict[str, str], str]]:
    hand = {card.token for card in LAY_DOWN.hand}
    absent = next(token for token in ("AS", "KH", "2D", "7C", "QS", "9H") if token not in hand)
    form = lay_down_form(LAY_DOWN)
    return [
        ("a card not in the hand", DISCARD, {"card": next(t for t in ("AS", "KH", "2D", "7C") if t not in
                                                       {c.token for c in DISCARD.hand})}, "not in your hand"),
        ("not a card", DISCARD, {"card": "11Z"}, "not a card"),
        ("no card", DISCARD, {}, "not a card"),
        ("neither buy nor pass", BUY, {"choice": "maybe"}, "Buy or Pass"),
        ("a meld card not in the hand", LAY_DOWN, {**form, "meld-0": form["meld-0"] + " " + absent}, "not in your hand"),
        ("a card used twice", LAY_DOWN, {**form, "meld-1": form["meld-1"] + " " + form["meld-0"].split()[0]}, "is already in meld 1"),
        ("a malformed meld", LAY_DOWN, {**form, "meld-0": "7H <script>"}, "not a card"),
        ("a meld the contract lacks", LAY_DOWN, {**form, "meld-9": "7H"}, "no meld-9"),
        ("a natural said to stand for another", LAY_DOWN, {**form, "meld-0": form["meld-0"].split()[0] + "=3H"}, "only a wild"),
        ("empty rows", LAY_DOWN, {"discard": LAY_DOWN.hand[0].token}, "It can't be done"),
    ]


@pytest.mark.parametrize("case", bad_submissions(), ids=lambda case: case[0])
def test_a_bad_submission_is_a_400_with_a_message_and_records_nothing(app: Flask, client: FlaskClient, case: Any) -> None:
    _, puzzle, given, message = case
    response = answer(client, puzzle, **given)
    assert response.status_code == 400
    assert message in response.text.replace("&#39;", "'").replace("&#34;", '"')
    assert 'role="alert"' in response.text  # the puzzle again, with the message
    assert counts(app)["attempts"] == 0


def test_forged_and_missing_tokens_are_400s_that_record_nothing(app: Flask, client: FlaskClient) -> None:
    fields = form_of(client, f"/puzzles/{DISCARD.id}")
    right = DISCARD.answers[0]
    cases = {
        "no CSRF token": {"token": fields["token"]},
        "a forged token": {"csrf_token": fields["csrf_token"], "token": fields["token"][:-3] + "abc"},
        "no token": {"csrf_token": fields["csrf_token"]},
    }
    for name, data in cases.items():
        response = client.post(f"/puzzles/{DISCARD.id}/answer", data={**data, "card": right})
        assert response.status_code == 400, name
    # a token issued for another puzzle
    other = form_of(client, f"/puzzles/{BUY.id}")
    response = client.post(f"/puzzles/{DISCARD.id}/answer", data={**other, "card": right})
    assert response.status_code == 400 and "another puzzle" in response.text
    # another player's token (another browser), with that browser's own CSRF token
    stranger = app.test_client()
    theirs = form_of(stranger, f"/puzzles/{DISCARD.id}")
    response = client.post(f"/puzzles/{DISCARD.id}/answer", data={"csrf_token": fields["csrf_token"],
                                                                  "token": theirs["token"], "card": right})
    assert response.status_code == 400
    assert client.post("/puzzles/ffffffffffff/answer", data={**fields, "card": right}).status_code == 400
    assert counts(app)["attempts"] == 0


def test_an_unknown_puzzle_page_is_a_404(client: FlaskClient) -> None:
    response = client.get("/puzzles/nothing-here")
    assert response.status_code == 404 and "no puzzle" in response.text


# ---- the daily puzzle ------------------------------------------------------------------------------------


def daily_fields(client: FlaskClient) -> tuple[Puzzle, dict[str, str]]:
    page = client.get("/daily")
    assert page.status_code == 200
    puzzle_id = re.search(r'action="/puzzles/(\w+)/answer"', page.text)
    assert puzzle_id, "the daily page has an answer form"
    fields = dict(re.findall(r'<input type="hidden" name="(csrf_token|token)" value="([^"]+)"', page.text))
    return BY_ID[puzzle_id.group(1)], fields


def right_answer(puzzle: Puzzle) -> dict[str, str]:
    if puzzle.kind == "discard":
        return {"card": puzzle.answers[0]}
    if puzzle.kind == "buy":
        return {"choice": puzzle.answers[0]}
    if puzzle.solution is not None and puzzle.solution.cannot:
        return {"cannot": "1"}
    return lay_down_form(puzzle)


def wrong_answer(puzzle: Puzzle) -> dict[str, str]:
    if puzzle.kind == "discard":
        return {"card": wrong_discard(puzzle)}
    if puzzle.kind == "buy":
        return {"choice": "pass" if puzzle.answers[0] == "buy" else "buy"}
    return {"cannot": "1"}


def test_the_daily_puzzle_counts_solvers_and_builds_a_daily_streak_day_by_day(app: Flask) -> None:
    from puzzles.daily import daily

    start = date(2026, 3, 2)
    app.config["TRAINER_TODAY"] = start.isoformat()
    me, other = app.test_client(), app.test_client()
    puzzle, fields = daily_fields(me)
    assert puzzle.id == daily(BANK, start).id
    response = answer(me, puzzle, fields, **right_answer(puzzle))
    assert "Daily puzzle of 2026-03-02: 1 player solved it" in response.text
    assert 'id="daily-streak">1<' in response.text
    page = me.get("/daily")
    assert "You solved today&#39;s puzzle" in page.text and 'action="/puzzles/' not in page.text
    puzzle2, fields2 = daily_fields(other)
    assert puzzle2 == puzzle
    answer(other, puzzle, fields2, **right_answer(puzzle))
    assert "2 of 2 players solved it" in me.get("/daily").text
    # the next day brings a new puzzle, and solving it makes a streak of 2
    app.config["TRAINER_TODAY"] = (start + timedelta(days=1)).isoformat()
    next_puzzle, fields = daily_fields(me)
    assert next_puzzle != puzzle
    response = answer(me, next_puzzle, fields, **right_answer(next_puzzle))
    assert 'id="daily-streak">2<' in response.text
    # a day missed breaks it
    app.config["TRAINER_TODAY"] = (start + timedelta(days=3)).isoformat()
    assert 'id="daily-streak">0<' in me.get("/daily").text
    third, fields = daily_fields(me)
    assert 'id="daily-streak">1<' in answer(me, third, fields, **right_answer(third)).text
    with app.app_context():
        results = session().scalars(select(DailyResult)).all()
        assert sorted((r.day.isoformat(), r.solved) for r in results) == [
            ("2026-03-02", True), ("2026-03-02", True), ("2026-03-03", True), ("2026-03-05", True)]


def test_only_the_first_answer_of_the_day_is_the_daily_result(app: Flask, client: FlaskClient) -> None:
    app.config["TRAINER_TODAY"] = "2026-04-10"
    puzzle, fields = daily_fields(client)
    if puzzle.kind == "lay-down" and puzzle.solution is not None and puzzle.solution.cannot:
        pytest.skip("the day's puzzle cannot be done: no simple wrong answer")
    answer(client, puzzle, fields, **wrong_answer(puzzle))
    answer(client, puzzle, **right_answer(puzzle))  # a replay, right this time
    assert "got away" in client.get("/daily").text
    with app.app_context():
        (result,) = session().scalars(select(DailyResult)).all()
        assert result.solved is False


# ---- dashboard and reports ------------------------------------------------------------------------------


def test_the_dashboard_draws_the_rating_and_lists_the_failed_puzzles_to_replay(app: Flask, client: FlaskClient) -> None:
    empty = client.get("/dashboard")
    assert empty.status_code == 200 and "<svg" not in empty.text
    answer(client, DISCARD, card=wrong_discard(DISCARD))
    answer(client, BUY, choice=BUY.answers[0])
    page = client.get("/dashboard")
    assert "<svg" in page.text
    assert f'href="/puzzles/{DISCARD.id}"' in page.text.split("Puzzles to try again")[1].split("</section>")[0]
    assert f'href="/puzzles/{BUY.id}"' not in page.text.split("Puzzles to try again")[1].split("</section>")[0]
    for theme in DISCARD.themes + BUY.themes:
        assert f"<td>{theme}</td>" in page.text
    # solved on a replay: no longer listed
    answer(client, DISCARD, card=DISCARD.answers[0])
    failed = client.get("/dashboard").text.split("Puzzles to try again")[1].split("</section>")[0]
    assert f'href="/puzzles/{DISCARD.id}"' not in failed


def test_a_retired_puzzle_is_not_served_but_the_dashboard_still_reads_its_attempts(tmp_path: Path) -> None:
    retired = next(p for p in BANK if p.kind == "discard" and p.rules == "progressive" and p.id != DISCARD.id and p.themes)
    folder = tmp_path / "bank"
    (folder / RETIRED).mkdir(parents=True)
    write_puzzles(folder / "progressive-discard.jsonl.gz", [DISCARD])
    write_puzzles(folder / RETIRED / "progressive-discard.jsonl.gz", [retired])
    app = make_app(tmp_path, PUZZLE_BANK=str(folder))
    client = app.test_client()
    fields = form_of(client, f"/puzzles/{DISCARD.id}")
    assert answer(client, DISCARD, fields, card=DISCARD.answers[0]).status_code == 200  # the player's row
    page = client.get(f"/puzzles/{retired.id}")
    assert page.status_code == 404 and "was retired" in page.text
    refused = client.post(f"/puzzles/{retired.id}/answer", data={**fields, "card": retired.answers[0]})
    assert refused.status_code == 400 and "was retired" in refused.text
    for _ in range(10):  # practice never deals it
        assert retired.id not in client.get("/practice?rules=progressive&kind=discard").headers.get("Location", "")
    with app.app_context():  # an attempt made while it was served
        db = session()
        player = db.scalars(select(Player)).one()
        db.add(Attempt(player_id=player.id, puzzle_id=retired.id, token="t" * 32, answer={"discard": wrong_discard(retired)},
                       right=False, rated=True, rating_before=1500.0, rating_after=1450.0, deviation_after=300.0))
        db.commit()
    dashboard = client.get("/dashboard").text
    for theme in retired.themes:
        assert f"<td>{theme}</td>" in dashboard
    assert re.search(rf"<code>{retired.id}</code></a></td>\s*<td>discard</td>", dashboard)
    assert retired.id not in dashboard.split("Puzzles to try again")[1].split("</section>")[0]


def test_a_reported_puzzle_is_not_served_until_a_maintainer_clears_it(app: Flask, client: FlaskClient) -> None:
    fields = form_of(client, f"/puzzles/{BUY.id}")
    response = client.post(f"/puzzles/{BUY.id}/report", data={"csrf_token": fields["csrf_token"], "reason": "the offer is odd"})
    assert response.status_code == 200
    assert client.get(f"/puzzles/{BUY.id}").status_code == 404
    assert answer(client, BUY, fields, choice="buy").status_code == 400
    runner = app.test_cli_runner()
    listed = runner.invoke(args=["reports", "list"])
    assert BUY.id in listed.output and "the offer is odd" in listed.output and "open" in listed.output
    for _ in range(30):  # never chosen by practice either
        location = client.get(f"/practice?rules={BUY.rules}&kind=buy").headers.get("Location", "")
        assert BUY.id not in location
    assert runner.invoke(args=["reports", "block", BUY.id]).exit_code == 0
    assert client.get(f"/puzzles/{BUY.id}").status_code == 404
    assert runner.invoke(args=["reports", "clear", BUY.id]).exit_code == 0
    assert client.get(f"/puzzles/{BUY.id}").status_code == 200
    assert "No reports." in runner.invoke(args=["reports", "list"]).output
    unknown = runner.invoke(args=["reports", "clear", "ffffffffffff"])
    assert unknown.exit_code == 2 and "no report" in unknown.output
    with app.app_context():
        assert [r.state for r in session().scalars(select(Report))] == ["cleared"]


def test_a_report_needs_the_csrf_token_and_a_known_puzzle(app: Flask, client: FlaskClient) -> None:
    assert client.post(f"/puzzles/{BUY.id}/report", data={"reason": "x"}).status_code == 400
    fields = form_of(client, f"/puzzles/{BUY.id}")
    assert client.post("/puzzles/ffffffffffff/report", data={"csrf_token": fields["csrf_token"]}).status_code == 400
    assert client.post(f"/puzzles/{BUY.id}/report", data={"csrf_token": fields["csrf_token"],
                                                           "reason": "x" * 501}).status_code == 400
    with app.app_context():
        assert session().scalar(select(func.count()).select_from(Report)) == 0
