"""A ResearcherBench rubric item weighs 1 to 3 whichever way it is written: its import
refused any other weight, but the API's PATCH of the rubric's items and the admin's item
form took 0, 4 or a string. The one rule (``annotation.rubric_weights``) now answers all
three, naming the item and the field, and nothing is written; another kind's rubric keeps
its own rules (any number).
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers.base import ImportFailed
from annotation.models import Rubric, RubricItem
from annotation.rubric_weights import weight_refusal
from tests.annotation.test_rubric_export_as_released import (
    QUESTIONS,
    RUBRIC,
    api_import,
    upload,
)
from tests.builders import world as f

pytestmark = pytest.mark.django_db

RANGE = "expected a number from 1 to 3 (ResearcherBench weighs a criterion 1-3)"


@pytest.fixture
def api(admin_user) -> APIClient:
    client = APIClient()
    client.force_login(admin_user)
    return client


@pytest.fixture
def imported(api):
    """A study with ResearcherBench's rubrics imported; question "1"'s rubric."""
    study = f.study()
    assert api_import(api, study, QUESTIONS, RUBRIC).status_code == 200
    return Rubric.objects.get(question__study=study, question__external_id="1")


def stored(rubric: Rubric) -> list[tuple]:
    return list(rubric.items.order_by("position").values_list("position", "text", "weight"))


def patch_weight(api, rubric: Rubric, weight):
    """PATCH the rubric's items as stored, item 2 weighing ``weight``."""
    items = [{"position": p, "text": t, "weight": weight if p == 2 else w}
             for p, t, w in stored(rubric)]  # fmt: skip
    return api.patch(f"/api/rubrics/{rubric.public_id}/", {"items": items}, format="json")


@pytest.mark.parametrize("weight", [0, 4, 3.5, "2", "heavy", True])
def test_a_patch_outside_the_range_is_refused_on_the_item_s_weight(api, imported, weight):
    before = stored(imported)
    answer = patch_weight(api, imported, weight)
    assert answer.status_code == 400, answer.content
    assert [(e["field"], e["message"]) for e in answer.json()["errors"]] == [(
        "items[1].weight",
        f"rubric {imported.public_id}, item at position 2: {RANGE}, found {weight!r}",
    )]  # fmt: skip
    assert stored(imported) == before


@pytest.mark.parametrize("weight", [1, 2, 2.5, 3.0])
def test_a_patch_inside_the_range_is_saved(api, imported, weight):
    answer = patch_weight(api, imported, weight)
    assert answer.status_code == 200, answer.content
    assert RubricItem.objects.get(rubric=imported, position=2).weight == weight


def test_a_new_researcherbench_rubric_is_held_to_the_range(api):
    question = f.question(f.study())
    answer = api.post("/api/rubrics/", {"question": question.pk, "kind": "researcherbench",
                      "items": [{"position": 1, "text": "A point", "weight": 5}]},
                      format="json")  # fmt: skip
    assert answer.status_code == 400, answer.content
    assert answer.json()["items"] == [{"weight": [f"item at position 1: {RANGE}, found 5"]}]
    assert not Rubric.objects.filter(question=question).exists()


def test_renaming_a_rubric_researcherbench_asks_its_stored_weights(api):
    rubric = f.rubric(f.question(f.study()), kind="expert", items=4)  # weights 1..4
    answer = api.patch(f"/api/rubrics/{rubric.public_id}/", {"kind": "researcherbench"},
                       format="json")  # fmt: skip
    assert answer.status_code == 400, answer.content
    assert answer.json()["kind"] == [
        f"rubric {rubric.public_id}, item at position 4: {RANGE}, found 4.0"
    ]
    assert Rubric.objects.get(pk=rubric.pk).kind == "expert"


def test_another_kind_keeps_its_own_rule(api):
    rubric = f.rubric(f.question(f.study()), kind="expert")
    items = [{"position": 1, "text": "Item 1", "weight": 7}]
    answer = api.patch(f"/api/rubrics/{rubric.public_id}/", {"items": items}, format="json")
    assert answer.status_code == 200, answer.content
    assert rubric.items.get().weight == 7


def test_the_admin_item_form_refuses_a_weight_outside_the_range(admin_user, imported):
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    client = Client()
    client.force_login(admin_user)
    item = imported.items.get(position=2)
    values = {"rubric": imported.pk, "position": 2, "text": item.text,
              "item_type": item.item_type, "weight": 4, "cited_paper": ""}  # fmt: skip
    url = reverse("admin:annotation_rubricitem_change", args=[item.pk])
    answer = client.post(url, values)
    assert answer.status_code == 200  # the form again, with its error
    assert answer.context["adminform"].form.errors["weight"] == [
        f"rubric {imported.public_id}, item at position 2: {RANGE}, found 4.0"
    ]
    assert RubricItem.objects.get(pk=item.pk).weight == item.weight


@pytest.mark.parametrize("weight", [0, 4, 3.5, "2", True])
def test_the_import_refuses_the_same_weights_with_the_same_message(api, weight):
    """The importer asks the same rule: its problem is the rule's message."""
    rubric = [{**r, "rubric": [{"point": "A point", "weight": weight}]} for r in RUBRIC]
    study = f.study()
    answer = api.post(reverse("study-import", args=[study.pk]),
                      {"kind": "questions", "format": "researcherbench",
                       "file": upload("questions.json", QUESTIONS),
                       "rubric": upload("rubric.json", rubric)}, format="multipart")  # fmt: skip
    assert answer.status_code == 400, answer.content
    messages = {(p["field"], p["message"]) for p in answer.json()["errors"]}
    assert ("rubric[0].weight", weight_refusal("researcherbench", weight)) in messages
    assert ("rubric[0].weight", f"{RANGE}, found {weight!r}") in messages
    assert not Rubric.objects.filter(question__study=study).exists()


def test_the_generic_format_holds_a_researcherbench_rubric_to_the_range(tmp_path):
    from annotation.importers import run

    path = tmp_path / "questions.jsonl"
    path.write_text('{"id": "q1", "text": "Q?", "rubric_kind": "researcherbench", '
                    '"rubric": [{"text": "A point", "weight": 4}]}\n')  # fmt: skip
    study = f.study()
    with pytest.raises(ImportFailed) as refused:
        run("questions", path, study=study, format="jsonl")
    [problem] = refused.value.problems
    assert (problem.field, problem.message) == ("rubric[0].weight", f"{RANGE}, found 4")
