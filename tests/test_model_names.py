"""Model names as people read them: an API refusal names what depends on a record by its
model's plural ("Not deleted: expert work depends on it (rubric item quality labels)"),
and Django's default plural (the name + "s") read "rubric item qualitys", "guideliness"."""

import re

from django.apps import apps

#: Endings Django's name + "s" gets wrong in English: a consonant then "ys", or a
#: sibilant ("s", "x", "ch", "sh") then "s".
WRONG = re.compile(r"(?:[^aeiou]ys|(?:s|x|ch|sh)s)$")


def test_every_model_has_an_english_plural():
    wrong = [
        (m._meta.label, str(m._meta.verbose_name_plural))
        for m in apps.get_models()
        if WRONG.search(str(m._meta.verbose_name_plural))
    ]
    assert not wrong
