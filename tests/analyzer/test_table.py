"""The table by the full rules (RULES.md §7, "Laying off, joker substitution and the table"):
lay-offs on any meld, jokers taken back, going out by laying off, each move checked.

A hand-made case for each named rule, then random rounds of every preset played by random legal
moves (the new ones included): no card lost or made, every meld on the table a meld, every
illegal move tried refused with the table and the turn unchanged."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Sequence

import pytest

from analyzer.cards import JOKER, Card, parse_cards
from analyzer.melds import meld_problems
from analyzer.moves import End, LayOff, Move, Substitution, TableError, Turn, grown
from analyzer.result import PlacedMeld
from analyzer.round_solver import RoundSolver
from analyzer.rules import (
    PRESETS,
    JokerSubstitution,
    MeldKind,
    Rules,
    RulesError,
    check_rules,
    preset,
    rules_from_mapping,
)
from analyzer.simulate import (
    EventKind,
    Play,
    SeatView,
    SimulatedPlayer,
    Table,
    extend_meld,
    rules_fingerprint,
)


def run(text: str, means: str | None = None) -> PlacedMeld:
    return PlacedMeld(MeldKind.RUN, parse_cards(text), parse_cards(means or text))


def group(text: str, means: str | None = None) -> PlacedMeld:
    return PlacedMeld(MeldKind.SET, parse_cards(text), parse_cards(means or text))


class Idle:
    """A policy for tables set up by hand: never takes, never buys, discards its first card."""

    def wants_discard(self, seat: SeatView, card: Card) -> bool:
        return False

    def wants_to_buy_at(self, seat: SeatView, card: Card) -> bool:
        return False

    def choose_play_after_draw(self, seat: SeatView) -> Play:
        return Play(discard=seat.hand[0])


def table_with(rules: Rules, hands: Sequence[str], melds: Sequence[Sequence[PlacedMeld]],
               round_number: int = 3) -> Table:
    """A dealt table whose hands and melds are then set by hand (cards need not add up: the
    checks asked here are of one turn); a third seat with no melds where two are given."""
    hands, melds = [*hands, "3D"][:max(len(hands), 3)], [*melds, []][:max(len(melds), 3)]
    table = Table.deal(rules, round_number, len(hands), seed=1, policies=[Idle()] * len(hands))
    table.hands = [list(parse_cards(hand)) for hand in hands]
    table.melds = [list(seat_melds) for seat_melds in melds]
    return table


def refused(table: Table, seat: int, play: Play, *words: str) -> None:
    """``play`` is refused with a message holding every one of ``words``; nothing changes."""
    before = (repr(table.hands), repr(table.melds), repr(table.discards))
    with pytest.raises(TableError) as error:
        table.check(seat, play)
    for word in words:
        assert word in str(error.value), str(error.value)
    assert (repr(table.hands), repr(table.melds), repr(table.discards)) == before


SPADES = run("5S 6S 7S 8S")
HEARTS = run("9H 10H JH QH")
SEVENS = group("7C 7D 7H")
PROGRESSIVE, CONTRACT, PAGAT, MAY_I = preset("progressive"), preset("contract"), preset("pagat"), preset("may-i")
SHANGHAI, POWE, EVELEIGH = preset("shanghai"), preset("shanghai-powe"), preset("eveleigh")


# ---- laying off on any meld ------------------------------------------------------------------------


def test_a_player_who_is_down_lays_off_on_another_players_meld_at_either_end() -> None:
    table = table_with(PROGRESSIVE, ["4S 9S KC", "2D 3D"], [[HEARTS], [SPADES]])
    turn = table.check(0, Play(moves=(LayOff(Card.parse("4S"), 1, 0), LayOff(Card.parse("9S"), 1, 0)),
                               discard=Card.parse("KC")))
    assert turn.melds[1][0] == run("4S 5S 6S 7S 8S 9S") and not turn.held()
    refused(table, 0, Play(moves=(LayOff(Card.parse("4S"), 1, 0, End.HIGH),), discard=Card.parse("KC")),
            "does not extend", "player 2", "a run grows only at its ends")
    refused(table, 0, Play(moves=(LayOff(Card.parse("KC"), 1, 0),), discard=Card.parse("4S")),
            "the K♣ does not extend 5♠ 6♠ 7♠ 8♠ of player 2: runs are of one suit")
    refused(table, 0, Play(moves=(LayOff(Card.parse("4S"), 1, 3),), discard=Card.parse("KC")),
            "meld 4 of player 2, who has 1 meld(s)")
    refused(table, 0, Play(moves=(LayOff(Card.parse("4S"), 2, 0),), discard=Card.parse("KC")),
            "meld 1 of player 3, who has 0 meld(s)")
    refused(table, 0, Play(moves=(LayOff(Card.parse("4S"), 4, 0),), discard=Card.parse("KC")), "not at the table")
    own_only = dataclasses.replace(PROGRESSIVE, lay_off_on_others=False)
    refused(table_with(own_only, ["4S 9S KC", "2D 3D"], [[HEARTS], [SPADES]]), 0,
            Play(moves=(LayOff(Card.parse("4S"), 1, 0),), discard=Card.parse("KC")), "lay_off_on_others is false")


def test_only_a_player_whose_contract_is_down_lays_off() -> None:
    table = table_with(PROGRESSIVE, ["4S 9S KC", "2D 3D"], [[], [SPADES]])
    refused(table, 0, Play(moves=(LayOff(Card.parse("4S"), 1, 0),), discard=Card.parse("KC")), "before laying down")


def test_lay_offs_wait_for_a_later_turn_except_where_the_rules_say_the_same_turn() -> None:
    hand = "2H 3H 4H 5H 8C 9C 10C JC QC KD"  # round 3 (two runs of 4) and a Q♣ to lay off
    melds = (run("2H 3H 4H 5H"), run("8C 9C 10C JC"))
    play = Play(lay_down=melds, moves=(LayOff(Card.parse("QC"), 0, 1),), discard=Card.parse("KD"))
    refused(table_with(PROGRESSIVE, [hand, "2D"], [[], []]), 0, play, "lay_off_same_turn is false")
    refused(table_with(PROGRESSIVE, [hand, "2D"], [[], []]), 0, dataclasses.replace(play, moves=(), lay_offs=((1, Card.parse("QC")),)),
            "on the turn it laid down")
    for rules in (MAY_I, SHANGHAI, EVELEIGH):
        assert rules.lay_off_same_turn
        turn = table_with(rules, [hand, "2D"], [[], []], round_number=4 if rules is EVELEIGH else 3).check(0, play)
        assert turn.melds[0][1] == run("8C 9C 10C JC QC") and turn.held() == []


def test_the_ace_and_the_corner() -> None:
    low = run("2H 3H 4H 5H")
    assert grown(low, Card.parse("AH"), PROGRESSIVE) == run("AH 2H 3H 4H 5H")
    assert grown(low, Card.parse("AH"), SHANGHAI) == "the ace is high only here (A-2-3-4 is not a run)"
    high = run("JS QS KS AS")
    assert grown(high, Card.parse("2S"), PROGRESSIVE) == "a run never turns the corner (K-A-2 is not a run)"
    assert grown(high, Card.parse("10S"), PROGRESSIVE) == run("10S JS QS KS AS")
    assert grown(run("QS KS AS 2S".replace(" 2S", "")), JOKER, PROGRESSIVE, End.HIGH) == "the run has no place left at its high end"
    assert grown(run("9S 10S JS QS"), Card.parse("9S"), PROGRESSIVE) == "the run already has the 9♠'s place"
    long_run = run("AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD")
    assert grown(long_run, Card.parse("AD"), PROGRESSIVE) == run("AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
                                                                  "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD")
    short = dataclasses.replace(PROGRESSIVE, max_run_length=4)
    assert grown(SPADES, Card.parse("9S"), short) == "runs are at most 4 cards long"


def test_a_wild_card_goes_at_the_end_asked_for_within_the_wild_limits() -> None:
    up = grown(SPADES, JOKER, PROGRESSIVE)
    down = grown(SPADES, JOKER, PROGRESSIVE, End.LOW)
    assert isinstance(up, PlacedMeld) and up.stands_for[-1] == Card.parse("9S")
    assert isinstance(down, PlacedMeld) and down.stands_for[0] == Card.parse("4S") and down.cards[0] == JOKER
    one_wild = run("5S JK 7S 8S", "5S 6S 7S 8S")
    assert grown(one_wild, JOKER, SHANGHAI) == "wild cards: 2 wild cards, at most 1 allowed per meld"
    assert isinstance(grown(SEVENS, JOKER, PROGRESSIVE), PlacedMeld)


def test_a_set_grows_by_its_rank() -> None:
    assert grown(SEVENS, Card.parse("7S"), PROGRESSIVE) == group("7C 7D 7H 7S")
    assert grown(SEVENS, Card.parse("8S"), PROGRESSIVE) == "sets are of one rank, here 7s"
    assert grown(SEVENS, Card.parse("7S"), PROGRESSIVE, End.LOW) == "a set has no ends: lay off on it without one"


def test_eveleighs_runs_are_never_joined() -> None:
    """The 7♠ fits both 3-6♠ and 8-J♠: it grows one of them, and the two stay two runs."""
    low, high = run("3S 4S 5S 6S"), run("8S 9S 10S JS")
    table = table_with(EVELEIGH, ["7S KC", "3D"], [[low, high], []], round_number=4)
    turn = table.check(0, Play(moves=(LayOff(Card.parse("7S"), 0, 1),), discard=Card.parse("KC")))
    assert turn.melds[0] == [low, run("7S 8S 9S 10S JS")]


def test_default_lay_offs_are_extend_melds() -> None:
    """Where the simulated player's ``extend_meld`` finds a place, ``grown`` finds the same one
    (with the end left to it), and the other way round, for every card kind on melds of every preset."""
    melds = [SPADES, HEARTS, SEVENS, run("2H 3H 4H 5H"), run("JS QS KS AS"), run("5S JK 7S 8S", "5S 6S 7S 8S"),
             group("7C JK 7H", "7C 7C 7H"), run("3C 4C 5C 2C", "3C 4C 5C 6C")]
    cards = parse_cards("AS 2S 4S 9S 10S AH 6H 8H KH 7S 8S 2C 2H 6C 7C JK 2D")
    for rules in PRESETS.values():
        for meld in melds:
            if meld_problems(meld, rules):
                continue
            for card in cards:
                made = grown(meld, card, rules)
                assert extend_meld(meld, card, rules) == (made if isinstance(made, PlacedMeld) else None), (
                    rules.name, meld, card)


# ---- jokers taken back ------------------------------------------------------------------------------


def test_a_joker_is_taken_back_by_its_natural_card_and_melded_the_same_turn() -> None:
    table = table_with(PROGRESSIVE, ["7H 4S KC", "2D"], [[HEARTS], [run("5H 6H JK 8H", "5H 6H 7H 8H"), SPADES]])
    take = Substitution(Card.parse("7H"), 1, 0)
    turn = table.check(0, Play(moves=(take, LayOff(JOKER, 1, 1, End.LOW)), discard=Card.parse("KC")))
    assert turn.melds[1] == [run("5H 6H 7H 8H"), run("JK 5S 6S 7S 8S", "4S 5S 6S 7S 8S")]
    assert turn.held() == list(parse_cards("4S"))
    refused(table, 0, Play(moves=(take,), discard=Card.parse("KC")), "keeps a joker it took back")
    refused(table, 0, Play(moves=(take, LayOff(Card.parse("4S"), 1, 1)), discard=JOKER), "discards the joker it took back")
    refused(table, 0, Play(moves=(Substitution(Card.parse("4S"), 1, 0),), discard=Card.parse("KC")),
            "no joker in 5♥ 6♥ Joker=7♥ 8♥ of player 2 stands for the 4♠")
    refused(table, 0, Play(moves=(Substitution(JOKER, 1, 0),), discard=Card.parse("KC")), "only a natural card")
    refused(table_with(PROGRESSIVE, ["7H 4S KC", "2D"], [[], [run("5H 6H JK 8H", "5H 6H 7H 8H")]]), 0,
            Play(moves=(take,), discard=Card.parse("KC")), "before laying down")


def test_jokers_in_sets_are_dead_in_pagat_and_contract_and_nothing_moves_in_eveleigh() -> None:
    melds = [[SPADES], [group("7C JK 7H", "7C 7C 7H")]]
    play = Play(moves=(Substitution(Card.parse("7S"), 1, 0), LayOff(JOKER, 0, 0)), discard=Card.parse("KC"))
    assert table_with(PROGRESSIVE, ["7S KC", "2D"], melds).check(0, play).melds[1] == [group("7C 7S 7H")]
    assert PAGAT.joker_substitution is CONTRACT.joker_substitution is JokerSubstitution.RUNS
    for rules in (PAGAT, CONTRACT):
        refused(table_with(rules, ["7S KC", "2D"], melds), 0, play, "jokers in sets are dead")
    refused(table_with(EVELEIGH, ["7S KC", "2D"], melds, round_number=4), 0, play,
            "wild cards once melded cannot be moved")


# ---- the end of the turn ---------------------------------------------------------------------------


def test_going_out_by_laying_off_the_last_cards_as_the_discard_rule_says() -> None:
    hand = "4S 9S"
    lay_both = Play(moves=(LayOff(Card.parse("4S"), 1, 0), LayOff(Card.parse("9S"), 1, 0)))
    assert PROGRESSIVE.discard_to_go_out == "optional"
    assert table_with(PROGRESSIVE, [hand, "2D"], [[HEARTS], [SPADES]]).check(0, lay_both).held() == []
    assert CONTRACT.discard_to_go_out == "required"
    refused(table_with(CONTRACT, [hand, "2D"], [[HEARTS], [SPADES]]), 0, lay_both, "discard_to_go_out is required")
    one_and_discard = Play(moves=(LayOff(Card.parse("4S"), 1, 0),), discard=Card.parse("9S"))
    assert table_with(CONTRACT, [hand, "2D"], [[HEARTS], [SPADES]]).check(0, one_and_discard).held() == []
    assert POWE.discard_to_go_out == "never"
    refused(table_with(POWE, [hand, "2D"], [[HEARTS], [SPADES]]), 0, one_and_discard, "discard_to_go_out is never")
    keep_one = Play(moves=(LayOff(Card.parse("4S"), 1, 0),))
    assert table_with(POWE, [hand, "2D"], [[HEARTS], [SPADES]]).check(0, keep_one).held() == list(parse_cards("9S"))
    refused(table_with(PROGRESSIVE, ["4S 9S KC", "2D"], [[HEARTS], [SPADES]]), 0, keep_one,
            "ends its turn without a discard, holding 2 card(s)")


def test_a_go_out_round_melds_every_card_without_a_discard() -> None:
    rules = PAGAT  # round 7: three runs of 4, every card melded
    hand = "2H 3H 4H 5H 8C 9C 10C JC 4D 5D 6D 7D 8D"
    melds = (run("2H 3H 4H 5H"), run("8C 9C 10C JC"), run("4D 5D 6D 7D 8D"))
    assert table_with(rules, [hand, "2D"], [[], []], round_number=7).check(0, Play(lay_down=melds)).held() == []
    short = (run("2H 3H 4H 5H"), run("8C 9C 10C JC"), run("4D 5D 6D 7D"))
    refused(table_with(rules, [hand, "2D"], [[], []], round_number=7), 0, Play(lay_down=short), "must meld every card")
    refused(table_with(rules, [hand, "2D"], [[], []], round_number=7), 0,
            Play(lay_down=short, discard=Card.parse("8D")), "go-out round")


def test_a_lay_down_breaks_no_rule_of_the_validator() -> None:
    """Same-suit runs that touch (no-touch) are one long run, not a contract of two."""
    hand = "2H 3H 4H 5H 6H 7H 8H 9H KD"
    melds = (run("2H 3H 4H 5H"), run("6H 7H 8H 9H"))
    refused(table_with(PROGRESSIVE, [hand, "2D"], [[], []]), 0, Play(lay_down=melds, discard=Card.parse("KD")),
            "lay-down breaks the rules", "no-touch")


def test_an_illegal_play_leaves_the_table_as_it_was() -> None:
    rules = PROGRESSIVE

    class Cheat(Idle):
        def choose_play_after_draw(self, seat: SeatView) -> Play:
            return Play(moves=(LayOff(seat.hand[0], 1, 0),), discard=seat.hand[1])

    table = Table.deal(rules, 3, 2, seed=4, policies=[Cheat()] * 2)
    table.melds[1] = [SPADES]
    table.melds[0] = [HEARTS]
    events = len(table.events)
    with pytest.raises(TableError):
        table.play_turn()
    drawn = table.events[-1].cards[0]
    assert table.events[-1].kind in (EventKind.DRAW, EventKind.TAKE) and len(table.events) == events + 1
    assert drawn in table.hands[0] and table.melds == [[HEARTS], [SPADES]] and len(table.hands[0]) == 9


def test_the_full_rules_fields_key_the_going_out_table() -> None:
    """Self-play uses the table's full-rules moves (generator puzzles-8), so a rule set that
    changes one of their fields is measured as another."""
    for rules in PRESETS.values():
        changed = dataclasses.replace(rules, lay_off_same_turn=not rules.lay_off_same_turn)
        assert rules_fingerprint(changed) != rules_fingerprint(rules)


# ---- random rounds of every preset -----------------------------------------------------------------


class RandomMoves:
    """Until it lays down, a ``SimulatedPlayer`` (its hands then reach the table); after, any
    legal play, the full rules' moves included, chosen at random among candidates that the
    table's own ``Turn`` accepts, every refused candidate checked to change nothing."""

    def __init__(self, rules: Rules, round_number: int, players: int, rng: random.Random) -> None:
        self.rules, self.rng = rules, rng
        self.planner = SimulatedPlayer(RoundSolver(rules, round_number, rules.deck_for(players), 600.0, work=2.0))
        self.table: Table | None = None
        self.counts: Counter[str] = Counter()

    def wants_discard(self, seat: SeatView, card: Card) -> bool:
        return self.rng.random() < 0.3 if seat.melds else self.planner.wants_discard(seat, card)

    def wants_to_buy_at(self, seat: SeatView, card: Card) -> bool:
        return self.rng.random() < 0.2 if seat.melds else self.planner.wants_to_buy_at(seat, card)

    def _turn(self, seat: int, lay_down: tuple[PlacedMeld, ...], moves: Sequence[Move]) -> Turn:
        assert self.table is not None
        turn = Turn(self.rules, self.table.round_number, seat, self.table.hands[seat], self.table.melds)
        if lay_down:
            turn.lay_down(lay_down)
        for move in moves:
            turn.lay_off(move) if isinstance(move, LayOff) else turn.substitute(move)
        return turn

    def _try(self, turn: Turn, move: Move) -> bool:
        """Make ``move`` on ``turn`` if it is legal; a refused move must change nothing."""
        before = (turn.hand.copy(), repr(turn.melds), turn.jokers_owed)
        try:
            turn.lay_off(move) if isinstance(move, LayOff) else turn.substitute(move)
        except TableError:
            self.counts["refused"] += 1
            assert (turn.hand, repr(turn.melds), turn.jokers_owed) == before
            return False
        return True

    def _candidates(self, turn: Turn) -> list[Move]:
        """Moves of every card held on every meld on the table (each end of a run; a natural card
        in a joker's place), legal or not, in random order."""
        found: list[Move] = []
        for card in dict.fromkeys(turn.held()):
            for seat, melds in enumerate(turn.melds):
                for index in range(len(melds)):
                    found += [LayOff(card, seat, index), LayOff(card, seat, index, self.rng.choice(list(End))),
                              Substitution(card, seat, index)]
        self.rng.shuffle(found)
        return found

    def choose_play_after_draw(self, seat: SeatView) -> Play:
        assert self.table is not None
        rules, table, me = self.rules, self.table, seat.seat
        lay_down: tuple[PlacedMeld, ...] = ()
        if not table.melds[me]:
            planned = self.planner.choose_play_after_draw(seat)
            if not planned.lay_down or not rules.lay_off_same_turn or self.rng.random() < 0.5:
                return planned
            lay_down = planned.lay_down  # and lay off on the same turn
        moves: list[Move] = []
        turn = self._turn(me, lay_down, moves)
        if turn.laid_down_before or (lay_down and rules.lay_off_same_turn):
            for move in self._candidates(turn):
                if sum(turn.hand.values()) <= 1 and rules.discard_to_go_out == "required":
                    break  # the last card is the discard that goes out
                trial = self._turn(me, lay_down, moves)
                if self.rng.random() < 0.2 or not self._try(trial, move):
                    continue
                if isinstance(move, Substitution):  # the joker goes on the first meld that takes it
                    joker = joker_spot(trial.melds, rules)
                    if joker is None or not self._try(trial, joker):
                        continue
                    moves += [move, joker]
                else:
                    moves.append(move)
                turn = trial
        self.counts.update(type(move).__name__ + (" others" if move.seat != me else "") for move in moves)
        endings = [None, *dict.fromkeys(turn.held())]
        self.rng.shuffle(endings)
        for discard in endings:
            ending = self._turn(me, lay_down, moves)
            try:
                if discard is not None:
                    ending.discard(discard)
                ending.finish()
            except TableError:
                continue
            return Play(lay_down=lay_down, moves=tuple(moves), discard=discard)
        raise AssertionError(f"no legal end of turn for {turn.held()}")  # pragma: no cover


