"""Every paper's format out as well as in (issue 18): import a fixture (or a released file),
export it in the same format, re-import the export into a fresh study: the same content
and the same judgments. And the registry is the one declaration (issue 14): every
registered format and option appears in the commands, the forms and the API."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.importers import run
from annotation.importers.registry import FORMATS, KINDS, all_options, options_of, writable
from annotation.importers.structure import stored_canonical
from annotation.models import Question, Report, RubricItem, Study

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parent.parent / "data"
JUDGE_DATA = Path(__file__).resolve().parent.parent / "judges" / "data"
RELEASED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "scholarqa-cs2"


def content(study: Study) -> dict:
    """What a study holds that the content formats carry, keyed by natural keys."""
    questions = {
        q.external_id: (q.text, q.field, q.domain, q.subdomain, q.cutoff_date)
        for q in Question.objects.filter(study=study)
    }
    rubrics = {}
    for qid, kind, text, typ, weight in (
        RubricItem.objects.filter(rubric__question__study=study)
        .order_by("rubric__question__external_id", "rubric__kind", "position")
        .values_list("rubric__question__external_id", "rubric__kind", "text", "item_type", "weight")
    ):
        rubrics.setdefault((qid, kind), []).append((text, typ, weight))
    meta = dict(
        (rid, (qid, system))
        for rid, qid, system in Report.objects.filter(question__study=study).values_list(
            "id", "question__external_id", "system__name"
        )
    )
    structure = stored_canonical(list(meta))
    reports = {meta[rid]: structure[rid] for rid in meta}
    return {"questions": questions, "rubrics": rubrics, "reports": reports}


def export(kind: str, fmt: str, study: Study, folder: Path, **options) -> dict[str, Path]:
    """The registered writer's files, written under ``folder``."""
    files = FORMATS[(kind, fmt)].dump(study, **options)
    out = {}
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        out[name] = path
    return out


def test_scholarqa_reports_round_trip(tmp_path):
    run("reports", DATA / "scholarqa_reports.json", study="A", format="scholarqa", system="sqa")
    a = Study.objects.get(name="A")
    files = export("reports", "scholarqa", a, tmp_path, system="sqa")
    run("reports", files["sqa.json"], study="B", format="scholarqa", system="sqa")
    before, after = content(a), content(Study.objects.get(name="B"))
    assert before["reports"] and after["reports"] == before["reports"]
    assert {k: v[0] for k, v in after["questions"].items()} == {
        k: v[0] for k, v in before["questions"].items()
    }


@pytest.mark.skipif(not (RELEASED / "reports").is_dir(), reason="released data not present")
def test_released_scholarqa_report_file_round_trips(tmp_path):
    """A real released report file (its oddities read by their rules) comes back whole."""
    path = min((RELEASED / "reports" / "dev").glob("*.json"), key=lambda p: p.stat().st_size)
    run("reports", path, study="A", format="scholarqa", system=path.stem)
    a = Study.objects.get(name="A")
    files = export("reports", "scholarqa", a, tmp_path, system=path.stem)
    run("reports", files[f"{path.stem}.json"], study="B", format="scholarqa", system=path.stem)
    before, after = content(a), content(Study.objects.get(name="B"))
    assert len(before["reports"]) > 10
    # The records are written back as released (annotation.importers.released), so the
    # re-import stores exactly what the first import stored: no report differs.
    assert after["reports"] == before["reports"]


def test_researchqa_items_and_responses_round_trip(tmp_path):
    run("questions", DATA / "researchqa_questions.jsonl", study="A", format="researchqa")
    run("reports", DATA / "researchqa_responses.json", study="A", format="researchqa",
        system="sys")  # fmt: skip
    a = Study.objects.get(name="A")
    items = export("questions", "researchqa", a, tmp_path)
    responses = export("reports", "researchqa", a, tmp_path, system="sys")
    run("questions", items["researchqa_items.json"], study="B", format="researchqa")
    run("reports", responses["sys.json"], study="B", format="researchqa", system="sys")
    before, after = content(a), content(Study.objects.get(name="B"))
    assert before["rubrics"] and before["reports"]
    assert after == before


