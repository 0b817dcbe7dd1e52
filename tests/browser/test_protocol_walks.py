"""Each protocol end to end in Chromium, from an empty study (issue 26, "Done when"): the
harness is ``protocol_walk.walk``; each protocol here is a declaration — the released files
(a small subset, written into tmp_path in their released format), its task types with the
paper section that gives each, and where the two annotators disagree.

The released data is read from ../shared/data/ (never copied into the repository).

DeepScholar-Bench is walked in test_protocol_walk_deepscholar.py (a cut-down copy of the
released folders, zipped). Not walked: ScholarQA-CS2's rubric comparison (003 A.4: the
release carries no rubrics to compare).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotation.models import Paragraph, Question, ReportClaim, Study
from judges.formats.scholarqa_pairwise import FILE_METRICS
from tests.builders.sources import anchors

from .helpers import press_keys
from .protocol_walk import Protocol, Upload, walk
from .test_every_task_feeds_analysis import _claim_check

pytestmark = [pytest.mark.browser, pytest.mark.shared_data, pytest.mark.django_db(transaction=True)]

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path.name}: the released data is not in ../shared/data")
    return path


# --- ScholarQA-CS2 (seed 003, allenai/ai2-scholarqa-eval) ---------------------------------

SQA = DATA / "scholarqa-cs2"
#: The shortest question of the deep-expert setting (003 §4.2 Setting 3) whose two
#: systems' reports both cite: its reports and the released judge's scores of them.
SQA_QUESTION = "What are some promising works in domain adaptation applied to video su"
SQA_SYSTEMS = ("storm", "sqa")
SQA_JUDGE = "gemini-2.5-flash"  # the judge of the release's model_* scores (README)
RELEVANCE_JUDGE = "relevance-judge"


def _sqa_reports(system: str):
    def write(tmp: Path, study: Study) -> Path:
        path = _need(SQA / "reports" / "expert_written" / f"{system}.json")
        records = json.loads(path.read_text(encoding="utf-8"))
        out = tmp / f"{system}.json"
        out.write_text(json.dumps([r for r in records if r["question"].startswith(SQA_QUESTION)]))
        return out

    return write


def _sqa_judge_scores(tmp: Path, study: Study) -> Path:
    """The released judge's ``model_<metric>`` scores of the two reports (the deep-expert
    annotation file), as the judge_scores CSV reads them."""
    path = _need(SQA / "annotation" / "pairwise_authored.json")
    record = next(
        r for r in json.loads(path.read_text(encoding="utf-8"))
        if r["question"].startswith(SQA_QUESTION) and set(r["models"]) == set(SQA_SYSTEMS)
    )  # fmt: skip
    qid = Question.objects.get(study=study, text__startswith=SQA_QUESTION).external_id
    rows = ["question,system,metric,value"]
    for key, values in record.items():
        if key.startswith("model_") and values:
            for system, value in zip(record["models"], values, strict=True):
                metric = FILE_METRICS[key.removeprefix("model_")]  # answer_precision: relevance
                rows.append(f"{qid},{system},{metric},{value}")
    out = tmp / "judge_scores.csv"
    out.write_text("\n".join(rows) + "\n")
    return out


def _cited_paragraphs(study: Study):
    """(question id, system, paragraph, its citation keys) of every cited paragraph."""
    keys: dict[int, list[str]] = {}
    for _, _, key, paragraph in anchors(report__question__study=study):  # by start
        keys.setdefault(paragraph.pk, [])
        if key not in keys[paragraph.pk]:
            keys[paragraph.pk].append(key)
    paragraphs = Paragraph.objects.filter(pk__in=keys).select_related(
        "report__question", "report__system"
    )
    for p in paragraphs.order_by("report__system__name", "number"):
        yield p.report.question.external_id, p.report.system.name, p, keys[p.pk]


def _sqa_claims(tmp: Path, study: Study) -> Path:
    """Claims as the claims import reads them: each cited paragraph's first sentence, with
    the paragraph's citation keys (up to three paragraphs per report)."""
    lines, per_report = [], {}
    for qid, system, p, keys in _cited_paragraphs(study):
        n = per_report[system] = per_report.get(system, 0) + 1
        if n <= 3:
            text = p.text.split(". ")[0][:400]
            lines.append({"question_id": qid, "system": system, "position": n,
                          "paragraph": p.number, "text": text, "citations": keys})  # fmt: skip
    out = tmp / "claims.jsonl"
    out.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return out


