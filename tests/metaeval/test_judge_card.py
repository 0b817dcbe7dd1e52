"""The judge card on the demo (issue 27): the report page's judges section, a page per
judge, the API (typed in the schema), ``manage.py analysis --kind judge_card``, the
CSV/JSON/XLSX downloads and the offline HTML — the same numbers everywhere."""

import csv
import html as htmllib
import io
import json
from urllib.parse import quote

import pytest
from django.core.management import call_command
from django.urls import reverse

from judges.models import JudgePairwise, JudgeRun, JudgeUnit
from metaeval.reports import ReportOptions
from metaeval.sections.judge_card import CARD_COLUMNS
from tests.metaeval.test_views import _empty_cache, demo  # noqa: F401

pytestmark = pytest.mark.django_db
PAIRWISE, RERUN = "sonnet-pairwise-sim", "sonnet-pairwise-sim-seed2"


@pytest.fixture
def researcher(client, researcher_user):
    client.force_login(researcher_user)
    return client


def command(study, *args) -> dict:
    out = io.StringIO()
    call_command("analysis", "--study", str(study.pk), "--kind", "judge_card", "--json", *args,
                 stdout=out)  # fmt: skip
    return json.loads(out.getvalue())["judge_card"]


def card_of(result: dict, judge: str) -> dict:
    return next(j for j in result["judges"] if j["judge"] == judge)


def test_demo_has_swapped_orders_and_two_runs_of_one_judge(demo):  # noqa: F811
    for judge in (PAIRWISE, RERUN):
        rows = set(JudgePairwise.objects.filter(judge__name=judge, left__question__study=demo)
                   .values_list("left_id", "right_id"))  # fmt: skip
        assert rows and all((b, a) in rows for a, b in rows)  # every comparison, both orders
    result = command(demo)
    card = card_of(result, PAIRWISE)["protocols"][0]
    assert card["protocol"] == "direct" and card["runs"] == [PAIRWISE, RERUN]
    for fig in (card["agreement"], card["position"]["order_consistency"],
                card["position"]["first_shown"], card["length"]["judge"],
                card["length"]["experts"], card["ties"]["judge"], card["ties"]["experts"],
                card["self_agreement"]):  # fmt: skip
        assert fig["value"] is not None, fig
    # a score judge has no order to swap and the demo holds one run of it: null with a note
    score = card_of(result, "gemini-flash-sim")["protocols"]
    assert {c["protocol"] for c in score} >= {"overall", "answer_recall"}
    for c in score:
        assert c["position"]["order_consistency"]["value"] is None
        assert "one report at a time" in c["position"]["order_consistency"]["note"]
        assert c["self_agreement"]["value"] is None and c["self_agreement"]["note"]
        assert c["length"]["judge_rho"]["value"] is not None
    ops = card_of(result, "gemini-flash-sim")["operations"]
    assert ops["cost_per_1000"] is None and "no run record" in ops["note"]


def test_figures_follow_the_stored_verdicts(demo):  # noqa: F811
    """Order consistency and the first-shown share recounted from the rows themselves."""
    rows = {(lt, rt): c for lt, rt, c in JudgePairwise.objects.filter(judge__name=PAIRWISE)
            .values_list("left_id", "right_id", "choice")}  # fmt: skip
    canon = {(min(a, b), max(a, b)) for a, b in rows}
    flip = {"left": "right", "right": "left", "tie": "tie"}
    same = sum(rows[(a, b)] == flip[rows[(b, a)]] for a, b in canon)
    decisive = [c for c in rows.values() if c != "tie"]
    card = card_of(command(demo), PAIRWISE)["protocols"][0]
    assert card["position"]["order_consistency"]["value"] == pytest.approx(same / len(canon))
    assert card["position"]["first_shown"]["value"] == pytest.approx(
        sum(c == "left" for c in decisive) / len(decisive)
    )
    assert card["verdicts"] == len(rows) and card["comparisons"] == len(canon)


