"""Accounts in a real browser (Playwright driving Debian's chromium, see conftest.py): take a
name, register from an anonymous player with history, log out, log in again with the history
there, and the forms' messages. Screenshots go to WEB_SCREENSHOTS when it names a folder."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import Page, expect

from tests.webapp.conftest import shot


def test_take_a_name_register_log_out_and_log_in_again(page: Page, live_server: str) -> None:
    username = "ada" + secrets.token_hex(3)  # the live server's database is shared by the session's tests
    password = "correct horse battery"
    account_nav = page.get_by_role("navigation", name="Account")

    # an anonymous player answers a puzzle (plain form: the discard kind), then takes a name
    page.goto(f"{live_server}/practice?kind=discard")
    page.locator("form.answer-form button.card.pick").first.click()
    expect(page.locator(".verdict")).to_be_visible()
    account_nav.get_by_role("link", name="Your name").click()
    shot(page, "name")
    page.get_by_label("Your name").fill("<Ada>")
    page.get_by_role("button", name="Save the name").click()
    expect(page.locator(".field-error")).to_contain_text("letters, digits, spaces")
    shot(page, "name-refused")
    page.get_by_label("Your name").fill("Ada Lovelace")
    page.get_by_role("button", name="Save the name").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Ada Lovelace")
    expect(account_nav).to_contain_text("Ada Lovelace")

    # register: a mismatched confirmation first, then the account, keeping the answer given
    account_nav.get_by_role("link", name="Register").click()
    expect(page.locator(".account-page")).to_contain_text("The 1 answer you have given in this browser stays yours")
    shot(page, "register")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_label("Password again").fill(password + "!")
    page.get_by_role("button", name="Register").click()
    expect(page.locator("#confirm-error")).to_have_text("The two passwords differ.")
    expect(page.get_by_label("Password again")).to_have_attribute("aria-invalid", "true")
    shot(page, "register-refused")
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_label("Password again").fill(password)
    page.get_by_role("button", name="Register").click()
    expect(page).to_have_url(re.compile(r"/dashboard$"))
    expect(page.locator(".figures")).to_contain_text("of 1 rated puzzles right")
    expect(account_nav.get_by_role("button", name="Log out")).to_be_visible()
    shot(page, "dashboard-logged-in")

    # log out: a fresh anonymous player
    account_nav.get_by_role("button", name="Log out").click()
    expect(account_nav.get_by_role("link", name="Log in")).to_be_visible()
    page.goto(f"{live_server}/dashboard")
    expect(page.locator(".figures")).to_contain_text("0 of 0 rated puzzles")

    # log in: a wrong password first (one message for it and an unknown name), then the right one
    account_nav.get_by_role("link", name="Log in").click()
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_have_text("Unknown username or wrong password.")
    shot(page, "login-refused")
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/dashboard$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Ada Lovelace")
    expect(page.locator(".figures")).to_contain_text("of 1 rated puzzles right")
    expect(account_nav).to_contain_text("Ada Lovelace")


def test_the_log_in_page_says_the_browsers_answers_will_join_the_account(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/practice?kind=discard")
    page.locator("form.answer-form button.card.pick").first.click()
    expect(page.locator(".verdict")).to_be_visible()
    page.goto(f"{live_server}/login")
    expect(page.locator(".account-page")).to_contain_text("will join your account's history")
    shot(page, "login")
    page.set_viewport_size({"width": 390, "height": 800})
    shot(page, "login-narrow")
