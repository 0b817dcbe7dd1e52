"""Plans from the database: preview, commit, reassignment, invitations, progress, commands."""

from __future__ import annotations

import io
from collections import Counter
from itertools import combinations

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.core.management import CommandError, call_command

from annotation import roles
from annotation.models import (
    Annotator,
    Assignment,
    ExpertiseRating,
    Question,
    System,
)
from studio.studyadmin import StudyAdminError
from studio.studyadmin.invitations import invite, parse_fields
from studio.studyadmin.planning import PlanSpec, commit, preview, reassign
from studio.studyadmin.progress import progress_csv, study_progress
from tests.builders.planning import make_annotators, make_study


@pytest.mark.django_db
def test_preview_writes_nothing_and_commit_writes_the_preview():
    study = make_study()
    make_annotators(6)
    spec = PlanSpec(task="medal_ranking", strategy="random", overlap=2, seed=3)
    shown = preview(study, spec)
    assert not Assignment.objects.exists()
    assert shown.summary.assignments == 48 and shown.summary.overlap == {2: 24}
    done = commit(study, spec, fingerprint=shown.fingerprint)
    assert done.fingerprint == shown.fingerprint
    rows = list(Assignment.objects.filter(study=study))
    assert len(rows) == 48
    # every annotator of a question judges the same 3 reports, in their own order
    by_q = {}
    for a in rows:
        assert len(a.report_order) == 3
        by_q.setdefault(a.question_id, set()).add(frozenset(a.report_order))
    assert all(len(v) == 1 for v in by_q.values())
    # positions continue each annotator's queue
    for ann in Annotator.objects.all():
        positions = sorted(ann.assignments.values_list("position", flat=True))
        assert positions == list(range(1, len(positions) + 1))
    # pairs of systems balanced: 24 questions, C(6,3)=20 subsets -> spread <= C(4,1)
    pairs = Counter(p for a in rows for p in combinations(sorted(a.report_order), 2))
    assert pairs


@pytest.mark.django_db
def test_second_plan_never_repeats_a_comparison_and_counts_existing_overlap():
    study = make_study(questions=10)
    make_annotators(4)
    commit(study, PlanSpec(task="medal_ranking", overlap=1, seed=1))
    before = {
        (a, q): tuple(sorted(o))
        for a, q, o in Assignment.objects.values_list("annotator_id", "question_id", "report_order")
    }
    more = commit(study, PlanSpec(task="medal_ranking", overlap=2, seed=2))
    assert more.summary.assignments == 10
    rows = Assignment.objects.values_list("annotator_id", "question_id", "report_order")
    pairs = [(a, q) for a, q, _ in rows]
    assert len(pairs) == len(set(pairs)) == 20
    sets = {}
    for _, q, o in rows:
        sets.setdefault(q, set()).add(tuple(sorted(o)))
    assert all(len(s) == 1 for s in sets.values())  # the second annotator got the same reports
    for a, q, o in rows:
        if (a, q) in before:
            assert before[(a, q)] == tuple(sorted(o))  # the first plan is untouched


@pytest.mark.django_db
def test_commit_refuses_a_stale_preview():
    study = make_study(questions=6)
    make_annotators(3)
    spec = PlanSpec(task="medal_ranking", overlap=1)
    shown = preview(study, spec)
    make_annotators(2, prefix="Late")
    with pytest.raises(StudyAdminError, match="preview it again") as exc:
        commit(study, spec, fingerprint=shown.fingerprint)
    assert exc.value.field == "fingerprint"
    assert not Assignment.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "spec, field",
    [
        (PlanSpec(task="medal_ranking", capacity=-1), "capacity"),
        (PlanSpec(task="medal_ranking", overlap=0), "overlap"),
        (PlanSpec(task="nope"), "task"),
        (PlanSpec(task="metric_wise"), "task"),  # not enabled in this study
        (PlanSpec(task="medal_ranking", strategy="magic"), "strategy"),
        (PlanSpec(task="medal_ranking", annotators=(99999,)), "annotators"),
    ],
)
def test_bad_specs_name_the_field(spec, field):
    study = make_study(questions=3)
    make_annotators(2)
    with pytest.raises(StudyAdminError) as exc:
        commit(study, spec)
    assert exc.value.field == field
    assert not Assignment.objects.exists()


