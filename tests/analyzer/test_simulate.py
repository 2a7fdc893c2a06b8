"""The simulated round: the table deals the rule set's deck and never loses or makes a card,
buying follows the rules, the round ends when someone goes out, and the same seed plays the
same round. Scripted policies make each rule visible; ``SimulatedPlayer`` plays the full rounds."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
from collections import Counter

import pytest

from analyzer.cards import JOKER, Card, parse_cards
from analyzer.result import PlacedMeld
from analyzer.round_solver import RoundSolver
from analyzer.rules import JokerSubstitution, MeldKind, Rules, preset
from analyzer.simulate import (
    EventKind,
    GoingOut,
    Play,
    PlayerState,
    SeatView,
    SimulatedPlayer,
    Table,
    TableError,
    deck_cards,
    extend_meld,
    going_out_chances,
    measure_going_out,
    meld_is_valid,
    rules_fingerprint,
)


def cards_on_table(table: Table) -> Counter[Card]:
    return (Counter(c for hand in table.hands for c in hand) + Counter(table.stock) + Counter(table.discards)
            + Counter(c for melds in table.melds for meld in melds for c in meld.cards))


def play_checked(table: Table) -> None:
    """Play the round to its end, checking after every turn that no card was lost or made."""
    deck = Counter(table.deck)
    while not table.finished:
        table.play_turn()
        assert cards_on_table(table) == deck


class Scripted:
    """A policy that never lays down: takes or buys the face-up card as told, discards its
    costliest card."""

    def __init__(self, rules: Rules, take: bool = False, buy: bool = False) -> None:
        self.rules, self.take, self.buy = rules, take, buy

    def wants_discard(self, seat: SeatView, card: Card) -> bool:
        return self.take

    def wants_to_buy_at(self, seat: SeatView, card: Card) -> bool:
        return self.buy

    def choose_play_after_draw(self, seat: SeatView) -> Play:
        return Play(discard=max(seat.hand, key=lambda c: (self.rules.points_of(c), c.sort_key())))


# ---- the deal -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "round_number", "players"), [
    ("progressive", 1, 4), ("progressive", 7, 6), ("shanghai", 3, 5), ("eveleigh", 12, 2), ("pagat", 7, 3),
])
def test_the_table_deals_the_rule_sets_deck(name: str, round_number: int, players: int) -> None:
    rules = preset(name)
    table = Table.deal(rules, round_number, players, seed=5, policies=[Scripted(rules)] * players)
    deck = rules.deck_for(players)
    assert Counter(table.deck) == Counter(deck_cards(deck))
    assert len(table.deck) == 52 * deck.decks + deck.jokers
    assert [len(hand) for hand in table.hands] == [rules.round(round_number).deal] * players
    assert len(table.discards) == 1 and table.events[0].kind is EventKind.DEAL
    assert cards_on_table(table) == Counter(table.deck)


def test_card_counts_are_conserved_through_whole_rounds() -> None:
    for name, round_number in (("progressive", 2), ("progressive", 6), ("eveleigh", 12), ("shanghai", 2)):
        table = Table.deal(preset(name), round_number, 4, seed=11)
        play_checked(table)
        assert table.finished


# ---- buying ---------------------------------------------------------------------------------------


def buys(table: Table) -> list[tuple[int, int, tuple[Card, ...]]]:
    """(turn, buyer, cards) of every buy, with the seat in turn when it happened."""
    return [(event.turn, event.seat, event.cards) for event in table.events if event.kind is EventKind.BUY]


def test_the_earliest_player_after_the_one_in_turn_buys_with_the_penalty_cards() -> None:
    rules = preset("progressive")  # unlimited buys, one penalty card
    table = Table.deal(rules, 3, 4, seed=2, policies=[Scripted(rules, buy=True)] * 4)
    table.max_turns = 12
    play_checked(table)
    bought = buys(table)
    assert len(bought) == 12  # every declined discard is bought, the first card included
    for turn, buyer, cards in bought:
        in_turn = (turn - 1) % 4
        assert buyer == (in_turn + 1) % 4  # the next in turn order has priority
        assert len(cards) == 1 + rules.buy_penalty_in(3)
    assert table.buys_used == [3, 3, 3, 3]


def test_buys_per_round_and_two_penalty_cards_in_shanghai() -> None:
    rules = preset("shanghai")
    table = Table.deal(rules, 2, 4, seed=3, policies=[Scripted(rules, buy=True)] * 4)
    table.max_turns = 40
    play_checked(table)
    bought = buys(table)
    assert all(len(cards) == 3 for _, _, cards in bought)
    assert Counter(buyer for _, buyer, _ in bought) == Counter({0: 2, 1: 2, 2: 2, 3: 2})
    # Each buy goes to the earliest seat after the one in turn with a buy left, never to the
    # discarder; once no such seat is left, nobody buys.
    used = Counter[int]()
    for turn, buyer, _ in bought:
        in_turn = (turn - 1) % 4
        assert buyer == next(s for s in ((in_turn + step) % 4 for step in (1, 2)) if used[s] < 2)
        used[buyer] += 1
    assert bought[-1][0] < table.turn


def test_no_player_buys_twice_in_succession_under_pagat() -> None:
    rules = preset("pagat")
    table = Table.deal(rules, 2, 3, seed=4, policies=[Scripted(rules, buy=True)] * 3)
    table.max_turns = 30
    play_checked(table)
    buyers = [buyer for _, buyer, _ in buys(table)]
    assert len(buyers) >= 10
    assert all(a != b for a, b in itertools.pairwise(buyers))
    # Without the rule the same two-seat pattern is not forced: the next seat buys each time.
    free = Table.deal(preset("progressive"), 2, 3, seed=4, policies=[Scripted(rules, buy=True)] * 3)
    free.max_turns = 30
    free.play()
    assert [b for _, b, _ in buys(free)] == [((t - 1) % 3 + 1) % 3 for t, _, _ in buys(free)]


def test_no_buying_where_the_round_allows_none() -> None:
    rules = preset("eveleigh")  # no buying before round 9
    table = Table.deal(rules, 3, 4, seed=1, policies=[Scripted(rules, buy=True)] * 4)
    table.max_turns = 20
    play_checked(table)
    assert buys(table) == []


def test_taking_the_discard_is_not_a_buy() -> None:
    rules = preset("progressive")
    table = Table.deal(rules, 3, 4, seed=2, policies=[Scripted(rules, take=True, buy=True)] * 4)
    table.max_turns = 8
    play_checked(table)
    assert buys(table) == [] and sum(e.kind is EventKind.TAKE for e in table.events) == 8


# ---- the stock and the end of the round -----------------------------------------------------------


def test_the_discard_pile_is_reshuffled_when_the_stock_runs_out() -> None:
    rules = preset("progressive")
    table = Table.deal(rules, 1, 2, seed=9, policies=[Scripted(rules)] * 2)
    first_stock = len(table.stock)
    table.max_turns = first_stock + 10
    play_checked(table)
    reshuffles = [i for i, e in enumerate(table.events) if e.kind is EventKind.RESHUFFLE]
    assert reshuffles, "the stock never ran out"
    assert table.turn == first_stock + 10  # the round went on after the reshuffle


def test_the_round_ends_when_someone_goes_out() -> None:
    table = Table.deal(preset("progressive"), 1, 3, seed=1)
    outcome = table.play()
    assert outcome.finished and outcome.winner is not None
    assert table.hands[outcome.winner] == [] and table.events[-1].kind is EventKind.GO_OUT
    assert outcome.penalty_points[outcome.winner] == 0
    assert all(points == sum(table.rules.points_of(c) for c in hand)
               for points, hand in zip(outcome.penalty_points, table.hands))
    events = len(table.events)
    table.play_turn()  # nothing happens once the round is over
    assert len(table.events) == events


def test_the_same_seed_plays_the_same_round() -> None:
    def record(seed: int) -> list[tuple[str, int, tuple[str, ...]]]:
        table = Table.deal(preset("progressive"), 2, 4, seed=seed)
        table.play()
        return [(e.kind.value, e.seat, tuple(c.token for c in e.cards)) for e in table.events]

    assert record(7) == record(7)
    assert record(7) != record(8)


# Seeded tables whose play the simulator's speed-ups must not change: every event (kind, seat,
# turn, cards) of each round, hashed by ``events_digest``. The digests were recorded by playing
# these tables with the same function on main at e417a7d, before those speed-ups (the go-out
# round's hands too small to meld the contract, best_turn's bounds); they cover an ordinary
# round, go-out rounds (pagat, shanghai, kolsov's 3 runs of 5 from 11 dealt), shanghai-powe's
# no going out by discarding, Eveleigh's round that only buying gets down, and 3-5 players.
# (Another OR-Tools release may settle the solver's ties otherwise: record them again then, on
# the code before the change being checked.) Recorded again on 2026-11-24 for shanghai 7 and
# shanghai-powe 8, whose runs are now counted per window (a deliberate model change, generator
# puzzles-3: the same values, other ties); the other six did not change. With CP-SAT's new
# settings (no SAT inprocessing or CG cuts) and the go-out objective written as the target less
# the melded cards, shanghai 7 again and the go-out rounds pagat 7 and ill-buy-it 8 were recorded
# again the same day. Shanghai 7 once more when a player one card away stopped buying in a
# go-out round (a deliberate change of play): its only buy, seat 2's at turn 62, is gone. The
# go-out rounds' tables (pagat 7, shanghai 7, ill-buy-it 8) were recorded again when their
# model got a tighter relaxation (the same optima, other ties). Progressive 6, pagat 7, shanghai 7
# and shanghai-powe 8, the tables whose contracts hold two runs or more, were recorded again when
# the same-suit rule between runs came to be taken up lazily (SolverOptions.same_suit_rule_lazily,
# generator puzzles-6: the same optima, other ties); the other four did not change. All but
# kolsov 10 were recorded again when the simulated player came to keep its near-melds, re-plan
# for a meld and buy what its plan misses (a deliberate change of play, measured against greedy
# in docs/strength.md); kolsov 10's hands, never near their contract, play as before. With
# generator puzzles-8 every seat's view shows every seat's melds (lay-offs and jokers taken back
# on any meld the rules allow) and Eveleigh goes out without a discard: eveleigh 12 and may-i 2
# were recorded again; the other six, with no lay-off on another's meld, did not change. With
# generator puzzles-11 a hand out of reach by its size buys any card offered (kolsov 10 recorded
# again) and a contract of two sets or more, outside go-out rounds, buys a card making a set
# with a pair held (none of these eight rounds is one: the other seven did not change).
RECORDED_TABLES = [
    ("progressive", 6, 4, 11, "38eec6174de6f6f0"),
    ("pagat", 7, 4, 12, "ac557c5cf25648f7"),
    ("shanghai", 7, 3, 13, "351e9b1c88146276"),
    ("shanghai-powe", 8, 5, 14, "68350ac9fe313c3c"),
    ("kolsov", 10, 4, 15, "a6c2f1ec65949f79"),
    ("eveleigh", 12, 4, 16, "6838209d16a3201a"),
    ("may-i", 2, 5, 17, "0d920806e8cf6ceb"),
    ("ill-buy-it", 8, 3, 18, "584800a7faf58fdb"),
]


def events_digest(table: Table) -> str:
    lines = (f"{e.kind.value} {e.seat} {e.turn} {' '.join(c.token for c in e.cards)}\n" for e in table.events)
    return hashlib.sha256("".join(lines).encode()).hexdigest()[:16]


@pytest.mark.parametrize("name, round_number, players, seed, digest", RECORDED_TABLES)
def test_seeded_tables_play_as_they_did_before_the_speed_ups(name: str, round_number: int, players: int,
                                                              seed: int, digest: str) -> None:
    table = Table.deal(preset(name), round_number, players, seed)
    table.play()
    assert any(e.kind is EventKind.DISCARD for e in table.events)  # decisions, not only the deal
    assert events_digest(table) == digest


def test_an_observer_sees_every_event() -> None:
    table = Table.deal(preset("progressive"), 1, 3, seed=1)
    seen: list[EventKind] = []
    table.observers.append(lambda _, event: seen.append(event.kind))
    table.play()
    assert seen == [e.kind for e in table.events[1:]]


def test_an_illegal_play_is_refused() -> None:
    rules = preset("progressive")

    class Cheat(Scripted):
        def choose_play_after_draw(self, seat: SeatView) -> Play:
            return Play(discard=next(c for c in parse_cards("AS AH AD AC") if c not in seat.hand))

    table = Table.deal(rules, 1, 2, seed=1, policies=[Cheat(rules)] * 2)
    with pytest.raises(TableError, match="does not hold"):
        table.play_turn()

    class HalfContract(Scripted):
        def choose_play_after_draw(self, seat: SeatView) -> Play:
            return Play(lay_down=(PlacedMeld(MeldKind.SET, seat.hand[:3], seat.hand[:3]),), discard=seat.hand[-1])

    table = Table.deal(rules, 1, 2, seed=1, policies=[HalfContract(rules)] * 2)  # round 1: two sets of 3
    with pytest.raises(TableError, match="not the contract"):
        table.play_turn()

    class FakeSets(Scripted):
        def choose_play_after_draw(self, seat: SeatView) -> Play:
            melds = tuple(PlacedMeld(MeldKind.SET, cards, cards) for cards in (seat.hand[:3], seat.hand[3:6]))
            return Play(lay_down=melds, discard=seat.hand[-1])

    table = Table.deal(rules, 1, 2, seed=1, policies=[FakeSets(rules)] * 2)
    with pytest.raises(TableError, match="which is no set"):
        table.play_turn()


# ---- melds on the table ---------------------------------------------------------------------------


def run(text: str) -> PlacedMeld:
    cards = parse_cards(text)
    return PlacedMeld(MeldKind.RUN, cards, cards)


def test_meld_validity() -> None:
    progressive, shanghai = preset("progressive"), preset("shanghai")
    assert meld_is_valid(run("9S 10S JS QS"), progressive)
    assert meld_is_valid(run("JH QH KH AH"), progressive) and meld_is_valid(run("AH 2H 3H 4H"), progressive)
    assert not meld_is_valid(run("AH 2H 3H 4H"), shanghai)  # ace high only
    assert not meld_is_valid(run("9S 10S QS KS"), progressive)  # a gap
    assert not meld_is_valid(run("9S 10S JH QS"), progressive)  # two suits
    assert not meld_is_valid(run("QS KS AS 2S"), progressive)  # round the corner
    jokers = PlacedMeld(MeldKind.RUN, parse_cards("9S JK JK QS"), parse_cards("9S 10S JS QS"))
    assert meld_is_valid(jokers, progressive) and not meld_is_valid(jokers, shanghai)  # one wild per meld
    sevens = PlacedMeld(MeldKind.SET, parse_cards("7C 7D 8S"), parse_cards("7C 7D 8S"))
    assert not meld_is_valid(sevens, progressive)
    lying = PlacedMeld(MeldKind.SET, parse_cards("7C 7D 8S"), parse_cards("7C 7D 7S"))  # a natural stands for itself
    assert not meld_is_valid(lying, progressive)


def test_extend_meld_follows_the_rules() -> None:
    progressive, shanghai = preset("progressive"), preset("shanghai")
    spades = run("9S 10S JS QS")
    assert extend_meld(spades, Card.parse("8S"), progressive) == run("8S 9S 10S JS QS")
    assert extend_meld(spades, Card.parse("KS"), progressive) == run("9S 10S JS QS KS")
    assert extend_meld(spades, Card.parse("8H"), progressive) is None
    assert extend_meld(spades, Card.parse("7S"), progressive) is None
    assert extend_meld(run("JS QS KS AS"), Card.parse("AS"), progressive) is None  # never turns the corner
    assert extend_meld(run("2H 3H 4H 5H"), Card.parse("AH"), progressive) == run("AH 2H 3H 4H 5H")
    assert extend_meld(run("2H 3H 4H 5H"), Card.parse("AH"), shanghai) is None  # ace high only
    wild = extend_meld(spades, JOKER, progressive)
    assert wild is not None and wild.stands_for[-1] == Card.parse("KS")
    one_wild = PlacedMeld(MeldKind.RUN, parse_cards("9S 10S JK QS"), parse_cards("9S 10S JS QS"))
    assert extend_meld(one_wild, JOKER, shanghai) is None  # one wild card per meld
    sevens = PlacedMeld(MeldKind.SET, parse_cards("7C 7D 7S"), parse_cards("7C 7D 7S"))
    assert extend_meld(sevens, Card.parse("7H"), progressive) is not None
    assert extend_meld(sevens, Card.parse("8H"), progressive) is None


# ---- the simulated player after laying down -------------------------------------------------------


@pytest.mark.parametrize(("rule", "held", "drawn", "laid_off", "discard", "out"), [
    ("required", "3C", "8S", ["8S"], "3C", True),  # the last card goes as the discard
    ("required", "8S", "KS", ["KS"], "8S", True),  # both fit: one is kept for the discard
    ("optional", "8S", "KS", ["KS", "8S"], None, True),  # both fit: out by laying off
    # May not go out by discarding: laying off the 8S would leave the 3C, which fits nowhere and
    # may not be discarded; the 3C goes and the 8S that fits is kept (out with a next card that fits).
    ("never", "3C", "8S", [], "3C", False),
    ("never", "8S", "KS", ["KS", "8S"], None, True),
    ("required", "3C 4D", "8S", ["8S"], "4D", False),
    ("optional", "AS", "KS", ["KS", "AS"], None, True),  # the ace fits only once the king is laid off
    ("never", "3C 7S", "KS", ["KS"], "3C", False),  # the 7S is nearer a meld than the cheaper 3C
    ("never", "3C 8S", "KS", ["KS"], "3C", False),  # the 3C would be stuck: the cheaper 8S waits
])
def test_after_laying_down_it_lays_off_and_goes_out_as_the_rules_allow(
        rule: str, held: str, drawn: str, laid_off: list[str], discard: str | None, out: bool) -> None:
    import dataclasses

    rules = dataclasses.replace(preset("progressive"), discard_to_go_out=rule)
    player = SimulatedPlayer(RoundSolver(rules, 3, rules.deck_for(4), 5.0))
    state = PlayerState(parse_cards(held), (run("9S 10S JS QS"), run("3H 4H 5H 6H")))
    result = player.play_turn(state, Card.parse(drawn))
    assert [card.token for _, card in result.lay_offs] == laid_off
    assert (result.discard.token if result.discard else None) == discard
    assert result.went_out == out and (result.state.held == ()) == out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_table_where_no_discard_goes_out_ends(seed: int) -> None:
    """Under shanghai-powe (no going out by a discard) these tables of simulated players went round
    to the turn cap, every player down and holding a last card that fit nowhere; a player now
    discards such a card and keeps one that fits, so somebody goes out."""
    table = Table.deal(preset("shanghai-powe"), 1, players=4, seed=seed)
    outcome = table.play()
    assert outcome.finished and outcome.winner is not None
    assert outcome.penalty_points[outcome.winner] == 0


def test_a_laid_down_player_tries_each_card_on_a_meld_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its lay-off test is ``extend_meld``'s answer kept per meld and card: looking again after a
    lay-off, or playing the same turn again, asks nothing anew and plays the same."""
    from analyzer import simulate

    rules = preset("progressive")
    player = SimulatedPlayer(RoundSolver(rules, 3, rules.deck_for(4), 5.0))
    state = PlayerState(parse_cards("AS 7S 3C"), (run("9S 10S JS QS"), run("3H 4H 5H 6H")))
    asked: list[tuple[PlacedMeld, Card]] = []
    extend = simulate.extend_meld

    def counted(meld: PlacedMeld, card: Card, rules: Rules) -> PlacedMeld | None:
        asked.append((meld, card))
        return extend(meld, card, rules)

    monkeypatch.setattr(simulate, "extend_meld", counted)
    first = player.play_turn(state, Card.parse("KS"))
    assert [card.token for _, card in first.lay_offs] == ["KS", "AS"]
    assert asked and len(asked) == len(set(asked))
    tried = len(asked)
    assert player.play_turn(state, Card.parse("KS")) == first and len(asked) == tried


