"""The advice once the contract is down (``analyzer.advise_down``): a brute-force reference
that plays every order of every move the engine accepts (``analyzer.moves.Turn`` deep copies,
nothing remembered) and every discard, then hypothesis properties comparing the advice with it
on small hands over tables of several presets; a hand-made case per rule; bad input."""

from __future__ import annotations

import copy
import dataclasses
from collections import Counter
from collections.abc import Iterator, Sequence
from unittest import mock

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from analyzer import (
    AdviceError,
    HandError,
    Question,
    QuestionError,
    advise_down,
    answer,
    read_melds,
    read_table,
)
from analyzer.cards import ALL_CARD_KINDS, Card, Rank, parse_cards
from analyzer.down import DownAdvice, DownRow, FaceUpChoice, _Search, move_text
from analyzer.hand import check_deck, deck_copies
from analyzer.moves import End, LayOff, Substitution, TableError, Turn
from analyzer.result import PlacedMeld
from analyzer.round_solver import Deadline
from analyzer.rules import DiscardToGoOut, Rules, preset

# ---- the brute-force reference ---------------------------------------------------------------


def _twin(turn: Turn) -> Turn:
    """A copy of ``turn`` to play on (its hand and melds its own; the rules shared)."""
    twin = copy.copy(turn)
    twin.hand, twin.melds, twin.made = Counter(turn.hand), [list(melds) for melds in turn.melds], list(turn.made)
    return twin


def _tries(turn: Turn) -> list[Turn]:
    """``turn`` after each move the engine accepts: every card on every meld at every end (and
    none), every card in every joker's place."""
    after = []
    for card in set(turn.hand.elements()):
        for seat, melds in enumerate(turn.melds):
            for index in range(len(melds)):
                moves: list[LayOff | Substitution] = [LayOff(card, seat, index, end)
                                                      for end in (None, End.LOW, End.HIGH)]
                for move in [*moves, Substitution(card, seat, index)]:
                    twin = _twin(turn)
                    try:
                        twin.lay_off(move) if isinstance(move, LayOff) else twin.substitute(move)
                    except TableError:
                        continue
                    after.append(twin)
    return after


def brute_ends(rules: Rules, number: int, hand: Sequence[Card], table: Sequence[Sequence[PlacedMeld]]) -> list[Turn]:
    """Every finished turn: every order of moves, then every discard (or none)."""
    ends: list[Turn] = []

    def visit(turn: Turn) -> None:
        if not turn.jokers_owed:
            for discard in [None, *set(turn.hand.elements())]:
                done = _twin(turn)
                try:
                    if discard is not None:
                        done.discard(discard)
                    done.finish()
                except TableError:
                    continue
                ends.append(done)
        for twin in _tries(turn):
            visit(twin)

    visit(Turn(rules, number, 0, hand, table))
    return ends


def brute_left(rules: Rules, number: int, hand: Sequence[Card], table: Sequence[Sequence[PlacedMeld]]) -> int:
    """The fewest cards of ``hand`` any order of moves leaves (no discard)."""
    best = len(hand)

    def visit(turn: Turn) -> None:
        nonlocal best
        if not turn.jokers_owed:
            best = min(best, sum(turn.hand.values()))
        for twin in _tries(turn):
            visit(twin)

    visit(Turn(rules, number, 0, hand, table))
    return best


def brute_outs(rules: Rules, number: int, kept: Sequence[Card], table: Sequence[Sequence[PlacedMeld]],
               unseen: Counter[Card]) -> int:
    """Unseen copies of the cards that let one more kept card go next turn; where the last card
    may not be a discard and every kept card goes already, those that let the whole hand go."""
    if not kept:
        return 0
    now = brute_left(rules, number, kept, table)
    if now == 0 and rules.discard_to_go_out == DiscardToGoOut.NEVER:
        now = 1  # kept only because it may not be discarded: an out goes with it
    return sum(unseen[card] for card in ALL_CARD_KINDS
               if unseen[card] > 0 and brute_left(rules, number, [*kept, card], table) < now)


def brute_best(rules: Rules, number: int, hand: Sequence[Card], table: Sequence[Sequence[PlacedMeld]],
               unseen: Counter[Card]) -> tuple[bool, int, int, int]:
    """The best figures any turn reaches: (keeps cards, cards kept, -unseen outs, points kept)."""
    ends = brute_ends(rules, number, hand, table)
    fewest = min(sum(end.hand.values()) for end in ends)
    figures = set()
    for end in ends:
        kept = list(end.hand.elements())
        if len(kept) == fewest:
            points = sum(rules.points_of(card) for card in kept)
            figures.add((bool(kept), len(kept), -brute_outs(rules, number, kept, end.melds, unseen), points))
    return min(figures)


