"""/play: a round against the computer through the web app, every move checked by the engine,
and the bad inputs (out of turn, a card not held, another's game, a replayed form): 400 or 404
and nothing changed."""

from __future__ import annotations

import html
import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from webapp.db import Game, session

SEED = 7


def _csrf(text: str) -> str:
    found = re.search(r'<meta name="csrf-token" content="([^"]+)"', text)
    assert found is not None
    return found.group(1)


def _token(text: str) -> str:
    found = re.search(r'name="token" value="([^"]+)"', text)
    assert found is not None
    return html.unescape(found.group(1))


def _start(client: FlaskClient, **fields: Any) -> str:
    page = client.get("/play")
    assert page.status_code == 200
    data = {"csrf_token": _csrf(page.text), "rules": "progressive", "round": "1", "players": "3",
            "strength": "greedy", "seed": str(SEED), **fields}
    started = client.post("/play", data=data)
    assert started.status_code == 303, started.text
    return started.headers["Location"].rsplit("/", 1)[1]


def _row(app: Flask, game_id: str) -> Game:
    with app.app_context():
        row = session().scalars(select(Game).where(Game.id == game_id)).one()
        session().expunge(row)
        return row


def _move(client: FlaskClient, game_id: str, page: str, **fields: str) -> Any:
    return client.post(f"/play/{game_id}/move", data={"csrf_token": _csrf(page), "token": _token(page), **fields})


def _hand(page: str) -> list[str]:
    section = page.split('id="hand"', 1)[1].split("</p>", 1)[0]
    return re.findall(r'data-card="([^"]+)"', section)


def _play_round(client: FlaskClient, game_id: str, limit: int = 200) -> str:
    """Play the round to its end: take nothing, pass every buy, lay down when the hand can
    (the page's own lay-down rows are not filled: discards only), discard the first card."""
    for _ in range(limit):
        page = client.get(f"/play/{game_id}").text
        if 'id="play-end"' in page:
            return page
        if 'id="draw"' in page:
            answer = _move(client, game_id, page, action="draw")
        elif 'id="pass"' in page:
            answer = _move(client, game_id, page, action="pass")
        else:
            answer = _move(client, game_id, page, action="discard", card=_hand(page)[-1])
        assert answer.status_code == 303, answer.text
    raise AssertionError("the round did not end")


def test_a_round_is_dealt_and_shown(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client)
    page = client.get(f"/play/{game_id}")
    assert page.status_code == 200
    assert "Stock:" in page.text and "The cards are dealt" in page.text
    assert 'id="take"' in page.text and 'id="draw"' in page.text
    row = _row(app, game_id)
    assert (row.rules, row.round, row.players, row.seed, row.seat) == ("progressive", 1, 3, SEED, 0)
    assert row.record[0]["event"] == "deal"


def test_a_whole_round_plays_to_its_scores_review_and_record(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client)
    page = _play_round(client, game_id)
    assert "Review your decisions" in page and "Scores:" in page
    record = client.get(f"/play/{game_id}/record.json")
    assert record.status_code == 200 and record.json is not None
    from analyzer import replay

    assert replay(record.json).rounds[0].outcome.finished in (True, False)
    review = client.get(f"/play/{game_id}/review")
    assert review.status_code == 200 and 'id="turn-1"' in review.text
    link = re.search(r'href="(/analyze\?[^"]+)"', review.text)
    assert link is not None and "rules=progressive" in link.group(1)
    assert client.get(html.unescape(link.group(1))).status_code == 200
    again = client.post(f"/play/{game_id}/again", data={"csrf_token": _csrf(page)})
    assert again.status_code == 303
    other = again.headers["Location"].rsplit("/", 1)[1]
    assert other != game_id and _row(app, other).record[0] == _row(app, game_id).record[0]


def test_take_discard_and_the_computer_plays_on(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client)
    page = client.get(f"/play/{game_id}").text
    assert _move(client, game_id, page, action="take").status_code == 303
    page = client.get(f"/play/{game_id}").text
    assert "You took the" in page
    card = _hand(page)[0]
    assert _move(client, game_id, page, action="discard", card=card).status_code == 303
    row = _row(app, game_id)
    assert any(e["event"] == "discard" and e["seat"] == 1 for e in row.record)  # the computer's turn followed


def _singleton(tokens: list[str]) -> str:
    """The card whose rank the hand holds fewest of (never a joker): keeps the hand on its way to sets."""
    ranks = [t[:-1] for t in tokens]
    return min((t for t in tokens if t != "JK"), key=lambda t: (ranks.count(t[:-1]), -tokens.index(t)))


def _pairs_up(page: str) -> bool:
    """Whether the face-up card is of a rank the hand holds (or a joker): worth taking for sets."""
    found = re.search(r'id="face-up"><span class="card [a-z]+" data-card="([^"]+)"', page)
    if found is None:
        return False
    card = found.group(1)
    return card == "JK" or card[:-1] in {t[:-1] for t in _hand(page)}


def _until_lay_down(client: FlaskClient, game_id: str, rules: str = "progressive",
                    buy: bool = False) -> tuple[str, Any] | None:
    """Draw, pass (or ``buy``) and discard singletons until the hand after a draw can lay down:
    the page and the analyser's lay-down; None if the round ends first."""
    from analyzer import analyze

    for _ in range(100):
        page = client.get(f"/play/{game_id}").text
        if 'id="play-end"' in page:
            return None
        if 'id="draw"' in page:
            _move(client, game_id, page, action="take" if _pairs_up(page) else "draw")
        elif 'id="pass"' in page:
            _move(client, game_id, page, action="buy" if buy else "pass")
        else:
            result = analyze(" ".join(_hand(page)), rules, 1)
            if result.can_lay_down:
                return page, result
            _move(client, game_id, page, action="discard", card=_singleton(_hand(page)))
    return None


