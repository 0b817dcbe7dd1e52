"""``--study NAME_OR_ID``: how every management command finds its study.

Why one helper: commands took a name only, or a name or an id, each in its own way
(issue 13); researchers copy either from the pages (the name in the title, the id in the
report's URL). A name wins over an id: a study may be called "42".
"""

from __future__ import annotations

from django.core.management.base import CommandError

from annotation.models import Study
from concord.query import is_digits


def study_by_name_or_id(value) -> Study | None:
    """The study called ``value``, else the one whose id ``value`` is, else None."""
    text = str(value).strip()
    study = Study.objects.filter(name=text).first()
    if study is None and is_digits(text):
        study = Study.objects.filter(pk=int(text)).first()
    return study


def find_study(value, option: str = "--study") -> Study:
    """:func:`study_by_name_or_id`, or a :class:`CommandError` naming the option."""
    study = study_by_name_or_id(value)
    if study is None:
        raise CommandError(f"{option}: no study named {str(value)!r} and no study with that id")
    return study
