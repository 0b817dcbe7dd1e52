"""Import: validate a whole backup, then write it in one transaction with new primary keys.

Two passes over the file. The first reads every table, checks each value against its
column, each foreign key against the ids the backup holds, the ids inside JSON columns, the
counts and checksums, and then checks against the database: the study's name, the natural
keys of shared rows (users, annotators, judges) and unique columns. Only when nothing is
wrong does the second pass write, in one transaction. Primary keys are allocated up front
(PostgreSQL: from the table's sequence; SQLite: past the largest id, under the write lock)
in the order of the old ids, so rows keep their relative order and are inserted with COPY
or multi-row INSERTs instead of one model instance each.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, models, transaction
from django.db.models.fields import PositiveIntegerRelDbTypeMixin

from annotation.importers.base import ImportFailed, Problem
from annotation.importers.common import insert_rows
from annotation.models.content import public_token

from . import archive, graph, remap
from .dump import ROLES_COLUMN, USER_COLUMNS

BATCH = 5000
MAX_PROBLEMS = 50


@dataclass
class RestoreSummary:
    study: str = ""
    study_id: int | None = None
    dry_run: bool = False
    created: dict[str, int] = field(default_factory=dict)
    matched: dict[str, int] = field(default_factory=dict)
    users_created: list[str] = field(default_factory=list)
    #: user name -> roles the backup gives a user it creates; granted only with
    #: ``grant_roles`` (``--grant-roles``). Privilege flags (is_staff, is_superuser) are
    #: never carried over from a backup.
    roles: dict[str, list[str]] = field(default_factory=dict)
    roles_granted: bool = False
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        verb = "would import" if self.dry_run else "imported"
        lines = [f"{verb} study {self.study!r} ({sum(self.created.values())} rows)"]
        lines += [f"  {n:>9}  {label}" for label, n in self.created.items() if n]
        for label, n in self.matched.items():
            if n:
                lines.append(f"  matched {n} existing {label} row(s) by natural key")
        if self.users_created:
            lines.append(
                f"created {len(self.users_created)} user(s) WITHOUT a usable password "
                f"(set one with `manage.py changepassword` or an invitation link): "
                + ", ".join(self.users_created)
            )
        if self.roles:
            given = "; ".join(f"{u}: {', '.join(r)}" for u, r in sorted(self.roles.items()))
            if self.roles_granted:
                lines.append(f"granted the backup's roles: {given}")
            else:
                lines.append(
                    f"roles in the backup, NOT granted (re-run with --grant-roles to grant "
                    f"them): {given}"
                )
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


class _TooMany(Exception):
    pass


class _DryRun(Exception):
    pass


# --- validation of single values ----------------------------------------------------------

_INT = (
    models.AutoField, models.BigAutoField, models.SmallAutoField, models.IntegerField,
    models.ForeignKey,
)  # fmt: skip
_TEXT = (models.CharField, models.TextField)


def _checker(f: models.Field):
    """A function value -> error message (or None) for one column."""
    if isinstance(f, models.BooleanField):
        return lambda v: None if isinstance(v, bool) else "expected true or false"
    if isinstance(f, _INT):
        positive = isinstance(f, PositiveIntegerRelDbTypeMixin)

        def check_int(v):
            if not isinstance(v, int) or isinstance(v, bool):
                return "expected an integer"
            return "must not be negative" if positive and v < 0 else None

        return check_int
    if isinstance(f, models.FloatField):
        return lambda v: (
            None if isinstance(v, int | float) and not isinstance(v, bool) else "expected a number"
        )
    if isinstance(f, _TEXT):
        choices = {str(c) for c in dict(f.flatchoices)} if f.choices else None
        limit = getattr(f, "max_length", None) if isinstance(f, models.CharField) else None

        def check_text(v):
            if not isinstance(v, str):
                return "expected a string"
            if limit and len(v) > limit:
                return f"longer than {limit} characters"
            if choices and v not in choices:
                return f"{v!r} is not one of {', '.join(sorted(choices))}"
            return None

        return check_text
    if isinstance(f, models.JSONField):
        return lambda v: None

    def check_other(v):  # dates, times and anything added later: the field's own parser
        try:
            f.to_python(v)
        except (ValidationError, TypeError, ValueError) as exc:
            return f"invalid value {v!r} ({exc})"
        return None

    return check_other


def _roles_checker(value):
    if not isinstance(value, list) or not all(isinstance(r, str) for r in value):
        return "expected a list of role names"
    return None


# --- the two passes -----------------------------------------------------------------------


class _Plan:
    """What pass 1 learned and pass 2 needs."""

    def __init__(self, reader: archive.Reader, new_name: str | None):
        self.reader = reader
        self.new_name = new_name
        self.tables = graph.tables()
        self.by_label = {t.label: t for t in self.tables}
        self.ids: dict[str, set[int]] = defaultdict(set)
        self.problems: list[Problem] = []
        self.study_name = ""
        self.users: dict[int, list] = {}  # old id -> row (shared rows are few)
        self.shared: dict[str, dict[int, list]] = defaultdict(dict)
        self.unique: dict[tuple[str, str], dict] = defaultdict(dict)  # value -> (line, old id)
        self.tokens: dict[str, str] = {}
        self.existing: dict[str, dict[int, int]] = defaultdict(dict)  # shared old -> new id
        self.referenced = {target for t in self.tables for target in t.fks.values()} | {
            target for targets, _ in graph.ID_COLUMNS.values() for target in targets
        }

    def problem(self, label, line, fieldname, message):
        self.problems.append(Problem(f"{self.reader.name} [{label}]", line, fieldname, message))
        if len(self.problems) >= MAX_PROBLEMS:
            raise _TooMany

    def columns_of(self, t: graph.Table) -> list[str]:
        if t.model is get_user_model():
            return [*USER_COLUMNS, ROLES_COLUMN]
        return t.columns


def _validate(plan: _Plan) -> None:
    known = {t.label for t in plan.tables}
    for label in plan.reader.entries:
        if label not in known:
            plan.problem(label, None, None, "a table this Concord does not have (newer backup?)")
    for t in plan.tables:
        entry = plan.reader.entries.get(t.label)
        if entry is None:
            if t.kind == "root":
                plan.problem(t.label, None, None, "the study itself is missing")
            continue  # a table added to Concord after the backup was made: nothing to restore
        expected = plan.columns_of(t)
        if entry["columns"] != expected:
            missing = sorted(set(expected) - set(entry["columns"]))
            extra = sorted(set(entry["columns"]) - set(expected))
            plan.problem(
                t.label, None, None,
                f"columns differ from this Concord's (missing: {missing or 'none'}; "
                f"unknown: {extra or 'none'})",
            )  # fmt: skip
            continue
        _validate_table(plan, t)
    _validate_against_database(plan)


def _validate_table(plan: _Plan, t: graph.Table) -> None:
    if t.model is get_user_model():
        fields = [t.model._meta.get_field(c) for c in USER_COLUMNS]
    else:
        fields = t.fields
    checks = [(i, f, _checker(f)) for i, f in enumerate(fields)]
    if t.model is get_user_model():
        roles = Group._meta.get_field("name")
        checks.append((len(fields), roles, _roles_checker))
    fk_at = [(i, t.fks[f.attname], f) for i, f in enumerate(fields) if f.attname in t.fks]
    id_columns = [
        (i, f, remap.FUNCTIONS[(t.label, f.name)])
        for i, f in enumerate(fields)
        if (t.label, f.name) in remap.FUNCTIONS
    ]
    unique_at = [
        (i, f)
        for i, f in enumerate(fields)
        if f.unique and not f.primary_key and not f.is_relation and t.kind in ("root", "study")
    ]
    ids = plan.ids[t.label]

    def member_lookup(target, value):
        if value not in plan.ids[target]:
            raise remap.Unresolved(target, value)
        return value

    for line, row in plan.reader.rows(t.label, plan.problems):
        pk = row[0]
        ok = True
        for i, f, check in checks:
            value = row[i]
            if value is None:
                message = None if f.null else "required (null in the backup)"
            else:
                message = check(value)
            if message:
                plan.problem(t.label, line, f.name, f"{t.label} id {pk}: {message}")
                ok = False
        if not ok:
            continue
        if pk in ids:
            plan.problem(t.label, line, "id", f"id {pk} appears twice")
            continue
        for i, target, f in fk_at:
            if row[i] is not None and row[i] not in plan.ids[target]:
                plan.problem(
                    t.label, line, f.name,
                    f"{t.label} id {pk}: {target} id {row[i]} is not in the backup",
                )  # fmt: skip
        for i, f, fn in id_columns:
            try:
                fn(row[i], member_lookup)
            except remap.Unresolved as exc:
                plan.problem(t.label, line, f.name, f"{t.label} id {pk}: {exc}")
        for i, f in unique_at:
            seen = plan.unique[(t.label, f.name)]
            if row[i] in seen:
                plan.problem(t.label, line, f.name, f"{t.label} id {pk}: {row[i]!r} appears twice")
            seen[row[i]] = pk
        ids.add(pk)
        if t.kind == "shared":
            plan.shared[t.label][pk] = row
        if t.kind == "root":
            plan.study_name = row[t.columns.index("name")]


def _validate_against_database(plan: _Plan) -> None:
    """Clashes with what the database already holds; shared rows matched by natural key."""
    root = plan.by_label[graph.ROOT]
    name = plan.new_name or plan.study_name
    if root.model.objects.filter(name=name).exists():
        how = "choose another name with --as" if plan.new_name else "import it with --as NEW_NAME"
        plan.problem(graph.ROOT, 1, "name", f"a study named {name!r} already exists; {how}")
    if plan.new_name is not None:
        limit = root.model._meta.get_field("name").max_length
        if not plan.new_name.strip() or len(plan.new_name) > limit:
            plan.problem(graph.ROOT, 1, "name", f"--as must be 1–{limit} characters")
    _match_shared(plan)
    issued: set[str] = set()
    for (label, fieldname), values in plan.unique.items():
        t = plan.by_label[label]
        if label == graph.ROOT:
            continue
        f = t.model._meta.get_field(fieldname)
        keys = list(values)
        for start in range(0, len(keys), 1000):
            chunk = keys[start : start + 1000]
            for taken in t.model._default_manager.filter(**{f"{fieldname}__in": chunk}).values_list(
                fieldname, flat=True
            ):
                if f.default is public_token:
                    plan.tokens[taken] = _fresh_token(values, issued)
                else:
                    plan.problem(
                        label, None, fieldname,
                        f"{label} id {values[taken]}: {taken!r} already exists in the database",
                    )  # fmt: skip


def _fresh_token(in_backup: dict, issued: set[str]) -> str:
    """A new public token, unused in the backup and by the replacements issued so far
    (a collision of 72 random bits is not expected; the loop only makes it impossible).
    The unique constraint catches one taken in the database meanwhile."""
    while True:
        token = public_token()
        if token not in in_backup and token not in issued:
            issued.add(token)
            return token


def _match_shared(plan: _Plan) -> None:
    User = get_user_model()
    user_label = User._meta.label_lower
    users = plan.shared.get(user_label, {})
    by_name = {row[1]: old for old, row in users.items()}
    existing_users = dict(
        User.objects.filter(username__in=list(by_name)).values_list("username", "pk")
    )
    for username, old in by_name.items():
        if username in existing_users:
            plan.existing[user_label][old] = existing_users[username]
    for t in plan.tables:
        if t.kind != "shared" or t.model is User:
            continue
        key = graph.SHARED[t.label]
        at = t.columns.index(key)
        rows = plan.shared.get(t.label, {})
        found = {
            obj[key]: obj
            for obj in t.model._default_manager.filter(
                **{f"{key}__in": [r[at] for r in rows.values()]}
            ).values(*t.columns)
        }
        for old, row in rows.items():
            match = found.get(row[at])
            if match is None:
                continue
            plan.existing[t.label][old] = match["id"]
            for i, attname in enumerate(t.columns):
                target = t.fks.get(attname)
                if target != user_label:
                    continue
                want = users[row[i]][1] if row[i] is not None else None
                have = match[attname]
                have_name = User.objects.filter(pk=have).values_list("username", flat=True).first()
                if want is not None and want != have_name:
                    plan.problem(
                        t.label, None, attname.removesuffix("_id"),
                        f"{key} {row[at]!r} exists here for user {have_name!r}, the backup "
                        f"has it for {want!r}",
                    )  # fmt: skip
        # a new annotator for a user who already has one would break the one-to-one link
        for i, attname in enumerate(t.columns):
            f = t.fields[i]
            if t.fks.get(attname) != user_label or not f.one_to_one:
                continue
            for old, row in rows.items():
                if old in plan.existing[t.label] or row[i] is None:
                    continue
                user_new = plan.existing[user_label].get(row[i])
                if user_new is not None:
                    other = t.model._default_manager.filter(**{attname: user_new}).first()
                    if other is not None:
                        plan.problem(
                            t.label, None, f.name,
                            f"{key} {row[at]!r}: user {users[row[i]][1]!r} already has "
                            f"{t.model._meta.verbose_name} {other}",
                        )  # fmt: skip


# --- writing ------------------------------------------------------------------------------


def _allocate(model, n: int) -> list[int]:
    """``n`` fresh primary keys of ``model``'s table, ascending."""
    if n == 0:
        return []
    table = model._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [connection.ops.quote_name(table), model._meta.pk.column, n],
            )
            return sorted(r[0] for r in cursor.fetchall())
        quote = connection.ops.quote_name
        cursor.execute(f"SELECT max({quote(model._meta.pk.column)}) FROM {quote(table)}")
        top = cursor.fetchone()[0] or 0
        if connection.vendor == "sqlite":
            cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [table])
            row = cursor.fetchone()
            top = max(top, row[0] if row else 0)
        return list(range(top + 1, top + 1 + n))


