"""Normalising the released reports (annotation.normalise with the importers' readers), read
from ../shared/data as released: defects testers found in what annotators read.

Pure: the readers and the normaliser, no database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotation.importers.common import read_source
from annotation.importers.scholarqa import parse_reports
from annotation.importers.structure import parse_markdown
from annotation.normalise import normalise_report

pytestmark = pytest.mark.shared_data

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def _researcherbench(system: str, question: int) -> str:
    path = DATA / "researcherbench" / "user_data" / f"{system}.json"
    if not path.is_file():
        pytest.skip("../shared/data/researcherbench not available")
    return next(r["response"] for r in json.loads(path.read_text()) if r["id"] == question)


def _scholarqa(name: str, record: int):
    path = DATA / "scholarqa-cs2" / "reports" / name
    if not path.is_file():
        pytest.skip("../shared/data/scholarqa-cs2 not available")
    return next(r.parsed for r in parse_reports(read_source(path)) if r.record == record)


def _texts(report) -> list[str]:
    return [p.text for s in report.sections for p in s.paragraphs]


# --- 1. A name and a year after a name is no citation ----------------------------------------


def test_a_model_and_its_makers_year_is_not_made_a_citation():
    """OpenAI's ResearcherBench report 3 lists models as ``**CLIP (OpenAI, 2021)**``: each
    became ``**CLIP [1]**`` with a source titled "OpenAI, 2021" the system never listed."""
    normalised, _ = normalise_report(parse_markdown(_researcherbench("OpenAI", 3)))
    text = "\n".join(_texts(normalised))
    for words in ("**CLIP (OpenAI, 2021)**", "(Microsoft, 2023)", "(SDXL, 2023)"):
        assert words in text
    titles = {c.title for c in normalised.citations.values()}
    assert not titles & {"OpenAI, 2021", "Microsoft, 2023", "SDXL, 2023", "Google, 2023"}


def test_real_author_year_citations_stay_citations():
    """Claude's report 13 ``(Ouyang et al., 2022)``; a name and a year closing a clause in
    ScholarQA-CS2's dev claude report 3, ``… material selection (Gutenko, 2020).``"""
    normalised, _ = normalise_report(parse_markdown(_researcherbench("Claude", 13)))
    assert "Ouyang et al., 2022" in {c.title for c in normalised.citations.values()}
    normalised, _ = normalise_report(_scholarqa("dev/claude-sonnet-4-20250514.json", 3))
    assert "Gutenko, 2020" in {c.title for c in normalised.citations.values()}
    assert not any("(Gutenko, 2020)" in t for t in _texts(normalised))


# --- 7. Normalising twice changes nothing ----------------------------------------------------


def _again(normalised):
    return normalise_report(normalised, keep_empty=True)[0]


@pytest.mark.parametrize(
    ("name", "record", "words"),
    [
        # FutureHouse's "(yu2023… pages 1-2, pages 2-3, pages 4-6, pages 6-7)": one range
        # went a normalisation
        ("dev/falcon.json", 93, "According to Yu et al. [13], AvoidBench"),
        # Perplexity's "([Author, 2013](#ref1))": "(#ref1)" was left after the marker
        ("dev/perplexity.json", 70, "against noisy data and adversarial attacks [1]."),
        # "([A](#ref1); [B](#ref2))": the group's brackets went only the second time
        ("dev/perplexity.json", 54, "with 50% less labeled data [1][2]."),
    ],
)
def test_a_normalised_scholarqa_report_normalises_to_itself(name, record, words):
    normalised, _ = normalise_report(_scholarqa(name, record))
    assert any(words in t for t in _texts(normalised))
    assert _again(normalised).canonical() == normalised.canonical()


def test_a_title_opening_with_a_control_character_normalises_to_itself():
    """Mita's report 31 titles a source "\\u200b 欧盟人工智能法案…": the control character
    went, the space after it stayed until the next normalisation."""
    parsed = parse_markdown(_researcherbench("Mita", 31))
    normalised, _ = normalise_report(parsed)
    assert all(c.title == c.title.strip() for c in normalised.citations.values())
    assert _again(normalised).canonical() == normalised.canonical()


# --- 2. BibTeX's braces are no part of a title -----------------------------------------------


def test_a_deepscholar_reference_title_loses_bibtexs_braces():
    """DeepScholar's recovered_citations.csv titles GPT-4's report "{GPT-4} Technical
    Report" (BibTeX's capitals kept): the exemplar's reference showed the braces."""
    import csv

    from annotation.importers.deepscholar_exemplars import _reference

    path = DATA / "deepscholar" / "dataset" / "recovered_citations.csv"
    if not path.is_file():
        pytest.skip("../shared/data/deepscholar not available")
    with path.open(newline="", encoding="utf-8") as f:
        row = next(r for r in csv.DictReader(f) if r["cited_paper_title"].startswith("{GPT-4}"))
    assert _reference(row, row["citation_shorthand"], 1)["title"] == "GPT-4 Technical Report"


