"""Claims and a judge's relevance verdicts come in from documented JSON lines and go back out
the same (issue 26, dead ends 5 and 6): the claim citation check can then be planned, and
relevance adjudication finds its disagreements, without a live judge."""

import json

import pytest

from annotation.importers import ImportFailed, run
from annotation.importers.registry import FORMATS
from annotation.models import Assignment, ParagraphRelevance, ReportClaim
from judges.models import JudgeRelevance
from studio.studyadmin import adjudication
from studio.studyadmin.planning import PlanSpec, preview
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db


def jsonl(records) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


CLAIMS = [
    {"question_id": "q1", "system": "SecretSystem0", "paragraph": 1,
     "text": "Paragraph 1 of the answer discusses memorization in detail", "citations": ["[1]"],
     "source": "extractor"},
    {"question_id": "q1", "system": "SecretSystem0", "paragraph": 2,
     "text": "More text follows here", "citations": ["[2]"]},
    {"question_id": "q1", "system": "SecretSystem1", "position": 4,
     "text": "Paragraph 3 of the answer discusses **memorization**",
     "citations": ["(Min et al., 2021)"]},
]  # fmt: skip


def claims_of(study):
    return sorted(
        ReportClaim.objects.filter(report__question__study=study).values_list(
            "report__system__name",
            "position",
            "paragraph__number",
            "text",
            "citation_keys",
            "source",
        )
    )


def test_claims_import_lets_the_claim_check_be_planned_and_round_trips(annotator_user):
    study = make_study("Claims", tasks=["claim_check"])
    make_question(study, n_reports=2, paragraphs=3)
    spec = PlanSpec(task="claim_check", annotators=(annotator_user.annotator.pk,))
    assert "no claims" in preview(study, spec).left_out[0].reason
    rep = run("claims", jsonl(CLAIMS), study=study)
    assert rep.created == {"ReportClaim": 3}
    assert claims_of(study) == [  # fmt: skip
        (
            "SecretSystem0",
            0,
            1,
            "Paragraph 1 of the answer discusses memorization in detail",
            ["[1]"],
            "extractor",
        ),
        ("SecretSystem0", 1, 2, "More text follows here", ["[2]"], ""),
        # found by its text (no paragraph given), stored as the page shows it (no "**")
        (
            "SecretSystem1",
            4,
            3,
            "Paragraph 3 of the answer discusses memorization",
            ["(Min et al., 2021)"],
            "",
        ),
    ]
    shown = preview(study, spec)
    assert shown.left_out == [] and len(shown.plan.assignments) == 1
    # written back and read into another study with the same reports: the same claims
    other = make_study("Claims copy")
    make_question(other, n_reports=2, paragraphs=3)
    files = FORMATS[("claims", "jsonl")].dump(study)
    run("claims", files["claims.jsonl"].encode(), study=other)
    assert claims_of(other) == claims_of(study)
    again = run("claims", files["claims.jsonl"].encode(), study=other)  # natural key
    assert not again.created and again.unchanged == {"ReportClaim": 3}


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"citations": ["[9]"]}, "citations", "cites no source [9]"),
        ({"system": "Nobody"}, "system", "no report of system 'Nobody'"),
        ({"paragraph": 42}, "paragraph", "no paragraph 42"),
        ({"citations": []}, "citations", "citation keys"),
    ],
)
def test_a_bad_claim_is_refused_naming_record_and_field(change, field, message):
    study = make_study("Claims")
    make_question(study, n_reports=2, paragraphs=3)
    records = [CLAIMS[0], {**CLAIMS[1], **change}]
    with pytest.raises(ImportFailed) as failed:
        run("claims", jsonl(records), study=study)
    problem = failed.value.problems[0]
    assert (problem.record, problem.field) == (2, field) and message in problem.message
    assert not ReportClaim.objects.exists()


