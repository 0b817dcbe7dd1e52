"""The study report page: access, numbers equal to the command's JSON, htmx updates,
cache invalidation, bootstrap runs with progress, constant query counts."""

import io
import json
from html import unescape
from html.parser import HTMLParser

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Medal, Study
from judges.models import JudgeScore
from metaeval import views
from metaeval.labels import note_text
from metaeval.models import ReportRun
from metaeval.reports import ReportOptions, agreement_report
from tests.builders.ranked import ranked_study

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def demo(demo_module, researcher_user):
    """The demo study (loaded once for the module), which the test researcher was added to
    (a researcher reads only their studies)."""
    study = Study.objects.get(pk=demo_module)
    study.researchers.add(researcher_user)
    return study


class _Values(HTMLParser):
    """(table, row, judge, key) -> data-value of every cell that carries one."""

    def __init__(self):
        super().__init__()
        self.table = self.row = None
        self.values: dict = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.table = a.get("data-table")
        elif tag == "tr":
            self.row = a.get("data-metric") or a.get("data-system") or a.get("data-note")
        if "data-key" in a and "data-value" in a:
            key = (self.table, self.row, a.get("data-judge"), a["data-key"])
            self.values[key] = a["data-value"]
            if "data-ci" in a:
                self.values[key + ("ci",)] = a["data-ci"]

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = self.row = None
        elif tag == "tr":
            self.row = None


def page_values(html: str) -> dict:
    parser = _Values()
    parser.feed(html)
    return parser.values


def _float(text: str):
    return None if text == "" else float(text)


def command_json(study, *args) -> dict:
    out = io.StringIO()
    call_command("agreement", "--study", str(study.pk), "--json", *args, stdout=out)
    return json.loads(out.getvalue())


def assert_page_equals_report(values: dict, report: dict):
    """Every number of the report dict's tables is on the page, exactly."""
    checked = 0
    for table in ("preference", "metric_wise"):
        for metric, fig in report[table].items():
            for key in ("agreement", "tau_b", "n", "threshold", "human_tie_rate",
                        "judge_tie_rate"):  # fmt: skip
                if key in fig:
                    assert _float(values[(table, metric, None, key)]) == fig[key], (table, metric)
                    checked += 1
            if "ci" in fig:
                lo, hi = values[(table, metric, None, "agreement", "ci")].split(",")
                assert [_float(lo), _float(hi)] == fig["ci"]["agreement"]
    for key, value in report["iaa"].items():
        if ("iaa", None, None, key) in values:
            assert _float(values[("iaa", None, None, key)]) == value, key
            checked += 1
    for s in report["system"]["systems"]:
        for key in ("human_win_rate", "judge_win_rate"):
            assert _float(values[("system", s["system"], None, key)]) == s[key]
            checked += 1
    assert checked > 10


def url(study, **query):
    from urllib.parse import urlencode

    base = reverse("metaeval:report", args=[study.pk])
    return f"{base}?{urlencode(query)}" if query else base


# ----------------------------------------------------------------------------- access


def test_anonymous_is_sent_to_login(client, demo):
    response = client.get(url(demo))
    assert response.status_code == 302 and "login" in response["Location"]


def test_annotators_are_refused(client, demo, annotator_user):
    client.force_login(annotator_user)
    assert client.get(url(demo)).status_code == 403
    figure = reverse("metaeval:figure", args=[demo.pk, "system", "svg"])
    assert client.get(figure).status_code == 403
    assert client.get(reverse("metaeval:offline", args=[demo.pk])).status_code == 403


def test_home_links_each_study_to_its_report(client, demo, researcher_user):
    client.force_login(researcher_user)
    assert url(demo) in client.get("/").content.decode()


def test_unknown_study_is_404(client, researcher_user):
    client.force_login(researcher_user)
    assert client.get(reverse("metaeval:report", args=[999])).status_code == 404


# ----------------------------------------------------------------------------- numbers


def test_demo_page_shows_the_command_json(client, demo, researcher_user):
    client.force_login(researcher_user)
    response = client.get(url(demo))
    assert response.status_code == 200
    html = response.content.decode()
    assert_page_equals_report(page_values(html), command_json(demo))
    for section in ("section-iaa", "section-agreement", "section-system", "section-annotators",
                    "section-calibration", "section-confusion"):  # fmt: skip
        assert f'id="{section}"' in html
    for figure in ("system", "calibration-preference", "confusion-preference", "annotator-judge",
                   "annotator-self", "calibration-metric_wise"):  # fmt: skip
        assert f'id="figure-{figure}"' in html
    assert html.count("<svg") >= 6


