"""Each benchmark's own scoreboard from its judge results alone (issue 26, "Reports that
fit the protocol"; docs/ANALYSES.md §13), and ResearcherBench's two judge S_c named apart
(issue 27). Every expected figure is computed by hand here from the file the test builds."""

import json
from pathlib import Path

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotation.models import (
    Annotator,
    Question,
    Report,
    Rubric,
    RubricCoverage,
    RubricItem,
    Study,
    System,
)
from judges.importers import import_judge_scores
from judges.models import Judge, JudgeDeepScholarLabel, JudgeScore
from tests.builders.judged import build_study

from .section_checks import assert_typed, command, everywhere

pytestmark = pytest.mark.django_db

#: question -> item weights (ResearcherBench weights are 1–3)
WEIGHTS = {"1": [3, 2, 1], "2": [2, 2], "3": [1, 3, 3]}
#: system -> question -> the judge's covered flag per item
COVERED = {
    "sonar-reasoning-pro": {
        "1": [True, False, True],
        "2": [True, False],
        "3": [False, False, True],
    },
    "gpt-4o-search-preview": {"1": [False, False, True], "2": [True, True], "3": [True] * 3},
}
# By hand: S_c per question = Σ w·b / Σ w, the system's figure the mean over its questions.
SONAR = (4 / 6 + 2 / 4 + 3 / 7) / 3  # 0.531746…
GPT4O = (1 / 6 + 4 / 4 + 7 / 7) / 3  # 0.722222…


def _researcherbench_study(researcher):
    study = Study.objects.create(name="rb-board")
    study.researchers.add(researcher)
    systems = [System.objects.create(study=study, name=s) for s in COVERED]
    for qid, weights in WEIGHTS.items():
        q = Question.objects.create(study=study, external_id=qid, text=f"Question {qid}?")
        rubric = Rubric.objects.create(question=q, kind="researcherbench")
        for i, w in enumerate(weights, start=1):
            RubricItem.objects.create(rubric=rubric, position=i, text=f"Point {i} of {qid}",
                                      weight=w)  # fmt: skip
        for s in systems:
            Report.objects.create(question=q, system=s)
    return study


def _released_shape(system: str) -> bytes:
    """A file of the shape of the released ``results/rubric_eval/<model>/
    <model>_evaluation_results.json`` (GAIR-NLP/ResearcherBench ``evaluator.py``)."""
    records = []
    for qid, flags in COVERED[system].items():
        weights = WEIGHTS[qid]
        m = sum(w for w, b in zip(weights, flags, strict=True) if b)
        records.append({
            "id": int(qid), "model": system, "metric": "Evaluation", "evaluator": "o3-mini",
            "result": {"m_weighted": m, "total_weight": sum(weights),
                       "recall": round(m / sum(weights), 4),
                       "coverage_results": [
                           {"point": f"Point {i} of {qid}", "weight": w, "covered": b,
                            "justification": "…"}
                           for i, (w, b) in enumerate(zip(weights, flags, strict=True), 1)]},
        })  # fmt: skip
    return json.dumps(records).encode()


@pytest.fixture
def rb(client, researcher_user):
    study = _researcherbench_study(researcher_user)
    for system in COVERED:
        import_judge_scores(_released_shape(system), study=study.name, judge="o3-mini",
                            format="researcherbench")  # fmt: skip
    client.force_login(researcher_user)
    return study


def _board(result, benchmark, judge):
    return next(b for b in result["boards"] if b["benchmark"] == benchmark and b["judge"] == judge)