@pytest.mark.parametrize(
    ("title", "shown"),
    [
        ("{GPT-4} Technical Report", "GPT-4 Technical Report"),
        (
            "{B}ERT: Pre-training of Deep Bidirectional Transformers",
            "BERT: Pre-training of Deep Bidirectional Transformers",
        ),  # fmt: skip
        # math and LaTeX commands as written (ScholarQA-CS2's expert_written sqa, dev falcon)
        (
            "Isolation Lemma for $K_{3, 3}$-free Graphs",
            "Isolation Lemma for $K_{3, 3}$-free Graphs",
        ),
        (
            "Twenty years of Ne\\v{s}et\\v{r}il's programme",
            "Twenty years of Ne\\v{s}et\\v{r}il's programme",
        ),
    ],
)
def test_a_citation_title_loses_bibtexs_braces_not_its_math(title, shown):
    from annotation.importers.structure import (
        ParsedCitation,
        ParsedParagraph,
        ParsedReport,
        ParsedSection,
    )

    parsed = ParsedReport(
        [ParsedSection("", [ParsedParagraph("A claim [1].", [(8, 11, "1")])])],
        {"1": ParsedCitation(key="1", title=title)},
    )
    assert normalise_report(parsed)[0].citations["1"].title == shown


# --- 6. Empty brackets a removed citation left go --------------------------------------------


def test_empty_brackets_standing_alone_go():
    """OpenAI's released report 12 reads "(e.g., ([A](url)) ([B](url)) ())": its markers
    became "(e.g., [1] [4] ())"; report 2's "experiments () ()." kept both pairs."""
    text = "\n".join(_texts(normalise_report(parse_markdown(_researcherbench("OpenAI", 12)))[0]))
    assert "documented case studies (e.g., [1] [4]), as well" in text
    text = "\n".join(_texts(normalise_report(parse_markdown(_researcherbench("OpenAI", 2)))[0]))
    assert "incoherent outputs in early RL experiments. The pure RL" in text
    assert " ()" not in text


def test_a_call_keeps_its_brackets():
    """ScholarQA-CS2's test claude report 22: ``facet_wrap()`` is a function's name."""
    texts = _texts(normalise_report(_scholarqa("test/claude-sonnet-4-20250514.json", 22))[0])
    assert any("facet_wrap() and facet_grid()" in t for t in texts)


# --- 4. A text fragment's words are the cited passage ----------------------------------------


def test_a_links_text_fragment_is_its_sources_snippet_not_its_url():
    """OpenAI's report 12 cites ``[More Than Catastrophic Forgetting…](https://arxiv.org/
    html/2405.17830v1#:~:text=The performance on general tasks,Taking legal domain as)``:
    the fragment went from the url and the source read "No snippet supplied"."""
    normalised, _ = normalise_report(parse_markdown(_researcherbench("OpenAI", 12)))
    cited = next(
        c for c in normalised.citations.values() if c.title.startswith("More Than Catastrophic")
    )
    assert cited.url == "https://arxiv.org/html/2405.17830v1"
    assert "The performance on general tasks … Taking legal domain as" in cited.snippets


# --- 3. A footnote's address with spaces is one address --------------------------------------


def test_a_footnote_address_with_spaces_is_one_link():
    """Perplexity's report 5: ``[^8]: https://e-dorigatti.github.io/development/deep
    learning/…/impact-of-llms-on-software-development.html`` linked ``…/development/deep``
    and was titled with the rest of its path."""
    parsed = parse_markdown(_researcherbench("Perplexity", 5))
    cited = parsed.citations["8"]
    assert cited.url == (
        "https://e-dorigatti.github.io/development/deep%20learning/2023/04/10/"
        "impact-of-llms-on-software-development.html"
    )
    assert cited.title == ""


def test_a_footnote_address_then_its_title_keeps_its_title():
    parsed = parse_markdown("A claim [^1].\n\n[^1]: https://x.org/a/b A Title Here")
    assert (parsed.citations["1"].url, parsed.citations["1"].title) == (
        "https://x.org/a/b",
        "A Title Here",
    )


# --- 5. A closing numbered list of addresses is the source list ------------------------------


def test_a_closing_numbered_list_of_addresses_is_the_reports_source_list():
    """Perplexity's report 6 closes with "1. https://en.wikipedia.org/…" … "53. https://…"
    after its "⁂" line, no heading: the list stayed in the body and its [n] markers cited
    sources with no address."""
    parsed = parse_markdown(_researcherbench("Perplexity", 6))
    assert not any("\n2. https://" in t or t.startswith("1. https://") for t in _texts(parsed))
    # its numbers are the markers' ("[7](https://arxiv.org/abs/2312.00752)" in the text)
    assert parsed.citations["7"].url == "https://arxiv.org/abs/2312.00752"
    assert parsed.citations["53"].url == "https://ar5iv.labs.arxiv.org/html/2406.03344"
    # a ")" of the address's own stays (it was cut as closing punctuation)
    wiki = "https://en.wikipedia.org/wiki/Transformer_(deep_learning_architecture)"
    assert parsed.citations["1"].url == wiki
    normalised, _ = normalise_report(parsed)
    assert len(normalised.citations) == 53
    assert all(c.url for c in normalised.citations.values())


def test_a_closing_numbered_list_with_words_stays_in_the_body():
    parsed = parse_markdown("Steps:\n\n1. Gather https://x.org/data first\n2. Clean it")
    assert "1. Gather https://x.org/data first" in _texts(parsed)[-1]
    assert not parsed.citations
