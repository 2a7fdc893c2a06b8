"""/play benchmark: the computer's turns by strength, and the web layer of a move under load.

    .venv/bin/python -m benchmarks.play                 # several minutes (the advised turns)
    .venv/bin/python -m benchmarks.play --quick         # a smoke test
    .venv/bin/python -m benchmarks.play --part turns --strengths advised --rounds 6

**The computer's turns** (``--part turns``). Seeded rounds of a few presets (round ``1 + i %
rounds`` of seed ``i``, 4 players), played through the table the page itself rebuilds
(``webapp.tables.Game``, in this process, no Flask): the person in seat 1 is played by the
arena's ``greedy`` policy (its thinking not timed), and each of its moves is given to the game
as a move request gives it: the record replayed (``Game(setup, record)``), then replayed again
with the answer and played on to the person's next decision (``Game(setup, record, answer)``),
the computer's turns included. Printed per strength, median / p95 / max:

- a computer turn: the wall time of one live turn of a computer seat (``Table.play_turn``: its
  take-or-draw, the others' buy decisions on the offer, its play and the engine's checks);
- the bots' thinking in a move request: the time inside the computer players' decisions over
  both rebuilds (the first one asks again the computer players who were asked before the
  person on an offer the person is to answer);
- the reference, in the same run: replaying the record, as the first rebuild of every move
  request does (its wall time less any thinking in it), and the ratio of a turn's median to it.

The computer players are built as the page builds them (``webapp.tables.Game.policy``: one fresh
policy per request, shared by their seats, no ``deterministic_work``: the page does not set it).

**The web layer** (``--part web``). ``--players`` people (20) play at once through the served
app: ``rummy-trainer``'s waitress in its own process (``--threads``, 4 by default) on SQLite in
a temporary folder, the rate limits off, the computer's thinking in the app's worker processes
(``webapp.pool``, one per core). The server runs in a process of its own, not in a thread
beside the clients, so that the clients' Python never holds the server's GIL: a request's time
is the server's and the loopback's. Each person (a thread with its own keep-alive connection and
cookie) starts a ``progressive`` round (rounds 1 to 7 by person, a seed each), then in a loop
asks the table page and, as the page does (htmx requests): while a computer player is to play,
waits 0.4 s and asks ``/advance`` for its turn; else thinks (exponential, mean ``--think``
seconds) and posts a move: draw, pass a buy, or discard the last card of the hand (never taking
or laying down); a round over, a new one. The page's move holds no computer thinking: its time
is the web layer's (the goal's row). The computer players are ``greedy`` (``--web-strength``);
the time inside their decisions in the serving process is measured there and sent back in a
header ("bots in the server": none, as the workers think). A static file (the favicon) is asked
in the same loop as the reference. Printed: count, p50 / p95 / p99 / max per kind, as the clients
see it, the ratio of p99 to the reference's p99; a request's wall time in the server (from the
app's call to its response made: what the web layer itself takes, without the loopback and the
clients' own waits for a core, but also without any wait in waitress's queue for a free
thread), and the server thread's CPU time a request, both
sent back in the header; the server's CPU (its workers included); and the goal, judged both ways.

The load average (``os.getloadavg``) is printed before and after: the machines here are shared.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import html
import http.client
import json
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import webapp.tables
from analyzer import PRESETS as ALL_PRESETS
from analyzer import EventKind, Play, Table, load_rules
from analyzer.going_out_table import TABLE as GOING_OUT_TABLE
from analyzer.simulate import going_out_chances, rules_fingerprint
from arena.policies import GreedyPlayer, Round
from benchmarks.web import cpu_seconds
from webapp.tables import STRENGTHS, Game, Setup

GOAL_TURN_P95 = {"simulated": 0.200, "advised": 1.0}  # seconds, a computer turn's p95
GOAL_MOVE_P99 = 0.100  # seconds, a move request, the web layer only
PRESETS = ("progressive", "contract", "shanghai")
PLAYERS = 4
PERSON = 0  # the person's seat, as the page deals (webapp.play._setup_from)
ROUNDS = 3  # rounds a preset and strength
MAX_MOVES = 40  # the person's moves a round at most
WEB_PLAYERS = 20
WEB_SECONDS = 30.0
THINK = 1.0  # seconds, a person's mean think time before a move
REFERENCE = "/static/favicon.svg"
HTMX = {"HX-Request": "true"}  # the page's own requests: a move holds no computer thinking
ADVANCE_DELAY = 0.4  # seconds the page waits before asking for the computer's turn (hx-trigger)
# The bots' wall and CPU seconds, the request's own CPU seconds (server thread), and its wall
# seconds in the server: from the app's call to the response made (before it is sent).
BOT_HEADER = "X-Bot-Seconds"
HOST = "127.0.0.1"


def percentile(times: Sequence[float], share: float) -> float:
    """The nearest-rank percentile (``share`` 0.95 for p95), as the other benchmarks read it."""
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f}"


# ---- the computer's turns --------------------------------------------------------------------------


class _Clock:
    """The time spent inside the computer players' decisions, per thread (the server's requests
    run on several threads): wall time (``spent``) and the thread's CPU time (``cpu``)."""

    def __init__(self) -> None:
        self._local = threading.local()

    @property
    def spent(self) -> float:
        return float(getattr(self._local, "spent", 0.0))

    @property
    def cpu(self) -> float:
        return float(getattr(self._local, "cpu", 0.0))

    def reset(self) -> None:
        self._local.spent = self._local.cpu = 0.0

    def add(self, seconds: float, cpu: float = 0.0) -> None:
        self._local.spent = self.spent + seconds
        self._local.cpu = self.cpu + cpu


