"""Trainer load benchmark: 50 players practising at once on the served trainer, then the database
counted: every answer recorded exactly once, no rating update lost.

    .venv/bin/python -m benchmarks.trainer_load                   # two phases of 20 s, SQLite
    .venv/bin/python -m benchmarks.trainer_load --quick           # a smoke test
    .venv/bin/python -m benchmarks.trainer_load --database-url postgresql://u:p@127.0.0.1/rummy_load

The server is the real one, ``rummy-trainer`` (``python -m webapp.serve``: waitress, its default
thread count unless ``--threads``), in its own process, on a fresh database: SQLite in a
temporary folder, or the PostgreSQL database given (EMPTIED first: every table dropped).

The clients are one asyncio process (not the server's interpreter). Each client is a player with
its own cookie jar: it asks ``/practice`` (its first visit makes the player; half the players
choose another rule set on their first visit, half keep the default; one visit in twenty asks for
a rule set again, perhaps another), follows the redirect to the
puzzle page, fetches the page's favicon (the reference below), reads the CSRF token and the
one-time token from the answer form, and answers, right about 60 % of the time, as a player would
(the client knows the bank's answers). Most forms are submitted once; one in ten is submitted
twice in a row (a double click), one in ten from two tabs at the same moment (the same token on
two connections at once); one puzzle in ten is replayed (its page again, a new token: an
unrated attempt).

"50 concurrent clients" is measured two ways, one phase each on the same server:

- **players**: 50 closed-loop players, each thinking before every answer and every next puzzle
  (exponential, mean ``--think``, 1 s by default: about ten times faster than people solve
  puzzles, so the offered load is well above a real crowd of 50). The goal, p99 <= 50 ms
  for the puzzle page and the answer, is judged here.
- **flat out**: the same 50 clients with no think time at all: each sends its next request the
  moment the last one is answered. This measures the server's throughput; its latency is set by
  queueing (Little's law: 50 clients / throughput), not by the work of one request.

Printed per phase, for /practice (the choice and its redirect), the puzzle page, the answer, and
the reference: a static file (the favicon) from the same server under the same load, fetched by
the same clients in the same loop: count, p50, p95, p99, max, requests per second, and the
ratios p50 / reference p50 and p99 / reference p99. Then the load average, and the database
check: exits 1 when any attempt is lost or doubled or any rating chain is broken (or any request
failed), 0 otherwise.

``--profile FILE`` runs the server under cProfile (each request profiled in its worker thread, in
CPU time, so time spent waiting for the GIL or a lock is not counted; all merged): read it with
``python -m pstats FILE``.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Coroutine, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from itsdangerous import URLSafeSerializer
from sqlalchemy import select
from sqlalchemy.orm import Session

from analyzer import PRESETS, preset
from puzzles.bank import load_bank
from puzzles.model import Puzzle
from webapp.db import START_RATING, Attempt, Player, PuzzleRating, make_engine, upgrade

HOST = "127.0.0.1"
CLIENTS = 50
SECONDS = 20.0  # per phase
QUICK_SECONDS = 3.0
THINK = 1.0  # seconds, the mean of a player's exponential think time in the players phase
GOAL_P99 = 0.050
REFERENCE = "/static/favicon.svg"
REQUEST_TIMEOUT = 60.0
RIGHT_SHARE = 0.6
# How a form is sent: once, twice one after the other (a double click), from two tabs at once.
SUBMIT_WAYS = {"once": 0.8, "twice": 0.1, "two tabs": 0.1}
REPLAY_SHARE = 0.1
OTHER_RULES_SHARE = 0.5
SWITCH_RULES_SHARE = 0.05  # of later visits to /practice
ALREADY_RECORDED = b"already recorded"
FIELD = re.compile(rb'<input type="hidden" name="(csrf_token|token)" value="([^"]+)"')
WARM_UP_CLIENTS, WARM_UP_SECONDS = 4, 1.0
KINDS = ("practice", "puzzle page", "answer", "reference")

# The server as a profiled process: rummy-trainer's own main, its app's requests under cProfile.
PROFILED_SERVER = """
import atexit, cProfile, pstats, sys, threading, time
import webapp.serve as serve
path, argv = sys.argv[1], sys.argv[2:]
merged, lock = [], threading.Lock()

