"""The judge task kinds, one class each: what a kind plans, asks, writes and scores.

A live run (:mod:`judges.runs`) is planned into units (:class:`~judges.models.JudgeUnit`),
and each unit belongs to one kind. A kind declares, in one place, its four jobs:

* **plan**: the units of a run over some reports, leaving out what the judge already judged
  (a judge never judges the same thing twice unless the run asks to rejudge);
* **job**: the prompt of a unit and how its answer is parsed (:class:`Job`);
* **rows**: the result rows of a parsed answer (upserted by the executor, see ``UPSERT``);
* **scores**: per-report scores derived from the stored judgments (:func:`finalize`).

A new kind is one subclass of :class:`Kind` registered with :func:`register`; the planner,
the executor and :func:`finalize` iterate over the registry (``KINDS``), never over task
names. The prompts and parsers live in :mod:`judges.prompts`, the formulas in
:mod:`judges.scoring` (each cites its paper section).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations

from django.db import transaction
from django.db.models import Q

from annotation.models import CitationAnchor, Paragraph, Report, RubricItem

from . import prompts
from .models import (
    Judge,
    JudgeClaimVerdict,
    JudgeCoverage,
    JudgePairwise,
    JudgeRelevance,
    JudgeRun,
    JudgeScore,
    JudgeUnit,
)
from .scoring import researchqa, scholarqa

Task = JudgeRun.Task


@dataclass
class Job:
    """What one unit asks and how its answer is parsed; built on the executing thread."""

    unit: JudgeUnit
    messages: list[dict]
    parse: Callable[[str], object]
    key: str = ""
    #: The answer's JSON schema, for JSON mode / structured outputs (None: a text answer).
    schema: dict | None = None


# --- Reports as text --------------------------------------------------------------------------


def report_text(report_id: int) -> str:
    """The report as the judge reads it: section titles and paragraphs, in order."""
    parts: list[str] = []
    current = None
    for section_id, title, text in (
        Paragraph.objects.filter(report_id=report_id)
        .order_by("number")
        .values_list("section_id", "section__title", "text")
    ):
        if section_id != current:
            current = section_id
            if title and title.strip():
                parts.append(f"## {title.strip()}")
        parts.append(text)
    return "\n\n".join(parts)


def comparisons(reports) -> list[tuple[Report, Report]]:
    """Every pair of reports of one question, in canonical order (A < B by system name)."""
    by_question: dict[int, list[Report]] = defaultdict(list)
    for r in reports:
        by_question[r.question_id].append(r)
    out = []
    for rs in by_question.values():
        rs.sort(key=lambda r: r.system.name)
        out += list(combinations(rs, 2))
    return out


def report_claims(report_ids) -> dict[int, list[tuple[Paragraph, prompts.Claim]]]:
    """Claims of each report, paragraph by paragraph (two queries)."""
    anchors: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for pid, start, end, key in CitationAnchor.objects.filter(
        paragraph__report_id__in=report_ids
    ).values_list("paragraph_id", "start", "end", "citation__key"):
        anchors[pid].append((start, end, key))
    out: dict[int, list] = defaultdict(list)
    for p in Paragraph.objects.filter(pk__in=list(anchors)).order_by("report_id", "number"):
        for claim in prompts.split_claims(p.text, anchors[p.pk]):
            out[p.report_id].append((p, claim))
    return out


def claim_key(paragraph_number: int, claim: prompts.Claim) -> str:
    return f"p{paragraph_number}:{claim.start}-{claim.end}"


# --- The kinds --------------------------------------------------------------------------------


class Evidence:
    """What :func:`finalize` derives scores from: one judge's stored judgments over some
    reports of a study (the scored reports, ``{report id: question id}``), loaded once and
    shared by the kinds (coverage labels feed both the coverage score and the ensemble)."""

    def __init__(self, judge: Judge, questions: dict[int, int], scholarqa_overall: bool):
        self.judge = judge
        self.questions = questions
        self.ids = list(questions)
        self.scholarqa_overall = scholarqa_overall

    @cached_property
    def reports(self) -> list[Report]:
        """The scored reports as rows (with their system), for the kinds that need them."""
        return list(Report.objects.filter(pk__in=self.ids).select_related("system"))

    def has_any(self, model) -> bool:
        """Whether the judge has any row of ``model``: a kind whose judgments the judge
        never made scores nothing, without reading the reports' parts (one indexed query)."""
        return model.objects.filter(judge=self.judge).exists()

    @cached_property
    def coverage(self) -> dict[int, list[int]]:
        """Each scored report's coverage labels, item by item, when every item of its
        rubrics has one (incomplete evidence gives no score)."""
        return self.coverage_of(self.questions)

    def coverage_of(self, questions: dict[int, int]) -> dict[int, list[int]]:
        """:attr:`coverage` of the reports ``{report id: question id}``."""
        labels: dict[int, dict[int, int]] = defaultdict(dict)
        for rid, item_id, label in JudgeCoverage.objects.filter(
            judge=self.judge, report__in=list(questions), label__isnull=False
        ).values_list("report_id", "item_id", "label"):
            labels[rid][item_id] = label
        if not labels:  # no label, no score: the rubric items need not be read
            return {}
        items_of: dict[int, set[int]] = defaultdict(set)
        for item_id, qid in RubricItem.objects.filter(
            rubric__question__in={questions[rid] for rid in labels}
        ).values_list("id", "rubric__question_id"):
            items_of[qid].add(item_id)
        out = {}
        for rid, got in labels.items():
            wanted = items_of.get(questions[rid])
            if wanted and wanted <= got.keys():
                out[rid] = [got[i] for i in sorted(wanted)]
        return out