@pytest.mark.django_db
def test_expertise_triage_and_authored_from_the_database():
    study = make_study(questions=16, tasks=["metric_wise"])
    anns = make_annotators(8)
    p = commit(study, PlanSpec(task="metric_wise", strategy="expertise", overlap=1))
    assert all(
        a.question.field in a.annotator.expertise_fields
        for a in Assignment.objects.select_related("question", "annotator")
    )
    assert p.summary.assignments == 16
    Assignment.objects.all().delete()
    questions = list(Question.objects.filter(study=study).order_by("pk"))
    for ann in anns[:2]:
        for i, q in enumerate(questions):
            level = ["within", "near", "outside"][i % 3]
            ExpertiseRating.objects.create(annotator=ann, question=q, level=level)
    t = commit(
        study,
        PlanSpec(
            task="metric_wise", strategy="triage", per_expert=5, annotators=(anns[0].pk, anns[1].pk)
        ),
    )
    rows = list(Assignment.objects.all())
    assert len(rows) == 10 and {a.setting for a in rows} == {"near_expert"}
    assert t.summary.per_reason == {"within": 6, "near": 4}
    levels = {(r.annotator_id, r.question_id): r.level for r in ExpertiseRating.objects.all()}
    assert all(levels[(a.annotator_id, a.question_id)] != "outside" for a in rows)
    Assignment.objects.all().delete()
    Question.objects.filter(pk__in=[q.pk for q in questions[:5]]).update(authored_by=anns[3])
    commit(study, PlanSpec(task="metric_wise", strategy="authored"))
    assert set(Assignment.objects.values_list("annotator_id", "setting")) == {
        (anns[3].pk, "deep_expert")
    }
    assert Assignment.objects.count() == 5


@pytest.mark.django_db
def test_systems_per_question_and_compared_systems():
    study = make_study(questions=12)
    make_annotators(3)
    keep = list(System.objects.filter(study=study).order_by("name")[:4])
    spec = PlanSpec(task="pairwise", systems=tuple(s.pk for s in keep), overlap=1)
    shown = preview(study, spec)
    assert all(len(it.reports) == 2 for it in shown.items)  # the pairwise default
    assert set(shown.summary.per_system) == {s.name for s in keep}
    assert shown.summary.pair_spread == 0  # 12 questions = 2 cycles of the 6 pairs


@pytest.mark.django_db
def test_reassign_moves_only_unfinished_work():
    study = make_study(questions=8)
    anns = make_annotators(4)
    commit(study, PlanSpec(task="medal_ranking", overlap=2, seed=4))
    gone = anns[0]
    mine = list(Assignment.objects.filter(annotator=gone).order_by("pk"))
    mine[0].status = Assignment.Status.SUBMITTED
    mine[0].save()
    submitted = (mine[0].pk, mine[0].question_id)
    done = reassign(study, gone, seed=1)
    assert done.moved == len(mine) - 1 and done.kept == 1
    left = list(Assignment.objects.filter(annotator=gone).exclude(status="withdrawn"))
    assert [(a.pk, a.question_id) for a in left] == [submitted]
    # the moved ones are withdrawn, never deleted (their drafts stay: issue 12)
    assert Assignment.objects.filter(annotator=gone, status="withdrawn").count() == done.moved
    rows = Assignment.objects.exclude(status="withdrawn").values_list("annotator_id", "question_id")
    assert len(rows) == len(set(rows)) == 16
    assert Counter(q for _, q in rows) == {
        q: 2 for q in Question.objects.values_list("pk", flat=True)
    }


@pytest.mark.django_db
def test_reassign_all_or_nothing():
    study = make_study(questions=4)
    anns = make_annotators(2)
    commit(study, PlanSpec(task="medal_ranking", overlap=2))
    with pytest.raises(StudyAdminError, match="nobody left") as exc:
        reassign(study, anns[0])
    assert exc.value.field == "annotators"
    assert Assignment.objects.filter(annotator=anns[0]).count() == 4
    stranger = make_annotators(1, prefix="Other")[0]
    with pytest.raises(StudyAdminError, match="no work"):
        reassign(study, stranger)


@pytest.mark.django_db
def test_invitations_are_pseudonymous_with_a_working_link():
    made = invite([["Biology"], parse_fields("Physics; Computer Science, Physics")], degree="PhD")
    assert [i.fields for i in made] == [("Biology",), ("Physics", "Computer Science")]
    for i in made:
        ann = Annotator.objects.get(pk=i.annotator_id)
        user = ann.user
        assert user.username == ann.pseudonym == i.pseudonym
        assert not user.has_usable_password() and user.email == "" and user.first_name == ""
        assert roles.is_annotator(user)
        uid, token = i.link.rstrip("/").split("/")[-2:]
        assert default_token_generator.check_token(user, token)
    assert len({i.pseudonym for i in made}) == 2
    with pytest.raises(StudyAdminError):
        invite([])


