"""Judgments on paragraphs and rubric items survive re-imports and PATCHes (issue 12).

A report re-import and a rubric PATCH used to delete and recreate the paragraphs and items
that relevance judgments, rubric-item quality and rubric coverage point at, taking the
judgments with them. Now the units are updated in place by their natural key, a change
dropping a judged unit is refused whole, and deleting what they hang off is a 409.
"""

import json

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers import ImportFailed, question_key, run
from annotation.models import (
    ClaimCheck,
    Paragraph,
    ParagraphRelevance,
    Question,
    Report,
    ReportClaim,
    Rubric,
    RubricCoverage,
    RubricItem,
    RubricItemQuality,
    Study,
)
from tests.builders.users import make_user

from .test_import_common import DATA, table_counts, write


def reports_data():
    return json.loads((DATA / "scholarqa_reports.json").read_text())


def questions_lines():
    return [json.loads(x) for x in (DATA / "researchqa_questions.jsonl").read_text().splitlines()]


@pytest.fixture
def judged(db):
    """Two imported reports and two imported rubrics, with an expert's judgments on
    paragraph 3 of the first report and on items 2 and 3 of the first rubric."""
    run("reports", DATA / "scholarqa_reports.json", study="S", format="scholarqa", system="sqa")
    run("questions", DATA / "researchqa_questions.jsonl", study="S", format="researchqa")
    study = Study.objects.get(name="S")
    expert = make_user("units_expert", "annotator", annotator=True).annotator
    report = Report.objects.get(question__external_id=question_key(reports_data()[0]["question"]))
    paragraph = Paragraph.objects.get(report=report, number=3)
    relevance = ParagraphRelevance.objects.create(
        study=study, annotator=expert, question=report.question, paragraph=paragraph, label="U"
    )
    rubric = Rubric.objects.get(question__external_id="rqa-001")
    items = {i.position: i for i in rubric.items.all()}
    quality = RubricItemQuality.objects.create(
        study=study, annotator=expert, question=rubric.question, item=items[2],
        emphasis="core", necessity="necessary", confidence=4,
    )  # fmt: skip
    coverage = RubricCoverage.objects.create(
        study=study, annotator=expert, question=report.question, report=report,
        item=items[3], label=3,
    )  # fmt: skip
    return {
        "report": report,
        "paragraph": paragraph,
        "rubric": rubric,
        "items": items,
        "judgments": [relevance, quality, coverage],
    }


def judgments_intact(judged) -> bool:
    return (
        ParagraphRelevance.objects.filter(pk=judged["judgments"][0].pk, label="U").exists()
        and RubricItemQuality.objects.filter(pk=judged["judgments"][1].pk).exists()
        and RubricCoverage.objects.filter(pk=judged["judgments"][2].pk, label=3).exists()
    )


def snapshot() -> dict:
    return {
        "counts": table_counts(),
        "paragraphs": list(Paragraph.objects.values_list("pk", "number", "text").order_by("pk")),
        "items": list(
            RubricItem.objects.values_list("pk", "rubric", "position", "text").order_by("pk")
        ),
        "rubrics": list(Rubric.objects.values_list("pk", "question", "kind").order_by("pk")),
    }


# --- Re-import ---------------------------------------------------------------------------------


def test_reimport_changing_a_labelled_report_text_is_refused_and_changes_nothing(judged, tmp_path):
    """The first report has an expert's relevance judgment and rubric coverage: they were
    given to its text, which a re-import may no longer reword (annotation.units)."""
    before = snapshot()
    data = reports_data()
    data[0]["response"]["sections"][1]["text"] = "Quality grows with experts (Fedus et al., 2022)."
    with pytest.raises(ImportFailed) as failed:
        run("reports", write(tmp_path, "r.json", data), study="S", format="scholarqa",
            system="sqa")  # fmt: skip
    [problem] = failed.value.problems
    assert (problem.record, problem.field) == (1, "sections")
    assert "would change its sections" in problem.message
    assert "relevance judgments" in problem.message and "rubric coverage" in problem.message
    assert snapshot() == before and judgments_intact(judged)


