"""The session cookie: Flask's signed cookie session, sent again only when its content changed or
when the one the browser holds was signed more than ``REFRESH_AFTER`` ago.

Flask re-signs and re-sends a permanent session's cookie on every response
(``SESSION_REFRESH_EACH_REQUEST``), so its expiry slides with each visit: a JSON dump, a zlib
compression and an HMAC on every request, for an expiry (400 days) that moving once a day keeps
just as well. Here a visit moves it when the cookie is a day old; a change (a new player, a CSRF
token, log-in, log-out) is sent at once as before. The signature, its check and the key
rotation (``SECRET_KEY_FALLBACKS``) are Flask's own.
"""

from __future__ import annotations

import time

from flask import Flask
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface, SessionMixin
from itsdangerous import BadSignature
from werkzeug.wrappers import Request

REFRESH_AFTER = 24 * 3600  # seconds


class SignedCookieSession(SecureCookieSession):
    signed_at: float | None = None  # when the browser's cookie was signed (None: no valid cookie)


class SessionInterface(SecureCookieSessionInterface):
    session_class = SignedCookieSession

    def open_session(self, app: Flask, request: Request) -> SignedCookieSession | None:
        serializer = self.get_signing_serializer(app)
        if serializer is None:
            return None
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:
            return self.session_class()
        try:
            lifetime = int(app.permanent_session_lifetime.total_seconds())
            data, signed_at = serializer.loads(value, max_age=lifetime, return_timestamp=True)
        except BadSignature:
            return self.session_class()
        session = self.session_class(data)
        session.signed_at = signed_at.timestamp()
        return session

    def should_set_cookie(self, app: Flask, session: SessionMixin) -> bool:
        if session.modified:
            return True
        if not (session.permanent and app.config["SESSION_REFRESH_EACH_REQUEST"]):
            return False
        signed_at = getattr(session, "signed_at", None)
        return signed_at is None or time.time() - signed_at >= REFRESH_AFTER
