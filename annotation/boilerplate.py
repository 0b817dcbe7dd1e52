"""Boilerplate a system writes in every report, which told annotators who wrote it (blinding).

Normalisation gives every report one format (:mod:`annotation.normalise`); what it left
was a system's own *words around* the report: STORM's "Here is a potential lead section
for the Wikipedia page:", OpenScholar's ``[abstract]`` tag, Mita's memo header. Each is in
a large share of one system's reports and in none of another's, so an annotator who has
seen a few reports recognises the system at a glance. :data:`BOILERPLATE` declares every
such pattern once, with the system and the released file it was seen in; normalisation
removes them at import and when stored reports are re-normalised
(``manage.py normalise_reports``), and the report as released keeps them
(``Report.original``).

The rule for a pattern: it matches the boilerplate phrase, tag or label only, never a
sentence that says something about the science (the subject line of Mita's memo keeps its
words and loses its label; OpenAI's closing "**Sources:**" paragraph keeps its sentence
and its citations). A match that would take a citation marker with it is not removed.
A paragraph left empty goes (at import), as one holding only a model tag does.

How the list was found (issue 12's survey, every released report of ScholarQA-CS2,
ResearcherBench and DeepScholar-Bench, normalised): per system, the share of its reports
holding each first and last sentence, section title, paragraph opening, bracketed tag,
line prefix and five-word sequence, against the largest share among the other systems.
What is declared here is what one system (or two) writes in many reports and no other
does, and that carries no content. Found and left as the system wrote it, because it is
the report's own words or structure (a style, not boilerplate): qwen-sqa's list openings
"Here are the key …:" (13 of 25 expert-written reports), Falcon's "This report examines"
(20 of 100), Doubao's roman-numbered "I. Introduction", ScholarQA's table of column
definitions ("Title of the Paper corresponding to this row with citation mention"; only
ScholarQA writes tables at all).

Pure: plain data in, plain data out; no database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Where a pattern is looked for: any paragraph; the paragraphs of a report's first section
#: (a header: "**From:** Expert Researcher" later in a report may be a quoted memo); any
#: section's title; the first section's title.
TEXT, HEAD, TITLE, FIRST_TITLE = "text", "head", "title", "first title"


@dataclass(frozen=True)
class Boilerplate:
    """One system's boilerplate: what it is, where it was seen, the pattern (removed, or
    replaced by ``keep``), where in a report it is looked for (``where``) and ``needle``,
    what every match holds once lower-cased (tested before the pattern: most paragraphs
    have none)."""

    system: str
    seen: str
    pattern: re.Pattern
    needle: str
    where: str = TEXT
    keep: str = ""


def _sentence(*must: str) -> str:
    """A whole sentence (from a line's start or after a sentence's end, to its end and the
    spaces after it) holding every regex of ``must``."""
    ahead = "".join(rf"(?=[^.!?\n]*{m})" for m in must)
    return rf"(?:^|(?<=[.!?] )){ahead}[^.!?\n]*[.!?][ \t]*"


#: Every system's boilerplate (module doc). Counts are of the released files.
BOILERPLATE: tuple[Boilerplate, ...] = (
    Boilerplate(
        "STORM",
        "DeepScholar-Bench baselines_results/storm/0 storm_gen_article_polished.md: its "
        "lead section opens with the writer's echo of STORM's prompt, 'Here is a potential "
        "lead section for the Wikipedia page:' (a line of its own; STORM writes Wikipedia "
        "articles, and says so)",
        re.compile(
            r"^[ \t]*Here(?: is|'s|’s) (?:a |the )?(?:potential |possible |draft |revised )?"
            r"lead section(?: for the Wikipedia (?:page|article))?[ \t]*:[ \t]*(?:\n|$)",
            re.I | re.M,
        ),
        "lead section",
    ),
    Boilerplate(
        "STORM",
        "DeepScholar-Bench baselines_results/storm/1: the lead section is the writer "
        "talking to STORM about its own task: \"I'm happy to help you with the lead "
        "section. However, I notice that you provided a draft page for the Related Works "
        "section, not the lead section. I'll write a lead section based on the provided "
        'abstract and guidelines." (each sentence speaks to the requester, I or you, of '
        "the lead section; none says anything of the paper)",
        re.compile(_sentence(r"\b[Ll]ead section\b", r"\b(?:I|[Yy]ou)\b"), re.M),
        "lead section",
    ),
    Boilerplate(
        "STORM",
        "ScholarQA-CS2 reports/expert_written/storm.json, report 19's lead section ends "
        "'---\\nThe citations in the lead section are illustrative and would typically be "
        "linked to specific sources. Please ensure that any use of citations corresponds "
        "with valid references in the actual article.' (a note on the citations, none "
        "cited)",
        re.compile(
            r"(?:^|\n)(?:[ \t]*-{3,}[ \t]*\n)?[ \t]*The citations in the lead section are "
            r"illustrative\b[^\n]*",
            re.I,
        ),
        "illustrative",
    ),
    Boilerplate(
        "STORM",
        "DeepScholar-Bench baselines_results/storm/1: the report's last line, 'Please let "
        "me know if this meets your requirements or if you need further adjustments!' (a "
        "chat sign-off; a customer-service letter quoted in Doubao's report 53, 'Please let "
        "me know if you have any questions', is content and is not matched)",
        re.compile(
            _sentence(r"\bPlease let me know if this meets your (?:requirements|needs)\b"),
            re.I | re.M,
        ),
        "let me know",
    ),
    Boilerplate(
        "OpenScholar",
        "DeepScholar-Bench baselines_results/openscholar/0: '… optimize tax rates "
        "[abstract].': OpenScholar's tag citing the prompt's abstract (its own passage "
        "label; no source of the report; a markdown link's words '[abstract](url)' are not "
        "it)",
        re.compile(r"[ \t]*\[(?:the |paper )?abstract\](?!\()", re.I),
        "abstract]",
    ),
    Boilerplate(
        "Mita",
        "ResearcherBench user_data/Mita.json: a memo header opens 40 of 65 reports, "
        "'**To:** Interested Parties', '**From:** Expert Researcher', '**Date:** July 26, "
        "2025', '**Author:** AI Research Assistant', '**Prepared by:** …', '**Report "
        "Date:** …' (each line, in the first section; no other system writes one)",
        re.compile(
            r"^[ \t]*\*\*(?:To|From|Date|Report Date|Date of Report|Author|Prepared by|"
            r"Prepared for):\*\*[^\n]*(?:\n|$)",
            re.M,
        ),
        ":**",
        HEAD,
    ),
    Boilerplate(
        "Mita",
        "ResearcherBench user_data/Mita.json: the memo's '**Subject:** …' (15 reports) or "
        "'**Topic:** …' (2): the label goes, the subject's words stay",
        re.compile(r"^[ \t]*\*\*(?:Subject|Topic):\*\*[ \t]*", re.M),
        ":**",
        HEAD,
    ),
    Boilerplate(
        "OpenAI deep research",
        "ResearcherBench user_data/OpenAI.json: 31 of 65 reports close with a paragraph "
        "labelled '**Sources:** The analysis above is based on …': the label goes, the "
        "sentence and its citations stay",
        re.compile(r"^[ \t]*\*\*Sources:\*\*[ \t]*", re.M),
        ":**",
    ),
    Boilerplate(
        "STORM",
        "ScholarQA-CS2 reports/expert_written/storm.json (25 of 25) and DeepScholar-Bench "
        "storm (2 of 2): the first section is titled 'summary', in lower case, STORM's "
        "name for a Wikipedia article's lead (other systems leave it untitled)",
        re.compile(r"summary"),
        "summary",
        FIRST_TITLE,
    ),
    Boilerplate(
        "STORM",
        "DeepScholar-Bench baselines_results/storm/1: a section titled '## Lead Section'",
        re.compile(r"[ \t]*lead section[ \t]*", re.I),
        "lead section",
        TITLE,
    ),
    Boilerplate(
        "Mita, gpt-4o-search-preview",
        "ResearcherBench user_data/Mita.json (51 of 65) and gpt-4o-search-preview.json (18 "
        "of 65): the first title is labelled 'Research Report: …', 'Comprehensive Research "
        "Report: …' or is only 'Research Report': the label goes, the title's words stay",
        re.compile(r"^[ \t]*(?:Comprehensive )?Research Report[ \t]*(?::[ \t]*|$)", re.I),
        "research report",
        FIRST_TITLE,
    ),
)

#: The declarations by where they are looked for.
_BY_WHERE = {w: tuple(b for b in BOILERPLATE if b.where == w) for w in (TEXT, HEAD, TITLE,
                                                                         FIRST_TITLE)}  # fmt: skip


def strip_boilerplate(text: str, anchors=(), *, head: bool = False):
    """``(text, anchors)``: ``text`` without the boilerplate of :data:`BOILERPLATE` that is
    looked for in a paragraph (``head``: one of the report's first section), ``anchors``
    (``(start, end, key)``) moved with it. A match holding an anchor, or running into one,
    stays (a citation is never removed)."""
    declared = _BY_WHERE[TEXT] + _BY_WHERE[HEAD] if head else _BY_WHERE[TEXT]
    lowered = text.lower()  # one pass: every needle is lower case
    for b in declared:
        if b.needle not in lowered:
            continue
        edits = [
            m.span()
            for m in b.pattern.finditer(text)
            if not any(a < m.end() and m.start() < e for a, e, *_ in anchors)
        ]
        if edits:
            text, anchors = _apply(text, anchors, edits, b.keep)
            lowered = text.lower()
    return text, list(anchors)


def _apply(text: str, anchors, edits: list[tuple[int, int]], keep: str):
    """``text`` with each span of ``edits`` (in order, none overlapping) replaced by
    ``keep``, and ``anchors`` moved (none is inside a span)."""
    out, cursor = [], 0
    for start, end in edits:
        out.append(text[cursor:start])
        out.append(keep)
        cursor = end
    out.append(text[cursor:])

    def moved(position: int) -> int:
        return position + sum(len(keep) - (e - s) for s, e in edits if e <= position)

    return "".join(out), [(moved(a), moved(b), *rest) for a, b, *rest in anchors]


def strip_boilerplate_title(title: str, *, first: bool = False) -> str:
    """A section's title without the boilerplate of :data:`BOILERPLATE` (``first``: the
    report's first section). A title pattern is a whole title (``summary``, ``Lead
    Section``), or a label at its start (``Research Report:``); what is left is stripped."""
    declared = _BY_WHERE[TITLE] + _BY_WHERE[FIRST_TITLE] if first else _BY_WHERE[TITLE]
    for b in declared:
        if b.needle not in title.lower():
            continue
        if b.pattern.pattern.startswith("^"):
            title = b.pattern.sub(b.keep, title, count=1).strip()
        elif b.pattern.fullmatch(title.strip()):
            title = b.keep
    return title
