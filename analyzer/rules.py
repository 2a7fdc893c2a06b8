"""Rule sets: every dimension RULES.md describes, as data.

A ``Rules`` value holds decks by number of players, the rounds (deal size, contract, go-out),
how melds may be formed and how cards score. The presets of RULES.md §7 live in ``PRESETS``;
a TOML file names a preset to start from and overrides fields (``load_rules``).
Nothing else in the project branches on a preset's name.
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import functools
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzer.cards import ALL_CARD_KINDS, Card, Rank
from analyzer.files import open_regular_file


class MeldKind(enum.Enum):
    SET = "set"
    RUN = "run"
    PAIR = "pair"  # two or more cards of one rank (Eveleigh round 14)


class ContractMode(enum.Enum):
    EXACT = "exact"  # each contract meld is laid down with exactly its stated size
    MINIMUM = "minimum"  # contract melds may be longer at lay-down


class SameSuitRuns(enum.Enum):
    """How two runs of one suit in one player's contract may relate (RULES.md §4)."""

    NO_TOUCH = "no-touch"  # may overlap or leave a gap, may not be contiguous
    GAP = "gap"  # at least one missing rank between them
    GAP_2 = "gap-2"  # at least two missing ranks between them (3-6 and 9-Q, not 3-6 and 8-J)
    DISTINCT_SUITS = "distinct-suits"  # at most one run per suit
    FREE = "free"

    @property
    def missing_ranks_between(self) -> int | None:
        """The fewest missing ranks between two runs of one suit (they may then not overlap
        either); None where overlapping is allowed or the question does not arise."""
        return {SameSuitRuns.GAP: 1, SameSuitRuns.GAP_2: 2}.get(self)


class DiscardToGoOut(enum.StrEnum):
    """How a player goes out: the last card discarded, or every card melded (the TOML value)."""

    REQUIRED = "required"  # only by discarding the last card
    OPTIONAL = "optional"  # either way
    NEVER = "never"  # only by melding every card: the last card is never a discard


class JokerSubstitution(enum.Enum):
    """Which jokers on the table a player who has laid down may take back by putting the natural
    card a joker stands for in its place (RULES.md §7, "Joker substitution")."""

    NONE = "none"  # wild cards once melded cannot be moved (Eveleigh)
    RUNS = "runs"  # from runs only: jokers in sets are dead (pagat, contract)
    RUNS_AND_SETS = "runs-and-sets"  # from runs, and from sets by a natural card of the set's rank


class RulesError(ValueError):
    """A rule set, round or rules file that cannot be used; the message names the problem."""


@dataclass(frozen=True)
class MeldSpec:
    """One meld of a contract, e.g. a run of 4."""

    kind: MeldKind
    size: int

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "size": self.size}

    def describe(self) -> str:
        """``set of 3``, ``run of 4``; a pair is ``pair (2 cards)``, not to be read as a pair of 2s."""
        if self.kind == MeldKind.PAIR:
            return f"pair ({self.size} cards)"
        return f"{self.kind.value} of {self.size}"


@dataclass(frozen=True)
class RoundRule:
    """One round (deal) of a rule set."""

    deal: int  # cards dealt to each player
    contract: tuple[MeldSpec, ...]
    go_out: bool = False  # the player must meld every card at once, without a discard
    buys: int | None = None  # buys allowed this round; None: the rule set's default
    buy_penalty_cards: int | None = None  # None: the rule set's default

    def describe_contract(self) -> str:
        counts: dict[MeldSpec, int] = {}
        for spec in self.contract:
            counts[spec] = counts.get(spec, 0) + 1
        parts = []
        for spec, count in counts.items():
            noun = spec.kind.value + ("s" if count > 1 else "")
            if spec.kind == MeldKind.PAIR:
                parts.append(f"{count} {noun} ({spec.size} cards{' each' if count > 1 else ''})")
            else:
                parts.append(f"{count} {noun} of {spec.size}")
        return " + ".join(parts)


@dataclass(frozen=True)
class DeckRule:
    """The cards in play for a range of player counts."""

    min_players: int
    max_players: int
    decks: int  # standard 52-card decks shuffled together
    jokers: int

    @property
    def cards(self) -> int:
        return 52 * self.decks + self.jokers


@dataclass(frozen=True)
class Points:
    """Penalty points for a card caught in hand."""

    by_rank: tuple[int, ...]  # indexed by Rank - 1: A, 2, ..., K
    joker: int
    wild_deuce: int  # a 2 when 2s are wild

    def of(self, card: Card, deuces_wild: bool) -> int:
        if card.rank is None:
            return self.joker
        if deuces_wild and card.rank == Rank.TWO:
            return self.wild_deuce
        return self.by_rank[card.rank - 1]


