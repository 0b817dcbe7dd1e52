"""``manage.py demo``: the demo content, its accounts, and that loading it twice changes nothing."""

import json
from collections import Counter
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotation import roles
from annotation.importers import question_key
from annotation.models import (
    Annotator,
    Assignment,
    Citation,
    HumanMetricScore,
    Medal,
    MedalRanking,
    Paragraph,
    Question,
    Report,
    RubricItem,
    Section,
    Study,
    System,
)
from judges.models import Judge, JudgeScore
from studio import demo
from tests.builders.sources import anchors, citation, citations

STUDY = "Demo: deep-research reports"
METRICS = ("overall", "answer_relevance", "answer_recall", "citation_precision", "citation_recall")
ACCOUNTS = {
    "admin": "admin",
    "researcher": "researcher",
    "annotator1": "annotator",
    "annotator2": "annotator",
    "annotator3": "annotator",
}


@pytest.fixture(autouse=True)
def demo_settings(settings):
    """pytest-django turns DEBUG off; the demo needs it on (the fast password hasher of its
    5 accounts comes from conftest's autouse fixture)."""
    settings.DEBUG = True
    return settings


def row_counts() -> dict[str, int]:
    counts = {m._meta.label: m._default_manager.count() for m in apps.get_models()}
    # the reports' sources and the paragraphs' anchors are JSON on those rows (issue 29)
    counts["sources"] = len(citations(Report.objects.all()))
    counts["anchors"] = len(anchors(Paragraph.objects.all()))
    return counts


def run_demo(*args):
    call_command("demo", *args, verbosity=0)


@pytest.fixture
def loaded(db):
    run_demo()
    return Study.objects.get(name=STUDY)


@pytest.mark.django_db
def test_running_twice_changes_no_table(loaded):
    first = row_counts()
    run_demo()
    assert row_counts() == first
    assert first["annotation.Report"] > 0


@pytest.mark.django_db
def test_reset_recreates_the_same_content(loaded):
    first = row_counts()
    run_demo("--reset")
    assert row_counts() == first
    assert Study.objects.filter(name=STUDY).count() == 1


@pytest.mark.django_db
def test_study_enables_every_task_with_default_config(loaded):
    """Every task but DeepScholar's label tasks, whose units (nuggets, the exemplar and its
    references) the demo does not have: an annotator would get pages with nothing to label."""
    from annotation.models import DeepScholarLabel

    deepscholar = set(DeepScholarLabel.Kind.values)
    assert deepscholar and deepscholar <= set(Study.Task.values)
    assert set(loaded.tasks) == set(Study.Task.values) - deepscholar
    assert loaded.config == {}


@pytest.mark.django_db
def test_accounts_have_their_roles_and_passwords(loaded, client):
    User = get_user_model()
    for username, role in ACCOUNTS.items():
        user = User.objects.get(username=username)
        assert role in roles.roles_of(user)
        assert client.login(username=username, password=username), username
        client.logout()
    admin = User.objects.get(username="admin")
    assert admin.is_superuser and admin.is_staff
    assert not roles.is_admin(User.objects.get(username="researcher"))
    for n in (1, 2, 3):
        user = User.objects.get(username=f"annotator{n}")
        assert roles.is_annotator(user)
        profile = user.annotator
        assert profile.pseudonym and profile.degree and profile.expertise_fields
        assert "annotator" not in profile.pseudonym.lower()


@pytest.mark.django_db
def test_questions_fields_and_systems(loaded):
    questions = Question.objects.filter(study=loaded)
    assert questions.count() >= 6
    assert len(set(questions.values_list("field", flat=True))) >= 3
    assert all(q.text.endswith("?") and q.field and q.domain for q in questions)
    systems = set(System.objects.filter(study=loaded).values_list("name", flat=True))
    assert 3 <= len(systems) <= 4
    # Every question is answered by every system.
    assert Report.objects.filter(question__study=loaded).count() == len(systems) * questions.count()


