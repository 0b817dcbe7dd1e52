"""Math, tables and citation markers as experts read them (issue 12, "What experts read").

Real reports of the ScholarQA-CS2 release carry LaTeX (``$…$``, ``$$…$$``, ``\\(…\\)``,
``\\[…\\]``), Markdown tables and dollar amounts; Markdown alone ate the letters of formulas.
"""

import html as htmllib
import json
import re
import unicodedata
from collections import Counter
from html.parser import HTMLParser

import pytest

from annotation.models import Paragraph, Report, Section, System
from annotation.rendering import (
    ALLOWED_TAGS,
    MATH_ATTRIBUTES,
    MATH_TAGS,
    find_math,
    render_reports,
    text_to_html,
)
from tests.builders.sources import add_anchor, add_citation

ISSUE_TEXT = r"$\mathbb{Z}_3^n$) directly implies a bound of $(2-\epsilon)^n$"


def released_paragraphs(scholarqa_dir):
    """Every paragraph of the released report files, as (file, text)."""
    for folder in ("dev", "test", "expert_written"):
        for path in sorted((scholarqa_dir / "reports" / folder).glob("*.json*")):
            raw = path.read_text(encoding="utf-8")
            try:
                records = json.loads(raw)
            except json.JSONDecodeError:
                records = [json.loads(line) for line in raw.splitlines() if line.strip()]
            for record in records:
                for section in record["response"]["sections"]:
                    for para in re.split(r"\n[ \t]*\n", section["text"]):
                        yield f"{folder}/{path.name}", para


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parse(html: str) -> _Tags:
    p = _Tags()
    p.feed(html)
    return p


def letters(s: str) -> Counter:
    return Counter(c for c in s if c.isascii() and c.isalpha())


def formula_letters(latex: str) -> Counter:
    """The letters a formula shows: its source without command names (``\\mathbb``, ``\\log``)
    nor environment names."""
    latex = re.sub(r"\\(begin|end)\{[^}]*\}", "", latex)
    return letters(re.sub(r"\\[A-Za-z]+", "", latex))


def test_the_formula_of_the_issue_keeps_its_letters():
    html = text_to_html(ISSUE_TEXT)
    assert "<strong>" not in html and "<em>" not in html
    assert html.count("<math") == 2
    shown = unicodedata.normalize("NFKC", "".join(parse(html).text))
    assert "Z" in shown and "3" in shown and "n" in shown  # ℤ₃ⁿ
    assert "ϵ" in shown or "ε" in shown
    assert "directly implies a bound of" in shown


@pytest.mark.parametrize(
    "text",
    [
        "It costs $5 and $10 a month.",
        "sometimes as low as US$70 to US$600 per article",
        "adds $2,000–$10,000 cost, while others cost >$50/cm³ and <$0.25/cm³",
        "he offered a $1000 reward for its solution",
        r"an escaped \$x\$ stays text",
        "`$x$` in code stays code",
    ],
)
def test_dollar_amounts_and_code_are_not_math(text):
    html = text_to_html(text)
    assert "<math" not in html
    assert "$" in html


@pytest.mark.parametrize(
    ("source", "display"),
    [
        (r"$x_i^2$", "inline"),
        (r"$ p(x,y) $", "inline"),
        (r"$$ I(X;Y) = \sum p(x,y) \log \frac{p(x,y)}{p(x)p(y)} $$", "block"),
        (r"\( T \leq 1/(2f_{\text{max}}) \)", "inline"),
        (r"\[ \text{EVM} = \sqrt{\frac{\sum |e_k|^2}{N}} \]", "block"),
    ],
)
def test_each_delimiter_renders_mathml(source, display):
    html = text_to_html(f"before {source} after")
    assert f'display="{display}"' in html
    assert "before" in html and "after" in html
    assert "$" not in html and "\\" not in html


