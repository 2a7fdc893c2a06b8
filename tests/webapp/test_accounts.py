"""Names and accounts through Flask's test client, on SQLite and PostgreSQL: a display name
without an account, register / log in / log out, passwords only ever stored hashed, the session
rotated at log-in, log-ins rate-limited, every bad submission a 400 that changes nothing, and
the adoption of a browser's anonymous history into the account it logs in to."""

from __future__ import annotations

import re
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, text
from werkzeug.security import check_password_hash

import webapp.players
from puzzles.daily import daily
from puzzles.model import Puzzle
from tests.webapp.conftest import make_app
from tests.webapp.test_trainer import (
    BANK,
    BUY,
    DISCARD,
    answer,
    daily_fields,
    first,
    right_answer,
    wrong_answer,
    wrong_discard,
)
from webapp.accounts import BAD_LOG_IN
from webapp.db import Attempt, DailyResult, Player, Report, session

PASSWORD = "correct horse battery"
SECOND = first("discard", "contract")  # another puzzle than DISCARD, for a second history


@pytest.fixture
def app(tmp_path: Path, database_url: str) -> Flask:
    return make_app(tmp_path, database_url)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


# ---- helpers ------------------------------------------------------------------------------------------


def csrf_of(client: FlaskClient, path: str) -> str:
    page = client.get(path)
    assert page.status_code == 200, page.text
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page.text)
    assert token, f"{path} has a form with its CSRF token"
    return token.group(1)


def register(client: FlaskClient, username: str, password: str = PASSWORD, confirm: str | None = None, **extra: str):  # type: ignore[no-untyped-def]
    data = {"csrf_token": csrf_of(client, "/register"), "username": username, "password": password,
            "confirm": password if confirm is None else confirm, **extra}
    return client.post("/register", data=data)


def login(client: FlaskClient, username: str, password: str = PASSWORD, **environ: Any):  # type: ignore[no-untyped-def]
    data = {"csrf_token": csrf_of(client, "/login"), "username": username, "password": password}
    return client.post("/login", data=data, environ_base=environ)


def logout(client: FlaskClient):  # type: ignore[no-untyped-def]
    token = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/dashboard").text)
    assert token
    return client.post("/logout", data={"csrf_token": token.group(1)})


def header(client: FlaskClient) -> str:
    page = client.get("/dashboard").text
    return page[page.index('<nav class="account-nav"'):page.index("</header>")]


def cookie_player(app: Flask, client: FlaskClient) -> str | None:
    """The player id in the client's signed session cookie (None: no player yet)."""
    cookie = client.get_cookie("session")
    if cookie is None:
        return None
    contents = app.session_interface.get_signing_serializer(app).loads(cookie.value)  # type: ignore[attr-defined]
    return contents.get("player")


def players(app: Flask) -> dict[str, dict[str, Any]]:
    """Every player row by public id, with what it owns."""
    with app.app_context():
        db = session()
        rows = {}
        for player in db.scalars(select(Player)):
            rows[player.public_id] = {
                "id": player.id, "name": player.name, "username": player.username,
                "password_hash": player.password_hash,
                "rating": (player.rating, player.deviation, player.volatility),
                "streak": player.streak, "best_streak": player.best_streak,
                "daily": (player.daily_streak, player.last_daily_solved),
                "attempts": sorted(((a.puzzle_id, a.right, a.rated, a.daily) for a in db.scalars(
                    select(Attempt).where(Attempt.player_id == player.id))), key=str),
                "daily_results": sorted((d.day, d.puzzle_id, d.solved) for d in db.scalars(
                    select(DailyResult).where(DailyResult.player_id == player.id))),
                "reports": sorted(r.puzzle_id for r in db.scalars(select(Report).where(Report.player_id == player.id))),
            }
        return rows


def me(app: Flask, client: FlaskClient) -> dict[str, Any]:
    public_id = cookie_player(app, client)
    assert public_id is not None
    return players(app)[public_id]


def by_username(app: Flask, username: str) -> dict[str, Any]:
    (row,) = [row for row in players(app).values() if row["username"] == username]
    return row


def public_id_of(app: Flask, username: str) -> str:
    (public_id,) = [key for key, row in players(app).items() if row["username"] == username]
    return public_id


def report(client: FlaskClient, puzzle: Puzzle) -> None:
    token = csrf_of_puzzle(client, puzzle)
    assert client.post(f"/puzzles/{puzzle.id}/report", data={"csrf_token": token, "reason": "odd"}).status_code == 200


