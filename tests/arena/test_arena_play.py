"""Duplicate play: the seating, what a seat may see, determinism and the sanity of the statistic."""

from __future__ import annotations

import dataclasses
import multiprocessing
from collections import Counter

import pytest

from analyzer import (
    Card,
    HandError,
    LayOff,
    MeldKind,
    PlacedMeld,
    Play,
    SimulatedPlayer,
    Table,
    Turn,
    advise_down,
    analyze,
    deterministic_work,
    parse_cards,
    preset,
)
from analyzer.stats import interval, t_quantile
from arena.duplicate import WORK, Match, Seat, SeedResult, play_seed
from arena.policies import AdvisedPlayer, GreedyPlayer, PolicyName, Round, Sight
from arena.report import report

GREEDY, RANDOM, SIMULATED, ADVISED = (PolicyName.GREEDY, PolicyName.RANDOM, PolicyName.SIMULATED,
                                      PolicyName.ADVISED)


def test_the_challenger_takes_every_seat_once_on_the_same_deal() -> None:
    deals: list = []
    result = play_seed(Match("progressive", 4, GREEDY, SIMULATED), 2, 7, deals)
    assert [table.seat for table in result.tables] == [0, 1, 2, 3]
    assert len(deals) == 4 and all(deal == deals[0] for deal in deals)  # hands, stock and face-up card
    hands = deals[0][0]
    assert [len(hand) for hand in hands] == [preset("progressive").round(2).deal] * 4
    # ...and another seed deals other cards
    other: list = []
    play_seed(Match("progressive", 4, GREEDY, SIMULATED), 2, 8, other)
    assert other[0] != deals[0]


def test_a_seat_sees_its_hand_the_melds_and_the_pile_never_the_stock_or_other_hands() -> None:
    rules = preset("progressive")
    at = Round(rules, 1, 4)
    sights: list[Sight] = []
    tables: list[Table] = []

    class Recorder:
        """Plays as the greedy player and checks each sight against the table as it stands."""

        def __init__(self) -> None:
            self.player = GreedyPlayer(at, at.simulated_player())

        def check(self, sight: Sight) -> None:
            table = tables[0]
            sights.append(sight)
            assert type(sight) is Sight
            assert {f.name for f in dataclasses.fields(sight)} == {
                "seat", "hand", "melds", "drawn", "turn", "buys_used", "players", "table", "discards", "bought_last"}
            assert Counter(sight.hand) == Counter(table.hands[sight.seat])
            assert sight.discards == tuple(table.discards) and sight.table == tuple(map(tuple, table.melds))
            for value in vars(sight).values():  # plain values only: no way back to the table
                assert isinstance(value, (tuple, int, bool, Card, type(None)))
            # what it sees and what it does not are apart: the stock and the others' hands
            unseen = Counter(table.stock) + sum((Counter(h) for s, h in enumerate(table.hands) if s != sight.seat),
                                                Counter())
            seen = Counter(sight.hand) + Counter(sight.discards) + Counter(
                c for melds in sight.table for meld in melds for c in meld.cards)
            assert seen + unseen == Counter(table.deck)

        def wants_discard(self, sight: Sight, card: Card) -> bool:
            self.check(sight)
            return self.player.wants_discard(sight, card)

        def wants_to_buy_at(self, sight: Sight, card: Card) -> bool:
            self.check(sight)
            return self.player.wants_to_buy_at(sight, card)

        def choose_play_after_draw(self, sight: Sight) -> Play:
            self.check(sight)
            return self.player.choose_play_after_draw(sight)

    seats = [Seat(Recorder(), seat) for seat in range(4)]
    with deterministic_work(WORK):
        table = Table.deal(rules, 1, 4, 11, seats)
        tables.append(table)
        for seat in seats:
            seat.table = table
        table.play()
    assert len(sights) > 20 and {sight.seat for sight in sights} == {0, 1, 2, 3}
    assert any(sight.table != ((),) * 4 for sight in sights)  # somebody laid down: melds were seen
    assert all(vars(seat).keys() == {"player", "seat", "table", "decisions", "seconds"} for seat in seats)


def test_the_same_policy_everywhere_plays_the_same_tables() -> None:
    """Duplicate play of a policy against copies of itself: every seat's table is the same game,
    so the relative points are 0 on every seed and the interval holds 0."""
    results = [play_seed(Match("progressive", 4, SIMULATED, SIMULATED), number, seed)
               for number in (1, 3) for seed in range(4)]
    assert all(result.relative_points == 0 for result in results)
    rep = report(Match("progressive", 4, SIMULATED, SIMULATED), "progressive", (0, 3), False, results)
    assert rep.total.relative.contains(0) and all(row.relative.contains(0) for row in rep.rounds)


