"""A judge's verdicts on report claims (ScholarQA-CS2's citation check, 003 A.5): kind
``judge_scores``, format ``claim-verdicts``. Without it the controlled claim check analysis
(``metaeval/sections/claim_support.py``) could be fed only by a live LLM run: an expert's
check had nothing to be compared with (found walking the ScholarQA-CS2 protocol in the
browser, issue 26).

One claim a record: ``{"question_id", "system", "text", "verdict": "supported" | "partial" |
"unsupported" | "unknown", "citations": [{"key", "supports": bool}], "key"?,
"rationale"?}``. The analysis joins a verdict to an expert's check by report and claim text
(``metaeval/loaders/claims.py``), so ``text`` is the claim's text as the claims import has
it; ``key`` names the verdict within the report (default: ``t:`` and a digest of the
text), the natural key a re-import updates by.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from annotation.importers.base import ImportReport
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
from annotation.importers.registry import Example, Format, register
from annotation.models import Report, citation_keys
from judges.models import JudgeClaimVerdict

from . import named
from .judge_relevance import EXAMPLE_NEEDS, JUDGE_OPTION, judge_name, the_judge

VERDICTS = tuple(JudgeClaimVerdict.Verdict.values)
KEY_LIMIT = JudgeClaimVerdict._meta.get_field("key").max_length


def text_key(text: str) -> str:
    """The default key of a verdict: its claim text, whitespace collapsed, digested."""
    norm = " ".join(text.split())
    return "t:" + hashlib.sha1(norm.encode("utf-8")).hexdigest()[:16]


def _citations(problems: Problems, n: int, r: dict, known: set[str]) -> list[dict] | None:
    cites = r.get("citations", [])
    if not isinstance(cites, list):
        problems.add(n, "citations", f"expected a list, found {type_name(cites)}")
        return None
    out = []
    for i, c in enumerate(cites):
        where = f"citations[{i}]"
        if not isinstance(c, dict) or not isinstance(c.get("key"), str):
            problems.add(n, where, 'expected {"key": "<citation key>", "supports": true|false}')
            return None
        if c["key"] not in known:
            problems.add(n, f"{where}.key", f"the report cites no source {c['key']}")
            return None
        if not isinstance(c.get("supports"), bool):
            problems.add(n, f"{where}.supports",
                         f"expected true or false, found {type_name(c.get('supports'))}")  # fmt: skip
            return None
        out.append({"key": c["key"], "supports": c["supports"]})
    return out


def read(src, study) -> dict[tuple[int, str], tuple]:
    """(report id, key) -> (text, verdict, citations, rationale), every record checked."""
    reports = {
        (q, s): pk
        for pk, q, s in Report.objects.filter(question__study=study).values_list(
            "id", "question__external_id", "system__name"
        )
    }
    keys: dict[int, set[str]] = {}
    for report, key in citation_keys(Report.objects.filter(question__study=study)):
        keys.setdefault(report, set()).add(key)
    problems = Problems(src.name)
    out: dict[tuple[int, str], tuple] = {}
    first: dict[tuple[int, str], int] = {}
    for n, r in enumerate(parse_json_records(src), start=1):
        qid = require(problems, n, r, "question_id", "id")
        system = require(problems, n, r, "system", str)
        text = require(problems, n, r, "text", str)
        verdict = require(problems, n, r, "verdict", str)
        if None in (qid, system, text, verdict):
            continue
        report = reports.get((qid, system))
        if report is None:
            problems.add(n, "system", f"no report of system {system!r} for question {qid!r}")
            continue
        if verdict not in VERDICTS:
            problems.add(n, "verdict", f"{verdict!r} is not one of {', '.join(VERDICTS)}")
            continue
        key = optional_str(problems, n, r, "key") or text_key(text)
        if len(key) > KEY_LIMIT:
            problems.add(n, "key", f"longer than {KEY_LIMIT} characters")
            continue
        cites = _citations(problems, n, r, keys.get(report, set()))
        if cites is None:
            continue
        if (report, key) in first:
            problems.add(n, "key", f"the same claim as record {first[(report, key)]}")
            continue
        first[(report, key)] = n
        out[(report, key)] = (text, verdict, cites, optional_str(problems, n, r, "rationale"))
    problems.raise_if_any()
    return out


def load(source, study, rep: ImportReport, *, judge: str | None = None, **_) -> None:
    src = read_source(source)
    name = judge_name(src, judge)
    wanted = read(src, study)
    rep.kind = "judge scores (claim verdicts)"
    rep.records = len(wanted)
    judge_obj = the_judge(name, rep)
    stored = {
        (report, key): (pk, (text, verdict, cites, why))
        for pk, report, key, text, verdict, cites, why in JudgeClaimVerdict.objects.filter(
            judge=judge_obj, report__question__study=study
        ).values_list("id", "report_id", "key", "text", "verdict", "citations", "rationale")
    }
    sync_rows(
        JudgeClaimVerdict, rep, stored=stored, wanted=wanted,
        fields=["text", "verdict", "citations", "rationale"],
        describe=named.per_report(judge_obj.name, lambda key: f", claim {key[1]!r}"),
        new_row=lambda k, v: {"judge": judge_obj.pk, "report": k[0], "key": k[1], "text": v[0],
                              "verdict": v[1], "citations": v[2], "rationale": v[3]},
    )  # fmt: skip


def dump(study, *, judge: str, **_) -> dict[str, str]:
    """The judge's claim verdicts of ``study`` in the format ``load`` reads."""
    rows = JudgeClaimVerdict.objects.filter(
        judge__name=judge, report__question__study=study
    ).order_by("report__question__external_id", "report__system__name", "key")
    records = []
    for q, s, key, text, verdict, cites, why in rows.values_list(
        "report__question__external_id", "report__system__name", "key", "text", "verdict",
        "citations", "rationale",
    ):  # fmt: skip
        record = {"question_id": q, "system": s, "key": key, "text": text, "verdict": verdict,
                  "citations": [{"key": c["key"], "supports": c["supports"]} for c in cites]}  # fmt: skip
        if why:
            record["rationale"] = why
        records.append(record)
    return {"judge_claims.jsonl": json_lines_text(records)}


register(
    Format(
        "judge_scores",
        "claim-verdicts",
        "a judge's verdict per report claim, JSON lines: question_id, system, text, verdict, "
        "citations [{key, supports}], key, rationale (judges/formats/judge_claims.py)",
        load=load,
        dump=dump,
        dump_options=(JUDGE_OPTION,),
        label="Judge claim verdicts (citation check)",
        extension=".jsonl",
        shape=(
            'JSON lines (or a JSON list), one claim a record: {"question_id", "system",\n'
            '"text": "<the claim as imported>", "verdict": "supported"|"partial"|\n'
            '"unsupported"|"unknown", "citations": [{"key": "<citation key>", "supports":\n'
            'true|false}], "key"?, "rationale"?}; the report is imported first; the judge is\n'
            "the import's --judge."
        ),
        example=Example(
            Path(__file__).resolve().parent / "examples",
            "judge_claims.jsonl",
            {"judge": "example-judge"},
            needs=EXAMPLE_NEEDS,
        ),
    )
)
