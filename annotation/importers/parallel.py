"""Pure work of an import spread over the machine's cores (issue 29).

A report file's records are parsed, normalised and encoded independently of each other:
pure Python, no database, ~0.15 ms per report, all on one core while the other idles
(the database writes only after). :func:`map_parts` runs ``fn`` on each part, the last in
this process and each other one in a child made by ``fork``: the child starts as a copy
of this process (the file's text, the context of the import), so nothing is sent to it;
it sends back its result, pickled, through a pipe (~0.05 s per 30 MB).

Why ``fork`` and not a pool: a pool's processes would need the file sent to them, and a
pool kept alive between imports is memory the server keeps for nothing. Measured on the
project's two-core machine (``bench/report_import.py``, 5,000 reports per file): the
preparation of a file 0.67 → 0.44–0.51 s; the whole import on PostgreSQL 4.4–4.5 →
3.9–4.2 s, on SQLite within the machine's noise (its write is in this process too). Why only when this process has
one thread: a child of a threaded process copies locks other threads may hold (a web
server's threads, a logging handler's) and could wait on them forever, so a threaded
caller (the browser's import in a threaded web server, an eager task in it) runs the
parts one after the other, here. ``CONCORD_IMPORT_PROCESSES`` caps the processes (1:
never fork).

A part that fails in a child is reported as :class:`PartFailed` (its traceback as text)
or, for an :class:`~.base.ImportFailed`, as that: the caller redoes the work in one
process to report the problems exactly as the one-process import does.
"""

from __future__ import annotations

import os
import pickle
import struct
import threading
import traceback
from collections.abc import Callable, Sequence

from .base import ImportFailed

#: Fewest records per part: below it a fork (~10 ms for a large process) is not worth it.
MIN_PER_PART = 250


class PartFailed(RuntimeError):
    """A part raised something other than :class:`ImportFailed` in a child."""


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


def map_parts(fn: Callable, parts: list) -> list:
    """``[fn(part) for part in parts]``, the parts but the last each in a forked child
    (module doc). Results in the order of ``parts``; the first failure raised (an
    :class:`ImportFailed` as such, anything else as :class:`PartFailed`) once every child
    is done."""
    if len(parts) <= 1:
        return [fn(part) for part in parts]
    children = [_start(fn, part) for part in parts[:-1]]
    failure: BaseException | None = None
    try:
        own = fn(parts[-1])
    except BaseException as exc:  # the children are collected first, then this is raised
        failure, own = exc, None
    results = []
    for pid, fd in children:
        status, value = _collect(pid, fd)
        if status == "ok":
            results.append(value)
        elif failure is None:
            failure = ImportFailed([]) if status == "import-failed" else PartFailed(value)
    if failure is not None:
        raise failure
    return [*results, own]


def _start(fn: Callable, part) -> tuple[int, int]:
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
        try:
            payload = pickle.dumps(("ok", fn(part)), protocol=pickle.HIGHEST_PROTOCOL)
        except ImportFailed:
            payload = pickle.dumps(("import-failed", None))
        except BaseException:
            payload = pickle.dumps(("error", traceback.format_exc()))
        _send(write, payload)
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _send(fd: int, payload: bytes) -> None:
    with os.fdopen(fd, "wb") as pipe:
        pipe.write(struct.pack("<Q", len(payload)))
        pipe.write(payload)


def _collect(pid: int, fd: int) -> tuple[str, object]:
    with os.fdopen(fd, "rb") as pipe:
        head = pipe.read(8)
        payload = pipe.read(struct.unpack("<Q", head)[0]) if len(head) == 8 else b""
    _, status = os.waitpid(pid, 0)
    if not payload:
        return "error", f"an import process ended without a result (status {status})"
    return pickle.loads(payload)
