"""Gold and qualification items in a study planned by expertise (docs/QUALITY.md, "Gold
and settings").

A tester found every released gold and qualification item labelled ``expertise_matched``
in an expertise queue, a qualification question of a field nobody has and a gold question
outside the annotator's fields included; the judgments export then listed those answers as
expertise-matched, with no column saying they answer a known-answer item; and the one
question of an expert's queue outside their fields was the gold item. Here: the setting
says what is true (expertise_matched only for an expert of the question's field, else
``assigned``); every export format says which records answer a gold or qualification item;
gold for an expert is drawn from their fields when the study has such gold, and the admin
is told at release when it has none (the item is then recognisable).
"""

import csv
import io
import json

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation import exporters
from annotation.models import Assignment, QueryQuality, Setting
from studio.studyadmin import quality
from tests.builders.content import make_question, make_study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db
MATCHED = Setting.EXPERTISE_MATCHED


@pytest.fixture
def world():
    admin = make_user("gs_admin", "admin")
    study = make_study("Gold by expertise", tasks=["query_quality"])
    qs = {}
    for name, field in (("q1", "nlp"), ("q2", "nlp"), ("q3", "bio"), ("q4", "chem"), ("q5", "bio")):
        q = make_question(study, n_reports=1, paragraphs=1, external_id=name)
        q.field = field
        q.save(update_fields=["field"])
        qs[name] = q
    people = {}
    for name, fields, work in (("nlp", ["nlp"], "q1"), ("bio", ["bio"], "q5")):
        person = make_user(f"gs_{name}", "annotator", annotator=True).annotator
        person.expertise_fields = fields
        person.save(update_fields=["expertise_fields"])
        Assignment.objects.create(study=study, annotator=person, question=qs[work],
                                  task="query_quality", setting=MATCHED, position=1)  # fmt: skip
        people[name] = person
    return study, admin, qs, people


def _enter(study, admin, question, unit, purpose):
    quality.mark_entered(study, task="query_quality", question=question, unit=unit,
                         answer="4", purpose=purpose, user=admin)  # fmt: skip


def _setting(person, question) -> str:
    return Assignment.objects.get(annotator=person, question=question).setting


def _answer(assignment):
    QueryQuality.objects.create(
        study=assignment.study, annotator=assignment.annotator, question=assignment.question,
        assignment=assignment, setting=assignment.setting, clarity=4, naturalness=3,
        relevance=3, variability="closed",
    )  # fmt: skip
    Assignment.objects.filter(pk=assignment.pk).update(
        status="submitted", submitted_at=timezone.now()
    )


def test_a_known_answer_item_is_expertise_matched_only_for_an_expert_of_its_field(world):
    study, admin, qs, people = world
    _enter(study, admin, "q3", "clarity", "gold")  # bio: only the bio expert's field
    _enter(study, admin, "q4", "naturalness", "qualification")  # chem: nobody's field
    done = quality.release(study, admin, seed=1)
    assert done.created == 4
    assert _setting(people["bio"], qs["q3"]) == MATCHED
    assert _setting(people["nlp"], qs["q3"]) == Setting.ASSIGNED
    assert _setting(people["bio"], qs["q4"]) == Setting.ASSIGNED
    assert _setting(people["nlp"], qs["q4"]) == Setting.ASSIGNED
    # the study has no gold in the nlp expert's field: given, and the admin is told
    said = [r for r in done.recognisable if "q3" in r]
    assert len(said) == 1 and said[0].startswith(people["nlp"].pseudonym), done.recognisable
    assert "no gold item of the study fits them" in said[0]


@pytest.mark.parametrize("fmt", exporters.JUDGMENT_FORMATS)
def test_the_judgments_export_says_which_records_answer_a_known_answer_item(world, fmt):
    study, admin, qs, people = world
    _enter(study, admin, "q3", "clarity", "gold")
    _enter(study, admin, "q4", "naturalness", "qualification")
    quality.release(study, admin, seed=1)
    nlp = people["nlp"]
    for a in Assignment.objects.filter(annotator=nlp):
        _answer(a)
    data = exporters.export_judgments(study, fmt)
    if fmt == "json":
        rows = json.loads(data)
    elif fmt == "jsonl":
        rows = [json.loads(line) for line in data.splitlines()]
    elif fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(data)))
    elif fmt == "xlsx":
        from openpyxl import load_workbook

        sheet = load_workbook(io.BytesIO(data)).active
        head, *body = list(sheet.values)
        rows = [dict(zip(head, r, strict=True)) for r in body]
    else:
        import pyarrow.parquet as pq

        rows = pq.read_table(io.BytesIO(data)).to_pylist()
    seen = {r["question"]: (r["setting"], r["quality_check"] or None) for r in rows}
    assert seen == {
        "q1": (MATCHED, None),
        "q3": (Setting.ASSIGNED, "gold"),
        "q4": (Setting.ASSIGNED, "qualification"),
    }