class _TimedPolicy:
    """A computer player whose three decisions are timed on ``clock``."""

    def __init__(self, policy: Any, clock: _Clock) -> None:
        self._policy, self._clock = policy, clock

    def _timed(self, name: str, *args: Any) -> Any:
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            return getattr(self._policy, name)(*args)
        finally:
            self._clock.add(time.perf_counter() - started, time.thread_time() - cpu)

    def wants_discard(self, sight: Any, card: Any) -> bool:
        return bool(self._timed("wants_discard", sight, card))

    def wants_to_buy_at(self, sight: Any, card: Any) -> bool:
        return bool(self._timed("wants_to_buy_at", sight, card))

    def choose_play_after_draw(self, sight: Any) -> Play:
        play = self._timed("choose_play_after_draw", sight)
        assert isinstance(play, Play)
        return play


class _TimedTable(Table):
    """The table with each turn's wall time kept: (seat, events before the turn, seconds)."""

    def play_turn(self) -> None:
        seat, before, started = self.current, len(self.events), time.perf_counter()
        super().play_turn()  # the person's turn raises Pause: not kept
        self.__dict__.setdefault("timed", []).append((seat, before, time.perf_counter() - started))


@contextmanager
def timed_computer(clock: _Clock) -> Iterator[None]:
    """Within: the page's games (``webapp.tables.Game``) build timed computer players and a
    timed table. The page's code is unchanged; only the two names it looks up are wrapped."""
    module = webapp.tables
    make_policy, table = module.__dict__["make_policy"], module.__dict__["Table"]

    def timed_make_policy(*args: Any, **kwargs: Any) -> Any:
        return _TimedPolicy(make_policy(*args, **kwargs), clock)

    setattr(module, "make_policy", timed_make_policy)  # noqa: B010 - the names the page's code looks up
    setattr(module, "Table", _TimedTable)  # noqa: B010
    try:
        yield
    finally:
        setattr(module, "make_policy", make_policy)  # noqa: B010
        setattr(module, "Table", table)  # noqa: B010


@dataclass
class TurnFigures:
    """One strength's figures over its rounds."""

    turns: list[float] = field(default_factory=list)  # a computer turn, seconds
    thinking: list[float] = field(default_factory=list)  # the bots' thinking in a move request
    replay: list[float] = field(default_factory=list)  # replaying the record, a move request's first rebuild
    moves: int = 0
    rounds: int = 0
    slowest: tuple[float, str] = (0.0, "")  # the slowest turn and where it was
    measured: list[str] = field(default_factory=list)  # going-out chances measured before the turns
    digest: Any = field(default_factory=hashlib.sha256)  # of every round's record: the same play, the same digest