def test_researcherbench_questions_rubric_and_responses_round_trip(tmp_path):
    run("questions", DATA / "researcherbench_questions.json", study="A", format="researcherbench",
        rubric=DATA / "researcherbench_rubric.json")  # fmt: skip
    run("reports", DATA / "researcherbench_responses.json", study="A", format="researcherbench",
        system="sys")  # fmt: skip
    a = Study.objects.get(name="A")
    questions = export("questions", "researcherbench", a, tmp_path)
    responses = export("reports", "researcherbench", a, tmp_path, system="sys")
    run("questions", questions["questions.json"], study="B", format="researcherbench",
        rubric=questions["rubric.json"])  # fmt: skip
    run("reports", responses["sys.json"], study="B", format="researcherbench", system="sys")
    before, after = content(a), content(Study.objects.get(name="B"))
    assert before["rubrics"] and before["reports"]
    assert after == before


def test_deepscholar_folder_round_trip(tmp_path):
    run("reports", DATA / "deepscholar" / "toy-system", study="A", format="deepscholar")
    a = Study.objects.get(name="A")
    export("reports", "deepscholar", a, tmp_path, system="toy-system")
    run("reports", tmp_path / "toy-system", study="B", format="deepscholar")
    before, after = content(a), content(Study.objects.get(name="B"))
    assert len(before["reports"]) == 2
    assert after == before


def test_deepscholar_folder_round_trip_keeps_the_papers_titles(tmp_path):
    """A DeepScholar question is named by its paper's title (Question.title, from the
    --papers table): the export writes it in query.json's "title" (the field OpenScholar's
    JSON names the paper by), so the re-import into a new study keeps it. Before, the
    export wrote only the id and the query, and study B's questions had no title."""
    papers = tmp_path / "papers.csv"
    papers.write_text(
        "id,arxiv_id,title,abstract\n"
        "2401.00001,2401.00001,Graphs for Citation Recommendation,We recommend citations.\n"
        '2402.00002,2402.00002,"Transformers, Cited: A Study",We cite with transformers.\n',
        encoding="utf-8",
    )
    run("reports", DATA / "deepscholar" / "toy-system", study="A", format="deepscholar",
        papers=papers)  # fmt: skip
    a = Study.objects.get(name="A")
    titles = dict(Question.objects.filter(study=a).values_list("external_id", "title"))
    assert titles == {"2401.00001": "Graphs for Citation Recommendation",
                      "2402.00002": "Transformers, Cited: A Study"}  # fmt: skip
    files = export("reports", "deepscholar", a, tmp_path / "out", system="toy-system")
    meta = json.loads(files["toy-system/2402.00002/query.json"].read_text(encoding="utf-8"))
    assert meta["title"] == "Transformers, Cited: A Study"
    run("reports", tmp_path / "out" / "toy-system", study="B", format="deepscholar")
    b = Study.objects.get(name="B")
    assert dict(Question.objects.filter(study=b).values_list("external_id", "title")) == titles
    assert content(b) == content(a)


def test_generic_questions_round_trip(tmp_path):
    run("questions", DATA / "questions.jsonl", study="A", format="jsonl")
    a = Study.objects.get(name="A")
    files = export("questions", "jsonl", a, tmp_path)
    run("questions", files["questions.jsonl"], study="B", format="jsonl")
    assert content(Study.objects.get(name="B")) == content(a)


# --- Judge results ----------------------------------------------------------------------------


