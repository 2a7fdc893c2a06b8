"""The home page and the analysis page through Flask's test client: answers drawn as cards,
the question in the URL, and every bad field answered with the form again, its message beside
the field, and 400."""

from __future__ import annotations

import html
import random
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest
from flask.testing import FlaskClient

from tests.webapp.conftest import make_app

# Round 6 of progressive (1 set of 3 + 2 runs of 4), 14 cards (a buy, then the draw): lays
# down with the joker as the 3♥ (Joker 4♥ 5♥ 6♥), discards and keeps two cards.
LAYS_DOWN = "7C 7D 7S 4H 5H 6H joker 9S 10S JS QS KD 2C 3D"
AWAY = "7C 7D 4H 5H 6H 9S 10S JS KD joker 2C QD"  # 2 cards away


def page(client: FlaskClient, **fields: str):  # type: ignore[no-untyped-def]
    return client.get("/analyze?" + urlencode(fields))


def field_error(html: str, field: str) -> str:
    found = re.search(rf'id="error-{field}"[^>]*>([^<]*)<', html)
    assert found, f"no message element for {field}"
    return found.group(1)


def test_home_says_what_this_is_and_leads_to_analysing(client: FlaskClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert "Contract Rummy" in response.text
    assert 'href="/analyze"' in response.text


def test_the_empty_form_is_a_form_with_the_discard_table_ticked(client: FlaskClient) -> None:
    response = client.get("/analyze")
    assert response.status_code == 200
    assert '<textarea id="hand" name="hand"' in response.text
    assert re.search(r'id="discards"[^>]*checked', response.text)
    assert 'id="picker"' in response.text and 'data-card="JK"' in response.text


def test_a_hand_that_lays_down_shows_melds_with_the_joker_labelled(client: FlaskClient) -> None:
    response = page(client, hand=LAYS_DOWN, rules="progressive", round="6")
    assert response.status_code == 200
    html = response.text
    assert "You can lay down" in html
    # the joker drawn as a card with the card it stands for beside it
    assert re.search(r'data-card="JK".*?class="stands-for hearts"[^>]*>=3♥', html, re.DOTALL)
    assert "and discard" in html and "you keep" in html
    assert 'class="card clubs" data-card="7C"' in html
    assert "As text: <code class=\"tokens\">" in html


def test_a_hand_that_is_away_shows_the_cards_that_would_do_it_and_the_outs(client: FlaskClient) -> None:
    response = page(client, hand=AWAY, round="6", discards="on")
    html = response.text
    assert response.status_code == 200
    assert "you are 2" in html and "away" in html
    assert "Cards that help" in html and "unseen in all" in html
    assert "Which card to discard, best first" in html
    assert re.search(r'<tr class="best">', html)
    assert '<p class="order">Ranked by: fewest cards away, then most unseen outs, then fewest points kept.</p>' in html


def test_a_hand_with_no_legal_play_this_turn_shows_the_witness_play_and_its_discard(client: FlaskClient) -> None:
    # It melds every card but the K♣, and going out by discarding is forbidden: one card more
    # is a legal play (docs/lay-down.md, "Not this turn"), shown with its discard as on the CLI.
    answered = client.post("/api/analyze", json={"hand": "10S 10D 4H 2H 5C 3H 10H 5H KC 5D 5H",
                                                 "rules": "shanghai-powe", "round": 5}).get_json()
    html = page(client, hand="10S 10D 4H 2H 5C 3H 10H 5H KC 5D 5H", rules="shanghai-powe", round="5").text
    assert answered["cards_away"] == 1 and len(answered["missing"]) == 1
    played = re.search(r'<p class="play">(.*?)</p>', html, re.DOTALL)
    assert played and "and discard" in played.group(1)
    shown = re.findall(r'data-card="([^"]+)"', played.group(1))
    held = set(answered["hand"]) | set(answered["missing"])
    assert shown and set(shown) <= held  # the discard and the cards kept, of the hand and the missing card
    assert 'data-card="KC"' in played.group(1)  # the K♣ no meld takes is the card to let go


def test_the_answer_carries_its_own_link_which_reproduces_it(client: FlaskClient) -> None:
    first = page(client, hand="  7c,7d 4h 5h 6h 9s 10s js kd * 2c qd ", round="6")
    link = re.search(r'class="share" href="([^"]+)"', first.text)
    assert link
    url = link.group(1).replace("&amp;", "&")
    assert url.startswith("/analyze?hand=2C+7C+7D") and "round=6" in url and "rules=progressive" in url
    again = client.get(url)
    assert again.status_code == 200

    def answer(html: str) -> str:
        return html[html.index('<section id="answer"'):]

    assert answer(again.text) == answer(first.text)  # the same answer, the same link


def test_a_buy_question_shows_the_answer_and_the_simulation_beside_it(client: FlaskClient) -> None:
    response = page(client, hand="7C 7D 4H 5H 6H 9S 10S JS QS KD 3C", round="6", players="4", buy="7H")
    assert response.status_code == 200
    assert "Buy the" in response.text
    # The 7♥ makes 7♣ 7♦ 7♥ and extends 4♥-6♥: one of the outs, so the answer is to buy.
    assert 'class="buy-verdict">BUY<' in response.text
    assert "is one of your outs" in html.unescape(response.text)
    assert re.search(r'Simulated play: <span class="sim-verdict">(buy|pass|close call)<', response.text)
    assert 'class="reason"' in response.text


def test_a_ready_hand_passes_a_useless_card_on_the_points_against_the_table(client: FlaskClient) -> None:
    """The page shows what the verdict compares: the others' points and the difference."""
    response = page(client, hand="5C 5D 5S 7H 8H 9H 10H", round="2", players="4", buy="2D")
    assert response.status_code == 200
    assert 'class="buy-verdict">PASS<' in response.text
    assert "You can lay down already" in response.text
    assert 'class="sim-verdict">pass<' in response.text
    assert ">others hold<" in response.text and ">against table<" in response.text
    assert "worse off against the table" in response.text


DOWN = "5S 6S 7S 8S | QH QD QC"  # round 2 of progressive laid down: a run of 4 and a set of 3


def test_once_down_the_page_shows_the_best_play_on_any_meld_and_the_discard_table(client: FlaskClient) -> None:
    response = page(client, hand="9S 10S 4D KC", round="2", players="4", down=DOWN, table="KH KD KS ; 2H 3H 4H 5H",
                    seen="3D")
    assert response.status_code == 200, response.text
    text = response.text
    assert "Your contract is down" in text and "You go out" in text
    moves = re.findall(r"<li>([^<]+)</li>", text[text.index('class="moves"'):text.index("</ol>")])
    assert moves == ["9♠ on your 5♠ 6♠ 7♠ 8♠", "10♠ on your 5♠ 6♠ 7♠ 8♠ 9♠", "K♣ on K♥ K♦ K♠ of opponent 1"]
    assert 'Discard <span class="card diamonds" data-card="4D"' in text and "you go out" in text
    table = text[text.index('<section class="discards">'):]
    assert ">lays off<" in table and "unseen copies of the cards that would let a kept card be laid off" in table
    assert len(re.findall(r"<tr class=", table)) == 4  # a row per distinct discard
    assert "Opponent 2:" in text  # the other players' melds are drawn too


def test_once_down_with_a_face_up_card_the_page_says_take_or_draw(client: FlaskClient) -> None:
    take = page(client, hand="9S 10S 4D", round="2", down=DOWN, face_up="4S")
    draw = page(client, hand="9S 10S 4D", round="2", down=DOWN, face_up="KC")
    assert take.status_code == draw.status_code == 200
    assert 'class="buy-verdict">TAKE IT<' in take.text and "if you take the" in take.text
    assert 'class="buy-verdict">DRAW FROM THE STOCK<' in draw.text
    link = re.search(r'class="share" href="([^"]+)"', take.text)
    assert link and "face_up=4S" in link.group(1) and "down=" in link.group(1)
    assert client.get(link.group(1).replace("&amp;", "&")).text.count("TAKE IT") == 1


@pytest.mark.parametrize(("fields", "field", "words"), [
    ({"hand": "9S 10S 4D KC", "round": "2", "down": "5S 6S 7S | QH QD QC"}, "down", "shorter than the contract"),
    ({"hand": "9S 10S 4D KC", "round": "2", "down": "5S 6S 7S 8S"}, "down", "are not the contract of round 2"),
    ({"hand": "9S 10S 4D KC", "round": "2", "down": "5S 6S 7H 8S | QH QD QC"}, "down", "neither a set nor a run"),
    ({"hand": "9S 10S 4D KC", "round": "2", "down": DOWN, "table": "KH KD"}, "table", "no meld of the contract"),
    ({"hand": "9S 10S 4D KC", "round": "2", "table": "KH KD KS"}, "table", "goes with &#34;down&#34; (your melds"),
    ({"hand": "9S 10S 4D KC", "round": "2", "face_up": "KS"}, "face_up", "goes with &#34;down&#34; (your melds"),
    ({"hand": "9S 10S 4D", "round": "2", "down": DOWN, "face_up": "KS KD"}, "face_up", "one card"),
    ({"hand": "9S 10S 4D", "round": "2", "down": DOWN, "buy": "KS"}, "buy", "does not go with"),
    ({"hand": "7H 8H 9X", "round": "2"}, "hand", "unknown card &#39;9X&#39;"),
    ({"hand": "", "round": "2"}, "hand", "the hand is empty"),
    ({"hand": "JK JK JK JK", "round": "2"}, "hand", "jokers"),
    ({"hand": " ".join(f"{r}{s}" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"] for s in "CH"), "round": "2"},
     "hand", "26 cards"),
    ({"hand": "7H " * 400, "round": "2"}, "hand", "at most 1000"),
    ({"hand": "7H 8H", "round": ""}, "round", "say which round"),
    ({"hand": "7H 8H", "round": "six"}, "round", "a whole number"),
    ({"hand": "7H 8H", "round": "²"}, "round", "a whole number"),  # a digit to str.isdigit, not to int
    ({"hand": "7H 8H", "round": "9"}, "round", "rounds 1 to 7"),
    ({"hand": "7H 8H", "round": "2", "rules": "shangai"}, "rules", "did you mean &#39;shanghai&#39;"),
    ({"hand": "7H 8H", "round": "2", "rules": "/etc/passwd.toml"}, "rules", "unknown rule set"),
    ({"hand": "7H 8H", "round": "2", "players": "40"}, "players", "players"),
    ({"hand": "7H 8H", "round": "2", "moment": "later"}, "moment", "before-draw or after-draw"),
    ({"hand": "7H 8H", "round": "2", "seen": "7H 7Q"}, "seen", "unknown card"),
    ({"hand": "7H 8H 9H 10H 5C 5D 5S", "round": "2", "buy": "9H 9C"}, "buy", "one card"),
    ({"hand": "7H 8H 9H 10H 5C 5D 5S KD", "round": "2", "buy": "9H"}, "buy", "before your draw"),
])
def test_bad_input_gets_the_form_again_with_the_message_beside_the_field(
        client: FlaskClient, fields: dict[str, str], field: str, words: str) -> None:
    response = page(client, **fields)
    assert response.status_code == 400
    assert words in field_error(response.text, field)
    assert re.search(rf'id="{field}"[^>]*aria-invalid="true"', response.text)
    assert "Traceback" not in response.text


def test_a_script_in_the_hand_is_shown_as_text(client: FlaskClient) -> None:
    response = page(client, hand="<script>alert('x')</script> 7H", round="2")
    assert response.status_code == 400
    assert "<script>alert" not in response.text
    assert "&lt;script&gt;alert(" in response.text  # back in the textarea, as text


def test_htmx_gets_the_answer_and_the_field_messages_out_of_band(client: FlaskClient) -> None:
    good = client.get("/analyze?" + urlencode({"hand": LAYS_DOWN, "round": "6"}), headers={"HX-Request": "true"})
    assert good.status_code == 200
    assert good.text.lstrip().startswith("{#") is False and '<section id="answer"' in good.text
    assert "<html" not in good.text and 'id="error-hand" role="alert" hx-swap-oob="true"></p>' in good.text
    bad = client.get("/analyze?" + urlencode({"hand": "7H 8X", "round": "6"}), headers={"HX-Request": "true"})
    assert bad.status_code == 400
    assert "unknown card" in field_error(bad.text, "hand")


def test_unknown_pages_are_404_pages(client: FlaskClient) -> None:
    response = client.get("/no-such-page")
    assert response.status_code == 404
    assert "There is no page here" in response.text


def test_the_analysis_page_takes_no_post(client: FlaskClient) -> None:
    assert client.post("/analyze", data={"hand": "7H"}).status_code in (400, 405)  # no CSRF token: 400


def test_every_page_is_free_of_inline_script_and_style(client: FlaskClient) -> None:
    for url in ("/", "/analyze", "/analyze?" + urlencode({"hand": AWAY, "round": "6", "discards": "on"}),
                "/analyze?hand=9X&round=1", "/missing"):
        html = client.get(url).text
        assert not re.search(r"<script(?![^>]*\ssrc=)", html), url
        assert " style=" not in html and "<style" not in html, url
        assert not re.search(r"\son[a-z]+=", html), url


def test_random_junk_in_every_field_is_never_a_500(client: FlaskClient) -> None:
    rng = random.Random(5)
    alphabet = [*"0123456789AJQKTHDSCjk*#,\n ♠♥♦♣²٣-+.eE<>\"'&%\x00", "10", "JK", "joker", "7H", "AS"]
    for _ in range(150):
        fields = {name: "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
                  for name in ("hand", "rules", "round", "players", "moment", "seen", "buy", "discards", "down",
                               "table", "face_up")
                  if rng.random() < 0.7}
        if rng.random() < 0.5:
            fields["round"] = str(rng.randint(-2, 16))
        assert page(client, **fields).status_code in (200, 400), fields


def test_an_answer_the_time_limit_cut_short_says_so_and_is_not_cached(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A buy verdict stopped before any simulated round finished has no figures: the page says
    what was left undone instead of failing on the missing numbers, and asks again next time."""
    import dataclasses
    import math

    import analyzer.question
    from analyzer import Verdict

    real_advise = analyzer.question.advise
    calls = []

    def cut_short(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        advice = real_advise(*args, **kwargs)
        unknown = dataclasses.replace(advice.buy.passing, lay_down_probability=math.nan,
                                      go_out_probability=math.nan, expected_points=math.nan)
        buy = dataclasses.replace(advice.buy, verdict=Verdict.UNDECIDED, passing=unknown, buying=unknown,
                                  difference=math.nan, margin=math.nan)
        return dataclasses.replace(advice, buy=buy, unfinished=("the buy verdict: no simulated round finished",))

    monkeypatch.setattr(analyzer.question, "advise", cut_short)
    client = make_app(tmp_path, ANALYSIS_WORKERS=0).test_client()  # answered in this process, where it is patched
    question = {"hand": "7C 7D 4H 5H 6H 9S 10S JS QS KD 3C", "round": "6", "players": "4", "buy": "7H"}
    for _ in range(2):
        response = page(client, **question)
        assert response.status_code == 200
        assert 'class="sim-verdict">undecided<' in response.text
        assert 'class="buy-verdict">BUY<' in response.text  # the answer needs no simulation
        assert "no simulated round finished" in response.text
        assert "Not finished within the server" in response.text
    assert len(calls) == 2  # not served from the cache the second time
