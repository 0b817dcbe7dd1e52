"""The Django admin answers only to the admin role (issue 12, "Access and abuse").

A staff user without the admin role, even one holding every model permission, gets 403 on
every admin page found by walking the URL configuration, and a POST to the "Import data"
page or to a change form changes nothing. The admin still works for an admin.
"""

import io

import pytest
from django.apps import apps
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import get_resolver, reverse

from annotation.models import Medal, MedalRanking
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user
from tests.security.test_csrf import named_patterns


def snapshot() -> dict:
    counts = {m._meta.label: m._default_manager.count() for m in apps.get_models()}
    counts.pop("sessions.Session", None)
    return {
        "counts": counts,
        "rankings": list(MedalRanking.objects.values().order_by("pk")),
        "medals": list(Medal.objects.values().order_by("pk")),
        "questions": list(apps.get_model("annotation", "Question").objects.values("text")),
    }


@pytest.fixture
def world(db):
    staff = make_user("staff_not_admin", "researcher")
    staff.is_staff = True
    staff.save()
    staff.user_permissions.set(Permission.objects.all())  # every model permission
    admin = make_user("real_admin", "admin")
    admin.is_staff = True
    admin.save()
    admin.user_permissions.set(Permission.objects.all())
    annotator = make_user("medallist", "annotator", annotator=True)
    study = make_study("Not theirs")
    question = make_question(study, n_reports=3, paragraphs=1)
    assignment = make_assignment(annotator.annotator, question, "medal_ranking")
    ranking = MedalRanking.objects.create(
        study=study, annotator=annotator.annotator, question=question, assignment=assignment
    )
    for report, medal in zip(
        question.reports.order_by("pk"), ("gold", "silver", "bronze"), strict=True
    ):
        Medal.objects.create(ranking=ranking, report=report, medal=medal)
    values = {
        "app_label": "annotation",
        "object_id": str(ranking.pk),
        "content_type_id": 1,
        "study_id": study.pk,
        "id": staff.pk,
    }
    return staff, admin, study, ranking, values


def admin_urls(values) -> list[tuple[str, str]]:
    out = set()
    for name, params in named_patterns(get_resolver().url_patterns):
        if name.startswith("admin:") and name != "admin:logout":  # logout: POST only
            out.add((name, reverse(name, kwargs={k: values[k] for k in params})))
    return sorted(out)


def test_a_staff_user_without_the_admin_role_gets_403_on_every_admin_page(world):
    staff, _, _, _, values = world
    client = Client()
    client.force_login(staff)
    targets = admin_urls(values)
    assert len(targets) > 80, len(targets)  # every model's list/add/change/delete/history
    assert ("admin:annotation_import", "/admin/annotation/study/import/") in targets
    before = snapshot()
    wrong = []
    for name, url in targets:
        status = client.get(url).status_code
        if status not in (403, 404):
            wrong.append(f"GET {name} {url} -> {status}")
        status = client.post(url, {"name": "changed"}).status_code
        if status not in (403, 404):
            wrong.append(f"POST {name} {url} -> {status}")
    assert not wrong, "\n".join(wrong)
    assert snapshot() == before


def test_a_staff_non_admin_cannot_import_nor_overwrite_a_medal_ranking(world):
    staff, _, study, ranking, _ = world
    client = Client()
    client.force_login(staff)
    before = snapshot()
    upload = io.BytesIO(b'{"id": "forged", "text": "Injected question"}\n')
    upload.name = "questions.jsonl"
    url = reverse("admin:annotation_import")
    response = client.post(
        url,
        {"kind": "questions", "format": "jsonl", "file": upload, "study": study.name},
    )
    assert response.status_code == 403
    medal = ranking.medals.order_by("pk").first()
    change = reverse("admin:annotation_medal_change", args=[medal.pk])
    assert client.post(change, {"ranking": ranking.pk, "medal": "bronze"}).status_code == 403
    assert snapshot() == before


def test_an_admin_still_imports_through_the_admin(world):
    _, admin, study, _, _ = world
    client = Client()
    client.force_login(admin)
    assert client.get(reverse("admin:index")).status_code == 200
    upload = io.BytesIO(b'{"id": "new-q", "text": "A new question"}\n')
    upload.name = "questions.jsonl"
    response = client.post(
        reverse("admin:annotation_import"),
        {"kind": "questions", "format": "jsonl", "file": upload, "study": study.name},
    )
    assert response.status_code == 200
    assert study.questions.filter(external_id="new-q").exists()


def test_anonymous_is_sent_to_the_admin_login(db):
    response = Client().get(reverse("admin:annotation_import"))
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]
