"""The annotator's queue: own assignments only, progress, only built tasks linked."""

import pytest
from django.urls import reverse

from annotation.models import AdjudicationRequest, Assignment
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db


def test_queue_lists_own_assignments_with_progress(annotator_user, other_annotator_user, client):
    study = make_study()
    q1, q2, q3 = (make_question(study) for _ in range(3))
    a1 = make_assignment(annotator_user.annotator, q1, "medal_ranking", position=0)
    make_assignment(annotator_user.annotator, q2, "pairwise", position=1)
    a3 = make_assignment(annotator_user.annotator, q3, "unknown_task", position=2)
    theirs = make_assignment(other_annotator_user.annotator, q3, "medal_ranking")
    Assignment.objects.filter(pk=a1.pk).update(status="submitted")
    client.force_login(annotator_user)
    html = client.get(reverse("annotate:queue")).content.decode()
    assert "1 of 3 submitted" in html
    assert reverse("annotate:task", args=[a1.pk]) in html
    assert reverse("annotate:task", args=[a3.pk]) not in html
    assert reverse("annotate:task", args=[theirs.pk]) not in html
    assert "SecretSystem" not in html


def test_progress_on_the_task_page(annotator_user, client):
    study = make_study()
    assignments = [
        make_assignment(annotator_user.annotator, make_question(study), "medal_ranking", position=i)
        for i in range(3)
    ]
    client.force_login(annotator_user)
    html = client.get(reverse("annotate:task", args=[assignments[1].pk])).content.decode()
    assert "Query 2 of 3" in html


def test_queue_needs_an_annotator_profile(researcher_user, client):
    client.force_login(researcher_user)
    assert client.get(reverse("annotate:queue")).status_code == 404


def test_guidelines_page(annotator_user, client):
    client.force_login(annotator_user)
    assert (
        "Gold"
        in client.get(reverse("annotate:guidelines", args=["medal_ranking"])).content.decode()
    )
    assert client.get(reverse("annotate:guidelines", args=["nope"])).status_code == 404


def test_queue_links_waiting_adjudications(annotator_user, client):
    """The adjudication page was linked only from the home page: the queue says how many
    requests wait and links there (none shown when none wait; decided ones not counted)."""
    study = make_study()
    q = make_question(study)
    client.force_login(annotator_user)
    assert (
        'data-testid="adjudications-waiting"'
        not in client.get(reverse("annotate:queue")).content.decode()
    )
    for n, status in enumerate(["open", "open", "decided"]):
        AdjudicationRequest.objects.create(
            study=study, task="metric_wise", question=q, unit=f"rating m{n}@S",
            originals=[], adjudicator=annotator_user.annotator, status=status,
        )  # fmt: skip
    html = client.get(reverse("annotate:queue")).content.decode()
    assert "2 adjudication requests waiting" in html
    assert f'href="{reverse("studies:my_adjudications")}"' in html
