"""DeepScholar-Bench questions are named by their paper's title (``Question.label``).

Every DeepScholar question's text begins with the same templated instruction ("Write a
Related Works section for an academic paper given the paper's abstract. Here is the paper
abstract: …"), so a question named by its first characters looked like every other one in
the annotator's queue and on the researcher's pages. The released paper table (and
OpenScholar's own JSON) carry each paper's title: the import keeps it as the question's
title, and every list names the question by it.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Question, Study
from tests.builders.content import make_assignment, make_question, make_study

from .test_deepscholar_release import DS, PAPERS

TITLES = {
    "2506.02838v1": "TaxAgent: How Large Language Model Designs Fiscal Policy",
}

pytestmark = [pytest.mark.shared_data, pytest.mark.django_db]


@pytest.fixture
def release():
    if not DS.is_dir():
        pytest.skip("../shared/data/deepscholar not available")
    return DS


def _queue_labels(html: str) -> list[str]:
    cells = re.findall(r'<td class="queue-q">(.*?)</td>', html, re.S)
    return [unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in cells]


def test_released_questions_are_labelled_by_their_paper_titles(
    release, annotator_user, admin_user, client
):
    # search_ai's files carry no title: it comes from the release's paper table
    call_command("import_reports", str(release / "baselines_results" / "search_ai_gpt_4.1"),
                 "--study", "DS", "--format", "deepscholar", "--papers", str(PAPERS))  # fmt: skip
    study = Study.objects.get(name="DS")
    questions = list(Question.objects.filter(study=study).order_by("external_id"))
    assert len(questions) == 2
    # the texts share their first 100 characters: they cannot tell the papers apart
    assert questions[0].text[:100] == questions[1].text[:100]
    titles = [q.title for q in questions]
    assert all(titles) and titles[0] != titles[1]
    assert questions[1].title == TITLES["2506.02838v1"]

    for n, q in enumerate(questions):
        make_assignment(annotator_user.annotator, q, "organization", position=n)
    client.force_login(annotator_user)
    labels = _queue_labels(client.get(reverse("annotate:queue")).content.decode())
    assert len(labels) == 2 and labels[0] != labels[1]
    assert sorted(labels) == sorted(titles)
    home = unescape(client.get(reverse("home")).content.decode())
    assert all(t in home for t in titles)

    client.force_login(admin_user)
    page = unescape(client.get(reverse("studies:questions", args=[study.pk])).content.decode())
    assert all(t in page for t in titles)
    page = unescape(client.get(reverse("studies:annotator_progress",
                                       args=[study.pk, annotator_user.annotator.pk])
                               ).content.decode())  # fmt: skip
    assert all(t[:70] in page for t in titles)  # cut to 80 characters there


def test_the_title_is_the_systems_own_when_there_is_no_paper_table(release):
    """OpenScholar's JSON names the paper by title; a later import with the table keeps it."""
    call_command("import_reports", str(release / "baselines_results" / "openscholar"),
                 "--study", "DS", "--format", "deepscholar")  # fmt: skip
    q = Question.objects.get(study__name="DS", external_id="2506.02838v1")
    assert q.label == q.title == TITLES["2506.02838v1"]
    assert str(q) == TITLES["2506.02838v1"]


def test_the_exemplar_import_names_questions_it_finds_or_creates(release):
    call_command("import_deepscholar", str(release / "dataset" / "gt_nuggets_outputs"),
                 "--study", "DS", "--format", "nuggetizer")  # fmt: skip
    q = Question.objects.get(study__name="DS", external_id="2506.02838v1")
    assert q.title == "" and q.label == q.text  # the nuggetizer's output has no title
    call_command("import_deepscholar", str(release / "test_dataset"),
                 "--study", "DS", "--format", "exemplar-latex")  # fmt: skip
    q.refresh_from_db()
    assert q.label == TITLES["2506.02838v1"]
    assert q.text.startswith("Write a Related Works section")  # the text is kept


def test_a_question_without_a_title_is_labelled_by_its_text(annotator_user, client):
    study = make_study()
    q = make_question(study)
    assert q.title == "" and q.label == q.text
    make_assignment(annotator_user.annotator, q, "pairwise")
    client.force_login(annotator_user)
    assert _queue_labels(client.get(reverse("annotate:queue")).content.decode()) == [
        q.text[:139] + "…" if len(q.text) > 140 else q.text
    ]
