"""The import form's format options say their kinds (``data-kinds``), which the page's
script (static/js/import_form.js) uses to list only the chosen kind's formats; the
browser test (tests/browser/test_import_form.py) drives it. Without the script the full
list stays and a mismatched format is refused naming it."""

from __future__ import annotations

import io
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from annotation.importers.registry import FORMATS, KINDS, format_names
from annotation.models import Study


class FormatOptions(HTMLParser):
    def __init__(self):
        super().__init__()
        self.inside, self.kinds_of, self.select, self.scripts = False, {}, {}, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "select" and a.get("id") == "id_format":
            self.inside, self.select = True, a
        elif tag == "option" and self.inside:
            self.kinds_of[a["value"]] = (a.get("data-kinds") or "").split()
        elif tag == "script" and a.get("src"):
            self.scripts.append(a["src"])

    def handle_endtag(self, tag):
        if tag == "select":
            self.inside = False


@pytest.mark.django_db
def test_each_format_option_says_its_kinds(admin_user):
    study = Study.objects.create(name="Formats per kind")
    client = Client()
    client.force_login(admin_user)
    parsed = FormatOptions()
    parsed.feed(client.get(reverse("studies:detail", args=[study.pk])).content.decode())
    assert parsed.select.get("data-kind-field") == "kind"
    assert any(src.endswith("js/import_form.js") for src in parsed.scripts)
    assert set(parsed.kinds_of) == {"", *(f.name for f in FORMATS.values())}  # all, no JS
    assert parsed.kinds_of[""] == []  # the empty choice stays for every kind
    for kind in KINDS:  # what the script shows for each kind: exactly its formats
        shown = {name for name, kinds in parsed.kinds_of.items() if kind in kinds}
        assert shown == set(format_names(kind)), kind
    assert set(parsed.kinds_of["researcherbench"]) >= {"questions", "reports", "judge_scores"}


@pytest.mark.django_db
def test_a_format_of_another_kind_is_still_refused_by_name(admin_user):
    study = Study.objects.create(name="Mismatch")
    client = Client()
    client.force_login(admin_user)
    upload = io.BytesIO(b'{"id": "q1", "text": "What?"}\n')
    upload.name = "q.jsonl"
    got = client.post(reverse("studies:import", args=[study.pk]),
                      {"kind": "questions", "format": "researchqa-coverage", "file": upload})  # fmt: skip
    assert "researchqa-coverage" in got.content.decode()
    assert not study.questions.exists()
