"""Issue 13 on a study of Concord's own (the demo): compat mode where the script's IAA is
undefined, the fixed threshold on the command, the API and the page, intervals that
cannot exist."""

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from metaeval.reports import ReportOptions, agreement_report
from tests.metaeval.test_views import _float, command_json, page_values, url

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def demo(demo_module, researcher_user):
    """The demo study (loaded once for the module), which the test researcher was added to."""
    from annotation.models import Study

    study = Study.objects.get(pk=demo_module)
    study.researchers.add(researcher_user)
    return study


COMPAT = "scholarqa-cs2"


def _text_notes(report: dict) -> list[str]:
    return [n for n in report["notes"] if isinstance(n, str)]


def _third_annotator(study) -> None:
    """A third expert ranks what the demo's first annotator ranked, medal for medal."""
    from annotation.models import Annotator, Medal, MedalRanking

    rankings = MedalRanking.objects.filter(study=study).order_by("annotator_id", "id")
    first = rankings.first().annotator_id
    third = Annotator.objects.create(pseudonym="third-expert")
    for ranking in rankings.filter(annotator_id=first):
        copy = MedalRanking.objects.create(study=study, annotator=third, question=ranking.question,
                                           setting=ranking.setting)  # fmt: skip
        Medal.objects.bulk_create(
            Medal(ranking=copy, report_id=m.report_id, medal=m.medal)
            for m in Medal.objects.filter(ranking=ranking)
        )


def test_compat_on_three_annotators_reports_every_defined_figure(client, demo, researcher_user):
    """Three annotators in the assigned setting: the script's IAA (two slots) is null with
    a note; every other figure is there, on the command, the API and the page."""
    _third_annotator(demo)
    report = command_json(demo, "--compat", COMPAT, "--setting", "assigned")
    assert report["selection"]["n_annotators"] == 3
    assert report["iaa"]["strict"] is None and report["iaa"]["half_credit"] is None
    assert any("exactly two annotator slots" in n and "has 3" in n for n in _text_notes(report))
    assert report["preference"]["overall"]["agreement"] is not None
    assert report["system"]["tau_b"] is not None
    client.force_login(researcher_user)
    api = client.get(reverse("api-agreement", args=[demo.pk]),
                     {"compat": COMPAT, "settings": "assigned"})  # fmt: skip
    assert api.status_code == 200 and api.json() == report
    html = client.get(url(demo, compat=COMPAT, settings="assigned")).content.decode()
    assert 'id="report-error"' not in html
    values = page_values(html)
    for metric, fig in report["preference"].items():
        assert _float(values[("preference", metric, None, "agreement")]) == fig["agreement"]
    assert "exactly two annotator slots" in html


def test_fixed_threshold_in_default_mode_compares_at_that_threshold(client, demo, researcher_user):
    """``--threshold 0``: the "compare exactly" view; command, API and page agree."""
    calibrated = command_json(demo)
    exact = command_json(demo, "--threshold", "0")
    assert exact["selection"]["threshold"] == 0.0
    for table in ("preference", "metric_wise"):
        for metric, fig in exact[table].items():
            assert fig["threshold"] == 0.0
            assert fig["n"] == calibrated[table][metric]["n"]
    assert any(fig["threshold"] != 0.0 for fig in calibrated["preference"].values()), (
        "the demo's calibrated thresholds are not all 0, so the option changed something"
    )
    wide = command_json(demo, "--threshold", "2")  # every judge score pair ties
    assert all(f["judge_tie_rate"] == 1.0 for f in wide["preference"].values())
    client.force_login(researcher_user)
    api = client.get(reverse("api-agreement", args=[demo.pk]), {"threshold": "0"})
    assert api.status_code == 200 and api.json() == exact
    html = client.get(url(demo, threshold="0")).content.decode()
    assert 'id="opt-threshold"' in html and 'value="0.0"' in html
    values = page_values(html)
    for metric, fig in exact["preference"].items():
        assert _float(values[("preference", metric, None, "agreement")]) == fig["agreement"]
    bad = client.get(reverse("api-agreement", args=[demo.pk]), {"threshold": "x"})
    assert bad.status_code == 400 and "threshold" in json.dumps(bad.json())