def profiled(wsgi_app):
    def app(environ, start_response):
        profile = cProfile.Profile(time.thread_time)  # CPU time: a wait for the GIL is not this request's work
        profile.enable()
        try:
            return list(wsgi_app(environ, start_response))
        finally:
            profile.disable()
            with lock:
                merged.append(profile)
    return app

def dump():
    if merged:
        stats = pstats.Stats(merged[0])
        for profile in merged[1:]:
            stats.add(profile)
        stats.dump_stats(path)

create_app = serve.create_app
def create_profiled_app():
    app = create_app()
    app.wsgi_app = profiled(app.wsgi_app)
    return app
serve.create_app = create_profiled_app
atexit.register(dump)
raise SystemExit(serve.main(argv))
"""


# ---- the server ----------------------------------------------------------------------------------


@dataclass
class Server:
    process: subprocess.Popen[str]
    port: int
    log: Path

    def cpu_seconds(self) -> tuple[float, float] | None:
        """The server process's CPU seconds so far, (user, system) (Linux; None elsewhere)."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return int(fields[11]) / os.sysconf("SC_CLK_TCK"), int(fields[12]) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        """Ctrl-C, as a person stops rummy-trainer (so a profile is written), then harder."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(300)  # a profile of thousands of requests takes a while to merge
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def start_server(database_url: str, instance: Path, secret_key: str, *, threads: int | None,
                 profile: Path | None) -> Server:
    """rummy-trainer on a free loopback port, answering once it has printed its address."""
    port = free_port()
    arguments = ["--host", HOST, "--port", str(port)] + (["--threads", str(threads)] if threads else [])
    command = ([sys.executable, "-c", PROFILED_SERVER, str(profile)] if profile else
               [sys.executable, "-m", "webapp.serve"]) + arguments
    # Every client comes from one address and answers flat out: the per-address and per-player
    # limits of real use (webapp/__init__.py) would refuse most of the load.
    environment = {**os.environ, "RUMMY_INSTANCE_PATH": str(instance), "DATABASE_URL": database_url,
                   "RUMMY_SECRET_KEY": secret_key, "RUMMY_RATELIMIT_ENABLED": "false"}
    log = instance / "server.log"  # waitress's "task queue depth" warnings are the point of a load test
    with log.open("w") as stderr:
        # Ctrl-C is how stop() ends the server (so a profile is written): a benchmark started in
        # the background (nohup, ``&``) passes SIGINT on as ignored, and Python keeps it so.
        process = subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=stderr, text=True,
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert process.stdout is not None
    line = process.stdout.readline()
    if f"http://{HOST}:{port}/" not in line:
        process.kill()
        raise SystemExit(f"rummy-trainer did not start: {line.strip() or log.read_text()[-2000:]}")
    return Server(process, port, log)


def fresh_database(database_url: str | None, folder: Path) -> str:
    """An empty, migrated database: SQLite in ``folder``, or the PostgreSQL one given, emptied."""
    if database_url is None:
        url = f"sqlite:///{folder / 'trainer.sqlite3'}"
    else:
        from alembic import command

        from webapp.db import alembic_config

        url = database_url
        upgrade(url)  # from whatever state it is in, then all the way down
        command.downgrade(alembic_config(url), "base")
    upgrade(url)
    return url


# ---- an HTTP client for asyncio (stdlib only) --------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Mapping[str, str]  # lower-case names; Set-Cookie joined with newlines
    body: bytes
    seconds: float