@dataclass(frozen=True)
class Rules:
    """A complete rule set. Every field is a rule option (RULES.md), none is hard-coded."""

    name: str
    source: str
    decks: tuple[DeckRule, ...]
    rounds: tuple[RoundRule, ...]
    points: Points
    contract_mode: ContractMode = ContractMode.EXACT
    same_suit_runs: SameSuitRuns = SameSuitRuns.NO_TOUCH
    ace_low: bool = True  # A-2-3-4 is a run
    ace_high: bool = True  # J-Q-K-A is a run
    max_run_length: int = 14
    deuces_wild: bool = False  # jokers are always wild; 2s too when this is set
    # With deuces_wild: a 2 is wild even where it stands for itself (its own place in a run, a
    # set of 2s), so it never counts as a natural card: 2C 2D 2H are three wild cards.
    deuces_always_wild: bool = False
    # False: no run uses the 2's place, runs go from 3 up to the ace (A-2-3-4 and 2-3-4-5 are
    # no runs, and no wild card stands for a 2 in a run); the low ace then has no place either.
    two_position_in_runs: bool = True
    max_wilds_per_meld: int | None = None  # None: any number
    wilds_may_outnumber_naturals: bool = True
    distinct_set_ranks: bool = False  # no two sets of one rank in a contract
    discard_to_go_out: DiscardToGoOut = DiscardToGoOut.REQUIRED
    buys_per_round: int | None = None  # None: unlimited
    buy_penalty_cards: int = 1
    no_consecutive_buys: bool = False  # not the same player twice in succession
    # The table (RULES.md §7, "Laying off, joker substitution and the table"): once its contract
    # is down a player may lay off on other players' melds too, and on the turn it lays down
    # where ``lay_off_same_turn`` is set (else from its next turn); it may take jokers back as
    # ``joker_substitution`` says, on the turns it may lay off, and must meld them that turn.
    lay_off_on_others: bool = True
    lay_off_same_turn: bool = False
    joker_substitution: JokerSubstitution = JokerSubstitution.RUNS_AND_SETS

    # ---- a frozen value, its hash and largest deck worked out once -------------------------

    def __hash__(self) -> int:
        # The dataclass's own hash (every field, in order), kept once worked out: a ``Rules`` is
        # frozen, so it cannot change. Going over every field took 3.2 us, paid on every look-up
        # keyed on a rule set (``place_in_turn``'s memo, once an analysis).
        try:
            value: int = self.__dict__["_hash"]
        except KeyError:
            value = hash(tuple(getattr(self, f.name) for f in dataclasses.fields(self)))
            object.__setattr__(self, "_hash", value)
        return value

    def __getstate__(self) -> dict[str, Any]:
        # Pickled without the kept hash: a string's hash, so the rule set's, differs between
        # processes (a worker works it out anew). The kept largest deck is a value: it may go.
        state = dict(self.__dict__)
        state.pop("_hash", None)
        return state

    @functools.cached_property
    def largest_deck(self) -> DeckRule:
        """``deck_for(None)``: made once (a frozen rule set has one), not on every analysis."""
        return DeckRule(
            min(d.min_players for d in self.decks),
            max(d.max_players for d in self.decks),
            max(d.decks for d in self.decks),
            max(d.jokers for d in self.decks),
        )

    # ---- derived facts -------------------------------------------------------------------

    def round(self, number: int) -> RoundRule:
        if not 1 <= number <= len(self.rounds):
            raise RulesError(
                f"round {_show(number)} does not exist in {self.name!r}: it has rounds 1 to {len(self.rounds)}"
            )
        return self.rounds[number - 1]

    def deck_for(self, players: int | None) -> DeckRule:
        """The deck for that many players; with ``None``, the largest deck the rule set uses."""
        if players is None:
            return self.largest_deck
        for deck in self.decks:
            if deck.min_players <= players <= deck.max_players:
                return deck
        low = min(d.min_players for d in self.decks)
        high = max(d.max_players for d in self.decks)
        raise RulesError(f"{self.name!r} is for {low} to {high} players, not {_show(players)}")

    def is_wild(self, card: Card) -> bool:
        return card.is_joker or (self.deuces_wild and card.rank == Rank.TWO)

    def run_positions(self) -> tuple[int, ...]:
        """The run positions that exist, 1 (low ace) to 14 (high ace), 2..13 the ranks: the ace
        where ace_low and ace_high allow it, and without the 2's place only 3 up (a low ace
        could only be followed by a 2)."""
        lowest = 1 if self.ace_low else 2
        if not self.two_position_in_runs:
            lowest = 3
        return tuple(range(lowest, (14 if self.ace_high else 13) + 1))

    def points_of(self, card: Card) -> int:
        return self.points.of(card, self.deuces_wild)

    def points_by_card(self) -> dict[Card, int]:
        """``points_of`` of every card kind: a table for code that counts points card by card
        hundreds of thousands of times (the simulated player of a buy verdict)."""
        return {card: self.points_of(card) for card in ALL_CARD_KINDS}

    def buys_in(self, round_number: int) -> int | None:
        """Buys allowed in a round (None: unlimited)."""
        rule = self.round(round_number)
        return self.buys_per_round if rule.buys is None else rule.buys

    def buys_held_at_most(self, round_number: int) -> int:
        """The most buys a hand of the round can hold the cards of: the round's limit, or where
        buying is unlimited, as many as the largest deck has cards for beyond the deal."""
        allowed = self.buys_in(round_number)
        if allowed is not None:
            return allowed
        spare = self.deck_for(None).cards - self.round(round_number).deal
        return max(0, spare) // (1 + self.buy_penalty_in(round_number))

    def buy_penalty_in(self, round_number: int) -> int:
        rule = self.round(round_number)
        return self.buy_penalty_cards if rule.buy_penalty_cards is None else rule.buy_penalty_cards

    def to_dict(self) -> dict[str, Any]:
        plain: dict[str, Any] = _to_plain(self)
        return plain


# ---- the limits of a usable rule set ----------------------------------------------------
#
# Every rule set the analyser takes (a preset, a TOML file, a mapping, a ``Rules`` handed to
# the API) passes ``check_rules``: each field's type and its range of what the game can mean,
# so no rule set can make the solver, the simulation or memory blow up.