def judgments(study: Study, judge: str) -> dict:
    from judges.models import JudgeCoverage, JudgePairwise, JudgeScore

    coverage = {
        (r.report.question.external_id, r.report.system.name, r.item.rubric.kind,
         r.item.position): (r.label, r.covered, r.rationale)
        for r in JudgeCoverage.objects.filter(judge__name=judge, report__question__study=study)
        .select_related("report__question", "report__system", "item__rubric")
    }  # fmt: skip
    pairwise = {
        (p.left.question.external_id, p.left.system.name, p.right.system.name, p.protocol): (
            p.choice, p.rationale, p.score_left, p.score_right)
        for p in JudgePairwise.objects.filter(judge__name=judge, left__question__study=study)
        .select_related("left__question", "left__system", "right__system")
    }  # fmt: skip
    scores = {
        (s.report.question.external_id, s.report.system.name, s.metric): (s.value, s.rationale)
        for s in JudgeScore.objects.filter(judge__name=judge, report__question__study=study)
        .select_related("report__question", "report__system")
    }  # fmt: skip
    return {"coverage": coverage, "pairwise": pairwise, "scores": scores}


def test_researchqa_coverage_and_pairwise_judgments_round_trip(tmp_path):
    from tests.builders.judged import build_study

    a = build_study("A")
    for system in ("alpha", "beta"):
        run("judge_scores", JUDGE_DATA / f"researchqa_coverage_{system}.json", study=a,
            format="researchqa-coverage", judge="g", system=system)  # fmt: skip
    run("judge_scores", JUDGE_DATA / "researchqa_pairwise.json", study=a,
        format="researchqa-pairwise", judge="g")  # fmt: skip
    b = build_study("B")
    for system in ("alpha", "beta"):
        files = export("judge_scores", "researchqa-coverage", a, tmp_path, judge="g",
                       system=system)  # fmt: skip
        run("judge_scores", files[f"coverage_{system}.json"], study=b,
            format="researchqa-coverage", judge="g", system=system)  # fmt: skip
    files = export("judge_scores", "researchqa-pairwise", a, tmp_path, judge="g")
    run("judge_scores", files["judge_pairwise.json"], study=b, format="researchqa-pairwise",
        judge="g")  # fmt: skip
    before, after = judgments(a, "g"), judgments(b, "g")
    assert len(before["coverage"]) == 40 and len(before["pairwise"]) > 5
    assert after == before  # coverage labels, both orders of each pair, the ensemble


def test_researcherbench_judge_results_round_trip(tmp_path):
    from annotation.models import Rubric, System

    def study(name):
        s = Study.objects.create(name=name)
        q = Question.objects.create(study=s, external_id="7", text="Why?")
        Report.objects.create(question=q, system=System.objects.create(study=s, name="alpha"))
        rubric = Rubric.objects.create(question=q, kind="researcherbench")
        for i in range(1, 14):
            RubricItem.objects.create(rubric=rubric, position=i,
                                      text=f"Criterion {i} of question 7", weight=2)  # fmt: skip
        return s

    a, b = study("A"), study("B")
    run("judge_scores", JUDGE_DATA / "researcherbench_results.json", study=a,
        format="researcherbench", judge="o3")  # fmt: skip
    files = export("judge_scores", "researcherbench", a, tmp_path, judge="o3")
    run("judge_scores", files["researcherbench_results.json"], study=b,
        format="researcherbench", judge="o3")  # fmt: skip
    before, after = judgments(a, "o3"), judgments(b, "o3")
    assert len(before["coverage"]) == 13 and before["scores"]
    assert after == before


def test_csv_judge_scores_round_trip(tmp_path):
    from tests.builders.judged import build_study

    a, b = build_study("A"), build_study("B")
    run("judge_scores", JUDGE_DATA / "scores.csv", study=a, format="csv", judge="j")
    files = export("judge_scores", "csv", a, tmp_path, judge="j")
    run("judge_scores", files["judge_scores.csv"], study=b, format="csv", judge="j")
    assert judgments(b, "j") == judgments(a, "j") != {"coverage": {}, "pairwise": {}, "scores": {}}