@pytest.mark.django_db
def test_every_report_is_structured_and_cited(loaded):
    reports = Report.objects.filter(question__study=loaded)
    for report in reports:
        sections = Section.objects.filter(report=report).count()
        paragraphs = list(Paragraph.objects.filter(report=report).order_by("number"))
        assert sections >= 2, report
        assert len(paragraphs) >= sections
        assert [p.number for p in paragraphs] == list(range(1, len(paragraphs) + 1))
        assert citations(pk=report.pk)
        for p in paragraphs:
            for start, end, key in p.anchors:
                citation(report, key)  # an anchor cites one of the report's sources
                assert p.text[start:end] in (key, f"[{key}]")
    kinds = Counter(
        (report.system.name, c.kind)
        for report in reports.select_related("system")
        for c in citations(pk=report.pk)
    )
    assert {k for _, k in kinds} == set(Citation.Kind.values)
    # The weak baseline cites mostly by title only, never with evidence snippets.
    assert kinds[("baseline-llm", Citation.Kind.SNIPPET)] == 0
    assert kinds[("baseline-llm", Citation.Kind.TITLE_ONLY)] > kinds[("baseline-llm", "bare")]


@pytest.mark.django_db
def test_system_names_never_appear_in_what_annotators_read(loaded):
    names = list(System.objects.filter(study=loaded).values_list("name", flat=True))
    texts = Paragraph.objects.filter(report__question__study=loaded).values_list("text", flat=True)
    titles = Section.objects.filter(report__question__study=loaded).values_list("title", flat=True)
    for text in [*texts, *titles]:
        assert not any(n in text for n in names), text


@pytest.mark.django_db
def test_each_question_has_a_typed_weighted_rubric(loaded):
    for q in Question.objects.filter(study=loaded):
        rubrics = list(q.rubrics.all())
        assert len(rubrics) == 1
        items = list(rubrics[0].items.all())
        assert 5 <= len(items) <= 8
        assert all(i.item_type in RubricItem.Type.values for i in items)
        assert all(1 <= i.weight <= 3 for i in items)
        assert len({i.item_type for i in items}) >= 2
        assert len({i.weight for i in items}) >= 2


@pytest.mark.django_db
def test_two_judges_score_every_report_on_every_metric(loaded):
    judges = Judge.objects.filter(scores__report__question__study=loaded).distinct()
    assert judges.count() == 2
    reports = list(Report.objects.filter(question__study=loaded))
    for judge in judges:
        scores = {(s.report_id, s.metric): s.value for s in JudgeScore.objects.filter(judge=judge)}
        assert len(scores) == len(reports) * len(METRICS)
        for report in reports:
            parts = [scores[(report.pk, m)] for m in METRICS[1:]]
            assert all(0.0 <= v <= 1.0 for v in parts)
            assert scores[(report.pk, "overall")] == pytest.approx(sum(parts) / 4, abs=1e-3)


@pytest.mark.django_db
def test_judges_rank_the_systems_by_quality(loaded):
    """Plausible content: the deep-research systems beat the baseline for both judges."""
    for judge in Judge.objects.filter(scores__isnull=False).distinct():
        mean = {}
        for name in ("atlas-dr", "baseline-llm"):
            values = JudgeScore.objects.filter(
                judge=judge, metric="overall", report__system__name=name
            ).values_list("value", flat=True)
            mean[name] = sum(values) / len(values)
        assert mean["atlas-dr"] > mean["baseline-llm"] + 0.2


@pytest.mark.django_db
def test_refuses_without_debug_and_creates_nothing(db, settings):
    settings.DEBUG = False
    before = row_counts()
    with pytest.raises(CommandError, match="DEBUG"):
        run_demo()
    assert row_counts() == before
    assert not get_user_model().objects.filter(username__in=ACCOUNTS).exists()
    with pytest.raises(demo.DemoRefused):
        demo.load()


@pytest.mark.django_db
def test_annotator1_queue_is_open_with_a_stable_report_order(loaded):
    def queue():
        return [
            (a.question_id, a.task, list(a.report_order), a.status)
            for a in Assignment.objects.filter(annotator__user__username="annotator1")
        ]

    first = queue()
    assert first == queue()  # read twice
    tasks = Counter(task for _, task, _, _ in first)
    assert tasks[Study.Task.MEDAL_RANKING] >= 3 and tasks[Study.Task.METRIC_WISE] >= 1
    for question_id, _, order, status in first:
        assert status == Assignment.Status.NOT_STARTED
        assert len(order) == 3
        assert set(order) <= set(
            Report.objects.filter(question_id=question_id).values_list("id", flat=True)
        )
    run_demo()
    assert queue() == first  # and again after reloading the demo
    orders = [tuple(o) for _, _, o, _ in first]
    assert any(list(o) != sorted(o) for o in orders)  # actually shuffled
    annotator1 = Annotator.objects.get(user__username="annotator1")
    assert not MedalRanking.objects.filter(annotator=annotator1).exists()
    assert not HumanMetricScore.objects.filter(annotator=annotator1).exists()


