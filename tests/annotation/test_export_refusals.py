"""What ``GET /api/studies/{id}/export/`` (and the Download panel's URLs, the same function)
refuses, and how (found by testers with a researcher's token and an admin's):

* a value naming nothing in the study (``system=nope``, a system of another study,
  ``judge=99``, ``annotator=Nobody``) was a 404 "has no reports to write" with
  ``field: null``; it is a 400 naming the field and listing the study's values. Valid
  options that select nothing stay a 404 "nothing to export" that says so;
* a parameter no writer reads (``bogusopt=1``; ``splt=dev`` returned every split) was
  ignored; it is a 400 listing the known ones, with the one meant when the name is close;
* a read-only format (``nuggetizer``, ``exemplar-latex``) said "has no writer"; it names
  the writers that export its data;
* no kind or a bad one spoke of an "import kind"; it speaks of the export kinds.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.urls import reverse

from annotation.importers.registry import FORMATS
from annotation.models import Study, System
from studio.studyadmin.downloads import download_panel
from tests.builders.users import signed_in


@pytest.fixture
def api(admin_user):
    return signed_in(admin_user, api=True)


def export(api, study, **query):
    return api.get(reverse("study-export", args=[study.pk]), query)


def errors(response) -> list[dict]:
    return response.json()["errors"]


@pytest.mark.parametrize(
    "query, field, listed",
    [
        ({"kind": "reports", "file_format": "deepscholar", "system": "nope"}, "system",
         "atlas-dr"),
        ({"kind": "reports", "file_format": "deepscholar", "system": "sqa"}, "system",
         "atlas-dr"),  # a system of another study
        ({"kind": "judge_scores", "file_format": "deepscholar-labels", "judge": "99"}, "judge",
         "claude-sonnet-sim"),
        ({"kind": "pairwise", "file_format": "scholarqa", "setting": "assigned",
          "annotator": "Nobody"}, "annotator", "BrightOtter-3"),
    ],
)  # fmt: skip
def test_a_value_naming_nothing_in_the_study_is_a_400_naming_the_field(
    demo, api, query, field, listed
):
    other = Study.objects.create(name="Another study")
    System.objects.create(study=other, name="sqa")
    got = export(api, demo, **query)
    assert got.status_code == 400, got.content
    [error] = errors(got)
    assert error["field"] == field
    assert f"{query[field]!r} in this study" in error["message"] and listed in error["message"]


def test_valid_options_that_select_nothing_are_a_404_that_says_so(demo, api):
    """The demo's judges gave no DeepScholar label: the judge names one, it selects none."""
    got = export(api, demo, kind="judge_scores", file_format="deepscholar-labels",
                 judge="claude-sonnet-sim")  # fmt: skip
    assert got.status_code == 404
    message = errors(got)[0]["message"]
    assert "nothing to export" in message and "judge=claude-sonnet-sim" in message
    assert "valid options, but they select nothing" in message


def test_the_export_command_refuses_a_value_naming_nothing_alike(demo):
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="--system: no system 'nope' in this study"):
        call_command("export_format", "reports", "researchqa", study=str(demo.pk), system="nope")


def test_an_unknown_parameter_is_a_400_listing_the_known_ones(demo, api):
    got = export(api, demo, kind="judgments", file_format="jsonl", bogusopt="1")
    assert got.status_code == 400
    [error] = errors(got)
    assert error["field"] == "bogusopt"
    assert error["message"].startswith("unknown option(s): bogusopt; known: ")
    assert "file_format" in error["message"] and "did you mean" not in error["message"]
    two = export(api, demo, kind="judgments", file_format="jsonl", bogusopt="1", other="2")
    assert two.status_code == 400 and [e["field"] for e in errors(two)] == ["bogusopt", "other"]


def test_a_misspelt_option_says_which_was_meant_and_exports_nothing(demo, api):
    """``splt=dev`` exported every split before."""
    query = {"kind": "pairwise", "file_format": "scholarqa", "setting": "assigned",
             "annotator": "BrightOtter-3", "splt": "dev"}  # fmt: skip
    got = export(api, demo, **query)
    assert got.status_code == 400 and "Content-Disposition" not in got
    assert "splt (did you mean 'split'?)" in errors(got)[0]["message"]