def test_judge_relevance_import_feeds_adjudication_and_round_trips(annotator_user):
    study = make_study("Relevance")
    q = make_question(study, n_reports=1, paragraphs=3)
    source = make_assignment(annotator_user.annotator, q, "metric_wise")
    Assignment.objects.filter(pk=source.pk).update(status="submitted")
    for p in q.reports.get().paragraphs.all():
        ParagraphRelevance.objects.create(
            study=study, annotator=annotator_user.annotator, question=q, assignment=source,
            paragraph=p, label="R",
        )  # fmt: skip
    verdicts = [
        {"question_id": "q1", "system": "SecretSystem0", "paragraph": 1, "relevant": True},
        {"question_id": "q1", "system": "SecretSystem0", "paragraph": 2, "relevant": False,
         "rationale": "Off the question."},
    ]  # fmt: skip
    run("judge_scores", jsonl(verdicts), study=study, format="relevance", judge="judge-r")
    judge = JudgeRelevance.objects.get(paragraph__number=2).judge
    found = adjudication.preview(study, judge)
    assert found.disagreements == 1  # the annotator said R, the judge flagged paragraph 2
    other = make_study("Relevance copy")
    make_question(other, n_reports=1, paragraphs=3)
    files = FORMATS[("judge_scores", "relevance")].dump(study, judge="judge-r")
    assert [json.loads(line) for line in files["judge_relevance.jsonl"].splitlines()] == [
        verdicts[0],
        verdicts[1],
    ]
    run("judge_scores", files["judge_relevance.jsonl"].encode(), study=other,
        format="relevance", judge="judge-r")  # fmt: skip
    copied = JudgeRelevance.objects.filter(paragraph__report__question__study=other)
    assert sorted(copied.values_list("paragraph__number", "relevant", "rationale")) == [
        (1, True, ""),
        (2, False, "Off the question."),
    ]


def test_a_bad_relevance_verdict_is_refused_naming_record_and_field():
    study = make_study("Relevance")
    make_question(study, n_reports=1, paragraphs=3)
    bad = [{"question_id": "q1", "system": "SecretSystem0", "paragraph": 1, "relevant": "yes"}]
    with pytest.raises(ImportFailed) as failed:
        run("judge_scores", jsonl(bad), study=study, format="relevance", judge="j")
    assert (failed.value.problems[0].record, failed.value.problems[0].field) == (1, "relevant")
    assert not JudgeRelevance.objects.exists()


@pytest.mark.parametrize(
    ("change", "field"),
    [({"position": 2**40}, "position"), ({"source": "x" * 201}, "source"),
     ({"position": -1}, "position"), ({"text": ""}, "text")],
)  # fmt: skip
def test_out_of_range_claim_values_are_refused_not_a_database_error(change, field):
    study = make_study("Claims")
    make_question(study, n_reports=2, paragraphs=3)
    with pytest.raises(ImportFailed) as failed:
        run("claims", jsonl([{**CLAIMS[0], **change}]), study=study)
    assert failed.value.problems[0].field == field
    assert not ReportClaim.objects.exists()


def test_judge_claim_verdicts_feed_the_claim_check_analysis_and_round_trip(annotator_user):
    """A judge's claim verdicts from JSON lines (no live run): the loader joins them to an
    expert's check by report and claim text, and they go back out the same."""
    from annotation.models import ClaimCheck
    from judges.models import JudgeClaimVerdict
    from metaeval.loaders.claims import load_claims
    from tests.builders.content import make_claims

    study = make_study("Claim verdicts")
    q = make_question(study, n_reports=2, paragraphs=2)
    claim, other = make_claims(q)
    ClaimCheck.objects.create(
        study=study, annotator=annotator_user.annotator, question=q, claim=claim,
        fully_supported=False, citation_supports={claim.citation_keys[0]: False},
    )  # fmt: skip
    verdicts = [
        {"question_id": "q1", "system": claim.report.system.name, "text": f" {claim.text} ",
         "verdict": "supported", "citations": [{"key": claim.citation_keys[0], "supports": True}],
         "rationale": "The source says so."},
        {"question_id": "q1", "system": other.report.system.name, "text": other.text,
         "verdict": "unknown", "citations": [], "key": "p1:claim"},
    ]  # fmt: skip
    run("judge_scores", jsonl(verdicts), study=study, format="claim-verdicts", judge="judge-c")
    data = load_claims(study.pk)
    assert (data.judges, data.human.tolist(), data.verdict.tolist()) == (["judge-c"], [0], [1])
    assert data.c_human.tolist() == [0] and data.c_judge_supports.tolist() == [1]
    again = run(
        "judge_scores", jsonl(verdicts), study=study, format="claim-verdicts", judge="judge-c"
    )
    assert not again.created and again.unchanged == {"Judge": 1, "JudgeClaimVerdict": 2}

    copy = make_study("Claim verdicts copy")
    make_question(copy, n_reports=2, paragraphs=2)
    files = FORMATS[("judge_scores", "claim-verdicts")].dump(study, judge="judge-c")
    run("judge_scores", files["judge_claims.jsonl"].encode(), study=copy, format="claim-verdicts",
        judge="judge-c")  # fmt: skip

    def rows(s):
        return sorted(JudgeClaimVerdict.objects.filter(report__question__study=s).values_list(
            "report__system__name", "key", "text", "verdict", "citations", "rationale"))  # fmt: skip

    assert rows(copy) == rows(study)