def _write(plan: _Plan, summary: RestoreSummary) -> None:
    maps: dict[str, dict[int, int]] = defaultdict(dict)

    def lookup(target, old):
        try:
            return maps[target][old]
        except KeyError:
            raise remap.Unresolved(target, old) from None

    if connection.vendor == "sqlite":  # take the write lock before reading the largest ids
        with connection.cursor() as cursor:
            table = connection.ops.quote_name(plan.by_label[graph.ROOT].model._meta.db_table)
            cursor.execute(f"UPDATE {table} SET id = id WHERE 0 = 1")
    for t in plan.tables:
        if t.label not in plan.reader.entries:
            continue
        if t.kind == "shared":
            _write_shared(plan, t, maps, summary)
        elif t.kind == "special":
            _write_cache(plan, t, summary)
        else:
            _write_table(plan, t, maps, lookup, summary)


def _write_table(plan, t: graph.Table, maps, lookup, summary) -> None:
    fields = t.fields
    fk_at = [(i, t.fks[f.attname]) for i, f in enumerate(fields) if f.attname in t.fks]
    id_columns = [
        (i, remap.FUNCTIONS[(t.label, f.name)])
        for i, f in enumerate(fields)
        if (t.label, f.name) in remap.FUNCTIONS
    ]
    json_at = [i for i, f in enumerate(fields) if isinstance(f, models.JSONField)]
    token_at = [i for i, f in enumerate(fields) if f.default is public_token]
    name_at = t.columns.index("name") if t.kind == "root" else None
    keep_ids = t.label in plan.referenced
    names = [f.name for f in fields] if keep_ids else [f.name for f in fields[1:]]
    created = 0
    batch: list[list] = []

    def flush():
        nonlocal created
        if keep_ids:
            new_ids = _allocate(t.model, len(batch))
            mapping = maps[t.label]
            for row, new in zip(batch, new_ids, strict=True):
                mapping[row[0]] = new
                row[0] = new
            insert_rows(t.model, names, batch, batch_size=500)
        else:
            insert_rows(t.model, names, [row[1:] for row in batch], batch_size=500)
        created += len(batch)
        batch.clear()

    for _, row in plan.reader.rows(t.label):
        for i, target in fk_at:
            if row[i] is not None:
                row[i] = maps[target][row[i]]
        for i, fn in id_columns:
            row[i] = fn(row[i], lookup)
        if plan.tokens:
            for i in json_at:
                row[i] = remap.replace_tokens(row[i], plan.tokens)
            for i in token_at:
                row[i] = plan.tokens.get(row[i], row[i])
        if name_at is not None and plan.new_name:
            row[name_at] = plan.new_name
        batch.append(row)
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    summary.created[t.label] = created
    if t.kind == "root":
        summary.study_id = next(iter(maps[t.label].values()))