class Tab:
    """One browser tab: a keep-alive HTTP/1.1 connection to the server, reopened when closed."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, target: str, cookies: Mapping[str, str],
                      form: Mapping[str, str] | None = None) -> Reply:
        body = urlencode(form).encode() if form is not None else b""
        lines = [f"{method} {target} HTTP/1.1", f"Host: {HOST}:{self.port}"]
        if cookies:
            lines.append("Cookie: " + "; ".join(f"{name}={value}" for name, value in cookies.items()))
        if form is not None:
            lines += ["Content-Type: application/x-www-form-urlencoded", f"Content-Length: {len(body)}"]
        message = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        # A GET on a keep-alive connection the server has just closed is sent again; a POST never
        # is (whether the server read it is unknown): its failure is reported.
        for last_try in (False, True) if method == "GET" else (True,):
            reused = self.writer is not None
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
            started = time.perf_counter()
            try:
                self.writer.write(message)
                await self.writer.drain()
                status, headers, content = await asyncio.wait_for(self._response(), REQUEST_TIMEOUT)
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if last_try or not reused:
                    raise
                continue
            seconds = time.perf_counter() - started
            if headers.get("connection", "").lower() == "close":
                self.close()
            return Reply(status, headers, content, seconds)
        raise AssertionError("unreachable")

    async def _response(self) -> tuple[int, dict[str, str], bytes]:
        assert self.reader is not None
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        for line in filter(None, header_lines):
            name, _, value = line.partition(":")
            name = name.strip().lower()
            headers[name] = headers[name] + "\n" + value.strip() if name in headers else value.strip()
        if "content-length" in headers:
            content = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16):
                chunks.append(await self.reader.readexactly(size))
                await self.reader.readexactly(2)
            await self.reader.readuntil(b"\r\n")
            content = b"".join(chunks)
        else:
            content = await self.reader.read()
            headers["connection"] = "close"
        return status, headers, content

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


# ---- the players -------------------------------------------------------------------------------------


@dataclass
class Submitted:
    """One answer form (one one-time token) as the clients sent it and the server answered."""

    player: str  # the player's public id, from the signed token
    puzzle_id: str
    posts: int = 0  # times the form was submitted
    answered: int = 0  # of those, answered 200
    repeats: int = 0  # of those, answered "already recorded"


@dataclass
class Phase:
    """What the clients saw during one phase."""

    name: str
    think: float
    times: dict[str, list[float]] = field(default_factory=lambda: {kind: [] for kind in KINDS})
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    load_average: tuple[float, float, float] = (0.0, 0.0, 0.0)
    server_cpu: float | None = None  # the server's CPU seconds during the phase
    server_system: float | None = None  # of which in the kernel (system time: sockets, polling, the disk)


class Run:
    """Everything the clients submitted, by one-time token, over all phases."""

    def __init__(self, port: int, puzzles: Mapping[str, Puzzle], secret_key: str) -> None:
        self.port = port
        self.puzzles = puzzles
        self.tokens = URLSafeSerializer(secret_key, salt="trainer-attempt")  # as webapp.record signs them
        self.submitted: dict[tuple[str, str], Submitted] = {}  # by (player public id, nonce)

    def form_key(self, token: str) -> tuple[str, str, str]:
        player, puzzle_id, nonce = self.tokens.loads(token)
        return player, puzzle_id, nonce


class Client:
    """One client: an anonymous player in their own browser (a cookie jar, two tabs)."""

    def __init__(self, run: Run, phase: Phase, rng: random.Random) -> None:
        self.run, self.phase, self.rng = run, phase, rng
        self.cookies: dict[str, str] = {}
        self.tabs = (Tab(run.port), Tab(run.port))
        self.first_query = ({"rules": rng.choice([name for name in PRESETS if name != "progressive"])}
                            if rng.random() < OTHER_RULES_SHARE else {})

    async def play(self, deadline: float) -> None:
        try:
            await self.think()  # players arrive spread over a think time, not all in the same millisecond
            while time.perf_counter() < deadline:
                puzzle_path = await self.practice()
                if puzzle_path is None:  # this player has met every puzzle of the rule set: a new one comes
                    self.cookies.clear()
                    continue
                await self.answer_puzzle(puzzle_path, deadline)
                if self.rng.random() < REPLAY_SHARE and time.perf_counter() < deadline:
                    await self.answer_puzzle(puzzle_path, deadline)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as error:
            self.phase.failures.append(f"a client stopped: {error!r}")
        finally:
            for tab in self.tabs:
                tab.close()

    async def think(self) -> None:
        if self.phase.think:
            await asyncio.sleep(self.rng.expovariate(1 / self.phase.think))

    async def get(self, kind: str, target: str, *expected: int) -> Reply:
        reply = await self.tabs[0].request("GET", target, self.cookies)
        self.keep_cookies(reply)
        self.phase.times[kind].append(reply.seconds)
        if reply.status not in expected:
            self.phase.failures.append(f"GET {target} answered {reply.status}: {reply.body[:200]!r}")
        return reply

    def keep_cookies(self, reply: Reply) -> None:
        for line in filter(None, reply.headers.get("set-cookie", "").split("\n")):
            name, _, value = line.split(";")[0].partition("=")
            if "max-age=0" in line.lower() or not value:
                self.cookies.pop(name.strip(), None)
            else:
                self.cookies[name.strip()] = value.strip()

    async def practice(self) -> str | None:
        """/practice: the redirect's target, the puzzle page (None: nothing left to practise)."""
        query, self.first_query = self.first_query, {}
        if not query and self.rng.random() < SWITCH_RULES_SHARE:
            query = {"rules": self.rng.choice(list(PRESETS))}  # another rule set, remembered from now on
        reply = await self.get("practice", "/practice" + ("?" + urlencode(query) if query else ""), 303, 200)
        if reply.status != 303:  # 200: "no puzzle left" for this player
            return None
        location = urlsplit(reply.headers.get("location", ""))
        return location.path + ("?" + location.query if location.query else "")

    async def answer_puzzle(self, puzzle_path: str, deadline: float) -> None:
        page = await self.get("puzzle page", puzzle_path, 200)
        await self.get("reference", REFERENCE, 200)
        fields = {name.decode(): value.decode() for name, value in FIELD.findall(page.body)}
        if set(fields) != {"csrf_token", "token"}:
            self.phase.failures.append(f"{puzzle_path}: no answer form")
            return
        player, puzzle_id, nonce = self.run.form_key(fields["token"])
        form = {**fields, **self.answer(self.run.puzzles[puzzle_id], right=self.rng.random() < RIGHT_SHARE)}
        await self.think()
        record = self.run.submitted.setdefault((player, nonce), Submitted(player, puzzle_id))
        target = urlsplit(puzzle_path).path + "/answer"
        way = self.rng.choices(list(SUBMIT_WAYS), weights=list(SUBMIT_WAYS.values()))[0]
        if way == "two tabs":
            await asyncio.gather(self.post(target, form, record, 0), self.post(target, form, record, 1))
        else:
            for _ in range(2 if way == "twice" else 1):
                await self.post(target, form, record, 0)
        if time.perf_counter() < deadline:
            await self.think()

    async def post(self, target: str, form: Mapping[str, str], record: Submitted, tab: int) -> None:
        record.posts += 1
        try:
            reply = await self.tabs[tab].request("POST", target, self.cookies, form)
        except (TimeoutError, OSError, asyncio.IncompleteReadError) as error:
            self.phase.failures.append(f"POST {target} got no answer: {error!r}")
            return
        self.keep_cookies(reply)
        self.phase.times["answer"].append(reply.seconds)
        if reply.status != 200:
            self.phase.failures.append(f"POST {target} answered {reply.status}: {reply.body[:200]!r}")
            return
        record.answered += 1
        record.repeats += ALREADY_RECORDED in reply.body

    def answer(self, puzzle: Puzzle, *, right: bool) -> dict[str, str]:
        """The form's answer fields, right or wrong, as a player fills them in."""
        if puzzle.kind == "discard":
            wrong = [card.token for card in puzzle.hand if card.token not in puzzle.answers]
            return {"card": puzzle.answers[0] if right or not wrong else self.rng.choice(wrong)}
        if puzzle.kind == "buy":
            return {"choice": puzzle.answers[0] if right else ("pass" if puzzle.answers[0] == "buy" else "buy")}
        play = puzzle.solution
        if play is None or play.cannot:
            if right:
                return {"cannot": "1"}
            # a lay-down that is not there, whole (a row short would be refused unrecorded): the
            # hand's cards row by row, each its meld's size, and the next card discarded
            tokens = [card.token for card in puzzle.hand]
            form, at = {}, 0
            for index, spec in enumerate(preset(puzzle.rules).round(puzzle.round).contract):
                form[f"meld-{index}"], at = " ".join(tokens[at:at + spec.size]), at + spec.size
            form["discard"] = tokens[at] if at < len(tokens) else ""
            return form
        if not right:
            return {"cannot": "1"}
        form = {f"meld-{index}": " ".join(card.token for card in meld.cards) for index, meld in enumerate(play.melds)}
        form["discard"] = play.discard.token if play.discard else ""
        return form