def test_a_lay_down_through_the_rows_then_a_lay_off(app: Flask, client: FlaskClient) -> None:
    for seed in range(1, 20):  # the first deal where the page lays down, then lays a card off
        if _lay_down_then_lay_off(app, client, seed):
            return
    raise AssertionError("no round of seeds 1-19 lays down and lays off")


def _lay_down_then_lay_off(app: Flask, client: FlaskClient, seed: int) -> bool:
    from analyzer import Card, extend_meld, preset
    from webapp.tables import Game as Table
    from webapp.tables import Setup

    # contract round 1: ten cards dealt, two sets of three laid down, cards left to lay off
    game_id = _start(client, rules="contract", players="3", seed=str(seed))
    found = _until_lay_down(client, game_id, "contract")
    if found is None:
        return False
    page, result = found
    answer = _move(client, game_id, page, action="lay_down", **_rows(_hand(page), result))
    assert answer.status_code == 303, answer.text
    row = _row(app, game_id)
    if not row.pending:
        return False  # the lay-down went out at once
    assert row.pending[0]["move"] == "lay_down"
    page = client.get(f"/play/{game_id}").text
    assert 'id="reset"' in page
    # progressive lays off from the next turn only: the engine refuses it now, with its message
    refused = _move(client, game_id, page, action="lay_off", card=_hand(page)[0], meld="0:0")
    assert refused.status_code == 400 and "lay_off_same_turn" in refused.text
    assert _row(app, game_id).pending == row.pending
    answer = _move(client, game_id, page, action="discard", card=_hand(page)[-1])
    assert answer.status_code == 303
    assert any(e["event"] == "lay_down" and e["seat"] == 0 for e in _row(app, game_id).record)
    # the turns after: a card that fits one of the melds is laid off on it
    for _ in range(60):
        page = client.get(f"/play/{game_id}").text
        if 'id="play-end"' in page:
            return False
        if 'id="draw"' in page:
            _move(client, game_id, page, action="take" if _pairs_up(page) else "draw")
            continue
        if 'id="pass"' in page:
            _move(client, game_id, page, action="pass")
            continue
        row = _row(app, game_id)
        table = Table(Setup(row.rules, row.round, row.players, row.seat, row.strength, row.seed), row.record).table
        melds = [(f"{s}:{i}", m) for s, seat_melds in enumerate(table.melds) for i, m in enumerate(seat_melds)]
        fit = next(((t, target) for t in _hand(page) for target, m in melds
                    if extend_meld(m, Card.parse(t), preset("contract")) is not None), None)
        if fit is not None and len(_hand(page)) > 1:
            laid = _move(client, game_id, page, action="lay_off", card=fit[0], meld=fit[1])
            assert laid.status_code == 303, laid.text
            after = _row(app, game_id)
            assert after.pending[-1]["move"] == "lay_off" or any(e["event"] == "lay_off" for e in after.record)
            return True
        _move(client, game_id, page, action="discard", card=_singleton(_hand(page)))
    return False


def _rows(tokens: list[str], result: Any) -> dict[str, str]:
    """The lay-down form's fields putting the analyser's melds (``result.melds``) into the rows."""
    fields = {f"card-{i}": t for i, t in enumerate(tokens)}
    free = list(enumerate(tokens))
    for row_number, meld in enumerate(result.melds, start=1):
        for card in meld.cards:
            index = next(i for i, t in free if t == card.token)
            free.remove((index, card.token))
            fields[f"place-{index}"] = str(row_number)
    return fields


def _turn(app: Flask, game_id: str) -> Any:
    """The person's turn as the stored game stands: the table rebuilt from the record, the
    steps pending applied (``webapp.tables.Game.turn``, the engine's ``Turn``)."""
    from webapp.tables import Game as Table
    from webapp.tables import Setup

    row = _row(app, game_id)
    setup = Setup(row.rules, row.round, row.players, row.seat, row.strength, row.seed)
    return Table(setup, row.record).turn(row.pending)


def _joker_swaps(turn: Any) -> list[tuple[str, str, str]]:
    """Each (natural card held, meld "seat:index" it takes a joker back from, meld the joker is
    then laid off on) the engine allows on ``turn``: tried on copies, as the page's turn does."""
    import copy

    from analyzer import JOKER, LayOff, Substitution, TableError

    places = [(s, i) for s, seat_melds in enumerate(turn.melds) for i in range(len(seat_melds))]
    swaps = []
    for card in dict.fromkeys(c for c in turn.held() if not c.is_joker):
        for seat, index in places:
            swapped = copy.deepcopy(turn)
            try:
                swapped.substitute(Substitution(card, seat, index))
            except TableError:
                continue
            for to_seat, to_index in places:
                try:
                    copy.deepcopy(swapped).lay_off(LayOff(JOKER, to_seat, to_index))
                except TableError:
                    continue
                swaps.append((card.token, f"{seat}:{index}", f"{to_seat}:{to_index}"))
    return swaps


