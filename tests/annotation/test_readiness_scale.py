"""The steps after an import cost the same whatever the study's size (issue 29).

Readiness asks which task types a study holds judgments of after every import. It used to
read the first label of each task's quality-control rows, which built every ranking of the
study with its medals prefetched by id: on SQLite a study above 332 questions × 3 systems
failed ("Expression tree is too large (maximum depth 1000)") and its whole import was rolled
back; on PostgreSQL it loaded ~520K objects. ``LabelSpec.held`` asks EXISTS instead.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.annotate.medal_ranking import qc_rows
from annotation.importers import run
from annotation.models import MedalRanking, Study
from annotation.quality import catalog
from annotation.readiness import judged_tasks
from tests.builders.pairwise_files import write_pairwise


def write_rankings(path, n_questions: int):
    """A ScholarQA-CS2 pairwise file: every question's three reports ranked gold, silver,
    bronze (three records, one per pair)."""
    return write_pairwise(path, n_questions)


@pytest.mark.django_db
def test_a_study_of_400_questions_imports_and_its_rankings_read(tmp_path):
    """400 questions × 3 systems: refused on SQLite before (the readiness step's prefetch)."""
    rep = run("pairwise", write_rankings(tmp_path / "pairwise_dev_assigned_ann1.json", 400),
              study="S", annotator="ann1", judge="j")  # fmt: skip
    study = Study.objects.get(name="S")
    assert MedalRanking.objects.filter(study=study).count() == 400
    assert "medal_ranking" in rep.enabled_tasks
    labels = {label for _, _, label in qc_rows(study)}
    assert labels == {"atlas=gold;beacon=silver;cedar=bronze"}
    assert sum(1 for _ in qc_rows(study)) == 400


def _readiness_queries(study) -> list[str]:
    with CaptureQueriesContext(connection) as ctx:
        assert "medal_ranking" in judged_tasks(study)
    return [q["sql"] for q in ctx.captured_queries]


@pytest.mark.django_db
def test_readiness_queries_do_not_grow_with_the_study(tmp_path):
    """Same number of queries, none longer, for 3 questions and for 60."""
    run("pairwise", write_rankings(tmp_path / "pairwise_dev_assigned_ann1.json", 3),
        study="small", annotator="ann1", judge="j")  # fmt: skip
    run("pairwise", write_rankings(tmp_path / "pairwise_dev_assigned_ann2.json", 60),
        study="large", annotator="ann1", judge="j")  # fmt: skip
    small = _readiness_queries(Study.objects.get(name="small"))
    large = _readiness_queries(Study.objects.get(name="large"))
    assert len(small) == len(large)
    assert max(map(len, large)) <= max(map(len, small)) + 8  # the study id's digits at most
    assert all(sql.rstrip().upper().endswith("LIMIT 1") for sql in large)  # .exists()


def test_every_labelled_task_declares_its_existence_check():
    specs = catalog.specs()
    assert specs, "no task type registered"
    for task, spec in specs.items():
        assert (spec.rows is None) == (spec.held is None), task


@pytest.mark.django_db
def test_one_rubric_of_many_items_is_one_rubric():
    """ResearcherBench questions (one rubric of 13-16 items each) enabled the rubric
    comparison, which needs two rubrics: the items' join was counted, not the rubrics."""
    from annotation.readiness import problem, question_data, supported_tasks
    from tests.builders.content import make_question, make_study

    study = make_study()
    q = make_question(study, n_reports=0, rubric_items=5)
    assert question_data(study.questions.all())[q.pk].rubrics == 1
    assert "rubric" in problem("rubric_comparison", question_data(study.questions.all())[q.pk])
    assert "rubric_comparison" not in supported_tasks(study)
    assert "rubric_item_quality" in supported_tasks(study)