def joker_spot(melds: Sequence[Sequence[PlacedMeld]], rules: Rules) -> LayOff | None:
    """The first place on the table a joker can be laid off, if any."""
    for seat, seat_melds in enumerate(melds):
        for index, meld in enumerate(seat_melds):
            for end in (None, End.LOW) if meld.kind == MeldKind.RUN else (None,):
                if isinstance(grown(meld, JOKER, rules, end), PlacedMeld):
                    return LayOff(JOKER, seat, index, end)
    return None


def check_table(table: Table, deck: Counter[Card]) -> None:
    """No card lost or made; every meld on the table a meld."""
    on_table = (Counter(c for hand in table.hands for c in hand) + Counter(table.stock) + Counter(table.discards)
                + Counter(c for melds in table.melds for meld in melds for c in meld.cards))
    assert on_table == deck
    for melds in table.melds:
        for meld in melds:
            assert meld_problems(meld, table.rules) == [], meld.describe()


ROUNDS = [(name, number) for name, rules in PRESETS.items() for number in (2, 3, 6)
          if number <= len(rules.rounds)]


def random_rounds(name: str, round_number: int, seeds: int) -> Counter[str]:
    """Play ``seeds`` rounds of ``RandomMoves`` players, checking the table after every turn;
    the moves they made and the candidates refused."""
    rules = preset(name)
    players = 3 if any(d.min_players <= 3 <= d.max_players for d in rules.decks) else 4
    totals: Counter[str] = Counter()
    for seed in range(seeds):
        rng = random.Random(f"table/{name}/{round_number}/{seed}")
        policy = RandomMoves(rules, round_number, players, rng)
        table = Table.deal(rules, round_number, players, seed, [policy] * players)
        policy.table = table
        table.max_turns = 40 * players
        deck = Counter(table.deck)
        while not table.finished:
            table.play_turn()
            check_table(table, deck)
        totals += policy.counts
    return totals


