"""Every source a report lists is shown to annotators, in a "References" block after its
text (found by a tester annotating rubric coverage on the released ResearcherBench):

* gpt-4o-search-preview's report 1 closes with a ``**References**`` list of five papers that
  appeared nowhere on the page, and its inline links' chips read "arxiv.org" although the
  list names the paper each link's arXiv id is (``[5] … arXiv:2501.06521``);
* Perplexity's report 1 defines 231 footnotes and Mita's lists 374 references: only the
  18 and 26 cited in the text could be reached;
* Doubao's headings showed an encoded line break, "5.2 Enhancing … Integration&#xA;".

Read on the released files (``../shared/data/researcherbench``), each checked against a
reading of the JSON written here.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils.html import escape

from annotation.importers import markdown, run
from annotation.importers.researcherbench import dump_responses
from annotation.importers.structure import parse_markdown
from annotation.links import LISTED_AS
from annotation.models import Report, Section
from annotation.rendering import render_reports
from tests.builders.content import make_assignment

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "researcherbench"
GPT = "gpt-4o-search-preview"
#: Reference [5] of gpt-4o-search-preview's report 1, and the address its text links it by.
TITLE_5 = "Fine-tuning Large Language Models for Improving Factuality in Legal Question Answering"
LINK_5 = "https://arxiv.org/html/2501.06521"


@pytest.fixture(scope="module")
def data() -> Path:
    if not (DATA / "user_data").is_dir():
        pytest.skip("../shared/data/researcherbench not available")
    return DATA


def record(data: Path, system: str, qid: int = 1) -> dict:
    return next(r for r in json.loads((data / "user_data" / f"{system}.json").read_text())
                if r["id"] == qid)  # fmt: skip


def imported(data: Path, tmp_path: Path, system: str, qid: int = 1) -> Report:
    """Question ``qid`` (with its rubric) and ``system``'s report on it, imported."""
    for name in ("questions.json", "rubric.json"):
        kept = [r for r in json.loads((data / name).read_text()) if r["id"] == qid]
        (tmp_path / name).write_text(json.dumps(kept))
    run("questions", tmp_path / "questions.json", study="RB", format="researcherbench",
        rubric=tmp_path / "rubric.json")  # fmt: skip
    path = tmp_path / f"{system}.json"
    path.write_text(json.dumps([record(data, system, qid)]))
    run("reports", path, study="RB", format="researcherbench", system=system)
    return Report.objects.select_related("question__study").get()


def page(report: Report, user, client) -> str:
    """The rubric coverage page of ``report``'s question, as ``user`` reads it."""
    study = report.question.study
    study.tasks = ["rubric_coverage"]
    study.save(update_fields=["tasks"])
    a = make_assignment(user.annotator, report.question, "rubric_coverage")
    client.force_login(user)
    response = client.get(reverse("annotate:task", args=[a.pk]))
    assert response.status_code == 200
    return response.content.decode()


def references(html: str) -> str:
    """The report's references block (the page shows one report)."""
    [block] = re.findall(r'<section class="report-references".*?</section>', html, re.S)
    return block


def items(block: str) -> list[str]:
    return re.findall(r'<li class="ref">(.*?)</li>', block, re.S)


#: A chip's tip: its title and, when it has one, its link.
CHIP = re.compile(
    r'<strong class="cite-title">([^<]*)</strong>(?:(?!cite-title).)*?'
    r'(?:<a class="cite-link" href="([^"]*)"|cite-link cite-none)',
    re.S,
)


def chips(html: str) -> dict[str, str]:
    """Each chip's link -> its title."""
    return {url: title for title, url in CHIP.findall(html) if url}


def listed_entries(text: str) -> list[tuple[str, str]]:
    """(number, quoted title) of each ``[n] A. Author, "Title," …`` line of a response."""
    return re.findall(r'^\[(\d+)\] [^"\n]*"([^"\n]+?),?"', text, re.M)


# --- gpt-4o-search-preview: its reference list, and its links titled from it -----------------


