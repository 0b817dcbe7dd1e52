"""Export: every row of a study, and the shared rows it references, into one backup file.

Rows are read table by table in primary-key order with ``values_list(...).iterator()`` and
written as they come, so memory holds only the ids seen so far (to check that every
foreign key stays inside the backup) and never a table's rows.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model

from annotation.models import Study
from judges.models import JudgeRun

from . import archive, graph

CHUNK = 2000


class ExportError(Exception):
    pass


@dataclass
class ExportSummary:
    path: str
    counts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        rows = sum(self.counts.values())
        lines = [f"wrote {self.path}: {rows} rows in {len(self.counts)} tables"]
        lines += [f"  {n:>9}  {label}" for label, n in self.counts.items() if n]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


USER_COLUMNS = [
    "id", "username", "email", "first_name", "last_name", "is_active", "is_staff",
    "is_superuser", "date_joined", "last_login",
]  # fmt: skip
#: Roles are Django groups (``annotation.roles``); a backup carries their names, never a
#: password hash.
ROLES_COLUMN = "roles"


def export_study(study: Study, path) -> ExportSummary:
    """Write ``study`` to ``path`` (see ``archive`` for the format)."""
    out = archive.Writer(path, {"id": study.pk, "name": study.name})
    summary = ExportSummary(str(path))
    try:
        _write(study, out, summary)
        out.manifest["notes"] = summary.notes
        out.close()
    except BaseException:
        out.abort()
        raise
    return summary


def _write(study: Study, out: archive.Writer, summary: ExportSummary) -> None:
    tables = graph.tables()
    seen: dict[str, set[int]] = defaultdict(set)  # exported ids per table
    wanted: dict[str, set[int]] = defaultdict(set)  # shared ids referenced so far
    kinds = {t.label: t.kind for t in tables}
    for t in tables:
        if t.kind in ("root", "study"):
            qs = t.model._default_manager.filter(**{t.path or "pk": study.pk})
            rows = _checked(t, qs, seen, wanted, kinds, summary)
            summary.counts[t.label] = out.write_table(t.label, t.columns, rows)
    # shared rows, each after the rows that reference it (annotators before their users)
    for t in reversed(tables):
        if t.kind != "shared":
            continue
        ids = sorted(wanted[t.label])
        if t.model is get_user_model():
            rows = _users(ids)
            summary.counts[t.label] = out.write_table(t.label, [*USER_COLUMNS, ROLES_COLUMN], rows)
            continue
        qs = t.model._default_manager.filter(pk__in=ids)
        rows = _without_secrets(t, _checked(t, qs, seen, wanted, kinds, summary))
        summary.counts[t.label] = out.write_table(t.label, t.columns, rows)
    for t in tables:
        if t.kind == "special":
            rows = _llm_responses(study)
            summary.counts[t.label] = out.write_table(t.label, t.columns, rows)


def _checked(t: graph.Table, qs, seen, wanted, kinds, summary):
    """Rows of ``qs``; ids of shared rows they reference are noted in ``wanted``. A
    nullable reference that leaves the study is written as null (and noted); a required
    one stops the export: the backup would not restore."""
    fk_at = [(i, t.fks[a], t.fields[i]) for i, a in enumerate(t.columns) if a in t.fks]
    dropped: dict[str, int] = defaultdict(int)
    ids = seen[t.label]
    for row in qs.order_by("pk").values_list(*t.columns).iterator(chunk_size=CHUNK):
        row = list(row)
        for i, target, f in fk_at:
            value = row[i]
            if value is None:
                continue
            if kinds[target] == "shared":
                wanted[target].add(value)
            elif value not in seen[target]:
                if not f.null:
                    raise ExportError(
                        f"{t.label} id {row[0]}, field '{f.name}': {target} id {value} "
                        f"belongs to another study"
                    )
                row[i] = None
                dropped[f.name] += 1
        ids.add(row[0])
        yield row
    for name, n in dropped.items():
        summary.notes.append(
            f"{t.label}.{name}: {n} reference(s) to rows of another study written as null"
        )


def _without_secrets(t: graph.Table, rows):
    """Credentials never leave in a backup (``graph.SECRET_COLUMNS``): a restored judge
    calls its LLM with the installation's own key (LLM_API_KEY) until an admin sets another."""
    secret = [(t.columns.index(column), strip)
              for (label, column), strip in graph.SECRET_COLUMNS.items() if label == t.label]  # fmt: skip
    for row in rows:
        for at, strip in secret:
            row[at] = strip(row[at])
        yield row


def _users(ids: list[int]):
    User = get_user_model()
    roles = defaultdict(list)
    for uid, group in (
        User.groups.through.objects.filter(user_id__in=ids)
        .order_by("group__name")
        .values_list("user_id", "group__name")
    ):
        roles[uid].append(group)
    for row in User.objects.filter(pk__in=ids).order_by("pk").values_list(*USER_COLUMNS):
        yield [*row, roles[row[0]]]


def _llm_responses(study: Study):
    """Cached answers of the models this study's judge runs used (the cache is keyed by a
    prompt hash, so which study asked is not stored; answers of the same model asked for
    another study may come along, which is harmless: a key always means the same answer)."""
    from judges.models import LLMResponse

    models = set()
    for model, params in JudgeRun.objects.filter(study=study).values_list(
        "judge__model", "judge__parameters"
    ):
        models.add((params or {}).get("model") or model)
    columns = [f.attname for f in LLMResponse._meta.concrete_fields]
    qs = LLMResponse.objects.filter(model__in=models - {None, ""}).order_by("pk")
    yield from qs.values_list(*columns).iterator(chunk_size=CHUNK)
