"""The home page leads each role to its work."""

import pytest
from django.urls import reverse

from annotation.models import Assignment, Question, Study


@pytest.mark.django_db
def test_annotator_home_links_to_each_task(client, annotator_user, other_annotator_user):
    study = Study.objects.create(name="home")
    q = Question.objects.create(study=study, external_id="q1", text="What limits RAG?")
    mine = Assignment.objects.create(
        study=study, annotator=annotator_user.annotator, question=q, task="medal_ranking"
    )
    theirs = Assignment.objects.create(
        study=study, annotator=other_annotator_user.annotator, question=q, task="pairwise"
    )
    client.force_login(annotator_user)
    body = client.get(reverse("home")).content.decode()
    assert reverse("annotate:task", args=[mine.pk]) in body
    assert reverse("annotate:task", args=[theirs.pk]) not in body
    assert reverse("annotate:queue") in body
    assert reverse("metaeval:report", args=[study.pk]) not in body


@pytest.mark.django_db
def test_researcher_home_links_to_reports_and_progress(client, researcher_user):
    study = Study.objects.create(name="home")
    study.researchers.add(researcher_user)
    elsewhere = Study.objects.create(name="another lab's")
    client.force_login(researcher_user)
    body = client.get(reverse("home")).content.decode()
    assert reverse("metaeval:report", args=[study.pk]) in body
    assert reverse("metaeval:report", args=[elsewhere.pk]) not in body
    assert reverse("studies:progress", args=[study.pk]) in body


def test_anonymous_home_redirects_to_login(client, db):
    response = client.get(reverse("home"))
    assert response.status_code == 302 and reverse("login") in response["Location"]


@pytest.mark.django_db
def test_the_annotators_queue_names_each_rows_study_never_a_system(client, annotator_user):
    """The home page's queue mixes the tasks of every study the annotator works in: each
    row names its study (an annotator may see study names), never a system."""
    import re

    from annotation.models import System
    from tests.builders.content import make_assignment, make_question, make_study

    me = annotator_user.annotator
    first, second = make_study("Memorization study"), make_study("RAG limits study")
    make_assignment(me, make_question(first), "pairwise", position=0)
    make_assignment(me, make_question(second), "medal_ranking", position=1)
    make_assignment(me, make_question(first), "pairwise", position=2)
    client.force_login(annotator_user)
    body = client.get(reverse("home")).content.decode()
    assert "<th>Study</th>" in body
    assert re.findall(r"<td data-study>([^<]*)</td>", body) == [
        "Memorization study",
        "RAG limits study",
        "Memorization study",
    ]
    for name in System.objects.values_list("name", flat=True):
        assert name not in body
