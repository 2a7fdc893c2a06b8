"""The safety points: CSRF on state-changing forms, the Content-Security-Policy, cookie flags,
the secret key, rate limits per client, the solver's time cap, the answer cache, and no
traceback ever."""

from __future__ import annotations

import re
import stat
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

import analyzer.question
import webapp.cookie
from tests.webapp.conftest import make_app

HAND = {"hand": "7H 8H 9H 10H 5C 5D 5S", "round": "2"}


def test_a_state_changing_form_needs_its_csrf_token(tmp_path: Path) -> None:
    app = make_app(tmp_path)

    @app.post("/test-form")
    def form() -> str:
        return "saved"

    client = app.test_client()
    refused = client.post("/test-form", data={"name": "x"})
    assert refused.status_code == 400
    assert "did not come from this site" in refused.text
    token = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/").text)
    assert token
    accepted = client.post("/test-form", data={"name": "x", "csrf_token": token.group(1)})
    assert accepted.status_code == 200 and accepted.text == "saved"
    by_header = client.post("/test-form", headers={"X-CSRFToken": token.group(1)})  # htmx sends it so
    assert by_header.status_code == 200


def test_the_api_needs_no_csrf_token(client: FlaskClient) -> None:
    assert client.post("/api/analyze", json={"hand": "7H 8H 9H 10H 5C 5D 5S", "round": 2}).status_code == 200


def test_the_security_headers_allow_no_inline_script(client: FlaskClient) -> None:
    for url in ("/", "/analyze", "/missing"):
        headers = client.get(url).headers
        policy = headers["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert "frame-ancestors 'none'" in policy
        assert headers["X-Content-Type-Options"] == "nosniff"


def test_the_session_cookie_is_httponly_and_samesite(client: FlaskClient) -> None:
    response = client.get("/")
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_the_session_cookie_is_sent_again_only_when_changed_or_a_day_old(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    client = make_app(tmp_path).test_client()
    first = client.get("/practice")  # a new player: the cookie is made
    assert "Set-Cookie" in first.headers and "Expires=" in first.headers["Set-Cookie"]
    assert "Set-Cookie" in client.get(first.headers["Location"]).headers  # the page's CSRF token is added
    player = client.get_cookie("session")
    assert player is not None
    again = client.get(first.headers["Location"])
    assert again.status_code == 200 and "Set-Cookie" not in again.headers  # unchanged, seconds old
    assert client.get_cookie("session") == player  # the same player
    monkeypatch.setattr(webapp.cookie, "REFRESH_AFTER", 0)  # as if the cookie were a day old
    refreshed = client.get(first.headers["Location"])
    assert "Set-Cookie" in refreshed.headers and "Expires=" in refreshed.headers["Set-Cookie"]
    forged = make_app(tmp_path / "other").test_client()  # another key: the cookie is not this site's
    forged.set_cookie("session", player.value)
    assert "Set-Cookie" in forged.get("/practice").headers  # a fresh player, and its cookie


def test_the_secret_key_is_made_once_in_the_instance_folder(tmp_path: Path) -> None:
    first = make_app(tmp_path)
    key_file = Path(first.instance_path) / "secret_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(first.config["SECRET_KEY"]) == 64
    assert make_app(tmp_path).config["SECRET_KEY"] == first.config["SECRET_KEY"]


def test_analyses_are_rate_limited_per_client(tmp_path: Path) -> None:
    app = make_app(tmp_path, RATELIMIT_ENABLED=True, ANALYSIS_PER_MINUTE=2)
    client = app.test_client()
    for _ in range(5):
        assert client.get("/analyze").status_code == 200  # the empty form costs nothing
        assert client.get("/analyze", query_string={"hand": "9X", "round": "2"}).status_code == 400  # nor bad input
    assert client.get("/analyze", query_string=HAND).status_code == 200
    assert client.get("/analyze", query_string=HAND).status_code == 200  # from the cache: free
    assert client.post("/api/analyze", json={**HAND, "round": 2}).status_code == 200
    page = client.get("/analyze", query_string={**HAND, "round": "3"})
    assert page.status_code == 429 and "Too many analyses" in page.text
    api = client.post("/api/analyze", json={**HAND, "round": 4})
    assert api.status_code == 429 and "Too many analyses" in api.get_json()["error"]
    assert "Retry-After" in api.headers
    # while refused, answers from the cache and the empty form are still served
    assert client.post("/api/analyze", json={**HAND, "round": 2}).status_code == 200
    assert client.get("/analyze", query_string=HAND).status_code == 200
    assert client.get("/analyze").status_code == 200
    other = app.test_client()
    assert other.get("/analyze", query_string=HAND,
                     environ_base={"REMOTE_ADDR": "192.0.2.7"}).status_code == 200  # another client


def test_the_solver_gets_the_servers_time_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(tmp_path, ANALYSIS_TIME_LIMIT=0.75, ANALYSIS_WORKERS=0)  # in this process: seen here
    seen: list[Any] = []
    real = analyzer.question.analyze

    def recording(*args: Any, **kwargs: Any) -> Any:
        seen.append(args[4])
        return real(*args, **kwargs)

    monkeypatch.setattr(analyzer.question, "analyze", recording)
    assert app.test_client().post("/api/analyze", json={**HAND, "round": 2}).status_code == 200
    assert seen == [0.75]


def test_answers_are_cached_by_question(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(tmp_path, ANALYSIS_WORKERS=0)  # in this process, where the count is kept
    calls: list[Any] = []
    real = analyzer.question.advise

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(analyzer.question, "advise", counting)
    client = app.test_client()
    first = client.get("/analyze", query_string={"hand": "7h 8h 9h 10h 5c 5d 5s", "round": "2"})
    again = client.get("/analyze", query_string={"hand": "5S,5D,5C,10H,9H,8H,7H", "round": "2"})  # same cards
    assert first.status_code == again.status_code == 200
    assert len(calls) == 1
    client.get("/analyze", query_string={"hand": "7h 8h 9h 10h 5c 5d 5s", "round": "3"})
    assert len(calls) == 2


def test_a_bug_is_a_plain_500_page_without_a_traceback(tmp_path: Path) -> None:
    app = make_app(tmp_path, TESTING=False)

    @app.get("/boom")
    def boom() -> str:
        raise RuntimeError("a bug")

    response = app.test_client().get("/boom")
    assert response.status_code == 500
    assert "Traceback" not in response.text and "a bug" not in response.text
    assert "Internal Server Error" in response.text
