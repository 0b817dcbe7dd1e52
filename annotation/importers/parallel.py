"""Pure work of an import spread over the machine's cores (issue 29).

A report file's records are parsed, normalised and encoded independently of each other:
pure Python, no database, ~0.15 ms per report, on one core while the other idles; then
the database writes while Python waits. :func:`stream_parts` deals the parts of such
work to children made by ``fork`` and yields their results in order as they come, so
this process writes one part while the children prepare the next ones. A child starts
as a copy of this process (the file's text, the context of the import): nothing is sent
to it; it sends each result back, pickled, through a pipe (~0.05 s per 30 MB).

Why ``fork`` and not a pool: a pool's processes would need the file sent to them, and a
pool kept alive between imports is memory the server keeps for nothing. Why only when
this process has one thread (:func:`processes`): a child of a threaded process copies
locks other threads may hold (a web server's threads, a logging handler's) and could
wait on them forever, so a threaded caller (the browser's import in a threaded web
server, an eager task in it) does the parts one after the other, itself.
``CONCORD_IMPORT_PROCESSES`` caps the processes (1: never fork).

A part that raises one of the caller's ``redo`` exceptions (a problem in the file) is
reported as :class:`Redo`: the caller does the work again in one process, so that the
problems are named exactly as the one-process import names them. Anything else is a
:class:`PartFailed` carrying the child's traceback.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import signal
import struct
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence

#: Fewest records per part: below it a fork (~10 ms for a large process) is not worth it.
MIN_PER_PART = 250


class PartFailed(RuntimeError):
    """A part raised something unexpected in a child (its traceback is the message)."""


def processes() -> int:
    """How many processes an import may use now: the cores this process may run on,
    capped by ``CONCORD_IMPORT_PROCESSES``; 1 when fork is unavailable or another thread
    runs (module doc)."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    cap = os.environ.get("CONCORD_IMPORT_PROCESSES", "").strip()
    if cap:
        try:
            cores = min(cores, max(1, int(cap)))
        except ValueError:
            raise ValueError(
                f"CONCORD_IMPORT_PROCESSES must be a whole number, not {cap!r}"
            ) from None
    return max(1, cores)


def split(items: Sequence, parts: int) -> list[tuple[int, Sequence]]:
    """``(offset, slice)`` of ``items`` in at most ``parts`` contiguous parts of nearly equal
    size, none smaller than :data:`MIN_PER_PART` unless there is only one."""
    parts = max(1, min(parts, len(items) // MIN_PER_PART))
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for k in range(parts):
        end = start + size + (1 if k < extra else 0)
        out.append((start, items[start:end]))
        start = end
    return out


def stream_parts(fn: Callable, parts: list, *, children: int, redo: tuple = ()) -> Iterator:
    """``fn(part)`` of each part, yielded in order as soon as it is ready: the parts are
    dealt round-robin to ``children`` forked children (part ``i`` to child ``i %
    children``), each sending its results as it goes, so that the caller, on a core of
    its own, writes one part while the children prepare the next ones. With no child,
    here, one after the other.

    An exception of a ``redo`` class in a child is raised here as :class:`Redo` (the
    caller does the work again in one process, to report it as the one-process work
    does); any other as :class:`PartFailed` with the child's traceback. Children left
    when the caller stops early (an exception, the generator closed) are ended."""
    if children < 1:
        for part in parts:
            try:
                yield fn(part)
            except redo as exc:
                raise Redo from exc
        return
    n = min(children, len(parts))
    forked = [_start(fn, parts[j::n], redo) for j in range(n)]
    inboxes = [queue.SimpleQueue() for _ in forked]
    readers = [
        threading.Thread(target=_drain, args=(fd, inbox), daemon=True)
        for (_, fd), inbox in zip(forked, inboxes, strict=True)
    ]
    for reader in readers:
        reader.start()
    try:
        for i in range(len(parts)):
            status, value = inboxes[i % n].get()
            if status == "redo":
                raise Redo
            if status != "ok":
                raise PartFailed(value)
            yield pickle.loads(value)
    finally:
        for pid, _ in forked:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # ended already: a no-op on the zombie
            os.waitpid(pid, 0)
        for reader in readers:
            reader.join()


class Redo(Exception):
    """A part raised one of the caller's ``redo`` exceptions: do the work in one process."""


def _start(fn: Callable, parts: list, redo: tuple) -> tuple[int, int]:
    read, write = os.pipe()
    pid = os.fork()
    if pid:  # this process
        os.close(write)
        return pid, read
    # the child: computes, sends, and leaves without running anything of the parent's
    # (no atexit, no finaliser of a database connection it shares with the parent)
    code = 0
    try:
        os.close(read)
        with os.fdopen(write, "wb") as pipe:
            for part in parts:
                try:
                    message = ("ok", pickle.dumps(fn(part), protocol=pickle.HIGHEST_PROTOCOL))
                except redo:
                    message = ("redo", None)
                except BaseException:
                    message = ("error", traceback.format_exc())
                payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
                pipe.write(struct.pack("<Q", len(payload)))
                pipe.write(payload)
                pipe.flush()
                if message[0] != "ok":
                    break
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _drain(fd: int, inbox: queue.SimpleQueue) -> None:
    """Every message of a child, into ``inbox`` (a thread of its own: a child never waits
    for the pipe while the caller writes); an ended child without a word is an error."""
    with os.fdopen(fd, "rb") as pipe:
        while True:
            head = pipe.read(8)
            if len(head) < 8:
                inbox.put(("error", "an import process ended without a result"))
                return
            size = struct.unpack("<Q", head)[0]
            payload = pipe.read(size)
            if len(payload) < size:
                inbox.put(("error", "an import process ended in the middle of a result"))
                return
            inbox.put(pickle.loads(payload))
