"""The declarative form parser the task types share (annotation.annotate.form)."""

import types

import pytest
from django.http import QueryDict
from django.urls import reverse

from annotation.annotate import registry
from annotation.annotate.form import Choices, Field, Form, Unit, as_int
from annotation.models import DraftVersion, Report, RubricCoverage
from tests.builders.content import make_assignment, make_question, make_study

# A small task: a grade per (report, paragraph), a free note per report, one optional comment.
REPORTS = {"r1": "Report A", "r2": "Report B"}
PARAGRAPHS = {"r1": {"1": 1, "2": 2}, "r2": {"1": 1}}
GRADE = Field(
    "g.<report>.<paragraph>",
    "grades.<report>.<paragraph>",
    convert=as_int,
    choices=Choices((0, 1, 2), "0, 1 or 2"),
    invalid="Grade ({report} ¶{paragraph}): {value!r} is not {choices}.",
    required="Grade ({report} ¶{paragraph}): grade it.",
)
NOTE = Field(
    "n.<report>.text",
    "notes.<report>.text",
    default="",
    max_chars=5,
    too_long="Note ({report}): longer than {limit} characters.",
)
FLAGS = Field("n.<report>.flag", "notes.<report>.flags", many=True, default=[])
COMMENT = Field("comment", "comment", default="")
FORM = Form(
    title="Grades",
    fields=(GRADE, NOTE, FLAGS, COMMENT),
    units=(
        Unit("report", lambda page, ids: REPORTS, unknown="Grades: no report {id!r} here."),
        Unit(
            "paragraph",
            lambda page, ids: PARAGRAPHS[ids["report"]],
            unknown="Grade ({report}): there is no paragraph {id}.",
        ),
    ),
)


def parse(query: str) -> dict:
    return FORM.parse(QueryDict(query))


def problems(payload) -> list[str]:
    return FORM.problems(payload, FORM.resolver(page=None))


def test_parse_builds_records_with_their_defaults_and_ignores_other_names():
    payload = parse("g.r1.1=2&n.r2.flag=a&n.r2.flag=b&version=3&client=x")
    assert payload == {
        "grades": {"r1": {"1": 2}},
        "notes": {"r2": {"text": "", "flags": ["a", "b"]}},
        "comment": "",
    }
    assert FORM.empty() == {"grades": {}, "notes": {}, "comment": ""}


def test_a_value_outside_the_choices_is_refused_naming_unit_and_field():
    assert problems(parse("g.r1.2=7")) == ["Grade (Report A ¶2): 7 is not 0, 1 or 2."]
    assert problems(parse("n.r2.text=toolong")) == ["Note (Report B): longer than 5 characters."]


def test_a_unit_not_in_the_assignment_is_refused_not_dropped():
    assert problems(parse("g.elsewhere.1=1")) == ["Grades: no report 'elsewhere' here."]
    # a nested unit is looked up within the unit bound before it: r2 has no paragraph 2
    assert problems(parse("g.r2.2=1")) == ["Grade (Report B): there is no paragraph 2."]
    assert problems({"grades": ["not", "a", "dict"]}) == ["Grades: malformed answer."]


def test_an_optional_field_may_be_absent_and_a_required_one_is_asked_for():
    payload = parse("g.r1.1=0&g.r1.2=1&g.r2.1=2")
    assert payload["comment"] == "" and payload["notes"] == {}
    assert problems(payload) == []
    assert FORM.required_problems(payload, FORM.resolver(None)) == []
    missing = FORM.required_problems(parse("g.r1.1=0"), FORM.resolver(None))
    assert missing == ["Grade (Report A ¶2): grade it.", "Grade (Report B ¶1): grade it."]


def test_a_rest_of_name_placeholder_keeps_dots():
    form = Form("Pairs", (Field("choice-<pair*>", "pairs.<pair>", default=""),))
    assert form.parse(QueryDict("choice-a.b=left&choice-=x")) == {"pairs": {"a.b": "left"}}


def test_every_task_module_is_named_after_its_key():
    assert set(registry.SPECS) == {m.__name__.rsplit(".", 1)[-1] for m in registry.TASK_MODULES}
    wrong = types.ModuleType("annotation.annotate.medals")
    wrong.TASK = registry.SPECS["medal_ranking"]
    with pytest.raises(ImportError, match="medals"):
        registry.registered((wrong,))


@pytest.mark.django_db
def test_a_report_of_another_assignment_is_refused_on_autosave(annotator_user, client):
    """The forged id is a real report, of another question: refused, nothing saved."""
    study = make_study()
    mine = make_assignment(
        annotator_user.annotator, make_question(study, rubric_items=2), "rubric_coverage"
    )
    other = make_question(study, external_id="q-other")
    theirs = Report.objects.filter(question=other).values_list("public_id", flat=True)[0]
    client.force_login(annotator_user)
    response = client.post(
        reverse("annotate:autosave", args=[mine.pk]), {"version": "0", f"cov.{theirs}.0": "3"}
    )
    assert response.status_code == 422
    assert "Coverage: an answer names a report that is not in this task." in (
        response.content.decode()
    )
    assert not DraftVersion.objects.exists() and not RubricCoverage.objects.exists()
