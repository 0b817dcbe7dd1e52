"""A DeepScholar judge is a judge like any other wherever judges are chosen (found by a
researcher with a token on the released data): its output is DeepScholar labels, no
JudgeScore, and ``agreement?judge=gpt-4.1-judge`` answered 400 "has no score in this
study" while the scoreboard showed it; ``/api/judges/`` left it out. The judge here is the
released nuggetizer's (``gt_nuggets_outputs/1/res.json``, GPT-4.1) imported under that
name, with three expert importance labels beside it, two of them the nuggetizer's."""

from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.models import DeepScholarLabel, Study
from judges.models import JudgeDeepScholarLabel, JudgeScore
from tests.builders.users import token_client

pytestmark = [pytest.mark.shared_data, pytest.mark.django_db]

DS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "deepscholar"
JUDGE = "gpt-4.1-judge"


@pytest.fixture
def study(annotator_user, researcher_user):
    if not DS.is_dir():
        pytest.skip("../shared/data/deepscholar not available")
    call_command("import_reports", str(DS / "baselines_results" / "openscholar"), "--study",
                 "DS", "--format", "deepscholar", "--papers",
                 str(DS / "test_dataset" / "related_works_combined.csv"))  # fmt: skip
    call_command("import_deepscholar", str(DS / "dataset" / "gt_nuggets_outputs" / "1" /
                 "res.json"), "--study", "DS", "--format", "nuggetizer", "--judge", JUDGE)  # fmt: skip
    study = Study.objects.get(name="DS")
    study.researchers.add(researcher_user)
    labels = list(JudgeDeepScholarLabel.objects.filter(judge__name=JUDGE, kind="nugget_importance")
                  .order_by("pk")[:3])  # fmt: skip
    assert len(labels) == 3 and not JudgeScore.objects.filter(judge__name=JUDGE).exists()
    other = {"vital": "non_vital", "non_vital": "vital"}
    for n, j in enumerate(labels):
        DeepScholarLabel.objects.create(study=study, annotator=annotator_user.annotator,
                                        question=j.question, kind=j.kind, report=j.report,
                                        unit=j.unit, label=j.label if n < 2 else other[j.label])  # fmt: skip
    return study


def test_a_deepscholar_judge_is_a_judge_option_of_the_agreement_report(study, researcher_user):
    api = token_client(researcher_user)
    got = api.get(f"/api/studies/{study.pk}/agreement/", {"judge": JUDGE})
    assert got.status_code == 200, got.content
    body = got.json()
    assert body["selection"]["judge"] == JUDGE
    [mine] = [j for j in body["deepscholar_agreement"]["judges"] if j["judge"] == JUDGE]
    [importance] = [k for k in mine["kinds"] if k["kind"] == "nugget_importance"]
    assert importance["n_units"] == 3
    assert importance["agreement"]["value"] == pytest.approx(2 / 3)
    # a name with no output in the study is still refused, in the same words
    nope = api.get(f"/api/studies/{study.pk}/agreement/", {"judge": "nope"})
    assert nope.status_code == 400 and "'nope' has no score in this study" in nope.text


def test_the_judges_list_shows_a_researcher_the_deepscholar_judge(study, researcher_user):
    got = token_client(researcher_user).get("/api/judges/")
    assert got.status_code == 200
    rows = got.json()
    rows = rows["results"] if isinstance(rows, dict) else rows
    assert JUDGE in [r["name"] for r in rows]


def test_the_report_page_offers_and_accepts_the_deepscholar_judge(study, researcher_user, client):
    client.force_login(researcher_user)
    got = client.get(f"/reports/{study.pk}/", {"judge": JUDGE})
    assert got.status_code == 200, got.content[:500]
    assert f'value="{JUDGE}"' in got.content.decode()