class Kind:
    """One judge task kind. Subclasses set ``task`` and implement what they do."""

    task: str = ""
    #: The unit kinds a run of this kind needs (the ensemble needs coverage and pairwise).
    needs: tuple[str, ...] = ()
    #: A live ScholarQA-CS2-style kind: a run with it makes coverage stand as answer
    #: recall and computes ``overall`` (see :func:`finalize`).
    scholarqa_style = False
    #: Result model of the unit rows: (its unique fields, the fields a new judgment
    #: overwrites), for the executor's upserts. None: the kind has no units of its own.
    upsert: tuple[type, list[str], list[str]] | None = None

    def unit_tasks(self) -> tuple[str, ...]:
        return self.needs or (self.task,)

    def plan(self, run: JudgeRun, reports: list[Report], rejudge: bool) -> list[JudgeUnit]:
        """The units of ``run`` over ``reports`` (not saved)."""
        return []

    def job(self, ctx, unit: JudgeUnit) -> Job:
        """The unit's prompt; ``ctx`` holds the texts preloaded for a chunk of units."""
        raise NotImplementedError

    def rows(self, ctx, unit: JudgeUnit, parsed) -> list:
        """The result rows of a unit's parsed answer."""
        raise NotImplementedError

    def scores(self, evidence: Evidence) -> dict[tuple[int, str], float]:
        """Per-report scores ``{(report id, metric): value}`` from the stored judgments."""
        return {}

    def unit(self, run: JudgeRun, key: str, /, **payload) -> JudgeUnit:
        return JudgeUnit(run=run, task=self.task, key=key, payload=payload)


KINDS: dict[str, Kind] = {}


def register(cls: type[Kind]) -> type[Kind]:
    """Register a kind (a class decorator): the registry is every dispatch's only list."""
    KINDS[cls.task] = cls()
    return cls


def kind(task: str) -> Kind:
    try:
        return KINDS[task]
    except KeyError:
        raise ValueError(f"unknown task {task!r}") from None