@pytest.mark.parametrize(("on_others", "laid_off", "moves", "discard", "out"), [
    (True, ["KS"], ["8D"], "3C", True),  # the 8D fits only another player's run: out
    (False, ["KS"], [], "8D", False),  # own melds only: the costlier 8D goes, the 3C stays
])
def test_a_laid_down_player_lays_off_on_the_other_players_melds_where_the_rules_allow(
        on_others: bool, laid_off: list[str], moves: list[str], discard: str, out: bool) -> None:
    rules = dataclasses.replace(preset("progressive"), lay_off_on_others=on_others)
    player = SimulatedPlayer(RoundSolver(rules, 3, rules.deck_for(4), 5.0))
    state = PlayerState(parse_cards("8D 3C"), (run("9S 10S JS QS"), run("3H 4H 5H 6H")))
    theirs = ((2, (run("4D 5D 6D 7D"),)),)
    result = player.play_turn(state, Card.parse("KS"), others=theirs)
    assert [card.token for _, card in result.lay_offs] == laid_off
    assert [(move.card.token, move.seat, move.meld) for move in result.moves] == [(m, 2, 0) for m in moves]
    assert result.discard == Card.parse(discard) and result.went_out == out


def test_the_full_rules_lay_offs_pass_the_tables_check() -> None:
    """A round whose rules allow every lay-off (may-i: on any meld, on the turn it lays down):
    simulated players at the table, shown every seat's melds, lay off on the others' melds, and
    the table accepts every play."""
    others = 0
    for seed in range(6):
        table = Table.deal(preset("may-i"), 2, players=4, seed=seed)
        table.play()
        others += sum(1 for event in table.events if event.kind is EventKind.LAY_OFF
                      and event.meld is not None and event.meld[0] != event.seat)
    assert others > 0


