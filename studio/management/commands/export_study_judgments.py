from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation import progress
from annotation.exporters import JUDGMENT_FORMATS, export_judgments
from annotation.study_lookup import find_study
from studio.studyadmin.exports import pairwise_bundle, pairwise_bundle_zip


class Command(BaseCommand):
    help = (
        "Export every judgment of a study (json, jsonl, csv, xlsx), or its ScholarQA-CS2 "
        "pairwise records as a zip of one file per annotator, setting and split (pairwise)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", required=True, help="study name or id")
        parser.add_argument("--format", default="json", choices=[*JUDGMENT_FORMATS, "pairwise"])
        parser.add_argument("--judge", help="pairwise: judge of the model_* scores")
        parser.add_argument("--out", help="file to write (default: standard output; "
                            "required for xlsx and pairwise)")  # fmt: skip

    @progress.command
    def handle(self, *args, **options):
        study = find_study(options["study"])
        fmt = options["format"]
        if fmt == "pairwise":
            files = pairwise_bundle(study, judge=options["judge"])
            if not files:  # as the page's pairwise.zip: no zip of only a manifest
                raise CommandError(f"nothing to export: study “{study.name}” has no pairwise "
                                   "records (no medal ranking, metric score or expert-agreed "
                                   "record)")  # fmt: skip
            data = pairwise_bundle_zip(study, files=files)
        else:
            data = export_judgments(study, fmt)
        if isinstance(data, bytes):
            if not options["out"]:
                raise CommandError(f"--out is required for {fmt}")
            Path(options["out"]).write_bytes(data)
        elif options["out"]:
            Path(options["out"]).write_text(data, encoding="utf-8")
        else:
            self.stdout.write(data, ending="")