def test_researcherbench_table3_from_judge_results_alone(client, rb):
    got = everywhere(client, rb, "scoreboard", "scoreboard", "scoreboard", "?bootstrap=200")
    board = _board(got, "researcherbench", "o3-mini")
    rows = {r["system"]: r for r in board["rows"]}
    assert rows["sonar-reasoning-pro"]["figures"]["coverage"]["value"] == pytest.approx(SONAR)
    assert rows["gpt-4o-search-preview"]["figures"]["coverage"]["value"] == pytest.approx(GPT4O)
    assert [r["system"] for r in board["rows"]] == [
        "gpt-4o-search-preview",
        "sonar-reasoning-pro",
    ]  # best first
    fig = rows["sonar-reasoning-pro"]["figures"]["coverage"]
    assert fig["n"] == 3 and fig["low"] <= SONAR <= fig["high"] and fig["low"] < fig["high"]
    assert "Table 3" in board["paper"]
    assert_typed("scoreboard", {"boards", "rounds", "notes"})
    # no expert label yet: the judge-vs-human section is absent, the scoreboard is there
    api = client.get(reverse("api-agreement", args=[rb.pk])).json()
    assert "researcherbench" not in api and api["scoreboard"]["boards"]
    # without bootstrap rounds the figures stand without interval, and the note says so
    plain = command(rb, "scoreboard")
    assert plain["notes"] and _board(plain, "researcherbench", "o3-mini")["rows"][0][
        "figures"]["coverage"]["low"] is None  # fmt: skip


def test_researcherbench_judge_coverage_paired_and_benchmark_named_apart(client, rb):
    """Issue 27: the judge's S_c over the units an expert labelled is not the benchmark's."""
    ann = Annotator.objects.create(pseudonym="expert-1")
    report = Report.objects.get(question__study=rb, question__external_id="1",
                                system__name="sonar-reasoning-pro")  # fmt: skip
    for position, covered in ((1, True), (2, True)):  # the expert labels 2 of its 3 items
        item = RubricItem.objects.get(rubric__question=report.question, position=position)
        RubricCoverage.objects.create(study=rb, question=report.question, annotator=ann,
                                      report=report, item=item, covered=covered)  # fmt: skip
    cache.clear()
    got = command(rb, "researcherbench")
    j = got["judges"][0]
    k = got["systems"].index("sonar-reasoning-pro")
    # the judge on those two items: weights 3 (covered), 2 (not) -> 3/5
    assert j["judge_coverage_paired_by_system"][k] == pytest.approx(3 / 5)
    assert j["judge_coverage_benchmark_by_system"][k] == pytest.approx(SONAR)
    assert_typed("researcherbench", {"systems"})
    from .section_checks import schema_component

    judge_props = schema_component("researcherbench")["properties"]["judges"]
    assert judge_props["type"] == "array"
    rows = {r["system"]: r for r in client.get(
        reverse("metaeval:table", args=[rb.pk, "researcherbench_systems", "json"])).json()}  # fmt: skip
    row = rows["sonar-reasoning-pro"]
    assert row["o3-mini (labelled units)"] == pytest.approx(0.6)
    assert row["o3-mini (benchmark, all items)"] == pytest.approx(SONAR)
    # and the scoreboard still shows the benchmark's figure beside the paired analysis
    board = _board(command(rb, "scoreboard"), "researcherbench", "o3-mini")
    value = {r["system"]: r["figures"]["coverage"]["value"] for r in board["rows"]}
    assert value["sonar-reasoning-pro"] == pytest.approx(SONAR)


def test_researchqa_coverage_and_bradley_terry_from_judge_results(client, researcher_user):
    from pathlib import Path

    data = Path(__file__).parents[1] / "judges" / "data"
    study = build_study("rqa-board")
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    for system in ("alpha", "beta"):
        import_judge_scores(data / f"researchqa_coverage_{system}.json", study=study.name,
                            judge="gpt-4.1-mini", format="researchqa-coverage", system=system)  # fmt: skip
    import_judge_scores(data / "researchqa_pairwise.json", study=study.name,
                        judge="gpt-4.1-mini", format="researchqa-pairwise")  # fmt: skip
    got = command(study, "scoreboard", "--bootstrap=100")
    cov = _board(got, "researchqa", "gpt-4.1-mini")
    assert cov["title"].startswith("ResearchQA: rubric coverage")
    from judges.scoring import researchqa

    for system in ("alpha", "beta"):
        per_q = []
        for entries in json.loads(
            (data / f"researchqa_coverage_{system}.json").read_text()
        ).values():
            labels = [researchqa.label_value(e["score"]) for e in entries]
            per_q.append(sum(labels) / len(labels) / 4 * 100)
        row = next(r for r in cov["rows"] if r["system"] == system)
        assert row["figures"]["coverage_percent"]["value"] == pytest.approx(sum(per_q) / len(per_q))
    bt = next(b for b in got["boards"] if b["title"].startswith("ResearchQA: Bradley"))
    assert {r["system"] for r in bt["rows"]} == {"alpha", "beta"}  # the ensemble's pairs
    # the ensemble: alpha wins q1, q2 ties -> alpha 1.5 of 2 points, P = 3/4, so the Elo
    # gap is 400·log10(3) around the mean 1000 (001 §4.1)
    elo = {r["system"]: r["figures"]["elo"]["value"] for r in bt["rows"]}
    import math

    assert elo["alpha"] - elo["beta"] == pytest.approx(400 * math.log10(3))
    assert elo["alpha"] + elo["beta"] == pytest.approx(2000)


