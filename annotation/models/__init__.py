from .assignment import Assignment, Setting
from .content import (
    Citation,
    Paragraph,
    Question,
    Report,
    Rubric,
    RubricItem,
    Section,
    Study,
    System,
    bump_content_version,
    citation_item,
    citation_keys,
    cited,
)
from .judgments import (
    ExpertAgreedRecord,
    HumanMetricScore,
    Medal,
    MedalRanking,
    PairwisePreference,
)
from .people import Annotator, ExpertiseRating, StudyResearcher

__all__ = [
    "Annotator",
    "Assignment",
    "Citation",
    "ExpertAgreedRecord",
    "ExpertiseRating",
    "StudyResearcher",
    "HumanMetricScore",
    "Medal",
    "MedalRanking",
    "PairwisePreference",
    "Paragraph",
    "Question",
    "Report",
    "bump_content_version",
    "citation_item",
    "citation_keys",
    "cited",
    "Rubric",
    "RubricItem",
    "Section",
    "Setting",
    "Study",
    "System",
]

from .metricwise import ClaimAssessment, ParagraphRelevance, ReportRating  # noqa: E402
from .taskdata import Draft, DraftVersion  # noqa: E402

__all__ += ["ClaimAssessment", "Draft", "DraftVersion", "ParagraphRelevance", "ReportRating"]

from .rubricwork import (  # noqa: E402
    QueryQuality,
    RubricAssessment,
    RubricComparison,
    RubricCoverage,
    RubricItemQuality,
)

__all__ += [
    "QueryQuality",
    "RubricAssessment",
    "RubricComparison",
    "RubricCoverage",
    "RubricItemQuality",
]

from .claims import ClaimCheck, ReportClaim  # noqa: E402

__all__ += ["ClaimCheck", "ReportClaim"]

from .adjudication import RelevanceAdjudication, RelevanceDisagreement  # noqa: E402

__all__ += ["RelevanceAdjudication", "RelevanceDisagreement"]
from .review import Flag, Guidelines, Reopening  # noqa: E402

__all__ += ["Flag", "Guidelines", "Reopening"]

from .quality import AdjudicationRequest, GoldItem, QualificationResult, QualityEvent  # noqa: E402

__all__ += ["AdjudicationRequest", "GoldItem", "QualificationResult", "QualityEvent"]

from .deepscholar import (  # noqa: E402
    DeepScholarLabel,
    Exemplar,
    ExemplarReference,
    Nugget,
)

__all__ += ["DeepScholarLabel", "Exemplar", "ExemplarReference", "Nugget"]

from .webhooks import Webhook, WebhookDelivery  # noqa: E402

__all__ += ["Webhook", "WebhookDelivery"]
