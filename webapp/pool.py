"""Analyses, and the /play computer players' thinking, served from a bounded pool of worker
processes, one per core.

The solver is Python around CP-SAT, which releases the GIL only while it searches: in one
process, the threads serving analyses take turns on one core, and a slow answer holds up every
answer queued behind it. Here each question goes to a worker process (at most
``ANALYSIS_WORKERS``, one per usable core by default), so the cores all work and a slow answer
takes one worker, not the server. At most ``QUEUED_PER_WORKER`` questions per worker wait; a
question that cannot get a place within ``QUEUE_WAIT`` seconds is refused with a 503 that says
when to ask again.

``answer(question)`` is what the views call: an answer in the cache is returned at once and
costs nothing; otherwise the client's analysis budget is spent (``safety.spend_analysis``) and
a worker answers with ``webapp.questions.answer`` itself (in a small app of its own, so the
question is read and answered by the same code either way); the answer is kept in this
process's cache when ``questions.answer`` would have kept it. ``in_worker(function, ...)`` runs
any other such work there (the /play table's computer turns, ``webapp.tables.play_on``): the
serving process's threads then never wait on its Python for the GIL.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from flask import Flask, current_app
from werkzeug.exceptions import ServiceUnavailable

from analyzer import Question, QuestionError
from webapp import questions
from webapp.safety import spend_analysis

T = TypeVar("T")

QUEUED_PER_WORKER = 4  # questions waiting for each worker, at most
QUEUE_WAIT = 10.0  # seconds a question may wait for a place in the queue


class Busy(ServiceUnavailable):
    """Every worker busy and the queue full: ask again in a moment."""

    description = "The analyser is busy with other questions: ask again in a few seconds."


def answer(question: Question) -> dict[str, Any]:
    """The analyser's answer to ``question`` as ``questions.answer`` gives it: from the cache
    when asked before (free), else worked out by a worker (one use of the client's budget)."""
    cache: questions.AnswerCache = current_app.extensions["answers"]
    found = cache.get(question)
    if found is not None:
        return found
    spend_analysis()
    workers = _workers(current_app)
    if workers == 0:
        return questions.answer(question)
    answered, keep = _pool(workers).run(question)
    if keep:
        cache.put(question, answered)
    return answered


def in_worker(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` worked out by a worker (a module's function, its arguments and result
    pickled; its exceptions raised here), or in this thread when the app has no workers."""
    workers = _workers(current_app)
    if workers == 0:
        return function(*args)
    return _pool(workers).call(function, *args)


def _workers(app: Flask) -> int:
    configured = app.config.get("ANALYSIS_WORKERS")
    if configured is None:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(0, int(configured))


class Pool:
    """A process pool with a bounded queue, made again if a worker dies."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._places = threading.BoundedSemaphore(workers * (1 + QUEUED_PER_WORKER))
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None

    def _started(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                methods = multiprocessing.get_all_start_methods()
                # Never fork the serving process (its threads, the solver's): a fork server
                # that has imported the analyser once makes each worker quickly.
                context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
                if context.get_start_method() == "forkserver":
                    context.set_forkserver_preload([__name__, "webapp.tables"])
                self._executor = ProcessPoolExecutor(self.workers, mp_context=context, initializer=_watch,
                                                     initargs=(os.getpid(),))
            return self._executor

    def run(self, question: Question) -> tuple[dict[str, Any], bool]:
        """The answer and whether to keep it in the cache; a ``QuestionError`` as the question's."""
        outcome, value, keep = self.call(_answer_in_worker, question)
        if outcome == "error":
            raise QuestionError(value)
        return value, keep

    def call(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker, once a place in the queue is free (``Busy`` if none
        is within ``QUEUE_WAIT`` seconds, or if the worker died)."""
        if not self._places.acquire(timeout=QUEUE_WAIT):
            raise Busy(retry_after=2)
        try:
            executor = self._started()
            try:
                return executor.submit(function, *args).result()
            except BrokenProcessPool:  # a worker died (killed, out of memory): start afresh next time
                with self._lock:
                    if self._executor is executor:
                        self._executor = None
                executor.shutdown(wait=False, cancel_futures=True)
                raise Busy(retry_after=2) from None
        finally:
            self._places.release()

    def shutdown(self) -> None:
        with self._lock:
            if self._executor is not None:
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = None


_pools: dict[int, Pool] = {}
_pools_lock = threading.Lock()


def _pool(workers: int) -> Pool:
    """This process's pool of ``workers`` (one per process, made on first use: after a server
    has forked its own workers, never before)."""
    with _pools_lock:
        pool = _pools.get(workers)
        if pool is None:
            pool = _pools[workers] = Pool(workers)
        return pool


@atexit.register
def _shut_down() -> None:
    for pool in list(_pools.values()):
        pool.shutdown()


# ---- in the worker -----------------------------------------------------------------------------------

_worker_app: Flask | None = None
WORKER_NICENESS = 5
WATCH_EVERY = 1.0  # seconds between a worker's looks at the server that started it


def _watch(server: int) -> None:
    """A worker's first act: a lower priority than the serving process's (``WORKER_NICENESS``:
    where the cores are all busy, a page is served before a worker's long thinking goes on),
    then a thread that ends the worker when the server process is gone. A server stopped by a
    signal runs no exit handler, and its workers (children of the fork server, not of it) would
    otherwise wait on their queue for ever."""
    os.nice(WORKER_NICENESS)
    def watch() -> None:
        while True:
            time.sleep(WATCH_EVERY)
            try:
                os.kill(server, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:  # another user's process now has the id: ours is gone
                os._exit(0)

    threading.Thread(target=watch, name="server-watch", daemon=True).start()


def _answer_in_worker(question: Question) -> tuple[str, Any, bool]:
    """``("answer", answer, keep)`` or ``("error", {field: message}, False)``: plain values, as
    an exception with its own constructor does not cross the process boundary intact."""
    global _worker_app
    if _worker_app is None:
        _worker_app = Flask(__name__)
    # A cache of one: whether ``questions.answer`` kept the answer is whether the parent should.
    _worker_app.extensions["answers"] = questions.AnswerCache(1)
    with _worker_app.app_context():
        try:
            answered = questions.answer(question)
        except QuestionError as error:
            # Its mapping of fields to messages: the same error is made again from it on the other side.
            return "error", dict(error.fields), False
        return "answer", answered, _worker_app.extensions["answers"].get(question) is not None