def test_export_format_command_writes_what_import_reads(tmp_path):
    run("reports", DATA / "scholarqa_reports.json", study="A", format="scholarqa", system="sqa")
    call_command("export_format", "reports", "researchqa", study="A", system="sqa",
                 out=str(tmp_path), stderr=io.StringIO())  # fmt: skip
    call_command("import_reports", str(tmp_path / "sqa.json"), study="B", format="researchqa",
                 system="sqa", stdout=io.StringIO())  # fmt: skip
    assert (
        Report.objects.filter(question__study__name="B").count()
        == Report.objects.filter(question__study__name="A").count()
    )


def test_export_format_command_refuses_a_missing_required_option_naming_its_flag(tmp_path):
    """The command checks options with the one check of every export (writer_options)."""
    from django.core.management.base import CommandError

    run("reports", DATA / "scholarqa_reports.json", study="A", format="scholarqa", system="sqa")
    with pytest.raises(CommandError, match="--system: required"):
        call_command("export_format", "reports", "researchqa", study="A", out=str(tmp_path),
                     stderr=io.StringIO())  # fmt: skip
    assert not list(tmp_path.iterdir())


# --- One declaration: the registry reaches every consumer ------------------------------------


def _help(command: str) -> str:
    from django.core.management import load_command_class

    app = "judges" if command == "import_judge_scores" else "annotation"
    text = load_command_class(app, command).create_parser("manage.py", command).format_help()
    return " ".join(text.split()).replace("- ", "-")  # argparse wraps after hyphens


def test_every_registered_format_and_option_reaches_commands_forms_and_api():
    from annotation.admin import ImportForm
    from annotation.api import IMPORT_OPTIONS
    from studio.studyadmin.forms import UploadForm

    commands = {"reports": "import_reports", "questions": "import_questions",
                "pairwise": "import_pairwise", "judge_scores": "import_judge_scores",
                "judgments": "import_judgments", "deepscholar": "import_deepscholar",
                "claims": "import_claims"}  # fmt: skip
    assert set(KINDS) == set(commands)
    for form in (ImportForm(), UploadForm()):
        assert {k for k, _ in form.fields["kind"].choices} == set(KINDS)
        assert {f.name for f in FORMATS.values()} <= {v for v, _ in form.fields["format"].choices}
        assert set(all_options()) <= set(form.fields)
    for kind, command in commands.items():
        text = _help(command)
        for fmt in FORMATS.values():
            if fmt.kind == kind:
                assert fmt.name in text, (kind, fmt.name)
        for option in options_of(kind).values():
            assert option.flag in text, (kind, option.name)
            assert " ".join(option.help.split())[:20] in text
        assert set(IMPORT_OPTIONS[kind]) == set(options_of(kind))
    export_help = _help("export_format")
    for fmt in writable():
        assert fmt.name in export_help
        for option in fmt.dump_options:
            assert option.flag in export_help


def test_every_outside_format_is_written_back():
    """Each paper's format has a writer (issue 18)."""
    wanted = {
        ("reports", "scholarqa"), ("reports", "researchqa"), ("reports", "researcherbench"),
        ("reports", "deepscholar"), ("questions", "researchqa"), ("questions", "researcherbench"),
        ("questions", "jsonl"), ("pairwise", "scholarqa"), ("judge_scores", "researchqa-coverage"),
        ("judge_scores", "researchqa-pairwise"), ("judge_scores", "researcherbench"),
        ("judge_scores", "csv"), ("deepscholar", "nuggetizer"),
    }  # fmt: skip
    assert wanted <= {f.key for f in writable()}


# --- Human judgments of every kind: the judgment export read back ----------------------------


def _content_twice():
    """Two studies with the same questions, reports and rubric (natural keys equal)."""
    from tests.builders.content import make_question, make_study

    studies = []
    for name in ("A", "B"):
        s = make_study(name)
        make_question(s, n_reports=3, paragraphs=3, rubric_items=3, external_id="q1")
        studies.append(s)
    return studies


