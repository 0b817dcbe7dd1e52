"""`manage.py plan_budget`: how many more judgments (and expert hours) until a figure's CI
half-width reaches a target, from the study's judgments as a pilot (issue 17 part 3; the
model: ``metaeval.stats.planner``, docs/ANALYSES.md "Budget planner")."""

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.study_lookup import find_study
from metaeval.loaders.planner import load_pilot
from metaeval.stats import planner

SETTINGS = ["assigned", "near_expert", "deep_expert"]


def budget_answer(study_id: int, o: dict) -> dict:
    """The JSON answer of the command (also what a page or the API would return)."""
    data = load_pilot(study_id, o["figure"], o.get("judge"), o.get("judge_b"),
                      (o["setting"],) if o.get("setting") else None)  # fmt: skip
    model = planner.fit(data.pilot, n_rounds=o["rounds"], seed=o["seed"])
    out = planner.plan(model, o["target_half_width"], o.get("overlap"), o.get("max_overlap"))
    out["judge"], out["judge_b"] = data.judge, data.judge_b
    notes = [n for n in (data.note, model.note) if n]
    if o["figure"] == "judge_difference":
        d, n = planner.difference_by_question(data.pilot)
        delta = o.get("detect")
        if delta is None:
            delta = abs(model.estimate) if model.estimate is not None else None
        power = planner.permutation_power(d, n, delta) if delta else None
        out["power"] = {
            "difference": delta,
            "alpha": 0.05,
            "method": "normal approximation of the paired permutation test",
            "power": power,
            "questions_for_80": planner.questions_for_power(d, n, delta) if delta else None,
            "note": None
            if power is not None
            else "Needs a nonzero difference and at least 2 questions with variance.",
        }
    out["notes"] = notes
    return out


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
            out = budget_answer(study.pk, o)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if o["json"]:
            self.stdout.write(json.dumps(out, indent=2))
        else:
            self.stdout.write("\n".join(_text(out)))
