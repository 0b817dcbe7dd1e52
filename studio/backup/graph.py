"""Which tables make up a study, found from the foreign-key graph rather than a hand list.

Why generic: new models keep arriving in the annotation, judges and metaeval apps. Every
concrete model of those apps that reaches :class:`~annotation.models.Study` through
non-null foreign keys is part of the study and is exported with no code change. Models
that do not reach it must be named here: *shared* (rows several studies reference, matched
by a natural key on import), *special* (selected by a rule of their own) or *excluded*
(with the reason). ``tests/annotation/test_backup_graph.py`` fails for any model that is
none of these, and for any JSON column not declared to hold or not hold database ids,
because the foreign-key graph cannot see ids hidden in JSON.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import cache

from django.apps import apps
from django.conf import settings
from django.db import models

from judges.secrets import stripped_parameters

APPS = ("annotation", "judges", "metaeval")
ROOT = "annotation.study"

#: Rows shared between studies: exported when a row of the study references them, matched
#: on import by this natural key (never duplicated), created only when missing.
SHARED = {
    settings.AUTH_USER_MODEL.lower(): "username",
    "annotation.annotator": "pseudonym",
    "judges.judge": "name",
}

#: JSON columns of shared rows that hold credentials, and what of them a backup holds: the
#: value without its credentials (the judges' rule, :mod:`judges.secrets`, which the API
#: and every report mask by too: a key, a password or key in the base URL's…).
SECRET_COLUMNS = {("judges.judge", "parameters"): stripped_parameters}

#: Not reachable by a foreign key, exported by a rule of their own (see ``dump.py``).
SPECIAL = {
    "judges.llmresponse": (
        "the LLM response cache has no foreign key (keyed by a prompt hash): the responses "
        "of the models the study's judge runs used are exported, and on import a key "
        "already cached is kept as it is (same key, same answer)"
    ),
}

#: Models of the three apps deliberately left out of a backup, with the reason.
EXCLUDED: dict[str, str] = {
    "annotation.webhook": (
        "a deployment's outgoing configuration with its signing secret: a restored copy of "
        "a study must not post to the receivers of the original"
    ),
    "annotation.webhookdelivery": "the record of what a webhook was sent (no study data)",
}

#: JSON (or text) columns that hold database ids: the tables they point at (restored
#: first) and what they hold; ``remap.py`` rewrites them on import.
ID_COLUMNS = {
    ("annotation.assignment", "report_order"): (
        ("annotation.report",), "report ids in the annotator's reading order",
    ),
    ("judges.judgeunit", "payload"): (
        ("annotation.report", "annotation.rubricitem", "annotation.paragraph"),
        "report, rubric item and paragraph ids of the unit",
    ),
    ("judges.judgeunit", "key"): (
        ("annotation.report", "annotation.rubric"), "report and rubric ids in the unit's key",
    ),
    ("metaeval.reportrun", "result"): ((ROOT,), "the study id in the report's selection"),
}  # fmt: skip


def id_column_targets(table_label: str) -> set[str]:
    """Tables the id-holding JSON columns of ``table_label`` point at."""
    return {
        t for (lab, _), (targets, _) in ID_COLUMNS.items() if lab == table_label for t in targets
    }


#: JSON columns checked to hold no database id (public tokens in drafts are rewritten
#: too, when a token has to change; see ``remap.replace_tokens``).
PLAIN_JSON = {
    ("annotation.study", "tasks"),
    ("annotation.study", "config"),
    ("annotation.annotator", "expertise_fields"),
    ("annotation.question", "released"),  # the record as released: no ids
    ("annotation.rubric", "released"),  # the rubric record as released: no ids
    ("annotation.report", "original"),
    ("annotation.report", "citations"),  # sources by key
    ("annotation.section", "table"),
    ("annotation.paragraph", "anchors"),  # [start, end, citation key]
    ("annotation.reportclaim", "citation_keys"),
    ("annotation.claimcheck", "citation_supports"),
    ("annotation.claimassessment", "citations"),
    ("annotation.rubricitemquality", "flags"),
    ("annotation.draft", "payload"),
    ("annotation.draftversion", "payload"),
    ("annotation.expertagreedrecord", "preference"),
    ("annotation.expertagreedrecord", "human"),
    ("annotation.expertagreedrecord", "judge_scores"),
    ("judges.judge", "parameters"),
    ("judges.judgescore", "released"),
    ("judges.judgerun", "tasks"),
    ("judges.judgerun", "options"),
    ("judges.judgerun", "errors"),
    ("judges.judgeclaimverdict", "citations"),
    ("metaeval.reportrun", "options"),
    ("annotation.adjudicationrequest", "originals"),  # pseudonyms and labels, no ids
    ("annotation.qualityevent", "detail"),  # external ids, pseudonyms and labels, no ids
}


def label(model) -> str:
    return model._meta.label_lower


@dataclass
class Table:
    """One model in a backup: how its rows are found and what its columns point at."""

    model: type[models.Model]
    kind: str  # "root" | "study" | "shared" | "special"
    path: str = ""  # lookup from the model to the study, e.g. "report__question__study"
    fields: list = field(default_factory=list)  # concrete fields, in column order
    fks: dict = field(default_factory=dict)  # attname -> target label

    @property
    def label(self) -> str:
        return label(self.model)

    @property
    def columns(self) -> list[str]:
        return [f.attname for f in self.fields]


class GraphError(Exception):
    """A model of the three apps that the backup does not know how to handle."""


def candidate_models() -> list[type[models.Model]]:
    """Every concrete, managed model of the apps a study spans."""
    out = []
    for app in APPS:
        for model in apps.get_app_config(app).get_models():
            meta = model._meta
            if not (meta.abstract or meta.proxy or not meta.managed):
                out.append(model)
    return out


def _forward_fks(model) -> list[models.ForeignKey]:
    return [
        f for f in model._meta.concrete_fields if f.is_relation and (f.many_to_one or f.one_to_one)
    ]


def study_path(model) -> str | None:
    """The shortest lookup from ``model`` to Study over non-null foreign keys, or None.

    Shared models are not walked through: a question's author does not make the author's
    other work part of the study."""
    if label(model) == ROOT:
        return ""
    seen = {label(model)}
    queue = deque([(model, "")])
    while queue:
        current, prefix = queue.popleft()
        for f in _forward_fks(current):
            if f.null:
                continue
            target = f.related_model
            name = f"{prefix}__{f.name}" if prefix else f.name
            if label(target) == ROOT:
                return name
            if label(target) in SHARED or label(target) in seen:
                continue
            seen.add(label(target))
            queue.append((target, name))
    return None


@cache
def tables() -> tuple[Table, ...]:
    """Every table of a backup, in an order where each row's targets come first.

    Raises :class:`GraphError` naming any model that is neither part of the study nor
    declared shared, special or excluded, and any foreign key to a table outside the backup.
    """
    found: dict[str, Table] = {}
    user_model = apps.get_model(settings.AUTH_USER_MODEL)
    found[label(user_model)] = Table(user_model, "shared")
    unknown = []
    for model in candidate_models():
        name = label(model)
        if name in EXCLUDED:
            continue
        if name in SHARED:
            found[name] = Table(model, "shared")
        elif name in SPECIAL:
            found[name] = Table(model, "special")
        elif name == ROOT:
            found[name] = Table(model, "root")
        else:
            path = study_path(model)
            if path is None:
                unknown.append(name)
            else:
                found[name] = Table(model, "study", path=path)
    if unknown:
        raise GraphError(
            "not part of a study and not declared in studio/backup/graph.py "
            "(SHARED, SPECIAL or EXCLUDED): " + ", ".join(sorted(unknown))
        )
    for t in found.values():
        if t.label == label(user_model):
            continue  # users are written by people.py, with roles and no password
        t.fields = list(t.model._meta.concrete_fields)
        for f in t.fields:
            if f.is_relation:
                target = label(f.related_model)
                if target not in found:
                    raise GraphError(
                        f"{t.label}.{f.name} points at {target}, which a backup does not hold"
                    )
                t.fks[f.attname] = target
    return tuple(found[name] for name in _ordered(found))


def _ordered(found: dict[str, Table]) -> list[str]:
    """Topological order of the tables (targets before the rows that point at them)."""
    order: list[str] = []
    state: dict[str, int] = {}

    def visit(name: str, trail: tuple[str, ...]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            raise GraphError("foreign-key cycle: " + " -> ".join((*trail, name)))
        state[name] = 1
        targets = set(found[name].fks.values()) | id_column_targets(name)
        for target in sorted(targets & set(found)):
            if target != name:
                visit(target, (*trail, name))
        state[name] = 2
        order.append(name)

    shared_first = sorted(found, key=lambda n: (found[n].kind != "shared", n))
    for name in shared_first:
        visit(name, ())
    return order


def by_label() -> dict[str, Table]:
    return {t.label: t for t in tables()}


def json_columns(table: Table) -> list[str]:
    return [f.name for f in table.fields if isinstance(f, models.JSONField)]