def _judge_every_kind(study):
    """One judgment of each kind the judgment export writes (but adjudication)."""
    from annotation import models as m

    ann = m.Annotator.objects.create(pseudonym="Pseudo-x")
    q = study.questions.get()
    r1, r2, r3 = q.reports.order_by("system__name")
    item = m.RubricItem.objects.filter(rubric__question=q).order_by("position")[1]
    base = {"study": study, "annotator": ann, "question": q, "setting": "assigned"}
    ranking = m.MedalRanking.objects.create(**base, reasoning="r1 is the most complete")
    m.Medal.objects.create(ranking=ranking, report=r1, medal="gold")
    m.Medal.objects.create(ranking=ranking, report=r2, medal="silver")
    m.Medal.objects.create(ranking=ranking, report=r3, medal="silver")
    m.PairwisePreference.objects.create(**base, left=r2, right=r1, choice="right", reason="why")
    m.HumanMetricScore.objects.create(**base, report=r1, metric="overall", value=0.75)
    m.ParagraphRelevance.objects.create(**base, paragraph=r2.paragraphs.get(number=2), label="U")
    m.ClaimAssessment.objects.create(
        **base, report=r3, paragraph=r3.paragraphs.get(number=1), position=1, text="A claim",
        citation_count=2, citations=[{"key": "1", "support": "snippet"}], supporting_credit=0.5,
        coverage="partially", notes="n",
    )  # fmt: skip
    m.ReportRating.objects.create(**base, report=r2, dimension="answer_quality", value=4)
    m.QueryQuality.objects.create(**base, clarity=3, naturalness=4, relevance=5,
                                  variability="closed", comment="fine")  # fmt: skip
    m.RubricItemQuality.objects.create(**base, item=item, emphasis="sentence", necessity="no_change",
                                       confidence=3, flags=["unclear"])  # fmt: skip
    m.RubricCoverage.objects.create(**base, report=r1, item=item, label=3, covered=None)


def _comparable(study) -> list[dict]:
    from annotation.exporters import judgment_records

    drop = {"id", "ranking", "report", "left_report", "right_report", "created_at",
            "updated_at", "task"}  # fmt: skip
    return sorted(
        ({k: v for k, v in r.items() if k not in drop} for r in judgment_records(study)),
        key=lambda r: json.dumps(r, sort_keys=True),
    )


def test_human_judgments_of_every_kind_round_trip(tmp_path):
    from annotation.exporters import JUDGMENT_KINDS

    a, b = _content_twice()
    _judge_every_kind(a)
    files = export("judgments", "jsonl", a, tmp_path)
    rep = run("judgments", files["judgments.jsonl"], study=b)
    before, after = _comparable(a), _comparable(b)
    # the kinds this world holds (tests/annotation/test_judgment_kinds.py: every kind)
    assert {r["kind"] for r in before} == set(JUDGMENT_KINDS) - {
        "relevance_adjudication", "deepscholar_label", "claim_check", "expertise_rating",
        "rubric_assessment", "authored_question",
    }  # fmt: skip
    assert after == before
    again = run("judgments", files["judgments.jsonl"], study=b)  # by natural key: no duplicates
    assert not again.created and sum(again.unchanged.values()) >= rep.records
    assert _comparable(b) == before


def test_judgments_naming_what_the_study_lacks_are_refused(tmp_path):
    from annotation.importers import ImportFailed

    a, b = _content_twice()
    _judge_every_kind(a)
    text = FORMATS[("judgments", "jsonl")].dump(a)["judgments.jsonl"]
    bad = text.replace('"system": "SecretSystem0"', '"system": "Nobody"', 1)
    with pytest.raises(ImportFailed, match="Nobody"):
        run("judgments", bad.encode(), study=b)
    assert _comparable(b) == []


