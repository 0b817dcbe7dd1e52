"""Every null figure of the agreement report says why (METHODS §7: "null with a note, never
a number"). A tester's constant judge got ``tau_b: null`` in every row and in ``system``
with ``"notes": []``; compat mode's ``cohen_kappa`` / ``krippendorff_alpha`` were null with
no word either. The walker below checks a whole report: each null figure has its block's
``notes[figure]``, and the report's ``notes`` list says that reason too."""

from __future__ import annotations

import numpy as np
import pytest

from metaeval.frame import PairFrame
from metaeval.reports import ReportOptions, build_report

#: The agreement report's figures (the rest of a section report has its own Figure notes).
BLOCKS = ("iaa", "preference", "metric_wise", "system")


def unexplained_nulls(report: dict) -> list[str]:
    """The paths of null figures (or null interval bounds) that no note explains."""
    notes = [n for n in report.get("notes") or [] if isinstance(n, str)]
    no_interval = any(n.startswith("No confidence interval") for n in notes)
    bad: list[str] = []

    def said(text: str) -> bool:  # the report-level list names the block's reason too
        return any(text.rstrip(".") in n for n in notes)

    def walk(node, path: str) -> None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{path}[{i}]")
            return
        if not isinstance(node, dict):
            return
        why = node.get("notes") if isinstance(node.get("notes"), dict) else {}
        for key, value in node.items():
            here = f"{path}.{key}"
            if key == "notes":
                continue
            if key == "ci":
                for figure, bounds in value.items():
                    explained = no_interval or (node.get(figure) is None and why.get(figure))
                    if isinstance(bounds, list) and None in bounds and not explained:
                        bad.append(f"{here}.{figure}")
                continue
            null = value is None or (isinstance(value, list) and None in value)
            if null:
                text = why.get(key)
                if not (isinstance(text, str) and text.strip() and said(text)):
                    bad.append(here)
            else:
                walk(value, here)

    for block in BLOCKS:
        walk(report.get(block), block)
    return bad


def frame(*, judge_constant=False, experts_tie=False, annotators=2, questions=3) -> PairFrame:
    """``questions`` questions x systems A < B < C, ``annotators`` identical rankings
    (A > B > C, or all tied), judge scores for overall and answer_recall and a metric-wise
    human answer_recall."""
    pairs = [(0, 1), (0, 2), (1, 2)]
    rows = [(q, ann, a, b) for q in range(questions) for ann in range(annotators)
            for a, b in pairs]  # fmt: skip
    n = len(rows)
    medal = (lambda s: 0.5) if experts_tie else (lambda s: [1.0, 0.5, 0.0][s])
    score = (lambda s: 0.5) if judge_constant else (lambda s: [0.9, 0.6, 0.2][s])
    both = np.array([[score(a), score(b)] for _, _, a, b in rows])
    return PairFrame(
        question=np.array([q for q, *_ in rows]),
        system_a=np.array([a for *_, a, _ in rows]),
        system_b=np.array([b for *_, b in rows]),
        annotator=np.array([ann for _, ann, _, _ in rows]),
        setting=np.zeros(n, dtype=np.int64),
        split=np.zeros(n, dtype=np.int64),
        preference=np.array([[medal(a), medal(b)] for *_, a, b in rows]),
        human={"answer_recall": np.array([[medal(a), medal(b)] for *_, a, b in rows])},
        judge={"overall": both, "answer_recall": both.copy()},
        questions=[f"q{q}" for q in range(questions)],
        systems=["A", "B", "C"],
        annotators=[f"ann{k}" for k in range(annotators)],
        settings=["assigned"],
        splits=["dev"],
    )


def test_the_walker_finds_a_null_without_a_note():
    """The check can fail: a null figure with no note, or a note the list does not say."""
    report = {"notes": [], "iaa": {"strict": None}, "system": {"tau_b": 0.5, "systems": []}}
    assert unexplained_nulls(report) == ["iaa.strict"]
    report["iaa"]["notes"] = {"strict": "Why."}
    assert unexplained_nulls(report) == ["iaa.strict"]
    report["notes"] = ["Why — null: IAA strict."]
    assert unexplained_nulls(report) == []


