"""The shapes of the agreement report and the judge alignment, for the OpenAPI schema.

These serializers only document (drf-spectacular turns them into typed components); the views
answer the dicts of :func:`metaeval.reports.agreement_report` and
:func:`metaeval.alignment.judge_alignment` as they are. A figure that is not defined is null,
with a note saying why (METHODS §7), so every figure is nullable.
"""

from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers


def _figure(help_text: str, **kwargs):
    return serializers.FloatField(allow_null=True, help_text=help_text, **kwargs)


def _null_notes():
    """The ``notes`` of a block: why each of its null figures is null (METHODS §7)."""
    return serializers.DictField(
        child=serializers.CharField(), required=False,
        help_text="Present when a figure of this block is null: figure -> why",
    )  # fmt: skip


class IntervalSerializer(serializers.Serializer):
    """Bootstrap percentile intervals, [low, high] per figure (present when bootstrap > 0)."""

    agreement = serializers.ListField(child=serializers.FloatField(), required=False)
    tau_b = serializers.ListField(child=serializers.FloatField(), required=False)


class MetricAgreementSerializer(serializers.Serializer):
    agreement = _figure("Share of pairs where the judge's decision equals the experts'")
    tau_b = _figure("Kendall τ-b between expert and judge pairwise decisions")
    n = serializers.IntegerField(help_text="Pairs compared")
    threshold = _figure("Judge score difference below which the judge calls a tie")
    human_tie_rate = _figure("Share of expert ties", required=False)
    judge_tie_rate = _figure("Share of judge ties", required=False)
    ci = IntervalSerializer(required=False)
    notes = _null_notes()
    n_note = serializers.CharField(
        required=False,
        help_text="What n leaves out of the selection's comparisons with a "
        "human decision of this kind, and why (absent: nothing left out)",
    )


class SelectionSerializer(serializers.Serializer):
    judge = serializers.CharField(allow_null=True, required=False)
    systems = serializers.ListField(child=serializers.CharField(), required=False)
    exclude_systems = serializers.ListField(child=serializers.CharField(), required=False)
    settings = serializers.ListField(child=serializers.CharField(), required=False)
    expert_agreed = serializers.BooleanField(required=False)
    ties = serializers.CharField(required=False)
    calibration = serializers.CharField(required=False)
    calibrate_on = serializers.CharField(allow_null=True, required=False)
    bootstrap = serializers.IntegerField(required=False)
    seed = serializers.IntegerField(required=False)
    compat = serializers.CharField(allow_null=True, required=False)
    human_signal = serializers.CharField(allow_null=True, required=False)
    human_signal_rows = serializers.DictField(required=False)
    n_judgments = serializers.IntegerField(
        required=False, help_text="comparisons of the agreement report (counts_cover)"
    )
    n_questions = serializers.IntegerField(required=False)
    n_annotators = serializers.IntegerField(required=False)
    expert_agreed_comparisons = serializers.IntegerField(
        required=False, help_text="with expert_agreed: the comparisons of the subset, whose "
        "judgments n_judgments, n_questions and n_annotators then count")  # fmt: skip
    expert_agreed_of = serializers.DictField(
        required=False, help_text="with expert_agreed: n_judgments, n_questions and "
        "n_annotators of the whole selection, before the subset")  # fmt: skip
    study = serializers.DictField(
        required=False, help_text="n_judgments, n_questions, n_annotators and by_kind over "
        "every judgment kind of the selection")  # fmt: skip
    counts_cover = serializers.CharField(required=False, help_text="what each count counts")
    systems_present = serializers.ListField(child=serializers.CharField(), required=False)
    systems_left = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="the study's systems "
        "exclude_systems leaves, given when the selection has no comparison (a note says "
        "when fewer than two remain)")  # fmt: skip
    settings_present = serializers.ListField(child=serializers.CharField(), required=False)
    study_id = serializers.IntegerField(required=False)


class IAAIntervalSerializer(serializers.Serializer):
    """Bootstrap percentile intervals of the IAA (present when bootstrap > 0 and the IAA is
    defined): strict and half credit; ``note`` says why κ and α have none."""

    strict = serializers.ListField(child=serializers.FloatField(allow_null=True))
    half_credit = serializers.ListField(child=serializers.FloatField(allow_null=True))
    rounds = serializers.IntegerField()
    level = serializers.FloatField()
    note = serializers.CharField()


class InterAnnotatorSerializer(serializers.Serializer):
    strict = _figure("Share of annotator pairs deciding a report pair the same way")
    half_credit = _figure("The same, a tie against a preference counting one half")
    n = serializers.IntegerField()
    n_pairs = serializers.IntegerField()
    cohen_kappa = _figure("Cohen's κ, mean over annotator pairs (docs/ANALYSES.md §6)")
    fleiss_kappa = _figure("Fleiss' κ")
    krippendorff_alpha = _figure("Krippendorff's α (nominal)")
    ci = IAAIntervalSerializer(required=False)
    notes = _null_notes()


class SystemRowSerializer(serializers.Serializer):
    system = serializers.CharField()
    human_win_rate = _figure("Expert win rate of the system")
    judge_win_rate = _figure("Judge win rate of the system")
    n = serializers.IntegerField()
    ci = serializers.DictField(child=serializers.ListField(child=serializers.FloatField()), required=False)  # fmt: skip
    notes = _null_notes()


