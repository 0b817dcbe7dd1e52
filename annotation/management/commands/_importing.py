"""What the import commands share: arguments derived from the import registry
(``annotation.importers.registry``), one call of the one import function, its report or
problems printed."""

from argparse import RawDescriptionHelpFormatter

from django.core.management.base import BaseCommand, CommandError, DjangoHelpFormatter

from annotation import progress
from annotation.importers import ImportFailed, run
from annotation.importers.registry import KINDS, Option, described, format_names, options_of
from annotation.study_lookup import study_by_name_or_id


def add_common(parser, kind: str = "reports") -> None:
    parser.add_argument("file", help="the file to import (DeepScholar: the system folder)")
    parser.add_argument(
        "--study",
        required=True,
        help="study name or id (a study of that name is created when missing)"
        if KINDS[kind].creates_study
        else "an existing study (with its reports): name or id",
    )
    parser.add_argument("--dry-run", action="store_true", help="validate and count, write nothing")


def add_option(parser, option: Option) -> None:
    """One registry option as a command-line argument."""
    if option.type is bool:
        parser.add_argument(option.flag, action="store_true", default=None, help=option.help)
        return
    parser.add_argument(
        option.flag,
        dest=option.name,
        required=option.required,
        choices=list(option.choices) or None,
        help=option.help,
    )


def add_kind_arguments(parser, kind: str) -> None:
    """``file``, ``--study``, ``--dry-run``, ``--format`` and every option of ``kind``."""
    add_common(parser, kind)
    spec = KINDS[kind]
    names = format_names(kind)
    parser.add_argument(
        "--format",
        required=spec.default is None,
        choices=names,
        default=spec.default,
        help=" | ".join(names),
    )
    for option in options_of(kind).values():
        add_option(parser, option)


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


class _HelpFormatter(DjangoHelpFormatter, RawDescriptionHelpFormatter):
    """Django's argument order, and the formats' shapes printed as written (line breaks)."""


class ImportCommand(BaseCommand):
    """An import command of one registered kind (its arguments come from the registry)."""

    kind = "reports"

    def create_parser(self, prog_name, subcommand, **kwargs):
        """``--help`` ends with every format of the kind: its shape and example file, from
        the registry (the same text the import pages show)."""
        kwargs.setdefault("formatter_class", _HelpFormatter)
        kwargs.setdefault("epilog", "formats:\n\n" + described(self.kind))
        return super().create_parser(prog_name, subcommand, **kwargs)

    def add_arguments(self, parser):
        add_kind_arguments(parser, self.kind)

    @progress.command
    def handle(self, *args, **options):
        given = {name: options.get(name) for name in options_of(self.kind)}
        given = {k: v for k, v in given.items() if v is not None}
        run_import(self, self.kind, options, format=options["format"], **given)
