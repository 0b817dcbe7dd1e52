"""The upload form of the admin page and the study page, derived from the import registry.

Every registered kind is a choice of ``kind``, every format one of ``format``, every option
of any format a field (a text field, a choice, a checkbox or a second file) with the
option's help text, and :meth:`RegistryImportForm.options` passes a kind's options to
``annotation.importers.run``. Choices are computed when a form is built, not when this
module is imported: the judges app registers its formats when it is ready.
"""

from __future__ import annotations

from pathlib import PurePath

from django import forms

from .registry import (
    FORMATS,
    KINDS,
    Option,
    all_options,
    browser_text,
    choices,
    format_names,
    formats,
    options_of,
    system_defaults,
)


def option_help(option: Option) -> str:
    """What the import pages say of an option: its ``web_help``, else its help text with
    each command-line flag as the form field it is (:func:`.registry.browser_text`)."""
    return option.web_help or browser_text(option.help)


def option_field(option: Option, help_text: str | None = None) -> forms.Field:
    """The form field of one registry option (never required on its own: which options a
    kind needs is checked in :meth:`RegistryImportForm.clean`)."""
    help_text = option_help(option) if help_text is None else help_text
    if option.type is bool:
        return forms.BooleanField(required=False, help_text=help_text)
    if option.type == "file":
        return forms.FileField(required=False, help_text=help_text)
    if option.choices:
        return forms.ChoiceField(
            choices=[("", option.empty_label)] + [(c, c) for c in option.choices],
            required=False,
            help_text=help_text,
        )
    return forms.CharField(required=False, max_length=200, help_text=help_text)


def _helps(name: str) -> str:
    """One option's help on the form, where several kinds take it: each kind's own (the
    System of judge scores is not the System of reports), prefixed by the kind."""
    said: dict[str, list[str]] = {}
    for kind in KINDS:
        option = options_of(kind).get(name)
        if option is not None:
            text = _system_help() if (kind, name) == ("reports", "system") else option_help(option)
            said.setdefault(text, []).append(kind)
    if len(said) == 1:
        return next(iter(said))
    return "; ".join(f"{' / '.join(kinds)}: {text}" for text, kinds in said.items())


def _system_help() -> str:
    """System of reports: required, except where the file or folder names it."""
    return (
        "the system whose reports these are; required, except where the upload names it "
        f"(left empty, it is then: {system_defaults()})"
    )


def _requirement_attrs(name: str) -> dict[str, str]:
    """Where an option is required, for ``js/import_form.js`` to mark the field required
    only then: the kinds (``data-required-kinds``), the formats of those kinds that need it
    not (``data-optional-formats``: reports' System where the file names it), and the
    checkbox that makes it unneeded (``data-required-unless``)."""
    kinds, unless = [], ""
    for kind in KINDS:
        option = options_of(kind).get(name)
        if option is None:
            continue
        if option.required or option.required_unless:
            kinds.append(kind)
            unless = option.required_unless or unless
        elif (kind, name) == ("reports", "system"):
            kinds.append(kind)
    attrs = {}
    if kinds:
        attrs["data-required-kinds"] = " ".join(kinds)
    if unless:
        attrs["data-required-unless"] = unless
    if name == "system":
        attrs["data-optional-formats"] = " ".join(
            f.name for f in formats("reports") if f.directory or f.system_from_file_name
        )
    return attrs


class FormatSelect(forms.Select):
    """The format choice, each option saying the kinds it is a format of (``data-kinds``),
    so that ``js/import_form.js`` lists only the chosen kind's formats (all 16 were offered
    whatever the kind, and a mismatch was met only as an error after the upload). Without
    the script the full list stays, and the form's error still says what went wrong."""

    def __init__(self, *args, kinds_of: dict[str, list[str]] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.kinds_of = kinds_of or {}

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if value in self.kinds_of:
            option["attrs"]["data-kinds"] = " ".join(self.kinds_of[value])
        return option


class RegistryImportForm(forms.Form):
    """kind, format, file, every registered option, dry run."""

    kind = forms.ChoiceField(choices=())
    format = forms.ChoiceField(choices=(), required=False)
    file = forms.FileField()
    dry_run = forms.BooleanField(required=False, label="Dry run (validate and count only)")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        listed = choices()
        self.fields["kind"].choices = listed.kinds
        self.fields["format"].choices = listed.formats
        kinds_of: dict[str, list[str]] = {}
        for kind in KINDS:
            for name in format_names(kind):
                kinds_of.setdefault(name, []).append(kind)
        self.fields["format"].widget = FormatSelect(
            choices=listed.formats, kinds_of=kinds_of, attrs={"data-kind-field": "kind"}
        )
        self.fields["format"].help_text = listed.help
        for name, option in all_options().items():
            if name not in self.fields:
                self.fields[name] = option_field(option, _helps(name))
                self.fields[name].widget.attrs.update(_requirement_attrs(name))

    def clean(self):
        d = super().clean()
        kind = d.get("kind")
        if kind not in KINDS:
            return d
        spec = KINDS[kind]
        if spec.default is None and not d.get("format"):
            self.add_error("format", f"choose the format of the {kind}")
        elif d.get("format") and d["format"] not in format_names(kind):
            # the page lists only the kind's formats (js/import_form.js); a post that pairs
            # them otherwise (forged, or without the script) is refused here, before the
            # import runs, beside the field
            from . import not_of_kind

            self.add_error("format", not_of_kind(kind, d["format"]))
        for name, option in options_of(kind).items():
            if option.needed(d) and not d.get(name):
                self.add_error(name, f"a {name} is required for {kind}")
        # the file names its system (ResearcherBench's user_data/Claude.json): System left
        # empty is the file's name without its extension
        fmt = FORMATS.get((kind, d.get("format") or ""))
        named = fmt is not None and fmt.system_from_file_name and d.get("file")
        if named and not (d.get("system") or "").strip():
            d["system"] = PurePath(d["file"].name).stem
        return d

    class Media:
        js = ("js/import_form.js",)

    def options(self) -> dict:
        """The chosen kind's options as ``run`` takes them (empty ones left out)."""
        d = self.cleaned_data
        out = {"format": d.get("format") or None}
        for name in options_of(d["kind"]):
            value = d.get(name)
            if value not in (None, "", False):
                out[name] = value.strip() if isinstance(value, str) else value
        return out


__all__ = ["FormatSelect", "RegistryImportForm", "option_field"]
