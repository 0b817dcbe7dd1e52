"""A judge's relevance verdicts on report paragraphs (ScholarQA-CS2 flags irrelevant
paragraphs, with a rationale), for relevance adjudication (003 A.6): kind ``judge_scores``,
format ``relevance`` (issue 26, dead end 6: only a live LLM run could provide them).

JSON lines (or a JSON list), one paragraph a record::

    {"question_id": "q1", "system": "sqa", "paragraph": 3, "relevant": false,
     "rationale": "Discusses pre-training, not fine-tuning."}

``question_id`` and ``system`` name the report (imported first), ``paragraph`` is the
paragraph's number in it, ``relevant`` is true or false (the judge flagged it irrelevant),
``rationale`` is optional (the adjudication page shows it). The judge is the import's
``judge`` option (created when missing). Every record is checked first, a problem names the
record and the field, and nothing is written when one is wrong; a re-import updates the
verdict of the same judge and paragraph.
"""

from __future__ import annotations

from pathlib import Path

from annotation.importers.base import ImportFailed, ImportReport, Problem
from annotation.importers.common import (
    Problems,
    json_lines_text,
    optional_str,
    parse_json_records,
    read_source,
    require,
    sync_rows,
    type_name,
)
from annotation.importers.registry import Example, Format, Option, register
from annotation.models import Paragraph
from judges.models import Judge, JudgeRelevance

from . import judge_scores, named  # noqa: F401  (registers the judge_scores kind first)


def read(src, study) -> dict[int, tuple[bool, str]]:
    """paragraph id -> (relevant, rationale), every record checked against the study."""
    paragraphs = {
        (q, s, n): pk
        for pk, q, s, n in Paragraph.objects.filter(report__question__study=study).values_list(
            "id", "report__question__external_id", "report__system__name", "number"
        )
    }
    problems = Problems(src.name)
    out: dict[int, tuple[bool, str]] = {}
    first: dict[int, int] = {}
    for n, r in enumerate(parse_json_records(src), start=1):
        qid = require(problems, n, r, "question_id", "id")
        system = require(problems, n, r, "system", str)
        number = require(problems, n, r, "paragraph", "number")
        if None in (qid, system, number):
            continue
        if isinstance(number, float) and number.is_integer():
            number = int(number)
        relevant = r.get("relevant")
        if not isinstance(relevant, bool):
            problems.add(n, "relevant", f"expected true or false, found {type_name(relevant)}")
            continue
        paragraph = paragraphs.get((qid, system, number))
        if paragraph is None:
            problems.add(n, "paragraph", f"no paragraph {number!r} in the report of system "
                         f"{system!r} for question {qid!r}")  # fmt: skip
            continue
        if paragraph in first:
            problems.add(n, "paragraph", f"the same paragraph as record {first[paragraph]}")
            continue
        first[paragraph] = n
        out[paragraph] = (relevant, optional_str(problems, n, r, "rationale"))
    problems.raise_if_any()
    return out


#: What the verdict formats of one named judge share: the judge option of their writers and
#: what their example needs first (a question and one system's report).
JUDGE_OPTION = Option("judge", "judge whose verdicts are written", required=True)
EXAMPLE_NEEDS = (
    ("questions", "researchqa", {}),
    ("reports", "researchqa", {"system": "example-system"}),
)


def judge_name(src, judge: str | None) -> str:
    """The import's --judge; refused when empty (before the file is read)."""
    if not judge or not str(judge).strip():
        raise ImportFailed([Problem(src.name, None, None, "a judge name is required")])
    return str(judge).strip()


def the_judge(name: str, rep: ImportReport) -> Judge:
    """The named judge, created if new (counted in ``rep``), once the file has passed."""
    judge, created = Judge.objects.get_or_create(name=name)
    rep.count("created" if created else "unchanged", "Judge")
    return judge


def load(source, study, rep: ImportReport, *, judge: str | None = None, **_) -> None:
    src = read_source(source)
    name = judge_name(src, judge)
    wanted = read(src, study)
    rep.kind = "judge scores (relevance)"
    rep.records = len(wanted)
    judge_obj = the_judge(name, rep)
    stored = {
        p: (pk, (rel, why))
        for pk, p, rel, why in JudgeRelevance.objects.filter(
            judge=judge_obj, paragraph__report__question__study=study
        ).values_list("id", "paragraph_id", "relevant", "rationale")
    }
    sync_rows(
        JudgeRelevance, rep, stored=stored, wanted=wanted, fields=["relevant", "rationale"],
        describe=named.paragraphs(judge_obj.name),
        new_row=lambda p, v: {"judge": judge_obj.pk, "paragraph": p, "relevant": v[0],
                              "rationale": v[1]},
    )  # fmt: skip


def dump(study, *, judge: str, **_) -> dict[str, str]:
    """The judge's relevance verdicts of ``study`` in the format ``load`` reads."""
    rows = JudgeRelevance.objects.filter(
        judge__name=judge, paragraph__report__question__study=study
    ).order_by("paragraph__report__question__external_id", "paragraph__report__system__name",
               "paragraph__number")  # fmt: skip
    records = []
    for q, s, n, rel, why in rows.values_list(
        "paragraph__report__question__external_id", "paragraph__report__system__name",
        "paragraph__number", "relevant", "rationale",
    ):  # fmt: skip
        record = {"question_id": q, "system": s, "paragraph": n, "relevant": rel}
        if why:
            record["rationale"] = why
        records.append(record)
    return {"judge_relevance.jsonl": json_lines_text(records)}


register(
    Format(
        "judge_scores",
        "relevance",
        "a judge's relevance verdict per report paragraph, JSON lines: question_id, system, "
        "paragraph, relevant, rationale (judges/formats/judge_relevance.py)",
        load=load,
        dump=dump,
        dump_options=(JUDGE_OPTION,),
        label="Judge relevance verdicts per paragraph",
        extension=".jsonl",
        shape=(
            'JSON lines (or a JSON list), one paragraph a record: {"question_id", "system",\n'
            '"paragraph": <number>, "relevant": true|false, "rationale"?}; the report is\n'
            "imported first; the judge is the import's --judge."
        ),
        example=Example(
            Path(__file__).resolve().parent / "examples",
            "judge_relevance.jsonl",
            {"judge": "example-judge"},
            needs=EXAMPLE_NEEDS,
        ),
    )
)