def test_reimport_with_changed_text_of_an_unlabelled_report_updates_it(judged, tmp_path):
    data = reports_data()
    data[1]["response"]["sections"][0]["text"] += "\n\nA new paragraph."
    rep = run("reports", write(tmp_path, "r.json", data), study="S", format="scholarqa",
              system="sqa")  # fmt: skip
    assert rep.updated["Report"] == 1
    [change] = [c for c in rep.changes if c.table == "Report"]
    assert change.record == 2 and "sections" in change.fields
    assert judgments_intact(judged)


def test_reimport_dropping_a_judged_paragraph_is_refused_and_changes_nothing(judged, tmp_path):
    before = snapshot()
    data = reports_data()
    del data[0]["response"]["sections"][1]  # paragraph 3 goes
    data[1]["response"]["sections"][0]["text"] += "\n\nA new paragraph."  # would be written
    with pytest.raises(ImportFailed) as failed:
        run("reports", write(tmp_path, "r.json", data), study="S", format="scholarqa",
            system="sqa")  # fmt: skip
    [problem] = failed.value.problems
    assert (problem.file.endswith("r.json"), problem.record, problem.field) == (
        True,
        1,
        "sections",
    )
    assert "paragraph 3" in problem.message and "relevance judgments" in problem.message
    assert snapshot() == before and judgments_intact(judged)


def test_rubric_reimport_rewording_a_judged_item_is_refused_and_changes_nothing(judged, tmp_path):
    """A file's rubric is matched to the stored one by position: a reworded judged item is
    most likely another criterion (a duplicated id), whose labels the expert never gave."""
    before = snapshot()
    lines = questions_lines()
    lines[0]["rubric"][1]["rubric_item"] = "Contrasts post-hoc with in-generation attribution"
    with pytest.raises(ImportFailed) as failed:
        run("questions", write(tmp_path, "q.jsonl", "\n".join(map(json.dumps, lines))),
            study="S", format="researchqa")  # fmt: skip
    [problem] = failed.value.problems
    assert (problem.record, problem.field) == (1, "rubric")
    assert "question 'rqa-001'" in problem.message and "position 2" in problem.message
    assert "rubric item quality" in problem.message
    assert snapshot() == before and judgments_intact(judged)


def test_rubric_reimport_rewording_an_unjudged_item_updates_it(judged, tmp_path):
    lines = questions_lines()
    lines[0]["rubric"][0]["rubric_item"] = "Reworded, nobody judged it"
    rep = run("questions", write(tmp_path, "q.jsonl", "\n".join(map(json.dumps, lines))),
              study="S", format="researchqa")  # fmt: skip
    assert rep.updated["Rubric"] == 1
    assert RubricItem.objects.get(pk=judged["items"][1].pk).text == "Reworded, nobody judged it"
    assert judgments_intact(judged)


def test_rubric_reimport_dropping_a_judged_item_is_refused_and_changes_nothing(judged, tmp_path):
    before = snapshot()
    lines = questions_lines()
    lines[0]["rubric"].pop()  # item 3 (rubric coverage) goes
    lines[0]["rubric"][0]["rubric_item"] = "changed, but must not be written"
    with pytest.raises(ImportFailed) as failed:
        run("questions", write(tmp_path, "q.jsonl", "\n".join(map(json.dumps, lines))),
            study="S", format="researchqa")  # fmt: skip
    [problem] = failed.value.problems
    assert (problem.record, problem.field) == (1, "rubric")
    assert "position 3" in problem.message and "rubric coverage" in problem.message
    assert snapshot() == before and judgments_intact(judged)