@pytest.mark.parametrize(
    ("change", "field"),
    [({"verdict": "maybe"}, "verdict"), ({"system": "Nobody"}, "system"),
     ({"citations": [{"key": "[9]", "supports": True}]}, "citations[0].key"),
     ({"citations": [{"key": "[1]", "supports": "yes"}]}, "citations[0].supports"),
     ({"key": "k" * 41}, "key")],
)  # fmt: skip
def test_a_bad_claim_verdict_is_refused_naming_record_and_field(change, field):
    from judges.models import JudgeClaimVerdict

    study = make_study("Claim verdicts")
    make_question(study, n_reports=1, paragraphs=2)
    good = {"question_id": "q1", "system": "SecretSystem0", "text": "A claim", "verdict":
            "partial", "citations": [{"key": "[1]", "supports": True}]}  # fmt: skip
    with pytest.raises(ImportFailed) as failed:
        run("judge_scores", jsonl([good, {**good, "text": "Another", **change}]), study=study,
            format="claim-verdicts", judge="j")  # fmt: skip
    problem = failed.value.problems[0]
    assert (problem.record, problem.field) == (2, field)
    assert not JudgeClaimVerdict.objects.exists()


def test_a_claim_citing_the_marker_instead_of_the_key_is_told_the_key():
    """A tester followed the README's example ``"citations": ["[1]"]`` against a released
    report whose sources are keyed ``"1"``: the refusal now says how to write the key."""
    from annotation.models import Report

    study = make_study("Claims")
    make_question(study, n_reports=2, paragraphs=3)
    for report in Report.objects.filter(question__study=study):
        report.citations = [{**c, "key": c["key"].strip("[]")} for c in report.citations]
        report.save(update_fields=["citations"])
    with pytest.raises(ImportFailed) as failed:
        run("claims", jsonl([{**CLAIMS[0], "citations": ["[1]"]}]), study=study)
    problem = failed.value.problems[0]
    assert problem.field == "citations"
    assert "written without brackets: '1'" in problem.message
    assert not ReportClaim.objects.exists()


# --- checked against the stored report (a tester's finding on ResearcherBench) ------------
# The reader renumbers citations by first appearance ([^9][^11] are shown [1][2]) and
# strips markdown; the claims import took claims written against the released numbering,
# wrong paragraph numbers and raw "**" with no warning, and the claim check showed them so.

RELEASED = [
    {"id": "q1", "question": "How does fine-tuning affect memorization?", "response": (
        "Fine-tuning on **summarization** raises memorization[^9][^11].\n\n"
        "Dialogue tasks memorize less[^11] than summarization[^3].\n\n"
        "The loss $\\mathcal{L}_{sum}$ grows with epochs[^3].\n\n"
        "[^3]: Paper three\n[^9]: Paper nine\n[^11]: Paper eleven\n")},
]  # fmt: skip
#: two sources whose numbers swap: released [^2] is shown [1], released [^1] is shown [2]
SWAPPED = [
    {"id": "q1", "question": "How does fine-tuning affect memorization?", "response": (
        "Alpha raises beta[^2].\n\nEpsilon holds[^1][^2].\n\n[^1]: One\n[^2]: Two\n")},
]  # fmt: skip