@register
class Coverage(Kind):
    """ResearchQA rubric coverage: a batch of ≤ 8 rubric items of one report per call,
    each labelled 0–4; the report's score is the mean label / 4 (ResearchQA §3.2)."""

    task = Task.COVERAGE
    upsert = (JudgeCoverage, ["judge", "report", "item"], ["label", "covered", "run"])

    def plan(self, run, reports, rejudge):
        options = run.options or {}
        items = RubricItem.objects.filter(rubric__question__in={r.question_id for r in reports})
        if options.get("rubric_kind"):
            items = items.filter(rubric__kind=options["rubric_kind"])
        rubric_items: dict[tuple[int, int], list[int]] = defaultdict(list)
        for item_id, rubric_id, qid in items.order_by("rubric_id", "position").values_list(
            "id", "rubric_id", "rubric__question_id"
        ):
            rubric_items[(qid, rubric_id)].append(item_id)
        by_question: dict[int, list[tuple[int, list[int]]]] = defaultdict(list)
        for (qid, rubric_id), ids in rubric_items.items():
            by_question[qid].append((rubric_id, ids))
        done = set()
        if not rejudge:
            done = set(
                JudgeCoverage.objects.filter(
                    judge=run.judge, report__in=[r.pk for r in reports]
                ).values_list("report_id", "item_id")
            )
        size = int(options.get("items_per_call") or researchqa.ITEMS_PER_CALL)
        out = []
        for r in reports:
            for rubric_id, ids in by_question.get(r.question_id, []):
                for i in range(0, len(ids), size):
                    batch = ids[i : i + size]
                    if not all((r.pk, item) in done for item in batch):
                        key = f"coverage:{r.pk}:{rubric_id}:{i // size}"
                        out.append(self.unit(run, key, report=r.pk, items=batch))
        return out

    def job(self, ctx, unit):
        p = unit.payload
        texts = [ctx.items[i] for i in p["items"]]
        n = len(texts)
        messages = prompts.coverage_messages(ctx.text(p["report"]), texts)
        return Job(unit, messages, lambda c: prompts.parse_coverage(c, n))

    def rows(self, ctx, unit, parsed):
        p = unit.payload
        return [
            JudgeCoverage(judge=ctx.judge, report_id=p["report"], item_id=item_id, label=label,
                          covered=None, run=ctx.run)
            for item_id, label in zip(p["items"], parsed, strict=True)
        ]  # fmt: skip

    def scores(self, evidence):
        out = {}
        for rid, labels in evidence.coverage.items():
            value = researchqa.answer_coverage(labels)
            out[(rid, "rubric_coverage")] = value
            if evidence.scholarqa_overall:  # rubric-ingredient coverage (seed 003 §3)
                out[(rid, "answer_recall")] = value
        return out


@register
class Pairwise(Kind):
    """Direct pairwise judging of two reports of one question, in both orders (positional
    bias; ResearchQA §3.3)."""

    task = Task.PAIRWISE
    upsert = (
        JudgePairwise,
        ["judge", "protocol", "left", "right"],
        ["choice", "rationale", "run"],
    )

    def plan(self, run, reports, rejudge):
        done = set()
        if not rejudge:
            done = set(
                JudgePairwise.objects.filter(
                    judge=run.judge, protocol=JudgePairwise.Protocol.DIRECT
                ).values_list("left_id", "right_id")
            )
        out = []
        for a, b in comparisons(reports):
            for left, right in ((a, b), (b, a)):  # both orders (positional bias)
                if (left.pk, right.pk) not in done:
                    key = f"pairwise:{left.pk}:{right.pk}"
                    out.append(self.unit(run, key, left=left.pk, right=right.pk))
        return out

    def job(self, ctx, unit):
        p = unit.payload
        messages = prompts.pairwise_messages(
            ctx.query(p["left"]), ctx.text(p["left"]), ctx.text(p["right"])
        )
        return Job(unit, messages, prompts.parse_pairwise)

    def rows(self, ctx, unit, parsed):
        p = unit.payload
        which, rationale = parsed
        return [
            JudgePairwise(judge=ctx.judge, protocol=JudgePairwise.Protocol.DIRECT,
                          left_id=p["left"], right_id=p["right"],
                          choice="left" if which == 1 else "right", rationale=rationale,
                          run=ctx.run)
        ]  # fmt: skip


ENSEMBLE_NOTE = "J_ensemble (ResearchQA §3.3): 4·(I + I′) + Σ coverage labels"


