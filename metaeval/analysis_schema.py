"""OpenAPI shapes of the issue-16 analysis sections (``metaeval/sections/<kind>.py``): each
section's result typed field by field, so the report schema lists every figure rather
than a free-form object. A figure is always :class:`AnalysisFigureSerializer` (value with its
cluster-bootstrap CI, n, and the note saying why it is null)."""

from rest_framework import serializers as s


def _float(**kw):
    return s.FloatField(allow_null=True, **kw)


class AnalysisFigureSerializer(s.Serializer):
    value = _float(help_text="the figure (null: not defined, see note)")
    n = s.IntegerField(allow_null=True)
    low = _float(help_text="cluster-bootstrap CI low (null without bootstrap)")
    high = _float()
    note = s.CharField(allow_null=True)


def _fig(**kw):
    return AnalysisFigureSerializer(allow_null=True, **kw)


class _IntervalFigure(s.FloatField):
    """A figure given beside its cluster-bootstrap interval (``<name>_low``,
    ``<name>_high``), which :func:`_with_intervals` declares from it."""


def _interval_figure(**kw):
    return _IntervalFigure(allow_null=True, **kw)


def _with_intervals(cls):
    """Add to ``cls`` each :class:`_IntervalFigure`'s optional ``<name>_low`` and
    ``<name>_high`` (present only when bootstrapped), after its last such figure: a figure is
    declared once and its interval follows from it, never listed again by hand."""
    declared = list(cls._declared_fields.items())
    figures = [name for name, field in declared if isinstance(field, _IntervalFigure)]
    after = 1 + max(i for i, (name, _) in enumerate(declared) if name in figures)
    bounds = [(f"{name}_{end}", _float(required=False)) for name in figures
              for end in ("low", "high")]  # fmt: skip
    cls._declared_fields = dict(declared[:after] + bounds + declared[after:])
    return cls


class HumanSignalSerializer(s.Serializer):
    """What a section's human-vs-judge figures read under the ``human_signal`` option
    (docs/ANALYSES.md §0); present only when the option is given."""

    mode = s.ChoiceField(choices=["each", "majority", "adjudicated"])
    applies = s.BooleanField(required=False, help_text="false: the signal cannot change it")
    units = s.IntegerField(required=False, help_text="units with a label")
    kept = s.IntegerField(required=False, help_text="signal rows read")
    tied = s.IntegerField(required=False, help_text="units left out for a tie")
    adjudicated = s.IntegerField(required=False, help_text="units with an adjudicated label")
    note = s.CharField()


class JudgeDifferenceSerializer(s.Serializer):
    a = s.CharField()
    b = s.CharField()
    agreement_a = _float()
    agreement_b = _float()
    difference = _float()
    pvalue = _float(help_text="paired permutation test over questions")
    n = s.IntegerField()
    questions = s.IntegerField()
    note = s.CharField(allow_null=True)


# ----------------------------------------------------------------------------- ResearchQA


class MajoritySerializer(s.Serializer):
    items = s.IntegerField()
    no_majority = s.IntegerField()
    direction = s.IntegerField()


class PairwiseJudgeSerializer(s.Serializer):
    judge = s.CharField()
    protocol = s.CharField()
    accuracy = _fig()


class PairwiseAnalysisSerializer(s.Serializer):
    comparisons = s.IntegerField()
    majority = MajoritySerializer()
    human_vs_majority = _fig()
    human_vs_majority_skipped = s.IntegerField(
        help_text="direction labels left out: the other direction labels tie (METHODS §7)"
    )
    human_vs_majority_alone = s.IntegerField(
        help_text="direction labels left out: no other direction label on the comparison"
    )
    binarised_pa = _fig()
    judges = PairwiseJudgeSerializer(many=True)
    judge_differences = JudgeDifferenceSerializer(many=True)
    human_signal = HumanSignalSerializer(required=False)


class LeaderboardRowSerializer(s.Serializer):
    system = s.CharField()
    rating = _float()
    median = _float()
    sd = _float()
    low = _float()
    high = _float()
    battles = s.IntegerField()
    points = s.FloatField()
    note = s.CharField(allow_null=True, required=False,
                       help_text="why the rating, or its bootstrap median and sd, is null")  # fmt: skip


