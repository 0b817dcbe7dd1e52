"""The DeepScholar-Bench nuggetizer's own output, read as released (issue 25). Kind
``deepscholar``, format ``nuggetizer``.

The release's ``dataset/gt_nuggets_outputs/<n>/res.json`` (one query each; the folder of
them, or a ``.zip`` of it, is read too; so is the same record as ``res.csv``) or a JSON
list / JSON lines of such records. The release nests 20 of its 63 papers inside another
paper's folder (``27/33/res.json``, ``52/58/61/res.json``): every ``res.json`` at any depth
is read, and the paper is the record's ``qid`` (the top folders are the rows of
``papers.csv``, the nested ones are not: ``27/33`` is 2504.06975v1, row 30). A file of the
folder that is neither a paper's record nor ``config.txt`` is named in a warning::

    {"qid": "2506.02838v1",
     "query": "Write a Related Works section … Here is the paper abstract:\\n…",
     "nuggets": [{"text": "Progressive taxation reduces inequality …",
                  "importance": "vital", "assignment": "support"}, …],
     "supported_nuggets": "…", "partially_supported_nuggets": "…", "nuggets_metrics": {…}}

What it holds is two things (002 §4.2, METHODS §2.10): the question's *nuggets*, stored as
its nugget units (id = position from 1, as the units import numbers them), and the
nuggetizer's *labels*: each nugget's importance (``vital`` / ``okay`` → Concord's
``vital`` / ``non_vital``) and, per report, whether the report supports it
(``support`` / ``partial_support`` / ``not_support`` → ``supported`` /
``partially_supported`` / ``not_supported``), stored as that judge's labels. The judge is
the nuggetizer's model, read from the ``config.txt`` beside the files (``model: gpt-4.1``)
unless ``--judge`` names one. The support labels judge one report: ``--system`` names the
system whose report of each question was nuggetized; without it (the release's
ground-truth run judges the human exemplar, which is no report) they are not stored and
the import says so. ``supported_nuggets`` / ``partially_supported_nuggets`` /
``nuggets_metrics`` are derived from ``nuggets`` and are not stored.

A question missing from the study is created from ``qid`` and ``query``, so the nuggets can
come before the reports (a DeepScholar system folder then finds its papers by the abstract).
Every record is checked before anything is written; a problem names the file, the record
and the field.

Written back (:func:`dump`, ``export_format deepscholar nuggetizer --judge J [--system S]``)
as the release's folder: ``gt_nuggets_outputs/config.txt`` naming the judge and
``<n>/res.json`` per question, which this import reads back. A question whose nuggets came
from a released folder keeps that folder's name and the ``config.txt`` beside it
(``Question.released``, format ``deepscholar/nuggetizer``; a nested one its path,
``27/33``), so the export gives the folder back as released: ``0, 1, 10, 11 …``,
``27/33/res.json`` inside ``27/`` and ``date: 2025-07-10``, not a renumbering.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.db.models import Q

from annotation.importers.base import ImportFailed, ImportReport, Problem
from annotation.importers.common import Problems, Source, parse_json_records, read_source
from annotation.importers.deepscholar_layouts import SKIP
from annotation.importers.deepscholar_units import UnitsInput, sync_units
from annotation.importers.registry import Example, Format, Option, Signature, register
from annotation.importers.structure import ensure_question_ids
from annotation.models import Nugget, Question, Report
from judges.models import JudgeDeepScholarLabel

from .deepscholar_labels import write_labels

#: The nuggetizer's words -> Concord's labels (METHODS §2.10); Concord's own are accepted.
IMPORTANCE = {"vital": "vital", "okay": "non_vital", "non_vital": "non_vital"}
SUPPORT = {
    "support": "supported",
    "partial_support": "partially_supported",
    "not_support": "not_supported",
    "supported": "supported",
    "partially_supported": "partially_supported",
    "not_supported": "not_supported",
}
_MODEL = re.compile(r"^\s*model\s*:\s*(\S.*?)\s*$", re.M)


def _numeric(path: Path):
    """Sort key of a folder path: its names as numbers where they are (0, 1, 2 … 10)."""
    return [(0, int(name), "") if name.isdecimal() else (1, 0, name) for name in path.parts]


def _csv_records(src: Source) -> list[dict]:
    """``res.csv``: the same record, its ``nuggets`` written as a Python list literal (the
    nuggetizer's pandas dump); read with ``ast.literal_eval``, which evaluates no code."""
    import ast
    import csv
    import io

    csv.field_size_limit(1 << 28)
    out = []
    for row in csv.DictReader(io.StringIO(src.text or "")):
        try:
            nuggets = ast.literal_eval(row.get("nuggets") or "None")
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            nuggets = row.get("nuggets")  # refused by the check, naming the field
        out.append({**row, "nuggets": nuggets})
    return out


def _file_records(src: Source) -> list:
    if src.name.lower().endswith(".csv"):
        return _csv_records(src)
    return parse_json_records(src)


#: The files of a paper folder: its record (``res.json``, else the same record as
#: ``res.csv``, the nuggetizer's pandas dump of it) and the run's ``config.txt``.
RECORD_FILES = ("res.json", "res.csv")
CONFIG = "config.txt"


def _paper_folders(root: Path) -> list[Path]:
    """Every folder under ``root``, at any depth, that holds a record file, in numeric
    order. Why any depth: the release nests 20 of its 63 papers inside another paper's
    folder (``27/33/res.json`` is 2504.06975v1, ``27/res.json`` 2504.21282v1)."""
    found = [
        p for p in (root, *root.rglob("*"))
        if p.is_dir() and not any(SKIP.match(n) for n in p.relative_to(root).parts)
        and any((p / name).is_file() for name in RECORD_FILES)
    ]  # fmt: skip
    return sorted(found, key=lambda p: _numeric(p.relative_to(root)))


def _root(folder: Path) -> Path:
    """The folder the paper folders are in: the one given, or its only subfolder (a zip
    of ``gt_nuggets_outputs/`` holds the folder itself)."""
    if any((folder / name).is_file() for name in RECORD_FILES) or any(
        (p / name).is_file() for p in folder.iterdir() if p.is_dir() for name in RECORD_FILES
    ):
        return folder
    subs = [p for p in folder.iterdir() if p.is_dir() and not SKIP.match(p.name)]
    return subs[0] if len(subs) == 1 else folder


def _unread(root: Path, read: set[Path]) -> list[str]:
    """The files under ``root`` (the folder given, wrapper included) that are neither read
    nor a read record's ``res.csv`` twin nor ``config.txt``: named in a warning, never
    silently passed over."""
    out = []
    for path in sorted(root.rglob("*"), key=lambda p: _numeric(p.relative_to(root))):
        rel = path.relative_to(root)
        if not path.is_file() or any(SKIP.match(n) for n in rel.parts) or path in read:
            continue
        if path.name == CONFIG or (path.name in RECORD_FILES and path.parent / "res.json" in read):
            continue
        out.append(rel.as_posix())
    return out


def read_records(src: Source, unread: list[str] | None = None) -> list[tuple[str, object]]:
    """(where, record) of every record: each ``res.json`` (else ``res.csv``) of a folder at
    any depth, ``where`` its path in the folder (``27/33/res.json``), or the file's. The
    paper is the record's ``qid``, not the folder's name (the release's nested folders
    are numbered apart from its paper table: ``59/65`` is row 62 of 63). Files of the
    folder that are not read are appended to ``unread``."""
    if src.directory is None:
        return [(f"record {i}", r) for i, r in enumerate(_file_records(src), start=1)]
    root = _root(src.directory)
    files = [
        next(p / name for name in RECORD_FILES if (p / name).is_file())
        for p in _paper_folders(root)
    ]
    if not files:
        raise ImportFailed([Problem(src.name, None, None, "no <n>/res.json files in this folder")])
    if unread is not None:
        unread += _unread(src.directory, set(files))
    out = []
    for path in files:
        rel = path.relative_to(root).as_posix()
        for record in _file_records(read_source(path)):
            out.append((rel, record))
    return out


def config_model(source, src: Source) -> str:
    """The nuggetizer's model from ``config.txt`` in the folder, beside the file, or above."""
    m = _MODEL.search(config_text(source, src))
    return m.group(1) if m else ""


def config_text(source, src: Source) -> str:
    """``config.txt`` as released (``model: gpt-4.1``, ``date: 2025-07-10``), found in the
    folder, beside the file, or above; "" when there is none naming a model."""
    places = []
    if src.directory is not None:
        places = [src.directory, *[p for p in src.directory.iterdir() if p.is_dir()][:1]]
    elif isinstance(source, (str, Path)):
        path = Path(source).resolve()
        places = [path.parent, path.parent.parent]
    for place in places:
        config = place / "config.txt"
        if config.is_file():
            text = config.read_text(encoding="utf-8", errors="replace")
            if _MODEL.search(text):
                return text
    return ""


#: ``Question.released``'s format of a question whose nuggets came from a released folder:
#: ``data`` is the folder's name (``"10"``) and the ``config.txt`` beside it, which the
#: export writes back (the release numbers its folders 0, 1, 10, 11 …, not in question order).
RELEASED = "deepscholar/nuggetizer"


def _released(where: str, config: str) -> dict | None:
    """The folder ``where`` is in (``27/33`` for ``27/33/res.json``, nested as released)."""
    folder = Path(where).parent.as_posix() if where.endswith(RECORD_FILES) else ""
    if folder in ("", "."):
        return None
    return {"format": RELEASED, "record": folder, "data": {"folder": folder, "config": config}}


def _check(problems: Problems, n: int, where: str, record) -> dict | None:
    def add(field, message):
        problems.add(n, field, f"{where}: {message}")

    if not isinstance(record, dict):
        add(None, f"expected an object, found {type(record).__name__}")
        return None
    qid = record.get("qid", record.get("question_id"))
    if not isinstance(qid, (str, int)) or isinstance(qid, bool) or not str(qid).strip():
        add("qid", "missing (the paper's id, e.g. its arXiv id)")
        return None
    nuggets = record.get("nuggets")
    if not isinstance(nuggets, list):
        add("nuggets", "expected a list of {text, importance, assignment}")
        return None
    rows = []
    for i, nugget in enumerate(nuggets):
        field = f"nuggets[{i}]"
        if not isinstance(nugget, dict):
            add(field, "expected an object")
            continue
        text = nugget.get("text")
        if not isinstance(text, str) or not text.strip():
            add(f"{field}.text", "missing")
            continue
        importance = nugget.get("importance")
        if importance is not None and importance not in IMPORTANCE:
            add(f"{field}.importance", f"{importance!r} is not one of vital, okay")
            continue
        assignment = nugget.get("assignment")
        if assignment is not None and assignment not in SUPPORT:
            add(f"{field}.assignment",
                f"{assignment!r} is not one of support, partial_support, not_support")  # fmt: skip
            continue
        rows.append({"key": str(i + 1), "position": i, "text": text.strip(),
                     "importance": IMPORTANCE.get(importance), "support": SUPPORT.get(assignment)})  # fmt: skip
    query = record.get("query")
    return {"qid": str(qid).strip(), "query": query.strip() if isinstance(query, str) else "",
            "rows": rows}  # fmt: skip


def load(source, study, rep: ImportReport, *, judge=None, system=None, **_) -> None:
    src = read_source(source, allow_directory=True)
    config = config_text(source, src)
    judge = (judge or "").strip() or config_model(source, src)
    if not judge:
        raise ImportFailed([Problem(src.name, None, "judge",
                                    "no config.txt names the nuggetizer's model: give --judge")])  # fmt: skip
    problems = Problems(src.name)
    questions = dict(Question.objects.filter(study=study).values_list("external_id", "released"))
    reports = {}
    if system:
        reports = dict(
            Report.objects.filter(question__study=study, system__name=system).values_list(
                "question__external_id", "id"
            )
        )
    records, seen, unread = [], {}, []
    for n, (where, record) in enumerate(read_records(src, unread), start=1):
        got = _check(problems, n, where, record)
        if got is None:
            continue
        qid = got["qid"]
        if qid in seen:
            problems.add(n, "qid", f"{where}: question {qid!r} again (first in {seen[qid]})")
            continue
        seen[qid] = where
        if qid not in questions and not got["query"]:
            problems.add(n, "qid", f"{where}: no question {qid!r} in this study and no query")
            continue
        if system and qid not in reports:
            problems.add(n, "qid", f"{where}: no report of system {system!r} for {qid!r}")
            continue
        records.append({**got, "n": n, "where": where})
    problems.raise_if_any()
    for name in unread:
        rep.warn(f"{src.name}: {name}", None, None,
                 "not read: no res.json or res.csv of a paper, nor config.txt")  # fmt: skip
    rep.records = len(records)
    new = {r["qid"]: {"text": r["query"]} for r in records if r["qid"] not in questions}
    for r in records:  # the folder and config kept, unless the question keeps another record
        kept = questions.get(r["qid"])
        released = _released(r["where"], config)
        if released and (not isinstance(kept, dict) or kept.get("format") == RELEASED):
            new.setdefault(r["qid"], {})["released"] = released
    ids = ensure_question_ids(study, new, rep) if new else {}
    ids.update(
        Question.objects.filter(
            study=study, external_id__in=[r["qid"] for r in records]
        ).values_list("external_id", "id")
    )
    by_pk = Question.objects.in_bulk(list(ids.values()))
    units = []
    for r in records:
        item = UnitsInput(by_pk[ids[r["qid"]]], file=src.name, record=r["n"], field="nuggets")
        item.rows = [
            {**{k: row[k] for k in ("key", "position", "text")},
             "columns": {"key": f"{r['where']}: nuggets[{row['position']}]",
                         "position": f"{r['where']}: nuggets[{row['position']}]",
                         "text": f"{r['where']}: nuggets[{row['position']}].text"}}
            for row in r["rows"]
        ]  # fmt: skip
        units.append(item)
    sync_units(Nugget, units, rep, ("position", "text"))
    labels, unassigned = {}, 0
    for r in records:
        question = ids[r["qid"]]
        for row in r["rows"]:
            if row["importance"]:
                labels[("nugget_importance", question, None, row["key"])] = (row["importance"], "")
            if row["support"] and system:
                report = reports[r["qid"]]
                labels[("nugget_support", question, report, row["key"])] = (row["support"], "")
            elif row["support"]:
                unassigned += 1
    write_labels(judge, study, labels, rep)
    if unassigned:
        rep.warn(src.name, None, "assignment",
                 f"{unassigned} support labels judge a text that is no report of the study (the "
                 "release's ground-truth run judges the exemplar); not stored — give --system "
                 "to store them as labels of that system's reports")  # fmt: skip


def _kept(released) -> bool:
    return (
        isinstance(released, dict)
        and released.get("format") == RELEASED
        and isinstance(released.get("data"), dict)
        and isinstance(released["data"].get("folder"), str)
        and isinstance(released["data"].get("config"), str)
    )


def config_names(config: str, judge: str) -> bool:
    """Whether a kept ``config.txt`` is the run of ``judge`` (its ``model:``)."""
    m = _MODEL.search(config)
    return bool(m) and m.group(1) == judge


def _within(folder) -> bool:
    """Whether a kept folder is a path inside the export's folder (``27/33``): relative,
    every name a real one, so a stored path can never write outside it."""
    if not isinstance(folder, str) or not folder or "\\" in folder:
        return False
    return all(name not in ("", ".", "..") for name in folder.split("/"))


def _folders(questions, kept: dict[int, dict]) -> dict[int, str]:
    """Each question's folder: the released one kept (once; nested as released, so
    ``27/33`` is written back inside ``27``), else the next number free."""
    out, used = {}, set()
    for q in questions:
        folder = kept.get(q.pk, {}).get("folder")
        if _within(folder) and folder not in used:
            out[q.pk] = folder
            used.add(folder)
    n = 0
    for q in questions:
        if q.pk not in out:
            while str(n) in used:
                n += 1
            out[q.pk] = str(n)
            used.add(str(n))
    return out


#: Concord's labels -> the nuggetizer's words, for the writer (the inverse of the above).
IMPORTANCE_WORDS = {"vital": "vital", "non_vital": "okay"}
SUPPORT_WORDS = {
    "supported": "support",
    "partially_supported": "partial_support",
    "not_supported": "not_support",
}
#: The folder the writer's files are in, as the release names it.
FOLDER = "gt_nuggets_outputs"


def dump(study, *, judge: str, system: str | None = None, **_) -> dict[str, str]:
    """The study's nuggets with ``judge``'s labels as the nuggetizer released them, a folder
    ``load`` reads back: ``config.txt`` naming the model (``model: <judge>``, so the import
    finds the judge) and ``<n>/res.json`` per question with nuggets, in question order:
    ``qid``, ``query`` (the question's text) and the nuggets in their order, each with the
    judge's importance and, with ``system``, its support label of that system's report
    (only the questions that system answered: the import refuses the others). What the
    nuggetizer derived from its nuggets (``supported_nuggets``, ``nuggets_metrics``) is
    not stored, so it is not written; the import does not read it."""
    import json

    labels = JudgeDeepScholarLabel.objects.filter(
        judge__name=judge, question__study=study, kind__in=("nugget_importance", "nugget_support")
    )
    if system:
        labels = labels.filter(Q(report__isnull=True) | Q(report__system__name=system))
    else:
        labels = labels.filter(report__isnull=True)
    by_unit = {(r.kind, r.question_id, r.unit): r.label for r in labels}
    questions = Question.objects.filter(study=study, nuggets__isnull=False).distinct()
    if system:
        questions = questions.filter(reports__system__name=system)
    nuggets: dict[int, list] = {}
    for n in Nugget.objects.filter(question__in=questions).order_by("position", "pk"):
        nuggets.setdefault(n.question_id, []).append(n)
    ordered = list(questions.order_by("external_id"))
    kept = {q.pk: q.released["data"] for q in ordered if _kept(q.released)}
    configs = [d["config"] for d in kept.values() if config_names(d["config"], judge)]
    files = {f"{FOLDER}/config.txt": configs[0] if configs else f"model: {judge}\n"}
    folders = _folders(ordered, kept)
    for q in ordered:
        written = []
        for n in nuggets.get(q.pk, []):
            nugget = {"text": n.text}
            if (word := by_unit.get(("nugget_importance", q.pk, n.key))) in IMPORTANCE_WORDS:
                nugget["importance"] = IMPORTANCE_WORDS[word]
            if (word := by_unit.get(("nugget_support", q.pk, n.key))) in SUPPORT_WORDS:
                nugget["assignment"] = SUPPORT_WORDS[word]
            written.append(nugget)
        record = {"qid": q.external_id, "query": q.text, "nuggets": written}
        files[f"{FOLDER}/{folders[q.pk]}/res.json"] = (
            json.dumps(record, ensure_ascii=False, indent=2) + "\n"
        )
    # the config alone is no export: without a question there is nothing to write (a 404)
    return files if len(files) > 1 else {}


register(
    Format(
        "deepscholar",
        "nuggetizer",
        "the DeepScholar-Bench nuggetizer's res.json as released (one file, JSON lines, or "
        "the gt_nuggets_outputs folder of <n>/res.json): nuggets, their importance and "
        "support as the nuggetizer's labels (judges/formats/nuggetizer.py)",
        load=load,
        options=(
            Option("judge", "the nuggetizer's model (default: config.txt's 'model:')"),
            Option("system", "the system whose reports the nuggetizer's assignments judge"),
        ),
        directory=True,
        shape=(
            "The nuggetizer's output as released: dataset/gt_nuggets_outputs/ (or a .zip of "
            "it) with config.txt ('model: gpt-4.1', the judge) and <n>/res.json, or one "
            "res.json (or res.csv), or JSON lines of them. Example res.json:\n"
            '  {"qid": "2506.02838v1", "query": "Write a Related Works section ... Here is '
            'the paper abstract:\\n...",\n'
            '   "nuggets": [{"text": "Progressive taxation reduces inequality", '
            '"importance": "vital", "assignment": "support"}]}\n'
            "importance vital/okay and assignment support/partial_support/not_support become "
            "the judge's nugget importance and (with --system) nugget support labels."
        ),
        label="DeepScholar-Bench nuggetizer output",
        extension=".zip",
        dump=dump,
        dump_options=(
            Option("judge", "the nuggetizer's model whose labels are written", required=True),
            Option(
                "system",
                "the system whose reports' support labels are written (default: "
                "none, as the release's ground-truth run)",
            ),
        ),  # fmt: skip
        example=Example(
            Path(__file__).resolve().parent / "examples",
            "deepscholar_nuggetizer",
            options={"system": "example-system"},
            needs=(("reports", "deepscholar", {}),),
        ),  # fmt: skip
        signatures=(
            Signature.of(
                "a DeepScholar-Bench nuggetizer res.json", qid=None, query=str, nuggets=list
            ),
        ),
    )
)
