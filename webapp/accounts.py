"""Names and accounts: a display name without an account, and an optional account (register,
log in, log out) that keeps a player's progress across devices.

    GET/POST /name        the display name, for anonymous players and accounts alike
    GET/POST /register    username, password, confirmation: the current player becomes the account
    GET/POST /login       log in; this browser's anonymous history is adopted by the account
    POST     /logout      forget the account in this browser (a fresh anonymous player follows)

An account is the player row itself (``players.username``, ``players.password_hash``), so
registering keeps every answer given so far. Usernames are case-insensitive: kept in lower
case, which the unique constraint on ``players.username`` then guards. Passwords are hashed
with werkzeug (scrypt by default), never kept or logged in clear.

Log-in and register rotate the session (``players.start_session``): the old cookie, CSRF token
and all, is dropped, and a registering player's ``public_id`` (what the cookie carries) is made
anew, so a cookie planted in the browser beforehand never becomes the account's. Failed log-ins
are rate-limited per client address and per username; one message answers an unknown username
and a wrong password alike, and both cost a password check, so neither wording nor timing says
which usernames exist.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from flask import Blueprint, current_app, g, redirect, render_template, request, url_for
from flask_wtf import FlaskForm
from sqlalchemy import exists, func, select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session
from werkzeug.exceptions import TooManyRequests
from werkzeug.security import check_password_hash, generate_password_hash
from werkzeug.wrappers import Response
from wtforms import PasswordField, StringField
from wtforms.validators import DataRequired, EqualTo, InputRequired, Length, Regexp, ValidationError

from webapp.db import Attempt, Player, session, write_transaction
from webapp.players import (
    adopt,
    current_player,
    display_name,
    end_session,
    lock_pair,
    new_public_id,
    player_id_in_cookie,
    request_player,
    start_session,
)
from webapp.safety import limiter

blueprint = Blueprint("accounts", __name__)

NAME_MAX = 30  # a display name, in characters (the column holds 40)
USERNAME_MIN, USERNAME_MAX = 3, 30
PASSWORD_MIN, PASSWORD_MAX = 8, 128  # the cap keeps a hash's work bounded whatever is posted
USERNAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_.-]*\Z")
# Letters and digits of any script, inner spaces, and . ' - _; no controls, no markup.
NAME_PATTERN = re.compile(r"[^\W_](?:[\w.' -]*[\w.])?\Z")
BAD_LOG_IN = "Unknown username or wrong password."

# Failed log-ins allowed (a successful one costs nothing), overridable as RUMMY_LOGIN_PER_ADDRESS etc.
# Once a budget is spent every try waits, the right password too.
LIMITS = {
    "LOGIN_PER_ADDRESS": "10 per minute",  # one client guessing
    # Many clients guessing one account's password. Also a way to keep its owner out for the
    # rest of the hour; the trade-off is kept mild (an hour, 30 tries) and said in the message.
    "LOGIN_PER_USERNAME": "30 per hour",
    # Registrations that reach the username check (each costs a password hash, and "taken"
    # tells whether a username exists); a form refused for its fields costs nothing.
    "REGISTER_PER_ADDRESS": "20 per hour",
}


class Refused(ValueError):
    """A form that was read but cannot be done (a taken username): shown again at 400."""


# ---- the forms --------------------------------------------------------------------------------------


def _stripped(value: Any) -> Any:
    return " ".join(value.split()) if isinstance(value, str) else value


class NameForm(FlaskForm):
    name = StringField("Your name", filters=[_stripped], validators=[
        DataRequired("Write a name."),
        Length(max=NAME_MAX, message=f"A name is at most {NAME_MAX} characters."),
        Regexp(NAME_PATTERN, message="A name is letters, digits, spaces and . ' - _ only, "
                                     "starting with a letter or digit."),
    ])


def _canonical(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


class RegisterForm(FlaskForm):
    username = StringField("Username", filters=[_canonical], validators=[
        InputRequired("Choose a username."),
        Length(min=USERNAME_MIN, max=USERNAME_MAX,
               message=f"A username is {USERNAME_MIN} to {USERNAME_MAX} characters."),
        Regexp(USERNAME_PATTERN, message="A username is letters a-z, digits and . _ - only, "
                                         "starting with a letter or digit."),
    ])
    password = PasswordField("Password", validators=[
        InputRequired("Choose a password."),
        Length(min=PASSWORD_MIN, max=PASSWORD_MAX,
               message=f"A password is {PASSWORD_MIN} to {PASSWORD_MAX} characters."),
    ])
    confirm = PasswordField("Password again", validators=[
        InputRequired("Write the password a second time."),
        EqualTo("password", message="The two passwords differ."),
    ])


class LoginForm(FlaskForm):
    username = StringField("Username", filters=[_canonical], validators=[
        InputRequired("Write your username."),
        Length(max=USERNAME_MAX, message=f"A username is at most {USERNAME_MAX} characters."),
    ])
    password = PasswordField("Password", validators=[
        InputRequired("Write your password."),
        Length(max=PASSWORD_MAX, message=f"A password is at most {PASSWORD_MAX} characters."),
    ])

    def validate_username(self, field: StringField) -> None:
        if field.data and any(ord(char) < 32 for char in field.data):
            raise ValidationError("A username has no control characters.")


# ---- rate limits ------------------------------------------------------------------------------------


def _limit(name: str) -> str:
    return str(current_app.config.get(name) or LIMITS[name])


def _failed(response: Response) -> bool:
    return response.status_code == 400


def _username_tried(_response: Response) -> bool:
    """A registration that got as far as the username: made, or told the name is taken (which
    says the name exists, so asking many is limited like making many)."""
    return bool(g.get("username_tried"))


def _username_key() -> str:
    """The per-username budget's key: the name as it is looked up (so case and spaces do not
    buy fresh tries), cut to the longest a username can be plus one."""
    return "username:" + request.form.get("username", "").strip().lower()[:USERNAME_MAX + 1]


def _refusal(what: str, name: str) -> Callable[[], str]:
    """The 429 page's words for one limit (``_too_many`` makes them a sentence)."""
    return lambda: f"too many {what} (the limit is {_limit(name)})"