@pytest.mark.parametrize("formula", [r"$\left( x_1$", r"$\frac{1}{$", r"$\unknowncommand_x y$"])
def test_a_formula_that_cannot_be_rendered_is_shown_as_its_source(formula):
    html = text_to_html(f"see {formula} here, *emphasis* stays")
    assert "<math" not in html
    assert htmllib.escape(formula, quote=False) in html  # unaltered: "_" not eaten
    assert "<em>emphasis</em>" in html


def test_mathml_is_sanitized_to_what_latex2mathml_emits():
    html = text_to_html(
        r"$\href{javascript:alert(1)}{x} + \style{background:url(x)}{y} + \class{evil}{z}$"
        r" and <math><mi onclick='alert(2)'>q</mi></math>"
    )
    assert "javascript" not in html and "style=" not in html and "onclick" not in html
    assert "class=" not in html
    for tag, attrs in parse(html).tags:
        assert tag in MATH_TAGS | ALLOWED_TAGS, tag
        if tag in MATH_TAGS:
            assert set(attrs) <= MATH_ATTRIBUTES.get(tag, set()), (tag, attrs)


def test_every_formula_of_the_released_reports_keeps_its_letters(scholarqa_dir):
    formulas = rendered = 0
    for where, para in released_paragraphs(scholarqa_dir):
        found = find_math(para)
        if not found:
            continue
        for start, end, latex, _display in found:
            formulas += 1
            html = text_to_html(para[start:end])
            rendered += "<math" in html
            shown = letters(unicodedata.normalize("NFKC", "".join(parse(html).text)))
            missing = formula_letters(latex) - shown
            assert not missing, (where, para[start:end], html)
        # And in context: Markdown emphasis never starts or ends inside a formula.
        html = text_to_html(para)
        for m in re.finditer(r"<(em|strong)>(.*?)</\1>", html, re.S):
            assert "$" not in m.group(2), (where, m.group())
    assert formulas > 300  # the release holds hundreds of formulas
    assert rendered / formulas > 0.95


def test_the_released_tables_render_as_tables(scholarqa_dir):
    tables = 0
    for where, para in released_paragraphs(scholarqa_dir):
        if not re.search(r"\|\s*-{3,}\s*\|", para):
            continue
        html = text_to_html(para)
        assert "<table>" in html and "<th>" in html and "<td>" in html, where
        assert "|---" not in html and "||" not in html, where
        tables += 1
    assert tables >= 10


def _report_with_anchor(study, text: str, marker: str, key: str = "2") -> Report:
    system = System.objects.create(study=study, name="S")
    from tests.builders.content import make_question

    question = make_question(study, n_reports=0)
    report = Report.objects.create(question=question, system=system)
    section = Section.objects.create(report=report, position=0, title="")
    citation = add_citation(report, key, title="T", snippets=["s"])
    para = Paragraph.objects.create(section=section, report=report, number=1, text=text)
    start = text.index(marker)
    add_anchor(para, citation, start, start + len(marker))
    return report


@pytest.mark.django_db
def test_a_citation_marker_inside_an_attribute_is_not_substituted():
    from tests.builders.content import make_study

    text = 'See <a href="https://e.example/[2]">the source</a> for details.'
    report = _report_with_anchor(make_study(), text, "[2]")
    [rendered] = render_reports([report.pk])
    html = str(rendered.paragraphs[0].html)
    tags = parse(html).tags
    [link] = [
        attrs for tag, attrs in tags if tag == "a" and "cite-link" not in attrs.get("class", "")
    ]
    assert link["href"] == "https://e.example/[2]"
    assert "cite-wrap" not in link["href"]
    assert ">the source</a>" in html and "for details." in html


