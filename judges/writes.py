"""The batched writes of judge runs: settling finished units (only those still pending) and
upserting result rows, each in one statement per batch on PostgreSQL.

The executor (:mod:`judges.execution`) writes finished units in batches. Each unit is
settled (done or failed, with its attempts, tokens, cost and error) only if it is still
pending, so that two executions of one chunk (a redelivered task, a chunk leased again)
never both settle it, and the batch's other writes (cached answers, result rows, the run's
counters) then concern only the units this execution settled.

On PostgreSQL that is one ``UPDATE … FROM unnest(…) WHERE status = 'pending' RETURNING
id``: the rows are locked by the update itself and a concurrent execution's update waits,
then finds them settled and skips them. It replaced a ``SELECT … FOR UPDATE`` followed by
Django's ``bulk_create`` upsert of every field of every unit (its payload's JSON included),
whose per-value compiling cost the worker ≈ 0.15 ms per unit and PostgreSQL an insert's
conflict path per row (issue 18). On SQLite the pending rows are read in one query and
settled by one ``executemany`` of an ``UPDATE … WHERE id = ? AND status = 'pending'``; the
results are upserted by one ``executemany`` of an ``INSERT … ON CONFLICT``. Both replaced
Django's ``bulk_create`` upserts, which compiled every value of every row and, with
``DEBUG`` on (the default install), quoted every parameter again in a second query to log
the statement: 2.5–3.5 ms per unit of the released ScholarQA-CS2 study's eager run (issue
29). Other backends keep the ORM.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, models

from .models import JudgeUnit

Status = JudgeUnit.Status


@dataclass
class Settled:
    """What one unit's execution adds to its row."""

    unit: JudgeUnit
    ok: bool
    attempts: int
    cached: bool
    prompt_tokens: int
    completion_tokens: int
    cost: float
    error: str


#: Column, SQL type of the array it is sent in, and how the row takes it (added, or set).
_COLUMNS = (
    ("status", "varchar", "set"),
    ("attempts", "integer", "add"),
    ("cached", "boolean", "set"),
    ("prompt_tokens", "integer", "add"),
    ("completion_tokens", "integer", "add"),
    ("cost", "double precision", "add"),
    ("error", "text", "set"),
)


def _statement() -> str:
    q = connection.ops.quote_name
    column = {name: q(JudgeUnit._meta.get_field(name).column) for name, _, _ in _COLUMNS}
    sets = [
        f"{column[n]} = u.{column[n]} + v.{column[n]}"
        if how == "add"
        else f"{column[n]} = v.{column[n]}"
        for n, _, how in _COLUMNS
    ]
    arrays = ", ".join(["%s::bigint[]", *(f"%s::{t}[]" for _, t, _ in _COLUMNS)])
    names = ", ".join(["id", *(column[n] for n, _, _ in _COLUMNS)])
    pk, status = q(JudgeUnit._meta.pk.column), column["status"]
    return (
        f"UPDATE {q(JudgeUnit._meta.db_table)} AS u SET {', '.join(sets)}, "
        f"{q(JudgeUnit._meta.get_field('finished_at').column)} = %s "
        f"FROM unnest({arrays}) AS v({names}) "
        f"WHERE u.{pk} = v.id AND u.{status} = %s RETURNING u.{pk}"
    )


def settle(batch: list[Settled], now: datetime) -> set[int]:
    """Settle the batch's units that are still pending (inside the caller's transaction);
    the ids of those settled."""
    if not batch:
        return set()
    if connection.vendor == "postgresql":
        return _settle_postgresql(batch, now)
    if connection.vendor == "sqlite":
        return _settle_sqlite(batch, now)
    return _settle_orm(batch, now)