def csrf_of_puzzle(client: FlaskClient, puzzle: Puzzle) -> str:
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get(f"/puzzles/{puzzle.id}").text)
    assert token
    return token.group(1)


def usable_daily(start: date) -> tuple[date, Puzzle]:
    """A day from ``start`` on whose daily puzzle has a simple wrong answer."""
    for offset in range(60):
        day = start + timedelta(days=offset)
        puzzle = daily(BANK, day)
        if not (puzzle.kind == "lay-down" and puzzle.solution is not None and puzzle.solution.cannot):
            return day, puzzle
    raise LookupError("no usable daily puzzle")


# ---- pages and the header --------------------------------------------------------------------------------


def test_every_page_renders_with_its_form_and_the_header_offers_log_in(client: FlaskClient) -> None:
    for path, fields in {"/name": ["name"], "/login": ["username", "password"],
                         "/register": ["username", "password", "confirm"]}.items():
        page = client.get(path)
        assert page.status_code == 200
        for field in fields:
            assert f'name="{field}"' in page.text
        assert 'name="csrf_token"' in page.text
        assert 'href="/login">Log in</a>' in page.text and 'href="/register">Register</a>' in page.text
        assert "Log out" not in page.text
    assert client.get("/logout").status_code == 405  # logging out changes state: a POST with its token


# ---- the display name ------------------------------------------------------------------------------------


def test_a_player_takes_a_name_without_an_account(app: Flask, client: FlaskClient) -> None:
    response = client.post("/name", data={"csrf_token": csrf_of(client, "/name"), "name": "  Ada   Lovelace "})
    assert response.status_code == 303 and response.headers["Location"] == "/dashboard"
    row = me(app, client)
    assert row["name"] == "Ada Lovelace" and row["username"] is None and row["password_hash"] is None
    assert "<h1>Ada Lovelace</h1>" in client.get("/dashboard").text
    assert "Ada Lovelace</a>" in header(client) and "Log in" in header(client)
    assert 'value="Ada Lovelace"' in client.get("/name").text  # the form shows the name to change
    client.post("/name", data={"csrf_token": csrf_of(client, "/name"), "name": "Zoë O'Brien-Smith"})
    assert me(app, client)["name"] == "Zoë O'Brien-Smith"


@pytest.mark.parametrize(("name", "message"), [
    ("", "Write a name."),
    ("    ", "Write a name."),
    ("x" * 31, "at most 30 characters"),
    ("<b>Ada</b>", "letters, digits, spaces"),
    ("Ada\x00", "letters, digits, spaces"),
    ("-Ada", "starting with a letter or digit"),
    ("Ada\u202e", "letters, digits, spaces"),  # a right-to-left override
])
def test_a_bad_name_is_a_400_naming_the_problem_and_changes_nothing(app: Flask, client: FlaskClient,
                                                                    name: str, message: str) -> None:
    client.post("/name", data={"csrf_token": csrf_of(client, "/name"), "name": "Ada"})
    before = players(app)
    response = client.post("/name", data={"csrf_token": csrf_of(client, "/name"), "name": name})
    assert response.status_code == 400
    assert message in response.text.replace("&#39;", "'")
    assert 'aria-invalid="true"' in response.text
    assert players(app) == before


def test_a_name_without_its_csrf_token_is_a_400_that_changes_nothing(app: Flask, client: FlaskClient) -> None:
    client.post("/name", data={"csrf_token": csrf_of(client, "/name"), "name": "Ada"})
    before = players(app)
    response = client.post("/name", data={"name": "Mallory"})
    assert response.status_code == 400 and "did not come from this site" in response.text
    forged = client.post("/name", data={"name": "Mallory", "csrf_token": "forged"})
    assert forged.status_code == 400
    assert players(app) == before


# ---- register ----------------------------------------------------------------------------------------------


