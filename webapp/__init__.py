"""The web app: the analysis page, its JSON twin, and the trainer, in Flask.

``create_app(test_config=None)`` builds the app (the Flask tutorial's application factory):
configuration, the database, the safety layer (CSRF, rate limits, security headers, size
limits) and the blueprints, one module per part of the site. The app calls only the analyser's
public API; the analyser never imports Flask.

Configuration, later sources overriding earlier ones: the defaults below, ``config.py`` in the
instance folder, environment variables ``RUMMY_<NAME>`` (``RUMMY_ANALYSIS_PER_MINUTE=60``,
values read as JSON where they parse), ``DATABASE_URL``, then ``test_config``.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path
from typing import Any

from flask import Flask, Response
from werkzeug.middleware.proxy_fix import ProxyFix

DEFAULTS: dict[str, Any] = {
    # The request body cap: a hand is a few dozen bytes, a JSON question well under 1 KiB.
    "MAX_CONTENT_LENGTH": 16 * 1024,
    "MAX_FORM_MEMORY_SIZE": 16 * 1024,
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Lax",
    "SESSION_COOKIE_SECURE": False,  # set RUMMY_SESSION_COOKIE_SECURE=true behind HTTPS
    "WTF_CSRF_TIME_LIMIT": None,  # the token lives as long as the session: a form left open still posts
    # Seconds one solver call may take: far above what real hands need (benchmarks/solver.py:
    # p99 5 ms), low enough that a crafted hand cannot hold a worker for long.
    "ANALYSIS_TIME_LIMIT": 2.0,
    "ANALYSIS_MAX_ROLLOUTS": 200,  # the buy verdict's simulated rounds, at most (the CLI's default is 120)
    "ANALYSIS_CACHE_SIZE": 2048,  # answers kept by question; 0 turns the cache off
    "ANALYSIS_PER_MINUTE": 60,  # solver runs per client and minute (page, live updates and API together)
    # Worker processes that run the solver (webapp/pool.py): None, one per core; 0, in the
    # request's own thread (no pool).
    "ANALYSIS_WORKERS": None,
    "RATELIMIT_STORAGE_URI": "memory://",  # redis://host:6379 when several processes serve
    "RATELIMIT_STRATEGY": "moving-window",  # at most N in any window, not N per clock minute
    "RATELIMIT_HEADERS_ENABLED": True,
    "TRUSTED_PROXIES": 0,  # reverse proxies in front whose X-Forwarded-For is to be believed
    "PERMANENT_SESSION_LIFETIME": 400 * 24 * 3600,  # the anonymous player's cookie: a browser's longest
    "PUZZLE_BANK": None,  # a folder of puzzle shards; None: the bank shipped with ``puzzles``
    # Seconds /practice may choose from puzzle ratings read that long ago (other processes'
    # answers; this process's own are seen at once): webapp/puzzle_ratings.py.
    "TRAINER_RATINGS_MAX_AGE": 5.0,
    "TRAINER_TODAY": None,  # an ISO date that fixes "today" (tests); None: today in UTC
    # Trust (webapp/trust.py): rated attempts that make a player established, and how many
    # established players' reports take a puzzle out of service for everyone.
    "ESTABLISHED_ATTEMPTS": 10,
    "REPORT_QUORUM": 3,
    # The trainer's limits, per address or per player (the cookie's), in any such window.
    "ANSWERS_PER_PLAYER": "20 per minute",
    "ANSWERS_PER_ADDRESS": "60 per minute",
    "NEW_PLAYERS_PER_ADDRESS": "30 per hour",  # rows made on a first answer, name or report
    "REPORTS_PER_PLAYER": "10 per day",
    "REPORTS_PER_ADDRESS": "30 per day",
}


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """The app, configured and with its blueprints; the database is migrated separately
    (``rummy-trainer`` does it, or ``flask --app webapp init-db``)."""
    app = Flask(__name__, instance_path=os.environ.get("RUMMY_INSTANCE_PATH") or None,
                instance_relative_config=True)
    app.config.from_mapping(DEFAULTS)
    app.config.from_pyfile("config.py", silent=True)
    app.config.from_prefixed_env("RUMMY")
    if os.environ.get("DATABASE_URL"):
        app.config["DATABASE_URL"] = os.environ["DATABASE_URL"]
    if test_config is not None:
        app.config.from_mapping(test_config)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    app.config.setdefault("DATABASE_URL", f"sqlite:///{Path(app.instance_path) / 'rummy.sqlite3'}")
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _instance_secret_key(Path(app.instance_path))
    if app.config["TRUSTED_PROXIES"]:
        proxies = int(app.config["TRUSTED_PROXIES"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)  # type: ignore[method-assign]

    from webapp import (
        accounts,
        analysis,
        api,
        cookie,
        db,
        errors,
        feedback,
        home,
        play,
        puzzle_parts,
        questions,
        reports,
        safety,
        train,
    )

    app.session_interface = cookie.SessionInterface()
    db.init_app(app)
    safety.init_app(app)
    errors.init_app(app)
    questions.init_app(app)
    analysis.init_app(app)
    puzzle_parts.init_app(app)
    feedback.init_app(app)
    reports.init_app(app)
    play.init_app(app)
    app.register_blueprint(home.blueprint)
    app.register_blueprint(analysis.blueprint)
    app.register_blueprint(api.blueprint)
    app.register_blueprint(train.blueprint)
    app.register_blueprint(accounts.blueprint)
    app.register_blueprint(play.blueprint)
    safety.csrf.exempt(api.blueprint)  # JSON for scripts: no cookies are read, no state changes

    @app.after_request
    def _headers(response: Response) -> Response:
        return safety.security_headers(response)

    return app


def _instance_secret_key(instance: Path) -> str:
    """The instance folder's secret key, generated on first use (never committed: the instance
    folder is ignored). Created exclusively, so two processes starting at once agree on it."""
    path = instance / "secret_key"
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for _ in range(50):  # another process may have created it a moment ago and be writing it
            key = path.read_text(encoding="ascii").strip()
            if key:
                return key
            time.sleep(0.02)
        raise RuntimeError(f"{path} is empty: delete it and a new key is made") from None
    key = secrets.token_hex(32)
    with os.fdopen(descriptor, "w", encoding="ascii") as stream:
        stream.write(key + "\n")
    return key
