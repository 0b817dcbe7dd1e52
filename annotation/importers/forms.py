"""The upload form of the admin page and the study page, derived from the import registry.

Every registered kind is a choice of ``kind``, every format one of ``format``, every option
of any format a field (a text field, a choice, a checkbox or a second file) with the
option's help text, and :meth:`RegistryImportForm.options` passes a kind's options to
``annotation.importers.run``. Choices are computed when a form is built, not when this
module is imported: the judges app registers its formats when it is ready.
"""

from __future__ import annotations

from django import forms

from .registry import KINDS, Option, all_options, choices, format_names, options_of


def option_field(option: Option) -> forms.Field:
    """The form field of one registry option (never required on its own: which options a
    kind needs is checked in :meth:`RegistryImportForm.clean`)."""
    if option.type is bool:
        return forms.BooleanField(required=False, help_text=option.help)
    if option.type == "file":
        return forms.FileField(required=False, help_text=option.help)
    if option.choices:
        return forms.ChoiceField(
            choices=[("", option.empty_label)] + [(c, c) for c in option.choices],
            required=False,
            help_text=option.help,
        )
    return forms.CharField(required=False, max_length=200, help_text=option.help)


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
                self.fields[name] = option_field(option)

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
