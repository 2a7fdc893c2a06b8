"""The session cookie: Flask's signed cookie session, sent again only when its content changed or
when the one the browser holds was signed more than ``REFRESH_AFTER`` ago.

Flask re-signs and re-sends a permanent session's cookie on every response
(``SESSION_REFRESH_EACH_REQUEST``), so its expiry slides with each visit: a JSON dump, a zlib
compression and an HMAC on every request, for an expiry (400 days) that moving once a day keeps
just as well. Here a visit moves it when the cookie is a day old; a change (a new player, a CSRF
token, log-in, log-out) is sent at once as before. The session itself says when its cookie was
signed (``SIGNED_AT``), and Flask's ``should_set_cookie`` hook reads it; reading, signing and
checking the cookie, and the key rotation (``SECRET_KEY_FALLBACKS``), are all Flask's own.
"""

from __future__ import annotations

import time

from flask import Flask, Response
from flask.sessions import SecureCookieSessionInterface, SessionMixin

REFRESH_AFTER = 24 * 3600  # seconds
SIGNED_AT = "_signed_at"  # the session's key for when its cookie was signed (seconds since the epoch)


class SessionInterface(SecureCookieSessionInterface):
    def should_set_cookie(self, app: Flask, session: SessionMixin) -> bool:
        if session.modified:
            return True
        if not (session.permanent and app.config["SESSION_REFRESH_EACH_REQUEST"]):
            return False
        signed_at = session.get(SIGNED_AT)
        return not isinstance(signed_at, int) or time.time() - signed_at >= REFRESH_AFTER

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        """Flask's, the session first stamped with the time when its cookie is to be signed."""
        if session and self.should_set_cookie(app, session):
            session[SIGNED_AT] = int(time.time())
        super().save_session(app, session, response)