def test_registering_makes_the_anonymous_player_the_account_and_keeps_its_history(app: Flask, client: FlaskClient) -> None:
    answer(client, DISCARD, card=DISCARD.answers[0])
    answer(client, BUY, choice="pass" if BUY.answers[0] == "buy" else "buy")
    before = me(app, client)
    assert len(before["attempts"]) == 2
    response = register(client, "  Ada_L ")
    assert response.status_code == 303 and response.headers["Location"] == "/dashboard"
    after = me(app, client)
    assert after["id"] == before["id"] and len(players(app)) == 1  # the same row, no other made
    assert after["username"] == "ada_l"  # usernames are case-insensitive: kept in lower case
    assert after["attempts"] == before["attempts"] and after["rating"] == before["rating"]
    assert after["best_streak"] == before["best_streak"] == 1
    assert check_password_hash(after["password_hash"], PASSWORD)
    assert "Log out" in header(client) and "ada_l" in header(client)
    assert "1 of 2 rated puzzles right" in client.get("/dashboard").text


def test_registering_on_a_first_visit_makes_the_account(app: Flask, client: FlaskClient) -> None:
    token = csrf_of(client, "/register")  # the form page makes no player
    assert players(app) == {}
    response = client.post("/register", data={"csrf_token": token, "username": "bob", "password": PASSWORD,
                                              "confirm": PASSWORD})
    assert response.status_code == 303
    assert me(app, client)["username"] == "bob" and len(players(app)) == 1


@pytest.mark.parametrize(("fields", "message"), [
    ({"username": "ADA"}, "The username 'ada' is taken"),  # case does not make a new name
    ({"username": "newcomer", "confirm": PASSWORD + "!"}, "The two passwords differ."),
    ({"username": "newcomer", "password": "short", "confirm": "short"}, "A password is 8 to 128 characters."),
    ({"username": "newcomer", "password": "p" * 129, "confirm": "p" * 129}, "A password is 8 to 128 characters."),
    ({"username": "n" * 31}, "A username is 3 to 30 characters."),
    ({"username": "ab"}, "A username is 3 to 30 characters."),
    ({"username": "new comer"}, "A username is letters a-z"),
    ({"username": "zoë"}, "A username is letters a-z"),
    ({"username": "_lead"}, "starting with a letter or digit"),
    ({"username": ""}, "Choose a username."),
    ({"username": "newcomer", "password": "", "confirm": ""}, "Choose a password."),
    ({"username": "newcomer", "confirm": ""}, "Write the password a second time."),
])
def test_a_bad_registration_is_a_400_with_the_message_and_changes_nothing(
        app: Flask, tmp_path: Path, fields: dict[str, str], message: str) -> None:
    register(app.test_client(), "ada")
    client = app.test_client()
    answer(client, DISCARD, card=DISCARD.answers[0])
    before = players(app)
    data = {"csrf_token": csrf_of(client, "/register"), "username": "x", "password": PASSWORD,
            "confirm": PASSWORD, **fields}
    if "confirm" not in fields and "password" in fields:
        data["confirm"] = fields["password"]
    response = client.post("/register", data=data)
    assert response.status_code == 400
    assert message in response.text.replace("&#39;", "'")
    assert PASSWORD not in response.text and not re.search(r'type="password" value="[^"]', response.text)  # never echoed
    assert players(app) == before
    assert me(app, client)["username"] is None


def test_a_registration_without_its_csrf_token_is_a_400_that_changes_nothing(app: Flask, client: FlaskClient) -> None:
    client.get("/dashboard")
    before = players(app)
    response = client.post("/register", data={"username": "mallory", "password": PASSWORD, "confirm": PASSWORD})
    assert response.status_code == 400 and "did not come from this site" in response.text
    assert players(app) == before


def test_a_logged_in_player_cannot_register_a_second_account_over_the_first(app: Flask, client: FlaskClient) -> None:
    register(client, "ada")
    assert "You are logged in as" in client.get("/register").text
    response = register(client, "eve")
    assert response.status_code == 400 and "log out to make another account" in response.text
    assert [row["username"] for row in players(app).values()] == ["ada"]


def test_passwords_are_never_stored_in_clear(app: Flask, client: FlaskClient) -> None:
    register(client, "ada")
    logout(client)
    assert login(client, "ada").status_code == 303
    assert login(app.test_client(), "ada", "a wrong password").status_code == 400
    hashed = by_username(app, "ada")["password_hash"]
    assert hashed != PASSWORD and PASSWORD not in hashed and hashed.startswith(("scrypt:", "pbkdf2:"))
    assert check_password_hash(hashed, PASSWORD) and not check_password_hash(hashed, PASSWORD + "x")
    # no column of any table holds it, whatever its name
    with app.app_context():
        db = session()
        for table in ("players", "attempts", "daily_results", "reports"):
            for row in db.execute(text(f"SELECT * FROM {table}")):  # fixed names, no input
                assert all(PASSWORD not in str(value) for value in row)
    # two accounts with one password get different hashes (salted)
    register(app.test_client(), "bob")
    assert by_username(app, "bob")["password_hash"] != hashed