login_per_address = limiter.limit(
    lambda: _limit("LOGIN_PER_ADDRESS"), methods=["POST"], deduct_when=_failed, scope="login-address",
    error_message=_refusal("failed log-ins from your address", "LOGIN_PER_ADDRESS"))
login_per_username = limiter.limit(
    lambda: _limit("LOGIN_PER_USERNAME"), key_func=_username_key, methods=["POST"], deduct_when=_failed,
    scope="login-username", error_message=_refusal("failed log-ins for this username", "LOGIN_PER_USERNAME"))
register_per_address = limiter.limit(
    lambda: _limit("REGISTER_PER_ADDRESS"), methods=["POST"], deduct_when=_username_tried,
    scope="register-address", error_message=_refusal("registrations from your address", "REGISTER_PER_ADDRESS"))


@blueprint.errorhandler(TooManyRequests)
def _too_many(error: TooManyRequests) -> tuple[str, int]:
    """The app's 429 page, worded for log-ins (the app-wide wording speaks of analyses)."""
    said = error.description or "too many tries"
    message = f"{said[0].upper()}{said[1:]}. Wait a while and try again."
    return render_template("error.html", code=429, title="Too Many Requests", message=message), 429


# ---- passwords ----------------------------------------------------------------------------------------


@cache
def _decoy_hash() -> str:
    """A hash no password is checked against for real: an unknown username still costs a check."""
    return generate_password_hash("not a password: equalises the time of an unknown username")


def password_matches(account: Player | None, password: str) -> bool:
    if account is None or not account.password_hash:
        check_password_hash(_decoy_hash(), password)
        return False
    return check_password_hash(account.password_hash, password)


# ---- the header ------------------------------------------------------------------------------------------


@blueprint.app_context_processor
def _header() -> dict[str, Any]:
    return {"header_player": header_player}


def header_player() -> dict[str, Any] | None:
    """Who the header names, looked up only when a page's header is drawn and only for a browser
    that has a player; a database that cannot answer leaves the header anonymous, never a 500."""
    if player_id_in_cookie() is None:
        return None
    try:
        player = request_player(session())
    except SQLAlchemyError:
        current_app.logger.warning("header: the player could not be read", exc_info=True)
        session().rollback()
        return None
    if player is None:
        return None
    return {"name": display_name(player), "named": bool(player.name), "account": player.username is not None,
            "username": player.username}


# ---- the display name ------------------------------------------------------------------------------------


