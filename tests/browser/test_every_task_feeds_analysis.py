"""Issue 16, "Done when": one judgment of every task type, submitted through its task page in
a real browser, changes the figure the report page shows for the analysis that reads it.

For each task type (the six DeepScholar label tasks excepted: their Table 3 is covered by
test_deepscholar_feeds_table3.py) the study already holds judgments of that kind from two
other annotators and the judge's counterparts, so one more judgment changes a displayed
figure. The researcher reads the analysis' table on the report page (its cells'
``data-key``/``data-value``, not the figure's image, whose drawing may change), the annotator
answers the real form with clicks and keys and submits, and the researcher reloads the report
and reads the table again: it must differ.

A task type that no test here or there covers fails ``test_every_task_type_is_covered``: a
new task type needs an analysis that reads it, and a row here.

Each test builds its own small study (a few hundred rows, well under a second): the live
server makes every test transactional, so the database is flushed after each one and a
module-wide study would not survive; the browser is the session's. The nine tests took
2–3.5 min on the shared 2-core machine (load 7–13), 9–20 s each, mostly the report's two
computations (before and after). The expertise-triage and question-authoring cases took
21 s together (load 5, 2 cores).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.annotate.deepscholar_labels import LabelTask
from annotation.annotate.registry import SPECS
from annotation.models import (
    Annotator,
    Assignment,
    ClaimCheck,
    ExpertiseRating,
    Medal,
    MedalRanking,
    PairwisePreference,
    QueryQuality,
    Question,
    RelevanceAdjudication,
    ReportClaim,
    ReportRating,
    Rubric,
    RubricAssessment,
    RubricComparison,
    RubricCoverage,
    RubricItem,
    RubricItemQuality,
)
from judges.models import Judge, JudgeClaimVerdict, JudgeCoverage, JudgePairwise, JudgeScore
from tests.builders.content import (
    make_adjudication,
    make_assignment,
    make_authoring,
    make_claims,
    make_question,
    make_study,
)

from .helpers import press_keys, wait_saved

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Covered by tests/browser/test_deepscholar_feeds_table3.py (their Table 3 section).
DEEPSCHOLAR_TASKS = {
    "organization",
    "nugget_importance",
    "nugget_support",
    "retrieval_relevance",
    "reference_importance",
    "entailment",
}

#: Task types whose judgments no analysis reads (a defect, to report): none since the
#: expertise-triage and question-authoring sections (docs/ANALYSES.md §11, §12).
NOT_ANALYSED: dict[str, str] = {}

JUDGE = "judge-x"  # the judge make_adjudication makes; every judge row here is its


# --- the study -----------------------------------------------------------------------------


@dataclass
class World:
    study: object
    question: object  # the question of every task but the adjudication
    assignments: dict[str, Assignment]


def _earlier_judgments(question, anns, judge):
    """Two other annotators' judgments of each kind on ``question``, and the judge's."""
    study = question.study
    r0, r1 = question.reports.order_by("pk")
    base = {"study": study, "question": question}
    a1, a2 = anns
    # pairwise: the two annotators disagree; the judge prefers r0
    PairwisePreference.objects.create(**base, annotator=a1, left=r0, right=r1, choice="left",
                                      reason="r")  # fmt: skip
    PairwisePreference.objects.create(**base, annotator=a2, left=r0, right=r1, choice="right",
                                      reason="r")  # fmt: skip
    JudgePairwise.objects.create(judge=judge, left=r0, right=r1, choice="left")
    # medal ranking: a1 ranks r0 over r1, as the judge's overall scores do
    ranking = MedalRanking.objects.create(**base, annotator=a1, reasoning="Earlier.")
    Medal.objects.create(ranking=ranking, report=r0, medal="gold")
    Medal.objects.create(ranking=ranking, report=r1, medal="silver")
    for report, score in ((r0, 0.8), (r1, 0.3)):
        JudgeScore.objects.create(judge=judge, report=report, metric="overall", value=score)
    # ratings (metric-wise): a1 rates r0 4 and r1 2
    for report, value in ((r0, 4), (r1, 2)):
        ReportRating.objects.create(**base, annotator=a1, report=report,
                                    dimension="informativeness", value=value)  # fmt: skip
    # rubric coverage on item 1 of both reports, the judge's on every pair
    items = list(RubricItem.objects.filter(rubric__question=question, rubric__kind="hybrid")
                 .order_by("position"))  # fmt: skip
    RubricCoverage.objects.create(**base, annotator=a1, report=r0, item=items[0], label=3)
    RubricCoverage.objects.create(**base, annotator=a2, report=r0, item=items[0], label=2)
    RubricCoverage.objects.create(**base, annotator=a1, report=r1, item=items[0], label=0)
    for report in (r0, r1):
        for item, label in zip(items, (4, 1), strict=False):
            JudgeCoverage.objects.create(judge=judge, report=report, item=item, label=label)
    # query quality and rubric-item quality
    QueryQuality.objects.create(**base, annotator=a1, clarity=4, naturalness=3, relevance=2,
                                variability="closed")  # fmt: skip
    QueryQuality.objects.create(**base, annotator=a2, clarity=5, naturalness=3, relevance=2,
                                variability="open_ended")  # fmt: skip
    RubricItemQuality.objects.create(**base, annotator=a1, item=items[0], emphasis="sentence",
                                     necessity="minor_degradation", confidence=4)  # fmt: skip
    RubricItemQuality.objects.create(**base, annotator=a2, item=items[0], emphasis="none",
                                     necessity="no_change", confidence=3)  # fmt: skip
    # rubric comparison: a1 gives the hybrid rubric gold, the survey rubric silver
    for ann, medals in ((a1, ("gold", "silver")), (a2, ("silver", "gold"))):
        comparison = RubricComparison.objects.create(**base, annotator=ann)
        for kind, medal in zip(("hybrid", "survey"), medals, strict=True):
            RubricAssessment.objects.create(comparison=comparison, medal=medal,
                                            rubric=Rubric.objects.get(question=question,
                                                                      kind=kind))  # fmt: skip
    # claim check: a1 checks the first claim of r0; the judge's verdict on every claim
    claims = list(ReportClaim.objects.filter(report__question=question).order_by("pk"))
    ClaimCheck.objects.create(**base, annotator=a1, claim=claims[0], fully_supported=False,
                              citation_supports={k: False for k in claims[0].citation_keys})  # fmt: skip
    for claim in claims:
        JudgeClaimVerdict.objects.create(
            judge=judge, report=claim.report, key=f"c{claim.pk}", text=claim.text,
            verdict="supported",
            citations=[{"key": k, "supports": True} for k in claim.citation_keys],
        )  # fmt: skip
    # expertise triage: a1 rates the question within, a2 near their expertise
    for ann, level in ((a1, "within"), (a2, "near")):
        ExpertiseRating.objects.create(annotator=ann, question=question, level=level)
    # question authoring: a1 wrote one question (accepted, not yet answered)
    Question.objects.create(study=study, external_id="authored-earlier-1", field="NLP",
                            text="Which probes detect memorised benchmark items?",
                            origin="expert_authored", authored_by=a1)  # fmt: skip


def _earlier_adjudication(adjudication: Assignment, other):
    """``other`` decided the first of the annotator's disagreements (same setting)."""
    disagreement = adjudication.disagreements.order_by("pk").first()
    RelevanceAdjudication.objects.create(
        study=adjudication.study, question=adjudication.question, annotator=other,
        setting=adjudication.setting, disagreement=disagreement, decision="keep",
        final_label=disagreement.annotator_label,
    )  # fmt: skip


