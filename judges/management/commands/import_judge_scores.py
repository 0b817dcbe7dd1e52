from django.core.management.base import BaseCommand, CommandError

from annotation import progress
from annotation.importers import ImportFailed
from annotation.study_lookup import study_by_name_or_id
from judges.importers import FORMATS, import_judge_scores


class Command(BaseCommand):
    help = (
        "Import judge outputs: ResearchQA coverage or pairwise files, ResearcherBench rubric "
        "results, or a generic CSV (question,system,metric,value[,rationale]). ScholarQA-CS2 "
        "judge scores come with import_pairwise."
    )

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument(
            "--study", required=True, help="an existing study (with its reports): name or id"
        )
        parser.add_argument("--judge", required=True, help="judge name (created when missing)")
        parser.add_argument("--format", required=True, choices=FORMATS)
        parser.add_argument("--system", help="system of a researchqa-coverage file; "
                            "overrides 'model' of ResearcherBench records")  # fmt: skip
        parser.add_argument("--rubric-kind", help="match items of this rubric kind only")
        parser.add_argument("--dry-run", action="store_true", help="validate and count only")

    @progress.command
    def handle(self, *args, **options):
        try:
            report = import_judge_scores(
                options["file"],
                study=study_by_name_or_id(options["study"]) or options["study"],
                judge=options["judge"],
                format=options["format"],
                system=options["system"],
                rubric_kind=options["rubric_kind"],
                dry_run=options["dry_run"],
            )
        except ImportFailed as exc:
            raise CommandError(
                f"{len(exc.problems)} problem(s); nothing was written:\n"
                + "\n".join(str(p) for p in exc.problems)
            ) from exc
        self.stdout.write(report.summary())
