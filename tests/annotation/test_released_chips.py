"""The released ScholarQA-CS2 reports of several systems read alike where the system is not
the content (issue 24, "weak system fingerprints"): every citation chip has one markup
whatever the source supplied (you.com's bare citations, claude's title-only ones,
perplexity's snippets), and headings inside the text are at one level (you.com's ``###``)."""

import json
import re

import pytest

from annotation.importers import run
from annotation.models import Report
from annotation.rendering import render_reports
from tests.annotation.test_annotate_rendering import chip_shape
from tests.builders.sources import citations

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]

#: (file under reports/, system) — systems whose sources differ in what they supply.
FILES = [
    ("dev/you.json", "you"),
    ("dev/claude-sonnet-4-20250514.json", "claude"),
    ("dev/perplexity.json", "perplexity"),
    ("expert_written/openai-dr.json", "openai-dr"),
]
RECORDS = 4


def _first(path, n):
    raw = path.read_text(encoding="utf-8")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        data = [json.loads(line) for line in raw.splitlines() if line.strip()]
    return data[:n]


def test_chips_and_headings_of_several_systems_have_one_shape(scholarqa_dir, tmp_path):
    shapes, kinds, headings = {}, {}, {}
    for name, system in FILES:
        path = tmp_path / f"{system}.json"
        path.write_text(json.dumps(_first(scholarqa_dir / "reports" / name, RECORDS)))
        run("reports", path, study="Chips", format="scholarqa", system=system)
        ids = list(Report.objects.filter(system__name=system).values_list("pk", flat=True))
        for citation in citations(pk__in=ids):
            kinds.setdefault(citation.kind, set()).add(system)
        for report in render_reports(ids):
            for p in report.paragraphs:
                html = str(p.html)
                for chip in html.split('<span class="cite-wrap">')[1:]:
                    shapes.setdefault(tuple(chip_shape(chip)), set()).add(system)
                for level in re.findall(r"<h([1-6])", html):
                    headings.setdefault(level, set()).add(system)
    # the systems supply different kinds of sources …
    assert len(kinds) >= 2, kinds
    # … and every chip of every system has the same markup
    assert len(shapes) == 1, shapes
    assert set(next(iter(shapes.values()))) >= {
        s for _, s in FILES if s in set().union(*kinds.values())
    }
    # headings inside paragraphs: one level only
    assert set(headings) <= {"4"}, headings
