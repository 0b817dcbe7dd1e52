"""The study page's own exports (``/studies/<id>/export/judgments.<format>``, the "Export
results" links, and ``pairwise.zip``) read their options as the API export reads them
(``annotation.importers.downloads``): an option the export supports is honoured (an
"expertise-matched only" download held every setting before), an unknown one, a repeated
one and a value naming nothing are a 400 naming the field; and a study with nothing to
export says "nothing to write yet" instead of linking a certain 404 (tester)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotation.exporters import judgment_records
from annotation.models import Study
from studio.studyadmin.downloads import download_panel
from tests.builders.content import make_question
from tests.builders.users import signed_in


@pytest.fixture
def client(admin_user):
    return signed_in(admin_user)


def jsonl(study, client, **query):
    url = reverse("studies:export_judgments", args=[study.pk, "jsonl"])
    return client.get(url, query)


def rows(response) -> list[dict]:
    return [json.loads(line) for line in response.content.decode().splitlines()]


def test_the_judgments_export_keeps_only_the_setting_and_annotator_asked(demo, client):
    from annotation.models.assignment import Setting

    every = judgment_records(demo)
    held = {r["setting"] for r in every if r.get("setting")}
    setting = sorted(held)[0]
    got = jsonl(demo, client, setting=setting)
    assert got.status_code == 200
    kept = rows(got)
    assert kept and {r["setting"] for r in kept} == {setting}
    assert len(kept) == sum(1 for r in every if r.get("setting") == setting)
    # a valid setting the study holds no judgment of: nothing to export, never every row
    other = next(s for s in Setting.values if s not in held)
    none = jsonl(demo, client, setting=other)
    assert none.status_code == 404 and "Content-Disposition" not in none
    assert f"setting={other}: valid options, but they select nothing" in none.content.decode()

    annotators = sorted({r["annotator"] for r in every})
    assert len(annotators) >= 2, "the demo holds judgments of several annotators"
    mine = rows(jsonl(demo, client, annotator=annotators[0]))
    assert mine and {r["annotator"] for r in mine} == {annotators[0]}
    assert len(mine) == sum(1 for r in every if r["annotator"] == annotators[0]) < len(every)
    # the CSV link reads the same options
    url = reverse("studies:export_judgments", args=[demo.pk, "csv"])
    csv = client.get(url, {"annotator": annotators[0]}).content.decode().splitlines()
    assert len(csv) == len(mine) + 1


def test_the_judgments_export_refuses_what_it_cannot_honour(demo, client):
    bogus = jsonl(demo, client, setting="bogus")
    assert bogus.status_code == 400 and "Content-Disposition" not in bogus
    assert "<strong>setting</strong>" in bogus.content.decode()
    assert "&#x27;bogus&#x27; is not one of" in bogus.content.decode()

    typo = jsonl(demo, client, settng="assigned")
    assert typo.status_code == 400
    assert "unknown option(s): settng (did you mean &#x27;setting&#x27;?)" in typo.content.decode()

    nobody = jsonl(demo, client, annotator="Nobody")
    assert nobody.status_code == 400
    assert "no annotator with judgments &#x27;Nobody&#x27; in this study" in (
        nobody.content.decode()
    )
    url = reverse("studies:export_judgments", args=[demo.pk, "jsonl"])
    twice = client.get(url + "?setting=assigned&setting=expertise_matched")
    assert twice.status_code == 400 and "Given 2 times" in twice.content.decode()
    # a token client gets the problems as JSON, as the API answers
    as_json = client.get(url, {"foo": "1"}, HTTP_ACCEPT="application/json")
    assert as_json.status_code == 400 and "foo" in as_json.content.decode()


def test_the_pairwise_bundle_takes_no_option(demo, client):
    url = reverse("studies:export_pairwise", args=[demo.pk])
    got = client.get(url, {"foo": "1"})
    assert got.status_code == 400 and "Content-Disposition" not in got
    assert "unknown option(s): foo; known: none" in got.content.decode()
    assert client.get(url).status_code == 200


def test_a_repeated_option_of_a_panel_export_is_refused(demo, client):
    """``system=A&system=B`` wrote the last system's reports, the first dropped silently."""
    from annotation.models import System

    a, b = System.objects.filter(study=demo).order_by("name").values_list("name", flat=True)[:2]
    url = reverse("studies:export_format", args=[demo.pk, "reports", "researchqa"])
    got = client.get(f"{url}?system={a}&system={b}")
    assert got.status_code == 400 and "<strong>system</strong>" in got.content.decode()
    assert "Given 2 times" in got.content.decode()
    api = client.get(f"/api/studies/{demo.pk}/export/?kind=reports&file_format=researchqa"
                     f"&system={a}&system={b}")  # fmt: skip
    assert api.status_code == 400
    assert [(e["field"], e["message"][:13]) for e in api.json()["errors"]] == [
        ("system", "Given 2 times")
    ]


def test_a_study_with_no_judgment_offers_no_judgment_export(db, client):
    """A study whose questions were imported (none authored by an annotator) holds no
    judgment: the panel counted its questions as authored-question judgments, and the
    "Export results" links pointed at a certain 404."""
    study = Study.objects.create(name="Questions only")
    make_question(study)
    entry = next(w for w in download_panel(study) if w.kind == "judgments")
    assert entry.empty and not entry.offered
    assert client.get(reverse("studies:export_format", args=[study.pk, "judgments", "jsonl"]),
                      ).status_code == 404  # fmt: skip
    for page in ("detail", "progress"):
        html = client.get(reverse(f"studies:{page}", args=[study.pk])).content.decode()
        assert reverse("studies:export_judgments", args=[study.pk, "jsonl"]) not in html
        assert reverse("studies:export_pairwise", args=[study.pk]) not in html
        assert "nothing to write yet: this study holds no human judgment" in html
        assert "nothing to write yet: this study holds no medal ranking" in html


def test_a_study_with_judgments_links_them(demo, client):
    for page in ("detail", "progress"):
        html = client.get(reverse(f"studies:{page}", args=[demo.pk])).content.decode()
        assert reverse("studies:export_judgments", args=[demo.pk, "jsonl"]) in html
        assert reverse("studies:export_pairwise", args=[demo.pk]) in html
