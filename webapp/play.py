"""Play a round or a whole game against the computer: ``/play`` starts one, ``/play/<id>`` is
the table.

A game is a ``games`` row holding the round's record (webapp/tables.py rebuilds the table from
it on each request); a whole game (every round of the rule set, in order) keeps the rounds over
beside it (``past``) and deals each next round from the game's seed (``tables.round_seed``) when
the person asks for it ("Next round", a move form like the others). Every move is a plain form posted to ``/play/<id>/move`` and answered by
a redirect to the table (POST-redirect-GET); htmx boosts the forms (the table is swapped in
place, no page load). Each move form carries a signed one-time token naming the player, the
game and the game's move count: a form sent twice, or for another game or player, is refused
(400) and nothing changes. A game is its owner's alone: anyone else gets 404.

The engine checks every move server-side; an illegal one is refused with its message (the
table again, 400) and nothing is stored. The computer's turns are played on the server, by the
app's worker processes (``webapp.pool``: its Python never holds the serving threads). The page
itself (htmx) is never held by them: its move stores the person's decision (and the turn it
belongs to) at once, and the table, while a computer player is to play, asks
``/play/<id>/advance`` for one computer turn at a time, showing each as it comes. A plain form (no
JavaScript) and the JSON API play on to the person's next decision before answering; a table
left in the computer's turn (a reload, a restart) offers "Continue".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import select
from sqlalchemy.orm import Session
from werkzeug.wrappers import Response as BaseResponse

from analyzer import (
    PRESETS,
    TITLES,
    Card,
    JokerSubstitution,
    Outcome,
    PlacedMeld,
    RecordError,
    Review,
    Rules,
    Table,
    TableError,
    Turn,
    advise,
    card_of,
    game_record,
    review_game,
)
from analyzer.render import render_advice
from webapp.db import Game as GameRow
from webapp.db import Player, session, write_transaction
from webapp.players import current_player
from webapp.pool import Busy, in_worker
from webapp.safety import spend, spend_analysis
from webapp.tables import (
    STRENGTHS,
    Game,
    MoveError,
    Pause,
    Played,
    Setup,
    apply_step,
    lay_down_melds,
    parse_card,
    play_of,
    play_on,
    points_of,
    random_seed,
    round_seed,
    step_of_melds,
    turn_can_end,
)

blueprint = Blueprint("play", __name__)
MAX_SEED = 2**62
HINT_SECONDS = 2.0  # the hint's time limit (the analysis page's own)


def _signer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt="play-move")


def issue_move_token(player: Player, row: GameRow) -> str:
    return _signer().dumps([player.public_id, row.id, row.version])


def _check_move_token(player: Player, row: GameRow, *, stale_ok: bool = False) -> bool:
    """Refuse (400) a move form not issued by this site, or for another game or player; one
    sent already (the game has moved on) too, unless ``stale_ok``: then False."""
    try:
        owner, game_id, version = _signer().loads(request.form.get("token", ""))
    except (BadSignature, ValueError, TypeError):
        abort(400, "the move form was not issued by this site: reload the table")
    if owner != player.public_id or game_id != row.id:
        abort(400, "the move form belongs to another game or player: reload the table")
    if version != row.version:
        if stale_ok:
            return False
        abort(400, "this move form was sent already (or the table has moved on): reload the table")
    return True


# ---- starting a round ---------------------------------------------------------------------------


@blueprint.get("/play")
def start_page() -> str:
    db = session()
    player = current_player(db, create=False)
    games = [] if player is None else list(db.scalars(
        select(GameRow).where(GameRow.player_id == player.id).order_by(GameRow.created_at.desc()).limit(20)))
    return render_template("play/start.html", presets=[(name, TITLES[name][0]) for name in PRESETS],
                           strengths=STRENGTHS, games=games, values=request.args, error=None)


def _setup_from(form: Mapping[str, str]) -> tuple[Setup, bool]:
    """The game the start form asks for and whether it is the whole game (the setup's round is
    then 1; its seed is the game's)."""
    rules = form.get("rules", "progressive")
    if rules not in PRESETS:
        raise MoveError(f"no rule set {rules!r}: choose one of {', '.join(PRESETS)}")
    rounds = len(PRESETS[rules].rounds)
    length = form.get("length", "round")
    if length not in ("round", "game"):
        raise MoveError("play one round or the whole game")
    whole = length == "game"
    try:
        number = 1 if whole else int(form.get("round", "1"))
        players = int(form.get("players", "4"))
        seed_text = form.get("seed", "").strip()
        seed = int(seed_text) if seed_text else random_seed()
    except ValueError:
        raise MoveError("the round, the players and the seed are whole numbers") from None
    if not 1 <= number <= rounds:
        raise MoveError(f"{rules} has rounds 1 to {rounds}")
    if not 2 <= players <= 7:
        raise MoveError("a table has 2 to 7 players")
    if not 0 <= seed < MAX_SEED:
        raise MoveError(f"a seed is from 0 to {MAX_SEED - 1}")
    strength = form.get("strength", "greedy")
    if strength not in STRENGTHS:
        raise MoveError(f"the computer plays {', '.join(STRENGTHS)}, not {strength!r}")
    try:
        PRESETS[rules].deck_for(players)
    except ValueError as error:
        raise MoveError(str(error)) from None
    return Setup(rules, number, players, 0, strength, seed), whole


@blueprint.post("/play")
def start() -> BaseResponse | tuple[str, int]:
    try:
        setup, whole = _setup_from(request.form)
    except MoveError as error:
        return render_template("play/start.html", presets=[(name, TITLES[name][0]) for name in PRESETS],
                               strengths=STRENGTHS, games=[], values=request.form, error=str(error)), 400
    return _begin(setup, whole)


def _begin(setup: Setup, whole: bool) -> BaseResponse:
    """Deal a game (a whole game: its first round), store it as the visitor's (a game started
    counts against the address's limit) and send them to its table."""
    spend("GAMES_PER_ADDRESS", "games started from your address")
    row = GameRow(rules=setup.rules, round=setup.round, players=setup.players, seat=setup.seat,
                  strength=setup.strength, seed=setup.seed, pending=[], version=0, hints=0, whole=whole,
                  past=[] if whole else None)
    game = Game(_setup(row), [], turns=0)  # the computer's first turns, if any: the table asks for them
    row.thinking = game.thinking is not None
    row.record, row.finished = game.round_record()["events"], game.finished and _last_round(row)
    with write_transaction() as db:
        player = current_player(db)
        assert player is not None
        row.player_id = player.id
        db.add(row)
    return redirect(url_for("play.table", game_id=row.id), 303)


# ---- the table ----------------------------------------------------------------------------------


def _stored(row: GameRow) -> Game:
    """The game as stored, nobody thinking: at the person's decision (the turns before it
    replayed), at the computer's thinking the page asks for next, or over."""
    return _rebuilt(_setup(row), row.record, row.thinking, row.answer)


def _rebuilt(setup: Setup, record: Sequence[Mapping[str, Any]], thinking: bool, answer: Any) -> Game:
    """The game of a stored record: replayed to the person's decision; or, where it stopped for
    the computer's thinking, with the person's answer waiting for it (if any) given, up to the
    computer's first decision."""
    if not thinking:
        return Game(setup, record)
    return Game(setup, record, _answer_of(answer), turns=0, think=False)


def _answer_of(stored: Any) -> tuple[str, Any] | None:
    """The table's answer from its stored form: ``{"kind": "take" | "buy", "yes": bool}`` or
    ``{"kind": "play", "steps": [...]}`` (the turn's steps after the draw)."""
    if stored is None:
        return None
    if stored["kind"] == "play":
        return "play", play_of(stored["steps"])
    return stored["kind"], bool(stored["yes"])


def _setup(row: GameRow) -> Setup:
    """The round in play: a whole game deals each round from the game's seed."""
    seed = round_seed(row.rules, row.round, row.seed) if row.whole else row.seed
    return Setup(row.rules, row.round, row.players, row.seat, row.strength, seed)


def game_rounds(rules: str) -> int:
    """The rounds of a whole game of the rule set: all of them."""
    return len(PRESETS[rules].rounds)


def _rounds_of(row: GameRow) -> int:
    return game_rounds(row.rules) if row.whole else 1


def _last_round(row: GameRow) -> bool:
    return not row.whole or row.round >= game_rounds(row.rules)


def _scores(row: GameRow) -> list[list[int]]:
    """Each scored round's points per seat, in order (a whole game's rounds over, then this one's)."""
    rounds = [*(row.past or []), row.record]
    return [points for points in map(points_of, rounds) if points is not None]


def _totals(scores: Sequence[Sequence[int]], players: int) -> list[int]:
    return [sum(points[seat] for points in scores) for seat in range(players)]


def _earlier_rounds(row: GameRow) -> list[dict[str, Any]]:
    """A whole game's rounds over as the record holds them (each replayed: the record stays valid)."""
    return [Game(Setup(row.rules, number, row.players, row.seat, row.strength,
                       round_seed(row.rules, number, row.seed)), events).round_record()
            for number, events in enumerate(row.past or [], start=1)]


def _owned(db: Session, game_id: str, *, lock: bool = False) -> tuple[Player, GameRow]:
    """The game and its owner, the cookie's player; 404 for anyone else's or none."""
    player = current_player(db, create=False, lock=lock)
    if player is None or len(game_id) > 32:
        abort(404, "no such game of yours")
    query = select(GameRow).where(GameRow.id == game_id)
    if lock:  # read afresh: the row read earlier in the request may have moved on since
        query = query.with_for_update().execution_options(populate_existing=True)
    row = db.scalars(query).one_or_none()
    if row is None or row.player_id != player.id:
        abort(404, "no such game of yours")
    return player, row


@blueprint.get("/play/<game_id>")
def table(game_id: str) -> str:
    db = session()
    player, row = _owned(db, game_id)
    game = _stored(row)
    hint = _hint(game, row) if request.args.get("hint") and row.hints else None
    return render_template("play/table.html", **_table_context(player, row, game, hint=hint))


def _table_context(player: Player, row: GameRow, game: Game, *, error: str | None = None,
                   hint: str | None = None) -> dict[str, Any]:
    """What play/table.html shows: the table as the person sees it, their decision and the log."""
    table_ = game.table
    pause = game.pause
    holding = _holding(game, row)
    hand = _in_order(holding.hand, request.args.get("sort"))
    rules = game.rules
    outcome = table_.outcome() if game.finished else None
    events = game.round_record()["events"]
    return {
        "row": row, "game": game, "title": _table_title(row), "token": issue_move_token(player, row),
        "error": error, "hint": hint, "sort": request.args.get("sort", "suit"),
        # the table
        "seats": _seats(row, table_, holding), "stock": len(table_.stock), "offer_open": table_.offer_open,
        "face_up": table_.discards[-1].token if table_.discards else None,
        "contract": [f"{spec.kind.value} of {spec.size}" for spec in rules.round(row.round).contract],
        # the person's hand and turn
        "hand": [c.token for c in hand], "laid_down": holding.laid_down, "can_end": holding.can_end,
        "jokers_owed": holding.jokers_owed, "pending": row.pending,
        # the decision the table waits for
        "pause": pause, "waiting": game.waiting(), "may_buy": pause is not None and pause.kind == "buy",
        "penalty": rules.buy_penalty_in(row.round), "substitution": rules.joker_substitution is not JokerSubstitution.NONE,
        # the log, and the round's end
        # the log: the table's events (with an answer waiting for the computer, its first events too)
        "log": describe_events(events, row.seat), "fresh_from": _fresh_from(events, row.seat, _since()),
        "thinking": game.thinking, "thinking_about": game.thinking_about,
        "outcome": outcome, **_score_context(row, outcome),
    }


@dataclass(frozen=True)
class _Holding:
    """The person's hand and the table's melds with the steps of their turn in progress applied,
    and what that turn allows."""

    hand: Sequence[Card]
    melds: Sequence[Sequence[PlacedMeld]]  # by seat
    laid_down: bool
    can_end: bool = False
    jokers_owed: int = 0  # jokers taken back this turn, to be melded before it ends


def _holding(game: Game, row: GameRow) -> _Holding:
    """The person's side of the table: as stored, or with the turn in progress applied."""
    table_ = game.table
    laid_down = bool(table_.melds[row.seat])
    turn = _turn_in_progress(game, row)
    if turn is None:
        return _Holding(game.hand(), table_.melds, laid_down)
    return _Holding(turn.held(), turn.melds, laid_down or turn.laid_down_now, turn_can_end(turn), turn.jokers_owed)


def _turn_in_progress(game: Game, row: GameRow) -> Turn | None:
    """The person's turn after the draw with its steps so far applied; None when no step is
    pending (or the steps no longer apply: the table shows itself as stored)."""
    pause = game.pause
    if pause is None or pause.kind != "play" or not row.pending:
        return None
    try:
        return game.turn(row.pending)
    except (MoveError, TableError):
        return None


def _in_order(hand: Sequence[Card], sort: str | None) -> Sequence[Card]:
    """The hand by rank (jokers last) when the page asks for it, else as held (by suit)."""
    if sort == "rank":
        return sorted(hand, key=lambda c: (c.rank is None, c.rank or 0, c.sort_key()))
    return hand


def _seats(row: GameRow, table_: Table, holding: _Holding) -> list[dict[str, Any]]:
    """Each seat as the table shows it: its name, card count, buys and melds (as the record
    writes them, for analysis/_cards.html's ``meld`` macro)."""
    return [{"seat": s, "name": "You" if s == row.seat else f"Player {s + 1}",
             "cards": len(holding.hand) if s == row.seat else len(table_.hands[s]), "buys": table_.buys_used[s],
             "melds": [m.to_dict() for m in holding.melds[s]]}
            for s in range(row.players)]


def _table_title(row: GameRow) -> str:
    name = TITLES[row.rules][0]
    return f"{name} round {row.round} of {_rounds_of(row)}" if row.whole else f"{name} round {row.round}"


def _score_context(row: GameRow, outcome: Outcome | None) -> dict[str, Any]:
    """The scores: each scored round's points, the totals, the winners (the lowest total, once
    the game is over) and whether a whole game's next round is to be dealt."""
    scores = _scores(row)
    totals = _totals(scores, row.players)
    low = min(totals) if row.finished else None
    return {"scores": scores, "totals": totals, "winners": [s for s, t in enumerate(totals) if t == low],
            "next_round": row.whole and outcome is not None and not row.finished}


def _fresh_from(record: Sequence[Mapping[str, Any]], seat: int, since: int | None = None) -> int:
    """Where the log's new lines begin, shown one by one: the computer's turns since the
    person's own last event, or since event ``since`` (a computer turn the table just played)."""
    mine = 1 + max((i for i, e in enumerate(record) if e.get("seat") == seat), default=0)
    return mine if since is None else max(mine, since)


def _since() -> int | None:
    """The address's ``since``: the record's length before the computer's last turn, if a whole number."""
    text = request.args.get("since", "")
    return int(text) if text.isdigit() and len(text) < 6 else None


@blueprint.post("/play/<game_id>/move")
def move(game_id: str) -> ResponseReturnValue:
    """One move: checked and played out outside any write lock (to the end of its turn for the
    page, which then asks for the computer's turns one by one; else the computer's turns too),
    then stored in a short write transaction if the game has not moved on meanwhile."""
    db = session()
    player, row = _owned(db, game_id)
    _check_move_token(player, row)
    setup, version = _setup(row), row.version
    state = _State(list(row.record), list(row.pending), row.finished, row.thinking, row.answer)
    try:
        _make_move(setup, state, request.form)
    except (MoveError, TableError) as error:  # nothing was changed: the table again, with the message
        return _refused(player, row, str(error), 400)
    except Busy as busy:  # a plain form's move, every worker busy: nothing changed
        return _refused(player, row, str(busy.description), busy.code or 503)
    with write_transaction() as db:
        player, row = _owned(db, game_id, lock=True)
        if row.version != version:
            abort(400, "this move form was sent already (or the table has moved on): reload the table")
        row.record, row.pending, row.thinking, row.answer = state.record, state.pending, state.thinking, state.answer
        row.finished = state.finished and _last_round(row)
        if row.finished:
            row.totals = _totals(_scores(row), row.players)
        row.version += 1
    if _wants_json():
        return Response(json.dumps({"ok": True, "version": version + 1}), mimetype="application/json")
    return redirect(url_for("play.table", game_id=row.id, sort=request.form.get("sort") or None), 303)


@blueprint.post("/play/<game_id>/advance")
def advance(game_id: str) -> ResponseReturnValue:
    """The computer's thinking the table waits for (the page's: one turn; a plain form's: all up
    to the person's next decision), played outside any write lock and stored if the game has not
    moved on meanwhile. Nothing to play (a stale form: another request played it): the table as
    it is."""
    db = session()
    player, row = _owned(db, game_id)
    stored = len(row.record)
    if _check_move_token(player, row, stale_ok=True) and row.thinking:
        try:
            played = _think(row)
        except Busy as busy:  # every worker busy: the table as it is, "Continue" to ask again
            return _refused(player, row, str(busy.description), busy.code or 503)
        except (MoveError, TableError) as error:  # pragma: no cover - the engine refused a computer's play
            current_app.logger.error("game %s: the computer's turn failed: %s", game_id, error)
            return _refused(player, row, f"The computer's turn could not be played: {error}", 400)
        row = _store_thinking(game_id, row.version, played)
    if _wants_json():
        return Response(json.dumps({"ok": True, "version": row.version}), mimetype="application/json")
    return redirect(url_for("play.table", game_id=game_id, sort=request.form.get("sort") or None,
                            since=stored), 303)


def _refused(player: Player, row: GameRow, message: str, status: int) -> ResponseReturnValue:
    """The stored table with ``message`` (or the JSON error), nothing changed."""
    if _wants_json():
        response, _ = _json_error(message)
        return response, status
    return render_template("play/table.html", **_table_context(player, row, _stored(row), error=message)), status


def _think(row: GameRow) -> Played:
    """The computer's thinking the stored table waits for, played by a worker process
    (``webapp.pool``): for the page, the turn the person's answer waits in, else the next
    computer turn; else up to the person's next decision."""
    turns = _computer_turns()
    if turns is not None:
        turns = 0 if row.answer is not None else 1
    return in_worker(play_on, _setup(row), row.record, _answer_of(row.answer), turns, True)


def _store_thinking(game_id: str, version: int, played: Played) -> GameRow:
    """Store what the computer played, if the game is still at ``version``; the row as it is."""
    with write_transaction() as db:
        _, row = _owned(db, game_id, lock=True)
        if row.version == version:
            row.record, row.thinking, row.answer = played.events, played.thinking, None
            row.finished = played.finished and _last_round(row)
            if row.finished:
                row.totals = _totals(_scores(row), row.players)
            row.version += 1
    return row


def _computer_turns() -> int | None:
    """How many of the computer's turns a request of the page plays past the person's decision:
    none for the page's own (htmx) requests, which then ask for them one by one; all of them, up
    to the person's next decision, for a plain form and the JSON API."""
    return 0 if request.headers.get("HX-Request") == "true" and not _wants_json() else None


@blueprint.post("/play/<game_id>/next")
def next_round(game_id: str) -> BaseResponse:
    """A whole game's next round, dealt from the game's seed once the round in play is over."""
    db = session()
    player, row = _owned(db, game_id)
    _check_move_token(player, row)
    if not row.whole or row.finished or points_of(row.record) is None:
        abort(400, "there is no next round now: " + ("the game is over" if row.finished else "the round is not over"))
    version, number = row.version, row.round + 1
    game = Game(Setup(row.rules, number, row.players, row.seat, row.strength,
                      round_seed(row.rules, number, row.seed)), [], turns=_computer_turns())
    thinking = game.thinking is not None
    with write_transaction() as db:
        player, row = _owned(db, game_id, lock=True)
        if row.version != version:
            abort(400, "this move form was sent already (or the table has moved on): reload the table")
        row.past = [*(row.past or []), row.record]
        row.round, row.record, row.pending, row.thinking = number, game.round_record()["events"], [], thinking
        row.finished = game.finished and _last_round(row)
        if row.finished:  # pragma: no cover - the person plays first: a round never ends at its deal
            row.totals = _totals(_scores(row), row.players)
        row.version += 1
    return redirect(url_for("play.table", game_id=game_id), 303)


def _wants_json() -> bool:
    return request.accept_mimetypes.best == "application/json"


def _json_error(message: str) -> tuple[Response, int]:
    return Response(json.dumps({"error": message}, ensure_ascii=False), mimetype="application/json"), 400


@dataclass
class _State:
    """What a move changes in a game row."""

    record: list[Any]
    pending: list[Any]
    finished: bool
    thinking: bool  # stopped for the computer's thinking
    answer: Any  # the person's answer waiting for it (``_answer_of``), if any


def _make_move(setup: Setup, state: _State, form: Mapping[str, str]) -> None:
    """Apply the form's move to ``state`` (the record, the turn in progress), or raise and leave it."""
    action = form.get("action", "")
    game = _rebuilt(setup, state.record, state.thinking, state.answer)
    if game.finished:
        raise MoveError("the round is over")
    pause = game.pause
    if pause is None:
        raise MoveError("wait for your turn: " + game.waiting())
    if action in _ANSWERS:
        _answer(state, setup, game, pause, action)
    elif action == "reset":
        game.turn([])  # raises unless it is the person's turn to play
        state.pending = []
    elif action == "end":
        _end_turn(state, setup, game.turn(state.pending))
    else:
        turn = game.turn(state.pending)  # out of turn is said before an unknown action
        make = _STEP_MAKERS.get(action)
        if make is None:
            raise MoveError(f"no such move {action!r}")
        _take_step(state, setup, turn, make(turn, form))


# The form actions that answer the table's yes/no questions: the decision each answers, and how.
_ANSWERS: dict[str, tuple[str, bool]] = {
    "take": ("take", True), "draw": ("take", False), "buy": ("buy", True), "pass": ("buy", False),
}


def _answer(state: _State, setup: Setup, game: Game, pause: Pause, action: str) -> None:
    """Take the face-up card or draw; buy another's discard or pass."""
    kind, yes = _ANSWERS[action]
    if pause.kind != kind:
        raise MoveError(f"you cannot {action} now: {game.waiting()}")
    _advance(state, setup, {"kind": kind, "yes": yes})


def _lay_down_step(turn: Turn, form: Mapping[str, str]) -> dict[str, Any]:
    """The lay-down the form's meld rows make: card ``i`` of the hand goes to row ``place-i``
    (from 1), or stays in hand when that is empty."""
    rows: list[list[Card]] = [[] for _ in turn.round_rule.contract]
    for index, card in enumerate(turn.held()):
        place = form.get(f"place-{index}", "")
        if place:
            if not place.isdigit() or not 1 <= int(place) <= len(rows):
                raise MoveError(f"no meld row {place!r}")
            if form.get(f"card-{index}") != card.token:
                raise MoveError("your hand has changed since the form was drawn: reload the table")
            rows[int(place) - 1].append(card)
    return step_of_melds(lay_down_melds(turn, turn.rules, rows))


def _onto_meld_step(action: str, turn: Turn, form: Mapping[str, str]) -> dict[str, Any]:
    """A card put on a meld of the table, ``seat:index``: a lay-off, or a joker taken back with it."""
    card = parse_card(form.get("card"))
    seat_text, _, index_text = form.get("meld", "").partition(":")
    if not (seat_text.isdigit() and index_text.isdigit()):
        raise MoveError("choose a meld on the table")
    return {"move": action, "card": card.token, "seat": int(seat_text), "meld": int(index_text)}


def _discard_step(turn: Turn, form: Mapping[str, str]) -> dict[str, Any]:
    return {"move": "discard", "card": parse_card(form.get("card")).token}


# The form actions that are a step of the person's turn after the draw, each with the step it makes.
_STEP_MAKERS: dict[str, Callable[[Turn, Mapping[str, str]], dict[str, Any]]] = {
    "lay_down": _lay_down_step,
    "lay_off": partial(_onto_meld_step, "lay_off"),
    "substitute": partial(_onto_meld_step, "substitute"),
    "discard": _discard_step,
}


def _take_step(state: _State, setup: Setup, turn: Turn, step: dict[str, Any]) -> None:
    """Check the step on the turn (the engine's ``TableError``, nothing stored); keep it pending
    while the turn goes on, or play the whole turn out once it has ended (the discard, or going
    out without one)."""
    apply_step(turn, turn.rules, step)
    steps = [*state.pending, step]
    if step["move"] != "discard" and not turn_can_end(turn):
        state.pending = steps
        return
    _advance(state, setup, {"kind": "play", "steps": steps})


def _end_turn(state: _State, setup: Setup, turn: Turn) -> None:
    """End the turn with the steps made so far (going out without a discard)."""
    if not turn_can_end(turn):
        turn.finish()  # raises with the engine's reason
    _advance(state, setup, {"kind": "play", "steps": state.pending})


def _advance(state: _State, setup: Setup, answer: dict[str, Any]) -> None:
    """Give the table the person's answer (stored form, ``_answer_of``) and play on: for the
    page, without the computer's thinking (the answer kept waiting for it, if its turn needs
    it: the others offered the card the person declined); else to the person's next decision."""
    turns = _computer_turns()
    think = turns is None
    # The computer's thinking in a worker process; the page's own move has none (here, at once).
    arguments = (setup, state.record, _answer_of(answer), turns, think)
    played = in_worker(play_on, *arguments) if think else play_on(*arguments)
    state.pending = []
    if played.stopped_mid_turn:
        state.thinking, state.answer = True, answer
        return
    state.record = played.events
    state.finished = played.finished
    state.thinking, state.answer = played.thinking, None


# ---- hints, the record, the review, again --------------------------------------------------------


@blueprint.post("/play/<game_id>/hint")
def hint(game_id: str) -> BaseResponse:
    player, row = _owned(session(), game_id)
    _check_move_token(player, row)
    game = _stored(row)
    if game.pause is None:
        abort(400, "there is no decision of yours to hint at now: " + game.waiting())
    with write_transaction() as db:
        player, row = _owned(db, game_id, lock=True)
        _check_move_token(player, row)
        row.hints += 1
        row.version += 1
    return redirect(url_for("play.table", game_id=row.id, hint=1) + "#hint", 303)


def _hint(game: Game, row: GameRow) -> str | None:
    """The analyser's public advice for the decision at hand: outs and the discard table after
    the draw; the buy verdict for a face-up card on offer."""
    pause = game.pause
    if pause is None or game.finished:
        return None
    position = game.table.position(row.seat)
    hand: Sequence[Card] = position.hand
    if pause.kind == "play":
        if row.pending:
            return None
        offered = None
    else:
        offered = pause.card
    spend_analysis()  # a solver run, from the analysis pages' budget
    try:  # worked out by a worker process, as the analysis page's answers are
        return in_worker(_advice_text, list(hand), game.rules, row.round, row.players, list(position.seen),
                         pause.kind == "play", offered if pause.kind == "buy" else None,
                         position.buys_used, position.bought_last)
    except Busy as busy:
        return str(busy.description)


def _advice_text(hand: list[Card], rules: Rules, number: int, players: int, seen: list[Card], discards: bool,
                 buy: Card | None, buys_used: int, bought_last: bool) -> str:
    """The hint's text: ``advise`` rendered, or why the analyser cannot advise."""
    try:
        advice = advise(hand, rules, number, players=players, seen=seen, discards=discards, buy=buy,
                        time_limit=HINT_SECONDS, buys_used=buys_used, bought_last=bought_last)
    except (ValueError, TypeError) as error:
        return f"The analyser cannot advise here: {error}"
    return render_advice(advice, rules, players)


@blueprint.get("/play/<game_id>/record.json")
def record(game_id: str) -> Response:
    db = session()
    _, row = _owned(db, game_id)
    game = Game(_setup(row), row.record, turns=0, think=False)  # the record as stored, nothing more
    written = game.record(_earlier_rounds(row))
    if row.hints:
        written["hints"] = row.hints
    return Response(json.dumps(written, ensure_ascii=False, indent=1), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{_length(row)}-{row.id}.json"'})


@blueprint.get("/play/<game_id>/review")
def review(game_id: str) -> str:
    """The review of the person's decisions, a round at a time: each request reviews the first
    round not yet reviewed (seconds to a minute or two: the advice's solves) and keeps it with
    the game; the page asks for the next until all are (htmx, or a link without JavaScript).
    Once every round is, the game's match rate is kept for the dashboard."""
    db = session()
    _, row = _owned(db, game_id)
    if not row.finished:
        abort(400, f"the review comes when the {_length(row)} is over")
    numbers = _round_numbers(row)
    done: dict[str, Any] = dict(row.review or {})
    todo = _unreviewed(numbers, done)
    if todo:
        made = _review_round(db, row, todo[0], numbers)
        row, done = _keep_review(game_id, todo[0], made, numbers)
        todo = _unreviewed(numbers, done)
    decisions = [d for number in numbers if str(number) in done for d in done[str(number)]["decisions"]]
    return render_template("play/review.html", row=row, summary=_summary(done), decisions=decisions, todo=todo,
                           reviewed=[n for n in numbers if str(n) in done], title=_review_title(row))


def _length(row: GameRow) -> str:
    """What the person plays, as the start form names it: the whole "game" or one "round"."""
    return "game" if row.whole else "round"


def _round_numbers(row: GameRow) -> list[int]:
    """The rounds the review covers: a whole game's every round so far, else the one."""
    return list(range(1, row.round + 1)) if row.whole else [row.round]


def _unreviewed(numbers: Sequence[int], done: Mapping[str, Any]) -> list[int]:
    """The rounds without a review yet (the reviews are kept by round number, as text: JSON)."""
    return [number for number in numbers if str(number) not in done]


def _review_round(db: Session, row: GameRow, number: int, numbers: Sequence[int]) -> Review:
    """The review of the person's decisions in round ``number``, from its record alone; the
    session's transaction is ended first, none being held while the advice thinks."""
    game = _stored(row)
    rounds = [*_earlier_rounds(row), game.round_record()] if row.whole else [game.round_record()]
    written, seat = game_record(game.rules, game.names(), [rounds[numbers.index(number)]]), row.seat
    db.rollback()
    try:
        return review_game(written, seat)
    except RecordError as error:  # pragma: no cover - a stored game always replays
        abort(500, str(error))


def _keep_review(game_id: str, number: int, made: Review, numbers: Sequence[int]) -> tuple[GameRow, dict[str, Any]]:
    """Keep round ``number``'s review with the game, and the game's match rate once every round
    has one: the game row and all its reviews."""
    with write_transaction() as db:
        _, row = _owned(db, game_id, lock=True)
        done = {**(row.review or {}), str(number): made.to_dict()}
        row.review = done
        if not _unreviewed(numbers, done):
            row.match_rate = _summary(done)["match_rate"]
    return row, done


def _review_title(row: GameRow) -> str:
    name = TITLES[row.rules][0]
    return f"{name}, the whole game" if row.whole else f"{name} round {row.round}"


def _summary(done: Mapping[str, Any]) -> dict[str, Any]:
    """The rounds' reviews summed: decisions, matches, match rate (None without a decision), cost."""
    decisions = sum(one["summary"]["decisions"] for one in done.values())
    matches = sum(one["summary"]["matches"] for one in done.values())
    return {"decisions": decisions, "matches": matches, "match_rate": matches / decisions if decisions else None,
            "estimated_cost": sum(one["summary"]["estimated_cost"] for one in done.values())}


@blueprint.post("/play/<game_id>/again")
def again(game_id: str) -> BaseResponse:
    """The same deal (a whole game: the same game, from its first round) played again."""
    db = session()
    _, row = _owned(db, game_id)
    setup = Setup(row.rules, 1 if row.whole else row.round, row.players, row.seat, row.strength, row.seed)
    whole = row.whole
    db.rollback()
    return _begin(setup, whole)


# ---- the log in words ---------------------------------------------------------------------------


def _face(ident: Any) -> str:
    try:
        return card_of(ident).face
    except ValueError:
        return str(ident)


@dataclass(frozen=True)
class _Told:
    """One event of the record as the log tells it to the person at seat ``me``."""

    event: Mapping[str, Any]
    me: int

    @property
    def mine(self) -> bool:
        return self.event.get("seat") == self.me

    @property
    def who(self) -> str:
        """Who acted: "You", "Player 3", or nobody (the table's own events)."""
        seat = self.event.get("seat")
        return "You" if seat == self.me else f"Player {seat + 1}" if isinstance(seat, int) else ""

    @property
    def card(self) -> str:
        """The card the event names, by its face ("7♥"); empty when it names none."""
        card = self.event.get("card")
        return _face(card) if card else ""


def _dealt(told: _Told) -> str:
    return f"The cards are dealt; the {_face(told.event.get('face_up'))} is turned up."


def _drew(told: _Told) -> str:
    """The person sees the card they drew; another's draw is face down."""
    return f"{told.who} drew the {told.card} from the stock." if told.mine else f"{told.who} drew from the stock."


def _bought(told: _Told) -> str:
    penalty = len(told.event.get("penalty") or [])
    extra = "" if not penalty else " and a penalty card" if penalty == 1 else f" and {penalty} penalty cards"
    return f"{told.who} bought the {told.card}{extra}."


def _laid_down(told: _Told) -> str:
    melds = "; ".join(" ".join(_face(i) for i in m["cards"]) for m in told.event.get("melds", []))
    return f"{told.who} laid down: {melds}."


def _onto_meld(verb: str, told: _Told) -> str:
    """A card put on a meld of the table (a lay-off, or a joker taken back with it)."""
    meld = told.event.get("meld") or {}
    owner = "your" if meld.get("seat") == told.me else f"player {meld.get('seat', 0) + 1}'s"
    return f"{told.who} {verb} {told.card} on {owner} meld {meld.get('index', 0) + 1}."


def _scored(told: _Told) -> str:
    points = told.event.get("points") or []
    return "Scores: " + ", ".join(f"{'you' if s == told.me else f'player {s + 1}'} {p}"
                                  for s, p in enumerate(points)) + "."


# Each event of the record (its name as docs/records.md writes it) in words; an event not here
# (none today) is left out of the log.
_SENTENCES: dict[str, Callable[[_Told], str]] = {
    "deal": _dealt,
    "take": lambda told: f"{told.who} took the {told.card} from the discard pile.",
    "draw": _drew,
    "buy": _bought,
    "lay_down": _laid_down,
    "lay_off": partial(_onto_meld, "laid off the"),
    "substitute": partial(_onto_meld, "took a joker back with the"),
    "discard": lambda told: f"{told.who} discarded the {told.card}.",
    "reshuffle": lambda told: "The discard pile was shuffled into a new stock.",
    "go_out": lambda told: f"{told.who} went out.",
    "stop": lambda told: "The round stopped unfinished.",
    "score": _scored,
}


def describe_events(events: Sequence[Mapping[str, Any]], me: int) -> list[str]:
    """The round's events in words, newest last: "Player 3 bought the 7♥ and a penalty card"."""
    return [_SENTENCES[event["event"]](_Told(event, me)) for event in events if event.get("event") in _SENTENCES]


def init_app(app: Flask) -> None:
    app.config.setdefault("GAMES_PER_ADDRESS", "60 per hour")
