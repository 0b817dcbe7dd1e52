"""``manage.py normalise_reports`` rebuilds a stored report from its kept record (issue 12).

A report imported under an older normaliser keeps that normalisation until its file is
imported again: a source the current normaliser finds (an author-year marker citing no
listed source) is missing from its sources. The command reads the record kept as released
again and stores what a fresh import of it stores, sources included; a report someone's
work points at is left as it is and listed.
"""

import io
import json

import pytest
from django.core.management import call_command

from annotation.importers import run
from annotation.importers.structure import stored_canonical
from annotation.models import Draft, Paragraph, ParagraphRelevance, Report, ReportClaim, Study
from annotation.models.jsontext import same_text
from tests.builders import world as f
from tests.builders.users import make_user

#: The marker the current normaliser makes a source of ("Ouyang et al., 2022"), though the
#: record lists none for it.
UNLISTED = "(Ouyang et al., 2022)"


def records() -> list[dict]:
    """Two ScholarQA-CS2 records, each citing a source its record does not list."""
    return [
        {
            "question": f"Question {n}?",
            "response": {
                "sections": [
                    {
                        "title": "Intro",
                        "text": f"Claim {n} (Rego et al., 2022). Aligned models {UNLISTED} help.",
                        "citations": [{"id": "(Rego et al., 2022)", "title": f"Paper {n}"}],
                    }
                ]
            },
        }
        for n in (1, 2)
    ]


def imported(study: str) -> list[Report]:
    run("reports", json.dumps(records()).encode(), study=study, format="scholarqa", system="sqa")
    return list(Report.objects.filter(question__study__name=study).order_by("question__text"))


def aged(report: Report) -> None:
    """Store ``report`` as a normaliser that did not know the unlisted marker stored it:
    the marker left as written, no anchor on it, no source for it, none in its original."""
    para = Paragraph.objects.get(report=report)
    anchors = [a for a in para.anchors if para.text[a[0] : a[1]] != "[2]"]
    assert len(anchors) == len(para.anchors) - 1  # the import anchored it as source 2
    Paragraph.objects.filter(pk=para.pk).update(
        text=para.text.replace("[2]", UNLISTED), anchors=anchors
    )
    original = dict(report.original)
    original["citations"] = original["citations"][:1]
    original.pop("unlisted_markers", None)
    Report.objects.filter(pk=report.pk).update(citations=report.citations[:1], original=original)


def state(report: Report):
    """What annotators and researchers read of ``report``: its structure, sources, original."""
    stored = Report.objects.get(pk=report.pk)
    return stored_canonical([report.pk])[report.pk], stored.original, stored.content_version


