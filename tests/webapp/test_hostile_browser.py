"""Limits that fail well, in a real browser: the live analysis page over its budget shows the
429's message in the answer's place (one header, one footer), and the form keeps working: the
next question, answered from the cache, replaces the message. And a report of today's daily,
as its reporter then sees the day's page, with and without JavaScript."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.webapp.conftest import make_app, served, shot

LAYS_DOWN = "7C 7D 7S 4H 5H 6H joker 9S 10S JS QS KD 2C 3D"  # round 6: you can lay down


@pytest.fixture(scope="module")
def limited_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app with its rate limits on and a budget of one analysis, served by waitress."""
    app = make_app(tmp_path_factory.mktemp("limited"), RATELIMIT_ENABLED=True, ANALYSIS_PER_MINUTE=1)
    with served(app) as base:
        yield base


def test_a_429_shows_in_the_answer_area_and_the_form_keeps_working(page: Page, limited_server: str) -> None:
    page.goto(f"{limited_server}/analyze")
    page.get_by_label("Your hand").fill(LAYS_DOWN)
    page.get_by_label("Round").fill("6")
    answer = page.locator("#answer")
    expect(answer.get_by_role("heading", name="You can lay down")).to_be_visible()
    page.get_by_label("Round").fill("5")  # a new question: over the budget of one
    expect(answer).to_contain_text("Too many analyses from your address")
    expect(answer).to_contain_text("Try again in")
    expect(page.locator("header.site")).to_have_count(1)
    expect(page.locator("footer.site")).to_have_count(1)
    expect(page.locator("#answer")).to_have_count(1)
    shot(page, "limited-desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "limited-phone")
    page.get_by_label("Round").fill("6")  # asked before: from the cache, never refused
    expect(answer.get_by_role("heading", name="You can lay down")).to_be_visible()


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
def test_the_reporter_of_todays_daily_is_told_so(browser: Browser, live_server: str, javascript: bool) -> None:
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    page.goto(f"{live_server}/daily")
    page.get_by_text("Is this puzzle wrong?").click()
    page.get_by_label("What is wrong").fill("the answer looks off")
    page.get_by_role("button", name="Report it").click()
    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    expect(page.locator("main")).to_contain_text("today's daily puzzle")
    if javascript:
        shot(page, "reported-daily")
    page.goto(f"{live_server}/daily")
    expect(page.get_by_role("heading", name="You reported today's puzzle")).to_be_visible()
    if javascript:
        shot(page, "daily-reported-desktop")
        page.set_viewport_size({"width": 390, "height": 844})
        shot(page, "daily-reported-phone")
    context.close()

