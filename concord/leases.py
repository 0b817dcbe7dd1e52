"""Leased runs: work executed by a Celery task that must not be done twice nor lost.

Judge runs (and their chunks, :mod:`judges.runs`) and report runs (:mod:`metaeval.tasks`)
share one discipline, declared here once:

* **lease**: a row carries the token of the one execution allowed to write it. Every write
  of an execution is conditional on its token, so a message the broker redelivers after a
  restart (it carries the old token) does nothing.
* **claim**: an execution starts by one conditional UPDATE that moves the row to its
  *running* status; it fails when the token changed or the row is in a status that is never
  claimed (done, cancelled, …).
* **heartbeat**: the executing worker writes ``heartbeat_at`` every few seconds (from its
  loop, or from a side thread while one long computation runs). A *running* row whose
  heartbeat is older than ``stale_after`` has lost its worker.
* **take-over**: a stale (or explicitly restarted) row gets a new token and goes back to its
  *queued* status in one conditional UPDATE, so two schedulers cannot both take it over,
  and a row that finished or beat meanwhile is left alone; the caller then queues it again.

Each model keeps its own status names (``queued`` for a judge run, ``pending`` for a report
run: they are stored, shown in the pages and returned by the API), so a :class:`Leases` is
declared per model with the names of its statuses.

Why here, in ``concord/``: this module knows nothing of any app (it is given the model), and
both ``judges`` and ``metaeval`` use it. In ``annotation/`` (the lowest app) it would make
the content-and-people app the home of task plumbing; ``concord/`` already holds the
project's infrastructure (Celery app, settings, token auth) that the apps build on, and the
layering check (annotation ← judges ← metaeval) does not police it.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

from django.db import connection
from django.db.models import Model, QuerySet
from django.utils import timezone


def new_lease() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True)
class Leases:
    """The lease discipline of one model (which needs ``status``, ``lease`` and
    ``heartbeat_at`` fields)."""

    model: type[Model]
    #: Status of a row waiting for an execution (set by a take-over).
    queued: str
    #: Status of a row an execution holds.
    running: str
    #: Statuses an execution never leaves (done, cancelled): no claim, no settling.
    final: tuple[str, ...]
    #: When set, a claim only takes a row in one of these statuses (a chunk is claimed only
    #: while queued, so a duplicate message of a running chunk does nothing).
    claimable: tuple[str, ...] | None = None
    #: A running row whose heartbeat is older than this has lost its worker.
    stale_after: timedelta = timedelta(seconds=60)
    #: Seconds between two heartbeats of the side thread (:meth:`beating`).
    heartbeat_every: float = 5.0

    def held(self, pk, lease: str) -> QuerySet:
        """The row, as long as ``lease`` holds it (every write of an execution goes here)."""
        return self.model.objects.filter(pk=pk, lease=lease)

    def claim(self, pk, lease: str, **fields) -> bool:
        """Move the row to *running* for the execution holding ``lease``; False when the
        lease was taken over or the row's status is not one a claim takes."""
        rows = self.held(pk, lease).exclude(status__in=self.final)
        if self.claimable is not None:
            rows = rows.filter(status__in=self.claimable)
        return bool(rows.update(status=self.running, heartbeat_at=timezone.now(), **fields))

    def beat(self, pk, lease: str, **fields) -> bool:
        """Heartbeat; False when the execution lost its lease or the row stopped running
        (cancelled, taken over): the execution should then stop."""
        return bool(
            self.held(pk, lease)
            .filter(status=self.running)
            .update(heartbeat_at=timezone.now(), **fields)
        )

    def settle(self, pk, lease: str, status: str, **fields) -> bool:
        """The execution's last write: its final status, if it still holds the lease."""
        return bool(
            self.held(pk, lease)
            .exclude(status__in=self.final)
            .update(status=status, finished_at=timezone.now(), **fields)
        )

    def is_stale(self, row, now=None, stale_after: timedelta | None = None) -> bool:
        """True when a running row has shown no life for ``stale_after``."""
        now = now or timezone.now()
        limit = self.stale_after if stale_after is None else stale_after
        return row.status == self.running and (
            row.heartbeat_at is None or now - row.heartbeat_at > limit
        )

    def stale(self, stale_after: timedelta | None = None, rows: QuerySet | None = None):
        """The running rows whose heartbeat is older than ``stale_after``."""
        limit = self.stale_after if stale_after is None else stale_after
        rows = self.model.objects.all() if rows is None else rows
        return rows.filter(status=self.running, heartbeat_at__lt=timezone.now() - limit)

    def take_over(self, rows: QuerySet, **fields) -> str | None:
        """Give ``rows`` (one row, with its conditions) a new lease and the *queued* status
        in one conditional UPDATE; the new lease, or None when the conditions no longer
        hold (the row finished, beat or was taken over meanwhile)."""
        lease = new_lease()
        return lease if rows.update(lease=lease, status=self.queued, **fields) else None

    def take_over_stale(
        self,
        queue: Callable[[object, str], None],
        stale_after: timedelta | None = None,
        rows: QuerySet | None = None,
        **fields,
    ) -> list:
        """Take over every stale row and ``queue(pk, new_lease)`` it; the pks taken."""
        stale = self.stale(stale_after, rows)
        taken = []
        for pk in list(stale.values_list("pk", flat=True)):
            lease = self.take_over(stale.filter(pk=pk), **fields)
            if lease:
                queue(pk, lease)
                taken.append(pk)
        return taken

    @contextmanager
    def beating(self, pk, lease: str, *, enabled: bool = True, every: float | None = None):
        """Keep the row's heartbeat fresh from a daemon thread while the body runs (for a
        body that cannot beat itself, e.g. one long numpy computation)."""
        if not enabled:
            yield
            return
        stop = threading.Event()
        every = self.heartbeat_every if every is None else every

        def beat() -> None:
            try:
                while not stop.wait(every):
                    self.beat(pk, lease)
            finally:
                connection.close()  # the thread's own connection

        name = f"{self.model._meta.model_name}-{pk}-heartbeat"
        thread = threading.Thread(target=beat, name=name, daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()
