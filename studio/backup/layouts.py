"""Backups written by an earlier Concord, read as the current layout.

A backup names its tables and their columns (``manifest.json``); a restore into a database
whose tables have changed since would refuse the file (``columns differ``), and an admin
who upgraded could no longer restore the backups taken before. Each change of layout that
a backup can show is declared here once, as what it looks like in a manifest and how its
rows become today's; :class:`.archive.Reader` applies every one that a backup needs, and
checks the rows it reads against the counts and checksums the backup was written with.

Issue 29, migration ``annotation.0021``: a report's sources (the ``annotation.citation``
table) became the JSON list ``Report.citations`` and a paragraph's citation anchors (the
``annotation.citationanchor`` table) the JSON list ``Paragraph.anchors``. The rows are
turned into the lists as that migration turns them (sources in the order they were
written, i.e. by id; anchors ``[start, end, key]`` sorted), so a backup restores to what
upgrading its database in place would have given. Unlike the migration, which worked a
chunk of reports at a time, the lists are all built in memory before the restore reads
the reports: about 1 KB per source, some 1.2 GB for a backup of 120,000 reports with ten
sources each.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from annotation.importers.base import Problem

#: The tables migration 0021 removed (read to build new columns, never restored) and the
#: tables that gained those columns.
CITATION = "annotation.citation"
ANCHOR = "annotation.citationanchor"
REPORT = "annotation.report"
PARAGRAPH = "annotation.paragraph"


@dataclass
class Upgrade:
    """Columns added to tables (``{table: [column, …]}``) and, per such table, how a row's
    new values are found from its id; the tables read for them are dropped. ``changed``:
    per table, how a row as the file holds it (its columns, before any added) takes the
    values a data migration gave such rows in place."""

    added: dict[str, list[str]]
    values: dict[str, Callable[[int], list]]
    dropped: tuple[str, ...]
    changed: dict[str, Callable[[list], list]] = field(default_factory=dict)


def citation_rows_upgrade(reader, problems: list[Problem]) -> Upgrade | None:
    """The upgrade of a backup written before migration 0021, else ``None``. A source or
    anchor row that points at nothing in the backup is a problem named by table, line
    and field."""
    entries = reader.raw_entries
    report = entries.get(REPORT)
    if CITATION not in entries or report is None or "citations" in report["columns"]:
        return None
    columns = entries[CITATION]["columns"]
    need = {"id", "report_id", "key", "title", "snippets", "url", "metadata"}
    for label, wanted in (
        (CITATION, need),
        (ANCHOR, {"paragraph_id", "citation_id", "start", "end"}),
    ):
        missing = wanted - set(entries.get(label, {"columns": wanted})["columns"])
        if missing:
            problems.append(Problem(f"{reader.name} [{label}]", None, None,
                                    f"an earlier layout without the columns {sorted(missing)}"))  # fmt: skip
    if problems:
        return None
    reports = _ids(reader, REPORT, problems)
    paragraphs = _ids(reader, PARAGRAPH, problems)
    sources: dict[int, list[dict]] = defaultdict(list)
    key_of: dict[int, tuple[int, str]] = {}
    at = {name: columns.index(name) for name in need}
    rows = sorted(reader.raw_rows(CITATION, problems), key=lambda item: item[1][at["id"]])
    for line, row in rows:
        report_id, key = row[at["report_id"]], row[at["key"]]
        if report_id not in reports:
            problems.append(_dangling(reader, CITATION, line, "report", row[at["id"]], REPORT,
                                      report_id))  # fmt: skip
            continue
        key_of[row[at["id"]]] = (report_id, key)
        sources[report_id].append({
            "key": key, "title": row[at["title"]], "snippets": row[at["snippets"]] or [],
            "url": row[at["url"]], "metadata": row[at["metadata"]] or {},
        })  # fmt: skip
    anchors: dict[int, list[list]] = defaultdict(list)
    if ANCHOR in entries:
        cols = entries[ANCHOR]["columns"]
        pos = {name: cols.index(name) for name in ("paragraph_id", "citation_id", "start", "end")}
        own_at = cols.index("id") if "id" in cols else None
        for line, row in reader.raw_rows(ANCHOR, problems):
            own = "?" if own_at is None else row[own_at]
            cited = key_of.get(row[pos["citation_id"]])
            if cited is None:
                problems.append(_dangling(reader, ANCHOR, line, "citation", own, CITATION,
                                          row[pos["citation_id"]]))  # fmt: skip
                continue
            if row[pos["paragraph_id"]] not in paragraphs:
                problems.append(_dangling(reader, ANCHOR, line, "paragraph", own, PARAGRAPH,
                                          row[pos["paragraph_id"]]))  # fmt: skip
                continue
            anchors[row[pos["paragraph_id"]]].append([row[pos["start"]], row[pos["end"]], cited[1]])
    return Upgrade(
        added={REPORT: ["citations"], PARAGRAPH: ["anchors"]},
        values={
            REPORT: lambda pk: [sources.get(pk, [])],
            PARAGRAPH: lambda pk: [sorted(anchors.get(pk, []))],
        },
        dropped=(CITATION, ANCHOR),
    )


def _ids(reader, label: str, problems: list[Problem]) -> set:
    """The ids a table of the backup holds (one pass over its member, checked)."""
    if label not in reader.raw_entries:
        return set()
    pk = reader.raw_entries[label]["columns"].index("id")
    return {row[pk] for _, row in reader.raw_rows(label, problems)}


def _dangling(reader, label, line, field, own, target, value) -> Problem:
    return Problem(f"{reader.name} [{label}]", line, field,
                   f"{label} id {own}: {target} id {value!r} is not in the backup")  # fmt: skip


QUESTION = "annotation.question"
RUBRIC = "annotation.rubric"


def question_released_upgrade(reader, problems: list[Problem]) -> Upgrade | None:
    """Migration ``annotation.0023`` added ``Question.released`` (a benchmark's question
    record as released, kept by the imports since): a backup written before has none, as
    the questions upgraded in place have none (their export is built from their fields).

    That migration also moved ResearcherBench questions imported with the old mapping
    (``category`` as ``field``, ``Subject`` as ``subdomain``) to today's (``Subject`` ->
    ``field``, ``category`` -> ``intent``), so that assignment by expertise matches on the
    research area; a restore of such a backup does the same to the same questions, known
    as that migration knows them (:func:`researcherbench_old_mapping`)."""
    entry = reader.raw_entries.get(QUESTION)
    if entry is None or "released" in entry["columns"]:
        return None
    changed = {}
    moved = researcherbench_old_mapping(reader, problems)
    if moved is not None:
        changed[QUESTION] = moved
    return Upgrade(added={QUESTION: ["released"]}, values={QUESTION: lambda pk: [None]},
                   dropped=(), changed=changed)  # fmt: skip


def researcherbench_old_mapping(reader, problems: list[Problem]) -> Callable[[list], list] | None:
    """The row change of ``annotation.0023``'s data migration
    (``researcherbench_category_as_intent``): a question with a rubric of kind
    ``researcherbench`` and the old mapping's trace (a subdomain, no intent) takes
    ``intent, field, subdomain = field, subdomain, ""``. None when the backup's tables
    lack the columns it reads (nothing of that layout to move)."""
    columns = reader.raw_entries[QUESTION]["columns"]
    rubric = reader.raw_entries.get(RUBRIC)
    wanted = {"id", "field", "subdomain", "intent"}
    if rubric is None or not wanted <= set(columns):
        return None
    if not {"question_id", "kind"} <= set(rubric["columns"]):
        return None
    q_at, kind_at = rubric["columns"].index("question_id"), rubric["columns"].index("kind")
    ids = {row[q_at] for _, row in reader.raw_rows(RUBRIC, problems)
           if row[kind_at] == "researcherbench"}  # fmt: skip
    at = {name: columns.index(name) for name in wanted}

    def move(row: list) -> list:
        if row[at["id"]] not in ids or row[at["intent"]] or not row[at["subdomain"]]:
            return row
        row = list(row)
        row[at["intent"]], row[at["field"]], row[at["subdomain"]] = (
            row[at["field"]], row[at["subdomain"]], "")  # fmt: skip
        return row

    return move


JUDGE_SCORE = "judges.judgescore"


def null_column_upgrade(label: str, column: str, why: str, empty=None) -> Callable:
    """The upgrade of a backup written before a migration added ``column`` to ``label``'s
    table, a column the rows upgraded in place have empty: the backup's rows take ``empty``
    (None, or "" for a text column that is not nullable) there too. ``why`` names the
    migration and the column (the upgrade's docstring)."""

    def upgrade(reader, problems: list[Problem]) -> Upgrade | None:
        entry = reader.raw_entries.get(label)
        if entry is None or column in entry["columns"]:
            return None
        return Upgrade(added={label: [column]}, values={label: lambda pk: [empty]}, dropped=())

    upgrade.__doc__ = why
    return upgrade


judge_score_released_upgrade = null_column_upgrade(
    JUDGE_SCORE, "released",
    "Migration ``judges.0008`` added ``JudgeScore.released`` (a judge file's record as "
    "released, kept by the judge-score imports since): the scores upgraded in place have "
    "none (their export is built from the verdicts).",
)  # fmt: skip
rubric_released_upgrade = null_column_upgrade(
    RUBRIC, "released",
    "Migration ``annotation.0025`` added ``Rubric.released`` (ResearcherBench's rubric record "
    "as released, kept by that import since): the rubrics upgraded in place have none (their "
    "export is built from their items).",
)  # fmt: skip

adjudication_outdated_upgrade = null_column_upgrade(
    "annotation.adjudicationrequest", "outdated_at",
    "Migration ``annotation.0027`` added ``AdjudicationRequest.outdated_at`` (a decided "
    "request whose labels changed since, not counted): the requests upgraded in place have "
    "none (no label had changed under them as far as the backup knows).",
)  # fmt: skip


question_title_upgrade = null_column_upgrade(
    QUESTION, "title",
    "Migration ``annotation.0028`` added ``Question.title`` (a DeepScholar paper's title, the "
    "question's label, kept by the DeepScholar imports since): the questions upgraded in place "
    "have none (they are named by their text until a re-import gives the title).",
    empty="",
)  # fmt: skip


#: Every layout change a backup may need, oldest first.
UPGRADES = (citation_rows_upgrade, question_released_upgrade, judge_score_released_upgrade,
            rubric_released_upgrade, adjudication_outdated_upgrade,
            question_title_upgrade)  # fmt: skip