def _until_a_joker_swap(app: Flask, client: FlaskClient, seed: int) -> tuple[str, str, tuple[str, str, str]] | None:
    """Progressive round 1, three players: buy every offer (a lay-down of the six cards dealt
    goes out at once: bought cards stay in hand), lay down, then play on until a turn where a
    natural card held takes a joker back from a meld on the table: the game, the page and the
    swap (the one whose joker goes on another meld when there is one); None if the round ends."""
    game_id = _start(client, seed=str(seed))
    found = _until_lay_down(client, game_id, buy=True)
    if found is None:
        return None
    page, result = found
    assert _move(client, game_id, page, action="lay_down", **_rows(_hand(page), result)).status_code == 303
    if not _row(app, game_id).pending:
        return None  # the lay-down went out at once
    page = client.get(f"/play/{game_id}").text
    assert _move(client, game_id, page, action="discard", card=_singleton(_hand(page))).status_code == 303
    for _ in range(60):
        page = client.get(f"/play/{game_id}").text
        if 'id="play-end"' in page:
            return None
        if 'id="draw"' in page:
            _move(client, game_id, page, action="take" if _pairs_up(page) else "draw")
            continue
        if 'id="pass"' in page:
            _move(client, game_id, page, action="buy")
            continue
        swaps = _joker_swaps(_turn(app, game_id))
        if swaps:
            return game_id, page, min(swaps, key=lambda swap: swap[1] == swap[2])
        _move(client, game_id, page, action="discard", card=_singleton(_hand(page)))
    return None


def test_a_joker_is_taken_back_from_the_page(app: Flask, client: FlaskClient) -> None:
    """The person, laid down, takes a joker back from a meld on the table with the natural card
    it stands for: the joker in hand, the card in the meld; the turn cannot end (nor the joker be
    discarded) before the joker is melded again; laid off, then a discard, and the record holds
    the substitution. A card that is not the joker's is refused with the engine's message."""
    from analyzer import JOKER, Card, Substitution, TableError, card_of, replay

    for seed in range(1, 20):  # the first deal where the page's play reaches a joker to take back
        found = _until_a_joker_swap(app, client, seed)
        if found is not None:
            break
    else:
        raise AssertionError("no round of seeds 1-19 reaches a joker to take back")
    game_id, page, (card, meld, joker_to) = found
    seat, index = map(int, meld.split(":"))
    assert 'id="substitute"' in page and "Joker" in page
    turn = _turn(app, game_id)
    before = _row(app, game_id)
    assert not before.pending and JOKER in turn.melds[seat][index].cards

    def unchanged() -> None:
        after = _row(app, game_id)
        assert (after.record, after.pending, after.version) == (before.record, before.pending, before.version)

    # a natural card that is not the joker's: refused with the engine's message, nothing stored
    wrong = next(c for c in turn.held() if not c.is_joker and (c.token, meld) not in {s[:2] for s in _joker_swaps(turn)})
    try:
        turn.substitute(Substitution(wrong, seat, index))
    except TableError as error:
        message = str(error)
    else:
        raise AssertionError(f"the engine lets the {wrong.face} take the joker's place")
    refused = _move(client, game_id, page, action="substitute", card=wrong.token, meld=meld)
    assert refused.status_code == 400 and message in html.unescape(refused.text)
    unchanged()
    # the natural card in the joker's place, the joker in hand: a step of the turn, kept pending
    taken = _move(client, game_id, page, action="substitute", card=card, meld=meld)
    assert taken.status_code == 303, taken.text
    before = _row(app, game_id)
    assert before.pending == [{"move": "substitute", "card": card, "seat": seat, "meld": index}]
    turn = _turn(app, game_id)
    natural = Card.parse(card)
    assert JOKER in turn.held() and JOKER not in turn.melds[seat][index].cards
    assert natural in turn.melds[seat][index].cards
    page = client.get(f"/play/{game_id}").text
    assert "JK" in _hand(page) and 'id="end-turn"' not in page and 'id="joker-owed"' in page
    # the turn cannot end with the joker in hand: the engine's reason, 400, nothing stored
    other = _singleton(_hand(page))
    for fields, rule in (({"action": "end"}, "must be melded the same turn"),
                         ({"action": "discard", "card": "JK"}, "a joker taken back must be melded the same turn"),
                         ({"action": "discard", "card": other}, "keeps a joker it took back")):
        ended = _move(client, game_id, page, **fields)
        assert ended.status_code == 400 and rule in html.unescape(ended.text), (fields, ended.text)
        unchanged()
    # the joker laid off, then the discard: the turn enters the record
    laid = _move(client, game_id, page, action="lay_off", card="JK", meld=joker_to)
    assert laid.status_code == 303, laid.text
    assert [step["move"] for step in _row(app, game_id).pending] == ["substitute", "lay_off"]
    page = client.get(f"/play/{game_id}").text
    assert "JK" not in _hand(page) and 'id="joker-owed"' not in page
    assert f"<strong>You</strong> · {len(_hand(page))} cards" in page  # the hand as the turn's steps left it
    assert _move(client, game_id, page, action="discard", card=_hand(page)[-1]).status_code == 303
    events = _row(app, game_id).record[len(before.record):]
    mine = [e for e in events if e.get("seat") == 0]
    assert [e["event"] for e in mine[:2]] == ["substitute", "lay_off"]
    swap, joker = mine[0], mine[1]
    assert card_of(swap["card"]) == natural and swap["meld"] == {"seat": seat, "index": index}
    assert card_of(swap["joker"]) == JOKER and card_of(joker["card"]) == JOKER
    assert joker["meld"] == dict(zip(("seat", "index"), map(int, joker_to.split(":")), strict=True))
    page = client.get(f"/play/{game_id}").text
    owner = "your" if seat == 0 else f"player {seat + 1}'s"
    assert f"You took a joker back with the {natural.face} on {owner} meld {index + 1}." in html.unescape(page)
    _play_round(client, game_id)  # to its end: the record of a round over replays through the engine
    record = client.get(f"/play/{game_id}/record.json").json
    assert record is not None and replay(record).rounds[0].outcome is not None


