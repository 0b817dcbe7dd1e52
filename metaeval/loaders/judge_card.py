"""What the judge card reads beyond the agreement data (docs/ANALYSES.md §13): each report's
length in words, which judges are runs of one judge, and the runs' operation records.
A constant number of queries whatever the number of judges or reports.
"""

from __future__ import annotations

import re
from collections import defaultdict

#: Sections whose title names a reference list (a normaliser may keep one as text); their
#: words are not the report's (the card measures the report, not its bibliography).
REFERENCE_TITLE = re.compile(r"^\s*(references?|bibliography|sources|works cited|citations)\s*$",
                             re.IGNORECASE)  # fmt: skip
WORD = re.compile(r"\w+")
#: What :class:`judges.llm.Refusal` writes into a failed unit's error.
REFUSAL = "the model refused"


def words(text: str) -> int:
    """Words of a text: runs of letters, digits or underscores (citation markers such as
    ``[3]`` count as one word each, as a reader sees them)."""
    return len(WORD.findall(text))


def report_words(report_ids, *, study_id: int | None = None) -> dict[int, int]:
    """Report id -> words of its paragraphs, the reference list left out (citations are
    their own table; a section titled "References" or alike is skipped). One query;
    ``study_id``: the reports are every report of that study, so their paragraphs are read
    by a join on the study rather than a list of ids (120,000 parameters at 40,000
    questions, issue 29)."""
    from annotation.models import Paragraph

    ids = sorted({int(r) for r in report_ids})
    out: dict[int, int] = dict.fromkeys(ids, 0)
    if not ids:
        return out
    paragraphs = (Paragraph.objects.filter(report__question__study_id=study_id)
                  if study_id is not None else Paragraph.objects.filter(report_id__in=ids))  # fmt: skip
    rows = paragraphs.order_by().values_list("report_id", "section__title", "text")
    for report, title, text in rows.iterator(chunk_size=2000):
        if report in out and not REFERENCE_TITLE.match(title or ""):
            out[report] += words(text)
    return {r: (n if n else None) for r, n in out.items()}  # a report without text: unknown


def study_report_words(study_id: int) -> dict[tuple[str, str], tuple[int, int | None]]:
    """(question external id, system name) -> (report id, words) of every report of a
    study (score judges' frames name reports by question and system). Two queries."""
    from annotation.models import Report

    reports = list(Report.objects.filter(question__study_id=study_id)
                   .values_list("pk", "question__external_id", "system__name"))  # fmt: skip
    lengths = report_words((r[0] for r in reports), study_id=study_id)
    return {(q, s): (pk, lengths.get(pk)) for pk, q, s in reports}


def judge_identity(names) -> dict[str, dict]:
    """Judge name -> what it is (provider, model, prompt version, parameters) and the
    *family* it belongs to: judges with the same provider, model, prompt version and
    prompt text (a non-empty model) are runs of one judge that differ in their
    parameters (seed, temperature…). One query.

    The parameters are masked as the API masks them (:func:`judges.secrets.masked_parameters`):
    everything downstream — the report's JSON, the API, the judge page, the downloads, the
    offline HTML, the command's output and the cache — only ever holds the masked copy."""
    from judges.models import Judge
    from judges.secrets import masked_parameters

    out = {}
    for name, provider, model, version, template, params in Judge.objects.filter(
        name__in=list(names)
    ).values_list("name", "provider", "model", "prompt_version", "prompt_template", "parameters"):
        family = (provider, model, version, template) if model else None
        out[name] = {"provider": provider, "model": model, "prompt_version": version,
                     "parameters": masked_parameters(params), "family": family}  # fmt: skip
    return out


def families(identity: dict[str, dict]) -> dict[str, list[str]]:
    """Judge name -> every judge of its family (itself first, then by name)."""
    groups = defaultdict(list)
    for name, info in identity.items():
        if info["family"] is not None:
            groups[info["family"]].append(name)
    out = {}
    for name, info in identity.items():
        members = sorted(groups.get(info["family"], [])) if info["family"] else []
        out[name] = [name] + [m for m in members if m != name]
    return out


def run_records(study_id: int) -> dict[str, dict]:
    """Judge name -> totals of its live runs in the study: units requested, parsed (done),
    failed, refused, HTTP requests, tokens, cost and wall time (first start to last
    finish of each run, summed over runs). Judges without a run are absent. Two
    queries."""
    from django.db.models import Count

    from judges.models import JudgeRun, JudgeUnit

    runs = list(JudgeRun.objects.filter(study_id=study_id).order_by("pk").values_list(
        "pk", "judge__name", "tasks", "total_units", "done_units", "failed_units",
        "requests", "prompt_tokens", "completion_tokens", "cost", "started_at", "finished_at"))  # fmt: skip
    refused = dict(
        JudgeUnit.objects.filter(run__study_id=study_id, status=JudgeUnit.Status.FAILED,
                                 error__icontains=REFUSAL)
        .order_by().values_list("run_id").annotate(n=Count("pk")).values_list("run_id", "n")
    )  # fmt: skip
    out: dict[str, dict] = {}
    for (pk, name, tasks, total, done, failed, requests, ptok, ctok, cost, started,
         finished) in runs:  # fmt: skip
        rec = out.setdefault(name, {"runs": 0, "tasks": [], "unfinished": 0, "requested": 0,
                                    "parsed": 0, "failed": 0, "refused": 0, "requests": 0,
                                    "prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0,
                                    "seconds": 0.0, "timed_units": 0})  # fmt: skip
        rec["runs"] += 1
        rec["tasks"] = sorted(set(rec["tasks"]) | set(tasks or []))
        rec["requested"] += total
        rec["parsed"] += done
        rec["failed"] += failed
        rec["refused"] += refused.get(pk, 0)
        rec["requests"] += requests
        rec["prompt_tokens"] += ptok
        rec["completion_tokens"] += ctok
        rec["cost"] += cost
        if started and finished and finished >= started:
            rec["seconds"] += (finished - started).total_seconds()
            rec["timed_units"] += done + failed
        else:
            rec["unfinished"] += 1
    return out


def deepscholar_judge_labels(study_id: int) -> list[tuple]:
    """(judge, kind, question, report or None, unit key, label) of every judge label of
    the study's DeepScholar units, the organization votes of each order included (kind
    ``organization_vote``, unit ``report_first`` / ``exemplar_first``, label the winner).
    One query."""
    from judges.models import JudgeDeepScholarLabel

    return list(JudgeDeepScholarLabel.objects.filter(question__study_id=study_id).order_by("pk")
                .values_list("judge__name", "kind", "question_id", "report_id", "unit", "label"))  # fmt: skip