@pytest.mark.django_db
def test_set_password_link_sets_the_password(client):
    inv = invite([["Biology"]])[0]
    page = client.get(inv.link, follow=True)
    assert page.status_code == 200
    post = client.post(
        page.redirect_chain[-1][0],
        {"new_password1": "a-long pass phrase 42", "new_password2": "a-long pass phrase 42"},
    )
    assert post.status_code == 302
    assert client.login(username=inv.pseudonym, password="a-long pass phrase 42")


@pytest.mark.django_db
def test_progress_counts_and_csv():
    study = make_study(questions=5)
    anns = make_annotators(3)
    commit(study, PlanSpec(task="medal_ranking", overlap=2))
    rows = list(Assignment.objects.filter(annotator=anns[0]).order_by("pk"))
    for a, secs in zip(rows, [30, 90, 60], strict=False):
        a.status, a.seconds_on_task = Assignment.Status.SUBMITTED, secs
        a.save()
    p = study_progress(study)
    assert p.total == 10 and p.submitted == 3
    first = next(x for x in p.annotators if x.annotator_id == anns[0].pk)
    assert first.median_seconds == 60 and first.submitted == 3
    assert p.double_total == 5 and p.pending_double == 5
    text = progress_csv(p)
    assert text.splitlines()[0].startswith("annotator,state,not_started")
    assert f"{anns[0].pseudonym}," in text