@pytest.mark.parametrize("opponents", [GREEDY, SIMULATED])
def test_random_loses_clearly(opponents: PolicyName) -> None:
    results = [play_seed(Match("progressive", 4, RANDOM, opponents), 1, seed) for seed in range(6)]
    relative = interval([result.relative_points for result in results])
    assert relative.low is not None and relative.low > 10, relative


def test_the_advised_player_plays_the_same_round_in_another_process() -> None:
    """Its lay-downs, discard tables, outs and buy verdicts are bounded by deterministic work:
    a fresh process plays the same tables (all but the time they took)."""
    job = (Match("progressive", 3, ADVISED, SIMULATED), 1, 0)
    here = play_seed(*job)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        there = pool.apply(play_seed, job)

    def untimed(result: SeedResult) -> SeedResult:
        return dataclasses.replace(result, tables=tuple(dataclasses.replace(t, seconds=0.0) for t in result.tables))

    assert untimed(here) == untimed(there)
    assert len(here.tables) == 3 and all(table.decisions > 0 for table in here.tables)
    assert all(table.winner is not None for table in here.tables)


def test_the_advised_player_follows_the_advice() -> None:
    rules = preset("progressive")
    at = Round(rules, 2, 4)
    player = AdvisedPlayer(at, at.simulated_player(), "test")
    hand = parse_cards("7H 8H 10H 5C 5D 5S KC")

    def sight(cards: tuple[Card, ...], drawn: Card | None = None) -> Sight:
        return Sight(0, tuple(sorted(cards, key=Card.sort_key)), (), drawn, 3, 0, ((),) * 4, 4,
                     (Card.parse("4D"), Card.parse("9H")), False)

    with deterministic_work(WORK):
        assert player.wants_discard(sight(hand), Card.parse("9H"))  # an out
        assert not player.wants_discard(sight(hand), Card.parse("4D"))
        after = sight(hand + (Card.parse("QS"),), Card.parse("QS"))
        assert player.choose_play_after_draw(after).discard in (Card.parse("KC"), Card.parse("QS"))
        ready = sight(hand + (Card.parse("9H"),), Card.parse("9H"))
        play = player.choose_play_after_draw(ready)
        assert len(play.lay_down) == 2 and play.discard == Card.parse("KC")
    assert isinstance(player.after, SimulatedPlayer)


def test_a_buyer_of_everything_is_advised_with_its_buys_counted() -> None:
    """Where buying is unlimited (``contract``), a seat that bought six times holds more cards
    than the analyser reads without being told its buys: the players tell it, and lay down."""
    rules = preset("contract")
    at = Round(rules, 7, 4)  # three runs of 4 from 12 cards
    runs = parse_cards("3H 4H 5H 6H 7C 8C 9C 10C JS QS KS AS")
    junk = parse_cards("2D 2D 4D 6D 8D 10D QD QD KH KH 9S 7S")  # 12 more: six buys, a card and its penalty each
    before = tuple(sorted(runs + junk, key=Card.sort_key))
    drawn = Card.parse("JD")

    def sight(cards: tuple[Card, ...], top: Card | None = None) -> Sight:
        return Sight(1, tuple(sorted(cards, key=Card.sort_key)), (), top, 9, 6, ((),) * 4, 4,
                     (Card.parse("5S"),), False)

    with pytest.raises(HandError, match="up to 5 buys"):  # untold, 24 cards are no turn's hand
        analyze(before, rules, 7, 4, moment="before-draw")
    assert analyze(before + (drawn,), rules, 7, 4, moment="after-draw", buys_used=6).can_lay_down
    with deterministic_work(WORK):
        for player in (AdvisedPlayer(at, at.simulated_player(), "test"), GreedyPlayer(at, at.simulated_player())):
            assert player.wants_discard(sight(before), Card.parse("5S")) in (True, False)
            play = player.choose_play_after_draw(sight(before + (drawn,), drawn))
            assert sorted(card for meld in play.lay_down for card in meld.cards) == sorted(runs)


def test_t_quantiles() -> None:
    assert t_quantile(1) == 12.706 and t_quantile(30) == 2.042
    assert 2.021 - 1e-3 < t_quantile(40) < 2.021 + 1e-3  # tables: 2.021, 2.000, 1.980
    assert abs(t_quantile(60) - 2.000) < 1e-3 and abs(t_quantile(120) - 1.980) < 1e-3
    assert all(t_quantile(df) > t_quantile(df + 1) > 1.96 for df in range(1, 500))
    with pytest.raises(ValueError):
        t_quantile(0)
    assert interval([1.0]).low is None