def test_the_reference_list_of_gpt4o_report_1_is_on_the_page_with_titles(
    data, tmp_path, annotator_user, client
):
    released = record(data, GPT)["response"]
    entries = listed_entries(released)
    assert [n for n, _ in entries] == ["1", "2", "3", "4", "5"]
    html = page(imported(data, tmp_path, GPT), annotator_user, client)
    block = references(html)
    assert "<h3>References</h3>" in block
    shown = items(block)
    assert len(shown) == 5
    for _, title in entries:  # each entry once, its title as the list gives it
        assert sum(escape(title) in item for item in shown) == 1, title
    # four are cited by the text's links (their chips' numbers), SciQAG only listed
    assert "Cited in the text (4)" in block and "Listed but not cited in the text (1)" in block
    uncited = block.split("Listed but not cited in the text")[1]
    assert "SciQAG" in uncited and 'class="ref-num"' not in uncited
    numbers = re.findall(r'<span class="ref-num">\[(\d+)\]</span>', block)
    assert numbers == ["1", "2", "3", "4"]
    # blinding: no system's name, no tracking parameter naming it
    assert "utm_source" not in block and "openai" not in block.lower()
    assert "gpt" not in block.lower()


def test_the_link_citing_reference_5_is_titled_by_it(data, tmp_path, annotator_user, client):
    html = page(imported(data, tmp_path, GPT), annotator_user, client)
    by_link = chips(html)
    assert by_link[LINK_5] == TITLE_5  # not "arxiv.org"
    assert "arxiv.org" not in by_link.values()
    # every inline link of report 1 names a listed paper: each chip titled by its entry
    titles = {t for _, t in listed_entries(record(data, GPT)["response"])}
    assert set(by_link.values()) <= titles


def test_a_link_takes_a_listed_title_by_arxiv_id_doi_or_address():
    text = (
        "A claim ([arxiv.org](https://arxiv.org/html/2501.06521?utm_source=x)). "
        "Another ([doi.org](https://doi.org/10.1000/XYZ.5)). "
        "A third ([site](https://www.example.org/post/)). "
        "A fourth ([other](https://elsewhere.org/a)).\n\n"
        "**References**\n\n"
        '[1] T. Gao et al., "Fine-tuning for Legal Answers," arXiv preprint arXiv:2501.06521v2, 2025.\n\n'
        "[2] Doe, J. (2020). *A study of things vs. stuff*. Journal, doi:10.1000/xyz.5\n\n"
        "[3] Example post https://example.org/post\n\n"
        "[4] Nothing the text links\n"
    )
    parsed = parse_markdown(text)
    assert list(parsed.citations) == ["1", "2", "3", "4", "https://elsewhere.org/a"]
    assert [k for s in parsed.sections for p in s.paragraphs for *_, k in p.anchors] == [
        "1", "2", "3", "https://elsewhere.org/a"]  # fmt: skip
    one, two, three = (parsed.citations[k] for k in "123")
    assert one.title == "Fine-tuning for Legal Answers"
    assert one.url == "https://arxiv.org/html/2501.06521?utm_source=x"
    assert one.metadata[LISTED_AS].startswith('T. Gao et al., "Fine-tuning')
    assert two.title == "A study of things vs. stuff"
    assert three.title == "Example post" and three.url == "https://example.org/post"
    assert parsed.citations["4"].url == ""  # listed, not cited: kept as listed


@pytest.mark.parametrize(
    "entry, title",
    [
        ('Z. Chen et al., "GraphGen: Enhancing Data," arXiv preprint, 2025.', "GraphGen: Enhancing Data"),
        ("Tom Brown et al. “Language Models are Few-Shot Learners.” ArXiv", "Language Models are Few-Shot Learners"),
        ("Smith, J., & Doe, A. (2020). Learning to cite sources well. Journal, 3(2).", "Learning to cite sources well"),
        ("Jane Smith and John Doe. 2021. Attention is all you need again. In Proc. ACL.", "Attention is all you need again"),
        # unsure: the entry's words, never nothing
        ("Doe (2020). Nature.", "Doe (2020). Nature."),
        ('A. Author, "Short," 2020', 'A. Author, "Short," 2020'),
        ("A blog post about things", "A blog post about things"),
    ],
)  # fmt: skip
def test_a_listed_title_is_read_conservatively(entry, title):
    assert markdown.listed_title(entry) == title