class SystemRankingSerializer(serializers.Serializer):
    tau_b = _figure("Kendall τ-b between the expert and judge system rankings")
    systems = SystemRowSerializer(many=True)
    ci = IntervalSerializer(required=False)
    notes = _null_notes()


class ReportTableSerializer(serializers.Serializer):
    """One table of the report page, as its CSV/XLSX/JSON downloads serve it."""

    columns = serializers.ListField(child=serializers.CharField(), help_text="In order")
    rows = serializers.ListField(
        child=serializers.DictField(child=serializers.JSONField(allow_null=True)),
        help_text="Column name -> value (null where undefined), every column present",
    )


class AgreementReportSerializer(serializers.Serializer):
    selection = SelectionSerializer()
    iaa = InterAnnotatorSerializer(allow_null=True, required=False)
    preference = serializers.DictField(
        child=MetricAgreementSerializer(),
        required=False,
        help_text="Per metric: judge vs expert preferences",
    )
    metric_wise = serializers.DictField(
        child=MetricAgreementSerializer(),
        required=False,
        help_text="Per metric: judge vs expert scores",
    )
    system = SystemRankingSerializer(allow_null=True, required=False)
    notes = serializers.ListField(
        child=serializers.JSONField(),
        required=False,
        help_text="Why a figure is null, and compat-mode differences (text or objects)",
    )
    tables = serializers.DictField(
        child=ReportTableSerializer(),
        required=False,
        help_text="With `tables=true` only: every table of the report page, by name, with "
        "the interval columns (`ci_*_low`, `ci_*_high`) when `bootstrap` > 0",
    )


def agreement_report_serializer(sections) -> type[serializers.Serializer]:
    """The report's shape with the registered report sections that add a key to it
    (:mod:`metaeval.sections`), each typed by its ``serializer``; exactly
    :class:`AgreementReportSerializer` when none does."""
    extra = {
        s.key: s.serializer(required=False, allow_null=True, help_text=s.title)
        for s in sections
        if s.payload and not s.in_report and s.serializer is not None
    }
    if not extra:
        return AgreementReportSerializer
    return type("AgreementReportWithSectionsSerializer", (AgreementReportSerializer,), extra)


class JudgeBlockSerializer(serializers.Serializer):
    preference = serializers.DictField(child=MetricAgreementSerializer(), required=False)
    system_tau_b = _figure("System-level Kendall τ-b")
    notes = serializers.DictField(child=serializers.CharField(), required=False,
                                  help_text="figure -> why it is null (METHODS §7)")  # fmt: skip


class JudgeRowSerializer(serializers.Serializer):
    judge = serializers.CharField()
    all = JudgeBlockSerializer(help_text="On every expert judgment")
    expert_agreed = JudgeBlockSerializer(
        allow_null=True, required=False, help_text="Where the experts agreed"
    )


class PearsonSerializer(serializers.Serializer):
    judges = serializers.ListField(child=serializers.CharField())
    matrix = serializers.ListField(
        child=serializers.ListField(child=serializers.FloatField(allow_null=True))
    )
    n = serializers.IntegerField()
    note = serializers.CharField(required=False, help_text="why cells of the matrix are null")


class JudgeAlignmentSerializer(serializers.Serializer):
    judges = JudgeRowSerializer(many=True, help_text="ScholarQA-CS2 Table 5, one row per judge")
    pearson = PearsonSerializer(allow_null=True, help_text="Cross-judge Pearson r (Fig. 10)")
    coverage = serializers.ListField(
        child=serializers.JSONField(),
        required=False,
        help_text="Rubric coverage agreement per judge",
    )


_METRIC = {"agreement": 0.889, "tau_b": 0.88, "n": 27, "threshold": 0.0835,
           "human_tie_rate": 0.074, "judge_tie_rate": 0.074}  # fmt: skip
AGREEMENT_EXAMPLE = OpenApiExample(
    "Demo study",
    summary="The demo study, default options",
    value={
        "selection": {"judge": "claude-sonnet-sim", "systems": [], "exclude_systems": [],
                      "settings": [], "expert_agreed": False, "ties": "threshold",
                      "calibration": "match-rate", "calibrate_on": None, "bootstrap": 0,
                      "seed": 0, "compat": None, "n_judgments": 27, "n_questions": 5,
                      "n_annotators": 2},
        "iaa": {"strict": 0.75, "half_credit": 0.833, "n": 12, "n_pairs": 12,
                "cohen_kappa": 0.571, "fleiss_kappa": 0.561, "krippendorff_alpha": 0.579},
        "preference": {"overall": _METRIC},
        "metric_wise": {"overall": _METRIC},
        "system": {"tau_b": 1.0, "systems": [
            {"system": "atlas-dr", "human_win_rate": 0.893, "judge_win_rate": 0.929, "n": 14}]},
        "notes": [],
    },
)  # fmt: skip
_BLOCK = {"preference": {"overall": {k: _METRIC[k] for k in ("agreement", "tau_b", "n", "threshold")}},
          "system_tau_b": 1.0}  # fmt: skip
ALIGNMENT_EXAMPLE = OpenApiExample(
    "Demo study",
    summary="Two judges of the demo study",
    value={
        "judges": [{"judge": "claude-sonnet-sim", "all": _BLOCK, "expert_agreed": _BLOCK}],
        "pearson": {"judges": ["claude-sonnet-sim", "gemini-flash-sim"],
                    "matrix": [[1.0, 0.985], [0.985, 1.0]], "n": 24},
        "coverage": [],
    },
)  # fmt: skip
