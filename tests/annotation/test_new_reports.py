"""A new system's reports: prepared (on every core when the file is large) and written as
rows by ``annotation.importers.new_reports``, storing exactly what the general writer
``write_reports`` stores (issue 29), on the released ScholarQA-CS2 files and their
oddities (repeated questions, unkeyed and unlisted sources, empty reports)."""

import json
import threading

import pytest

from annotation.importers import new_reports, parallel, run, scholarqa
from annotation.importers.base import ImportFailed, ImportReport
from annotation.importers.common import Source, finite_source, read_source
from annotation.importers.structure import warn_empty, write_reports
from annotation.models import Paragraph, Report, Section, Study

#: Released files with each oddity the parser warns of: a question asked twice (you),
#: sources without an id (claude), markers citing no listed source (perplexity),
#: reports with no text (gemini), tables and corpus-id markers (sqa).
RELEASED = [
    "dev/you.json",
    "dev/claude-sonnet-4-20250514.json",
    "dev/perplexity.json",
    "dev/gemini-2.5-pro-preview-03-25.json",
    "expert_written/sqa.json",
]


def stored(study) -> dict:
    """Everything stored of the study's reports, by question: what both writers must agree on."""
    out = {}
    for report in Report.objects.filter(question__study=study).select_related("question"):
        sections = list(
            Section.objects.filter(report=report)
            .order_by("position")
            .values_list("id", "position", "title", "table")
        )
        position = {sid: pos for sid, pos, _, _ in sections}
        paragraphs = [
            (number, position[sid], text, anchors)
            for sid, number, text, anchors in Paragraph.objects.filter(report=report)
            .order_by("number")
            .values_list("section_id", "number", "text", "anchors")
        ]
        out[report.question.external_id] = (
            report.question.text,
            report.source_format,
            report.original,
            report.citations,
            [s[1:] for s in sections],
            paragraphs,
        )
    return out


def summary(rep: ImportReport):
    return rep.records, rep.created, rep.updated, rep.unchanged, rep.warnings


def general_writer(path, study, system: str) -> ImportReport:
    """The report loader's path for a system the study already has, on a new one."""
    rep = ImportReport(kind="reports", dry_run=False)
    src = read_source(path)
    with finite_source(src.text):
        inputs = scholarqa.parse_reports(src, rep)
        rep.records = rep.records or len(inputs)
        warn_empty(inputs, rep, str(path))
        write_reports(study, system, inputs, "scholarqa", rep, file=str(path))
    return rep


def new_system(path, study, system: str) -> ImportReport:
    rep = ImportReport(kind="reports", dry_run=False)
    src = read_source(path)
    with finite_source(src.text):
        new_reports.load_new(
            scholarqa.parse_reports, None, src, study, system, "scholarqa", rep, str(path)
        )
    return rep


@pytest.fixture
def forking(monkeypatch):
    """Parts small enough for the released files (100 records), two processes even in a
    test worker that runs a helper thread, and a count of the children started."""
    monkeypatch.setattr(new_reports, "MIN_PARALLEL_BYTES", 0)
    monkeypatch.setenv("CONCORD_IMPORT_PROCESSES", "2")
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 1)
    started = []
    start = parallel._start

    def counted(fn, parts, *args):
        started.append(parts)
        return start(fn, parts, *args)

    monkeypatch.setattr(parallel, "_start", counted)
    return started


@pytest.mark.django_db
@pytest.mark.parametrize("name", RELEASED)
def test_a_new_systems_reports_are_stored_as_the_general_writer_stores_them(scholarqa_dir, name):
    path = scholarqa_dir / "reports" / name
    a, b = Study.objects.create(name="new"), Study.objects.create(name="general")
    new = new_system(path, a, "sys")
    general = general_writer(path, b, "sys")
    assert summary(new) == summary(general)
    assert new.created["Report"] >= 25
    assert stored(a) == stored(b)


@pytest.mark.django_db
@pytest.mark.parametrize("name", RELEASED)
def test_a_file_written_a_chunk_at_a_time_in_one_process_stores_the_same(
    scholarqa_dir, monkeypatch, name
):
    """One process, chunks of 7 reports (a large file in a threaded server): the rows and
    the summary are the general writer's, and the chunks were taken."""
    monkeypatch.setattr(new_reports, "ONE_PROCESS_CHUNK", 7)
    taken = []
    write = new_reports.write_prepared

    def counted(*args, **kwargs):
        taken.append((len(args[2]), kwargs.get("part")))
        return write(*args, **kwargs)

    monkeypatch.setattr(new_reports, "write_prepared", counted)
    path = scholarqa_dir / "reports" / name
    a, b = Study.objects.create(name="chunked"), Study.objects.create(name="general")
    new = new_system(path, a, "sys")
    general = general_writer(path, b, "sys")
    assert summary(new) == summary(general)
    assert stored(a) == stored(b)
    assert len(taken) > 3 and all(part and 0 < n <= 7 for n, part in taken)


