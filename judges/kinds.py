"""The judge task kinds, one class each: what a kind plans, asks, writes and scores.

A live run (:mod:`judges.runs`) is planned into units (:class:`~judges.models.JudgeUnit`),
and each unit belongs to one kind. A kind declares, in one place, its four jobs:

* **plan**: the units of a run over some reports, leaving out what the judge already judged
  (a judge never judges the same thing twice unless the run asks to rejudge);
* **job**: the prompt of a unit and how its answer is parsed (:class:`Job`);
* **rows**: the result rows of a parsed answer (written by the executor through the kind's
  :meth:`Kind.write`: an upsert on the result model's natural key);
* **scores**: per-report scores derived from the stored judgments (:func:`finalize`).

A new kind is one subclass of :class:`Kind` registered with :func:`register`; the planner,
the executor and :func:`finalize` iterate over the registry (``KINDS``), never over task
names. The prompts and parsers live in :mod:`judges.prompts`, the formulas in
:mod:`judges.scoring` (each cites its paper section).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from typing import NamedTuple

from django.db import transaction
from django.db.models import Q

from annotation import id_lookup  # noqa: F401 - registers ``__any_of`` (long id lists)
from annotation.links import shown_url
from annotation.models import (
    Exemplar,
    ExemplarReference,
    Nugget,
    Paragraph,
    Question,
    Report,
    RubricItem,
)

from . import prompts, writes
from .models import (
    Judge,
    JudgeClaimVerdict,
    JudgeCoverage,
    JudgeDeepScholarLabel,
    JudgePairwise,
    JudgeRelevance,
    JudgeRun,
    JudgeScore,
    JudgeUnit,
)
from .scoring import researcherbench, researchqa, scholarqa

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
    """Claims of each report, paragraph by paragraph (one query)."""
    out: dict[int, list] = defaultdict(list)
    for p in Paragraph.objects.filter(report_id__in=report_ids).order_by("report_id", "number"):
        if p.anchors:
            for claim in prompts.split_claims(p.text, [tuple(a) for a in p.anchors]):
                out[p.report_id].append((p, claim))
    return out


def claim_key(paragraph_number: int, claim: prompts.Claim) -> str:
    return f"p{paragraph_number}:{claim.start}-{claim.end}"


# --- The kinds --------------------------------------------------------------------------------


class Evidence:
    """What :func:`finalize` derives scores from: one judge's stored judgments over some
    reports of a study (the scored reports, ``{report id: question id}``), loaded once and
    shared by the kinds (coverage labels feed both the coverage score and the ensemble)."""

    def __init__(self, judge: Judge, questions: dict[int, int], scholarqa_overall: bool,
                 known: dict[int, dict[int, int]] | None = None,
                 items: dict[int, set[int]] | None = None,
                 binary_coverage: bool = False):  # fmt: skip
        self.judge = judge
        #: Derive S_c from the judge's binary coverage verdicts (a live binary coverage run,
        #: :class:`CoverageBinary`); otherwise its ``rubric_coverage`` is left as it is (an
        #: import sets its own, and a ResearchQA-scale import need not read its rows twice).
        self.binary_coverage = binary_coverage
        self.questions = questions
        self.ids = list(questions)
        self.scholarqa_overall = scholarqa_overall
        #: The judge's coverage labels of some reports as the caller just wrote them,
        #: ``{report id: {item id: label}}`` (see :func:`finalize`): not read again.
        self.known = known or {}
        #: The rubric items of some questions as the caller read them, ``{question id:
        #: item ids}``, every item of every rubric of each question given (see
        #: :func:`finalize`): not read again.
        self.items = items or {}

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
        unknown = [rid for rid in questions if rid not in self.known]
        for rid, item_id, label in JudgeCoverage.objects.filter(
            judge=self.judge, report__any_of=unknown, label__isnull=False
        ).values_list("report_id", "item_id", "label") if unknown else ():  # fmt: skip
            labels[rid][item_id] = label
        for rid in questions:
            if self.known.get(rid):
                labels[rid] = self.known[rid]
        if not labels:  # no label, no score: the rubric items need not be read
            return {}
        needed = {questions[rid] for rid in labels}
        items_of: dict[int, set[int]] = defaultdict(set)
        items_of.update((qid, self.items[qid]) for qid in needed if qid in self.items)
        unknown_questions = needed - items_of.keys()
        for item_id, qid in RubricItem.objects.filter(
            rubric__question__any_of=unknown_questions
        ).values_list("id", "rubric__question_id") if unknown_questions else ():  # fmt: skip
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

    def write(self, rows: list) -> None:
        """Store a batch of result rows (inside the executor's transaction): an upsert on
        the natural key ``upsert`` declares."""
        model, unique, update = self.upsert
        writes.upsert(model, rows, unique, update)

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
    #: The judge's rows that count as judged when planning (any row: as before the binary
    #: task, a row of either protocol is not judged again without ``rejudge``).
    judged = Q()

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
                    self.judged, judge=run.judge, report__in=[r.pk for r in reports]
                ).values_list("report_id", "item_id")
            )
        size = int(options.get("items_per_call") or researchqa.ITEMS_PER_CALL)
        out = []
        for r in reports:
            for rubric_id, ids in by_question.get(r.question_id, []):
                for i in range(0, len(ids), size):
                    batch = ids[i : i + size]
                    if not all((r.pk, item) in done for item in batch):
                        key = f"{self.task}:{r.pk}:{rubric_id}:{i // size}"
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
class CoverageBinary(Coverage):
    """ResearcherBench rubric coverage (seed 004 §4.1.2): each criterion covered or not,
    b_i ∈ {0, 1}, with the judge's justification; batched ≤ 8 criteria of one report a
    call as :class:`Coverage` is. Rows are ``covered`` (``label`` None), the rows the
    ResearcherBench results import writes, so S_c (:func:`~judges.scoring.researcherbench.
    weighted_coverage`) and the judge-vs-expert binary coverage read them alike. Planned
    on the reports' items that have no binary verdict of the judge yet (a 0–4 label is
    not one)."""

    task = Task.COVERAGE_BINARY
    upsert = (JudgeCoverage, ["judge", "report", "item"], ["label", "covered", "rationale", "run"])
    judged = Q(covered__isnull=False)

    def job(self, ctx, unit):
        p = unit.payload
        criteria = [(ctx.items[i], ctx.weights[i]) for i in p["items"]]
        n = len(criteria)
        messages = prompts.coverage_binary_messages(ctx.query(p["report"]), ctx.text(p["report"]),
                                                    criteria)  # fmt: skip
        return Job(unit, messages, lambda c: prompts.parse_coverage_binary(c, n),
                   schema=prompts.COVERAGE_BINARY_SCHEMA)  # fmt: skip

    def rows(self, ctx, unit, parsed):
        p = unit.payload
        return [
            JudgeCoverage(judge=ctx.judge, report_id=p["report"], item_id=item_id, label=None,
                          covered=covered, rationale=why, run=ctx.run)
            for item_id, (covered, why) in zip(p["items"], parsed, strict=True)
        ]  # fmt: skip

    def scores(self, evidence):
        """S_c per report (seed 004 eq. 2) as ``rubric_coverage``, as the ResearcherBench
        import sets it, when every item of its rubrics has a binary verdict."""
        if not evidence.binary_coverage:
            return {}
        got: dict[int, dict[int, bool]] = defaultdict(dict)
        for rid, item_id, covered in JudgeCoverage.objects.filter(
            judge=evidence.judge, report__any_of=evidence.ids, covered__isnull=False
        ).values_list("report_id", "item_id", "covered"):
            got[rid][item_id] = covered
        if not got:
            return {}
        weights: dict[int, dict[int, float]] = defaultdict(dict)
        for item_id, qid, weight in RubricItem.objects.filter(
            rubric__question__any_of={evidence.questions[rid] for rid in got}
        ).values_list("id", "rubric__question_id", "weight"):
            weights[qid][item_id] = weight
        out = {}
        for rid, flags in got.items():
            wanted = weights.get(evidence.questions[rid], {})
            if wanted and wanted.keys() <= flags.keys():
                ids = sorted(wanted)
                out[(rid, "rubric_coverage")] = researcherbench.weighted_coverage(
                    [wanted[i] for i in ids], [flags[i] for i in ids]
                )
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


class _Verdict(NamedTuple):
    """What a claim's scores read of its stored verdict (a row, not a model instance: a
    live run's finalize reads every claim of the study; issue 29)."""

    verdict: str
    citations: list | None


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
            # the address as annotators open it (no tracking parameter naming a system)
            {"key": k, "title": cites[k].title, "snippets": cites[k].snippets,
             "url": shown_url(cites[k].url)}
            for k in p["citations"]
            if k in cites
        ]  # fmt: skip
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
        for rid, key, verdict, cited in JudgeClaimVerdict.objects.filter(
            judge=evidence.judge, report_id__in=evidence.ids
        ).values_list("report_id", "key", "verdict", "citations"):  # rows, not instances
            verdicts[rid][key] = _Verdict(verdict, cited)
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
    def _report_scores(verdicts: list[_Verdict]) -> tuple[float, float]:
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