def test_a_constant_judge_says_why_tau_b_is_null():
    """The tester's report: a judge giving every report the same score."""
    report = build_report(frame(judge_constant=True), ReportOptions())
    for table in ("preference", "metric_wise"):
        for metric, row in report[table].items():
            assert row["tau_b"] is None, (table, metric)
            assert "the judge ties every pair" in row["notes"]["tau_b"]
    assert report["system"]["tau_b"] is None
    assert "judge's ranking has no variance" in report["system"]["notes"]["tau_b"]
    assert any("the judge ties every pair" in n for n in report["notes"])
    assert unexplained_nulls(report) == []


def test_experts_tying_everything_and_annotators_always_agreeing():
    """The experts' side constant: τ-b, the system τ-b and every chance-corrected IAA
    coefficient are undefined; each says so."""
    report = build_report(frame(experts_tie=True), ReportOptions())
    why = report["preference"]["overall"]["notes"]["tau_b"]  # calibrated to tie all, too
    assert "the experts and the judge tie every pair" in why
    assert "experts' ranking has no variance" in report["system"]["notes"]["tau_b"]
    iaa = report["iaa"]
    assert iaa["strict"] == 1.0 and iaa["cohen_kappa"] is None
    assert set(iaa["notes"]) == {"cohen_kappa", "fleiss_kappa", "krippendorff_alpha"}
    assert unexplained_nulls(report) == []


SELECTIONS = [
    {},
    {"ties": "exclude"},
    {"ties": "partial"},
    {"expert_agreed": True},
    {"threshold": 0.5},
    {"bootstrap": 100},
    {"compat": "scholarqa-cs2"},
    {"compat": "scholarqa-cs2", "expert_agreed": True},
]
FRAMES = {
    "constant judge, one annotator": dict(judge_constant=True, annotators=1),
    "constant judge, one question": dict(judge_constant=True, questions=1),
    "experts tie": dict(experts_tie=True),
    "both constant": dict(judge_constant=True, experts_tie=True),
    "defined": dict(),
}


@pytest.mark.parametrize("kind", FRAMES)
@pytest.mark.parametrize("options", SELECTIONS, ids=lambda o: ",".join(map(str, o.items())))
def test_every_null_figure_of_a_report_has_a_note(kind, options):
    """Whatever the selection, a null figure of the report is never left unexplained."""
    report = build_report(frame(**FRAMES[kind]), ReportOptions(**options))
    assert unexplained_nulls(report) == [], report
    if kind == "defined" and not options.get("compat"):
        assert not any("notes" in row for row in report["preference"].values())


def test_compat_says_why_kappa_and_alpha_are_null():
    """The script computes no κ or α: null, and the report says so (tester's report)."""
    report = build_report(frame(), ReportOptions(compat="scholarqa-cs2", settings=("assigned",)))
    iaa = report["iaa"]
    assert iaa["cohen_kappa"] is None and iaa["krippendorff_alpha"] is None
    assert "computes neither" in iaa["notes"]["cohen_kappa"]
    assert any("computes neither" in n for n in report["notes"] if isinstance(n, str))
    assert unexplained_nulls(report) == []


# ----------------------------------------------------------------------------- the API


@pytest.fixture
def flat(researcher_user):
    """A ranked study with one annotator and a judge that gives every report 0.5."""
    from annotation.models import Report
    from judges.models import Judge, JudgeScore
    from tests.builders.ranked import ranked_study

    study = ranked_study(4, annotators=1)
    study.researchers.add(researcher_user)
    judge = Judge.objects.create(name="flat-judge")
    JudgeScore.objects.bulk_create(
        JudgeScore(judge=judge, report=r, metric=m, value=0.5)
        for r in Report.objects.filter(question__study=study)
        for m in ("overall", "answer_recall")
    )
    return study


