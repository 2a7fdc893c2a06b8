"""Errors as the person (or script) asking can read them: a page with the message for people,
``{"error": ...}`` for the API, the right status code, and never a traceback."""

from __future__ import annotations

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError

# What each refusal means for someone using the site, beside the status line.
MESSAGES = {
    400: "The request could not be read.",
    404: "There is no page here.",
    405: "This address does not take that kind of request.",
    413: "The request is larger than any question needs.",
    429: "Too many analyses from your address in a short time: wait a minute and ask again.",
}


def init_app(app: Flask) -> None:
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)


def wants_json() -> bool:
    return request.path.startswith("/api/")


def _http_error(error: HTTPException) -> Response | tuple[str, int]:
    code = error.code or 500
    message = MESSAGES.get(code, error.description or "")
    if error.description and error.description != type(error).description:
        message = error.description[0].upper() + error.description[1:]  # abort(code, "what was wrong")
        if not message.endswith((".", "?", ")")):
            message += "."
    if code == 400 and error.description and "CSRF" in error.description:
        message = "The form had expired or did not come from this site: reload the page and send it again."
    elif code == 429 and error.description:
        message = f"Too many analyses from your address: at most {error.description}. Wait a moment and ask again."
    if wants_json():
        response = jsonify(error=message)
        response.status_code = code
        for header in ("Retry-After", "Allow"):
            if header in error.get_response().headers:
                response.headers[header] = error.get_response().headers[header]
        return response
    return render_template("error.html", code=code, title=error.name, message=message), code


def _unexpected(error: Exception) -> Response | tuple[str, int]:
    """A bug: logged with its traceback for us, a plain 500 for the visitor."""
    current_app.logger.exception("unexpected error on %s %s", request.method, request.path)
    return _http_error(InternalServerError())
