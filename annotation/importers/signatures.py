"""Which file an import was given, when it is another format's: derived from the
:class:`~annotation.importers.registry.Signature` every format (and file option) declares.

Studies are untyped: nothing stops a ResearcherBench ``rubric.json`` being uploaded as the
questions file, or a ScholarQA-CS2 report file being imported with ``--format
researcherbench``. Read as the format chosen, such a file gave a problem per record
("missing required field"), or worse was imported with a warning per unknown key. Each
importer instead asks :func:`refuse_other_format` with the records it has just parsed:
the signature that fits the first records best (the most fields) names the file, and,
unless it is the importer's own, the file is refused with one file-level problem saying
what the file is and where it goes. Nothing is read twice and only the first records'
keys are looked at: it runs on every import.

A generic format reads every file of its kind under its aliases (the generic questions
format takes ``question`` or ``query`` for ``text``, so a benchmark's questions file is
one it reads): it asks with ``any_of_kind``, and only a file of another kind (a
ResearcherBench responses file, a report file, a pairwise annotation file) is refused.
"""

from __future__ import annotations

from .common import fail
from .registry import FORMATS, Format, Option, Signature


def _declared() -> list[tuple[Signature, Format, Option | None]]:
    """Every declared signature with the format (and file option) that reads its file; read
    from the registry at call time (the judges app registers its formats when ready)."""
    out = []
    for fmt in FORMATS.values():
        out += [(sig, fmt, None) for sig in fmt.signatures]
        out += [(o.signature, fmt, o) for o in fmt.options if o.signature is not None]
    return out


def looks_like_other_format(
    data, kind: str, name: str, option: str | None = None, *, any_of_kind: bool = False
) -> str | None:
    """Why ``data`` (the parsed file: a list of records, or one object) is not a file of
    format ``name`` of ``kind`` (its file option ``option`` when given), when its first
    records show it to be another declared file; None when they do not (the format's own
    checks then say what is wrong, record by record). ``any_of_kind``: every declared file
    of ``kind`` is the format's own (a generic format's)."""
    fitting = [entry for entry in _declared() if entry[0].fits(data)]
    if not fitting:
        return None
    best = max(len(sig.fields) for sig, _, _ in fitting)
    top = [entry for entry in fitting if len(entry[0].fields) == best]
    for _, fmt, opt in top:
        if fmt.key == (kind, name) and (opt.name if opt else None) == option:
            return None  # the file this import reads (an even match with another: its own)
        if any_of_kind and fmt.kind == kind:
            return None
    sig, fmt, opt = top[0]
    return f"this looks like {sig.what} ({sig.shape()}): {_where(fmt, opt, (kind, name))}"


def _where(fmt: Format, opt: Option | None, expected: tuple[str, str]) -> str:
    """Where the file goes: the import it is read by, said relative to the one it was
    given to ("upload it as the rubric" when it was given as a questions file)."""
    if opt is not None:
        where = f"upload it as the {opt.name}"
        return (
            where if fmt.key == expected else f"{where} of a {fmt.kind} import, format {fmt.name}"
        )
    if fmt.key == expected:  # the format's main file, given as one of its file options
        return f"upload it as the {fmt.kind} file"
    return f"import it as {fmt.kind}, format {fmt.name}"


def refuse_other_format(
    file: str, data, kind: str, name: str, option: str | None = None, *, any_of_kind=False
) -> None:
    """Refuse ``data`` with one file-level problem when it is another declared file
    (:func:`looks_like_other_format`); nothing has been written yet."""
    hint = looks_like_other_format(data, kind, name, option, any_of_kind=any_of_kind)
    if hint:
        fail(file, hint)
