"""Rule sets: every dimension RULES.md describes, as data.

A ``Rules`` value holds decks by number of players, the rounds (deal size, contract, go-out),
how melds may be formed and how cards score. The presets of RULES.md §7 live in ``PRESETS``;
a TOML file names a preset to start from and overrides fields (``load_rules``).
Nothing else in the project branches on a preset's name.
"""

from __future__ import annotations

import dataclasses
import enum
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from analyzer.cards import Card, Rank


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
    DISTINCT_SUITS = "distinct-suits"  # at most one run per suit
    FREE = "free"


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
        noun = {MeldKind.SET: "set", MeldKind.RUN: "run", MeldKind.PAIR: "pair"}[self.kind]
        return f"{noun} of {self.size}"


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
            parts.append(f"{count} {noun} of {spec.size}")
        return " + ".join(parts)


@dataclass(frozen=True)
class DeckRule:
    """The cards in play for a range of player counts."""

    min_players: int
    max_players: int
    decks: int  # standard 52-card decks shuffled together
    jokers: int


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
    max_wilds_per_meld: int | None = None  # None: any number
    wilds_may_outnumber_naturals: bool = True
    distinct_set_ranks: bool = False  # no two sets of one rank in a contract
    discard_to_go_out: str = "required"  # "required", "optional" or "never"
    buys_per_round: int | None = None  # None: unlimited
    buy_penalty_cards: int = 1
    no_consecutive_buys: bool = False  # not the same player twice in succession

    # ---- derived facts -------------------------------------------------------------------

    def round(self, number: int) -> RoundRule:
        if not 1 <= number <= len(self.rounds):
            raise RulesError(
                f"round {number} does not exist in {self.name!r}: it has rounds 1 to {len(self.rounds)}"
            )
        return self.rounds[number - 1]

    def deck_for(self, players: int | None) -> DeckRule:
        """The deck for that many players; with ``None``, the largest deck the rule set uses."""
        if players is None:
            return DeckRule(
                min(d.min_players for d in self.decks),
                max(d.max_players for d in self.decks),
                max(d.decks for d in self.decks),
                max(d.jokers for d in self.decks),
            )
        for deck in self.decks:
            if deck.min_players <= players <= deck.max_players:
                return deck
        low = min(d.min_players for d in self.decks)
        high = max(d.max_players for d in self.decks)
        raise RulesError(f"{self.name!r} is for {low} to {high} players, not {players}")

    def is_wild(self, card: Card) -> bool:
        return card.is_joker or (self.deuces_wild and card.rank == Rank.TWO)

    def points_of(self, card: Card) -> int:
        return self.points.of(card, self.deuces_wild)

    def buys_in(self, round_number: int) -> int | None:
        """Buys allowed in a round (None: unlimited)."""
        rule = self.round(round_number)
        return self.buys_per_round if rule.buys is None else rule.buys

    def buy_penalty_in(self, round_number: int) -> int:
        rule = self.round(round_number)
        return self.buy_penalty_cards if rule.buy_penalty_cards is None else rule.buy_penalty_cards

    def to_dict(self) -> dict[str, Any]:
        return _to_plain(self)


# ---- presets ---------------------------------------------------------------------------


def _contract(text: str) -> tuple[MeldSpec, ...]:
    """``'2S3+R4'`` -> set of 3, set of 3, run of 4; ``P2`` is a pair."""
    kinds = {"S": MeldKind.SET, "R": MeldKind.RUN, "P": MeldKind.PAIR}
    melds: list[MeldSpec] = []
    for part in text.split("+"):
        count = 1
        while part[0].isdigit():
            count, part = int(part[0]), part[1:]
        melds += [MeldSpec(kinds[part[0]], int(part[1:]))] * count
    return tuple(melds)


