"""``{% import_formats as kinds %}``: every import kind with its formats, each with its
shape and example files, from the registry (the import pages show them in the form's words,
:func:`~annotation.importers.registry.browser_text`; ``--help`` prints the same
declarations)."""

from django import template

from annotation.importers.registry import KINDS, browser_text, formats

register = template.Library()


@register.simple_tag
def import_formats() -> list[dict]:
    return [
        {
            "kind": kind,
            "help": browser_text(spec.help),
            "formats": [
                {
                    "format": f,
                    "files": f.example.files(f) if f.example else [],
                    # in the form's words: its fields, never a command's flags
                    "shape": browser_text(f.shape),
                    "usage": f.example.form_usage() if f.example else "",
                }
                for f in formats(kind)
            ],
        }
        for kind, spec in KINDS.items()
    ]
