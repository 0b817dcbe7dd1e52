from django.core.management.base import BaseCommand

from annotation import progress
from annotation.importers import QUESTION_FORMATS

from ._importing import add_common, run_import


class Command(BaseCommand):
    help = (
        "Import questions and rubrics: ResearchQA items, ResearcherBench questions.json "
        "(with --rubric rubric.json), or generic JSON lines (see annotation/importers/questions.py)."
    )

    def add_arguments(self, parser):
        add_common(parser)
        parser.add_argument("--format", required=True, choices=QUESTION_FORMATS)
        parser.add_argument("--rubric", help="ResearcherBench rubric.json")

    @progress.command
    def handle(self, *args, **options):
        extra = {"format": options["format"]}
        if options["rubric"]:
            extra["rubric"] = options["rubric"]
        run_import(self, "questions", options, **extra)