def _rounds(deals: list[int], contracts: str, go_out: tuple[int, ...] = ()) -> tuple[RoundRule, ...]:
    return tuple(
        RoundRule(deal, _contract(text), go_out=(number in go_out))
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
    discard_to_go_out="optional",
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
        discard_to_go_out="required",
    ),
    "contract": dataclasses.replace(
        _BASE,
        name="contract",
        source="seeds 001 and 004 (Contract Rummy); 004's players-1 jokers is not used",
        decks=(DeckRule(3, 4, 2, 1), DeckRule(5, 8, 3, 2)),
        rounds=_rounds([10, 10, 10, 10, 12, 12, 12], PROGRESSIVE_CONTRACTS),
        discard_to_go_out="required",
    ),
    "pagat": dataclasses.replace(
        _BASE,
        name="pagat",
        source="seed 003 (pagat: Contract Rummy, also Liverpool Rummy)",
        decks=tuple(DeckRule(n, n, 2, n - 1) for n in (3, 4, 5)),
        rounds=_rounds([10, 10, 10, 12, 12, 12, 12], PROGRESSIVE_CONTRACTS, go_out=(7,)),
        points=dataclasses.replace(FACE_VALUE, joker=15),
        discard_to_go_out="required",
        no_consecutive_buys=True,
    ),
    "may-i": dataclasses.replace(
        _BASE,
        name="may-i",
        source="seed 003 (pagat: May I?)",
        decks=tuple(DeckRule(n, n, (n + 1) // 2, 2 * ((n + 1) // 2)) for n in range(2, 9)),
        rounds=_rounds([10, 10, 10, 12, 12, 12, 12], PROGRESSIVE_CONTRACTS),
        contract_mode=ContractMode.MINIMUM,
        same_suit_runs=SameSuitRuns.FREE,
        discard_to_go_out="required",
        no_consecutive_buys=True,
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
        discard_to_go_out="required",
        buys_per_round=2,
        buy_penalty_cards=2,
    ),
}
PRESETS["shanghai-powe"] = dataclasses.replace(
    PRESETS["shanghai"],
    name="shanghai-powe",
    source="seed 003 (pagat: Shanghai Rummy, Tahelia Powe's version)",
    rounds=_rounds([10] * 8, "2S3 S3+R4 2R4 3S3 2S3+R4 S3+2R4 4S3 3R4"),
    same_suit_runs=SameSuitRuns.DISTINCT_SUITS,
    discard_to_go_out="never",
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
    discard_to_go_out="required",
)
ALIASES = {"liverpool": "pagat"}


def preset(name: str) -> Rules:
    key = ALIASES.get(name.lower(), name.lower())
    if key not in PRESETS:
        known = ", ".join(sorted(PRESETS) + sorted(ALIASES))
        raise RulesError(f"unknown rule set {name!r}; known rule sets: {known}")
    return PRESETS[key]


# ---- TOML rule files -------------------------------------------------------------------

_ENUM_FIELDS: dict[str, type[enum.Enum]] = {
    "contract_mode": ContractMode,
    "same_suit_runs": SameSuitRuns,
}
_SIMPLE_FIELDS: dict[str, type] = {
    "name": str, "source": str, "ace_low": bool, "ace_high": bool, "max_run_length": int,
    "deuces_wild": bool, "wilds_may_outnumber_naturals": bool, "distinct_set_ranks": bool,
    "discard_to_go_out": str, "buy_penalty_cards": int, "no_consecutive_buys": bool,
}
_OPTIONAL_INT_FIELDS = {"max_wilds_per_meld", "buys_per_round"}  # a number, or "any" for no limit
_RANK_KEYS = {"A": 0, "J": 10, "Q": 11, "K": 12, **{str(n): n - 1 for n in range(2, 11)}}


MAX_RULES_FILE_BYTES = 64 * 1024  # a rules file is a few lines; refuse anything huge unread


def load_rules(name_or_path: str) -> Rules:
    """A preset by name, or a ``.toml`` file that starts from one (``base = "shanghai"``)."""
    if not name_or_path.lower().endswith(".toml"):
        return preset(name_or_path)
    path = Path(name_or_path)
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_RULES_FILE_BYTES + 1)
        if len(raw) > MAX_RULES_FILE_BYTES:
            raise RulesError(f"rules file {name_or_path!r} is larger than {MAX_RULES_FILE_BYTES // 1024} KiB")
        data = tomllib.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise RulesError(f"rules file {name_or_path!r} not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise RulesError(f"rules file {name_or_path!r} cannot be read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"rules file {name_or_path!r} is not valid TOML: {error}") from None
    except RecursionError:
        raise RulesError(f"rules file {name_or_path!r} is nested too deeply to be a rules file") from None
    return rules_from_mapping(data, where=name_or_path)


def rules_from_mapping(data: Mapping[str, Any], where: str = "rules") -> Rules:
    """Apply overrides to a base preset; every unknown field or bad value is an error."""
    data = dict(data)
    base = preset(_expect(data.pop("base", "progressive"), str, "base", where))
    changes: dict[str, Any] = {"name": f"{base.name}+{Path(where).stem}"}
    for key, value in data.items():
        if key in _SIMPLE_FIELDS:
            changes[key] = _expect(value, _SIMPLE_FIELDS[key], key, where)
        elif key in _ENUM_FIELDS:
            enum_type = _ENUM_FIELDS[key]
            choices = [member.value for member in enum_type]  # type: ignore[attr-defined]
            if value not in choices:
                raise RulesError(f"{where}: {key} must be one of {choices}, not {value!r}")
            changes[key] = enum_type(value)
        elif key in _OPTIONAL_INT_FIELDS:
            if value == "any":
                changes[key] = None
            else:
                changes[key] = _expect(value, int, key, where)
        elif key == "points":
            changes[key] = _points(value, base.points, where)
        elif key == "decks":
            changes[key] = _decks(value, where)
        elif key == "rounds":
            changes[key] = _round_rules(value, where)
        else:
            known = sorted({"base", "points", "decks", "rounds", *_SIMPLE_FIELDS, *_ENUM_FIELDS,
                            *_OPTIONAL_INT_FIELDS})
            raise RulesError(f"{where}: unknown field {key!r}; known fields: {', '.join(known)}")
    rules = dataclasses.replace(base, **changes)
    _check(rules, where)
    return rules


