from django.core.management.base import BaseCommand, CommandError

from studio.studyadmin import StudyAdminError
from studio.studyadmin.invitations import invite, parse_fields


class Command(BaseCommand):
    help = (
        "Create annotator accounts under generated pseudonyms and print their set-password "
        "links (tab-separated: user name = pseudonym, case-sensitive; fields; link). Send each "
        "annotator their user name with the link: the set-password page shows it too."
    )

    def add_arguments(self, parser):
        parser.add_argument("--count", type=int, default=1)
        parser.add_argument("--fields", default="", help="expertise fields, comma-separated")
        parser.add_argument("--degree", default="")
        parser.add_argument("--base-url", default="", help="e.g. https://concord.example.org")

    def handle(self, *args, **o):
        if o["count"] < 1:
            raise CommandError("count: invite at least one annotator")
        fields = parse_fields(o["fields"])
        try:
            made = invite([fields] * o["count"], degree=o["degree"], base_url=o["base_url"])
        except StudyAdminError as exc:
            raise CommandError(str(exc)) from exc
        for i in made:
            self.stdout.write(f"{i.pseudonym}\t{', '.join(i.fields)}\t{i.link}")