def test_score_judges_agreement_and_tests_equal_the_agreement_report(demo):  # noqa: F811
    """The card's agreement is the agreement report's for that judge, and its paired test
    recomputes the same agreement from per-row credit (two code paths)."""
    from tests.metaeval.test_views import command_json

    result = command(demo)
    for judge in ("gemini-flash-sim", "claude-sonnet-sim"):
        report = command_json(demo, "--judge", judge)
        for c in card_of(result, judge)["protocols"]:
            assert c["agreement"]["value"] == report["preference"][c["protocol"]]["agreement"]
            assert c["threshold"] == report["preference"][c["protocol"]]["threshold"]
            test = next(t for t in result["tests"] if t["protocol"] == c["protocol"])
            mine = test["agreement_a"] if test["a"] == judge else test["agreement_b"]
            assert mine == pytest.approx(c["agreement"]["value"])


def test_bootstrap_gives_every_defined_figure_an_interval(demo):  # noqa: F811
    card = card_of(command(demo, "--bootstrap", "200"), PAIRWISE)["protocols"][0]
    for fig in (card["agreement"], card["position"]["order_consistency"], card["self_agreement"],
                card["length"]["difference"], card["ties"]["difference"]):  # fmt: skip
        assert fig["low"] is not None and fig["low"] <= fig["value"] <= fig["high"], fig
    assert "[" in card["line"]


def test_operations_per_thousand_from_the_run_records(demo):  # noqa: F811
    run = JudgeRun.objects.get(judge__name=PAIRWISE, study=demo)
    JudgeUnit.objects.create(run=run, key="refused-1", task="pairwise", status="failed",
                             error="the model refused: I cannot compare these.")  # fmt: skip
    JudgeRun.objects.filter(pk=run.pk).update(failed_units=1, total_units=run.total_units + 1)
    run.refresh_from_db()
    ops = card_of(command(demo), PAIRWISE)["operations"]
    units = run.done_units + run.failed_units
    assert (ops["requested"], ops["parsed"], ops["failed"], ops["refused"]) == (
        run.total_units,
        run.done_units,
        1,
        1,
    )
    assert ops["cost_per_1000"] == pytest.approx(run.cost * 1000 / units)
    assert ops["tokens_per_1000"] == pytest.approx(
        (run.prompt_tokens + run.completion_tokens) * 1000 / units
    )
    seconds = (run.finished_at - run.started_at).total_seconds()
    assert ops["seconds_per_1000"] == pytest.approx(seconds * 1000 / units)


def test_the_verdict_line_is_written_from_the_figures(demo):  # noqa: F811
    card = card_of(command(demo), PAIRWISE)["protocols"][0]
    line = card["line"]
    assert line.startswith("direct: ")
    assert f"order-consistent {card['position']['order_consistency']['value']:.2f}" in line
    assert f"prefers the longer report {card['length']['judge']['value']:.2f} vs experts " \
           f"{card['length']['experts']['value']:.2f}" in line  # fmt: skip
    assert f"agrees with its own rerun {card['self_agreement']['value']:.2f}" in line


def test_report_page_has_the_judges_section_and_links_to_each_judge(researcher, demo):  # noqa: F811
    html = htmllib.unescape(
        researcher.get(reverse("metaeval:report", args=[demo.pk])).content.decode()
    )
    assert 'id="section-judge_card"' in html
    result = command(demo)
    for judge in result["judges"]:
        assert reverse("metaeval:judge", args=[demo.pk, judge["judge"]]) in html
        for c in judge["protocols"]:
            assert c["line"] in html
    assert 'id="figure-judge-card"' in html


def test_a_page_per_judge_compares_every_judge(researcher, demo):  # noqa: F811
    path = reverse("metaeval:judge", args=[demo.pk, PAIRWISE])
    html = htmllib.unescape(researcher.get(path).content.decode())
    result = command(demo)
    card = card_of(result, PAIRWISE)["protocols"][0]
    assert card["line"] in html
    assert 'data-figure="self_agreement"' in html and RERUN in html
    for judge in result["judges"]:  # the comparison table: every judge on one page
        assert f'data-judge="{judge["judge"]}"' in html
    missing = researcher.get(reverse("metaeval:judge", args=[demo.pk, "no-such-judge"]))
    assert missing.status_code == 404


def test_judge_page_refuses_other_users(client, demo, annotator_user):  # noqa: F811
    path = reverse("metaeval:judge", args=[demo.pk, PAIRWISE])
    assert client.get(path).status_code == 302  # login first
    client.force_login(annotator_user)
    assert client.get(path).status_code in (403, 404)


