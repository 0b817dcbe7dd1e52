"""Pure work of an import spread over the machine's cores (issue 29).

A report file's records are parsed, normalised and encoded independently of each other:
pure Python, no database, ~0.15 ms per report, on one core while the other idles; then
the database writes while Python waits. :func:`stream_parts` deals the parts of such
work to children made by ``fork`` and yields their results in order as they come, so
this process writes one part while the children prepare the next ones. A child starts
as a copy of this process (the file's text, the context of the import): nothing is sent
to it but, for work in two steps, a few numbers (where its parts begin, say); it sends
each result back, pickled once, through a pipe (~0.05 s per 30 MB).

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
from collections.abc import Callable, Iterator


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


def stream_parts(
    fn: Callable, parts: list, *, children: int, redo: tuple = (),
    survey: Callable | None = None, settle: Callable | None = None,
) -> Iterator:  # fmt: skip
    """``fn(part)`` of each part, yielded in order as soon as it is ready: the parts are
    dealt round-robin to ``children`` forked children (part ``i`` to child ``i %
    children``), each sending its results as it goes, so that the caller, on a core of
    its own, writes one part while the children prepare the next ones. With no child,
    here, one after the other.

    ``survey`` and ``settle``: work in two steps, for parts that need to know something of
    the parts before them (how many records precede a part of a file). Each child first
    does ``survey(part)`` of each of its parts, a ``(summary, kept)`` pair, and sends the
    summaries; ``settle(summaries)``, here, with every part's summary in order, returns an
    answer per part (or raises :class:`Redo`); each child is sent its parts' answers and
    then yields ``fn(kept, answer)`` part after part.

    An exception of a ``redo`` class in a child is raised here as :class:`Redo` (the
    caller does the work again in one process, to report it as the one-process work
    does); any other as :class:`PartFailed` with the child's traceback. Children left
    when the caller stops early (an exception, the generator closed) are ended."""
    if children < 1:
        try:
            if survey is None:
                for part in parts:
                    yield fn(part)
                return
            surveyed = [survey(part) for part in parts]
            answers = settle([summary for summary, _ in surveyed])
            for (_, kept), answer in zip(surveyed, answers, strict=True):
                yield fn(kept, answer)
        except redo as exc:
            raise Redo from exc
        return
    n = min(children, len(parts))
    forked = [_start(fn, parts[j::n], redo, survey) for j in range(n)]
    inboxes = [queue.SimpleQueue() for _ in forked]
    readers = [
        threading.Thread(target=_drain, args=(read, inbox), daemon=True)
        for (_, read, _), inbox in zip(forked, inboxes, strict=True)
    ]
    for reader in readers:
        reader.start()
    try:
        if survey is not None:
            summaries: list = [None] * len(parts)
            for j, inbox in enumerate(inboxes):
                summaries[j::n] = _received(inbox)
            answers = settle(summaries)
            for j, (_, _, answer) in enumerate(forked):
                _send(answer, pickle.dumps(answers[j::n], protocol=pickle.HIGHEST_PROTOCOL))
        for i in range(len(parts)):
            yield _received(inboxes[i % n])
    finally:
        for pid, _, answer in forked:
            if answer is not None:
                with contextlib.suppress(OSError):
                    os.close(answer)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # ended already: a no-op on the zombie
            os.waitpid(pid, 0)
        for reader in readers:
            reader.join()


class Redo(Exception):
    """A part raised one of the caller's ``redo`` exceptions: do the work in one process."""


#: What a child's message is: a result (pickled), a ``redo`` exception, another one (its
#: traceback, UTF-8). A message is its kind (1 byte), its size (8), then its bytes: a
#: result is pickled once, in the child, and unpickled once, here.
_OK, _REDO, _ERROR = 0, 1, 2
_HEAD = struct.Struct("<BQ")


def _received(inbox: queue.SimpleQueue):
    kind, payload = inbox.get()
    if kind == _REDO:
        raise Redo
    if kind != _OK:
        raise PartFailed(payload.decode())
    return pickle.loads(payload)


def _send(fd: int, data: bytes) -> None:
    """``data`` to a child's answer pipe, whole; a child ended meanwhile is said by its
    result pipe (:func:`_drain`), not here."""
    with contextlib.suppress(OSError):
        view = memoryview(struct.pack("<Q", len(data)) + data)
        while view:
            view = view[os.write(fd, view) :]


def _read_answer(fd: int):
    with os.fdopen(fd, "rb") as pipe:
        head = pipe.read(8)
        if len(head) < 8:
            raise PartFailed("no answer from the importing process")
        size = struct.unpack("<Q", head)[0]
        data = pipe.read(size)
        if len(data) < size:
            raise PartFailed("no answer from the importing process")
        return pickle.loads(data)


def _start(fn: Callable, parts: list, redo: tuple, survey: Callable | None):
    """A child doing ``parts``: ``(its pid, the pipe its results come by, the pipe its
    answers go by — None without survey)``."""
    read, write = os.pipe()
    answer_read, answer_write = os.pipe() if survey is not None else (None, None)
    pid = os.fork()
    if pid:  # this process
        os.close(write)
        if answer_read is not None:
            os.close(answer_read)
        return pid, read, answer_write
    # the child: computes, sends, and leaves without running anything of the parent's
    # (no atexit, no finaliser of a database connection it shares with the parent)
    code = 0
    try:
        os.close(read)
        if answer_write is not None:
            os.close(answer_write)
        with os.fdopen(write, "wb") as pipe:

            def send(kind: int, payload: bytes) -> None:
                pipe.write(_HEAD.pack(kind, len(payload)))
                pipe.write(payload)
                pipe.flush()

            def attempt(work):
                try:
                    return _OK, pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
                except redo:
                    return _REDO, b""
                except BaseException:
                    return _ERROR, traceback.format_exc().encode()

            jobs = [(part,) for part in parts]
            if survey is not None:
                kept: list = []
                kind, payload = attempt(lambda: [_kept(kept, survey(p)) for p in parts])
                send(kind, payload)
                if kind != _OK:
                    return
                jobs = list(zip(kept, _read_answer(answer_read), strict=True))
                del kept
            jobs.reverse()
            while jobs:  # each part's state let go once its result is sent
                job = jobs.pop()
                kind, payload = attempt(lambda job=job: fn(*job))
                del job
                send(kind, payload)
                if kind != _OK:
                    break
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _kept(kept: list, surveyed: tuple):
    """The summary of a part's survey, its kept state put aside in ``kept``."""
    summary, state = surveyed
    kept.append(state)
    return summary


def _drain(fd: int, inbox: queue.SimpleQueue) -> None:
    """Every message of a child, into ``inbox`` (a thread of its own: a child never waits
    for the pipe while the caller writes); an ended child without a word is an error."""
    with os.fdopen(fd, "rb") as pipe:
        while True:
            head = pipe.read(_HEAD.size)
            if len(head) < _HEAD.size:
                inbox.put((_ERROR, b"an import process ended without a result"))
                return
            kind, size = _HEAD.unpack(head)
            payload = pipe.read(size)
            if len(payload) < size:
                inbox.put((_ERROR, b"an import process ended in the middle of a result"))
                return
            inbox.put((kind, payload))
