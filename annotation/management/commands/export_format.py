"""`manage.py export_format KIND FORMAT --study S [options] [--out DIR]`: a study's data in
an outside format, as files that the same format's import reads back (issue 18).

The kinds, formats and options come from the import registry
(``annotation.importers.registry``): every format registered with a writer is listed by
``--help`` and accepted here."""

from dataclasses import replace
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation import progress
from annotation.importers import format_of
from annotation.importers.base import ImportFailed
from annotation.importers.downloads import ExportRefused, named_in_study, writer_options
from annotation.importers.registry import KINDS, no_writer, writable
from annotation.study_lookup import find_study

from ._importing import add_option


def dump_options() -> dict:
    out = {}
    for fmt in writable():
        for option in fmt.dump_options:
            out.setdefault(option.name, option)
    return out


class Command(BaseCommand):
    help = "Export a study's data in an outside format (the files its import reads back)."

    def add_arguments(self, parser):
        listed = "; ".join(
            f"{kind}: {' | '.join(f.name for f in writable() if f.kind == kind)}" for kind in KINDS
        )
        parser.add_argument("kind", choices=list(KINDS), help=listed)
        parser.add_argument("format", help="a format of the kind (see kind)")
        parser.add_argument("--study", required=True, help="study name or id")
        parser.add_argument("--out", help="folder to write the files into (default: standard "
                            "output, when the format writes one file)")  # fmt: skip
        for option in dump_options().values():
            add_option(parser, replace(option, required=False))

    @progress.command
    def handle(self, *args, **options):
        try:
            fmt = format_of(options["kind"], options["format"])
        except ImportFailed as exc:
            raise CommandError(str(exc.problems[0].message)) from exc
        if fmt.dump is None:
            raise CommandError(no_writer(fmt))
        try:  # the one option check of every export (the API's and the page's too)
            given = writer_options(fmt, {o.name: options.get(o.name) for o in fmt.dump_options})
        except ExportRefused as refused:
            flags = {o.name: o.flag for o in fmt.dump_options}
            named = "; ".join(f"{flags.get(f, f)}: {m}" for f, m in refused.problems)
            raise CommandError(f"{fmt.kind} {fmt.name}: {named}") from None
        study = find_study(options["study"])
        try:  # a value naming nothing of the study; a combination the writer refuses
            named_in_study(study, fmt, given)
            files = fmt.dump(study, **given)
        except ExportRefused as refused:
            flags = {o.name: o.flag for o in fmt.dump_options}
            named = "; ".join(f"{flags.get(f, f)}: {m}" for f, m in refused.problems)
            raise CommandError(f"{fmt.kind} {fmt.name}: {named}") from None
        if options["out"]:
            out = Path(options["out"])
            for name, text in files.items():
                path = out / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
                self.stderr.write(f"wrote {path}")
        elif len(files) == 1:
            self.stdout.write(next(iter(files.values())), ending="")
        else:
            raise CommandError(f"{fmt.kind} {fmt.name} writes {len(files)} files: give --out")