def test_deepscholar_and_scholarqa_boards(client, researcher_user):
    study = build_study("ds-board", questions=2, systems=("alpha", "beta"))
    study.researchers.add(researcher_user)
    judge = Judge.objects.create(name="gpt-4o")
    reports = {(r.question.external_id, r.system.name): r
               for r in Report.objects.filter(question__study=study).select_related(
                   "question", "system")}  # fmt: skip
    labels = {  # (question, system) -> kind -> labels of its units
        ("q1", "alpha"): {"organization": ["win"], "nugget_support": ["supported", "partially_supported"],
                          "retrieval_relevance": ["2", "1"], "entailment": ["entailed"]},
        ("q2", "alpha"): {"organization": ["tie"], "nugget_support": ["supported", "supported"],
                          "retrieval_relevance": ["0"], "entailment": ["not_entailed", "entailed"]},
        ("q1", "beta"): {"organization": ["lose"], "nugget_support": ["not_supported", "supported"],
                         "retrieval_relevance": ["1", "1"], "entailment": ["entailed"]},
    }  # fmt: skip
    for (q, s), kinds in labels.items():
        r = reports[(q, s)]
        for kind, values in kinds.items():
            for i, v in enumerate(values):
                JudgeDeepScholarLabel.objects.create(judge=judge, kind=kind, question=r.question,
                                                     report=r, unit=str(i), label=v)  # fmt: skip
    for (q, s), value in {("q1", "alpha"): 0.8, ("q2", "alpha"): 0.6, ("q1", "beta"): 0.3}.items():
        JudgeScore.objects.create(
            judge=judge, report=reports[(q, s)], metric="overall", value=value
        )
    got = command(study, "scoreboard")
    ds = _board(got, "deepscholar", "gpt-4o")
    rows = {r["system"]: r["figures"] for r in ds["rows"]}
    # alpha: organization (1 + ½)/2; nuggets (½ + 1)/2 strict; relevance ((3/4) + 0)/2;
    # citation precision (1 + ½)/2
    assert rows["alpha"]["organization"]["value"] == pytest.approx(0.75)
    assert rows["alpha"]["nugget_coverage"]["value"] == pytest.approx(0.75)
    assert rows["alpha"]["relevance_rate"]["value"] == pytest.approx(0.375)
    assert rows["alpha"]["citation_precision"]["value"] == pytest.approx(0.75)
    assert rows["beta"]["organization"]["value"] == 0.0
    assert rows["beta"]["relevance_rate"]["value"] == pytest.approx(0.5)
    assert any("Reference coverage" in n for n in ds["notes"])
    sqa = _board(got, "scholarqa-cs2", "gpt-4o")
    assert [m["key"] for m in sqa["metrics"]] == ["overall"]
    assert {r["system"]: r["figures"]["overall"]["value"] for r in sqa["rows"]} == {
        "alpha": pytest.approx(0.7),
        "beta": pytest.approx(0.3),
    }


def test_the_human_signal_does_not_apply_and_says_so(rb):
    got = command(rb, "scoreboard", "--human-signal=majority")
    assert got["human_signal"]["applies"] is False and got["human_signal"]["note"]
    assert got["boards"] == command(rb, "scoreboard")["boards"]


def test_no_judge_result_no_section(client, researcher_user):
    study = Study.objects.create(name="empty-board")
    assert command(study, "scoreboard") is None


RB_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "researcherbench"