def test_an_expert_gets_the_gold_of_their_fields_never_one_outside_them(world):
    study, admin, qs, people = world
    _enter(study, admin, "q2", "clarity", "gold")  # nlp
    _enter(study, admin, "q3", "clarity", "gold")  # bio
    done = quality.release(study, admin, seed=1)
    for name, person in people.items():
        fields = set(
            Assignment.objects.filter(annotator=person).values_list("question__field", flat=True)
        )
        assert fields == {name}, name  # no question of their queue tells the gold apart
        assert set(
            Assignment.objects.filter(annotator=person).values_list("setting", flat=True)
        ) == {MATCHED}
    assert not done.recognisable
    nlp_said = [r for r in done.not_added if r.startswith(people["nlp"].pseudonym)]
    assert len(nlp_said) == 1 and "question q3" in nlp_said[0], done.not_added
    assert "not given" in nlp_said[0]


def test_the_admin_is_told_at_release_and_the_expert_s_questions_are_all_of_their_fields(
    world,
):
    study, admin, qs, people = world
    _enter(study, admin, "q2", "clarity", "gold")  # nlp only: the bio expert has none
    client = Client()
    client.force_login(admin)
    response = client.post(
        reverse("studies:quality", args=[study.pk]), {"action": "release"}, follow=True
    )
    said = " ".join(str(m) for m in response.context["messages"])
    bio = people["bio"].pseudonym
    assert f"Recognisable: {bio} judges by expertise (fields: bio)" in said, said
    # the nlp expert reads only questions of their field through the API
    client.force_login(people["nlp"].user)
    listed = client.get(reverse("question-list"), {"limit": 100}).json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert len(rows) == 2  # their work (q1) and the gold item (q2)
    assert {r["field"] for r in rows} == {"nlp"}


def _said_of(done, person, question) -> list[str]:
    return [r for r in done.recognisable if r.startswith(person.pseudonym) and question in r]


def test_gold_released_earlier_does_not_hide_a_later_item_outside_their_fields(world):
    """A tester's release listed one expert of three as recognisable: the others held more
    gold released earlier (given as assigned, outside their fields) than expertise work,
    so ``assigned`` passed for their usual setting and nothing seemed to stand out."""
    study, admin, qs, people = world
    q6 = make_question(study, n_reports=1, paragraphs=1, external_id="q6")
    q6.field = "physics"
    q6.save(update_fields=["field"])
    _enter(study, admin, "q3", "clarity", "gold")  # bio
    _enter(study, admin, "q4", "clarity", "gold")  # chem
    quality.release(study, admin, seed=1)
    _enter(study, admin, "q6", "clarity", "qualification")  # nobody's field
    done = quality.release(study, admin, seed=1)
    assert done.created == 2
    for person in people.values():
        assert _setting(person, q6) == Setting.ASSIGNED
        said = _said_of(done, person, "question q6")
        assert len(said) == 1, (person.pseudonym, done.recognisable)
        assert f"can be told apart from their {MATCHED} work" in said[0]


def test_an_expert_who_also_holds_assigned_work_is_told_of_an_item_outside_their_fields(world):
    study, admin, qs, people = world
    nlp = people["nlp"]
    for q in ("q3", "q4"):  # a random plan's work beside their expertise work
        Assignment.objects.create(study=study, annotator=nlp, question=qs[q],
                                  task="query_quality", setting=Setting.ASSIGNED, position=5)  # fmt: skip
    q6 = make_question(study, n_reports=1, paragraphs=1, external_id="q6")
    q6.field = "physics"
    q6.save(update_fields=["field"])
    _enter(study, admin, "q6", "clarity", "qualification")
    done = quality.release(study, admin, seed=1)
    assert done.created == 2
    assert _setting(nlp, q6) == Setting.ASSIGNED
    assert len(_said_of(done, nlp, "question q6")) == 1, done.recognisable
    assert len(_said_of(done, people["bio"], "question q6")) == 1, done.recognisable