def test_api_export_answers_each_writer_as_a_file_or_a_zip(admin_user, tmp_path):
    import zipfile

    from django.urls import reverse
    from rest_framework.test import APIClient

    run("reports", DATA / "deepscholar" / "toy-system", study="A", format="deepscholar")
    a = Study.objects.get(name="A")
    client = APIClient()
    client.force_login(admin_user)
    url = reverse("study-export", args=[a.pk])
    one = client.get(url, {"kind": "reports", "file_format": "researchqa", "system": "toy-system"})
    assert one.status_code == 200 and set(json.loads(one.content)) == {"2401.00001", "2402.00002"}
    many = client.get(
        url, {"kind": "reports", "file_format": "deepscholar", "system": "toy-system"}
    )
    assert many["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(many.content)).namelist()
    assert sorted(names) == [
        f"toy-system/{q}/{f}"
        for q in ("2401.00001", "2402.00002")
        for f in ("output.md", "query.json", "references.json")
    ]
    missing = client.get(url, {"kind": "reports", "file_format": "researchqa"})
    assert missing.status_code == 400 and "system" in missing.content.decode()
    unknown = client.get(url, {"kind": "reports", "file_format": "nope"})
    assert unknown.status_code == 400


def test_judgments_import_of_rubric_coverage_reads_no_paragraphs():
    """The judgments import reads the study's tables a record needs: rubric coverage labels
    point at reports and rubric items, never at paragraphs (378,000 at ResearchQA scale)."""
    import json

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotation import importers
    from annotation.models import RubricCoverage

    questions = [{"id": "q1", "query": "Why?", "field": "f",
                  "rubric": [{"rubric_item": "aspect one", "type": "information"}]}]  # fmt: skip
    importers.run("questions", json.dumps(questions[0]).encode(), study="rc", format="researchqa")
    importers.run("reports", json.dumps({"q1": {"answer": "An answer [1]."}}).encode(),
                  study="rc", format="researchqa", system="alpha")  # fmt: skip
    label = {"kind": "rubric_coverage", "annotator": "expert-1", "setting": "assigned",
             "question": "q1", "system": "alpha", "rubric": "researchqa", "item": 1,
             "label": 3, "covered": None}  # fmt: skip
    with CaptureQueriesContext(connection) as queries:
        importers.run("judgments", json.dumps(label).encode(), study="rc")
    assert RubricCoverage.objects.get(study__name="rc").label == 3
    assert not [q for q in queries if 'FROM "annotation_paragraph"' in q["sql"]]


@pytest.mark.skipif(not (RELEASED / "reports").is_dir(), reason="released data not present")
@pytest.mark.parametrize("name", ["expert_written/sqa-qwen3_8b_SFT_fullanswer.jsonl",
                                  "dev/you.json"])  # fmt: skip
def test_a_released_report_file_exports_byte_for_byte(tmp_path, name):
    """The released files are JSON lists indented by 4 (the qwen file, despite its
    ``.jsonl`` name) or by 2, with escaped non-ASCII and no final newline: the export wrote
    every one indented by 1. It now writes the layout it read, so each comes back as it
    was released, byte for byte."""
    path = RELEASED / "reports" / name
    run("reports", path, study="A", format="scholarqa", system="s")
    files = FORMATS[("reports", "scholarqa")].dump(Study.objects.get(name="A"), system="s")
    assert list(files) == ["s.json"]  # a JSON list, whatever the released name says
    assert files["s.json"].encode("utf-8") == path.read_bytes()


def test_a_json_lines_report_file_exports_as_json_lines(tmp_path):
    """A JSON lines file (CRLF line ends) came back a JSON list: it comes back JSON lines,
    named ``.jsonl``, line for line the records it read, and imports back the same."""
    records = json.loads((DATA / "scholarqa_reports.json").read_text(encoding="utf-8"))
    lines = tmp_path / "sqa.jsonl"
    lines.write_bytes("".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in records)
                      .encode("utf-8"))  # fmt: skip
    run("reports", lines, study="A", format="scholarqa", system="sqa")
    a = Study.objects.get(name="A")
    files = export("reports", "scholarqa", a, tmp_path / "out", system="sqa")
    assert list(files) == ["sqa.jsonl"]
    written = files["sqa.jsonl"].read_bytes()
    assert written == lines.read_bytes()
    run("reports", files["sqa.jsonl"], study="B", format="scholarqa", system="sqa")
    assert content(Study.objects.get(name="B"))["reports"] == content(a)["reports"]