@pytest.mark.shared_data
def test_researcherbench_on_the_released_rubric_equals_the_benchmarks_average():
    """The released questions and 931-item weighted rubric, judge results of the released
    shape built per system with a seeded coin: the board's S_c per system is what the
    benchmark's ``main.py`` prints, the mean over questions of the records' ``recall``."""
    import random

    from annotation.importers import run

    if not RB_DATA.is_dir():
        pytest.skip("../shared/data/researcherbench not available")
    study = Study.objects.create(name="rb-released")
    run("questions", RB_DATA / "questions.json", study=study.name, format="researcherbench",
        rubric=RB_DATA / "rubric.json")  # fmt: skip
    rubric = json.loads((RB_DATA / "rubric.json").read_text())
    rng = random.Random(4663)
    printed = {}
    for system, p in (("sonar-reasoning-pro", 0.47), ("OpenAI", 0.70)):
        s = System.objects.create(study=study, name=system)
        for q in Question.objects.filter(study=study):
            Report.objects.create(question=q, system=s)
        records = []
        for q in rubric:
            cov = [{"point": i["point"], "weight": i["weight"], "covered": rng.random() < p,
                    "justification": ""} for i in q["rubric"]]  # fmt: skip
            m = sum(c["weight"] for c in cov if c["covered"])
            t = sum(c["weight"] for c in cov)
            records.append({"id": q["id"], "model": system, "evaluator": "o3-mini",
                            "result": {"m_weighted": m, "total_weight": t,
                                       "recall": round(m / t, 4), "coverage_results": cov}})  # fmt: skip
        import_judge_scores(json.dumps(records).encode(), study=study.name, judge="o3-mini",
                            format="researcherbench")  # fmt: skip
        printed[system] = sum(r["result"]["recall"] for r in records) / len(records)
    board = _board(command(study, "scoreboard", "--bootstrap=200"), "researcherbench", "o3-mini")
    for row in board["rows"]:
        fig = row["figures"]["coverage"]
        assert row["n"] == 65
        # main.py averages the recall rounded to 4 places: equal to within 5e-5
        assert fig["value"] == pytest.approx(printed[row["system"]], abs=5e-5)
        assert round(fig["value"], 4) == pytest.approx(round(printed[row["system"]], 4), abs=1e-4)
        assert fig["low"] < fig["value"] < fig["high"]


def test_the_scoreboard_reads_sums_in_a_constant_number_of_queries(rb):
    """Seven queries whatever the study's size: the judge's labels are summed per report
    in the database (a ResearchQA-scale study holds millions of them); the scores' judges
    and systems are named by two small queries (issue 29); a ResearcherBench board counts
    its judges' claim verdicts per report and verdict in one more (faithfulness)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from metaeval import sections
    from metaeval.reports import ReportOptions

    section = {s.key: s for s in sections.registered()}["scoreboard"]
    with CaptureQueriesContext(connection) as queries:
        sections.Analysis(rb.pk, ReportOptions()).result(section)
    assert len(queries) == 7, [q["sql"][:80] for q in queries]


def test_judge_results_alone_leave_out_the_judge_card_with_one_line(client, rb):
    """Issue 26, "Reports that fit the protocol": a ResearcherBench study with the judge's
    results and no expert label showed the judge card as three empty tables; it is one
    line saying why, and the scoreboard is on the page."""
    cache.clear()
    html = client.get(reverse("metaeval:report", args=[rb.pk])).content.decode()
    assert 'id="section-scoreboard"' in html
    assert 'id="section-judge_card"' not in html and 'id="table-judge_operations"' not in html
    assert 'id="section-judge_card-absent"' in html and "meets an expert label" in html
    assert command(rb, "judge_card")["judges"] == []  # the API's payload keeps its shape


def test_the_judge_vs_expert_analysis_is_null_with_a_note_naming_the_scoreboard(rb):
    """Issue 26: ``analysis --kind researcherbench --json`` on judge results alone printed
    ``null`` and nothing else; the null says why and where Table 3 is."""
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("analysis", "--study", rb.name, "--kind", "researcherbench", "--json", stdout=out)
    got = json.loads(out.getvalue())
    assert got["researcherbench"] is None
    assert "no binary coverage label" in got["note"] and "scoreboard" in got["note"]


def test_the_released_shape_imports_through_the_study_import_page(client, admin_user,
                                                                 researcher_user):  # fmt: skip
    """The o3-mini results are not in the released data we hold: a file of their shape,
    uploaded as an admin does on the study's import page, gives Table 3's S_c per system
    (computed by hand above from 004 eq. 2)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    study = _researcherbench_study(researcher_user)
    client.force_login(admin_user)
    for system in COVERED:
        upload = SimpleUploadedFile(f"{system}_evaluation_results.json", _released_shape(system))
        response = client.post(reverse("studies:import", args=[study.pk]),
                               {"kind": "judge_scores", "format": "researcherbench",
                                "judge": "o3-mini", "file": upload})  # fmt: skip
        assert response.status_code == 302, response.content.decode()[:2000]
    board = _board(command(study, "scoreboard"), "researcherbench", "o3-mini")
    value = {r["system"]: r["figures"]["coverage"]["value"] for r in board["rows"]}
    assert value == {"sonar-reasoning-pro": pytest.approx(SONAR),
                     "gpt-4o-search-preview": pytest.approx(GPT4O)}  # fmt: skip