# --- DeepScholar-Bench labels (seed 002 §8.11, Table 3) --------------------------------------


class _DeepScholarTexts:
    """What the DeepScholar prompts read of a question — its text, exemplar, nuggets and
    exemplar references — loaded once per question (four queries) on the task thread."""

    def __init__(self):
        self.questions: dict[int, str] = {}
        self.exemplars: dict[int, str] = {}
        self.nuggets: dict[int, dict[str, str]] = {}
        self.references: dict[int, dict[str, tuple[str, str]]] = {}

    def load(self, qid: int) -> None:
        if qid in self.questions:
            return
        self.questions[qid] = Question.objects.values_list("text", flat=True).get(pk=qid)
        self.exemplars[qid] = (
            Exemplar.objects.filter(question_id=qid).values_list("text", flat=True).first() or ""
        )
        self.nuggets[qid] = dict(Nugget.objects.filter(question_id=qid).values_list("key", "text"))
        self.references[qid] = {
            key: (title, url)
            for key, title, url in ExemplarReference.objects.filter(question_id=qid).values_list(
                "key", "title", "url"
            )
        }


def _texts(ctx, qid: int) -> _DeepScholarTexts:
    texts = ctx.__dict__.setdefault("_deepscholar", _DeepScholarTexts())
    texts.load(qid)
    return texts