def _person_answer(game: Game, person: GreedyPlayer) -> tuple[str, Any]:
    """The person's answer to the decision the table paused at, as the greedy player plays it."""
    pause, table = game.pause, game.table
    assert pause is not None
    if pause.kind == "play":
        last = table.events[-1]
        assert last.kind in (EventKind.DRAW, EventKind.TAKE) and last.seat == PERSON
        return "play", person.choose_play_after_draw(game.sight(table.view(PERSON, last.cards[0])))
    sight = game.sight(table.view(PERSON))
    assert pause.card is not None
    if pause.kind == "take":
        return "take", person.wants_discard(sight, pause.card)
    return "buy", person.wants_to_buy_at(sight, pause.card)


def play_rounds(strength: str, presets: Sequence[str], rounds: int, max_moves: int,
                log: Any = None) -> TurnFigures:
    """``rounds`` seeded rounds of each preset against computer players of ``strength``, the
    person's moves given as move requests give them; the figures of every move."""
    figures = TurnFigures()
    clock = _Clock()
    with timed_computer(clock):
        for name in presets:
            rules = load_rules(name)
            for index in range(rounds):
                number = 1 + index % len(rules.rounds)
                setup = Setup(name, number, PLAYERS, PERSON, strength, 1000 + index)
                at = Round(rules, number, PLAYERS)
                if strength == "advised" and f"{rules_fingerprint(rules)}/{number}/{PLAYERS}" not in GOING_OUT_TABLE:
                    # The buy verdict's going-out chances, missing from the shipped table, measured
                    # by self-play once a process (seconds): measured now, not inside a turn.
                    going_out_chances(rules, number, PLAYERS)
                    figures.measured.append(f"{name} round {number}")
                person = GreedyPlayer(at, at.simulated_player())
                game = Game(setup, [])
                record = game.round_record()["events"]
                figures.rounds += 1
                for _ in range(max_moves):
                    if game.finished:
                        break
                    clock.reset()
                    started = time.perf_counter()
                    game = Game(setup, record)  # the move request's first rebuild: the record replayed
                    replay = time.perf_counter() - started
                    asked_again = clock.spent
                    answer = _person_answer(game, person)
                    clock.reset()
                    game = Game(setup, record, answer)  # replayed again, then played on
                    stored = len(record)
                    for seat, before, seconds in game.table.__dict__.get("timed", []):
                        if seat != PERSON and before >= stored:  # a computer's turn played live
                            figures.turns.append(seconds)
                            if seconds > figures.slowest[0]:
                                where = f"{name} round {number} seed {setup.seed}, seat {seat + 1}, event {before}"
                                figures.slowest = (seconds, where)
                    figures.thinking.append(asked_again + clock.spent)
                    figures.replay.append(replay - asked_again)
                    figures.moves += 1
                    record = game.round_record()["events"]
                figures.digest.update(json.dumps(record, sort_keys=True).encode())
                if log is not None:
                    print(f"  {strength}: {name} round {number} seed {setup.seed}: {figures.moves} moves, "
                          f"{len(figures.turns)} computer turns so far", file=log, flush=True)
    return figures