@pytest.mark.django_db
@pytest.mark.parametrize("name", RELEASED)
def test_parts_prepared_in_a_child_equal_the_file_prepared_whole(scholarqa_dir, forking, name):
    path = scholarqa_dir / "reports" / name
    src = read_source(path)
    parts = new_reports.Parts(
        scholarqa.check_records, scholarqa.independent, scholarqa.parse_records
    )
    whole_rep = ImportReport(kind="reports", dry_run=False)
    parts_rep = ImportReport(kind="reports", dry_run=False)
    records = json.loads(path.read_text())
    questions = [r["question"] for r in records]
    dependent = len(set(questions)) < len(questions)  # a question asked twice: parsed whole

    def parse_whole(src, rep):
        assert dependent, "parsed whole, not in parts"
        return scholarqa.parse_reports(src, rep)

    with finite_source(src.text):
        whole = [new_reports.prepare(i) for i in scholarqa.parse_reports(src, whole_rep)]
        try:
            chunks = [c for c, _ in new_reports.prepared_chunks(parse_whole, parts, src, parts_rep)]
        except parallel.Redo:
            assert dependent
            chunks = [c for c, _ in new_reports.prepared_chunks(parse_whole, None, src, parts_rep)]
    assert [p for chunk in chunks for p in chunk] == whole
    assert summary(parts_rep) == summary(whole_rep)
    assert scholarqa.independent(records) is not dependent
    assert forking, "no part was prepared in a child"


@pytest.mark.django_db
def test_the_import_command_prepares_a_large_file_in_parts(scholarqa_dir, forking):
    path = scholarqa_dir / "reports" / "dev" / "perplexity.json"
    rep = run("reports", path, study="S", format="scholarqa", system="perplexity")
    assert forking and rep.created["Report"] == 100
    assert any("cites no listed source" in w.message or "cite no listed source" in w.message
               for w in rep.warnings)  # fmt: skip
    rerun = run("reports", path, study="S", format="scholarqa", system="perplexity")
    assert rerun.unchanged["Report"] == 100 and not rerun.created.get("Report")


@pytest.mark.django_db
def test_a_problem_in_a_part_is_named_as_the_whole_file_names_it(tmp_path, scholarqa_dir, forking):
    records = json.loads((scholarqa_dir / "reports" / "dev" / "perplexity.json").read_text())
    records[80]["response"]["sections"][0]["text"] = 7
    records[15]["response"] = "not an object"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(records))
    with pytest.raises(ImportFailed) as in_parts:
        run("reports", path, study="S", format="scholarqa", system="p")
    assert forking  # the parts were tried
    fields = [(p.record, p.field) for p in in_parts.value.problems]
    assert fields == [(16, "response"), (81, "response.sections[0].text")]
    assert not Report.objects.exists()


@pytest.mark.django_db
def test_a_part_redone_after_others_were_written_leaves_each_report_once(
    scholarqa_dir, forking, monkeypatch
):
    """Parts 0 and 1 are written before part 2 asks to be redone in one process: what
    they wrote is undone, the counts too, and the file is imported whole, once."""
    monkeypatch.setattr(new_reports, "CHUNK_BYTES", 150_000)  # 5 parts of 20 records
    path = scholarqa_dir / "reports" / "dev" / "perplexity.json"

    def parse(records, name, rep, first):
        if first > 40:
            raise ImportFailed([])
        return scholarqa.parse_records(records, name, rep, first)

    parts = new_reports.Parts(scholarqa.check_records, scholarqa.independent, parse)
    a, b = Study.objects.create(name="redone"), Study.objects.create(name="whole")
    rep = ImportReport(kind="reports", dry_run=False)
    src = read_source(path)
    with finite_source(src.text):
        new_reports.load_new(scholarqa.parse_reports, parts, src, a, "p", "scholarqa", rep,
                             str(path))  # fmt: skip
    assert len(forking) == new_reports._children(2)  # one per core, or all but the server's
    assert summary(rep) == summary(new_system(path, b, "p"))
    assert Report.objects.filter(question__study=a).count() == 100
    assert stored(a) == stored(b)


