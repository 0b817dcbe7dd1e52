"""What a judge scored keeps what the judge saw (tester's finding on the released
ResearcherBench data): a rubric re-import giving question 4's item 3 weight 5 was accepted
without a word, changed every system's Coverage S_c (no longer the mean of the judge's own
recall), a reworded item was written into the judge-results export as a point the judge
never saw (and the judge's own file no longer imported), a judge-scored report could be
rewritten, and the dry run only counted.

Now (annotation.units) a rubric item with judge verdicts keeps its text, weight, type and
position, and a report with judge scores or human labels its text and structure, through
every path: the import command, the study page's import, the API's import, the Django
admin and the API's PATCH. The refusal names the record and the field, says why and that
the judge results must be deleted first, and writes nothing. ResearcherBench weights
outside 1-3 are refused, and a dry run lists which records and fields would change."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers import ImportFailed, run
from annotation.importers.registry import FORMATS
from annotation.models import Paragraph, Report, RubricItem, Study
from judges.models import Judge, JudgeCoverage, JudgeScore
from tests.builders.released import shared

pytestmark = pytest.mark.django_db

JUDGE = "o3-mini"
SYSTEM = "OpenAI"


def released(*parts: str):
    return json.loads(shared("researcherbench", *parts).read_text("utf-8"))


def record_of(records: list[dict], qid: int) -> int:
    """The 1-based record number of question ``qid`` in a released file."""
    return next(n for n, r in enumerate(records, start=1) if r["id"] == qid)


def rubric_with(qid: int = 4, index: int = 2, **changes) -> bytes:
    """The released rubric.json with question ``qid``'s item ``index`` changed."""
    records = released("rubric.json")
    records[record_of(records, qid) - 1]["rubric"][index].update(changes)
    return json.dumps(records, ensure_ascii=False).encode()


def judge_results(qid: int = 4) -> bytes:
    """A judge's ResearcherBench verdicts on OpenAI's report of ``qid``, on the released
    rubric's points and weights (every other criterion covered)."""
    rubric = released("rubric.json")[record_of(released("rubric.json"), qid) - 1]["rubric"]
    results = [{"point": i["point"], "weight": i["weight"], "covered": n % 2 == 0,
                "justification": "."} for n, i in enumerate(rubric)]  # fmt: skip
    record = {"id": qid, "model": SYSTEM, "evaluator": JUDGE,
              "result": {"coverage_results": results}}  # fmt: skip
    return json.dumps([record]).encode()


def import_rubric(study, rubric, **kw):
    return run("questions", shared("researcherbench", "questions.json"), study=study,
               format="researcherbench", rubric=rubric, **kw)  # fmt: skip


@pytest.fixture
def rb():
    """The released questions, rubric and OpenAI's responses; the judge scored question 4."""
    import_rubric("RB", shared("researcherbench", "rubric.json"))
    run("reports", shared("researcherbench", "user_data", f"{SYSTEM}.json"), study="RB",
        format="researcherbench", system=SYSTEM)  # fmt: skip
    run("judge_scores", judge_results(), study="RB", format="researcherbench", judge=JUDGE)
    return Study.objects.get(name="RB")


def item(position: int = 3, qid: str = "4") -> RubricItem:
    return RubricItem.objects.get(rubric__question__external_id=qid, position=position,
                                  rubric__question__study__name="RB")  # fmt: skip


def stored() -> dict:
    """What the judge's results and their figures rest on."""
    return {
        "items": list(RubricItem.objects.order_by("pk").values_list("pk", "text", "weight",
                                                                    "item_type", "position")),
        "paragraphs": list(Paragraph.objects.order_by("pk").values_list("pk", "text")),
        "scores": list(JudgeScore.objects.order_by("pk").values_list("pk", "value")),
        "verdicts": JudgeCoverage.objects.count(),
    }  # fmt: skip


def problem_of(failed) -> tuple:
    [problem] = failed.value.problems
    return problem


# --- The weight range ------------------------------------------------------------------------


def test_a_weight_outside_researcherbench_range_is_refused_naming_record_and_item(db):
    records = released("rubric.json")
    with pytest.raises(ImportFailed) as failed:
        import_rubric("W", rubric_with(weight=5))
    problem = problem_of(failed)
    assert (problem.record, problem.field) == (record_of(records, 4), "rubric[2].weight")
    assert "from 1 to 3" in problem.message and "5" in problem.message
    assert not Study.objects.filter(name="W", questions__isnull=False).exists()