@pytest.mark.django_db
def test_submitted_judgments_give_the_agreement_report_data(loaded):
    for username in ("annotator2", "annotator3"):
        rankings = MedalRanking.objects.filter(annotator__user__username=username)
        assert rankings.count() >= 3
        for ranking in rankings:
            assert ranking.setting == "assigned" and len(ranking.reasoning) > 40
            medals = list(ranking.medals.select_related("report"))
            assert len(medals) == 3
            assert len({m.medal for m in medals}) >= 2  # no three-way tie
            assignment = ranking.assignment
            assert assignment.status == Assignment.Status.SUBMITTED
            assert {m.report_id for m in medals} == set(assignment.report_order)
    # Both experts ranked some of the same questions: inter-annotator agreement is computable.
    by_question = Counter(MedalRanking.objects.values_list("question_id", flat=True))
    assert sum(1 for n in by_question.values() if n >= 2) >= 3
    scores = HumanMetricScore.objects.filter(study=loaded)
    assert set(scores.values_list("metric", flat=True)) == set(METRICS)
    assert scores.values("annotator").distinct().count() == 2
    assert Medal.objects.count() == 3 * MedalRanking.objects.count()


def test_fixtures_are_small_and_consistent():
    root = Path(demo.FIXTURES)
    files = [p for p in root.rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) < 300_000
    questions = json.loads((root / "questions.json").read_text(encoding="utf-8"))
    assert all(q["id"] == question_key(q["query"]) for q in questions)


def test_the_paper_formats_export_the_demo_rubrics(loaded):
    """The demo's rubrics (kind "default") were exported as ``"rubric": []`` by ResearchQA
    and as an empty ``rubric.json`` by ResearcherBench (issue 26, dead end 7)."""
    import json

    from annotation.importers.registry import FORMATS
    from annotation.models import RubricItem

    n = RubricItem.objects.filter(rubric__question__study=loaded).count()
    items = json.loads(FORMATS[("questions", "researchqa")].dump(loaded)["researchqa_items.json"])
    assert sum(len(q["rubric"]) for q in items) == n > 0
    files = FORMATS[("questions", "researcherbench")].dump(loaded)
    rubric = json.loads(files["rubric.json"])
    assert len(rubric) == len(items) and sum(len(r["rubric"]) for r in rubric) == n


@pytest.mark.django_db
def test_two_runs_of_a_pairwise_judge_ask_both_orders_and_prefer_the_better_system(loaded):
    """The judge card's demo content (issue 27): two runs (seeds) of one direct pairwise
    judge, each comparison asked in both orders, mostly for the stronger system, each run
    with its record."""
    from judges.models import JudgePairwise, JudgeRun

    runs = Judge.objects.filter(model="claude-sonnet-4", prompt_version="pairwise-direct-v1")
    assert runs.count() == 2
    assert len({tuple(sorted(j.parameters.items())) for j in runs}) == 2
    for judge in runs:
        rows = list(
            JudgePairwise.objects.filter(judge=judge).values_list(
                "left__system__name", "right__system__name", "choice", "left_id", "right_id"
            )
        )
        pairs = {(r[3], r[4]) for r in rows}
        assert all((b, a) in pairs for a, b in pairs)
        atlas = [r for r in rows if "baseline-llm" in r[:2] and "atlas-dr" in r[:2]]
        wins = sum((r[2] == "left") == (r[0] == "atlas-dr") for r in atlas if r[2] != "tie")
        assert atlas and wins == len(atlas)
        run = JudgeRun.objects.get(judge=judge, study=loaded)
        assert run.done_units == run.total_units == len(rows) and run.cost > 0
