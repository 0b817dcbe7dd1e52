"""The study pages: who may see them, server-side validation, downloads, constant queries."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from openpyxl import load_workbook

from annotation.models import Annotator, Assignment, Question, Study, System
from studio.studyadmin.planning import PlanSpec, commit
from tests.annotation.test_import_common import DATA
from tests.builders.planning import make_annotators, make_study

ADMIN_PAGES = [
    ("studies:detail", True),
    ("studies:plan", True),
    ("studies:invite", False),
]
POSTS = ["studies:settings", "studies:import", "studies:plan", "studies:reassign"]


def url(name, study=None, **kw):
    if study is None:
        return reverse(name, kwargs=kw)
    return reverse(name, kwargs={"study_id": study.pk, **kw})


@pytest.fixture
def study(db):
    return make_study(questions=6)


@pytest.mark.django_db
@pytest.mark.parametrize("name, per_study", ADMIN_PAGES)
def test_admin_pages_are_for_admins(
    client, study, admin_user, researcher_user, annotator_user, name, per_study
):
    target = url(name, study if per_study else None)
    assert client.get(target).status_code == 302  # anonymous -> login
    for user in (researcher_user, annotator_user):
        client.force_login(user)
        assert client.get(target).status_code == 403
    client.force_login(admin_user)
    assert client.get(target).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("name", POSTS)
def test_posts_are_for_admins(client, study, researcher_user, annotator_user, name):
    for user in (researcher_user, annotator_user):
        client.force_login(user)
        assert client.post(url(name, study), {}).status_code == 403
    client.force_login(researcher_user)
    assert client.post(url("studies:list"), {"name": "Sneaky"}).status_code == 403
    assert not Study.objects.filter(name="Sneaky").exists()


@pytest.mark.django_db
def test_exports_are_for_the_study_s_researchers_and_admins(client, study, researcher_user,
                                                            admin_user):  # fmt: skip
    client.force_login(researcher_user)  # not added to the study: it does not exist for them
    assert client.get(url("studies:export_judgments", study, fmt="csv")).status_code == 404
    assert client.get(url("studies:export_pairwise", study)).status_code == 404
    study.researchers.add(researcher_user)
    # a reader of the study now: no judgment yet, so a 404 saying so (not "no such study")
    empty = client.get(url("studies:export_judgments", study, fmt="csv"))
    assert empty.status_code == 404 and "no human judgment" in empty.content.decode()
    empty = client.get(url("studies:export_pairwise", study))  # no pairwise record either
    assert empty.status_code == 404 and "nothing to export" in empty.content.decode()
    client.force_login(admin_user)
    for fmt in ("json", "jsonl", "csv", "xlsx"):  # no judgment yet: a 404 saying so
        r = client.get(url("studies:export_judgments", study, fmt=fmt))
        assert r.status_code == 404 and "no human judgment" in r.content.decode()
    _one_judgment(study)
    for fmt in ("json", "jsonl", "csv", "xlsx"):
        r = client.get(url("studies:export_judgments", study, fmt=fmt))
        assert r.status_code == 200 and "attachment" in r["Content-Disposition"]
    load_workbook(
        io.BytesIO(client.get(url("studies:export_judgments", study, fmt="xlsx")).content)
    )
    assert client.get(url("studies:export_judgments", study, fmt="pdf")).status_code == 404
    # a query-quality judgment is no pairwise record: still nothing in pairwise.zip
    assert client.get(url("studies:export_pairwise", study)).status_code == 404


def _one_judgment(study):
    from annotation.models import QueryQuality

    question = study.questions.first()
    QueryQuality.objects.create(
        study=study, annotator=Annotator.objects.create(pseudonym="Q-rater"), question=question,
        clarity=4, naturalness=4, relevance=4, variability="closed",
    )  # fmt: skip


@pytest.mark.django_db
def test_researchers_read_progress(client, study, researcher_user, annotator_user):
    anns = make_annotators(2)
    commit(study, PlanSpec(task="medal_ranking", overlap=1))
    client.force_login(annotator_user)
    assert client.get(url("studies:progress", study)).status_code == 403
    assert client.get(url("studies:progress_csv", study)).status_code == 403
    client.force_login(researcher_user)
    assert client.get(url("studies:progress", study)).status_code == 404  # not added yet
    study.researchers.add(researcher_user)
    page = client.get(url("studies:progress", study))
    assert page.status_code == 200 and anns[0].pseudonym in page.content.decode()
    assert "Set up" not in page.content.decode()
    csv_text = client.get(url("studies:progress_csv", study)).content.decode()
    assert csv_text.splitlines()[0].startswith("annotator,state")
    r = client.get(url("studies:annotator_progress", study, annotator_id=anns[0].pk))
    assert r.status_code == 200
    stranger = make_annotators(1, prefix="Stranger")[0]
    assert (
        client.get(url("studies:annotator_progress", study, annotator_id=stranger.pk)).status_code
        == 404
    )
    assert client.get(url("studies:list")).status_code == 200


@pytest.mark.django_db
def test_create_study_and_save_settings(client, admin_user):
    client.force_login(admin_user)
    r = client.post(url("studies:list"), {"name": "New one", "description": "d"})
    study = Study.objects.get(name="New one")
    assert r.status_code == 302 and r["Location"] == url("studies:detail", study)
    System.objects.create(study=study, name="A")
    System.objects.create(study=study, name="B")
    data = {
        "tasks": ["medal_ranking", "metric_wise"], "ties_allowed": "", "claims_min": 2,
        "claims_max": 4, "relevance_R": 1, "relevance_U": 0.25, "relevance_O": 0,
        "coverage_fully": 1, "coverage_partially": 0.5, "coverage_none": 0,
        "support_snippet": 1, "support_title": 0.5, "systems_per_question": 2,
    }  # fmt: skip
    r = client.post(url("studies:settings", study), data)
    assert r.status_code == 302
    study.refresh_from_db()
    assert study.tasks == ["medal_ranking", "metric_wise"]
    assert study.setting("ties_allowed") is False and study.setting("claims_max") == 4
    assert study.setting("relevance_credit")["U"] == 0.25
    assert not study.researchers.exists()


@pytest.mark.django_db
def test_settings_add_and_remove_the_researchers_who_read_the_study(
    client, admin_user, researcher_user, annotator_user, study
):
    data = {
        "tasks": ["medal_ranking"], "claims_min": 3, "claims_max": 5, "relevance_R": 1,
        "relevance_U": 0.5, "relevance_O": 0, "coverage_fully": 1, "coverage_partially": 0.5,
        "coverage_none": 0, "support_snippet": 1, "support_title": 0.5,
    }  # fmt: skip
    reader = Client()
    reader.force_login(researcher_user)
    assert reader.get(url("studies:progress", study)).status_code == 404
    client.force_login(admin_user)
    page = client.get(url("studies:detail", study)).content.decode()
    offered = f'name="researchers" value="{researcher_user.pk}"'
    assert offered in page  # only researchers are offered
    assert f'name="researchers" value="{annotator_user.pk}"' not in page
    assert client.post(url("studies:settings", study),
                       {**data, "researchers": [researcher_user.pk]}).status_code == 302  # fmt: skip
    assert list(study.researchers.all()) == [researcher_user]
    assert reader.get(url("studies:progress", study)).status_code == 200
    # an annotator cannot be made a reader: refused by name, nothing changes
    r = client.post(url("studies:settings", study), {**data, "researchers": [annotator_user.pk]})
    assert r.status_code == 400 and "researchers" in r.content.decode()
    assert list(study.researchers.all()) == [researcher_user]
    assert client.post(url("studies:settings", study), data).status_code == 302
    assert not study.researchers.exists()
    assert reader.get(url("studies:progress", study)).status_code == 404


@pytest.mark.django_db
def test_bad_settings_change_nothing_and_name_the_field(client, admin_user, study):
    other = make_study("Other study", questions=1)
    foreign = System.objects.filter(study=other).first()
    client.force_login(admin_user)
    before = (study.tasks, dict(study.config))
    data = {
        "tasks": ["medal_ranking"], "claims_min": 5, "claims_max": 3, "relevance_R": 1,
        "relevance_U": 0.5, "relevance_O": 0, "coverage_fully": 1, "coverage_partially": 0.5,
        "coverage_none": 0, "support_snippet": 1, "support_title": 0.5,
        "compared_systems": [foreign.pk],
    }  # fmt: skip
    r = client.post(url("studies:settings", study), data)
    assert r.status_code == 400
    body = r.content.decode()
    assert "compared_systems" in body and "claims_max" in body
    study.refresh_from_db()
    assert (study.tasks, study.config) == before


@pytest.mark.django_db
def test_plan_preview_then_commit(client, admin_user, study):
    anns = make_annotators(4)
    client.force_login(admin_user)
    data = {"task": "medal_ranking", "strategy": "random", "overlap": 2, "seed": 1, "per_expert": 5}
    r = client.post(url("studies:plan", study), {**data, "action": "preview"})
    assert r.status_code == 200
    body = r.content.decode()
    assert "Preview: 12 new assignments" in body and anns[0].pseudonym in body
    assert not Assignment.objects.exists()
    fingerprint = r.context["preview"].fingerprint
    r = client.post(
        url("studies:plan", study), {**data, "action": "commit", "fingerprint": fingerprint}
    )
    assert r.status_code == 302 and r["Location"] == url("studies:progress", study)
    assert Assignment.objects.count() == 12


@pytest.mark.django_db
@pytest.mark.parametrize(
    "bad, field",
    [
        ({"capacity": -1}, "capacity"),
        ({"annotators": [987654]}, "annotators"),
        ({"overlap": 0}, "overlap"),
        ({"task": "query_quality"}, "task"),  # not enabled
        ({"strategy": "nope"}, "strategy"),
        ({"split": "never"}, "split"),
    ],
)
def test_bad_plan_posts_change_nothing(client, admin_user, study, bad, field):
    make_annotators(2)
    client.force_login(admin_user)
    data = {"task": "medal_ranking", "strategy": "random", "overlap": 1, "seed": 0, "per_expert": 5}
    r = client.post(url("studies:plan", study), {**data, **bad, "action": "commit"})
    assert r.status_code == 400
    assert field in r.context["form"].errors
    assert f"<strong>{field}</strong>" in r.content.decode()
    assert not Assignment.objects.exists()


@pytest.mark.django_db
def test_stale_commit_is_refused(client, admin_user, study):
    make_annotators(2)
    client.force_login(admin_user)
    data = {"task": "medal_ranking", "strategy": "random", "overlap": 1, "seed": 0, "per_expert": 5}
    r = client.post(
        url("studies:plan", study), {**data, "action": "commit", "fingerprint": "stale"}
    )
    assert r.status_code == 400 and "preview it again" in r.content.decode()
    assert not Assignment.objects.exists()


@pytest.mark.django_db
def test_reassign_page(client, admin_user, study):
    anns = make_annotators(3)
    commit(study, PlanSpec(task="medal_ranking", overlap=1))
    client.force_login(admin_user)
    n = Assignment.objects.filter(annotator=anns[0]).count()
    r = client.post(url("studies:reassign", study), {"annotator": anns[0].pk, "seed": 0})
    assert r.status_code == 302
    assert not Assignment.objects.filter(annotator=anns[0]).exclude(status="withdrawn").exists()
    assert Assignment.objects.filter(annotator=anns[0], status="withdrawn").count() == n
    assert Assignment.objects.exclude(status="withdrawn").count() == 6 and n
    r = client.post(url("studies:reassign", study), {"annotator": 424242, "seed": 0})
    assert r.status_code == 400 and "<strong>annotator</strong>" in r.content.decode()
    other = make_study("Other", questions=2)
    outsider = make_annotators(1, prefix="Out")[0]
    commit(other, PlanSpec(task="medal_ranking", overlap=1, annotators=(outsider.pk,)))
    before = Assignment.objects.count()
    r = client.post(url("studies:reassign", study), {"annotator": outsider.pk, "seed": 0})
    assert r.status_code == 400 and Assignment.objects.count() == before


@pytest.mark.django_db
def test_import_through_the_study_page(client, admin_user):
    study = Study.objects.create(name="Imports")
    client.force_login(admin_user)
    upload = SimpleUploadedFile(
        "researchqa_questions.jsonl", (DATA / "researchqa_questions.jsonl").read_bytes()
    )
    r = client.post(
        url("studies:import", study), {"kind": "questions", "format": "researchqa", "file": upload}
    )
    assert r.status_code == 302
    assert Question.objects.filter(study=study).exists()
    n = Question.objects.count()
    bad = SimpleUploadedFile("q.jsonl", b'{"nope": 1}\n')
    r = client.post(
        url("studies:import", study), {"kind": "questions", "format": "jsonl", "file": bad}
    )
    assert r.status_code == 400 and "record 1" in r.content.decode()
    r = client.post(
        url("studies:import", study), {"kind": "reports", "format": "scholarqa", "file": bad}
    )
    assert r.status_code == 400 and "<strong>system</strong>" in r.content.decode()
    assert Question.objects.count() == n


@pytest.mark.django_db
def test_invite_page(client, admin_user):
    client.force_login(admin_user)
    r = client.post(
        url("studies:invite"), {"expertise": "Biology, Chemistry\n\nPhysics\n", "degree": "PhD"}
    )
    assert r.status_code == 200
    assert Annotator.objects.count() == 2
    assert "/accounts/reset/" in r.content.decode()
    r = client.post(url("studies:invite"), {"expertise": "  \n"})
    assert r.status_code == 400 and "<strong>expertise</strong>" in r.content.decode()
    assert Annotator.objects.count() == 2


def _grow(n_annotators, n_studies):
    study = make_study("Big", questions=10)
    make_annotators(n_annotators, prefix=f"G{n_annotators}-")
    commit(study, PlanSpec(task="medal_ranking", overlap=min(3, n_annotators)))
    for i in range(n_studies):
        Study.objects.create(name=f"Extra {n_annotators}-{i}")
    Assignment.objects.filter(pk__in=Assignment.objects.values("pk")[:5]).update(
        status=Assignment.Status.SUBMITTED, seconds_on_task=40
    )
    _one_judgment(study)
    return study


@pytest.mark.django_db
@pytest.mark.parametrize("n", [5, 50])
def test_pages_use_a_constant_number_of_queries(
    client, admin_user, django_assert_max_num_queries, n
):
    study = _grow(n, n)
    ann = Assignment.objects.filter(study=study).first().annotator
    client.force_login(admin_user)
    pages = {
        url("studies:list"): 8,
        # + adjudication, authoring, supported tasks; + 4: the Download panel's option values
        # (systems, judges, annotators, rubric kinds: one query each, whatever the writers)
        # + what the Download panel may offer (2); + the judgment export's annotators and
        # whether the pairwise bundle has a record (one query each)
        url("studies:detail", study): 30,
        url("studies:progress", study): 14,  # + 4: the Download panel; + 2 as the detail
        url("studies:progress_csv", study): 8,
        url("studies:annotator_progress", study, annotator_id=ann.pk): 9,
        url("studies:plan", study): 12,  # + 2: the annotators and the questions' fields
        url("studies:expertise", study): 10,
        # one query per judgment kind (15), + 1: the known-answer items (quality_check)
        url("studies:export_judgments", study, fmt="csv"): 20,
        url("studies:export_format", study, kind="questions", file_format="jsonl"): 8,
    }
    for target, limit in pages.items():
        with django_assert_max_num_queries(limit):
            assert client.get(target).status_code == 200, target
    data = {"task": "medal_ranking", "strategy": "random", "overlap": 2, "seed": 0, "per_expert": 5}
    # + the estimate's measured times and pilot; + who ranks the question in the other ranking
    # task (TaskSpec.ranks); + the reports without text (both one query whatever the study)
    with django_assert_max_num_queries(21):
        assert (
            client.post(url("studies:plan", study), {**data, "action": "preview"}).status_code
            == 200
        )