@pytest.mark.parametrize(
    "query, args",
    [
        ({"ties": "partial"}, ["--ties", "partial"]),
        ({"ties": "exclude", "calibration": "max-accuracy"},
         ["--ties", "exclude", "--calibration", "max-accuracy"]),
        ({"expert_agreed": "true"}, ["--expert-agreed"]),
        ({"judge": "gpt-judge-sim"}, ["--judge", "gpt-judge-sim"]),
        ({"systems": "atlas-dr,quill-rag,scholarbot-v2"},
         ["--systems", "atlas-dr,quill-rag,scholarbot-v2"]),
        ({"settings": "assigned"}, ["--setting", "assigned"]),
    ],
)  # fmt: skip
def test_selectors_give_the_command_json(client, demo, researcher_user, query, args):
    from judges.models import Judge

    # score judges (the demo's pairwise judges have no score to select a report by)
    judges = set(Judge.objects.filter(scores__isnull=False).values_list("name", flat=True))
    if "judge" in query and query["judge"] not in judges:
        query["judge"] = args[1] = sorted(judges)[-1]
    client.force_login(researcher_user)
    html = client.get(url(demo, **query)).content.decode()
    assert_page_equals_report(page_values(html), command_json(demo, *args))


def test_compat_mode_lists_its_differences(client, demo, researcher_user):
    client.force_login(researcher_user)
    html = client.get(url(demo, compat="scholarqa-cs2")).content.decode()
    report = command_json(demo, "--compat", "scholarqa-cs2")
    values = page_values(html)
    for metric, fig in report["preference"].items():
        assert _float(values[("preference", metric, None, "agreement")]) == fig["agreement"]
    for note in report["notes"]:
        if isinstance(note, str):  # a text note (why κ and α are null, ...): shown worded
            assert note_text(note) in unescape(html)  # (metaeval.labels: "— null:" in words)
            continue
        assert f'data-quirk="{note["quirk"]}"' in html
        row = f"{note['quirk']}/{note['figure']}"
        assert _float(values[("notes", row, None, "compat")]) == note["compat"]
        assert _float(values[("notes", row, None, "default")]) == note["default"]
    if report["notes"]:
        assert "Differences from the default computation" in html


def test_every_system_ticked_is_the_default_selection(demo):
    from django.test import RequestFactory

    systems = ["atlas-dr", "baseline-llm", "quill-rag", "scholarbot-v2"]
    request = RequestFactory().get("/", {"systems": systems})
    assert views._options(request, systems) == ReportOptions()
    request = RequestFactory().get("/", {"systems": systems[:2]})
    assert views._options(request, systems).systems == tuple(systems[:2])


def test_a_bad_option_names_itself(client, demo, researcher_user):
    client.force_login(researcher_user)
    html = client.get(url(demo, ties="sometimes")).content.decode()
    assert "ties" in html and "sometimes" in html and 'id="report-error"' in html
    html = client.get(url(demo, bootstrap="many")).content.decode()
    assert "bootstrap" in html and "whole number" in html


# ----------------------------------------------------------------------------- htmx