def test_the_advised_player_once_down_plays_the_advice_once_down() -> None:
    """Once down it follows ``advise_down``: its best row's moves, named by the table's seats
    (seat 1 has no melds, so the advice's opponent 2 is seat 3), legal move by move, and its
    take-or-draw for the face-up card."""
    rules = preset("progressive")
    at = Round(rules, 2, 4)
    player = AdvisedPlayer(at, at.simulated_player(), "test")
    mine = (PlacedMeld(MeldKind.RUN, parse_cards("5S 6S 7S 8S"), parse_cards("5S 6S 7S 8S")),
            PlacedMeld(MeldKind.SET, parse_cards("QH QD QC"), parse_cards("QH QD QC")))
    kings = (PlacedMeld(MeldKind.SET, parse_cards("KH KD KS"), parse_cards("KH KD KS")),
             PlacedMeld(MeldKind.RUN, parse_cards("2H 3H 4H 5H"), parse_cards("2H 3H 4H 5H")))
    hearts = (PlacedMeld(MeldKind.SET, parse_cards("9C 9D 9H"), parse_cards("9C 9D 9H")),
              PlacedMeld(MeldKind.RUN, parse_cards("JC QC KC AC"), parse_cards("JC QC KC AC")))
    table = (kings, (), mine, hearts)
    pile = parse_cards("3D 8C")
    hand = tuple(sorted(parse_cards("9S 10C 4D KC 6H"), key=Card.sort_key))

    def sight(cards: tuple[Card, ...], drawn: Card | None) -> Sight:
        return Sight(2, cards, mine, drawn, 5, 0, table, 4, pile, False)

    with deterministic_work(WORK):
        play = player.choose_play_after_draw(sight(hand, Card.parse("6H")))
        advice = advise_down(hand, rules, 2, mine, (kings, hearts), players=4, seen=pile)
    assert play.discard == advice.best.discard and play.lay_down == () and play.lay_offs == ()
    assert [move.card for move in play.moves] == [move.card for move in advice.best.moves]
    assert [move.seat for move in play.moves] == [(2, 0, 3)[move.seat] for move in advice.best.moves]
    assert {move.seat for move in play.moves} >= {0, 2, 3}  # the 9♠ on its run, K♣ on the kings, 10♣ on the run of clubs
    turn = Turn(rules, 2, 2, hand, table)
    for move in play.moves:
        turn.lay_off(move) if isinstance(move, LayOff) else turn.substitute(move)
    assert play.discard is not None
    turn.discard(play.discard)
    turn.finish()
    assert sorted(turn.held(), key=Card.sort_key) == sorted(advice.best.kept, key=Card.sort_key)
    # the face-up card: taken when the advice says take (the 4♠ goes on its run of spades)
    before = tuple(sorted(parse_cards("9S 10C 4D KC"), key=Card.sort_key))
    with deterministic_work(WORK):
        for offered in parse_cards("4S 7D"):
            shown = Sight(2, before, mine, None, 5, 0, table, 4, pile + (offered,), False)
            take = advise_down(before, rules, 2, mine, (kings, hearts), players=4, seen=pile, face_up=offered)
            assert take.face_up is not None
            assert player.wants_discard(shown, offered) is take.face_up.take
    takes = [advise_down(before, rules, 2, mine, (kings, hearts), players=4, seen=pile, face_up=card).face_up
             for card in ("4S", "7D")]
    assert [choice.take for choice in takes if choice is not None] == [True, False]


def test_the_advised_player_once_down_in_a_go_out_round_plays_as_simulated() -> None:
    """Where the advice once down has no answer (a go-out round) it plays as ``SimulatedPlayer``."""
    rules = preset("ill-buy-it")
    last = len(rules.rounds)
    assert rules.round(last).go_out
    at = Round(rules, last, 4)
    player = AdvisedPlayer(at, at.simulated_player(), "test")
    kings = (PlacedMeld(MeldKind.SET, parse_cards("KH KD KS"), parse_cards("KH KD KS")),)
    sight = Sight(0, parse_cards("4D KC"), kings, Card.parse("KC"), 5, 0, (kings, (), (), ()), 4, (), False)
    assert player.down(sight) is None
    with deterministic_work(WORK):
        play = player.choose_play_after_draw(sight)
        assert play == at.simulated_player().choose_play_after_draw(sight)
    assert play.lay_offs == ((0, Card.parse("KC")),)  # a play, not an empty answer