class BoardSerializer(s.Serializer):
    source = s.CharField(help_text="human, or a judge's name")
    rows = LeaderboardRowSerializer(many=True)
    notes = s.ListField(child=s.CharField())
    resampled = s.CharField(allow_null=True)
    rounds = s.IntegerField(required=False, help_text="bootstrap rounds asked for")
    rounds_without_estimate = s.IntegerField(
        required=False, help_text="rounds whose resample has no maximum-likelihood rating, "
        "left out of the median, sd and interval (null interval when too few remain)")  # fmt: skip


class WinProbabilitySerializer(s.Serializer):
    source = s.CharField()
    a = s.CharField()
    b = s.CharField()
    probability = _float(help_text="P(a beats b) = 1 / (1 + 10^((R_b - R_a)/400)), 001 §4.1")


class LeaderboardAnalysisSerializer(s.Serializer):
    boards = BoardSerializer(many=True)
    win_probability = WinProbabilitySerializer(many=True, help_text="each system against the next")
    human_signal = HumanSignalSerializer(required=False)


# ----------------------------------------------------------------------------- coverage


@_with_intervals
class HumanVsHumanSerializer(s.Serializer):
    exact = _interval_figure()
    binarised = _interval_figure()
    weighted_kappa = _interval_figure()
    krippendorff_alpha = _interval_figure()
    units = s.IntegerField()
    pairs = s.IntegerField()
    note = s.CharField(allow_null=True)


class CoverageBlockSerializer(s.Serializer):
    confusion = s.ListField(child=s.ListField(child=s.IntegerField()),
                            help_text="5×5 human (rows) × judge (columns), Fig. 11; a binary "
                            "judge's is 5×2 (columns: not covered, covered)")  # fmt: skip
    n = s.IntegerField()
    exact = _fig()
    binarised = _fig(help_text="{0,1} vs {2,3,4} (PA 0.73 in 001)")
    weighted_kappa = _fig()
    pearson = _fig()
    mean_difference = _fig()


class CoverageJudgeSerializer(s.Serializer):
    judge = s.CharField()
    scale = s.CharField(help_text="0-4 or binary: the judge's labels: 0–4, or "
                          "binary covered verdicts (ResearcherBench) compared on the binarised "
                          "scale only (METHODS §7)")  # fmt: skip
    note = s.CharField(required=False, help_text="why a binary judge's 0–4 figures are null")
    all = CoverageBlockSerializer()
    not_labelled_by_judge = s.IntegerField()
    fields = s.DictField(child=CoverageBlockSerializer(), required=False,
                         help_text="per question field")  # fmt: skip


class CoverageAnalysisSerializer(s.Serializer):
    units = s.IntegerField()
    human_vs_human = HumanVsHumanSerializer()
    judges = CoverageJudgeSerializer(many=True)
    judge_differences = JudgeDifferenceSerializer(many=True)
    human_signal = HumanSignalSerializer(required=False)


class BinaryFiguresSerializer(s.Serializer):
    accuracy = _fig()
    precision = _fig()
    recall = _fig()
    f1 = _fig()


class BinaryJudgeSerializer(s.Serializer):
    judge = s.CharField()
    n = s.IntegerField()
    kappa = _fig()
    unweighted = BinaryFiguresSerializer()
    weighted = BinaryFiguresSerializer(help_text="weighted by rubric-item weight (004 §4.3)")
    judge_coverage_paired_by_system = s.ListField(
        child=_float(), help_text="the judge's S_c on the units an expert labelled only, "
        "beside the human S_c; in `systems` order")  # fmt: skip
    judge_coverage_benchmark_by_system = s.ListField(
        child=_float(), help_text="the benchmark's figure (004 Table 3): the judge's S_c over "
        "every rubric item it scored, labelled or not; in `systems` order")  # fmt: skip


class ResearcherBenchAnalysisSerializer(s.Serializer):
    reports_scored = s.IntegerField()
    systems = s.ListField(child=s.CharField())
    human_coverage_by_system = s.DictField(child=AnalysisFigureSerializer())
    judges = BinaryJudgeSerializer(many=True)
    judge_differences = JudgeDifferenceSerializer(many=True)
    human_signal = HumanSignalSerializer(required=False)


