import json
from pathlib import Path

from django.core.management.base import BaseCommand

from annotation import progress
from annotation.importers.common import RELEASED_SPLITS
from annotation.models import Setting
from annotation.study_lookup import find_study
from judges.formats.scholarqa_pairwise import export_pairwise


class Command(BaseCommand):
    help = "Export one annotator's pairwise records in the ScholarQA-CS2 format (a JSON list)."

    def add_arguments(self, parser):
        parser.add_argument("--study", required=True, help="study name or id")
        parser.add_argument("--setting", required=True, choices=Setting.values)
        parser.add_argument("--annotator", required=True)
        parser.add_argument("--judge", help="default: the judge with the most scores in the study")
        parser.add_argument("--split", choices=RELEASED_SPLITS)
        parser.add_argument("--out", help="file to write (default: standard output)")

    @progress.command
    def handle(self, *args, **options):
        study = find_study(options["study"])
        records = export_pairwise(
            study,
            setting=options["setting"],
            annotator=options["annotator"],
            judge=options["judge"],
            split=options["split"],
        )
        text = json.dumps(records, ensure_ascii=False, indent=2) + "\n"
        if options["out"]:
            Path(options["out"]).write_text(text, encoding="utf-8")
        else:
            self.stdout.write(text, ending="")
