"""The JSON API for scripts: ``POST /api/analyze`` takes the fields of an ``analyze --batch``
line and answers with the JSON of ``analyze --json``; errors are ``{"error": ...}`` with 400.

Only ``Content-Type: application/json`` is read (anything else is a 415): a web page can post
``text/plain`` to another site without asking first, and would spend its visitors' budget."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, abort, jsonify, request

from analyzer import QuestionError
from webapp.pool import answer
from webapp.questions import read_json

blueprint = Blueprint("api", __name__, url_prefix="/api")


@blueprint.post("/analyze")
def analyze() -> Response | tuple[Response, int]:
    if request.mimetype != "application/json":
        abort(415, "send the question as JSON, with the header Content-Type: application/json")
    try:
        question = read_json(_body())
        # Byte for byte what ``analyze --json`` prints (its key order, its separators).
        return Response(json.dumps(answer(question)) + "\n", mimetype="application/json")
    except QuestionError as error:
        return jsonify(error=str(error), fields=error.fields), 400


def _body() -> Any:
    try:
        return json.loads(request.get_data(cache=False))
    except UnicodeDecodeError:
        raise QuestionError({"request": "the body is not UTF-8 text"}) from None
    except json.JSONDecodeError as error:
        raise QuestionError({"request": f"the body is not JSON ({error.msg} at column {error.colno})"}) from None
    except RecursionError:
        raise QuestionError({"request": "the JSON is nested too deeply; send one flat object"}) from None
    except ValueError:  # an integer of thousands of digits
        raise QuestionError({"request": "the JSON holds a number far too large"}) from None