@pytest.mark.parametrize(("substitution", "takes"), [(JokerSubstitution.RUNS, True), (JokerSubstitution.NONE, False)])
def test_a_laid_down_player_takes_a_joker_back_and_melds_it_at_once(substitution: JokerSubstitution,
                                                                    takes: bool) -> None:
    """The 5♦ fits no meld but takes the joker's place in another player's run (where the rules
    let jokers be taken back); the joker goes on its own run the same turn, and the table's
    checker accepts the turn."""
    from analyzer.moves import LayOff, Substitution, Turn, play_turn

    rules = dataclasses.replace(preset("progressive"), joker_substitution=substitution)
    player = SimulatedPlayer(RoundSolver(rules, 3, rules.deck_for(4), 5.0))
    theirs = PlacedMeld(MeldKind.RUN, parse_cards("4D JK 6D 7D"), parse_cards("4D 5D 6D 7D"))
    own = (run("9S 10S JS QS"),)
    state = PlayerState(parse_cards("5D 3C"), own)
    result = player.play_turn(state, Card.parse("8H"), others=((2, (theirs,)),), seat=0)
    if not takes:
        assert result.moves == () and result.discard == Card.parse("8H")
        return
    assert result.moves == (Substitution(Card.parse("5D"), 2, 0), LayOff(JOKER, 0, 0))
    assert result.discard == Card.parse("8H") and [c.token for c in result.state.held] == ["3C"]
    turn = Turn(rules, 3, 0, parse_cards("5D 3C 8H"), [own, (), (theirs,), ()])
    play_turn(turn, (), result.moves, result.discard)
    assert turn.held() == [Card.parse("3C")] and turn.melds[0] == [result.state.melds[0]]


