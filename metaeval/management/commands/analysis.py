"""`manage.py analysis --study S --kind K [options] --json`: one analysis of issue 16 for a
study, exactly as its report section computes it (page, API and downloads give the same
result). The kinds are the registered report sections that add a key to the report
(:mod:`metaeval.sections`), so a new section module is a new kind here; the options are
``ReportOptions``' declaration (``--bootstrap N`` gives every figure its cluster-bootstrap
CI). The ``agreement`` command stays for the whole agreement report."""

import csv
import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.study_lookup import find_study
from metaeval import sections

from .agreement import add_selection_arguments, options_from


def kinds() -> dict:
    return {s.key: s for s in sections.registered() if s.payload and not s.in_report}


class Command(BaseCommand):
    help = "One analysis of a study (issue 16): kinds " + ", ".join(kinds())
    requires_system_checks = []

    def add_arguments(self, parser):
        add_selection_arguments(parser)
        parser.add_argument("--kind", required=True, choices=sorted(kinds()),
                            help="the analysis: " + ", ".join(sorted(kinds())))  # fmt: skip
        out = parser.add_mutually_exclusive_group()
        out.add_argument("--json", action="store_true", help="print the result as JSON")
        out.add_argument("--csv", metavar="DIR", help="write each table as DIR/<table>.csv")

    def handle(self, *args, **opts):
        study = find_study(opts["study"])
        section = kinds()[opts["kind"]]
        try:
            options = options_from(opts)
            analysis = sections.Analysis(study.pk, options)
            result = analysis.result(section)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            out = {"study": study.name, "kind": section.key, section.key: result}
            if result is None:  # null says why, as every undefined figure does
                out["note"] = (section.text(None) if section.text else
                               f"{section.key}: no data for this analysis in this selection")  # fmt: skip
            self.stdout.write(json.dumps(out, indent=2))
        elif opts["csv"]:
            self._write_csv(Path(opts["csv"]), section.tables(result, {}))
        elif section.text is not None:
            self.stdout.write(section.text(result))
        else:
            self.stdout.write(json.dumps(result, indent=2))

    def _write_csv(self, folder: Path, tables: dict) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for name, (rows, columns) in tables.items():
            with open(folder / f"{name}.csv", "w", newline="") as fh:
                writer = csv.DictWriter(fh, columns, extrasaction="ignore")
                writer.writeheader()
                writer.writerows(rows)
            self.stdout.write(f"wrote {folder / f'{name}.csv'}")
