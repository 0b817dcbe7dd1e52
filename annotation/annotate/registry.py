"""The task types that have a page. A task not listed here is not linked anywhere."""

from .adjudication import RelevanceAdjudicationTask
from .authoring import QuestionAuthoringTask
from .claim_check import ClaimCheckTask
from .coverage import RubricCoverageTask
from .item_quality import RubricItemQualityTask
from .medals import MedalRankingTask
from .metricwise import MetricWiseTask
from .pairwise import PairwiseTask
from .query_quality import QueryQualityTask
from .rubric_comparison import RubricComparisonTask
from .triage import ExpertiseTriageTask

SPECS = {
    spec.key: spec
    for spec in (
        MedalRankingTask(),
        PairwiseTask(),
        MetricWiseTask(),
        RubricCoverageTask(),
        QueryQualityTask(),
        RubricItemQualityTask(),
        ExpertiseTriageTask(),
        RubricComparisonTask(),
        ClaimCheckTask(),
        RelevanceAdjudicationTask(),
        QuestionAuthoringTask(),
    )
}