def test_judge_page_with_a_bootstrap_not_computed_starts_nothing(researcher, demo):  # noqa: F811
    from metaeval.models import ReportRun

    path = reverse("metaeval:judge", args=[demo.pk, PAIRWISE]) + "?bootstrap=1000"
    html = researcher.get(path).content.decode()
    assert "report page" in html and not ReportRun.objects.exists()


def test_downloads_equal_the_command(researcher, demo):  # noqa: F811
    result = command(demo)
    base = reverse("metaeval:table", args=[demo.pk, "judge_card", "csv"])
    got = list(csv.DictReader(io.StringIO(researcher.get(base).content.decode())))
    assert list(got[0]) == CARD_COLUMNS
    rows = json.loads(researcher.get(base.replace(".csv", ".json")).content)
    by = {(r["judge"], r["protocol"]): r for r in rows}
    for judge in result["judges"]:
        for c in judge["protocols"]:
            row = by[(judge["judge"], c["protocol"])]
            assert row["order_consistency"] == c["position"]["order_consistency"]["value"]
            assert row["self_agreement"] == c["self_agreement"]["value"]
            assert row["line"] == c["line"]
    ops = json.loads(researcher.get(
        reverse("metaeval:table", args=[demo.pk, "judge_operations", "json"])).content)  # fmt: skip
    assert {o["judge"] for o in ops} == {j["judge"] for j in result["judges"]}
    tests = researcher.get(reverse("metaeval:table", args=[demo.pk, "judge_card_tests", "xlsx"]))
    assert tests.status_code == 200
    whole = json.loads(researcher.get(reverse("metaeval:json", args=[demo.pk])).content)
    assert whole["judge_card"] == result
    for fmt, magic in (("svg", b"<svg"), ("png", b"\x89PNG")):
        fig = researcher.get(reverse("metaeval:figure", args=[demo.pk, "judge-card", fmt]))
        assert fig.status_code == 200 and magic in fig.content[:400]


def test_api_returns_the_card_and_the_schema_types_it(researcher, demo):  # noqa: F811
    got = researcher.get(f"/api/studies/{demo.pk}/agreement/").json()
    assert got["judge_card"] == command(demo)
    schema = researcher.get("/api/schema/?format=json").json()
    text = json.dumps(schema)
    assert "JudgeCardAnalysis" in text and "ProtocolCard" in text
    component = schema["components"]["schemas"]["ProtocolCard"]["properties"]
    assert {"position", "length", "ties", "self_agreement", "line"} <= set(component)


def test_offline_html_has_the_judges_section(researcher, demo):  # noqa: F811
    html = htmllib.unescape(
        researcher.get(reverse("metaeval:offline", args=[demo.pk])).content.decode()
    )
    assert 'id="section-judge_card"' in html
    assert card_of(command(demo), PAIRWISE)["protocols"][0]["line"] in html
    assert quote(reverse("metaeval:judge", args=[demo.pk, PAIRWISE])) not in html  # no links


def test_query_count_does_not_grow_with_the_judges(demo):  # noqa: F811
    """The card's own reading is a constant number of queries: a third run of the
    pairwise judge (its verdicts and its run record) adds none. (Each score judge's rows
    are the agreement report's, loaded once per page for the per-judge table as well.)"""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from judges.models import Judge
    from metaeval import sections

    def count() -> tuple[int, dict]:
        analysis = sections.Analysis(demo.pk, ReportOptions())
        analysis.report, analysis.alignment  # noqa: B018 - what the page has read already
        with CaptureQueriesContext(connection) as queries:
            got = analysis.result(sections.registry()["judge_card"])
        return len(queries.captured_queries), got

    before, _ = count()
    source = Judge.objects.get(name=PAIRWISE)
    third = Judge.objects.create(name="sonnet-pairwise-sim-seed3", provider=source.provider,
                                 model=source.model, prompt_version=source.prompt_version,
                                 parameters={"seed": 3})  # fmt: skip
    run = JudgeRun.objects.create(judge=third, study=demo, tasks=["pairwise"], total_units=1)
    JudgePairwise.objects.bulk_create(
        JudgePairwise(judge=third, protocol="direct", left_id=p.left_id, right_id=p.right_id,
                      choice=p.choice, run=run)
        for p in JudgePairwise.objects.filter(judge=source))  # fmt: skip
    after, got = count()
    assert after == before
    card = card_of(got, "sonnet-pairwise-sim-seed3")["protocols"][0]
    assert card["runs"] == ["sonnet-pairwise-sim-seed3", PAIRWISE, RERUN]