def released_study(tmp_path):
    for system, records in (("sysA", RELEASED), ("sysB", SWAPPED)):
        path = tmp_path / f"{system}.json"
        path.write_text(json.dumps(records))
        run("reports", path, study="RB", format="researcherbench", system=system)
    from annotation.models import Study

    return Study.objects.get(name="RB")


def test_a_claim_written_against_the_released_text_is_mapped_to_the_stored_report(tmp_path):
    study = released_study(tmp_path)
    records = [
        # the released markers and keys, a paragraph number off by one, raw markdown
        {"question_id": "q1", "system": "sysA", "paragraph": 2,
         "text": "Fine-tuning on **summarization** raises memorization[^9][^11]",
         "citations": ["[^9]", "[^11]"]},
        {"question_id": "q1", "system": "sysA", "paragraph": 2,
         "text": "Dialogue tasks memorize less", "citations": ["11"]},
        # math is shown as MathML: found in the stored text, kept as written
        {"question_id": "q1", "system": "sysA", "paragraph": 3,
         "text": "The loss $\\mathcal{L}_{sum}$ grows with epochs[^3]", "citations": ["3"]},
        # keys of both numberings: the paragraph cites only the report's "1"
        {"question_id": "q1", "system": "sysB", "paragraph": 1, "text": "Alpha raises beta",
         "citations": ["1"]},
        # ... and only what released "2" became (another span: the same claim twice is
        # refused, the claim check would show it twice)
        {"question_id": "q1", "system": "sysB", "position": 1, "paragraph": 1,
         "text": "Alpha raises", "citations": ["2"]},
    ]  # fmt: skip
    rep = run("claims", jsonl(records), study=study)
    assert claims_of(study) == [  # fmt: skip
        ("sysA", 0, 1, "Fine-tuning on summarization raises memorization", ["1", "2"], ""),
        ("sysA", 1, 2, "Dialogue tasks memorize less", ["2"], ""),
        ("sysA", 2, 3, "The loss $\\mathcal{L}_{sum}$ grows with epochs", ["3"], ""),
        ("sysB", 0, 1, "Alpha raises beta", ["1"], ""),
        ("sysB", 1, 1, "Alpha raises", ["1"], ""),
    ]
    said = {(w.record, w.field): w.message for w in rep.warnings}
    assert "paragraph 1, not 2" in said[1, "paragraph"]
    assert "[^9], [^11]" in said[1, "citations"] and "1, 2" in said[1, "citations"]
    assert (2, "citations") in said and (5, "citations") in said
    assert (3, "citations") not in said and (4, "citations") not in said


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        # not in its paragraph, nor anywhere in the report
        ({"text": "Memorization is unrelated to fine-tuning"}, "text", "not found in paragraph 1"),
        ({"paragraph": None, "text": "Nothing the report says"}, "text", "any paragraph"),
        # in two paragraphs, none given
        ({"paragraph": None, "text": "summarization"}, "paragraph", "paragraphs 1, 2"),
        # released [^3] is shown 3, but "9" of neither numbering
        ({"citations": ["[^12]"]}, "citations", "cites no source [^12]"),
        # in a paragraph citing both readings: "1" the report's, or released 1 (shown 2)
        ({"system": "sysB", "paragraph": 2, "text": "Epsilon holds", "citations": ["1"]},
         "citations", "write the report's keys"),
        ({"paragraph": 7}, "paragraph", "no paragraph 7"),
    ],
)  # fmt: skip
def test_a_claim_not_as_the_stored_report_has_it_is_refused(tmp_path, change, field, message):
    study = released_study(tmp_path)
    good = {"question_id": "q1", "system": "sysA", "paragraph": 1,
            "text": "raises memorization", "citations": ["1", "2"]}  # fmt: skip
    with pytest.raises(ImportFailed) as failed:
        run("claims", jsonl([good, {**good, "position": 1, **change}]), study=study)
    problem = failed.value.problems[0]
    assert (problem.record, problem.field) == (2, field) and message in problem.message, problem
    assert not ReportClaim.objects.exists()