def _write_shared(plan, t: graph.Table, maps, summary) -> None:
    """Users, annotators and judges: the existing row when the natural key matches, else a
    new one (users without a usable password, with the roles the backup gives them)."""
    User = get_user_model()
    rows = plan.shared.get(t.label, {})
    mapping = maps[t.label]
    mapping.update(plan.existing[t.label])
    summary.matched[t.label] = len(plan.existing[t.label])
    new = [(old, row) for old, row in sorted(rows.items()) if old not in mapping]
    if t.model is User:
        for old, row in new:
            values = dict(zip(USER_COLUMNS[1:], row[1:-1], strict=True))
            values.update(is_staff=False, is_superuser=False)  # never from a file
            user = User(**values)
            user.set_unusable_password()
            user.save()
            if row[-1]:
                summary.roles[user.username] = sorted(row[-1])
            if summary.roles_granted:
                for role in row[-1]:
                    user.groups.add(Group.objects.get_or_create(name=role)[0])
            mapping[old] = user.pk
            summary.users_created.append(user.username)
    else:
        for old, row in new:
            values = {}
            for f, value in zip(t.fields[1:], row[1:], strict=True):
                target = t.fks.get(f.attname)
                values[f.attname] = maps[target][value] if target and value is not None else value
            obj = t.model(**values)
            obj.save()
            mapping[old] = obj.pk
    summary.created[t.label] = len(new)