@pytest.mark.django_db
def test_commands(tmp_path):
    study = make_study(questions=6)
    out = io.StringIO()
    call_command("invite_annotators", count=3, fields="Field 0, Field 1", stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and all("/accounts/reset/" in line for line in lines)
    out = io.StringIO()
    call_command("assign", study=study.name, task="medal_ranking", overlap=2, stdout=out)
    assert "would create 12 assignments" in out.getvalue()
    assert not Assignment.objects.exists()
    call_command(
        "assign",
        study=study.name,
        task="medal_ranking",
        overlap=2,
        commit=True,
        stdout=io.StringIO(),
    )
    assert Assignment.objects.count() == 12
    out = io.StringIO()
    call_command("study_progress", study=study.name, stdout=out)
    assert len(out.getvalue().splitlines()) == 4
    with pytest.raises(CommandError, match="capacity"):
        call_command("assign", study=study.name, task="medal_ranking", capacity=-1)
    with pytest.raises(CommandError, match="annotator"):
        call_command("assign", study=study.name, task="medal_ranking", annotator=["Nobody"])


@pytest.mark.django_db
def test_progress_counts_no_double_of_adjudication():
    """Relevance adjudication is never double annotation: each annotator adjudicates their
    own labels against the judge's, so two may adjudicate one question (the tester's study
    showed "1 of 8 pending double annotation" while only adjudication was open)."""
    study = make_study(questions=2)
    one, two = make_annotators(2)
    q1, q2 = study.questions.order_by("pk")[:2]
    T = study.Task
    for position, (annotator, question, task) in enumerate([
        (one, q1, T.RELEVANCE_ADJUDICATION), (two, q1, T.RELEVANCE_ADJUDICATION),
        (one, q2, T.METRIC_WISE),
    ]):  # fmt: skip
        Assignment.objects.create(
            study=study, annotator=annotator, question=question, task=task, position=position
        )
    p = study_progress(study)
    assert p.total == 3
    assert (p.double_total, p.pending_double) == (0, 0)
    Assignment.objects.create(study=study, annotator=two, question=q2, task=T.METRIC_WISE,
                              position=9)  # fmt: skip
    p = study_progress(study)
    assert (p.double_total, p.pending_double) == (1, 1)


# --- the tester's ResearcherBench expertise plan ----------------------------------------------

#: The three annotators the tester invited, with their expertise fields.
TESTER_EXPERTS = [
    ["Model Architecture", "Reinforcement Learning", "Reasoning and Inference"],
    ["AI Policy", "AI Strategy", "AI Ethics"],
    ["Multimodal AI", "Computer Vision", "Model Architecture"],
]


def _tester_study(scholarqa_dir):
    import json

    released = scholarqa_dir.parent / "researcherbench" / "questions.json"
    subjects = [q["Subject"] for q in json.loads(released.read_text(encoding="utf-8"))]
    study = make_study("ResearcherBench", questions=len(subjects), fields=subjects)
    anns = []
    for i, fields in enumerate(TESTER_EXPERTS):
        anns.append(make_annotators(1, fields=[""], prefix=f"Expert{i}")[0])
        anns[-1].expertise_fields = fields
        anns[-1].save()
    return study, anns, subjects


@pytest.mark.django_db
def test_the_testers_expertise_plan_completes_what_it_plans(scholarqa_dir):
    """Overlap 2, capacity 4: the old plan gave 10 questions 1 annotator and 1 question 2,
    and none to 4 Model Architecture questions with two qualified experts. Every planned
    question now has exactly 2; every other one is listed short with why."""
    study, anns, subjects = _tester_study(scholarqa_dir)
    spec = PlanSpec(task="medal_ranking", strategy="expertise", overlap=2, capacity=4)
    shown = preview(study, spec)
    assert shown.summary.overlap == {0: 61, 2: 4}
    assert shown.summary.assignments == 8
    per_q = Counter(a.question for a in shown.plan.assignments)
    assert set(per_q.values()) == {2}
    keys = {q.pk: q.field for q in Question.objects.filter(study=study)}
    assert {keys[q] for q in per_q} == {"Model Architecture"}
    why = {u.key: u.reason for u in shown.short}
    assert len(why) == 61 and all(u.got == 0 and u.wanted == 2 for u in shown.short)
    field_of = {q.external_id: q.field for q in Question.objects.filter(study=study)}
    for key, reason in why.items():
        if field_of[key] == "Model Architecture":
            assert "capacity (4)" in reason
        elif field_of[key] == "AI Policy":
            assert reason == "only 1 annotator(s) with the expertise “AI Policy”; 2 wanted"
        elif field_of[key] == "Scaling Laws":
            assert reason == "no annotator in the pool has the expertise “Scaling Laws”"


@pytest.mark.django_db
def test_expertise_assignments_are_their_own_setting(client, admin_user, scholarqa_dir):
    """The expertise strategy writes ``expertise_matched`` (not ``assigned``, random
    assignment): the annotator's progress page says so, and reports accept the setting."""
    from annotation.models import Setting
    from metaeval.reports import ReportOptions

    study, anns, _ = _tester_study(scholarqa_dir)
    spec = PlanSpec(task="medal_ranking", strategy="expertise", overlap=2, capacity=4)
    assert preview(study, spec).setting == Setting.EXPERTISE_MATCHED
    commit(study, spec)
    assert set(Assignment.objects.values_list("setting", flat=True)) == {"expertise_matched"}
    commit(study, PlanSpec(task="medal_ranking", strategy="random", overlap=1, capacity=2))
    assert Counter(Assignment.objects.values_list("setting", flat=True)) == {
        "expertise_matched": 8, "assigned": 6,
    }  # fmt: skip
    client.force_login(admin_user)
    page = client.get(f"/studies/{study.pk}/progress/{anns[0].pk}/").content.decode()
    assert "Expertise-matched (field)" in page
    assert (
        page.count("Random assignment")
        == Assignment.objects.filter(annotator=anns[0], setting="assigned").count()
    )
    assert ReportOptions(settings=("expertise_matched",)).settings == ("expertise_matched",)


@pytest.mark.django_db
def test_progress_csv_writes_every_median_alike():
    """The tester's download had "5.0" (an even count's median) beside "5" (an odd count's)
    in one column: one decimal, always."""
    import csv

    study = make_study(questions=6)
    anns = make_annotators(2)
    commit(study, PlanSpec(task="medal_ranking", overlap=2))
    for ann, times in zip(anns, ([4, 6], [4, 5, 9]), strict=True):
        rows = list(Assignment.objects.filter(annotator=ann).order_by("pk"))
        for a, secs in zip(rows, times, strict=False):
            a.status, a.seconds_on_task = Assignment.Status.SUBMITTED, secs
            a.save()
    got = {r["annotator"]: r["median_seconds_on_task"]
           for r in csv.DictReader(io.StringIO(progress_csv(study_progress(study))))}  # fmt: skip
    assert got == {anns[0].pseudonym: "5.0", anns[1].pseudonym: "5.0"}
