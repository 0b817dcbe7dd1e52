"""DeepScholar-Bench imports: system folders (the query as question text, references
wherever the report puts them), nuggets and exemplar references (JSON lines), and the
judge's labels per unit. Good files import; a malformed file names record and field and
changes nothing."""

import json

import pytest

from annotation.importers import run
from annotation.importers.deepscholar import split_query
from annotation.importers.structure import parse_markdown
from annotation.models import Exemplar, ExemplarReference, Nugget, Question, Report
from judges.models import JudgeDeepScholarLabel
from tests.builders.sources import citations

from .test_import_common import DATA, expect_failure, table_counts

pytestmark = pytest.mark.django_db

DS = DATA / "deepscholar"


def imported(study="S"):
    run("reports", DS / "queried-system", study=study, format="deepscholar")
    run("deepscholar", DS / "nuggets.jsonl", study=study, format="nuggets")
    run("deepscholar", DS / "exemplar_references.jsonl", study=study,
        format="exemplar-references")  # fmt: skip


def test_question_text_is_the_query_from_wherever_the_folder_has_it():
    run("reports", DS / "queried-system", study="S", format="deepscholar")
    texts = dict(Question.objects.values_list("external_id", "text"))
    assert texts == {
        "2401.00001": "Write the related-work section of a paper on graph-based citation "
        "recommendation.",  # front matter of output.md
        "2402.00002": "Write the related-work section of a paper on retrieval for survey "
        "generation.",  # query.txt beats queries.jsonl
        "2403.00003": "Write the related-work section of a paper on scholarly QA datasets.",
    }
    first = Report.objects.get(question__external_id="2401.00001")
    assert "query:" not in " ".join(first.paragraphs.values_list("text", flat=True))


def test_a_stand_in_question_text_gets_the_query_but_a_real_text_stays():
    run("reports", DS / "toy-system", study="S", format="deepscholar")
    assert Question.objects.get(external_id="2401.00001").text == "2401.00001"
    Question.objects.filter(external_id="2402.00002").update(text="An expert's own wording.")
    run("reports", DS / "queried-system", study="S", format="deepscholar")
    texts = dict(Question.objects.values_list("external_id", "text"))
    assert texts["2401.00001"].startswith("Write the related-work section of a paper on graph")
    assert texts["2402.00002"] == "An expert's own wording."


def test_references_are_read_wherever_the_report_puts_them():
    run("reports", DS / "queried-system", study="S", format="deepscholar")

    def cites(paper):
        return {c.key: (c.title, c.url) for c in citations(question__external_id=paper)}

    assert cites("2401.00001")["2"] == (  # under a bold "References:" line
        "Transformers for Citation Recommendation",
        "https://arxiv.org/abs/2222.0002",
    )
    assert cites("2402.00002") == {  # markdown footnotes, no heading
        "1": ("Retrieval-Augmented Survey Writing", "https://arxiv.org/abs/3333.0003"),
        "2": ("Section-wise Generation", "https://arxiv.org/abs/4444.0004"),
    }
    assert cites("2403.00003") == {  # a numbered heading "## 4. References"
        "1": ("Scholarly QA Datasets", "https://arxiv.org/abs/5555.0005")
    }
    body = " ".join(
        Report.objects.get(question__external_id="2402.00002").paragraphs.values_list(
            "text", flat=True
        )
    )
    assert "Section-wise Generation" not in body  # the list is not a paragraph


def test_reference_heading_helpers():
    listed = parse_markdown("Text [1].\n\n[1] A paper. https://x.org/a\n")
    assert [[p.text for p in s.paragraphs] for s in listed.sections] == [["Text [1]."]]
    assert (listed.citations["1"].title, listed.citations["1"].url) == (
        "A paper",
        "https://x.org/a",
    )
    alone = parse_markdown("Text [1] only.\n")
    assert [p.text for p in alone.sections[0].paragraphs] == ["Text [1] only."]
    assert split_query("Query: What?\nBody") == ("What?", "Body")
    assert split_query("No query here") == ("", "No query here")