def _settle_postgresql(batch: list[Settled], now: datetime) -> set[int]:
    arrays = [
        [s.unit.pk for s in batch],
        [Status.DONE if s.ok else Status.FAILED for s in batch],
        [s.attempts for s in batch],
        [s.cached for s in batch],
        [s.prompt_tokens for s in batch],
        [s.completion_tokens for s in batch],
        [float(s.cost) for s in batch],
        [s.error for s in batch],
    ]
    with connection.cursor() as cursor:
        cursor.execute(_statement(), [now, *arrays, Status.PENDING])
        return {row[0] for row in cursor.fetchall()}


def _settle_sqlite(batch: list[Settled], now: datetime) -> set[int]:
    """The pending ones read in one query, then one ``executemany`` update, each row still
    conditional on being pending (SQLite has no ``FOR UPDATE``: its write lock is taken by
    the first update and held to the commit)."""
    pending = set(
        JudgeUnit.objects.filter(
            pk__in=[s.unit.pk for s in batch], status=Status.PENDING
        ).values_list("pk", flat=True)
    )
    q = connection.ops.quote_name
    column = {name: q(JudgeUnit._meta.get_field(name).column) for name, _, _ in _COLUMNS}
    sets = [
        f"{column[n]} = {column[n]} + %s" if how == "add" else f"{column[n]} = %s"
        for n, _, how in _COLUMNS
    ]
    finished = q(JudgeUnit._meta.get_field("finished_at").column)
    sql = (
        f"UPDATE {q(JudgeUnit._meta.db_table)} SET {', '.join(sets)}, {finished} = %s "
        f"WHERE {q(JudgeUnit._meta.pk.column)} = %s AND {column['status']} = %s"
    )
    at = JudgeUnit._meta.get_field("finished_at").get_db_prep_save(now, connection)
    rows = [
        (Status.DONE if s.ok else Status.FAILED, s.attempts, s.cached, s.prompt_tokens,
         s.completion_tokens, float(s.cost), s.error, at, s.unit.pk, Status.PENDING)
        for s in batch
        if s.unit.pk in pending
    ]  # fmt: skip
    if rows:
        with connection.cursor() as cursor:
            cursor.executemany(sql, rows)
    for s in batch:  # the instances as the rows now are (as the ORM path leaves them)
        if s.unit.pk in pending:
            _apply(s, now)
    return pending


def _apply(s: Settled, now: datetime) -> JudgeUnit:
    """The unit's instance with what its execution adds (as its row now is)."""
    unit = s.unit
    unit.status = Status.DONE if s.ok else Status.FAILED
    unit.attempts += s.attempts
    unit.cached = s.cached
    unit.prompt_tokens += s.prompt_tokens
    unit.completion_tokens += s.completion_tokens
    unit.cost += s.cost
    unit.error = s.error
    unit.finished_at = now
    return unit


def _settle_orm(batch: list[Settled], now: datetime) -> set[int]:
    pending = set(
        JudgeUnit.objects.select_for_update()
        .filter(pk__in=[s.unit.pk for s in batch], status=Status.PENDING)
        .values_list("pk", flat=True)
    )
    units = [_apply(s, now) for s in batch if s.unit.pk in pending]
    # an upsert on the units' own key is one statement per 500 units (bulk_update's
    # CASE WHEN per row and field costs more than the calls themselves)
    JudgeUnit.objects.bulk_create(
        units, update_conflicts=True, unique_fields=["run", "key"],
        update_fields=["status", "attempts", "cached", "prompt_tokens", "completion_tokens",
                       "cost", "error", "finished_at"],
        batch_size=500,
    )  # fmt: skip
    return pending