def build_world(annotator, researcher) -> World:
    study = make_study("Every task", claims_min=1, claims_max=3)
    study.researchers.add(researcher)
    question = make_question(study, n_reports=2, paragraphs=3, rubric_items=2)
    Rubric.objects.filter(question=question).update(kind="hybrid")
    survey = Rubric.objects.create(question=question, kind="survey")
    RubricItem.objects.create(rubric=survey, position=0, text="Survey item", weight=2)
    make_claims(question)
    # the adjudication has its own question (its metric-wise source is the annotator's)
    adjudicated = make_question(study, n_reports=2, paragraphs=4)
    adjudication = make_adjudication(annotator, adjudicated, JUDGE)
    judge = Judge.objects.get(name=JUDGE)
    anns = [Annotator.objects.create(pseudonym=f"Earlier-{k}") for k in (1, 2)]
    _earlier_judgments(question, anns, judge)
    _earlier_adjudication(adjudication, anns[0])
    assignments = {"relevance_adjudication": adjudication,
                   "question_authoring": make_authoring(annotator, study)}  # fmt: skip
    for position, task in enumerate(sorted(set(ANSWERS) - set(assignments))):
        assignments[task] = make_assignment(annotator, question, task, position)
    return World(study, question, assignments)


# --- answering each task's form as a user would ---------------------------------------------