@pytest.mark.django_db
def test_the_api_the_page_and_the_notes_table_say_why(client, flat, researcher_user):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(researcher_user)
    report = api.get(f"/api/studies/{flat.pk}/agreement/?judge=flat-judge").json()
    assert report["preference"]["overall"]["tau_b"] is None
    assert report["system"]["tau_b"] is None and report["notes"]
    assert unexplained_nulls(report) == []
    why = report["preference"]["overall"]["notes"]["tau_b"].rstrip(".")
    with_tables = api.get(f"/api/studies/{flat.pk}/agreement/?judge=flat-judge&tables=true")
    assert any(why in row["note"] for row in with_tables.json()["tables"]["notes"]["rows"])
    client.force_login(researcher_user)
    for url in (f"/reports/{flat.pk}/?judge=flat-judge",
                f"/reports/{flat.pk}/report.html?judge=flat-judge",
                f"/reports/{flat.pk}/tables/notes.csv?judge=flat-judge"):  # fmt: skip
        response = client.get(url)
        assert response.status_code == 200, url
        page = b"".join(response) if response.streaming else response.content
        assert why in page.decode(), url


@pytest.mark.django_db
def test_compat_over_the_api_says_why_kappa_is_null(researcher_user):
    from rest_framework.test import APIClient

    from tests.builders.ranked import ranked_study

    study = ranked_study(4)
    study.researchers.add(researcher_user)
    api = APIClient()
    api.force_authenticate(researcher_user)
    report = api.get(
        f"/api/studies/{study.pk}/agreement/?compat=scholarqa-cs2&settings=assigned"
    ).json()
    assert report["iaa"]["cohen_kappa"] is None and report["iaa"]["notes"]["cohen_kappa"]
    assert unexplained_nulls(report) == []


@pytest.mark.django_db
def test_compat_expert_agreed_on_one_annotator_is_a_report_of_nulls(researcher_user):
    """A setting with one annotator has an empty expert-agreed subset (no comparison is
    judged twice): the analysis is well defined, its figures are not. It was refused with
    "no judgments in setting 'assigned'" (tester's report); now every figure is null and
    the note says why."""
    from rest_framework.test import APIClient

    from metaeval.sections.label_iaa import NO_AGREED_COMPARISON
    from tests.builders.ranked import ranked_study

    study = ranked_study(4, annotators=1)
    study.researchers.add(researcher_user)
    api = APIClient()
    api.force_authenticate(researcher_user)
    response = api.get(f"/api/studies/{study.pk}/agreement/?compat=scholarqa-cs2"
                       "&settings=assigned&expert_agreed=true")  # fmt: skip
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["preference"] == {} and report["metric_wise"] == {}
    assert report["system"]["tau_b"] is None and report["iaa"]["strict"] is None
    why = report["system"]["notes"]["tau_b"]
    assert "Expert-agreed subset empty" in why and "1 annotator" in why
    # the metric scores' label IAA reads the subset's reports: none, so it is null saying so
    assert report["label_iaa"] is None
    assert report["notes"] == [why, NO_AGREED_COMPARISON]
    assert report["selection"]["n_annotators"] == 1 and report["selection"]["n_judgments"]
    assert unexplained_nulls(report) == []


def test_compat_expert_agreed_when_two_annotators_never_agree():
    """Two annotators whose every decision differs: the subset is empty too, and says so."""
    data = frame()
    second = data.annotator == 1
    data.preference[second] = data.preference[second][:, ::-1]
    report = build_report(data, ReportOptions(compat="scholarqa-cs2", expert_agreed=True))
    assert report["preference"] == {} and report["system"]["tau_b"] is None
    assert "no comparison of setting 'assigned' has judgments that all agree" in report["notes"][0]
    assert unexplained_nulls(report) == []
