"""DeepScholar label units are shown in an order drawn for each annotator (tester's finding:
the nuggetizer releases its vital nuggets first, and the nugget-importance page showed them
in that order — VVVVVVVVVoooooo for every annotator — so an annotator could read the judge's
labels off the page). Checked on the released nuggetizer output: the order shown is not the
released one, does not put the judge's vital nuggets first, is the same on every load,
differs between annotators, and answers given by place land on the unit shown there."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from annotation.annotate.page import TaskPage
from annotation.annotate.registry import SPECS
from annotation.models import DeepScholarLabel, Nugget, Question
from judges.models import JudgeDeepScholarLabel
from tests.annotation.test_annotate_deepscholar import KEYS, deepscholar_question
from tests.builders.content import make_assignment, make_study
from tests.builders.users import make_user

DS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "deepscholar"
RES = DS / "dataset" / "gt_nuggets_outputs" / "0" / "res.json"
STORM = DS / "baselines_results" / "storm"
PAPERS = DS / "test_dataset" / "related_works_combined.csv"
CARD = re.compile(r'data-ds-card="(\d+)".*?<h3[^>]*>(.*?) <span.*?name="lab\.([^"]+)"', re.S)


@pytest.fixture
def released():
    """The released nuggetizer output of paper 0 with storm's report of it, in study DS."""
    if not RES.is_file():
        pytest.skip("../shared/data/deepscholar not available")
    make_study("DS")
    call_command("import_reports", str(STORM), "--study", "DS", "--format", "deepscholar",
                 "--papers", str(PAPERS))  # fmt: skip
    call_command("import_deepscholar", str(RES), "--study", "DS", "--format", "nuggetizer",
                 "--system", "storm")  # fmt: skip
    record = json.loads(RES.read_text())
    question = Question.objects.get(study__name="DS", external_id=record["qid"])
    return question, record


def annotator(name):
    return make_user(name, "annotator", annotator=True)


def shown(client, a) -> list[tuple[str, str]]:
    """(title, unit id) of each card of the page, in the order the page shows them."""
    html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    cards = CARD.findall(html)
    assert [int(n) for n, *_ in cards] == list(range(1, len(cards) + 1))
    return [(title, unit) for _, title, unit in cards]


@pytest.mark.django_db
@pytest.mark.shared_data
def test_released_nuggets_are_not_shown_in_the_judges_order(released):
    question, record = released
    released_texts = [n["text"] for n in record["nuggets"]]
    vital = {n["text"] for n in record["nuggets"] if n["importance"] == "vital"}
    # the release does list its vital nuggets first: the leak this guards against
    assert [t in vital for t in released_texts] == sorted(
        (t in vital for t in released_texts), reverse=True
    )
    assert 0 < len(vital) < len(released_texts)
    by_id = {g.public_id: g for g in Nugget.objects.filter(question=question)}
    orders = {}
    for name in ("ann_a", "ann_b"):
        user = annotator(name)
        a = make_assignment(user.annotator, question, "nugget_importance")
        client = Client()
        client.force_login(user)
        first, again = shown(client, a), shown(client, a)
        assert first == again  # stable across loads (autosave, reload, submit)
        texts = [by_id[unit].text for _, unit in first]
        assert sorted(texts) == sorted(released_texts)
        assert texts != released_texts
        flags = [t in vital for t in texts]
        assert flags != sorted(flags, reverse=True)  # vital nuggets are not all first
        # numbered as shown: the number says nothing of the released place
        assert [title for title, _ in first] == [f"Nugget {n}" for n in range(1, len(first) + 1)]
        orders[name] = texts
        # answers given by place land on the nugget shown at that place
        data = {f"lab.{unit}": ("vital" if n % 3 == 0 else "non_vital")
                for n, (_, unit) in enumerate(first)}  # fmt: skip
        response = client.post(reverse("annotate:submit", args=[a.pk]),
                               {"version": "0", **data}, HTTP_HX_REQUEST="true")  # fmt: skip
        assert response.status_code == 204
        saved = dict(DeepScholarLabel.objects.filter(annotator=user.annotator)
                     .values_list("unit", "label"))  # fmt: skip
        # the unit key is the released index of the nugget (as the judge's files name it)
        want = {str(released_texts.index(t) + 1): ("vital" if n % 3 == 0 else "non_vital")
                for n, t in enumerate(texts)}  # fmt: skip
        assert saved == want
        judge = dict(JudgeDeepScholarLabel.objects.filter(question=question,
                     kind="nugget_importance").values_list("unit", "label"))  # fmt: skip
        assert set(saved) == set(judge)  # human and judge labels still join by unit key
    assert orders["ann_a"] != orders["ann_b"]


@pytest.mark.django_db
@pytest.mark.shared_data
def test_released_nuggets_in_a_report_are_not_shown_in_the_judges_order(released):
    question, record = released
    released_texts = [n["text"] for n in record["nuggets"]]
    orders = []
    for name in ("ann_a", "ann_b"):
        user = annotator(name)
        a = make_assignment(user.annotator, question, "nugget_support")
        units = SPECS["nugget_support"].units(TaskPage(a, a.annotator))
        assert units == SPECS["nugget_support"].units(TaskPage(a, a.annotator))
        texts = [u.text for u in units]
        assert sorted(texts) == sorted(released_texts) and texts != released_texts
        assert [u.title.rsplit(" ", 1)[1] for u in units] == [
            str(n) for n in range(1, len(units) + 1)
        ]
        orders.append(texts)
    assert orders[0] != orders[1]


@pytest.mark.django_db
@pytest.mark.parametrize("key", [k for k in KEYS if k != "organization"])
def test_every_label_task_orders_its_units_by_annotator(key):
    """Every label task whose units are not reports draws its order (organization's units
    are the reports, already in the assignment's random order)."""
    from annotation.models import ExemplarReference

    question = deepscholar_question(make_study())
    Nugget.objects.bulk_create(
        Nugget(question=question, key=f"m{i}", position=10 + i, text=f"More {i}") for i in range(5)
    )
    ExemplarReference.objects.bulk_create(
        ExemplarReference(question=question, key=f"q{i}", position=10 + i, title=f"More {i}")
        for i in range(5)
    )
    orders, moved = [], []
    for name in ("ann_a", "ann_b", "ann_c"):
        user = annotator(name)
        a = make_assignment(user.annotator, question, key)
        page = TaskPage(a, a.annotator)
        units = SPECS[key].units(page)
        built = SPECS[key].build(TaskPage(a, a.annotator))  # the released order
        assert sorted(u.id for u in units) == sorted(u.id for u in built)
        assert [u.id for u in units] == [u.id for u in SPECS[key].units(TaskPage(a, a.annotator))]
        # report by report as the assignment orders them
        reports = [u.report_pk for u in units]
        assert reports == sorted(reports, key=[u.report_pk for u in built].index)
        orders.append([u.id for u in units])
        moved.append([u.id for u in units] != [u.id for u in built])
    assert len({tuple(o) for o in orders}) > 1
    assert any(moved)  # not the order built (released, imported, read)