@pytest.mark.django_db
def test_a_citation_marker_beside_math_stays_a_marker():
    from tests.builders.content import make_study

    text = r"A bound of $(2-\epsilon)^n$ holds [2]."
    report = _report_with_anchor(make_study(), text, "[2]")
    [rendered] = render_reports([report.pk])
    html = str(rendered.paragraphs[0].html)
    assert html.count("<math") == 1 and html.count('class="cite-wrap"') == 1


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        (r"\[AI生成\]", "[AI生成]"),
        (r"\[论文审查\]", "[论文审查]"),
        (r"\[2024 LLM 스터디\]", "[2024 LLM 스터디]"),
        (r"\[Case Studies\]", "[Case Studies]"),
        (r"\[Text A\]", "[Text A]"),
        (r"\[500-word passage\]", "[500-word passage]"),
        (r"\[cs.LG\]", "[cs.LG]"),
        (r"\[ stat.ML, cs.AI \]", "[ stat.ML, cs.AI ]"),
        (r"\[q-bio.NC\]", "[q-bio.NC]"),
        (r"\[physics.comp-ph\]", "[physics.comp-ph]"),
        (r"\[gr-qc\]", "[gr-qc]"),
    ],
)
def test_escaped_brackets_around_words_are_text_not_display_math(source, shown):
    """Mita escapes brackets it means as brackets (``\\[AI生成\\]``, ``\\[Case Studies\\]``,
    "arXiv ``\\[cs.LG\\]``"): they were rendered as display formulas. Words only (CJK, or
    Latin words of no single letter) and arXiv categories are text in brackets."""
    html = text_to_html(f"before {source} after")
    assert "<math" not in html
    assert f"before {shown} after" in "".join(parse(html).text)


@pytest.mark.parametrize(
    "source",
    [r"\[ x \]", r"\[J\]", r"\[ dx \]", r"\[ n-1 \]", r"\[12\]", r"\[ E = mc^2 \]", r"\[ αβγ \]",
     r"\[ a × b \]", r"\[ \text{FFN}(x) = \max(0, xW_1 + b_1)W_2 + b_2 \]", r"\[ x^2 + y \]",
     r"\[\alpha\]", r"\[ a = b \]", r"\[AB\]", r"\[ a.b \]", r"\[x.y-z\]", r"\[ cs.LG + 1 \]"],
)  # fmt: skip
def test_escaped_brackets_around_math_stay_display_math(source):
    assert 'display="block"' in text_to_html(f"before {source} after")


@pytest.mark.django_db
def test_released_researcherbench_escaped_brackets_render_as_their_kind(tmp_path):
    """The released ResearcherBench responses hold both kinds of ``\\[…\\]``: display math
    (OpenAI's and gpt-4o-search-preview's FFN formulas) and Mita's escaped brackets, around
    words (``\\[AI生成\\]`` before normalisation removed it, ``\\[Case Studies\\]``) and
    around citation markers (``\\[80\\]``, read as citations by the markdown reader).
    Rendered: the formulas as MathML, the words as text (Mita's prompt templates:
    ``\\[Helpful Assistant\\]``, ``\\[500-word passage\\]``), the markers as citations."""
    from annotation.importers import run
    from tests.annotation.test_round_trip_released import shared

    folder = shared("researcherbench", "user_data")
    for system in ("Mita", "OpenAI", "gpt-4o-search-preview"):
        run("reports", folder / f"{system}.json", study="RB", format="researcherbench",
            system=system)  # fmt: skip
    html = {}
    for system in ("Mita", "OpenAI", "gpt-4o-search-preview"):
        ids = list(Report.objects.filter(system__name=system).values_list("pk", flat=True))
        html[system] = [  # a report at a time, as a task page shows one (lettered A, B, …)
            str(p.html) for pk in ids for r in render_reports([pk]) for p in r.paragraphs
        ]
    for system in ("OpenAI", "gpt-4o-search-preview"):
        assert [h for h in html[system] if 'display="block"' in h and "<mi>x</mi>" in h], system
    mita = html["Mita"]
    assert sum(h.count('class="cite-wrap"') for h in mita) > 1000
    shown = "\n".join("".join(parse(h).text) for h in mita)
    for words in ("[Helpful Assistant]", "[500-word passage]", "[Text A]", "[ISSUE]"):
        assert words in shown
    assert "(Kaplan et al., arXiv [cs.LG], 2020)" in shown
    blocks = [m for h in mita for m in re.findall(r'<math[^>]*display="block".*?</math>', h)]
    assert not blocks, blocks  # "\\[cs.LG\\]" was its one


