"""/play in a real browser (Playwright driving Debian's chromium, see conftest.py): a whole
progressive round 1 against greedy computer players, played by clicking (draw, pass, lay down
into the contract's rows, discard), the page reloaded mid-round and the round carried on, the
review opened at the end; the same table at phone width (390 px)."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from analyzer import analyze
from tests.webapp.conftest import shot as screenshot

SEED = 3
# The deal where the server test's play (tests/webapp/test_play.py, test_a_joker_is_taken_back_from_
# the_page: take a face-up card that pairs up, buy every offer, lay down when the analyser can,
# discard the rarest rank) reaches a joker to take back: the J♣ takes the joker's place in the
# person's own set of jacks (seat 0, meld 2), and the joker goes on the set of aces (meld 1).
SWAP_SEED, SWAP_CARD, SWAP_MELD, JOKER_TO = 10, "JC", "0:1", "0:0"


def shot(page: Page, name: str) -> None:
    """The screenshot once the log's new lines have faded in."""
    page.wait_for_function("() => document.getAnimations().every(a => a.playState === 'finished')")
    screenshot(page, name)


def _act(page: Page, button: Locator) -> None:
    """Click a move's button and wait for the table to come back (htmx swaps it in place)."""
    tokens = page.locator("input[name=token]")
    before = tokens.first.get_attribute("value") if tokens.count() else None
    button.click()
    page.wait_for_function(
        "before => { const t = document.querySelector('input[name=token]'); return !t || t.value !== before; }",
        arg=before)
    # the computer's turns, each asked for by the page, up to the person's next decision
    expect(page.locator("#decision, #play-end").first).to_be_visible(timeout=60_000)
    # and for play.js to lay the kept arrangement on the new hand (it runs as htmx loads it)
    page.wait_for_function("() => { const h = document.querySelector('#hand[data-game]'); return !h || h.dataset.arranged; }")


def _hand(page: Page) -> list[str]:
    return [token for token in page.locator("#hand .card").evaluate_all("cards => cards.map(c => c.dataset.card)")]


def _singleton(tokens: list[str]) -> str:
    ranks = [t[:-1] for t in tokens]
    return min((t for t in tokens if t != "JK"), key=lambda t: (ranks.count(t[:-1]), -tokens.index(t)))


def _start(page: Page, base: str, players: int = 3, seed: int = SEED) -> None:
    page.goto(f"{base}/play")
    page.select_option("#rules", "progressive")
    page.fill("#round", "1")
    page.fill("#players", str(players))
    page.select_option("#strength", "greedy")
    page.fill("#seed", str(seed))
    page.click("#start")
    expect(page.locator("#decision")).to_be_visible()


def _lay_down(page: Page) -> bool:
    """Lay the contract down through the rows when the analyser says the hand can."""
    tokens = _hand(page)
    found = re.search(r"round (\d+)", page.locator("h1").inner_text())
    result = analyze(" ".join(tokens), "progressive", int(found.group(1)) if found else 1)
    if not result.can_lay_down:
        return False
    page.click("#lay-down-box summary")
    free = list(enumerate(tokens))
    for row, meld in enumerate(result.melds, start=1):
        for card in meld.cards:
            index = next(i for i, t in free if t == card.token)
            free.remove((index, card.token))
            page.select_option(f"select[name=place-{index}]", str(row))
    _act(page, page.locator("#lay-down"))
    expect(page.locator("#play-error")).to_have_count(0)
    return True


def _play_on(page: Page, base: str, moves: int, reload_at: int | None = None) -> bool:
    """Make up to ``moves`` decisions; True when the round is over."""
    for made in range(moves):
        if made == reload_at:
            page.reload()
            expect(page.locator("#decision, #play-end").first).to_be_visible()
        if page.locator("#play-end").count():
            return True
        if page.locator("#draw").count():
            _act(page, page.locator("#draw"))
        elif page.locator("#pass").count():
            _act(page, page.locator("#pass"))
        elif page.locator("#lay-down").count() and _lay_down(page):
            continue
        else:
            card = _singleton(_hand(page))
            _act(page, page.locator(f"#discard-form button[value='{card}']"))
    return bool(page.locator("#play-end").count())


def test_a_whole_round_in_the_browser(page: Page, live_server: str) -> None:
    page.set_viewport_size({"width": 1200, "height": 900})
    _start(page, live_server)
    shot(page, "play-start-table")
    _act(page, page.locator("#draw"))
    page.click("#lay-down-box summary")
    shot(page, "play-your-turn")
    assert _play_on(page, live_server, 200, reload_at=4)
    shot(page, "play-end")
    expect(page.locator("#play-end")).to_contain_text("Player")
    page.click("#review-link")
    expect(page.locator("#summary")).to_contain_text("decisions", timeout=120_000)
    expect(page.locator("#turn-1")).to_have_count(1)
    shot(page, "play-review")


