"""``{% import_formats as kinds %}``: every import kind with its formats, each with its
shape and example files, from the registry (the import pages show them; ``--help`` prints
the same declarations)."""

from django import template

from annotation.importers.registry import KINDS, formats

register = template.Library()


@register.simple_tag
def import_formats() -> list[dict]:
    return [
        {
            "kind": kind,
            "help": spec.help,
            "formats": [
                {"format": f, "files": f.example.files(f) if f.example else []}
                for f in formats(kind)
            ],
        }
        for kind, spec in KINDS.items()
    ]