@pytest.mark.parametrize(
    "source",
    [
        "\\begin{equation}\n\\begin{gathered}\nq(\\mathbf{x}_{1:T}|\\mathbf{x}_0) = x_t, \\\\\n"
        "q(\\mathbf{x}_t|\\mathbf{x}_{t-1}) = y_t\n\\end{gathered}\n\\end{equation}",
        "\\begin{equation*} a_t = b_t \\label{eq:1} \\end{equation*}",
        "\\begin{align} a_t &= b_t \\nonumber \\\\ c_t &= d_t \\end{align}",
        "\\begin{align*} a_t &= b_t \\end{align*}",
        "\\begin{multline} a_t + b_t \\\\ = c_t \\end{multline}",
        "\\begin{gather*} a_t \\\\ b_t \\end{gather*}",
        "\\begin{gathered} a_t \\\\ b_t \\end{gathered}",
    ],
)
def test_display_environments_render_as_display_mathml_without_emphasis(source):
    """DeepScholar's exemplar 2505.22167v1 showed ``\\begin{equation}\\begin{gathered}…``
    as text, Markdown setting ``_{t-1}…\\mathbf{x}_`` in italics (a tester's finding)."""
    html = str(text_to_html(f"The chain:\n\n{source}\n\nwhere _t_ is the step.", latex=True))
    assert html.count('display="block"') == 1
    assert "\\begin" not in html and "\\label" not in html and "\\nonumber" not in html
    assert "<em>t</em>" in html  # emphasis outside the formula is still read
    assert html.count("<em>") == 1


@pytest.mark.parametrize(
    ("text", "formulas"),
    [
        ("a 6$\\times$ reduction and MC$^2$", ["\\times", "^2"]),
        ("costs \\$5 and $x$", ["x"]),
        ("$a \\$ b$ then", ["a \\$ b"]),
    ],
)
def test_text_from_latex_reads_every_unescaped_dollar_as_math(text, formulas):
    """Text read from LaTeX (an exemplar, an abstract) follows LaTeX's rule: a formula may
    follow a digit (``6$\\times$``, ``MC$^2$``), which markdown's rule reads as money."""
    assert [f for _, _, f, _ in find_math(text, latex=True)] == formulas
    assert find_math("a 6$\\times$ reduction") == []  # markdown: money-like, as before


def test_a_papers_own_macro_reads_as_its_name_muted():
    html = str(
        text_to_html("Reuse \\kvcache across requests, $\\ToolName(x)$ and `\\code`.", latex=True)
    )
    assert re.search(r'<span class="muted latex-macro" title="[^"]+">kvcache</span> across', html)
    assert "<mo>ToolName</mo>" in html and "\\ToolName" not in html  # upright, by its name
    assert "<code>\\code</code>" in html  # code is code
    assert "\\kvcache" in str(text_to_html("a \\kvcache b"))  # markdown text: as written


def test_latex_text_renders_formulas_and_reads_escapes():
    """DeepScholar's queries are arXiv abstracts in LaTeX: "1.9$\\times$ speedup", "(KV\\$)",
    "1\\% accuracy" (tester: shown raw)."""
    from annotation.rendering import latex_text_html

    html = str(latex_text_html("1.9$\\times$ speedup, caching (KV\\$) within 1\\% loss <b>"))
    assert "<math" in html and "$\\times$" not in html
    assert "(KV$)" in html and "1% loss" in html and "&lt;b&gt;" in html
    cut = str(latex_text_html("aaaa $x_1 + x_2$ bbbb", limit=8))
    assert cut == "aaaa…"  # never inside a formula