def unseen_of(rules: Rules, hand: Sequence[Card], table: Sequence[Sequence[PlacedMeld]]) -> Counter[Card]:
    deck = rules.deck_for(None)
    gone = Counter(hand) + Counter(card for melds in table for meld in melds for card in meld.cards)
    return Counter({card: deck_copies(card, deck) - gone[card] for card in ALL_CARD_KINDS})


def figures(row: DownRow) -> tuple[bool, int, int, int]:
    return bool(row.kept), len(row.kept), -row.unseen_outs, row.points_kept


def replay(advice: DownAdvice, rules: Rules, row: DownRow, hand: Sequence[Card]) -> Turn:
    """The row's play fed to a fresh ``Turn``: it must be legal and keep what the row says."""
    turn = Turn(rules, advice.round, 0, hand, (advice.melds, *advice.table))
    for move in row.moves:
        turn.lay_off(move) if isinstance(move, LayOff) else turn.substitute(move)
    if row.discard is not None:
        turn.discard(row.discard)
    turn.finish()
    assert sorted(turn.hand.elements()) == sorted(row.kept)
    return turn


# ---- tables to play on -------------------------------------------------------------------------

# (rules, round, own melds, the others' melds, cards the hands are drawn from)
TABLES = [
    ("progressive", 2, "5S 6S 7S 8S | QH QD QC", "KH KD JK ; 7D 8D JK 10D", "4S 9S 10S JS QS KC 9D 6D 2H AD JK"),
    ("shanghai", 2, "JC QC KC AC | 5H 5D 5S", "2D 3D 4D 5D | 9S 9H JK", "10C AC 9C 5C JK 6D AD 9D 9C 3H"),
    ("eveleigh", 2, "3H 4H 5H 6H | 8C 8D 8S", "KD KS 2C", "2H 7H 8H 9H 2S KC 8H JK 10H"),
    ("shanghai-powe", 1, "7C 7D 7H | 9S 9D 9H", "QH QD QC", "7S 9C 9H 8H AH 9H 2C JK"),
    ("shanghai-powe", 3, "5S 6S 7S 8S | 5H 6H 7H 8H", "", "9S 10S 4S 4D 9H JK 3C"),
    ("contract", 3, "3S 4S 5S 6S | 9D 10D JK QD", "", "2S 7S 8S JD KD AD 4C JK"),
]

# Sets of one rank several times over, with and without a joker: which of them takes a card
# makes positions alike (``_Search.alike``), which the search asks about once.
ALIKE_TABLES = [
    ("shanghai-powe", 1, "7C 7D 7H | QS QD QC", "QH QD JK ; 9S 9D 9H | QC QS QH", "QH 7S 9C JK 8H QD 9H 7D"),
    ("progressive", 1, "8C 8D 8H | 8S 8D JK", "8C 8H 8S ; 5H 5D JK | 5C 5S 5H", "8H 8S 5C 5S 6H JK 5D 8C"),
]


def _table(rules: Rules, own: str, others: str) -> tuple[tuple[PlacedMeld, ...], ...]:
    return (read_melds(own, rules), *read_table(others, rules))


@st.composite
def positions(draw: st.DrawFn, tables: Sequence[tuple[str, int, str, str, str]] = tuple(TABLES), most: int = 4
              ) -> tuple[str, int, str, str, tuple[Card, ...]]:
    name, number, own, others, pool = draw(st.sampled_from(tables))
    cards = parse_cards(pool)
    picked = draw(st.lists(st.integers(0, len(cards) - 1), min_size=1, max_size=most, unique=True))
    hand = tuple(cards[i] for i in picked)
    rules = preset(name)
    on_table = tuple(card for melds in _table(rules, own, others) for meld in melds for card in meld.cards)
    assume(_fits_the_deck(hand + on_table, rules))  # no more copies than the deck holds
    return name, number, own, others, hand


def _fits_the_deck(cards: tuple[Card, ...], rules: Rules) -> bool:
    try:
        check_deck(cards, rules, rules.deck_for(None))
    except HandError:
        return False
    return True


@settings(max_examples=40)
@given(positions())
def test_the_best_turn_is_as_good_as_any_order_of_moves(position: tuple[str, int, str, str, tuple[Card, ...]]) -> None:
    name, number, own, others, hand = position
    rules = preset(name)
    table = _table(rules, own, others)
    advice = advise_down(hand, rules, number, own, others)
    assert figures(advice.best) == brute_best(rules, number, hand, table, unseen_of(rules, hand, table))
    ends = brute_ends(rules, number, hand, table)
    assert {row.discard for row in advice.rows} == {end.discarded for end in ends}  # every discard, once
    for row in advice.rows:
        replay(advice, rules, row, hand)
        assert row.goes_out == (not row.kept)
        assert row.points_kept == sum(rules.points_of(card) for card in row.kept)
    ranks = [figures(row) for row in advice.rows]
    assert ranks == sorted(ranks)