#: system -> question -> the judge's claim-support verdicts of the report's cited claims
CLAIM_VERDICTS = {
    "sonar-reasoning-pro": {
        "1": ["supported", "supported", "unsupported"],
        "2": ["partial", "unsupported", "unknown"],
        "3": ["unknown"],
    },
    "gpt-4o-search-preview": {
        "1": ["supported"],
        "2": ["unsupported", "unsupported", "supported", "supported"],
    },
}
# By hand from 004 eq. 4, S_f = N_supported / N_cited per report, 'unknown' left out
# (METHODS §4), 'partial' counted supported (004 App. E.5: the verifier's 'yes' is facts
# found "entirely or partially"); the system's figure is the mean over its reports:
#   sonar q1 2/3, q2 1/2 (partial supported, unknown out), q3 only unknown: no S_f
SONAR_SF = (2 / 3 + 1 / 2) / 2  # 0.583333…, over 2 reports
SONAR_SF_STRICT = (2 / 3 + 0 / 2) / 2  # 0.3333: partial counted not supported
#   gpt-4o q1 1/1, q2 2/4
GPT4O_SF = (1 + 2 / 4) / 2  # 0.75


def test_researcherbench_faithfulness_and_groundedness_from_the_claim_verdicts(client, rb):
    """004 §4.2 / Table 3: the board shows S_f from the judge's claim-support verdicts and
    S_g null with a note (Concord's claims are only the cited spans); a judge without
    claim verdicts has S_f null with a note naming the task to run."""
    from judges.models import JudgeClaimVerdict

    judge = Judge.objects.get(name="o3-mini")
    for system, per_question in CLAIM_VERDICTS.items():
        for qid, verdicts in per_question.items():
            report = Report.objects.get(question__study=rb, question__external_id=qid,
                                        system__name=system)  # fmt: skip
            for i, v in enumerate(verdicts):
                JudgeClaimVerdict.objects.create(judge=judge, report=report, key=f"p1:{i}-{i + 1}",
                                                 text=f"claim {i}", verdict=v)  # fmt: skip
    # a second judge with coverage and no claim verdict
    for system in COVERED:
        import_judge_scores(_released_shape(system), study=rb.name, judge="gpt-4.1",
                            format="researcherbench")  # fmt: skip
    cache.clear()
    # the API, the table, the figure, the page and the offline HTML
    got = everywhere(client, rb, "scoreboard", "scoreboard", "scoreboard", "?bootstrap=200")
    board = _board(got, "researcherbench", "o3-mini")
    assert [m["key"] for m in board["metrics"]] == ["coverage", "faithfulness", "groundedness"]
    rows = {r["system"]: r["figures"] for r in board["rows"]}
    sonar, gpt = rows["sonar-reasoning-pro"], rows["gpt-4o-search-preview"]
    assert sonar["faithfulness"]["value"] == pytest.approx(SONAR_SF)
    assert sonar["faithfulness"]["n"] == 2  # q3's report has only an unknown verdict
    assert gpt["faithfulness"]["value"] == pytest.approx(GPT4O_SF)
    assert gpt["faithfulness"]["n"] == 2
    # the interval is the board's bootstrap over questions
    assert sonar["faithfulness"]["low"] <= SONAR_SF <= sonar["faithfulness"]["high"]
    # the partial and unknown verdicts are counted in the note, with the strict figure
    note = sonar["faithfulness"]["note"]
    assert "1 of the 5 known verdicts are 'partial'" in note
    assert f"{SONAR_SF_STRICT:.4f}" in note and "2 'unknown' verdict(s) left out" in note
    assert gpt["faithfulness"]["note"] is None
    # coverage unchanged, still the rank
    assert sonar["coverage"]["value"] == pytest.approx(SONAR)
    assert [r["system"] for r in board["rows"]][0] == "gpt-4o-search-preview"
    for figs in rows.values():  # never a number from the cited claims alone
        g = figs["groundedness"]
        assert g["value"] is None and "only the cited spans" in g["note"]
    other = _board(got, "researcherbench", "gpt-4.1")
    for r in other["rows"]:
        f = r["figures"]["faithfulness"]
        assert f["value"] is None and "run the claim-support task" in f["note"]
    # on the page: the two columns beside coverage
    text = _board(command(rb, "scoreboard"), "researcherbench", "o3-mini")
    assert {r["system"]: r["figures"]["faithfulness"]["value"] for r in text["rows"]} == {
        "sonar-reasoning-pro": pytest.approx(SONAR_SF),
        "gpt-4o-search-preview": pytest.approx(GPT4O_SF),
    }