def test_renormalising_gives_a_stored_report_its_listed_titles(
    data, tmp_path, annotator_user, client, monkeypatch
):
    """A report stored before links took their entry's title is rebuilt from its kept
    record by ``normalise_reports``; its export stays the record as released."""
    with monkeypatch.context() as m:  # the reader as it was: links never joined the list
        m.setattr(markdown, "_join_listed", lambda *args: None)
        report = imported(data, tmp_path, GPT)
    # read as a page shows it, without opening a page (an annotator's draft keeps a report)
    [before] = render_reports([report.pk])
    assert chips(before.html)[LINK_5] == "arxiv.org" and len(items(before.references)) == 9
    out = io.StringIO()
    call_command("normalise_reports", stdout=out)
    assert "rebuilt 1 reports from their kept records" in out.getvalue()
    html = page(report, annotator_user, client)
    assert chips(html)[LINK_5] == TITLE_5
    assert len(items(references(html))) == 5
    [written] = dump_responses(report.question.study, system=GPT).values()
    assert json.loads(written) == [record(data, GPT)]


# --- Perplexity and Mita: every listed source reachable ----------------------------------------


@pytest.mark.parametrize(
    "system, pattern, listed",
    [
        ("Perplexity", r"^\[\^(\d+)\]:\s*\S", 231),  # footnote definitions
        ("Mita", r"^\[(\d+)\\\. ", 374),  # "[n\. Title](url)" entries under "## References"
    ],
)
def test_every_listed_source_of_report_1_is_on_the_page(
    data, tmp_path, annotator_user, client, system, pattern, listed
):
    released = record(data, system)["response"]
    numbers = re.findall(pattern, released, re.M)
    assert len(numbers) == len(set(numbers)) == listed
    report = imported(data, tmp_path, system)
    html = page(report, annotator_user, client)
    block = references(html)
    shown = items(block)
    assert len(shown) == listed
    cited = re.findall(r'<span class="ref-num">\[(\d+)\]</span>', block)
    # the cited first, with the numbers the text's chips show; the others after, folded
    in_text = {m for m in re.findall(r'<button type="button" class="cite" data-cite="(\d+)"', html)}
    assert set(cited) == in_text and 0 < len(cited) < listed
    assert f"Listed but not cited in the text ({listed - len(cited)})</summary>" in block
    assert '<details class="ref-group"><summary>Listed but not cited' in block  # folded
    assert "utm_source" not in block and system.lower() not in block.lower()


# --- Doubao: a heading's encoded line break ------------------------------------------------------


def test_doubao_headings_read_their_character_references(data, tmp_path, annotator_user, client):
    released = record(data, "Doubao")["response"]
    assert "### 5.2 Enhancing Contextual Understanding and Source Integration&#xA;" in released
    report = imported(data, tmp_path, "Doubao")
    titles = list(Section.objects.filter(report=report).values_list("title", flat=True))
    assert "5.2 Enhancing Contextual Understanding and Source Integration" in titles
    assert not any("&#" in t or t != t.strip() for t in titles)
    html = page(report, annotator_user, client)
    assert "<h3>5.2 Enhancing Contextual Understanding and Source Integration</h3>" in html
    assert "&amp;#xA;" not in html and "&#xA;" not in html


def test_a_heading_reads_character_references_only():
    assert markdown.heading_title("R&D at AT&T &amp; co&#xA;") == "R&D at AT&T & co"
    assert markdown.heading_title("**A&#x20;B**") == "A B"


def test_a_cited_key_is_shown_as_its_chip_shows_it():
    """Keys that carry their brackets ("[1]", an author-year key) read as the chips read,
    not "[[1]]" (seen on a metric-wise page); a bare key is bracketed."""
    from annotation.models.content import Citation
    from annotation.rendering import references_html

    sources = {
        "[1]": Citation("[1]", "Memorization in fine-tuned language models", [], "", {}),
        "(Min et al., 2021)": Citation("(Min et al., 2021)", "A source", [], "", {}),
        "3": Citation("3", "Bare key", [], "", {}),
    }
    html = references_html(sources, list(sources), "Report A")
    nums = re.findall(r'<span class="ref-num">([^<]*)</span>', html)
    assert nums == ["[1]", "(Min et al., 2021)", "[3]"]