# ---- log in, log out -----------------------------------------------------------------------------------------


def test_register_log_out_log_in(app: Flask, client: FlaskClient) -> None:
    register(client, "ada")
    answer(client, DISCARD, card=DISCARD.answers[0])
    account = by_username(app, "ada")
    response = logout(client)
    assert response.status_code == 303 and response.headers["Location"] == "/"
    assert "Log in" in header(client) and "Log out" not in header(client)
    # a fresh anonymous visitor now, a row once it answers
    assert cookie_player(app, client) != public_id_of(app, "ada")
    assert "0 of 0 rated puzzles" in client.get("/dashboard").text
    response = login(client, " ADA ")
    assert response.status_code == 303 and response.headers["Location"] == "/dashboard"
    assert me(app, client)["id"] == account["id"]
    assert "1 of 1 rated puzzles right" in client.get("/dashboard").text
    assert "Log out" in header(client)
    # on another device the same account, the same history
    other = app.test_client()
    assert login(other, "ada").status_code == 303
    assert me(app, other)["id"] == account["id"]


def test_an_unknown_user_and_a_wrong_password_get_one_message_and_change_nothing(app: Flask, client: FlaskClient) -> None:
    register(app.test_client(), "ada")
    answer(client, DISCARD, card=DISCARD.answers[0])
    before, mine = players(app), cookie_player(app, client)
    pages = [login(client, "ada", "not the password"), login(client, "nobody", "not the password")]
    for page in pages:
        assert page.status_code == 400
        assert BAD_LOG_IN in page.text
        assert "not the password" not in page.text
    alerts = [re.findall(r'role="alert">([^<]*)<', page.text) for page in pages]
    assert alerts[0] == alerts[1] == [BAD_LOG_IN]  # nothing tells the two apart
    assert players(app) == before and cookie_player(app, client) == mine


@pytest.mark.parametrize(("fields", "message"), [
    ({"username": "a" * 31}, "A username is at most 30 characters."),
    ({"password": "p" * 129}, "A password is at most 128 characters."),
    ({"username": ""}, "Write your username."),
    ({"password": ""}, "Write your password."),
    ({"username": "ada\x07"}, "no control characters"),
])
def test_a_bad_log_in_is_a_400_with_the_message_and_changes_nothing(app: Flask, client: FlaskClient,
                                                                    fields: dict[str, str], message: str) -> None:
    register(app.test_client(), "ada")
    client.get("/dashboard")
    before, mine = players(app), cookie_player(app, client)
    data = {"csrf_token": csrf_of(client, "/login"), "username": "ada", "password": PASSWORD, **fields}
    response = client.post("/login", data=data)
    assert response.status_code == 400 and message in response.text
    assert players(app) == before and cookie_player(app, client) == mine


def test_a_log_in_without_its_csrf_token_is_a_400_and_logs_nobody_in(app: Flask, client: FlaskClient) -> None:
    register(app.test_client(), "ada")
    response = client.post("/login", data={"username": "ada", "password": PASSWORD})
    assert response.status_code == 400 and "did not come from this site" in response.text
    assert cookie_player(app, client) is None and "Log out" not in header(client)


def test_logging_out_needs_the_csrf_token_and_never_drops_an_anonymous_player(app: Flask, client: FlaskClient) -> None:
    register(client, "ada")
    assert client.post("/logout").status_code == 400
    assert "Log out" in header(client)  # still logged in
    anonymous = app.test_client()
    answer(anonymous, DISCARD, card=DISCARD.answers[0])
    mine = cookie_player(app, anonymous)
    assert logout(anonymous).status_code == 303
    assert cookie_player(app, anonymous) == mine  # without an account there would be no way back


def test_logging_in_as_another_account_switches_without_adopting(app: Flask, client: FlaskClient) -> None:
    register(client, "ada")
    answer(client, DISCARD, card=DISCARD.answers[0])
    register(app.test_client(), "bob")
    assert login(client, "bob").status_code == 303
    assert me(app, client)["username"] == "bob"
    assert len(by_username(app, "ada")["attempts"]) == 1 and by_username(app, "bob")["attempts"] == []


