from django.core.management.base import BaseCommand

from annotation.study_lookup import find_study
from studio.studyadmin.progress import progress_csv, study_progress


class Command(BaseCommand):
    help = "Progress of a study per annotator, as CSV (the same as the page's download)."

    def add_arguments(self, parser):
        parser.add_argument("--study", required=True, help="study name or id")

    def handle(self, *args, **o):
        study = find_study(o["study"])
        self.stdout.write(progress_csv(study_progress(study)), ending="")
