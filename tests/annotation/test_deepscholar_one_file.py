"""One released DeepScholar file uploaded alone (tester's LOW defect): the refusal named
only Concord's own export layout (``<system>/<paper_id>/output.md``), which is not how the
release lays out its systems' outputs. It names the released layouts and says a folder is
uploaded as a .zip."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Report, Study
from tests.builders.released import shared

pytestmark = [pytest.mark.shared_data, pytest.mark.django_db]


def test_one_released_file_is_refused_naming_the_released_layouts_and_the_zip(admin_user):
    [md] = shared("deepscholar", "baselines_results", "openscholar", "0").glob("*.md")
    study = Study.objects.create(name="DS")
    api = APIClient()
    api.force_login(admin_user)
    answer = api.post(
        reverse("study-import", args=[study.pk]),
        {"kind": "reports", "format": "deepscholar", "options": "{}",
         "file": SimpleUploadedFile(md.name, md.read_bytes(), content_type="text/markdown")},
        format="multipart",
    )  # fmt: skip
    assert answer.status_code == 400, answer.content[:300]
    said = answer.content.decode()
    assert ".zip" in said
    for layout in ("intro.md + paper.csv", "storm_gen_article_polished.md",
                   "<name>.md + <name>.json", "openscholar"):  # fmt: skip
        assert layout in said, layout
    assert not Report.objects.filter(question__study=study).exists()
