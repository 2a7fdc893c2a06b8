"""Learning from a wrong answer, in a real browser (Playwright driving Debian's chromium): a wrong
discard's row beside the best with the columns explained, a wrong lay-down scored beside the
best, a buy puzzle's link to the analysis page giving the puzzle's verdict (its turn carried in
the form), and the analysis page's column words and lay-off notes; each on a desktop and at a
phone's 390 px, where nothing may be cut off (screenshots with WEB_SCREENSHOTS)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Browser, Page, expect

from analyzer import DISCARD_COLUMNS
from puzzles.model import Kind, Puzzle
from tests.webapp.conftest import CHROMIUM, make_app, served, shot
from tests.webapp.test_trainer import BANK, LAY_DOWN, lay_down_form

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
BUY = next(puzzle for puzzle in BANK if puzzle.kind is Kind.BUY and puzzle.turn >= 5)


def stored_wrong_discard() -> tuple[Puzzle, str]:
    """A discard puzzle and a wrong card whose row it stores (the page needs no solve)."""
    for puzzle in BANK:
        if puzzle.kind is Kind.DISCARD and puzzle.analysis is not None:
            wrong = [row["card"] for row in puzzle.analysis.rows  # type: ignore[union-attr]
                     if row["card"] not in puzzle.answers]
            if wrong:
                return puzzle, wrong[0]
    raise LookupError("no discard puzzle stores a wrong row")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium here")
    # A time limit no loaded machine reaches: the buy verdict is the one the puzzle stored.
    app = make_app(tmp_path_factory.mktemp("feedback"), ANALYSIS_TIME_LIMIT=30.0, ANALYSIS_WORKERS=0)
    with served(app) as address:
        yield address


@pytest.fixture(autouse=True)
def patient() -> Iterator[None]:
    expect.set_options(timeout=30_000)
    yield
    expect.set_options(timeout=5_000)


def fits(page: Page) -> None:
    """Nothing wider than the window: no column cut off, no sideways scrolling of the page."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width  # type: ignore[index]
    for table in page.locator(".feedback table, .discards table, .buy table").all():
        box = table.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"] + 0.5  # type: ignore[index]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_wrong_discard_shows_its_row_beside_the_best(page: Page, base: str, size: str) -> None:
    page.set_viewport_size(PHONE if size == "phone" else DESKTOP)
    puzzle, card = stored_wrong_discard()
    page.goto(f"{base}/puzzles/{puzzle.id}")
    page.locator(f'button[name=card][value="{card}"]').first.click()
    expect(page.get_by_role("heading", name="Not quite")).to_be_visible()
    feedback = page.locator("#feedback")
    expect(feedback.get_by_role("heading", name="Your discard beside the best")).to_be_visible()
    expect(feedback.locator("tr.mine .card")).to_have_attribute("data-card", card)
    expect(feedback.locator("tr.best .card")).to_have_attribute("data-card", puzzle.answers[0])
    expect(feedback.locator(".difference")).to_contain_text("Throwing the")
    for column, words in DISCARD_COLUMNS.items():
        expect(feedback.locator("dl.columns")).to_contain_text(f"{column}{words}")
    fits(page)
    shot(page, f"feedback-discard-{size}")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_wrong_lay_down_is_scored_beside_the_best(browser: Browser, base: str, size: str) -> None:
    """Sent without JavaScript (the form as typed): two rows with a card swapped, illegal."""
    context = browser.new_context(java_script_enabled=False, viewport=PHONE if size == "phone" else DESKTOP)
    page = context.new_page()
    page.goto(f"{base}/puzzles/{LAY_DOWN.id}")
    form = lay_down_form(LAY_DOWN)
    first, second = form["meld-0"].split(), form["meld-1"].split()
    first[0], second[0] = second[0], first[0]  # whole rows, but not melds: illegal, and scored
    form["meld-0"], form["meld-1"] = " ".join(first), " ".join(second)
    for name, value in form.items():
        if name == "discard":
            page.locator("#discard").select_option(value)
        else:
            page.locator(f'input[name="{name}"]').fill(value)
    page.get_by_role("button", name="Lay down").click()
    expect(page.get_by_role("heading", name="Not quite")).to_be_visible()
    feedback = page.locator("#feedback")
    expect(feedback.locator("tr.mine")).to_contain_text("no")
    expect(feedback.locator("tr.best")).to_contain_text(str(LAY_DOWN.best_points))
    expect(feedback.locator(".difference")).to_contain_text("not legal")
    fits(page)
    shot(page, f"feedback-lay-down-{size}")
    context.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_buy_puzzles_link_gives_its_verdict_on_the_analysis_page(page: Page, base: str, size: str) -> None:
    page.set_viewport_size(PHONE if size == "phone" else DESKTOP)
    wrong = "pass" if BUY.answers[0] == "buy" else "buy"
    page.goto(f"{base}/puzzles/{BUY.id}")
    page.locator(f"button[name=choice][value={wrong}]").click()
    expect(page.get_by_role("heading", name="Not quite")).to_be_visible()
    shot(page, f"feedback-buy-result-{size}")
    page.get_by_role("link", name="See this position on the analysis page").click()
    expect(page.locator(".buy-verdict")).to_have_text(BUY.answers[0].upper())
    expect(page.locator("#turn")).to_have_value(str(BUY.turn))
    expect(page.locator("#buys_used")).to_have_value(str(BUY.buys_used))
    assert f"turn={BUY.turn}" in page.url
    fits(page)
    shot(page, f"feedback-buy-analysis-{size}")