PLAYERS = (1, 12)
DECKS = (1, 8)
JOKERS = (0, 32)
CARD_POINTS = (0, 1000)
PENALTY_CARDS = (0, 5)
BUYS = (0, 20)
WILDS_PER_MELD = (0, 14)
DEAL = (1, 30)
ROUNDS = (1, 30)
MELDS_PER_CONTRACT = (1, 9)
MELD_SIZES = {MeldKind.SET: (2, 14), MeldKind.PAIR: (2, 14), MeldKind.RUN: (3, 14)}
RUN_LENGTH = (3, 14)
DISCARD_TO_GO_OUT = tuple(DiscardToGoOut)
MOST_BUYS_WHEN_UNLIMITED = 5  # where buying is unlimited a hand is taken to hold at most this many
TEXT_LENGTH = 200  # name and source


def _show(value: Any) -> str:
    """A value as a message quotes it, cut short: a 5000-digit number is not repeated whole."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**12:
        return "a number far too large"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _in_range(value: Any, limits: tuple[int, int], name: str, problems: list[str], *, none: str | None = None) -> bool:
    """Append the problem with ``value`` (a whole number within ``limits``; ``none``: what None
    means, when it is allowed) to ``problems``; True when it is fine."""
    if value is None and none is not None:
        return True
    low, high = limits
    also = f" or {none}" if none else ""
    if not _whole(value):
        problems.append(f"{name} must be a whole number from {low} to {high}{also}, not {_show(value)}")
        return False
    if not low <= value <= high:
        problems.append(f"{name} must be from {low} to {high}{also}, not {_show(value)}")
        return False
    return True


def _of_type(value: Any, kind: type, name: str, problems: list[str]) -> bool:
    if isinstance(value, kind):
        return True
    if kind is bool:
        wanted = "true or false"
    elif issubclass(kind, enum.Enum):
        wanted = "one of " + ", ".join(repr(member.value) for member in kind)
    elif kind is str:
        wanted = "text"
    else:
        wanted = f"a {kind.__name__}"
    problems.append(f"{name} must be {wanted}, not {_show(value)}")
    return False


def check_rules(rules: Any, where: str = "rules") -> Rules:
    """``rules`` if it is a rule set the analyser can use, else ``RulesError`` naming every field
    (and round) that is wrong, with the range it allows. A ``Rules`` of another type is a
    ``TypeError``.

    >>> check_rules(preset('eveleigh')).name
    'eveleigh'
    >>> check_rules(dataclasses.replace(preset('progressive'), buy_penalty_cards=-2))
    Traceback (most recent call last):
    ...
    analyzer.rules.RulesError: rules: buy_penalty_cards must be from 0 to 5, not -2
    """
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules value or a rule set's name, not {type(rules).__name__}")
    problems: list[str] = []
    for name in ("name", "source"):
        text = getattr(rules, name)
        if _of_type(text, str, name, problems) and not 1 <= len(text) <= TEXT_LENGTH and name == "name":
            problems.append(f"name must be 1 to {TEXT_LENGTH} characters long")
    flags_ok = True
    for name in ("ace_low", "ace_high", "deuces_wild", "deuces_always_wild", "two_position_in_runs",
                 "wilds_may_outnumber_naturals", "distinct_set_ranks", "no_consecutive_buys",
                 "lay_off_on_others", "lay_off_same_turn"):
        flags_ok &= _of_type(getattr(rules, name), bool, name, problems)
    _of_type(rules.contract_mode, ContractMode, "contract_mode", problems)
    _of_type(rules.joker_substitution, JokerSubstitution, "joker_substitution", problems)
    _of_type(rules.same_suit_runs, SameSuitRuns, "same_suit_runs", problems)
    if rules.ace_low is False and rules.ace_high is False:
        problems.append("the ace must be low, high or both (ace_low, ace_high)")
    elif rules.two_position_in_runs is False and rules.ace_high is False:
        problems.append("without the 2's place in runs (two_position_in_runs = false) the ace can only be "
                        "high: ace_high must be true")
    if rules.deuces_always_wild is True and rules.deuces_wild is False:
        problems.append("deuces_always_wild = true needs deuces_wild = true (2s that are wild)")
    run_length_ok = _in_range(rules.max_run_length, RUN_LENGTH, "max_run_length", problems)
    _in_range(rules.max_wilds_per_meld, WILDS_PER_MELD, "max_wilds_per_meld", problems, none='"any"')
    if rules.discard_to_go_out not in DISCARD_TO_GO_OUT:
        problems.append(f"discard_to_go_out must be one of {', '.join(DISCARD_TO_GO_OUT)}, "
                        f"not {_show(rules.discard_to_go_out)}")
    buys_ok = _in_range(rules.buys_per_round, BUYS, "buys_per_round", problems, none='"any" (unlimited)')
    buys_ok &= _in_range(rules.buy_penalty_cards, PENALTY_CARDS, "buy_penalty_cards", problems)
    _check_points(rules.points, problems)
    _check_decks(rules.decks, problems)
    rounds_ok = _check_rounds(rules, problems, run_length_ok and flags_ok)
    if not problems and rounds_ok and buys_ok:
        _check_reachable(rules, problems)
        _check_deal(rules, problems)
    if problems:
        raise RulesError(f"{where}: " + "; ".join(problems))
    return rules


def _check_points(points: Any, problems: list[str]) -> None:
    if not _of_type(points, Points, "points", problems):
        return
    if not isinstance(points.by_rank, tuple) or len(points.by_rank) != len(Rank):
        problems.append(f"points must give one value for each of the {len(Rank)} ranks")
        return
    for rank, amount in zip(Rank, points.by_rank):
        _in_range(amount, CARD_POINTS, f"points.{rank.token}", problems)
    _in_range(points.joker, CARD_POINTS, "points.joker", problems)
    _in_range(points.wild_deuce, CARD_POINTS, "points.wild_deuce", problems)


def _check_decks(decks: Any, problems: list[str]) -> None:
    if not isinstance(decks, tuple) or not decks:
        problems.append("decks must list at least one deck entry")
        return
    seats: dict[int, int] = {}
    for number, deck in enumerate(decks, start=1):
        name = f"decks entry {number}"
        if not _of_type(deck, DeckRule, name, problems):
            continue
        ok = _in_range(deck.min_players, PLAYERS, f"{name}: the lowest player count", problems)
        ok &= _in_range(deck.max_players, PLAYERS, f"{name}: the highest player count", problems)
        _in_range(deck.decks, DECKS, f"{name}: decks", problems)
        _in_range(deck.jokers, JOKERS, f"{name}: jokers", problems)
        if ok and deck.min_players > deck.max_players:
            problems.append(f"{name}: players {deck.min_players} to {deck.max_players} is no range "
                            f"(the lowest comes first)")
        elif ok:
            for players in range(deck.min_players, deck.max_players + 1):
                if players in seats:
                    problems.append(f"decks entries {seats[players]} and {number} both cover "
                                    f"{_plural(players, 'player')}")
                    break
                seats[players] = number


def _check_rounds(rules: Rules, problems: list[str], run_length_ok: bool) -> bool:
    """Each round's deal, contract, go-out and buys; True when all are well formed."""
    rounds = rules.rounds
    low, high = ROUNDS
    if not isinstance(rounds, tuple) or not low <= len(rounds) <= high:
        problems.append(f"rounds must list {low} to {high} rounds")
        return False
    before = len(problems)
    for number, rule in enumerate(rounds, start=1):
        name = f"round {number}"
        if not _of_type(rule, RoundRule, name, problems):
            continue
        _in_range(rule.deal, DEAL, f"{name}: deal", problems)
        _of_type(rule.go_out, bool, f"{name}: go_out", problems)
        _in_range(rule.buys, BUYS, f"{name}: buys", problems, none="absent (the rule set's buys_per_round)")
        _in_range(rule.buy_penalty_cards, PENALTY_CARDS, f"{name}: buy_penalty_cards", problems,
                  none="absent (the rule set's buy_penalty_cards)")
        contract = rule.contract
        fewest, most = MELDS_PER_CONTRACT
        if not isinstance(contract, tuple) or not fewest <= len(contract) <= most:
            count = len(contract) if isinstance(contract, tuple) else _show(contract)
            problems.append(f"{name}: a contract has {fewest} to {most} melds, not {count}")
            continue
        for spec in contract:
            if not isinstance(spec, MeldSpec) or not isinstance(spec.kind, MeldKind):
                problems.append(f"{name}: contract entry {_show(spec)} is not a meld")
                continue
            smallest, largest = MELD_SIZES[spec.kind]
            limit = ""
            if spec.kind == MeldKind.RUN and run_length_ok:
                positions = len(rules.run_positions())
                if rules.max_run_length < min(largest, positions):
                    largest, limit = rules.max_run_length, " (at most max_run_length)"
                elif positions < largest:
                    largest, limit = positions, f" (runs have {positions} places under ace_low, ace_high and two_position_in_runs)"
            what = f"{name}: a {spec.kind.value}'s size"
            _in_range(spec.size, (smallest, largest), what + limit, problems)
    return len(problems) == before