@pytest.mark.django_db
def test_a_failure_in_a_child_is_raised_with_its_traceback(forking):
    def fails_in_first_part(part):
        if part == 0:
            raise KeyError("lost field")
        return part

    with pytest.raises(parallel.PartFailed, match="KeyError: 'lost field'"):
        list(parallel.stream_parts(fails_in_first_part, [0, 1], children=2))
    doubled = parallel.stream_parts(lambda part: part * 2, [1, 2, 3], children=3)
    assert list(doubled) == [2, 4, 6]
    streamed = parallel.stream_parts(lambda part: [part] * part, list(range(7)), children=2)
    assert list(streamed) == [[part] * part for part in range(7)]
    with pytest.raises(parallel.Redo):
        list(parallel.stream_parts(fails_in_first_part, [1, 0], children=2, redo=(KeyError,)))


def test_processes_one_when_another_thread_runs_or_capped(monkeypatch):
    monkeypatch.setenv("CONCORD_IMPORT_PROCESSES", "1")
    assert parallel.processes() == 1
    monkeypatch.setenv("CONCORD_IMPORT_PROCESSES", "two")
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 1)
    with pytest.raises(ValueError, match="CONCORD_IMPORT_PROCESSES must be a whole number"):
        parallel.processes()
    monkeypatch.delenv("CONCORD_IMPORT_PROCESSES")
    monkeypatch.undo()
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert parallel.processes() == 1  # a fork would copy the other thread's locks
    finally:
        stop.set()
        other.join()


def test_an_encoded_column_must_be_a_json_field():
    from annotation.importers.common import insert_rows

    with pytest.raises(ValueError, match="encoded names no JSON field"):
        insert_rows(Section, ["report", "position", "title"], [(1, 1, "t")],
                    encoded=frozenset({"title"}))  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_a_report_of_the_system_stored_meanwhile_refuses_the_file_and_keeps_it(scholarqa_dir):
    """Another import of the same new system stored one of the file's reports after this
    one found the system new: the natural key refuses the insert, the file is refused whole
    (naming it) and the report stored meanwhile is kept."""
    from annotation.models import Question, System

    path = scholarqa_dir / "reports" / "dev" / "claude-sonnet-4-20250514.json"
    study = Study.objects.create(name="s")
    first = json.loads(path.read_text())[0]
    question = Question.objects.create(
        study=study, external_id=scholarqa.question_key(first["question"]),
        text=first["question"],
    )  # fmt: skip
    meanwhile = Report.objects.create(
        question=question, system=System.objects.create(study=study, name="sys")
    )
    with pytest.raises(ImportFailed) as exc:
        new_system(path, study, "sys")
    assert "reports of system 'sys' were stored in this study while this file was read" in str(
        exc.value
    )
    assert list(Report.objects.filter(question__study=study)) == [meanwhile]
    assert not Section.objects.filter(report__question__study=study).exists()


# --- each child decodes only its parts (annotation.importers.json_parts) --------------------


def released_records(scholarqa_dir, name="dev/perplexity.json") -> list:
    return json.loads((scholarqa_dir / "reports" / name).read_text())


def import_both(tmp_path, text: str, monkeypatch, suffix=".json"):
    """``text`` imported as a new system in parts (two children) and by the general writer
    in one process: (the two summaries, the two studies' rows, whether the parts were given
    up for the one-process path)."""
    path = tmp_path / f"file{suffix}"
    path.write_text(text, encoding="utf-8")
    redone = []
    chunks = new_reports.prepared_chunks

    def watched(parse, parts, src, rep):
        redone.append(parts is None)
        return chunks(parse, parts, src, rep)

    monkeypatch.setattr(new_reports, "prepared_chunks", watched)
    a, b = Study.objects.create(name="parts"), Study.objects.create(name="general")
    rep = ImportReport(kind="reports", dry_run=False)
    src = read_source(path)
    parts = new_reports.Parts(scholarqa.check_records, scholarqa.independent,
                              scholarqa.parse_records)  # fmt: skip
    with finite_source(src.text):
        new_reports.load_new(scholarqa.parse_reports, parts, src, a, "p", "scholarqa", rep,
                             str(path))  # fmt: skip
    general = general_writer(path, b, "p")
    return summary(rep), summary(general), stored(a), stored(b), redone[1:] == [True]