def _write_cache(plan, t: graph.Table, summary) -> None:
    key_at = t.columns.index("key")
    created = 0
    batch: list[list] = []

    def flush():
        nonlocal created
        have = set(
            t.model._default_manager.filter(key__in=[r[key_at] for r in batch]).values_list(
                "key", flat=True
            )
        )
        fresh = [r[1:] for r in batch if r[key_at] not in have]
        insert_rows(t.model, [f.name for f in t.fields[1:]], fresh, batch_size=500)
        created += len(fresh)
        batch.clear()

    for _, row in plan.reader.rows(t.label):
        batch.append(row)
        if len(batch) >= 1000:
            flush()
    if batch:
        flush()
    summary.created[t.label] = created


def import_study(
    path, *, new_name: str | None = None, dry_run: bool = False, grant_roles: bool = False
) -> RestoreSummary:
    """Validate the backup at ``path`` completely, then restore it in one transaction as a
    new study (named ``new_name`` when given). Raises :class:`ImportFailed` with every
    problem found (up to 50) and changes nothing.

    A backup is a file anyone could have edited: the users it creates never get is_staff
    or is_superuser, and get the roles it lists only with ``grant_roles`` (the summary
    lists them either way)."""
    reader = archive.Reader(path)
    plan = _Plan(reader, new_name)
    try:
        _validate(plan)
    except _TooMany:
        plan.problems.append(Problem(reader.name, None, None, "stopped after 50 problems"))
    if plan.problems:
        raise ImportFailed(plan.problems)
    summary = RestoreSummary(
        study=new_name or plan.study_name, dry_run=dry_run, roles_granted=grant_roles
    )
    if plan.tokens:
        summary.notes.append(
            f"{len(plan.tokens)} public id(s) were taken in this database and were replaced "
            f"(annotators' links to those reports change; drafts were rewritten to match)"
        )
    try:
        with transaction.atomic():
            _write(plan, summary)
            if dry_run:
                raise _DryRun
    except _DryRun:
        pass
    except IntegrityError as exc:  # a concurrent write took a name or key since validation
        problem = Problem(reader.name, None, None, f"nothing was written: {exc}")
        raise ImportFailed([problem]) from exc
    return summary


__all__ = ["RestoreSummary", "import_study"]
