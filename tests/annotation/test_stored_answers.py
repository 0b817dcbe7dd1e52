"""The stored-answer readers of rubric comparison, claim check and the six DeepScholar label
tasks (``TaskSpec.stored_answers``): work submitted without the task page (the human
judgments import) opens with its stored labels selected, read-only and Submitted, and a
submit without reopening is refused, the stored judgment unchanged. Before, these pages
opened submitted with an empty form: the import's labels were not shown.

Each reader is the inverse of its task's save step (``persist``): a page's answers submitted
through the real submit, its draft then cleared, reopen as the same form state and are
adopted as the same payload (``test_round_trip``). Question authoring has no reader: its
assignment is submitted only by its page (registry's docstring)."""

import pytest
from django.urls import reverse

from annotation.annotate.page import TaskPage
from annotation.annotate.registry import SPECS
from annotation.importers import run
from annotation.models import (
    Assignment,
    ClaimCheck,
    DeepScholarLabel,
    Draft,
    DraftVersion,
    Report,
    ReportClaim,
    Rubric,
    RubricAssessment,
    RubricItem,
    Study,
)
from tests.annotation.test_annotate_deepscholar import KEYS as LABEL_TASKS
from tests.annotation.test_annotate_deepscholar import deepscholar_question
from tests.annotation.test_imported_submitted import (
    as_file,
    assert_submitted_page,
    chosen,
    open_page,
    submit,
)
from tests.builders.content import make_assignment, make_claims, make_study

pytestmark = pytest.mark.django_db
T = Study.Task


@pytest.fixture
def me(annotator_user, client):
    client.force_login(annotator_user)
    return annotator_user.annotator


def page_of(assignment) -> TaskPage:
    return TaskPage(assignment=assignment, annotator=assignment.annotator)


def question_with_everything(study):
    """One question every task here can run on: two reports (with claims, one citing two
    sources), nuggets, an exemplar with references, and three rubrics."""
    question = deepscholar_question(study)
    question.external_id = "q1"
    question.save(update_fields=["external_id"])
    first, _ = make_claims(question)
    first.citation_keys = ["[1]", "[2]"]
    first.save(update_fields=["citation_keys"])
    for kind in ("expert", "survey", "parametric"):
        rubric = Rubric.objects.create(question=question, kind=kind)
        RubricItem.objects.create(rubric=rubric, position=0, text=f"{kind} item", weight=1)
    return question


def system_of(report_pk) -> str:
    return Report.objects.get(pk=report_pk).system.name if report_pk else ""


# --- imported judgments open selected ------------------------------------------------------


def test_imported_rubric_comparison_shows_selected_and_refuses_a_submit(me, client):
    study = make_study()
    question = question_with_everything(study)
    assignment = make_assignment(me, question, T.RUBRIC_COMPARISON)
    given = {
        "expert": ("gold", "Concrete.", "", "Long."),
        "survey": ("silver", "Broad.", "Recent work.", "Vague."),
        "parametric": ("bronze", "Short.", "", "Misses half."),
    }
    run("judgments", as_file(*(
        {"kind": "rubric_assessment", "annotator": me.pseudonym, "setting": "assigned",
         "question": "q1", "rubric": kind, "medal": medal, "strengths": strengths,
         "missing": missing, "weaknesses": weaknesses, "reasoning": "The expert one is best."}
        for kind, (medal, strengths, missing, weaknesses) in given.items()
    )), study=study)  # fmt: skip
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED

    html = open_page(client, assignment)
    assert_submitted_page(html)
    page = chosen(html)
    for rubric in page_of(assignment).rubrics:
        medal, strengths, missing, weaknesses = given[rubric.kind]
        pid = rubric.public_id
        assert page.values[f"rmedal.{pid}"] == medal
        assert page.texts[f"rnote.{pid}.strengths"] == strengths
        assert page.texts[f"rnote.{pid}.missing"] == missing
        assert page.texts[f"rnote.{pid}.weaknesses"] == weaknesses
    assert page.texts["reasoning"] == "The expert one is best."

    posted = {f"rmedal.{r.public_id}": "gold" for r in page_of(assignment).rubrics}
    assert submit(client, assignment, posted) == 409
    stored = dict(RubricAssessment.objects.values_list("rubric__kind", "medal"))
    assert stored == {kind: medal for kind, (medal, *_) in given.items()}


