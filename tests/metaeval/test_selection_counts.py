"""The report's selection line counts every judgment kind of the study, in three queries
whatever the number of kinds (issue 26); the sections over the agreement report's
comparisons are left out with one line when there is none."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import PairwisePreference
from metaeval.loaders.selection import judgment_counts
from tests.builders.researchqa_study import researchqa_study

pytestmark = pytest.mark.django_db


def test_every_judgment_kind_is_counted_in_three_queries():
    study = researchqa_study()
    with CaptureQueriesContext(connection) as queries:
        got = judgment_counts(study.pk)
    assert len(queries) == 3
    assert got == {"n_judgments": 18, "n_questions": 2, "n_annotators": 3,
                   "by_kind": {"pairwise preference": 6, "rubric coverage": 12}}  # fmt: skip
    PairwisePreference.objects.filter(study=study).update(setting="near_expert")
    assert judgment_counts(study.pk, ("near_expert",))["n_judgments"] == 6


def test_the_page_counts_them_and_leaves_out_what_has_no_data(client, researcher_user):
    cache.clear()
    study = researchqa_study()
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    page = client.get(reverse("metaeval:report", args=[study.pk])).content.decode()
    assert 'data-key="study_n_judgments" data-value="18"' in page
    assert 'id="section-iaa-absent"' in page and 'id="section-iaa"' not in page
    assert 'id="section-label_iaa"' in page and "No IAA" not in page


def test_expertise_ratings_and_authored_questions_are_counted_too():
    """A triage self-rating and an authored question are judgments of the study (issue 26:
    a study holding only these said "no expert judgment yet" above the sections analysing
    them); still three queries."""
    from annotation.models import Annotator, ExpertiseRating, Question

    study = researchqa_study()
    expert = Annotator.objects.create(pseudonym="triage-expert")
    first = Question.objects.filter(study=study).order_by("pk").first()
    ExpertiseRating.objects.create(annotator=expert, question=first,
                                   level=ExpertiseRating.Level.values[0])  # fmt: skip
    Question.objects.create(study=study, external_id="authored-1", text="A new question?",
                            origin=Question.Origin.EXPERT_AUTHORED, authored_by=expert)  # fmt: skip
    with CaptureQueriesContext(connection) as queries:
        got = judgment_counts(study.pk)
    assert len(queries) == 3
    assert got["n_judgments"] == 20 and got["n_questions"] == 3 and got["n_annotators"] == 4
    assert got["by_kind"]["authored question"] == 1
    assert got["by_kind"][str(ExpertiseRating._meta.verbose_name)] == 1
    # a selection of one setting still counts them: neither has a setting, and the triage
    # and authoring sections read them whatever the setting
    assert judgment_counts(study.pk, ("assigned",))["by_kind"]["authored question"] == 1


def test_the_systems_line_names_the_selected_systems_without_expert_judgments(
    client, researcher_user
):
    """Found by an admin: with all 6 system boxes ticked, the Selection line listed the 5
    with expert judgments, silently leaving out the one without (OpenAI). The study's
    experts compared alpha and beta; gamma and OpenAI have reports and no judgment."""
    from annotation.models import Question, Report, System

    cache.clear()
    study = researchqa_study()
    study.researchers.add(researcher_user)
    openai = System.objects.create(study=study, name="OpenAI")
    for q in Question.objects.filter(study=study):
        Report.objects.create(question=q, system=openai)
    client.force_login(researcher_user)
    url = reverse("metaeval:report", args=[study.pk])
    every = "?systems=alpha&systems=beta&systems=gamma&systems=OpenAI"
    for query in ("", every):  # none named (every box ticked), or each ticked
        cache.clear()
        page = client.get(url + query).content.decode()
        line = page.split('data-key="systems">', 1)[1].split(";", 1)[0]
        assert line.startswith("OpenAI, alpha, beta, gamma</span>"), line
        assert ('<span data-key="systems_unjudged">4 systems selected; 2 have expert '
                "judgments: OpenAI and gamma have none</span>") in page  # fmt: skip
    cache.clear()
    page = client.get(url + "?systems=alpha&systems=beta&systems=OpenAI").content.decode()
    assert page.split('data-key="systems">', 1)[1].startswith("OpenAI, alpha, beta</span>")
    assert ('<span data-key="systems_unjudged">3 systems selected; 2 have expert '
            "judgments: OpenAI has none</span>") in page  # fmt: skip
    # every selected system judged: nothing more is said
    cache.clear()
    page = client.get(url + "?systems=alpha&systems=beta").content.decode()
    assert 'data-key="systems_unjudged"' not in page
    assert page.split('data-key="systems">', 1)[1].startswith("alpha, beta</span>")


def test_the_unjudged_text():
    from metaeval.sections.selection import _unjudged_text

    assert _unjudged_text(["a", "b"], []) is None
    got = _unjudged_text(["a", "b", "c"], ["b", "c"])
    assert got == "3 systems selected; 1 has expert judgments: b and c have none"
    assert _unjudged_text(["a", "b"], ["a", "b"]) == "2 systems selected; none has expert judgments"


def test_every_judgment_kind_is_placed_for_the_judged_systems():
    """A new judgment kind must say which report(s) it is about, or that it is about a
    question: else its systems would read as never judged."""
    from annotation.protection import judgment_models
    from metaeval.loaders.judged_systems import QUESTION_LEVEL, REPORT_PATHS

    names = {m.__name__ for m in judgment_models()}
    assert names == set(REPORT_PATHS) | set(QUESTION_LEVEL)
    assert not set(REPORT_PATHS) & set(QUESTION_LEVEL)