@settings(max_examples=40)
@given(positions())
def test_the_fewest_cards_kept_are_the_brute_forces(position: tuple[str, int, str, str, tuple[Card, ...]]) -> None:
    """``fewest_kept`` (take-or-draw's count once down: depth first, ends asked only where they
    could keep fewer, stopped at the inert cards less one) is the fewest cards any finished turn
    keeps, every order of moves tried."""
    name, number, own, others, hand = position
    rules = preset(name)
    table = _table(rules, own, others)
    search = _Search(rules, number, table, unseen_of(rules, hand, table), Deadline(60))
    assert search.fewest_kept(hand) == min(sum(end.hand.values()) for end in brute_ends(rules, number, hand, table))


def test_the_fewest_cards_kept_stop_at_the_inert_cards() -> None:
    """With the 8H and AH inert (no set of their rank, no run on the table), no end keeps fewer
    than one card: the search stops at the first end that keeps one, before every position."""
    name, number, own, others, _ = ALIKE_TABLES[0]
    rules = preset(name)
    table = _table(rules, own, others)
    hand = parse_cards("7S 9C QH JK 8H AH")
    search = _Search(rules, number, table, unseen_of(rules, hand, table), Deadline(60))
    visited = []
    positions = _Search._positions

    def counted(self: _Search, start: Turn) -> Iterator[Turn]:
        for turn in positions(self, start):
            visited.append(turn)
            yield turn

    with mock.patch.object(_Search, "_positions", counted):
        assert search.fewest_kept(hand) == 1
    every = search.reach(search.turn(hand), alike=True)
    assert 0 < len(visited) < len(every)
    assert min(sum(end.hand.values()) for end in brute_ends(rules, number, hand, table)) == 1


@settings(max_examples=20)
@given(positions())
def test_every_row_is_the_best_play_with_its_discard(position: tuple[str, int, str, str, tuple[Card, ...]]) -> None:
    """A row keeps no more cards than any play ending with its discard, and goes out whenever
    one does: an answer of the first legal play would fail here."""
    name, number, own, others, hand = position
    rules = preset(name)
    table = _table(rules, own, others)
    advice = advise_down(hand, rules, number, own, others)
    ends = brute_ends(rules, number, hand, table)
    for row in advice.rows:
        fewest = min(sum(end.hand.values()) for end in ends if end.discarded == row.discard)
        assert len(row.kept) == fewest


@settings(max_examples=20)
@given(positions(ALIKE_TABLES, most=3))
def test_every_row_counts_the_outs_of_the_reference_on_sets_alike(
        position: tuple[str, int, str, str, tuple[Card, ...]]) -> None:
    """On tables holding several sets of one rank, every row's outs are those the brute force
    counts on the table that row leaves: asking the outs once for positions alike loses none."""
    name, number, own, others, hand = position
    rules = preset(name)
    table = _table(rules, own, others)
    unseen = unseen_of(rules, hand, table)
    advice = advise_down(hand, rules, number, own, others)
    assert figures(advice.best) == brute_best(rules, number, hand, table, unseen)
    for row in advice.rows:
        assert row.unseen_outs == brute_outs(rules, number, row.kept, replay(advice, rules, row, hand).melds, unseen)


def test_positions_alike_differ_only_in_which_naturals_a_set_holds() -> None:
    rules = preset("progressive")
    table = _table(rules, "7C 7D 7H | 9S 9D 9H", "QC QS QH | QD QH QC ; QS QD JK")
    search = _Search(rules, 1, table, {}, Deadline(60))
    one, other, joker = (Turn(rules, 1, 0, parse_cards("QS 4H"), table) for _ in range(3))
    one.lay_off(LayOff(Card.parse("QS"), 1, 0))
    other.lay_off(LayOff(Card.parse("QS"), 1, 1))  # the other queens, holding other suits
    joker.lay_off(LayOff(Card.parse("QS"), 2, 0))  # the queens holding a joker
    assert one.melds != other.melds  # what is shown stays each position's own
    assert search.alike(one) == search.alike(other)
    assert search.alike(one) != search.alike(joker)
    apart = dataclasses.replace(rules, lay_off_on_others=False)  # then only the player's melds count
    assert _Search(apart, 1, table, {}, Deadline(60)).alike(one) == _Search(apart, 1, table, {}, Deadline(60)).alike(joker)


# ---- one case per rule -------------------------------------------------------------------------

OWN = "5S 6S 7S 8S | QH QD QC"


def _moves(row: DownRow) -> list[str]:
    return [move_text(move, made) for move, made in zip(row.moves, row.made)]


