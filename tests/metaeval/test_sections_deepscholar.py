"""The DeepScholar Table 3 section (seed 002 §8.11): on the page, in the API (typed), in
`manage.py analysis --kind deepscholar_agreement --json`, in a CSV download and in the
offline HTML; its figures are the agreements the synthetic study was built with, and each
label kind's figure changes when an expert label of that kind is added — only that one."""

import pytest

from annotation.models import Annotator, DeepScholarLabel, Study
from annotation.models.deepscholar import LABELS
from judges.models import JudgeDeepScholarLabel
from metaeval.analyses.deepscholar import PAPER_AGREEMENT
from metaeval.sections.deepscholar import figure_name
from tests.builders.content import make_study
from tests.builders.deepscholar import QUESTIONS, synthetic_study

from .section_checks import assert_typed, command, everywhere, page_figures, svg

pytestmark = pytest.mark.django_db

KEY, TABLE = "deepscholar_agreement", "deepscholar_agreement"


def test_table3_section_everywhere_with_the_constructed_agreements(client, researcher_user,
                                                                   annotator_user):  # fmt: skip
    study = synthetic_study(annotator_user.annotator)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    got = everywhere(client, study, KEY, TABLE, figure_name("organization"), "?bootstrap=100")
    assert_typed(KEY, {"judges", "human_labels"})
    judges = {j["judge"]: {k["kind"]: k for k in j["kinds"]} for j in got["judges"]}
    assert set(judges) == {"gpt-4o", "always-first"}
    for kind, paper in PAPER_AGREEMENT.items():
        row = judges["gpt-4o"][kind]
        assert row["agreement"]["value"] == pytest.approx(paper), kind
        assert row["agreement"]["low"] <= paper <= row["agreement"]["high"]
        assert (row["n_units"], row["n_questions"], row["paper"]) == (100, QUESTIONS, paper)
        assert 0 < row["kappa"]["value"] < paper
    assert got["human_labels"]["nugget_importance"] == 101
    assert judges["gpt-4o"]["nugget_importance"]["unmatched"] == 1
    page = client.get(f"/reports/{study.pk}/").content.decode()
    for kind in LABELS:  # one figure per label kind
        assert f'id="figure-{figure_name(kind)}"' in page, kind


def test_each_kind_figure_moves_with_an_expert_label_of_its_kind(client, researcher_user,
                                                                annotator_user):  # fmt: skip
    study = synthetic_study(annotator_user.annotator)
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    second = Annotator.objects.create(pseudonym="second-expert")
    names = {k: figure_name(k) for k in LABELS}

    def figures():
        drawn = page_figures(client, study)
        assert all("<svg" in drawn[name] for name in names.values()), sorted(drawn)
        return {k: drawn[name] for k, name in names.items()}

    before = figures()
    for kind in LABELS:
        unit = JudgeDeepScholarLabel.objects.filter(judge__name="gpt-4o", kind=kind).first()
        DeepScholarLabel.objects.create(study=study, annotator=second, question=unit.question,
                                        kind=kind, report=unit.report, unit=unit.unit,
                                        label=LABELS[kind][-1])  # fmt: skip
        after = figures()
        moved = {k for k in LABELS if after[k] != before[k]}
        assert moved == {kind}, (kind, moved)
        before = after


def test_an_undefined_kind_is_null_with_its_note(client, researcher_user, annotator_user):
    """A judge whose labels match no expert label: every figure null with the note; κ of a
    constant pair null with its own note."""
    study = make_study("DeepScholar sparse")
    study.researchers.add(researcher_user)
    q = study.questions.create(external_id="q1", text="A paper")
    judge_labels = [JudgeDeepScholarLabel(judge_id=_judge("sparse-judge").pk, kind="nugget_importance",
                                          question=q, unit=f"n{i}", label="vital") for i in range(3)]  # fmt: skip
    JudgeDeepScholarLabel.objects.bulk_create(judge_labels)
    for i in range(3):
        DeepScholarLabel.objects.create(study=study, annotator=annotator_user.annotator,
                                        question=q, kind="nugget_importance", unit=f"n{i}",
                                        label="vital")  # fmt: skip
    got = command(study, KEY)
    kinds = {k["kind"]: k for k in got["judges"][0]["kinds"]}
    assert kinds["nugget_importance"]["agreement"]["value"] == 1.0
    assert kinds["nugget_importance"]["kappa"]["value"] is None
    assert "κ is undefined" in kinds["nugget_importance"]["kappa"]["note"]
    for kind in set(LABELS) - {"nugget_importance"}:
        assert kinds[kind]["agreement"]["value"] is None and kinds[kind]["agreement"]["note"]
    client.force_login(researcher_user)
    assert b"<svg" in svg(client, study, figure_name("organization"))


def test_no_section_without_deepscholar_labels(client, researcher_user):
    study = make_study("no DeepScholar")
    got = command(study, "label_quality")  # any other kind: the command runs
    assert got is None or isinstance(got, dict)
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("analysis", "--study", study.name, "--kind", KEY, "--json", stdout=out)
    assert '"deepscholar_agreement": null' in out.getvalue()
    assert Study.objects.filter(pk=study.pk).exists()


def _judge(name):
    from judges.models import Judge

    return Judge.objects.get_or_create(name=name)[0]


def test_the_report_cache_sees_a_new_or_changed_deepscholar_label(annotator_user):
    """The report's cache key follows the DeepScholar labels: a new expert label, a new
    judge label and a judge label changed in place (a re-import) each give a new key."""
    from metaeval.cache import study_fingerprint

    study = synthetic_study(annotator_user.annotator)
    seen = {study_fingerprint(study.pk)}
    unit = JudgeDeepScholarLabel.objects.filter(judge__name="gpt-4o", kind="entailment").first()
    DeepScholarLabel.objects.create(study=study, annotator=Annotator.objects.create(pseudonym="x"),
                                    question=unit.question, kind="entailment",
                                    report=unit.report, unit=unit.unit, label="entailed")  # fmt: skip
    seen.add(study_fingerprint(study.pk))
    JudgeDeepScholarLabel.objects.create(judge=unit.judge, kind="nugget_importance",
                                         question=unit.question, unit="new", label="vital")  # fmt: skip
    seen.add(study_fingerprint(study.pk))
    other = "not_entailed" if unit.label == "entailed" else "entailed"
    JudgeDeepScholarLabel.objects.filter(pk=unit.pk).update(label=other)
    seen.add(study_fingerprint(study.pk))
    assert len(seen) == 4