# --- Rubric re-imports: command, page, API ---------------------------------------------------


def test_the_command_refuses_a_weight_change_of_a_judged_item_and_writes_nothing(rb, tmp_path):
    before = stored()
    path = tmp_path / "rubric.json"
    path.write_bytes(rubric_with(weight=3))
    with pytest.raises(CommandError) as failed:
        call_command("import_questions", str(shared("researcherbench", "questions.json")),
                     study="RB", format="researcherbench", rubric=str(path))  # fmt: skip
    text = str(failed.value)
    assert f"record {record_of(released('rubric.json'), 4)}, field 'rubric'" in text
    assert "question '4'" in text and "weight of rubric item at position 3" in text
    assert f"judge coverage verdicts ({JUDGE})" in text
    assert "delete the judge results first" in text
    assert stored() == before


def test_a_reworded_judged_item_is_refused_and_the_judge_file_still_imports(rb):
    before = stored()
    with pytest.raises(ImportFailed) as failed:
        import_rubric(rb, rubric_with(point="Reworded point"))
    assert "would change the text of rubric item at position 3" in problem_of(failed).message
    assert stored() == before
    again = run("judge_scores", judge_results(), study=rb, format="researcherbench", judge=JUDGE)
    assert "JudgeCoverage" not in again.created
    [text] = FORMATS[("judge_scores", "researcherbench")].dump(rb, judge=JUDGE).values()
    assert "Reworded point" not in text


def test_an_unjudged_item_still_changes_and_a_judged_one_after_its_results_are_deleted(rb):
    rep = import_rubric(rb, rubric_with(qid=5, index=0, weight=3))
    assert item(1, "5").weight == 3 and rep.updated["RubricItem"] == 1
    Judge.objects.filter(name=JUDGE).delete()
    import_rubric(rb, rubric_with(weight=3))
    assert item().weight == 3


def test_the_study_page_import_refuses_it_and_shows_why(rb, client, admin_user):
    before = stored()
    client.force_login(admin_user)
    upload = SimpleUploadedFile("rubric.json", rubric_with(weight=1))
    questions = SimpleUploadedFile(
        "questions.json", shared("researcherbench", "questions.json").read_bytes()
    )
    r = client.post(reverse("studies:import", args=[rb.pk]),
                    {"kind": "questions", "format": "researcherbench", "file": questions,
                     "rubric": upload})  # fmt: skip
    assert r.status_code == 400
    page = r.content.decode()
    assert "weight of rubric item at position 3" in page and "delete the judge results" in page
    assert stored() == before


def test_the_api_import_refuses_it_naming_record_and_field(rb, admin_user):
    before = stored()
    client = APIClient()
    client.force_login(admin_user)
    r = client.post(
        reverse("study-import", args=[rb.pk]),
        {"kind": "questions", "format": "researcherbench",
         "file": SimpleUploadedFile("questions.json",
                                    shared("researcherbench", "questions.json").read_bytes()),
         "rubric": SimpleUploadedFile("rubric.json", rubric_with(point="Reworded point"))},
        format="multipart",
    )  # fmt: skip
    assert r.status_code == 400, r.content
    [error] = r.json()["errors"]
    assert error["record"] == record_of(released("rubric.json"), 4) and error["field"] == "rubric"
    assert "position 3" in error["message"] and JUDGE in error["message"]
    assert stored() == before


def rubric_resized(qid: int = 4, *, add: bool = True) -> bytes:
    """The released rubric.json with question ``qid``'s rubric one item longer (``add``)
    or one item shorter (its last dropped)."""
    records = released("rubric.json")
    items = records[record_of(records, qid) - 1]["rubric"]
    if add:
        items.append({"point": "A criterion no judge scored.", "weight": 2})
    else:
        items.pop()
    return json.dumps(records, ensure_ascii=False).encode()


def test_adding_an_item_to_a_judged_rubric_is_refused_naming_record_and_field(rb):
    """The judge's recall of question 4 is Σw·c/Σw over its rubric: a re-import that only
    adds an item was accepted (``created RubricItem: 1``) and the stored recall no longer
    matched the rubric."""
    before = stored()
    n = len(released("rubric.json")[record_of(released("rubric.json"), 4) - 1]["rubric"])
    with pytest.raises(ImportFailed) as failed:
        import_rubric(rb, rubric_resized())
    problem = problem_of(failed)
    assert (problem.record, problem.field) == (record_of(released("rubric.json"), 4), "rubric")
    assert f"would add items at position {n + 1}" in problem.message
    assert f"judge coverage verdicts ({JUDGE})" in problem.message
    assert "delete the judge results first" in problem.message
    assert stored() == before


