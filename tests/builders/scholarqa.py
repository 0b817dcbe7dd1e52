"""The released ScholarQA-CS2 annotation files (seed 003) and how the reproduction imports
them: ann1/ann2 as the ``assigned`` annotators, pairwise_chosen.json as ``near_expert``,
pairwise_authored.json as ``deep_expert``; one judge, Gemini 2.5 Flash."""

import io

from django.core.management import call_command

FILES = [
    ("pairwise_dev_assigned_ann1.json", "ann1", "assigned"),
    ("pairwise_dev_assigned_ann2.json", "ann2", "assigned"),
    ("pairwise_test_assigned_ann1.json", "ann1", "assigned"),
    ("pairwise_test_assigned_ann2.json", "ann2", "assigned"),
    ("pairwise_chosen.json", "near-expert-pool", "near_expert"),
    ("pairwise_authored.json", "deep-expert-pool", "deep_expert"),
]
JUDGE = "gemini-2.5-flash"
ANNOTATORS = {annotator for _, annotator, _ in FILES}


def import_release(scholarqa_dir, study: str) -> None:
    """``import_pairwise`` of every released file into ``study`` (created if missing)."""
    for name, annotator, setting in FILES:
        call_command(
            "import_pairwise", str(scholarqa_dir / "annotation" / name), study=study,
            annotator=annotator, setting=setting, judge=JUDGE, stdout=io.StringIO(),
        )  # fmt: skip


AGREEMENT_ONLY = ["pairwise_dev_assigned_agreement_only.json",
                  "pairwise_test_assigned_agreement_only.json"]  # fmt: skip


def import_expert_agreed(scholarqa_dir, study: str) -> None:
    """The released agreement-only files as the study's expert-agreed records (issue 13)."""
    for name in AGREEMENT_ONLY:
        call_command(
            "import_pairwise", str(scholarqa_dir / "annotation" / name), study=study,
            setting="assigned", judge=JUDGE, expert_agreed=True, stdout=io.StringIO(),
        )  # fmt: skip
