"""A re-import of claims keeps what experts and judges judged (a tester's finding: a
shorter text and other citations were written over a claim two annotators had checked),
lists what it would change on a dry run, stores the text as given, and refuses the same
claim twice (the claim check page showed it twice)."""

import json

import pytest

from annotation.importers import ImportFailed, run
from annotation.models import ClaimCheck, Draft, ReportClaim
from tests.builders.content import make_assignment, make_question, make_study

pytestmark = pytest.mark.django_db

CLAIM = {"question_id": "q1", "system": "SecretSystem0", "position": 0, "paragraph": 1,
         "text": "Paragraph 1 of the answer discusses memorization in detail",
         "citations": ["[1]"]}  # fmt: skip


def jsonl(records) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def stored(study):
    return sorted(
        ReportClaim.objects.filter(report__question__study=study).values_list(
            "report__system__name", "position", "paragraph__number", "text", "citation_keys"
        )
    )


@pytest.fixture
def imported():
    study = make_study("Claims kept", tasks=["claim_check"])
    q = make_question(study, n_reports=2, paragraphs=3)
    run("claims", jsonl([CLAIM]), study=study)
    return study, q, ReportClaim.objects.get()


def checked(study, q, claim, annotator):
    ClaimCheck.objects.create(
        study=study, annotator=annotator, question=q, claim=claim, fully_supported=True,
        citation_supports={"[1]": True},
    )  # fmt: skip


def drafted(study, q, claim, annotator):
    a = make_assignment(annotator, q, "claim_check")
    Draft.objects.create(assignment=a, payload={"claims": {claim.public_id: {"fully": "yes"}}})


def judged(study, q, claim, annotator):
    verdict = {"question_id": "q1", "system": "SecretSystem0", "text": claim.text,
               "verdict": "supported", "citations": []}  # fmt: skip
    run("judge_scores", jsonl([verdict]), study=study, format="claim-verdicts", judge="judge-c")


@pytest.mark.parametrize(
    ("work", "kind"),
    [(checked, "claim checks"), (drafted, "claim check drafts"),
     (judged, "judge claim verdicts (judge-c)")],
)  # fmt: skip
@pytest.mark.parametrize(
    ("change", "field"),
    [({"text": "Paragraph 1 of the answer discusses memorization"}, "text"),
     ({"citations": ["[2]"]}, "citations"),
     ({"paragraph": 2, "text": "Paragraph 2 of the answer discusses memorization in detail"},
      "paragraph")],
)  # fmt: skip
def test_a_judged_claim_keeps_its_text_citations_and_paragraph(
    imported, annotator_user, work, kind, change, field
):
    study, q, claim = imported
    work(study, q, claim, annotator_user.annotator)
    before = stored(study)
    with pytest.raises(ImportFailed) as failed:
        run("claims", jsonl([{**CLAIM, **change}]), study=study)
    said = {(p.record, p.field): p.message for p in failed.value.problems}
    assert (1, field) in said, said
    message = said[1, field]
    assert "claim at position 0" in message and kind in message and "may not change" in message
    assert stored(study) == before


def test_an_unjudged_claim_may_change_and_a_dry_run_lists_what_would(imported):
    study, _q, _claim = imported
    shorter = {**CLAIM, "text": "Paragraph 1 of the answer discusses memorization"}
    before = stored(study)
    rep = run("claims", jsonl([shorter]), study=study, dry_run=True)
    assert [(c.table, c.fields, c.record) for c in rep.changes] == [("ReportClaim", ("text",), 1)]
    assert "claim at position 0" in rep.changes[0].id
    assert stored(study) == before
    rep = run("claims", jsonl([shorter]), study=study)
    assert rep.updated == {"ReportClaim": 1}
    assert stored(study)[0][3] == "Paragraph 1 of the answer discusses memorization"


def test_a_claim_is_stored_as_given_with_its_final_period():
    study = make_study("Claims period")
    make_question(study, n_reports=1, paragraphs=2)
    record = {"question_id": "q1", "system": "SecretSystem0", "paragraph": 1,
              "text": "More text follows here.", "citations": ["[1]"]}  # fmt: skip
    run("claims", jsonl([record]), study=study)
    assert ReportClaim.objects.get().text == "More text follows here."
    from annotation.importers.registry import FORMATS

    dumped = FORMATS[("claims", "jsonl")].dump(study)["claims.jsonl"]
    assert json.loads(dumped.splitlines()[0])["text"] == "More text follows here."
    again = run("claims", dumped.encode(), study=study)
    assert again.unchanged == {"ReportClaim": 1} and not again.changes


def test_the_same_claim_twice_in_a_file_is_refused():
    study = make_study("Claims twice")
    make_question(study, n_reports=1, paragraphs=2)
    with pytest.raises(ImportFailed) as failed:
        run("claims", jsonl([CLAIM, {**CLAIM, "position": 1}]), study=study)
    problem = failed.value.problems[0]
    assert (problem.record, problem.field) == (2, "text") and "record 1" in problem.message
    assert not ReportClaim.objects.exists()


def test_the_same_claim_as_a_stored_one_at_another_position_is_refused(imported):
    study, _q, _claim = imported
    with pytest.raises(ImportFailed) as failed:
        run("claims", jsonl([{**CLAIM, "position": 5}]), study=study)
    problem = failed.value.problems[0]
    assert (problem.record, problem.field) == (1, "text")
    assert "stored claim at position 0" in problem.message
    assert ReportClaim.objects.count() == 1