def test_removing_an_unscored_item_of_a_judged_rubric_is_refused(rb):
    """An item with no verdict of its own still counts in the judge's Σw: dropping it from a
    rubric the judge scored changes what the stored recall is over."""
    last = RubricItem.objects.filter(rubric__question__external_id="4").order_by("position").last()
    JudgeCoverage.objects.filter(item=last).delete()
    before = stored()
    with pytest.raises(ImportFailed) as failed:
        import_rubric(rb, rubric_resized(add=False))
    assert f"would remove items at position {last.position}" in problem_of(failed).message
    assert stored() == before


def test_the_api_patch_refuses_an_added_item_and_it_is_accepted_once_results_are_gone(
    rb, admin_user
):
    before = stored()
    client = APIClient()
    client.force_login(admin_user)
    rubric = item().rubric
    url = reverse("rubric-detail", args=[rubric.public_id])
    items = items_payload(rubric)
    extra = {**items[-1], "position": len(items) + 1, "text": "A criterion no judge scored."}
    r = client.patch(url, {"items": [*items, extra]}, format="json")
    assert r.status_code == 409, r.content
    message = r.json()["items"]
    assert f"rubric {rubric.public_id} would add items at position {len(items) + 1}" in message
    assert JUDGE in message and "delete the judge results first" in message
    assert stored() == before
    Judge.objects.filter(name=JUDGE).delete()
    r = client.patch(url, {"items": [*items, extra]}, format="json")
    assert r.status_code == 200, r.content
    assert rubric.items.count() == len(items) + 1


# --- The dry run lists what would change -----------------------------------------------------


def test_a_dry_run_lists_each_record_and_field_that_would_change(rb, client, admin_user):
    rep = import_rubric(rb, rubric_with(qid=5, index=1, weight=3), dry_run=True)
    n = record_of(released("rubric.json"), 5)
    changed = {(c.table, c.id, c.record): c.fields for c in rep.changes}
    key = ("RubricItem", "question '5', rubric 'researcherbench', item at position 2", n)
    assert changed[key] == ("weight",)
    assert f"record {n}: RubricItem question '5', rubric 'researcherbench', item at position 2: " \
        "weight" in rep.summary()  # fmt: skip
    assert item(2, "5").weight != 3  # a dry run
    # the API's answer has them, as the summary the study page shows
    api = APIClient()
    api.force_login(admin_user)
    r = api.post(
        reverse("study-import", args=[rb.pk]),
        {"kind": "questions", "format": "researcherbench", "dry_run": "true",
         "file": SimpleUploadedFile("questions.json",
                                    shared("researcherbench", "questions.json").read_bytes()),
         "rubric": SimpleUploadedFile("rubric.json", rubric_with(qid=5, index=1, weight=3))},
        format="multipart",
    )  # fmt: skip
    assert r.status_code == 200, r.content
    [entry] = [c for c in r.json()["changes"] if c["table"] == "RubricItem"]
    assert (entry["record"], entry["fields"]) == (n, ["weight"])
    assert "would change" in r.json()["summary"]


def test_a_dry_run_of_a_reports_reimport_lists_the_reports_that_would_change(rb, tmp_path):
    responses = released("user_data", f"{SYSTEM}.json")
    n = record_of(responses, 5)
    responses[n - 1]["response"] += "\n\nOne more paragraph."
    rep = run("reports", json.dumps(responses).encode(), study=rb, format="researcherbench",
              system=SYSTEM, dry_run=True)  # fmt: skip
    [change] = [c for c in rep.changes if c.table == "Report"]
    assert change.record == n and change.id == f"question '5', system '{SYSTEM}'"
    assert "sections" in change.fields


# --- Reports ---------------------------------------------------------------------------------