def test_the_computer_plays_its_turns_while_the_page_shows_them(page: Page, live_server: str) -> None:
    """The person's draw and discard come back at once: "Player 2 is deciding whether to buy the ..." (the
    card the person declined), "Player 2 is playing", then each computer turn in its own
    request, the log growing, until the table asks the person again."""
    for width, name in ((1200, "play-thinking"), (390, "play-thinking-phone")):
        page.set_viewport_size({"width": width, "height": 900})
        _start(page, live_server, players=4, seed=SEED + width)
        page.click("#draw")  # the card declined is offered to players 2 and 3 first
        expect(page.locator("#thinking")).to_contain_text("Player 2 is deciding whether to buy the")
        screenshot(page, name.replace("thinking", "deciding"))
        expect(page.locator("#discard-form")).to_be_visible(timeout=60_000)
        card = _singleton(_hand(page))
        page.click(f"#discard-form button[value='{card}']")
        expect(page.locator("#thinking")).to_contain_text("Player 2 is playing")
        screenshot(page, name)
        expect(page.locator("#decision, #play-end").first).to_be_visible(timeout=60_000)
        while page.locator("#pass").count():  # a computer's discard offered to buy: passed
            _act(page, page.locator("#pass"))
        log = page.locator("#log").inner_text()
        assert all(f"Player {seat} discarded" in log for seat in (2, 3, 4)) or page.locator("#play-end").count()
        assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_the_table_at_phone_width(page: Page, live_server: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server}/play")
    shot(page, "play-start-phone")
    _start(page, live_server, players=4)
    _play_on(page, live_server, 3)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    shot(page, "play-table-phone")


def test_one_turn_without_javascript(browser: object, live_server: str) -> None:
    from playwright.sync_api import Browser

    assert isinstance(browser, Browser)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    _start(page, live_server)
    page.click("#draw")
    expect(page.locator("#discard-form")).to_be_visible()
    card = _singleton(_hand(page))
    page.click(f"#discard-form button[value='{card}']")
    expect(page.locator("#log")).to_contain_text("You discarded the")
    context.close()


def test_a_whole_game_goes_on_to_round_two(page: Page, live_server: str) -> None:
    """A whole game: round 1 played by clicking to its end, the running totals, "Next round",
    and round 2's table (the rest of the game plays the same way: the server tests play it)."""
    page.set_viewport_size({"width": 1200, "height": 900})
    page.goto(f"{live_server}/play")
    page.check("#length-game")
    page.fill("#players", "3")
    page.fill("#seed", str(SEED))
    shot(page, "play-start-whole")
    page.click("#start")
    expect(page.locator("h1")).to_contain_text("round 1 of 7")
    assert _play_on(page, live_server, 200)
    expect(page.locator("#totals")).to_be_visible()
    expect(page.locator("#review-link")).to_have_count(0)
    shot(page, "play-between-rounds")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "play-between-rounds-phone")
    page.set_viewport_size({"width": 1200, "height": 900})
    _act(page, page.locator("#next-round"))
    expect(page.locator("h1")).to_contain_text("round 2 of 7")
    expect(page.locator("#draw")).to_be_visible()
    expect(page.locator("#log")).to_contain_text("The cards are dealt")
    shot(page, "play-round-two")


def test_the_hand_is_arranged_by_dragging_and_kept(page: Page, live_server: str) -> None:
    """Dragging a card (pointer events, as a finger or a mouse makes them) or Shift+arrow on a
    focused card arranges the hand; the discard buttons follow; the order outlives a reload and a
    move, a new card going to the right end; "suit" sorts again."""
    page.set_viewport_size({"width": 1200, "height": 900})
    _start(page, live_server)
    _act(page, page.locator("#draw"))
    expect(page.locator("#drag-note")).to_be_visible()
    before = _hand(page)
    cards = page.locator("#hand .card")
    cards.last.drag_to(cards.first, target_position={"x": 2, "y": 10})
    dragged = [before[-1], *before[:-1]]
    assert _hand(page) == dragged
    buttons = page.locator("#discard-form button[value]").evaluate_all("bs => bs.map(b => b.value)")
    assert buttons == dragged
    cards.nth(1).focus()
    page.keyboard.press("Shift+ArrowLeft")
    moved = [dragged[1], dragged[0], *dragged[2:]]
    assert _hand(page) == moved
    shot(page, "play-hand-arranged")
    page.reload()
    expect(page.locator("#drag-note")).to_be_visible()
    assert _hand(page) == moved
    _act(page, page.locator(f"#discard-form button[value='{moved[0]}']"))  # the computer plays, then our turn
    while page.locator("#pass").count():
        _act(page, page.locator("#pass"))
    _act(page, page.locator("#draw"))
    hand = _hand(page)
    assert hand[:-1] == moved[1:] and len(hand) == len(moved)  # the card drawn at the right end
    assert hand != _server_hand(page)
    server = _server_hand(page)
    page.click("#sort-suit")
    expect(page.locator("#drag-note")).to_be_visible()
    # sorted by suit again once the table comes back, the arrangement forgotten
    page.wait_for_function("order => Array.from(document.querySelectorAll('#hand .card'), c => c.dataset.card)"
                           ".join() === order.join()", arg=server)
    page.reload()
    assert _hand(page) == _server_hand(page)


