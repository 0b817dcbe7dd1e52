"""The ``human_signal`` report option (issues 16, 17; docs/ANALYSES.md §0): each annotator,
the majority and the adjudicated label give the figures computed by hand below on
``tests.builders.signal`` (its docstring lists every label); the default leaves every
figure as it was; what cannot honour a signal refuses or says so."""

import random

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from annotation.quality.labels import Observation
from annotation.quality.signal import human_signal
from metaeval import sections
from metaeval.cache import ReportCache, cache_key, study_fingerprint
from metaeval.reports import ReportOptions
from metaeval.sections import registry
from metaeval.stats.signal import collapse
from tests.builders.signal import signal_world

MODES = (None, "each", "majority", "adjudicated")


def test_collapse_is_human_signal_on_arrays():
    """One rule: the array version gives annotation.quality's signal on random labels."""
    rng = random.Random(3)
    for _ in range(50):
        obs = [Observation(a, ("t", u, ""), str(rng.randint(0, 2)))
               for u in range(6) for a in range(rng.randint(1, 4))]  # fmt: skip
        adjudicated = {("t", u, ""): str(rng.randint(0, 2)) for u in range(6) if rng.random() < 0.4}
        unit = np.array([o.unit[1] for o in obs])
        label = np.array([float(o.label) for o in obs])
        for mode in ("each", "majority", "adjudicated"):
            want = sorted((s.unit[1], float(s.label)) for s in human_signal(obs, adjudicated, mode))
            got = collapse(unit, label, mode, {u[1]: float(v) for u, v in adjudicated.items()})
            assert sorted(zip(unit[got.rows].tolist(), got.label.tolist(), strict=True)) == want


def test_collapse_counts_ties_and_adjudications():
    c = collapse(np.array([0, 0, 0, 1, 1, 2]), np.array([1.0, 1, 2, 1, 2, np.nan]), "adjudicated",
                 {1: 2.0})  # fmt: skip
    assert c.label.tolist() == [1.0, 2.0] and (c.units, c.tied, c.adjudicated) == (2, 0, 1)
    c = collapse(np.array([0, 0, 0, 1, 1]), np.array([1.0, 1, 2, 1, 2]), "majority")
    assert c.label.tolist() == [1.0] and c.tied == 1
    with pytest.raises(ValueError, match="human_signal"):
        collapse(np.array([0]), np.array([1.0]), "consensus")


# ----------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"human_signal": "consensus"}, "human_signal: 'consensus' is not one of"),
        ({"human_signal": "majority", "compat": "scholarqa-cs2"}, "human_signal: compat"),
        ({"human_signal": "adjudicated", "target_half_width": 0.05}, "human_signal: the budget"),
    ],
)
def test_what_cannot_honour_a_signal_is_refused(options, words):
    with pytest.raises(ValueError, match=words):
        ReportOptions.from_dict(options)


def test_each_is_what_compat_and_the_budget_read():
    assert ReportOptions(human_signal="each", compat="scholarqa-cs2").human_signal == "each"
    assert ReportOptions(human_signal="each", target_half_width=0.05).human_signal == "each"


def test_the_commands_refuse_an_unknown_signal():
    from metaeval.options import from_query

    with pytest.raises(CommandError, match="--human-signal: invalid choice"):
        call_command("agreement", "--study", "x", "--human-signal", "consensus")
    from rest_framework.exceptions import ValidationError

    with pytest.raises(ValidationError, match="human_signal"):
        from_query({"human_signal": "consensus"})


# ----------------------------------------------------------------------------- figures


@pytest.fixture
def world(db):
    return signal_world()


def _result(study, key, mode, **options):
    analysis = sections.Analysis(study.pk, ReportOptions(human_signal=mode, **options))
    sections.registered()
    return analysis.result(registry()[key])


def _by_mode(study, key, pick, **options):
    return {mode: pick(_result(study, key, mode, **options)) for mode in MODES}


