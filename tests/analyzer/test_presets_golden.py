"""Every preset against RULES.md §6-7, written out by hand from the tables there.

Nothing here is read from ``analyzer.rules``: the expectations below are RULES.md transcribed
(the "players, decks", "rounds: cards dealt", "contracts in order", "lay-down", "same-suit
runs", "ace", "wilds" and "final round" columns of §7, the points of §6 and the buying
paragraph after §7), so a wrong number in a preset fails here even though the solver, the
reference and the validator all read the same wrong ``Rules``. ``tests/analyzer/test_cli.py`` holds
``analyze --list-rules`` to the same table (``GOLDEN`` is shared).

Where RULES.md is silent the choice is the one README.md documents, and says so in a comment.
A case where RULES.md and the code disagree is marked ``xfail(strict=True)`` in ``DISAGREE``
with the reason, and left to the lead.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from typing import Any

import pytest

from analyzer import analyze
from analyzer.cards import JOKER, Card, Rank, Suit
from analyzer.rules import ALIASES, PRESETS, RulesError, preset

# ---- RULES.md, by hand ------------------------------------------------------------------------


def contract(text: str, set_size: int = 3, run_size: int = 4) -> tuple[tuple[str, int], ...]:
    """RULES.md's notation, read independently of ``parse_contract``: ``1S+2R`` (sizes from
    the lay-down column: set 3, run 4), ``2S3+R5`` (sizes given), ``pair`` (two cards)."""
    melds: list[tuple[str, int]] = []
    for part in text.split("+"):
        if part == "pair":
            melds.append(("pair", 2))
            continue
        match = re.fullmatch(r"(\d?)([SR])(\d*)", part)
        assert match, part
        count = int(match[1] or 1)
        kind = "set" if match[2] == "S" else "run"
        size = int(match[3]) if match[3] else (set_size if kind == "set" else run_size)
        melds += [(kind, size)] * count
    return tuple(melds)


def contracts(table_cell: str) -> list[tuple[tuple[str, int], ...]]:
    return [contract(part.strip()) for part in table_cell.split(";")]


PROGRESSIVE_CONTRACTS = contracts("2S; 1S+1R; 2R; 3S; 2S+1R; 1S+2R; 3R")

# §6: points by rank A, 2, ..., 10, J, Q, K (index = rank - 1), the joker, a wild 2 (None: "–").
FACE = (15, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)

GOLDEN: dict[str, dict[str, Any]] = {
    "progressive": dict(
        source="000",
        decks={**{n: (2, 1) for n in (2, 3, 4)}, **{n: (3, 2) for n in (5, 6, 7, 8)}},  # "5+": 5-8 (README)
        not_for=(1,),
        deals=[6, 7, 8, 9, 10, 11, 12],
        contracts=PROGRESSIVE_CONTRACTS,
        go_out=[],
        points=FACE, joker=25, wild_two=None,
        mode="exact", same_suit="no-touch", ace_low=True, ace_high=True,
        deuces_wild=False, wilds_per_meld=None, distinct_set_ranks=False,
        discard_to_go_out="optional",  # "discard optional when going out"
        buys=[None] * 7, penalty=[1] * 7, no_consecutive=False,
    ),
    "ill-buy-it": dict(
        source="002",
        decks={n: (3, 6) for n in range(3, 9)},
        not_for=(2, 9),
        deals=list(range(6, 14)),
        contracts=PROGRESSIVE_CONTRACTS + contracts("3S+1R"),
        go_out=[8],
        points=(15,) + (5,) * 8 + (10,) * 4, joker=25, wild_two=None,
        mode="exact", same_suit="no-touch", ace_low=True, ace_high=True,
        deuces_wild=False, wilds_per_meld=None, distinct_set_ranks=False,
        discard_to_go_out="required",  # "normal"
        buys=[None] * 8, penalty=[1] * 8, no_consecutive=False,
    ),
    "contract": dict(
        source="001",
        decks={3: (2, 1), 4: (2, 1), **{n: (3, 2) for n in (5, 6, 7, 8)}},
        not_for=(2,),
        deals=[10, 10, 10, 10, 12, 12, 12],
        contracts=PROGRESSIVE_CONTRACTS,
        go_out=[],
        points=FACE, joker=25, wild_two=25,  # "25 if deuces wild" (an option, off by default)
        mode="exact", same_suit="no-touch", ace_low=True, ace_high=True,
        deuces_wild=False, wilds_per_meld=None, distinct_set_ranks=False,
        discard_to_go_out="required",
        buys=[None] * 7, penalty=[1] * 7, no_consecutive=False,
    ),
    "pagat": dict(
        source="003",
        decks={3: (2, 2), 4: (2, 3), 5: (2, 4)},  # 2 decks + (players - 1) jokers
        not_for=(2, 6),
        deals=[10, 10, 10, 12, 12, 12, 12],
        contracts=PROGRESSIVE_CONTRACTS,
        go_out=[7],
        points=FACE, joker=15, wild_two=None,
        mode="exact", same_suit="no-touch", ace_low=True, ace_high=True,
        deuces_wild=False, wilds_per_meld=None, distinct_set_ranks=False,
        discard_to_go_out="required",
        buys=[None] * 7, penalty=[1] * 7, no_consecutive=True,
    ),
    "may-i": dict(
        source="003",
        # one deck per 2 players, both jokers each; RULES.md gives no player range (README: 2-8)
        decks={n: ((n + 1) // 2, 2 * ((n + 1) // 2)) for n in range(2, 9)},
        not_for=(),
        deals=[10, 10, 10, 12, 12, 12, 12],
        contracts=PROGRESSIVE_CONTRACTS,
        go_out=[],
        points=FACE, joker=25, wild_two=None,
        mode="minimum", same_suit="free", ace_low=True, ace_high=True,
        deuces_wild=False, wilds_per_meld=None, distinct_set_ranks=False,
        discard_to_go_out="required",
        buys=[None] * 7, penalty=[1] * 7, no_consecutive=True,
    ),
    "shanghai": dict(
        source="003",
        decks={n: (2, 4) for n in (3, 4, 5)},
        not_for=(2, 6),
        deals=[11] * 7,
        contracts=PROGRESSIVE_CONTRACTS,
        go_out=[7],
        points=(20, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10), joker=50, wild_two=None,
        mode="minimum", same_suit="no-touch", ace_low=False, ace_high=True,
        deuces_wild=False, wilds_per_meld=1, distinct_set_ranks=True,
        discard_to_go_out="required",
        buys=[2] * 7, penalty=[2] * 7, no_consecutive=False,
    ),
    "shanghai-powe": dict(
        source="003",
        decks={n: (2, 4) for n in (3, 4, 5)},
        not_for=(2, 6),
        deals=[10] * 8,
        contracts=contracts("2S; 1S+1R; 2R; 3S; 2S+1R; 1S+2R; 4S; 3R"),
        # "every round: go out without a discard": read, as README does, as never a discard
        # to go out, not as eight rounds of melding every card at once.
        go_out=[],
        points=(20, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10), joker=50, wild_two=None,
        mode="minimum", same_suit="distinct-suits", ace_low=False, ace_high=True,
        deuces_wild=False, wilds_per_meld=1, distinct_set_ranks=True,
        discard_to_go_out="never",
        buys=[2] * 8, penalty=[2] * 8, no_consecutive=False,
    ),
    "kolsov": dict(
        source="003",
        decks={n: (2, 4) for n in (3, 4, 5)},
        not_for=(2, 6),
        deals=[11] * 10,
        contracts=contracts("2S3; S3+R4; 2R4; 3S3; S3+R7; 2S3+R5; 3R4; S3+R10; 3S3+R5; 3R5"),
        go_out=[10],
        points=(20, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10), joker=50, wild_two=None,
        mode="minimum", same_suit="no-touch", ace_low=False, ace_high=True,
        deuces_wild=False, wilds_per_meld=1, distinct_set_ranks=True,
        discard_to_go_out="required",
        buys=[2] * 10, penalty=[2] * 10, no_consecutive=False,
    ),
    "eveleigh": dict(
        source="003",
        decks={n: (2, 4) for n in range(2, 9)},  # players not stated (README: 2-8)
        not_for=(),
        deals=[11] * 15,
        contracts=contracts("2S3; S3+R4; 2S4; 2R4; 2S3+R4; S4+R5; 2S5; 2R5; 4S3; 3R4; 3S4; 5R3; 5S3; "
                            "S5+R5+pair; 2S3+R5"),
        go_out=[],
        points=(15, 20, 5, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10), joker=20, wild_two=20,
        mode="minimum", same_suit="free", ace_low=True, ace_high=True,
        deuces_wild=True, wilds_per_meld=None, distinct_set_ranks=False,
        # "putting down all the cards in melds or by discarding one's last card"
        discard_to_go_out="optional",
        # only rounds 9-14: once, twice in 12 and 13 with one extra blind card (the others
        # without one, as README's --list-rules shows)
        buys=[0] * 8 + [1, 1, 1, 2, 2, 1, 0], penalty=[0] * 11 + [1, 1, 0, 0], no_consecutive=False,
    ),
}

# (preset, aspect) -> why RULES.md and the code disagree. The lead decides; the test stays
# written from RULES.md and is expected to fail until then.
DISAGREE: dict[tuple[str, str], str] = {}

ASPECTS = ["source", "decks", "deals", "contracts", "go_out", "points", "mode", "same_suit", "ace",
           "wilds", "going_out", "buying"]


def case(name: str, aspect: str) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=DISAGREE[name, aspect])] if (name, aspect) in DISAGREE else []
    return pytest.param(name, aspect, marks=marks, id=f"{name}-{aspect}")


# ---- the checks -------------------------------------------------------------------------------------


def test_the_presets_are_the_nine_of_rules_md() -> None:
    assert sorted(PRESETS) == sorted(GOLDEN)
    assert ALIASES == {"liverpool": "pagat"}
    assert preset("liverpool") is preset("pagat") and preset("LIVERPOOL") is preset("pagat")
    assert inspect.signature(analyze).parameters["rules"].default == "progressive"


@pytest.mark.parametrize(("name", "aspect"), [case(name, aspect) for name in GOLDEN for aspect in ASPECTS])
def test_preset_follows_rules_md(name: str, aspect: str) -> None:
    rules, want = preset(name), GOLDEN[name]
    rounds = range(1, len(want["deals"]) + 1)
    if aspect == "source":
        assert f"seed {want['source']}" in rules.source or f"seeds {want['source']}" in rules.source
    elif aspect == "decks":
        for players, (decks, jokers) in want["decks"].items():
            deck = rules.deck_for(players)
            assert (deck.decks, deck.jokers) == (decks, jokers), players
        for players in want["not_for"]:
            with pytest.raises(RulesError):
                rules.deck_for(players)
        largest = rules.deck_for(None)
        assert (largest.decks, largest.jokers) == max(want["decks"].values())
    elif aspect == "deals":
        assert len(rules.rounds) == len(want["deals"])
        assert [rules.round(n).deal for n in rounds] == want["deals"]
    elif aspect == "contracts":
        got = [tuple(sorted((s.kind.value, s.size) for s in rules.round(n).contract)) for n in rounds]
        assert got == [tuple(sorted(c)) for c in want["contracts"]]
    elif aspect == "go_out":
        assert [n for n in rounds if rules.round(n).go_out] == want["go_out"]
    elif aspect == "points":
        for rank in Rank:
            for suit in Suit:
                if rank == Rank.TWO and rules.deuces_wild:
                    continue
                assert rules.points_of(Card(rank, suit)) == want["points"][rank - 1], (rank, suit)
        assert rules.points_of(JOKER) == want["joker"]
        deuces = dataclasses.replace(rules, deuces_wild=True)
        if want["wild_two"] is not None:
            assert deuces.points_of(Card(Rank.TWO, Suit.CLUBS)) == want["wild_two"]
    elif aspect == "mode":
        assert rules.contract_mode.value == want["mode"]
        assert rules.max_run_length == 14
    elif aspect == "same_suit":
        assert rules.same_suit_runs.value == want["same_suit"]
    elif aspect == "ace":
        assert (rules.ace_low, rules.ace_high) == (want["ace_low"], want["ace_high"])
    elif aspect == "wilds":
        assert rules.is_wild(JOKER)
        assert rules.deuces_wild == want["deuces_wild"]
        assert all(rules.is_wild(Card(Rank.TWO, suit)) == want["deuces_wild"] for suit in Suit)
        assert not any(rules.is_wild(Card(Rank.THREE, suit)) for suit in Suit)
        assert rules.max_wilds_per_meld == want["wilds_per_meld"]
        assert rules.wilds_may_outnumber_naturals  # no source limits it
        assert rules.distinct_set_ranks == want["distinct_set_ranks"]
    elif aspect == "going_out":
        assert rules.discard_to_go_out == want["discard_to_go_out"]
    elif aspect == "buying":
        assert [rules.buys_in(n) for n in rounds] == want["buys"]
        assert [rules.buy_penalty_in(n) for n in rounds] == want["penalty"]
        assert rules.no_consecutive_buys == want["no_consecutive"]
    else:  # pragma: no cover
        raise AssertionError(aspect)


def test_golden_contracts_read_rules_md_notation() -> None:
    """The transcription helper itself, on cells whose meaning is plain."""
    assert contract("1S+2R") == (("set", 3), ("run", 4), ("run", 4))
    assert contract("S5+R5+pair") == (("set", 5), ("run", 5), ("pair", 2))
    assert contract("5R3") == (("run", 3),) * 5
