"""Query parameters read one way by every list and report of the API.

A parameter that takes one value and is given several (``?study=1&study=2``) is refused
with a 400 naming it: Django's ``QueryDict.get`` keeps only the last value, so the others
were dropped without a word (found by testers with a researcher's token). Lists of names
(``systems``) are not read here: they take several values, comma-separated or repeated.
A true/false parameter accepts the words of :data:`TRUE_WORDS` and :data:`FALSE_WORDS`
(any case); any other value (``maybe``) is a 400 naming the parameter and those words,
where it read as false before.

A parameter no one reads is refused too, with the ones that are read (:func:`accepted`,
:func:`unknown_parameters`): ``?settting=deep_expert`` answered every row, as if
filtered (found by a tester with a researcher's token). Every list of the API checks it
where it pages (:mod:`concord.pagination`), every file download where its methods are
checked (:mod:`concord.download_methods`): one rule, two doors.
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


def is_digits(text) -> bool:
    """Whether ``text`` is an id as written: ASCII digits only. Why not ``str.isdigit``:
    it is true of "²" and "٣", which ``int`` refuses or reads as another number, so a
    forged id answered a 500 (the study history, return for revision, a study's export,
    the metric-wise form's support keys; session 21's review). One rule for every id read
    from text."""
    return isinstance(text, str) and text.isascii() and text.isdigit()


def id_value(raw, name: str) -> int:
    """``raw`` as an object id, or a 400 naming ``name`` in the words every list uses.
    Why one function: the judge runs' own check (``str.isdigit``) took "²" for an id and
    answered a 500, and said it in other words than the other lists."""
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise ValidationError({name: "Must be an integer id."}) from None


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


def unknown_parameters(given, accepted) -> list[tuple[str, str]]:
    """(name, message) for each name of ``given`` (a query string) outside ``accepted``:
    the sentence of :func:`unknown_options` (did you mean…; the accepted ones)."""
    accepted = set(accepted)
    return [(name, unknown_options([name], accepted, what="parameter"))
            for name in dict.fromkeys(given) if name not in accepted]  # fmt: skip


def refuse_unknown_parameters(given, accepted) -> None:
    """A 400 naming the parameters of ``given`` outside ``accepted``, in one sentence under
    ``detail`` (:func:`unknown_options`) and one item of ``errors`` per parameter
    (:mod:`concord.error_body`), as a download refuses them. Not keyed by the parameter, as
    a bad value is: an annotator's ``?system=`` would put a ``system`` key in their JSON,
    which never holds one, not even a refusal's (``annotation.api.RoleViewSet.refuse_filter``)."""
    from concord.error_body import Refused

    accepted = set(accepted)
    unknown = [name for name in dict.fromkeys(given) if name not in accepted]
    if unknown:
        raise Refused(unknown_options(unknown, accepted, what="parameter"),
                      errors=unknown_parameters(unknown, accepted))  # fmt: skip


def accepted(view, paginator=None) -> set[str]:
    """The query parameters a list of the API reads: those its view declares
    (``query_parameters``: a role viewset's filters and options), its paginator's and its
    filter backends' (what each documents in the schema), and DRF's ``format`` (the
    renderer; not documented: a generated client asked for a renderer that does not
    exist)."""
    from rest_framework.settings import api_settings

    names = set(getattr(view, "query_parameters", ()) or ())
    if api_settings.URL_FORMAT_OVERRIDE:
        names.add(api_settings.URL_FORMAT_OVERRIDE)
    sources = [paginator] if paginator is not None else []
    sources += [backend() for backend in getattr(view, "filter_backends", ()) or ()]
    for source in sources:
        names |= {p["name"] for p in source.get_schema_operation_parameters(view)}
    return names
