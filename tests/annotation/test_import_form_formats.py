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


def site_admin(user):
    """The admin role with the Django admin's staff flag (the admin site answers to both)."""
    user.is_staff = user.is_superuser = True
    user.save()
    return user


@pytest.mark.django_db
def test_the_admin_import_page_lists_each_kinds_formats_too(admin_user):
    """The Django admin's import page (it offered every format whatever the kind: the page
    never loaded the form's script)."""
    site_admin(admin_user)
    client = Client()
    client.force_login(admin_user)
    parsed = FormatOptions()
    parsed.feed(client.get(reverse("admin:annotation_import")).content.decode())
    assert parsed.select.get("data-kind-field") == "kind"
    assert any(src.endswith("js/import_form.js") for src in parsed.scripts)
    for kind in KINDS:
        shown = {name for name, kinds in parsed.kinds_of.items() if kind in kinds}
        assert shown == set(format_names(kind)), kind


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["admin", "study"])
def test_a_forged_format_of_another_kind_is_refused_beside_the_field(admin_user, page):
    """A post pairing a kind with another kind's format is refused by the form, naming the
    field and the kind the format belongs to, before the import runs: nothing is written."""
    study = Study.objects.create(name="Forged")
    site_admin(admin_user)
    client = Client()
    client.force_login(admin_user)
    upload = io.BytesIO(b'{"id": "q1", "text": "What?"}\n')
    upload.name = "q.jsonl"
    post = {"kind": "questions", "format": "researchqa-coverage", "file": upload}
    if page == "admin":
        url, post["study"] = reverse("admin:annotation_import"), "Forged elsewhere"
    else:
        url = reverse("studies:import", args=[study.pk])
    got = client.post(url, post)
    form = got.context["form" if page == "admin" else "upload_form"]
    assert form.errors["format"] == [
        "'researchqa-coverage' is a format of judge_scores, not of questions; use one of "
        + ", ".join(format_names("questions"))
    ]
    assert list(Study.objects.values_list("name", flat=True)) == ["Forged"]
    assert not study.questions.exists()