def test_the_header_names_the_account_and_offers_log_out(app: Flask, client: FlaskClient) -> None:
    register(client, "ada")
    client.post("/name", data={"csrf_token": csrf_of(client, "/name"), "name": "Ada Lovelace"})
    nav = header(client)
    assert "Ada Lovelace</a>" in nav and 'title="Logged in as ada"' in nav and "Log out" in nav
    assert "Register" not in nav
    assert me(app, client)["name"] == "Ada Lovelace" and me(app, client)["username"] == "ada"


# ---- the session is rotated -------------------------------------------------------------------------------


def session_contents(app: Flask, client: FlaskClient) -> dict[str, Any]:
    cookie = client.get_cookie("session")
    assert cookie is not None
    return dict(app.session_interface.get_signing_serializer(app).loads(cookie.value))  # type: ignore[attr-defined]


def test_logging_in_rotates_the_session(app: Flask, client: FlaskClient) -> None:
    register(app.test_client(), "ada")
    csrf_of(client, "/login")
    answer(client, DISCARD, card=DISCARD.answers[0])
    old_cookie = client.get_cookie("session")
    assert old_cookie is not None
    before = session_contents(app, client)
    assert login(client, "ada").status_code == 303
    after = session_contents(app, client)
    assert after["player"] != before["player"] and after["player"] == public_id_of(app, "ada")
    assert after.get("csrf_token") != before.get("csrf_token")  # the old form token no longer posts
    # the cookie from before the log-in (planted, say) is not the account
    planted = app.test_client()
    planted.set_cookie("session", old_cookie.value)
    assert "Log out" not in header(planted)
    assert cookie_player(app, planted) not in players(app)  # a visitor with no row: no account, no history


def test_registering_rotates_the_session_and_the_players_cookie_id(app: Flask, client: FlaskClient) -> None:
    answer(client, DISCARD, card=DISCARD.answers[0])
    old_cookie = client.get_cookie("session")
    assert old_cookie is not None
    before = session_contents(app, client)
    assert register(client, "ada").status_code == 303
    after = session_contents(app, client)
    assert after["player"] != before["player"] and after.get("csrf_token") != before.get("csrf_token")
    # the row is the same, but the id the old cookie carries no longer names it
    planted = app.test_client()
    planted.set_cookie("session", old_cookie.value)
    assert "Log out" not in header(planted)
    assert cookie_player(app, planted) not in players(app)  # a visitor with no row: no account, no history


# ---- adoption ----------------------------------------------------------------------------------------------


def test_logging_in_adopts_the_anonymous_history_and_the_account_keeps_its_rating(app: Flask) -> None:
    day, daily_puzzle = usable_daily(date(2026, 3, 2))
    app.config["TRAINER_TODAY"] = day.isoformat()
    phone, laptop = app.test_client(), app.test_client()
    register(phone, "ada")
    answer(phone, BUY, choice=BUY.answers[0])  # the account's own rated answer
    account = by_username(app, "ada")
    # the laptop, anonymous: two puzzles (one right, one wrong), the daily puzzle solved, a report
    answer(laptop, DISCARD, card=DISCARD.answers[0])
    answer(laptop, SECOND, card=wrong_discard(SECOND))
    puzzle, fields = daily_fields(laptop)
    answer(laptop, puzzle, fields, **right_answer(puzzle))
    report(laptop, SECOND)
    anonymous = me(app, laptop)
    assert len(anonymous["attempts"]) == 3 and anonymous["reports"] == [SECOND.id]

    assert login(laptop, "ada").status_code == 303
    merged = by_username(app, "ada")
    assert me(app, laptop)["id"] == account["id"]
    assert anonymous["id"] not in {row["id"] for row in players(app).values()}  # the emptied row is gone
    assert len(players(app)) == 1
    assert merged["attempts"] == sorted(account["attempts"] + anonymous["attempts"], key=str)
    assert merged["daily_results"] == anonymous["daily_results"] == [(day, daily_puzzle.id, True)]
    assert merged["reports"] == [SECOND.id]
    # the account had a rated answer: its rating stands; the best streak is the better one
    assert merged["rating"] == account["rating"] != anonymous["rating"]
    assert merged["streak"] == account["streak"]
    assert merged["best_streak"] == max(account["best_streak"], anonymous["best_streak"])
    assert merged["daily"] == (1, day)
    dashboard = phone.get("/dashboard").text  # the other device sees it too
    assert f"of {len(merged['attempts'])} rated puzzles right" in dashboard
    assert 'id="daily-streak">1<' in dashboard