def test_it_lays_off_on_the_turn_it_lays_down_where_the_rules_allow() -> None:
    """Progressive lays down the contract exactly (a set of 3, a run of 4): the 5♣ and 7♥ left
    over fit its new melds, laid off at once where ``lay_off_same_turn`` allows it, else kept."""
    hand = parse_cards("7H 8H 9H 10H 5C 5D 5S 5H 3C KD")
    for same_turn, laid_off, held in ((True, ["7H", "5C"], ["3C"]), (False, [], ["3C", "5C", "7H"])):
        rules = dataclasses.replace(preset("progressive"), lay_off_same_turn=same_turn)
        player = SimulatedPlayer(RoundSolver(rules, 2, rules.deck_for(4), 5.0))
        result = player.play_turn(player.start(hand), Card.parse("JH"))
        assert len(result.laid_down) == 2 and result.discard == Card.parse("KD")
        assert [card.token for _, card in result.lay_offs] == laid_off
        assert [card.token for card in result.state.held] == held and not result.went_out


def test_a_table_of_simulated_players_buys_when_a_round_needs_more_cards_than_are_dealt() -> None:
    """Eveleigh round 12: 5 runs of 3 from 11 cards; only buying brings the cards."""
    table = Table.deal(preset("eveleigh"), 12, 4, seed=3)
    table.play()
    assert table.winner is not None and buys(table)
    assert sum(len(m.cards) for m in table.melds[table.winner]) >= 15