def test_medal_ranking_agreement(world):
    """Judge prefers alpha: each 3 of 5 judgments agree; majority q0 only (q1 ties) 1 of 1;
    adjudicated q0 alpha, q1 beta (adjudicated) 1 of 2."""
    study, _ = world
    got = _by_mode(study, "agreement", lambda r: r["preference"]["overall"]["agreement"],
                   threshold=0.0)  # fmt: skip
    assert got == {None: 0.6, "each": 0.6, "majority": 1.0, "adjudicated": 0.5}
    report = sections.Analysis(study.pk, ReportOptions(human_signal="adjudicated",
                                                       threshold=0.0)).report  # fmt: skip
    assert report["selection"]["human_signal"] == "adjudicated"
    assert report["selection"]["human_signal_rows"]["adjudicated"] == 1
    assert report["selection"]["n_judgments"] == 5  # the judgments read, not the signal rows
    assert any("Human signal: adjudicated" in n for n in report["notes"])
    # IAA is about each annotator whatever the signal
    each = sections.Analysis(study.pk, ReportOptions(threshold=0.0)).report
    assert report["iaa"] == each["iaa"] and each["iaa"]["n"] > 0


def test_judge_alignment_reads_the_signal_and_its_expert_agreed_block_each(world):
    """Every judge against the experts (the judges section) on the signal; its
    expert-agreed block (unanimous comparisons) is the same under every signal."""
    study, _ = world
    blocks = {}
    for mode in ("each", "majority"):
        analysis = sections.Analysis(study.pk, ReportOptions(human_signal=mode, threshold=0.0))
        analysis.report  # noqa: B018 - the page's own report first, as the page does
        blocks[mode] = analysis.alignment["judges"][0]
    assert blocks["each"]["all"]["preference"]["overall"]["agreement"] == 0.6
    assert blocks["majority"]["all"]["preference"]["overall"]["agreement"] == 1.0
    assert blocks["majority"]["expert_agreed"] == blocks["each"]["expert_agreed"]


def test_researchqa_pairwise_judge_accuracy_and_leaderboard(world):
    """Ensemble j1 says alpha: default (the paper: the plurality) 1 of 1; each 3 of 5;
    majority 1 of 1; adjudicated q0 right, q1 (beta) wrong: ½."""
    study, _ = world
    got = _by_mode(study, "researchqa_pairwise", lambda r: r["judges"][0]["accuracy"]["value"])
    assert got == {None: 1.0, "each": 0.6, "majority": 1.0, "adjudicated": 0.5}
    # the human-agreement figures are about each annotator: the same in every mode
    pa = _by_mode(study, "researchqa_pairwise", lambda r: r["binarised_pa"]["value"])
    assert len(set(pa.values())) == 1
    points = _by_mode(study, "leaderboard", lambda r: {
        x["system"]: x["points"] for x in r["boards"][0]["rows"]})  # fmt: skip
    assert points["each"] == {"alpha": 3, "beta": 2}
    assert points["majority"] == points[None] == {"alpha": 1, "beta": 0}
    assert points["adjudicated"] == {"alpha": 1, "beta": 1}
    note = _result(study, "researchqa_pairwise", "adjudicated")["human_signal"]
    assert (note["adjudicated"], note["tied"], note["kept"]) == (1, 0, 2)


def test_coverage_alignment(world):
    """0–4 exact, j1 4 then 3: each 3 of 5; majority q0 (4) only, q1 (2, 3) ties: 1 of 1;
    the world has no coverage adjudication: adjudicated = majority (one that moves the
    figure: tests/metaeval/test_adjudication_map.py)."""
    study, _ = world
    got = _by_mode(study, "coverage_alignment", lambda r: r["judges"][0]["all"]["exact"]["value"])
    assert got == {None: 0.6, "each": 0.6, "majority": 1.0, "adjudicated": 1.0}
    signal = _result(study, "coverage_alignment", "adjudicated")["human_signal"]
    assert signal["adjudicated"] == 0 and signal["tied"] == 1


