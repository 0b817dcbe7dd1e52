"""Every kind of human judgment, declared once: the export, the import, the API and the
label IAA derive from this table (issue 26: DeepScholar labels, expertise triage, question
authoring and rubric comparison had no way out, so none could be re-imported elsewhere).

A kind is one record of ``judgments.{json,jsonl,csv,xlsx,parquet}`` (``kind`` names it).
It says which model holds it, which task types write it, its export columns (column ->
lookup from the model), how the import finds what it judges by natural key (``target``),
which of its columns are its own values and which extend its identity, and the path of its
read-only list under ``/api/judgments/``. ``tests/annotation/test_judgment_kinds.py``
fails when a judgment model or a task type has no kind here.

Natural keys, never database or public ids (those differ between studies): a question by
its id, a report by question and system name, a paragraph by its report and number, a
rubric item by question, rubric kind and position, a claim by its report and position.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotation.models import Study

T = Study.Task

#: Columns every judgment record has (lookups from the judgment). Annotators appear by
#: pseudonym only, reports by public id with their system's name.
COMMON = {
    "annotator": "annotator__pseudonym",
    "setting": "setting",
    "task": "assignment__task",
    "question": "question__external_id",
    "field": "question__field",
    "split": "question__split",
    "created_at": "created_at",
    "updated_at": "updated_at",
}
REPORT = {"report": "report__public_id", "system": "report__system__name"}
#: The column every record gets from its annotator's qualification round in the study,
#: so researchers can leave out the work of annotators who failed it (derived, not a lookup;
#: an import ignores it): one of :data:`QUALIFICATION_STATUSES` — ``undecided`` while items
#: are left, ``not_required`` in a study that requires no qualification round.
QUALIFICATION = "annotator_qualification"
QUALIFICATION_STATUSES = ("passed", "failed", "undecided", "not_required")
#: The column saying whether a record answers a known-answer item (derived, not a lookup;
#: an import ignores it): ``qualification`` or ``gold`` when its task on its question holds
#: a qualification or gold item of the study (its labels there are scored against the known
#: answer, whatever its setting says), else null. The judgment a known answer was taken from
#: is not marked by that item (it is ordinary work, never scored against itself). A
#: researcher leaves these records out of any figure about ordinary work: gold items are
#: released to every annotator, expert of the field or not (docs/QUALITY.md).
QUALITY_CHECK = "quality_check"
QUALITY_CHECKS = ("qualification", "gold")
#: The columns that are times (ISO 8601 text in JSON and CSV; timestamps in parquet).
TIMES = ("created_at", "updated_at")


@dataclass(frozen=True)
class JudgmentKind:
    key: str
    #: The model of one record (``app.Model``).
    model: str
    #: The task types whose pages write it.
    tasks: tuple[str, ...]
    #: Its own export columns: column -> lookup from ``model`` (after ``prefix``'s common).
    columns: dict[str, str]
    #: What the import looks up: "report", "report_or_none" (a question's own unit when the
    #: system is empty), "paragraph", "item", "report_item", "left_right", "claim",
    #: "rubric" or "" (the question itself).
    target: str = ""
    #: Columns the import writes as values, and those that extend the identity.
    values: tuple[str, ...] = ()
    identity: tuple[str, ...] = ()
    #: Column -> model field where they differ (``label_kind`` is DeepScholarLabel.kind:
    #: ``kind`` names the record's kind).
    fields: dict[str, str] = field(default_factory=dict)
    #: Lookup prefix from ``model`` to the judgment that holds the common columns.
    prefix: str = ""
    #: The common columns (lookups), when not :data:`COMMON`.
    common: dict[str, str] | None = None
    #: Lookup from ``model`` to its study's id.
    study: str = "study"
    #: Path under ``/api/judgments/``, and the model it lists when not ``model`` (a medal
    #: ranking lists its medals, a rubric comparison its assessments).
    api: str = ""
    api_model: str = ""
    #: Its JSON columns that hold a list of strings (typed ``list<string>`` in parquet); any
    #: other JSON column (objects, lists of objects) is JSON text there, as in the CSV.
    lists: tuple[str, ...] = ()

    @property
    def common_columns(self) -> dict[str, str]:
        base = COMMON if self.common is None else self.common
        return {k: self.prefix + v for k, v in base.items()}

    def model_field(self, column: str) -> str:
        return self.fields.get(column, column)


KINDS: tuple[JudgmentKind, ...] = (
    JudgmentKind(
        "medal", "annotation.Medal", (T.MEDAL_RANKING, T.METRIC_WISE),
        {"ranking": "ranking_id", **REPORT, "medal": "medal", "reasoning": "ranking__reasoning"},
        target="report", values=("medal",), prefix="ranking__", study="ranking__study",
        api="medal-rankings", api_model="annotation.MedalRanking",
    ),
    JudgmentKind(
        "pairwise_preference", "annotation.PairwisePreference", (T.PAIRWISE,),
        {"left_report": "left__public_id", "left_system": "left__system__name",
         "right_report": "right__public_id", "right_system": "right__system__name",
         "choice": "choice", "reason": "reason"},
        target="left_right", values=("choice", "reason"), api="pairwise-preferences",
    ),
    JudgmentKind(
        "human_metric_score", "annotation.HumanMetricScore", (T.METRIC_WISE, T.MEDAL_RANKING),
        {**REPORT, "metric": "metric", "value": "value"},
        target="report", values=("value",), identity=("metric",), api="metric-scores",
    ),
    JudgmentKind(
        "paragraph_relevance", "annotation.ParagraphRelevance", (T.METRIC_WISE,),
        {"report": "paragraph__report__public_id", "system": "paragraph__report__system__name",
         "paragraph": "paragraph__number", "label": "label"},
        target="paragraph", values=("label",), api="paragraph-relevance",
    ),
    JudgmentKind(
        "claim_assessment", "annotation.ClaimAssessment", (T.METRIC_WISE,),
        {**REPORT, "paragraph": "paragraph__number", "position": "position", "text": "text",
         "citation_count": "citation_count", "citations": "citations",
         "supporting_credit": "supporting_credit", "coverage": "coverage", "notes": "notes"},
        target="report",
        values=("paragraph", "text", "citation_count", "citations", "supporting_credit",
                "coverage", "notes"),
        identity=("position",), api="claim-assessments",
    ),
    JudgmentKind(
        "report_rating", "annotation.ReportRating", (T.METRIC_WISE,),
        {**REPORT, "dimension": "dimension", "value": "value"},
        target="report", values=("value",), identity=("dimension",), api="report-ratings",
    ),
    JudgmentKind(
        "query_quality", "annotation.QueryQuality", (T.QUERY_QUALITY,),
        {"clarity": "clarity", "naturalness": "naturalness", "relevance": "relevance",
         "variability": "variability", "comment": "comment"},
        values=("clarity", "naturalness", "relevance", "variability", "comment"),
        api="query-quality",
    ),
    JudgmentKind(
        "rubric_item_quality", "annotation.RubricItemQuality", (T.RUBRIC_ITEM_QUALITY,),
        {"rubric": "item__rubric__kind", "item": "item__position", "emphasis": "emphasis",
         "necessity": "necessity", "confidence": "confidence", "flags": "flags"},
        target="item", values=("emphasis", "necessity", "confidence", "flags"),
        api="rubric-item-quality", lists=("flags",),
    ),
    JudgmentKind(
        "rubric_coverage", "annotation.RubricCoverage", (T.RUBRIC_COVERAGE,),
        {**REPORT, "rubric": "item__rubric__kind", "item": "item__position", "label": "label",
         "covered": "covered"},
        target="report_item", values=("label", "covered"), api="rubric-coverage",
    ),
    JudgmentKind(
        "rubric_assessment", "annotation.RubricAssessment", (T.RUBRIC_COMPARISON,),
        {"comparison": "comparison_id", "rubric": "rubric__kind", "medal": "medal",
         "strengths": "strengths", "missing": "missing", "weaknesses": "weaknesses",
         "reasoning": "comparison__reasoning"},
        target="rubric", values=("medal", "strengths", "missing", "weaknesses"),
        prefix="comparison__", study="comparison__study", api="rubric-comparisons",
        api_model="annotation.RubricComparison",
    ),
    JudgmentKind(
        "claim_check", "annotation.ClaimCheck", (T.CLAIM_CHECK,),
        {"report": "claim__report__public_id", "system": "claim__report__system__name",
         "claim": "claim__position", "claim_text": "claim__text", "skipped": "skipped",
         "fully_supported": "fully_supported", "citation_supports": "citation_supports"},
        target="claim", values=("skipped", "fully_supported", "citation_supports"),
        api="claim-checks",
    ),
    JudgmentKind(
        "relevance_adjudication", "annotation.RelevanceAdjudication", (T.RELEVANCE_ADJUDICATION,),
        {"report": "disagreement__paragraph__report__public_id",
         "system": "disagreement__paragraph__report__system__name",
         "paragraph": "disagreement__paragraph__number", "judge": "disagreement__judge__name",
         "annotator_label": "disagreement__annotator_label",
         "judge_relevant": "disagreement__judge_relevant",
         "judge_rationale": "disagreement__judge_rationale", "decision": "decision",
         "reason": "reason", "final_label": "final_label"},
        target="paragraph",
        values=("judge", "annotator_label", "judge_relevant", "judge_rationale", "decision",
                "reason", "final_label"),
        api="relevance-adjudications",
    ),
    JudgmentKind(
        "deepscholar_label", "annotation.DeepScholarLabel",
        (T.ORGANIZATION, T.NUGGET_IMPORTANCE, T.NUGGET_SUPPORT, T.RETRIEVAL_RELEVANCE,
         T.REFERENCE_IMPORTANCE, T.ENTAILMENT),
        {"label_kind": "kind", **REPORT, "unit": "unit", "label": "label"},
        target="report_or_none", values=("label",), identity=("label_kind", "unit"),
        fields={"label_kind": "kind"}, api="deepscholar-labels",
    ),
    JudgmentKind(
        "expertise_rating", "annotation.ExpertiseRating", (T.EXPERTISE_TRIAGE,),
        {"level": "level"},
        values=("level",),
        common={"annotator": "annotator__pseudonym", "question": "question__external_id",
                "field": "question__field", "split": "question__split",
                "updated_at": "rated_at"},
        study="question__study", api="expertise-ratings",
    ),
    JudgmentKind(
        "authored_question", "annotation.Question", (T.QUESTION_AUTHORING,),
        {"text": "text", "subdomain": "subdomain", "author_notes": "author_notes",
         "review": "review", "origin": "origin"},
        values=("text", "field", "subdomain", "author_notes", "review"),
        common={"annotator": "authored_by__pseudonym", "question": "external_id",
                "field": "field", "split": "split"},
        study="study",
    ),
)  # fmt: skip

BY_KEY: dict[str, JudgmentKind] = {k.key: k for k in KINDS}


def records_filter(kind: JudgmentKind, study_id: int) -> dict:
    """The filter selecting ``kind``'s records of a study (authored questions: only those an
    annotator wrote)."""
    out = {kind.study: study_id}
    if kind.key == "authored_question":
        out["authored_by__isnull"] = False
    return out


__all__ = [
    "BY_KEY",
    "COMMON",
    "KINDS",
    "QUALIFICATION",
    "QUALIFICATION_STATUSES",
    "QUALITY_CHECK",
    "QUALITY_CHECKS",
    "REPORT",
    "JudgmentKind",
    "records_filter",
]


#: judgment model -> lookups from a judgment to the report(s) it is about: the one
#: declaration the API's judgment lists (``system``, ``describe``) and the report's systems
#: with expert judgments (``metaeval.loaders.judged_systems``) read.
REPORT_PATHS: dict[str, tuple[str, ...]] = {
    "MedalRanking": ("medals__report",),
    "PairwisePreference": ("left", "right"),
    "HumanMetricScore": ("report",),
    "ParagraphRelevance": ("paragraph__report",),
    "ClaimAssessment": ("report",),
    "ReportRating": ("report",),
    "RubricCoverage": ("report",),
    "ClaimCheck": ("claim__report",),
    "RelevanceAdjudication": ("disagreement__paragraph__report",),
    "DeepScholarLabel": ("report",),
}
