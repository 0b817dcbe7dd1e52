from django.core.management.base import BaseCommand, CommandError

from annotation.models import Study
from annotation.studyadmin.progress import progress_csv, study_progress


class Command(BaseCommand):
    help = "Progress of a study per annotator, as CSV (the same as the page's download)."

    def add_arguments(self, parser):
        parser.add_argument("--study", required=True)

    def handle(self, *args, **o):
        try:
            study = Study.objects.get(name=o["study"])
        except Study.DoesNotExist as exc:
            raise CommandError(f"no study named {o['study']!r}") from exc
        self.stdout.write(progress_csv(study_progress(study)), ending="")
