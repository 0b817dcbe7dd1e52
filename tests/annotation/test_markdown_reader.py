"""The one markdown reader (annotation.importers.markdown, issue 25): each reference style
and marker seen in the released reports, on small texts written in their style."""

import pytest

from annotation.importers.structure import parse_markdown
from annotation.normalise import normalise_report


def read(text: str):
    """(paragraph texts as annotators read them, {key: (title, url)} of the sources)."""
    normalised, _ = normalise_report(parse_markdown(text))
    paragraphs = [p.text for s in normalised.sections for p in s.paragraphs]
    return paragraphs, {k: (c.title, c.url) for k, c in normalised.citations.items()}


def titles(text: str) -> list[str]:
    return [s.title for s in normalise_report(parse_markdown(text))[0].sections]


def test_a_heading_that_starts_with_a_reference_word_is_body():
    text = (
        "# Report\n\nIntro [^1].\n\n### Source-Aware Training Approaches\n\n"
        "Models learn to cite [^2].\n\nA second paragraph.\n\n"
        "[^1]: https://a.example/1\n\n[^2]: https://a.example/2\n"
    )
    paragraphs, sources = read(text)
    assert "Models learn to cite [2]." in paragraphs and "A second paragraph." in paragraphs
    assert "Source-Aware Training Approaches" in titles(text)
    assert sources == {"1": ("", "https://a.example/1"), "2": ("", "https://a.example/2")}


def test_prose_under_a_references_heading_stays_only_the_entries_leave():
    text = (
        "Body [^1].\n\n## References\n\nThe comparison draws on course material [^2].\n\n"
        '<div style="text-align: center">⁂</div>\n\n'
        "[^1]: https://a.example/1\n\n[^2]: https://a.example/2\n"
    )
    paragraphs, sources = read(text)
    assert paragraphs == ["Body [1].", "The comparison draws on course material [2]."]
    assert set(sources) == {"1", "2"}


def test_links_whose_url_holds_spaces_are_citations():
    text = (
        "LIMO aims at few examples ([[2502.03387\\] LIMO: Less is More]"
        "(https://ar5iv.org/html/2502.03387v1#:~:text=We present a fundamental discovery,"
        "unprecedented (Figure 2))). See also [a survey](https://x.example/s)."
    )
    paragraphs, sources = read(text)
    assert paragraphs == ["LIMO aims at few examples [1]. See also a survey [2]."]
    assert sources["1"] == (
        "[2502.03387] LIMO: Less is More",
        "https://ar5iv.org/html/2502.03387v1",
    )


def test_a_text_fragment_with_an_unmatched_parenthesis_stays_in_its_link():
    """OpenAI quotes page text in a link's ``#:~:text=`` fragment, unmatched parentheses
    and all; the link, in parentheses, ends at the first ``))``. Read as balanced
    parentheses only, " If the))" and "(s1 … scaling" were left in the text."""
    text = (
        "Solutions were distilled ([[2501.19393\\] s1: Simple test-time scaling]"
        "(https://ar5iv.org/html/2501.19393v3#:~:text=We show that training on,I) If the)). "
        "Gains hold (RLHF helps ([RLAIF](https://x.example/r#:~:text=Human Feedback,tuning (SFT))). "
        "Privacy laws apply ([PMC](https://x.example/p#:~:text=course,DISHA] from India7)%2C is))."
    )
    paragraphs, sources = read(text)
    assert paragraphs == ["Solutions were distilled [1]. Gains hold (RLHF helps [2]). "
                          "Privacy laws apply [3]."]  # fmt: skip
    assert sources == {
        "1": ("[2501.19393] s1: Simple test-time scaling", "https://ar5iv.org/html/2501.19393v3"),
        "2": ("RLAIF", "https://x.example/r"),
        "3": ("PMC", "https://x.example/p"),
    }


def test_text_after_a_link_is_never_taken_into_its_fragment():
    """The rule is narrow: a link not in parentheses, one without a text fragment, and two
    links in one pair of parentheses end as CommonMark ends them; the words after stay."""
    text = (
        "See [site](https://x.example/a#:~:text=a,b) If the)). "
        "Then ([site](https://x.example/b) If the)). "
        "Both ([a](https://x.example/c#:~:text=x) y, [b](https://x.example/d))."
    )
    paragraphs, sources = read(text)
    assert paragraphs == ["See site [1] If the)). Then (site [2] If the)). Both (a [3] y, b [4])."]
    assert sources["1"] == ("site", "https://x.example/a")
    assert sources["3"] == ("a", "https://x.example/c")