@register
class Ensemble(Kind):
    """ResearchQA's J_ensemble (§3.3): no units of its own; it combines both pairwise orders
    and the two reports' coverage labels into a decision per canonical pair."""

    task = Task.ENSEMBLE
    needs = (Task.COVERAGE, Task.PAIRWISE)

    def scores(self, evidence):
        """Writes the ensemble decisions (pairwise rows, not per-report scores) of every
        pair with a scored report on one side; the other side's coverage is read too."""
        if not evidence.has_any(JudgePairwise):
            return {}
        scored = set(evidence.ids)
        direct = {
            (left, right): choice
            for left, right, choice in JudgePairwise.objects.filter(
                Q(left__in=evidence.ids) | Q(right__in=evidence.ids),
                judge=evidence.judge, protocol=JudgePairwise.Protocol.DIRECT,
            ).values_list("left_id", "right_id", "choice")
        }  # fmt: skip
        if not direct:  # no direct judgment, no decision (e.g. a coverage-only judge)
            return {}
        partners = list(
            Report.objects.filter(pk__in={r for pair in direct for r in pair} - scored)
            .select_related("system")
        )  # fmt: skip
        coverage = {
            **evidence.coverage,
            **evidence.coverage_of({r.pk: r.question_id for r in partners}),
        }
        rows = []
        for a, b in comparisons([*evidence.reports, *partners]):
            if a.pk not in scored and b.pk not in scored:
                continue  # two partners: their decision did not change
            first, swapped = direct.get((a.pk, b.pk)), direct.get((b.pk, a.pk))
            if first is None or swapped is None or a.pk not in coverage or b.pk not in coverage:
                continue
            prefers_a, prefers_a_swapped = first == "left", swapped == "right"
            score_a = researchqa.ensemble_score(prefers_a, prefers_a_swapped, coverage[a.pk])
            score_b = researchqa.ensemble_score(
                not prefers_a, not prefers_a_swapped, coverage[b.pk]
            )
            decision = researchqa.ensemble_decision(score_a, score_b)
            rows.append(
                JudgePairwise(judge=evidence.judge, protocol=JudgePairwise.Protocol.ENSEMBLE,
                              left=a, right=b, choice={1: "left", -1: "right", 0: "tie"}[decision],
                              score_left=score_a, score_right=score_b, rationale=ENSEMBLE_NOTE)
            )  # fmt: skip
        JudgePairwise.objects.bulk_create(
            rows, update_conflicts=True, unique_fields=["judge", "protocol", "left", "right"],
            update_fields=["choice", "score_left", "score_right", "rationale"], batch_size=500,
        )  # fmt: skip
        return {}


@register
class Relevance(Kind):
    """ScholarQA-CS2 answer relevance: one call per report flags its irrelevant paragraphs;
    the score is the share not flagged (seed 003 §3)."""

    task = Task.RELEVANCE
    scholarqa_style = True
    upsert = (JudgeRelevance, ["judge", "paragraph"], ["relevant", "rationale", "run"])

    def plan(self, run, reports, rejudge):
        done = set()
        if not rejudge:
            done = set(
                JudgeRelevance.objects.filter(
                    judge=run.judge, paragraph__report__in=[r.pk for r in reports]
                ).values_list("paragraph__report_id", flat=True)
            )
        return [
            self.unit(run, f"relevance:{r.pk}", report=r.pk) for r in reports if r.pk not in done
        ]

    def job(self, ctx, unit):
        p = unit.payload
        paragraphs = [(n, t) for _, n, t in ctx.paragraphs[p["report"]]]
        numbers = [n for n, _ in paragraphs]
        return Job(unit, prompts.relevance_messages(ctx.query(p["report"]), paragraphs),
                   lambda c: prompts.parse_relevance(c, numbers),
                   schema=prompts.RELEVANCE_SCHEMA)  # fmt: skip

    def rows(self, ctx, unit, parsed):
        flagged = parsed
        return [
            JudgeRelevance(judge=ctx.judge, paragraph_id=pid, relevant=number not in flagged,
                           rationale=flagged.get(number, ""), run=ctx.run)
            for pid, number, _ in ctx.paragraphs[unit.payload["report"]]
        ]  # fmt: skip

    def scores(self, evidence):
        if not evidence.has_any(JudgeRelevance):
            return {}
        flags = defaultdict(dict)
        for pid, rid, relevant in JudgeRelevance.objects.filter(
            judge=evidence.judge, paragraph__report_id__in=evidence.ids
        ).values_list("paragraph_id", "paragraph__report_id", "relevant"):
            flags[rid][pid] = relevant
        if not flags:  # no flag, no score: the paragraphs need not be read
            return {}
        paragraphs = defaultdict(set)
        for pid, rid in Paragraph.objects.filter(report_id__in=list(flags)).values_list(
            "id", "report_id"
        ):
            paragraphs[rid].add(pid)
        out = {}
        for rid, pids in paragraphs.items():
            got = flags.get(rid, {})
            if pids and pids <= set(got):
                relevance = scholarqa.answer_relevance(not got[p] for p in pids)
                out[(rid, "answer_relevance")] = relevance
        return out