# ---- how soon others go out -----------------------------------------------------------------------


def test_going_out_chances_are_measured_and_grow_through_the_round() -> None:
    rules = preset("progressive")
    measured = measure_going_out(rules, 1, 3, games=8)
    assert measured.games == 8 and all(0 <= c <= 1 for c in measured.chances)
    assert list(measured.chances) == sorted(measured.chances) and measured.chances[-1] > 0
    assert measured.chance(1000) == measured.chances[-1]
    assert GoingOut((0.1, 0.2), 1).chance(1) == 0.1


def test_the_presets_going_out_chances_are_shipped() -> None:
    from analyzer.going_out_table import TABLE

    rules = preset("progressive")
    for number in range(1, 8):
        assert f"{rules_fingerprint(rules)}/{number}/4" in TABLE
    assert going_out_chances(rules, 6, 4).games == TABLE[f"{rules_fingerprint(rules)}/6/4"][0]


def test_a_table_stops_at_a_position_the_advice_can_read() -> None:
    """Halt when a card is on offer to seat 1 before seat 0's turn: the buy question of puzzles."""
    from analyzer import advise

    table = Table.deal(preset("progressive"), 2, 3, seed=5)
    assert table.play_until(lambda t: t.turn >= 4 and t.current == 0 and t.offer_open)
    position = table.position(1)
    assert position.face_up == table.discards[-1] and position.turn == table.turns[1]
    assert Counter(position.hand) + Counter(position.seen) + Counter([position.face_up]) + \
        sum((Counter(hand) for seat, hand in enumerate(table.hands) if seat != 1), Counter()) + \
        Counter(table.stock) == Counter(table.deck)
    advice = advise(position.hand, position.rules, position.round_number, players=position.players,
                    seen=position.seen, buy=position.face_up, rollouts=4)
    assert advice.buy is not None
    assert not Table.deal(preset("progressive"), 1, 3, seed=1).play_until(lambda t: False)


