"""DeepScholar-Bench human–judge agreement (seed 002 §8.11, Table 3; METHODS §7;
docs/ANALYSES.md §10): per judge and label kind — organization, nugget importance, nugget
support, retrieval relevance, reference importance, claim–source entailment — the share of
units where the expert's label equals the judge's (three-way labels compared as is) and
Cohen's κ, each with a cluster-bootstrap CI over questions, beside the paper's agreement. A
kind without a unit labelled by both sides is null with its note.

The judge's labels are the imported ones (``judge_scores`` / ``deepscholar-labels``) or a
live run's (the DeepScholar kinds of :mod:`judges.kinds`): the same rows either way. One
figure per label kind, so that a new expert label moves the figure of its own kind."""

from annotation.models import DeepScholarLabel
from judges.models import JudgeDeepScholarLabel

from ..analyses.deepscholar import PAPER_AGREEMENT, analyse_deepscholar
from ..analysis_schema import DeepScholarAnalysisSerializer
from ..loaders.deepscholar import load_deepscholar
from . import _kit
from .base import FigureSpec, Section, register

KINDS = tuple(PAPER_AGREEMENT)
TITLES = {
    "organization": "organization (pairwise vs the exemplar)",
    "nugget_importance": "nugget importance",
    "nugget_support": "nugget support",
    "retrieval_relevance": "retrieval relevance (0/1/2)",
    "reference_importance": "reference importance",
    "entailment": "claim–source entailment",
}
COLUMNS = ["judge", "kind", *(f"agreement_{c}" for c in _kit.FIG_COLUMNS),
           *(f"kappa_{c}" for c in _kit.FIG_COLUMNS), "n_units", "n_questions",
           "human_labels", "unmatched", "paper"]  # fmt: skip


def _compute(analysis):
    sid = analysis.study_id
    if not (_kit.has(DeepScholarLabel, sid)
            or JudgeDeepScholarLabel.objects.filter(question__study_id=sid).exists()):  # fmt: skip
        return None
    signal = analysis.options.human_signal
    data = load_deepscholar(sid, _kit.settings(analysis), signal == "adjudicated")
    out = analyse_deepscholar(data, rounds=_kit.rounds(analysis), seed=analysis.options.seed,
                              signal=signal, failed=_kit.failed(analysis))  # fmt: skip
    out["human_labels"] = {k: int(data.n_human.get(k, 0)) for k in KINDS}
    return out


def _tables(result, entry):
    if not result:
        return {}
    rows = [{"judge": j["judge"], "kind": k["kind"], **_kit.cells(k["agreement"], "agreement_"),
             **_kit.cells(k["kappa"], "kappa_"), "n_units": k["n_units"],
             "n_questions": k["n_questions"], "human_labels": k["human_labels"],
             "unmatched": k["unmatched"], "paper": k["paper"]}
            for j in result["judges"] for k in j["kinds"]]  # fmt: skip
    return {"deepscholar_agreement": (rows, COLUMNS)}


def _figure_data(kind: str):
    def data(result, entry):
        if not result:
            return None
        return [(j["judge"], k) for j in result["judges"] for k in j["kinds"] if k["kind"] == kind]

    return data


def _drawer(kind: str):
    def draw(result, entry):
        if not result:
            return None
        rows = []
        for judge, k in _figure_data(kind)(result, entry):
            rows += [(f"{judge}: agreement", k["agreement"]), (f"{judge}: Cohen's κ", k["kappa"])]
        rows.append(("paper (Table 3): agreement", {"value": PAPER_AGREEMENT[kind]}))
        return _kit.intervals_figure(rows, "expert vs judge: agreement and Cohen's κ",
                                     title=TITLES[kind], xlim=(-1, 1))  # fmt: skip

    return draw


def figure_name(kind: str) -> str:
    return "deepscholar-" + kind.replace("_", "-")


def _text(result) -> str:
    if not result or not result["judges"]:
        return "deepscholar: no judge label in this selection"
    return "\n".join(
        f"deepscholar {j['judge']}: "
        + ", ".join(
            f"{k['kind']} {k['agreement']['value']} (κ {k['kappa']['value']})" for k in j["kinds"]
        )  # fmt: skip
        for j in result["judges"]
    )


register(Section(
    key="deepscholar_agreement",
    title="DeepScholar-Bench human–judge agreement (DeepScholar §8.11, Table 3)",
    compute=_compute, template="metaeval/sections/analysis.html", tables=_tables,
    figures=tuple(FigureSpec(figure_name(k), f"Table 3: {TITLES[k]}", _drawer(k), _figure_data(k))
                  for k in KINDS),
    text=_text, serializer=DeepScholarAnalysisSerializer, order=71,
))  # fmt: skip
