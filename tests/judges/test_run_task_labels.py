"""The run form labels each judge task by what it does: the rubric-coverage task grades
each item 0–4 in every study; it read "Rubric coverage (ResearchQA, …)" even on a
ResearcherBench study, and nothing said its grades are not that study's binary verdicts.
A binary-coverage study is now offered the binary coverage task in its place."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from judges.models import Judge, JudgeRun
from tests.builders.judged import build_study

pytestmark = pytest.mark.django_db


def _coverage_label(client, study) -> str:
    page = html.unescape(client.get(reverse("judge-run-list", args=[study.pk])).content.decode())
    start = page.index('value="coverage"')
    return page[start : page.index("</label>", start)]


def test_the_coverage_task_is_labelled_by_what_it_does_per_the_studys_protocol(client, admin_user):
    # a judge a run accepts: the form is shown only when one can run
    Judge.objects.create(
        name="some-judge", model="m", parameters={"base_url": "http://llm.example/v1"}
    )
    client.force_login(admin_user)
    graded = build_study("graded", questions=1, systems=("alpha",))
    label = _coverage_label(client, graded)
    assert "Rubric coverage: each item graded 0–4" in label
    assert "ResearchQA" not in label and "binary" not in label
    binary = build_study("binary", questions=1, systems=("alpha",))
    binary.config = {"coverage_binary": True}
    binary.save()
    # a binary-coverage study is offered the binary task instead: the 0–4 one (and the
    # ensemble, which sums 0–4 labels) would not write what its S_c reads
    page = html.unescape(client.get(reverse("judge-run-list", args=[binary.pk])).content.decode())
    assert 'value="coverage"' not in page and 'value="ensemble"' not in page
    assert "Rubric coverage, covered or not (ResearcherBench)" in page
    # one declaration: the form's labels are the task choices'
    assert dict(JudgeRun.task_choices(binary)) == {
        v: label for v, label in JudgeRun.Task.choices if v not in ("coverage", "ensemble")
    }
    assert dict(JudgeRun.task_choices(graded)) == {
        v: label for v, label in JudgeRun.Task.choices if v != "coverage_binary"
    }