def test_a_reports_reimport_rewriting_a_judged_report_is_refused(rb):
    before = stored()
    responses = released("user_data", f"{SYSTEM}.json")
    n = record_of(responses, 4)
    responses[n - 1]["response"] = responses[n - 1]["response"].replace("the", "a", 1)
    with pytest.raises(ImportFailed) as failed:
        run("reports", json.dumps(responses).encode(), study=rb, format="researcherbench",
            system=SYSTEM)  # fmt: skip
    problem = problem_of(failed)
    assert (problem.record, problem.field) == (n, "sections")
    assert f"judge scores ({JUDGE})" in problem.message
    assert "delete the judge results first" in problem.message
    assert stored() == before


def items_payload(rubric) -> list[dict]:
    """A rubric's items as the API's PATCH takes them, in position order."""
    return [{"position": i.position, "text": i.text, "item_type": i.item_type,
             "weight": i.weight, "cited_paper": i.cited_paper}
            for i in rubric.items.order_by("position")]  # fmt: skip


# --- The API's PATCH and the Django admin ----------------------------------------------------


def test_the_api_patch_refuses_a_judged_item_weight_and_a_judged_report_text(rb, admin_user):
    before = stored()
    client = APIClient()
    client.force_login(admin_user)
    rubric = item().rubric
    url = reverse("rubric-detail", args=[rubric.public_id])
    items = items_payload(rubric)
    items[2]["weight"] = 3.0 if items[2]["weight"] != 3 else 1.0
    r = client.patch(url, {"items": items}, format="json")
    assert r.status_code == 400, r.content
    [message] = r.json()["items"][2]["weight"]
    assert "position 3: its weight may not change" in message and JUDGE in message
    report = Report.objects.get(question__external_id="4", system__name=SYSTEM)
    url = reverse("report-detail", args=[report.public_id])
    body = client.get(url).json()
    section = next(s for s in body["sections"] if s["paragraphs"])
    section["paragraphs"][0]["text"] = "Rewritten."
    section["paragraphs"][0]["anchors"] = []
    r = client.patch(url, {"sections": body["sections"]}, format="json")
    assert r.status_code == 409 and JUDGE in str(r.json()["sections"])
    assert stored() == before


@pytest.fixture
def admin_site(rb, admin_user):
    from django.test import Client

    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    client = Client()
    client.force_login(admin_user)
    return client


def test_the_admin_refuses_a_judged_item_weight_and_type(admin_site):
    before = stored()
    judged = item()
    data = {"rubric": judged.rubric_id, "position": judged.position, "text": judged.text,
            "item_type": "nugget" if judged.item_type != "nugget" else "information",
            "weight": judged.weight + 1, "cited_paper": judged.cited_paper}  # fmt: skip
    if data["item_type"] not in RubricItem.Type.values:
        data["item_type"] = next(t for t in RubricItem.Type.values if t != judged.item_type)
    r = admin_site.post(reverse("admin:annotation_rubricitem_change", args=[judged.pk]), data)
    assert r.status_code == 200
    errors = r.context["adminform"].form.errors
    assert "its weight may not change" in errors["weight"][0] and JUDGE in errors["weight"][0]
    assert "its item_type may not change" in errors["item_type"][0]
    assert stored() == before


def test_the_admin_refuses_rewording_a_judged_report_paragraph(admin_site):
    before = stored()
    report = Report.objects.get(question__external_id="4", system__name=SYSTEM)
    paragraph = Paragraph.objects.filter(report=report).order_by("number").first()
    data = {"report": paragraph.report_id, "section": paragraph.section_id,
            "number": paragraph.number, "text": "Rewritten.",
            "anchors": json.dumps(paragraph.anchors or [])}  # fmt: skip
    r = admin_site.post(reverse("admin:annotation_paragraph_change", args=[paragraph.pk]), data)
    assert r.status_code == 200
    [message] = r.context["adminform"].form.errors["text"]
    assert f"report {report.public_id}" in message and f"judge scores ({JUDGE})" in message
    assert stored() == before


def test_the_admin_refuses_adding_an_item_to_a_judged_rubric(admin_site):
    before = stored()
    judged = item()
    data = {"rubric": judged.rubric_id, "position": 99, "text": "A criterion no judge scored.",
            "item_type": judged.item_type, "weight": 2, "cited_paper": ""}  # fmt: skip
    r = admin_site.post(reverse("admin:annotation_rubricitem_add"), data)
    assert r.status_code == 200
    [message] = r.context["adminform"].form.errors["rubric"]
    assert "would add items at position 99" in message and JUDGE in message
    assert stored() == before
