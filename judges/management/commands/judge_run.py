"""`manage.py judge_run`: start, resume or cancel a live judge run (the API does the same)."""

import json

from django.core.management.base import BaseCommand, CommandError

from annotation import progress
from annotation.study_lookup import find_study
from judges import run_options, runs
from judges.models import Judge, JudgeRun


class Command(BaseCommand):
    help = (
        "Start a live judge run (tasks: " + ", ".join(JudgeRun.Task.values) + "), or resume / "
        "cancel one. Without a broker the run executes here, now."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", help="study name or id (to start a run)")
        parser.add_argument("--judge", help="judge name (to start a run)")
        parser.add_argument("--tasks", help="comma-separated task kinds")
        parser.add_argument(
            "--options",
            default="{}",
            help='JSON, e.g. {"systems": ["a"]}; options: ' + run_options.describe(),
        )
        parser.add_argument("--resume", type=int, metavar="RUN", help="resume this run")
        parser.add_argument("--force", action="store_true", help="resume even if it looks alive")
        parser.add_argument("--resume-stale", action="store_true", help="resume dead runs")
        parser.add_argument("--cancel", type=int, metavar="RUN")

    @progress.command
    def handle(self, *args, **o):
        try:
            if o["resume_stale"]:
                self.stdout.write(f"resumed runs: {runs.resume_stale_runs()}")
                return
            if o["resume"] or o["cancel"]:
                pk = o["resume"] or o["cancel"]
                run = JudgeRun.objects.filter(pk=pk).first()
                if run is None:
                    raise CommandError(f"no judge run {pk}")
                if o["cancel"]:
                    runs.cancel_run(run)
                else:
                    runs.resume_run(run, force=o["force"])
            else:
                if not (o["study"] and o["judge"] and o["tasks"]):
                    raise CommandError("--study, --judge and --tasks are required to start a run")
                judge = Judge.objects.filter(name=o["judge"]).first()
                if judge is None:
                    raise CommandError(f"--judge: no judge named {o['judge']!r}")
                try:
                    options = json.loads(o["options"])
                except ValueError as exc:
                    raise CommandError(f"--options: not JSON ({exc})") from None
                tasks = [t.strip() for t in o["tasks"].split(",") if t.strip()]
                run = runs.start_run(judge, find_study(o["study"]), tasks, options)
        except runs.RunOptionError as exc:
            raise CommandError(f"--options: {exc}") from exc
        except runs.RunError as exc:
            raise CommandError(str(exc)) from exc
        run.refresh_from_db()
        self.stdout.write(
            f"run {run.pk}: {run.status}, {run.done_units}/{run.total_units} units done, "
            f"{run.failed_units} failed, {run.requests} requests, cost {run.cost:.4f}"
        )