@register
class Citations(Kind):
    """ScholarQA-CS2 citation support: one call per cited claim; citation precision and
    recall follow from the verdicts (seed 003 §3, title-only citations at half credit)."""

    task = Task.CITATIONS
    scholarqa_style = True
    upsert = (
        JudgeClaimVerdict,
        ["judge", "report", "key"],
        ["text", "verdict", "citations", "rationale", "run"],
    )

    def plan(self, run, reports, rejudge):
        ids = [r.pk for r in reports]
        done = set()
        if not rejudge:
            done = set(
                JudgeClaimVerdict.objects.filter(judge=run.judge, report__in=ids).values_list(
                    "report_id", "key"
                )
            )
        out = []
        for report_id, claims in report_claims(ids).items():
            for paragraph, claim in claims:
                key = claim_key(paragraph.number, claim)
                if (report_id, key) not in done:
                    out.append(
                        self.unit(run, f"claim:{report_id}:{key}", report=report_id,
                                  paragraph=paragraph.pk, key=key, start=claim.start,
                                  end=claim.end, citations=list(claim.citation_keys))
                    )  # fmt: skip
        return out

    def job(self, ctx, unit):
        p = unit.payload
        cites = ctx.citations[p["report"]]
        text = ctx.paragraph_text(p["report"], p["paragraph"])
        blocks = [
            {"key": k, "title": cites[k].title, "snippets": cites[k].snippets}
            for k in p["citations"]
            if k in cites
        ]
        keys = [b["key"] for b in blocks]
        claim = text[p["start"] : p["end"]]
        return Job(unit, prompts.claim_messages(ctx.query(p["report"]), claim, blocks),
                   lambda c: prompts.parse_claim(c, keys),
                   schema=prompts.CLAIM_SCHEMA)  # fmt: skip

    def rows(self, ctx, unit, parsed):
        p = unit.payload
        verdict, supporting, rationale = parsed
        cites = ctx.citations[p["report"]]
        citations = [
            {"key": k, "supports": k in supporting,
             "title_only": not any(s.strip() for s in (cites[k].snippets if k in cites
                                                         else None) or [])}
            for k in p["citations"]
        ]  # fmt: skip
        text = ctx.paragraph_text(p["report"], p["paragraph"])
        return [
            JudgeClaimVerdict(judge=ctx.judge, report_id=p["report"], key=p["key"],
                              text=text[p["start"] : p["end"]], verdict=verdict,
                              citations=citations, rationale=rationale, run=ctx.run)
        ]  # fmt: skip

    def scores(self, evidence):
        if not evidence.has_any(JudgeClaimVerdict):
            return {}
        verdicts = defaultdict(dict)
        for v in JudgeClaimVerdict.objects.filter(judge=evidence.judge, report_id__in=evidence.ids):
            verdicts[v.report_id][v.key] = v
        out = {}
        if not verdicts:  # no verdict, no score: the claims need not be read
            return out
        for rid, claims in report_claims(list(verdicts)).items():
            keys = [claim_key(p.number, c) for p, c in claims]
            got = verdicts.get(rid, {})
            if keys and all(k in got for k in keys):
                precision, recall = self._report_scores([got[k] for k in keys])
                out[(rid, "citation_precision")] = precision
                out[(rid, "citation_recall")] = recall
        return out

    @staticmethod
    def _report_scores(verdicts: list[JudgeClaimVerdict]) -> tuple[float, float]:
        credits, recall = [], []
        for v in verdicts:
            cs = v.citations or []
            credits.append([scholarqa.citation_credit(c["supports"], c["title_only"]) for c in cs])
            if v.verdict == JudgeClaimVerdict.Verdict.SUPPORTED:
                supporting = [c for c in cs if c["supports"]]
                title_only = bool(supporting) and all(c["title_only"] for c in supporting)
                recall.append(scholarqa.TITLE_ONLY_SUPPORTS if title_only else 1.0)
            else:
                recall.append(0.0)
        return scholarqa.citation_precision(credits), scholarqa.citation_recall(recall)


# --- Planning and derived scores over every kind ----------------------------------------------


def reports_of(study, options: dict):
    qs = Report.objects.filter(question__study=study)
    if options.get("systems"):
        qs = qs.filter(system__name__in=options["systems"])
    if options.get("questions"):
        qs = qs.filter(question__external_id__in=options["questions"])
    return qs.select_related("system").order_by("question_id", "system__name")


