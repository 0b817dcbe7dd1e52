"""A system's boilerplate never reaches annotators (blinding, issue 12).

Normalised, every report reads in one format, but some systems wrote the same words around
their reports again and again: STORM's lead section opening "Here is a potential lead
section for the Wikipedia page:" and titled "summary", OpenScholar's ``[abstract]`` tag,
Mita's memo header ("**From:** Expert Researcher"), OpenAI's "**Sources:**" label, the
"Research Report:" label of Mita's and gpt-4o-search-preview's titles. An annotator who had
seen a few reports recognised the system from them. The released files are imported (read
from ``../shared/data``) and each fingerprint, written here independently of
``annotation.boilerplate``, is checked: in the release, gone from what is stored, kept in
the record as released; and nothing else of any report changed (its citations, its
anchors, every other paragraph).
"""

from __future__ import annotations

import io
import json
import re

import pytest
from django.core.management import call_command

from annotation.importers import run
from annotation.importers.common import read_source
from annotation.importers.deepscholar import _with_references
from annotation.importers.deepscholar_layouts import read_paper_folder
from annotation.importers.researcherbench import parse_responses
from annotation.importers.scholarqa import parse_reports
from annotation.importers.structure import parse_markdown
from annotation.models import Paragraph, Report, Section
from tests.builders.released import shared
from tests.builders.sources import anchors

pytestmark = [pytest.mark.shared_data, pytest.mark.django_db]

#: Each system's fingerprints in what annotators read: paragraphs (a line, a phrase), titles.
#: Written from the released files, not from the code.
PARAGRAPH_TELLS = {
    "storm": re.compile(
        r"Here is a potential lead section|\bthe lead section\b|lead section based on"
        r"|citations in the lead section are illustrative|Please let me know if this meets"
        r"|Please ensure that any use of citations corresponds with valid references"
    ),
    "openscholar": re.compile(r"\[abstract\]"),
    "Mita": re.compile(
        r"(?m)^\*\*(?:To|From|Date|Report Date|Date of Report|Author|Prepared by|Subject"
        r"|Topic):\*\*"
    ),
    "OpenAI": re.compile(r"(?m)^\*\*Sources:\*\*"),
}
TITLE_TELLS = {
    "storm": re.compile(r"^(?:summary|Lead Section)$"),
    "Mita": re.compile(r"^(?:Comprehensive )?Research Report\b", re.I),
    "gpt-4o-search-preview": re.compile(r"^(?:Comprehensive )?Research Report\s*(?::|$)", re.I),
}
#: (benchmark, file or folder, system, reports of the release holding a tell at least)
RELEASED = [
    ("scholarqa", ("scholarqa-cs2", "reports", "expert_written", "storm.json"), "storm", 25),
    ("researcherbench", ("researcherbench", "user_data", "Mita.json"), "Mita", 50),
    ("researcherbench", ("researcherbench", "user_data", "OpenAI.json"), "OpenAI", 30),
    ("researcherbench", ("researcherbench", "user_data", "gpt-4o-search-preview.json"),
     "gpt-4o-search-preview", 18),
]  # fmt: skip


def _tells(system: str, titles: list[str], texts: list[str]) -> list[str]:
    found = []
    if system in PARAGRAPH_TELLS:
        found += [m.group() for t in texts for m in PARAGRAPH_TELLS[system].finditer(t)]
    if system in TITLE_TELLS:
        found += [t for t in titles if TITLE_TELLS[system].search(t)]
    return found


def _released_tells(system: str, report: Report) -> list[str]:
    """The tells in a report as the system wrote it (``Report.original``: sections and
    paragraphs as read, before normalisation)."""
    sections = report.original["sections"]
    return _tells(system, [s["title"] or "" for s in sections],
                  [p for s in sections for p in s["paragraphs"]])  # fmt: skip


@pytest.mark.parametrize(("fmt", "parts", "system", "tagged"), RELEASED)
def test_a_systems_boilerplate_is_gone_after_import_and_kept_as_released(
    fmt, parts, system, tagged
):
    run("reports", shared(*parts), study="S", format=fmt, system=system)
    reports = list(Report.objects.filter(system__name=system))
    released = [r for r in reports if _released_tells(system, r)]
    assert len(released) >= tagged
    shown = {
        r.public_id: _tells(
            system,
            list(Section.objects.filter(report=r).values_list("title", flat=True)),
            list(Paragraph.objects.filter(report=r).values_list("text", flat=True)),
        )
        for r in reports
    }
    assert {k: v for k, v in shown.items() if v} == {}
    # no paragraph is left empty at import, and every anchor still marks its "[n]"
    assert not Paragraph.objects.filter(report__in=reports, text="").exists()
    for start, end, key, paragraph in anchors(report__in=reports):
        assert paragraph.text[start:end] == f"[{key}]"