def test_escaped_markers_and_link_lists_are_linked():
    text = (
        "Published in 2025 \\[68\\]\\[135\\].\n\n## References\n\n"
        "[68\\. LIMO: Less is More](https://arxiv.org/abs/2502.03387)\n\n"
        "\\[135. S1 paper \\](https://arxiv.org/abs/2501.19393#:~:text=a,b)\n"
    )
    paragraphs, sources = read(text)
    assert paragraphs == ["Published in 2025 [1][2]."]
    assert sources["1"] == ("LIMO: Less is More", "https://arxiv.org/abs/2502.03387")
    assert sources["2"][1] == "https://arxiv.org/abs/2501.19393"


def test_parenthesised_number_links_and_a_bold_references_line():
    text = (
        "Class imbalance hurts GNNs [(33)](https://openreview.net/forum?id=x).\n\n"
        "**References**\n\n"
        "\\[33] LIMO paper[ https://openreview.net/forum?id=x](https://openreview.net/forum?id=x)\n"
        "\n> (note: partly AI generated)\n"
    )
    paragraphs, sources = read(text)
    assert paragraphs == ["Class imbalance hurts GNNs [1].", "> (note: partly AI generated)"]
    assert sources == {"1": ("LIMO paper", "https://openreview.net/forum?id=x")}


def test_a_trailing_list_with_no_heading_leaves_the_body():
    text = "Claim [1] and [2].\n\n[1] First paper. https://a.example/1\n[2] Second paper\n"
    paragraphs, sources = read(text)
    assert paragraphs == ["Claim [1] and [2]."]
    assert sources == {"1": ("First paper", "https://a.example/1"), "2": ("Second paper", "")}


@pytest.mark.parametrize(
    "math",
    [
        "$x^[1]$",
        "$O(t^2 \\log^2 t)$ with $a_{[2]}$",
        "\\(n^[1]\\)",
        "\\[ f([1]) = 2 \\]",
        "$$\\sum_i [2]_i$$",
        "`code[1]`",
    ],
)
def test_no_marker_is_read_inside_math_or_code(math):
    paragraphs, sources = read(f"Bound {math} holds [3].\n\n[3] A paper https://a.example/3\n")
    assert paragraphs == [f"Bound {math} holds [1]."]
    assert list(sources) == ["1"]


def test_author_year_needs_a_name_and_a_comma():
    paragraphs, sources = read("In (December 2024) and (ACL 2023), as (Smith et al., 2020) says.")
    assert paragraphs == ["In (December 2024) and (ACL 2023), as [1] says."]
    assert list(sources) == ["1"]


@pytest.mark.django_db
def test_a_table_scrolls_and_its_cells_citations_are_linked():
    """ScholarQA's section table ``{"title", "text"}`` and a markdown table in a paragraph:
    both in a sideways-scrolling box, their ``[n]`` markers linked to the sources."""
    import json

    from annotation.importers import run
    from annotation.models import Report
    from annotation.rendering import render_reports

    table = "| Paper | A | B |\n|---|---|---|\n| X (Smith et al., 2020) | 1 | 2 |"
    record = {
        "question": "Q?",
        "response": {
            "sections": [
                {
                    "title": "T",
                    "text": "A claim (Smith et al., 2020).\n\n| a | b |\n|---|---|\n| c [2] | d |",
                    "citations": [
                        {"id": "(Smith et al., 2020)", "title": "Smith paper"},
                        {"id": "2", "title": "Other paper"},
                    ],
                    "table": {"title": "Compared", "text": table},
                }
            ]
        },
    }
    run("reports", json.dumps([record]).encode(), study="S", format="scholarqa", system="s")
    html = render_reports([Report.objects.get().pk])[0].html
    assert html.count('class="table-scroll"') == 2
    in_table = html.split('class="report-table-md"')[1]
    assert 'data-cite="1"' in in_table.split("</table>")[0]  # the cell's citation, linked
    paragraph_table = html.split('class="para-body"')[-1]
    assert 'data-cite="2"' in paragraph_table.split("</table>")[0]