def test_a_chain_of_lay_offs_goes_out() -> None:
    advice = advise_down("9S 10S 4D KC", "progressive", 2, "5S 6S 7S 8S | QH QD QC", table="KH KD KS")
    best = advice.best
    assert best.goes_out and best.discard == Card.parse("4D") and best.rank == 1
    assert _moves(best) == ["9♠ on your 5♠ 6♠ 7♠ 8♠", "10♠ on your 5♠ 6♠ 7♠ 8♠ 9♠", "K♣ on K♥ K♦ K♠ of opponent 1"]
    # The 10♠ alone does not fit: discarding the 9♠ keeps it.
    row = next(row for row in advice.rows if row.discard == Card.parse("9S"))
    assert row.kept == (Card.parse("4D"), Card.parse("10S")) and not row.goes_out


def test_only_own_melds_where_the_rules_say_so() -> None:
    own_only = dataclasses.replace(preset("progressive"), lay_off_on_others=False)
    advice = advise_down("9S KC 4D", own_only, 2, "5S 6S 7S 8S | QH QD QC", table="KH KD KS")
    assert not advice.best.goes_out and all(move.seat == 0 for row in advice.rows for move in row.moves)
    assert advise_down("9S KC 4D", "progressive", 2, "5S 6S 7S 8S | QH QD QC", table="KH KD KS").best.goes_out


def test_a_joker_taken_back_goes_on_at_once() -> None:
    # The 7♦ takes the joker's place in an opponent's run; the joker then carries the 10♠.
    advice = advise_down("7D 10S 3C", "progressive", 2, "5S 6S 7S 8S | QH QD QC", table="5D 6D JK 8D")
    best = advice.best
    assert best.goes_out and best.discard == Card.parse("3C")
    assert any(isinstance(move, Substitution) for move in best.moves)
    # Eveleigh: wild cards once melded stay, and the 7♦'s place is the joker's.
    never = advise_down("7D 10S 3C", "eveleigh", 2, "5S 6S 7S 8S | QH QD QC", table="5D 6D JK 8D")
    assert not any(isinstance(move, Substitution) for row in never.rows for move in row.moves)
    assert not never.best.goes_out


def test_the_ace_and_the_wild_limit_follow_the_rules() -> None:
    # Shanghai: the ace is high only, so it never goes below a 2-3-4-5 run; one wild per meld.
    advice = advise_down("AD JK 3H", "shanghai", 2, "JC QC KC AC | 5H 5D 5S", table="2D 3D 4D 5D | 9S 9H JK")
    assert all(move.card != Card.parse("AD") for row in advice.rows for move in row.moves)
    assert all(made.cards.count(Card.parse("JK")) <= 1 for row in advice.rows for made in row.made)
    low_ace = advise_down("AD 3H", "progressive", 2, "JC QC KC AC | 5H 5D 5S", table="2D 3D 4D 5D")
    assert low_ace.best.goes_out


def test_a_last_card_is_laid_off_where_it_may_not_be_discarded() -> None:
    # shanghai-powe: going out by melding every card; the last card is never a discard.
    advice = advise_down("7S 9C", "shanghai-powe", 1, "7C 7D 7H | 9S 9D 9H")
    assert advice.best.goes_out and advice.best.discard is None
    stuck = advise_down("4D", "shanghai-powe", 1, "7C 7D 7H | 9S 9D 9H")
    assert [row.discard for row in stuck.rows] == [None] and stuck.best.kept == (Card.parse("4D"),)


def test_a_last_card_that_fits_is_kept_where_it_may_not_be_discarded() -> None:
    """shanghai-powe: holding the 4♥ (no meld takes it) and the 7♦ (on the 7s), laying off the
    7♦ leaves a last card that may neither be discarded nor laid off; discarding the 4♥ keeps a
    card that goes out with any next card that fits, whose unseen copies are its outs."""
    table = "5C 5D 5S | 9C 9D 9S"
    advice = advise_down("4H 7D", "shanghai-powe", 1, "7C 7S 7H | QC QD QS", table, players=4)
    best = advice.best
    assert best.discard == Card.parse("4H") and best.kept == (Card.parse("7D"),) and not best.moves
    seen = parse_cards("4H 7D 7C 7S 7H QC QD QS 5C 5D 5S 9C 9D 9S")
    deck = preset("shanghai-powe").deck_for(4)
    expected = {card.token: deck_copies(card, deck) - seen.count(card) for card in ALL_CARD_KINDS
                if card.is_joker or card.rank in {Rank.SEVEN, Rank.QUEEN, Rank.FIVE, Rank.NINE}}
    assert {out.card.token: out.unseen for out in best.outs} == expected
    assert best.unseen_outs == sum(expected.values()) == 23
    stuck = advice.rows[1]  # laying the 7♦ off: the 4♥ stays, with no card to free it
    assert stuck.kept == (Card.parse("4H"),) and stuck.unseen_outs == 0 and stuck.rank == 2
    # Where the last card is discarded to go out, the 7♦ is laid off and the 4♥ goes out.
    required = advise_down("4H 7D", "shanghai", 1, "7C 7S 7H | QC QD QS", table, players=4)
    assert required.best.goes_out and required.best.discard == Card.parse("4H")
    # On runs, a card that goes only once the kept card is laid off is an out too (the 10♠).
    runs = advise_down("9S 4D", "shanghai-powe", 3, "5S 6S 7S 8S | 5H 6H 7H 8H", players=4).best
    assert runs.discard == Card.parse("4D") and runs.kept == (Card.parse("9S"),)
    assert {out.card.token for out in runs.outs} == {"10S", "4S", "4H", "9H", "JK"}


