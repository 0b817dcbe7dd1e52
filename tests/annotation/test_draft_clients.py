"""Which stale saves are conflicts (issue 15: a false conflict in a single tab).

Every page load sends its own client id; a save based on an older version is refused only
when a version since was saved by another page, unless it changes nothing."""

import pytest
from django.urls import reverse

from annotation.models import Draft, DraftVersion
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(annotator_user, client):
    question = make_question(make_study())
    assignment = make_assignment(annotator_user.annotator, question, "medal_ranking")
    client.force_login(annotator_user)
    return assignment, client, reverse("annotate:autosave", args=[assignment.pk])


def save(http, url, version, text, **extra):
    return http.post(url, {"version": str(version), "reasoning": text, **extra})


def test_a_lost_answer_of_the_same_page_is_not_a_conflict(setup):
    assignment, client, url = setup
    # the page's beacon landed (version 1), its answer was never seen
    assert save(client, url, 0, "first", client="page1").status_code == 200
    # the same page saves again on its old base: only it saved since
    response = save(client, url, 0, "first and more", client="page1")
    assert response.status_code == 200
    draft = Draft.objects.get(assignment=assignment)
    assert (draft.version, draft.payload["reasoning"]) == (2, "first and more")


def test_another_page_since_the_base_is_a_conflict_and_changes_nothing(setup):
    assignment, client, url = setup
    assert save(client, url, 0, "tab one", client="tab1").status_code == 200
    response = save(client, url, 0, "tab two", client="tab2")
    assert response.status_code == 409
    assert "another tab" in response.content.decode()
    # no id at all (an old page) is never taken for the writer either
    assert save(client, url, 0, "no id").status_code == 409
    assert list(DraftVersion.objects.values_list("payload__reasoning", flat=True)) == ["tab one"]


def test_a_reloaded_page_resumes_the_page_it_replaces(setup):
    assignment, client, url = setup
    # the old page (tab1) sent its text on the way out; the new page (tab2) was rendered
    # before that landed and restores the same kept answers on top of version 0
    assert save(client, url, 0, "kept", client="tab1").status_code == 200
    response = save(client, url, 0, "kept and more", client="tab2", resume="tab1")
    assert response.status_code == 200
    # from then on tab2 is the writer: the old page can no longer overwrite it
    assert save(client, url, 1, "late", client="tab1").status_code == 409
    assert save(client, url, 2, "on", client="tab2").status_code == 200
    # resuming is bounded: versions from before the resumed page's run are still conflicts
    assert save(client, url, 0, "old base", client="tab3", resume="tab2").status_code == 409


def test_a_stale_save_of_the_saved_answers_changes_nothing_and_is_accepted(setup):
    assignment, client, url = setup
    assert save(client, url, 0, "same", client="tab1").status_code == 200
    response = save(client, url, 0, "same", client="tab2")
    assert response.status_code == 200
    assert 'value="1"' in response.content.decode()  # the page moves on to version 1
    assert DraftVersion.objects.count() == 1


def test_forged_future_base_is_a_conflict(setup):
    assignment, client, url = setup
    assert save(client, url, 5, "from the future", client="tab1").status_code == 409
