from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation import progress
from annotation.exporters import FORMATS, TABLES, export_table
from annotation.study_lookup import find_study


class Command(BaseCommand):
    help = "Export one table's rows of a study as JSON, JSON lines or CSV."

    def add_arguments(self, parser):
        parser.add_argument("table", help=", ".join(TABLES))
        parser.add_argument("--study", required=True, help="study name or id")
        parser.add_argument("--format", choices=FORMATS, default="json")
        parser.add_argument("--out", help="file to write (default: standard output)")

    @progress.command
    def handle(self, *args, **options):
        study = find_study(options["study"])
        try:
            text = export_table(options["table"], study, options["format"])
        except KeyError as exc:
            raise CommandError(exc.args[0]) from exc
        if options["out"]:
            Path(options["out"]).write_text(text, encoding="utf-8")
        else:
            self.stdout.write(text, ending="")