async def run_phase(run: Run, phase: Phase, clients: int, seconds: float, seed: int) -> None:
    """``clients`` players for ``seconds``; each finishes the puzzle in hand after the deadline."""
    started = time.perf_counter()
    deadline = started + seconds
    players = [Client(run, phase, random.Random(seed * 1000 + index)) for index in range(clients)]
    await asyncio.gather(*(player.play(deadline) for player in players))
    phase.seconds = time.perf_counter() - started
    phase.load_average = os.getloadavg()


# ---- the database counted ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Consistency:
    """The database beside what the clients submitted: every distinct form answered is one
    attempt, no more; each player's and each puzzle's ratings form one unbroken chain."""

    forms: int  # distinct answer forms (one-time tokens) the server answered 200
    posts: int  # submissions of them, repeats included
    repeats: int  # submissions answered "already recorded"
    attempts: int  # attempts in the database
    rated: int
    players: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {"forms": self.forms, "posts": self.posts, "repeats": self.repeats, "attempts": self.attempts,
                "rated": self.rated, "players": self.players, "problems": list(self.problems), "ok": self.ok}


def check_database(database_url: str, submitted: Mapping[tuple[str, str], Submitted],
                   bank_ratings: Mapping[str, float], *, shown: int = 5) -> Consistency:
    """Count the attempts against ``submitted`` and follow every rating chain (``bank_ratings``:
    each puzzle's starting rating); the first ``shown`` problems of each sort are named."""
    problems: list[str] = []

    def problem(sort: str, text: str) -> None:
        sorts[sort] += 1
        if sorts[sort] <= shown:
            problems.append(f"{sort}: {text}")

    sorts: Counter[str] = Counter()
    engine = make_engine(database_url)
    try:
        with Session(engine) as db:
            players = {player.id: player for player in db.scalars(select(Player))}
            attempts = list(db.scalars(select(Attempt).order_by(Attempt.id)))
            puzzle_rows = {row.puzzle_id: row for row in db.scalars(select(PuzzleRating))}
    finally:
        engine.dispose()

    # Exactly once: the attempts are the distinct forms answered, each once.
    recorded = Counter((players[attempt.player_id].public_id, attempt.token) for attempt in attempts)
    answered = {key for key, form in submitted.items() if form.answered}
    for key, count in recorded.items():
        if count > 1:
            problem("doubled", f"the form {key[1][:8]}... of player {key[0][:8]}... is recorded {count} times")
        if key not in answered:
            problem("not submitted", f"an attempt with token {key[1][:8]}... that no client's answered form had")
    for key in sorted(answered - set(recorded)):
        problem("lost", f"the form {key[1][:8]}... answered 200 to player {key[0][:8]}... is not recorded")
    for key, form in submitted.items():
        if form.answered and form.answered - form.repeats != 1:
            problem("first answer", f"the form {key[1][:8]}... was answered as new {form.answered - form.repeats} "
                                    f"times of {form.answered}")

    # No lost rating update: each attempt starts from where the player's previous one left off,
    # each rated attempt from where the puzzle's previous rated attempt left it.
    by_player: dict[int, list[Attempt]] = defaultdict(list)
    by_puzzle: dict[str, list[Attempt]] = defaultdict(list)
    for attempt in attempts:
        by_player[attempt.player_id].append(attempt)
        if attempt.rated:
            by_puzzle[attempt.puzzle_id].append(attempt)
    for player_id, chain in by_player.items():
        player = players[player_id]
        rating, met = START_RATING, set()
        for attempt in chain:
            if attempt.rating_before != rating:
                problem("player chain", f"attempt {attempt.id} starts at {attempt.rating_before}, the player was at {rating}")
            if attempt.rated == (attempt.puzzle_id in met):
                problem("rated", f"attempt {attempt.id} is {'' if attempt.rated else 'not '}rated, and the player "
                                 f"had {'' if attempt.puzzle_id in met else 'not '}met the puzzle before")
            if not attempt.rated and attempt.rating_after != attempt.rating_before:
                problem("player chain", f"unrated attempt {attempt.id} moved the rating")
            rating = attempt.rating_after
            met.add(attempt.puzzle_id)
        if player.rating != rating:
            problem("player chain", f"player {player.id} is at {player.rating}, the last attempt left {rating}")
    for puzzle_id, chain in by_puzzle.items():
        rating = bank_ratings.get(puzzle_id, math.nan)
        for attempt in chain:
            if attempt.puzzle_rating_before != rating:
                problem("puzzle chain", f"attempt {attempt.id} on {puzzle_id} starts at {attempt.puzzle_rating_before}, "
                                        f"the puzzle was at {rating}")
            rating = attempt.puzzle_rating_after if attempt.puzzle_rating_after is not None else math.nan
        row = puzzle_rows.get(puzzle_id)
        right = sum(attempt.right for attempt in chain)
        if row is None or (row.rating, row.attempts, row.solved) != (rating, len(chain), right):
            problem("puzzle chain", f"{puzzle_id}'s row is {row and (row.rating, row.attempts, row.solved)}, its "
                                    f"attempts say {(rating, len(chain), right)}")
    for puzzle_id in set(puzzle_rows) - set(by_puzzle):
        problem("puzzle chain", f"{puzzle_id} has a rating row and no rated attempt")
    problems += [f"{sort}: {count - shown} more" for sort, count in sorts.items() if count > shown]
    return Consistency(
        forms=len(answered), posts=sum(form.posts for form in submitted.values()),
        repeats=sum(form.repeats for form in submitted.values()), attempts=len(attempts),
        rated=sum(attempt.rated for attempt in attempts), players=len(by_player), problems=tuple(problems),
    )


