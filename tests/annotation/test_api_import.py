"""``POST /api/studies/{id}/import/``: admin only, calls ``annotation.importers.run``."""

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Question, Rubric, RubricItem
from tests.builders import world as f

DATA = Path(__file__).resolve().parents[1] / "data"


def upload(name: str, content: bytes | None = None, path: Path | None = None):
    data = content if content is not None else path.read_bytes()
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


def post(user, study, **data):
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client.post(reverse("study-import", args=[study.pk]), data, format="multipart")


@pytest.mark.django_db
def test_admin_imports_questions(admin_user):
    s = f.study()
    response = post(
        admin_user,
        s,
        kind="questions",
        format="jsonl",
        file=upload("questions.jsonl", path=DATA / "questions.jsonl"),
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["kind"] == "questions" and body["dry_run"] is False
    assert body["records"] == Question.objects.filter(study=s).count() >= 2
    assert body["created"]["Question"] == body["records"]
    assert "imported" in body["summary"]
    assert Question.objects.get(study=s, external_id="g1").text == "What is contrastive decoding?"


@pytest.mark.django_db
def test_dry_run_writes_nothing(admin_user):
    s = f.study()
    response = post(
        admin_user,
        s,
        kind="questions",
        format="jsonl",
        dry_run="true",
        file=upload("questions.jsonl", path=DATA / "questions.jsonl"),
    )
    assert response.status_code == 200, response.content
    assert response.json()["dry_run"] is True
    assert response.json()["created"]["Question"] >= 2
    assert not Question.objects.exists()


@pytest.mark.django_db
def test_every_problem_is_reported_and_nothing_written(admin_user):
    s = f.study()
    lines = [
        {"id": "ok", "text": "Fine?"},
        {"id": "no-text"},
        {"text": "No id?"},
    ]
    content = "\n".join(json.dumps(line) for line in lines).encode()
    response = post(
        admin_user, s, kind="questions", format="jsonl", file=upload("bad.jsonl", content)
    )
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert len(errors) >= 2
    assert all(set(e) == {"file", "record", "field", "message"} for e in errors)
    assert {(e["file"], e["record"]) for e in errors} >= {("bad.jsonl", 2), ("bad.jsonl", 3)}
    assert not Question.objects.exists()


@pytest.mark.django_db
def test_rubric_file_option_is_an_extra_part(admin_user):
    s = f.study()
    response = post(
        admin_user,
        s,
        kind="questions",
        format="researcherbench",
        file=upload("q.json", path=DATA / "researcherbench_questions.json"),
        rubric=upload("rubric.json", path=DATA / "researcherbench_rubric.json"),
    )
    assert response.status_code == 200, response.content
    assert RubricItem.objects.filter(rubric__question__study=s).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data, field",
    [
        ({"kind": "questions", "format": "jsonl"}, "file"),  # no file
        ({"kind": "questions", "format": "jsonl", "options": '{"bogus": 1}'}, "bogus"),
        ({"kind": "questions", "format": "jsonl", "options": "[1, 2]"}, "options"),
        ({"kind": "questions", "format": "jsonl", "options": "{not json"}, "options"),
        ({"kind": "pairwise", "options": '{"judge": "j"}'}, "annotator"),
        ({"kind": "reports", "format": "scholarqa", "options": '{"system": 3}'}, "system"),
        ({"kind": "claims", "format": "bogus"}, "format"),
        ({"kind": "bogus", "format": "jsonl"}, "kind"),
        ({"kind": "bogus", "options": '{"system": "x"}'}, "kind"),
    ],
)
def test_form_problems_use_the_same_error_shape(admin_user, data, field):
    s = f.study()
    if field != "file":
        data = {**data, "file": upload("questions.jsonl", path=DATA / "questions.jsonl")}
    response = post(admin_user, s, **data)
    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert field in {e["field"] for e in errors}
    assert all(set(e) == {"file", "record", "field", "message"} for e in errors)
    assert not Question.objects.exists()