def test_an_account_without_rated_answers_takes_the_anonymous_rating_and_streak(app: Flask) -> None:
    register(app.test_client(), "ada")
    account = by_username(app, "ada")
    laptop = app.test_client()
    answer(laptop, DISCARD, card=DISCARD.answers[0])
    answer(laptop, SECOND, card=SECOND.answers[0])
    laptop.post("/name", data={"csrf_token": csrf_of(laptop, "/name"), "name": "Ada L"})
    anonymous = me(app, laptop)
    assert anonymous["streak"] == 2 and anonymous["rating"] != account["rating"]
    assert login(laptop, "ada").status_code == 303
    merged = by_username(app, "ada")
    assert merged["rating"] == anonymous["rating"] and merged["streak"] == merged["best_streak"] == 2
    assert merged["attempts"] == anonymous["attempts"]
    assert merged["name"] == "Ada L"  # the account had none: it takes the anonymous one's


def daily_collision(app: Flask, account_right: bool, anonymous_right: bool) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], date]:
    day, _ = usable_daily(date(2026, 5, 1))
    app.config["TRAINER_TODAY"] = day.isoformat()
    phone, laptop = app.test_client(), app.test_client()
    register(phone, "ada")
    for client, right in ((phone, account_right), (laptop, anonymous_right)):
        puzzle, fields = daily_fields(client)
        answer(client, puzzle, fields, **(right_answer(puzzle) if right else wrong_answer(puzzle)))
    account, anonymous = by_username(app, "ada"), me(app, laptop)
    assert login(laptop, "ada").status_code == 303
    return account, anonymous, by_username(app, "ada"), day


def test_a_daily_result_on_the_same_day_keeps_the_solved_one_from_the_anonymous_side(app: Flask) -> None:
    account, anonymous, merged, day = daily_collision(app, account_right=False, anonymous_right=True)
    ((_, puzzle_id, _),) = account["daily_results"]
    assert merged["daily_results"] == [(day, puzzle_id, True)]
    assert merged["daily"] == (1, day)
    # the anonymous answer is now the day's result; the account's own is an ordinary attempt
    assert sorted((a[3] for a in merged["attempts"] if a[0] == puzzle_id), key=str) == sorted([day, None], key=str)
    assert [a for a in merged["attempts"] if a[3] == day] == [a for a in anonymous["attempts"] if a[3] == day]
    assert len(merged["attempts"]) == 2


def test_a_daily_result_on_the_same_day_keeps_the_solved_one_from_the_account_side(app: Flask) -> None:
    account, _, merged, day = daily_collision(app, account_right=True, anonymous_right=False)
    assert merged["daily_results"] == account["daily_results"] and merged["daily_results"][0][2] is True
    assert [a for a in merged["attempts"] if a[3] == day] == [a for a in account["attempts"] if a[3] == day]
    assert merged["daily"] == (1, day)


def test_a_daily_streak_is_counted_again_across_both_histories(app: Flask) -> None:
    first_day, _ = usable_daily(date(2026, 6, 1))
    phone, laptop = app.test_client(), app.test_client()
    register(phone, "ada")
    for client, day in ((phone, first_day), (laptop, first_day + timedelta(days=1)),
                        (phone, first_day + timedelta(days=2))):
        app.config["TRAINER_TODAY"] = day.isoformat()
        puzzle, fields = daily_fields(client)
        answer(client, puzzle, fields, **right_answer(puzzle))
    assert by_username(app, "ada")["daily"] == (1, first_day + timedelta(days=2))  # a gap on its own
    assert login(laptop, "ada").status_code == 303
    assert by_username(app, "ada")["daily"] == (3, first_day + timedelta(days=2))  # three days in a row