# ----------------------------------------------------------------------------- quality


class QualityKindSerializer(s.Serializer):
    kind = s.CharField()
    categories = s.ListField(child=s.CharField())
    merged = s.ListField(child=s.CharField(), help_text="the paper's merge (001 Table 2)")
    counts = s.ListField(child=s.IntegerField())
    shares = s.ListField(child=_float())
    merged_share = _fig()
    by_group = s.DictField(child=s.ListField(child=s.IntegerField()))
    binarised_pa = _fig()
    paper_pa = _float()


class QualityAnalysisSerializer(s.Serializer):
    kinds = QualityKindSerializer(many=True)
    item_flags = _fig(help_text="share of rubric-item judgments with any error flag")
    human_signal = HumanSignalSerializer(required=False)


# ----------------------------------------------------------------------------- A.4 – A.6, Fig. 9


class RubricSourceSerializer(s.Serializer):
    source = s.CharField()
    matches = s.IntegerField()
    wins = s.IntegerField()
    ties = s.IntegerField()
    losses = s.IntegerField()
    win_rate = _float()
    tie_rate = _float()
    score = _float()


class SourceComparisonSerializer(s.Serializer):
    x = s.CharField()
    y = s.CharField()
    x_wins = s.IntegerField()
    y_wins = s.IntegerField()
    ties = s.IntegerField()
    pvalue = _float()
    method = s.CharField()
    note = s.CharField(allow_null=True)


class RubricComparisonAnalysisSerializer(s.Serializer):
    rankings = s.IntegerField()
    sources = RubricSourceSerializer(many=True)
    comparisons = SourceComparisonSerializer(many=True)
    human_signal = HumanSignalSerializer(required=False)


class SupportBlockSerializer(s.Serializer):
    agreement = _fig()
    kappa = _fig()
    judge_lenient = _fig(help_text="share of disagreements where the judge says supported")
    n = s.IntegerField()


class ClaimSubsetSerializer(s.Serializer):
    claim_support = SupportBlockSerializer(help_text="citation recall (003 A.5)")
    citation_support = SupportBlockSerializer(help_text="citation precision (003 A.5)")


class ClaimJudgeSerializer(s.Serializer):
    judge = s.CharField()
    all = ClaimSubsetSerializer()
    without = ClaimSubsetSerializer(required=False)
    excluded_system = s.CharField(required=False)


class ClaimAnalysisSerializer(s.Serializer):
    checks = s.IntegerField()
    unmatched_checks = s.IntegerField()
    judges = ClaimJudgeSerializer(many=True)
    human_signal = HumanSignalSerializer(required=False)
    note = s.CharField(required=False, help_text="what is missing when no judge has a figure: "
                       "a submitted check, a judge's claim verdicts, or a claim both judged")  # fmt: skip


class SettingRatesSerializer(s.Serializer):
    setting = s.CharField()
    n = s.IntegerField()
    keep = _float()
    switch = _float()
    subjective = _float()
    counts = s.ListField(child=s.IntegerField())


class SettingDifferenceSerializer(s.Serializer):
    a = s.CharField()
    b = s.CharField()
    pvalue_all = _float()
    pvalue_per_decision = s.DictField(child=_float())


class AdjudicationAnalysisSerializer(s.Serializer):
    settings = SettingRatesSerializer(many=True)
    differences = SettingDifferenceSerializer(many=True)
    human_signal = HumanSignalSerializer(required=False)


class RatingMeanSerializer(s.Serializer):
    mean = s.FloatField()
    n = s.IntegerField()


class AnnotatorMeanSerializer(s.Serializer):
    annotator = s.CharField(help_text="the annotator's pseudonym")
    system = s.CharField()
    mean = s.FloatField()
    n = s.IntegerField()


class CorrelationSerializer(s.Serializer):
    pearson = _float()
    spearman = _float()
    n = s.IntegerField()
    note = s.CharField(allow_null=True)


class DimensionSerializer(s.Serializer):
    dimension = s.CharField()
    by_system = s.DictField(child=RatingMeanSerializer())
    by_annotator = AnnotatorMeanSerializer(many=True)
    correlations = s.DictField(child=CorrelationSerializer(),
                               help_text="preference, and judge:metric")  # fmt: skip


