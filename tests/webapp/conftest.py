"""Fixtures of the web app's tests: an app on a fresh database (SQLite always; PostgreSQL too
when TEST_DATABASE_URL or DATABASE_URL names a server, as .ci/run does), a test client, and a
live server on loopback for the browser tests (Playwright driving Debian's chromium)."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from playwright.sync_api import ConsoleMessage, Page

from webapp import create_app
from webapp.db import alembic_config, upgrade

CHROMIUM = Path("/usr/bin/chromium")
POSTGRES_URL = os.environ.get("TEST_DATABASE_URL") or os.environ.get("DATABASE_URL")


def _fresh_postgres(url: str) -> str:
    """The PostgreSQL database emptied (every migration undone), to be migrated again."""
    from alembic import command

    upgrade(url)  # from any earlier state to head, then all the way down
    command.downgrade(alembic_config(url), "base")
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each database the suite runs against: SQLite in a temporary folder, and PostgreSQL
    where a server is given (CI sets one; skipped locally without it)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'test.sqlite3'}"
    if not POSTGRES_URL:
        pytest.skip("no PostgreSQL server: set TEST_DATABASE_URL (or DATABASE_URL) to run this leg")
    return _fresh_postgres(POSTGRES_URL)


def make_app(tmp_path: Path, database_url: str | None = None, **config: Any) -> Flask:
    settings: dict[str, Any] = {
        "TESTING": True,
        "DATABASE_URL": database_url or f"sqlite:///{tmp_path / 'test.sqlite3'}",
        "RATELIMIT_ENABLED": False,
        "WTF_CSRF_ENABLED": True,
    }
    settings.update(config)
    os.environ["RUMMY_INSTANCE_PATH"] = str(tmp_path / "instance")
    try:
        app = create_app(settings)
    finally:
        del os.environ["RUMMY_INSTANCE_PATH"]
    upgrade(app.config["DATABASE_URL"])
    return app


def establish(app: Flask, client: FlaskClient, rated: int = 10, deviation: float | None = None) -> int:
    """Make ``client``'s player a row (by taking a name) and give it ``rated`` rated attempts
    (and a deviation), as if it had played that much: trusted by ``webapp.trust``. Its id."""
    import re

    from sqlalchemy import select

    from webapp.db import Player, session

    page = client.get("/name")
    token = re.search(r'<meta name="csrf-token" content="([^"]+)"', page.text)
    assert token is not None
    assert client.post("/name", data={"csrf_token": token.group(1), "name": "Regular"}).status_code == 303
    with client.session_transaction() as cookie:
        public_id = cookie["player"]
    with app.app_context():
        db = session()
        player = db.scalars(select(Player).where(Player.public_id == public_id)).one()
        player.rated_attempts = rated
        if deviation is not None:
            player.deviation = deviation
        db.commit()
        return player.id


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app(tmp_path)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


# ---- the browser tests ----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app served by waitress on a loopback port, as rummy-trainer serves it."""
    with served(make_app(tmp_path_factory.mktemp("live"))) as base:
        yield base


@contextlib.contextmanager
def served(app: Flask) -> Iterator[str]:
    """``app`` served by waitress on a free loopback port, once it accepts connections: its address."""
    import waitress.server

    server = waitress.server.create_server(app, host="127.0.0.1", port=_free_port(), threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", server.effective_port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.close()


SCREENSHOTS = Path(os.environ["WEB_SCREENSHOTS"]) if os.environ.get("WEB_SCREENSHOTS") else None


@pytest.fixture
def page(page: Page) -> Iterator[Page]:
    """Playwright's page (a new browser context each test: a new player), failing the test on any
    script error or CSP violation it logs."""
    problems: list[str] = []

    def heard(message: ConsoleMessage) -> None:
        # a 400 or 429 answer is logged as a failed resource: that is the page working as meant
        if message.type == "error" and not any(f"status of {code}" in message.text for code in (400, 429)):
            problems.append(message.text)

    page.on("console", heard)
    page.on("pageerror", lambda error: problems.append(str(error)))
    yield page
    assert problems == []


def shot(page: Page, name: str) -> None:
    """Save the whole page as WEB_SCREENSHOTS/<name>.png when that variable names a folder."""
    if SCREENSHOTS:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Debian's chromium, never a browser downloaded by ``playwright install``."""
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser tests: apt-get install -y chromium")
        pytest.skip("no /usr/bin/chromium here: apt-get install -y chromium to run the browser tests")
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    }