def turn_table(results: Mapping[str, TurnFigures]) -> list[str]:
    lines = [f"{'':44} {'n':>5} {'median':>8} {'p95':>8} {'max':>8}   (ms)  goal"]
    reference = [t for figures in results.values() for t in figures.replay]
    replay_median = statistics.median(reference) if reference else float("nan")
    for strength, figures in results.items():
        if not figures.turns:
            lines.append(f"{strength + ': a computer turn':44} {0:>5}  (no computer turn played)")
            continue
        goal = GOAL_TURN_P95.get(strength)
        p95 = percentile(figures.turns, 0.95)
        verdict = "" if goal is None else f"p95 <= {goal * 1000:.0f} ms: {'met' if p95 <= goal else 'NOT met'}"
        for label, times, note in (
                ("a computer turn", figures.turns, verdict),
                ("bots' thinking, a move request", figures.thinking, ""),
                ("replaying the record (reference)", figures.replay, "")):
            lines.append(f"{strength + ': ' + label:44} {len(times):>5} {_ms(statistics.median(times))} "
                         f"{_ms(percentile(times, 0.95))} {_ms(max(times))}         {note}")
        lines.append(f"{'':44} turn median / replay median {statistics.median(figures.turns) / replay_median:.2f}"
                     f" (all strengths' replays); {figures.rounds} rounds, {figures.moves} moves; slowest turn "
                     f"{figures.slowest[0] * 1000:.0f} ms: {figures.slowest[1]}; the records' digest "
                     f"{figures.digest.hexdigest()[:12]}")
    for strength, figures in results.items():
        if figures.measured:
            lines.append(f"{strength}: going-out chances not in analyzer/going_out_table.py, measured before the "
                         f"turns were timed: {', '.join(figures.measured)}")
    greedy = results.get("greedy")
    if greedy and greedy.turns:
        base = statistics.median(greedy.turns)
        ratios = ", ".join(f"{s} {statistics.median(f.turns) / base:.1f}" for s, f in results.items()
                           if f.turns and s != "greedy")
        if ratios:
            lines.append(f"turn median / greedy's turn median: {ratios}")
    return lines


# ---- the web layer -----------------------------------------------------------------------------------

def served_app() -> Any:
    """The trainer as the benchmark serves it: the rate limits off, each request's bots' thinking
    and thread CPU time sent back in a header (``BOT_HEADER``), the templates compiled. The
    database is migrated before (``start_server``)."""
    from webapp import create_app

    app = create_app({"RATELIMIT_ENABLED": False})
    clock = _Clock()
    started = threading.local()
    wsgi_app = app.wsgi_app

    def _called(environ: Any, start_response: Any) -> Any:
        started.wall = time.perf_counter()
        return wsgi_app(environ, start_response)

    app.wsgi_app = _called  # type: ignore[method-assign]

    @app.before_request
    def _start() -> None:
        clock.reset()
        started.cpu = time.thread_time()

    @app.after_request
    def _bots(response: Any) -> Any:
        response.headers[BOT_HEADER] = (f"{clock.spent:.6f} {clock.cpu:.6f} {time.thread_time() - started.cpu:.6f} "
                                        f"{time.perf_counter() - started.wall:.6f}")
        return response

    with app.app_context():
        for name in app.jinja_env.list_templates(filter_func=lambda name: name.endswith(".html")):
            app.jinja_env.get_template(name)
    timing = contextlib.ExitStack()  # for the server's life
    timing.enter_context(timed_computer(clock))
    app.extensions["benchmark timing"] = timing
    return app


MIGRATE = "from webapp import create_app; from webapp.db import upgrade; upgrade(create_app().config['DATABASE_URL'])"
WAITRESS = """
import logging, sys
import waitress.server
from benchmarks.play import served_app

logging.getLogger("waitress").setLevel(logging.ERROR)
server = waitress.server.create_server(served_app(), host="127.0.0.1", port=int(sys.argv[1]), threads=int(sys.argv[2]))
print("ready", flush=True)
try:
    server.run()
except KeyboardInterrupt:
    pass
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def start_server(port: int, threads: int, instance: Path, processes: int) -> subprocess.Popen[str]:
    """The served app in a process of its own: waitress (``rummy-trainer``'s server) for one
    process, gunicorn's ``processes`` workers of ``threads`` threads each (docs/serving.md) for more."""
    environment = {**os.environ, "RUMMY_INSTANCE_PATH": str(instance)}
    environment.pop("DATABASE_URL", None)
    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-c", MIGRATE], env=environment, cwd=root, check=True)
    if processes == 1:
        command = [sys.executable, "-c", WAITRESS, str(port), str(threads)]
    else:
        command = [sys.executable, "-m", "gunicorn", "--workers", str(processes), "--threads", str(threads),
                   "--bind", f"{HOST}:{port}", "--keep-alive", "120", "--log-level", "error", "benchmarks.play:served_app()"]
    server = subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, text=True, cwd=root)
    if processes == 1:
        assert server.stdout is not None
        if server.stdout.readline().strip() != "ready":
            raise SystemExit("the server did not start")
    else:
        _wait_for(port, server)
    return server


