"""Import readiness: a study enables the tasks whose judgments it holds (issue 17 defect on
the released ScholarQA-CS2 data: the reports' import enabled query quality, metric-wise and
triage, and the 1,335 medal rankings imported next stayed under a disabled task)."""

import io

import pytest

from annotation.importers import run
from annotation.models import MedalRanking, Study

from .test_import_common import DATA


@pytest.mark.django_db
def test_importing_rankings_enables_medal_ranking_after_the_reports_chose_other_tasks():
    first = run(
        "reports", DATA / "scholarqa_reports.json", study="S", format="scholarqa", system="sqa"
    )
    study = Study.objects.get(name="S")
    assert first.enabled_tasks and "medal_ranking" not in study.tasks  # one report a question
    before = list(study.tasks)
    rep = run("pairwise", DATA / "pairwise_dev_assigned_ann1.json", study="S", annotator="ann1",
              judge="gemini")  # fmt: skip
    study.refresh_from_db()
    assert MedalRanking.objects.filter(study=study).count() == 2
    # the rankings' own task, and pairwise: the file's pairs gave each question two reports
    assert rep.enabled_tasks == ["pairwise", "medal_ranking"]
    assert study.tasks == [*before, "pairwise", "medal_ranking"]  # earlier tasks stay
    assert "tasks enabled for the data imported: pairwise, medal_ranking" in rep.summary()
    again = run("pairwise", DATA / "pairwise_dev_assigned_ann1.json", study="S", annotator="ann1",
                judge="gemini")  # fmt: skip
    assert again.enabled_tasks == []  # already enabled: nothing new


@pytest.mark.django_db
def test_released_rankings_enable_medal_ranking_and_fill_the_quality_menu(scholarqa_dir, client):
    """The README's recipe on the released data, first steps: the reports of one system
    (which enable the tasks one report a question supports), then one annotation file."""
    from django.core.management import call_command
    from django.urls import reverse

    from tests.builders.users import make_user

    call_command(
        "import_reports", str(scholarqa_dir / "reports" / "expert_written" / "sqa.json"),
        study="ScholarQA-CS2", format="scholarqa", system="sqa", stdout=io.StringIO(),
    )  # fmt: skip
    study = Study.objects.get(name="ScholarQA-CS2")
    assert "medal_ranking" not in study.tasks
    call_command(
        "import_pairwise", str(scholarqa_dir / "annotation" / "pairwise_dev_assigned_ann1.json"),
        study="ScholarQA-CS2", annotator="assigned-ann1", judge="gemini-2.5-flash",
        stdout=io.StringIO(),
    )  # fmt: skip
    study.refresh_from_db()
    assert MedalRanking.objects.filter(study=study).exists()
    assert "medal_ranking" in study.tasks
    client.force_login(make_user("rel_admin", "admin"))
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    assert '<option value="medal_ranking"' in page
    assert "does not enable" not in page


@pytest.mark.django_db
def test_the_enabled_tasks_follow_the_data_whatever_the_order_of_the_imports():
    """ResearchQA questions and reports: reports first enabled query quality, metric-wise
    and triage and the questions' rubrics then enabled nothing; questions first enabled a
    different set (issue 28). Both orders end with the tasks the data supports."""
    from annotation.readiness import supported_tasks

    questions = ("questions", DATA / "researchqa_questions.jsonl")
    reports = ("reports", DATA / "researchqa_responses.json")
    for name, order in (("Q-first", (questions, reports)), ("R-first", (reports, questions))):
        for kind, path in order:
            options = {"system": "sys-a"} if kind == "reports" else {}
            run(kind, path, study=name, format="researchqa", **options)
    q_first, r_first = Study.objects.get(name="Q-first"), Study.objects.get(name="R-first")
    assert set(q_first.tasks) == set(r_first.tasks) == set(supported_tasks(r_first))
    assert {"rubric_coverage", "rubric_item_quality", "metric_wise"} <= set(r_first.tasks)


@pytest.mark.django_db
def test_an_admins_choice_of_tasks_stays_and_judged_tasks_are_still_added(admin_user):
    from rest_framework.test import APIClient

    run("questions", DATA / "researchqa_questions.jsonl", study="S", format="researchqa")
    study = Study.objects.get(name="S")
    assert "rubric_item_quality" in study.tasks and not study.tasks_chosen
    api = APIClient()
    api.force_authenticate(admin_user)
    chosen = api.patch(f"/api/studies/{study.pk}/", {"tasks": ["query_quality"]}, format="json")
    assert chosen.status_code == 200, chosen.json()
    rep = run("reports", DATA / "researchqa_responses.json", study="S", format="researchqa",
              system="sys-a")  # fmt: skip
    study.refresh_from_db()
    assert study.tasks_chosen and study.tasks == ["query_quality"] and rep.enabled_tasks == []
    run("pairwise", DATA / "pairwise_dev_assigned_ann1.json", study="S", annotator="ann1",
        judge="gemini")  # fmt: skip
    study.refresh_from_db()
    assert study.tasks == ["query_quality", "medal_ranking"]  # its judgments are held
