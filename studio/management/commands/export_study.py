"""`manage.py export_study --study S --out FILE`: a full backup of one study."""

from django.core.management.base import BaseCommand, CommandError

from annotation import progress
from annotation.study_lookup import find_study
from studio.backup import ExportError, export_study


class Command(BaseCommand):
    help = "Write everything of a study (content, people, judgments, judges, runs) to one file."

    def add_arguments(self, parser):
        parser.add_argument("--study", required=True, help="study name or id")
        parser.add_argument("--out", required=True, metavar="FILE", help="the backup to write")

    @progress.command
    def handle(self, *args, **opts):
        study = find_study(opts["study"])
        try:
            summary = export_study(study, opts["out"])
        except (ExportError, OSError) as exc:
            raise CommandError(f"nothing was written: {exc}") from exc
        self.stdout.write(summary.text())
