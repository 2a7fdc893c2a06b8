"""Choosing what to practise in a real browser (with htmx and without JavaScript), the discard
table on a phone, a replaced live answer logging nothing, and screenshots of the pages this
touches (desktop and 390 px) when WEB_SCREENSHOTS names a folder."""

from __future__ import annotations

import contextlib
import re

from playwright.sync_api import Browser, Page, Route, expect

from tests.webapp.conftest import shot

PHONE = {"width": 390, "height": 844}
DISCARDS = "/analyze?hand=7H+8H+10H+5C+5D+5S+KD+QC&round=2&discards=on"


def test_choosing_on_the_puzzle_page_deals_that_choice_and_remembers_it(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/practice")
    expect(page).to_have_url(re.compile(r"/puzzles/\w+"))
    page.get_by_label("Rule set").select_option(label="Shanghai")  # htmx: dealt at once, no button
    expect(page.locator(".puzzle-head .context strong")).to_have_text("shanghai")
    page.get_by_label("Kind").select_option("buy")
    expect(page).to_have_url(re.compile(r"kind=buy"))
    expect(page.locator(".puzzle-head h1")).to_contain_text("buy", ignore_case=True)
    page.get_by_label("Difficulty").select_option("harder")
    expect(page).to_have_url(re.compile(r"difficulty=harder"))
    shot(page, "choose-puzzle")
    page.goto(f"{live_server}/practice")  # the plain link: the same choice
    expect(page).to_have_url(re.compile(r"kind=buy.*difficulty=harder|difficulty=harder.*kind=buy"))
    expect(page.get_by_label("Rule set")).to_have_value("shanghai")
    expect(page.get_by_label("Difficulty")).to_have_value("harder")
    page.set_viewport_size(PHONE)
    shot(page, "choose-puzzle-phone")


def test_choosing_works_without_javascript(browser: Browser, live_server: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server}/practice")
    page.get_by_label("Rule set").select_option("may-i")
    page.get_by_label("Kind").select_option("discard")
    page.get_by_role("button", name="Practise").click()
    expect(page.locator(".puzzle-head .context strong")).to_have_text("may-i")
    expect(page).to_have_url(re.compile(r"kind=discard"))
    page.goto(f"{live_server}/practice?difficulty=hardest")
    expect(page.locator("main")).to_contain_text("'hardest'")
    context.close()


def test_the_discard_table_fits_a_phone(browser: Browser, live_server: str) -> None:
    for size, name in ((PHONE, "discards-phone"), ({"width": 1280, "height": 900}, "discards")):
        page = browser.new_page(viewport=size)
        page.goto(live_server + DISCARDS)
        table = page.locator(".discards table")
        expect(table).to_be_visible()
        section = page.locator("section.discards")
        overflow = section.evaluate("(s) => s.scrollWidth - s.clientWidth")
        assert overflow <= 0, f"{size['width']} px: the table is {overflow} px wider than its section"
        right = table.locator("thead th").last.evaluate("(th) => th.getBoundingClientRect().right")
        assert right <= size["width"]
        shot(page, name)
        page.close()


def test_a_replaced_live_answer_logs_no_error(page: Page, live_server: str) -> None:
    held: list[Route] = []

    def hold_the_first(route: Route) -> None:
        if "KD" in route.request.url and not held:
            held.append(route)
        else:
            route.continue_()

    page.goto(f"{live_server}/analyze")
    page.route(re.compile(r".*/analyze\?.*"), hold_the_first)
    page.get_by_label("Round").fill("2")
    page.get_by_label("Your hand").fill("7H 8H 9H 10H 5C 5D KD")
    page.wait_for_timeout(600)
    assert held
    page.get_by_label("Your hand").fill("7H 8H 9H 10H 5C 5D 5S")  # replaces the held request
    expect(page.locator("#answer .hand-line")).to_contain_text("5♠")
    with contextlib.suppress(Exception):
        held[0].continue_()
    page.wait_for_timeout(300)
    # the page fixture fails the test on any console error


def test_screenshots_of_home_rules_dashboard_and_none_left(browser: Browser, live_server: str) -> None:
    for size, suffix in (({"width": 1280, "height": 900}, ""), (PHONE, "-phone")):
        page = browser.new_page(viewport=size)
        for path, name in (("/", "home"), ("/rules", "rules"), ("/dashboard", "dashboard-empty")):
            page.goto(live_server + path)
            expect(page.locator("main h1")).to_be_visible()
            shot(page, name + suffix)
        page.close()
