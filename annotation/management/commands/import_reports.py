from django.core.management.base import BaseCommand

from annotation import progress
from annotation.importers import REPORT_FORMATS

from ._importing import add_common, run_import


class Command(BaseCommand):
    help = "Import one system's reports (ScholarQA-CS2, ResearchQA, ResearcherBench, DeepScholar)."

    def add_arguments(self, parser):
        add_common(parser)
        parser.add_argument(
            "--system", help="system name (DeepScholar: defaults to the folder name)"
        )
        parser.add_argument("--format", required=True, choices=REPORT_FORMATS)

    @progress.command
    def handle(self, *args, **options):
        run_import(self, "reports", options, format=options["format"], system=options["system"])