def test_laying_down_is_going_out_in_a_go_out_round() -> None:
    rules = preset("pagat")  # round 7: three runs of 4, every card melded, no discard
    player = SimulatedPlayer(RoundSolver(rules, 7, rules.deck_for(4), 5.0))
    state = player.start(parse_cards("3H 4H 5H 6H 7S 8S 9S 10S JD QD KD"))
    result = player.play_turn(state, Card.parse("AD"))
    assert result.went_out and result.discard is None and len(result.laid_down) == 3
    stuck = player.play_turn(state, Card.parse("2C"))
    assert not stuck.went_out and stuck.discard is not None and not stuck.laid_down


def test_one_card_away_buys_only_where_the_penalty_card_may_stay_unused() -> None:
    # Pagat round 7 (three runs of 4, one penalty card a buy): the hand misses one card, the 10♦
    # or the A♦ (J♦ Q♦ K♦ take either; which one the solver names is a tie it settles).
    # Outside a go-out round buying it lays the hand down next turn, the penalty card left over;
    # in the go-out round the penalty card and the next draw must be melded too, so being one
    # card away is no reason to pay for a buy (a free card still is).
    go_out = preset("pagat")
    kept_back = dataclasses.replace(go_out, rounds=tuple(
        dataclasses.replace(rule, go_out=False) if number == 7 else rule
        for number, rule in enumerate(go_out.rounds, start=1)))
    hand = parse_cards("3H 4H 5H 6H 7S 8S 9S 10S JD QD KD")
    for rules, buys in ((go_out, False), (kept_back, True)):
        player = SimulatedPlayer(RoundSolver(rules, 7, rules.deck_for(4), 5.0))
        state = player.start(hand)
        assert state.away == 1 and state.missing in ((Card.parse("10D"),), (Card.parse("AD"),))
        missing = state.missing[0]
        assert player.wants_to_buy(state, missing, 1) is buys
        assert player.wants_to_buy(state, missing, 0)


