"""Forms of the study pages. Each validates everything server-side and names the field.

Choices that refer to rows (systems, annotators) are querysets scoped to the study, so an id
of another study's system or an unknown annotator is a form error on that field.
"""

from __future__ import annotations

from django import forms
from django.contrib.auth.models import User

from annotation import roles
from annotation.assignment import STRATEGIES
from annotation.importers.forms import RegistryImportForm
from annotation.models import Annotator, Question, Setting, Study, System
from judges.models import Judge, JudgeRelevance

from .invitations import MAX_INVITES, parse_fields
from .planning import PlanSpec

STRATEGY_CHOICES = [
    ("random", "Random: K annotators per question, drawn at random"),
    (
        "expertise",
        "By expertise: K annotators whose field is the question's (ResearchQA pools; its own "
        "setting, expertise-matched, never pooled with random assignment)",
    ),
    (
        "triage",
        "From triage: questions annotators rated within their expertise, then near it, never outside",
    ),
    ("authored", "Authored: each question goes back to its author"),
    (
        "planner",
        "Budget planner: the questions that narrow the agreement interval most per "
        "expert hour, K annotators each, up to “Questions per annotator” each",
    ),
]
assert [c for c, _ in STRATEGY_CHOICES] == list(STRATEGIES)


class StudyForm(forms.ModelForm):
    """A new study, and the tasks it enables: chosen here, or left to the data. Each import
    enables the tasks its data makes possible (``readiness.enable_supported``), so its
    assignments are never unavailable pages."""

    tasks = forms.MultipleChoiceField(
        choices=Study.Task.choices,
        widget=forms.CheckboxSelectMultiple,
        required=False,
        label="Tasks",
        help_text="none ticked = every import enables the tasks its data supports, until "
        "you choose them here or under “Tasks and settings”",
    )

    class Meta:
        model = Study
        fields = ["name", "description", "tasks"]
        widgets = {"description": forms.Textarea(attrs={"rows": 2})}

    def clean(self):
        cleaned = super().clean()
        self.instance.tasks_chosen = bool(cleaned.get("tasks"))  # none ticked: the data's
        return cleaned


def _credit(label):
    return forms.FloatField(label=label, min_value=0.0, max_value=1.0)


