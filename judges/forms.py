"""Forms of the runs page: start a judge run, import judge scores produced elsewhere.

The same rules as the API: only an admin starts a run or imports scores (researchers read
runs); every choice is validated server-side and an error names its field.
"""

from __future__ import annotations

from django import forms

from annotation.importers.registry import formats
from annotation.models import Study, System

from .importers import FORMATS
from .models import Judge, JudgeRun
from .run_options import RUN_OPTIONS


class StartRunForm(forms.Form):
    judge = forms.ModelChoiceField(
        queryset=Judge.objects.order_by("name"),
        help_text="a judge with a model and endpoint (set in the Django admin, Judges)",
    )
    tasks = forms.MultipleChoiceField(
        choices=JudgeRun.Task.choices, widget=forms.CheckboxSelectMultiple
    )
    systems = forms.ModelMultipleChoiceField(
        queryset=System.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=RUN_OPTIONS["systems"].help,
    )
    rubric_kind = forms.CharField(
        max_length=50, required=False, help_text=RUN_OPTIONS["rubric_kind"].help
    )
    rejudge = forms.BooleanField(required=False, help_text=RUN_OPTIONS["rejudge"].help)

    def __init__(self, study: Study, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["systems"].queryset = System.objects.filter(study=study).order_by("name")
        self.fields["tasks"].choices = JudgeRun.task_choices(study)

    def options(self) -> dict:
        """The run options the fields give (checked by :func:`judges.runs.create_run`
        against :data:`judges.run_options.RUN_OPTIONS`, like the API's)."""
        d = self.cleaned_data
        options = {}
        if d["systems"]:
            options["systems"] = sorted(s.name for s in d["systems"])
        if d["rubric_kind"].strip():
            options["rubric_kind"] = d["rubric_kind"].strip()
        if d["rejudge"]:
            options["rejudge"] = True
        return options


#: The judge-score formats' help texts, from the import registry (judges.formats).
FORMAT_HELP = {f.name: f.help for f in formats("judge_scores")}


class ImportScoresForm(forms.Form):
    file = forms.FileField()
    judge = forms.CharField(max_length=200, help_text="judge name (created when missing)")
    format = forms.ChoiceField(choices=[(f, f"{f} — {FORMAT_HELP[f]}") for f in FORMATS])
    system = forms.CharField(
        max_length=200,
        required=False,
        help_text="researchqa-coverage: the system the file is about (required there)",
    )
    rubric_kind = forms.CharField(max_length=50, required=False)
    dry_run = forms.BooleanField(required=False, label="Dry run (validate and count only)")

    def clean(self):
        d = super().clean()
        if d.get("format") == "researchqa-coverage" and not (d.get("system") or "").strip():
            self.add_error("system", "a researchqa-coverage file is one system's: name it")
        return d