def _wait_for(port: int, server: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("the server did not start (is gunicorn installed? pip install gunicorn)")
        try:
            with socket.create_connection((HOST, port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the server did not start")


CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)"')
TOKEN = re.compile(r'name="token" value="([^"]+)"')
CARD = re.compile(r'data-card="([^"]+)"')


class _Person:
    """One person at the served table: a keep-alive connection and a cookie jar of one cookie."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection(HOST, port, timeout=120)
        self.cookies: dict[str, str] = {}

    def ask(self, method: str, path: str, form: Mapping[str, str] | None = None,
            extra: Mapping[str, str] | None = None) -> tuple[int, str, http.client.HTTPMessage, float]:
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}
        headers.update(extra or {})
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        started = time.perf_counter()
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        text = response.read().decode()
        seconds = time.perf_counter() - started
        for cookie in response.msg.get_all("Set-Cookie") or []:
            name, _, value = cookie.split(";", 1)[0].partition("=")
            self.cookies[name.strip()] = value.strip()
        return response.status, text, response.msg, seconds


@dataclass
class WebFigures:
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    # each move's and advance's own bots' thinking in the serving process (none: it is the workers')
    bots: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    cpu: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # the server thread's CPU
    served: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # wall time in the server
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    server_cpu: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _one_person(port: int, number: int, deadline: float, think: float, strength: str, figures: WebFigures) -> None:
    rng = random.Random(f"play-bench/{number}")
    person = _Person(port)
    mine: dict[str, list[float]] = defaultdict(list)
    bots: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, list[float]] = defaultdict(list)
    served: dict[str, list[float]] = defaultdict(list)
    seed = number * 1000

    def fail(what: str, status: int, text: str) -> None:
        raise RuntimeError(f"{what}: {status} {text[:200]!r}")

    def start() -> str:
        nonlocal seed
        seed += 1
        status, page, _, _ = person.ask("GET", "/play")
        found = CSRF.search(page)
        if status != 200 or not found:
            fail("the start page", status, page)
        assert found is not None
        form = {"csrf_token": found.group(1), "rules": "progressive", "round": str(1 + number % 7),
                "players": str(PLAYERS), "strength": strength, "seed": str(seed)}
        status, text, headers, seconds = person.ask("POST", "/play", form)
        if status != 303:
            fail("starting a round", status, text)
        mine["start a round"].append(seconds)
        return str(headers["Location"]).rsplit("/", 1)[1]

    def form_of(page: str) -> dict[str, str]:
        csrf, token = CSRF.search(page), TOKEN.search(page)
        if not csrf or not token:
            fail("the table's forms", 200, page)
        assert csrf is not None and token is not None
        return {"csrf_token": csrf.group(1), "token": html.unescape(token.group(1))}

    def post(kind: str, path: str, form: dict[str, str]) -> None:
        status, text, headers, seconds = person.ask("POST", path, form, HTMX)
        if status != 303:
            fail(f"the {kind} {form.get('action', '')}", status, text)
        mine[kind].append(seconds)
        bot_wall, _, request_cpu, in_server = (float(x) for x in headers.get(BOT_HEADER, "0 0 0 0").split())
        bots[kind].append(bot_wall)
        cpu[kind].append(request_cpu)
        served[kind].append(in_server)

    try:
        game = start()
        while time.perf_counter() < deadline:
            status, page, headers, seconds = person.ask("GET", f"/play/{game}")
            if status != 200:
                fail("the table", status, page)
            mine["table page"].append(seconds)
            _, _, request_cpu, in_server = (float(x) for x in headers.get(BOT_HEADER, "0 0 0 0").split())
            cpu["table page"].append(request_cpu)
            served["table page"].append(in_server)
            status, _, _, seconds = person.ask("GET", REFERENCE)
            mine["reference: static file"].append(seconds)
            if 'id="play-end"' in page:
                game = start()
                continue
            if 'id="advance-form"' in page:  # the page asks for the computer's next turn, after a pause
                time.sleep(ADVANCE_DELAY)
                post("advance", f"/play/{game}/advance", form_of(page))
                continue
            time.sleep(rng.expovariate(1 / think) if think > 0 else 0)
            form = form_of(page)
            if 'id="draw"' in page:
                form["action"] = "draw"
            elif 'id="pass"' in page:
                form["action"] = "pass"
            else:
                hand = CARD.findall(page.split('id="hand"', 1)[1].split("</p>", 1)[0])
                form.update(action="discard", card=hand[-1])
            post("move", f"/play/{game}/move", form)
    except (RuntimeError, OSError, http.client.HTTPException) as error:
        figures.failures.append(f"person {number}: {error}")
    finally:
        person.connection.close()
        with figures.lock:
            for kind, times in mine.items():
                figures.times[kind].extend(times)
            for kind, times in bots.items():
                figures.bots[kind].extend(times)
            for kind, times in cpu.items():
                figures.cpu[kind].extend(times)
            for kind, times in served.items():
                figures.served[kind].extend(times)


def web_load(players: int, seconds: float, think: float, threads: int, strength: str, processes: int) -> WebFigures:
    figures = WebFigures()
    with tempfile.TemporaryDirectory() as instance:
        port = _free_port()
        server = start_server(port, threads, Path(instance), processes)
        try:
            warm = WebFigures()  # imports, templates, the first deals: not counted
            _one_person(port, 10_000, time.perf_counter() + 1.0, 0.0, strength, warm)
            if warm.failures:
                raise SystemExit(f"the warm-up failed: {warm.failures[0]}")
            cpu_before = cpu_seconds(server.pid)
            started = time.perf_counter()
            deadline = started + seconds
            people = [threading.Thread(target=_one_person, args=(port, n, deadline, think, strength, figures))
                      for n in range(players)]
            for thread in people:
                thread.start()
            for thread in people:
                thread.join()
            figures.seconds = time.perf_counter() - started
            figures.server_cpu = cpu_seconds(server.pid) - cpu_before
        finally:
            server.send_signal(signal.SIGINT)  # as Ctrl-C: its exit handlers stop the workers
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    return figures


def web_table(figures: WebFigures, players: int, think: float, threads: int, strength: str,
              processes: int) -> list[str]:
    rows = dict(figures.times)
    for kind in ("move", "advance"):
        rows[f"bots in the server: {kind}"] = figures.bots.get(kind, [])
    reference = figures.times.get("reference: static file") or [float("nan")]
    ref99 = percentile(reference, 0.99)
    server = f"waitress, {threads} threads" if processes == 1 else f"gunicorn, {processes} processes of {threads} threads"
    lines = [(f"{players} people, think {think:g} s (mean), {figures.seconds:.1f} s; server: {server}, "
              f"SQLite; computer players {strength}"),
             f"{'':28} {'n':>5} {'p50':>8} {'p95':>8} {'p99':>8} {'max':>8}   (ms)  p99/ref  goal"]
    order = ("table page", "move", "advance", "bots in the server: move", "bots in the server: advance",
             "start a round", "reference: static file")
    for kind in order:
        times = rows.get(kind)
        if not times:
            continue
        p99 = percentile(times, 0.99)
        goal = ""
        if kind == "move":
            met = "met" if p99 <= GOAL_MOVE_P99 else "NOT met"
            goal = f"p99 <= {GOAL_MOVE_P99 * 1000:.0f} ms: {met} (at the clients)"
        lines.append(f"{kind:28} {len(times):>5} {_ms(statistics.median(times))} {_ms(percentile(times, 0.95))} "
                     f"{_ms(p99)} {_ms(max(times))}   {p99 / ref99:6.1f}  {goal}")
    for title, measured in (("a request's wall time in the server (the app called to its response made):",
                             figures.served),
                            ("the server thread's CPU time of a request (less load-dependent than wall time):",
                             figures.cpu)):
        lines.append(title)
        for kind in ("table page", "move", "advance"):
            times = measured.get(kind)
            if times:
                p99 = percentile(times, 0.99)
                goal = ""
                if kind == "move" and measured is figures.served:
                    goal = (f"   p99 <= {GOAL_MOVE_P99 * 1000:.0f} ms: "
                            f"{'met' if p99 <= GOAL_MOVE_P99 else 'NOT met'} (in the server)")
                lines.append(f"  {kind:26} {len(times):>5} {_ms(statistics.median(times))} "
                             f"{_ms(percentile(times, 0.95))} {_ms(p99)} {_ms(max(times))}{goal}")
    served = sum(len(times) for times in figures.times.values())
    if served:
        lines.append(f"{served / figures.seconds:.1f} requests/s; the server's CPU (its workers included) "
                     f"{figures.server_cpu / served * 1000:.1f} ms a request (static files included), {figures.server_cpu / figures.seconds:.2f} cores "
                     f"busy of {os.cpu_count()}")
    return lines


# ---- the command line ------------------------------------------------------------------------------


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"a whole number from 1, not {text!r}")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"a number of seconds, not {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one short round a strength, a short load: a smoke test")
    parser.add_argument("--part", choices=("turns", "web", "both"), default="both")
    parser.add_argument("--strengths", nargs="+", choices=STRENGTHS, default=list(STRENGTHS))
    parser.add_argument("--rules", nargs="+", choices=list(ALL_PRESETS), default=list(PRESETS),
                        help="presets of the turns' rounds")
    parser.add_argument("--rounds", type=_positive_int, default=ROUNDS, help="rounds a preset and strength")
    parser.add_argument("--max-moves", type=_positive_int, default=MAX_MOVES, help="the person's moves a round at most")
    parser.add_argument("--players", type=_positive_int, default=WEB_PLAYERS, help="people at once on the web")
    parser.add_argument("--seconds", type=_seconds, default=WEB_SECONDS, help="the web load's length")
    parser.add_argument("--think", type=_seconds, default=THINK, help="a person's mean think time, seconds")
    parser.add_argument("--threads", type=_positive_int, default=4, help="the server's threads (a process's)")
    parser.add_argument("--processes", type=_positive_int, default=1,
                        help="serving processes: 1, waitress (rummy-trainer's); more, gunicorn's workers "
                             "(docs/serving.md; pip install gunicorn)")
    parser.add_argument("--web-strength", choices=STRENGTHS, default="greedy")
    args = parser.parse_args(argv)
    if args.quick:
        args.rules, args.rounds, args.max_moves = args.rules[:1], 1, 3
        args.players, args.seconds = min(args.players, 3), min(args.seconds, 3.0)

    print(f"load average at the start: {_load()}")
    if args.part in ("turns", "both"):
        results = {strength: play_rounds(strength, args.rules, args.rounds, args.max_moves, log=sys.stderr)
                   for strength in args.strengths}
        print(f"A computer turn: {', '.join(args.rules)}, {args.rounds} seeded rounds each, {PLAYERS} players, "
              f"the person (seat 1) greedy, at most {args.max_moves} of its moves a round")
        for line in turn_table(results):
            print(line)
        print(f"load average: {_load()}")
    if args.part in ("web", "both"):
        figures = web_load(args.players, args.seconds, args.think, args.threads, args.web_strength, args.processes)
        print("The web layer: moves through the served app")
        for line in web_table(figures, args.players, args.think, args.threads, args.web_strength, args.processes):
            print(line)
        if figures.failures:
            print(f"{len(figures.failures)} people stopped on a failed request, e.g. {figures.failures[0]}")
        print(f"load average at the end: {_load()}")
        return 1 if figures.failures else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