@pytest.mark.parametrize(("name", "round_number"), ROUNDS)
def test_random_rounds_keep_every_card_and_every_meld(name: str, round_number: int) -> None:
    totals = random_rounds(name, round_number, seeds=3)
    rule = preset(name).round(round_number)
    if rule.deal > sum(spec.size for spec in rule.contract):  # cards are left after laying down
        assert totals["refused"] > 0 and totals["LayOff"] + totals["LayOff others"] > 0, totals


def test_random_rounds_take_jokers_back() -> None:
    totals = random_rounds("shanghai", 2, seeds=3)
    assert totals["Substitution"] + totals["Substitution others"] > 0, totals


# ---- the rule options ------------------------------------------------------------------------------


def test_the_presets_follow_rules_md_on_the_table() -> None:
    same_turn = {name for name, rules in PRESETS.items() if rules.lay_off_same_turn}
    assert same_turn == {"may-i", "shanghai", "shanghai-powe", "kolsov", "eveleigh"}
    assert all(rules.lay_off_on_others for rules in PRESETS.values())
    substitution = {name: rules.joker_substitution.value for name, rules in PRESETS.items()}
    assert substitution == {"progressive": "runs-and-sets", "ill-buy-it": "runs-and-sets", "contract": "runs",
                            "pagat": "runs", "may-i": "runs-and-sets", "shanghai": "runs-and-sets",
                            "shanghai-powe": "runs-and-sets", "kolsov": "runs-and-sets", "eveleigh": "none"}


def test_the_table_options_are_read_and_checked_like_the_others() -> None:
    read = rules_from_mapping({"base": "eveleigh", "joker_substitution": "runs", "lay_off_same_turn": False,
                               "lay_off_on_others": False}, "house.toml")
    assert (read.joker_substitution, read.lay_off_same_turn, read.lay_off_on_others) == (
        JokerSubstitution.RUNS, False, False)
    with pytest.raises(RulesError, match="joker_substitution must be one of none, runs, runs-and-sets, not 'sets'"):
        rules_from_mapping({"joker_substitution": "sets"}, "house.toml")
    with pytest.raises(RulesError, match="lay_off_same_turn must be true or false"):
        rules_from_mapping({"lay_off_same_turn": "yes"}, "house.toml")
    with pytest.raises(RulesError, match="joker_substitution must be one of 'none'"):
        check_rules(dataclasses.replace(PROGRESSIVE, joker_substitution="runs"))
