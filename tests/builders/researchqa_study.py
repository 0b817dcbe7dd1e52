"""A ResearchQA-style study with no medal ranking: two annotators' pairwise preferences
and rubric-coverage labels (0–4 and binary), and a judge's coverage labels and pairwise
verdicts imported from the judges' test files (issue 26: the report page of a study whose
judgments are not the ScholarQA-CS2 kinds)."""

from pathlib import Path

from annotation.models import Annotator, PairwisePreference, Report, RubricCoverage, RubricItem

from .judged import build_study

DATA = Path(__file__).resolve().parents[1] / "judges" / "data"


def researchqa_study(name: str = "rqa-page"):
    from judges.importers import import_judge_scores

    study = build_study(name)
    for system in ("alpha", "beta"):
        import_judge_scores(DATA / f"researchqa_coverage_{system}.json", study=name,
                            judge="gpt-4.1-mini", format="researchqa-coverage", system=system)  # fmt: skip
    import_judge_scores(DATA / "researchqa_pairwise.json", study=name, judge="gpt-4.1-mini",
                        format="researchqa-pairwise")  # fmt: skip
    anns = [Annotator.objects.create(pseudonym=f"{name}-expert{k}") for k in (1, 2, 3)]
    reports = {(r.question.external_id, r.system.name): r for r in
               Report.objects.filter(question__study=study).select_related("question", "system")}  # fmt: skip
    choices = ("left", "left", "right")  # two experts prefer alpha, one beta
    for q in ("q1", "q2"):
        left, right = reports[(q, "alpha")], reports[(q, "beta")]
        for ann, choice in zip(anns, choices, strict=True):
            PairwisePreference.objects.create(study=study, annotator=ann, question=left.question,
                                              left=left, right=right, choice=choice,
                                              reason="clearer")  # fmt: skip
        for position, labels in ((1, (3, 2, 3)), (2, (0, 1, 0))):
            item = RubricItem.objects.get(rubric__question=left.question, position=position)
            for ann, label in zip(anns, labels, strict=True):
                RubricCoverage.objects.create(study=study, question=left.question, annotator=ann,
                                              report=left, item=item, label=label)  # fmt: skip
    return study