#: Sentences of the released DeepScholar reports next to a tell, which stay.
KEPT = {
    # the sentence that held the tag
    "openscholar": ["optimize tax rates. While TaxAI and the AI Economist focus"],
    # the lead sections STORM wrote after its echo and its talk to the requester
    "storm": [
        "Economic inequality is a pressing global issue, affecting education",
        "The serving of large language models (LLMs) is a critical task for cloud providers",
    ],
}


def test_deepscholar_storm_and_openscholar_lose_their_boilerplate():
    """STORM's lead section (its echo of the prompt, its talk to the requester, a "Lead
    Section" heading, the closing "Please let me know…") and OpenScholar's ``[abstract]``
    tag, imported by the command; every sentence about the papers kept."""
    papers = shared("deepscholar", "test_dataset", "related_works_combined.csv")
    for system in ("storm", "openscholar"):
        call_command("import_reports", str(shared("deepscholar", "baselines_results", system)),
                     "--study", "DS", "--format", "deepscholar", "--papers", str(papers),
                     stdout=io.StringIO())  # fmt: skip
    for system in ("storm", "openscholar"):
        reports = list(Report.objects.filter(system__name=system))
        assert len(reports) == 2
        texts = list(Paragraph.objects.filter(report__in=reports).values_list("text", flat=True))
        titles = list(Section.objects.filter(report__in=reports).values_list("title", flat=True))
        released = json.dumps([r.original for r in reports])
        assert PARAGRAPH_TELLS[system].search(released)
        assert _tells(system, titles, texts) == []
        body = "\n".join(texts)
        for kept in KEPT[system]:
            assert kept in body, (system, kept)
    # the sections that were all boilerplate went (STORM's "summary" and "References" of
    # paper 1: its chat, its sign-off); every other section stayed
    assert not Section.objects.filter(report__system__name="storm", paragraphs=None).exists()


# --- Nothing else changes: every released report, normalised with and without the list ----


def _every_released_report():
    """(system, parsed) of every released report, read by the importers' parsers."""
    for folder in ("dev", "test", "expert_written"):
        for path in sorted(shared("scholarqa-cs2", "reports", folder).glob("*.json*")):
            system = path.name.split(".json")[0]
            for item in parse_reports(read_source(path)):
                yield system, item.parsed
    for path in sorted(shared("researcherbench", "user_data").glob("*.json")):
        for item in parse_responses(read_source(path)):
            yield path.stem, item.parsed
    for system in ("deepscholar-base", "openscholar", "search_ai_gpt_4.1", "storm"):
        for paper in sorted(shared("deepscholar", "baselines_results", system).iterdir()):
            if paper.is_dir():
                out = read_paper_folder(paper)
                yield system, _with_references(out, parse_markdown(out.markdown))


def _words(text: str) -> str:
    return " ".join(text.split())


#: Labels whose words stay (the label goes): Mita's subject line, OpenAI's closing paragraph.
LABELS = re.compile(r"(?m)^\*\*(?:Subject|Topic|Sources):\*\*\s*")
#: A title's label whose words stay: "Research Report: The title" reads "The title".
TITLE_LABEL = re.compile(r"^(?:Comprehensive )?Research Report\s*(?::\s*|$)", re.I)
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _content(paragraph, tell) -> list[str]:
    """A paragraph's sentences with words (STORM's "---" before its note is a rule) and no
    ``tell``, a label's words included."""
    return [
        x for x in SENTENCE.split(LABELS.sub("", paragraph.text))
        if re.search(r"\w", x) and not (tell and tell.search(x))
    ]  # fmt: skip


