"""The daily rule: deterministic, no repeat until the bank's eligible puzzles are used up (a
used-up slot lends its days), mid difficulty, the three kinds mixed, progressive most days and
the other presets in turn."""

from __future__ import annotations

from collections import Counter
from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analyzer import PRESETS, parse_cards
from puzzles.daily import BAND, EPOCH, OTHER_PRESETS, DailyError, daily, daily_run, eligible, slot_of
from puzzles.model import KINDS, Puzzle

CARDS = parse_cards("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AD 2D 3D")


def bank(per_slot: dict[tuple[str, str], int], ratings: tuple[int, ...] = (1500,)) -> list[Puzzle]:
    """Puzzles with distinct positions (the hand differs), ``per_slot`` of them in each slot."""
    puzzles = []
    for (rules, kind), count in per_slot.items():
        for number in range(count):
            hand = tuple(CARDS[i] for i in range(16) if (number + 1) >> i & 1)
            puzzles.append(
                Puzzle(
                    kind=kind,
                    rules=rules,
                    round=1,
                    players=4,
                    moment="after-draw",
                    hand=hand,
                    rating=ratings[number % len(ratings)],
                )
            )
    return puzzles


EVERY_SLOT = {(name, kind): 5 for name in PRESETS for kind in KINDS}


def test_the_same_date_gives_the_same_puzzle_and_the_bank_order_does_not_matter() -> None:
    puzzles = bank(EVERY_SLOT)
    day = date(2026, 3, 14)
    assert daily(puzzles, day) == daily(list(reversed(puzzles)), day) == daily(puzzles, day)
    assert daily_run(puzzles, day, day + timedelta(days=9))[0] == daily(puzzles, day)


def test_progressive_most_days_the_other_presets_in_turn_and_the_kinds_mixed() -> None:
    days = [EPOCH + timedelta(days=n) for n in range(7 * len(OTHER_PRESETS) * 3)]
    slots = [slot_of(day) for day in days]
    presets = Counter(name for name, _ in slots)
    assert presets["progressive"] == 6 * len(slots) // 7
    assert (
        set(presets) == {"progressive", *OTHER_PRESETS}
        and len(set(presets.values()) - {presets["progressive"]}) == 1
    )
    for start in range(0, len(slots) - 3, 3):
        assert {kind for _, kind in slots[start : start + 3]} == set(KINDS)
    sizes = {slot: 60 if slot[0] == "progressive" else 5 for slot in EVERY_SLOT}  # none used up
    puzzles = daily_run(bank(sizes), days[0], days[-1])
    assert [(p.rules, p.kind) for p in puzzles] == slots


@given(st.integers(0, 3000), st.integers(1, 12), st.integers(0, 12))
def test_no_puzzle_repeats_until_every_eligible_puzzle_is_shown(start: int, progressive: int, other: int) -> None:
    """A slot takes its own days while it has a puzzle not shown; a used-up slot's day goes to a
    slot with one (its own preset's first, while it has any); nothing repeats before every
    puzzle has been shown, and then each pass of a slot shows its puzzles once each."""
    sizes = {
        (name, kind): (progressive if name == "progressive" else other) for name in PRESETS for kind in KINDS
    }
    puzzles = bank({slot: size for slot, size in sizes.items() if size})
    first = EPOCH + timedelta(days=start)
    days = [EPOCH + timedelta(days=n) for n in range((first - EPOCH).days + 200)]
    run = daily_run(puzzles, EPOCH, days[-1])
    total = len({puzzle.id for puzzle in puzzles})
    shown: dict[tuple[str, str], list[str]] = {}
    for index, (day, puzzle) in enumerate(zip(days, run)):
        slot, taken = slot_of(day), (puzzle.rules, puzzle.kind)
        left = {s: size - len(set(shown.get(s, []))) for s, size in sizes.items()}
        if index < total:
            assert puzzle.id not in shown.get(taken, [])  # no repeat before every puzzle is shown
            assert left[taken] > 0
            if left[slot] > 0:
                assert taken == slot
            elif any(left[slot[0], kind] for kind in KINDS):
                assert taken[0] == slot[0]
        shown.setdefault(taken, []).append(puzzle.id)
    for slot, ids in shown.items():
        size = sizes[slot]
        for block in range(0, len(ids), size):  # every pass shows each eligible puzzle once
            part = ids[block : block + size]
            assert len(set(part)) == len(part)


def test_only_mid_difficulty_puzzles_are_eligible_when_there_are_some() -> None:
    puzzles = bank({("progressive", "discard"): 12}, ratings=(900, 1500, 2100))
    chosen = eligible(puzzles)[("progressive", "discard")]
    assert len(chosen) == 4 and all(BAND[0] <= p.rating <= BAND[1] for p in chosen)
    hard = bank({("progressive", "buy"): 3}, ratings=(2100,))
    assert len(eligible(hard)[("progressive", "buy")]) == 3  # none in the band: every one


def test_a_missing_slot_falls_back_to_another_kind_then_progressive() -> None:
    only = bank({("progressive", "discard"): 4})
    for n in range(30):
        assert daily(only, EPOCH + timedelta(days=n)).kind == "discard"


def test_dates_before_the_epoch_and_an_empty_bank_are_refused() -> None:
    with pytest.raises(DailyError, match="start on"):
        daily(bank(EVERY_SLOT), EPOCH - timedelta(days=1))
    with pytest.raises(DailyError, match="no puzzles"):
        daily([], EPOCH)


def test_the_days_already_dealt_stay_and_the_later_ones_deal_new_puzzles() -> None:
    """The shipped bank: every day up to 2026-11-30 shows the puzzle the calendar file says was
    dealt while the bank serves it (a retired one's day shows a served puzzle); the days after
    show progressive puzzles none twice in a quarter, each day's rated inside the band as shown."""
    from puzzles.bank import load_bank
    from puzzles.daily import dealt_calendar

    served = load_bank()
    calendar = dealt_calendar()
    assert min(calendar) == EPOCH and max(calendar) == date(2026, 11, 30)
    before = daily_run(served, EPOCH, date(2026, 11, 30))
    ids = {puzzle.id for puzzle in served}
    kept = [day for day in sorted(calendar) if calendar[day] in ids]
    assert len(kept) > len(calendar) // 2
    assert all(before[(day - EPOCH).days].id == calendar[day] for day in kept)
    assert all(puzzle.id in ids for puzzle in before)  # never a retired puzzle
    after = daily_run(served, date(2026, 12, 1), date(2027, 2, 28))
    # Progressive's slots, six days of seven, show no puzzle twice in the quarter (the other
    # presets' slots are small while the bank is topped up again: see docs/bank.md).
    ids = [puzzle.id for puzzle in after if puzzle.rules == "progressive"]
    assert len(ids) == len(set(ids)) >= 70
    assert all(BAND[0] <= puzzle.rating <= BAND[1] for puzzle in after)
    # A bank that serves none of the dealt puzzles (another bank) is dealt by the rule from the epoch.
    other = [puzzle for puzzle in served if puzzle.id not in set(calendar.values())][:50]
    assert daily(other, EPOCH).id in {puzzle.id for puzzle in other}
