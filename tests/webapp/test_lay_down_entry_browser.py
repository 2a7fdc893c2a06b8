"""Entering a lay-down in a real browser (Playwright driving Debian's chromium): Enter in a row
never submits (with script it moves to the next row, without it does nothing), rows take their
meld's cards and pass on to the next, a lay-down not yet a play comes back beside its row unrated
(checked in the database), "Make a run" and "Undo", and a 12-card lay-down in at most 14 taps.

Each puzzle is chosen from the bank by a fixed rule, and its best play is checked right with
``puzzles.check`` before the browser is driven."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from playwright.sync_api import Browser, Locator, Page, expect
from sqlalchemy import func, select

from analyzer import Card
from puzzles.bank import load_bank
from puzzles.check import check_lay_down
from puzzles.model import LayDownAnswer, Puzzle
from tests.webapp.conftest import CHROMIUM, make_app, served
from tests.webapp.conftest import shot as screenshot
from webapp.analysis import card_view
from webapp.db import Attempt, Player, session

BANK = sorted(load_bank(), key=lambda puzzle: puzzle.id)


def _lay_down(rules: str, round_number: int, melded: int) -> Puzzle:
    """The first lay-down of ``rules`` and round whose best play melds ``melded`` cards and discards."""
    return next(p for p in BANK if p.kind == "lay-down" and p.rules == rules and p.round == round_number
                and p.solution and not p.solution.cannot and p.solution.discard
                and sum(len(meld.cards) for meld in p.solution.melds) == melded)


TWELVE = _lay_down("progressive", 7, 12)  # 3 runs of 4
ELEVEN = _lay_down("progressive", 6, 11)  # 1 set of 3 + 2 runs of 4: the runs tapped first


@pytest.fixture(scope="module")
def trainer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Flask]]:
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium here")
    app = make_app(tmp_path_factory.mktemp("entry"))
    with served(app) as base:
        yield base, app


@pytest.fixture(scope="module", autouse=True)
def patient_assertions() -> Iterator[None]:
    expect.set_options(timeout=15_000)  # a loaded 2-core machine; a passing run is no slower
    yield
    expect.set_options(timeout=5_000)


def recorded(app: Flask) -> tuple[int, list[float]]:
    """The attempts in the database, and every player's rating."""
    with app.app_context():
        db = session()
        return (db.scalar(select(func.count()).select_from(Attempt)) or 0,
                list(db.scalars(select(Player.rating))))


class Taps:
    """Clicks counted: every tap the player makes goes through ``tap``."""

    def __init__(self) -> None:
        self.count = 0

    def tap(self, target: Locator) -> None:
        self.count += 1
        target.click()


def hand_card(page: Page, card: Card) -> Locator:
    """A card of the hand not yet placed (a placed one is named "..., placed")."""
    return page.locator("#hand-cards").get_by_role("button", name=card_view(card.token)["words"], exact=True).first


def row_input(page: Page, index: int) -> Locator:
    return page.locator(f"#meld-{index}")


def the_best_play_is_right(puzzle: Puzzle) -> None:
    assert puzzle.solution is not None
    assert check_lay_down(puzzle, LayDownAnswer(puzzle.solution.melds, puzzle.solution.discard)).right


def shot(page: Page, name: str) -> None:
    screenshot(page, f"entry-{name}")


def test_a_12_card_lay_down_in_at_most_14_taps(page: Page, trainer: tuple[str, Flask]) -> None:
    base, app = trainer
    puzzle = TWELVE
    the_best_play_is_right(puzzle)
    assert puzzle.solution is not None and puzzle.solution.discard is not None
    page.goto(f"{base}/puzzles/{puzzle.id}")
    taps = Taps()
    for index, meld in enumerate(puzzle.solution.melds):  # the contract's rows in order: 3 runs of 4
        expect(page.locator(".meld-row.active")).to_have_attribute("data-row", f"meld-{index}")
        for card in meld.cards:
            taps.tap(hand_card(page, card))
        expect(row_input(page, index)).to_have_value(" ".join(card.token for card in meld.cards))
    expect(page.locator(".meld-row.active")).to_have_attribute("data-row", "discard")  # every row whole
    taps.tap(hand_card(page, puzzle.solution.discard))
    expect(page.locator("#discard")).to_have_value(puzzle.solution.discard.token)
    shot(page, "twelve-built")
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "twelve-built-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    taps.tap(page.get_by_role("button", name="Lay down"))
    expect(page.get_by_role("heading", name="Right!")).to_be_visible()
    assert taps.count <= 14, taps.count
    assert recorded(app)[0] >= 1


def test_enter_in_a_row_moves_on_and_never_submits(page: Page, trainer: tuple[str, Flask], browser: Browser) -> None:
    base, app = trainer
    puzzle = TWELVE
    assert puzzle.solution is not None
    before = recorded(app)
    page.goto(f"{base}/puzzles/{puzzle.id}")
    first = " ".join(card.token for card in puzzle.solution.melds[0].cards[:2])
    row_input(page, 0).fill(first)
    row_input(page, 0).press("Enter")
    expect(row_input(page, 1)).to_be_focused()
    row_input(page, 1).press("Enter")
    expect(row_input(page, 2)).to_be_focused()
    assert page.url == f"{base}/puzzles/{puzzle.id}"
    expect(page.get_by_role("heading", name="Can you lay down?")).to_be_visible()
    # a space after a whole row moves on too
    whole = " ".join(card.token for card in puzzle.solution.melds[0].cards)
    row_input(page, 0).fill(whole)
    row_input(page, 0).press("Space")
    expect(row_input(page, 1)).to_be_focused()
    # without script: Enter does nothing at all
    context = browser.new_context(java_script_enabled=False)
    bare = context.new_page()
    bare.goto(f"{base}/puzzles/{puzzle.id}")
    bare.locator("#meld-0").fill(first)
    bare.locator("#meld-0").press("Enter")
    bare.wait_for_timeout(500)
    assert bare.url == f"{base}/puzzles/{puzzle.id}"
    expect(bare.get_by_role("heading", name="Can you lay down?")).to_be_visible()
    context.close()
    assert recorded(app) == before


