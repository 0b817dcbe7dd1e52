"""The import form speaks in the browser's words, and System defaults to the file's name
where the format's file names its system.

* Help on the study page and the Django admin's import page named what a browser cannot
  reach: other commands' flags (``--expert-agreed``, ``--compat``, ``--papers``,
  ``--system``, ``--rubric``), source files (``judge_systems_by_gpt.py``) and documents
  (``METHODS §5``, ``docs/ANALYSES.md``, ``003 Setting 2``). Now each option is the form
  field it is (“Expert agreed”), an example's options are the fields to fill in, and the
  other references are gone.
* Importing ResearcherBench responses required System although ``user_data/Claude.json``
  names it: left empty, it is now the file's name without its extension, said so beside
  the field, which is marked required (``data-required-kinds``) only where it is.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotation.importers.registry import FORMATS
from annotation.models import Report, Study, System
from tests.builders.planning import make_study

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "researcherbench" / "user_data"
#: What a browser cannot follow: a command-line flag, a source file, a document section.
UNREACHABLE = [
    r"--[a-z][a-z_-]+",
    r"\b[\w/*]+\.py\b",
    r"§\s*\d",
    r"\bMETHODS\b",
    r"docs/",
    r"\b00\d (Setting|A\.|Table)",
    r"\bFILE\b",
]


def visible_text(page: str) -> str:
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S)
    page = re.sub(r"<!--.*?-->", "", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def unreachable(text: str) -> list[str]:
    return [m.group(0) for pattern in UNREACHABLE for m in re.finditer(pattern, text)]


@pytest.fixture
def admin(admin_user):
    admin_user.is_staff = admin_user.is_superuser = True  # the Django admin's import page too
    admin_user.save()
    client = Client()
    client.force_login(admin_user)
    return client


@pytest.mark.django_db
def test_the_import_pages_name_nothing_a_browser_cannot_reach(admin):
    study = make_study(questions=2, systems=2)
    pages = {
        "study": reverse("studies:detail", args=[study.pk]),
        "plan": reverse("studies:plan", args=[study.pk]),
        "questions": reverse("studies:questions", args=[study.pk]),
        "admin import": reverse("admin:annotation_import"),
    }
    for name, url in pages.items():
        got = admin.get(url)
        assert got.status_code == 200, name
        assert unreachable(visible_text(got.content.decode())) == [], name
    page = visible_text(admin.get(pages["study"]).content.decode())
    # the options as the fields they are, the examples as what to fill in
    assert "(then leave “Annotator” empty)" in page
    assert "import with Rubric: researcherbench_rubric.json" in page
    assert "import with Annotator: example-expert, Judge: example-judge" in page


@pytest.mark.django_db
def test_system_says_where_it_may_be_left_empty_and_is_required_only_there(admin):
    study = Study.objects.create(name="Words")
    page = admin.get(reverse("studies:detail", args=[study.pk])).content.decode()
    system = re.search(r'<input type="text" name="system"[^>]*>', page).group(0)
    assert 'data-required-kinds="reports"' in system and "required" not in system.split()
    optional = re.search(r'data-optional-formats="([^"]*)"', system).group(1).split()
    assert set(optional) == {
        f.name for f in FORMATS.values()
        if f.kind == "reports" and (f.directory or f.system_from_file_name)
    }  # fmt: skip
    assert {"deepscholar", "researcherbench"} <= set(optional)
    said = visible_text(page)
    assert "the uploaded file's name without its extension (Claude.json gives Claude)" in said
    judge = re.search(r'<input type="text" name="judge"[^>]*>', page).group(0)
    assert "judge_scores" in re.search(r'data-required-kinds="([^"]*)"', judge).group(1)
    annotator = re.search(r'<input type="text" name="annotator"[^>]*>', page).group(0)
    assert 'data-required-unless="expert_agreed"' in annotator


@pytest.mark.django_db
@pytest.mark.shared_data
def test_researcherbench_responses_take_their_system_from_the_file_name(admin):
    if not (DATA / "Claude.json").is_file():
        pytest.skip("../shared/data/researcherbench not available")
    study = Study.objects.create(name="RB from the browser")
    upload = SimpleUploadedFile("Claude.json", (DATA / "Claude.json").read_bytes())
    got = admin.post(reverse("studies:import", args=[study.pk]),
                     {"kind": "reports", "format": "researcherbench", "file": upload})  # fmt: skip
    assert got.status_code == 302, visible_text(got.content.decode())[:2000]
    assert list(System.objects.filter(study=study).values_list("name", flat=True)) == ["Claude"]
    assert Report.objects.filter(system__study=study, system__name="Claude").count() > 0


@pytest.mark.django_db
def test_a_system_given_wins_and_formats_that_need_one_still_say_so(admin):
    study = Study.objects.create(name="RB named")
    example = FORMATS[("reports", "researcherbench")].example.path
    upload = SimpleUploadedFile("Claude.json", example.read_bytes())
    got = admin.post(reverse("studies:import", args=[study.pk]),
                     {"kind": "reports", "format": "researcherbench", "file": upload,
                      "system": "Claude 3.7"})  # fmt: skip
    assert got.status_code == 302
    assert list(System.objects.filter(study=study).values_list("name", flat=True)) == ["Claude 3.7"]
    # a ResearchQA responses file does not name its system: still required, saying where not
    other = Study.objects.create(name="RQA")
    example = FORMATS[("reports", "researchqa")].example.path
    upload = SimpleUploadedFile("answers.json", example.read_bytes())
    got = admin.post(reverse("studies:import", args=[other.pk]),
                     {"kind": "reports", "format": "researchqa", "file": upload})  # fmt: skip
    assert got.status_code == 400
    said = visible_text(got.content.decode())
    assert "a system name is required for ResearchQA responses" in said
    assert "ResearcherBench responses (researcherbench)" in said
    assert not System.objects.filter(study=other).exists()
