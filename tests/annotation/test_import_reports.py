"""Report importers: structure, citations, re-import, bad files, the real ScholarQA-CS2 reports."""

import io
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers import question_key, run
from annotation.models import (
    Citation,
    Paragraph,
    Question,
    Report,
    Section,
    Study,
)
from tests.builders.sources import anchors, citation, citations

from .test_import_common import DATA, expect_failure, table_counts, write


def by_original(report, key: str) -> Citation:
    """The citation a system called ``key``: keys are normalised to ``n`` at import and
    the original key is kept in ``Report.original`` (issue 12)."""
    report.refresh_from_db()
    [n] = [c["normalised_key"] for c in report.original["citations"] if c["key"] == key]
    return citation(report, n)


def stored_sources() -> tuple[int, int]:
    """How many sources and anchors every report stores: they are JSON on the report and
    paragraph rows (issue 29), so :func:`table_counts` no longer counts them."""
    return len(citations(Report.objects.all())), len(anchors(Paragraph.objects.all()))


def good():
    return json.loads((DATA / "scholarqa_reports.json").read_text())


@pytest.mark.django_db
def test_scholarqa_structure():
    rep = run(
        "reports", DATA / "scholarqa_reports.json", study="S", format="scholarqa", system="sqa"
    )
    assert rep.records == 2 and rep.created["Report"] == 2
    q = Question.objects.get(external_id=question_key(good()[0]["question"]))
    report = Report.objects.get(question=q)
    assert report.source_format == "scholarqa" and report.system.name == "sqa"
    paras = list(Paragraph.objects.filter(report=report).order_by("number"))
    assert [p.number for p in paras] == [1, 2, 3]
    assert paras[0].text.startswith("Sparse mixture-of-experts")  # leading newline dropped
    assert Section.objects.filter(report=report).count() == 2
    assert Section.objects.get(report=report, position=2).table["columns"] == ["model", "experts"]
    # one Citation per key across sections, snippets merged; title-only kept as such
    fedus = by_original(report, "(Fedus et al., 2022)")
    assert len(fedus.snippets) == 2
    assert by_original(report, "(Zoph et al., 2022)").kind == "title_only"
    marked = anchors(pk=paras[0].pk)
    for start, end, key, _ in marked:
        assert paras[0].text[start:end] == f"[{key}]"  # one marker style
    assert len(marked) == 2
    # numeric ids appear as [n]; [1930] is no citation; a bare citation is kept
    other = Report.objects.exclude(pk=report.pk).get()
    first = Paragraph.objects.get(report=other, number=1)
    marks = [first.text[start:end] for start, end, _, _ in anchors(pk=first.pk)]
    assert marks == ["[1]", "[2]", "[3]"]
    assert citation(other, "3").kind == "bare"
    assert not anchors(report=other, number=2)


@pytest.mark.django_db
def test_json_lines_reports_with_urls():
    run("reports", DATA / "scholarqa_reports.jsonl", study="S", format="scholarqa", system="storm")
    report = Report.objects.get()
    cit = by_original(report, "[1]")
    assert cit.url == "https://example.org/rag" and cit.kind == "snippet"
    assert sum(1 for *_, key, _ in anchors(report=report) if key == cit.key) == 2


@pytest.mark.django_db
def test_reimport_is_idempotent_and_updates_changes(tmp_path):
    run("reports", DATA / "scholarqa_reports.json", study="S", format="scholarqa", system="sqa")
    before, sources = table_counts(), stored_sources()
    public_ids = set(Report.objects.values_list("public_id", flat=True))
    again = run(
        "reports", DATA / "scholarqa_reports.json", study="S", format="scholarqa", system="sqa"
    )
    assert table_counts() == before and again.unchanged["Report"] == 2 and not again.created
    assert stored_sources() == sources
    data = good()
    data[1]["response"]["sections"][0]["text"] += "\n\nA new paragraph [2]."
    path = tmp_path / "r.json"  # laid out as the first file (indent 2, no final newline)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    changed = run("reports", path, study="S", format="scholarqa", system="sqa")
    assert changed.updated["Report"] == 1 and changed.unchanged["Report"] == 1
    assert set(Report.objects.values_list("public_id", flat=True)) == public_ids
    assert Paragraph.objects.count() == before["annotation.Paragraph"] + 1
    # the same records laid out otherwise: the same reports, counted unchanged, and the new
    # layout kept, so the export writes the file imported last (released.without_layout)
    relaid = run(
        "reports", write(tmp_path, "relaid.json", data), study="S", format="scholarqa", system="sqa"
    )
    assert relaid.unchanged["Report"] == 2 and not relaid.updated and not relaid.changes
    assert Paragraph.objects.count() == before["annotation.Paragraph"] + 1
    report = Report.objects.filter(system__name="sqa").first()
    assert report.original["released"][0]["layout"]["indent"] is None  # write(): one line


