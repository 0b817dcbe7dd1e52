"""An admin runs a study from the pages only (issue 15, "The admin's study, browser only")."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.models import Assignment, Question, Rubric, Study
from tests.annotation.test_import_common import DATA
from tests.builders.planning import make_annotators

PLAN = {"strategy": "random", "overlap": 1, "seed": 0, "per_expert": 5}


def url(name, study=None, **kw):
    if study is None:
        return reverse(name, kwargs=kw)
    return reverse(name, kwargs={"study_id": study.pk, **kw})


def upload(name: str, data: bytes | None = None) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data if data is not None else (DATA / name).read_bytes())


def import_reports(client, study, system: str, name="scholarqa_reports.json"):
    r = client.post(
        url("studies:import", study),
        {"kind": "reports", "format": "scholarqa", "system": system, "file": upload(name)},
    )
    assert r.status_code == 302, r.content.decode()[:2000]


# --- 1. a web-created study has its tasks enabled; Assign refuses the others ---------------


@pytest.mark.django_db
def test_creation_form_asks_for_tasks(client, admin_user):
    client.force_login(admin_user)
    assert 'name="tasks" value="pairwise"' in client.get(url("studies:list")).content.decode()
    client.post(url("studies:list"), {"name": "Chosen", "tasks": ["pairwise", "metric_wise"]})
    assert Study.objects.get(name="Chosen").tasks == ["pairwise", "metric_wise"]


@pytest.mark.django_db
def test_first_import_enables_the_tasks_the_data_supports(client, admin_user):
    client.force_login(admin_user)
    client.post(url("studies:list"), {"name": "Web study"})
    study = Study.objects.get(name="Web study")
    assert study.tasks == []
    assert "No task is enabled" in client.get(url("studies:detail", study)).content.decode()
    import_reports(client, study, "sys-a")
    study.refresh_from_db()
    # one report per question: metric-wise works, a comparison does not yet
    assert "metric_wise" in study.tasks and "query_quality" in study.tasks
    assert "pairwise" not in study.tasks and "rubric_comparison" not in study.tasks
    # the admin's choice is kept afterwards: a second import does not change it
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(admin_user)
    chosen = api.patch(f"/api/studies/{study.pk}/", {"tasks": ["metric_wise"]}, format="json")
    assert chosen.status_code == 200 and chosen.json()["tasks_chosen"] is True
    import_reports(client, study, "sys-b")
    study.refresh_from_db()
    assert study.tasks == ["metric_wise"]
    page = client.get(url("studies:detail", study)).content.decode()
    assert "Enabled tasks: Metric-wise evaluation" in page
    assert "Pairwise preference" in page.split("The data also supports:")[1].split("</span>")[0]


@pytest.mark.django_db
def test_assign_refuses_a_task_the_study_does_not_enable(client, admin_user):
    """Before: a study with no task enabled accepted any task, and its annotators then got
    "This task is not available"."""
    study = Study.objects.create(name="No tasks")
    client.force_login(admin_user)
    import_reports(client, study, "sys-a")
    Study.objects.filter(pk=study.pk).update(tasks=[])
    make_annotators(2)
    assert 'id="no-tasks"' in client.get(url("studies:plan", study)).content.decode()
    for action in ("preview", "commit"):
        r = client.post(
            url("studies:plan", study), {**PLAN, "task": "metric_wise", "action": action}
        )
        assert r.status_code == 400
        body = r.content.decode()
        assert "does not enable the task “Metric-wise evaluation”" in body
        assert "Tasks and settings" in body
    assert not Assignment.objects.exists()
    Study.objects.filter(pk=study.pk).update(tasks=["metric_wise"])
    page = client.get(url("studies:plan", study)).content.decode()
    assert "Pairwise preference (not enabled in this study)" in page
    r = client.post(url("studies:plan", study), {**PLAN, "task": "metric_wise", "action": "commit"})
    # the second report's "[2][3]" stand side by side (one claim): two claims possible, fewer
    # than claims_min, so only the first report's question is planned
    assert r.status_code == 302 and Assignment.objects.count() == 1


# --- 2. fields of questions from the pages; every preview says why ---------------------------


def _report_study(client, *, systems=("sys-a", "sys-b"), tasks=None):
    """A study whose questions come from a report import only (they have no field)."""
    client.post(url("studies:list"), {"name": "Reports only"})
    study = Study.objects.get(name="Reports only")
    for system in systems:
        import_reports(client, study, system)
    if tasks is not None:
        Study.objects.filter(pk=study.pk).update(tasks=tasks)
    study.refresh_from_db()
    return study


@pytest.mark.django_db
def test_questions_page_lists_text_and_id_and_sets_fields_in_bulk(client, admin_user):
    client.force_login(admin_user)
    study = _report_study(client)
    questions = list(Question.objects.filter(study=study).order_by("pk"))
    assert len(questions) == 2 and all(q.field == "" for q in questions)
    page = client.get(url("studies:questions", study)).content.decode()
    for q in questions:
        assert q.external_id in page and q.text[:40] in page
    r = client.post(
        url("studies:questions", study),
        {"questions": [questions[0].pk], "field": "Computer Science", "subdomain": "ML"},
    )
    assert r.status_code == 302
    questions[0].refresh_from_db()
    questions[1].refresh_from_db()
    assert (questions[0].field, questions[0].subdomain) == ("Computer Science", "ML")
    assert questions[1].field == ""
    # "every question without a field" reaches the rest; the first keeps its subdomain
    r = client.post(url("studies:questions", study), {"without_field": "on", "field": "Biology"})
    assert r.status_code == 302
    assert sorted(Question.objects.filter(study=study).values_list("field", "subdomain")) == [
        ("Biology", ""),
        ("Computer Science", "ML"),
    ]


@pytest.mark.django_db
def test_bulk_edit_refuses_foreign_questions_and_empty_values(client, admin_user):
    client.force_login(admin_user)
    study = _report_study(client)
    other = Study.objects.create(name="Other")
    foreign = Question.objects.create(study=other, external_id="x", text="Foreign?")
    mine = Question.objects.filter(study=study).first()
    r = client.post(
        url("studies:questions", study), {"questions": [foreign.pk, mine.pk], "field": "X"}
    )
    assert r.status_code == 400 and "<strong>questions</strong>" in r.content.decode()
    r = client.post(url("studies:questions", study), {"questions": [mine.pk], "field": " "})
    assert r.status_code == 400 and "write a field or a subdomain" in r.content.decode()
    assert not Question.objects.exclude(field="").exists()


@pytest.mark.django_db
def test_uploaded_fields_update_the_existing_questions(client, admin_user):
    """Before: uploading the questions by their text created new questions."""
    client.force_login(admin_user)
    study = _report_study(client)
    q1, q2 = Question.objects.filter(study=study).order_by("pk")
    csv_text = (
        "id,text,field,subdomain\n"
        f"{q1.external_id},,Computer Science,Systems\n"
        f',"  {q2.text.upper()} ",Computer Science,\n'
    )
    r = client.post(
        url("studies:question_fields", study),
        {"file": upload("fields.csv", csv_text.encode())},
    )
    assert r.status_code == 302, r.content.decode()[:3000]
    assert Question.objects.filter(study=study).count() == 2
    q1.refresh_from_db()
    q2.refresh_from_db()
    assert (q1.field, q1.subdomain, q2.field) == ("Computer Science", "Systems", "Computer Science")
    # JSON lines too; an unknown id or text is refused by row and field, nothing changes
    bad = (
        json.dumps({"id": q1.external_id, "field": "Biology"})
        + "\n"
        + json.dumps({"text": "Never asked?", "field": "Biology"})
        + "\n"
        + json.dumps({"id": "nope", "field": "Biology"})
        + "\n"
        + json.dumps({"id": q2.external_id})
        + "\n"
    )
    r = client.post(
        url("studies:question_fields", study), {"file": upload("fields.jsonl", bad.encode())}
    )
    body = r.content.decode()
    assert r.status_code == 400
    assert "record 2" in body and "text" in body and "no question of this study" in body
    assert "record 3" in body and "&#x27;nope&#x27;" in body
    assert "record 4" in body and "give a field and/or a subdomain" in body
    q1.refresh_from_db()
    assert q1.field == "Computer Science"
    # the download lists what the upload reads
    csv_out = client.get(url("studies:questions_csv", study)).content.decode()
    assert csv_out.splitlines()[0] == "id,text,field,subdomain"
    assert f"{q1.external_id}," in csv_out


@pytest.mark.django_db
def test_expertise_preview_says_why_a_question_got_nobody(client, admin_user):
    """Before: 0 assignments and no reason."""
    client.force_login(admin_user)
    study = _report_study(client, tasks=["pairwise"])
    make_annotators(2, fields=["Biology"])
    data = {**PLAN, "task": "pairwise", "strategy": "expertise", "action": "preview"}
    r = client.post(url("studies:plan", study), data)
    body = r.content.decode()
    q1, q2 = Question.objects.filter(study=study).order_by("pk")
    assert r.status_code == 200 and "Preview: 0 new assignments" in body
    assert body.count("has no field: set its field under “Questions”") >= 2
    assert q1.text[:40] in body  # listed by text, not only an opaque id
    Question.objects.filter(pk=q1.pk).update(field="Chemistry")
    Question.objects.filter(pk=q2.pk).update(field="Biology")
    r = client.post(url("studies:plan", study), {**data, "overlap": 3})
    short = {u.key: u for u in r.context["preview"].short}
    assert short[q1.external_id].reason == (
        "no annotator in the pool has the expertise “Chemistry”"
    )
    assert (
        short[q2.external_id].reason == "only 2 annotator(s) with the expertise “Biology”; 3 wanted"
    )
    # a question that cannot reach K gets nobody: its two experts are not spent on it
    assert short[q2.external_id].got == 0
    r = client.post(url("studies:plan", study), {**data, "strategy": "random", "overlap": 3})
    assert "only 2 annotator(s) in the pool; 3 wanted" in r.content.decode()


# --- 3. the preview warns before committing work that cannot be done -------------------------


@pytest.mark.django_db
def test_preview_leaves_out_work_that_cannot_be_done(client, admin_user):
    client.force_login(admin_user)
    study = _report_study(
        client, systems=("sys-a",), tasks=["pairwise", "claim_check", "rubric_comparison"]
    )
    make_annotators(2)
    lonely = Question.objects.create(study=study, external_id="lonely", text="No report at all?")
    Rubric.objects.create(question=lonely, kind="one").items.create(text="An item", position=1)
    cases = {
        "pairwise": "has 1 report; pairwise preference compares at least 2",
        "claim_check": "its reports have no claims to check",
        "rubric_comparison": "a rubric comparison needs at least 2 rubrics",
    }
    for task, reason in cases.items():
        data = {**PLAN, "task": task}
        r = client.post(url("studies:plan", study), {**data, "action": "preview"})
        body = r.content.decode()
        assert r.status_code == 200 and reason in body, task
        assert 'id="left-out"' in body and "this task could not be done" in body
        assert "Commit this plan" not in body
        r = client.post(url("studies:plan", study), {**data, "action": "commit"})
        assert r.status_code == 400 and "assigns nothing" in r.content.decode()
    r = client.post(url("studies:plan", study), {**PLAN, "task": "pairwise", "action": "preview"})
    assert "No report at all?" in r.content.decode()
    assert "has no report (pairwise preference needs 2)" in r.content.decode()
    assert not Assignment.objects.exists()


# --- 5. task names, and "in progress" only after a save -------------------------------------


@pytest.mark.django_db
def test_pages_show_task_names_and_open_is_not_in_progress(client, admin_user, annotator_user):
    from tests.builders.content import make_assignment, make_question
    from tests.builders.content import make_study as make_task_study

    study = make_task_study()
    assignment = make_assignment(annotator_user.annotator, make_question(study), "medal_ranking")
    me = client
    me.force_login(annotator_user)
    home = me.get(reverse("home")).content.decode()
    assert "Medal ranking" in home and "medal_ranking</td>" not in home
    # opening the task is not starting it
    assert me.get(reverse("annotate:task", args=[assignment.pk])).status_code == 200
    assignment.refresh_from_db()
    assert assignment.status == "not_started" and assignment.started_at is not None
    by_pk = dict(assignment.study.questions.values_list("reports__pk", "reports__public_id"))
    data = {"version": "0", "reasoning": "first words"}
    data[f"medal-{by_pk[assignment.report_order[0]]}"] = "gold"
    assert me.post(reverse("annotate:autosave", args=[assignment.pk]), data).status_code == 200
    assignment.refresh_from_db()
    assert assignment.status == "in_progress"
    client.force_login(admin_user)
    for page in (
        url("studies:progress", study),
        url("studies:annotator_progress", study, annotator_id=annotator_user.annotator.pk),
    ):
        body = client.get(page).content.decode()
        assert "Medal ranking" in body and ">medal_ranking<" not in body


# --- 6. audit history ------------------------------------------------------------------------


@pytest.mark.django_db
def test_history_annotator_sees_own_versions_admin_sees_all(
    client, admin_user, annotator_user, other_annotator_user, researcher_user, settings
):
    settings.CONCORD_AUTOSAVE_COALESCE_SECONDS = 0  # every save its own version, to list them
    from django.test import Client

    from tests.builders.content import make_assignment, make_question
    from tests.builders.content import make_study as make_task_study

    study = make_task_study()
    question = make_question(study)
    mine = make_assignment(annotator_user.annotator, question, "medal_ranking")
    theirs = make_assignment(other_annotator_user.annotator, question, "medal_ranking")
    public = dict(study.questions.values_list("reports__pk", "reports__public_id"))

    def save(user, a, version, words):
        c = Client()
        c.force_login(user)
        c.get(reverse("annotate:task", args=[a.pk]))
        data = {"version": str(version), "reasoning": words}
        data[f"medal-{public[a.report_order[0]]}"] = "gold"
        assert c.post(reverse("annotate:autosave", args=[a.pk]), data).status_code == 200

    save(annotator_user, mine, 0, "my first words")
    save(annotator_user, mine, 1, "my second words")
    save(other_annotator_user, theirs, 0, "their secret words")
    client.force_login(annotator_user)
    r = client.get(reverse("my_history"))
    body = r.content.decode()
    assert r.status_code == 200 and "my first words" in body and "my second words" in body
    assert "their secret words" not in body
    assert "Report A" in body and public[mine.report_order[0]] not in body  # labels, not ids
    assert "Medal ranking" in body
    one = client.get(reverse("my_history") + f"?assignment={mine.pk}")
    assert one.status_code == 200 and one.context["page"].paginator.count == 2
    # another annotator's assignment does not exist for this one
    assert client.get(reverse("my_history") + f"?assignment={theirs.pk}").status_code == 404
    assert client.get(reverse("my_history") + "?assignment=x").status_code == 404
    home = client.get(reverse("home")).content.decode()
    assert f"{reverse('my_history')}?assignment={mine.pk}" in home
    # the admin: every version, who saved it and when
    target = url("studies:history", study)
    client.force_login(researcher_user)
    assert client.get(target).status_code == 403
    client.force_login(admin_user)
    r = client.get(target)
    body = r.content.decode()
    assert r.status_code == 200 and r.context["page"].paginator.count == 3
    for words in ("my first words", "my second words", "their secret words"):
        assert words in body
    assert annotator_user.annotator.pseudonym in body
    assert other_annotator_user.annotator.pseudonym in body
    only = client.get(target + f"?annotator={other_annotator_user.annotator.pk}")
    assert only.context["page"].paginator.count == 1


@pytest.mark.django_db
@pytest.mark.parametrize("n", [3, 70])
def test_history_pages_use_a_constant_number_of_queries(
    client, admin_user, annotator_user, django_assert_max_num_queries, n
):
    from annotation.models import DraftVersion
    from tests.builders.content import make_assignment, make_question
    from tests.builders.content import make_study as make_task_study

    study = make_task_study()
    me = annotator_user.annotator
    for i in range(n):
        a = make_assignment(me, make_question(study), "medal_ranking")
        DraftVersion.objects.create(assignment=a, version=1, author=me, payload={"i": i})
    client.force_login(annotator_user)
    with django_assert_max_num_queries(8):
        assert client.get(reverse("my_history")).status_code == 200
    client.force_login(admin_user)
    with django_assert_max_num_queries(9):
        assert client.get(url("studies:history", study)).status_code == 200


@pytest.mark.django_db
def test_imports_by_command_or_api_enable_the_supported_tasks_too(admin_user):
    from rest_framework.test import APIClient

    from annotation.importers import run

    rep = run("reports", DATA / "scholarqa_reports.json", study="By name", format="scholarqa",
              system="alpha")  # fmt: skip
    assert "metric_wise" in Study.objects.get(name="By name").tasks
    assert "metric_wise" in rep.enabled_tasks and "tasks enabled" in rep.summary()
    study = Study.objects.create(name="By API")
    api = APIClient()
    api.force_authenticate(admin_user)
    r = api.post(
        f"/api/studies/{study.pk}/import/",
        {"kind": "reports", "format": "scholarqa", "options": '{"system": "alpha"}',
         "file": upload("scholarqa_reports.json")},
        format="multipart",
    )  # fmt: skip
    assert r.status_code == 200, r.json()
    assert "metric_wise" in r.json()["enabled_tasks"]
    study.refresh_from_db()
    assert "metric_wise" in study.tasks