def test_an_illegal_lay_down_is_refused_with_the_engines_message(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client)
    page = client.get(f"/play/{game_id}").text
    _move(client, game_id, page, action="draw")
    page = client.get(f"/play/{game_id}").text
    tokens = _hand(page)
    fields = {f"card-{i}": t for i, t in enumerate(tokens)}
    fields.update({"place-0": "1", "place-1": "1", "place-2": "1", "place-3": "2", "place-4": "2", "place-5": "2"})
    before = _row(app, game_id)
    refused = _move(client, game_id, page, action="lay_down", **fields)
    assert refused.status_code == 400 and 'id="play-error"' in refused.text
    after = _row(app, game_id)
    assert (after.record, after.pending, after.version) == (before.record, before.pending, before.version)


def test_a_move_out_of_turn_is_refused(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client)
    page = client.get(f"/play/{game_id}").text
    before = _row(app, game_id)
    for fields in ({"action": "discard", "card": _hand(page)[0]}, {"action": "buy"}, {"action": "lay_off", "card": "5H", "meld": "1:0"}):
        answer = _move(client, game_id, page, **fields)
        assert answer.status_code == 400
    after = _row(app, game_id)
    assert (after.record, after.version) == (before.record, before.version)


def test_a_card_not_held_is_refused(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client)
    page = client.get(f"/play/{game_id}").text
    _move(client, game_id, page, action="draw")
    page = client.get(f"/play/{game_id}").text
    missing = next(t for t in ("KS", "QH", "2C", "9D", "AS") if t not in _hand(page))
    before = _row(app, game_id)
    answer = _move(client, game_id, page, action="discard", card=missing)
    assert answer.status_code == 400 and "does not hold" in answer.text
    bad = _move(client, game_id, page, action="discard", card="ZZ")
    assert bad.status_code == 400
    assert _row(app, game_id).record == before.record


def test_a_replayed_form_changes_nothing(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client)
    page = client.get(f"/play/{game_id}").text
    assert _move(client, game_id, page, action="draw").status_code == 303
    after = _row(app, game_id)
    again = _move(client, game_id, page, action="draw")
    assert again.status_code == 400 and "sent already" in again.text
    assert _row(app, game_id).record == after.record


def test_a_forged_token_or_game_id_is_refused(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client)
    page = client.get(f"/play/{game_id}").text
    forged = client.post(f"/play/{game_id}/move", data={"csrf_token": _csrf(page), "token": "x.y", "action": "draw"})
    assert forged.status_code == 400
    assert client.get("/play/0123456789abcdef0123456789abcdef").status_code == 404
    assert client.get("/play/" + "a" * 40).status_code == 404
    other_id = _start(client)
    moved = client.post(f"/play/{other_id}/move", data={"csrf_token": _csrf(page), "token": _token(page), "action": "draw"})
    assert moved.status_code == 400 and "another game" in moved.text


def test_another_players_game_is_not_found(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client)
    page = client.get(f"/play/{game_id}").text
    stranger = app.test_client()
    assert stranger.get(f"/play/{game_id}").status_code == 404
    assert stranger.get(f"/play/{game_id}/record.json").status_code == 404
    own = stranger.get("/play")
    answer = stranger.post(f"/play/{game_id}/move", data={"csrf_token": _csrf(own.text), "token": _token(page),
                                                          "action": "draw"})
    assert answer.status_code == 404
    assert _row(app, game_id).version == 0


def test_a_hint_is_the_analysers_advice_and_the_round_says_so(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client)
    page = client.get(f"/play/{game_id}").text
    _move(client, game_id, page, action="draw")
    page = client.get(f"/play/{game_id}").text
    asked = client.post(f"/play/{game_id}/hint", data={"csrf_token": _csrf(page), "token": _token(page)})
    assert asked.status_code == 303
    shown = client.get(asked.headers["Location"])
    assert 'id="hint"' in shown.text and "played with hints" in shown.text
    assert _row(app, game_id).hints == 1


def test_bad_start_fields_are_refused(client: FlaskClient) -> None:
    page = client.get("/play")
    for fields in ({"rules": "nope"}, {"players": "9"}, {"round": "99"}, {"strength": "perfect"}, {"seed": "x"}):
        data = {"csrf_token": _csrf(page.text), "rules": "progressive", "round": "1", "players": "3",
                "strength": "greedy", **fields}
        assert client.post("/play", data=data).status_code == 400


def test_a_buy_answered_from_the_page(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client, players="4")
    for _ in range(80):
        page = client.get(f"/play/{game_id}").text
        assert 'id="play-end"' not in page, "the round ended before a buy was offered"
        if 'id="buy"' in page:
            assert _move(client, game_id, page, action="buy").status_code == 303
            break
        if 'id="draw"' in page:
            _move(client, game_id, page, action="draw")
        else:
            _move(client, game_id, page, action="discard", card=_singleton(_hand(page)))
    bought = [e for e in _row(app, game_id).record if e["event"] == "buy" and e["seat"] == 0]
    assert len(bought) == 1 and len(bought[0]["penalty"]) == 1
    assert "You bought the" in client.get(f"/play/{game_id}").text