def test_nuggets_and_exemplar_references_import_and_reimport():
    imported()
    assert list(
        Nugget.objects.filter(question__external_id="2401.00001").values_list("key", "text")
    ) == [("n1", "Graph methods were the first approach."), ("n2", "Transformers replaced them.")]
    assert Nugget.objects.get(question__external_id="2402.00002").key == "1"  # position
    refs = ExemplarReference.objects.filter(question__external_id="2401.00001")
    assert [(r.key, r.url) for r in refs] == [
        ("r1", "https://arxiv.org/abs/1111.0001"), ("r2", "")
    ]  # fmt: skip
    assert Exemplar.objects.get().text.startswith("Citation recommendation began")
    before = table_counts()
    rep = run("deepscholar", DS / "nuggets.jsonl", study="S", format="nuggets")
    assert table_counts() == before and rep.unchanged["Nugget"] == 3


@pytest.mark.parametrize(
    ("name", "fmt", "record", "field", "text"),
    [
        ("nuggets_malformed.jsonl", "nuggets", 1, "nuggets[1].text", "missing"),
        ("nuggets_malformed.jsonl", "nuggets", 2, "question_id", "no question '9999.99999'"),
        ("exemplar_references_malformed.jsonl", "exemplar-references", 1,
         "references[1].id", "again"),
        ("exemplar_references_malformed.jsonl", "exemplar-references", 1,
         "references[2].url", "not an http"),
    ],
)  # fmt: skip
def test_malformed_units_name_record_and_field_and_change_nothing(name, fmt, record, field, text):
    run("reports", DS / "queried-system", study="S", format="deepscholar")
    expect_failure("deepscholar", DS / name, file_part=name, record=record, field=field,
                   text=text, format=fmt)  # fmt: skip


def labels_file(tmp_path, records):
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


GOOD = [
    {"kind": "organization", "question_id": "2401.00001", "system": "queried-system",
     "label": "win"},
    {"kind": "nugget_importance", "question_id": "2401.00001", "unit": "n1", "label": "vital"},
    {"kind": "nugget_support", "question_id": "2401.00001", "system": "queried-system",
     "unit": "n2", "label": "partially_supported"},
    {"kind": "retrieval_relevance", "question_id": "2401.00001", "system": "queried-system",
     "unit": "2", "label": 2},
    {"kind": "reference_importance", "question_id": "2401.00001", "unit": "r2",
     "label": "not_important"},
    {"kind": "entailment", "question_id": "2401.00001", "system": "queried-system",
     "unit": "1:1", "label": "entailed", "rationale": "The source says so."},
]  # fmt: skip


def test_judge_labels_import(tmp_path):
    imported()
    path = labels_file(tmp_path, GOOD)
    rep = run("judge_scores", path, study="S", format="deepscholar-labels", judge="gpt-4o")
    assert rep.created["JudgeDeepScholarLabel"] == 6
    got = {(r.kind, r.unit, r.label, r.report_id is not None)
           for r in JudgeDeepScholarLabel.objects.all()}  # fmt: skip
    assert got == {
        ("organization", "", "win", True), ("nugget_importance", "n1", "vital", False),
        ("nugget_support", "n2", "partially_supported", True),
        ("retrieval_relevance", "2", "2", True),
        ("reference_importance", "r2", "not_important", False),
        ("entailment", "1:1", "entailed", True),
    }  # fmt: skip
    before = table_counts()
    run("judge_scores", path, study="S", format="deepscholar-labels", judge="gpt-4o")
    assert table_counts() == before  # by natural key: no duplicates


