"""CPU seconds used by each party of a benchmark, read from ``/proc`` (utime + stime).

Shared by the benchmarks that run several processes (``judge_throughput.py``, ``load.py``):
wall time on this machine is disturbed by whoever else uses its two cores, CPU time much
less. Processes are sampled every ``POLL`` s, so a process that exits (a PostgreSQL backend
whose connection closed, a restarted gunicorn worker) loses at most its last interval.
"""

from __future__ import annotations

import os
import resource
import threading
import time
from collections.abc import Callable, Iterable

POLL = 0.5


def own_cpu() -> float:
    """CPU seconds (user + system) of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(fn) -> tuple[float, float, object]:
    """``(wall seconds, this process's CPU seconds, fn())`` of one call of ``fn``."""
    wall, used = time.perf_counter(), own_cpu()
    value = fn()
    return time.perf_counter() - wall, own_cpu() - used, value


def ticks(pid: int) -> float:
    """CPU seconds (user + system) of a process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> set[int]:
    """A process's direct children (a gunicorn master's workers)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return {int(p) for p in f.read().split()}
    except OSError:
        return set()


class CPU:
    """CPU seconds used by each party from now to :meth:`stop`. ``parties`` maps a name to
    a function giving its process ids now (called at every sample, so processes started
    later count from zero); ``database``: also the PostgreSQL backends serving it ("pg")."""

    def __init__(
        self, parties: dict[str, Callable[[], Iterable[int]]], database: str | None = None
    ):
        self.parties = parties
        self.members: dict[str, set[int]] = {k: set() for k in parties}
        self.db = f" {database} " if database else None
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.pg: set[int] = set()
        self.seen: set[int] = set()
        self.postmaster: int | None = None
        self.own = time.process_time()
        self._sample(first=True)
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _pg_backends(self) -> set[int]:
        """The postmaster's children serving the database (the postmaster is found once,
        from a backend of that database)."""
        if self.db is None:
            return set()
        if self.postmaster is None:
            for name in filter(str.isdigit, os.listdir("/proc")):
                if self._serves_db(int(name)):
                    with open(f"/proc/{name}/status") as f:
                        ppid = next(line for line in f if line.startswith("PPid:"))
                    self.postmaster = int(ppid.split()[1])
                    break
            else:
                return set()
        now = children(self.postmaster)
        for pid in now - self.seen:
            self.seen.add(pid)
            if self._serves_db(pid):
                self.pg.add(pid)
        return self.pg & now

    def _serves_db(self, pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().decode(errors="replace")
        except OSError:
            return False
        return cmd.startswith("postgres: ") and self.db in cmd

    def _sample(self, first: bool = False) -> None:
        """A process first seen after the start (a new backend) counts from zero."""
        pids = set(self._pg_backends())
        for name, find in self.parties.items():
            now = set(find())
            self.members[name] |= now
            pids |= now
        for pid in pids:
            try:
                t = ticks(pid)
            except OSError:
                continue
            if first:
                self.first[pid] = t
            self.last[pid] = t

    def _loop(self) -> None:
        while not self._done.wait(POLL):
            self._sample()

    def stop(self) -> dict[str, float]:
        """Seconds per party, "pg" for the database's backends and "bench" for this
        process (all its threads)."""
        self._done.set()
        self._thread.join()
        self._sample()

        def used(pids) -> float:
            return sum(self.last.get(p, 0.0) - self.first.get(p, 0.0) for p in pids)

        out = {k: used(v) for k, v in self.members.items()}
        out["pg"] = used(self.pg)
        out["bench"] = time.process_time() - self.own
        return out
