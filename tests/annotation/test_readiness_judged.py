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
    assert rep.enabled_tasks == ["medal_ranking"]
    assert study.tasks == [*before, "medal_ranking"]  # the admin's / earlier tasks stay
    assert "tasks enabled for the data imported: medal_ranking" in rep.summary()
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