class StudySettingsForm(forms.Form):
    """Tasks and their settings (``Study.config``), and which systems are compared."""

    tasks = forms.MultipleChoiceField(
        choices=Study.Task.choices, widget=forms.CheckboxSelectMultiple, required=False
    )
    ties_allowed = forms.BooleanField(required=False, label="Ties allowed")
    three_way_tie_allowed = forms.BooleanField(required=False, label="Three-way ties allowed")
    claims_min = forms.IntegerField(min_value=Study.CLAIMS_LEAST, max_value=Study.CLAIMS_MOST,
                                    label="Claims, at least")  # fmt: skip
    claims_max = forms.IntegerField(min_value=Study.CLAIMS_LEAST, max_value=Study.CLAIMS_MOST,
                                    label="Claims, at most")  # fmt: skip
    relevance_R = _credit("Relevance credit R")
    relevance_U = _credit("Relevance credit U")
    relevance_O = _credit("Relevance credit O")
    coverage_fully = _credit("Coverage credit fully")
    coverage_partially = _credit("Coverage credit partially")
    coverage_none = _credit("Coverage credit none")
    support_snippet = _credit("Support credit: snippet supports")
    support_title = _credit("Support credit: title, likely supports")
    coverage_binary = forms.BooleanField(required=False, label="Binary rubric coverage")
    reopen_hours = forms.IntegerField(
        min_value=0,
        max_value=24 * 365,
        required=False,
        label="Hours an annotator may reopen a submitted judgment",
        help_text="0 = only an admin can return a judgment for revision",
    )
    compared_systems = forms.ModelMultipleChoiceField(
        queryset=System.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="none checked = every system",
    )
    systems_per_question = forms.IntegerField(
        min_value=2,
        required=False,
        help_text="e.g. 3 of 6, sampled so every pair of systems is compared equally often",
    )
    researchers = forms.ModelMultipleChoiceField(
        queryset=User.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="who may read this study's judgments and reports (admins read every study)",
    )

    def __init__(self, study: Study, *args, **kwargs):
        self.study = study
        if not args and "initial" not in kwargs:
            kwargs["initial"] = self.initial_from(study)
        super().__init__(*args, **kwargs)
        self.fields["compared_systems"].queryset = System.objects.filter(study=study)
        self.fields["researchers"].queryset = User.objects.filter(
            groups__name=roles.RESEARCHER
        ).order_by("username")

    @staticmethod
    def initial_from(study: Study) -> dict:
        s = study.setting
        rel, cov, sup = s("relevance_credit"), s("coverage_credit"), s("support_credit")
        return {
            "tasks": study.tasks,
            "ties_allowed": s("ties_allowed"),
            "three_way_tie_allowed": s("three_way_tie_allowed"),
            "claims_min": s("claims_min"),
            "claims_max": s("claims_max"),
            "relevance_R": rel["R"],
            "relevance_U": rel["U"],
            "relevance_O": rel["O"],
            "coverage_fully": cov["fully"],
            "coverage_partially": cov["partially"],
            "coverage_none": cov["none"],
            "support_snippet": sup["snippet_supports"],
            "support_title": sup["title_likely_supports"],
            "coverage_binary": s("coverage_binary"),
            "reopen_hours": s("reopen_hours"),
            "compared_systems": study.config.get("compared_systems", []),
            "systems_per_question": study.config.get("systems_per_question"),
            "researchers": list(study.researchers.values_list("pk", flat=True)),
        }

    def clean(self):
        d = super().clean()
        if d.get("claims_min") and d.get("claims_max") and d["claims_min"] > d["claims_max"]:
            self.add_error("claims_max", "must be at least the minimum number of claims")
        systems = d.get("compared_systems")
        per = d.get("systems_per_question")
        n = len(systems) if systems else System.objects.filter(study=self.study).count()
        if per and n and per > n:
            self.add_error("systems_per_question", f"only {n} systems are compared")
        return d

    def config(self) -> dict:
        d = self.cleaned_data
        return {
            "ties_allowed": d["ties_allowed"],
            "three_way_tie_allowed": d["three_way_tie_allowed"],
            "claims_min": d["claims_min"],
            "claims_max": d["claims_max"],
            "relevance_credit": {
                "R": d["relevance_R"],
                "U": d["relevance_U"],
                "O": d["relevance_O"],
            },
            "coverage_credit": {
                "fully": d["coverage_fully"],
                "partially": d["coverage_partially"],
                "none": d["coverage_none"],
            },
            "support_credit": {
                "snippet_supports": d["support_snippet"],
                "title_likely_supports": d["support_title"],
                "none": 0.0,
            },
            "coverage_binary": d["coverage_binary"],
            "reopen_hours": d.get("reopen_hours") or 0,
            "compared_systems": sorted(s.pk for s in d["compared_systems"]),
            "systems_per_question": d["systems_per_question"],
        }


class UploadForm(RegistryImportForm):
    """Questions, reports (their systems come with them), rubrics, pairwise judgments or
    judge scores: fields from the import registry (annotation.importers.forms)."""

    def clean(self):
        from annotation.importers.registry import FORMATS, system_defaults

        d = super().clean()  # a format whose file names its system has it by now
        fmt = FORMATS.get(("reports", d.get("format") or ""))
        # A folder format (a DeepScholar .zip) is named after its folder unless one is given.
        if d.get("kind") == "reports" and not d.get("system") and not (fmt and fmt.directory):
            self.add_error(
                "system",
                f"a system name is required for {fmt.title if fmt else 'reports'} (it may "
                f"be left empty only for {system_defaults()})",
            )
        return d