def test_an_adoption_that_fails_halfway_moves_nothing(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    register(app.test_client(), "ada")
    laptop = app.test_client()
    answer(laptop, DISCARD, card=DISCARD.answers[0])
    report(laptop, SECOND)
    before, mine = players(app), cookie_player(app, laptop)

    def broken(*_args: Any) -> Any:
        raise RuntimeError("the database went away after the attempts moved")

    monkeypatch.setattr(webapp.players, "_daily_run", broken)  # after the rows moved, before the end
    response = login(laptop, "ada")
    assert response.status_code == 500 and "Traceback" not in response.text
    assert players(app) == before and cookie_player(app, laptop) == mine
    monkeypatch.undo()
    assert login(laptop, "ada").status_code == 303
    assert len(by_username(app, "ada")["attempts"]) == 1


# ---- rate limits --------------------------------------------------------------------------------------------


def test_failed_log_ins_are_rate_limited_per_address(tmp_path: Path, database_url: str) -> None:
    app = make_app(tmp_path, database_url, RATELIMIT_ENABLED=True, LOGIN_PER_ADDRESS="3 per minute")
    client = app.test_client()
    register(client, "ada")
    logout(client)
    for _ in range(3):
        assert login(client, "ada").status_code == 303  # a right log-in costs nothing
        logout(client)
    for _ in range(3):
        assert login(client, "ada", "wrong password").status_code == 400
    refused = login(client, "ada")  # even the right password now waits
    assert refused.status_code == 429
    assert "Too many failed log-ins from your address (the limit is 3 per minute)" in refused.text
    assert "Retry-After" in refused.headers
    assert "Log out" not in header(client)
    other = app.test_client()
    assert login(other, "ada", REMOTE_ADDR="192.0.2.7").status_code == 303  # another address


def test_failed_log_ins_are_rate_limited_per_username(tmp_path: Path, database_url: str) -> None:
    app = make_app(tmp_path, database_url, RATELIMIT_ENABLED=True, LOGIN_PER_USERNAME="2 per hour")
    register(app.test_client(), "ada")
    register(app.test_client(), "bob")
    client = app.test_client()
    assert login(client, "ada", "guess one", REMOTE_ADDR="192.0.2.1").status_code == 400
    assert login(client, "ADA ", "guess two", REMOTE_ADDR="192.0.2.2").status_code == 400  # same name
    refused = login(client, "ada", "guess three", REMOTE_ADDR="192.0.2.3")
    assert refused.status_code == 429 and "Too many failed log-ins for this username" in refused.text
    assert login(client, "bob", REMOTE_ADDR="192.0.2.4").status_code == 303  # another account is open


def test_registrations_are_rate_limited_per_address(tmp_path: Path, database_url: str) -> None:
    app = make_app(tmp_path, database_url, RATELIMIT_ENABLED=True, REGISTER_PER_ADDRESS="3 per hour")
    client = app.test_client()
    for _ in range(4):
        assert register(client, "x").status_code == 400  # a form refused for its fields costs nothing
    for username in ("ada", "bob"):
        assert register(app.test_client(), username).status_code == 303
    assert register(client, "ADA").status_code == 400  # "taken" says the name exists: it counts
    refused = register(client, "carol")
    assert refused.status_code == 429 and "Too many registrations from your address" in refused.text
    assert sorted(row["username"] for row in players(app).values() if row["username"]) == ["ada", "bob"]


# ---- at once -----------------------------------------------------------------------------------------------


def test_one_browser_logging_in_from_two_tabs_at_once_adopts_its_history_once(app: Flask) -> None:
    from tests.webapp.test_trainer_concurrency import at_once, tab_of

    register(app.test_client(), "ada")
    laptop = app.test_client()
    answer(laptop, DISCARD, card=DISCARD.answers[0])
    answer(laptop, SECOND, card=SECOND.answers[0])
    tabs = [tab_of(app, laptop) for _ in range(3)]
    forms = [{"csrf_token": csrf_of(tab, "/login"), "username": "ada", "password": PASSWORD} for tab in tabs]
    statuses = at_once([lambda tab=tab, form=form: tab.post("/login", data=form).status_code
                        for tab, form in zip(tabs, forms, strict=True)])
    assert statuses == [303, 303, 303]
    merged = by_username(app, "ada")
    assert len(players(app)) == 1 and len(merged["attempts"]) == 2 and merged["streak"] == 2


def test_logging_in_brings_the_games_against_the_computer_along(app: Flask) -> None:
    from tests.webapp.test_play import _start

    laptop = app.test_client()
    register(app.test_client(), "ada")
    game_id = _start(laptop)
    assert laptop.get(f"/play/{game_id}").status_code == 200
    assert login(laptop, "ada").status_code == 303
    assert laptop.get(f"/play/{game_id}").status_code == 200  # the account's now
    with app.app_context():
        from webapp.db import Game

        owner = session().scalars(select(Game.player_id).where(Game.id == game_id)).one()
    assert owner == by_username(app, "ada")["id"]
