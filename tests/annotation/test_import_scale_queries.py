"""Every step of and after a pairwise import costs as many queries, none deeper, whatever
the study's size (issue 29).

The readiness step once read every ranking of the study with its medals prefetched by id:
one ``OR`` term per report, so on SQLite any study above 332 questions × 3 systems failed
("Expression tree is too large (maximum depth 1000)") and the whole import was rolled back.
Here a study of 10 questions and one of 420 go through the same steps, the import itself
and what an admin meets next (readiness and the tasks it enables, the study page, the
planner's needs, progress), and each step's queries are compared: the same number, and
none longer than the small study's longest but for the digits of larger ids. A query that
names every report or question (an ``IN`` list, an ``OR`` chain, a prefetch by id) grows
with the study and fails here.
"""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation import readiness
from annotation.importers import run
from annotation.models import Medal, MedalRanking, Study
from studio.studyadmin import planning, progress
from tests.builders.pairwise_files import write_pairwise

SMALL, LARGE = 10, 420  # LARGE: above the 332 questions × 3 systems that failed on SQLite
#: Longer SQL allowed for the large study: larger ids and counts in the text (digits only).
SLACK = 40


def queries(fn) -> list[str]:
    with CaptureQueriesContext(connection) as ctx:
        fn()
    return [q["sql"] for q in ctx.captured_queries]


def import_steps(tmp_path, name: str, n: int) -> dict[str, list[str]]:
    """The import steps of a study of ``n`` questions: both annotators' files, then the
    first file again unchanged and once more with every medal changed (updates in place)."""
    folder = tmp_path / name
    folder.mkdir()
    files = {
        ann: write_pairwise(folder / f"pairwise_dev_assigned_{ann}.json", n)
        for ann in ("ann1", "ann2")
    }
    flipped = write_pairwise(folder / "pairwise_dev_assigned_flipped.json", n, flip=True)

    def imported(path, ann):
        # judge and annotators of this study alone: each study's first import creates them
        return lambda: run("pairwise", path, study=name, annotator=f"{name}-{ann}",
                           judge=f"{name}-judge")  # fmt: skip

    steps = {
        "first import (creates questions, reports, judge scores)": imported(files["ann1"], "ann1"),
        "second annotator's import": imported(files["ann2"], "ann2"),
        "re-import, unchanged": imported(files["ann1"], "ann1"),
        "re-import, every medal changed": imported(flipped, "ann1"),
    }
    return {label: queries(step) for label, step in steps.items()}


def after_import_steps(client, study: Study) -> dict[str, list[str]]:
    """What runs after an import and what an admin opens next."""
    study.refresh_from_db()
    spec = planning.PlanSpec(task="medal_ranking")
    pages = {
        "study page": reverse("studies:detail", args=[study.pk]),
        "progress page": reverse("studies:progress", args=[study.pk]),
        "plan page": reverse("studies:plan", args=[study.pk]),
    }
    steps = {
        "readiness: tasks the data supports": lambda: readiness.supported_tasks(study),
        "readiness: tasks with judgments": lambda: readiness.judged_tasks(study),
        "enabling tasks": lambda: readiness.enable_supported(study),
        "planner needs (preview)": lambda: planning.preview(study, spec),
        "progress": lambda: progress.study_progress(study),
        **{
            label: (lambda url=url: client.get(url).status_code == 200 or pytest.fail(url))
            for label, url in pages.items()
        },
    }
    return {label: queries(step) for label, step in steps.items()}


def assert_same_cost(small: dict[str, list[str]], large: dict[str, list[str]]) -> None:
    for step, small_sql in small.items():
        large_sql = large[step]
        assert len(large_sql) == len(small_sql), (
            f"{step}: {len(large_sql)} queries for {LARGE} questions, {len(small_sql)} for {SMALL}"
        )
        longest = max(map(len, small_sql), default=0)
        grown = [sql[:300] for sql in large_sql if len(sql) > longest + SLACK]
        assert not grown, f"{step}: queries longer with the study's size: {grown}"


@pytest.mark.django_db
def test_import_and_what_follows_cost_the_same_for_10_and_420_questions(
    tmp_path, client, admin_user
):
    client.force_login(admin_user)
    small = import_steps(tmp_path, "small", SMALL)
    large = import_steps(tmp_path, "large", LARGE)
    assert_same_cost(small, large)

    small_study, large_study = Study.objects.get(name="small"), Study.objects.get(name="large")
    assert "medal_ranking" in large_study.tasks
    assert MedalRanking.objects.filter(study=large_study).count() == 2 * LARGE
    assert Medal.objects.filter(ranking__study=large_study).count() == 2 * 3 * LARGE
    assert_same_cost(
        after_import_steps(client, small_study), after_import_steps(client, large_study)
    )


@pytest.mark.django_db
def test_a_study_above_332_questions_imports_on_the_default_database(tmp_path):
    """333 questions × 3 systems failed on SQLite and rolled back; 420 import whole, and a
    re-import with every medal changed updates them in place."""
    first = write_pairwise(tmp_path / "pairwise_dev_assigned_ann1.json", LARGE)
    run("pairwise", first, study="S", annotator="ann1", judge="j")
    flipped = write_pairwise(tmp_path / "pairwise_dev_assigned_flip.json", LARGE, flip=True)
    run("pairwise", flipped, study="S", annotator="ann1", judge="j")
    medals = Medal.objects.filter(ranking__study__name="S")
    assert medals.count() == 3 * LARGE
    assert set(medals.filter(report__system__name="cedar").values_list("medal", flat=True)) == {
        "gold"
    }


@pytest.mark.django_db
def test_records_off_the_fast_path_read_the_same(tmp_path):
    """Integer medals and a null score leave the fast path of the reader (issue 29): the
    full checks read them, to the same rankings; a NaN is still refused naming the field."""
    from annotation.importers import ImportFailed
    from annotation.importers.common import read_source
    from judges.formats.scholarqa_pairwise import flat, read_pairwise

    plain = write_pairwise(tmp_path / "pairwise_dev_assigned_plain.json", 3)
    records = json.loads(plain.read_text())
    for r in records:
        r["preference_ranking_norm"] = [int(v) if v in (0.0, 1.0) else v
                                        for v in r["preference_ranking_norm"]]  # fmt: skip
    records[0]["model_overall"] = [None, records[0]["model_overall"][1]]
    odd = tmp_path / "pairwise_dev_assigned_odd.json"
    odd.write_text(json.dumps(records))
    a = read_pairwise(read_source(plain), setting="assigned", consensus=False)
    b = read_pairwise(read_source(odd), setting="assigned", consensus=False)
    assert {k: v[0] for k, v in a.medal.items()} == {k: v[0] for k, v in b.medal.items()}
    # atlas's score comes from its other record (atlas v cedar) instead
    assert {k: v[0] for k, v in flat(a.judge)} == {k: v[0] for k, v in flat(b.judge)}
    assert a.pairs == b.pairs

    records[1]["model_overall"] = [float("nan"), 0.5]
    bad = tmp_path / "pairwise_dev_assigned_bad.json"
    bad.write_text(json.dumps(records))
    with pytest.raises(ImportFailed) as failed:
        run("pairwise", bad, study="S", annotator="ann1", judge="j")
    assert [(p.record, p.field) for p in failed.value.problems] == [(2, "model_overall")]
    assert not Study.objects.filter(name="S", questions__isnull=False).exists()
