"""metaeval.data: DB rows become the right pairwise rows, in a constant number of queries."""

import numpy as np
import pytest

from annotation.models import (
    Annotator,
    HumanMetricScore,
    Medal,
    MedalRanking,
    Question,
    Report,
    Study,
    System,
)
from judges.models import Judge, JudgeScore
from metaeval.data import Selection, load_frame

SYSTEMS = ("gamma", "alpha", "beta")  # deliberately not in canonical order


def build(n_questions: int, medals_by_annotator: dict[str, tuple[str, str, str]]):
    """A study where each annotator gives the same medals (for SYSTEMS) on every question."""
    study = Study.objects.create(name=f"s{n_questions}")
    systems = {name: System.objects.create(study=study, name=name) for name in SYSTEMS}
    judge = Judge.objects.create(name=f"j{n_questions}")
    annotators = {
        p: Annotator.objects.create(pseudonym=f"{p}{n_questions}") for p in medals_by_annotator
    }
    for q in range(n_questions):
        question = Question.objects.create(
            study=study, external_id=f"q{q}", text=f"Q{q}", split="dev"
        )
        reports = {
            name: Report.objects.create(question=question, system=system)
            for name, system in systems.items()
        }
        for i, report in enumerate(reports.values()):
            # judge overall: gamma 0.9, alpha 0.5, beta 0.1 (+ q offset, irrelevant to order)
            JudgeScore.objects.create(
                judge=judge, report=report, metric="overall", value=0.9 - 0.4 * i
            )
        for pseudo, medals in medals_by_annotator.items():
            ranking = MedalRanking.objects.create(
                study=study, annotator=annotators[pseudo], question=question, setting="assigned"
            )
            for name, medal in zip(SYSTEMS, medals, strict=True):
                Medal.objects.create(ranking=ranking, report=reports[name], medal=medal)
            HumanMetricScore.objects.create(
                study=study,
                annotator=annotators[pseudo],
                question=question,
                report=reports["alpha"],
                metric="answer_recall",
                value=0.75,
            )
    return study, judge


@pytest.mark.django_db
def test_rankings_become_canonical_pairs_with_scores():
    study, judge = build(
        2, {"ann": ("gold", "silver", "bronze"), "bob": ("bronze", "bronze", "gold")}
    )
    frame = load_frame(Selection(study_id=study.pk, judge=judge.name))
    # 2 annotators x 2 questions x 3 pairs
    assert len(frame) == 12
    systems = frame.systems
    assert systems == ["alpha", "beta", "gamma"]
    names_a = [systems[i] for i in frame.system_a]
    names_b = [systems[i] for i in frame.system_b]
    assert all(a < b for a, b in zip(names_a, names_b, strict=True))
    medal_of = {
        "ann": {"gamma": 1.0, "alpha": 0.5, "beta": 0.0},
        "bob": {"gamma": 0.0, "alpha": 0.0, "beta": 1.0},
    }
    judge_of = {"gamma": 0.9, "alpha": 0.5, "beta": 0.1}
    for row in range(len(frame)):
        who = frame.annotators[frame.annotator[row]][:3]
        a, b = names_a[row], names_b[row]
        assert frame.preference[row].tolist() == [medal_of[who][a], medal_of[who][b]]
        assert frame.judge["overall"][row] == pytest.approx([judge_of[a], judge_of[b]])
        # human answer_recall exists for alpha only: NaN on the other side
        recall = frame.human["answer_recall"][row]
        assert (recall[0] == 0.75) if a == "alpha" else np.isnan(recall[0])
        assert np.isnan(recall[1])  # alpha is never system B


@pytest.mark.django_db
def test_system_subsets_restrict_pairs():
    study, judge = build(1, {"ann": ("gold", "silver", "bronze")})
    frame = load_frame(Selection(study_id=study.pk, judge=judge.name, exclude_systems=("beta",)))
    assert len(frame) == 1
    assert {frame.systems[frame.system_a[0]], frame.systems[frame.system_b[0]]} == {
        "alpha",
        "gamma",
    }
    frame = load_frame(Selection(study_id=study.pk, judge=judge.name, systems=("alpha", "beta")))
    assert len(frame) == 1


@pytest.mark.django_db
def test_query_count_does_not_grow_with_the_study(django_assert_num_queries):
    small, judge_small = build(2, {"ann": ("gold", "silver", "bronze")})
    large, judge_large = build(
        20, {"ann": ("gold", "silver", "bronze"), "bob": ("gold", "gold", "bronze")}
    )
    with django_assert_num_queries(5):
        assert len(load_frame(Selection(study_id=small.pk, judge=judge_small.name))) == 6
    with django_assert_num_queries(5):
        assert len(load_frame(Selection(study_id=large.pk, judge=judge_large.name))) == 120


@pytest.mark.django_db
def test_empty_study_gives_empty_frame():
    study = Study.objects.create(name="empty")
    assert len(load_frame(Selection(study_id=study.pk))) == 0