def boundary_lookalikes(records: list, odd: str = "\u2028") -> list:
    """Records whose strings hold what looks like a record's start: an escaped one
    (``}, {"question": …``), one the search takes for a start (a string ending in ", {"),
    nested lists of objects, and text in several scripts (escaped as surrogate pairs
    by ``json.dumps``, raw with ``ensure_ascii=False``)."""
    for n, record in enumerate(records):
        section = record["response"]["sections"][0]
        if n % 3 == 0:
            section["text"] += ' See }, {"question": "a fake record", "response": {}}, {'
        if n % 5 == 0:
            record["question"] += ", {"
        if n % 4 == 0:
            section["citations"].append(
                {"id": "nested", "title": "Ünïcödé — 数据 😀" + odd, "snippets": [],
                 "metadata": {"lists": [[{"a": [{"b": "}, {"}]}], [], [[{}]]]}}
            )  # fmt: skip
    return records


@pytest.mark.django_db
@pytest.mark.parametrize("ascii_only", [True, False])
@pytest.mark.parametrize("indent", [None, 1])
def test_parts_decoded_apart_store_what_the_whole_file_stores(
    tmp_path, scholarqa_dir, forking, monkeypatch, ascii_only, indent
):
    """Strings that look like a record's start, nested lists, unicode: each child decodes
    its parts only, the parts join, and the rows, warnings and summary are the general
    writer's."""
    monkeypatch.setattr(new_reports, "CHUNK_BYTES", 100_000)  # 4-8 parts, ~25 records
    records = boundary_lookalikes(released_records(scholarqa_dir))
    text = json.dumps(records, ensure_ascii=ascii_only, indent=indent)
    rep, general, rows, general_rows, redone = import_both(tmp_path, text, monkeypatch)
    assert rep == general and rows == general_rows
    assert rep[0] == 100 and rep[4], "the file's warnings (markers citing no listed source)"
    assert not redone, "the parts joined: nothing read whole"
    assert len(forking) == new_reports._children(2)


@pytest.mark.django_db
def test_json_lines_decoded_in_parts_store_what_the_whole_file_stores(
    tmp_path, scholarqa_dir, forking, monkeypatch
):
    monkeypatch.setattr(new_reports, "CHUNK_BYTES", 100_000)
    # a line separator inside a string would split the line (str.splitlines), as the whole
    # file's reading splits it: kept out here, refused in the test below
    records = boundary_lookalikes(released_records(scholarqa_dir), odd="\t")
    text = "".join(json.dumps(r, ensure_ascii=False) + ("\r\n" if n % 2 else "\n\n")
                   for n, r in enumerate(records))  # fmt: skip
    rep, general, rows, general_rows, redone = import_both(tmp_path, text, monkeypatch,
                                                           ".jsonl")  # fmt: skip
    assert rep == general and rows == general_rows and rep[0] == 100
    assert not redone and forking