def _check_reachable(rules: Rules, problems: list[str]) -> None:
    """A contract needs no more cards than the deal, the draw and every buy the round allows
    (with their penalty cards) can put in one hand."""
    for number, rule in enumerate(rules.rounds, start=1):
        needed = sum(spec.size for spec in rule.contract)
        buys = rules.buys_in(number)
        penalty = rules.buy_penalty_in(number)
        most_buys = MOST_BUYS_WHEN_UNLIMITED if buys is None else buys
        most = rule.deal + 1 + most_buys * (1 + penalty)
        if needed > most:
            bought = (f" and {_plural(most_buys, 'buy')} of {_plural(1 + penalty, 'card')}" if most_buys
                      else "")
            problems.append(f"round {number}: the contract {rule.describe_contract()} needs {needed} cards, "
                            f"but a hand holds at most {most} (the deal of {rule.deal}, the draw{bought})")


def _check_deal(rules: Rules, problems: list[str]) -> None:
    """Every deck entry can deal every round to its largest table (and turn up a discard)."""
    deal = max(rule.deal for rule in rules.rounds)
    for number, deck in enumerate(rules.decks, start=1):
        cards = deck.cards
        if deck.max_players * deal + 1 > cards:
            problems.append(f"decks entry {number}: {_plural(deck.decks, 'deck')} and "
                            f"{_plural(deck.jokers, 'joker')} ({cards} cards) cannot deal {deal} cards to "
                            f"{_plural(deck.max_players, 'player')}")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"


# ---- the contract grammar --------------------------------------------------------------

_MELD_LETTERS = {"S": MeldKind.SET, "R": MeldKind.RUN, "P": MeldKind.PAIR}
_CONTRACT_PART = re.compile(r"(\d*)([A-Z])(\d*)")
CONTRACT_HELP = "write it like 2S3+R4 (two sets of 3 and a run of 4; P2 is a pair)"


