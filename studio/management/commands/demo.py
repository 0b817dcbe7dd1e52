"""``python manage.py demo``: load Concord's demo content (idempotent; ``make run`` calls it)."""

from django.core.management.base import BaseCommand, CommandError

from annotation.importers import ImportFailed
from studio import demo


class Command(BaseCommand):
    help = (
        "Load the demo study: questions, reports of four systems, two simulated judges, and "
        "accounts admin, researcher, annotator1-3 (password = user name). Idempotent. "
        "Refuses to run unless DEBUG is on."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--reset",
            action="store_true",
            help="Delete the demo study (and all its judgments) first, then load it again.",
        )

    def handle(self, *args, reset=False, **options):
        try:
            summary = demo.load(reset=reset)
        except demo.DemoRefused as exc:
            raise CommandError(f"demo refused: {exc}") from exc
        except (demo.DemoContentError, ImportFailed) as exc:
            raise CommandError(f"demo content is broken, nothing was loaded:\n{exc}") from exc
        verbosity = options.get("verbosity", 1)
        if verbosity == 0:
            return
        if verbosity >= 2:
            for line in summary.imports:
                self.stdout.write(f"  {line}")
        if summary.created:
            created = ", ".join(f"{n} {t}" for t, n in sorted(summary.created.items()))
            self.stdout.write(
                self.style.SUCCESS(f"Demo study {summary.study.name!r}: created {created}.")
            )
        else:
            self.stdout.write(
                f"Demo study {summary.study.name!r} is already loaded; nothing changed."
            )
        self.stdout.write(
            "Log in as admin, researcher, annotator1, annotator2 or annotator3; "
            "the password is the user name."
        )
