"""Import readiness: a study enables the tasks whose judgments it holds (issue 17 defect on
the released ScholarQA-CS2 data: the reports' import enabled query quality, metric-wise and
triage, and the 1,335 medal rankings imported next stayed under a disabled task)."""

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