def test_imported_claim_check_shows_selected_and_refuses_a_submit(me, client):
    study = make_study()
    question = question_with_everything(study)
    assignment = make_assignment(me, question, T.CLAIM_CHECK)
    run("judgments", as_file(
        {"kind": "claim_check", "annotator": me.pseudonym, "setting": "assigned",
         "question": "q1", "system": "SecretSystem0", "claim": 0, "skipped": False,
         "fully_supported": False, "citation_supports": {"[1]": True, "[2]": False}},
        {"kind": "claim_check", "annotator": me.pseudonym, "setting": "assigned",
         "question": "q1", "system": "SecretSystem1", "claim": 0, "skipped": True,
         "fully_supported": None, "citation_supports": {}},
    ), study=study)  # fmt: skip
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED

    html = open_page(client, assignment)
    assert_submitted_page(html)
    answered = ReportClaim.objects.get(report__system__name="SecretSystem0").public_id
    skipped = ReportClaim.objects.get(report__system__name="SecretSystem1").public_id
    page = chosen(html)
    assert page.values[f"cc.{answered}.fully"] == "no"
    assert page.values[f"cc.{answered}.cite.0"] == "yes"  # [1]
    assert page.values[f"cc.{answered}.cite.1"] == "no"  # [2]
    assert f"cc.{answered}.skip" not in page.values
    assert f"cc.{skipped}.skip" in page.values
    assert not any(name.startswith(f"cc.{skipped}.") and name != f"cc.{skipped}.skip"
                   for name in page.values)  # fmt: skip

    posted = {f"cc.{answered}.fully": "yes", f"cc.{answered}.cite.0": "yes",
              f"cc.{answered}.cite.1": "yes", f"cc.{skipped}.skip": "on"}  # fmt: skip
    assert submit(client, assignment, posted) == 409
    check = ClaimCheck.objects.get(claim__public_id=answered)
    assert (check.fully_supported, check.citation_supports) == (False, {"[1]": True, "[2]": False})


def label_records(me, assignment) -> tuple[list[dict], dict[str, str]]:
    """One import record for each unit of a DeepScholar label task (its labels cycling
    through the task's label set), and the label each unit's form field should show."""
    spec = SPECS[assignment.task]
    records, shown = [], {}
    for n, unit in enumerate(spec.units(page_of(assignment))):
        label = spec.options[(n + 1) % len(spec.options)][0]
        records.append({
            "kind": "deepscholar_label", "annotator": me.pseudonym, "setting": "assigned",
            "question": "q1", "label_kind": spec.kind, "system": system_of(unit.report_pk),
            "unit": unit.key, "label": label,
        })  # fmt: skip
        shown[f"lab.{unit.id}"] = label
    return records, shown


@pytest.mark.parametrize("key", LABEL_TASKS)
def test_imported_deepscholar_labels_show_selected_and_refuse_a_submit(me, client, key):
    study = make_study()
    question = question_with_everything(study)
    assignment = make_assignment(me, question, key)
    records, shown = label_records(me, assignment)
    assert len(records) >= 2
    run("judgments", as_file(*records), study=study)
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED

    html = open_page(client, assignment)
    assert_submitted_page(html)
    page = chosen(html)
    assert {k: v for k, v in page.values.items() if k.startswith("lab.")} == shown

    before = dict(DeepScholarLabel.objects.values_list("unit", "label"))
    other = SPECS[key].options[0][0]
    assert submit(client, assignment, dict.fromkeys(shown, other)) == 409
    assert dict(DeepScholarLabel.objects.values_list("unit", "label")) == before


def test_imported_labels_of_one_kind_leave_the_other_label_tasks_open(me, client):
    """A DeepScholar label record answers the task its kind names: importing nugget
    importance labels submits that assignment, not the annotator's nugget support one on
    the same question (which has no labels: it would open submitted and empty)."""
    study = make_study()
    question = question_with_everything(study)
    importance = make_assignment(me, question, T.NUGGET_IMPORTANCE)
    support = make_assignment(me, question, T.NUGGET_SUPPORT)
    records, _ = label_records(me, importance)
    run("judgments", as_file(*records), study=study)
    importance.refresh_from_db()
    support.refresh_from_db()
    assert importance.status == Assignment.Status.SUBMITTED
    assert support.status == Assignment.Status.NOT_STARTED
    html = open_page(client, support)
    assert '<fieldset class="panel-fields" disabled>' not in html


# --- each reader is the inverse of its save step -------------------------------------------