def _pairwise(page):
    pair = page.get_by_role("group", name="1. Report A (left) vs Report B (right)")
    pair.get_by_label("Report B better").check()
    pair.get_by_label("Reason").fill("B cites the key benchmark papers.")


def _medal_ranking(page):
    page.get_by_role("group", name="Report A go to report").get_by_label("Silver").check()
    page.get_by_role("group", name="Report B go to report").get_by_label("Gold").check()
    page.get_by_label("Ranking reasoning").fill("B is better supported.")


METRIC_DIMENSIONS = [
    "Answer recall", "Citations", "Answer quality", "Content", "Informativeness", "Background",
    "Organization", "Flow",
]  # fmt: skip


def _metric_wise(page):
    for letter in ("A", "B"):  # one claim each: focus its first citation marker, press +
        page.locator(f"#report-{letter} .cite").first.focus()
        press_keys(page, "+")
        claim = page.locator(f"#panel-{letter}").locator(".claim").last
        expect(claim.locator("input[type=radio]").first).to_be_focused()
        press_keys(page, "Space")  # the first support option
        cites = claim.locator(".claim-cite")  # a claim ending in several citations
        for n in range(1, cites.count()):
            cites.nth(n).locator("input[type=radio]").first.check()
        claim.get_by_label("Fully cover").check()
    for letter, value in (("A", "5"), ("B", "1")):
        for dim in METRIC_DIMENSIONS:
            group = page.locator(f"#panel-{letter}").get_by_role("group", name=dim, exact=True)
            group.get_by_label("1", exact=True).focus()
            press_keys(page, value)  # a digit picks the rating
    page.get_by_role("group", name="Report A go to report").get_by_label("Gold").check()
    page.get_by_role("group", name="Report B go to report").get_by_label("Silver").check()
    page.get_by_label("Ranking reasoning").fill("A is more informative.")


def _rubric_coverage(page):
    for item in range(1, page.locator("li.rubric-item").count() + 1):
        for report in ("Report A", "Report B"):
            page.locator(f"#item-{item}").get_by_role("group", name=report, exact=True)\
                .get_by_label("1 Barely").check()  # fmt: skip


def _query_quality(page):
    page.get_by_role("group", name="Clarity").get_by_label("1").focus()
    press_keys(page, "1", "Tab", "1")
    page.get_by_role("group", name="Relevance to a researcher's need").get_by_label("1").focus()
    press_keys(page, "1", "Tab", "s")


def _rubric_item_quality(page):
    for n in range(1, page.locator("li.rubric-item").count() + 1):
        item = page.locator(f"#item-{n}")
        item.get_by_label("A paragraph or more").check()
        item.get_by_label("No change").check()
        item.get_by_role("group", name="Confidence").get_by_label("2").check()


def _rubric_comparison(page):
    press_keys(page, "a", "b", "b", "g")  # rubric A bronze, rubric B gold
    for group in ("Rubric A go to rubric", "Rubric B go to rubric"):
        fieldset = page.get_by_role("group", name=group)
        fieldset.get_by_label("What are its strengths?").fill("Clear criteria.")
        fieldset.get_by_label("What are its weaknesses?").fill("Misses evaluation.")
    press_keys(page, "Escape", "w")
    page.keyboard.type("B is more complete.")


def _claim_check(page, answer: str = "yes"):
    """Every claim and each of its citations answered ``answer`` (yes / no), by its key."""
    regions = page.get_by_role("region", name="go to claim")
    for n in range(regions.count()):
        region = page.get_by_role("region", name=f"Claim {n + 1} go to claim")
        region.get_by_role("group", name="Is every aspect").get_by_label("Yes").focus()
        press_keys(page, answer[0], "Tab", answer[0])
        cites = region.locator(f"input[type=radio][value={answer}]")  # the other citations
        for k in range(cites.count()):
            cites.nth(k).check()


def _relevance_adjudication(page):
    cards = page.locator("section.adj-card")
    for n in range(cards.count()):
        cards.nth(n).get_by_label("Switch to the judge's", exact=False).check()
        cards.nth(n).get_by_label("Why?").fill("The judge is right.")