def test_a_calibrated_score_judge_says_its_ties_match_by_construction(demo):  # noqa: F811
    calibrated = card_of(command(demo), "gemini-flash-sim")["protocols"]
    assert all("by construction" in c["ties"]["judge"]["note"] for c in calibrated)
    fixed = card_of(command(demo, "--threshold", "0"), "gemini-flash-sim")["protocols"]
    assert all(c["ties"]["judge"]["note"] is None for c in fixed)
    assert all(c["threshold"] == 0.0 for c in fixed)


def test_coverage_and_pairwise_judges_get_cards_beside_their_sections(client, researcher_user):
    """A study with rubric-coverage labels of experts and a judge (the issue-16 analysis
    world): the judge's ``coverage`` card agrees with the coverage section's exact
    agreement, and its judge page opens."""
    from metaeval import sections
    from tests.builders.analysis import analysis_world

    study, judge = analysis_world(3)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    analysis = sections.Analysis(study.pk, ReportOptions())
    card = analysis.result(sections.registry()["judge_card"])
    coverage = analysis.result(sections.registry()["coverage_alignment"])
    mine = next(c for j in card["judges"] if j["judge"] == judge.name for c in j["protocols"]
                if c["protocol"] == "coverage")  # fmt: skip
    theirs = next(j for j in coverage["judges"] if j["judge"] == judge.name)["all"]["exact"]
    assert mine["agreement"]["value"] == theirs["value"]
    page = client.get(reverse("metaeval:judge", args=[study.pk, judge.name]))
    assert page.status_code == 200 and b'data-protocol="coverage"' in page.content
    # the same world's expert pairwise preferences: a direct judge's agreement is §1's
    # footnote-6 accuracy against the expert majority, the experts' own §1's human vs majority
    pairwise = analysis.result(sections.registry()["researchqa_pairwise"])
    for protocol in ("direct", "ensemble"):
        mine = next(c for j in card["judges"] if j["judge"] == judge.name
                    for c in j["protocols"] if c["protocol"] == protocol)  # fmt: skip
        theirs = next(j for j in pairwise["judges"]
                      if (j["judge"], j["protocol"]) == (judge.name, protocol))  # fmt: skip
        assert mine["agreement"] == theirs["accuracy"]
        assert mine["experts_agreement"] == pairwise["human_vs_majority"]
    assert {(t["a"], t["b"], t["protocol"]) for t in card["tests"]} >= {
        (judge.name, judge.name, "direct / ensemble")
    }


def test_the_systems_selection_restricts_every_protocol(demo):  # noqa: F811
    kept = {"atlas-dr", "quill-rag"}
    rows = JudgePairwise.objects.filter(judge__name=PAIRWISE, left__system__name__in=kept,
                                        right__system__name__in=kept)  # fmt: skip
    card = card_of(command(demo, "--systems", ",".join(sorted(kept))), PAIRWISE)["protocols"][0]
    assert card["verdicts"] == rows.count() and card["comparisons"] == rows.count() // 2
    score = card_of(command(demo, "--exclude-systems", "baseline-llm"), "gemini-flash-sim")
    full = card_of(command(demo), "gemini-flash-sim")
    assert score["protocols"][0]["comparisons"] < full["protocols"][0]["comparisons"]