def test_a_refused_move_answers_json_when_asked(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client)
    page = client.get(f"/play/{game_id}").text
    answer = client.post(f"/play/{game_id}/move", headers={"Accept": "application/json"},
                         data={"csrf_token": _csrf(page), "token": _token(page), "action": "discard", "card": "KS"})
    assert answer.status_code == 400 and answer.json is not None and "error" in answer.json
    assert _row(app, game_id).version == 0


def test_the_computers_turns_since_your_move_are_marked_new(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client)
    page = client.get(f"/play/{game_id}").text
    _move(client, game_id, page, action="draw")
    page = client.get(f"/play/{game_id}").text
    _move(client, game_id, page, action="discard", card=_hand(page)[0])
    page = client.get(f"/play/{game_id}").text
    new = re.findall(r'<li class="new new-\d">([^<]+)</li>', page)
    assert new and all(not line.startswith("You") for line in new)


def test_a_hint_for_a_buy_is_the_buy_verdict(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client, players="4")
    for _ in range(80):
        page = client.get(f"/play/{game_id}").text
        assert 'id="play-end"' not in page, "the round ended before a buy was offered"
        if 'id="buy"' in page:
            break
        if 'id="draw"' in page:
            _move(client, game_id, page, action="draw")
        else:
            _move(client, game_id, page, action="discard", card=_singleton(_hand(page)))
    asked = client.post(f"/play/{game_id}/hint", data={"csrf_token": _csrf(page), "token": _token(page)})
    shown = client.get(asked.headers["Location"]).text
    assert 'id="hint"' in shown and 'id="buy"' in shown
    hint = html.unescape(shown.split('id="hint">', 1)[1].split("</pre>", 1)[0])
    assert "buy" in hint.lower()


# ---- a whole game ---------------------------------------------------------------------------------


class _FakeReview:
    """A review made without the solver (seconds a decision): one decision per draw or take of
    seat 0 in the record's one round, every other one a match."""

    def __init__(self, record: dict[str, Any], seat: int) -> None:
        (one,) = record["rounds"]
        self.decisions = [
            {"round": one["round"], "event": index, "turn": turn, "decision": "take or draw", "hand": ["5H", "5D"],
             "offered": None, "chosen": event["event"], "advised": "draw", "match": turn % 2 == 1,
             "cost": 0.0 if turn % 2 else 1.5, "why": "a made-up reason", "choices": []}
            for turn, (index, event) in enumerate(((i, e) for i, e in enumerate(one["events"])
                                                   if e.get("seat") == seat and e["event"] in ("draw", "take")), start=1)]

    def to_dict(self) -> dict[str, Any]:
        matches = sum(d["match"] for d in self.decisions)
        return {"summary": {"decisions": len(self.decisions), "matches": matches,
                            "match_rate": matches / len(self.decisions), "estimated_cost": 1.5 * (len(self.decisions) - matches)},
                "decisions": self.decisions}

    @property
    def match_rate(self) -> float:
        return float(self.to_dict()["summary"]["match_rate"])


def _fresh_token(app: Flask, game_id: str) -> str:
    """A valid move token for the game as it stands (the page over has no move form)."""
    from webapp.db import Player
    from webapp.play import issue_move_token

    row = _row(app, game_id)
    with app.app_context():
        return issue_move_token(session().get(Player, row.player_id), row)


def _next(client: FlaskClient, game_id: str, page: str) -> Any:
    return client.post(f"/play/{game_id}/next", data={"csrf_token": _csrf(page), "token": _token(page)})