# ---- the run ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    phases: tuple[Phase, ...]
    consistency: Consistency
    database_url: str
    submitted: Mapping[tuple[str, str], Submitted]
    threads: int | None
    server_log: Counter[str] = field(default_factory=Counter)  # what the server said, line by kind

    @property
    def failures(self) -> list[str]:
        return [failure for phase in self.phases for failure in phase.failures]


def percentile(times: Sequence[float], share: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run_clients(phase: Coroutine[Any, Any, None]) -> None:
    """Run a phase's clients on an event loop of their own, in a thread of their own: the caller's
    thread may already run a loop (Playwright's sync API does, in the same test session)."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        thread.submit(asyncio.run, phase).result()


def benchmark(*, clients: int, seconds: float, think: float, database_url: str | None, folder: Path,
              threads: int | None = None, profile: Path | None = None, phases: Sequence[str] = ("players", "flat out"),
              seed: int = 1) -> Report:
    """Serve the trainer on a fresh database in ``folder``, run the phases, count the database."""
    puzzles = {puzzle.id: puzzle for puzzle in load_bank()}
    url = fresh_database(database_url, folder)
    secret_key = secrets.token_hex(32)
    server = start_server(url, folder, secret_key, threads=threads, profile=profile)
    run = Run(server.port, puzzles, secret_key)
    done = []
    try:
        # Warm up (the bank loaded, templates compiled, connections pooled); counted in the check only.
        run_clients(run_phase(run, Phase("warm-up", 0.0), min(clients, WARM_UP_CLIENTS), WARM_UP_SECONDS, seed))
        for number, name in enumerate(phases, start=1):
            phase = Phase(name, think if name == "players" else 0.0)
            cpu_before = server.cpu_seconds()
            run_clients(run_phase(run, phase, clients, seconds, seed + number))
            cpu_after = server.cpu_seconds()
            if cpu_before is not None and cpu_after is not None:
                phase.server_cpu = sum(cpu_after) - sum(cpu_before)
                phase.server_system = cpu_after[1] - cpu_before[1]
            done.append(phase)
    finally:
        server.stop()
    consistency = check_database(url, run.submitted, {pid: float(p.rating) for pid, p in puzzles.items()})
    return Report(tuple(done), consistency, url, run.submitted, threads, server_log(server.log))


def server_log(log: Path) -> Counter[str]:
    """The server's stderr, counted by the kind of line (numbers left out): waitress's warnings
    ("Task queue depth is 7"; "total open connections reached the connection limit", after
    which it stops accepting until one closes) say where the server, not the code, was the limit."""
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    return Counter(re.sub(r"\d+", "N", line.strip()) for line in lines if line.strip())


def describe(report: Report, clients: int) -> list[str]:
    lines = []
    for phase in report.phases:
        reference = phase.times["reference"]
        pace = f"think time {phase.think:g} s mean, exponential" if phase.think else "no think time"
        lines.append(f"\n{phase.name}: {clients} clients, {pace}, {phase.seconds:.1f} s; "
                     f"load average after: {' '.join(f'{value:.2f}' for value in phase.load_average)}")
        lines.append(f"  {'':<12} {'count':>6} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8} {'req/s':>7}"
                     f"  {'p50/ref':>7} {'p99/ref':>7}")
        for kind in KINDS:
            times = phase.times[kind]
            if not times:
                continue
            ratios = (f"  {statistics.median(times) / statistics.median(reference):7.1f} "
                      f"{percentile(times, 0.99) / percentile(reference, 0.99):7.1f}" if reference else "")
            lines.append(f"  {kind:<12} {len(times):>6} {statistics.median(times) * 1000:8.1f} "
                         f"{percentile(times, 0.95) * 1000:8.1f} {percentile(times, 0.99) * 1000:8.1f} "
                         f"{max(times) * 1000:8.1f} {len(times) / phase.seconds:7.1f}{ratios}")
        total = sum(len(times) for times in phase.times.values())
        goal = {kind: percentile(phase.times[kind], 0.99) <= GOAL_P99
                for kind in ("puzzle page", "answer") if phase.times[kind]}
        cpu = ("" if phase.server_cpu is None else
               f"server CPU {phase.server_cpu / total * 1000:.1f} ms a request ({phase.server_cpu / phase.seconds:.2f} "
               f"cores, {(phase.server_system or 0) / total * 1000:.1f} ms of it in the kernel); ")
        lines.append(f"  all requests: {total / phase.seconds:.1f} req/s; {cpu}goal p99 <= {GOAL_P99 * 1000:g} ms: "
                     + ", ".join(f"{kind} {'met' if met else 'MISSED'}" for kind, met in goal.items()))
    check = report.consistency
    lines.append(f"\ndatabase ({report.database_url.split('://')[0]}): {check.forms} distinct forms answered "
                 f"({check.posts} submissions, {check.repeats} of them repeats answered \"already recorded\"); "
                 f"{check.attempts} attempts recorded ({check.rated} rated) by {check.players} players")
    lines.append("exactly once and rating chains unbroken: " + ("yes" if check.ok else "NO"))
    lines += [f"  {problem}" for problem in check.problems]
    if report.failures:
        lines.append(f"{len(report.failures)} requests failed, e.g.:")
        lines += [f"  {failure}" for failure in report.failures[:5]]
    return lines


def positive(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"a positive number, not {text!r}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.trainer_load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=CLIENTS, help=f"concurrent clients (default {CLIENTS})")
    parser.add_argument("--seconds", type=positive, help=f"seconds per phase (default {SECONDS:g}; --quick {QUICK_SECONDS:g})")
    parser.add_argument("--think", type=positive, default=THINK, help=f"mean think time in the players phase (default {THINK:g} s)")
    parser.add_argument("--quick", action="store_true", help="short phases: a smoke test")
    parser.add_argument("--threads", type=int, help="the server's worker threads (default: rummy-trainer's)")
    parser.add_argument("--phase", choices=("players", "flat out"), action="append",
                        help="run only this phase (repeatable; default both)")
    parser.add_argument("--database-url", help="a PostgreSQL database to run on instead of SQLite: it is EMPTIED first")
    parser.add_argument("--profile", type=Path, help="write the server's cProfile statistics to this file")
    args = parser.parse_args(argv)
    if args.clients < 1 or (args.threads is not None and args.threads < 1):
        parser.error("--clients and --threads are at least 1")
    seconds = args.seconds or (QUICK_SECONDS if args.quick else SECONDS)
    with tempfile.TemporaryDirectory(prefix="trainer-load-") as folder:
        report = benchmark(clients=args.clients, seconds=seconds, think=args.think, database_url=args.database_url,
                           folder=Path(folder), threads=args.threads, profile=args.profile,
                           phases=args.phase or ("players", "flat out"))
    print(f"the trainer (rummy-trainer: waitress, {args.threads or 'default'} threads) on loopback, "
          f"{os.cpu_count()} cores; reference: {REFERENCE} from the same server in the same loop")
    print("\n".join(describe(report, args.clients)))
    said = "; ".join(f"{line!r} x{count}" for line, count in report.server_log.most_common(5))
    print(f"the server's log: {said or 'nothing'}")
    return 0 if report.consistency.ok and not report.failures else 1


if __name__ == "__main__":
    raise SystemExit(main())
