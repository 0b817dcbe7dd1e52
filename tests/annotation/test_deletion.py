"""Deletes never destroy expert work (issue 12, "Deletes destroy expert work").

Judgments, drafts and their versions are never deleted by a cascade; an annotator is
deactivated, never deleted; reassigning keeps the drafts of the work it moves; a study is
deleted only explicitly, confirmed by its name, after its backup was written.
"""

import json
import zipfile

import pytest
from django.db.models import ProtectedError
from django.test import Client
from django.urls import reverse

from annotation.models import (
    Annotator,
    Assignment,
    Draft,
    DraftVersion,
    HumanMetricScore,
    Medal,
    MedalRanking,
    Report,
    Study,
)
from studio.studyadmin.planning import reassign
from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user


def expert_work() -> dict:
    return {
        "rankings": list(MedalRanking.objects.values().order_by("pk")),
        "medals": list(Medal.objects.values().order_by("pk")),
        "scores": list(HumanMetricScore.objects.values().order_by("pk")),
        "drafts": list(Draft.objects.values("pk", "payload", "version").order_by("pk")),
        "versions": list(DraftVersion.objects.values().order_by("pk")),
        "assignments": list(Assignment.objects.values("pk", "annotator_id").order_by("pk")),
    }


@pytest.fixture
def world(db, settings, tmp_path):
    settings.CONCORD_BACKUP_DIR = tmp_path / "backups"
    admin = make_user("del_admin", "admin")
    admin.is_staff = admin.is_superuser = True
    admin.save()
    expert = make_user("del_expert", "annotator", annotator=True).annotator
    study = make_study("Deletion study", tasks=["medal_ranking", "pairwise"])
    question = make_question(study, n_reports=3, paragraphs=1)
    done = make_assignment(expert, question, "medal_ranking")
    Assignment.objects.filter(pk=done.pk).update(status=Assignment.Status.SUBMITTED)
    ranking = MedalRanking.objects.create(
        study=study, annotator=expert, question=question, assignment=done
    )
    reports = list(question.reports.order_by("pk"))
    for report, medal in zip(reports, ("gold", "silver", "bronze"), strict=True):
        Medal.objects.create(ranking=ranking, report=report, medal=medal)
    HumanMetricScore.objects.create(
        study=study, annotator=expert, question=question, report=reports[0], metric="m", value=3
    )
    Draft.objects.create(assignment=done, payload={"reasoning": "final"}, version=2)
    for v in (1, 2):
        DraftVersion.objects.create(
            assignment=done, version=v, author=expert, payload={"reasoning": f"v{v}"}
        )
    open_ = make_assignment(expert, make_question(study, n_reports=2, paragraphs=1), "pairwise")
    Draft.objects.create(assignment=open_, payload={"reason": "half way"}, version=1)
    DraftVersion.objects.create(
        assignment=open_, version=1, author=expert, payload={"reason": "half way"}
    )
    client = Client()
    client.force_login(admin)
    return client, study, expert, open_


def test_deleting_an_annotator_through_the_api_deactivates_and_keeps_every_judgment(world):
    client, _, expert, _ = world
    before = expert_work()
    response = client.delete(reverse("annotator-detail", args=[expert.pk]))
    assert response.status_code == 204
    assert Annotator.objects.filter(pk=expert.pk).exists()
    expert.user.refresh_from_db()
    assert expert.user.is_active is False  # can no longer sign in
    assert expert_work() == before
    assert len(before["rankings"]) == 1 and len(before["versions"]) == 3


def test_a_cascade_never_takes_judgments_or_drafts(world):
    _, study, expert, _ = world
    before = expert_work()
    for obj in (expert, study, Report.objects.first(), Assignment.objects.first()):
        with pytest.raises(ProtectedError):
            obj.delete()
    assert expert_work() == before


def test_api_delete_of_an_assignment_with_a_draft_is_a_409_and_changes_nothing(world):
    client, _, _, open_ = world
    before = expert_work()
    response = client.delete(reverse("assignment-detail", args=[open_.pk]))
    assert response.status_code == 409
    assert "never deleted by a cascade" in response.json()["detail"]
    assert expert_work() == before


def test_deleting_a_study_needs_its_name_and_writes_the_backup_first(world, settings):
    client, study, _, _ = world
    before = expert_work()
    url = reverse("study-detail", args=[study.pk])
    for confirm in ("", "deletion study"):
        response = client.delete(f"{url}?confirm={confirm}")
        assert response.status_code == 400
        assert "confirm" in response.json()
    assert expert_work() == before and Study.objects.filter(pk=study.pk).exists()
    response = client.delete(f"{url}?confirm=Deletion%20study")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["judgments"] == 2 and body["versions"] == 3
    assert not Study.objects.filter(pk=study.pk).exists()
    backup = settings.CONCORD_BACKUP_DIR / body["backup"]
    with zipfile.ZipFile(backup) as z:
        manifest = json.loads(z.read("manifest.json"))
    counts = {t["model"]: t["count"] for t in manifest["tables"]}
    assert counts["annotation.medalranking"] == 1
    assert counts["annotation.draftversion"] == 3


def test_annotations_own_study_viewset_never_deletes_a_study(world):
    """Only studio's viewset (on the router) deletes, after the backup; annotation's alone
    answers 405 and never cascades, even with the right confirmation."""
    from django.contrib.auth.models import User
    from rest_framework.test import APIRequestFactory, force_authenticate

    from annotation.api import StudyViewSet

    _, study, _, _ = world
    before = expert_work()
    request = APIRequestFactory().delete(f"/api/studies/{study.pk}/?confirm=Deletion%20study")
    force_authenticate(request, user=User.objects.get(username="del_admin"))
    response = StudyViewSet.as_view({"delete": "destroy"})(request, pk=study.pk)
    assert response.status_code == 405
    assert expert_work() == before and Study.objects.filter(pk=study.pk).exists()


def test_reassigning_keeps_the_drafts_and_versions_of_the_work_it_moves(world):
    client, study, expert, open_ = world
    make_user("del_other", "annotator", annotator=True)
    before_versions = list(DraftVersion.objects.filter(assignment=open_).values())
    done = reassign(study, expert, seed=0)
    assert done.moved == 1
    open_.refresh_from_db()
    assert open_.status == Assignment.Status.WITHDRAWN
    assert list(DraftVersion.objects.filter(assignment=open_).values()) == before_versions
    assert Draft.objects.get(assignment=open_).payload == {"reason": "half way"}
    # out of the old annotator's queue, and their task page is gone
    mine = Client()
    mine.force_login(expert.user)
    assert mine.get(reverse("annotate:task", args=[open_.pk])).status_code == 404
    assert f"/annotate/{open_.pk}/" not in mine.get(reverse("annotate:queue")).content.decode()
    # the work continues with someone else
    assert Assignment.objects.filter(
        question=open_.question, task="pairwise", status="not_started"
    ).exclude(annotator=expert)


def test_the_admin_deletes_a_study_only_through_the_confirmed_backup_page(world):
    client, study, _, _ = world
    assert client.post(reverse("admin:annotation_study_delete", args=[study.pk]), {"post": "yes"})
    assert Study.objects.filter(pk=study.pk).exists()
    url = reverse("admin:annotation_study_delete_with_backup", args=[study.pk])
    page = client.get(url)
    assert page.status_code == 200 and "2 judgments" in page.content.decode()
    assert client.post(url, {"confirm": "wrong"}).status_code == 400
    assert Study.objects.filter(pk=study.pk).exists()
    assert client.post(url, {"confirm": study.name}).status_code == 302
    assert not Study.objects.filter(pk=study.pk).exists()