class PlanForm(forms.Form):
    """The Assign page. Every input says what it means and for which strategies (issue 26,
    dead end 9: "Per expert: triage: questions per expert" said neither)."""

    task = forms.ChoiceField(
        choices=Study.Task.choices, help_text="the task type these assignments are for"
    )
    strategy = forms.ChoiceField(
        choices=STRATEGY_CHOICES,
        widget=forms.RadioSelect,
        label="How questions are given out",
    )
    overlap = forms.IntegerField(
        min_value=1,
        max_value=10,
        initial=2,
        label="Annotators per question (overlap K)",
        help_text="every planned question gets K different annotators (2 or more for "
        "inter-annotator agreement); a question that cannot get K is listed below with why. "
        "Authored: not used (a question goes back to its author)",
    )
    seed = forms.IntegerField(
        min_value=0,
        initial=0,
        label="Random seed",
        help_text="the same seed gives the same plan; another seed, another random draw",
    )
    per_expert = forms.IntegerField(
        min_value=1,
        max_value=1000,
        initial=5,
        label="Questions per annotator",
        help_text="triage: most questions each annotator gets from their ratings; budget "
        "planner: new assignments per annotator, the budget (annotators × this); not used "
        "by random, expertise or authored (see “Most new assignments per annotator”)",
    )
    systems_per_question = forms.IntegerField(
        min_value=2,
        required=False,
        label="Reports per question",
        help_text="how many systems' reports one assignment compares; empty = the study's "
        "setting, else the task's default (pairwise 2, medal ranking 3, others every report)",
    )
    capacity = forms.IntegerField(
        required=False,
        label="Most new assignments per annotator",
        help_text="a cap for every strategy; empty = no limit",
    )
    split = forms.ChoiceField(
        required=False, label="Questions of split", help_text="only questions of this split"
    )
    annotators = forms.ModelMultipleChoiceField(
        queryset=Annotator.objects.none(),
        required=False,
        label="Annotator pool",
        help_text="empty = every annotator with an account",
    )
    hourly_rate = forms.FloatField(
        min_value=0,
        required=False,
        label="Cost per expert hour",
        help_text="optional, in your currency: the preview shows the plan's cost",
    )
    fingerprint = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, study: Study, *args, **kwargs):
        self.study = study
        super().__init__(*args, **kwargs)
        # Every task is offered, the ones the study does not enable marked so: choosing one
        # is refused with how to enable it (``PlanSpec.validate``), never silently planned.
        enabled = set(study.tasks or ())
        self.fields["task"].choices = [
            (value, label if value in enabled else f"{label} (not enabled in this study)")
            for value, label in Study.Task.choices
        ]
        if enabled:
            self.fields["task"].initial = next(v for v, _ in Study.Task.choices if v in enabled)
        self.fields["annotators"].queryset = Annotator.objects.filter(user__isnull=False).order_by(
            "pseudonym"
        )
        splits = Question.objects.filter(study=study).values_list("split", flat=True).distinct()
        self.fields["split"].choices = [("", "all")] + [(s, s) for s in sorted(set(splits)) if s]

    def clean_capacity(self):
        value = self.cleaned_data.get("capacity")
        if value is not None and value < 0:
            raise forms.ValidationError("capacity cannot be negative")
        return value

    def spec(self) -> PlanSpec:
        d = self.cleaned_data
        config = self.study.config
        return PlanSpec(
            task=d["task"],
            strategy=d["strategy"],
            overlap=d["overlap"],
            seed=d["seed"],
            per_expert=d["per_expert"],
            systems_per_question=d["systems_per_question"] or config.get("systems_per_question"),
            systems=tuple(config.get("compared_systems") or ()),
            annotators=tuple(sorted(a.pk for a in d["annotators"])),
            capacity=d["capacity"],
            split=d["split"] or "",
        )


class QuestionFieldsForm(forms.Form):
    """Bulk edit on the Questions page: one field and/or subdomain for the ticked questions."""

    questions = forms.ModelMultipleChoiceField(
        queryset=Question.objects.none(), required=False, widget=forms.CheckboxSelectMultiple
    )
    without_field = forms.BooleanField(
        required=False, label="Also every question that has no field yet"
    )
    field = forms.CharField(
        max_length=200,
        required=False,
        help_text="as written in annotators' expertise, e.g. Computer Science",
    )
    subdomain = forms.CharField(max_length=200, required=False)

    def __init__(self, study: Study, *args, **kwargs):
        self.study = study
        super().__init__(*args, **kwargs)
        self.fields["questions"].queryset = Question.objects.filter(study=study)

    def clean(self):
        d = super().clean()
        if not (d.get("field") or "").strip() and not (d.get("subdomain") or "").strip():
            self.add_error("field", "write a field or a subdomain to set")
        if not d.get("questions") and not d.get("without_field") and "questions" not in self.errors:
            self.add_error("questions", "tick at least one question")
        return d

    def question_ids(self) -> set[int]:
        d = self.cleaned_data
        ids = {q.pk for q in d["questions"]}
        if d["without_field"]:
            ids |= set(
                Question.objects.filter(study=self.study, field="").values_list("pk", flat=True)
            )
        return ids


class QuestionFieldsUploadForm(forms.Form):
    file = forms.FileField(
        help_text="CSV with columns id (or text), field, subdomain — or JSON lines with the "
        "same keys. Rows update the existing questions; none is created."
    )