def test_researcherbench_binary(world):
    """Covered, j1 always covered: each 3 of 5; majority q0 covered, q1 ties: 1 of 1."""
    study, _ = world
    got = _by_mode(study, "researcherbench",
                   lambda r: r["judges"][0]["unweighted"]["accuracy"]["value"])  # fmt: skip
    assert got == {None: 0.6, "each": 0.6, "majority": 1.0, "adjudicated": 1.0}


def test_claim_support(world):
    study, _ = world
    got = _by_mode(study, "claim_support",
                   lambda r: r["judges"][0]["all"]["claim_support"]["agreement"]["value"])  # fmt: skip
    assert got == {None: 0.6, "each": 0.6, "majority": 1.0, "adjudicated": 1.0}


def test_label_quality(world):
    """Clarity {4, 5} share: every label 3 of 5; one per question: q0 5, q1 (4, 2) ties."""
    study, _ = world

    def clarity(r):
        return next(k for k in r["kinds"] if k["kind"] == "clarity")["merged_share"]["value"]

    got = _by_mode(study, "label_quality", clarity)
    assert got == {None: 0.6, "each": 0.6, "majority": 1.0, "adjudicated": 1.0}


def test_ratings(world):
    """alpha's informativeness: mean of every rating 3.6; one per report: q0 4, q1 ties."""
    study, _ = world

    def alpha(r):
        return r["dimensions"][0]["by_system"]["alpha"]["mean"]

    got = _by_mode(study, "ratings", alpha)
    assert got == pytest.approx({None: 3.6, "each": 3.6, "majority": 4.0, "adjudicated": 4.0})
    signal = _result(study, "ratings", "adjudicated")["human_signal"]
    assert signal["medals"]["adjudicated"] == 2  # both reports of q1 read the adjudication
    assert _result(study, "ratings", "majority")["dimensions"][0]["by_annotator"] == []


def test_rubric_comparison(world):
    """Hybrid vs expert rubric: every ranking, hybrid wins 3 of 5; one ranking per
    question: q0 hybrid, q1 ties (left out): 1 of 1."""
    study, _ = world

    def hybrid(r):
        return next(s for s in r["sources"] if s["source"] == "hybrid")["win_rate"]

    got = _by_mode(study, "rubric_comparison", hybrid)
    assert got == {None: 0.6, "each": 0.6, "majority": 1.0, "adjudicated": 1.0}
    assert _result(study, "rubric_comparison", "majority")["rankings"] == 1


def test_relevance_adjudication_says_every_signal_reads_the_same(world):
    """A disagreement has one decision (one-to-one): the signal cannot change A.6."""
    study, _ = world
    default = _result(study, "relevance_adjudication", None)
    got = _result(study, "relevance_adjudication", "majority")
    assert got.pop("human_signal")["applies"] is False
    assert got == default and default["settings"][0]["counts"] == [1, 0, 0]


def test_the_analysis_command_takes_the_signal(world):
    import io
    import json

    study, _ = world
    out = io.StringIO()
    call_command("analysis", "--study", study.name, "--kind", "coverage_alignment",
                 "--human-signal", "majority", "--json", stdout=out)  # fmt: skip
    got = json.loads(out.getvalue())["coverage_alignment"]
    assert got["judges"][0]["all"]["exact"]["value"] == 1.0
    assert got["human_signal"]["tied"] == 1