class RatingsAnalysisSerializer(s.Serializer):
    dimensions = DimensionSerializer(many=True)
    human_signal = HumanSignalSerializer(required=False)


@_with_intervals
class LabelIAASerializer(s.Serializer):
    kind = s.CharField()
    level = s.CharField()
    units = s.IntegerField()
    pairs = s.IntegerField()
    strict = _interval_figure()
    cohen_kappa = _interval_figure(
        help_text="Cohen's κ, mean over annotator pairs (docs/ANALYSES.md §6)"
    )
    fleiss_kappa = _interval_figure()
    krippendorff_alpha = _interval_figure()
    note = s.CharField(allow_null=True, help_text="why a figure or its interval is null")


class LabelIAAListSerializer(s.Serializer):
    kinds = LabelIAASerializer(many=True)
    note = s.CharField(required=False, help_text="why no kind is given (the selection)")
    n_labels = s.IntegerField(required=False, help_text="labels read, of the selected units")
    human_signal = HumanSignalSerializer(required=False)


# ----------------------------------------------------------------------------- budget


class RouteSerializer(s.Serializer):
    route = s.CharField()
    new_questions = s.IntegerField(allow_null=True)
    extra_per_question = s.IntegerField(allow_null=True)
    units = s.IntegerField(allow_null=True)
    comparisons = s.IntegerField(allow_null=True)
    hours = _float()
    half_width = _float()
    note = s.CharField(allow_null=True)


class PilotSerializer(s.Serializer):
    figure = s.CharField()
    estimate = _float()
    half_width = _float()
    n_questions = s.IntegerField()
    n_units = s.IntegerField()
    n_comparisons = s.IntegerField()
    comparisons_per_unit = _float()
    seconds_per_unit = _float()


class BudgetAnalysisSerializer(s.Serializer):
    figure = s.CharField()
    target_half_width = s.FloatField()
    pilot = PilotSerializer(allow_null=True)
    reached = s.BooleanField()
    routes = RouteSerializer(many=True)
    cheapest = s.CharField(allow_null=True)
    judge = s.CharField(allow_null=True)
    notes = s.ListField(child=s.CharField())


# ----------------------------------------------------------------------------- DeepScholar Table 3


class DeepScholarKindSerializer(s.Serializer):
    kind = s.CharField(help_text="label kind (seed 002 Table 3 row)")
    agreement = _fig(help_text="share of units where the expert's and the judge's labels are equal")
    kappa = _fig(help_text="Cohen's κ, expert vs judge")
    n_units = s.IntegerField(help_text="expert labels with a judge label of the same unit")
    n_questions = s.IntegerField(help_text="questions of those units (bootstrap clusters)")
    paper = _float(help_text="the paper's agreement (Table 3)")
    human_labels = s.IntegerField(help_text="expert labels of this kind in the selection")
    unmatched = s.IntegerField(
        help_text="expert labels (majority / adjudicated signal: units) "
        "the judge did not label; see unmatched_note"
    )


class DeepScholarJudgeSerializer(s.Serializer):
    judge = s.CharField()
    kinds = DeepScholarKindSerializer(many=True)


class DeepScholarAnalysisSerializer(s.Serializer):
    judges = DeepScholarJudgeSerializer(many=True)
    unmatched_note = s.CharField(
        required=False, help_text="what unmatched counted under the human signal"
    )
    human_labels = s.DictField(child=s.IntegerField(), help_text="expert labels per kind")
    human_signal = HumanSignalSerializer(required=False)


# ----------------------------------------------------------------------------- expertise triage


class ExpertiseCountsSerializer(s.Serializer):
    within = s.IntegerField()
    near = s.IntegerField()
    outside = s.IntegerField()
    rated = s.IntegerField(help_text="self-ratings in all")


class ExpertiseTotalsSerializer(ExpertiseCountsSerializer):
    rated = None
    ratings = s.IntegerField()
    annotators = s.IntegerField()
    questions = s.IntegerField(help_text="questions with at least one self-rating")


class ExpertiseAnnotatorSerializer(ExpertiseCountsSerializer):
    annotator = s.CharField(help_text="the annotator's pseudonym")