def _unit_key(task: str, scope: str, unit: str) -> str:
    """A run-unique unit key; a long natural key is shortened to a digest."""
    key = f"{task}:{scope}:{unit}"
    return key if len(key) <= 200 else f"{task}:{scope}:#{hashlib.sha1(unit.encode()).hexdigest()}"


#: Organization's one-order answers, stored beside the labels under a kind of their own
#: (the Table 3 loader and the label export read only the six label kinds).
ORGANIZATION_VOTE = "organization_vote"
ORDERS = ("report_first", "exemplar_first")


class DeepScholarKind(Kind):
    """One DeepScholar label kind: one unit, one call, one label in the expert's label set
    (:data:`annotation.models.deepscholar.LABELS`), written as the
    :class:`~judges.models.JudgeDeepScholarLabel` row the judge-label importer
    (``judges/formats/deepscholar_labels.py``) writes, so the Table 3 analysis joins live
    and imported labels alike."""

    def existing(self, run: JudgeRun, reports, kind: str | None = None) -> set[tuple]:
        """(question, report, unit) of the labels this judge already has."""
        return set(
            JudgeDeepScholarLabel.objects.filter(
                judge=run.judge, kind=kind or self.task,
                question__in={r.question_id for r in reports},
            ).values_list("question_id", "report_id", "unit")
        )  # fmt: skip

    def units_of(self, reports) -> list[tuple[int, int | None, str]]:
        """(question, report or None, unit key) of every unit, in order."""
        raise NotImplementedError

    def plan(self, run, reports, rejudge):
        done = set() if rejudge else self.existing(run, reports)
        out = []
        for qid, rid, unit in self.units_of(reports):
            if (qid, rid, unit) not in done:
                scope = f"r{rid}" if rid else f"q{qid}"
                key = _unit_key(self.task, scope, unit)
                out.append(self.unit(run, key, question=qid, report=rid, unit=unit))
        return out

    def label_row(self, ctx, unit, label: str, rationale: str = "", kind: str = ""):
        p = unit.payload
        return JudgeDeepScholarLabel(judge=ctx.judge, kind=kind or self.task,
                                     question_id=p["question"], report_id=p["report"],
                                     unit=p["unit"], label=label, rationale=rationale)  # fmt: skip

    def rows(self, ctx, unit, parsed):
        return [self.label_row(ctx, unit, parsed)]

    def write(self, rows):
        write_labels(rows)