def test_the_download_urls_refuse_an_unknown_parameter_too(demo, admin_user):
    client = signed_in(admin_user)
    url = reverse("studies:export_format", args=[demo.pk, "pairwise", "scholarqa"])
    got = client.get(url, {"setting": "assigned", "annotator": "BrightOtter-3", "splt": "dev"})
    assert got.status_code == 400 and "Content-Disposition" not in got
    assert "did you mean &#x27;split&#x27;?" in got.content.decode()


def test_drf_format_parameter_is_not_refused(demo, api):
    """``format`` is DRF's renderer parameter (documented as not an export option)."""
    got = export(api, demo, kind="questions", file_format="jsonl", format="json")
    assert got.status_code == 200 and got["Content-Disposition"]


def test_every_panel_form_sends_only_options_its_writer_reads(demo, admin_user):
    """Each form of the Download panel, sent with every field (optional ones empty, as a
    browser sends an unchosen select), is never refused for an unknown option; its link
    answers HEAD and OPTIONS as GET."""
    client = signed_in(admin_user)
    for writer in download_panel(demo):
        fmt = FORMATS[(writer.kind, writer.format)]
        names = {f.name for f in writer.fields}
        assert names <= {o.name for o in fmt.dump_options}, writer.url
        query = {f.name: (f.values[0] if f.required and f.values else "") for f in writer.fields}
        url = writer.url + "?" + urlencode(query)
        got = client.get(url)
        assert got.status_code != 400 or b"unknown option" not in got.content, url
        head = client.head(url)
        assert head.status_code == got.status_code and head.content == b"", url
        assert client.options(url).status_code == 200, url


def test_a_read_only_format_names_the_writers_of_its_data(demo, api, admin_user):
    """The LaTeX exemplars are stored as text (the LaTeX is not kept): the refusal says so
    and names the export that writes the exemplars and their references."""
    got = export(api, demo, kind="deepscholar", file_format="exemplar-latex")
    assert got.status_code == 400
    [error] = errors(got)
    assert error["field"] == "file_format" and "read only" in error["message"]
    assert "LaTeX, which is not kept" in error["message"]
    assert "kind=deepscholar&file_format=exemplar-references" in error["message"]
    page = signed_in(admin_user)
    url = reverse("studies:export_format", args=[demo.pk, "deepscholar", "exemplar-latex"])
    assert page.get(url).status_code == 400


def test_the_nuggetizer_format_is_written(demo, api):
    """It answered "has no writer"; it needs the nuggetizer's model (its judge), and the
    demo holds no nugget: a 404 that says so (the round trip is tested on the release,
    tests/annotation/test_deepscholar_release.py)."""
    missing = export(api, demo, kind="deepscholar", file_format="nuggetizer")
    assert missing.status_code == 400 and errors(missing)[0]["field"] == "judge"
    empty = export(api, demo, kind="deepscholar", file_format="nuggetizer",
                   judge="claude-sonnet-sim")  # fmt: skip
    assert empty.status_code == 404 and "nothing to export" in errors(empty)[0]["message"]


@pytest.mark.parametrize(
    "query, said",
    [({}, "required: the export kind; use one of "),
     ({"kind": "bogus"}, "unknown export kind 'bogus'; use one of "),
     ({"kind": ""}, "required: the export kind; use one of ")],
)  # fmt: skip
def test_a_missing_or_bad_kind_speaks_of_the_export_kinds(demo, api, query, said):
    got = export(api, demo, **query)
    assert got.status_code == 400
    [error] = errors(got)
    assert error["field"] == "kind" and said in error["message"]
    assert "import" not in error["message"]
    assert "reports" in error["message"] and "judge_scores" in error["message"]


def test_a_bad_format_lists_the_formats_written(demo, api):
    got = export(api, demo, kind="reports", file_format="nope")
    [error] = errors(got)
    assert got.status_code == 400 and error["field"] == "file_format"
    assert "unknown reports format 'nope'" in error["message"] and "scholarqa" in error["message"]
