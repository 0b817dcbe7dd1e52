"""The report page's Setting selector lists the settings of every judgment kind the study
has, by their labels (``annotation.models.Setting``), and the selection line names the
settings selected: a study whose expertise-matched judgments were all rubric coverage
offered "all settings" only and summarised ``?settings=expertise_matched`` as "—"."""

import re

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotation.models import RubricCoverage, Setting
from metaeval.loaders.selection import settings_present
from tests.builders.researchqa_study import researchqa_study

pytestmark = pytest.mark.django_db


def _options(page: str) -> list[tuple[str, str]]:
    select = re.search(r'<select[^>]*name="settings".*?</select>', page, re.S)
    assert select, "no Setting selector"
    return re.findall(r'<option value="([^"]*)"[^>]*>\s*([^<]*?)\s*</option>', select.group(0))


def test_the_selector_and_the_summary_cover_every_judgment_kind(client, researcher_user):
    cache.clear()
    study = researchqa_study()
    RubricCoverage.objects.filter(study=study).update(setting=Setting.EXPERTISE_MATCHED)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    url = reverse("metaeval:report", args=[study.pk])

    page = client.get(url).content.decode()
    offered = [o for o in _options(page) if o[0]]
    assert offered == [("assigned", "Random assignment"),
                       ("expertise_matched", "Expertise-matched (field)")]  # fmt: skip

    page = client.get(url, {"settings": "expertise_matched"}).content.decode()
    summary = re.search(r'data-key="settings">([^<]*)<', page).group(1)
    assert summary == "Expertise-matched (field)"
    assert settings_present(study.pk, ("near_expert",)) == []
