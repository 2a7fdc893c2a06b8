"""The safety layer every page shares: CSRF tokens, per-client rate limits and the security
headers (a Content-Security-Policy that allows no inline script, no framing, no sniffing)."""

from __future__ import annotations

from flask import Flask, Response, current_app, g
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFProtect

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


def _analyses_per_minute() -> str:
    return f"{int(current_app.config['ANALYSIS_PER_MINUTE'])} per minute"


# One budget per client for everything that runs the solver: the page, its live updates, the API.
# Only answers the solver worked out count (``g.solver_ran``, set by ``questions.answer``): the
# empty form, a bad field and an answer from the cache are free. A client over its budget is
# refused everything until the minute has passed.
analysis_limit = limiter.shared_limit(
    _analyses_per_minute, scope="analysis",
    deduct_when=lambda _response: bool(g.get("solver_ran")),
)


def security_headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
    return response