def _server_hand(page: Page) -> list[str]:
    """The hand in the server's order (the page as sent, before the script arranges it)."""
    text = page.request.get(page.url).text()
    return re.findall(r'data-card="([^"]+)"', text.split('id="hand"', 1)[1].split("</p>", 1)[0])


def _refused(page: Page, button: Locator, message: str) -> None:
    """Click a move's button that the engine refuses: the table comes back with its message."""
    button.click()
    expect(page.locator("#play-error")).to_contain_text(message)


def test_a_joker_taken_back_through_the_lay_off_form(page: Page, live_server: str) -> None:
    """The server test's deal played by clicking, the same decisions: once laid down, the J♣ is
    chosen with the set holding the joker in the lay-off form and "Take a joker back" clicked; the
    joker is in the hand, the turn cannot end before it is melded; it is laid off from the same
    form, then the discard."""
    page.set_viewport_size({"width": 1200, "height": 900})
    _start(page, live_server, seed=SWAP_SEED)
    laid = False
    for _ in range(80):
        assert not page.locator("#play-end").count(), "the round ended before the joker could be taken back"
        if page.locator("#draw").count():
            face_up = page.locator("#face-up .card").get_attribute("data-card")
            pairs = face_up is not None and (face_up == "JK" or face_up[:-1] in {t[:-1] for t in _hand(page)})
            _act(page, page.locator("#take" if pairs else "#draw"))
        elif page.locator("#buy").count():
            _act(page, page.locator("#buy"))
        elif not laid and page.locator("#lay-down").count() and _lay_down(page):
            laid = True  # the turn goes on: its discard
            _act(page, page.locator(f"#discard-form button[value='{_singleton(_hand(page))}']"))
        elif laid and SWAP_CARD in _hand(page) and "Joker" in page.locator(f"#lay-off-meld option[value='{SWAP_MELD}']").inner_text():
            break
        else:
            _act(page, page.locator(f"#discard-form button[value='{_singleton(_hand(page))}']"))
    else:
        raise AssertionError("no turn with the joker to take back")
    form = page.locator("#lay-off-form")
    # a card that is not the joker's: the engine's message, the hand as it was
    hand = _hand(page)
    wrong = next(t for t in hand if t not in ("JK", SWAP_CARD) and t[:-1] != SWAP_CARD[:-1])
    form.locator("#lay-off-card").select_option(wrong)
    form.locator("#lay-off-meld").select_option(SWAP_MELD)
    _refused(page, page.locator("#substitute"), "sets are of one rank")
    assert _hand(page) == hand
    form.locator("#lay-off-card").select_option(SWAP_CARD)
    form.locator("#lay-off-meld").select_option(SWAP_MELD)
    _act(page, page.locator("#substitute"))
    expect(page.locator("#play-error")).to_have_count(0)
    assert "JK" in _hand(page) and SWAP_CARD not in _hand(page)
    jacks = page.locator("#seat-1 .melds > li").nth(1)
    expect(jacks).to_contain_text("J♣")
    expect(jacks).not_to_contain_text("Joker")
    expect(page.locator("#end-turn")).to_have_count(0)
    expect(page.locator("#joker-owed")).to_be_visible()
    shot(page, "play-joker-taken-back")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "play-joker-taken-back-phone")
    page.set_viewport_size({"width": 1200, "height": 900})
    # the joker may not be discarded, nor the turn end with another discard
    _refused(page, page.locator("#discard-form button[value='JK']"), "must be melded the same turn")
    other = _singleton(_hand(page))
    _refused(page, page.locator(f"#discard-form button[value='{other}']"), "keeps a joker it took back")
    # laid off from the same form, then the discard
    page.locator("#lay-off-card").select_option("JK")
    page.locator("#lay-off-meld").select_option(JOKER_TO)
    _act(page, page.locator("#lay-off"))
    expect(page.locator("#play-error")).to_have_count(0)
    assert "JK" not in _hand(page)
    expect(page.locator("#joker-owed")).to_have_count(0)
    expect(page.locator("#seat-1 .seat-head")).to_contain_text(f"{len(_hand(page))} cards")
    expect(page.locator("#seat-1 .melds > li").first).to_contain_text("Joker")
    shot(page, "play-joker-laid-off")
    _act(page, page.locator(f"#discard-form button[value='{_singleton(_hand(page))}']"))
    expect(page.locator("#log")).to_contain_text("You took a joker back with the J♣ on your meld 2.")
    expect(page.locator("#log")).to_contain_text("You laid off the Joker on your meld 1.")