def parse_contract(text: str) -> tuple[MeldSpec, ...]:
    """``'2S3+R4'``: a set of 3, a set of 3, a run of 4; ``P2`` is a pair. Counts and sizes are
    whole numbers (``12R4`` is twelve runs of 4); a count is 1 to 9.

    >>> [spec.describe() for spec in parse_contract('2s3 + r4')]
    ['set of 3', 'set of 3', 'run of 4']
    >>> parse_contract('0S3')
    Traceback (most recent call last):
    ...
    analyzer.rules.RulesError: contract '0S3': a count of 0 melds; counts are 1 to 9
    """
    if not isinstance(text, str):
        raise RulesError(f"a contract is text such as '2S3+R4', not {_show(text)}")
    cleaned = "".join(text.split()).upper()
    if not cleaned:
        raise RulesError(f"the contract is empty; {CONTRACT_HELP}")
    melds: list[MeldSpec] = []
    for part in cleaned.split("+"):
        match = _CONTRACT_PART.fullmatch(part)
        if not part or match is None or match[2] not in _MELD_LETTERS or not match[3]:
            raise RulesError(f"contract {_show(text)}: {part!r} is not a meld; {CONTRACT_HELP}"
                             if part else f"contract {_show(text)} has an empty part; {CONTRACT_HELP}")
        count_text, letter, size_text = match.groups()
        if len(count_text) > 3 or len(size_text) > 3:
            raise RulesError(f"contract {_show(text)}: {part[:20]!r} has a number far too large")
        count = int(count_text) if count_text else 1
        fewest, most = MELDS_PER_CONTRACT
        if not fewest <= count <= most:
            raise RulesError(f"contract {_show(text)}: a count of {count} melds; counts are {fewest} to {most}")
        melds += [MeldSpec(_MELD_LETTERS[letter], int(size_text))] * count
        if len(melds) > most:
            raise RulesError(f"contract {_show(text)} has {len(melds)} melds or more; a contract has "
                             f"{fewest} to {most}")
    return tuple(melds)


# ---- presets ---------------------------------------------------------------------------


def _rounds(deals: list[int], contracts: str, go_out: tuple[int, ...] = ()) -> tuple[RoundRule, ...]:
    return tuple(
        RoundRule(deal, parse_contract(text), go_out=(number in go_out))
        for number, (deal, text) in enumerate(zip(deals, contracts.split(), strict=True), start=1)
    )


FACE_VALUE = Points(by_rank=(15, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10), joker=25, wild_deuce=25)
PROGRESSIVE_CONTRACTS = "2S3 S3+R4 2R4 3S3 2S3+R4 S3+2R4 3R4"
SHANGHAI_DECKS = (DeckRule(3, 5, 2, 4),)

_BASE = Rules(
    name="progressive",
    source="seed 000 (rummygames: Progressive Rummy)",
    decks=(DeckRule(2, 4, 2, 1), DeckRule(5, 8, 3, 2)),
    rounds=_rounds([6, 7, 8, 9, 10, 11, 12], PROGRESSIVE_CONTRACTS),
    points=FACE_VALUE,
    discard_to_go_out=DiscardToGoOut.OPTIONAL,
)