def test_a_card_taken_off_a_meld_to_go_out_leaves_no_runs_touching() -> None:
    """Kolsov round 7 (three runs of 4, no two runs of a suit touching): the whole hand melds as
    2♥-6♥, 6♥-10♥ and 5♠-9♠, and going out needs a discard. Taking the 6♥ off the top of the
    first run would leave 2♥-5♥ touching 6♥-10♥; the player takes a card off where the lay-down
    stays legal, and the table's check accepts the turn."""
    from analyzer.validate import validate_lay_down

    rules = preset("kolsov")
    hand = parse_cards("2H 3H 4H 5H 6H 6H 7H 9H 10H 5S 6S 8S 9S JK JK")
    player = SimulatedPlayer(RoundSolver(rules, 7, rules.deck_for(5), 5.0))
    drawn = Card.parse("2H")
    before = list(hand)
    before.remove(drawn)
    result = player.play_turn(player.start(before), drawn)
    assert result.went_out and result.discard is not None and result.laid_down
    assert validate_lay_down(hand, rules, 7, result.laid_down, (result.discard,)) == []


def test_in_a_contract_of_two_sets_a_card_making_a_set_with_a_pair_held_is_bought() -> None:
    """Progressive round 4 (three sets of 3): a pair its plan leaves out is the hand's second
    chance at a set, so the card making it a set is bought, though the plan does not miss it.
    Not a card of a rank held once, and not in round 2 (one set and a run)."""
    rules = preset("progressive")
    player = SimulatedPlayer(RoundSolver(rules, 4, rules.deck_for(4), 5.0))
    state = player.start(parse_cards("7C 7D 9S 9H 9D QC QD 4S 4H 2C KD"))
    assert state.away == 2 and set(parse_cards("4S 4H")) <= set(state.unused)  # the plan: 7s, 9s, queens
    assert not set(parse_cards("4C 4D KS 5H")) & set(state.missing)
    assert player.wants_to_buy(state, Card.parse("4C"), 1) and player.wants_to_buy(state, Card.parse("4D"), 1)
    assert not player.wants_to_buy(state, Card.parse("KS"), 1) and not player.wants_to_buy(state, Card.parse("5H"), 1)
    one_set = SimulatedPlayer(RoundSolver(rules, 2, rules.deck_for(4), 5.0))
    run_round = one_set.start(parse_cards("7C 7D 4S 4H 9H 10H JH KD 2C 5S"))
    assert Card.parse("4C") not in run_round.missing and not one_set.wants_to_buy(run_round, Card.parse("4C"), 1)


def test_a_hand_out_of_reach_by_its_size_buys_any_card() -> None:
    """Kolsov's last round (three runs of 5 from 11 cards, a go-out round): drawing never gives
    the 15 cards, so only buying gets the hand down; passing, no table ever ended."""
    rules = preset("kolsov")
    player = SimulatedPlayer(RoundSolver(rules, 10, rules.deck_for(4), 5.0))
    state = player.start(parse_cards("3C 4C 5C 6C 7H 8H 9H 10H JD QD KS"))
    assert state.away is None
    assert player.wants_to_buy(state, Card.parse("2S"), 2) and player.wants_to_buy(state, Card.parse("7C"), 2)
    bought = player.with_cards(state, parse_cards("2S 8D 8C"))  # the card and its two penalty cards
    assert len(bought.held) == 14 and bought.away == 4  # within reach now: its plan decides
