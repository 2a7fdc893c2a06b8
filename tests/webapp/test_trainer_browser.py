"""The trainer in a real browser (Playwright driving Debian's chromium, see conftest.py), as a
player plays it: build a lay-down by clicking cards into meld rows (saying what a joker stands
for, choosing the discard), "It can't be done", a buy puzzle got wrong and the rating moving on
the page and the dashboard, the daily puzzle and its streak, a failed puzzle replayed from the
dashboard (unrated), one solve by keyboard alone, and the same answer form without JavaScript.

Every answer comes from the puzzle itself (its accepted answers, checked with ``puzzles.check``
before the browser is driven), and every puzzle is chosen from the bank by a fixed rule and
opened by id, so a new bank changes which puzzle is played, never what the test means.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from datetime import date, timedelta

import pytest
from flask import Flask
from playwright.sync_api import Browser, Locator, Page, expect

from analyzer import Card, PlacedMeld, card_places, preset
from puzzles.bank import load_bank
from puzzles.check import check_answer, check_lay_down
from puzzles.daily import daily
from puzzles.model import LayDownAnswer, Puzzle
from tests.webapp.conftest import CHROMIUM, _free_port, make_app
from tests.webapp.conftest import shot as screenshot
from webapp.analysis import card_view

BANK = sorted(load_bank(), key=lambda puzzle: puzzle.id)
DAY = date(2026, 3, 14)  # the live server's date: the daily puzzles of this day and the day before are played


def _wild_at_a_run_end(puzzle: Puzzle) -> bool:
    """A lay-down whose best play has a wild card at an end of a run: there the player says what
    it stands for (answers.py: its place alone does not say it)."""
    rules = preset(puzzle.rules)
    return bool(puzzle.kind == "lay-down" and puzzle.solution and not puzzle.solution.cannot and any(
        meld.kind.value == "run" and (rules.is_wild(meld.cards[0]) or rules.is_wild(meld.cards[-1]))
        for meld in puzzle.solution.melds))


JOKER_AT_AN_END = [puzzle for puzzle in BANK if _wild_at_a_run_end(puzzle)]
CLICKED = JOKER_AT_AN_END[0]  # solved with the mouse
# solved by keyboard: another rule set, and a discard to choose
KEYED = next(p for p in JOKER_AT_AN_END if p.solution and p.solution.discard and p.rules != CLICKED.rules)
TYPED = next(p for p in JOKER_AT_AN_END if p not in (CLICKED, KEYED))  # solved without JavaScript
CANNOT = next(p for p in BANK if p.kind == "lay-down" and p.solution and p.solution.cannot)
BUY = next(p for p in BANK if p.kind == "buy")
DISCARD = next(p for p in BANK if p.kind == "discard" and {card.token for card in p.hand} - set(p.answers))


# ---- the live server, the page --------------------------------------------------------------------


@pytest.fixture(scope="module")
def trainer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Flask]]:
    """The app served by waitress on loopback for this module, its date fixed to ``DAY`` (a test
    may move it: ``today()`` reads the config on each request)."""
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium here")  # the browser fixture says how to get it
    import waitress.server

    app = make_app(tmp_path_factory.mktemp("trainer"), TRAINER_TODAY=DAY.isoformat())
    server = waitress.server.create_server(app, host="127.0.0.1", port=_free_port(), threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.effective_port}", app
    server.close()


@pytest.fixture(scope="module", autouse=True)
def patient_assertions() -> Iterator[None]:
    """Assertions wait up to 15 s here (Playwright's default is 5): on a loaded 2-core machine a
    page and its answer can take seconds; a passing run is no slower for it."""
    expect.set_options(timeout=15_000)
    yield
    expect.set_options(timeout=5_000)


@pytest.fixture
def base(trainer: tuple[str, Flask]) -> str:
    return trainer[0]


def shot(page: Page, name: str) -> None:
    screenshot(page, f"trainer-{name}")


# ---- what the player does ----------------------------------------------------------------------------


def words(card: Card) -> str:
    """The card as the page names it for a screen reader: "4 of clubs", "joker"."""
    return card_view(card.token)["words"]


def rows_of(puzzle: Puzzle) -> list[str]:
    """The meld rows of the lay-down form, as the page names them: "Meld 1: set of 3"."""
    contract = preset(puzzle.rules).round(puzzle.round).contract
    return [f"Meld {index + 1}: {spec.describe()}" for index, spec in enumerate(contract)]


def melds_by_row(puzzle: Puzzle) -> dict[int, PlacedMeld]:
    """The puzzle's best play, each meld in a row of its own kind (the rows follow the contract)."""
    assert puzzle.solution is not None
    contract = preset(puzzle.rules).round(puzzle.round).contract
    placed: dict[int, PlacedMeld] = {}
    for meld in puzzle.solution.melds:
        row = next(i for i, spec in enumerate(contract) if spec.kind == meld.kind and i not in placed)
        placed[row] = meld
    return placed


def meanings_to_say(puzzle: Puzzle, meld: PlacedMeld) -> dict[int, Card]:
    """The wild cards of ``meld`` whose meaning the player says, by position: at an end of a run
    whose naturals leave it open (a spare wild card that could go at either end: only there does
    the page ask)."""
    rules = preset(puzzle.rules)
    if meld.kind.value != "run":
        return {}
    naturals = [card for card in meld.cards if not rules.is_wild(card)]
    if naturals:
        low, high = min(((min(places), max(places)) for places in (
            [card_places(card)[0] for card in naturals], [card_places(card)[-1] for card in naturals])),
            key=lambda span: span[1] - span[0])
        spare = len(meld.cards) - len(naturals) - (high - low + 1 - len(naturals))
        if not (spare > 0 and low > 1 and high < 14):
            return {}
    ends = {0, len(meld.cards) - 1}
    return {i: meld.stands_for[i] for i in ends if rules.is_wild(meld.cards[i])}


def the_best_play_is_right(puzzle: Puzzle) -> None:
    """The play the test enters is right by the puzzles package's own check (not by this test)."""
    assert puzzle.solution is not None
    melds = tuple(meld for _, meld in sorted(melds_by_row(puzzle).items()))
    assert check_lay_down(puzzle, LayDownAnswer(melds, puzzle.solution.discard)).right


def tokens(cards: tuple[Card, ...]) -> str:
    return " ".join(card.token for card in cards)


def discard_choice(page: Page) -> Locator:
    return page.get_by_role("combobox", name="Discard", exact=True)


def hand_card(page: Page, card: Card) -> Locator:
    """A card of the hand not yet placed (a placed one is named "..., placed")."""
    return page.locator("#hand-cards").get_by_role("button", name=words(card), exact=True).first


def build_by_mouse(page: Page, puzzle: Puzzle) -> None:
    """Click each meld's cards into its row, say what each wild card at a run's end stands for,
    and click the discard into the discard row."""
    assert puzzle.solution is not None
    names = rows_of(puzzle)
    for row, meld in sorted(melds_by_row(puzzle).items()):
        page.get_by_role("radio", name=names[row]).check()
        for card in meld.cards:
            hand_card(page, card).click()
        expect(page.get_by_role("textbox", name=names[row])).to_have_value(tokens(meld.cards))
        for position, meaning in meanings_to_say(puzzle, meld).items():
            choice = stands_for_choice(page, puzzle, row, position)
            choice.select_option(meaning.token)
            expect(page.get_by_role("status")).to_contain_text(f"stands for the {words(meaning)}")
    if puzzle.solution.discard:
        page.get_by_role("radio", name="Discard").check()
        hand_card(page, puzzle.solution.discard).click()
        expect(discard_choice(page)).to_have_value(puzzle.solution.discard.token)


def stands_for_choice(page: Page, puzzle: Puzzle, row: int, position: int) -> Locator:
    """The "stands for" choice of the wild card at ``position`` of meld row ``row``."""
    choice = page.locator(f"select[data-focus-key='means-{row}-{position}']")
    joker = words(melds_by_row(puzzle)[row].cards[position])
    expect(choice).to_have_accessible_name(f"the {joker} in {rows_of(puzzle)[row]} stands for")
    return choice


def solve(page: Page, puzzle: Puzzle) -> None:
    """Answer ``puzzle`` right with the mouse, whatever its kind."""
    if puzzle.kind == "lay-down":
        if puzzle.solution and puzzle.solution.cannot:
            assert check_lay_down(puzzle, LayDownAnswer(cannot=True)).right
            page.get_by_role("button", name="It can't be done").click()
        else:
            the_best_play_is_right(puzzle)
            build_by_mouse(page, puzzle)
            page.get_by_role("button", name="Lay down").click()
    elif puzzle.kind == "discard":
        token = puzzle.answers[0]
        assert check_answer(puzzle, token)
        page.get_by_role("button", name=f"discard the {card_view(token)['words']}").first.click()
    else:
        assert check_answer(puzzle, puzzle.answers[0])
        page.locator(f"button[name=choice][value={puzzle.answers[0]}]").click()
    expect(page.get_by_role("heading", name="Right!")).to_be_visible()


def rating_on(page: Page) -> int:
    return int(page.locator("#rating").inner_text())


def drawn_best_play(page: Page) -> list[list[str]]:
    """The best play drawn on the answer page: each meld's cards as tokens."""
    return [meld.locator(".card").evaluate_all("cards => cards.map(card => card.dataset.card)")
            for meld in page.locator(".solution .meld").all()]


# ---- the tests ------------------------------------------------------------------------------------


def test_solve_a_lay_down_by_clicking_cards_into_the_meld_rows(page: Page, base: str) -> None:
    puzzle = CLICKED
    assert puzzle.solution is not None
    page.goto(f"{base}/puzzles/{puzzle.id}")
    expect(page.get_by_role("heading", name="Can you lay down?")).to_be_visible()
    expect(page.locator(".badge.rated")).to_have_text("Rated: your first try")
    first_row = melds_by_row(puzzle)[0]
    hand_card(page, first_row.cards[0]).click()
    expect(page.get_by_role("status")).to_contain_text(f"put in {rows_of(puzzle)[0]}")
    # a placed card is taken back by clicking it, and is free in the hand again
    taken = f"take back the {words(first_row.cards[0])} from {rows_of(puzzle)[0]}"
    page.get_by_role("button", name=taken).click()
    expect(page.get_by_role("textbox", name=rows_of(puzzle)[0])).to_have_value("")
    # or dragged onto a row, which becomes the chosen one
    last = rows_of(puzzle)[-1]
    last_row = page.locator(".meld-row", has=page.get_by_role("textbox", name=last))
    hand_card(page, first_row.cards[0]).drag_to(last_row)
    expect(page.get_by_role("textbox", name=last)).to_have_value(first_row.cards[0].token)
    expect(page.get_by_role("radio", name=last)).to_be_checked()
    page.get_by_role("button", name=f"take back the {words(first_row.cards[0])} from {last}").click()
    build_by_mouse(page, puzzle)
    shot(page, "lay-down-built")
    page.get_by_role("button", name="Lay down").click()
    expect(page.get_by_role("heading", name="Right!")).to_be_visible()
    expect(page.locator(".rating-change")).to_contain_text("was 1500")
    assert rating_on(page) > 1500
    assert drawn_best_play(page) == [[card.token for card in meld.cards] for meld in puzzle.solution.melds]
    expect(page.locator(".solution .play")).to_contain_text(f"you keep {puzzle.best_points} point")
    shot(page, "lay-down-right")


def test_it_cannot_be_done(page: Page, base: str) -> None:
    page.goto(f"{base}/puzzles/{CANNOT.id}")
    solve(page, CANNOT)
    expect(page.locator(".your-answer")).to_contain_text("it can't be done")
    expect(page.get_by_role("heading", name="The answer: it can't be done")).to_be_visible()
    shot(page, "cannot-right")


def test_a_buy_puzzle_got_wrong_moves_the_rating_on_the_page_and_the_dashboard(page: Page, base: str) -> None:
    wrong = "pass" if BUY.answers[0] == "buy" else "buy"
    assert not check_answer(BUY, wrong)
    page.goto(f"{base}/puzzles/{BUY.id}")
    assert BUY.offered is not None
    expect(page.locator(".offered .card")).to_have_attribute("data-card", BUY.offered.token)
    page.locator(f"button[name=choice][value={wrong}]").click()
    expect(page.get_by_role("heading", name="Not quite")).to_be_visible()
    expect(page.locator(".your-answer")).to_contain_text(wrong.capitalize())
    expect(page.locator(".rating-change")).to_contain_text("was 1500")
    after = rating_on(page)
    assert after < 1500
    expect(page.locator(".rating-change .change")).to_have_text(f"{after - 1500:+d}")
    answer = re.compile("^The answer: " + BUY.answers[0], re.IGNORECASE)
    expect(page.get_by_role("heading", name=answer)).to_be_visible()
    shot(page, "buy-wrong")
    page.get_by_role("link", name="Your dashboard").click()
    expect(page.locator("#rating")).to_have_text(str(after))
    expect(page.locator(".chart svg")).to_be_visible()
    expect(page.locator(".recent tbody tr").first).to_contain_text("wrong")
    expect(page.locator(".failed")).to_contain_text(BUY.id)


def test_the_daily_puzzle_two_days_running_makes_a_daily_streak_of_two(
        page: Page, trainer: tuple[str, Flask]) -> None:
    base, app = trainer
    try:
        for day, streak in ((DAY - timedelta(days=1), 1), (DAY, 2)):
            app.config["TRAINER_TODAY"] = day.isoformat()
            puzzle = daily(BANK, day)  # the puzzles package's rule
            page.goto(f"{base}/daily")
            expect(page.locator(".badge.daily")).to_have_text(f"Daily puzzle of {day.isoformat()}")
            expect(page.locator(".puzzle-id code")).to_have_text(puzzle.id)
            solve(page, puzzle)
            expect(page.locator("#daily-streak")).to_have_text(str(streak))
        shot(page, "daily-right")
        page.goto(f"{base}/daily")
        expect(page.get_by_role("heading", name="You solved today's puzzle")).to_be_visible()
        expect(page.locator("#daily-streak")).to_have_text("2")
        shot(page, "daily-solved")
        page.goto(f"{base}/dashboard")
        expect(page.locator("#daily-streak")).to_have_text("2")
    finally:
        app.config["TRAINER_TODAY"] = DAY.isoformat()


def test_a_failed_puzzle_replayed_from_the_dashboard_is_unrated(page: Page, base: str) -> None:
    wrong = next(card for card in DISCARD.hand if card.token not in DISCARD.answers)
    assert not check_answer(DISCARD, wrong.token)
    page.goto(f"{base}/puzzles/{DISCARD.id}")
    page.get_by_role("button", name=f"discard the {words(wrong)}").first.click()
    expect(page.get_by_role("heading", name="Not quite")).to_be_visible()
    rating = rating_on(page)
    page.goto(f"{base}/dashboard")
    page.locator(".failed").get_by_role("link", name=re.compile(DISCARD.id)).click()
    expect(page.locator(".badge.replay")).to_have_text("Replay: not rated")
    expect(page.locator(".badge.rated")).to_have_count(0)
    shot(page, "replay")
    solve(page, DISCARD)
    stays = re.compile(rf"Replay: not rated\. Your rating stays {rating}\.")
    expect(page.locator(".rating-change")).to_have_text(stays)
    page.goto(f"{base}/dashboard")
    expect(page.locator("#rating")).to_have_text(str(rating))
    expect(page.locator(".figures")).to_contain_text("0 of 1 rated puzzles right, 1 replay")
    expect(page.locator(".failed")).not_to_contain_text(DISCARD.id)  # solved since: nothing left to replay


# ---- by keyboard alone ------------------------------------------------------------------------------------


def focused(page: Page, script: str) -> object:
    """Read something of the focused element (reading only: the test's input is keys)."""
    return page.evaluate(f"(() => {{ const el = document.activeElement; return {script}; }})()")


def tab_to(page: Page, selector: str, limit: int = 80) -> None:
    """Press Tab until the focused element matches ``selector``."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if focused(page, f"el.matches({selector!r})"):
            return
    raise AssertionError(f"Tab never reached {selector}")


def arrow_to(page: Page, token: str) -> None:
    """In the hand (focused), from its first free card, ArrowRight to a free ``token``."""
    page.keyboard.press("Home")
    for _ in range(30):
        if focused(page, "el.dataset.card") == token:
            return
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"no free {token} in the hand")


def active_row(page: Page) -> int:
    """The row the cards go to now: a meld's index, or the number of melds for the discard."""
    row = page.locator(".meld-row.active").get_attribute("data-row") or ""
    return page.locator(".meld-row").count() - 1 if row == "discard" else int(row.removeprefix("meld-"))


def test_a_lay_down_solved_by_keyboard_alone(page: Page, base: str) -> None:
    puzzle = KEYED
    assert puzzle.solution is not None and puzzle.solution.discard is not None
    the_best_play_is_right(puzzle)
    names = rows_of(puzzle)
    page.goto(f"{base}/puzzles/{puzzle.id}")
    tab_to(page, "#hand-cards button")  # the hand is one tab stop
    assert page.locator("#hand-cards button[tabindex='0']").count() == 1
    meanings: list[tuple[int, int, Card]] = []  # (row, position, card meant)
    for row, meld in sorted(melds_by_row(puzzle).items()):
        active = active_row(page)  # a whole row passes on to the next by itself
        while active != row:  # Up/Down choose the row the cards go to
            page.keyboard.press("ArrowDown" if row > active else "ArrowUp")
            active += 1 if row > active else -1
            expect(page.get_by_role("status")).to_have_text(f"Cards now go to {names[active]}.")
        for number, card in enumerate(meld.cards):
            arrow_to(page, card.token)
            page.keyboard.press("Enter" if number % 2 else " ")
        expect(page.get_by_role("textbox", name=names[row])).to_have_value(tokens(meld.cards))
        meanings += [(row, position, meaning) for position, meaning in meanings_to_say(puzzle, meld).items()]
    for _ in range(len(names) - active_row(page)):
        page.keyboard.press("ArrowDown")
    expect(page.locator(".meld-row.active")).to_have_attribute("data-row", "discard")
    arrow_to(page, puzzle.solution.discard.token)
    page.keyboard.press("Enter")
    expect(discard_choice(page)).to_have_value(puzzle.solution.discard.token)
    assert focused(page, "el.matches('#hand-cards button')")  # the focus stays in the hand
    for row, position, meaning in meanings:  # what each joker at a run's end stands for
        tab_to(page, f"select[data-focus-key='means-{row}-{position}']")
        for _ in range(60):  # the choices: "by its place", then the run's suit (or any card)
            if focused(page, "el.value") == meaning.token:
                break
            page.keyboard.press("ArrowDown")
        wild = melds_by_row(puzzle)[row].cards[position]
        written = page.get_by_role("textbox", name=names[row]).input_value().split()
        assert written[position] == f"{wild.token}={meaning.token}"
    shot(page, "keyboard-built")
    tab_to(page, "button.choice:not(.secondary)")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Right!")).to_be_visible()
    # the verdict has the focus (the page's script moves it there once htmx has settled the swap)
    page.wait_for_function("() => document.activeElement && document.activeElement.tagName === 'H1'")
    assert drawn_best_play(page) == [[card.token for card in meld.cards] for meld in puzzle.solution.melds]


# ---- without JavaScript ----------------------------------------------------------------------------------


def test_the_lay_down_form_works_without_javascript(browser: Browser, base: str) -> None:
    puzzle = TYPED
    assert puzzle.solution is not None
    the_best_play_is_right(puzzle)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{base}/puzzles/{puzzle.id}")
    expect(page.locator("#hand-cards button").first).to_be_hidden()  # they need script, the text fields not
    for row, meld in melds_by_row(puzzle).items():
        page.get_by_role("textbox", name=rows_of(puzzle)[row]).fill(tokens(meld.cards))
    discard_choice(page).select_option(puzzle.solution.discard.token if puzzle.solution.discard else "")
    page.get_by_role("button", name="Lay down").click()
    expect(page.get_by_role("heading", name="Right!")).to_be_visible()
    assert drawn_best_play(page) == [[card.token for card in meld.cards] for meld in puzzle.solution.melds]
    context.close()
