"""The Annotators' expertise page (/studies/<id>/expertise/): an admin sets each annotator's
expertise fields from the study's question fields plus free text, each change in the
study's audit list; a forged annotator id or field is a 400 naming the field. The Assign
page says how many of the study's questions each annotator's expertise matches. Before,
the fields could be set only as the Django admin's raw JSON list, and "By expertise"
planned nothing for annotators whose fields no question carried."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Annotator, QualityEvent
from studio.studyadmin.expertise import ACTION
from studio.studyadmin.planning import PlanSpec, preview
from tests.builders.planning import make_annotators, make_study

FIELDS = ["Biology", "Physics", "Law"]


@pytest.fixture
def study(db):
    return make_study(questions=6, systems=2, fields=FIELDS)


@pytest.fixture
def people(db):
    return make_annotators(2, fields=["Computer Science"])  # the demo's: matches nothing


def page(study):
    return reverse("studies:expertise", args=[study.pk])


def admin_client(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def csrf(client, study):
    client.get(page(study))
    return client.cookies["csrftoken"].value


@pytest.mark.django_db
def test_the_page_offers_the_study_fields_and_links_from_questions_and_plan(
    study, people, admin_user
):
    client = admin_client(admin_user)
    got = client.get(page(study))
    assert got.status_code == 200
    text = got.content.decode()
    for field in FIELDS:
        assert f'name="fields" value="{field}"' in text
    assert "Ann-0" in text and "Ann-1" in text
    for name in ("studies:questions", "studies:plan", "studies:detail"):
        linked = client.get(reverse(name, args=[study.pk])).content.decode()
        assert page(study) in linked, name


@pytest.mark.django_db
def test_an_admin_sets_several_fields_with_free_text_and_it_is_audited(study, people, admin_user):
    client = admin_client(admin_user)
    token = csrf(client, study)
    ann = people[0]
    got = client.post(page(study), {
        "annotator": ann.pk, "fields": ["Biology", "Law"], "other": "Computer Science, Ethics",
        "csrfmiddlewaretoken": token,
    })  # fmt: skip
    assert got.status_code == 302
    ann.refresh_from_db()
    assert ann.expertise_fields == ["Biology", "Law", "Computer Science", "Ethics"]
    event = QualityEvent.objects.get(study=study, action=ACTION)
    assert event.annotator == ann and event.actor == admin_user
    assert event.detail == {"before": ["Computer Science"], "after": ann.expertise_fields}
    # the change makes "By expertise" plan: Biology and Law questions go to Ann-0
    spec = PlanSpec(task="pairwise", strategy="expertise", overlap=1, seed=0)
    planned = preview(study, spec).plan.assignments
    assert len(planned) == 4 and {a.annotator for a in planned} == {ann.pk}
    # the page shows it, and the matched count (2 Biology + 2 Law of 6 questions)
    text = client.get(page(study)).content.decode()
    assert "Biology, Law, Computer Science, Ethics" in text
    # the same again changes nothing and records nothing more
    client.post(page(study), {"annotator": ann.pk, "fields": ["Biology", "Law"],
                              "other": "Computer Science, Ethics", "csrfmiddlewaretoken": token})  # fmt: skip
    assert QualityEvent.objects.filter(action=ACTION).count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    "posted, field",
    [
        ({"annotator": "999999", "fields": ["Biology"]}, "annotator"),
        ({"annotator": "abc", "fields": ["Biology"]}, "annotator"),
        ({"annotator": None, "fields": ["Biology"]}, "annotator"),  # none given
        ({"fields": ["Astrology"]}, "fields"),  # no question of the study carries it
        ({"other": "x" * 201}, "other"),
    ],
)
def test_forged_values_are_refused_naming_the_field(study, people, admin_user, posted, field):
    client = admin_client(admin_user)
    ann = people[0]
    data = {"annotator": ann.pk, **posted, "csrfmiddlewaretoken": csrf(client, study)}
    data = {k: v for k, v in data.items() if v is not None}
    got = client.post(page(study), data)
    assert got.status_code == 400
    assert f"<strong>{field}</strong>" in got.content.decode()
    ann.refresh_from_db()
    assert ann.expertise_fields == ["Computer Science"]
    assert not QualityEvent.objects.filter(action=ACTION).exists()


@pytest.mark.django_db
def test_annotator_ids_without_an_account_are_refused(study, admin_user):
    orphan = Annotator.objects.create(pseudonym="No-account", expertise_fields=[])
    client = admin_client(admin_user)
    got = client.post(page(study), {"annotator": orphan.pk, "fields": ["Law"],
                                    "csrfmiddlewaretoken": csrf(client, study)})  # fmt: skip
    assert got.status_code == 400 and "<strong>annotator</strong>" in got.content.decode()
    orphan.refresh_from_db()
    assert orphan.expertise_fields == []


@pytest.mark.django_db
def test_admin_only_and_csrf(study, people, admin_user, researcher_user, annotator_user):
    ann = people[0]
    for user in (researcher_user, annotator_user):
        client = Client()
        client.force_login(user)
        assert client.get(page(study)).status_code == 403
        assert client.post(page(study), {"annotator": ann.pk, "fields": ["Law"]}).status_code == 403
    client = admin_client(admin_user)
    assert client.post(page(study), {"annotator": ann.pk, "fields": ["Law"]}).status_code == 403
    ann.refresh_from_db()
    assert ann.expertise_fields == ["Computer Science"]


@pytest.mark.django_db
def test_the_plan_page_counts_the_questions_each_annotator_matches(study, admin_user):
    make_annotators(2, fields=["Biology"])
    make_annotators(1, fields=["Chemistry"], prefix="Chem")
    client = admin_client(admin_user)
    text = client.get(reverse("studies:plan", args=[study.pk])).content.decode()
    assert 'id="expertise-match"' in text
    # 6 questions cycling Biology, Physics, Law: 2 Biology questions; Chemistry none
    assert (
        '<tr data-annotator="Ann-0"><td>Ann-0</td><td>Biology</td><td class="num matched">2</td>'
        in text
    )
    assert (
        '<tr data-annotator="Chem-0"><td>Chem-0</td><td>Chemistry</td><td class="num matched">0</td>'
        in text
    )


@pytest.mark.django_db
def test_a_post_naming_two_annotators_is_refused_and_saves_nothing(study, people, admin_user):
    """A forged post with two ids saved the fields to the last one named and wiped its
    other fields (a tester); and the message ended in a double full stop."""
    first, second = people
    client = admin_client(admin_user)
    got = client.post(page(study), {"annotator": [first.pk, second.pk], "fields": ["Law"],
                                    "csrfmiddlewaretoken": csrf(client, study)})  # fmt: skip
    text = got.content.decode()
    assert got.status_code == 400 and "<strong>annotator</strong>" in text
    assert "given 2 times" in text
    for ann in people:
        ann.refresh_from_db()
        assert ann.expertise_fields == ["Computer Science"]
    assert not QualityEvent.objects.filter(action=ACTION).exists()
    got = client.post(page(study), {"fields": ["Law"], "csrfmiddlewaretoken": csrf(client, study)})
    assert ".." not in got.content.decode().split("Nothing was saved", 1)[1].split("<", 1)[0]