def test_deepscholar_table3(world):
    """Nugget importance of one nugget per question, the judge says vital: q0 vital, vital,
    non-vital; q1 vital, non-vital (tie). Each 3 of 5; majority q0 only: 1 of 1. The
    pairwise and medal adjudications of the world are not DeepScholar ones: none read."""
    from annotation.models import Annotator, DeepScholarLabel, Question
    from judges.models import JudgeDeepScholarLabel

    study, judge = world
    anns = list(Annotator.objects.filter(pseudonym__startswith="signal-ann").order_by("pk"))
    for q, labels in zip(Question.objects.filter(study=study).order_by("external_id"),
                         (("vital", "vital", "non_vital"), ("vital", "non_vital")),
                         strict=True):  # fmt: skip
        for ann, label in zip(anns, labels, strict=False):
            DeepScholarLabel.objects.create(study=study, question=q, annotator=ann,
                                            kind="nugget_importance", unit="n1", label=label)  # fmt: skip
        JudgeDeepScholarLabel.objects.create(judge=judge, question=q, kind="nugget_importance",
                                             unit="n1", label="vital")  # fmt: skip

    def agreement(r):
        kinds = r["judges"][0]["kinds"]
        return next(k for k in kinds if k["kind"] == "nugget_importance")["agreement"]["value"]

    got = _by_mode(study, "deepscholar_agreement", agreement)
    assert got == {None: 0.6, "each": 0.6, "majority": 1.0, "adjudicated": 1.0}
    signal = _result(study, "deepscholar_agreement", "adjudicated")["human_signal"]
    assert signal["adjudicated"] == 0 and signal["tied"] == 1


def test_deepscholar_unmatched_counts_under_the_figures_signal(world):
    """Nugget n2 of each question is labelled by the experts, never by the judge: q0 vital,
    vital, non-vital (a majority); q1 vital, non-vital (a tie), adjudicated vital. Each
    expert label: 5 unmatched; majority: q0's unit only, 1; adjudicated: both units, 2.
    n1 (labelled by the judge) is never unmatched."""
    from annotation.models import Annotator, DeepScholarLabel, Question
    from judges.models import JudgeDeepScholarLabel
    from tests.builders.signal import decide

    study, judge = world
    anns = list(Annotator.objects.filter(pseudonym__startswith="signal-ann").order_by("pk"))
    q0, q1 = Question.objects.filter(study=study).order_by("external_id")
    for q, labels in ((q0, ("vital", "vital", "non_vital")), (q1, ("vital", "non_vital"))):
        for unit in ("n1", "n2"):
            for ann, label in zip(anns, labels, strict=False):
                DeepScholarLabel.objects.create(study=study, question=q, annotator=ann,
                                                kind="nugget_importance", unit=unit,
                                                label=label)  # fmt: skip
        JudgeDeepScholarLabel.objects.create(judge=judge, question=q, kind="nugget_importance",
                                             unit="n1", label="vital")  # fmt: skip
    decide(study, q1, "nugget_importance", "n2", "vital",
           Annotator.objects.get(pseudonym="signal-adj"))  # fmt: skip

    def unmatched(r):
        kinds = r["judges"][0]["kinds"]
        return next(k for k in kinds if k["kind"] == "nugget_importance")["unmatched"]

    assert _by_mode(study, "deepscholar_agreement", unmatched) == {
        None: 5,
        "each": 5,
        "majority": 1,
        "adjudicated": 2,
    }
    majority = _result(study, "deepscholar_agreement", "majority")
    assert "one per unit under the majority signal" in majority["unmatched_note"]
    assert "Unmatched: units the judge did not label" in majority["human_signal"]["note"]
    assert (
        "each expert label counts"
        in _result(study, "deepscholar_agreement", None)["unmatched_note"]
    )


def test_an_adjudication_of_another_task_is_not_read(world):
    """A section reads only its own task's adjudications: a coverage adjudication leaves
    the claim-support figures at the majority's."""
    from annotation.models import Annotator, Question
    from tests.builders.signal import decide

    study, _ = world
    q = Question.objects.get(study=study, external_id="sq1")
    decide(study, q, "rubric_coverage", "item hybrid:1@alpha", "2",
           Annotator.objects.get(pseudonym="signal-adj"))  # fmt: skip
    got = _result(study, "claim_support", "adjudicated")
    assert got["judges"][0]["all"]["claim_support"]["agreement"]["value"] == 1.0
    assert got["judges"][0]["human_signal"]["claim_support"]["adjudicated"] == 0


