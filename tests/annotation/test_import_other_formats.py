"""A file of another format is refused saying what it is (studies are untyped).

Uploaded with the wrong kind or format, a released file used to be read record by record
as the format chosen: ResearcherBench's ``rubric.json`` given as its questions file was
imported with a warning per record ("rubric: not a ResearcherBench key"), a ScholarQA-CS2
report file given to ``--format researcherbench`` gave 200 "missing required field"
problems, a ResearcherBench responses file given to ``--format researchqa`` was called a
ScholarQA-CS2 file. Each importer now refuses it with one file-level problem naming the
file it looks like and where it goes, and stores nothing. Tested on every pair of the
released files in ``../shared/data`` (ResearchQA's data is on Hugging Face: its shapes
are the repository's example files), and each format still takes its own files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.importers import ImportFailed, run
from annotation.models import Question, Report
from tests.annotation.test_import_common import table_counts
from tests.annotation.test_round_trip_released import SCHOLARQA_FILES, shared

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]

EXAMPLES = Path(__file__).resolve().parents[2] / "annotation" / "importers" / "examples"

#: The released report files under ../shared/data, by the report format that reads them.
RELEASED_REPORTS = {
    "scholarqa": [("scholarqa-cs2", "reports", *f.split("/")) for f in SCHOLARQA_FILES],
    "researcherbench": [
        ("researcherbench", "user_data", f"{system}.json")
        for system in ("Claude", "OpenAI", "Doubao", "Mita", "gpt-4o-search-preview", "Perplexity")
    ],
    "deepscholar": [
        ("deepscholar", "baselines_results", system)
        for system in ("deepscholar-base", "openscholar", "search_ai_gpt_4.1", "storm")
    ],
}  # fmt: skip
#: ResearchQA's two released shapes of a responses file (Concord's examples of them).
RESEARCHQA_REPORTS = ["researchqa_responses.json", "researchqa_responses_list.json"]

#: What the refusal must call a report file of each format.
CALLED = {
    "scholarqa": "this looks like a ScholarQA-CS2 report file",
    "researcherbench": "this looks like a ResearcherBench user_data/<system>.json responses file",
    "researchqa": "this looks like a ResearchQA responses file",
    "deepscholar": "is a directory; format {format} reads one file (a system folder of "
    "reports is read with format deepscholar)",
}
#: Where it must say the file goes.
GOES = {
    "scholarqa": "import it as reports, format scholarqa",
    "researcherbench": "import it as reports, format researcherbench",
    "researchqa": "import it as reports, format researchqa",
    "deepscholar": "",
}


def report_pairs():
    """(file's format, file, format it is imported with) for every released report file and
    every other report format."""
    files = [(fmt, path) for fmt, paths in RELEASED_REPORTS.items() for path in paths]
    files += [("researchqa", ("example", name)) for name in RESEARCHQA_REPORTS]
    return [
        pytest.param(own, path, other, id=f"{'/'.join(path)}-as-{other}")
        for own, path in files
        for other in ("scholarqa", "researcherbench", "researchqa", "deepscholar")
        if other != own
    ]


def locate(path: tuple[str, ...]) -> Path:
    return EXAMPLES / path[1] if path[0] == "example" else shared(*path)


def refused(kind: str, source: Path, **options) -> list:
    """Run an import that must fail; nothing may change."""
    before = table_counts()
    with pytest.raises(ImportFailed) as info:
        run(kind, source, study="S", **options)
    assert table_counts() == before, "a refused import changed the database"
    return info.value.problems


@pytest.mark.parametrize("own, path, other", report_pairs())
def test_a_report_file_of_another_format_is_refused_naming_its_format(own, path, other):
    source = locate(path)
    problems = refused("reports", source, format=other, system="s")
    assert len(problems) == 1, problems
    problem = problems[0]
    assert problem.record is None and problem.field is None, problem
    assert source.name in problem.file
    assert problem.message.startswith(CALLED[own].format(format=other)), problem.message
    assert GOES[own] in problem.message


@pytest.mark.parametrize(
    "fmt, path",
    [pytest.param(fmt, path, id="/".join(path)) for fmt, paths in RELEASED_REPORTS.items()
     for path in paths]
    + [pytest.param("researchqa", ("example", name), id=name) for name in RESEARCHQA_REPORTS],
)  # fmt: skip
def test_each_report_format_still_takes_its_own_files(fmt, path):
    rep = run("reports", locate(path), study="S", format=fmt, system="s", dry_run=True)
    assert rep.records > 0 and rep.created.get("Report", 0) > 0


# --- Questions and their rubric -------------------------------------------------------------

#: Files that are not a questions file of the format, with what the refusal must call them
#: and where it must say they go (given as the questions file of ``--format researcherbench``).
NOT_QUESTIONS = {
    "rubric.json": (
        ("researcherbench", "rubric.json"),
        "this looks like ResearcherBench's rubric.json (records with id, question (text) and "
        "rubric (a list)): upload it as the rubric",
    ),
    "responses": (
        ("researcherbench", "user_data", "Claude.json"),
        "this looks like a ResearcherBench user_data/<system>.json responses file",
    ),
    "scholarqa-report": (
        ("scholarqa-cs2", "reports", "dev", "you.json"),
        "this looks like a ScholarQA-CS2 report file",
    ),
    "scholarqa-pairwise": (
        ("scholarqa-cs2", "annotation", "pairwise_chosen.json"),
        "this looks like a ScholarQA-CS2 pairwise annotation file",
    ),
    "deepscholar-nuggets": (
        ("deepscholar", "dataset", "gt_nuggets_outputs", "3", "res.json"),
        "this looks like a DeepScholar-Bench nuggetizer res.json",
    ),
    "researchqa-items": (
        ("example", "researchqa_items.json"),
        "this looks like a ResearchQA items file",
    ),
}


@pytest.mark.parametrize("name", list(NOT_QUESTIONS))
def test_another_file_as_researcherbench_questions_is_refused_saying_what_it_is(name):
    path, message = NOT_QUESTIONS[name]
    source = locate(path)
    problems = refused("questions", source, format="researcherbench")
    assert [(p.record, p.field) for p in problems] == [(None, None)], problems
    assert source.name in problems[0].file
    assert problems[0].message.startswith(message), problems[0].message


def test_the_rubric_given_as_questions_says_upload_it_as_the_rubric_whole():
    """The message of the issue, whole: nothing about keys not imported."""
    source = shared("researcherbench", "rubric.json")
    [problem] = refused("questions", source, format="researcherbench")
    assert str(problem) == (
        f"{source}: this looks like ResearcherBench's rubric.json (records with id, question "
        "(text) and rubric (a list)): upload it as the rubric"
    )


@pytest.mark.parametrize(
    "path, message",
    [
        (("researcherbench", "questions.json"),
         "this looks like ResearcherBench's questions.json (records with id and question "
         "(text)): upload it as the questions file"),
        (("researcherbench", "user_data", "Claude.json"),
         "this looks like a ResearcherBench user_data/<system>.json responses file"),
        (("scholarqa-cs2", "reports", "dev", "you.json"),
         "this looks like a ScholarQA-CS2 report file"),
        (("example", "researchqa_items.json"), "this looks like a ResearchQA items file"),
    ],
    ids=["questions.json", "responses", "scholarqa-report", "researchqa-items"],
)  # fmt: skip
def test_another_file_as_the_rubric_is_refused_saying_what_it_is(path, message):
    questions = shared("researcherbench", "questions.json")
    source = locate(path)
    problems = refused("questions", questions, format="researcherbench", rubric=source)
    assert [(p.record, p.field) for p in problems] == [(None, None)], problems
    assert source.name in problems[0].file
    assert problems[0].message.startswith(message), problems[0].message
    assert not Question.objects.exists()


def test_the_two_files_swapped_are_refused_at_the_first():
    problems = refused(
        "questions",
        shared("researcherbench", "rubric.json"),
        format="researcherbench",
        rubric=shared("researcherbench", "questions.json"),
    )
    assert len(problems) == 1 and "upload it as the rubric" in problems[0].message


@pytest.mark.parametrize(
    "path, message",
    [
        (("researcherbench", "questions.json"),
         "this looks like ResearcherBench's questions.json (records with id and question "
         "(text)): import it as questions, format researcherbench"),
        (("researcherbench", "rubric.json"),
         "this looks like ResearcherBench's rubric.json (records with id, question (text) and "
         "rubric (a list)): upload it as the rubric of a questions import, format "
         "researcherbench"),
        (("scholarqa-cs2", "reports", "dev", "you.json"),
         "this looks like a ScholarQA-CS2 report file"),
    ],
    ids=["questions.json", "rubric.json", "scholarqa-report"],
)  # fmt: skip
def test_another_file_as_researchqa_items_is_refused_saying_what_it_is(path, message):
    problems = refused("questions", locate(path), format="researchqa")
    assert [(p.record, p.field) for p in problems] == [(None, None)], problems
    assert problems[0].message.startswith(message), problems[0].message


def test_the_researcherbench_questions_and_rubric_still_import():
    rep = run(
        "questions",
        shared("researcherbench", "questions.json"),
        study="S",
        format="researcherbench",
        rubric=shared("researcherbench", "rubric.json"),
    )
    assert rep.records == 65 and not rep.warnings
    assert Question.objects.count() == 65 and not Report.objects.exists()


# --- The generic questions format ------------------------------------------------------------


def _as_json_lines(source: Path, tmp_path: Path) -> Path:
    import json

    lines = tmp_path / f"{source.stem}.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in json.loads(source.read_text())))
    return lines


@pytest.mark.parametrize("as_lines", [False, True], ids=["json", "json-lines"])
def test_a_researcherbench_responses_file_as_generic_questions_is_refused(as_lines, tmp_path):
    """Its records have an id and a question, which the generic format reads as a question
    (``question`` is an alias of ``text``): 65 questions were imported without a word."""
    source = shared("researcherbench", "user_data", "OpenAI.json")
    if as_lines:
        source = _as_json_lines(source, tmp_path)
    [problem] = refused("questions", source, format="jsonl")
    assert (problem.record, problem.field) == (None, None)
    assert source.name in problem.file
    assert problem.message == (
        "this looks like a ResearcherBench user_data/<system>.json responses file (records "
        "with id, question (text) and response (text)): import it as reports, format "
        "researcherbench"
    )


@pytest.mark.parametrize(
    "path, message",
    [
        (("scholarqa-cs2", "reports", "dev", "you.json"),
         "this looks like a ScholarQA-CS2 report file"),
        (("scholarqa-cs2", "annotation", "pairwise_chosen.json"),
         "this looks like a ScholarQA-CS2 pairwise annotation file"),
        (("deepscholar", "dataset", "gt_nuggets_outputs", "3", "res.json"),
         "this looks like a DeepScholar-Bench nuggetizer res.json"),
    ],
    ids=["scholarqa-report", "scholarqa-pairwise", "deepscholar-nuggets"],
)  # fmt: skip
def test_a_file_of_another_kind_as_generic_questions_is_refused_saying_what_it_is(path, message):
    problems = refused("questions", locate(path), format="jsonl")
    assert [(p.record, p.field) for p in problems] == [(None, None)], problems
    assert problems[0].message.startswith(message), problems[0].message


def test_the_generic_format_still_reads_questions_under_its_aliases(tmp_path):
    """A questions file of a benchmark is one the generic format reads (``question`` for
    ``text``), and so is a rubric given with a ``question`` key: not refused."""
    rep = run("questions", shared("researcherbench", "questions.json"), study="S",
              format="jsonl", dry_run=True)  # fmt: skip
    assert rep.records == 65
    for alias in ("question", "query"):  # the shapes of ResearcherBench's and ResearchQA's
        own = tmp_path / f"{alias}.jsonl"
        own.write_text("".join(f'{{"id": "{alias}{i}", "{alias}": "Q{i}?", "rubric": '
                               f'[{{"text": "Item {i}"}}]}}\n' for i in range(3)))  # fmt: skip
        assert run("questions", own, study="S", format="jsonl").records == 3
    assert Question.objects.count() == 6
