"""The analysis page in a real browser (Playwright driving Debian's chromium, see conftest.py):
paste a hand and see the melds with the joker labelled, the shared URL, the card picker by
mouse and keyboard, a bad hand's message, the page without JavaScript, and a slow answer that
must not overwrite a newer one."""

from __future__ import annotations

import contextlib
import re

from playwright.sync_api import Browser, Page, Route, expect

from tests.webapp.conftest import shot

LAYS_DOWN = "7C 7D 7S 4H 5H 6H joker 9S 10S JS QS KD 2C 3D"  # round 6: Joker=3♥, discard K♦


def test_paste_a_hand_and_see_the_melds_with_the_joker_labelled(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/analyze")
    page.get_by_label("Your hand").fill(LAYS_DOWN)
    page.get_by_label("Round").fill("6")
    answer = page.locator("#answer")
    expect(answer.get_by_role("heading", name="You can lay down")).to_be_visible()
    expect(answer.locator(".meld .stands-for").first).to_have_text("=3♥")
    expect(answer.locator(".play")).to_contain_text("discard K♦")
    expect(page).to_have_url(re.compile(r"/analyze\?hand=.*&round=6"))  # the question is in the URL
    shot(page, "lays-down")


def test_the_shared_url_reproduces_the_answer(page: Page, browser: Browser, live_server: str) -> None:
    page.goto(f"{live_server}/analyze")
    page.get_by_label("Your hand").fill("7C 7D 4H 5H 6H 9S 10S JS KD joker 2C QD")
    page.get_by_label("Round").fill("6")
    expect(page.locator("#answer h2").first).to_contain_text("2 cards")
    shared = page.locator("a.share").get_attribute("href")
    assert shared
    elsewhere = browser.new_page()
    elsewhere.goto(live_server + shared)
    assert elsewhere.locator("#answer").inner_text() == page.locator("#answer").inner_text()
    expect(elsewhere.get_by_label("Your hand")).to_have_value("2C 7C 7D QD KD 4H 5H 6H 9S 10S JS JK")
    elsewhere.close()


def test_the_card_picker_builds_a_hand_by_mouse_and_by_keyboard(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/analyze")
    page.get_by_label("Round").fill("2")
    hand = page.get_by_label("Your hand")
    # Each live answer may change the messages above the picker, moving it: a click is made only
    # once the answer to the hand before it has come (its address pushed), else under load a
    # click can land beside its card.
    expect(page).to_have_url(re.compile(r"round=2"))
    added: list[str] = []
    for words, token in (("add the 5 of clubs", "5C"), ("add the 5 of diamonds", "5D"),
                         ("add the 5 of spades", "5S"), ("add the 7 of hearts", "7H")):
        page.get_by_role("gridcell", name=words, exact=True).click()
        added.append(token)
        expect(hand).to_have_value(" ".join(added))
        expect(page).to_have_url(re.compile(r"hand=" + r"(%20|\+)".join(added) + "&"))
    expect(hand).to_have_value("5C 5D 5S 7H")
    # keyboard only: from the ace of clubs (the grid's one tab stop) to the 8 of hearts and the joker
    page.get_by_role("gridcell", name="add the ace of clubs").focus()
    for key in ["ArrowDown", "ArrowDown"] + ["ArrowRight"] * 7 + ["Enter", "ArrowRight", " "]:
        page.keyboard.press(key)
    expect(hand).to_have_value("5C 5D 5S 7H 8H 9H")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")  # the joker's row has one card
    page.keyboard.press("Enter")
    expect(hand).to_have_value("5C 5D 5S 7H 8H 9H JK")
    expect(page.locator("#answer")).to_contain_text("After your draw you can lay down")
    page.get_by_role("button", name="Remove the last card").click()
    expect(hand).to_have_value("5C 5D 5S 7H 8H 9H")
    shot(page, "picker")


def test_a_bad_hand_gets_its_message_beside_the_field(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/analyze")
    page.get_by_label("Round").fill("2")
    page.get_by_label("Your hand").fill("7H 8H 9X")
    expect(page.locator("#error-hand")).to_have_text("unknown card '9X' (card 3, line 1)")
    expect(page.get_by_label("Your hand")).to_have_attribute("aria-invalid", "true")
    shot(page, "bad-hand")
    page.get_by_label("Your hand").fill("7H 8H 9H")
    expect(page.locator("#error-hand")).to_be_hidden()
    expect(page.get_by_label("Your hand")).not_to_have_attribute("aria-invalid", "true")
    expect(page.locator("#answer")).to_contain_text("away")


def test_the_page_works_without_javascript(browser: Browser, live_server: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server}/analyze")
    expect(page.locator("#picker")).to_be_hidden()  # it needs script; the textarea does not
    page.get_by_label("Your hand").fill(LAYS_DOWN)
    page.get_by_label("Round").fill("6")
    page.get_by_role("button", name="Analyse").click()
    expect(page).to_have_url(re.compile(r"/analyze\?hand=7C\+7D"))
    expect(page.locator("#answer .meld .stands-for").first).to_have_text("=3♥")
    page.get_by_label("Your hand").fill("7H <script>alert(1)</script>")
    page.get_by_role("button", name="Analyse").click()
    expect(page.locator("#error-hand")).to_contain_text("unknown card")
    expect(page.get_by_label("Your hand")).to_have_value("7H <script>alert(1)</script>")
    context.close()


def test_a_slow_answer_never_overwrites_a_newer_one(browser: Browser, live_server: str) -> None:
    # Its own page: htmx logs the request it aborts as an error, which here is the point.
    page = browser.new_page()
    held: list[Route] = []

    def hold_the_first(route: Route) -> None:
        if "KD" in route.request.url and not held:
            held.append(route)  # answered only after the newer question has been answered
        else:
            route.continue_()

    page.goto(f"{live_server}/analyze")
    page.route(re.compile(r".*/analyze\?.*"), hold_the_first)
    page.get_by_label("Round").fill("2")
    page.get_by_label("Your hand").fill("7H 8H 9H 10H 5C 5D KD")
    page.wait_for_timeout(600)  # the live request for the KD hand is on its way, and held
    assert held
    page.get_by_label("Your hand").fill("7H 8H 9H 10H 5C 5D 5S")
    expect(page.locator("#answer .hand-line")).to_contain_text("5♠")
    with contextlib.suppress(Exception):  # htmx has aborted it already: the point of the test
        held[0].continue_()
    page.wait_for_timeout(500)
    expect(page.locator("#answer .hand-line")).to_contain_text("5♠")
    expect(page.locator("#answer .hand-line")).not_to_contain_text("K♦")
    page.close()