def _sqa_relevance(tmp: Path, study: Study) -> Path:
    """A judge's relevance verdicts (the judge_scores ``relevance`` format): every paragraph
    judged, the first of each report flagged irrelevant, so a metric-wise judgment that keeps
    the default R disagrees there (003 A.6)."""
    rows = Paragraph.objects.filter(report__question__study=study).values_list(
        "report__question__external_id", "report__system__name", "number"
    )
    out = tmp / "relevance.jsonl"
    out.write_text("".join(
        json.dumps({"question_id": q, "system": s, "paragraph": n, "relevant": n != 1,
                    "rationale": "Background the question did not ask for." if n == 1 else ""})
        + "\n" for q, s, n in rows
    ))  # fmt: skip
    return out


def _sqa_claim_verdicts(tmp: Path, study: Study) -> Path:
    """A judge's verdicts on the imported claims (the judge_scores ``claim-verdicts`` format): the
    first claim of each report unsupported by its citations, the others supported."""
    lines = []
    for c in ReportClaim.objects.filter(report__question__study=study).select_related(
        "report__question", "report__system"
    ):
        ok = c.position != 1
        lines.append({"question_id": c.report.question.external_id, "system": c.report.system.name,
                      "text": c.text, "verdict": "supported" if ok else "unsupported",
                      "citations": [{"key": k, "supports": ok} for k in c.citation_keys]})  # fmt: skip
    out = tmp / "claim_verdicts.jsonl"
    out.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return out


def within_expertise(page, _assignment):
    """Both annotators rate the question within their expertise (003 §4.2 Setting 2: the
    triage that makes them its metric-wise experts)."""
    page.get_by_label("Within my expertise").focus()
    press_keys(page, "w")  # the level's key: within


def claims_unsupported(page, _assignment):
    """Annotator B: no claim is fully supported, no citation supports it (A said yes)."""
    _claim_check(page, "no")


SCHOLARQA_CS2 = Protocol(
    name="ScholarQA-CS2",
    uploads=(
        *(Upload("reports", "scholarqa", _sqa_reports(s), {"system": s}) for s in SQA_SYSTEMS),
        Upload("judge_scores", "csv", _sqa_judge_scores, {"judge": SQA_JUDGE}),
        Upload("claims", "jsonl", _sqa_claims),
        Upload("judge_scores", "claim-verdicts", _sqa_claim_verdicts, {"judge": SQA_JUDGE}),
        Upload("judge_scores", "relevance", _sqa_relevance, {"judge": RELEVANCE_JUDGE}),
    ),
    tasks={
        "medal_ranking": "003 §4.2 Setting 1: overall preference, gold/silver/bronze",
        "metric_wise": "003 §4.2 Settings 2–3, A.1: metric-wise judgments",
        "expertise_triage": "003 §4.2 Setting 2: within / near / outside one's expertise",
        "question_authoring": "003 §4.2 Setting 3: experts write their own questions",
        "claim_check": "003 A.5: the citation follow-up study",
        "relevance_adjudication": "003 A.6: relevance labels against the judge's verdicts",
    },
    disagree=("claim_check", claims_unsupported),
    judge=RELEVANCE_JUDGE,
    settings={"claims_min": "1"},
    answers={"expertise_triage": within_expertise},
    # Setting 1's medal ranking is planned at random; Setting 2's metric-wise judgments go
    # to the experts whose triage rated the question within or near (the near_expert
    # setting), so each annotator's two rankings of the question are in two settings.
    later={"metric_wise": ("triage", "expertise_triage")},
)


# --- ResearchQA (seeds 000/001) -----------------------------------------------------------
#: No ResearchQA release is in ../shared/data: the walk uploads the formats' own example
#: files (the import page offers them), one question with a three-item survey rubric, two
#: systems' answers in the release's two shapes, and the judge's coverage and pairwise
#: verdicts in the released shapes of compute_coverage.py and judge_systems_by_gpt.py.
EXAMPLES = Path(__file__).resolve().parents[2] / "annotation" / "importers" / "examples"
JUDGE_EXAMPLES = Path(__file__).resolve().parents[2] / "judges" / "formats" / "examples"
RQA_SYSTEMS = ("example-system", "example-system-b")
RQA_JUDGE = "gpt-4.1-mini"


def _example(path: Path):
    return lambda tmp, study: path


def _rqa_clarity_5(page, _assignment):
    """Annotator B: clarity 5 where A gave 1 (the rest as A)."""
    page.get_by_role("group", name="Clarity").get_by_label("5").check()
    page.get_by_role("group", name="Naturalness").get_by_label("1").check()
    page.get_by_role("group", name="Relevance to a researcher's need").get_by_label("1").check()
    page.get_by_label("Semi-open").check()