def upsert(model, rows: list, unique: list[str], update: list[str] | None) -> None:
    """Insert ``rows`` (unsaved instances of ``model``); on a conflict on ``unique`` set the
    ``update`` fields (None: keep the existing row). On PostgreSQL one ``INSERT … SELECT
    FROM unnest(…)`` of one array per column, a statement whose text does not grow with the
    rows, in place of Django's ``bulk_create`` (its compiling of every value of every row
    was a third of the batched writes' CPU); on SQLite one ``executemany`` of an ``INSERT …
    ON CONFLICT`` (see the module's docstring); elsewhere ``bulk_create``."""
    if not rows:
        return
    if connection.vendor == "sqlite":
        _upsert_sqlite(model, rows, unique, update)
        return
    if connection.vendor != "postgresql":
        if update is None:
            model.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
        else:
            model.objects.bulk_create(
                rows, update_conflicts=True, unique_fields=unique, update_fields=update,
                batch_size=500,
            )  # fmt: skip
        return
    q = connection.ops.quote_name
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    # arrays of the columns' base types: a value too long for a varchar(n) then fails the
    # insert, as it would through the ORM, instead of being cut by the array's cast
    types = [re.sub(r"\(.*\)", "", f.db_type(connection)) for f in fields]
    arrays = [
        [f.get_db_prep_save(f.pre_save(row, True), connection) for row in rows] for f in fields
    ]
    target = ", ".join(q(model._meta.get_field(n).column) for n in unique)
    if update is None:
        action = "NOTHING"
    else:
        columns = [q(model._meta.get_field(n).column) for n in update]
        action = "UPDATE SET " + ", ".join(f"{c} = EXCLUDED.{c}" for c in columns)
    sql = (
        f"INSERT INTO {q(model._meta.db_table)} ({', '.join(q(f.column) for f in fields)}) "
        f"SELECT * FROM unnest({', '.join(f'%s::{t}[]' for t in types)}) "
        f"ON CONFLICT ({target}) DO {action}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, arrays)


def _upsert_sqlite(model, rows: list, unique: list[str] | None, update: list[str] | None) -> None:
    q = connection.ops.quote_name
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    if unique is None:
        conflict = ""
    elif update is None:
        conflict = f" ON CONFLICT ({', '.join(q(model._meta.get_field(n).column) for n in unique)}) DO NOTHING"
    else:
        columns = [q(model._meta.get_field(n).column) for n in update]
        conflict = (
            f" ON CONFLICT ({', '.join(q(model._meta.get_field(n).column) for n in unique)}) "
            "DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in columns)
        )
    sql = (
        f"INSERT INTO {q(model._meta.db_table)} ({', '.join(q(f.column) for f in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}){conflict}"
    )
    with connection.cursor() as cursor:
        cursor.executemany(sql, _sqlite_values(fields, rows))


#: Field types whose Python value the sqlite3 module binds as the ORM would store it (an
#: int, str, bool, float or None); their ``get_db_prep_save`` only re-checks it. Preparing
#: every value of every row through it was a third of a batch's writing (issue 29).
_AS_IS = (models.CharField, models.TextField, models.IntegerField, models.BooleanField,
          models.FloatField)  # fmt: skip


def _sqlite_values(fields: list, rows: list) -> list[tuple]:
    """Each row's column values for SQLite: the plain fields' and foreign keys' (to an
    integer key) values as they are, every other field's through ``get_db_prep_save``;
    built column by column (one comprehension per field, not a call per value)."""
    columns = []
    for f in fields:
        if isinstance(f, _AS_IS) or (
            isinstance(f, models.ForeignKey) and isinstance(f.target_field, models.IntegerField)
        ):
            name = f.attname
            columns.append([row.__dict__[name] for row in rows])
        else:
            columns.append([f.get_db_prep_save(f.pre_save(row, True), connection) for row in rows])
    return list(zip(*columns, strict=True))


def insert(model, rows: list) -> None:
    """Insert ``rows`` (unsaved instances of ``model``, no ids wanted back): on SQLite one
    ``executemany`` (a run's planned units: Django's ``bulk_create`` compiled every value
    and, with ``DEBUG`` on, quoted them all again to log the statement; issue 29),
    elsewhere ``bulk_create``. A conflict fails as ``bulk_create``'s would."""
    if not rows:
        return
    if connection.vendor == "sqlite":
        _upsert_sqlite(model, rows, None, None)
    else:
        model.objects.bulk_create(rows, batch_size=1000)