def write_labels(rows: list[JudgeDeepScholarLabel]) -> None:
    """Replace the judge's labels of these units by ``rows``: the natural key holds a null
    report for the question-level kinds, which a unique constraint (and hence an upsert)
    does not match, so the old rows are found and deleted first."""
    keys = {(r.judge_id, r.kind, r.question_id, r.report_id, r.unit) for r in rows}
    old = JudgeDeepScholarLabel.objects.filter(
        judge_id__in={k[0] for k in keys}, kind__in={k[1] for k in keys},
        question_id__in={k[2] for k in keys}, unit__in={k[4] for k in keys},
    ).values_list("pk", "judge_id", "kind", "question_id", "report_id", "unit")  # fmt: skip
    stale = [pk for pk, *key in old if tuple(key) in keys]
    if stale:
        JudgeDeepScholarLabel.objects.filter(pk__in=stale).delete()
    JudgeDeepScholarLabel.objects.bulk_create(rows, batch_size=500)


@register
class Organization(DeepScholarKind):
    """Organization and coherence against the exemplar (seed 002 §8.3.1, Box 1): the judge
    picks A or B, no ties, asked in both orders (positional bias); the report *wins* when
    preferred in both orders, *loses* when the exemplar is, and *ties* on a split — the
    lose / tie / win scale the experts label. Each order's answer is kept as an
    ``organization_vote`` row; :meth:`scores` combines the two once both are in (as the
    ensemble does for ResearchQA), so a failed order leaves the report unlabelled."""

    task = Task.ORGANIZATION

    def units_of(self, reports):
        with_exemplar = set(
            Exemplar.objects.filter(question__in={r.question_id for r in reports})
            .exclude(text="")
            .values_list("question_id", flat=True)
        )
        return [(r.question_id, r.pk, order) for r in reports
                if r.question_id in with_exemplar for order in ORDERS]  # fmt: skip

    def plan(self, run, reports, rejudge):
        labelled = set() if rejudge else {rid for _, rid, _ in self.existing(run, reports)}
        voted = set() if rejudge else self.existing(run, reports, ORGANIZATION_VOTE)
        out = []
        for qid, rid, order in self.units_of(reports):
            if rid not in labelled and (qid, rid, order) not in voted:
                out.append(self.unit(run, f"organization:{rid}:{order}", question=qid,
                                     report=rid, unit=order))  # fmt: skip
        return out

    def job(self, ctx, unit):
        p = unit.payload
        exemplar = _texts(ctx, p["question"]).exemplars[p["question"]]
        report = ctx.text(p["report"])
        a, b = (report, exemplar) if p["unit"] == "report_first" else (exemplar, report)
        return Job(unit, prompts.organization_messages(ctx.query(p["report"]), a, b),
                   prompts.parse_organization)  # fmt: skip

    def rows(self, ctx, unit, parsed):
        decision, explanation = parsed
        first = "report" if unit.payload["unit"] == "report_first" else "exemplar"
        winner = first if decision == "A" else ({"report", "exemplar"} - {first}).pop()
        return [self.label_row(ctx, unit, winner, explanation, kind=ORGANIZATION_VOTE)]

    def scores(self, evidence):
        """Writes the organization labels of the reports both of whose orders are judged
        (label rows, not per-report scores)."""
        if not evidence.has_any(JudgeDeepScholarLabel):
            return {}
        votes: dict[int, dict[str, tuple]] = defaultdict(dict)
        for qid, rid, order, winner, why in JudgeDeepScholarLabel.objects.filter(
            judge=evidence.judge, kind=ORGANIZATION_VOTE, report__in=evidence.ids
        ).values_list("question_id", "report_id", "unit", "label", "rationale"):
            votes[rid][order] = (qid, winner, why)
        rows = []
        for rid, got in votes.items():
            if set(got) != set(ORDERS):
                continue
            wins = sum(got[o][1] == "report" for o in ORDERS)
            label = {2: "win", 1: "tie", 0: "lose"}[wins]
            why = " / ".join(f"{o}: {got[o][2]}" for o in ORDERS if got[o][2])
            rows.append(JudgeDeepScholarLabel(judge=evidence.judge, kind=self.task,
                                              question_id=got[ORDERS[0]][0], report_id=rid,
                                              unit="", label=label, rationale=why))  # fmt: skip
        if rows:
            write_labels(rows)
        return {}


