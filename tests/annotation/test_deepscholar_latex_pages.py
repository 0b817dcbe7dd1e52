"""DeepScholar-Bench task pages show LaTeX as it prints, on the released records (a
tester's finding: 30 of the 63 reference-importance pages showed raw LaTeX).

* the exemplar's display math (``\\begin{equation}\\begin{gathered}…``) was raw text with
  markdown emphasis inside it (``*t}|\\mathbf{x}*``): now display MathML;
* the query (an arXiv abstract) showed ``1.9$\\times$`` and ``KV\\$``: now MathML and "KV$";
* reference titles showed BibTeX's escapes (``{\\textdollar}A{\\^{}}3{\\textdollar}``,
  ``$\\{$Inter-Function$\\}$``): now their words, the formula as MathML;
* a macro of the paper's own with an argument read glued to it (``\\headernodotBeam
  search``, ``\\lblsecrelatedwork``, ``\\nospacestitleReuse``): now read with its argument,
  and one without (``\\kvcache``) shown by name, muted, without the backslash.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from annotation.importers import run
from annotation.models import Question, Study
from tests.builders.content import make_assignment
from tests.builders.users import make_user
from tests.module_data import module_data

DS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "deepscholar"

pytestmark = [pytest.mark.shared_data, pytest.mark.django_db]

#: The released papers whose pages showed raw LaTeX, by what they showed.
PAPERS = (
    "2505.22167v1",  # \begin{equation}\begin{gathered}; 1.9$\times$ in the query
    "2506.02634v1",  # KV\$ in the query; \nospacestitle{…}, \kvcache
    "2504.09935v1",  # \headernodot{Beam search}
    "2506.00333v1",  # \lblsec{relatedwork}
    "2504.12900v1",  # {\textdollar}A{\^{}}3{\textdollar}-FKG
    "2504.19283v1",  # $\{$Inter-Function$\}$
    "2506.02847v1",  # $\{$NeuOS$\}$ … $\{$Latency-Predictable$\}$$\{$Multi-Dimensional$\}$
)


@pytest.fixture(scope="module")
def pages(django_db_setup, django_db_blocker):
    """Each paper's reference-importance page as its annotator reads it, the release's
    exemplars imported once for the module (tests/module_data.py)."""
    if not DS.is_dir():
        pytest.skip("../shared/data/deepscholar not available")

    def build() -> dict[str, str]:
        Study.objects.create(name="DS")
        run("deepscholar", DS / "dataset", study="DS", format="exemplar-latex")
        user = make_user("annotator_latex", "annotator", annotator=True)
        client = Client()
        client.force_login(user)
        out = {}
        for paper in PAPERS:
            question = Question.objects.get(study__name="DS", external_id=paper)
            a = make_assignment(user.annotator, question, "reference_importance")
            response = client.get(reverse("annotate:task", args=[a.pk]))
            assert response.status_code == 200, paper
            out[paper] = response.content.decode()
        return out

    yield from module_data(django_db_blocker, build)


@pytest.fixture
def page(pages):
    return pages.__getitem__


def text_outside_math(html: str) -> str:
    """The page's text an annotator reads outside formulas (MathML and its source gone)."""
    html = re.sub(r"<math\b.*?</math>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", " ", html))


def test_display_math_of_the_exemplar_is_display_mathml_without_emphasis(page):
    html = page("2505.22167v1")
    exemplar = html[html.index('class="exemplar-text"') :]
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in exemplar
    shown = text_outside_math(exemplar)
    assert "\\begin{equation}" not in shown and "\\begin{gathered}" not in shown
    assert "\\mathbf" not in shown and "<em>t}|" not in exemplar
    # the query: "1.9$\times$" is a formula, not its source
    query = html[html.index('class="question-text"') :].split("</p>")[0]
    assert "$\\times$" not in text_outside_math(query) and "<math" in query
    heading = html[html.index('class="question"') :].split("</h1>")[0]
    assert "$" not in text_outside_math(heading)


def test_an_escaped_dollar_in_the_query_reads_as_a_dollar(page):
    html = page("2506.02634v1")
    query = text_outside_math(html[html.index('class="question-text"') :].split("</p>")[0])
    assert "(KV$)" in query and "KV\\$" not in query


def test_the_papers_own_macros_read_as_words(page):
    html = page("2506.02634v1")
    shown = text_outside_math(html)
    assert "\\nospacestitle" not in shown and "\\kvcache" not in shown
    assert "<strong>Reuse" in html  # the title macro: a run-in heading
    assert re.search(r'<span class="muted latex-macro" title="[^"]+">kvcache</span>', html)
    shown = text_outside_math(page("2504.09935v1"))
    assert "headernodot" not in shown and "Beam search is a widely used" in " ".join(shown.split())
    shown = text_outside_math(page("2506.00333v1"))
    assert "lblsec" not in shown and "relatedwork" not in shown


@pytest.mark.parametrize(
    ("paper", "raw", "words"),
    [
        ("2504.12900v1", "textdollar", "-FKG: Attentive"),
        ("2504.19283v1", "$\\{$", "through Inter-Function container sharing"),
        ("2506.02847v1", "$\\{$", "NeuOS: A Latency-Predictable Multi-Dimensional"),
    ],
)
def test_reference_titles_read_without_bibtex_escapes(page, paper, raw, words):
    html = page(paper)
    shown = " ".join(text_outside_math(html).split())
    assert raw not in shown and words in shown
    if raw == "textdollar":  # "$A^3$": a formula, in the card and in the exemplar's list
        assert html.count("<msup><mi>A</mi><mn>3</mn></msup>") >= 2
