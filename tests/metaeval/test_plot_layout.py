"""Issue 15: the tie-calibration legends no longer cover the curves; with one judge there is
no 1 × 1 cross-judge square, and the page says why."""

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse
from matplotlib.backends.backend_agg import FigureCanvasAgg

from annotation.models import Study
from metaeval import figures, plots
from metaeval.reports import ReportOptions, build_report
from tests.metaeval.test_reports import tiny_frame


def _overlap(a, b) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(w, 0) * max(h, 0)


def test_calibration_legends_sit_outside_the_axes():
    frame = tiny_frame()
    report = build_report(frame, ReportOptions())
    curves = figures.report_figures(frame, report, ReportOptions())["calibration"]
    drawn = [plots.calibration(c) for c in curves.values() if c]
    assert drawn
    for metric, fig in enumerate(drawn):
        canvas = FigureCanvasAgg(fig)
        canvas.draw()  # a layout, as when it is saved
        renderer = canvas.get_renderer()
        for ax in fig.axes:
            if not ax.get_visible() or ax.get_legend() is None:
                continue
            legend = ax.get_legend().get_window_extent(renderer)
            area = ax.get_window_extent(renderer)
            assert _overlap(legend, area) == 0, (metric, legend, area)
            # and it stays inside the figure (not cut off)
            assert legend.y0 >= 0 and legend.x0 >= 0, legend


def test_one_judge_draws_no_cross_judge_square():
    assert plots.cross_judge({"judges": ["j1"], "matrix": [[1.0]], "n": 3}) is None
    two = {"judges": ["j1", "j2"], "matrix": [[1.0, 0.5], [0.5, 1.0]], "n": 3}
    assert plots.cross_judge(two) is not None


@pytest.mark.django_db
def test_the_page_says_why_there_is_no_cross_judge_matrix(client, settings, researcher_user):
    pytest.importorskip("metaeval.alignment")
    from judges.models import Judge

    cache.clear()
    settings.DEBUG = True
    call_command("demo", verbosity=0)
    settings.DEBUG = False
    study = Study.objects.get()
    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    judges = list(Judge.objects.filter(scores__isnull=False).distinct().order_by("name"))
    assert len(judges) == 2
    judges[1].delete()
    cache.clear()
    html = client.get(reverse("metaeval:report", args=[study.pk])).content.decode()
    assert 'id="figure-cross-judge"' not in html
    assert 'id="cross-judge-note"' in html and judges[0].name in html
    cache.clear()
