"""`manage.py judge_alignment`: every judge of a study against the experts (seed 003 Table 5,
Fig. 10; rubric-coverage alignment) — the dict of :func:`metaeval.alignment.judge_alignment`."""

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.study_lookup import find_study
from metaeval.alignment import judge_alignment
from metaeval.management.commands.agreement import (
    add_selection_arguments,
    options_from,
)


def _pct(x):
    return "   –  " if x is None else f"{100 * x:5.1f}%"


def _tau(x):
    return "  –  " if x is None else f"{x:5.2f}"


def as_text(result: dict) -> str:
    lines = []
    for row in result["judges"]:
        lines.append(f"{row['judge']}")
        lines.append(f"  {'metric':<20} {'all':>14} {'expert-agreed':>16}")
        for metric, fig in row["all"]["preference"].items():
            agreed = row["expert_agreed"]["preference"].get(metric, {})
            lines.append(
                f"  {metric:<20} {_pct(fig['agreement'])} {_tau(fig['tau_b'])}"
                f"   {_pct(agreed.get('agreement'))} {_tau(agreed.get('tau_b'))}"
            )
        lines.append(
            f"  {'system τ-b':<20} {_tau(row['all']['system_tau_b']):>14}"
            f" {_tau(row['expert_agreed']['system_tau_b']):>16}"
        )
    p = result["pearson"]
    if p["judges"]:
        lines.append(f"Pearson r of overall scores ({p['n']} reports scored by every judge)")
        for name, row in zip(p["judges"], p["matrix"], strict=True):
            lines.append(f"  {name:<24} " + " ".join(_tau(x) for x in row))
    for c in result["coverage"]:
        lines.append(
            f"coverage {c['judge']}: r {_tau(c['pearson'])}, mean diff "
            f"{c['mean_difference']:+.2f}, Completely {_pct(c['human_complete'])} human / "
            f"{_pct(c['judge_complete'])} judge (n={c['n']})"
        )
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Per-judge alignment with the experts (agreement, τ-b, system τ-b; Pearson; coverage)."

    def add_arguments(self, parser):
        add_selection_arguments(parser, uncertainty=False)
        parser.add_argument("--json", action="store_true", help="print the dict as JSON")

    def handle(self, *args, **opts):
        study = find_study(opts["study"])
        try:
            options = options_from(opts)
            result = judge_alignment(study.pk, options)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps(result, indent=2) if opts["json"] else as_text(result))
