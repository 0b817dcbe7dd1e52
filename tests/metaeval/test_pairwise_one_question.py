"""ResearchQA pairwise figures whose labelled comparisons are all of one question give no
interval, with the note every other section gives, though a judge verdict reached another
question (tester: ``human_vs_majority 1.0 [1.0, 1.0]`` from one question)."""

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotation.models import PairwisePreference
from metaeval.stats.bootstrap import too_few_clusters_note
from tests.builders.researchqa_study import researchqa_study

pytestmark = pytest.mark.django_db


def test_figures_of_one_labelled_question_have_no_interval(client, researcher_user):
    cache.clear()
    study = researchqa_study()
    PairwisePreference.objects.filter(question__external_id="q2").delete()
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    got = client.get(reverse("api-agreement", args=[study.pk]) + "?bootstrap=1000").json()
    pairwise = got["researchqa_pairwise"]
    figures = [pairwise["human_vs_majority"], pairwise["binarised_pa"]]
    figures += [j["accuracy"] for j in pairwise["judges"]]
    assert len(figures) == 4
    for fig in figures:
        assert fig["value"] is not None
        assert (fig["low"], fig["high"]) == (None, None)
        assert fig["note"] == too_few_clusters_note(1)
