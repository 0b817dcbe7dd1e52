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