RESEARCHQA = Protocol(
    name="ResearchQA",
    uploads=(
        Upload("questions", "researchqa", _example(EXAMPLES / "researchqa_items.json")),
        Upload(
            "reports",
            "researchqa",
            _example(EXAMPLES / "researchqa_responses.json"),
            {"system": RQA_SYSTEMS[0]},
        ),
        Upload(
            "reports",
            "researchqa",
            _example(EXAMPLES / "researchqa_responses_list.json"),
            {"system": RQA_SYSTEMS[1]},
        ),
        *(
            Upload(
                "judge_scores",
                "researchqa-coverage",
                _example(JUDGE_EXAMPLES / "researchqa_coverage.json"),
                {"system": s, "judge": RQA_JUDGE},
            )
            for s in RQA_SYSTEMS
        ),
        Upload(
            "judge_scores",
            "researchqa-pairwise",
            _example(JUDGE_EXAMPLES / "researchqa_pairwise.json"),
            {"judge": RQA_JUDGE},
        ),
    ),  # fmt: skip
    tasks={
        "query_quality": "000 §3.1: query quality (clarity, naturalness, relevance, variability)",
        "rubric_item_quality": "000 §3.2: rubric quality, per item",
        "rubric_coverage": "000 §3.3, §4.1: rubric coverage, the judge's coverage validated",
        "pairwise": "000 §3.3, §4.2: pairwise preferences, the tournament's judge validated",
    },
    disagree=("query_quality", _rqa_clarity_5),
)


# --- ResearcherBench (seed 004, GAIR-NLP/ResearcherBench) ---------------------------------
RB = DATA / "researcherbench"
RB_QUESTION = 51  # the released question with the shortest rubric (6 criteria)
RB_SYSTEMS = ("Perplexity", "gpt-4o-search-preview")
RB_JUDGE = "o3-mini"


def _rb_subset(name: str):
    def write(tmp: Path, study: Study) -> Path:
        records = json.loads(_need(RB / name).read_text(encoding="utf-8"))
        out = tmp / name.replace("/", "-")
        out.write_text(json.dumps([r for r in records if r["id"] == RB_QUESTION]))
        return out

    return write


def _rb_questions(tmp: Path, study: Study) -> Path:
    """The question and, beside it, its rubric (the upload's second file)."""
    _rb_subset("rubric.json")(tmp, study)
    return _rb_subset("questions.json")(tmp, study)


def _rb_judge_results(tmp: Path, study: Study) -> Path:
    """A judge's rubric results in the released shape (results/rubric_eval/, not in the
    shared data: the verdicts are ours, the criteria and weights the release's): every
    other criterion covered."""
    rubric = next(
        r for r in json.loads(_need(RB / "rubric.json").read_text(encoding="utf-8"))
        if r["id"] == RB_QUESTION
    )  # fmt: skip
    results = [
        {"id": RB_QUESTION, "model": system, "result": {"coverage_results": [
            {"point": c["point"], "weight": c["weight"], "covered": n % 2 == 0,
             "justification": "Stated in the response." if n % 2 == 0 else "Not addressed."}
            for n, c in enumerate(rubric["rubric"])]}}
        for system in RB_SYSTEMS
    ]  # fmt: skip
    out = tmp / "rubric_eval.json"
    out.write_text(json.dumps(results))
    return out


def _binary_coverage(value: str):
    def answer(page, _assignment):
        """Every criterion of every report: Covered (``yes``) or Not covered (``no``)."""
        radios = page.locator(f"input[type=radio][value={value}]")
        for n in range(radios.count()):
            radios.nth(n).check()

    return answer


RESEARCHERBENCH = Protocol(
    name="ResearcherBench",
    uploads=(
        Upload("questions", "researcherbench", _rb_questions, {"rubric": Path("rubric.json")}),
        *(
            Upload("reports", "researcherbench", _rb_subset(f"user_data/{s}.json"), {"system": s})
            for s in RB_SYSTEMS
        ),
        Upload("judge_scores", "researcherbench", _rb_judge_results, {"judge": RB_JUDGE}),
    ),  # fmt: skip
    tasks={
        "rubric_coverage": "004 §4.1 rubric assessment (binary coverage, weighted), "
        "§4.3 its judge chosen by agreement with human evaluation",
    },
    answers={"rubric_coverage": _binary_coverage("yes")},
    analyses={"rubric_coverage": ("researcherbench", "researcherbench_judges")},
    disagree=("rubric_coverage", _binary_coverage("no")),
    settings={"coverage_binary": True},
)


@pytest.mark.parametrize(
    "protocol", [SCHOLARQA_CS2, RESEARCHQA, RESEARCHERBENCH], ids=lambda p: p.name
)
def test_protocol_walk(protocol, login, researcher_user, shot, tmp_path):
    walk(protocol, login, researcher_user, shot, tmp_path)