@pytest.mark.django_db
def test_reports_dry_run():
    before = table_counts()
    rep = run(
        "reports",
        DATA / "scholarqa_reports.json",
        study="S",
        format="scholarqa",
        system="sqa",
        dry_run=True,
    )
    assert rep.created["Paragraph"] == 5 and table_counts() == before


def _mutated(tmp_path, fn, name="bad.json"):
    data = good()
    fn(data)
    return write(tmp_path, name, data)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "mutate, record, field, text",
    [
        (lambda d: d[1].pop("question"), 2, "question", "missing"),
        (lambda d: d[0].update(question=5), 1, "question", "expected a string"),
        (
            lambda d: d[1]["response"].update(sections="x"),
            2,
            "response.sections",
            "expected a list",
        ),
        (
            lambda d: d[0]["response"]["sections"][1].pop("text"),
            1,
            "response.sections[1].text",
            "missing",
        ),
        (
            lambda d: d[0]["response"]["sections"][0]["citations"][0].pop("id"),
            1,
            "response.sections[0].citations[0].id",
            "missing",
        ),
        (
            lambda d: d[0]["response"]["sections"][0]["citations"][1].update(snippets="s"),
            1,
            "response.sections[0].citations[1].snippets",
            "list",
        ),
        (
            lambda d: d[0]["response"]["sections"][0]["citations"][0].update(id=3.5),
            1,
            "response.sections[0].citations[0].id",
            "expected a string or integer id",
        ),
        (
            lambda d: d[0]["response"]["sections"][1]["citations"].append(
                {"id": " ", "title": "", "snippets": [""], "metadata": None}
            ),
            1,
            "response.sections[1].citations[2].id",
            "no title, url or snippet",
        ),
        (  # a repeated question's report is checked like any other
            lambda d: d.append({"question": d[0]["question"], "response": {"sections": 1}}),
            3,
            "response.sections",
            "expected a list",
        ),
    ],
)
def test_bad_report_files(tmp_path, mutate, record, field, text):
    run("reports", DATA / "scholarqa_reports.jsonl", study="S", format="scholarqa", system="storm")
    path = _mutated(tmp_path, mutate)
    expect_failure(
        "reports",
        path,
        file_part="bad.json",
        record=record,
        field=field,
        text=text,
        format="scholarqa",
        system="sqa",
    )


# --- Oddities of the released files: imported whole, by a rule, with a warning ------------


def _import(path, **options):
    return run("reports", path, study="S", format="scholarqa", system="sqa", **options)


def _report_of(record: dict) -> Report:
    return Report.objects.get(question__external_id=question_key(record["question"]))


@pytest.mark.django_db
def test_a_citation_with_an_empty_id_is_a_listed_source_under_a_generated_key(tmp_path):
    data = good()
    sections = data[0]["response"]["sections"]
    sections[0]["citations"].append({"id": "", "title": "A Survey of Routing", "snippets": ["a"]})
    sections[1]["citations"] += [
        {"id": " ", "title": "A Survey of Routing", "snippets": ["b"], "metadata": None},
        {"id": "", "title": "Switch Transformers", "snippets": ["c"]},  # a keyed source's title
    ]
    rep = _import(write(tmp_path, "r.json", data))
    assert rep.records == 2 and rep.created["Report"] == 2
    report = _report_of(data[0])
    survey = by_original(report, "no-id-1")  # one source, listed twice
    assert survey.title == "A Survey of Routing" and survey.snippets == ["a", "b"]
    assert survey.key not in {key for *_, key, _ in anchors(report=report)}  # no marker cites it
    assert by_original(report, "(Fedus et al., 2022)").snippets[-1] == "c"
    assert len(citations(pk=report.pk)) == 4
    assert [(w.record, w.field) for w in rep.warnings] == [
        (1, "response.sections[0].citations[2].id"),
        (1, "response.sections[1].citations[3].id"),
    ]
    assert "'no-id-1'" in rep.warnings[0].message and "1 more" in rep.warnings[0].message
    assert "with id '(Fedus et al., 2022)'" in rep.warnings[1].message
    assert "2 warning(s)" in rep.summary() and "record 1" in rep.summary()