@pytest.mark.django_db(False)
def test_nothing_but_the_boilerplate_changes_in_any_released_report(monkeypatch):
    """Every released report (14 systems' files) normalised as imported, and again with no
    boilerplate declared: the same citations and the same number of anchors; a report of
    a system with no fingerprint identical; in the others, every sentence that holds no
    tell (a label's words included) still in the report, and every title but a tell the
    same (a label's words kept)."""
    from annotation import boilerplate
    from annotation.normalise import normalise_report

    reports = list(_every_released_report())
    assert len(reports) > 1400
    with_list = [normalise_report(parsed)[0] for _, parsed in reports]
    monkeypatch.setattr(boilerplate, "_BY_WHERE", {w: () for w in boilerplate._BY_WHERE})
    without = [normalise_report(parsed)[0] for _, parsed in reports]

    changed: dict[str, int] = {}
    for (system, _), new, old in zip(reports, with_list, without, strict=True):
        assert new.citations == old.citations, system
        paragraphs = [p for s in new.sections for p in s.paragraphs]
        before = [p for s in old.sections for p in s.paragraphs]
        assert sum(len(p.anchors) for p in paragraphs) == sum(len(p.anchors) for p in before)
        for p in paragraphs:
            assert [p.text[a:b] for a, b, _ in p.anchors] == [f"[{k}]" for *_, k in p.anchors]
        if system not in PARAGRAPH_TELLS and system not in TITLE_TELLS:
            assert new.canonical() == old.canonical(), system
            continue
        changed[system] = changed.get(system, 0) + (new.canonical() != old.canonical())
        body = _words("\n".join(p.text for p in paragraphs))
        tell = PARAGRAPH_TELLS.get(system)
        for p in before:
            for sentence in _content(p, tell):
                assert _words(sentence) in body, (system, sentence)
        # every title but a tell, of every section but one that was all tells (the first
        # stays: its title is the report's)
        titles = [
            "" if system == "storm" and TITLE_TELLS["storm"].search(s.title)
            else TITLE_LABEL.sub("", s.title) if system in TITLE_TELLS else s.title
            for k, s in enumerate(old.sections)
            if k == 0 or s.table or not s.paragraphs or any(_content(p, tell) for p in s.paragraphs)
        ]  # fmt: skip
        assert [t for t in titles if t] == [s.title for s in new.sections if s.title], system
    # 25 expert-written STORM reports and DeepScholar's 2; one of OpenScholar's 2
    assert changed["storm"] == 27 and changed["openscholar"] == 1
    assert changed["Mita"] >= 50 and changed["OpenAI"] >= 30
    assert changed["gpt-4o-search-preview"] >= 18


# --- Re-normalising stored reports -------------------------------------------------------------


def test_the_command_removes_boilerplate_from_reports_stored_with_it():
    """Reports normalised at import before the list (their ``original`` set) with no record
    kept as released (one with a kept record is rebuilt from it, test_renormalise_rebuild):
    the command removes only the boilerplate, in place: the paragraph rows kept (one that
    was all boilerplate left empty), the anchors moved with the text, the titles' labels
    gone, the citations as stored; again, nothing is left to do."""
    run("reports", shared("researcherbench", "user_data", "Mita.json"), study="RB",
        format="researcherbench", system="Mita")  # fmt: skip
    report = next(
        r for r in Report.objects.filter(system__name="Mita").order_by("pk")
        if "**From:** Expert Researcher" in r.original["sections"][0]["paragraphs"]
    )  # fmt: skip
    # stored as an import before the list stored it: the header, the label, the title
    first = Section.objects.filter(report=report).order_by("position").first()
    first.title = "Research Report: " + first.title
    first.save(update_fields=["title"])
    head = Paragraph.objects.filter(section=first).order_by("number").first()
    cited = Paragraph.objects.filter(report=report).exclude(anchors=[]).order_by("number").first()
    Paragraph.objects.filter(pk=head.pk).update(
        text="**From:** Expert Researcher\n**Subject:** " + head.text
    )
    shift = len("**Sources:** ")
    Paragraph.objects.filter(pk=cited.pk).update(
        text="**Sources:** " + cited.text,
        anchors=[[a + shift, b + shift, k] for a, b, k in cited.anchors],
    )
    without_record = {k: v for k, v in report.original.items() if k != "released"}
    Report.objects.filter(pk=report.pk).update(original=without_record)
    rows = list(Paragraph.objects.filter(report=report).values_list("pk", "number"))
    stored_citations = Report.objects.get(pk=report.pk).citations

    out = io.StringIO()
    call_command("normalise_reports", stdout=out)
    assert "removed a system's boilerplate from 1 reports" in out.getvalue()
    assert list(Paragraph.objects.filter(report=report).values_list("pk", "number")) == rows
    assert Paragraph.objects.get(pk=head.pk).text == head.text
    moved = Paragraph.objects.get(pk=cited.pk)
    assert moved.text == cited.text and moved.anchors == cited.anchors
    assert Section.objects.get(pk=first.pk).title == first.title.removeprefix("Research Report: ")
    assert Report.objects.get(pk=report.pk).citations == stored_citations
    call_command("normalise_reports", stdout=out)
    assert "removed a system's boilerplate from 0 reports\n" in out.getvalue()