def answers(assignment) -> dict[str, str]:
    """A complete, valid answer of the task, as the page posts it (every text box, blank
    or not; a radio or checkbox only when chosen)."""
    page = page_of(assignment)
    task = assignment.task
    if task == T.RUBRIC_COMPARISON:
        data = {"reasoning": "The expert rubric is the most concrete."}
        for rubric, medal in zip(page.rubrics, ("silver", "gold", "silver"), strict=True):
            pid = rubric.public_id
            data |= {f"rmedal.{pid}": medal, f"rnote.{pid}.strengths": f"Clear ({rubric.kind}).",
                     f"rnote.{pid}.missing": "", f"rnote.{pid}.weaknesses": "Too long."}  # fmt: skip
        data[f"rnote.{page.rubrics[0].public_id}.missing"] = "Recent surveys."
        return data
    if task == T.CLAIM_CHECK:
        answered, skipped = ReportClaim.objects.order_by("report__system__name")
        return {f"cc.{answered.public_id}.fully": "no", f"cc.{answered.public_id}.cite.0": "yes",
                f"cc.{answered.public_id}.cite.1": "no",
                f"cc.{skipped.public_id}.skip": "on"}  # fmt: skip
    spec = SPECS[task]
    return {
        f"lab.{u.id}": spec.options[(n + 1) % len(spec.options)][0]
        for n, u in enumerate(spec.units(page))
    }


@pytest.mark.parametrize("task", [T.RUBRIC_COMPARISON, T.CLAIM_CHECK, *LABEL_TASKS])
def test_round_trip(me, client, task):
    """Submitted on the page, then its draft cleared (as the import leaves it): the page
    reads the same answers back from the stored rows, with the same form state, and adopts
    them as the same submitted payload."""
    study = make_study()
    question = question_with_everything(study)
    assignment = make_assignment(me, question, task)
    response = client.post(
        reverse("annotate:submit", args=[assignment.pk]),
        {"version": "0", **answers(assignment)}, HTTP_HX_REQUEST="true",
    )  # fmt: skip
    assert response.status_code == 204, response.content.decode()
    submitted = DraftVersion.objects.get(assignment=assignment, kind=DraftVersion.Kind.SUBMIT)
    on_page = chosen(open_page(client, assignment))

    DraftVersion.objects.filter(assignment=assignment).delete()
    Draft.objects.filter(assignment=assignment).delete()
    assert SPECS[task].stored_answers(page_of(assignment)) == submitted.payload

    html = open_page(client, assignment)
    assert_submitted_page(html)
    read_back = chosen(html)
    assert (read_back.values, read_back.texts) == (on_page.values, on_page.texts)
    (adopted,) = DraftVersion.objects.filter(assignment=assignment)
    assert (adopted.kind, adopted.payload) == (DraftVersion.Kind.SUBMIT, submitted.payload)


@pytest.mark.parametrize("task", [T.RUBRIC_COMPARISON, T.CLAIM_CHECK, *LABEL_TASKS])
def test_only_the_assignments_own_judgments_are_read(me, other_annotator_user, client, task):
    """Another annotator's submitted answers of the same question, and the annotator's own
    in another setting, are not this assignment's: it reads nothing and opens editable."""
    study = make_study()
    question = question_with_everything(study)
    mine = make_assignment(me, question, task)
    for assignment, user in (
        (make_assignment(other_annotator_user.annotator, question, task), other_annotator_user),
        (make_assignment(me, question, task, setting="expertise_matched"), me.user),
    ):
        client.force_login(user)
        response = client.post(
            reverse("annotate:submit", args=[assignment.pk]),
            {"version": "0", **answers(assignment)}, HTTP_HX_REQUEST="true",
        )  # fmt: skip
        assert response.status_code == 204, response.content.decode()
    assert SPECS[task].stored_answers(page_of(mine)) is None
    client.force_login(me.user)
    html = open_page(client, mine)
    assert "Not saved yet" in html and not chosen(html).values


@pytest.mark.parametrize("task", [T.RUBRIC_COMPARISON, T.CLAIM_CHECK, *LABEL_TASKS])
def test_a_reader_asks_one_query_whatever_the_units(me, task, django_assert_num_queries):
    """The reader reads the units the page builds for its cards anyway (its rubrics, claims,
    DeepScholar units) and asks the database once for the stored rows, however many units:
    a never-saved page costs one query more than before, whatever its size."""
    from annotation.models import Nugget

    study = make_study()
    question = question_with_everything(study)
    make_claims(question)  # more claims; the rubrics and references stay as they are
    Nugget.objects.bulk_create(
        Nugget(question=question, key=f"m{i}", position=10 + i, text=f"More {i}") for i in range(5)
    )
    assignment = make_assignment(me, question, task)
    spec, page = SPECS[task], page_of(assignment)
    spec.context(spec.initial(page), page)  # the page's units, as its cards build them
    with django_assert_num_queries(1):
        assert spec.stored_answers(page) is None
