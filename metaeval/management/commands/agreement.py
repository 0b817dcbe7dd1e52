"""`manage.py agreement`: the agreement report of a study, as JSON, CSV or XLSX.

The options' arguments are derived from ``ReportOptions``' declaration
(:mod:`metaeval.options`); the output holds every registered report section that adds a
key to the report (:mod:`metaeval.sections`).
"""

import json

from django.core.management.base import BaseCommand, CommandError

from annotation import progress
from annotation.study_lookup import find_study
from metaeval import exports, sections
from metaeval import options as report_options
from metaeval.reports import ReportOptions


def add_selection_arguments(parser, *, uncertainty: bool = True) -> None:
    """``--study`` and the options that select and define a report's figures (shared by
    every report command, so ``agreement`` and ``judge_alignment`` read them the same
    way); ``uncertainty=False``: without the interval and subset options."""
    parser.add_argument("--study", required=True, help="study name or id")
    report_options.add_arguments(parser, interval=uncertainty)


def options_from(opts: dict) -> ReportOptions:
    """ReportOptions from parsed command options; a bad value raises ValueError."""
    return report_options.from_command(opts)


class Command(BaseCommand):
    help = "Agreement of judges with experts for a study (METHODS §5; §6 with --compat)."
    # Why no system checks: they import every URLconf view (plots, matplotlib, the API
    # schema), ~1.5 s of a report that reads the database and prints; nothing they check
    # changes a figure. `manage.py check` (CI, deploys) still runs them all.
    requires_system_checks = []

    def add_arguments(self, parser):
        add_selection_arguments(parser)
        out = parser.add_mutually_exclusive_group()
        out.add_argument("--json", action="store_true", help="print the report as JSON")
        out.add_argument("--csv", metavar="FILE", help="write the tables as CSV")
        out.add_argument("--xlsx", metavar="FILE", help="write the tables as XLSX")

    @progress.command
    def handle(self, *args, **opts):
        study = find_study(opts["study"])
        try:
            options = options_from(opts)
            report = sections.report(study.pk, options)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if opts["csv"]:
            exports.write_csv(report, opts["csv"])
        elif opts["xlsx"]:
            exports.write_xlsx(report, opts["xlsx"], sections.extra_tables(report))
        elif opts["json"]:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            self.stdout.write(sections.as_text(report))