@pytest.mark.parametrize(
    "text",
    [
        # a bold heading and a numbered "Works cited" list (deep-research style)
        "Claim [1].\n\n#### **Works cited**\n\n1. A paper, accessed June 1, 2025, https://a.example/1\n",
        # Kimi-style footnotes with a closing caret
        "Claim [^1^].\n\n[^1^]: A paper https://a.example/1\n",
        # full-width markers with a source tag, a Chinese references heading
        "Claim 【1†source】.\n\n## 参考文献\n\n[1] A paper https://a.example/1\n",
        # "[citation:n]" markers, a "References:" line
        "Claim [citation:1].\n\nReferences:\n- [1] A paper https://a.example/1\n",
    ],
)
def test_other_families_of_the_same_styles(text):
    paragraphs, sources = read(text)
    assert paragraphs == ["Claim [1]."]
    assert sources["1"][1] == "https://a.example/1" and "A paper" in sources["1"][0]


def test_escaped_brackets_around_a_link_are_a_marker_not_math():
    """deepscholar-base writes ``\\[[Author' date](url)\\]``: one citation titled by its words,
    not display math ``\\[…\\]`` and not a title opening with "["."""
    text = "Taxes are studied \\[[Stephan Zheng' 2021-08-05](http://arxiv.org/abs/2108.02755v1)\\]."
    paragraphs, sources = read(text)
    assert paragraphs == ["Taxes are studied [1]."]
    assert sources["1"] == ("Stephan Zheng' 2021-08-05", "http://arxiv.org/abs/2108.02755v1")
    assert read("Display \\[ x^[1] \\] stays.")[0] == ["Display \\[ x^[1] \\] stays."]


def test_a_references_heading_keeps_its_sub_headings_lists():
    text = (
        "Claim [1] and [2].\n\n## References\n\n### Papers\n\n[1] A paper https://a.example/1\n\n"
        "### Web\n\n[2] A page https://a.example/2\n\n## Appendix\n\n- [Notes](https://a.example/n) on it\n"
    )
    paragraphs, sources = read(text)
    assert paragraphs == ["Claim [1] and [2].", "- Notes [3] on it"]  # the next section's list
    assert [sources[k][1] for k in ("1", "2")] == ["https://a.example/1", "https://a.example/2"]


# --- Bold lines as headings (a fingerprint of Mita, gpt-4o-search-preview, Doubao) -----------

#: A report in Mita's shape: a "##" title, then its sections as bold lines alone.
MITA_SHAPED = (
    "## A Report\n\n**1\\. Introduction**\n\nIntro text [1].\n\n"
    "**2.1. The Multi-Hop Gap:**\n\nGap text [2].\n\n__Methods__:\n\nMethods text.\n\n"
    "**References**\n\n[1] A https://a.example/1\n[2] B https://b.example/2\n"
)


def test_a_bold_line_alone_is_a_heading_like_a_hash_heading():
    """Mita's ``**1\\. Introduction**`` reads as its section, titled in plain words (no
    asterisks, escapes read, no final colon), as ``### 1. Introduction`` does; the
    paragraphs are the same as under hash headings, and numbered the same way."""
    hashed = MITA_SHAPED.replace("**1\\. Introduction**", "### 1. Introduction")
    hashed = hashed.replace("**2.1. The Multi-Hop Gap:**", "### 2.1. The Multi-Hop Gap")
    hashed = hashed.replace("__Methods__:", "### Methods")
    assert titles(MITA_SHAPED) == titles(hashed) == [
        "A Report", "1. Introduction", "2.1. The Multi-Hop Gap", "Methods",
    ]  # fmt: skip
    assert read(MITA_SHAPED) == read(hashed)
    assert read(MITA_SHAPED)[0] == ["Intro text [1].", "Gap text [2].", "Methods text."]


@pytest.mark.parametrize(
    "text",
    [
        "**Strengths:**\n- fast\n- simple",  # a lead-in of the list under it
        "Intro line\n**Strengths**",  # the end of a paragraph
        "**This whole sentence is bold for emphasis.**",  # a sentence
        "**Key result [1]**",  # it cites: a title carries no citation
        "**RSSI = A - 10n * log10(d)**",  # more emphasis inside: a formula
        "**Cost $x^2$ grows**",  # math
        "**DeepMind** favors **exploration**:",  # two bold spans
        "```\n\n**not a heading in code**\n\n```",  # inside a code fence
    ],
)
def test_a_bold_line_that_is_no_heading_stays_a_paragraph(text):
    report = parse_markdown(f"## Section\n\n{text}\n\nAfter.\n\n[1] A https://a.example/1\n")
    assert [s.title for s in report.sections] == ["Section"]