def test_reimport_dropping_a_paragraph_with_checked_claims_is_refused(judged, tmp_path):
    report = Report.objects.get(question__external_id=question_key(reports_data()[1]["question"]))
    paragraph = Paragraph.objects.get(report=report, number=2)
    claim = ReportClaim.objects.create(report=report, paragraph=paragraph, text="A year.")
    ClaimCheck.objects.create(
        study=judged["report"].question.study, annotator=judged["judgments"][0].annotator,
        question=report.question, claim=claim, fully_supported=False,
    )  # fmt: skip
    before = snapshot()
    data = reports_data()
    data[1]["response"]["sections"][0]["text"] = data[1]["response"]["sections"][0]["text"].split(
        "\n\n"
    )[0]
    with pytest.raises(ImportFailed) as failed:
        run("reports", write(tmp_path, "r.json", data), study="S", format="scholarqa",
            system="sqa")  # fmt: skip
    [problem] = failed.value.problems
    assert problem.record == 2 and "paragraph 2 (it has claim checks)" in problem.message
    assert snapshot() == before
    assert ReportClaim.objects.get(pk=claim.pk).paragraph_id == paragraph.pk


# --- API ---------------------------------------------------------------------------------------


@pytest.fixture
def admin_api(judged):
    client = APIClient()
    client.force_login(make_user("units_admin", "admin"))
    return client


def rubric_items(judged, drop=None, text=None) -> list[dict]:
    out = [
        {"position": i.position, "text": i.text, "item_type": i.item_type, "weight": i.weight,
         "cited_paper": i.cited_paper}
        for i in judged["items"].values()
        if i.position != drop
    ]  # fmt: skip
    if text:
        out[1]["text"] = text
    return out


def test_rubric_patch_rewording_a_judged_item_is_a_400_on_its_text_and_changes_nothing(
    admin_api, judged
):
    """Item 2 has an expert's rubric-item quality: reworded, its labels would grade a text
    the expert never read (the import refuses it too). Nothing of the PATCH is written."""
    before = snapshot()
    url = reverse("rubric-detail", args=[judged["rubric"].public_id])
    items = rubric_items(judged, text="Reworded")
    items[0]["text"] = "Reworded too, nobody judged it"
    r = admin_api.patch(url, {"items": items}, format="json")  # item 1's rewording not kept
    assert r.status_code == 400, r.content
    errors = r.json()["items"]
    assert errors[0] == {} and errors[2] == {}
    [message] = errors[1]["text"]
    assert f"rubric {judged['rubric'].public_id}, item at position 2" in message
    assert "rubric item quality" in message
    assert snapshot() == before and judgments_intact(judged)
    assert Rubric.objects.get(pk=judged["rubric"].pk).kind == "researchqa"


def test_rubric_patch_rewording_an_unjudged_item_updates_it(admin_api, judged):
    url = reverse("rubric-detail", args=[judged["rubric"].public_id])
    items = rubric_items(judged)
    items[0]["text"] = "Reworded, nobody judged it"
    items[2]["cited_paper"] = "Fedus 2022"  # a judged item's unkept fields may change
    r = admin_api.patch(url, {"items": items}, format="json")
    assert r.status_code == 200, r.content
    assert RubricItem.objects.get(pk=judged["items"][1].pk).text == "Reworded, nobody judged it"
    assert RubricItem.objects.get(pk=judged["items"][3].pk).cited_paper == "Fedus 2022"
    assert judgments_intact(judged)


def test_rubric_patch_dropping_a_judged_item_is_a_409_and_changes_nothing(admin_api, judged):
    before = snapshot()
    url = reverse("rubric-detail", args=[judged["rubric"].public_id])
    r = admin_api.patch(url, {"items": rubric_items(judged, drop=2, text="x")}, format="json")
    assert r.status_code == 409
    message = r.json()["items"]
    message = message[0] if isinstance(message, list) else message
    assert judged["rubric"].public_id in message and "position 2" in message
    assert snapshot() == before and judgments_intact(judged)
    assert Rubric.objects.get(pk=judged["rubric"].pk).kind == "researchqa"