def test_outs_count_the_unseen_cards_that_free_a_kept_card() -> None:
    # Keeping the 10♠ over the 4♦: the 9♠ (two copies unseen) or a joker would let it go.
    advice = advise_down("10S 4D KD", "progressive", 2, "5S 6S 7S 8S | QH QD QC", players=4)
    row = next(row for row in advice.rows if row.discard == Card.parse("4D"))
    assert {out.card.token: out.unseen for out in row.outs} == {"9S": 2, "JK": 1}
    assert row.unseen_outs == 3
    assert advice.best.discard == Card.parse("KD")  # 10 points gone, the 10♠ kept with its 3 outs


def test_take_the_face_up_card_when_it_lets_cards_go() -> None:
    advice = advise_down("10S 4D 2H 9C", "progressive", 2, "5S 6S 7S 8S | QH QD QC", players=4, face_up="9S")
    assert advice.face_up is not None and advice.face_up.take
    assert sorted(advice.best.kept) == sorted(parse_cards("2H 4D"))
    dead = advise_down("10S 4D 2H 9C", "progressive", 2, "5S 6S 7S 8S | QH QD QC", players=4, face_up="KD")
    assert dead.face_up is not None and not dead.face_up.take
    assert dead.face_up.options[0].choice is FaceUpChoice.DRAW


@settings(max_examples=30)
@given(positions(), st.data())
def test_best_only_makes_the_full_answers_choices(position: tuple[str, int, str, str, tuple[Card, ...]],
                                                  data: st.DataObject) -> None:
    """``best_only`` (the arena's and the computer's seat's question) takes or draws, and
    discards, as the full answer does; the stock's outs and points it leaves out only where its
    mean cards kept differ from the take's (those decide), and any figure it gives is the full
    answer's. A version that skipped the tie-breaks on a tie, or gave only the first option,
    fails here."""
    name, number, own, others, hand = position
    rules = preset(name)
    table = _table(rules, own, others)
    pool = [card for card in ALL_CARD_KINDS if _fits_the_deck(hand + (card,) + tuple(
        c for melds in table for meld in melds for c in meld.cards), rules)]
    face_up = data.draw(st.sampled_from(pool))
    full = advise_down(hand, rules, number, own, others, face_up=face_up)
    best = advise_down(hand, rules, number, own, others, face_up=face_up, best_only=True)
    assert full.face_up is not None and best.face_up is not None
    assert best.face_up.take == full.face_up.take
    assert [option.choice for option in best.face_up.options] == [option.choice for option in full.face_up.options]
    assert best.best.discard == full.best.discard and figures(best.best) == figures(full.best)
    options = {option.choice: option for option in full.face_up.options}
    for option in best.face_up.options:
        whole = options[option.choice]
        assert (option.goes_out, option.cards_kept) == pytest.approx((whole.goes_out, whole.cards_kept))
        if option.unseen_outs is None or option.points_kept is None:
            assert option.choice is FaceUpChoice.DRAW
            assert option.cards_kept != options[FaceUpChoice.TAKE].cards_kept
        else:
            assert (option.unseen_outs, option.points_kept) == pytest.approx((whole.unseen_outs, whole.points_kept))


TIED = ("shanghai", 1, "9C 9D 9H | 3D 3H 3C", "", 4, "KD 5C", "7H", "9S 9S 9C 9D 9H 3S 3S 3C 3D 3H JK JK JK JK")


def test_best_only_counts_the_stocks_outs_when_its_cards_kept_tie() -> None:
    """Nothing unseen fits the table (every other copy of the sets' ranks seen) and the
    face-up card does not either: taking and drawing keep as many cards, and the stock's outs
    and points are counted to break the tie, as in the full answer."""
    name, number, own, others, players, hand, face_up, seen = TIED
    full = advise_down(hand, name, number, own, others, players=players, seen=seen, face_up=face_up)
    best = advise_down(hand, name, number, own, others, players=players, seen=seen, face_up=face_up, best_only=True)
    assert full.face_up is not None and best.face_up is not None
    assert best.face_up.options == full.face_up.options
    assert len({option.cards_kept for option in best.face_up.options}) == 1


SETS_ONLY = ("shanghai", 1, "9C 9D 9H 9S | 3D 3H JK=3C 3C",
             "10C 10D 10S 10S 10H | JC JC JS JD ; 2C 2D JK 2H | 6H 6S 6S ; AC AD AS JK AS | 6C 6D JK", 4,
             "2D 2H 6H 8S", "KD")