@pytest.mark.django_db
def test_a_marker_citing_no_listed_source_stays_a_plain_numbered_marker(tmp_path):
    data = good()
    data[1]["response"]["sections"][0]["citations"].pop(1)  # "[2]" now cites nothing listed
    rep = _import(write(tmp_path, "r.json", data))
    assert rep.records == 2 and rep.created["Report"] == 2
    [warning] = rep.warnings
    assert (warning.record, warning.field) == (2, "response.sections[0].text")
    assert warning.message.startswith("[2] cites no listed source")
    report = _report_of(data[1])
    keys = {c.key for c in citations(pk=report.pk)}
    assert keys == {"1", "2"}  # no source invented for the marker
    # numbered after every listed source, in the one style, and linked to nothing
    unlisted = str(len(keys) + 1)
    assert report.original["unlisted_markers"] == [{"marker": "[2]", "normalised_key": unlisted}]
    paragraph = Paragraph.objects.get(report=report, number=1)
    assert paragraph.text.endswith(f"extend them [{unlisted}][{by_original(report, '3').key}].")
    start = paragraph.text.rindex(f"[{unlisted}]")
    assert start not in {a for a, *_ in anchors(pk=paragraph.pk)}
    assert len(anchors(pk=paragraph.pk)) == 2
    again = _import(write(tmp_path, "r.json", data))  # stable on re-import
    assert again.unchanged["Report"] == 2 and not again.created


@pytest.mark.django_db
def test_a_question_given_twice_with_the_same_report_is_imported_once(tmp_path):
    data = good()
    data.append(json.loads(json.dumps(data[0])))
    rep = _import(write(tmp_path, "r.json", data))
    assert rep.records == 3 and rep.created["Report"] == 2 and Report.objects.count() == 2
    [warning] = rep.warnings
    assert (warning.record, warning.field) == (3, "question")
    assert "same question and report as record 1" in warning.message
    assert "set_aside" not in _report_of(data[0]).original


@pytest.mark.django_db
def test_a_question_given_twice_with_another_report_keeps_the_first_for_annotators(tmp_path):
    data = good()
    second = json.loads(json.dumps(data[0]))
    second["response"]["sections"][0]["text"] = "Another run's answer (Shazeer et al., 2017)."
    data.append(second)
    path = write(tmp_path, "r.json", data)
    out = io.StringIO()
    call_command("import_reports", str(path), study="S", system="sqa", format="scholarqa",
                 stdout=out)  # fmt: skip
    assert Report.objects.count() == 2
    report = _report_of(data[0])
    first = Paragraph.objects.filter(report=report).order_by("number").first()
    assert first.text.startswith("Sparse mixture-of-experts")  # record 1's report
    assert not Paragraph.objects.filter(text__contains="Another run").exists()
    # record 3's report is not lost: researchers read it in the original
    assert report.original["set_aside"] == [{"record": 3, "response": second["response"]}]
    printed = out.getvalue()
    assert "1 warning(s)" in printed and "record 3, field 'question'" in printed
    assert "same question as record 1 with a different report" in printed


@pytest.mark.django_db
def test_import_warnings_reach_the_api_answer(admin_user):
    data = good()
    data.append(json.loads(json.dumps(data[0])))
    client = APIClient()
    client.force_login(admin_user)
    response = client.post(
        reverse("study-import", args=[Study.objects.create(name="S").pk]),
        {"kind": "reports", "format": "scholarqa", "options": '{"system": "sqa"}',
         "file": SimpleUploadedFile("r.json", json.dumps(data).encode())},
        format="multipart",
    )  # fmt: skip
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["records"] == 3 and "1 warning(s)" in body["summary"]
    [warning] = body["warnings"]
    assert (warning["record"], warning["field"]) == (3, "question")