# --- You.com's dash-joined fragment words -------------------------------------------------------

#: A snippet (or title) that is words joined by dashes, no space: You.com's text fragment
#: written with "-" for the page's spaces (``The-proposed-method-assigned-weights-to-concepts``).
DASHED = re.compile(r"^[^\s/]*[A-Za-z]-[A-Za-z]+-[A-Za-z][^\s/]*(?: … [^\s/]+)?$")


def test_you_com_dash_joined_snippets_read_as_words():
    """ScholarQA-CS2 dev/you.json: ten snippets (33 citations) are a text fragment with
    dashes for spaces; imported, none is, each read as words with an elision between the
    fragment's start and end, as You.com's other snippets are."""
    path = shared("scholarqa-cs2", "reports", "dev", "you.json")
    released = {
        x.strip()
        for record in json.loads(path.read_text())
        for s in record["response"]["sections"]
        for c in s.get("citations") or []
        for x in c.get("snippets") or []
        if isinstance(x, str) and DASHED.match(x.strip()) and "://" not in x
    }
    assert len(released) >= 10
    run("reports", path, study="S", format="scholarqa", system="you")
    stored = [x for r in Report.objects.all() for c in r.citations for x in c.get("snippets") or []]
    assert [x for x in stored if DASHED.match(x.strip())] == []
    for words in (
        "Our evaluation results demonstrate … as BART, BERT, and",
        "Consequently, it is observed … recall for the Edmunds",
        "The proposed method assigned weights to concepts",
    ):
        assert words in stored
    titles = [c["title"] for r in Report.objects.all() for c in r.citations]
    assert "Our evaluation results demonstrate … as BART, BERT, and" in titles


@pytest.mark.django_db(False)
@pytest.mark.parametrize(
    ("text", "snippet", "title"),
    [
        # the released shape, and as an import before this rule stored it (bare comma shown
        # as an elision, the dashes kept): words either way, on pages of stored reports too
        ("Our-evaluation-results-demonstrate,as-BART,-BERT,-and",
         "Our evaluation results demonstrate … as BART, BERT, and",
         "Our evaluation results demonstrate … as BART, BERT, and"),
        ("Our-evaluation-results-demonstrate … as-BART,-BERT,-and",
         "Our evaluation results demonstrate … as BART, BERT, and",
         "Our evaluation results demonstrate … as BART, BERT, and"),
        ("The-objective-was-to,ontologies)-into-artificial-intelligence",
         "The objective was to … ontologies) into artificial intelligence",
         "The objective was to … ontologies) into artificial intelligence"),
        # one passage: words as a snippet; a title keeps it (a slug or a repository's name
        # is written so: Mita's "AI-Agent-Engineering", Doubao's page titles)
        ("The-proposed-method-assigned-weights-to-concepts",
         "The proposed method assigned weights to concepts",
         "The-proposed-method-assigned-weights-to-concepts"),
        ("AI-Agent-Engineering", "AI-Agent-Engineering", "AI-Agent-Engineering"),
        ("state-of-the-art", "state-of-the-art", "state-of-the-art"),
        ("SuperBruceJia/Awesome-Mixture-of-Experts", "SuperBruceJia/Awesome-Mixture-of-Experts",
         "SuperBruceJia/Awesome-Mixture-of-Experts"),
        ("costs-1,000-dollars-each", "costs-1,000-dollars-each", "costs-1,000-dollars-each"),
        ("text-to-image models, as in-context learning", "text-to-image models, as in-context learning",
         "text-to-image models, as in-context learning"),
    ],
)  # fmt: skip
def test_dash_joined_fragment_words_are_shown_as_words(text, snippet, title):
    from annotation.links import shown_snippet, shown_title

    assert shown_snippet(text) == snippet
    assert shown_title(text) == title