@pytest.mark.parametrize(
    "args, message",
    [
        (["--threshold", "0.1", "--ties", "partial"], "ties=partial compares judge scores"),
        (["--threshold", "0.1", "--calibrate-on", "assigned"], "drop calibrate_on"),
        (["--threshold", "-0.5"], "threshold"),
        (["--compat", COMPAT, "--bootstrap", "10"], "bootstrap: compat"),
        (["--compat", COMPAT, "--target-half-width", "0.05"], "target_half_width: compat"),
    ],
)
def test_options_that_cannot_apply_are_refused(demo, args, message):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match=message):
        call_command("agreement", "--study", demo.name, *args, stdout=io.StringIO())


def test_compat_refuses_the_budget_planner_as_it_refuses_the_bootstrap(
    client, demo, researcher_user
):
    """The planner's half-widths are bootstrap intervals of the default mode's agreement: a
    compat report answered 200 with a plan whose pilot (0.4908) was not its own figure
    (0.5158). Refused, as the bootstrap is, on the API and the page alike."""
    with pytest.raises(ValueError, match="target_half_width: compat .* no confidence"):
        ReportOptions(compat=COMPAT, settings=("assigned",), target_half_width=0.05)
    client.force_login(researcher_user)
    query = {"compat": COMPAT, "settings": "assigned", "target_half_width": "0.05"}
    api = client.get(reverse("api-agreement", args=[demo.pk]), query)
    assert api.status_code == 400 and "target_half_width" in json.dumps(api.json())
    for refused in (
        api,
        client.get(
            reverse("api-agreement", args=[demo.pk]),
            {**query, "target_half_width": "", "bootstrap": "200"},
        ),
    ):
        assert refused.status_code == 400
    page = client.get(url(demo, **query))
    assert page.status_code == 400 and "target_half_width" in page.content.decode()
    plain = client.get(
        reverse("api-agreement", args=[demo.pk]),
        {"settings": "assigned", "target_half_width": "0.05"},
    )
    assert plain.status_code == 200  # the default mode still plans


def test_bootstrap_over_one_question_gives_no_interval_and_a_note(demo):
    from annotation.models import MedalRanking

    first = MedalRanking.objects.filter(study=demo).order_by("question_id").first().question_id
    MedalRanking.objects.filter(study=demo).exclude(question_id=first).delete()
    report = agreement_report(demo.pk, ReportOptions(bootstrap=100))
    assert report["selection"]["n_questions"] == 1
    cis = [fig["ci"] for fig in report["preference"].values() if "ci" in fig]
    assert cis and all(ci["agreement"] == [None, None] for ci in cis)
    assert any("No confidence interval" in n and "1 question" in n for n in report["notes"])


def test_the_judge_table_reports_skip_the_compat_notes(demo):
    """Issue 14: the judge table reads figures only, so the page computes its per-judge
    compat reports without the notes (each quirk's figures without it); a caller that
    wants the notes still gets them, never the bare report."""
    from metaeval.sections import Analysis

    page = ReportOptions(compat=COMPAT)
    agreed = ReportOptions(compat=COMPAT, expert_agreed=True)
    full = agreement_report(demo.pk, agreed)
    analysis = Analysis(demo.pk, page)
    bare = analysis.report_of(agreed, notes=False)
    assert full["notes"] and bare["notes"] == []
    assert bare["preference"] == full["preference"] and bare["system"] == full["system"]
    assert analysis.report_of(agreed)["notes"] == full["notes"]
    # the page's own report always has its notes, whoever asks first
    assert (
        analysis.report_of(page, notes=False)["notes"] == agreement_report(demo.pk, page)["notes"]
    )