def command(*args) -> str:
    out = io.StringIO()
    call_command("normalise_reports", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_a_rebuilt_report_is_what_a_fresh_import_stores_and_gains_the_source():
    report, other = imported("Old")
    assert len(report.citations) == 2  # today's normaliser: the marker is a source
    aged(report)
    before = state(report)
    untouched = state(other)

    out = command("--study", "Old")

    assert f"report {report.pk} ({report.public_id}): rebuilt from its kept record" in out
    assert "0 sections, 1 paragraphs, 1 sources changed (1 -> 2 sources)" in out
    assert "rebuilt 1 reports from their kept records" in out
    assert f"report {other.pk} " not in out  # already as imported: not listed, not written
    assert state(other) == untouched
    structure, original, version = state(report)
    fresh_report = imported("Fresh")[0]
    fresh_structure, fresh_original, _ = state(fresh_report)
    assert structure == fresh_structure
    assert same_text(original, fresh_original)
    titles = [c["title"] for c in Report.objects.get(pk=report.pk).citations]
    assert titles == ["Paper 1", "Ouyang et al., 2022"]  # the source the old one lacked
    assert version == before[2] + 1  # a rendering kept for the old text is not shown again


@pytest.mark.django_db
def test_a_judged_report_is_kept_as_it_is_and_listed():
    report, other = imported("S")
    aged(report)
    aged(other)
    study = Study.objects.get(name="S")
    expert = make_user("rebuild_expert", "annotator", annotator=True).annotator
    ParagraphRelevance.objects.create(
        study=study, annotator=expert, question=report.question,
        paragraph=Paragraph.objects.get(report=report), label="U",
    )  # fmt: skip
    drafted = f.assignment(expert, other.question, task="relevance", order=[other.pk])
    Draft.objects.create(assignment=drafted, payload={"answers": {}})
    judged, with_draft = state(report), state(other)

    out = command()

    assert state(report) == judged and state(other) == with_draft
    assert (
        f"kept report {report.pk} ({report.public_id}) as it is: it has relevance judgments "
        "(would rebuild from its kept record: 0 sections, 1 paragraphs, 1 sources changed"
    ) in out
    assert f"kept report {other.pk} ({other.public_id}) as it is: it has drafts" in out
    assert "rebuilt 0 reports" in out and "kept 2 reports as they are" in out


@pytest.mark.django_db
def test_a_report_with_claims_is_kept_as_it_is():
    """An imported claim names its paragraph and its sources by key: a rebuild renumbering
    them would leave it citing another source."""
    report, _ = imported("S")
    aged(report)
    ReportClaim.objects.create(
        report=report, paragraph=Paragraph.objects.get(report=report), text="Claim 1",
        citation_keys=["1"],
    )  # fmt: skip
    before = state(report)

    out = command()

    assert f"kept report {report.pk} ({report.public_id}) as it is: it has claims (" in out
    assert state(report) == before


@pytest.mark.django_db
def test_dry_run_lists_what_would_change_and_writes_nothing():
    report, _ = imported("S")
    aged(report)
    before = state(report)

    out = command("--dry-run")

    assert (
        f"report {report.pk} ({report.public_id}): would rebuild from its kept record: "
        "0 sections, 1 paragraphs, 1 sources changed (1 -> 2 sources)"
    ) in out
    assert "would rebuild 1 reports from their kept records" in out
    assert state(report) == before


@pytest.mark.django_db
def test_a_second_run_changes_nothing():
    report, other = imported("S")
    aged(report)
    assert "rebuilt 1 reports" in command()
    after = state(report), state(other)

    out = command()

    assert "rebuilt 0 reports" in out and f"report {report.pk} " not in out
    assert (state(report), state(other)) == after


@pytest.mark.django_db
def test_a_kept_record_that_no_longer_reads_is_listed_and_left_as_it_is():
    report, _ = imported("S")
    aged(report)
    original = dict(report.original)
    original["released"] = [{**original["released"][0], "data": {"question": "Question 1?"}}]
    Report.objects.filter(pk=report.pk).update(original=original)
    before = state(report)

    out = command()

    assert f"kept report {report.pk} ({report.public_id}) as it is: its kept scholarqa " in out
    assert "response" in out.split(f"kept report {report.pk}")[1].splitlines()[0]
    assert state(report) == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fmt", "file"),
    [
        ("scholarqa", "scholarqa_reports.json"),
        ("scholarqa", "scholarqa_reports.jsonl"),
        ("researcherbench", "researcherbench_responses.json"),
        ("researchqa", "researchqa_responses.json"),
        ("researchqa", "researchqa_responses_listed.json"),
    ],
)
def test_each_format_reads_its_kept_record_as_its_import_did(fmt, file):
    """Every format that keeps its records rebuilds a report just imported as it is: its
    ``reread`` reads a kept record as the import read the file."""
    from .test_import_common import DATA

    run("reports", DATA / file, study="S", format=fmt, system="sys")
    reports = list(Report.objects.all())
    assert reports and all(r.original.get("released") for r in reports)
    before = [state(r) for r in reports]

    out = command()

    assert "rebuilt 0 reports" in out and "kept 0 reports" in out
    assert [state(r) for r in reports] == before
