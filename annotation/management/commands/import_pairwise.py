from django.core.management.base import BaseCommand

from annotation import progress
from annotation.models import Setting

from ._importing import add_common, run_import


class Command(BaseCommand):
    help = (
        "Import ScholarQA-CS2 pairwise records: medal rankings, human metric scores, judge "
        "scores. Files named *agreement_only* are read as consensus pairwise preferences."
    )

    def add_arguments(self, parser):
        add_common(parser)
        parser.add_argument(
            "--annotator",
            help="annotator pseudonym (created when missing); required unless --expert-agreed",
        )
        parser.add_argument(
            "--setting",
            choices=Setting.values,
            help="default: from the file name (assigned / chosen = near_expert / authored = deep_expert)",
        )
        parser.add_argument(
            "--judge", required=True, help="judge of the model_* scores (created when missing)"
        )
        parser.add_argument(
            "--split",
            choices=["dev", "test"],
            help="default: from pairwise_dev_* / pairwise_test_*",
        )
        parser.add_argument(
            "--consensus",
            action="store_true",
            default=None,
            help="read as an agreement-only file (default: when the name says agreement_only)",
        )
        parser.add_argument(
            "--expert-agreed",
            action="store_true",
            help=(
                "import an agreement-only file as the study's released expert-agreed records "
                "with their own judge scores (no --annotator; what --compat reads for "
                "--expert-agreed)"
            ),
        )

    @progress.command
    def handle(self, *args, **options):
        run_import(
            self,
            "pairwise",
            options,
            annotator=options["annotator"],
            setting=options["setting"],
            judge=options["judge"],
            split=options["split"],
            consensus=options["consensus"],
            expert_agreed=options["expert_agreed"],
        )