def _expertise_triage(page):
    page.get_by_label("Within my expertise").focus()
    press_keys(page, "o")  # the level's key: outside


def _question_authoring(page):
    q1 = page.get_by_role("group", name="Question 1")
    q1.get_by_label("Question", exact=True).fill("Which defences stop training-data extraction?")
    q1.get_by_label("Field").fill("Security")


#: task type -> (how to answer its form, the report section that reads it, its table).
ANSWERS: dict[str, tuple[Callable, str, str]] = {
    "pairwise": (_pairwise, "researchqa_pairwise", "pairwise_human"),
    "medal_ranking": (_medal_ranking, "system", "system"),
    "metric_wise": (_metric_wise, "ratings", "ratings_by_system"),
    "rubric_coverage": (_rubric_coverage, "coverage_alignment", "coverage_judges"),
    "query_quality": (_query_quality, "label_quality", "quality_distribution"),
    "rubric_item_quality": (_rubric_item_quality, "label_quality", "quality_distribution"),
    "rubric_comparison": (_rubric_comparison, "rubric_comparison", "rubric_sources"),
    "claim_check": (_claim_check, "claim_support", "claim_support"),
    "relevance_adjudication": (_relevance_adjudication, "relevance_adjudication",
                               "adjudication_rates"),
    "expertise_triage": (_expertise_triage, "expertise_triage", "expertise_coverage"),
    "question_authoring": (_question_authoring, "question_authoring", "authoring_by_field"),
}  # fmt: skip


# --- reading the report page -----------------------------------------------------------------

#: The report computes every section on a cache miss; on a loaded 2-core machine that can
#: take longer than the 10 s default.
REPORT_TIMEOUT = 60_000
SUBMIT_TIMEOUT = 30_000

READ_TABLE = """([section, table]) => {
  const t = document.querySelector(`#section-${section} table#table-${table}`);
  if (!t) return null;
  return [...t.querySelectorAll("tbody tr")].map(tr => [...tr.children].map(c =>
    c.dataset.key ? `${c.dataset.key}=${c.dataset.value}` : c.textContent.trim()));
}"""


def read_table(page, study, section: str, table: str):
    """The rows of ``table`` in ``section`` as the report page shows them (None if absent)."""
    page.goto(reverse("metaeval:report", args=[study.pk]), timeout=REPORT_TIMEOUT)
    return page.evaluate(READ_TABLE, [section, table])


# --- the tests -----------------------------------------------------------------------------


def test_every_task_type_is_covered():
    """Every registered task type is answered here, by the DeepScholar test, or listed as
    read by no analysis; a new task type fails here until it is one of them."""
    here = set(ANSWERS)
    assert all(isinstance(SPECS.get(k), LabelTask) for k in DEEPSCHOLAR_TASKS)
    assert not here & DEEPSCHOLAR_TASKS and not here & set(NOT_ANALYSED)
    missing = set(SPECS) - here - DEEPSCHOLAR_TASKS - set(NOT_ANALYSED)
    assert not missing, f"task types no browser test feeds to an analysis: {sorted(missing)}"
    unknown = (here | DEEPSCHOLAR_TASKS | set(NOT_ANALYSED)) - set(SPECS)
    assert not unknown, f"not registered task types: {sorted(unknown)}"


@pytest.mark.parametrize("task", sorted(ANSWERS))
def test_one_judgment_changes_its_analysis(task, login, annotator_user, researcher_user, shot):
    world = build_world(annotator_user.annotator, researcher_user)
    answer, section, table = ANSWERS[task]
    report = login(researcher_user).new_page()
    before = read_table(report, world.study, section, table)
    assert before, f"{task}: the {section} section shows no {table} table before the judgment"

    page = login(annotator_user).new_page()
    page.goto(reverse("annotate:task", args=[world.assignments[task].pk]))
    answer(page)
    wait_saved(page)
    shot(page, "answered")
    page.get_by_role("button", name="Submit").click()
    try:
        expect(page.get_by_text("Submitted. Thank you!")).to_be_visible(timeout=SUBMIT_TIMEOUT)
    except AssertionError:
        shot(page, "refused")
        status = page.locator("#save-status").inner_text()
        raise AssertionError(f"{task}: not submitted: {status}") from None

    after = read_table(report, world.study, section, table)
    shot(report, "report")
    assert after and after != before, f"{task}: {section}/{table} unchanged: {before}"
