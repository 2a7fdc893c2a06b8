"""Answers kept across questions (``analyzer.round_solver.PROVEN``), the discard table's best
rows alone (``advise(..., best_discards=True)``) and the advice's play after the draw alone
(``advised_play``): each changes what an answer costs, never the answer.

- A question asked with the answers of related questions kept (the hand before the draw, each
  hand one card smaller) gives the advice it gives from scratch, field for field; asked again,
  it solves nothing; an answer cut short by its work bound is not kept.
- The best rows are the full table's first rows exactly (cards, figures, ranks), every row left
  out is further from the contract (or behind a discard that lays down this turn, or, in a
  go-out round far from going out, as far and keeping more points), and the table is never
  empty where the full one is not.
- The advice's play after the draw is ``analyze``'s play when the hand lays down this turn,
  else a discard of the full table's first row.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer import Play, advise, advised_play, analyze
from analyzer.advice import OUTS_COUNT_WITHIN, DiscardRow
from analyzer.cards import Card
from analyzer.round_solver import PROVEN, ProvenAnswers, RoundSolver
from analyzer.rules import Rules, preset
from analyzer.solver import lay_down as lay_down_module
from analyzer.solver.work import deterministic_work
from tests.strategies import hands, turn_hands

# Window-counted contracts (fast outs) and one per-meld wild limit preset.
ROUNDS = [("progressive", 1), ("progressive", 2), ("progressive", 3), ("pagat", 2), ("shanghai", 1),
          ("may-i", 3), ("contract", 5)]
FEW = settings(max_examples=max(4, settings().max_examples // 10), deadline=None)


def _hand(data: st.DataObject, rules_name: str, round_number: int) -> tuple[Card, ...]:
    rules = preset(rules_name)
    need = sum(spec.size for spec in rules.round(round_number).contract)
    return data.draw(hands(rules, min_size=max(4, need - 1), max_size=min(9, need + 1)))


@pytest.mark.parametrize("rules_name, round_number", ROUNDS)
@FEW
@given(data=st.data())
def test_kept_answers_change_no_advice(rules_name: str, round_number: int, data: st.DataObject) -> None:
    hand = _hand(data, rules_name, round_number)
    asked = {"discards": True}
    PROVEN.clear()
    fresh = advise(hand, rules_name, round_number, **asked)
    PROVEN.clear()
    for card in dict.fromkeys(hand):  # related questions first: each hand one card smaller
        rest = list(hand)
        rest.remove(card)
        advise(rest, rules_name, round_number, moment="before-draw")
    assert len(PROVEN) > 0
    assert advise(hand, rules_name, round_number, **asked) == fresh
    with mock.patch.object(lay_down_module, "solve", side_effect=AssertionError("solved again")):
        assert advise(hand, rules_name, round_number, **asked) == fresh  # asked again: nothing solved


def test_an_answer_cut_short_is_not_kept() -> None:
    PROVEN.clear()
    hand = "7H 8H 10H 5C 5D 5S KC 2D JK 9S 9D 3C 4C"
    with deterministic_work(1e-9):
        cut = advise(hand, "shanghai", 3, players=4, discards=True)
    assert cut.unfinished or not cut.lay_down.proven_optimal
    assert len(PROVEN) == 0
    whole = advise(hand, "shanghai", 3, players=4, discards=True)
    assert not whole.unfinished and whole.lay_down.proven_optimal


def test_the_least_recently_used_answer_goes_first() -> None:
    kept = ProvenAnswers(size=2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # "b" is now the least recently used
    kept.put("c", 3)
    assert kept.get("b") is None and kept.get("a") == 1 and kept.get("c") == 3 and len(kept) == 2


def _away(row: DiscardRow) -> float:
    return float("inf") if row.cards_away is None else row.cards_away


def _behind(row: DiscardRow, first: DiscardRow, go_out: bool) -> bool:
    """A row that cannot rank first: behind a discard that lays down this turn, or further away,
    or, in a go-out round more than ``OUTS_COUNT_WITHIN`` draws away, as far and keeping more points."""
    if first.lays_down:
        return not row.lays_down
    if go_out and first.cards_away is not None and first.cards_away > OUTS_COUNT_WITHIN \
            and row.cards_away == first.cards_away:
        return row.points_kept > first.points_kept
    return _away(row) > _away(first)


def _check_best_rows(hand: tuple[Card, ...], rules_name: str, round_number: int, moment: str | None) -> None:
    full = advise(hand, rules_name, round_number, discards=True, moment=moment)
    PROVEN.clear()  # the best rows from scratch too
    best = advise(hand, rules_name, round_number, discards=True, moment=moment, best_discards=True)
    assert full.discards is not None and best.discards is not None
    assert not full.unranked and not best.unranked
    assert (len(best.discards) > 0) == (len(full.discards) > 0)
    assert best.discards == full.discards[:len(best.discards)]
    first = full.discards[0]
    go_out = preset(rules_name).round(round_number).go_out
    for row in full.discards[len(best.discards):]:
        assert _behind(row, first, go_out) and row.rank > first.rank
    # Outside the table, the advice is the same.
    assert (best.lay_down, best.outs, best.unseen_outs) == (full.lay_down, full.outs, full.unseen_outs)
    if full.lay_down.moment == "after-draw":
        _check_advised_play(hand, rules_name, round_number, full.discards)


def _check_advised_play(hand: tuple[Card, ...], rules_name: str, round_number: int,
                        table: tuple[DiscardRow, ...]) -> None:
    PROVEN.clear()
    play = advised_play(hand, rules_name, round_number)
    turn = analyze(hand, rules_name, round_number, moment="after-draw")
    if turn.can_lay_down:
        assert play == Play(lay_down=turn.melds, discard=turn.discard)
        assert play is not None and play.lay_down
    else:
        assert play == Play(discard=table[0].card)


@pytest.mark.parametrize("rules_name, round_number", ROUNDS)
@FEW
@given(data=st.data())
def test_the_best_rows_are_the_full_tables_first_rows(rules_name: str, round_number: int,
                                                       data: st.DataObject) -> None:
    hand = _hand(data, rules_name, round_number)
    _check_best_rows(hand, rules_name, round_number, None)


@settings(FEW, suppress_health_check=[HealthCheck.large_base_example])
@given(turn=turn_hands([preset(name) for name in ("progressive", "pagat", "may-i", "contract")]))
def test_the_best_rows_of_a_hand_near_its_contract(turn: tuple[Rules, int, str, tuple[Card, ...]]) -> None:
    rules, round_number, moment, hand = turn  # often one discard from laying down, or laying down
    _check_best_rows(hand, rules.name, round_number, moment)


# pagat's last round (three runs of 4, every card melded at once), 4 to 6 draws away, after the draw.
FAR_FROM_GOING_OUT = ["5C QC 4C 2C 9C 5H 6D 3C 8C 8D 3D 3H 3H", "3H 10D 8C 9D QS 7C 3H 6C 7D 5D QH 2C 6D",
                      "6D AS 9C 8D 8C 2H AH QC 10H 4D 3C 9S 2S"]


@pytest.mark.parametrize("hand", FAR_FROM_GOING_OUT)
def test_the_best_rows_far_from_going_out(hand: str) -> None:
    # The points kept come before the outs there: only the costliest of the nearest discards need outs.
    _check_best_rows(tuple(Card.parse(token) for token in hand.split()), "pagat", 7, None)


def test_the_best_rows_leave_out_the_cards_that_break_melds() -> None:
    hand = "7H 8H 10H 5C 5D 5S KC 2D"  # KC and 2D: 1 away; any other discard: 2 away
    full = advise(hand, "progressive", 2, players=4, discards=True).discards
    best = advise(hand, "progressive", 2, players=4, discards=True, best_discards=True).discards
    assert full is not None and best is not None
    assert [row.card.token for row in best] == ["KC", "2D"] == [row.card.token for row in full[:2]]
    assert len(full) == 8 and all(row.cards_away == 2 for row in full[2:])


def test_best_discards_is_checked_like_the_other_flags() -> None:
    with pytest.raises(TypeError, match="best_discards"):
        advise("7H 8H 10H 5C 5D 5S KC 2D", "progressive", 2, discards=True, best_discards="yes")  # type: ignore[arg-type]


def test_the_advised_play_lays_down_or_discards_the_best_row() -> None:
    ready = "7H 8H 9H 10H 5C 5D 5S KC"  # round 2 after the draw: a set and a run, the K♣ to let go
    play = advised_play(ready, "progressive", 2, players=4)
    assert play is not None and play.discard == Card.parse("KC") and len(play.lay_down) == 2
    waiting = "7H 8H 10H 5C 5D 5S KC 2D"  # 1 away by letting go of the K♣ or the 2♦, else 2 away
    play = advised_play(waiting, "progressive", 2, players=4)
    table = advise(waiting, "progressive", 2, players=4, discards=True).discards
    assert table is not None and play == Play(discard=table[0].card)
    assert play.discard is not None and play.discard.token in ("KC", "2D")


def test_the_advised_play_counts_the_seen_cards() -> None:
    hand = "7H 8H 9H 10H 5C 5D KS KD"  # a run down, two pairs: let go of a king (fewer points) ...
    assert (play := advised_play(hand, "progressive", 2, players=4)) is not None
    assert play.discard is not None and play.discard.rank == Card.parse("KS").rank
    seen = "5H 5H 5S 5S"  # ... unless four fives are gone: then the kings' pair has more outs
    assert (play := advised_play(hand, "progressive", 2, players=4, seen=seen)) is not None
    table = advise(hand, "progressive", 2, players=4, seen=seen, discards=True).discards
    assert table is not None and play == Play(discard=table[0].card)
    assert play.discard is not None and play.discard.rank == Card.parse("5C").rank


def test_the_advised_play_stops_at_the_first_row_with_every_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """Round 6 (a set and two runs of 4), 4 away whichever card goes, ten rows that may rank first:
    the whole hand's unseen outs bound every row's, and the first row in the order that breaks a
    tie of outs reaching them ranks first. So the play asks the outs of the whole hand and of that
    row only, solves no lay-down of a hand without a card the whole hand's best arrangement
    leaves over, and discards the full table's first row."""
    hand = "AS 5S 5C 3D 5H 7D 6C 2S 7H 5C 6C 9D AS"
    asked: list[tuple[Card, ...]] = []
    solved: list[tuple[Card, ...]] = []
    outs, lay_down = RoundSolver.outs, RoundSolver.lay_down

    def counted(self: RoundSolver, cards: tuple[Card, ...], before_draw: bool = False,
                within: frozenset[Card] | None = None) -> Any:
        asked.append(tuple(cards))
        return outs(self, cards, before_draw, within)

    def laid(self: RoundSolver, cards: tuple[Card, ...], before_draw: bool = False, meld_at_most: int | None = None) -> Any:
        solved.append(tuple(cards))
        return lay_down(self, cards, before_draw, meld_at_most)

    PROVEN.clear()
    with monkeypatch.context() as patched:
        patched.setattr(RoundSolver, "outs", counted)
        patched.setattr(RoundSolver, "lay_down", laid)
        play = advised_play(hand, "progressive", 6, players=4)
    table = advise(hand, "progressive", 6, players=4, discards=True).discards
    best = advise(hand, "progressive", 6, players=4, discards=True, best_discards=True).discards
    assert table is not None and best is not None and len(best) == 10
    assert play == Play(discard=table[0].card)
    assert len(asked) == 2 and len(asked[0]) == 13 and len(asked[1]) == 12
    whole = analyze(hand, "progressive", 6, moment="after-draw")
    assert asked[1] not in solved and len(solved) < len(best)  # the row's lay-down read off the whole hand's
    assert play.discard in whole.kept_with_missing()


def test_a_budget_that_ranks_no_row_gives_no_play() -> None:
    hand = "7H 8H 10H 5C 5D 5S KC 2D JK 9S 9D 3C 4C"
    with deterministic_work(1e-9):
        assert advised_play(hand, "shanghai", 3, players=4) is None
        best = advise(hand, "shanghai", 3, players=4, discards=True, best_discards=True)
    assert best.discards == () and len(best.unranked) == len({Card.parse(t) for t in hand.split()})


def test_advised_play_checks_its_arguments_like_advise() -> None:
    with pytest.raises(TypeError, match="buys_used"):
        advised_play("7H 8H 10H 5C 5D 5S KC 2D", "progressive", 2, buys_used="one")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no turn of round 2"):
        advised_play("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AD 2D 3D 4D 5D 6D", "progressive", 2)
