"""Issue 15: dark mode follows prefers-color-scheme (every colour is a CSS variable)."""

import pytest
from django.urls import reverse

from tests.builders.content import make_assignment, make_question, make_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COLOURS = """() => {
  const c = el => getComputedStyle(document.querySelector(el));
  return {body: c('body').backgroundColor, text: c('body').color,
          panel: c('.task-panel').backgroundColor, report: c('.report').backgroundColor,
          status: c('#save-status').backgroundColor};
}"""


def luminance(rgb: str) -> float:
    r, g, b = (int(v) for v in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def test_task_page_follows_the_system_colour_scheme(browser, live_server, login, annotator_user,
                                                     shot):  # fmt: skip
    question = make_question(make_study(), n_reports=2)
    a = make_assignment(annotator_user.annotator, question, "pairwise")
    page = login(annotator_user).new_page()
    page.emulate_media(color_scheme="light")
    page.goto(reverse("annotate:task", args=[a.pk]))
    light = page.evaluate(COLOURS)
    assert luminance(light["body"]) > 0.9 and luminance(light["text"]) < 0.2, light
    page.emulate_media(color_scheme="dark")
    dark = page.evaluate(COLOURS)
    shot(page, "dark")
    assert luminance(dark["body"]) < 0.15 and luminance(dark["text"]) > 0.8, dark
    # no light box left on the dark page
    for part in ("panel", "status"):
        assert luminance(dark[part]) < 0.25, (part, dark)