@register
class NuggetImportance(DeepScholarKind):
    """Nugget importance (seed 002 §8.3.1; AutoNuggetizer's vital / okay): one call per
    nugget of the questions judged."""

    task = Task.NUGGET_IMPORTANCE

    def units_of(self, reports):
        qids = {r.question_id for r in reports}
        nuggets = Nugget.objects.filter(question__in=qids).order_by("question_id", "position", "pk")
        return [(qid, None, key) for qid, key in nuggets.values_list("question_id", "key")]

    def job(self, ctx, unit):
        p = unit.payload
        t = _texts(ctx, p["question"])
        messages = prompts.nugget_importance_messages(
            t.questions[p["question"]],
            t.exemplars[p["question"]],
            t.nuggets[p["question"]][p["unit"]],
        )
        return Job(unit, messages, prompts.parse_nugget_importance)


@register
class NuggetSupport(DeepScholarKind):
    """Nugget support (seed 002 §8.3.1, nugget coverage): one call per nugget of a report's
    question and the report."""

    task = Task.NUGGET_SUPPORT

    def units_of(self, reports):
        nuggets = defaultdict(list)
        for qid, key in (
            Nugget.objects.filter(question__in={r.question_id for r in reports})
            .order_by("position", "pk")
            .values_list("question_id", "key")
        ):
            nuggets[qid].append(key)
        return [(r.question_id, r.pk, key) for r in reports for key in nuggets[r.question_id]]

    def job(self, ctx, unit):
        p = unit.payload
        nugget = _texts(ctx, p["question"]).nuggets[p["question"]][p["unit"]]
        messages = prompts.nugget_support_messages(ctx.query(p["report"]), ctx.text(p["report"]),
                                                   nugget)  # fmt: skip
        return Job(unit, messages, prompts.parse_nugget_support)


@register
class RetrievalRelevance(DeepScholarKind):
    """Retrieved-source relevance 0 / 1 / 2 (seed 002 §8.3.2, Box 2): one call per source a
    report cites."""

    task = Task.RETRIEVAL_RELEVANCE

    def units_of(self, reports):
        question = {r.pk: r.question_id for r in reports}
        stored = Report.objects.filter(pk__in=list(question)).order_by("pk")
        return [
            (question[rid], rid, c["key"])
            for rid, cites in stored.values_list("pk", "citations")
            for c in cites
        ]

    def job(self, ctx, unit):
        p = unit.payload
        c = ctx.citations[p["report"]][p["unit"]]
        exemplar = _texts(ctx, p["question"]).exemplars[p["question"]]
        messages = prompts.retrieval_relevance_messages(ctx.query(p["report"]), exemplar,
                                                        c.title, c.snippets)  # fmt: skip
        return Job(unit, messages, prompts.parse_retrieval_relevance)


@register
class ReferenceImportance(DeepScholarKind):
    """Exemplar-reference importance (seed 002 §8.3.2 reference coverage, §8.4.1): one call
    per reference of the exemplar."""

    task = Task.REFERENCE_IMPORTANCE

    def units_of(self, reports):
        refs = ExemplarReference.objects.filter(
            question__in={r.question_id for r in reports}
        ).order_by("question_id", "position", "pk")
        return [(qid, None, key) for qid, key in refs.values_list("question_id", "key")]

    def job(self, ctx, unit):
        p = unit.payload
        t = _texts(ctx, p["question"])
        title, url = t.references[p["question"]][p["unit"]]
        messages = prompts.reference_importance_messages(
            t.questions[p["question"]], t.exemplars[p["question"]], title, url
        )
        return Job(unit, messages, prompts.parse_reference_importance)


