"""Round trips of the benchmarks' own files (issue 25): a report or question file imported
and exported in its format comes back as released, up to key order (JSON objects compare
as dicts), and export -> re-import -> export is identical. Annotators still read the
normalised report. Tested on the released ScholarQA-CS2 and ResearcherBench files in
``../shared/data`` and on ResearchQA fixtures in the shapes its repository's code reads and
writes (its data is on Hugging Face)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotation.importers import run
from annotation.importers.registry import FORMATS
from annotation.models import Paragraph, Question, Report, Study, System
from tests.builders.released import shared
from tests.builders.sources import citations

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parent.parent / "data"


def read(path: Path):
    """A JSON file, or JSON lines, as Python data."""
    text = path.read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def dump(kind: str, fmt: str, study: str, folder: Path, **options) -> dict[str, Path]:
    files = FORMATS[(kind, fmt)].dump(Study.objects.get(name=study), **options)
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, text in files.items():
        out[name] = folder / name
        out[name].write_text(text, encoding="utf-8")
    return out


def reports_round_trip(tmp_path, fmt: str, path: Path, system: str):
    """Import ``path``, export it, re-import the export into a new study, export again."""
    run("reports", path, study="first", format=fmt, system=system)
    first = dump("reports", fmt, "first", tmp_path / "1", system=system)[f"{system}.json"]
    run("reports", first, study="second", format=fmt, system=system)
    second = dump("reports", fmt, "second", tmp_path / "2", system=system)[f"{system}.json"]
    return first, second


SCHOLARQA_FILES = [
    f"{folder}/{name}"
    for folder, names in (
        ("dev", ("claude-sonnet-4-20250514.json", "falcon.json",
                 "gemini-2.5-pro-preview-03-25.json", "perplexity.json", "you.json")),
        ("test", ("claude-sonnet-4-20250514.json", "gemini-2.5-pro-preview-03-25.json",
                  "sqa-qwen3_8b_SFT_fullanswer.json", "you.json")),
        ("expert_written", ("openai-dr.json", "perplexity.json", "sqa.json",
                            "sqa-qwen3_8b_SFT_fullanswer.jsonl", "storm.json")),
    )
    for name in names
]  # fmt: skip


@pytest.mark.shared_data
@pytest.mark.parametrize("name", SCHOLARQA_FILES)
def test_released_scholarqa_report_files_come_back_as_released(tmp_path, name):
    """Inline author-year markers, ids, ``tokens``, ``corpus_id``, titles, "TLDR;", table
    citations and ``null`` all come back as the file has them; the repeated questions of
    dev/you and the empty reports of dev/gemini included."""
    path = shared("scholarqa-cs2", "reports", *name.split("/"))
    first, second = reports_round_trip(tmp_path, "scholarqa", path, "sys")
    assert read(first) == read(path)
    assert second.read_bytes() == first.read_bytes()


@pytest.mark.shared_data
def test_annotators_still_read_the_normalised_report():
    """The export gives the original back; what is stored for annotators stays normalised
    (one ``[n]`` style, no "TLDR;")."""
    path = shared("scholarqa-cs2", "reports", "test", "sqa-qwen3_8b_SFT_fullanswer.json")
    run("reports", path, study="first", format="scholarqa", system="qwen-sqa")
    released = json.dumps(read(path))
    assert "TLDR" in released and "| Citations:" in released
    texts = " ".join(Paragraph.objects.values_list("text", flat=True))
    assert "TLDR" not in texts and "| Citations:" not in texts
    assert "1" in {c.key for c in citations(Report.objects.all())}


@pytest.mark.shared_data
@pytest.mark.parametrize(
    "system", ["Claude", "OpenAI", "Doubao", "Mita", "gpt-4o-search-preview", "Perplexity"]
)
def test_released_researcherbench_responses_come_back_as_released(tmp_path, system):
    """Reference lines keep their final period; every response exactly as released."""
    path = shared("researcherbench", "user_data", f"{system}.json")
    first, second = reports_round_trip(tmp_path, "researcherbench", path, system)
    assert read(first) == read(path)
    assert second.read_bytes() == first.read_bytes()


@pytest.mark.shared_data
def test_released_researcherbench_questions_and_rubric_come_back_as_released(tmp_path):
    """``questions.json`` with its ``Subject`` and integer ids, ``rubric.json`` with its
    integer weights: as released, and again after a re-import."""
    questions = shared("researcherbench", "questions.json")
    rubric = shared("researcherbench", "rubric.json")
    run("questions", questions, study="first", format="researcherbench", rubric=rubric)
    first = dump("questions", "researcherbench", "first", tmp_path / "1")
    assert read(first["questions.json"]) == read(questions)
    assert read(first["rubric.json"]) == read(rubric)
    run("questions", first["questions.json"], study="second", format="researcherbench",
        rubric=first["rubric.json"])  # fmt: skip
    second = dump("questions", "researcherbench", "second", tmp_path / "2")
    assert {n: p.read_bytes() for n, p in second.items()} == {
        n: p.read_bytes() for n, p in first.items()
    }


#: A ResearchQA answer with what its export used to change: a sentence ending in "(ALCE).",
#: an inline author-year citation among numbered ones, a closing reference list.
RESEARCHQA_ANSWER = (
    "## Attribution\n\nSystems are evaluated on Enabling LLMs to Generate Text with Citations "
    "(ALCE). Earlier work showed the same (Cengiz et al. 2019) and later [1], [2].\n\n"
    "Post-hoc revision helps [3].\n\n## References\n"
    "[1] Attributed Question Answering. https://example.org/aqa\n"
    "[2] RARR: Researching and Revising What Language Models Say.\n"
    "[3] Enabling LLMs to Generate Text with Citations. https://example.org/alce\n"
)


@pytest.mark.parametrize("shape", ["mapping", "list"])
def test_researchqa_responses_come_back_as_released(tmp_path, shape):
    """Both released shapes: ``{id: {answer}}`` (compute_coverage.py's input) and
    ``[{corpusid_sectionid, answer}]`` (the 18 systems' outputs), extra keys kept."""
    answers = {"rqa-001": RESEARCHQA_ANSWER, "rqa-002": "Long reads resolve repeats.\n"}
    if shape == "mapping":
        data = {qid: {"answer": a} for qid, a in answers.items()}
    else:
        data = [{"corpusid_sectionid": qid, "answer": a, "field": "NLP"}
                for qid, a in answers.items()]  # fmt: skip
    path = tmp_path / "outputs.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    first, second = reports_round_trip(tmp_path, "researchqa", path, "sys")
    assert read(first) == data
    assert second.read_bytes() == first.read_bytes()
    normalised = Paragraph.objects.filter(report__question__study__name="first", number=1).first()
    assert "(Cengiz et al. 2019)" in normalised.text or "[" in normalised.text


def test_researchqa_items_come_back_with_citation_metadata(tmp_path):
    items = [
        {"id": "rqa-001", "general_domain": "Computer Science", "subdomain": "AI",
         "field": "NLP", "query": "How do RAG systems attribute answers?", "date": "2024-05-01",
         "rubric": [{"rubric_item": "Defines attribution", "type": "information",
                     "citation_metadata": "Survey §2: attribution links claims to sources"},
                    {"rubric_item": "Cites ALCE", "type": "citation"}]},
    ]  # fmt: skip
    path = tmp_path / "items.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    run("questions", path, study="first", format="researchqa")
    first = dump("questions", "researchqa", "first", tmp_path / "1")["researchqa_items.json"]
    assert read(first) == items
    run("questions", first, study="second", format="researchqa")
    second = dump("questions", "researchqa", "second", tmp_path / "2")["researchqa_items.json"]
    assert second.read_bytes() == first.read_bytes()


@pytest.mark.parametrize(
    ("fmt", "name"),
    [("scholarqa", "scholarqa_reports.json"), ("researchqa", "researchqa_responses.json"),
     ("researcherbench", "researcherbench_responses.json")],
)  # fmt: skip
def test_textless_placeholder_reports_are_not_exported(tmp_path, fmt, name):
    """The ScholarQA-CS2 pairwise import creates reports without text for the questions
    whose text was not released (88-114 per system); they are no reports of the system."""
    run("reports", DATA / name, study="first", format=fmt, system="sys")
    study = Study.objects.get(name="first")
    question = Question.objects.create(study=study, external_id="placeholder", text="Q?")
    Report.objects.create(question=question, system=System.objects.get(study=study, name="sys"))
    files = dump("reports", fmt, "first", tmp_path, system="sys")
    exported = read(files["sys.json"])
    assert "placeholder" not in json.dumps(exported) and "Q?" not in json.dumps(exported)
    assert len(exported) == Report.objects.filter(question__study=study).count() - 1


def test_a_report_without_a_released_record_is_built_from_what_is_stored(tmp_path):
    """A report stored otherwise (no kept record of this format) is still written, from its
    stored structure, after the released ones."""
    run("reports", DATA / "researchqa_responses.json", study="first", format="researchqa",
        system="sys")  # fmt: skip
    report = Report.objects.get(question__external_id="rqa-002")
    report.original = {}
    report.save(update_fields=["original"])
    data = read(dump("reports", "researchqa", "first", tmp_path, system="sys")["sys.json"])
    assert list(data) == ["rqa-001", "rqa-002"]
    assert "Long reads resolve repeats" in data["rqa-002"]["answer"]


def test_researchqa_items_keep_a_weight_and_name_every_key_they_do_not_read(tmp_path):
    """A rubric item's ``weight`` (not in the release) was replaced by 1 silently: it is
    the item's weight, and a key the format does not have is named in a warning."""
    items = [{"id": "rqa-1", "query": "Why?", "general_domain": "CS", "subdomain": "AI",
              "field": "NLP", "date": "2024-05-01", "source_paper": "2401.00001",
              "rubric": [{"rubric_item": "Says why", "type": "information", "weight": 3,
                          "note": "x"}]}]  # fmt: skip
    path = tmp_path / "items.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    rep = run("questions", path, study="first", format="researchqa")
    assert [(w.record, w.field) for w in rep.warnings] == [
        (1, "source_paper"),
        (1, "rubric[0].note"),
    ]
    assert "not a ResearchQA key: kept with the item as released" in str(rep.warnings[0])
    assert "not a ResearchQA key: not imported" in str(rep.warnings[1])
    from annotation.models import RubricItem

    assert RubricItem.objects.get(text="Says why").weight == 3
    exported = read(dump("questions", "researchqa", "first", tmp_path)["researchqa_items.json"])
    assert exported[0]["rubric"] == [
        {"rubric_item": "Says why", "type": "information", "weight": 3}
    ]
    # the item's own key comes back where it was; the rubric item's does not
    assert list(exported[0]) == list(items[0])
    assert exported[0]["source_paper"] == "2401.00001"


@pytest.mark.parametrize("fmt", ["researcherbench", "researchqa"])
def test_a_reports_reimport_that_changes_only_types_or_key_order_is_an_update(tmp_path, fmt):
    """The same responses again with each record's keys in another order and an extra
    key's ``2024`` written ``2024.0``: parsed dicts compare equal, the released text does
    not. The reports are counted updated and the export writes the file imported last."""
    key, answer = ("id", "response") if fmt == "researcherbench" else ("corpusid_sectionid",
                                                                        "answer")  # fmt: skip
    ids = [1, 2] if fmt == "researcherbench" else ["rqa-001", "rqa-002"]
    first = [{key: qid, "question": f"Question {i}?", answer: f"## Part\n\nAnswer {i}.\n",
              "year": 2024} for i, qid in enumerate(ids, start=1)]  # fmt: skip
    if fmt == "researchqa":
        first = [{k: v for k, v in r.items() if k != "question"} for r in first]
    path = tmp_path / "outputs.json"
    path.write_text(json.dumps(first), encoding="utf-8")
    run("reports", path, study="S", format=fmt, system="sys")
    again = run("reports", path, study="S", format=fmt, system="sys")
    assert again.unchanged.get("Report") == 2 and "Report" not in again.updated
    changed = [{**dict(reversed(list(r.items()))), "year": 2024.0} for r in first]
    assert changed == first  # what a dict's == says: no change
    path.write_text(json.dumps(changed), encoding="utf-8")
    rep = run("reports", path, study="S", format=fmt, system="sys")
    assert rep.updated.get("Report") == 2, rep.summary()
    exported = dump("reports", fmt, "S", tmp_path / "out", system="sys")["sys.json"]
    assert json.dumps(read(exported)) == json.dumps(changed) != json.dumps(first)
    assert "Report" not in run("reports", path, study="S", format=fmt, system="sys").updated
