"""The safety layer every page shares: CSRF tokens, per-client rate limits and the security
headers (a Content-Security-Policy that allows no inline script, no framing, no sniffing).

Rate limits are Flask-Limiter's, counted in a moving window (``RATELIMIT_STRATEGY``): "60 per
minute" means at most 60 in any 60 seconds, never 60 at the end of one minute and 60 more at the
start of the next. A limit a view decorates is checked before the view runs; ``spend`` is the
same check made by hand at the moment a cost is known (a solver run, a new player row).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from flask import Flask, Response, current_app
from flask_limiter import Limiter, RouteLimit
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFProtect
from limits import RateLimitItem, parse
from werkzeug.exceptions import TooManyRequests

csrf = CSRFProtect()
limiter = Limiter(get_remote_address)  # per client address (ProxyFix makes it the real one behind proxies)

# Scripts and styles only from our own origin, never inline (htmx's own indicator styles are
# turned off in base.html for that); forms post only here; no plugin, base or frame tricks.
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])


def init_app(app: Flask) -> None:
    csrf.init_app(app)
    limiter.init_app(app)


def limit_text(setting: str) -> str:
    """The limit a setting names, as Flask-Limiter reads it: ``"20 per minute"``; a bare number
    (``ANALYSIS_PER_MINUTE``) is that many per minute."""
    value = current_app.config[setting]
    return f"{int(value)} per minute" if isinstance(value, int) else str(value)


def spend(setting: str, what: str, key: str | None = None) -> None:
    """One use of the limit ``setting`` names, for ``key`` (the client's address unless given):
    refused with a 429 saying "too many ``what``" and when to try again once it is spent."""
    if not current_app.config.get("RATELIMIT_ENABLED", True):
        return
    item = parse(limit_text(setting))
    identity = (setting.lower(), key or get_remote_address())
    if limiter.limiter.hit(item, *identity):
        return
    reset_at, _ = limiter.limiter.get_window_stats(item, *identity)
    raise TooManyRequests(_refusal(what, item), retry_after=max(1, math.ceil(reset_at - time.time())))


def _refusal(what: str, item: RateLimitItem) -> str:
    return f"too many {what} (at most {item.amount} per {_window(item)})"


def _window(item: RateLimitItem) -> str:
    unit = item.GRANULARITY.name
    return unit if item.multiples == 1 else f"{item.multiples} {unit}s"


def limited(setting: str, what: str, *, key_func: Callable[[], str] = get_remote_address,
            deduct_when: Callable[[Response], bool] | None = None) -> RouteLimit:
    """A view's limit from a setting, per address unless ``key_func`` says per what, worded
    "too many ``what``"; counted only for the responses ``deduct_when`` picks, if given."""
    def message() -> str:
        return _refusal(what, parse(limit_text(setting)))
    return limiter.limit(lambda: limit_text(setting), key_func=key_func, methods=["POST"],
                         scope=setting.lower(), deduct_when=deduct_when, error_message=message)


def retry_after(error: TooManyRequests) -> int | None:
    """Seconds until a refused client may try again: the refusal's own, or the breached limit's."""
    seconds = getattr(error, "retry_after", None)
    if isinstance(seconds, int):
        return seconds
    breached = limiter.current_limit
    if breached is not None and breached.breached:
        return max(1, math.ceil(breached.reset_at - time.time()))
    return None


def spend_analysis() -> None:
    """A solver run from this client (the page, its live updates and the API share one budget);
    only answers the solver works out are counted: the empty form, a bad field and an answer from
    the cache are free (``webapp.pool.answer`` calls this after the cache)."""
    spend("ANALYSIS_PER_MINUTE", "analyses from your address")


def security_headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
    return response
