"""The client writes (issue 28, "Done when"): a notebook with an admin's token only, against a
live server, creates a study, uploads questions, reports, human judgments and judge scores
from DataFrames, previews and commits an assignment plan, reads progress and
self-describing judgments, and reads the agreement report with every table and its
intervals."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest
from rest_framework.authtoken.models import Token

from annotation.models import Assignment, HumanMetricScore, MedalRanking, Question, Report
from tests.builders.users import make_user

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "client"))
from concord_client import Concord, ConcordError  # noqa: E402

SYSTEMS = ["alpha", "beta", "gamma"]
QUESTIONS = [f"q{i}" for i in range(1, 7)]
#: quality of each system's answer, so humans and the judge mostly agree (a real signal)
QUALITY = {"alpha": 0.9, "beta": 0.5, "gamma": 0.2}


def markdown(qid: str, system: str) -> str:
    return f"# Answer to {qid}\n\n{system} says something about {qid}.\n\nA second paragraph.\n"


@pytest.fixture
def admin(live_server):
    user = make_user("notebook_admin", "admin")
    for name in ("nb_ann1", "nb_ann2", "nb_ann3"):  # annotators with accounts: the plan's pool
        make_user(name, "annotator", annotator=True)
    return live_server.url, Token.objects.create(user=user).key


def test_a_notebook_builds_a_study_through_the_client(admin):
    url, token = admin
    concord = Concord(url, token, page_size=7)
    study = concord.create_study("Notebook study", description="made from pandas")

    questions = pd.DataFrame({
        "id": QUESTIONS, "text": [f"What is known about topic {q}?" for q in QUESTIONS],
        "field": ["Computer Science"] * 3 + ["Biology"] * 3,
        "rubric": [[{"text": f"Mentions {q}"}, {"text": "Cites a source"}] for q in QUESTIONS],
    })  # fmt: skip
    done = study.upload("questions", questions, format="jsonl")
    assert Question.objects.filter(study_id=study.id).count() == len(QUESTIONS), done
    for system in SYSTEMS:
        reports = pd.DataFrame({"id": QUESTIONS, "question": questions["text"],
                                "response": [markdown(q, system) for q in QUESTIONS]})  # fmt: skip
        study.upload("reports", reports, format="researcherbench", system=system)
    assert Report.objects.filter(question__study_id=study.id).count() == 18

    rows = []
    for annotator, noise in (("ext_a", 0.0), ("ext_b", 0.05)):
        for q in QUESTIONS:
            ranked = sorted(SYSTEMS, key=lambda s: -QUALITY[s])
            for system, medal in zip(ranked, ["gold", "silver", "bronze"], strict=True):
                rows.append(
                    {
                        "kind": "medal",
                        "annotator": annotator,
                        "setting": "assigned",
                        "question": q,
                        "system": system,
                        "medal": medal,
                        "ranking": f"{annotator}-{q}",
                        "reasoning": "best first",
                    }
                )
                rows.append({"kind": "human_metric_score", "annotator": annotator,
                             "setting": "assigned", "question": q, "system": system,
                             "metric": "overall", "value": QUALITY[system] - noise})  # fmt: skip
    study.upload("judgments", pd.DataFrame(rows), format="jsonl")
    assert MedalRanking.objects.filter(study_id=study.id).count() == 12
    assert HumanMetricScore.objects.filter(study_id=study.id).count() == 36

    scores = pd.DataFrame([
        {"question": q, "system": s, "metric": "overall", "value": QUALITY[s] + i / 100}
        for i, q in enumerate(QUESTIONS) for s in SYSTEMS
    ])  # fmt: skip
    try:
        import datasets
    except ImportError:
        study.upload("judge_scores", scores, format="csv", judge="nb-judge")
    else:  # a Hugging Face dataset goes the same way
        study.upload("judge_scores", datasets.Dataset.from_pandas(scores), format="csv",
                     judge="nb-judge")  # fmt: skip

    # a bad record is refused, naming the record and the field, and writes nothing
    bad = pd.DataFrame([{**rows[1], "system": "nobody"}])
    with pytest.raises(ConcordError, match="system"):
        study.upload("judgments", bad, format="jsonl")
    assert HumanMetricScore.objects.filter(study_id=study.id).count() == 36

    task = "medal_ranking"
    assert task in concord.study(study.id).row["tasks"]
    preview = study.plan(task, overlap=2, seed=3)
    assert preview["committed"] is False and preview["assignments"] == 12  # 6 questions × 2
    assert Assignment.objects.filter(study_id=study.id).count() == 0  # a preview writes nothing
    assert {p["question"] for p in preview["plan"]} == set(QUESTIONS)
    with pytest.raises(ConcordError, match="fingerprint"):
        study.plan(task, overlap=2, seed=3, commit=True, fingerprint="0" * 16)
    done = study.plan(task, overlap=2, seed=3, commit=True, fingerprint=preview["fingerprint"])
    assert done["committed"] is True
    assert Assignment.objects.filter(study_id=study.id).count() == 12
    with pytest.raises(ConcordError, match="overlap"):
        study.plan(task, overlap=0)

    progress = study.progress()
    assert progress["total"] == progress["not_started"] == 12
    assert progress["submitted"] == 0 and progress["median_seconds"] is None
    assert sorted(a["pseudonym"] for a in progress["annotators"]) == sorted(
        {p["annotator"] for p in done["plan"]}
    )

    medals = study.judgments("medal-rankings").to_pandas()
    assert len(medals) == 12
    assert set(medals["question_external_id"]) == set(QUESTIONS)
    assert set(medals["annotator_pseudonym"]) == {"ext_a", "ext_b"}
    assert medals["question_text"].str.startswith("What is known").all()
    assert all(sorted(s) == sorted(SYSTEMS) for s in medals["systems"])
    scores_back = study.judgments("metric-scores", system="alpha").to_pandas()
    assert len(scores_back) == 12 and set(scores_back["system"]) == {"alpha"}

    report = study.report(judge="nb-judge", bootstrap=100, seed=1)
    tables = report.tables
    assert len(tables) >= 12 and {"scoreboard", "system", "preference"} <= set(tables)
    system = tables["system"]
    assert {"ci_human_low", "ci_human_high"} <= set(system.columns)
    assert system["ci_human_low"].notna().all()
    assert tables["preference"].loc["overall", "n"] > 0


def test_plans_are_for_admins_and_progress_for_the_studys_readers(admin):
    url, token = admin
    study = Concord(url, token).create_study("Guarded study")
    reader = make_user("nb_reader", "researcher")
    stranger = make_user("nb_stranger", "researcher")
    from annotation.models import Study

    Study.objects.get(pk=study.id).researchers.add(reader)
    as_reader = Concord(url, Token.objects.create(user=reader).key).study(study.id)
    assert as_reader.progress()["total"] == 0
    with pytest.raises(ConcordError, match="403"):
        as_reader.plan("medal_ranking")
    with pytest.raises(ConcordError, match="403"):
        as_reader.upload("questions", pd.DataFrame({"id": ["x"], "text": ["y"]}), format="jsonl")
    outsider = Concord(url, Token.objects.create(user=stranger).key)
    with pytest.raises(ConcordError, match="404"):
        outsider.get(f"api/studies/{study.id}/progress/")
    with pytest.raises(ConcordError, match="task"):  # not enabled: refused with how to enable
        Concord(url, token).study(study.id).plan("medal_ranking")


def test_upload_takes_a_path_bytes_or_a_file_and_a_dry_run_writes_nothing(admin, tmp_path):
    import json

    url, token = admin
    study = Concord(url, token).create_study("Files study")
    lines = "\n".join(json.dumps({"id": f"f{i}", "text": f"Question {i}?"}) for i in range(3))
    path = tmp_path / "questions.jsonl"
    path.write_text(lines)
    answer = study.upload("questions", path, format="jsonl", dry_run=True)
    assert answer and Question.objects.filter(study_id=study.id).count() == 0
    study.upload("questions", str(path), format="jsonl")
    assert Question.objects.filter(study_id=study.id).count() == 3
    more = json.dumps({"id": "f9", "text": "Another?"}).encode()
    study.upload("questions", more, format="jsonl")
    with path.open("rb") as handle:
        study.upload("questions", handle, format="jsonl")  # the same three: unchanged
    assert Question.objects.filter(study_id=study.id).count() == 4
    with pytest.raises(ConcordError, match="text"):
        study.upload("questions", pd.DataFrame({"id": ["g1"]}), format="jsonl")


def test_a_refused_import_keeps_every_problem_the_server_listed(admin):
    """A judge-scores file with a bad ``value`` in each of its 144 rows: the error holds the
    144 problems as the server sent them (file, record, field, message) and its status;
    ``str()`` shows the first few, one a line, and says how many more, never JSON cut
    mid-record (the client kept the answer's first 500 characters: 4 problems)."""
    import json

    from judges.models import JudgeScore

    url, token = admin
    study = Concord(url, token).create_study("Refused scores")
    study.upload("questions", pd.DataFrame({"id": QUESTIONS, "text": QUESTIONS}), format="jsonl")
    for system in SYSTEMS:
        reports = pd.DataFrame({"id": QUESTIONS, "question": QUESTIONS,
                                "response": [markdown(q, system) for q in QUESTIONS]})  # fmt: skip
        study.upload("reports", reports, format="researcherbench", system=system)
    from judges.scoring.metrics import JUDGE_METRICS

    metrics = sorted(JUDGE_METRICS)[:8]  # known metrics: only the value is wrong
    scores = pd.DataFrame([
        {"question": q, "system": s, "metric": m, "value": "not a number"}
        for q in QUESTIONS for s in SYSTEMS for m in metrics
    ])  # fmt: skip
    assert len(scores) == 144
    with pytest.raises(ConcordError) as refused:
        study.upload("judge_scores", scores, format="csv", judge="x")
    error = refused.value
    assert error.status == 400
    assert len(error.errors) == 144 and error.problems is error.errors
    assert {e["field"] for e in error.errors} == {"value"}
    assert [e["record"] for e in error.errors] == list(range(1, 145))
    assert error.errors[0] == {"file": "judge_scores.csv", "record": 1, "field": "value",
                               "message": "expected a number, found 'not a number'"}  # fmt: skip
    assert all(set(e) >= {"file", "record", "field", "message"} for e in error.errors)
    assert error.body["errors"] == error.errors and error.body["detail"] == error.detail
    assert "144 problems" in error.detail
    text = str(error)
    lines = text.splitlines()
    assert lines[0] == f"POST api/studies/{study.id}/import/ answered 400: {error.detail}"
    assert len(lines) == 2 + ConcordError.SHOWN
    assert lines[-1].startswith(f"  … and {144 - ConcordError.SHOWN} more")
    assert all("field value" in line and "record" in line for line in lines[1:-1])
    assert "{" not in text  # problems as sentences, not a JSON body cut anywhere
    assert json.loads(json.dumps(error.errors)) == error.errors
    assert JudgeScore.objects.filter(report__question__study_id=study.id).count() == 0


def test_errors_of_other_shapes_are_kept_whole():
    """A ``{"detail": …}`` answer is its detail, no problem; an older server's
    ``{field: [messages]}`` becomes field/message problems; an answer that is not JSON
    keeps the start of its text in the message."""
    import requests

    def answer(status: int, body: str, kind: str = "application/json"):
        made = requests.Response()
        made.status_code, made._content = status, body.encode()
        made.headers["Content-Type"] = kind
        return made

    detail = ConcordError.from_answer("GET x answered 403", answer(403, '{"detail": "no"}'))
    assert detail.errors == [] and detail.detail == "no" and detail.status == 403
    assert str(detail) == "GET x answered 403: no"
    fields = ConcordError.from_answer("POST y answered 400",
                                      answer(400, '{"overlap": ["too small", "an integer"]}'))  # fmt: skip
    assert fields.errors == [{"field": "overlap", "message": "too small"},
                             {"field": "overlap", "message": "an integer"}]  # fmt: skip
    page = ConcordError.from_answer("GET z answered 502", answer(502, "<h1>Bad gateway</h1>", "text/html"))  # fmt: skip
    assert page.errors == [] and str(page) == "GET z answered 502: <h1>Bad gateway</h1>"


RESEARCHERBENCH = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "researcherbench"


def test_a_rubric_goes_as_a_file_part_given_as_a_path_or_an_open_file(admin):
    """The released ResearcherBench questions with their rubric: the rubric as a path was
    sent as text in ``options`` and refused ("must be uploaded as a file"); as an open file
    the client failed to encode it (not JSON). Each is now a file part of its own."""
    import json

    from annotation.models import Rubric, RubricItem

    url, token = admin
    questions = RESEARCHERBENCH / "questions.json"
    rubric = RESEARCHERBENCH / "rubric.json"
    released = json.loads(rubric.read_text(encoding="utf-8"))
    concord = Concord(url, token)
    for name, given in (("as text", str(rubric)), ("as a Path", rubric), ("open", "handle")):
        study = concord.create_study(f"ResearcherBench {name}")
        if given == "handle":
            with rubric.open("rb") as handle:
                study.upload("questions", str(questions), format="researcherbench", rubric=handle)
        else:
            study.upload("questions", questions, format="researcherbench", rubric=given)
        assert Rubric.objects.filter(question__study_id=study.id).count() == len(released)
        items = RubricItem.objects.filter(rubric__question__study_id=study.id).count()
        assert items == sum(len(r["rubric"]) for r in released)
    study = concord.create_study("ResearcherBench missing")
    with pytest.raises(ConcordError, match="no such file"):
        study.upload("questions", questions, format="researcherbench", rubric="nowhere.json")


def test_the_clients_file_options_are_the_servers():
    """The client sends these options as file parts: every file option of the import
    registry, and nothing else (a new one would otherwise go as text and be refused)."""
    from concord_client import FILE_OPTIONS

    from annotation.api import import_option_types

    server = {name for kind in import_option_types().values() for name, t in kind.items()
              if t == "file"}  # fmt: skip
    assert set(FILE_OPTIONS) == server
