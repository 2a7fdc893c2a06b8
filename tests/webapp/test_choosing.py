"""Choosing what to practise on the page (rule set, kind, theme, difficulty: remembered per
browser, the address still honoured, bad values a 400 naming them), what is left when a choice has
none, the home page's ways in, and the dashboard telling one story (an empty one, an adopted
history, a chart of one day)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from analyzer import PRESETS, TITLES
from puzzles.bank import write_puzzles
from puzzles.themes import THEMES
from tests.webapp.conftest import make_app
from tests.webapp.test_accounts import login, register
from tests.webapp.test_trainer import BANK, answer, first, wrong_discard
from webapp.chart import rating_chart
from webapp.choose import theme_line


def selected(page: str) -> dict[str, str]:
    """The practice form's chosen value of each control."""
    form = page.split('class="choose"')[1].split("</form>")[0]
    chosen = {}
    for name, options in re.findall(r'<select name="(\w+)"[^>]*>(.*?)</select>', form, re.DOTALL):
        value = re.search(r'<option value="([^"]*)" selected', options)
        chosen[name] = value.group(1) if value else ""
    return chosen


def dealt(client: FlaskClient, query: str = "") -> str:
    response = client.get(f"/practice{query}")
    assert response.status_code == 303, response.text
    return str(response.headers["Location"])


def test_the_puzzle_page_offers_every_rule_set_kind_theme_and_difficulty_by_name(client: FlaskClient) -> None:
    page = client.get(dealt(client)).text
    for name in PRESETS:
        assert f'<option value="{name}"' in page and TITLES[name][0].replace("'", "&#39;") in page
    assert ">Liverpool (pagat)<" in page and ">Shanghai<" in page
    for kind in ("", "lay-down", "discard", "buy"):
        assert f'<option value="{kind}"' in page.split('name="kind"')[1].split("</select>")[0]
    for theme in ("joker-placement", "penalty-too-costly"):
        assert theme_line(theme) and theme_line(theme) in page
    assert [value for value, _ in re.findall(r'<option value="(\w*)"[^>]*>(easier|normal|harder)', page)] \
        == ["easier", "", "harder"]


def test_the_address_still_chooses_and_the_choice_is_remembered_for_this_browser(app: Flask) -> None:
    client = app.test_client()
    where = dealt(client, "?rules=shanghai&kind=buy&difficulty=harder")
    puzzle_id = where.split("/puzzles/")[1].split("?")[0]
    puzzle = next(p for p in BANK if p.id == puzzle_id)
    assert (puzzle.rules, puzzle.kind) == ("shanghai", "buy")
    assert selected(client.get(where).text) == {"rules": "shanghai", "kind": "buy", "theme": "", "difficulty": "harder"}
    again = dealt(client)  # the plain link: the same choice
    assert "kind=buy" in again and "difficulty=harder" in again
    assert selected(client.get(again).text)["kind"] == "buy"
    assert "kind=" not in dealt(client, "?kind=&difficulty=")  # an empty choice is "any"
    other = app.test_client()  # another visitor is not touched
    assert selected(other.get(dealt(other)).text) == {"rules": "progressive", "kind": "", "theme": "", "difficulty": ""}


@pytest.mark.parametrize("query, named", [
    ("?difficulty=hardest", "'hardest'"), ("?kind=meld", "'meld'"), ("?theme=nope", "'nope'"),
    ("?rules=gin", "'gin'"), ("?difficulty=x&kind=buy", "'x'"),
])
def test_an_unknown_choice_is_a_400_naming_it_on_practice_and_puzzle_pages(client: FlaskClient, query: str, named: str) -> None:
    for path in ("/practice", f"/puzzles/{BANK[0].id}"):
        response = client.get(path + query)
        if path != "/practice" and "rules=" in query:
            continue  # a puzzle's page takes its rule set from the puzzle
        assert response.status_code == 400, (path, query)
        assert named.replace("'", "&#39;") in response.text