@pytest.mark.parametrize(("name", "number", "own", "others", "players", "hand", "face_up"), [
    ("progressive", 2, OWN, "KH KD KS", 4, "10S 4D 2H", "KD"),
    ("progressive", 2, OWN, "KH KD KS", 4, "10S 4D", "9S"),
    ("progressive", 2, OWN, "KH KD KS", 4, "JK 3C", "QS"),
    # Several sets of a rank: the stock's figures are asked once per set of positions alike.
    (*ALIKE_TABLES[1][:4], 5, "5C 6H KD", "5D"),
    (*ALIKE_TABLES[0][:4], 4, "7S 9C", "JK"),
    # A queen takes the joker's place (then 9S on the run, and the 10S after it), a king only
    # joins its set: cards of the same points but another rank do not play alike.
    ("progressive", 2, "5S 6S 7S 8S | QC QD JK", "KH KD KS", 4, "10S 4D", "9H"),
    # Sets only (Shanghai's 2s are natural): a drawn card of a set's rank plays as its rank's others do.
    SETS_ONLY,
    # Eveleigh's wild 2s: the 2H may stand as itself on the hearts run, the other 2s go anywhere alike.
    ("eveleigh", 2, "7C 7D 7H | 3H 4H 5H 6H", "2C 2D 2H ; 9S 9D JK", 4, "2S 8C", "KD"),
])
def test_drawing_is_the_mean_over_every_unseen_card(name: str, number: int, own: str, others: str, players: int,
                                                      hand: str, face_up: str) -> None:
    """The stock's figures are the mean of the best rows of the hand with each unseen card, each
    copy once, as ``advise_down`` answers each of those hands on its own."""
    rules = preset(name)
    advice = advise_down(hand, rules, number, own, table=others, players=players, face_up=face_up)
    assert advice.face_up is not None
    draw = next(option for option in advice.face_up.options if option.choice is FaceUpChoice.DRAW)
    cards = parse_cards(hand)
    table = _table(rules, own, others)
    unseen = unseen_of_deck(rules, players, cards + parse_cards(face_up), table)
    sums = [0.0, 0.0, 0.0, 0.0]
    for card, count in unseen.items():
        if count <= 0:
            continue
        best = advise_down(cards + (card,), rules, number, own, table=others, players=players, seen=face_up).best
        for index, value in enumerate((best.goes_out, len(best.kept), best.unseen_outs, best.points_kept)):
            sums[index] += count * value
    total = sum(count for count in unseen.values() if count > 0)
    assert (draw.goes_out, draw.cards_kept, draw.unseen_outs, draw.points_kept) == pytest.approx(
        [value / total for value in sums])


def test_the_stock_is_asked_once_a_rank_on_a_table_of_sets() -> None:
    """With no run on the table a drawn card's suit changes nothing: the stock's figures are
    asked once for each rank of a set on the table (7), the joker, and each points value of the
    inert cards (4, 5, 7, 8 and 10: queens and kings), not once for each of the 40-odd cards."""
    name, number, own, others, players, hand, face_up = SETS_ONLY
    asked: list[tuple[Card, ...]] = []
    rows = _Search.rows

    def counted(search: _Search, cards: Sequence[Card], best_only: bool = False) -> tuple[DownRow, ...]:
        if best_only:
            asked.append(tuple(cards))
        return rows(search, cards, best_only)

    with mock.patch.object(_Search, "rows", counted):
        advice = advise_down(hand, name, number, own, table=others, players=players, face_up=face_up)
    assert advice.face_up is not None
    unseen = unseen_of_deck(preset(name), players, parse_cards(hand) + parse_cards(face_up),
                            _table(preset(name), own, others))
    assert sum(1 for count in unseen.values() if count > 0) > 40
    assert any(option.choice is FaceUpChoice.DRAW for option in advice.face_up.options)
    assert 7 <= len(asked) == len(set(asked)) <= 7 + 1 + 5  # every set rank asked, none twice


def test_the_stock_asks_once_for_the_cards_no_move_takes() -> None:
    """Take-or-draw settled by cards kept (``best_only``): a drawn card with no move on any
    table the hand's moves reach never moves, so every such card keeps as many cards, and they
    are asked once (not once for each card of a run's suit), with the figures of asking each
    apart and of the full answer."""
    name, number, own, others, players, hand, face_up = (
        "progressive", 2, OWN, "KH KD KS ; 3D 4D 5D 6D | 9C 9D 9H", 4, "10S 4D 2C JC", "9H")
    asked: list[tuple[Card, ...]] = []
    fewest_kept = _Search.fewest_kept

    def counted(search: _Search, cards: Sequence[Card]) -> int:
        asked.append(tuple(cards))
        return fewest_kept(search, cards)

    def question() -> DownAdvice:
        return advise_down(hand, name, number, own, table=others, players=players, face_up=face_up, best_only=True)

    with mock.patch.object(_Search, "fewest_kept", counted):
        once = question()
        merged = len(asked)
        asked.clear()
        with mock.patch.object(_Search, "_kept_alike", lambda search, cards: search._drawn_alike):
            apart = question()
    full = advise_down(hand, name, number, own, table=others, players=players, face_up=face_up)
    assert once.face_up is not None and apart.face_up is not None and full.face_up is not None
    assert once.face_up.options == apart.face_up.options
    assert [o.choice for o in once.face_up.options] == [o.choice for o in full.face_up.options]
    assert [o.cards_kept for o in once.face_up.options] == pytest.approx([o.cards_kept for o in full.face_up.options])
    assert merged < len(asked) // 2