def test_htmx_request_gets_the_report_body_only(client, demo, researcher_user):
    client.force_login(researcher_user)
    response = client.get(url(demo, ties="partial"), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="report-body"')
    assert "<html" not in html and 'id="report-options"' not in html
    assert_page_equals_report(page_values(html), command_json(demo, "--ties", "partial"))


def test_the_form_keeps_the_selection(client, demo, researcher_user):
    client.force_login(researcher_user)
    html = client.get(url(demo, ties="exclude", expert_agreed="true")).content.decode()
    assert '<option value="exclude" selected>' in html
    assert 'id="opt-expert-agreed" checked' in html
    assert "ties=exclude" in html  # download links carry the selection


# ----------------------------------------------------------------------------- cache


def test_cached_until_a_judgment_changes(client, demo, researcher_user, monkeypatch):
    client.force_login(researcher_user)
    calls = []
    real = views.agreement_report
    monkeypatch.setattr(views, "agreement_report", lambda *a, **k: calls.append(1) or real(*a, **k))
    client.get(url(demo))
    client.get(url(demo))
    assert len(calls) == 1
    medal = Medal.objects.order_by("id").first()
    medal.medal = "bronze" if medal.medal != "bronze" else "gold"
    medal.save()
    client.get(url(demo))
    assert len(calls) == 2
    score = JudgeScore.objects.order_by("id").first()
    score.value += 0.5
    score.save()
    client.get(url(demo))
    assert len(calls) == 3


def test_fingerprint_changes_with_each_judgment_table(demo):
    from annotation.models import HumanMetricScore, MedalRanking

    seen = {views.study_fingerprint(demo.pk)}
    ranking = MedalRanking.objects.first()
    ranking.reasoning = "edited"
    ranking.save()
    seen.add(views.study_fingerprint(demo.pk))
    score = HumanMetricScore.objects.first()
    score.value = 1 - score.value
    score.save()
    seen.add(views.study_fingerprint(demo.pk))
    JudgeScore.objects.filter(pk=JudgeScore.objects.first().pk).update(value=0.123456)
    seen.add(views.study_fingerprint(demo.pk))
    assert len(seen) == 4


def _queries(client, path) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(path).status_code == 200
    return len(ctx.captured_queries)


def test_constant_number_of_queries(client, researcher_user):
    small = ranked_study(n_questions=3, name="small")
    large = ranked_study(n_questions=15, name="large", seed=1)
    for study in (small, large):
        study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    client.get("/")  # session and roles warm-up
    cold = [_queries(client, url(s)) for s in (small, large)]
    warm = [_queries(client, url(s)) for s in (small, large)]
    assert cold[0] == cold[1]
    assert warm[0] == warm[1]
    # the form's queries and the fingerprint's six (metaeval/cache.py)
    assert warm[0] <= 14, "a cached report costs the form's and the fingerprint's queries"
    htmx = [_queries(client, url(s, ties="partial")) for s in (small, large)]
    assert htmx[0] == htmx[1]


# ----------------------------------------------------------------------------- bootstrap


def test_bootstrap_runs_as_a_task_and_shows_intervals(client, demo, researcher_user):
    client.force_login(researcher_user)
    assert client.post(url(demo, bootstrap=200)).status_code == 302  # the page's button
    html = client.get(url(demo, bootstrap=200)).content.decode()
    run = ReportRun.objects.get()
    assert run.status == ReportRun.Status.DONE  # eager without a broker
    assert run.options["bootstrap"] == 200
    values = page_values(html)
    report = run.result
    assert_page_equals_report(values, report)
    assert values[("preference", "overall", None, "agreement", "ci")]
    assert 'class="ci"' in html
    for system in report["system"]["systems"]:  # each win rate shows its own interval
        lo, hi = system["ci"]["human_win_rate"]
        shown = values[("system", system["system"], None, "human_win_rate", "ci")]
        assert [float(x) for x in shown.split(",")] == pytest.approx([lo, hi])
    client.get(url(demo, bootstrap=200))
    assert ReportRun.objects.count() == 1, "the cached result is reused"


def test_a_running_report_shows_progress_and_polls(client, demo, researcher_user, monkeypatch):
    def pending(study, options, user=None):
        return ReportRun.objects.create(study=study, options=options.to_dict(),
                                        status=ReportRun.Status.RUNNING, progress=0.25)  # fmt: skip

    monkeypatch.setattr(views, "start_report", pending)
    client.force_login(researcher_user)
    client.post(url(demo, bootstrap=1000))
    html = client.get(url(demo, bootstrap=1000)).content.decode()
    run = ReportRun.objects.get()
    poll = reverse("metaeval:run", args=[demo.pk, run.pk])
    assert f'hx-get="{poll}"' in html and 'hx-trigger="every 1s"' in html
    assert 'value="25"' in html
    # a second visit does not start another run
    client.get(url(demo, bootstrap=1000))
    assert ReportRun.objects.count() == 1
    ReportRun.objects.filter(pk=run.pk).update(progress=0.6)
    html = client.get(poll).content.decode()
    assert 'value="60"' in html and "every 1s" in html
    options = ReportOptions(bootstrap=1000)
    result = json.loads(json.dumps(agreement_report(demo.pk, options)))
    ReportRun.objects.filter(pk=run.pk).update(status=ReportRun.Status.DONE, progress=1.0,
                                               result=result)  # fmt: skip
    html = client.get(poll).content.decode()
    assert "every 1s" not in html
    assert_page_equals_report(page_values(html), result)


def test_a_failed_run_shows_its_error(client, demo, researcher_user, monkeypatch):
    def failed(study, options, user=None):
        return ReportRun.objects.create(study=study, options=options.to_dict(),
                                        status=ReportRun.Status.RUNNING)  # fmt: skip

    monkeypatch.setattr(views, "start_report", failed)
    client.force_login(researcher_user)
    client.post(url(demo, bootstrap=1000))
    run = ReportRun.objects.get()
    ReportRun.objects.filter(pk=run.pk).update(status=ReportRun.Status.FAILED, error="boom")
    html = client.get(reverse("metaeval:run", args=[demo.pk, run.pk])).content.decode()
    assert "boom" in html and "every 1s" not in html


def test_a_get_never_starts_a_run(client, demo, researcher_user):
    """A plain GET (an image tag on another site can make a browser send one) shows the
    button that starts the run; only the CSRF-protected POST starts it."""
    client.force_login(researcher_user)
    for _ in range(2):
        html = client.get(url(demo, bootstrap=1000)).content.decode()
        assert 'id="start-run"' in html and "csrfmiddlewaretoken" in html
    html = client.get(url(demo, bootstrap=1000), HTTP_HX_REQUEST="true").content.decode()
    assert 'id="start-run"' in html
    assert ReportRun.objects.count() == 0
    forged = Client(enforce_csrf_checks=True)
    forged.force_login(researcher_user)
    assert forged.post(url(demo, bootstrap=1000)).status_code == 403
    assert ReportRun.objects.count() == 0


def test_runs_of_another_study_are_404(client, demo, researcher_user):
    other = Study.objects.create(name="other")
    run = ReportRun.objects.create(study=other, options={})
    client.force_login(researcher_user)
    assert client.get(reverse("metaeval:run", args=[demo.pk, run.pk])).status_code == 404


def test_a_researcher_not_added_to_the_study_gets_404_everywhere(client, demo):
    """Another lab's researcher: the report, its downloads, its runs and the API say the
    study does not exist; the studies they were added to stay readable."""
    from tests.builders.users import make_user

    outsider = make_user("outsider_t", "researcher")
    run = ReportRun.objects.create(study=demo, options={})
    client.force_login(outsider)
    paths = [
        url(demo),
        reverse("metaeval:json", args=[demo.pk]),
        reverse("metaeval:offline", args=[demo.pk]),
        reverse("metaeval:table", args=[demo.pk, "system", "csv"]),
        reverse("metaeval:figure", args=[demo.pk, "system", "svg"]),
        reverse("metaeval:run", args=[demo.pk, run.pk]),
        f"/api/studies/{demo.pk}/",
        f"/api/studies/{demo.pk}/agreement/",
        f"/api/studies/{demo.pk}/judge-alignment/",
        f"/api/report-runs/{run.pk}/",
        reverse("studies:progress", args=[demo.pk]),
        reverse("judge-run-list", args=[demo.pk]),
    ]
    assert {p: client.get(p).status_code for p in paths} == dict.fromkeys(paths, 404)
    started = client.post("/api/report-runs/", {"study": demo.pk}, content_type="application/json")
    assert started.status_code == 404 and ReportRun.objects.count() == 1
    assert client.get("/api/studies/").json()["results"] == []
    assert url(demo) not in client.get(reverse("home")).content.decode()
    demo.researchers.add(outsider)
    assert client.get(url(demo)).status_code == 200


def test_per_judge_table_and_cross_judge_matrix(client, demo, researcher_user):
    alignment = pytest.importorskip("metaeval.alignment")
    client.force_login(researcher_user)
    html = client.get(url(demo)).content.decode()
    values = page_values(html)
    data = alignment.judge_alignment(demo.pk, ReportOptions())
    assert len(data["judges"]) == 2
    for judge in data["judges"]:
        for metric, fig in judge["all"]["preference"].items():
            key = ("judges", metric, judge["judge"], "agreement")
            assert _float(values[key]) == fig["agreement"]
            assert _float(values[("judges", metric, judge["judge"], "tau_b")]) == fig["tau_b"]
        sys_all = values[("judges", "system", judge["judge"], "system_tau_b_all")]
        assert _float(sys_all) == judge["all"]["system_tau_b"]
        sys_agreed = values[("judges", "system", judge["judge"], "system_tau_b_agreed")]
        assert _float(sys_agreed) == judge["expert_agreed"]["system_tau_b"]
    assert 'id="figure-cross-judge"' in html
    # the judge selector does not narrow Table 5
    other = client.get(url(demo, judge=data["judges"][1]["judge"])).content.decode()
    assert other.count('data-key="system_tau_b_all"') == 2