def test_a_labels_dry_run_names_the_changed_labels(tmp_path):
    """Re-importing with two labels changed lists exactly those two (the judge, the unit,
    old -> new), as report imports list theirs, and writes nothing."""
    from annotation.importers.base import Change

    imported()
    run("judge_scores", labels_file(tmp_path, GOOD), study="S", format="deepscholar-labels",
        judge="gpt-4o")  # fmt: skip
    before = sorted(JudgeDeepScholarLabel.objects.values_list("kind", "unit", "label"))
    changed = [GOOD[0], {**GOOD[1], "label": "non_vital"}, *GOOD[2:5],
               {**GOOD[5], "label": "not_entailed"}]  # fmt: skip
    rep = run("judge_scores", labels_file(tmp_path, changed), study="S",
              format="deepscholar-labels", judge="gpt-4o", dry_run=True)  # fmt: skip
    assert rep.changes == [
        Change("JudgeDeepScholarLabel",
               "judge 'gpt-4o', nugget_importance of question '2401.00001', unit 'n1'",
               ("label",), detail="label 'vital' -> 'non_vital'"),
        Change("JudgeDeepScholarLabel",
               "judge 'gpt-4o', entailment of question '2401.00001', system 'queried-system', "
               "unit '1:1'", ("label",), detail="label 'entailed' -> 'not_entailed'"),
    ]  # fmt: skip
    assert sorted(JudgeDeepScholarLabel.objects.values_list("kind", "unit", "label")) == before


@pytest.mark.parametrize(
    ("bad", "field", "text"),
    [
        ({"kind": "novelty"}, "kind", "not one of"),
        ({"label": "maybe"}, "label", "not a nugget_support label"),
        ({"unit": "n9"}, "unit", "no nugget 'n9'"),
        ({"system": "nobody"}, "system", "no report of system 'nobody'"),
        ({"kind": "entailment", "label": "entailed", "unit": "7:1"}, "unit", "no paragraph 7"),
        ({"kind": "retrieval_relevance", "label": "1", "unit": "99"}, "unit", "cites no source"),
        ({"question_id": "0000.00000"}, "question_id", "no question"),
    ],
)
def test_malformed_judge_labels_name_record_and_field_and_change_nothing(tmp_path, bad, field,
                                                                        text):  # fmt: skip
    imported()
    record = {**GOOD[2], **bad}
    path = labels_file(tmp_path, [GOOD[0], record])
    expect_failure("judge_scores", path, file_part="labels.jsonl", record=2, field=field,
                   text=text, format="deepscholar-labels", judge="gpt-4o")  # fmt: skip


def test_deepscholar_tasks_are_enabled_only_with_deepscholar_units():
    from annotation.models import Study
    from annotation.readiness import DEEPSCHOLAR, supported_tasks

    rep = run("reports", DS / "queried-system", study="S", format="deepscholar")
    assert rep.enabled_tasks and not set(rep.enabled_tasks) & DEEPSCHOLAR
    run("deepscholar", DS / "nuggets.jsonl", study="S", format="nuggets")
    # each task needs its own units (issue 26): organization the exemplar, reference
    # importance its references
    exemplar = {"organization", "reference_importance"}
    supported = set(supported_tasks(Study.objects.get(name="S")))
    assert supported >= DEEPSCHOLAR - exemplar and not supported & exemplar
    # and the study enables them (issue 26): reports first, then the units, enabled none
    assert set(Study.objects.get(name="S").tasks) >= DEEPSCHOLAR - exemplar
    rep = run("deepscholar", DS / "exemplar_references.jsonl", study="S",
              format="exemplar-references")  # fmt: skip
    assert set(supported_tasks(Study.objects.get(name="S"))) >= DEEPSCHOLAR
    assert set(rep.enabled_tasks) == exemplar
    assert set(Study.objects.get(name="S").tasks) >= DEEPSCHOLAR


def test_judge_labels_round_trip(tmp_path):
    from annotation.models import Study
    from judges.formats.deepscholar_labels import dump

    imported()
    run("judge_scores", labels_file(tmp_path, GOOD), study="S", format="deepscholar-labels",
        judge="gpt-4o")  # fmt: skip
    files = dump(Study.objects.get(name="S"), judge="gpt-4o")
    path = tmp_path / "written.jsonl"
    path.write_text(files["deepscholar_labels.jsonl"])
    run("judge_scores", path, study="S", format="deepscholar-labels", judge="copy")

    def labels(judge):
        return {(r.kind, r.question_id, r.report_id, r.unit, r.label, r.rationale)
                for r in JudgeDeepScholarLabel.objects.filter(judge__name=judge)}  # fmt: skip

    assert labels("copy") == labels("gpt-4o") and len(labels("copy")) == 6