@pytest.fixture
def elsewhere(judged):
    """A question of another study, and an unjudged rubric of the judged rubric's study."""
    other = Study.objects.create(name="Other study")
    question = Question.objects.create(study=other, external_id="other-1", text="Other?")
    unjudged = Rubric.objects.exclude(pk=judged["rubric"].pk).first()
    assert unjudged is not None
    return {"question": question, "rubric": unjudged}


@pytest.mark.parametrize("field", ["question", "kind"])
def test_rubric_patch_moving_a_judged_rubric_is_a_400_and_changes_nothing(
    admin_api, judged, elsewhere, field
):
    """Its items' labels name the rubric: moved to another question or kind, they would
    follow it to a rubric no expert judged, and the original question would have none."""
    before = snapshot()
    rubric = judged["rubric"]
    value = {"question": elsewhere["question"].pk, "kind": "expert"}[field]
    r = admin_api.patch(reverse("rubric-detail", args=[rubric.public_id]), {field: value},
                        format="json")  # fmt: skip
    assert r.status_code == 400, r.content
    [message] = r.json()[field]
    assert message.startswith(f"rubric {rubric.public_id}: its {field} may not change")
    assert "rubric item quality" in message and "rubric coverage" in message
    assert snapshot() == before and judgments_intact(judged)
    assert Rubric.objects.filter(question=rubric.question_id, kind="researchqa").exists()


def test_rubric_patch_moving_an_unjudged_rubric_saves_it(admin_api, elsewhere):
    rubric = elsewhere["rubric"]
    url = reverse("rubric-detail", args=[rubric.public_id])
    r = admin_api.patch(url, {"question": elsewhere["question"].pk, "kind": "expert"},
                        format="json")  # fmt: skip
    assert r.status_code == 200, r.content
    moved = Rubric.objects.get(pk=rubric.pk)
    assert (moved.question_id, moved.kind) == (elsewhere["question"].pk, "expert")


def test_rubric_patch_keeping_a_judged_rubric_question_and_kind_saves(admin_api, judged):
    """Giving the stored question and kind again (a PUT's whole body) is no change."""
    rubric = judged["rubric"]
    url = reverse("rubric-detail", args=[rubric.public_id])
    body = {"question": rubric.question_id, "kind": rubric.kind, "items": rubric_items(judged)}
    assert admin_api.put(url, body, format="json").status_code == 200
    assert judgments_intact(judged)


def test_report_patch_dropping_a_judged_paragraph_is_a_409_and_keeps_it(admin_api, judged):
    before = snapshot()
    url = reverse("report-detail", args=[judged["report"].public_id])
    body = admin_api.get(url).json()
    r = admin_api.patch(url, {"sections": body["sections"][:1]}, format="json")
    assert r.status_code == 409
    assert "paragraph 3" in str(r.json()["sections"])
    assert snapshot() == before and judgments_intact(judged)
    # nor may a labelled report's paragraph be reworded (annotation.units)
    body["sections"][1]["paragraphs"][0]["text"] = "Reworded paragraph."
    body["sections"][1]["paragraphs"][0]["anchors"] = []
    r = admin_api.patch(url, {"sections": body["sections"]}, format="json")
    assert r.status_code == 409
    assert "would change its sections" in str(r.json()["sections"])
    assert snapshot() == before and judgments_intact(judged)


def test_deleting_what_judged_units_hang_off_is_a_409_and_changes_nothing(admin_api, judged):
    before = snapshot()
    for name, key in (
        ("report-detail", judged["report"].public_id),
        ("rubric-detail", judged["rubric"].public_id),
        ("question-detail", judged["rubric"].question_id),
    ):
        r = admin_api.delete(reverse(name, args=[key]))
        assert r.status_code == 409, name
        assert "expert work" in r.json()["detail"]
    assert snapshot() == before and judgments_intact(judged)
    assert Question.objects.filter(pk=judged["rubric"].question_id).exists()


# --- Django admin ------------------------------------------------------------------------------


