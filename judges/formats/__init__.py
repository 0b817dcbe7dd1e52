"""The outside formats whose files carry judge verdicts (issue 14: layers run one way).

* :mod:`.scholarqa_pairwise`: ScholarQA-CS2 pairwise records (human judgments with one
  judge's scores), read and written; kind ``pairwise``.
* :mod:`.judge_scores`: judge outputs produced elsewhere (ResearchQA coverage and pairwise,
  ResearcherBench results, a generic CSV), read and written; kind ``judge_scores``.
* :mod:`.deepscholar_labels`: DeepScholar-Bench judge labels per unit (the LLM side of the
  human agreement study, seed 002 §8.11), read and written; kind ``judge_scores``.
* :mod:`.nuggetizer`: the DeepScholar-Bench nuggetizer's ``res.json`` as released (nuggets
  and the nuggetizer's labels); kind ``deepscholar``.
* :mod:`.judge_relevance`: a judge's relevance verdict per report paragraph (what relevance
  adjudication resolves), read and written; kind ``judge_scores``, format ``relevance``.
* :mod:`.judge_claims`: a judge's verdict per report claim (what the controlled claim check
  compares an expert's check with), read and written; kind ``judge_scores``, format
  ``claim-verdicts``.

Importing this package registers them in the one import registry
(:mod:`annotation.importers.registry`); ``judges.apps.JudgesConfig.ready`` does so.
"""

from annotation.importers.downloads import STUDY_VALUES

from . import (  # noqa: F401
    deepscholar_labels,
    judge_claims,
    judge_relevance,
    judge_scores,
    nuggetizer,
    scholarqa_pairwise,
)


def _judges(study) -> list[str]:
    """Judges with any verdict on the study's reports or questions: the values a writer's
    ``judge`` option may name (``annotation.importers.downloads.STUDY_VALUES``)."""
    from django.db.models import Exists, OuterRef, Q

    from judges import models as j

    on_report = Q(report__question__study=study)
    tables = [
        j.JudgeScore.objects.filter(on_report),
        j.JudgeCoverage.objects.filter(on_report),
        j.JudgeClaimVerdict.objects.filter(on_report),
        j.JudgePairwise.objects.filter(left__question__study=study),
        j.JudgeRelevance.objects.filter(paragraph__report__question__study=study),
        j.JudgeDeepScholarLabel.objects.filter(question__study=study),
    ]
    has_any = Q()
    for rows in tables:
        has_any |= Q(Exists(rows.filter(judge=OuterRef("pk"))))
    return list(j.Judge.objects.filter(has_any).order_by("name").values_list("name", flat=True))


STUDY_VALUES.setdefault("judge", _judges)