def plan_units(run: JudgeRun) -> list[JudgeUnit]:
    """The units of a run (not saved), kind by kind in registry order. Units whose results
    this judge already has are left out unless ``options["rejudge"]``."""
    options = run.options or {}
    reports = list(reports_of(run.study, options))
    wanted = {t for task in run.tasks for t in kind(task).unit_tasks()}
    units: list[JudgeUnit] = []
    for k in KINDS.values():
        if k.task in wanted:
            units += k.plan(run, reports, bool(options.get("rejudge")))
    return units


def scholarqa_style(tasks) -> bool:
    return any(kind(t).scholarqa_style for t in tasks)


def _set_scores(judge: Judge, values: dict[tuple[int, str], float]) -> None:
    """Upsert the judge's scores through the importers' diff writer (no model instances:
    an import's finalize sets up to 21,000 scores per file, issue 16); equal ones are left
    alone, a score never set is inserted, a changed one updated."""
    from annotation.importers.base import ImportReport
    from annotation.importers.common import sync_rows

    if not values:
        return
    stored = {}
    ids = sorted({rid for rid, _ in values})
    for i in range(0, len(ids), FINALIZE_CHUNK):
        for pk, rid, metric, value in JudgeScore.objects.filter(
            judge=judge, report__in=ids[i : i + FINALIZE_CHUNK],
            metric__in={m for _, m in values},
        ).values_list("id", "report_id", "metric", "value"):  # fmt: skip
            stored[(rid, metric)] = (pk, (value,))
    sync_rows(
        JudgeScore, ImportReport(kind="scores", dry_run=False), stored=stored,
        wanted={key: (value,) for key, value in values.items()}, fields=["value"],
        new_row=lambda key, v: {"judge": judge.pk, "report": key[0], "metric": key[1],
                                "value": v[0]},
    )  # fmt: skip


#: Reports per pass of :func:`finalize` (whole questions; bounds the memory and the
#: ``IN`` lists, e.g. SQLite's 32,766 variables).
FINALIZE_CHUNK = 5000


def finalize(judge: Judge, study_id: int, *, scholarqa_overall: bool = False, reports=None) -> None:
    """Derive per-report scores and ensemble decisions of ``judge`` in a study from the
    stored judgments, every kind in turn. Only complete evidence counts: a report's
    coverage needs every item of its rubrics, its relevance every paragraph, its citation
    scores every claim. A pure recomputation, safe to repeat.

    ``reports`` (report ids) limits it to what those reports' judgments decide: their
    scores and the ensemble decisions of the pairs with one of them on a side. An import
    passes the reports its file touched, so that importing the 18 files of a study costs
    18 files, not 18 passes over the study (issue 16); a live run passes nothing (the
    whole study). The reports are taken question by question in passes of about
    ``FINALIZE_CHUNK``, each a fixed number of queries.

    With ``scholarqa_overall`` (a live ScholarQA-CS2-style run: relevance or citations) the
    coverage also stands as ScholarQA-CS2's answer recall (rubric-ingredient coverage,
    seed 003 §3) and ``overall`` is the mean of the four; otherwise those two metrics are
    left as they are (an imported judge keeps its own)."""
    study_reports = Report.objects.filter(question__study_id=study_id)
    if reports is None:
        batches = [study_reports]
    else:
        ids = sorted(set(reports))
        batches = [
            study_reports.filter(pk__in=ids[i : i + FINALIZE_CHUNK])
            for i in range(0, len(ids), FINALIZE_CHUNK)
        ]
    by_question: dict[int, dict[int, int]] = defaultdict(dict)
    for batch in batches:
        for rid, qid in batch.values_list("id", "question_id"):
            by_question[qid][rid] = qid
    part: dict[int, int] = {}
    for rows in [*by_question.values(), None]:
        if part and (rows is None or len(part) + len(rows) > FINALIZE_CHUNK):
            _finalize_part(judge, part, scholarqa_overall)
            part = {}
        part.update(rows or {})


def _finalize_part(judge: Judge, questions: dict[int, int], scholarqa_overall: bool) -> None:
    evidence = Evidence(judge, questions, scholarqa_overall)
    with transaction.atomic():
        scores: dict[tuple[int, str], float] = {}
        for k in KINDS.values():
            scores.update(k.scores(evidence))
        for rid in evidence.ids if scholarqa_overall else ():
            parts = [scores.get((rid, m)) for m in scholarqa.METRICS]
            if all(v is not None for v in parts):
                scores[(rid, "overall")] = scholarqa.overall(*parts)
        _set_scores(judge, scores)