def test_rows_take_their_size_then_pass_on_and_undo_takes_back_the_last(page: Page, trainer: tuple[str, Flask]) -> None:
    base, _ = trainer
    puzzle = TWELVE
    assert puzzle.solution is not None
    page.goto(f"{base}/puzzles/{puzzle.id}")
    first, second = puzzle.solution.melds[0].cards, puzzle.solution.melds[1].cards
    for card in first:
        hand_card(page, card).click()
    expect(page.locator(".meld-row.active")).to_have_attribute("data-row", "meld-1")
    hand_card(page, second[0]).click()  # the fifth card goes to the next row, not the full one
    expect(row_input(page, 0)).to_have_value(" ".join(card.token for card in first))
    expect(row_input(page, 1)).to_have_value(second[0].token)
    expect(page.locator(".meld-row[data-row='meld-0'] .row-count")).to_have_text("4 of 4")
    # a full row chosen again takes no more: the rules lay down exact sizes
    page.locator(".meld-row[data-row='meld-0']").click(position={"x": 5, "y": 5})
    hand_card(page, second[1]).click()
    expect(row_input(page, 0)).to_have_value(" ".join(card.token for card in first))
    expect(row_input(page, 1)).to_have_value(f"{second[0].token} {second[1].token}")
    page.get_by_role("button", name="Undo").click()
    expect(row_input(page, 1)).to_have_value(second[0].token)
    page.get_by_role("button", name="Undo").click()
    page.get_by_role("button", name="Undo").click()
    expect(row_input(page, 1)).to_have_value("")
    expect(row_input(page, 0)).to_have_value(" ".join(card.token for card in first[:-1]))
    expect(page.locator(".meld-row.active")).to_have_attribute("data-row", "meld-0")


def test_make_a_run_moves_a_meld_tapped_out_of_order(page: Page, trainer: tuple[str, Flask]) -> None:
    base, _ = trainer
    puzzle = ELEVEN
    the_best_play_is_right(puzzle)
    assert puzzle.solution is not None and puzzle.solution.discard is not None
    sets = [meld for meld in puzzle.solution.melds if meld.kind.value == "set"]
    runs = [meld for meld in puzzle.solution.melds if meld.kind.value == "run"]
    page.goto(f"{base}/puzzles/{puzzle.id}")
    taps = Taps()
    for card in runs[0].cards:  # a run first, into the row of the set
        taps.tap(hand_card(page, card))
    expect(page.locator("#error-meld-0")).to_contain_text("not a set")
    taps.tap(page.get_by_role("button", name="Make a run"))
    expect(row_input(page, 0)).to_have_value("")
    expect(row_input(page, 1)).to_have_value(" ".join(card.token for card in runs[0].cards))
    expect(page.locator(".meld-row.active")).to_have_attribute("data-row", "meld-0")
    for meld in (sets[0], runs[1]):
        for card in meld.cards:
            taps.tap(hand_card(page, card))
    taps.tap(hand_card(page, puzzle.solution.discard))
    taps.tap(page.get_by_role("button", name="Lay down"))
    expect(page.get_by_role("heading", name="Right!")).to_be_visible()
    assert taps.count <= 14, taps.count


def test_a_lay_down_not_yet_a_play_comes_back_unrated(page: Page, trainer: tuple[str, Flask]) -> None:
    base, app = trainer
    puzzle = TWELVE
    assert puzzle.solution is not None and puzzle.solution.discard is not None
    page.goto(f"{base}/puzzles/{puzzle.id}")
    before = recorded(app)
    melds = puzzle.solution.melds
    for meld in melds[:2]:
        for card in meld.cards:
            hand_card(page, card).click()
    for card in melds[2].cards[:-1]:  # the last row a card short, and no discard
        hand_card(page, card).click()
    page.get_by_role("button", name="Lay down").click()
    expect(page.locator("#error-meld-2")).to_contain_text("3 cards, but a run of 4 takes exactly 4")
    expect(page.get_by_role("alert")).to_contain_text("Not recorded, and your rating is unchanged")
    expect(page.locator(".badge.rated")).to_have_text("Rated: your first try")
    expect(row_input(page, 2)).to_have_value(" ".join(card.token for card in melds[2].cards[:-1]))
    shot(page, "incomplete")
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "incomplete-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    assert recorded(app) == before  # no attempt, no rating moved
    # the row filled (the builder shows what the form kept), the discard chosen: scored and rated
    hand_card(page, melds[2].cards[-1]).click()
    expect(page.locator("#error-meld-2")).to_have_text("")
    hand_card(page, puzzle.solution.discard).click()
    page.get_by_role("button", name="Lay down").click()
    expect(page.get_by_role("heading", name="Right!")).to_be_visible()
    expect(page.locator(".rating-change")).to_contain_text("was 1500")
    assert recorded(app)[0] == before[0] + 1
