"""A failed annotator's work counts nowhere in quality control (a tester's finding).

In a study that requires a qualification round, an annotator whose result is failed still
made up the consensus others were scored against, created disagreements that could be sent
to adjudication, was offered under "Mark as known answer", and appeared in the judgments
export with nothing marking them. Undecided (items left) keeps counting.
"""

import csv
import io

import pytest
from django.test import Client
from django.urls import reverse

from annotation.exporters import export_judgments
from annotation.models import QualificationResult
from annotation.quality import observations, qualification
from annotation.quality.agreement import disagreements
from studio.studyadmin import quality
from tests.builders.quality import failed_annotator_world
from tests.builders.users import make_user

TASK = "query_quality"


@pytest.fixture
def world(db):
    """``good`` labels the probe unit 5, ``bad`` 4; ``bad``'s result is undecided."""
    return failed_annotator_world(TASK)


def consensus_n(study, annotator):
    (row,) = [r for r in quality.quality_rows(study) if r.annotator == annotator]
    return row.quality.consensus_n


def test_a_failed_annotator_is_no_one_s_consensus(world):
    study, good, bad = world.study, world.good, world.bad
    units = 4  # clarity, naturalness, relevance, variability
    assert consensus_n(study, good) == units  # undecided: counts
    world.qualify(bad, False)
    assert consensus_n(study, good) == 0
    assert consensus_n(study, bad) == units  # their own labels are still scored


def test_a_failed_annotator_makes_no_disagreement_to_adjudicate(world, admin_user):
    study, bad, key = world.study, world.bad, world.unit_key
    adjudicator = make_user("fa_adj", "annotator", annotator=True).annotator
    QualificationResult.objects.create(study=study, annotator=adjudicator, passed=True)
    assert len(disagreements(qualification.counted(study, observations.load(study)))) == 1
    world.qualify(bad, False)
    assert disagreements(qualification.counted(study, observations.load(study))) == {}
    with pytest.raises(quality.QualityError, match="no disagreement to adjudicate"):
        quality.send_to_adjudication(
            study, unit=key, adjudicators=[str(adjudicator.pk)], user=admin_user
        )
    client = Client()
    client.force_login(admin_user)
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    table = page.split('id="disagreements"')[1].split("</table>")[0]
    assert key not in table and "No disagreements." in table


def test_a_failed_annotator_is_not_offered_as_a_known_answer(world, admin_user):
    study, good, bad, key = world.study, world.good, world.bad, world.unit_key
    world.qualify(bad, False)
    client = Client()
    client.force_login(admin_user)
    page = client.get(reverse("studies:quality", args=[study.pk])).content.decode()
    marks = page.split('value="mark"')[1:]
    assert any(f'name="annotator" value="{good.pk}"' in m.split("</form>")[0] for m in marks)
    assert not any(f'name="annotator" value="{bad.pk}"' in m.split("</form>")[0] for m in marks)
    with pytest.raises(quality.QualityError, match=f"annotator: {bad.pk} failed"):
        quality.mark_from_judgment(
            study, unit=key, annotator_id=str(bad.pk), purpose="gold", user=admin_user
        )


def test_the_judgments_export_says_each_annotator_s_qualification(world):
    study, good, bad = world.study, world.good, world.bad
    world.qualify(bad, False)
    QualificationResult.objects.create(study=study, annotator=good, passed=True)
    rows = list(csv.DictReader(io.StringIO(export_judgments(study, "csv"))))
    seen = {(r["annotator"], r["annotator_qualification"]) for r in rows}
    assert seen == {(good.pseudonym, "passed"), (bad.pseudonym, "failed")}
    study.config = {}
    study.save()
    rows = list(csv.DictReader(io.StringIO(export_judgments(study, "csv"))))
    assert {r["annotator_qualification"] for r in rows} == {"not_required"}


def test_an_annotator_without_a_decided_result_is_undecided_in_the_export(world):
    study = world.study
    rows = list(csv.DictReader(io.StringIO(export_judgments(study, "csv"))))
    assert {r["annotator_qualification"] for r in rows} == {"undecided"}


def test_the_status_column_costs_one_query(world, django_assert_max_num_queries):
    from annotation.exporters import judgment_records
    from annotation.judgment_kinds import KINDS

    # one per kind, one for the results, one for the known-answer items (quality_check)
    with django_assert_max_num_queries(len(KINDS) + 2):
        judgment_records(world.study)
