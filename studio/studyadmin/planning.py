"""Assignment plans from the database: preview, commit, and reassignment after a dropout.

``preview(study, spec)`` loads the strategy's inputs (a fixed number of queries whatever the
study size), runs the pure strategy and returns the plan with its summary and a fingerprint.
``commit(study, spec, fingerprint=...)`` recomputes the same plan (strategies are
deterministic for a seed) and writes it in one transaction; when the data changed since the
preview the fingerprint differs and nothing is written. Which systems each question
compares is chosen here (``assignment.balanced_systems``) and stored per assignment in
``Assignment.report_order``; a question that already has assignments for the task keeps
the reports it was given, so every annotator of a comparison judges the same reports.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Count, Max

from annotation import assignment as strategies
from annotation import readiness
from annotation.annotate.metric_wise import possible_claims
from annotation.annotate.registry import SPECS
from annotation.models import (
    Annotator,
    Assignment,
    ExpertiseRating,
    GoldItem,
    Paragraph,
    Question,
    Report,
    Study,
)
from annotation.protection import holding_work

from . import StudyAdminError

#: Tasks that show reports (derived from each task type's ``needs``).
REPORT_TASKS = readiness.REPORT_TASKS
#: Tasks a plan cannot make: they belong to one annotator's own work (why, for the admin).
PERSONAL_TASKS = {
    Study.Task.RELEVANCE_ADJUDICATION: "relevance adjudication is made from an annotator's own "
    "finished metric-wise work: use “Relevance adjudication” on the study page",
    Study.Task.QUESTION_AUTHORING: "question authoring has no question to assign: use "
    "“Question authoring” on the study page to open authoring slots",
}
UNFINISHED = (Assignment.Status.NOT_STARTED, Assignment.Status.IN_PROGRESS)


@dataclass(frozen=True)
class PlanSpec:
    task: str
    strategy: str = "random"
    overlap: int = 1
    seed: int = 0
    per_expert: int = 5
    #: How many systems each question compares; None = the task's default.
    systems_per_question: int | None = None
    #: System ids compared; empty = every system of the study.
    systems: tuple[int, ...] = ()
    #: Annotator ids in the pool; empty = every annotator with an account.
    annotators: tuple[int, ...] = ()
    #: Most new assignments per annotator from this plan; None = no limit.
    capacity: int | None = None
    #: Only questions of this split; "" = all.
    split: str = ""

    def validate(self, study: Study) -> None:
        if self.task not in Study.Task.values:
            raise StudyAdminError("task", f"unknown task {self.task!r}")
        if self.task not in (study.tasks or ()):
            raise StudyAdminError("task", readiness.enable_hint(study, self.task))
        if self.task in PERSONAL_TASKS:
            raise StudyAdminError("task", PERSONAL_TASKS[self.task])
        if self.strategy not in strategies.STRATEGIES:
            raise StudyAdminError("strategy", f"unknown strategy {self.strategy!r}")
        if self.overlap < 1:
            raise StudyAdminError("overlap", "each comparison needs at least 1 annotator")
        if self.capacity is not None and self.capacity < 0:
            raise StudyAdminError("capacity", "capacity cannot be negative")
        if self.per_expert < 1:
            raise StudyAdminError("per_expert", "at least 1 question per expert")
        if self.systems_per_question is not None and self.systems_per_question < 2:
            raise StudyAdminError("systems_per_question", "a comparison needs at least 2 systems")


@dataclass(frozen=True)
class Unassigned:
    """A question the plan leaves without (enough) annotators, and why, for the admin."""

    question: int
    key: str
    text: str  # the question's label (Question.label_of)
    got: int
    wanted: int
    reason: str


@dataclass
class Preview:
    spec: PlanSpec
    plan: strategies.Plan
    items: list[strategies.Item]
    summary: strategies.Summary
    names: dict[int, str]
    question_keys: dict[int, str]
    #: questions left out of the plan because their task page could not be completed
    #: (no reports to compare, no claims, one rubric, …), with why
    left_out: list[Unassigned] = field(default_factory=list)
    #: questions in the plan that get fewer annotators than wanted, with why
    short: list[Unassigned] = field(default_factory=list)
    #: unstarted assignments of an earlier plan this plan no longer gives their annotator,
    #: withdrawn on commit (:func:`_no_longer_matched`, :func:`_on_uncited_reports`):
    #: (assignment, annotator, question)
    withdrawn: tuple[tuple[int, int, int], ...] = ()
    #: why they are withdrawn, for the admin: (reason, how many), one row per reason
    withdrawn_why: tuple[tuple[str, int], ...] = ()

    @property
    def skipped(self) -> list[str]:
        return [u.key for u in self.left_out]

    @property
    def fingerprint(self) -> str:
        text = repr(sorted((a.annotator, a.question, a.reports) for a in self.plan.assignments))
        if self.withdrawn:  # a plan that withdraws other work is another plan
            text += repr(sorted(self.withdrawn))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def setting(self) -> str:
        return strategies.SETTING_OF[self.spec.strategy]

    def annotator_rows(self) -> list[tuple[str, int]]:
        counts = self.summary.per_annotator
        return sorted(((self.names[a], counts.get(a, 0)) for a in self.names), key=str)

    def withdrawn_said(self) -> str:
        """The withdrawn assignments in one phrase for the admin's message (each reason
        with its count), "" when the plan withdraws nothing."""
        return "; ".join(f"{n} unstarted assignments {why}" for why, n in self.withdrawn_why)

    def reasons(self) -> list[tuple[str, int]]:
        """Each reason a question got no or too few annotators, most frequent first."""
        counts = Counter(u.reason for u in self.left_out + self.short)
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def can_sign_in(annotators):
    """``annotators`` (a queryset) who can sign in: an active account. A pseudonym of an
    import (``ann1``, ``deep-expert-pool``) has none, so work given to it could never be
    done; an invited account that has not set its password yet has its link."""
    return annotators.filter(user__isnull=False, user__is_active=True)


def pool(study: Study, annotator_ids=()) -> list[Annotator]:
    """The annotators a plan may use: those named, else everyone with an account."""
    qs = Annotator.objects.all()
    qs = qs.filter(pk__in=annotator_ids) if annotator_ids else can_sign_in(qs)
    qs = qs.exclude(user__is_active=False)  # deactivated people get no new work
    return list(qs.order_by("pseudonym"))


def _inputs(study: Study, spec: PlanSpec):
    # Authored questions still pending review, or rejected, are assigned to nobody.
    questions = Question.objects.filter(study=study, review=Question.Review.ACCEPTED)
    if spec.split:
        questions = questions.filter(split=spec.split)
    qrows = [
        (q, key, fld, author, Question.label_of(title, text))
        for q, key, fld, author, title, text in questions.order_by("pk").values_list(
            "pk", "external_id", "field", "authored_by_id", "title", "text"
        )
    ]
    available: dict[int, dict[str, int]] = defaultdict(dict)
    textless: Counter = Counter()
    uncited: Counter = Counter()
    if spec.task in REPORT_TASKS:
        every = Report.objects.filter(question__in=questions)
        if spec.systems:
            every = every.filter(system_id__in=spec.systems)
        for rid, qid, system in every.readable().values_list("pk", "question_id", "system__name"):
            available[qid][system] = rid  # never an empty report
        textless = Counter(dict(every.values("question_id").annotate(n=Count("pk"))
                                .values_list("question_id", "n")))  # fmt: skip
        textless.subtract({q: len(systems) for q, systems in available.items()})
        if readiness.NEEDS[spec.task].cited_claims:
            uncited = _drop_uncited(study, every, available)
    needs = readiness.NEEDS.get(spec.task, readiness.Needs())
    data = (
        readiness.question_data(questions, systems=spec.systems, units=needs.units)
        if needs.claims or needs.rubrics or needs.units
        else {}
    )
    setting = strategies.SETTING_OF[spec.strategy]
    rows = list(
        Assignment.objects.filter(study=study, task=spec.task).values_list(
            "question_id", "annotator_id", "setting", "status", "report_order"
        )
    )
    existing, seen = _holders(rows, setting)
    existing_reports: dict[int, list[int]] = {}
    for qid, *_, order in rows:
        existing_reports.setdefault(qid, list(order or []))
    return (
        qrows,
        available,
        data,
        existing,
        seen,
        existing_reports,
        +textless,
        uncited,
        _barred(study, spec.task, setting),
    )


def _drop_uncited(study: Study, reports, available) -> Counter:
    """Take out of ``available`` (question -> system -> report) every report of ``reports``
    that cannot hold the study's ``claims_min`` distinct claims; return how many each
    question lost. A metric-wise claim ends in a citation and each report needs
    ``claims_min`` of them (the ScholarQA-CS2 guidelines: 3–5 claims per report), so such
    a report (ResearcherBench's Claude report cites nothing) could never be submitted.

    Why distinct claims (:func:`_claims_possible`), not markers: one paragraph of three
    cited sentences holds three claims, each ending in its own citation, but markers side
    by side end one claim (``[1] [1]``: ResearcherBench question 27, three markers and
    two claims, planned by a count of markers and never submittable). Why not a smaller
    minimum for such a report: its citation precision and recall are ratios over its
    claims (``Study.CLAIMS_LEAST``), and a report judged on fewer claims than the others
    would not be compared on the same footing."""
    claims = _claims_possible(reports)
    least = int(study.setting("claims_min"))
    lost: Counter = Counter()
    for qid, systems in available.items():
        for system, rid in list(systems.items()):
            if claims[rid] < least:
                del systems[system]
                lost[qid] += 1
    return lost


def _claims_possible(reports) -> Counter:
    """report id -> how many distinct claims its paragraphs can give that the metric-wise
    submit accepts (:func:`annotation.annotate.metric_wise.possible_claims`; ``reports``:
    a queryset or ids)."""
    claims: Counter = Counter()
    cited = list(
        Paragraph.objects.filter(report__in=reports)
        .exclude(anchors=[])
        .values_list("report_id", "text", "anchors")
    )
    keys = {
        rid: {c.get("key") for c in citations or () if isinstance(c, dict)}
        for rid, citations in Report.objects.filter(pk__in={rid for rid, *_ in cited}).values_list(
            "pk", "citations"
        )
    }
    for rid, text, anchors in cited:
        claims[rid] += possible_claims(text or "", anchors, keys.get(rid, set()))
    return claims


def _on_uncited_reports(study: Study, task: str) -> tuple[tuple[int, int, int], ...]:
    """(assignment, annotator, question) of the task's unstarted assignments (any setting)
    showing a report that cannot hold the study's ``claims_min`` claims, when the
    task asks cited claims (metric-wise). Plans made before :func:`_drop_uncited` gave such
    reports, and their submit can never pass ("select 3–5 claims; you have 0"), so a re-plan
    takes them back instead of the admin withdrawing them by hand.

    Only work nobody began, as :func:`_no_longer_matched`: not started, never opened,
    holding nothing (``holding_work``), never a gold or qualification item (the quality
    page's). Started or submitted work on such a report stays: an annotator's work is never
    lost, and the admin decides about it."""
    if not readiness.NEEDS[task].cited_claims:
        return ()
    rows = list(
        Assignment.objects.filter(
            study=study, task=task, status=Assignment.Status.NOT_STARTED,
            started_at__isnull=True,
        ).values_list("pk", "annotator_id", "question_id", "report_order")
    )  # fmt: skip
    shown = {r for *_, order in rows for r in order or ()}
    if not shown:
        return ()
    claims, least = _claims_possible(shown), int(study.setting("claims_min"))
    unfit = [
        (pk, aid, qid)
        for pk, aid, qid, order in rows
        if any(claims[r] < least for r in order or ())
    ]
    return _withdrawable(study, task, unfit)


def _withdrawable(study: Study, task: str, unfit: list[tuple[int, int, int]]) -> tuple:
    """Of ``unfit`` ``(assignment, annotator, question)``, those a re-plan may withdraw:
    nobody's work in them (:func:`holding_work`) and no gold item on their question."""
    if not unfit:
        return ()
    gold = set(
        GoldItem.objects.filter(study=study, task=task).values_list("question_id", flat=True)
    )
    opened = holding_work(pk for pk, _, _ in unfit)
    return tuple(sorted(u for u in unfit if u[0] not in opened and u[2] not in gold))


def _uncited_said(study: Study) -> str:
    """A question whose every readable report cites too little for metric-wise: say why
    (one text for all such questions, so the preview counts them under one reason)."""
    return (
        f"its reports have fewer than {study.setting('claims_min')} citations each "
        f"ending a distinct claim (markers side by side end one claim), and metric-wise asks {study.setting('claims_min')}–"
        f"{study.setting('claims_max')} claims per report, each ending in a citation: "
        "they cannot be judged metric-wise"
    )


def _holders(rows, setting: str):
    """From a task's assignments (question, annotator, setting, status, …): question ->
    annotators counting towards a plan's overlap (``Item.assigned``: in the setting the
    plan writes, not withdrawn), and question -> the others who have read it for this task
    (``Item.seen``: another setting, or withdrawn), never given it again. A random plan of
    overlap 3 after an expertise plan of 2 gives 3 annotators in the random setting:
    agreement is computed within a setting, never pooled."""
    counted: dict[int, set[int]] = defaultdict(set)
    seen: dict[int, set[int]] = defaultdict(set)
    for qid, aid, where, status, *_ in rows:
        if where == setting and status != Assignment.Status.WITHDRAWN:
            counted[qid].add(aid)
        else:
            seen[qid].add(aid)
    return counted, {q: frozenset(a - counted[q]) for q, a in seen.items()}


def _no_longer_matched(study: Study, task: str) -> tuple[tuple[int, int, int], ...]:
    """(assignment, annotator, question) of the task's expertise-matched assignments that an
    expertise re-plan no longer gives their annotator: the question's field is not (or no
    longer) among the annotator's expertise fields, or the question has none. Only work
    nobody began is taken back: not started, never opened (``started_at``), holding no
    draft, flag, reopening, disagreement or judgment (``annotation.protection.holding_work``),
    and never a gold or qualification item (made by the quality page, not by a plan).

    Why only the plan's own setting: a study may hold a random plan (setting 1) beside an
    expertise-matched one on purpose (agreement is computed within a setting, never
    pooled), so an expertise plan leaves other settings' work alone. Why withdrawn, not
    deleted: as a reassignment (``Assignment.Status.WITHDRAWN``), the row stays, out of the
    queue, and the annotator counts as having seen the question (``Item.seen``)."""
    rows = list(
        Assignment.objects.filter(
            study=study, task=task, setting=strategies.EXPERTISE_MATCHED,
            status=Assignment.Status.NOT_STARTED, started_at__isnull=True,
        ).values_list("pk", "annotator_id", "question_id", "question__field",
                      "annotator__expertise_fields")
    )  # fmt: skip
    unfit = [
        (pk, aid, qid) for pk, aid, qid, fld, fields in rows if not fld or fld not in (fields or ())
    ]
    return _withdrawable(study, task, unfit)


def _barred(study: Study, task: str, setting: str) -> dict[int, frozenset[int]]:
    """question -> annotators holding another task on it that writes the same ranking
    (``TaskSpec.ranks``: medal ranking and metric-wise share the one ranking of a question
    and setting), in the setting ``setting`` (issue 26)."""
    if not SPECS[task].ranks:
        return {}
    others = [key for key, s in SPECS.items() if s.ranks and key != task]
    barred: dict[int, set[int]] = defaultdict(set)
    for qid, aid in Assignment.objects.filter(
        study=study, task__in=others, setting=setting
    ).values_list("question_id", "annotator_id"):
        barred[qid].add(aid)
    return {q: frozenset(a) for q, a in barred.items()}


def _textless_said(problem: str, textless: int) -> str:
    """A question whose reports exist but have no text (the pairwise import's placeholders,
    a released empty report) is "has no report" for the planner: say so, or the admin looks
    for reports the study plainly lists (issue 26, found on the released ScholarQA-CS2
    annotation files)."""
    return (
        f"{problem}; its {textless} other report(s) have no text to read (placeholders of "
        "the pairwise import or empty released reports): import the reports' text to "
        "assign them"
    )


def _why_short(spec, it, people, wanted: int, ratings) -> str:
    """Why ``it`` got fewer than ``wanted`` annotators: said around the strategy, which is
    not changed (the first condition that explains the shortfall)."""
    free = [p for p in people if it.open_to(p.id)]
    # Without those who read it in another setting there would have been enough: say so.
    unseen = sum(p.id not in it.assigned and p.id not in it.barred for p in people)
    if len(free) + len(it.assigned) < wanted <= unseen + len(it.assigned):
        return (
            f"{len({p.id for p in people} & it.seen)} annotator(s) of the pool have read it "
            "already for this task in another setting (or were withdrawn from it): they do "
            "not count towards this setting's overlap and cannot take it again"
        )
    # Without the bar there would have been enough: the bar is the reason.
    unbarred = sum(p.id not in it.assigned and p.id not in it.seen for p in people)
    if len(free) + len(it.assigned) < wanted <= unbarred + len(it.assigned):
        return (
            f"{len(it.barred)} annotator(s) of the pool rank it already in another task "
            "(medal ranking and metric-wise write one ranking per question and setting)"
        )
    at_capacity = (
        f"the annotators who could take it reached this plan's capacity ({spec.capacity}) "
        f"before it could get {wanted} (capacity goes to questions it completes)"
        if spec.capacity is not None
        else "the annotators who could take it were given other questions"
    )
    if not people:
        return "the pool has no annotator (invite annotators, or choose some)"
    if spec.strategy == "expertise":
        if not it.field:
            return "has no field: set its field under “Questions” on the study page"
        experts = [p for p in free if it.field in p.fields]
        if not any(it.field in p.fields for p in people):
            return f"no annotator in the pool has the expertise “{it.field}”"
        if len(experts) + len(it.assigned) < wanted:
            n = len(experts) + len(it.assigned)
            return f"only {n} annotator(s) with the expertise “{it.field}”; {wanted} wanted"
        return at_capacity
    if spec.strategy == "triage":
        raters = [
            p
            for p in free
            if ratings.get((p.id, it.question)) in (strategies.WITHIN, strategies.NEAR)
        ]
        if not raters and not it.assigned:
            return "no annotator in the pool rated it within or near their expertise (triage)"
        if len(raters) + len(it.assigned) < wanted:
            return f"only {len(raters) + len(it.assigned)} annotator(s) rated it within or near"
        return f"its raters reached {spec.per_expert} questions per expert"
    if spec.strategy == "authored":
        if it.authored_by is None:
            return "no annotator authored it (the authored strategy gives a question to its author)"
        if it.authored_by not in {p.id for p in people}:
            return "its author is not in the pool"
        return at_capacity
    if len(free) + len(it.assigned) < wanted:
        return f"only {len(people)} annotator(s) in the pool; {wanted} wanted"
    return at_capacity


def preview(study: Study, spec: PlanSpec) -> Preview:
    spec.validate(study)
    people_rows = pool(study, spec.annotators)
    if spec.annotators and len(people_rows) != len(set(spec.annotators)):
        raise StudyAdminError("annotators", "unknown annotator")
    qrows, available, data, existing, seen, existing_reports, textless, uncited, barred = _inputs(
        study, spec
    )
    # A re-plan by expertise takes back what it would no longer give: the withdrawn
    # assignments count towards no overlap, so the plan gives their place to an expert.
    unmatched = _no_longer_matched(study, spec.task) if spec.strategy == "expertise" else ()
    # Any re-plan of metric-wise takes back the unstarted assignments that show a report
    # it no longer plans (too few citations: :func:`_drop_uncited`); their place goes to
    # the question's remaining reports.
    uncited_given = _on_uncited_reports(study, spec.task)
    withdrawn = tuple(sorted({*unmatched, *uncited_given}))
    withdrawn_why = tuple(
        (why, len(rows))
        for why, rows in (
            ("no longer expertise-matched withdrawn", unmatched),
            (
                f"on reports with fewer than {study.setting('claims_min')} citations "
                "withdrawn (started work on them is kept)",
                set(uncited_given) - set(unmatched),
            ),
        )
        if rows
    )
    for _, aid, qid in withdrawn:
        existing[qid] = set(existing.get(qid, ())) - {aid}
        seen[qid] = seen.get(qid, frozenset()) | {aid}
    per_question = spec.systems_per_question or readiness.NEEDS[spec.task].compares
    least = max(readiness.NEEDS.get(spec.task, readiness.Needs()).reports, 1)
    # A question's assigned reports are given to its next annotators too (the same reports
    # for every annotator of a question: agreement needs it), unless one of them has no text
    # to read (a pairwise import's placeholder of a system whose report was not released):
    # such a set could never be submitted, so the question's reports are chosen afresh.
    existing_reports = {
        q: order
        for q, order in existing_reports.items()
        if order and all(r in available[q].values() for r in order)
    }
    fresh = {
        q: list(available[q])
        for q, *_ in qrows
        if q not in existing_reports and len(available[q]) >= least
    }
    chosen = strategies.balanced_systems(fresh, per_question, seed=spec.seed)
    system_of_report = {rid: s for q in available.values() for s, rid in q.items()}
    items, left_out, keys, texts = [], [], {}, {}
    for q, key, fld, author, text in qrows:
        keys[q], texts[q] = key, text
        have = data.get(q, readiness.QuestionData())
        problem = readiness.problem(
            spec.task,
            readiness.QuestionData(
                len(available[q]),
                have.rubrics,
                have.claims,
                have.nuggets,
                have.exemplar,
                have.references,
            ),  # fmt: skip
        )
        if problem is not None:
            if textless[q] and len(available[q]) < least:
                problem = _textless_said(problem, textless[q])
            elif uncited[q] and len(available[q]) < least:
                problem = _uncited_said(study)
            left_out.append(Unassigned(q, key, text, len(existing.get(q, ())), 0, problem))
            continue
        if spec.task in REPORT_TASKS:
            if q in existing_reports:
                reports = tuple(sorted(existing_reports[q]))
            else:
                reports = tuple(sorted(available[q][s] for s in chosen[q]))
        else:
            reports = ()
        items.append(
            strategies.Item(
                question=q,
                field=fld,
                reports=reports,
                systems=tuple(system_of_report.get(r, "?") for r in reports),
                authored_by=author,
                assigned=frozenset(existing.get(q, ())),
                seen=seen.get(q, frozenset()),
                barred=barred.get(q, frozenset()),
            )
        )
    people = [
        strategies.Person(a.pk, frozenset(a.expertise_fields or ()), spec.capacity)
        for a in people_rows
    ]
    ratings = {}
    if spec.strategy == "random":
        plan = strategies.random_assignment(items, people, overlap=spec.overlap, seed=spec.seed)
    elif spec.strategy == "expertise":
        plan = strategies.by_expertise(items, people, overlap=spec.overlap, seed=spec.seed)
    elif spec.strategy == "triage":
        ratings = {
            (a, q): level
            for a, q, level in ExpertiseRating.objects.filter(
                question__study=study, annotator__in=[p.id for p in people]
            ).values_list("annotator_id", "question_id", "level")
        }
        plan = strategies.from_triage(
            items,
            people,
            ratings,
            per_expert=spec.per_expert,
            overlap=spec.overlap,
            seed=spec.seed,
        )
    elif spec.strategy == "planner":
        # Imported here: the planner's statistics load numpy and metaeval's loaders, which
        # every web worker importing this module (the study pages, the API) would carry.
        from . import budget

        plan = budget.plan(study, items, people, spec)
    else:
        plan = strategies.authored(items, people, seed=spec.seed)
    summary = strategies.summarize(plan, items)
    got = Counter(a.question for a in plan.assignments)
    by_q = {it.question: it for it in items}
    short = []
    for q in summary.short:
        it, wanted = by_q[q], plan.wanted[q]
        short.append(
            Unassigned(
                q,
                keys[q],
                texts[q],
                len(it.assigned) + got[q],
                wanted,
                _why_short(spec, it, people, wanted, ratings),
            )
        )
    return Preview(
        spec=spec,
        plan=plan,
        items=items,
        summary=summary,
        names={a.pk: a.pseudonym for a in people_rows},
        question_keys=keys,
        left_out=left_out,
        short=short,
        withdrawn=withdrawn,
        withdrawn_why=withdrawn_why,
    )


def _write(study: Study, task: str, planned) -> list[Assignment]:
    planned = list(planned)
    start = dict(
        Assignment.objects.filter(annotator_id__in={p.annotator for p in planned})
        .values("annotator_id")
        .annotate(m=Max("position"))
        .values_list("annotator_id", "m")
    )
    rows = []
    for p in planned:
        start[p.annotator] = (start.get(p.annotator) or 0) + 1
        rows.append(
            Assignment(
                study=study,
                annotator_id=p.annotator,
                question_id=p.question,
                task=task,
                setting=p.setting,
                report_order=list(p.reports),
                position=start[p.annotator],
            )
        )
    return Assignment.objects.bulk_create(rows)


def commit(study: Study, spec: PlanSpec, *, fingerprint: str | None = None) -> Preview:
    """Write the plan the preview showed, in one transaction; refuse when it has changed."""
    with transaction.atomic():
        # Lock the study row so two admins committing at once cannot interleave.
        Study.objects.select_for_update().filter(pk=study.pk).first()
        result = preview(study, spec)
        if fingerprint and fingerprint != result.fingerprint:
            raise StudyAdminError(
                "fingerprint",
                "the study changed since this plan was previewed; preview it again",
            )
        if not result.plan.assignments and not result.withdrawn:
            raise StudyAdminError("strategy", "this plan assigns nothing")
        _withdraw(result.withdrawn)
        _write(study, spec.task, result.plan.assignments)
    return result


def _withdraw(withdrawn) -> None:
    """Withdraw the assignments a re-plan no longer gives (:func:`_no_longer_matched`,
    :func:`_on_uncited_reports`), as a
    reassignment does: status WITHDRAWN, never deleted. Refused (nothing written: the
    caller's transaction) if one was opened since the plan was computed."""
    ids = [pk for pk, _, _ in withdrawn]
    if not ids:
        return
    done = Assignment.objects.filter(
        pk__in=ids, status=Assignment.Status.NOT_STARTED, started_at__isnull=True
    ).update(status=Assignment.Status.WITHDRAWN)
    if done != len(ids):
        raise StudyAdminError(
            "fingerprint",
            "an assignment this plan withdraws was opened meanwhile; preview it again",
        )


# --- an annotator drops out ---------------------------------------------------------------


@dataclass
class Reassignment:
    moved: int
    kept: int  # finished assignments left untouched
    to: dict[str, int]  # pseudonym -> how many they received


def reassign(
    study: Study,
    annotator: Annotator,
    *,
    pool_ids=(),
    seed: int = 0,
    dry_run: bool = False,
) -> Reassignment:
    """Give the dropped annotator's unfinished assignments to others; submitted ones stay.

    Each unfinished assignment goes to someone who does not already have that question for
    that task (an expert of its field first, then the least loaded; an expertise-matched one
    only to an expert of its field); the compared reports stay the same. All or nothing: when one cannot be placed nothing changes. Adjudication and
    authoring (``PERSONAL_TASKS``) are about the annotator's own work and stay with them.
    """
    mine = list(
        Assignment.objects.filter(study=study, annotator=annotator)
        .exclude(task__in=PERSONAL_TASKS)
        .exclude(status=Assignment.Status.WITHDRAWN)
        .values_list(
            "pk", "question_id", "question__field", "task", "setting", "status", "report_order"
        )
    )
    if not mine:
        raise StudyAdminError("annotator", f"{annotator.pseudonym} has no work in this study")
    open_ = [m for m in mine if m[5] in UNFINISHED]
    kept = len(mine) - len(open_)
    if not open_:
        raise StudyAdminError("annotator", f"{annotator.pseudonym} has no unfinished work")
    holders: dict[tuple[str, int], set[int]] = defaultdict(set)
    for task, qid, aid in Assignment.objects.filter(
        study=study, task__in={m[3] for m in open_}, question_id__in={m[1] for m in open_}
    ).values_list("task", "question_id", "annotator_id"):
        holders[(task, qid)].add(aid)
    people_rows = [a for a in pool(study, pool_ids) if a.pk != annotator.pk]
    if pool_ids and len(people_rows) != len(set(pool_ids) - {annotator.pk}):
        raise StudyAdminError("annotators", "unknown annotator")
    people = [strategies.Person(a.pk, frozenset(a.expertise_fields or ())) for a in people_rows]
    names = {a.pk: a.pseudonym for a in people_rows}
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for m in open_:
        groups[(m[3], m[4])].append(m)
    plans = []
    for (task, setting), rows in sorted(groups.items()):
        barred = _barred(study, task, setting)
        items = [
            strategies.Item(
                question=qid,
                field=fld,
                reports=tuple(order or ()),
                assigned=frozenset(holders[(task, qid)]),
                barred=barred.get(qid, frozenset()),
            )
            for _, qid, fld, _, _, _, order in rows
        ]
        plan = strategies.replacements(items, people, seed=seed, setting=setting)
        if len(plan.assignments) < len(items):
            expert = (
                " with expertise in the question's field (an expertise-matched assignment "
                "needs one)"
                if setting == strategies.EXPERTISE_MATCHED
                else ""
            )
            raise StudyAdminError(
                "annotators",
                f"{len(items) - len(plan.assignments)} of {len(items)} unfinished {task} "
                f"assignments have nobody left{expert} to take them; add annotators to the "
                "pool",
            )
        plans.append((task, plan))
    to: dict[str, int] = defaultdict(int)
    for _, plan in plans:
        for p in plan.assignments:
            to[names[p.annotator]] += 1
    if not dry_run:
        with transaction.atomic():
            still_open = Assignment.objects.select_for_update().filter(
                pk__in=[m[0] for m in open_], status__in=UNFINISHED
            )
            if len(list(still_open.values_list("pk", flat=True))) != len(open_):
                raise StudyAdminError(
                    "annotator", f"{annotator.pseudonym} submitted work meanwhile; try again"
                )
            # Withdrawn, never deleted: their drafts and every version stay (issue 12).
            Assignment.objects.filter(pk__in=[m[0] for m in open_]).update(
                status=Assignment.Status.WITHDRAWN
            )
            for task, plan in plans:
                _write(study, task, plan.assignments)
    return Reassignment(moved=len(open_), kept=kept, to=dict(sorted(to.items())))