@register
class Entailment(DeepScholarKind):
    """Claim–source entailment (seed 002 §8.3.3, Box 3): one call per cited paragraph and
    one of its sources, keyed ``"<paragraph number>:<citation key>"`` as the experts'
    units are."""

    task = Task.ENTAILMENT

    def units_of(self, reports):
        question = {r.pk: r.question_id for r in reports}
        paragraphs = Paragraph.objects.filter(report__in=list(question)).order_by(
            "report_id", "number"
        )
        seen, out = set(), []
        for rid, number, anchors in paragraphs.values_list("report_id", "number", "anchors"):
            for _start, _end, key in sorted(anchors or ()):
                unit = f"{number}:{key}"
                if (rid, unit) not in seen:
                    seen.add((rid, unit))
                    out.append((question[rid], rid, unit))
        return out

    def job(self, ctx, unit):
        p = unit.payload
        number, _, key = p["unit"].partition(":")
        claim = next(t for _, n, t in ctx.paragraphs[p["report"]] if n == int(number))
        c = ctx.citations[p["report"]][key]
        return Job(unit, prompts.entailment_messages(claim, c.title, c.snippets),
                   prompts.parse_entailment)  # fmt: skip


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
    from annotation.importers.common import insert_rows, sync_rows

    if not values:
        return
    stored = {}
    ids = sorted({rid for rid, _ in values})
    for i in range(0, len(ids), FINALIZE_CHUNK):
        for pk, rid, metric, value in JudgeScore.objects.filter(
            judge=judge, report__any_of=ids[i : i + FINALIZE_CHUNK],
            metric__in={m for _, m in values},
        ).values_list("id", "report_id", "metric", "value"):  # fmt: skip
            stored[(rid, metric)] = (pk, (value,))
    if not stored:  # the reports' first scores: copied straight in, no diff (issue 16)
        insert_rows(JudgeScore, ["judge", "report", "metric", "value", "rationale"],
                    [(judge.pk, rid, metric, value, "") for (rid, metric), value in values.items()])  # fmt: skip
        return
    sync_rows(
        JudgeScore, ImportReport(kind="scores", dry_run=False), stored=stored,
        wanted={key: (value,) for key, value in values.items()}, fields=["value"],
        new_row=lambda key, v: {"judge": judge.pk, "report": key[0], "metric": key[1],
                                "value": v[0]},
    )  # fmt: skip


#: Reports per pass of :func:`finalize` (whole questions; bounds the memory and the
#: ``IN`` lists, e.g. SQLite's 32,766 variables).
FINALIZE_CHUNK = 5000


def finalize(judge: Judge, study_id: int, *, scholarqa_overall: bool = False, reports=None,
             coverage: dict[int, dict[int, int]] | None = None,
             items: dict[int, set[int]] | None = None,
             binary_coverage: bool = False) -> None:  # fmt: skip
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
    left as they are (an imported judge keeps its own).

    ``coverage``: the judge's coverage labels of (some of) ``reports`` as the caller just
    wrote them, ``{report id: {item id: label}}``, complete for each report given (an
    import's diff read what was stored and wrote its file over it). They are used instead
    of reading the same rows back: an import of a ResearchQA-scale coverage file writes
    160,000 labels, and reading them again cost about as much as writing them (issue 16).

    ``items``: the rubric items of (some of) the reports' questions as the caller read them,
    ``{question id: item ids}``, every item of every rubric (any kind) of each question
    given. A report's coverage is complete when every one of them has a label; an import's
    study index has just read them all to match the file's texts, and reading the 160,000
    ids again per file cost about a third of finalize at ResearchQA scale (issue 16). A
    question not given is read here, as without ``items`` (a live run).

    ``binary_coverage``: derive ResearcherBench's S_c (``rubric_coverage``) from the judge's
    binary verdicts too (a live run with the binary coverage task)."""
    study_reports = Report.objects.filter(question__study_id=study_id)
    if reports is None:
        batches = [study_reports]
    else:
        ids = sorted(set(reports))
        batches = [
            study_reports.filter(pk__any_of=ids[i : i + FINALIZE_CHUNK])
            for i in range(0, len(ids), FINALIZE_CHUNK)
        ]
    by_question: dict[int, dict[int, int]] = defaultdict(dict)
    for batch in batches:
        for rid, qid in batch.values_list("id", "question_id"):
            by_question[qid][rid] = qid
    part: dict[int, int] = {}
    for rows in [*by_question.values(), None]:
        if part and (rows is None or len(part) + len(rows) > FINALIZE_CHUNK):
            _finalize_part(judge, part, scholarqa_overall, coverage, items, binary_coverage)
            part = {}
        part.update(rows or {})


def _finalize_part(judge: Judge, questions: dict[int, int], scholarqa_overall: bool,
                   coverage: dict[int, dict[int, int]] | None = None,
                   items: dict[int, set[int]] | None = None,
                   binary_coverage: bool = False) -> None:  # fmt: skip
    evidence = Evidence(judge, questions, scholarqa_overall, coverage, items, binary_coverage)
    with transaction.atomic():
        scores: dict[tuple[int, str], float] = {}
        for k in KINDS.values():
            scores.update(k.scores(evidence))
        for rid in evidence.ids if scholarqa_overall else ():
            parts = [scores.get((rid, m)) for m in scholarqa.METRICS]
            if all(v is not None for v in parts):
                scores[(rid, "overall")] = scholarqa.overall(*parts)
        _set_scores(judge, scores)