def test_a_whole_game_of_two_rounds(app: Flask, client: FlaskClient, monkeypatch: Any) -> None:
    """A whole game (two rounds here: the game's length patched, the deals progressive's own)
    against greedy players: the running totals between the rounds, the next round dealt from the
    game's seed, the final totals and the winner, a record that replays, the review a round at a
    time, the dashboard; replayed or misplaced forms 400, another visitor 404."""
    from analyzer import replay
    from webapp import play
    from webapp.tables import round_seed

    monkeypatch.setattr(play, "game_rounds", lambda rules: 2)
    monkeypatch.setattr(play, "review_game", _FakeReview)
    game_id = _start(client, length="game", round="5")  # the round field is for one round only
    row = _row(app, game_id)
    assert (row.whole, row.round, row.seed, row.past) == (True, 1, SEED, [])
    page = client.get(f"/play/{game_id}").text
    assert "round 1 of 2" in page
    assert _next(client, game_id, page).status_code == 400  # the round is in play: no next round yet
    page = _play_round(client, game_id)
    assert 'id="next-round"' in page and 'id="totals"' in page and 'id="review-link"' not in page
    first = _row(app, game_id)
    assert not first.finished and first.totals is None
    assert _move(client, game_id, page, action="draw").status_code == 400  # the round is over
    stranger = app.test_client()
    own = stranger.get("/play").text
    assert stranger.post(f"/play/{game_id}/next", data={"csrf_token": _csrf(own), "token": _token(page)}).status_code == 404
    assert _next(client, game_id, page).status_code == 303
    assert _next(client, game_id, page).status_code == 400  # the same form again: nothing changes
    second = _row(app, game_id)
    assert (second.round, second.past, second.version) == (2, [first.record], first.version + 1)
    assert second.record[0]["event"] == "deal" and second.record != first.record
    page = client.get(f"/play/{game_id}").text
    assert "round 2 of 2" in page and 'id="draw"' in page
    page = _play_round(client, game_id)
    assert 'id="next-round"' not in page and 'id="game-winner"' in page and 'id="review-link"' in page
    over = _row(app, game_id)
    rounds = [e[-1]["points"] for e in (first.record, over.record)]
    totals = [a + b for a, b in zip(*rounds, strict=True)]
    assert over.finished and over.totals == totals
    low = min(totals)
    winner = "You win" if totals[0] == low and totals.count(low) == 1 else "A tie" if totals.count(low) > 1 else \
        f"Player {totals.index(low) + 1} wins"
    assert winner in html.unescape(page)
    assert all(f"<strong>{total}</strong>" in page for total in totals)
    # the record: both rounds, each dealt from the game's seed, replaying event by event
    record = client.get(f"/play/{game_id}/record.json")
    assert 'filename="game-' in record.headers["Content-Disposition"]
    written = record.json
    assert written is not None and written["totals"] == totals
    assert [(r["round"], r["seed"]) for r in written["rounds"]] == [(n, round_seed("progressive", n, SEED)) for n in (1, 2)]
    assert [r["events"] for r in written["rounds"]] == [first.record, over.record]
    replayed = replay(written)
    assert [list(r.outcome.penalty_points) for r in replayed.rounds] == rounds
    # forms after the end, even with a valid token: 400, nothing changes
    token = _fresh_token(app, game_id)
    for path, fields in (("next", {}), ("move", {"action": "draw"})):
        answer = client.post(f"/play/{game_id}/{path}", data={"csrf_token": _csrf(page), "token": token, **fields})
        assert answer.status_code == 400
    assert _row(app, game_id).version == over.version
    assert stranger.get(f"/play/{game_id}/review").status_code == 404
    # the review, a round a request; anchors per round and turn; the match rate kept at the end
    review = client.get(f"/play/{game_id}/review")
    assert review.status_code == 200 and 'id="round-1-turn-1"' in review.text and 'id="review-next"' in review.text
    assert _row(app, game_id).match_rate is None
    review = client.get(f"/play/{game_id}/review")
    assert 'id="round-2-turn-1"' in review.text and 'id="round-1"' in review.text and 'id="review-next"' not in review.text
    done = _row(app, game_id)
    assert set(done.review) == {"1", "2"} and done.match_rate is not None
    decisions = sum(done.review[n]["summary"]["decisions"] for n in "12")
    assert done.match_rate == sum(done.review[n]["summary"]["matches"] for n in "12") / decisions
    # the dashboard: the game, the totals, the match rate and its chart; not a stranger's
    dashboard = client.get("/dashboard").text
    assert f'id="game-{game_id}"' in dashboard and 'id="match-rate-chart"' in dashboard
    assert f"{round(100 * done.match_rate)}%" in dashboard and "1-2" in dashboard
    assert game_id not in stranger.get("/dashboard").text
    # the same game again: the same seed, the same deals
    again = client.post(f"/play/{game_id}/again", data={"csrf_token": _csrf(page)})
    other = _row(app, again.headers["Location"].rsplit("/", 1)[1])
    assert (other.whole, other.round, other.seed, other.record[0]) == (True, 1, SEED, first.record[0])


def test_a_one_round_game_has_no_next_round(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client)
    page = _play_round(client, game_id)
    assert 'id="next-round"' not in page and 'id="totals"' not in page
    row = _row(app, game_id)
    assert row.finished and not row.whole and row.totals == row.record[-1]["points"]
    answer = client.post(f"/play/{game_id}/next", data={"csrf_token": _csrf(page), "token": _fresh_token(app, game_id)})
    assert answer.status_code == 400 and _row(app, game_id).version == row.version


def test_the_game_length_is_checked(client: FlaskClient) -> None:
    page = client.get("/play")
    data = {"csrf_token": _csrf(page.text), "rules": "progressive", "round": "1", "players": "3",
            "strength": "greedy", "length": "forever"}
    assert client.post("/play", data=data).status_code == 400


# ---- the page's own requests: the computer's turns one at a time ---------------------------------

HTMX = {"HX-Request": "true"}
TURN_STARTS = ("take", "draw")


def _advance(client: FlaskClient, game_id: str, page: str, headers: dict[str, str] | None = None) -> Any:
    return client.post(f"/play/{game_id}/advance", headers=headers or {},
                       data={"csrf_token": _csrf(page), "token": _token(page)})


def _declined(client: FlaskClient) -> tuple[str, str, str]:
    """A 4-player game whose person drew through the page (htmx), declining the face-up card the
    computer players are then offered: its id, the table before the move and the table after."""
    game_id = _start(client, players="4")
    page = client.get(f"/play/{game_id}").text
    moved = client.post(f"/play/{game_id}/move", headers=HTMX,
                        data={"csrf_token": _csrf(page), "token": _token(page), "action": "draw"})
    assert moved.status_code == 303
    return game_id, page, client.get(f"/play/{game_id}").text


