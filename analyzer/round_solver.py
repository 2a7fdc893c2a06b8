"""Solver answers for one rule set, round and deck, each hand (as a multiset) solved once: what
the advice, the turn and the buy verdict ask of the solver, memoised within one question, and
the proven ones kept across questions (``PROVEN``)."""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

from analyzer import solver
from analyzer.cards import ALL_CARD_KINDS, Card, sorted_cards
from analyzer.hand import deck_copies
from analyzer.result import LayDown
from analyzer.rules import DeckRule, Rules
from analyzer.solver.work import OutsCutShort, deterministic_work, work_limit

SOLVER_THREADS = 2  # several hands' outs are worked out two at a time
LEAST_SOLVE_TIME = 0.001  # seconds: what a solve is given once the budget is spent (CP-SAT needs more than 0)


class Deadline:
    """One time budget for a whole answer (lay-down, outs, discard table, buy verdict): every
    solver call gets what is left of it, and whoever loops asks ``expired`` before going on."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self.ends - time.monotonic())

    @property
    def expired(self) -> bool:
        return time.monotonic() >= self.ends

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Time spent inside is not counted: one-off set-up kept for the rest of the process
        (measuring how soon the others go out under rules without a shipped table)."""
        start = time.monotonic()
        try:
            yield
        finally:
            self.ends += time.monotonic() - start

# (hand, rules, round, deck, time limit, before the draw, the hand's lay-down if already solved,
# cards known to hold every out if any) -> (the hand's lay-down, its outs)
OutsFinder = Callable[[tuple[Card, ...], Rules, int, DeckRule, float, bool, LayDown | None,
                       frozenset[Card] | None],
                      tuple[LayDown, frozenset[Card]]]


def outs_by_resolving(cards: tuple[Card, ...], rules: Rules, round_number: int, deck: DeckRule,
                      time_limit: float, before_draw: bool = False, solved: LayDown | None = None,
                      within: frozenset[Card] | None = None) -> tuple[LayDown, frozenset[Card]]:
    """The naive way to find outs: solve the hand, then the hand plus each card kind the deck
    still has a copy of (53 solves; only those in ``within`` when given, a set known to hold
    every out). Kept as the benchmark's baseline and a fallback.

    The hand with the card is the hand after the draw: in a go-out round it must meld as many
    cards as the hand before the draw would (docs/lay-down.md)."""
    lay_down = solved if solved is not None and solved.proven_optimal else solver.solve_lay_down(
        cards, rules, round_number, deck, time_limit, before_draw=before_draw)
    if not lay_down.cards_away:  # 0: nothing to wish for; None: no card would do
        return lay_down, frozenset()
    held = Counter(cards)
    outs = set()
    for card in ALL_CARD_KINDS:
        if held[card] >= deck_copies(card, deck) or within is not None and card not in within:
            continue
        closer = solver.solve_lay_down(cards + (card,), rules, round_number, deck, time_limit,
                                       before_draw=before_draw and not rules.round(round_number).go_out)
        if closer.cards_away is not None and closer.cards_away < lay_down.cards_away:
            outs.add(card)
    return lay_down, frozenset(outs)


def outs_finder() -> OutsFinder:
    """The solver's exact ``find_outs``, sharing the arrangements it finds between the hands of
    one ``RoundSolver`` (the rows of a discard table differ by a card: one row's arrangement
    often names another's outs)."""
    from analyzer.solver.outs import KnownArrangements  # loads OR-Tools, as find_outs does

    return functools.partial(solver.find_outs, known=KnownArrangements())


Key = tuple[tuple[Card, ...], bool]  # the hand as a multiset; before the draw (go-out rounds only)

PROVEN_KEPT = 20_000  # proven answers kept across questions, in this process (a few tens of MB at most)