@pytest.mark.django_db
def test_invalid_truncated_and_wrong_format(tmp_path):
    text = (DATA / "scholarqa_reports.json").read_text()
    expect_failure(
        "reports",
        write(tmp_path, "trunc.json", text[: len(text) // 2]),
        file_part="trunc.json",
        text="invalid JSON",
        format="scholarqa",
        system="s",
    )
    lines = (DATA / "scholarqa_reports.jsonl").read_text() + '{"question": "x", "resp'
    expect_failure(
        "reports",
        write(tmp_path, "cut.jsonl", lines),
        file_part="cut.jsonl",
        record=2,
        text="invalid JSON line",
        format="scholarqa",
        system="s",
    )
    expect_failure(
        "reports",
        DATA / "researchqa_responses.json",
        file_part="researchqa_responses.json",
        text="this looks like a ResearchQA responses file",
        format="scholarqa",
        system="s",
    )
    expect_failure(
        "reports",
        DATA / "scholarqa_reports.json",
        file_part="scholarqa_reports.json",
        text="import it as reports, format scholarqa",
        format="researchqa",
        system="s",
    )
    expect_failure(
        "reports",
        DATA / "scholarqa_reports.json",
        file_part="scholarqa_reports.json",
        text="this looks like a ScholarQA-CS2 report file",
        format="researcherbench",
        system="s",
    )
    expect_failure(
        "reports",
        write(tmp_path, "empty.json", ""),
        file_part="empty.json",
        text="empty",
        format="scholarqa",
        system="s",
    )


@pytest.mark.django_db
def test_researchqa_responses():
    run("questions", DATA / "researchqa_questions.jsonl", study="S", format="researchqa")
    rep = run(
        "reports", DATA / "researchqa_responses.json", study="S", format="researchqa", system="gpt"
    )
    assert rep.created["Report"] == 2 and rep.unchanged["Question"] == 2
    report = Report.objects.get(question__external_id="rqa-001")
    assert list(report.sections.values_list("title", flat=True)) == [
        "Attribution"
    ]  # references consumed
    c1 = by_original(report, "1")
    assert c1.title == "Attributed Question Answering" and c1.url == "https://example.org/aqa"
    assert by_original(report, "https://example.org/survey").title == "a survey"
    p = report.paragraphs.get(number=1)
    marks = [p.text[start:end] for start, end, _, _ in anchors(pk=p.pk)]
    assert len(marks) == 3 and all(re.fullmatch(r"\[\d+\]", m) for m in marks)
    other = Report.objects.get(question__external_id="rqa-002")
    assert [by_original(other, "(Logsdon et al., 2020)")] == citations(pk=other.pk)
    assert "(Logsdon et al., 2020)" not in other.paragraphs.get(number=1).text
    assert other.paragraphs.count() == 2


@pytest.mark.django_db
def test_researcherbench_responses_create_questions():
    rep = run(
        "reports",
        DATA / "researcherbench_responses.json",
        study="S",
        format="researcherbench",
        system="dr",
    )
    assert rep.created["Question"] == 2
    assert Question.objects.get(external_id="1").text.startswith("What are open problems")
    report = Report.objects.get(question__external_id="2")
    assert citation(report, "1").url == "https://example.org/lean"


@pytest.mark.django_db
def test_deepscholar_folder():
    folder = DATA / "deepscholar" / "toy-system"
    rep = run("reports", folder, study="S", format="deepscholar")
    assert rep.created["Report"] == 2
    report = Report.objects.get(question__external_id="2401.00001")
    assert report.system.name == "toy-system"
    assert citation(report, "2").url == "https://arxiv.org/abs/2222.0002"
    expect_failure(
        "reports",
        DATA / "scholarqa_reports.json",
        file_part="scholarqa_reports.json",
        format="deepscholar",
        system="x",
        text="folder",
    )
    expect_failure(
        "reports",
        DATA / "deepscholar",
        file_part="deepscholar",
        format="deepscholar",
        text="several systems",  # the folder of every system, not one system's
    )


@pytest.mark.django_db
def test_import_reports_command(tmp_path):
    call_command(
        "import_reports",
        str(DATA / "scholarqa_reports.json"),
        study="S",
        system="sqa",
        format="scholarqa",
        dry_run=True,
    )
    assert Report.objects.count() == 0
    call_command(
        "import_reports",
        str(DATA / "scholarqa_reports.json"),
        study="S",
        system="sqa",
        format="scholarqa",
    )
    assert Report.objects.count() == 2
    bad = write(tmp_path, "bad.json", [{"question": "q"}])
    with pytest.raises(CommandError, match=r"bad.json, record 1, field 'response'"):
        call_command("import_reports", str(bad), study="S", system="sqa", format="scholarqa")


REAL_REPORTS = {
    "sqa.json": "sqa",
    "sqa-qwen3_8b_SFT_fullanswer.jsonl": "qwen-sqa",
    "openai-dr.json": "openai-dr",
    "perplexity.json": "perplexity",
    "storm.json": "storm",
}


@pytest.mark.django_db
def test_real_scholarqa_reports(scholarqa_dir):
    folder = scholarqa_dir / "reports" / "expert_written"
    expected_paragraphs = 0
    for name, system in REAL_REPORTS.items():
        text = (folder / name).read_text()
        try:
            records = json.loads(text)
        except json.JSONDecodeError:
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
        rep = run("reports", folder / name, study="CS2", format="scholarqa", system=system)
        assert rep.records == len(records) == 25
        expected_paragraphs += sum(
            len([p for p in s["text"].split("\n\n") if p.strip()])
            for r in records
            for s in r["response"]["sections"]
        )
    assert Question.objects.count() == 25  # the same 25 expert-authored questions
    assert Report.objects.count() == 125
    assert Section.objects.count() == 136 + 128 + 162 + 292 + 155
    assert Paragraph.objects.count() == expected_paragraphs
    assert len(anchors(Paragraph.objects.all())) > 5000
    # citation kinds as released: perplexity title-only, storm snippet-only
    assert {c.kind for c in citations(system__name="perplexity")} == {"title_only"}
    assert {c.kind for c in citations(system__name="storm")} == {"snippet"}
    before, sources = table_counts(), stored_sources()
    again = run("reports", folder / "sqa.json", study="CS2", format="scholarqa", system="sqa")
    assert again.unchanged["Report"] == 25 and table_counts() == before
    assert stored_sources() == sources


@pytest.mark.django_db
def test_researchqa_released_system_outputs_list_shape():
    """The 18 systems' released outputs are ``[{corpusid_sectionid, answer}]`` (the shape
    ResearchQA's ``src/judge_systems_by_gpt.py`` reads): they store exactly what the mapping
    shape ``{id: {answer}}`` of the same answers stores (issue 25)."""
    from annotation.importers.structure import stored_canonical

    for study, name in (("M", "researchqa_responses.json"),
                        ("L", "researchqa_responses_listed.json")):  # fmt: skip
        run("questions", DATA / "researchqa_questions.jsonl", study=study, format="researchqa")
        rep = run("reports", DATA / name, study=study, format="researchqa", system="gpt")
        assert rep.created["Report"] == 2 and rep.records == 2

    def stored(study):
        rows = Report.objects.filter(question__study__name=study)
        ids = dict(rows.values_list("id", "question__external_id"))
        return {ids[rid]: value for rid, value in stored_canonical(list(ids)).items()}

    assert stored("L") == stored("M") and len(stored("L")) == 2
    again = run("reports", DATA / "researchqa_responses_listed.json", study="L",
                format="researchqa", system="gpt")  # fmt: skip
    assert again.unchanged["Report"] == 2 and "Report" not in again.updated


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("records", "record", "field", "text"),
    [
        ([{"answer": "An answer."}], 1, "corpusid_sectionid", "missing required field"),
        ([{"corpusid_sectionid": "rqa-001"}], 1, "answer", "missing required field"),
        (
            [
                {"corpusid_sectionid": "rqa-001", "answer": "A."},
                {"corpusid_sectionid": "rqa-001", "answer": "B."},
            ],
            2,
            "corpusid_sectionid",
            "already given by record 1",
        ),  # fmt: skip
    ],
)
def test_researchqa_list_shape_problems_name_record_and_field(tmp_path, records, record, field,
                                                              text):  # fmt: skip
    expect_failure(
        "reports",
        write(tmp_path, "outputs.json", json.dumps(records)),
        file_part="outputs.json",
        record=record,
        field=field,
        text=text,
        format="researchqa",
        system="s",
    )