def test_the_pages_move_is_stored_at_once_and_the_computer_plays_a_turn_a_request(app: Flask,
                                                                                  client: FlaskClient) -> None:
    game_id = _start(client, players="4")
    page = client.get(f"/play/{game_id}").text
    assert _move(client, game_id, page, action="draw").status_code == 303
    page = client.get(f"/play/{game_id}").text
    before = len(_row(app, game_id).record)
    moved = client.post(f"/play/{game_id}/move", headers=HTMX,
                        data={"csrf_token": _csrf(page), "token": _token(page), "action": "discard",
                              "card": _hand(page)[0]})
    assert moved.status_code == 303
    row = _row(app, game_id)
    assert row.thinking and row.record[-1]["event"] == "discard" and row.record[-1]["seat"] == 0
    assert len(row.record) == before + 1  # the person's discard alone: no computer turn yet
    page = client.get(f"/play/{game_id}").text
    assert 'id="advance-form"' in page and "Player 2</strong> is playing" in page and 'id="draw"' not in page
    # the person cannot move while the computer is to play; nothing changes
    early = _move(client, game_id, page, action="draw")
    assert early.status_code == 400 and "wait for your turn" in early.text
    assert _row(app, game_id).version == row.version
    # one computer turn a request, each stored, until the table waits for the person
    for seat in (1, 2, 3):
        page = client.get(f"/play/{game_id}").text
        if 'id="advance-form"' not in page:
            break
        count = len(_row(app, game_id).record)
        assert _advance(client, game_id, page, HTMX).status_code == 303
        added = _row(app, game_id).record[count:]
        assert sum(e["event"] in TURN_STARTS for e in added) <= 1
        assert all(e["seat"] == seat for e in added if e["event"] in TURN_STARTS + ("discard", "lay_down"))
    page = client.get(f"/play/{game_id}").text
    assert 'id="advance-form"' not in page and ('id="draw"' in page or 'id="buy"' in page or 'id="play-end"' in page)
    assert not _row(app, game_id).thinking


def test_continue_without_javascript_plays_to_your_next_decision(app: Flask, client: FlaskClient) -> None:
    game_id = _start(client, players="4")
    page = client.get(f"/play/{game_id}").text
    _move(client, game_id, page, action="draw")
    page = client.get(f"/play/{game_id}").text
    client.post(f"/play/{game_id}/move", headers=HTMX,
                data={"csrf_token": _csrf(page), "token": _token(page), "action": "discard", "card": _hand(page)[0]})
    page = client.get(f"/play/{game_id}").text
    assert 'id="advance"' in page  # the form's button: "Continue"
    assert _advance(client, game_id, page).status_code == 303
    row = _row(app, game_id)
    assert not row.thinking
    page = client.get(f"/play/{game_id}").text
    assert 'id="advance-form"' not in page and ('id="draw"' in page or 'id="take"' in page or 'id="buy"' in page
                                                 or 'id="play-end"' in page)
    # a second Continue (another tab's) finds nothing to play and changes nothing
    version = row.version
    assert client.post(f"/play/{game_id}/advance", data={"csrf_token": _csrf(page), "token": _token(page)}
                       ).status_code == 303
    assert _row(app, game_id).version == version and _row(app, game_id).record == row.record


def test_a_whole_round_plays_through_the_pages_requests(app: Flask, client: FlaskClient) -> None:
    """Every move and every computer turn as the page asks for them (htmx), buys offered inside
    a computer's turn included, to the round's end; the record replays."""
    game_id = _start(client, players="4")
    advances = passes = 0
    for _ in range(400):
        page = client.get(f"/play/{game_id}").text
        if 'id="play-end"' in page:
            break
        fields = {"csrf_token": _csrf(page), "token": _token(page)}
        if 'id="advance-form"' in page:
            advances += 1
            answer = client.post(f"/play/{game_id}/advance", headers=HTMX, data=fields)
        elif 'id="draw"' in page:
            answer = client.post(f"/play/{game_id}/move", headers=HTMX, data={**fields, "action": "draw"})
        elif 'id="pass"' in page:
            passes += 1
            answer = client.post(f"/play/{game_id}/move", headers=HTMX, data={**fields, "action": "pass"})
        else:
            answer = client.post(f"/play/{game_id}/move", headers=HTMX,
                                 data={**fields, "action": "discard", "card": _hand(page)[-1]})
        assert answer.status_code == 303, answer.text
    else:
        raise AssertionError("the round did not end")
    assert advances >= 3 and passes >= 1  # a buy offered inside a computer's turn, answered
    record = client.get(f"/play/{game_id}/record.json")
    from analyzer import replay

    assert record.status_code == 200 and replay(record.json).rounds[0].outcome is not None


def test_declining_the_face_up_card_waits_for_the_others_offered_it(app: Flask, client: FlaskClient) -> None:
    """The page's "draw" comes back before the computer players offered the card decide: the
    answer is kept with the game, the record unchanged, until the table asks for their thinking."""
    game_id, _, page = _declined(client)
    row = _row(app, game_id)
    assert row.answer == {"kind": "take", "yes": False} and row.thinking and [e["event"] for e in row.record] == ["deal"]
    before = row
    assert "Player 2</strong> is deciding whether to buy the" in page and 'id="advance-form"' in page
    assert 'id="draw"' not in page and 'id="discard-form"' not in page
    assert _move(client, game_id, page, action="take").status_code == 400
    assert _advance(client, game_id, page, HTMX).status_code == 303
    row = _row(app, game_id)
    assert row.answer is None and not row.thinking
    assert [e["event"] for e in row.record[len(before.record):]][-1] == "draw"
    assert row.record[-1]["seat"] == 0
    page = client.get(f"/play/{game_id}").text
    assert 'id="discard-form"' in page