def test_iaa_says_the_signal_does_not_apply(world):
    study, _ = world
    assert "human_signal" not in _result(study, "label_iaa", None)
    got = _result(study, "label_iaa", "majority")
    assert (
        got["human_signal"]["applies"] is False and "does not apply" in got["human_signal"]["note"]
    )
    assert got["kinds"] == _result(study, "label_iaa", None)["kinds"]


# ----------------------------------------------------------------------------- cache, page


def test_the_cache_key_and_fingerprint_follow_the_signal(world):
    study, _ = world
    fp = study_fingerprint(study.pk)
    keys = {cache_key(study.pk, ReportOptions(human_signal=m), fp) for m in MODES}
    assert len(keys) == len(MODES)
    from annotation.models import AdjudicationRequest

    adjudicated = study_fingerprint(study.pk, adjudications=True)
    req = AdjudicationRequest.objects.get(task="pairwise")
    req.status = "open"  # no longer decided: the adjudicated figures change
    req.save()
    assert study_fingerprint(study.pk, adjudications=True) != adjudicated
    assert study_fingerprint(study.pk) == fp  # the other signals do not read adjudications
    assert ReportCache(study.pk, ReportOptions(human_signal="adjudicated")).fingerprint == (
        study_fingerprint(study.pk, adjudications=True, failed=True))  # fmt: skip
    # majority and adjudicated leave out annotators who failed qualification: they read them
    assert ReportCache(study.pk, ReportOptions(human_signal="majority")).fingerprint == (
        study_fingerprint(study.pk, failed=True))  # fmt: skip


def test_the_page_and_the_api_show_the_signal(world, client, researcher_user):
    study, _ = world
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    html = client.get(reverse("metaeval:report", args=[study.pk]) + "?human_signal=majority")
    html = html.content.decode()
    assert '<option value="majority" selected' in html
    assert 'data-human-signal="majority"' in html  # each honouring section's note
    assert "Human signal: majority" in html  # the report's notes
    api = client.get(reverse("api-agreement", args=[study.pk]), {"human_signal": "adjudicated",
                                                                   "threshold": "0"}).json()  # fmt: skip
    assert api["selection"]["human_signal"] == "adjudicated"
    assert api["researchqa_pairwise"]["judges"][0]["accuracy"]["value"] == 0.5
    assert api["researchqa_pairwise"]["human_signal"]["mode"] == "adjudicated"
    from .section_checks import assert_typed

    for key in ("researchqa_pairwise", "coverage_alignment", "ratings", "label_iaa"):
        assert_typed(key, {"human_signal"})


def test_every_signal_reads_a_constant_number_of_queries(db):
    """The adjudicated signal adds one query per section (its loader's decided
    adjudications; three for the medal-ranking report: its adjudicated rankings and the
    relevance adjudications' switches, docs/ANALYSES.md §0), whatever the study's size; the
    figures of a doubled study are the same."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    small, _ = signal_world("small")
    large, _ = signal_world("large", copies=2)
    keys = ("agreement", "researchqa_pairwise", "coverage_alignment", "researcherbench",
            "claim_support", "label_quality", "ratings", "rubric_comparison")  # fmt: skip
    per_mode = {}
    for mode in MODES:
        counts, figures = [], []
        for study in (small, large):
            with CaptureQueriesContext(connection) as ctx:
                got = {k: _result(study, k, mode, threshold=0.0) for k in keys}
            counts.append(len(ctx.captured_queries))
            figures.append(got["researchqa_pairwise"]["judges"][0]["accuracy"]["value"])
        assert counts[0] == counts[1], mode
        assert figures[0] == figures[1], mode
        per_mode[mode] = counts[0]
    assert per_mode["adjudicated"] == per_mode["majority"] + len(keys) + 2