def _expect(value: Any, kind: type, key: str, where: str) -> Any:
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise RulesError(f"{where}: {key} must be a whole number, not {value!r}")
    if not isinstance(value, kind):
        raise RulesError(f"{where}: {key} must be {'true or false' if kind is bool else 'text'}, not {value!r}")
    return value


def _points(value: Any, base: Points, where: str) -> Points:
    if not isinstance(value, dict):
        raise RulesError(f"{where}: points must be a table such as {{ A = 15, joker = 25 }}")
    by_rank = list(base.by_rank)
    joker, deuce = base.joker, base.wild_deuce
    for key, amount in value.items():
        amount = _expect(amount, int, f"points.{key}", where)
        if str(key).upper() in _RANK_KEYS:
            by_rank[_RANK_KEYS[str(key).upper()]] = amount
        elif key == "joker":
            joker = amount
        elif key == "wild_deuce":
            deuce = amount
        else:
            raise RulesError(f"{where}: unknown card {key!r} in points (use A, 2..10, J, Q, K, joker, wild_deuce)")
    return Points(tuple(by_rank), joker, deuce)


def _decks(value: Any, where: str) -> tuple[DeckRule, ...]:
    if not isinstance(value, list) or not value:
        raise RulesError(f"{where}: decks must be a list such as [{{ players = [3, 5], decks = 2, jokers = 4 }}]")
    rules = []
    for entry in value:
        if not isinstance(entry, dict) or set(entry) != {"players", "decks", "jokers"}:
            raise RulesError(f"{where}: each entry of decks needs exactly players, decks and jokers")
        players = entry["players"]
        if isinstance(players, int) and not isinstance(players, bool):
            players = [players, players]
        if not (isinstance(players, list) and len(players) == 2 and all(isinstance(p, int) for p in players)):
            raise RulesError(f"{where}: decks.players must be a number or [lowest, highest], not {players!r}")
        rules.append(DeckRule(players[0], players[1], _expect(entry["decks"], int, "decks.decks", where),
                              _expect(entry["jokers"], int, "decks.jokers", where)))
    return tuple(rules)


def _round_rules(value: Any, where: str) -> tuple[RoundRule, ...]:
    if not isinstance(value, list) or not value:
        raise RulesError(f"{where}: rounds must be a list such as [{{ deal = 7, contract = \"S3+R4\" }}]")
    known = {"deal", "contract", "go_out", "buys", "buy_penalty_cards"}
    rounds = []
    for number, entry in enumerate(value, start=1):
        if not isinstance(entry, dict) or not {"deal", "contract"} <= set(entry) or set(entry) - known:
            raise RulesError(f"{where}: round {number} needs deal and contract (and may have go_out, buys, buy_penalty_cards)")
        text = _expect(entry["contract"], str, f"rounds[{number}].contract", where)
        try:
            contract = _contract(text.replace(" ", "").upper())
        except (KeyError, ValueError, IndexError):
            raise RulesError(f"{where}: round {number}: contract {text!r} is not like '2S3+R4'") from None
        rounds.append(RoundRule(
            deal=_expect(entry["deal"], int, f"rounds[{number}].deal", where),
            contract=contract,
            go_out=_expect(entry.get("go_out", False), bool, f"rounds[{number}].go_out", where),
            buys=entry.get("buys"),
            buy_penalty_cards=entry.get("buy_penalty_cards"),
        ))
    return tuple(rounds)


def _check(rules: Rules, where: str) -> None:
    problems = []
    if not (rules.ace_low or rules.ace_high):
        problems.append("the ace must be low, high or both")
    if not 3 <= rules.max_run_length <= 14:
        problems.append("max_run_length must be 3 to 14")
    if rules.max_wilds_per_meld is not None and rules.max_wilds_per_meld < 0:
        problems.append("max_wilds_per_meld cannot be negative")
    if rules.discard_to_go_out not in ("required", "optional", "never"):
        problems.append("discard_to_go_out must be required, optional or never")
    for deck in rules.decks:
        if deck.decks < 1 or deck.jokers < 0 or deck.min_players > deck.max_players:
            problems.append(f"deck entry {deck} is impossible")
    for number, rule in enumerate(rules.rounds, start=1):
        for spec in rule.contract:
            low = {MeldKind.SET: 3, MeldKind.RUN: 3, MeldKind.PAIR: 2}[spec.kind]
            high = rules.max_run_length if spec.kind == MeldKind.RUN else 60
            if not low <= spec.size <= high:
                problems.append(f"round {number}: a {spec.kind.value} of {spec.size} is not possible")
        if rule.deal < 1:
            problems.append(f"round {number}: deal must be at least 1")
    if problems:
        raise RulesError(f"{where}: " + "; ".join(problems))


def _to_plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_to_plain(item) for item in value]
    return value