BOOT0 = "no interval: bootstrap 0 rounds"


def test_downloaded_rows_say_why_they_have_no_interval(client, rb):
    """Found by an admin: with bootstrap 0 the page said why the figures had no interval,
    while the CSV/JSON/XLSX rows had empty low/high and a null note."""
    import csv
    import io

    from openpyxl import load_workbook

    def download(fmt, query):
        cache.clear()
        got = client.get(reverse("metaeval:table", args=[rb.pk, "scoreboard", fmt]) + query)
        assert got.status_code == 200
        return got.content

    for query in ("?bootstrap=0", ""):
        rows = list(csv.DictReader(io.StringIO(download("csv", query).decode())))
        assert rows and all(r["low"] == "" and r["high"] == "" for r in rows)
        # coverage has a value and so just the rounds' reason; faithfulness and
        # groundedness (no claim verdicts here) add their own reason after it
        assert all(r["note"] == BOOT0 for r in rows if r["metric"] == "coverage"), rows
        assert all(r["note"].startswith(BOOT0 + "; ") for r in rows if r["metric"] != "coverage")
        data = json.loads(download("json", query))
        assert data and all(r["note"].startswith(BOOT0) for r in data)
        sheet = load_workbook(io.BytesIO(download("xlsx", query))).active
        header = [c.value for c in sheet[1]]
        notes = [row[header.index("note")] for row in sheet.iter_rows(min_row=2, values_only=True)]
        assert notes and all(n.startswith(BOOT0) for n in notes)
    # with rounds, a figure with its interval needs no note
    rows = list(csv.DictReader(io.StringIO(download("csv", "?bootstrap=200").decode())))
    coverage = [r for r in rows if r["metric"] == "coverage"]
    assert coverage and all(r["low"] != "" and r["note"] == "" for r in coverage)


def test_interval_note_names_the_actual_reason():
    from metaeval.sections.scoreboard import interval_note

    one_question = "One question only: no interval."
    fig = {"value": 0.5, "low": None, "high": None, "n": 1, "note": one_question}
    assert interval_note(fig, 200) == one_question  # the figure's own reason, with rounds
    assert interval_note(fig, 0) == f"no interval: bootstrap 0 rounds; {one_question}"
    assert interval_note(fig | {"note": None}, 200) == "no interval"
    no_boot = "No bootstrap: 0 rounds were asked for (bootstrap=0)."
    assert interval_note(fig | {"note": no_boot}, 0) == "no interval: bootstrap 0 rounds"
    assert interval_note(fig | {"low": 0.4, "high": 0.6, "note": None}, 200) is None
