"""Errors as the person (or script) asking can read them: a page with the message for people,
``{"error": ...}`` for the API, the right status code, and never a traceback.

A request htmx made (``HX-Request``: the analysis page's live answer) gets the message as the
answer area alone (``analysis/_problem.html``), never a whole page inside the page: the form
around it keeps working, and the next question replaces the message. On ``/play`` (whose htmx
requests swap the table) the message takes the table's place, with a link back to it. A refusal for too many
requests says when to try again, in words and in ``Retry-After``.
"""

from __future__ import annotations

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError, TooManyRequests

from webapp.safety import retry_after

# What each refusal means for someone using the site, beside the status line.
MESSAGES = {
    400: "The request could not be read.",
    404: "There is no page here.",
    405: "This address does not take that kind of request.",
    413: "The request is larger than any question needs.",
    415: "Send the question as JSON (Content-Type: application/json).",
    429: "Too many requests from your address in a short time: wait a minute and ask again.",
    503: "The server is busy: ask again in a few seconds.",
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
    wait = retry_after(error) if isinstance(error, TooManyRequests) else getattr(error, "retry_after", None)
    wait = wait if isinstance(wait, int) else None
    if wait is not None:
        message = f"{message}{'' if message.endswith('.') else '.'} Try again in {_seconds(wait)}."
    headers = {header: error.get_response().headers[header] for header in ("Retry-After", "Allow")
               if header in error.get_response().headers}
    if wait is not None:
        headers["Retry-After"] = str(wait)
    if wants_json():
        response = jsonify(error=message)
        response.status_code = code
        response.headers.update(headers)
        return response
    template = "error.html"
    if request.headers.get("HX-Request"):
        template = "play/_problem.html" if request.blueprint == "play" else "analysis/_problem.html"
    page = render_template(template, code=code, title=error.name, message=message, wait=wait,
                           game_id=(request.view_args or {}).get("game_id"))
    return Response(page, code, headers)


def _seconds(count: int) -> str:
    if count < 120:
        return f"{count} second{'s' * (count != 1)}"
    minutes = -(-count // 60)
    return f"{minutes} minutes" if minutes < 120 else f"{-(-minutes // 60)} hours"


def _unexpected(error: Exception) -> Response | tuple[str, int]:
    """A bug: logged with its traceback for us, a plain 500 for the visitor."""
    current_app.logger.exception("unexpected error on %s %s", request.method, request.path)
    return _http_error(InternalServerError())
