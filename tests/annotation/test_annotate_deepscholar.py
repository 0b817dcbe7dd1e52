"""The DeepScholar-Bench label tasks (seed 002 §8.11): each page completes, refuses what no
honest form posts and what a submit lacks (naming the unit), and autosaves a draft."""

import pytest
from django.urls import reverse

from annotation.annotate.page import TaskPage
from annotation.annotate.registry import SPECS
from annotation.models import (
    DeepScholarLabel,
    Draft,
    DraftVersion,
    Exemplar,
    ExemplarReference,
    Nugget,
    Study,
)
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db

KEYS = ("organization", "nugget_importance", "nugget_support", "retrieval_relevance",
        "reference_importance", "entailment")  # fmt: skip
#: units per task in the setup: 2 reports, 3 nuggets, 2 references
N_UNITS = {"organization": 2, "nugget_importance": 3, "nugget_support": 6,
           "reference_importance": 2}  # fmt: skip


def deepscholar_question(study):
    question = make_question(study, n_reports=2, paragraphs=3)
    Nugget.objects.bulk_create(
        Nugget(question=question, key=f"n{i}", position=i, text=f"Nugget fact {i}")
        for i in range(3)
    )
    Exemplar.objects.create(question=question, text="The exemplar's related work, by humans.")
    ExemplarReference.objects.bulk_create(
        ExemplarReference(question=question, key=f"r{i}", position=i, title=f"Paper {i}")
        for i in range(2)
    )
    return question


@pytest.fixture
def world(annotator_user, client):
    study = make_study()
    question = deepscholar_question(study)
    client.force_login(annotator_user)

    def assignment(key):
        return make_assignment(annotator_user.annotator, question, key)

    return study, assignment, client


def units_of(a):
    spec = SPECS[a.task]
    return spec, spec.units(TaskPage(a, a.annotator))


def post(client, a, data, name="submit", version="0"):
    return client.post(
        reverse(f"annotate:{name}", args=[a.pk]), {"version": version, **data},
        HTTP_HX_REQUEST="true",
    )  # fmt: skip


def full(spec, units):
    """Every unit labelled, cycling through the label set."""
    return {f"lab.{u.id}": spec.options[n % len(spec.options)][0] for n, u in enumerate(units)}


def test_every_key_is_a_study_task_with_a_page():
    assert set(KEYS) <= set(Study.Task.values) and set(KEYS) <= set(SPECS)


@pytest.mark.parametrize("key", KEYS)
def test_complete(world, key):
    study, assignment, client = world
    a = assignment(key)
    spec, units = units_of(a)
    assert units and len(units) == N_UNITS.get(key, len(units))
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    assert "SecretSystem" not in html  # blinded
    for u in units:
        assert f'name="lab.{u.id}"' in html
    data = full(spec, units)
    assert post(client, a, data).status_code == 204
    saved = {(lab.report_id, lab.unit): lab.label for lab in DeepScholarLabel.objects.all()}
    assert saved == {(u.report_pk, u.key): data[f"lab.{u.id}"] for u in units}
    assert set(DeepScholarLabel.objects.values_list("kind", flat=True)) == {spec.kind}
    a.refresh_from_db()
    assert a.status == "submitted"


@pytest.mark.parametrize("key", KEYS)
def test_refuses_invalid_and_incomplete(world, key):
    study, assignment, client = world
    a = assignment(key)
    spec, units = units_of(a)
    data = full(spec, units)
    first = units[0]
    bad = {**data, f"lab.{first.id}": "maybe"}
    response = post(client, a, bad)
    assert response.status_code == 422
    assert f"{first.title}: &#x27;maybe&#x27; is not" in response.content.decode()
    missing = dict(data)
    del missing[f"lab.{units[-1].id}"]
    response = post(client, a, missing)
    assert response.status_code == 422 and f"{units[-1].title}: choose" in response.content.decode()
    forged = post(client, a, {**data, "lab.forged~unit": spec.options[0][0]})
    assert forged.status_code == 422 and "not in this task" in forged.content.decode()
    assert not DeepScholarLabel.objects.exists() and not DraftVersion.objects.exists()


@pytest.mark.parametrize("key", KEYS)
def test_autosave_keeps_a_partial_draft(world, key):
    study, assignment, client = world
    a = assignment(key)
    spec, units = units_of(a)
    first = units[0]
    value = spec.options[-1][0]
    assert post(client, a, {f"lab.{first.id}": value}, name="autosave").status_code == 200
    assert Draft.objects.get(assignment=a).payload["labels"] == {first.id: value}
    assert not DeepScholarLabel.objects.exists()
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    assert f'name="lab.{first.id}" value="{value}" data-key' in html
    assert "checked" in html.split(f'name="lab.{first.id}" value="{value}"')[1][:40]


def test_the_exemplar_reads_as_rendered_text_with_its_references(world):
    """A LaTeX exemplar is imported as markdown with [n] markers (issue 25): the page shows
    its headings as headings and lists the references its markers name; raw HTML is not
    passed through."""
    study, assignment, client = world
    a = assignment("organization")
    Exemplar.objects.filter(question=a.question).update(
        text="## Tax Systems\n\nProgressive taxation [1] <script>alert(1)</script>."
    )
    ExemplarReference.objects.filter(question=a.question, key="r0").update(
        url="https://arxiv.org/abs/2108.02755"
    )
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    exemplar = html[html.index('class="exemplar-text"') :]
    assert "<strong>Tax Systems</strong>" in exemplar[:2000] and "## Tax" not in exemplar[:2000]
    assert (
        "[1] Paper 0" in exemplar[:4000] and "https://arxiv.org/abs/2108.02755" in exemplar[:4000]
    )
    assert "<script>alert(1)" not in html


@pytest.mark.parametrize("key", KEYS)
def test_a_long_query_is_shown_once_in_full(world, key):
    """Issue 26: DeepScholar's query is a whole abstract; the page showed it twice in full
    (the heading and "The query"), so the labels began below the first screen of a
    1,400 × 900 window. The heading gives its start, "The query" the whole of it."""
    study, assignment, client = world
    a = assignment(key)
    query = "Write a Related Works section for this abstract: " + "word " * 200 + "END."
    a.question.text = query.strip()
    a.question.save(update_fields=["text"])
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    assert html.count("END.") == 1
    heading = html.split('<h1 class="question">', 1)[1].split("</h1>", 1)[0]
    assert "Write a Related Works section" in heading and len(heading) < 300
