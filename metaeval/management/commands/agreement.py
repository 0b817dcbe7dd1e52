"""`manage.py agreement`: the agreement report of a study, as JSON, CSV or XLSX."""

import json

from django.core.management.base import BaseCommand, CommandError

from annotation import progress
from annotation.study_lookup import find_study
from metaeval import exports
from metaeval.reports import (
    CALIBRATIONS,
    COMPAT_MODES,
    TIE_STRATEGIES,
    ReportOptions,
    agreement_report,
    parse_threshold,
)


def _names(value: str | None) -> tuple[str, ...]:
    return tuple(s.strip() for s in (value or "").split(",") if s.strip())


SETTINGS = ["assigned", "near_expert", "deep_expert"]


def add_selection_arguments(parser, *, uncertainty: bool = True) -> None:
    """The options that select and define a report's figures (shared by every report
    command, so ``agreement`` and ``judge_alignment`` read them the same way)."""
    parser.add_argument("--study", required=True, help="study name or id")
    parser.add_argument("--setting", choices=SETTINGS)
    parser.add_argument("--systems", help="comma-separated: keep pairs of these systems")
    parser.add_argument("--exclude-systems", help="comma-separated: drop pairs with these")
    parser.add_argument("--judge")
    parser.add_argument("--ties", choices=TIE_STRATEGIES, default="threshold")
    parser.add_argument("--calibration", choices=list(CALIBRATIONS), default="match-rate")
    parser.add_argument("--compat", choices=COMPAT_MODES)
    parser.add_argument(
        "--threshold",
        metavar="T",
        help="a fixed judge tie threshold for every metric instead of calibrating "
        "(0: compare exactly; with --compat, the script's --dont_use_thresholds)",
    )
    if uncertainty:
        parser.add_argument("--expert-agreed", action="store_true")
        parser.add_argument("--calibrate-on", choices=SETTINGS)
        parser.add_argument("--bootstrap", type=int, default=0, metavar="N")
        parser.add_argument("--seed", type=int, default=0)


def options_from(opts: dict) -> ReportOptions:
    """ReportOptions from parsed command options; a bad value raises ValueError."""
    return ReportOptions(
        settings=(opts["setting"],) if opts["setting"] else (),
        systems=_names(opts["systems"]),
        exclude_systems=_names(opts["exclude_systems"]),
        expert_agreed=opts.get("expert_agreed", False),
        judge=opts["judge"],
        ties=opts["ties"],
        calibration=opts["calibration"],
        calibrate_on=opts.get("calibrate_on"),
        bootstrap=opts.get("bootstrap", 0),
        seed=opts.get("seed", 0),
        compat=opts["compat"],
        threshold=parse_threshold(opts.get("threshold")),
    )


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
            report = agreement_report(study.pk, options)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if opts["csv"]:
            exports.write_csv(report, opts["csv"])
        elif opts["xlsx"]:
            exports.write_xlsx(report, opts["xlsx"])
        elif opts["json"]:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            self.stdout.write(exports.as_text(report))