@blueprint.route("/name", methods=["GET", "POST"])
def name() -> Response | tuple[str, int]:
    form = NameForm()
    if request.method == "GET":
        player = current_player(session(), create=False)
        if player is not None and player.name:
            form.name.data = player.name
        return render_template("accounts/name.html", form=form, player=player), 200
    if not form.validate():
        return render_template("accounts/name.html", form=form, player=None), 400
    with write_transaction() as db:  # reads the player, then writes: SQLite's write lock first
        player = current_player(db, lock=True)
        assert player is not None
        player.name = form.name.data
    return redirect(url_for("train.dashboard"), code=303)


# ---- register ----------------------------------------------------------------------------------------


def _history(db: Session, player: Player | None) -> int:
    """How many answers ``player`` has given (what registering keeps, or logging in adopts)."""
    if player is None:
        return 0
    return db.scalar(select(func.count()).select_from(Attempt).where(Attempt.player_id == player.id)) or 0


@blueprint.route("/register", methods=["GET", "POST"])
@register_per_address
def register() -> Response | tuple[str, int]:
    form = RegisterForm()
    if request.method == "GET" or not form.validate():
        return _register_page(form, 200 if request.method == "GET" else 400)
    g.username_tried = True
    password_hash = generate_password_hash(form.password.data)  # slow on purpose: outside the write lock
    try:
        with write_transaction() as db:
            player = current_player(db, create=False, lock=True)
            if player is not None and player.username is not None:
                raise Refused(f"You are logged in as {player.username}: log out to make another account.")
            if db.scalar(select(exists().where(Player.username == form.username.data))):
                raise Refused(f"The username {form.username.data!r} is taken: choose another.")
            if player is None:
                player = Player()
                db.add(player)
            player.username = form.username.data
            player.password_hash = password_hash
            player.public_id = new_public_id()  # the cookie from before no longer names this player
            db.flush()
    except Refused as refusal:
        form.form_errors.append(str(refusal))
        return _register_page(form, 400)
    except IntegrityError:  # the same username taken at the same moment by another request
        session().rollback()
        form.form_errors.append(f"The username {form.username.data!r} is taken: choose another.")
        return _register_page(form, 400)
    start_session(player)
    return redirect(url_for("train.dashboard"), code=303)


def _register_page(form: RegisterForm, status: int) -> tuple[str, int]:
    db = session()
    player = current_player(db, create=False)
    context = {"form": form, "player": player, "answers": _history(db, player)}
    db.rollback()
    return render_template("accounts/register.html", **context), status


# ---- log in, log out ----------------------------------------------------------------------------------


@blueprint.route("/login", methods=["GET", "POST"])
@login_per_address
@login_per_username
def login() -> Response | tuple[str, int]:
    form = LoginForm()
    if request.method == "GET" or not form.validate():
        return _login_page(form, 200 if request.method == "GET" else 400)
    db = session()
    account = db.scalars(select(Player).where(Player.username == form.username.data)).one_or_none()
    checked = account.password_hash if account is not None else None
    if not password_matches(account, form.password.data):
        db.rollback()
        form.form_errors.append(BAD_LOG_IN)
        return _login_page(form, 400)
    assert account is not None
    with write_transaction() as db:
        current = current_player(db, create=False)
        rows = lock_pair(db, account.id, current.id if current is not None else account.id)
        account = rows.get(account.id)
        if account is None or account.password_hash != checked:  # changed since the check: check again
            raise Refused(BAD_LOG_IN)
        # Gone from ``rows``: another tab's log-in adopted it a moment ago, nothing is left to move.
        anonymous = rows.get(current.id) if current is not None and current.id != account.id else None
        if anonymous is not None and anonymous.username is None:
            adopt(db, anonymous, account)
    start_session(account)
    return redirect(url_for("train.dashboard"), code=303)


@blueprint.errorhandler(Refused)
def _refused(error: Refused) -> tuple[str, int]:
    """A log-in refused inside its transaction (rolled back): the form again, at 400."""
    form = LoginForm()
    form.form_errors.append(str(error))
    return _login_page(form, 400)


def _login_page(form: LoginForm, status: int) -> tuple[str, int]:
    db = session()
    player = current_player(db, create=False)
    adoptable = _history(db, player) if player is not None and player.username is None else 0
    context = {"form": form, "player": player, "answers": adoptable}
    db.rollback()
    return render_template("accounts/login.html", **context), status


@blueprint.post("/logout")
def logout() -> Response:
    """Forget the account in this browser. An anonymous player is not forgotten: without an
    account there would be no way back to their history."""
    player = current_player(session(), create=False)
    if player is not None and player.username is not None:
        end_session()
    return redirect(url_for("home.index"), code=303)
