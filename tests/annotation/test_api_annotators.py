"""``/api/annotators/`` lists the annotators of the studies a researcher reads: those
assigned there and, since a tester's finding, those named only by imported judgments
(judgments imported under their name, no assignment) or expertise ratings; never an
annotator of a study the researcher cannot read, and in a constant number of queries."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from annotation.models import Annotator, ExpertiseRating, HumanMetricScore, PairwisePreference
from tests.builders import world as f
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db
#: What a researcher reads of an annotator: the pseudonymous profile, no ``user`` id.
FIELDS = {"id", "pseudonym", "degree", "expertise_fields"}


def imported_score(study, pseudonym: str) -> Annotator:
    """An annotator named by an imported judgment only (no account, no assignment)."""
    annotator = Annotator.objects.create(pseudonym=pseudonym, degree="PhD")
    q = f.question(study)
    report = f.report(q, f.system(study, f"sys-{pseudonym}"), sections=1, paragraphs=1)
    HumanMetricScore.objects.create(study=study, annotator=annotator, question=q, report=report,
                                    metric="overall", value=0.5)  # fmt: skip
    return annotator


@pytest.fixture
def studies():
    mine, theirs = f.study("Readable study"), f.study("Unreadable study")
    researcher = make_user("annotators_researcher", "researcher")
    mine.researchers.add(researcher)
    assigned = make_user("annotators_assigned", "annotator", annotator=True)
    f.assignment(assigned.annotator, f.question(mine))
    client = APIClient()
    client.force_authenticate(researcher)
    return mine, theirs, client


def listed(client, **params) -> dict[str, dict]:
    response = client.get("/api/annotators/", {"limit": 500, **params})
    assert response.status_code == 200, response.content[:300]
    return {row["pseudonym"]: row for row in response.json()["results"]}


def test_annotators_of_imported_judgments_only_are_listed_with_the_same_fields(studies):
    mine, theirs, client = studies
    imported = imported_score(mine, "Imported-only")
    q = f.question(mine)
    rater = Annotator.objects.create(pseudonym="Rating-only")
    ExpertiseRating.objects.create(annotator=rater, question=q, level="within")
    imported_score(theirs, "Elsewhere-only")
    other = make_user("annotators_elsewhere", "annotator", annotator=True)
    f.assignment(other.annotator, f.question(theirs))

    rows = listed(client)
    assert set(rows) == {"Pseudo-annotators_assigned", "Imported-only", "Rating-only"}
    assert all(set(row) == FIELDS for row in rows.values())
    assert rows["Imported-only"]["degree"] == "PhD"
    detail = client.get(f"/api/annotators/{imported.pk}/")
    assert detail.status_code == 200 and detail.json() == rows["Imported-only"]
    # an annotator of a study the researcher cannot read stays unseen, by id too
    hidden = Annotator.objects.get(pseudonym="Elsewhere-only")
    assert client.get(f"/api/annotators/{hidden.pk}/").status_code == 404


def test_an_annotator_in_several_ways_is_listed_once(studies):
    mine, _, client = studies
    assigned = Annotator.objects.get(pseudonym="Pseudo-annotators_assigned")
    q = f.question(mine)
    reports = [f.report(q, f.system(mine, n), sections=1, paragraphs=1) for n in ("a", "b")]
    PairwisePreference.objects.create(study=mine, annotator=assigned, question=q,
                                      left=reports[0], right=reports[1], choice="tie",
                                      reason="Same.")  # fmt: skip
    response = client.get("/api/annotators/")
    assert [r["pseudonym"] for r in response.json()["results"]] == ["Pseudo-annotators_assigned"]
    assert response.json()["count"] == 1


def test_the_list_costs_constant_queries(studies):
    mine, _, client = studies

    def measure() -> tuple[int, int]:
        with CaptureQueriesContext(connection) as ctx:
            rows = listed(client)
        return len(ctx.captured_queries), len(rows)

    imported_score(mine, "Imported-0")
    listed(client)  # the researcher's roles are read once, then kept on the user
    small, few = measure()
    for i in range(1, 8):
        imported_score(mine, f"Imported-{i}")
        user = make_user(f"annotators_more_{i}", "annotator", annotator=True)
        f.assignment(user.annotator, f.question(mine))
    large, many = measure()
    assert many == few + 14
    assert large == small == 2  # the page's count and its rows


def test_researchers_read_no_internal_user_id_admins_do(studies, admin_user):
    """A researcher with a token read every annotator's internal ``user`` id, the key to
    the account behind the pseudonym (annotation/pseudonyms.py: never a real name); the
    profile is what researchers need. Admins, who manage the accounts, keep it."""
    mine, _, client = studies
    assigned = Annotator.objects.get(pseudonym="Pseudo-annotators_assigned")
    rows = listed(client)
    assert all("user" not in row for row in rows.values())
    detail = client.get(f"/api/annotators/{assigned.pk}/").json()
    assert "user" not in detail and detail["pseudonym"] == assigned.pseudonym
    admin = APIClient()
    admin.force_authenticate(admin_user)
    got = admin.get(f"/api/annotators/{assigned.pk}/").json()
    assert got["user"] == assigned.user_id and got["pseudonym"] == assigned.pseudonym
