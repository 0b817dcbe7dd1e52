"""What the import commands share: run the one import function, print its report or problems."""

from django.core.management.base import CommandError

from annotation.importers import ImportFailed, run
from annotation.study_lookup import study_by_name_or_id


def add_common(parser) -> None:
    parser.add_argument("file", help="the file to import (DeepScholar: the system folder)")
    parser.add_argument(
        "--study",
        required=True,
        help="study name or id (a study of that name is created when missing)",
    )
    parser.add_argument("--dry-run", action="store_true", help="validate and count, write nothing")


def run_import(command, kind: str, options: dict, **extra) -> None:
    try:
        report = run(
            kind,
            options["file"],
            study=study_by_name_or_id(options["study"]) or options["study"],
            dry_run=options["dry_run"],
            **extra,
        )
    except ImportFailed as exc:
        raise CommandError(
            f"{len(exc.problems)} problem(s); nothing was written:\n"
            + "\n".join(str(p) for p in exc.problems)
        ) from exc
    command.stdout.write(report.summary())
