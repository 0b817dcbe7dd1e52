from .assignment import Assignment, Setting
from .content import (
    Citation,
    CitationAnchor,
    Paragraph,
    Question,
    Report,
    Rubric,
    RubricItem,
    Section,
    Study,
    System,
)
from .judgments import HumanMetricScore, Medal, MedalRanking, PairwisePreference
from .people import Annotator, ExpertiseRating

__all__ = [
    "Annotator",
    "Assignment",
    "Citation",
    "CitationAnchor",
    "ExpertiseRating",
    "HumanMetricScore",
    "Medal",
    "MedalRanking",
    "PairwisePreference",
    "Paragraph",
    "Question",
    "Report",
    "Rubric",
    "RubricItem",
    "Section",
    "Setting",
    "Study",
    "System",
]
