"""One rule for Cohen's κ in the agreement report's IAA and in ``label_iaa`` (issue 27):
the mean over annotator pairs, with any number of annotators (it was null with 3–5 in the
report and the first two annotators' value in ``label_iaa``)."""

from itertools import combinations

import numpy as np
import pytest

from annotation.models import Medal
from metaeval import sections
from metaeval.reports import ReportOptions, agreement_report
from tests.builders.ranked import ranked_study
from tests.builders.researchqa_study import researchqa_study

pytestmark = pytest.mark.django_db
VALUE = {"gold": 3, "silver": 2, "bronze": 1}


def _kappa(x, y):
    """Cohen (1960), written out here: (p_o − p_e) / (1 − p_e)."""
    x, y = np.asarray(x), np.asarray(y)
    cats = np.union1d(x, y)
    po = (x == y).mean()
    pe = sum((x == c).mean() * (y == c).mean() for c in cats)
    return None if pe == 1 else (po - pe) / (1 - pe)


def test_the_report_iaa_kappa_is_the_mean_over_three_annotators_pairs():
    study = ranked_study(12, name="three", annotators=3)
    decisions = {}  # annotator -> (question, A, B) -> +1 / 0 / −1, A first by name
    for m in Medal.objects.filter(ranking__study=study).select_related(
        "ranking", "report__system"
    ):  # fmt: skip
        decisions.setdefault(m.ranking.annotator_id, {}).setdefault(
            m.ranking.question_id, {})[m.report.system.name] = VALUE[m.medal]  # fmt: skip
    per_ann = {}
    for ann, questions in decisions.items():
        for q, medals in questions.items():
            for a, b in combinations(sorted(medals), 2):
                per_ann.setdefault(ann, {})[(q, a, b)] = int(np.sign(medals[a] - medals[b]))
    kappas = []
    for i, j in combinations(sorted(per_ann), 2):
        units = sorted(set(per_ann[i]) & set(per_ann[j]))
        k = _kappa([per_ann[i][u] for u in units], [per_ann[j][u] for u in units])
        if k is not None:
            kappas.append(k)
    assert len(kappas) == 3
    report = agreement_report(study.pk, ReportOptions())
    assert report["iaa"]["cohen_kappa"] == pytest.approx(np.mean(kappas))


def test_label_iaa_uses_the_same_rule():
    study = researchqa_study("kappa-rule")
    rows = sections.report(study.pk, ReportOptions())["label_iaa"]["kinds"]
    pref = next(r for r in rows if r["kind"] == "preference")
    # two experts say alpha on both questions, the third beta: (1, 2) one category,
    # undefined; (1, 3) and (2, 3) never agree with p_e = 0: κ = 0; the mean: 0 (the first
    # two annotators' κ, the old rule, is undefined)
    assert pref["cohen_kappa"] == 0.0
