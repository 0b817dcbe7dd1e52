"""A judge's prompts, parameters and base URL are read only by researchers of a study that
uses the judge, and by admins (issue 12)."""

from rest_framework.test import APIClient

from judges.models import Judge, JudgeRun, JudgeScore
from tests.builders.content import make_question, make_study
from tests.builders.users import make_user


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def test_judges_are_visible_only_through_a_study_that_uses_them(db):
    mine, other = make_study("Mine"), make_study("Other")
    researcher = make_user("jv_researcher", "researcher")
    mine.researchers.add(researcher)
    scored = Judge.objects.create(
        name="scored", model="m", parameters={"base_url": "https://a.example/v1"}
    )
    running = Judge.objects.create(
        name="running", model="m", parameters={"base_url": "https://b.example/v1"}
    )
    foreign = Judge.objects.create(
        name="foreign", model="m", parameters={"base_url": "https://secret.example"}
    )
    report = make_question(mine, n_reports=1, paragraphs=1).reports.first()
    JudgeScore.objects.create(judge=scored, report=report, metric="overall", value=0.5)
    JudgeRun.objects.create(judge=running, study=mine, tasks=["coverage"])
    JudgeRun.objects.create(judge=foreign, study=other, tasks=["coverage"])
    client = client_for(researcher)
    listed = {j["name"] for j in client.get("/api/judges/").json()["results"]}
    assert listed == {"scored", "running"}
    assert client.get(f"/api/judges/{foreign.pk}/").status_code == 404
    assert "secret.example" not in client.get("/api/judges/").content.decode()
    admin = client_for(make_user("jv_admin", "admin"))
    assert admin.get(f"/api/judges/{foreign.pk}/").status_code == 200