def test_a_table_of_sets_alone_asks_no_drawn_card_for_outs() -> None:
    """With no run on the table and no wild card kept, no drawn card lets a kept card go (a set
    takes its rank whatever else is laid off): the outs ask about no card at all, and there are
    none. ``test_every_row_counts_the_outs_of_the_reference_on_sets_alike`` checks such tables
    against the brute force; ``test_outs_count_the_unseen_cards_that_free_a_kept_card`` that
    outs are still found where a run is."""
    name, number, own, others, players, hand, face_up = SETS_ONLY
    assert not any(preset(name).is_wild(card) for card in parse_cards(hand) + parse_cards(face_up))
    tried: list[Card] = []
    fits = _Search._fits

    def counted(search: _Search, probe: Turn, card: Card) -> bool:
        tried.append(card)
        return fits(search, probe, card)

    with mock.patch.object(_Search, "_fits", counted):
        advice = advise_down(hand, name, number, own, table=others, players=players, face_up=face_up)
    assert advice.face_up is not None and advice.rows
    assert tried == []
    assert all(row.unseen_outs == 0 and not row.outs for row in advice.rows)


def test_where_wild_cards_may_not_outnumber_naturals_any_card_may_make_room_for_a_joker() -> None:
    """The 6♠ takes the spades' joker back only if the joker has somewhere to go, and the hearts
    run, two jokers to two naturals, takes no third until a 4♥ or 9♥ is laid on it: those are
    outs though they are no neighbour of a kept card, as the brute force counts them."""
    rules = dataclasses.replace(preset("pagat"), wilds_may_outnumber_naturals=False)
    own = "AS 2S 3S 4S 5S JK=6S 7S 8S 9S 10S JS QS KS AS | 5H JK=6H JK=7H 8H"
    advice = advise_down("6S KD", rules, 3, own, players=5)
    best = advice.best
    assert best.discard == Card.parse("KD") and best.kept == (Card.parse("6S"),)
    assert {out.card.token for out in best.outs} == {"4H", "6H", "7H", "9H"}
    table = _table(rules, own, "")
    unseen = unseen_of_deck(rules, 5, parse_cards("6S KD"), table)
    assert best.unseen_outs == brute_outs(rules, 3, best.kept, table, unseen) == 8


def unseen_of_deck(rules: Rules, players: int, cards: Sequence[Card], table: Sequence[Sequence[PlacedMeld]]
                   ) -> Counter[Card]:
    deck = rules.deck_for(players)
    gone = Counter(cards) + Counter(card for melds in table for meld in melds for card in meld.cards)
    return Counter({card: deck_copies(card, deck) - gone[card] for card in ALL_CARD_KINDS})


def test_to_dict_names_every_figure() -> None:
    data = advise_down("9S 10S 4D KC", "progressive", 2, "5S 6S 7S 8S | QH QD QC", table="KH KD KS").to_dict()
    assert data["best"]["goes_out"] is True and data["best"]["discard"] == "4D"
    assert data["best"]["moves"][0] == {"move": "lay_off", "card": "9S", "seat": 0, "meld": 0, "end": "high",
                                        "made": {"kind": "run", "cards": ["5S", "6S", "7S", "8S", "9S"],
                                                 "as": ["5S", "6S", "7S", "8S", "9S"]},
                                        "text": "9♠ on your 5♠ 6♠ 7♠ 8♠"}
    assert data["best"]["moves"][2]["text"] == "K♣ on K♥ K♦ K♠ of opponent 1"
    assert [row["rank"] for row in data["discards"]] == sorted(row["rank"] for row in data["discards"])


def test_melds_read_as_written() -> None:
    rules = preset("progressive")
    assert read_melds("4H 5H JK 7H | QH QD JK | JK=3H 4H 5H 6H", rules)[2].describe() == "Joker=3♥ 4♥ 5♥ 6♥"
    assert read_melds("4H 5H JK 7H", rules)[0].describe() == "4♥ 5♥ Joker=6♥ 7♥"
    assert read_melds("QH QD JK", rules)[0].kind.value == "set"