def test_deepscholar_judges_get_table3_agreement_and_organization_position(annotator_user):
    """DeepScholar judges (seed 002 §8.11): each label kind's card carries Table 3's
    agreement; organization, voted in both orders as a live run stores it
    (``organization_vote``), gets its position figures — a judge that always votes for the
    report shown first is order-consistent 0 and picks the first shown 1 — and a second
    run of the same judge (same model and prompt) its self-agreement."""
    from judges.models import Judge, JudgeDeepScholarLabel
    from metaeval import sections
    from tests.builders.deepscholar import synthetic_study

    study = synthetic_study(annotator_user.annotator)
    judge = Judge.objects.get(name="gpt-4o")
    Judge.objects.filter(pk=judge.pk).update(model="gpt-4o", prompt_version="ds-v1")
    rerun = Judge.objects.create(name="gpt-4o-seed2", model="gpt-4o", prompt_version="ds-v1",
                                 parameters={"seed": 2})  # fmt: skip
    organization = list(JudgeDeepScholarLabel.objects.filter(judge=judge, kind="organization"))
    votes = []
    for i, label in enumerate(organization):
        for order, first in (("report_first", "report"), ("exemplar_first", "exemplar")):
            votes.append(JudgeDeepScholarLabel(judge=judge, kind="organization_vote",
                                               question_id=label.question_id,
                                               report_id=label.report_id, unit=order,
                                               label=first))  # fmt: skip
        # the rerun repeats every label but one of each four
        changed = "win" if label.label != "win" else "lose"
        JudgeDeepScholarLabel.objects.create(judge=rerun, kind="organization",
                                             question_id=label.question_id,
                                             report_id=label.report_id, unit=label.unit,
                                             label=changed if i % 4 == 0 else label.label)  # fmt: skip
    JudgeDeepScholarLabel.objects.bulk_create(votes)
    analysis = sections.Analysis(study.pk, ReportOptions())
    card = analysis.result(sections.registry()["judge_card"])
    table3 = analysis.result(sections.registry()["deepscholar_agreement"])
    mine = {c["protocol"]: c for c in card_of(card, "gpt-4o")["protocols"]}
    theirs = {k["kind"]: k for k in next(j for j in table3["judges"]
                                          if j["judge"] == "gpt-4o")["kinds"]}  # fmt: skip
    assert set(mine) == set(theirs)
    for kind, c in mine.items():
        assert c["agreement"] == theirs[kind]["agreement"]
    org = mine["organization"]
    assert org["position"]["order_consistency"]["value"] == 0.0
    assert org["position"]["first_shown"]["value"] == 1.0
    assert org["position"]["first_shown"]["n"] == 2 * len(organization)
    assert org["runs"] == ["gpt-4o", "gpt-4o-seed2"]
    n = len(organization)
    assert org["self_agreement"]["value"] == pytest.approx((n - len(range(0, n, 4))) / n)
    assert mine["entailment"]["self_agreement"]["value"] is None  # the rerun has no such label


def test_a_judge_with_a_run_of_another_task_shows_its_operations(demo):  # noqa: F811
    """A judge whose only run is of a task the card has no protocol for (claims) still
    has its card: no protocol, its operations."""
    from judges.models import Judge

    judge = Judge.objects.create(name="claims-only", model="m")
    JudgeRun.objects.create(judge=judge, study=demo, tasks=["citations"], total_units=10,
                            done_units=8, failed_units=2, cost=0.5)  # fmt: skip
    mine = card_of(command(demo), "claims-only")
    assert mine["protocols"] == []
    ops = mine["operations"]
    assert (ops["requested"], ops["parsed"], ops["failed"]) == (10, 8, 2)
    assert ops["cost_per_1000"] == pytest.approx(50.0)
    assert ops["seconds_per_1000"] is None and "not finished" in ops["note"]


def test_the_card_table_s_runs_agree_with_the_operations(researcher, demo):  # noqa: F811
    """An imported judge (no run record: ``judge_operations`` says 0 runs) reads
    ``imported`` in the card table, not its own name as if it were a run; a judge with runs
    lists them (the table said ``runs=o3-mini`` beside 0 runs)."""

    def table(name):
        url = reverse("metaeval:table", args=[demo.pk, name, "json"])
        return json.loads(researcher.get(url).content)

    ops = {o["judge"]: o["runs"] for o in table("judge_operations")}
    rows = table("judge_card")
    imported = [r for r in rows if not ops[r["judge"]]]
    run = [r for r in rows if ops[r["judge"]]]
    assert imported and run  # the demo has both
    assert all(r["runs"].startswith("imported") for r in imported), imported
    assert all(r["runs"] and not r["runs"].startswith("imported") for r in run)
    assert next(r for r in rows if r["judge"] == PAIRWISE)["runs"] == f"{PAIRWISE}, {RERUN}"