LAY_OFF_HAND = "6C 7C 8C 9C 10C AD 2D 3D 4D 5D 6D"


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_analysis_page_explains_the_columns_and_the_lay_offs(page: Page, base: str, size: str) -> None:
    page.set_viewport_size(PHONE if size == "phone" else DESKTOP)
    page.goto(f"{base}/analyze?" + urlencode({"hand": LAY_OFF_HAND, "round": "3", "moment": "after-draw",
                                               "discards": "on"}))
    notes = page.locator(".lay-off")
    expect(notes).to_have_count(2)
    expect(notes.first).to_have_text(re.compile(r"On a later turn you can lay off the 6♣ on your run 7♣ 8♣ 9♣ 10♣\."))
    for column, words in DISCARD_COLUMNS.items():
        expect(page.locator(".discards dl.columns")).to_contain_text(f"{column}{words}")
        expect(page.locator(f'.discards th[title="{words}"]')).to_have_text(column)
    fits(page)
    shot(page, f"feedback-analysis-{size}")


def test_a_bad_turn_is_marked_beside_its_field(page: Page, base: str) -> None:
    page.goto(f"{base}/analyze?" + urlencode({"hand": "7C 7D 4H 5H 6H 9S 10S JS KD 2C QD", "round": "6",
                                               "buy": "8H", "turn": "0"}))
    expect(page.locator("#error-turn")).to_contain_text("the turn is 1 to 60, not 0")
    expect(page.locator("#turn")).to_have_attribute("aria-invalid", "true")
    shot(page, "feedback-bad-turn")



@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_buy_whose_going_out_chance_falls_says_why_it_is_still_a_buy(page: Page, base: str, size: str) -> None:
    from tests.webapp.test_feedback import still_buys

    page.set_viewport_size(PHONE if size == "phone" else DESKTOP)
    puzzle = still_buys()[0]
    page.goto(f"{base}/puzzles/{puzzle.id}")
    page.locator("button[name=choice][value=pass]").click()
    expect(page.get_by_role("heading", name="Not quite")).to_be_visible()
    expect(page.locator(".reason.still")).to_contain_text("Still a buy: going out first is not what the verdict counts.")
    expect(page.locator(".margin")).to_contain_text("better off against the table")
    fits(page)
    shot(page, f"feedback-still-a-buy-{size}")