class ProvenAnswers:
    """Solver answers proven exact, kept across questions in this process (any thread), the
    least recently used let go past ``size``: a hand's lay-down when proven optimal, its outs
    when all were found. A question asks much of what the one before asked (a turn's buy, take
    and discard questions share the hand before the draw; the discard table worked out the hand
    the next turn starts from). An answer proven under one rule set, round, deck and work bound
    is what solving again would give (the same model, the same parameters: CP-SAT is
    deterministic), so keeping it changes no answer, only its cost."""

    def __init__(self, size: int = PROVEN_KEPT) -> None:
        self.size = size
        self._kept: OrderedDict[Hashable, object] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, asked: Hashable) -> object | None:
        with self._lock:
            known = self._kept.get(asked)
            if known is not None:
                self._kept.move_to_end(asked)
            return known

    def put(self, asked: Hashable, answer: object) -> None:
        with self._lock:
            self._kept[asked] = answer
            self._kept.move_to_end(asked)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def clear(self) -> None:
        """Forget every answer (a benchmark timing a question asked again)."""
        with self._lock:
            self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)


PROVEN = ProvenAnswers()


class RoundSolver:
    """Solver answers for one rule set, round and deck, each hand (as a multiset) solved once.

    ``before_draw`` matters only in go-out rounds, where cards away are counted in draws: a hand
    before the draw must meld one card more than it holds (docs/lay-down.md)."""

    def __init__(self, rules: Rules, round_number: int, deck: DeckRule, time_limit: float,
                 find_outs: OutsFinder | None = None, deadline: Deadline | None = None,
                 work: float | None = None, seen: Iterable[Card] = ()) -> None:
        """``time_limit`` bounds each solver call; ``deadline``, when given, all of them
        together (a call then gets the lesser of the two). ``work`` (default: the caller's
        ``deterministic_work``) bounds each call by CP-SAT's deterministic time too. ``seen``:
        cards out of reach, which no lay-down's missing cards (its witness) may need."""
        self.rules, self.round_number, self.deck, self.time_limit = rules, round_number, deck, time_limit
        self.work = work if work is not None else work_limit()  # kept: solves may run on other threads
        self.deadline = deadline
        self.go_out = rules.round(round_number).go_out
        self.seen = sorted_cards(seen)
        self._find_outs = find_outs
        self._find_outs_made = threading.Lock()
        self._lay_downs: dict[tuple[Key, int | None], LayDown] = {}  # with meld_at_most
        self._outs: dict[Key, frozenset[Card]] = {}
        self._cut_short: set[Key] = set()  # outs found when the budget ran out: maybe not all
        # Proven answers shared with other questions: only with the default outs finder and
        # nothing seen (a seen card changes a lay-down's witness, not the outs finder's).
        self._proven = (rules, round_number, deck, self.work) if find_outs is None and not self.seen else None

    @property
    def find_outs(self) -> OutsFinder:
        """The outs finder given, or ``outs_finder()`` made when first asked (once, whichever
        thread asks first): most questions are one lay-down, which never asks."""
        if self._find_outs is None:
            with self._find_outs_made:
                if self._find_outs is None:
                    self._find_outs = outs_finder()
        return self._find_outs

    @property
    def expired(self) -> bool:
        """The answer's time budget is spent: loops stop and say what they left undone."""
        return self.deadline is not None and self.deadline.expired

    def _time(self) -> float:
        if self.deadline is None:
            return self.time_limit
        return max(LEAST_SOLVE_TIME, min(self.time_limit, self.deadline.left()))

    def outs_complete(self, cards: Iterable[Card], before_draw: bool = False) -> bool:
        """Whether the outs of this hand were found with time to spare (not cut short)."""
        return self._key(cards, before_draw) not in self._cut_short

    def has_outs(self, cards: Iterable[Card], before_draw: bool = False) -> bool:
        """Whether this hand's outs are known already (no solving needed)."""
        return self._key(cards, before_draw) in self._outs

    def _key(self, cards: Iterable[Card], before_draw: bool) -> Key:
        return sorted_cards(cards), before_draw and self.go_out

    def lay_down(self, cards: Iterable[Card], before_draw: bool = False, meld_at_most: int | None = None) -> LayDown:
        """The solver's answer; ``meld_at_most``: the melds take at most that many of the cards."""
        key = self._key(cards, before_draw)
        entry = key, meld_at_most
        found = self._lay_downs.get(entry)  # one look-up: the key hashes every card of the hand
        if found is None:
            shared = None if self._proven is None else (self._proven, "lay-down", entry)
            known = None if shared is None else PROVEN.get(shared)
            if isinstance(known, LayDown):
                found = self._lay_downs[entry] = known
                return found
            with deterministic_work(self.work):
                found = self._lay_downs[entry] = solver.solve_lay_down(
                    key[0], self.rules, self.round_number, self.deck, self._time(), before_draw=key[1],
                    meld_at_most=meld_at_most, seen=self.seen)
            if shared is not None and found.proven_optimal:
                PROVEN.put(shared, found)
        return found

    def outs(self, cards: Iterable[Card], before_draw: bool = False,
             within: frozenset[Card] | None = None) -> tuple[LayDown, frozenset[Card]]:
        """The hand's lay-down and outs. ``within``: cards known to hold every out, which
        spares the search the others (``find_outs``); the answer is the same."""
        key = self._key(cards, before_draw)
        if key not in self._outs:
            self._store_outs(key, self._find(key, within))
        return self._lay_downs[key, None], self._outs[key]

    def _find(self, key: Key, within: frozenset[Card] | None = None) -> tuple[LayDown, frozenset[Card]] | None:
        """The finder's answer; None when the budget was spent before it could start."""
        # The lay-down handed to the finder, if any, is this one's (proven, the same answer).
        shared = None if self._proven is None else (self._proven, "outs", key)
        known = None if shared is None else PROVEN.get(shared)
        if isinstance(known, tuple):
            return known
        found = self._search(key, within)
        if shared is not None and found is not None and key not in self._cut_short and found[0].proven_optimal:
            PROVEN.put(shared, found)
        return found

    def _search(self, key: Key, within: frozenset[Card] | None) -> tuple[LayDown, frozenset[Card]] | None:
        if self.expired:
            return None
        with deterministic_work(self.work):
            try:
                solved = None if self.seen else self._lay_downs.get((key, None))  # a seen card changes it
                found = self.find_outs(key[0], self.rules, self.round_number, self.deck, self._time(), key[1],
                                       solved, within)
            except OutsCutShort as stopped:  # a solve stopped unproven, or the finder's time ran out
                self._cut_short.add(key)
                return stopped.found
        if self.expired:  # a solve may have stopped at the deadline: outs found so far, maybe not all
            self._cut_short.add(key)
        return found

    def _store_outs(self, key: Key, found: tuple[LayDown, frozenset[Card]] | None) -> None:
        if found is None:
            # Past the deadline: the hand's lay-down at least (a quick, unproven answer), no outs.
            self._cut_short.add(key)
            found = self.lay_down(key[0], key[1]), frozenset()
        self._lay_downs.setdefault((key, None), found[0])
        self._outs[key] = found[1]

    def prefetch_outs(self, hands: Iterable[Iterable[Card]], before_draw: bool = False) -> None:
        """Work out several hands' outs at once, on two threads: CP-SAT lets go of the
        interpreter while it searches, so two solves run side by side (the machines here have
        two cores; measured 1.9 times faster on the discard table). Hands not started before
        the deadline are left out (``has_outs`` says which)."""
        todo = list(dict.fromkeys(key for key in (self._key(h, before_draw) for h in hands) if key not in self._outs))
        with ThreadPoolExecutor(max_workers=SOLVER_THREADS) as pool:
            for key, found in zip(todo, pool.map(self._find, todo)):
                if found is not None:
                    self._outs[key] = found[1]
                    self._lay_downs.setdefault((key, None), found[0])

    def points(self, cards: Iterable[Card]) -> int:
        return sum(map(self._points_by_card.__getitem__, cards))

    @functools.cached_property
    def _points_by_card(self) -> dict[Card, int]:
        return self.rules.points_by_card()