def test_none_left_of_a_kind_says_what_is_left_and_offers_it(tmp_path: Path) -> None:
    discard, buy = first("discard"), first("buy")
    folder = tmp_path / "bank"
    folder.mkdir()
    write_puzzles(folder / "progressive-discard.jsonl.gz", [discard])
    write_puzzles(folder / "progressive-buy.jsonl.gz", [buy])
    client = make_app(tmp_path, PUZZLE_BANK=str(folder)).test_client()
    assert answer(client, discard, card=wrong_discard(discard)).status_code == 200
    page = client.get("/practice?kind=discard")
    assert page.status_code == 200
    assert "You have met every puzzle" not in page.text and "You have met every Progressive puzzle" not in page.text
    assert "1 other Progressive puzzle" in page.text
    assert 'href="/practice?rules=progressive&amp;kind=buy&amp;theme=&amp;difficulty="' in page.text
    for theme in buy.themes:
        assert f"theme={theme}" in page.text
    assert answer(client, buy, choice="buy").status_code == 200
    page = client.get("/practice?kind=")
    assert "You have met every Progressive puzzle" in page.text


def test_the_home_page_says_what_contract_rummy_is_and_offers_three_ways_in(client: FlaskClient) -> None:
    page = client.get("/").text
    assert "contract" in page.split("<h1>")[1].lower()
    for path in ('href="/analyze"', 'href="/practice"', 'href="/daily"'):
        assert path in page
    for name, (title, line) in TITLES.items():
        assert f'href="/rules#{name}"' in page and line.replace("'", "&#39;") in page
    rules = client.get("/rules")
    assert rules.status_code == 200
    for name in PRESETS:
        assert f'id="{name}"' in rules.text


def test_every_theme_has_a_one_line_explanation() -> None:
    for theme in THEMES:
        assert 10 < len(theme_line(theme)) < 200 and "\n" not in theme_line(theme)


def test_a_new_players_dashboard_does_not_say_they_solved_what_they_missed(client: FlaskClient) -> None:
    page = client.get("/dashboard").text
    assert "every puzzle you missed" not in page
    assert "The puzzles you miss will be listed here" in page


def test_the_dashboard_practise_links_choose_any_kind(app: Flask, client: FlaskClient) -> None:
    discard = first("discard")
    client.get("/practice?kind=buy")  # remembered: a theme of discards would find no buy
    answer(client, discard, card=wrong_discard(discard))
    page = client.get("/dashboard").text
    assert f'href="/practice?kind=&amp;theme={discard.themes[0]}"' in page


def test_a_chart_of_one_day_shows_its_date_once() -> None:
    day = [(datetime(2026, 3, 14, hour, tzinfo=UTC), 1500.0 + 10 * hour, 200.0) for hour in (9, 10, 11)]
    svg = rating_chart(day)
    assert svg.count("14 Mar 2026</text>") == 1
    assert "on 14 Mar 2026" in svg


def test_after_logging_in_adopts_a_history_the_chart_and_answers_follow_the_accounts_rating(tmp_path: Path, database_url: str) -> None:
    app = make_app(tmp_path, database_url)
    account, other = app.test_client(), app.test_client()
    discards = [p for p in BANK if p.kind == "discard" and p.rules == "progressive"][:4]
    assert register(account, "ada").status_code == 303
    answer(account, discards[0], card=discards[0].answers[0])
    answer(account, discards[1], card=discards[1].answers[0])
    # another browser, anonymous, loses twice, then logs in as ada: its answers are adopted
    answer(other, discards[2], card=wrong_discard(discards[2]))
    answer(other, discards[3], card=wrong_discard(discards[3]))
    assert login(other, "ada").status_code == 303
    page = other.get("/dashboard").text
    rating = re.search(r'<strong id="rating">(\d+)</strong>', page)
    assert rating is not None
    current = re.search(r'class="current-label"[^>]*>(\d+)</text>', page)
    assert current is not None and current.group(1) == rating.group(1)
    assert "Your rating after 2 rated puzzles" in page
    assert "2 of these answers were given in another" in page
    rows = page.split("Recent answers")[1]
    assert rows.count("another browser</span>") == 2
    assert "4 rated puzzles" in page or "of 4 rated puzzles" in page