@pytest.fixture
def admin_site(judged, admin_user):
    from django.test import Client

    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    client = Client()
    client.force_login(admin_user)
    return client


def item_form(item, **changed) -> dict:
    values = {"rubric": item.rubric_id, "position": item.position, "text": item.text,
              "item_type": item.item_type, "weight": item.weight,
              "cited_paper": item.cited_paper}  # fmt: skip
    return {**values, **changed}


def test_admin_rewording_a_judged_item_is_refused_on_its_text(admin_site, judged):
    before = snapshot()
    item = judged["items"][3]  # rubric coverage
    url = reverse("admin:annotation_rubricitem_change", args=[item.pk])
    r = admin_site.post(url, item_form(item, text="Reworded", weight=3))
    assert r.status_code == 200  # the form again, with its error
    assert r.context["adminform"].form.errors["text"] == [
        f"rubric {judged['rubric'].public_id}, item at position 3: its text may not change, "
        "experts judged it (it has rubric coverage); add the new wording as an item of its "
        "own (another position)"
    ]
    assert snapshot() == before and judgments_intact(judged)
    assert RubricItem.objects.get(pk=item.pk).weight == item.weight


def test_admin_rewording_an_unjudged_item_saves_it(admin_site, judged):
    item = judged["items"][1]
    url = reverse("admin:annotation_rubricitem_change", args=[item.pk])
    r = admin_site.post(url, item_form(item, text="Reworded, nobody judged it"))
    assert r.status_code == 302, r.content[:500]
    assert RubricItem.objects.get(pk=item.pk).text == "Reworded, nobody judged it"


def test_admin_rubric_page_refuses_rewording_a_judged_item_inline(admin_site, judged):
    """The rubric's page edits its items inline: the same rule, nothing of the page saved."""
    before = snapshot()
    rubric = judged["rubric"]
    items = sorted(judged["items"].values(), key=lambda i: i.position)
    data = {"question": rubric.question_id, "kind": "renamed", "public_id": rubric.public_id,
            "items-TOTAL_FORMS": len(items), "items-INITIAL_FORMS": len(items),
            "items-MIN_NUM_FORMS": 0, "items-MAX_NUM_FORMS": 1000}  # fmt: skip
    for n, item in enumerate(items):
        for key, value in item_form(item).items():
            data[f"items-{n}-{key}"] = value
        data[f"items-{n}-id"] = item.pk
    data["items-0-text"] = "Reworded, nobody judged it"
    data["items-1-text"] = "Reworded, but judged"
    r = admin_site.post(reverse("admin:annotation_rubric_change", args=[rubric.pk]), data)
    assert r.status_code == 200  # the page again, with the error on item 2's text
    [formset] = r.context["inline_admin_formsets"]
    assert formset.formset.errors[1]["text"][0].startswith(
        f"rubric {rubric.public_id}, item at position 2: its text may not change"
    )
    assert not formset.formset.errors[0]
    assert snapshot() == before and judgments_intact(judged)
    assert Rubric.objects.get(pk=rubric.pk).kind == "researchqa"


def test_admin_moving_a_judged_item_to_another_rubric_is_refused_on_its_rubric(
    admin_site, judged, elsewhere
):
    """Text unchanged: the item would still carry its labels into a rubric (and question)
    no expert judged it in."""
    before = snapshot()
    item = judged["items"][2]  # rubric item quality
    url = reverse("admin:annotation_rubricitem_change", args=[item.pk])
    r = admin_site.post(url, item_form(item, rubric=elsewhere["rubric"].pk))
    assert r.status_code == 200  # the form again, with its error
    assert r.context["adminform"].form.errors["rubric"] == [
        f"rubric {judged['rubric'].public_id}, item at position 2: its rubric may not change, "
        "experts judged it (it has rubric item quality) and the labels would follow it; add "
        "it to the other rubric as an item of its own"
    ]
    assert snapshot() == before and judgments_intact(judged)