def test_a_bold_line_is_one_level_below_its_section_so_a_references_list_keeps_it():
    """Under ``## References`` a bold line is a sub-heading (level 3): the list goes on
    after it, its entries leave the body, as under ``### Papers``."""
    text = (
        "Body [1] and [2].\n\n## References\n\n**Papers**\n\n"
        "1. First paper https://a.example/1\n2. Second paper https://b.example/2\n\n"
        "## Appendix\n\n**Notes**\n\n1. a numbered point\n"
    )
    paragraphs, sources = read(text)
    assert sources == {"1": ("First paper", "https://a.example/1"),
                       "2": ("Second paper", "https://b.example/2")}  # fmt: skip
    assert paragraphs == ["Body [1] and [2].", "1. a numbered point"]
    assert titles(text) == ["", "Papers", "Appendix", "Notes"]


def test_hash_headings_are_titled_in_plain_words():
    """OpenAI's ``## **Title**`` and Perplexity's ``## 1. **Title**`` showed their
    asterisks (a section title is shown as plain text)."""
    text = "# **Understanding X**\n\nA.\n\n## 1. **Building Y**\n\nB.\n\n### Z\\_w:\n\nC.\n"
    assert titles(text) == ["Understanding X", "1. Building Y", "Z_w"]


def test_balanced_brackets_in_a_links_words_are_its_words():
    """OpenAI writes ``([[2403.11144] Is Mamba …](url))``: the inner brackets are part of
    the link's words (CommonMark allows balanced brackets in link text), so the source is
    titled "[2403.11144] Is Mamba …" and the text reads as a plain ``([Title](url))`` link
    does, its parentheses peeled; the annotator saw ``([`` before the marker."""
    url = "https://arxiv.org/abs/2403.11144#:~:text=a,b"
    plain, _ = read("Mamba works ([Is Mamba Effective?](https://arxiv.org/abs/2403.11144)). Next.")
    paragraphs, sources = read(
        f"Mamba works ([[2403.11144] Is Mamba Effective?]({url})). Next.\n\n"
        "Escaped too ([[2305.20050\\] Verify Step by Step](https://ar5iv.org/abs/2305.20050))."
    )
    assert paragraphs[0] == plain[0] == "Mamba works [1]. Next."
    assert paragraphs[1] == "Escaped too [2]."
    assert sources["1"] == ("[2403.11144] Is Mamba Effective?", "https://arxiv.org/abs/2403.11144")
    assert sources["2"][0] == "[2305.20050] Verify Step by Step"
    # an unclosed bracket before a link is still a bracket around it
    assert read("A \\[[Zheng' 2021](http://a.example/1)\\].")[0] == ["A [1]."]


def test_a_fenced_code_block_is_one_paragraph_of_code():
    """OpenAI's ResearcherBench report 8 shows prompts in fenced blocks: they were split at
    each blank line into numbered paragraphs, a ``# `` line inside became a section, a
    ``[1] …`` line a reference entry and ``[4, 5, 5]`` citations. A block is one paragraph,
    as written, with no citation; the text around it is read as before."""
    code = (
        "```\n**Prompt:** \nRatings: [4, 5, 5]\n\n# not a heading\n[1] not a reference\n\n"
        "**Compliant Output (Good):**\nDay 1 [2].\n```"
    )
    text = f"Intro [1].\n\n**Example 1**\n\n{code}\n\n*Analysis:* good [2].\n\n[1] One https://a.example/1\n[2] Two https://a.example/2\n"  # fmt: skip
    parsed = parse_markdown(text)
    paragraphs = [p for s in parsed.sections for p in s.paragraphs]
    assert [s.title for s in parsed.sections] == ["", "Example 1"]
    assert [p.text for p in paragraphs] == ["Intro [1].", code, "*Analysis:* good [2]."]
    assert paragraphs[1].anchors == []
    assert sorted(parsed.citations) == ["1", "2"]
    shown, _ = read(text)
    assert shown[1] == code


def test_a_fence_never_closed_is_read_as_text():
    """A lone fence opens no block (the renderer shows it as text too): the paragraphs
    after it are read as ever, markers and all."""
    paragraphs, sources = read("```\nA claim [1].\n\nAnother [2].\n\n[1] https://a.example/1\n[2] https://a.example/2\n")  # fmt: skip
    assert paragraphs == ["```\nA claim [1].", "Another [2]."]
    assert set(sources) == {"1", "2"}