PRESETS: dict[str, Rules] = {
    "progressive": _BASE,
    "ill-buy-it": dataclasses.replace(
        _BASE,
        name="ill-buy-it",
        source="seed 002 (I'll Buy It); same-suit runs: the source is silent, no-touch assumed",
        decks=(DeckRule(3, 8, 3, 6),),
        rounds=_rounds(list(range(6, 14)), PROGRESSIVE_CONTRACTS + " 3S3+R4", go_out=(8,)),
        points=dataclasses.replace(FACE_VALUE, by_rank=(15,) + (5,) * 8 + (10,) * 4),
        discard_to_go_out=DiscardToGoOut.REQUIRED,
    ),
    "contract": dataclasses.replace(
        _BASE,
        name="contract",
        source="seeds 001 and 004 (Contract Rummy); 004's players-1 jokers is not used",
        decks=(DeckRule(3, 4, 2, 1), DeckRule(5, 8, 3, 2)),
        rounds=_rounds([10, 10, 10, 10, 12, 12, 12], PROGRESSIVE_CONTRACTS),
        discard_to_go_out=DiscardToGoOut.REQUIRED,
        joker_substitution=JokerSubstitution.RUNS,  # jokers in sets are dead
    ),
    "pagat": dataclasses.replace(
        _BASE,
        name="pagat",
        source="seed 003 (pagat: Contract Rummy, also Liverpool Rummy)",
        decks=tuple(DeckRule(n, n, 2, n - 1) for n in (3, 4, 5)),
        rounds=_rounds([10, 10, 10, 12, 12, 12, 12], PROGRESSIVE_CONTRACTS, go_out=(7,)),
        points=dataclasses.replace(FACE_VALUE, joker=15),
        discard_to_go_out=DiscardToGoOut.REQUIRED,
        no_consecutive_buys=True,
        joker_substitution=JokerSubstitution.RUNS,  # jokers in sets are dead
    ),
    "may-i": dataclasses.replace(
        _BASE,
        name="may-i",
        source="seed 003 (pagat: May I?)",
        decks=tuple(DeckRule(n, n, (n + 1) // 2, 2 * ((n + 1) // 2)) for n in range(2, 9)),
        rounds=_rounds([10, 10, 10, 12, 12, 12, 12], PROGRESSIVE_CONTRACTS),
        contract_mode=ContractMode.MINIMUM,
        same_suit_runs=SameSuitRuns.FREE,
        discard_to_go_out=DiscardToGoOut.REQUIRED,
        no_consecutive_buys=True,
        lay_off_same_turn=True,
    ),
    "shanghai": dataclasses.replace(
        _BASE,
        name="shanghai",
        source="seed 003 (pagat: Shanghai Rummy, Mark Allen Davis)",
        decks=SHANGHAI_DECKS,
        rounds=_rounds([11] * 7, PROGRESSIVE_CONTRACTS, go_out=(7,)),
        points=Points(by_rank=(20, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10), joker=50, wild_deuce=50),
        contract_mode=ContractMode.MINIMUM,
        ace_low=False,
        max_wilds_per_meld=1,
        distinct_set_ranks=True,
        discard_to_go_out=DiscardToGoOut.REQUIRED,
        buys_per_round=2,
        buy_penalty_cards=2,
        lay_off_same_turn=True,  # "may add cards the same turn"; its variants below alike
    ),
}
PRESETS["shanghai-powe"] = dataclasses.replace(
    PRESETS["shanghai"],
    name="shanghai-powe",
    source="seed 003 (pagat: Shanghai Rummy, Tahelia Powe's version)",
    rounds=_rounds([10] * 8, "2S3 S3+R4 2R4 3S3 2S3+R4 S3+2R4 4S3 3R4"),
    same_suit_runs=SameSuitRuns.DISTINCT_SUITS,
    discard_to_go_out=DiscardToGoOut.NEVER,
)
PRESETS["kolsov"] = dataclasses.replace(
    PRESETS["shanghai"],
    name="kolsov",
    source="seed 003 (pagat: Shanghai Rummy, Deb Kolsov's contracts)",
    rounds=_rounds(
        [11] * 10, "2S3 S3+R4 2R4 3S3 S3+R7 2S3+R5 3R4 S3+R10 3S3+R5 3R5", go_out=(10,)
    ),
)
PRESETS["eveleigh"] = dataclasses.replace(
    _BASE,
    name="eveleigh",
    source="seed 003 (pagat: Progressive Rummy, John Eveleigh); players not stated, 2-8 assumed",
    decks=(DeckRule(2, 8, 2, 4),),
    rounds=tuple(
        dataclasses.replace(rule, buys=buys, buy_penalty_cards=penalty)
        for rule, (buys, penalty) in zip(
            _rounds(
                [11] * 15,
                "2S3 S3+R4 2S4 2R4 2S3+R4 S4+R5 2S5 2R5 4S3 3R4 3S4 5R3 5S3 S5+R5+P2 2S3+R5",
            ),
            [(0, 0)] * 8 + [(1, 0)] * 3 + [(2, 1)] * 2 + [(1, 0), (0, 0)],
            strict=True,
        )
    ),
    points=Points(by_rank=(15, 20, 5, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10), joker=20, wild_deuce=20),
    contract_mode=ContractMode.MINIMUM,
    same_suit_runs=SameSuitRuns.FREE,
    deuces_wild=True,
    # "putting down all the cards in melds or by discarding one's last card"
    discard_to_go_out=DiscardToGoOut.OPTIONAL,
    lay_off_same_turn=True,  # "in the same or subsequent turns"
    joker_substitution=JokerSubstitution.NONE,  # "wild cards once melded cannot be moved"
)
ALIASES = {"liverpool": "pagat"}
# Each preset's usual name and one line on what sets it apart, for people (the web's menus and
# home page): the one home of the display names.
TITLES: dict[str, tuple[str, str]] = {
    "progressive": ("Progressive", "7 rounds from 6 to 12 cards, melds exactly the contract's sizes"),
    "ill-buy-it": ("I'll Buy It", "8 rounds from 6 to 13 cards, 6 jokers; the last round goes out"),
    "contract": ("Contract", "7 rounds of 10 and 12 cards, melds exactly the contract's sizes"),
    "pagat": ("Liverpool (pagat)", "7 rounds of 10 and 12 cards; the last round goes out, melding every card"),
    "may-i": ("May I?", "as Liverpool, but melds may be longer and same-suit runs are free"),
    "shanghai": ("Shanghai", "11 cards a round, ace high only, one wild card per meld, 2 buys a round"),
    "shanghai-powe": ("Shanghai (Powe)", "8 rounds of 10 cards, runs in distinct suits, no discard to go out"),
    "kolsov": ("Shanghai (Kolsov)", "10 rounds of 11 cards with long runs: S3+R7, S3+R10"),
    "eveleigh": ("Eveleigh", "15 rounds of 11 cards, 2s wild, buying only in rounds 9 to 14"),
}


def preset(name: str) -> Rules:
    """A preset by name or alias, any case; an unknown name gets the nearest known one."""
    key = ALIASES.get(name.lower(), name.lower())
    if key not in PRESETS:
        names = sorted(PRESETS) + sorted(ALIASES)
        near = difflib.get_close_matches(name.lower()[:40], names, n=1, cutoff=0.6)
        guess = f"did you mean {near[0]!r}? " if near else ""
        if not near and ("/" in name or os.path.lexists(name)):
            guess = "a rules file is named .toml; "  # a path, not a rule set's name
        raise RulesError(f"unknown rule set {_show(name)}; {guess}known rule sets: {', '.join(names)}")
    return PRESETS[key]


def preset_key(name: str) -> str:
    """The preset a name or alias stands for: ``liverpool`` -> ``pagat``."""
    return ALIASES.get(name.lower(), name.lower())


# ---- TOML rule files -------------------------------------------------------------------

_ENUM_FIELDS: dict[str, type[enum.Enum]] = {
    "contract_mode": ContractMode,
    "same_suit_runs": SameSuitRuns,
    "discard_to_go_out": DiscardToGoOut,
    "joker_substitution": JokerSubstitution,
}
_SIMPLE_FIELDS: dict[str, type] = {
    "name": str, "source": str, "ace_low": bool, "ace_high": bool, "max_run_length": int,
    "deuces_wild": bool, "deuces_always_wild": bool, "two_position_in_runs": bool,
    "wilds_may_outnumber_naturals": bool, "distinct_set_ranks": bool,
    "buy_penalty_cards": int, "no_consecutive_buys": bool,
    "lay_off_on_others": bool, "lay_off_same_turn": bool,
}
_OPTIONAL_INT_FIELDS = {"max_wilds_per_meld", "buys_per_round"}  # a number, or "any" for no limit
_RANK_KEYS = {"A": 0, "J": 10, "Q": 11, "K": 12, **{str(n): n - 1 for n in range(2, 11)}}
_KNOWN_FIELDS = sorted({"base", "points", "decks", "rounds", *_SIMPLE_FIELDS, *_ENUM_FIELDS, *_OPTIONAL_INT_FIELDS})
_ROUND_FIELDS = ("deal", "contract", "go_out", "buys", "buy_penalty_cards")
_DECK_FIELDS = ("players", "decks", "jokers")


MAX_RULES_FILE_BYTES = 64 * 1024  # a rules file is a few lines; refuse anything huge unread


def load_rules(name_or_path: str) -> Rules:
    """A preset by name, or a ``.toml`` file that starts from one (``base = "shanghai"``).
    The file is read as ``read_rules_file`` says: a regular file, never more than 64 KiB."""
    if not isinstance(name_or_path, str):
        raise TypeError(f"rules must be a rule set's name, a .toml file or a Rules value, "
                        f"not {type(name_or_path).__name__}")
    if not name_or_path.lower().endswith(".toml"):
        return check_rules(preset(name_or_path), name_or_path)
    data = parse_rules_text(read_rules_file(name_or_path), name_or_path)
    return rules_from_mapping(data, where=name_or_path)


def read_rules_file(name: str) -> str:
    """The text of a rules file: only a regular file, opened without waiting (a FIFO with no
    writer is refused, not waited on), refused unread when it is larger than the cap."""
    what = f"rules file {_show(name)}"
    descriptor = open_regular_file(name, what, RulesError, "give a .toml file")
    try:
        if os.fstat(descriptor).st_size > MAX_RULES_FILE_BYTES:
            raise RulesError(f"{what} is larger than {MAX_RULES_FILE_BYTES // 1024} KiB")
        raw = os.read(descriptor, MAX_RULES_FILE_BYTES + 1)
    except OSError as error:
        raise RulesError(f"{what} cannot be read: {error.strerror or error}") from None
    finally:
        os.close(descriptor)
    if len(raw) > MAX_RULES_FILE_BYTES:
        raise RulesError(f"{what} is larger than {MAX_RULES_FILE_BYTES // 1024} KiB")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RulesError(f"{what} is not text (UTF-8)") from None


def parse_rules_text(text: str, where: str = "rules") -> dict[str, Any]:
    """TOML text as a mapping; every way it is not TOML is a ``RulesError``."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"{where} is not valid TOML: {error}") from None
    except RecursionError:
        raise RulesError(f"{where} is nested too deeply to be a rules file") from None
    except ValueError:  # e.g. an integer of thousands of digits
        raise RulesError(f"{where} holds a number far too large for a rules file") from None


def rules_from_mapping(data: Mapping[str, Any], where: str = "rules") -> Rules:
    """Apply overrides to a base preset; every unknown field or bad value is a ``RulesError``
    that names it (and its round), and the result passes ``check_rules``."""
    if not isinstance(data, Mapping):
        raise RulesError(f"{where}: rules are a table of fields (base, name, rounds...), not {_show(data)}")
    data = dict(data)
    bad_keys = [key for key in data if not isinstance(key, str)]
    if bad_keys:
        raise RulesError(f"{where}: field names are text, not {_show(bad_keys[0])}")
    base_name = data.pop("base", "progressive")
    if not isinstance(base_name, str):
        raise RulesError(f"{where}: base must be a rule set's name such as \"shanghai\", not {_show(base_name)}")
    base = preset(base_name)
    changes: dict[str, Any] = {"name": f"{base.name}+{Path(where).stem}"}
    problems: list[str] = []
    for key, value in data.items():
        if key in _SIMPLE_FIELDS:
            changes[key] = _expect(value, _SIMPLE_FIELDS[key], key, where)
        elif key in _ENUM_FIELDS:
            enum_type = _ENUM_FIELDS[key]
            choices = [member.value for member in enum_type]
            if not isinstance(value, str) or value not in choices:
                raise RulesError(f"{where}: {key} must be one of {', '.join(choices)}, not {_show(value)}")
            changes[key] = enum_type(value)
        elif key in _OPTIONAL_INT_FIELDS:
            changes[key] = None if value == "any" else _expect(value, int, key, where, also='or "any"')
        elif key == "points":
            changes[key] = _points(value, base.points, where)
        elif key == "decks":
            changes[key] = _decks(value, where)
        elif key == "rounds":
            changes[key] = _round_rules(value, where)
        else:
            problems.append(f"unknown field {key[:40]!r}")
    if problems:
        raise RulesError(f"{where}: {'; '.join(problems)}; known fields: {', '.join(_KNOWN_FIELDS)}")
    return check_rules(dataclasses.replace(base, **changes), where)


def rules_from_dict(data: Any, where: str = "rules") -> Rules:
    """The rule set ``Rules.to_dict`` wrote (every field, as a game record keeps a rule set that
    is no preset); a ``RulesError`` naming ``where`` for anything else. It passes ``check_rules``."""
    if not isinstance(data, Mapping):
        raise RulesError(f"{where}: a rule set is an object of its fields, not {_show(data)}")
    known = {f.name for f in dataclasses.fields(Rules)}
    unknown = sorted(str(key)[:40] for key in data if key not in known)
    if unknown:
        raise RulesError(f"{where}: unknown field {unknown[0]!r}")
    fields = dict(data)
    try:
        fields["decks"] = tuple(DeckRule(**deck) for deck in data["decks"])
        fields["rounds"] = tuple(
            RoundRule(rule["deal"], tuple(MeldSpec(MeldKind(spec["kind"]), spec["size"]) for spec in rule["contract"]),
                      rule["go_out"], rule["buys"], rule["buy_penalty_cards"])
            for rule in data["rounds"])
        points = data["points"]
        fields["points"] = Points(tuple(points["by_rank"]), points["joker"], points["wild_deuce"])
        for key, enum_type in _ENUM_FIELDS.items():
            if key in fields:
                fields[key] = enum_type(fields[key])
        rules = Rules(**fields)
    except KeyError as error:
        raise RulesError(f"{where}: missing field {error}") from None
    except (TypeError, ValueError, AttributeError) as error:
        raise RulesError(f"{where}: not a rule set's fields ({error})") from None
    return check_rules(rules, where)


def _expect(value: Any, kind: type, key: str, where: str, also: str = "") -> Any:
    """``value`` if it is of ``kind`` (whole numbers are never true/false); numbers in range are
    left to ``check_rules``."""
    if kind is int and not _whole(value):
        raise RulesError(f"{where}: {key} must be a whole number{' ' + also if also else ''}, not {_show(value)}")
    if not isinstance(value, kind):
        raise RulesError(f"{where}: {key} must be {'true or false' if kind is bool else 'text'}, not {_show(value)}")
    return value


def _points(value: Any, base: Points, where: str) -> Points:
    if not isinstance(value, Mapping):
        raise RulesError(f"{where}: points must be a table such as {{ A = 15, joker = 25 }}, not {_show(value)}")
    by_rank = list(base.by_rank)
    joker, deuce = base.joker, base.wild_deuce
    for key, amount in value.items():
        amount = _expect(amount, int, f"points.{str(key)[:20]}", where)
        if str(key).upper() in _RANK_KEYS:
            by_rank[_RANK_KEYS[str(key).upper()]] = amount
        elif key == "joker":
            joker = amount
        elif key == "wild_deuce":
            deuce = amount
        else:
            raise RulesError(f"{where}: unknown card {_show(key)} in points "
                             f"(use A, 2..10, J, Q, K, joker, wild_deuce)")
    return Points(tuple(by_rank), joker, deuce)


def _decks(value: Any, where: str) -> tuple[DeckRule, ...]:
    sample = "[{ players = [3, 5], decks = 2, jokers = 4 }]"
    if not isinstance(value, list) or not value:
        raise RulesError(f"{where}: decks must be a list such as {sample}")
    if len(value) > PLAYERS[1]:
        raise RulesError(f"{where}: decks has {len(value)} entries; at most {PLAYERS[1]}, one per player count")
    rules = []
    for number, entry in enumerate(value, start=1):
        name = f"decks entry {number}"
        if not isinstance(entry, Mapping):
            raise RulesError(f"{where}: {name} must be a table such as {sample[1:-1]}, not {_show(entry)}")
        unknown = [key for key in entry if key not in _DECK_FIELDS]
        missing = [key for key in _DECK_FIELDS if key not in entry]
        if unknown or missing:
            said = ([f"unknown key {_show(unknown[0])}"] if unknown else []) + (
                [f"missing {', '.join(missing)}"] if missing else [])
            raise RulesError(f"{where}: {name}: {'; '.join(said)} (an entry has players, decks and jokers)")
        players = entry["players"]
        if _whole(players):
            players = [players, players]
        if not (isinstance(players, list) and len(players) == 2 and all(_whole(p) for p in players)):
            raise RulesError(f"{where}: {name}: players must be a number or [lowest, highest], not {_show(players)}")
        rules.append(DeckRule(players[0], players[1], _expect(entry["decks"], int, f"{name}: decks", where),
                              _expect(entry["jokers"], int, f"{name}: jokers", where)))
    return tuple(rules)


def _round_rules(value: Any, where: str) -> tuple[RoundRule, ...]:
    if not isinstance(value, list) or not value:
        raise RulesError(f"{where}: rounds must be a list such as [{{ deal = 7, contract = \"S3+R4\" }}]")
    if len(value) > ROUNDS[1]:
        raise RulesError(f"{where}: rounds has {len(value)} rounds; at most {ROUNDS[1]}")
    rounds = []
    for number, entry in enumerate(value, start=1):
        name = f"round {number}"
        if not isinstance(entry, Mapping):
            raise RulesError(f"{where}: {name} must be a table such as {{ deal = 7, contract = \"S3+R4\" }}, "
                             f"not {_show(entry)}")
        unknown = [key for key in entry if key not in _ROUND_FIELDS]
        if unknown:
            raise RulesError(f"{where}: {name}: unknown key {_show(unknown[0])}; a round has "
                             f"{', '.join(_ROUND_FIELDS)}")
        missing = [key for key in ("deal", "contract") if key not in entry]
        if missing:
            raise RulesError(f"{where}: {name}: missing {' and '.join(missing)}")
        try:
            contract = parse_contract(entry["contract"])
        except RulesError as error:
            raise RulesError(f"{where}: {name}: {error}") from None
        optional = {key: entry.get(key) for key in ("buys", "buy_penalty_cards")}
        for key, amount in optional.items():
            if amount is not None:
                _expect(amount, int, f"{name}: {key}", where)
        rounds.append(RoundRule(
            deal=_expect(entry["deal"], int, f"{name}: deal", where),
            contract=contract,
            go_out=_expect(entry.get("go_out", False), bool, f"{name}: go_out", where),
            buys=optional["buys"],
            buy_penalty_cards=optional["buy_penalty_cards"],
        ))
    return tuple(rounds)


def _to_plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_to_plain(item) for item in value]
    return value
