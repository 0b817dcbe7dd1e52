"""The issue-16 sections on a study without their judgment kinds: each costs a constant
number of queries (one EXISTS per kind it reads) and adds nothing; the `analysis` command
lists every kind in its --help."""

import pytest
from django.core.management import load_command_class
from django.db import connection
from django.test.utils import CaptureQueriesContext

from metaeval import sections
from metaeval.reports import ReportOptions
from tests.builders.ranked import ranked_study

pytestmark = pytest.mark.django_db

KINDS = ["researchqa_pairwise", "leaderboard", "coverage_alignment", "researcherbench",
         "expertise_triage", "question_authoring",
         "label_quality", "rubric_comparison", "claim_support", "relevance_adjudication",
         "ratings", "label_iaa", "budget"]  # fmt: skip


def test_absent_kinds_cost_a_constant_and_give_null():
    study = ranked_study(3)
    analysis = sections.Analysis(study.pk, ReportOptions())
    by_key = {s.key: s for s in sections.registered()}
    for key in KINDS:
        with CaptureQueriesContext(connection) as queries:
            assert analysis.result(by_key[key]) is None
        # one EXISTS per kind read: label_iaa reads six (DeepScholar labels too, issue 26)
        assert len(queries) <= 6, (key, [q["sql"] for q in queries])


def test_the_command_lists_every_kind():
    parser = load_command_class("metaeval", "analysis").create_parser("manage.py", "analysis")
    text = parser.format_help()
    for key in KINDS:
        assert key in text


def test_a_study_without_a_judge_has_no_judge_card():
    from annotation.models import Study

    study = ranked_study(3)
    from judges.models import JudgeScore

    JudgeScore.objects.filter(report__question__study=study).delete()
    analysis = sections.Analysis(Study.objects.get(pk=study.pk).pk, ReportOptions())
    by_key = {s.key: s for s in sections.registered()}
    with CaptureQueriesContext(connection) as queries:
        assert analysis.result(by_key["judge_card"]) is None
    assert len(queries) <= 8, [q["sql"] for q in queries]
