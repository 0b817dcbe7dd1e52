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

#: What the runs page says of a judge a run refuses (its parameters are not a model's).
NOT_RUNNABLE = "imported/simulated: results only, cannot be run"


def split_judges(judges=None) -> tuple[list[Judge], list[tuple[Judge, str]]]:
    """(the judges a run accepts, [(judge, why a run refuses it)]), by name: the one
    predicate :meth:`judges.models.Judge.run_refusal`."""
    runnable, refused = [], []
    for judge in Judge.objects.order_by("name") if judges is None else judges:
        why = judge.run_refusal()
        if why is None:
            runnable.append(judge)
        else:
            refused.append((judge, why))
    return runnable, refused


class StartRunForm(forms.Form):
    judge = forms.ModelChoiceField(
        queryset=Judge.objects.order_by("name"),
        help_text="a judge with a model and endpoint (add one below)",
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
        self.runnable, self.refused = split_judges()
        # offered: the judges a run accepts only; a posted other judge is refused by name
        self.fields["judge"].choices = [("", "---------")] + [(j.pk, j.name) for j in self.runnable]

    def clean_judge(self):
        judge = self.cleaned_data["judge"]
        why = judge.run_refusal()
        if why is not None:
            raise forms.ValidationError(
                f"judge {judge.name!r} cannot be run ({NOT_RUNNABLE}): {why}"
            )
        return judge

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


class AddJudgeForm(forms.Form):
    """A judge that calls an OpenAI-compatible endpoint, added from the runs page. Checked
    as the API checks it (:class:`judges.serializers.JudgeSerializer`, by the view): known
    parameters only, an http(s) URL, no private address unless the server allows them.
    The key is stored as the API stores it and never shown again (masked everywhere)."""

    name = forms.CharField(max_length=200)
    model = forms.CharField(max_length=200, help_text="the model the endpoint serves, e.g. gpt-4.1")
    base_url = forms.URLField(
        label="Base URL",
        max_length=2000,
        assume_scheme="https",
        help_text="OpenAI-compatible endpoint, e.g. https://api.openai.com/v1",
    )
    api_key = forms.CharField(
        label="API key",
        max_length=2000,
        required=False,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text="stored masked, never shown again; empty: the server's LLM_API_KEY",
    )

    def api_data(self) -> dict:
        """The fields as the judges API takes them."""
        d = self.cleaned_data
        parameters = {"base_url": d["base_url"]}
        if d["api_key"]:
            parameters["api_key"] = d["api_key"]
        return {"name": d["name"], "model": d["model"], "provider": "openai-compatible",
                "parameters": parameters}  # fmt: skip