@pytest.mark.django_db
def test_a_string_that_looks_like_records_past_a_part_is_found_out(
    tmp_path, scholarqa_dir, forking, monkeypatch
):
    """A string holding ``{}, {}, …`` across a whole part: decoded from inside it, the
    part yields records that are not the file's; they do not join the part before, so the
    file is read whole, and stored as the general writer stores it."""
    from annotation.importers import json_parts

    monkeypatch.setattr(new_reports, "CHUNK_BYTES", 100_000)
    records = released_records(scholarqa_dir)
    records[40]["response"]["sections"][0]["text"] += " " + ", {}" * 60_000
    text = json.dumps(records)
    lay = json_parts.layout(text)
    count = -(-len(text) // 100_000)
    spans = [json_parts.part(text, lay, k, count) for k in range(count)]
    inside = text.index(", {}" * 1000)
    assert any(s.start > inside and s.records and s.records[0] == {} for s in spans)
    assert not json_parts.chained(lay, [(s.start, s.end) for s in spans])
    rep, general, rows, general_rows, redone = import_both(tmp_path, text, monkeypatch)
    assert rep == general and rows == general_rows and rep[0] == 100
    assert redone, "read whole: the parts did not join"


@pytest.mark.django_db
def test_no_child_decodes_the_whole_file(scholarqa_dir, forking, monkeypatch):
    """The file is decoded in parts only: the whole-file decoding is never called, in a
    child or here."""
    from annotation.importers import common

    def whole(*args, **kwargs):
        raise AssertionError("the whole file decoded")

    monkeypatch.setattr(common, "parse_json_records", whole)
    monkeypatch.setattr(scholarqa, "parse_json_records", whole)
    path = scholarqa_dir / "reports" / "dev" / "perplexity.json"
    src = read_source(path)
    parts = new_reports.Parts(scholarqa.check_records, scholarqa.independent,
                              scholarqa.parse_records)  # fmt: skip
    rep = ImportReport(kind="reports", dry_run=False)
    with finite_source(src.text):
        chunks = [c for c, _ in new_reports.prepared_chunks(None, parts, src, rep)]
    assert sum(len(c) for c in chunks) == rep.records == 100 and len(chunks) >= 2


def one_process_problems(path) -> list:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CONCORD_IMPORT_PROCESSES", "1")
        with pytest.raises(ImportFailed) as exc:
            run("reports", path, study="One", format="scholarqa", system="p")
    return [(p.file, p.record, p.field, p.message) for p in exc.value.problems]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "damage",
    ["a comma missing", "an unterminated string", "a NUL", "a lone surrogate",
     "a line separator in JSON lines", "a question asked again in another part"],
)  # fmt: skip
def test_a_malformed_record_in_the_middle_is_named_as_one_process_names_it(
    tmp_path, scholarqa_dir, forking, monkeypatch, damage
):
    monkeypatch.setattr(new_reports, "CHUNK_BYTES", 100_000)
    records = released_records(scholarqa_dir)
    records[55]["response"]["sections"][0]["text"] += " MARK"
    if damage == "a question asked again in another part":
        records[90]["question"] = records[10]["question"]
        records[90]["response"]["sections"][0]["text"] = 7  # and a problem to name
    if damage == "a line separator in JSON lines":
        records[55]["response"]["sections"][0]["text"] += "\u2028"
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    else:
        text = json.dumps(records)
    text = {
        "a comma missing": text.replace(' MARK", "citations"', ' MARK" "citations"'),
        "an unterminated string": text.replace(' MARK"', " MARK\\"),
        "a NUL": text.replace(" MARK", " MARK\\u0000"),
        "a lone surrogate": text.replace(" MARK", " MARK\\ud800"),
    }.get(damage, text)
    path = tmp_path / "broken.json"
    path.write_text(text, encoding="utf-8")
    expected = one_process_problems(path)
    assert expected and not Report.objects.exists()
    with pytest.raises(ImportFailed) as in_parts:
        run("reports", path, study="S", format="scholarqa", system="p")
    assert forking  # the parts were tried
    assert [(p.file, p.record, p.field, p.message) for p in in_parts.value.problems] == expected
    assert not Report.objects.exists()


def test_a_part_is_sent_as_built_in_values(scholarqa_dir):
    """What a child sends back is tuples, lists and strings, not named tuples (pickled by a
    Python call each, unpickled by another): the pickle names no class of Concord's."""
    import pickle

    records = released_records(scholarqa_dir)[:5]
    parts = new_reports.Parts(scholarqa.check_records, scholarqa.independent,
                              scholarqa.parse_records)  # fmt: skip
    src = Source(name="f.json", text=json.dumps(records))
    rows, warnings = new_reports._prepare_part(parts, src)(records, 11)
    assert b"annotation" not in pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL)
    prepared = [new_reports.PreparedReport._make(row) for row in rows]
    assert [p.record for p in prepared] == [11, 12, 13, 14, 15]
    assert all(w.record >= 11 for w in warnings)


@pytest.mark.parametrize("children", [0, 2, 3])
def test_work_in_two_steps_is_told_what_the_parts_before_it_found(forking, children):
    """``survey`` in each child, ``settle`` here over every part's summary, then each
    part's work with its answer: here, each item numbered across the parts."""
    from itertools import accumulate

    parts = [["a", "b", "c"], ["d"] * 5, [], ["e", "f"]]

    def survey(part):
        return len(part), part

    def settle(sizes):
        return [0, *accumulate(sizes)][:-1]

    def number(kept, first):
        return [(first + i, item) for i, item in enumerate(kept)]

    streamed = parallel.stream_parts(number, parts, children=children, survey=survey,
                                     settle=settle)  # fmt: skip
    numbered = [pair for part in streamed for pair in part]
    assert numbered == list(enumerate(item for part in parts for item in part))

    def refuses(sizes):
        raise parallel.Redo

    with pytest.raises(parallel.Redo):
        list(parallel.stream_parts(number, parts, children=children, survey=survey,
                                   settle=refuses))  # fmt: skip