@pytest.mark.django_db
def test_unknown_kind_is_a_problem_not_a_crash(admin_user):
    s = f.study()
    response = post(
        admin_user, s, kind="nonsense", file=upload("q.jsonl", path=DATA / "questions.jsonl")
    )
    assert response.status_code == 400
    assert "nonsense" in response.json()["errors"][0]["message"]
    assert response.json()["errors"][0]["field"] == "kind"


@pytest.mark.django_db
def test_a_bad_format_or_kind_is_the_only_problem_named(admin_user):
    """A bad format names ``format`` (it was ``field: null``), before any option."""
    s = f.study()
    file = upload("q.jsonl", path=DATA / "questions.jsonl")
    response = post(admin_user, s, kind="claims", format="bogus", file=file)
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["field"] == "format" and "'bogus'" in error["message"]
    assert "jsonl" in error["message"]  # the claims formats it could be


@pytest.mark.django_db
def test_an_unknown_option_close_to_a_known_one_says_which_was_meant(admin_user):
    s = f.study()
    file = upload("q.jsonl", path=DATA / "questions.jsonl")
    response = post(admin_user, s, kind="reports", format="scholarqa", file=file,
                    options='{"sytem": "x"}')  # fmt: skip
    [error] = response.json()["errors"]
    assert error["field"] == "sytem" and "did you mean 'system'?" in error["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["anonymous", "annotator", "researcher"])
def test_only_admins_import(role, annotator_user, researcher_user):
    user = {"anonymous": None, "annotator": annotator_user, "researcher": researcher_user}[role]
    s = f.study()
    response = post(
        user,
        s,
        kind="questions",
        format="jsonl",
        file=upload("questions.jsonl", path=DATA / "questions.jsonl"),
    )
    assert response.status_code in ({401, 403} if role == "anonymous" else {403})
    assert not Question.objects.exists() and not Rubric.objects.exists()


@pytest.mark.django_db
def test_import_into_missing_study_is_404(admin_user):
    client = APIClient()
    client.force_login(admin_user)
    response = client.post(
        reverse("study-import", args=[999999]),
        {"kind": "questions", "format": "jsonl", "file": upload("q.jsonl", b"{}")},
        format="multipart",
    )
    assert response.status_code == 404
    assert not Question.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["dryrun", "dry-run", "dry_run_", "system"])
def test_an_unknown_form_field_is_refused_and_nothing_written(admin_user, field):
    """A mistyped ``dryrun=true`` was dropped by the form and the import wrote its data;
    it is a 400 naming the field and the one it is close to, and nothing is written."""
    s = f.study()
    response = post(
        admin_user, s, kind="questions", format="jsonl", **{field: "true"},
        file=upload("questions.jsonl", path=DATA / "questions.jsonl"),
    )  # fmt: skip
    assert response.status_code == 400, response.content
    [error] = response.json()["errors"]
    assert error["field"] == field and f"unknown field(s): {field}" in error["message"]
    if field.startswith("dry"):
        assert "did you mean 'dry_run'?" in error["message"]
    else:
        assert "'options'" in error["message"]  # an importer option sent as a field
    assert not Question.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "options, field, said",
    [
        ({"setting": "bogus"}, "setting", "setting 'bogus' is not one of assigned"),
        ({"split": "bogus"}, "split", "split 'bogus' is not one of dev, test"),
        ({"expert_agreed": True}, "annotator", "give no annotator"),
    ],
)
def test_a_pairwise_option_out_of_its_choices_names_its_field(admin_user, options, field, said):
    """``setting: bogus`` answered ``field: null`` (``split`` and ``expert_agreed`` named
    theirs); ``split: bogus`` was written to the questions as it was."""
    from annotation.models import MedalRanking

    s = f.study()
    file = upload("pairwise_dev_assigned_ann1.json", path=DATA / "pairwise_dev_assigned_ann1.json")
    body = {"annotator": "a", "judge": "j", **options}
    response = post(admin_user, s, kind="pairwise", format="scholarqa", file=file,
                    options=json.dumps(body))  # fmt: skip
    assert response.status_code == 400, response.content
    [error] = response.json()["errors"]
    assert error["field"] == field and said in error["message"]
    assert not Question.objects.exists() and not MedalRanking.objects.exists()