def test_advance_refuses_a_forged_replayed_or_strangers_form(app: Flask, client: FlaskClient) -> None:
    game_id, page, waiting = _declined(client)
    row = _row(app, game_id)
    forged = client.post(f"/play/{game_id}/advance", headers=HTMX, data={"csrf_token": _csrf(page), "token": "x.y"})
    stranger = app.test_client()
    own = stranger.get("/play").text
    strangers = stranger.post(f"/play/{game_id}/advance", headers=HTMX,
                              data={"csrf_token": _csrf(own), "token": _token(waiting)})
    assert (forged.status_code, strangers.status_code) == (400, 404)
    # the page's refusal takes the table's place (htmx swaps #play), with the way back
    assert 'id="play"' in forged.text and 'id="back-to-table"' in forged.text and "not issued" in forged.text
    # a stale form (another tab, a reload mid-turn) finds the table as it is: shown, nothing played
    stale = _advance(client, game_id, page, HTMX)  # the form before the move
    assert stale.status_code == 303 and stale.headers["Location"].split("?")[0].endswith(f"/play/{game_id}")
    after = _row(app, game_id)
    assert (after.version, after.record, after.answer, after.thinking) == (row.version, row.record, row.answer, True)


def test_a_move_stored_only_if_the_game_has_not_moved_on_meanwhile(app: Flask, client: FlaskClient,
                                                                  monkeypatch: Any) -> None:
    """Another request (another tab) stores a move while this one thinks: this one is refused,
    the other kept, though the row was read before it."""
    from sqlalchemy import update

    from webapp import play
    from webapp.db import engine

    game_id = _start(client)
    page = client.get(f"/play/{game_id}").text
    made = play._make_move

    def meanwhile(*args: Any) -> None:
        made(*args)
        with app.app_context(), engine().begin() as connection:
            connection.execute(update(Game).where(Game.id == game_id).values(version=Game.version + 5))

    monkeypatch.setattr(play, "_make_move", meanwhile)
    moved = _move(client, game_id, page, action="draw")
    assert moved.status_code == 400 and "sent already" in moved.text
    row = _row(app, game_id)
    assert row.version == 5 and [e["event"] for e in row.record] == ["deal"]


def test_no_hint_while_the_computer_thinks(app: Flask, client: FlaskClient) -> None:
    game_id, _, waiting = _declined(client)
    asked = client.post(f"/play/{game_id}/hint", data={"csrf_token": _csrf(waiting), "token": _token(waiting)})
    assert asked.status_code == 400 and "no decision of yours" in asked.text
    assert _row(app, game_id).hints == 0


def test_the_same_deal_and_the_same_moves_give_the_same_game(app: Flask, client: FlaskClient) -> None:
    """A deal played again with the same moves is the same game: the computer players are seeded
    by the deal, and think under the arena's deterministic work bound (so a loaded machine, which
    cuts a solve by its seconds only as a last guard, plays the same too)."""
    records = []
    for _ in range(2):
        game_id = _start(client, players="3", strength="simulated", seed="11")
        _play_round(client, game_id)
        records.append(_row(app, game_id).record)
    assert records[0] == records[1] and records[0][-1]["event"] == "score"


def test_the_computers_thinking_is_done_by_a_worker_process(tmp_path: Any, monkeypatch: Any) -> None:
    """The computer's turns are played in ``webapp.pool``'s worker processes, never in the
    serving process: here the computer players cannot think at all, and the table plays on."""
    from tests.webapp.conftest import make_app
    from webapp import tables

    app = make_app(tmp_path, ANALYSIS_WORKERS=1)
    client = app.test_client()
    game_id, _, waiting = _declined(client)

    def nowhere(*args: Any) -> None:
        raise AssertionError("a computer player thought in the serving process")

    monkeypatch.setattr(tables.Game, "policy", nowhere)
    before = _row(app, game_id)
    assert _advance(client, game_id, waiting, HTMX).status_code == 303
    after = _row(app, game_id)
    assert after.version == before.version + 1 and len(after.record) > len(before.record)
    assert after.record[:len(before.record)] == before.record


def test_a_busy_pool_leaves_the_table_as_it_was(app: Flask, client: FlaskClient, monkeypatch: Any) -> None:
    from webapp import play
    from webapp.pool import Busy

    game_id, _, waiting = _declined(client)
    before = _row(app, game_id)

    def busy(*args: Any) -> None:
        raise Busy(retry_after=2)

    monkeypatch.setattr(play, "in_worker", busy)
    answer = _advance(client, game_id, waiting, HTMX)
    assert answer.status_code == 503 and "busy" in answer.text and 'id="advance-form"' in answer.text
    after = _row(app, game_id)
    assert (after.version, after.record, after.thinking) == (before.version, before.record, True)


def test_a_plain_forms_move_with_the_pool_busy_changes_nothing(app: Flask, client: FlaskClient,
                                                                  monkeypatch: Any) -> None:
    from webapp import play
    from webapp.pool import Busy

    game_id = _start(client)
    page = client.get(f"/play/{game_id}").text
    before = _row(app, game_id)

    def busy(*args: Any) -> None:
        raise Busy(retry_after=2)

    monkeypatch.setattr(play, "in_worker", busy)
    answer = _move(client, game_id, page, action="draw")  # a plain form: the computer's turns think
    assert answer.status_code == 503 and "busy" in answer.text and 'id="draw"' in answer.text
    after = _row(app, game_id)
    assert (after.version, after.record) == (before.version, before.record)