class ExpertiseQuestionSerializer(ExpertiseCountsSerializer):
    question = s.CharField(help_text="the question's external id")


class ExpertiseCoverageSerializer(s.Serializer):
    level = s.CharField(help_text="within, near, outside or within_or_near")
    k = s.IntegerField()
    questions = s.IntegerField(help_text="questions with at least k annotators at the level")
    share = _float(help_text="of the questions with at least one self-rating")


class ExpertiseAgreementSerializer(AnalysisFigureSerializer):
    level = s.CharField(help_text="the annotator's self-rating of the question, or unrated")
    reference = s.CharField(help_text="judge or consensus (the other experts' plurality)")


class ExpertiseAnalysisSerializer(s.Serializer):
    totals = ExpertiseTotalsSerializer()
    by_annotator = ExpertiseAnnotatorSerializer(many=True)
    by_question = ExpertiseQuestionSerializer(many=True)
    coverage = ExpertiseCoverageSerializer(many=True)
    judge = s.CharField(allow_null=True)
    agreement = ExpertiseAgreementSerializer(many=True, allow_null=True)
    agreement_note = s.CharField(allow_null=True)
    human_signal = HumanSignalSerializer(required=False)


# ----------------------------------------------------------------------------- question authoring


class AuthoringSummarySerializer(s.Serializer):
    questions = s.IntegerField()
    accepted = s.IntegerField()
    pending = s.IntegerField()
    rejected = s.IntegerField()
    mean_chars = _float(help_text="mean length of the question text, in characters")
    median_chars = _float()
    mean_rubric_items = _float(help_text="rubric items per question (all its rubrics)")
    with_rubric = s.IntegerField()
    with_reports = s.IntegerField(help_text="questions a system's report answers")
    judged = s.IntegerField(help_text="questions at least one human judgment is about")


class AuthoringAnnotatorSerializer(AuthoringSummarySerializer):
    annotator = s.CharField(help_text="the author's pseudonym")


class AuthoringFieldSerializer(AuthoringSummarySerializer):
    field = s.CharField()


class AuthoredQuestionSerializer(s.Serializer):
    question = s.CharField(help_text="the question's external id")
    author = s.CharField()
    field = s.CharField()
    review = s.CharField()
    chars = s.IntegerField()
    rubric_items = s.IntegerField()
    reports = s.IntegerField()
    judged = s.BooleanField()


class AuthoringAnalysisSerializer(s.Serializer):
    total = AuthoringSummarySerializer()
    by_annotator = AuthoringAnnotatorSerializer(many=True)
    by_field = AuthoringFieldSerializer(many=True)
    questions = AuthoredQuestionSerializer(many=True)
    human_signal = HumanSignalSerializer(required=False)


# ----------------------------------------------------------------------------- scoreboards


class ScoreboardMetricSerializer(s.Serializer):
    key = s.CharField()
    label = s.CharField()
    definition = s.CharField()


class ScoreboardRowSerializer(s.Serializer):
    system = s.CharField()
    n = s.IntegerField(help_text="reports scored (battles for a Bradley–Terry board)")
    figures = s.DictField(child=AnalysisFigureSerializer(), help_text="metric key -> figure")


class ScoreboardBoardSerializer(s.Serializer):
    benchmark = s.ChoiceField(choices=["researcherbench", "researchqa", "scholarqa-cs2",
                                       "deepscholar", "scores"])  # fmt: skip
    title = s.CharField()
    paper = s.CharField(help_text="the paper's section or table the board reproduces")
    unit = s.CharField(help_text="what a row's n counts")
    judge = s.CharField()
    metrics = ScoreboardMetricSerializer(many=True)
    rows = ScoreboardRowSerializer(many=True, help_text="best first by the first metric")
    notes = s.ListField(child=s.CharField())


class ScoreboardAnalysisSerializer(s.Serializer):
    """Each benchmark's own scoreboard from judge results alone (docs/ANALYSES.md §14)."""

    rounds = s.IntegerField(help_text="bootstrap rounds of the intervals (0: none)")
    boards = ScoreboardBoardSerializer(many=True)
    notes = s.ListField(child=s.CharField())
    human_signal = HumanSignalSerializer(required=False, help_text="applies: false")
