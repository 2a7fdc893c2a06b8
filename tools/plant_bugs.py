"""Plant plausible one-line bugs, one at a time, and see whether the tests catch them.

Each mutant is a small textual change to one file of ``analyzer/`` (a wrong number in a preset,
a comparison off by one, a rule ignored) with the tests that should catch it. The tool copies
the repository (without ``.git``, ``.venv`` and caches) to a temporary directory, applies each
mutant there in turn, runs its tests with ``pytest -x`` against the copy, restores the file, and
prints caught / missed and the kill rate. The working tree is never touched.

    .venv/bin/python tools/plant_bugs.py                 # every mutant
    .venv/bin/python tools/plant_bugs.py --list          # names, files, tests
    .venv/bin/python tools/plant_bugs.py -k buy -k model  # mutants whose name has these words
    .venv/bin/python tools/plant_bugs.py --baseline      # first check the selections pass unmutated

A mutant whose text is no longer in its file (the code moved on) is reported as "stale", not
counted; update its text. Exit status: 0 when every applied mutant was caught, 1 otherwise.
It is not part of the test suite: a run takes several minutes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IGNORED = (".git", ".venv", ".hypothesis", "__pycache__", "*.egg-info", ".pytest_cache", ".mypy_cache",
           ".ruff_cache", "node_modules", "*.db", "instance")
TIMEOUT = 900  # seconds for one mutant's tests


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str  # relative to the repository root
    changes: tuple[tuple[str, str], ...]  # (text, replacement); each text must occur exactly once
    tests: tuple[str, ...]  # pytest arguments: files, node ids, -k expressions
    why: str


GOLDEN = ("tests/analyzer/test_presets_golden.py",)
HOUSE = "tests/analyzer/test_house_rule_properties.py"

MUTANTS = [
    # ---- rules: preset data ----
    Mutant("rules: eveleigh joker 25", "analyzer/rules.py",
           (("joker=20, wild_deuce=20)", "joker=25, wild_deuce=20)"),), GOLDEN,
           "RULES.md §6: the Eveleigh joker scores 20"),
    Mutant("rules: kolsov round 5 S3+R6", "analyzer/rules.py",
           (("3S3 S3+R7 2S3+R5", "3S3 S3+R6 2S3+R5"),), GOLDEN,
           "RULES.md §7: Kolsov round 5 is S3+R7"),
    Mutant("rules: shanghai ace low too", "analyzer/rules.py",
           (("ace_low=False,", "ace_low=True,"),), GOLDEN, "Shanghai: A-2-3-4 is not a run"),
    Mutant("rules: pagat jokers = players", "analyzer/rules.py",
           (("DeckRule(n, n, 2, n - 1) for n in (3, 4, 5)", "DeckRule(n, n, 2, n) for n in (3, 4, 5)"),), GOLDEN,
           "pagat: players - 1 jokers"),
    Mutant("rules: ill-buy-it go out in round 7", "analyzer/rules.py",
           (('PROGRESSIVE_CONTRACTS + " 3S3+R4", go_out=(8,)', 'PROGRESSIVE_CONTRACTS + " 3S3+R4", go_out=(7,)'),),
           GOLDEN, "I'll Buy It goes out in round 8"),
    Mutant("rules: progressive discard required", "analyzer/rules.py",
           (('discard_to_go_out="optional",', 'discard_to_go_out="required",'),), GOLDEN,
           "progressive: discarding to go out is optional"),
    Mutant("rules: eveleigh rounds 12-13 no penalty card", "analyzer/rules.py",
           (("[(2, 1)] * 2", "[(2, 0)] * 2"),), GOLDEN, "Eveleigh 12 and 13: one extra blind card"),
    # ---- the solver model ----
    Mutant("model: run start one past the last position", "analyzer/solver/model.py",
           (("for p in positions if p + spec.size - 1 <= last}", "for p in positions if p + spec.size - 2 <= last}"),),
           (HOUSE,), "Q K A counts as a run of 4 (exact contract, wild limit)"),
    Mutant("model: ace always high", "analyzer/solver/model.py",
           (("(HIGH_ACE, rules.ace_high)) if allowed)", "(HIGH_ACE, True)) if allowed)"),
            ("and (p != HIGH_ACE or rules.ace_high)", "and (p != HIGH_ACE or True)")),
           (HOUSE,), "ace_high = false ignored"),
    Mutant("model: ace always low", "analyzer/solver/model.py",
           (("((LOW_ACE, rules.ace_low), (HIGH_ACE", "((LOW_ACE, True), (HIGH_ACE"),
            ("if (p != LOW_ACE or rules.ace_low)", "if (p != LOW_ACE or True)")),
           ("tests/analyzer/test_solver.py", "-k", "shanghai"), "Shanghai's ace high only ignored"),
    Mutant("model: objective counts cards, not points", "analyzer/solver/model.py",
           (("points_melded = (sum(problem.points(card) * sum(uses)", "points_melded = (sum(1 * sum(uses)"),
            ("+ sum(problem.points(card) * u for card, u in wild_used.items()))",
             "+ sum(1 * u for card, u in wild_used.items()))")),
           ("tests/analyzer/test_solver.py", "-k", "cheapest"), "the best lay-down leaves the fewest points"),
    Mutant("model: missing cards ignore the copies in hand", "analyzer/solver/model.py",
           (("return max(0, deck_copies(card, self.deck) - self.counts.get(card, 0))",
             "return deck_copies(card, self.deck)"),),
           ("tests/analyzer/test_solver.py", "-k", "respects_the_deck or strict_deck"), "the deck limit on missing cards"),
    Mutant("model: windows touching off by one", "analyzer/solver/model.py",
           (("touching = last_a + 1 == first_b or last_b + 1 == first_a",
             "touching = last_a + 2 == first_b or last_b + 2 == first_a"),),
           (HOUSE, "-k", "same_suit or exact-gap or exact-ace"), "no-touch between runs built as windows"),
    Mutant("model: gap allows overlap", "analyzer/solver/model.py",
           (("top = 1 if rules.same_suit_runs == SameSuitRuns.GAP else how_many", "top = how_many"),
            ("if touching or (policy == SameSuitRuns.GAP and overlapping):", "if touching:")),
           (HOUSE, "-k", "gap or same_suit"), "the gap policy under exact contracts"),
    Mutant("model: slots no-touch allows touching", "analyzer/solver/model.py",
           (("model.add(same_suit + a_ends_at_p + b.start[p + 1] <= 2)",
             "model.add(same_suit + a_ends_at_p + b.start[p + 1] <= 3)"),),
           (HOUSE, "-k", "touching or same_suit or slots"), "no-touch between runs built as slots"),
    Mutant("model: run wilds may outnumber", "analyzer/solver/model.py",
           (("model.add(2 * wild_limit <= slot.length())", "model.add(wild_limit <= slot.length())"),),
           (HOUSE, "-k", "outnumber"), "wilds_may_outnumber_naturals = false in runs"),
    Mutant("model: set wild limit one too many", "analyzer/solver/model.py",
           (("model.add(wild_like <= rules.max_wilds_per_meld * count[r])",
             "model.add(wild_like <= (rules.max_wilds_per_meld + 1) * count[r])"),),
           (HOUSE, "-k", "one-wild or one_wild"), "one wild per set"),
    # ---- the validator ----
    Mutant("validate: touching one way only", "analyzer/validate.py",
           (("touching = a.high + 1 == b.low or b.high + 1 == a.low", "touching = a.high + 1 == b.low"),),
           ("tests/analyzer/test_validate.py",), "no-touch in the validator"),
    Mutant("validate: one wild too many allowed", "analyzer/melds.py",
           (("if rules.max_wilds_per_meld is not None and wilds > rules.max_wilds_per_meld:",
             "if rules.max_wilds_per_meld is not None and wilds > rules.max_wilds_per_meld + 1:"),),
           ("tests/analyzer/test_validate.py",), "the wild limit in the validator"),
    Mutant("validate: deck limit one copy loose", "analyzer/validate.py",
           (("if count > deck_copies(card, deck):", "if count > deck_copies(card, deck) + 1:"),),
           ("tests/analyzer/test_validate.py",), "hand plus extras within the deck"),
    # ---- advice, turn, buy, simulate ----
    Mutant("advice: fewest unseen outs first", "analyzer/advice.py",
           (("math.inf if row[1] is None else row[1], -row[2], row[4]", "math.inf if row[1] is None else row[1], row[2], row[4]"),),
           ("tests/analyzer/test_advice.py", "-k", "discard"), "the discard table prefers more unseen outs"),
    Mutant("turn: a wild discard before a natural", "analyzer/turn.py",
           (("discard is not None and rules.is_wild(discard), discard.sort_key()",
             "discard is not None and not rules.is_wild(discard), discard.sort_key()"),),
           (f"{HOUSE}::test_a_natural_is_discarded_before_a_wild_card_worth_as_much", "tests/analyzer/test_turn.py"),
           "never throw a joker when a natural does as well"),
    Mutant("buy: margin test < margin", "analyzer/buy.py",
           (("Verdict.BUY if difference < -margin else", "Verdict.BUY if difference < margin else"),),
           ("tests/analyzer/test_buy.py", "-k", "thresholds or settled"), "passing's close-call band turns into BUY"),
    Mutant("buy: margin share 1%", "analyzer/buy.py",
           (("MARGIN_SHARE = 0.10", "MARGIN_SHARE = 0.01"),),
           ("tests/analyzer/test_buy.py", "-k", "thresholds"), "the margin is 10% of passing's points"),
    Mutant("buy: settled at one standard error", "analyzer/buy.py",
           (("SETTLED = 3.0", "SETTLED = 1.0"),),
           ("tests/analyzer/test_buy.py", "-k", "settled"), "the simulation stops early only when settled"),
    Mutant("simulate: one penalty card always", "analyzer/simulate.py",
           (("penalty = [self.stock.pop() for _ in range(self.rules.buy_penalty_in(self.round_number))]",
             "penalty = [self.stock.pop() for _ in range(1)]"),),
           ("tests/analyzer/test_simulate.py", "-k", "buy"), "Shanghai's two penalty cards"),
]


def copy_tree(target: Path) -> Path:
    tree = target / "tree"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(*IGNORED), symlinks=True)
    return tree


def apply(tree: Path, mutant: Mutant) -> str | None:
    """Apply the mutant in the copy; the original text, or None when a change is not found once."""
    path = tree / mutant.path
    original = path.read_text(encoding="utf-8")
    text = original
    for old, new in mutant.changes:
        if text.count(old) != 1:
            return None
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return original


def run_tests(tree: Path, tests: tuple[str, ...], profile: str) -> tuple[int, float, str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "HYPOTHESIS_PROFILE": profile, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("CI", None)
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--no-header",
               "--override-ini", "addopts=", *tests]
    started = time.monotonic()
    try:
        done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=TIMEOUT,
                              check=False)
    except subprocess.TimeoutExpired:
        return -1, time.monotonic() - started, "timed out"
    last = (done.stdout.strip().splitlines() or [""])[-1]
    return done.returncode, time.monotonic() - started, last


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", action="append", default=[], help="only mutants whose name contains this")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--baseline", action="store_true", help="first run each selection unmutated")
    parser.add_argument("--profile", default="dev", help="hypothesis profile (dev or ci)")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.k or any(word in m.name for word in args.k)]
    if args.list:
        for mutant in chosen:
            print(f"{mutant.name:50} {mutant.path:28} {' '.join(mutant.tests)}")
        return 0
    caught: list[str] = []
    missed: list[str] = []
    stale: list[str] = []
    with tempfile.TemporaryDirectory(prefix="plant-bugs-") as temporary:
        tree = copy_tree(Path(temporary))
        if args.baseline:
            for tests in dict.fromkeys(m.tests for m in chosen):
                code, seconds, last = run_tests(tree, tests, args.profile)
                print(f"baseline {' '.join(tests)}: {'ok' if code == 0 else 'FAILS'} ({seconds:.0f} s) {last}",
                      flush=True)
                if code != 0:
                    print("the unmutated tests must pass first", file=sys.stderr)
                    return 2
        for mutant in chosen:
            original = apply(tree, mutant)
            if original is None:
                stale.append(mutant.name)
                print(f"STALE   {mutant.name}: its text is not in {mutant.path} exactly once", flush=True)
                continue
            try:
                code, seconds, last = run_tests(tree, mutant.tests, args.profile)
            finally:
                (tree / mutant.path).write_text(original, encoding="utf-8")
            verdict = "caught" if code == 1 else "MISSED" if code == 0 else f"error {code}"
            (caught if code == 1 else missed).append(mutant.name)
            print(f"{verdict:7} {mutant.name} ({seconds:.0f} s): {last}", flush=True)
    applied = len(caught) + len(missed)
    print()
    print(f"caught {len(caught)} of {applied} applied mutants: kill rate "
          f"{(100 * len(caught) / applied if applied else 0):.0f}%" + (f"; {len(stale)} stale" if stale else ""))
    for name in missed:
        print(f"  missed: {name}")
    return 0 if not missed else 1


if __name__ == "__main__":
    sys.exit(main())
