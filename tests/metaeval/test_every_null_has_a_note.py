"""No null figure without a note, in any section's result or table (docs/ANALYSES.md,
METHODS §7: "null with a note, never a number and never a bare null").

A tester's ResearcherBench-style study where both experts gave every rubric item 4 and the
judge said covered everywhere got, from ``/api/studies/<id>/agreement/?judge=o3-mini``,
κ and α null with ``note: null`` in ``label_iaa`` and in coverage's human vs human, the
same bare nulls in their CSVs, an ``iaa`` table without a note column, and a cross-judge
row of ``o3-mini`` against itself with a null Pearson r. The checker
(:mod:`tests.metaeval.null_checks`) walks every section's output and every table of the
constant study and of the demo and released-data studies."""

import json

import pytest
from django.urls import reverse

from judges.importers import import_judge_scores
from metaeval import views
from metaeval.analyses.researchqa_pairwise import NO_BOOTSTRAP
from metaeval.reports import ReportOptions
from metaeval.stats.iaa import ONE_CATEGORY
from tests.builders.binary_judge import binary_judge_study
from tests.builders.constant_labels import JUDGE, constant_label_study
from tests.builders.researchqa_study import DATA, researchqa_study
from tests.builders.scholarqa import JUDGE as JUDGE_SCHOLARQA
from tests.builders.scholarqa import import_release

from .null_checks import bare_nulls
from .section_checks import command, csv_rows

OPTIONS = (ReportOptions(), ReportOptions(bootstrap=100))


def _check(study_id: int, *options: ReportOptions) -> None:
    for opts in options:
        bad = bare_nulls(views.cached_entry(study_id, opts))
        assert not bad, f"null without a note ({opts.judge}, bootstrap {opts.bootstrap}): {bad}"


@pytest.mark.django_db
def test_a_study_of_one_category_says_why_every_figure_is_null():
    study = constant_label_study()
    _check(study.pk, *OPTIONS, ReportOptions(judge=JUDGE), ReportOptions(judge=JUDGE,
                                                                         bootstrap=100))  # fmt: skip


@pytest.mark.django_db
def test_researcherbench_and_researchqa_studies_have_no_bare_null():
    _check(binary_judge_study().pk, *OPTIONS)
    _check(researchqa_study().pk, *OPTIONS)


@pytest.mark.django_db
def test_the_demo_has_no_bare_null(demo_module):
    _check(demo_module, *OPTIONS)


@pytest.mark.django_db
def test_one_category_is_named_as_the_reason_everywhere(client, researcher_user):
    """The tester's symptoms one by one: the API with ``?judge=``, the CSVs, notes.csv, the
    ``iaa`` table's note column and no judge compared with itself."""
    study = constant_label_study()
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    api = client.get(reverse("api-agreement", args=[study.pk]) + f"?judge={JUDGE}").json()
    for kind in api["label_iaa"]["kinds"]:
        assert kind["cohen_kappa"] is None and kind["note"] == ONE_CATEGORY, kind
    hh = api["coverage_alignment"]["human_vs_human"]
    assert hh["weighted_kappa"] is None and hh["krippendorff_alpha"] is None
    assert hh["note"] == ONE_CATEGORY and hh["exact"] == 1.0
    for table in ("label_iaa", "coverage_human_vs_human"):
        rows = csv_rows(client, study, table, f"?judge={JUDGE}")
        assert rows and all(r["note"] == ONE_CATEGORY for r in rows), (table, rows)
    notes = [r["note"] for r in csv_rows(client, study, "notes", f"?judge={JUDGE}")]
    said = [n for n in notes if n.startswith(ONE_CATEGORY.rstrip("."))]
    assert said and "label_iaa coverage Cohen's κ" in said[0]
    assert "coverage human vs human weighted κ, Krippendorff's α" in said[0]
    (iaa,) = csv_rows(client, study, "iaa")
    assert iaa["cohen_kappa"] == "" and iaa["note"]  # no comparison: the reason is there
    assert all(r["judge"] != r["other"] for r in csv_rows(client, study, "cross_judge"))


@pytest.mark.django_db
def test_the_scoreboard_names_the_actual_reason_of_a_missing_bootstrap(researcher_user):
    """ResearchQA rows said "No bootstrap (bootstrap 0) or no rating." with 200 rounds: a
    judge whose verdicts always prefer alpha has no maximum-likelihood rating, and its
    rows must say that, not guess between two reasons."""
    study = researchqa_study()
    verdicts = json.loads((DATA / "researchqa_pairwise.json").read_text())
    for v in verdicts:  # alpha wins every order of every comparison it is in
        if v["implementation_A"] == "alpha":
            v["judge"] = v["judge_swapped"] = "A"
    import_judge_scores(json.dumps(verdicts).encode(), study=study.name, judge="sweeper",
                        format="researchqa-pairwise")  # fmt: skip
    swept = 0
    for rounds in (0, 200):
        got = command(study, "scoreboard", f"--bootstrap={rounds}")
        rows = [r for b in got["boards"] for r in b["rows"] if "bootstrap_median" in r["figures"]]
        assert rows
        for row in rows:
            for name in ("bootstrap_median", "bootstrap_sd"):
                fig = row["figures"][name]
                assert "or no" not in (fig["note"] or "")  # one reason, not two guessed
                if rounds == 0:
                    assert fig["value"] is None and fig["note"] == NO_BOOTSTRAP
                elif fig["value"] is None:
                    assert fig["note"] != NO_BOOTSTRAP and "rating" in fig["note"], fig
                    swept += 1
    assert swept  # the sweeping judge's rows were checked


@pytest.mark.shared_data
@pytest.mark.django_db
def test_the_released_scholarqa_study_has_no_bare_null(scholarqa_dir):
    """The released ScholarQA-CS2 annotations as the reproduction imports them (seed 003)."""
    from annotation.models import Study

    import_release(scholarqa_dir, "released")
    study = Study.objects.get(name="released")
    _check(study.pk, *OPTIONS, ReportOptions(judge=JUDGE_SCHOLARQA, expert_agreed=True))
