"""Every model of the apps a study spans is in a backup or excluded with a reason.

Why: models are added to these apps all the time; a new one must fail here until the
backup knows it (it reaches Study by non-null foreign keys, or is declared shared, special
or excluded in ``studio/backup/graph.py``), and until each of its JSON columns is
declared to hold database ids (remapped on import) or not.
"""

from django.db import models

from studio.backup import graph, remap


def test_every_model_is_exported_or_excluded_with_a_reason():
    exported = {t.label for t in graph.tables()}
    for model in graph.candidate_models():
        name = graph.label(model)
        assert name in exported or graph.EXCLUDED.get(name, "").strip(), (
            f"{name} is neither in a study backup nor in graph.EXCLUDED with a reason"
        )
    assert exported.isdisjoint(graph.EXCLUDED)


def test_every_json_column_is_declared():
    declared = set(graph.ID_COLUMNS) | graph.PLAIN_JSON
    for t in graph.tables():
        for name in graph.json_columns(t):
            assert (t.label, name) in declared, (
                f"{t.label}.{name} is JSON: declare in graph.ID_COLUMNS (and remap.FUNCTIONS) "
                f"if it holds database ids, else in graph.PLAIN_JSON"
            )
    assert set(remap.FUNCTIONS) == set(graph.ID_COLUMNS)
    assert not set(graph.ID_COLUMNS) & graph.PLAIN_JSON


def test_tables_come_after_the_tables_they_point_at():
    order = [t.label for t in graph.tables()]
    for t in graph.tables():
        for target in t.fks.values():
            assert order.index(target) < order.index(t.label), (t.label, target)
    root = order.index(graph.ROOT)
    assert all(root < order.index(t.label) for t in graph.tables() if t.kind == "study")


def test_primary_keys_are_automatic():
    """Import allocates new keys; a model with a natural primary key would need more."""
    for t in graph.tables():
        assert isinstance(t.model._meta.pk, models.AutoField | models.BigAutoField), t.label


def test_study_paths_follow_required_foreign_keys():
    tables = graph.by_label()
    assert tables["annotation.medal"].path == "ranking__study"
    assert tables["annotation.paragraph"].path.endswith("report__question__study")
    assert tables["judges.judgeunit"].path == "run__study"
    assert tables["annotation.annotator"].kind == "shared"
    assert tables["judges.llmresponse"].kind == "special"
