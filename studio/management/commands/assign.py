from collections import Counter

from django.core.management.base import BaseCommand, CommandError

from annotation.assignment import STRATEGIES
from annotation.models import Annotator
from annotation.study_lookup import find_study
from studio.studyadmin import StudyAdminError
from studio.studyadmin.planning import PlanSpec, commit, preview


class Command(BaseCommand):
    help = "Plan assignments for a study with one strategy; print the counts; --commit writes them."

    def add_arguments(self, parser):
        parser.add_argument("--study", required=True, help="study name or id")
        parser.add_argument("--task", required=True)
        parser.add_argument("--strategy", default="random", choices=STRATEGIES)
        parser.add_argument("--overlap", type=int, default=1)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--per-expert", type=int, default=5)
        parser.add_argument("--systems-per-question", type=int)
        parser.add_argument("--capacity", type=int)
        parser.add_argument("--split", default="")
        parser.add_argument("--annotator", action="append", default=[], help="pseudonym (repeat)")
        parser.add_argument("--commit", action="store_true", help="write the plan")

    def handle(self, *args, **o):
        study = find_study(o["study"])
        ids = []
        for name in o["annotator"]:
            try:
                ids.append(Annotator.objects.get(pseudonym=name).pk)
            except Annotator.DoesNotExist as exc:
                raise CommandError(f"annotator: no annotator named {name!r}") from exc
        config = study.config
        spec = PlanSpec(
            task=o["task"],
            strategy=o["strategy"],
            overlap=o["overlap"],
            seed=o["seed"],
            per_expert=o["per_expert"],
            systems_per_question=o["systems_per_question"] or config.get("systems_per_question"),
            systems=tuple(config.get("compared_systems") or ()),
            annotators=tuple(ids),
            capacity=o["capacity"],
            split=o["split"],
        )
        try:
            result = commit(study, spec) if o["commit"] else preview(study, spec)
        except StudyAdminError as exc:
            raise CommandError(str(exc)) from exc
        s = result.summary
        verb = "created" if o["commit"] else "would create"
        self.stdout.write(f"{verb} {s.assignments} assignments ({spec.task}, {result.setting})")
        if result.withdrawn:
            withdraw = "withdrew" if o["commit"] else "would withdraw"
            for why, n in result.withdrawn_why:
                self.stdout.write(
                    f"{withdraw} {n} unstarted assignments {why.removesuffix(' withdrawn')}"
                )
        self.stdout.write(
            "overlap achieved: " + ", ".join(f"{k}: {n}" for k, n in s.overlap.items())
        )
        if result.left_out:  # questions whose task page could not be completed, and why
            self.stdout.write(f"questions left out: {len(result.left_out)}")
            for why, n in Counter(u.reason for u in result.left_out).most_common():
                self.stdout.write(f"  {n}: {why}")
        if s.wanted:  # 0: the plan asked nothing (a budget plan of 0 new assignments)
            self.stdout.write(f"questions short of {s.wanted}: {len(s.short)}")
        for name, n in result.annotator_rows():
            self.stdout.write(f"  {name}: {n}")
        for (a, b), n in s.per_pair.items():
            self.stdout.write(f"  {a} vs {b}: {n}")