def test_admin_moving_a_judged_item_to_another_position_is_refused(admin_site, judged):
    """Items are matched by position (a PATCH giving a judged item another position is a
    409, it drops the judged one): the admin refuses it too."""
    before = snapshot()
    item = judged["items"][3]
    url = reverse("admin:annotation_rubricitem_change", args=[item.pk])
    r = admin_site.post(url, item_form(item, position=99))
    assert r.status_code == 200
    [message] = r.context["adminform"].form.errors["position"]
    assert message.startswith(
        f"rubric {judged['rubric'].public_id}, item at position 3: its position may not change"
    )
    assert snapshot() == before and judgments_intact(judged)


def test_admin_moving_an_unjudged_item_saves_it(admin_site, judged, elsewhere):
    item = judged["items"][1]
    url = reverse("admin:annotation_rubricitem_change", args=[item.pk])
    r = admin_site.post(url, item_form(item, rubric=elsewhere["rubric"].pk, position=99))
    assert r.status_code == 302, r.content[:500]
    moved = RubricItem.objects.get(pk=item.pk)
    assert (moved.rubric_id, moved.position) == (elsewhere["rubric"].pk, 99)


def rubric_page(rubric, items, **changed) -> dict:
    data = {"question": rubric.question_id, "kind": rubric.kind, "public_id": rubric.public_id,
            "items-TOTAL_FORMS": len(items), "items-INITIAL_FORMS": len(items),
            "items-MIN_NUM_FORMS": 0, "items-MAX_NUM_FORMS": 1000, **changed}  # fmt: skip
    for n, item in enumerate(items):
        for key, value in item_form(item).items():
            data[f"items-{n}-{key}"] = value
        data[f"items-{n}-id"] = item.pk
    return data


@pytest.mark.parametrize("field", ["question", "kind"])
def test_admin_rubric_page_refuses_moving_a_judged_rubric(admin_site, judged, elsewhere, field):
    before = snapshot()
    rubric = judged["rubric"]
    items = sorted(judged["items"].values(), key=lambda i: i.position)
    value = {"question": elsewhere["question"].pk, "kind": "expert"}[field]
    data = rubric_page(rubric, items, **{field: value})
    r = admin_site.post(reverse("admin:annotation_rubric_change", args=[rubric.pk]), data)
    assert r.status_code == 200  # the page again, with the error on the field
    [message] = r.context["adminform"].form.errors[field]
    assert message.startswith(f"rubric {rubric.public_id}: its {field} may not change")
    assert snapshot() == before and judgments_intact(judged)


def test_admin_rubric_page_refuses_a_judged_items_position_inline(admin_site, judged):
    before = snapshot()
    rubric = judged["rubric"]
    items = sorted(judged["items"].values(), key=lambda i: i.position)
    data = rubric_page(rubric, items)
    data["items-0-position"] = 90  # unjudged: may move
    data["items-1-position"] = 91  # judged
    r = admin_site.post(reverse("admin:annotation_rubric_change", args=[rubric.pk]), data)
    assert r.status_code == 200
    [formset] = r.context["inline_admin_formsets"]
    assert formset.formset.errors[1]["position"][0].startswith(
        f"rubric {rubric.public_id}, item at position 2: its position may not change"
    )
    assert not formset.formset.errors[0]
    assert snapshot() == before and judgments_intact(judged)


def test_a_rubric_only_experts_judged_may_grow(admin_api, judged):
    """Decided (annotation.units.check_judged_rubrics_kept): an item added to a rubric
    experts labelled changes no expert's label, so it is accepted and the labels stay; only
    a judge's scores (a recall over every item) refuse it."""
    url = reverse("rubric-detail", args=[judged["rubric"].public_id])
    items = rubric_items(judged)
    items.append({**items[-1], "position": len(items) + 1, "text": "A new criterion"})
    r = admin_api.patch(url, {"items": items}, format="json")
    assert r.status_code == 200, r.content
    assert judged["rubric"].items.filter(text="A new criterion").exists()
    assert judgments_intact(judged)
