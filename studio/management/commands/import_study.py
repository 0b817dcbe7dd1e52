"""`manage.py import_study FILE [--as NAME]`: restore a study from its backup."""

from django.core.management.base import BaseCommand, CommandError

from annotation import progress
from annotation.importers import ImportFailed
from studio.backup import import_study


class Command(BaseCommand):
    help = (
        "Restore a study written by export_study, as a new study. The whole file is checked "
        "first; on any problem nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="a backup written by export_study")
        parser.add_argument(
            "--as", dest="new_name", metavar="NAME",
            help="the new study's name (required when the backup's study name is taken)",
        )  # fmt: skip
        parser.add_argument("--dry-run", action="store_true", help="check and count only")
        parser.add_argument(
            "--grant-roles", action="store_true",
            help="give the users it creates the roles the backup lists (admin, researcher, "
            "annotator); without it they are listed, not granted. is_staff and is_superuser "
            "are never carried over.",
        )  # fmt: skip

    @progress.command
    def handle(self, *args, **opts):
        try:
            summary = import_study(
                opts["file"], new_name=opts["new_name"], dry_run=opts["dry_run"],
                grant_roles=opts["grant_roles"],
            )  # fmt: skip
        except ImportFailed as exc:
            raise CommandError(
                f"{len(exc.problems)} problem(s); nothing was written:\n"
                + "\n".join(str(p) for p in exc.problems)
            ) from exc
        self.stdout.write(summary.text())