# ---- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"melds": "5S 6S 8S 9S | QH QD QC"}, "the meld '5S 6S 8S 9S' is neither a set nor a run"),
    ({"rules": "shanghai", "melds": "5S JK JK 8S | QH QD QC"}, "the meld '5S JK JK 8S' breaks the rules"),
    ({"melds": "5S 6S 7S 8S | QH QD QX"}, "unknown card 'QX'"),
    ({"melds": ""}, "your contract is not down"),
    ({"melds": "5S 6S 7S 8S | 9D 10D JD QD"}, "are not the contract of round 2"),
    ({"hand": "QH 4D", "melds": "5S 6S 7S 8S | QH QD QC", "table": "QH QD QS", "players": 4}, "3 copies of QH"),
    ({"round_number": 8, "rules": "ill-buy-it", "melds": "5S 6S 7S 8S | QH QD QC"}, "go-out round"),
    ({"melds": "5S 6S 7S 8S | QH QD QC", "face_up": "9S 9D"}, "one card"),
    ({"melds": "5S 6S 7S 8S | QH QD QC", "table": "JK 5C JK=7C 8C"}, "neither a set nor a run"),
    # the contract's sizes: a run of 3 is no run of 4, a pair of kings no set of 3
    ({"melds": "5S 6S 7S | QH QD QC"}, "your meld 5♠ 6♠ 7♠ is shorter than the contract of round 2"),
    ({"rules": "shanghai", "round_number": 3, "melds": "5S 6S 7S 8S | 9D 10D JD"},
     "your meld 9♦ 10♦ J♦ is shorter than the contract of round 3"),
    ({"melds": "5S 6S 7S 8S | QH QD QC", "table": "KH KD"}, "the meld K♥ K♦ of opponent 1 is no meld of the contract"),
    ({"melds": "5S 6S 7S 8S | QH QD QC", "table": "KH KD KS ; 2C 3C 4C"}, "2♣ 3♣ 4♣ of opponent 2 is no meld"),
])
def test_bad_input_is_a_clear_error(kwargs: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"hand": "9S 4D", "rules": "progressive", "round_number": 2, **kwargs}
    with pytest.raises(ValueError, match=message) as raised:
        advise_down(**arguments)
    assert isinstance(raised.value, (AdviceError, HandError))


# ---- the Question API --------------------------------------------------------------------------


def test_a_question_once_down_is_answered_by_advise_down() -> None:
    fields = {"hand": "10S 4D 2H 9C", "round": 2, "players": 4, "down": "5S JK 7S 8S | QH QD QC",
              "table": "KH KD KS ; 7D 8D JK=9D 10D", "face_up": "9S", "rules": "pagat"}
    question = Question.from_json(fields)
    assert Question.from_json(question.to_json()) == question
    assert answer(question) == advise_down("10S 4D 2H 9C", "pagat", 2, "5S JK 7S 8S | QH QD QC",
                                           "KH KD KS ; 7D 8D JK 10D", players=4, face_up="9S").to_dict()


@pytest.mark.parametrize(("fields", "words"), [
    ({"down": "5S 6S 7S 8S | QH QD QC", "discards": True}, 'discards: "discards" does not go with "down"'),
    ({"down": "5S 6S 7S 8S | QH QD QC", "buy": "9H"}, 'buy: "buy" does not go with "down"'),
    ({"table": "KH KD KS"}, 'table: "table" goes with "down"'),
    ({"face_up": "KH"}, 'face_up: "face_up" goes with "down"'),
    ({"down": "5S 6S 7S 8S | QH QD QX"}, "down: the meld 'QH QD QX': unknown card 'QX'"),
    ({"down": "5S 6S 7S 8S | QH QD QC", "table": "QH QD QS", "hand": "QH 4D", "players": 4}, "down: "),
    ({"down": ""}, "down: your contract is not down"),
    ({"down": "5S 6S 7S 8S | QH QD QC", "table": "KH KD"}, "table: the meld K♥ K♦ of opponent 1 is no meld"),
    ({"down": "5S 6S 7 S | QH QD QC"}, "down: "),
])
def test_a_bad_question_once_down_names_its_field(fields: dict[str, object], words: str) -> None:
    with pytest.raises(QuestionError, match=words):
        Question.from_json({"hand": "9S 4D", "round": 2, **fields})


def test_the_time_limit_cuts_the_search_short_and_says_so() -> None:
    hand = "9S 10S JS 4S 3S JK JK KC KD 9H 2D 5C"
    table = "KH KD KS | 3C 4C 5C 6C ; 7D 8D 9D 10D | 2C 2D 2H ; 4D 5D 6D 7D | AH AD AC"
    advice = advise_down(hand, "progressive", 6, "5S 6S 7S 8S | 8H 9H 10H JH | QH QD QC", table, players=5,
                         time_limit=0.05)
    assert not advice.complete and advice.rows  # an answer all the same, every move of it legal
    for row in advice.rows:
        replay(advice, preset("progressive"), row, parse_cards(hand))