class ReassignForm(forms.Form):
    annotator = forms.ModelChoiceField(
        queryset=Annotator.objects.none(), help_text="the annotator who dropped out"
    )
    seed = forms.IntegerField(min_value=0, initial=0)

    def __init__(self, study: Study, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["annotator"].queryset = Annotator.objects.filter(
            assignments__study=study
        ).distinct()


class InviteForm(forms.Form):
    expertise = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="one line per annotator: their expertise fields, separated by commas",
    )
    degree = forms.CharField(required=False, max_length=50, help_text="e.g. PhD")

    def clean_expertise(self):
        lines = [line for line in self.cleaned_data["expertise"].splitlines() if line.strip()]
        if not lines:
            raise forms.ValidationError("write one line per annotator")
        if len(lines) > MAX_INVITES:
            raise forms.ValidationError(f"at most {MAX_INVITES} annotators at once")
        return [parse_fields(line) for line in lines]


class AdjudicationForm(forms.Form):
    """Relevance adjudication from finished metric-wise work against one judge (003 A.6)."""

    judge = forms.ModelChoiceField(
        queryset=Judge.objects.none(),
        help_text="a judge with paragraph relevance verdicts on this study's reports",
    )
    limit = forms.IntegerField(
        min_value=1,
        required=False,
        help_text="at most this many questions, most disagreements first; empty = all",
    )

    def __init__(self, study: Study, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["judge"].queryset = Judge.objects.filter(
            pk__in=JudgeRelevance.objects.filter(paragraph__report__question__study=study).values(
                "judge_id"
            )
        ).order_by("name")


class AuthoringForm(forms.Form):
    """Open question-authoring slots (003 Setting 3) for some annotators."""

    annotators = forms.ModelMultipleChoiceField(
        queryset=Annotator.objects.none(), widget=forms.CheckboxSelectMultiple
    )
    setting = forms.ChoiceField(choices=Setting.choices, initial=Setting.DEEP_EXPERT)

    def __init__(self, study: Study, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["annotators"].queryset = Annotator.objects.filter(user__isnull=False).order_by(
            "pseudonym"
        )


class ReviewForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[(Question.Review.ACCEPTED, "Accept"), (Question.Review.REJECTED, "Reject")]
    )


class ExpertiseForm(forms.Form):
    """One annotator's expertise fields (the Annotators' expertise page): the study's
    question fields ticked, plus any other written out. A forged annotator id or a ticked
    field no question of the study carries is refused on that field, nothing saved."""

    annotator = forms.ModelChoiceField(
        queryset=Annotator.objects.none(),
        error_messages={"invalid_choice": "no annotator with an account has the id “%(value)s”"},
    )
    fields = forms.MultipleChoiceField(
        choices=(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Fields of this study's questions",
        error_messages={
            "invalid_choice": "“%(value)s” is no field of this study's questions (write it "
            "under “Other fields” to give it anyway)"
        },
    )
    other = forms.CharField(
        required=False,
        max_length=5000,
        label="Other fields",
        help_text="separated by commas, e.g. fields of other studies; kept as written",
    )

    def clean_annotator(self):
        """One annotator per post: a forged post naming two (``annotator=2&annotator=1``)
        saved the fields to the last one named, silently (a tester)."""
        given = list(dict.fromkeys(self.data.getlist("annotator"))) if self.data else []
        if len(given) > 1:
            raise forms.ValidationError(
                f"given {len(given)} times ({', '.join(given)}); one annotator per save"
            )
        return self.cleaned_data["annotator"]

    def __init__(self, study: Study, *args, **kwargs):
        from .expertise import annotators, study_fields

        super().__init__(*args, **kwargs)
        self.fields["annotator"].queryset = annotators()
        self.fields["fields"].choices = [(f, f) for f in study_fields(study)]

    def clean_other(self):
        from .expertise import MAX_CHARS

        fields = parse_fields(self.cleaned_data.get("other") or "")
        long = [f for f in fields if len(f) > MAX_CHARS]
        if long:
            raise forms.ValidationError(
                f"a field has at most {MAX_CHARS} characters: “{long[0][:40]}…” has {len(long[0])}"
            )
        return fields

    def clean(self):
        from .expertise import MAX_FIELDS

        d = super().clean()
        if len(self.expertise()) > MAX_FIELDS and "other" not in self.errors:
            self.add_error("other", f"at most {MAX_FIELDS} fields per annotator")
        return d

    def expertise(self) -> list[str]:
        """The ticked fields, then the other ones, each once."""
        d = self.cleaned_data
        return list(dict.fromkeys([*(d.get("fields") or ()), *(d.get("other") or ())]))
