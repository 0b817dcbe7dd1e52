"""`manage.py plan_budget`: how many more judgments (and expert hours) until a figure's CI
half-width reaches a target, from the study's judgments as a pilot (issue 17 part 3; the
model: ``metaeval.stats.planner``, docs/ANALYSES.md "Budget planner")."""

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.study_lookup import find_study
from metaeval.analyses.budget import analyse_budget
from metaeval.options import SETTINGS
from metaeval.stats import planner


def _text(out: dict) -> list[str]:
    p = out["pilot"]
    lines = [
        f"{out['figure']}: {p['estimate']} ± {p['half_width']} (95 % percentile bootstrap, "
        f"{p['n_questions']} questions, {p['n_units']} assignments, "
        f"{p['n_comparisons']} comparisons); target ± {out['target_half_width']}"
    ]
    if out["reached"]:
        lines.append("The pilot already reaches the target.")
    for name, r in out["routes"].items():
        if r["units"] is None:
            lines.append(f"  {name}: not predicted — {r['note']}")
            continue
        hours = "unknown hours" if r["hours"] is None else f"{r['hours']:.1f} expert hours"
        what = (f"{r['new_questions']} new questions" if name == "new_questions"
                else f"{r['extra_per_question']} more annotators on each question")  # fmt: skip
        lines.append(f"  {name}: {what}: {r['units']} assignments, {r['comparisons']} "
                     f"comparisons, {hours} → ± {r['half_width']:.4f}")  # fmt: skip
    if "power" in out:
        w = out["power"]
        lines.append(f"  power to detect a difference of {w['difference']}: {w['power']} "
                     f"(80 % with {w['questions_for_80']} questions)")  # fmt: skip
    lines += out["notes"]
    return lines


class Command(BaseCommand):
    help = "Plan the annotation budget: more questions or annotators until a CI is narrow."

    def add_arguments(self, parser):
        parser.add_argument("--study", required=True, help="study name or id")
        parser.add_argument("--figure", choices=planner.FIGURES, default="agreement")
        parser.add_argument("--target-half-width", type=float, required=True, metavar="H")
        parser.add_argument("--judge", help="default: the study's judge with most scores")
        parser.add_argument("--judge-b", help="the second judge of judge_difference")
        parser.add_argument("--setting", choices=SETTINGS)
        parser.add_argument("--overlap", type=int, help="annotators per new question")
        parser.add_argument("--max-overlap", type=int, help="most annotators per question")
        parser.add_argument("--detect", type=float, help="difference whose power is asked")
        parser.add_argument("--rounds", type=int, default=1000, help="bootstrap rounds")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **o):
        study = find_study(o["study"])
        if o["figure"] == "judge_difference" and not o["judge_b"]:
            raise CommandError("judge_difference needs --judge-b (and --judge)")
        if not o["target_half_width"] > 0:
            raise CommandError("--target-half-width must be positive")
        try:
            out = analyse_budget(
                study.pk, o["figure"], o["target_half_width"], judge=o["judge"],
                judge_b=o["judge_b"], settings=(o["setting"],) if o["setting"] else None,
                overlap=o["overlap"], max_overlap=o["max_overlap"], detect=o["detect"],
                rounds=o["rounds"], seed=o["seed"],
            )  # fmt: skip
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if o["json"]:
            self.stdout.write(json.dumps(out, indent=2))
        else:
            self.stdout.write("\n".join(_text(out)))
