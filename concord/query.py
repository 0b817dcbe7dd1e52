"""Query parameters read one way by every list and report of the API.

A parameter that takes one value and is given several (``?study=1&study=2``) is refused
with a 400 naming it: Django's ``QueryDict.get`` keeps only the last value, so the others
were dropped without a word (found by testers with a researcher's token). Lists of names
(``systems``) are not read here: they take several values, comma-separated or repeated.
A true/false parameter accepts the words of :data:`TRUE_WORDS` and :data:`FALSE_WORDS`
(any case); any other value (``maybe``) is a 400 naming the parameter and those words,
where it read as false before.
"""

from __future__ import annotations

from collections.abc import Mapping

from rest_framework.exceptions import ValidationError

TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


def one_value(params: Mapping, name: str):
    """The value of ``name`` (None when absent). Given several times (a ``QueryDict``),
    empty values are left out and the others must agree; different ones are a 400 naming
    the parameter. A plain mapping (a JSON body) holds one value per key: returned as is."""
    if not hasattr(params, "getlist"):
        return params.get(name)
    given = params.getlist(name)
    values = list(dict.fromkeys(v for v in given if v != ""))
    if len(values) > 1:
        shown = ", ".join(repr(v) for v in values)
        raise ValidationError({name: f"Given {len(given)} times ({shown}); give it once."})
    if values:
        return values[0]
    return "" if given else None


def flag(raw, name: str) -> bool:
    """``raw`` as true or false: absent or empty is false; a word outside
    :data:`TRUE_WORDS` and :data:`FALSE_WORDS` is a 400 naming ``name`` and the words."""
    if isinstance(raw, bool):
        return raw
    if raw is None or raw == "":
        return False
    word = str(raw).strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValidationError(
        {name: f"Must be true or false ({', '.join(TRUE_WORDS)} / {', '.join(FALSE_WORDS)}), "
         f"not {raw!r}."}
    )  # fmt: skip


def unknown_options(unknown, known, what: str = "option") -> str:
    """The one sentence every endpoint that refuses options it does not read answers:
    ``unknown option(s): setting (did you mean 'settings'?); known: …``. A name close to a
    known one (``difflib``: a typo, a singular for a plural as the command line spells it)
    gets the hint, so ``?splt=dev`` or ``?setting=assigned`` says what was meant. ``what``
    names the kind of name (``field`` of a form, ``parameter`` of a query string)."""
    from difflib import get_close_matches

    names = sorted(dict.fromkeys(known))
    said = []
    for name in unknown:
        close = get_close_matches(name, names, n=1, cutoff=0.75)
        said.append(f"{name} (did you mean {close[0]!r}?)" if close else name)
    return f"unknown {what}(s): {', '.join(said)}; known: {', '.join(names) or 'none'}"
