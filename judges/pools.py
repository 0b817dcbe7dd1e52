"""Thread pools that outlive a chunk: a worker process keeps its idle pools for the next one.

A chunk keeps ``concurrency`` calls in flight on a thread pool and writes on a thread of
its own (:mod:`judges.execution`). Starting those threads for every chunk — 16 call threads
and a writer, each start waiting until the new thread runs — cost a chunk of 77 units
≈ 20–70 ms of wall time (more while other processes want the cores), and the writer's new
thread opened a new database connection every time (≈ 9 ms, plus a fresh PostgreSQL
backend). A pool given back after a chunk that ended normally is kept (``KEEP`` per size)
and lent to the next chunk; its threads are idle meanwhile. Two chunks at once in one
process (eager runs in a web server's threads) each borrow a pool of their own, so one
chunk's concurrency never eats into another's.

A pool is only given back when nothing of the chunk is still running on it (the chunk's
loop ends with nothing in flight); after an error it is shut down instead, waiting for what
was in flight, as a pool used in a ``with`` block would.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

KEEP = 2  # idle pools kept per (name, size)

_idle: dict[tuple[str, int], list[ThreadPoolExecutor]] = defaultdict(list)
_lock = threading.Lock()


def take(name: str, size: int) -> ThreadPoolExecutor:
    """An idle pool of ``size`` threads named ``name``, or a new one."""
    with _lock:
        idle = _idle[(name, size)]
        if idle:
            return idle.pop()
    return ThreadPoolExecutor(size, thread_name_prefix=name)


def give_back(
    pool: ThreadPoolExecutor, name: str, size: int, on_discard: Callable[[], None] | None = None
) -> None:
    """Keep ``pool`` (taken with ``name`` and ``size``, nothing running on it) for the next
    :func:`take`, or shut it down when ``KEEP`` are idle already, after running
    ``on_discard`` on one of its threads (e.g. to close that thread's connection)."""
    with _lock:
        idle = _idle[(name, size)]
        if len(idle) < KEEP:
            idle.append(pool)
            return
    discard(pool, on_discard)


def discard(pool: ThreadPoolExecutor, on_discard: Callable[[], None] | None = None) -> None:
    """Shut ``pool`` down, waiting for what runs on it (``on_discard`` last)."""
    try:
        if on_discard is not None:
            pool.submit(on_discard).result()
    finally:
        pool.shutdown(wait=True)


@contextmanager
def borrowed(name: str, size: int) -> Iterator[ThreadPoolExecutor]:
    """:func:`take` for a block; given back when the block ends without an error, shut
    down (after what is in flight) when it raises."""
    pool = take(name, size)
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=True)
        raise
    give_back(pool, name, size)


def discard_all() -> None:
    """Shut down every idle pool (their threads end)."""
    with _lock:
        idle = [p for ps in _idle.values() for p in ps]
        _idle.clear()
    for pool in idle:
        pool.shutdown(wait=True)
