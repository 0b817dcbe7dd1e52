"""The released markdown reports import as their systems wrote them (issue 25): every
ResearcherBench system's responses and every ScholarQA-CS2 report file, checked against a
reading of the source written here, independently of the importer's reader:

* at least 99 % of the body's words are in what annotators read;
* no reference-list entry or footnote definition is left as a body paragraph;
* no raw markdown link is left in the text;
* at least 98 % of the inline markers whose reference has a URL carry that URL;
* math is kept verbatim: no marker is substituted inside it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from annotation.importers import run
from annotation.models import Paragraph, Report, Section
from tests.builders.sources import anchors, citations

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
SYSTEMS = ["Claude", "OpenAI", "Perplexity", "Mita", "Doubao", "gpt-4o-search-preview"]


@pytest.fixture(scope="module")
def researcherbench_dir() -> Path:
    folder = DATA / "researcherbench" / "user_data"
    if not folder.is_dir():
        pytest.skip("../shared/data/researcherbench not available")
    return folder


# --- An independent reading of a markdown source ---------------------------------------------

HEADING = re.compile(r"^#{1,6}\s+(.*)$")
REF_TITLE = re.compile(
    r"^[\s*_#]*(?:\d+\.?\s+)?(references|sources|bibliography)(?: and (?:references|sources))?[\s*_:]*$",
    re.I,
)
DEFINITION = re.compile(r"^\[\^?(\d+)\]:\s*(.*)$")
ENTRY = re.compile(r"^(?:[-*]\s+)?\\?\[(\d+)\\?[\].]\s*(.*)$")
URL = re.compile(r"https?://[^\s)\]]+")
WORD = re.compile(r"[A-Za-z]{3,}")
MATH = re.compile(r"\$\$[^$]+\$\$|(?<![\\\w$])\$(?=\S)[^$\n]+?(?<=\S)\$(?![\w$])")
LINK = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\((https?://(?:[^()\n]|\([^()\n]*\))*?)\)")


def read_source(text: str):
    """(body lines, {number: url or ""}, entry lines) of a markdown answer: definitions
    anywhere; numbered entries under a line that is only a references title, or in the
    final run of numbered lines."""
    lines = text.replace("\r\n", "\n").split("\n")
    refs, entries, body = {}, [], []
    in_refs = False
    for line in lines:
        bare = line.strip()
        heading = HEADING.match(bare)
        if heading or REF_TITLE.match(bare):
            in_refs = bool(REF_TITLE.match(heading.group(1) if heading else bare))
        d = DEFINITION.match(bare)
        e = ENTRY.match(bare)
        if d or (in_refs and e):
            number, rest = (d or e).group(1), (d or e).group(2)
            url = URL.search(rest)
            refs.setdefault(number, url.group() if url else "")
            entries.append(rest)
            continue
        if in_refs and re.match(r"^(?:[-*]|\d+\.)\s+\S", bare):  # an unnumbered entry
            entries.append(re.sub(r"^(?:[-*]|\d+\.)\s+", "", bare))
            continue
        body.append(line)
    while body and (not body[-1].strip() or ENTRY.match(body[-1].strip())):
        e = ENTRY.match(body.pop().strip())
        if e:
            url = URL.search(e.group(2))
            refs.setdefault(e.group(1), url.group() if url else "")
            entries.append(e.group(2))
    return body, refs, entries


def words(text: str) -> Counter:
    text = re.sub(r"<[^>\n]+>", " ", text)  # html tags: markup, not words
    text = LINK.sub(" ", text)  # a link's words are its source's title or stay in the text
    return Counter(WORD.findall(URL.sub(" ", text)))


def markers_with_url(body: str, refs: dict[str, str]) -> int:
    body = re.sub(r"```.*?```", " ", body, flags=re.S)  # a code block is shown as written
    body = MATH.sub(" ", body)
    n = len(LINK.findall(body))
    rest = LINK.sub(" ", body)
    n += sum(1 for m in re.finditer(r"\[\^(\d+)\]", rest) if refs.get(m.group(1)))
    rest = re.sub(r"\[\^\d+\]", " ", rest)
    for m in re.finditer(r"\\?\[(\d+(?:\s*,\s*\d+)*)\\?\]", rest):
        n += sum(1 for k in re.findall(r"\d+", m.group(1)) if refs.get(k))
    return n


def stored(report: Report):
    paragraphs = list(report.paragraphs.order_by("number").values_list("text", flat=True))
    titles = list(Section.objects.filter(report=report).values_list("title", flat=True))
    tables = [
        t.get("text", "")
        for t in Section.objects.filter(report=report).values_list("table", flat=True)
        if isinstance(t, dict)
    ]
    url = {c.key: c.url for c in citations(pk=report.pk)}
    with_url = sum(1 for _, _, key, _ in anchors(report=report) if url[key])
    return paragraphs, "\n".join(paragraphs + titles + tables), with_url


def check_report(name: str, source_body: str, refs, entries, report: Report) -> list[str]:
    problems = []
    paragraphs, text, anchored_with_url = stored(report)
    want, got = words(source_body), words(text)
    kept = sum(min(n, got[w]) for w, n in want.items())
    if want and kept < 0.99 * sum(want.values()):
        lost = (want - got).most_common(8)
        problems.append(f"{name}: {kept}/{sum(want.values())} body words kept; lost {lost}")
    lines = {line.strip() for p in paragraphs for line in p.split("\n")}
    for entry in entries:
        title = re.sub(r"\\(.)", r"\1", LINK.sub(lambda m: m.group(1), entry)).strip()[:40]
        if len(title) > 12 and any(
            re.sub(r"^\[\d+\]\s*", "", line).startswith(title) for line in lines
        ):
            problems.append(f"{name}: reference entry left in the body: {title!r}")
    # a link a paragraph break cuts in two in the source (dev/you, OpenAI's fenced table
    # cell) is not a link of either paragraph
    outside_code = [re.sub(r"```.*?```", " ", p, flags=re.S) for p in paragraphs]
    if any(re.search(r"\]\(https?://[^()]*\)", p) for p in outside_code):
        problems.append(f"{name}: raw markdown link left in the text")
    if any(DEFINITION.match(line) for line in lines):
        problems.append(f"{name}: a footnote definition left as a paragraph")
    expected = markers_with_url(source_body, refs)
    if expected and anchored_with_url < 0.98 * expected:
        problems.append(f"{name}: {anchored_with_url}/{expected} markers carry their url")
    for math in MATH.findall(source_body):
        if re.search(r"[\^_\[]", math) and math not in text:
            problems.append(f"{name}: math changed: {math[:60]!r}")
    return problems


@pytest.mark.parametrize("system", SYSTEMS)
def test_researcherbench_responses_are_read_as_written(researcherbench_dir, system):
    path = researcherbench_dir / f"{system}.json"
    records = json.loads(path.read_text())
    rep = run("reports", path, study="RB", format="researcherbench", system=system)
    assert rep.records == len(records) == 65
    reports = {
        r.question.external_id: r
        for r in Report.objects.filter(system__name=system).select_related("question")
    }
    problems = []
    for record in records:
        body, refs, entries = read_source(record["response"])
        problems += check_report(
            f"{system}/{record['id']}", "\n".join(body), refs, entries, reports[str(record["id"])]
        )
    assert not problems, "\n".join(problems[:20])


SCHOLARQA = sorted(
    str(p.relative_to(DATA / "scholarqa-cs2" / "reports"))
    for p in (DATA / "scholarqa-cs2" / "reports").glob("*/*.json*")
)


@pytest.mark.parametrize("name", SCHOLARQA)
def test_scholarqa_reports_keep_their_words_and_math(scholarqa_dir, name):
    path = scholarqa_dir / "reports" / name
    text = path.read_text()
    try:
        records = json.loads(text)
    except json.JSONDecodeError:
        records = [json.loads(line) for line in text.splitlines() if line.strip()]
    run("reports", path, study="CS2", format="scholarqa", system="s")
    by_question = {
        " ".join(r.question.text.split()): r
        for r in Report.objects.filter(system__name="s").select_related("question")
    }
    problems, seen = [], set()
    for n, record in enumerate(records, start=1):
        key = " ".join(record["question"].split())
        sections = record["response"]["sections"]
        if key in seen or not sections or key not in by_question:
            continue
        seen.add(key)
        body = "\n\n".join(s["text"] for s in sections)
        # citation markers are not body words (they become [n]): each listed id as written,
        # and parenthesised author-year or paper-key markers, listed or not
        ids = sorted({c["id"] for s in sections for c in s["citations"] if c["id"]}, key=len)
        for marker in reversed(ids):
            body = body.replace(f"[{marker}]" if marker.isdecimal() else marker, " ")
        body = re.sub(
            r"TLDR\s*[;:]|\(\d+ sources?\)|\[[^\[\]]*\|[^\[\]]*Citations:[^\[\]]*\]", " ", body
        )
        body = re.sub(r"<\s*/?\s*Model\b[^>]*>", " ", body)
        # an in-page link's target ("[Author, 2013](#ref1)", Perplexity) is link syntax
        body = re.sub(r"\]\(#[\w-]*\)", "]", body)
        # STORM's note on its own citations, not the report's words (annotation.boilerplate)
        body = re.sub(r"The citations in the lead section are illustrative[^\n]*", " ", body)
        body = re.sub(r"\((?:[^()]|\([^()]*\))*(?:\d{4}|pages)(?:[^()]|\([^()]*\))*\)", " ", body)
        problems += check_report(f"{name}#{n}", body, {}, [], by_question[key])
    assert not problems, "\n".join(problems[:20])


def test_math_is_never_read_as_a_marker(scholarqa_dir):
    """dev/claude's report on range-minimum queries: "O(t^2 log^2 t)" stays math although
    the report lists a source "^2"; its ``^[16]`` markers are markers."""
    path = scholarqa_dir / "reports" / "dev" / "claude-sonnet-4-20250514.json"
    run("reports", path, study="CS2", format="scholarqa", system="claude")
    text = "\n".join(
        Paragraph.objects.filter(text__contains="log n)^{O(t").values_list("text", flat=True)
    )
    assert "(log n)^{O(t^2 log^2 t)}" in text and "[1] log" not in text
    assert "^[16]" not in text and "^[" not in text
    assert citations(system__name="claude")


def _stored_texts(system: str) -> list[str]:
    return list(
        Paragraph.objects.filter(report__system__name=system)
        .order_by("report__question__external_id", "number")
        .values_list("text", flat=True)
    )


def test_the_command_the_import_page_and_the_api_read_the_same(
    researcherbench_dir, admin_user, client
):
    """Perplexity's footnotes, Mita's escaped lists and Doubao's [(n)](url) markers arrive
    the same way whichever door they come in by: ``import_reports``, the study's import page
    and ``POST /api/studies/{id}/import/``."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.urls import reverse
    from rest_framework.test import APIClient

    from annotation.models import Study

    path = researcherbench_dir / "Perplexity.json"
    call_command("import_reports", str(path), study="Cmd", format="researcherbench",
                 system="Perplexity", stdout=__import__("io").StringIO())  # fmt: skip
    by_command = _stored_texts("Perplexity")
    Study.objects.filter(name="Cmd").delete()
    assert len(by_command) > 1000 and not any(t.startswith("[^") for t in by_command)

    page_study = Study.objects.create(name="Page")
    client.force_login(admin_user)
    response = client.post(
        reverse("studies:import", kwargs={"study_id": page_study.pk}),
        {"kind": "reports", "format": "researcherbench", "system": "Perplexity",
         "file": SimpleUploadedFile("Perplexity.json", path.read_bytes())},
    )  # fmt: skip
    assert response.status_code == 302, response.content.decode()[:2000]
    assert _stored_texts("Perplexity") == by_command
    page_study.delete()

    api_study = Study.objects.create(name="Api")
    api = APIClient()
    api.force_login(admin_user)
    for system in ("Perplexity", "Mita", "Doubao"):
        file = researcherbench_dir / f"{system}.json"
        response = api.post(
            reverse("study-import", args=[api_study.pk]),
            {"kind": "reports", "format": "researcherbench", "options": json.dumps({"system": system}),
             "file": SimpleUploadedFile(file.name, file.read_bytes())},
            format="multipart",
        )  # fmt: skip
        assert response.status_code == 200, response.content[:2000]
        assert response.json()["records"] == 65
    assert _stored_texts("Perplexity") == by_command
    doubao = _stored_texts("Doubao")  # "[(33)](url)" reads "[n]", not "(33) [n]"
    assert not [t for t in doubao if re.search(r"\(\d+\) \[\d+\]|\[\(\d+\)\]\(", t)]
    mita = Report.objects.filter(system__name="Mita")
    assert not Paragraph.objects.filter(report__in=mita, text__startswith="[1\\.").exists()
    assert sum(1 for c in citations(mita) if c.url) > 10_000


# --- What told systems apart: bold-line sections, spaces left by removed markers ------------

#: A paragraph that is one bold line: a section heading as some systems write it.
BOLD_LINE = re.compile(r"^\*\*([^*\n]+)\*\*\s*:?$")


@pytest.mark.parametrize("system", SYSTEMS)
def test_bold_line_sections_are_sections_as_hash_headings_are(researcherbench_dir, system):
    """Mita's sections are bold lines (``**1\\. Introduction**``), gpt-4o-search-preview's
    and most of Doubao's too: read as paragraphs they were numbered paragraphs beside the
    other systems' headings. None is left a paragraph but a bolded sentence, a bold line
    that cites, and a references label with no list under it; no title shows asterisks."""
    from annotation.importers.markdown import REFERENCES_TITLE

    run("reports", researcherbench_dir / f"{system}.json", study="RB", format="researcherbench",
        system=system)  # fmt: skip
    reports = Report.objects.filter(system__name=system)
    left = [
        t for t in Paragraph.objects.filter(report__in=reports).values_list("text", flat=True)
        if BOLD_LINE.match(t)
        and not BOLD_LINE.match(t).group(1).rstrip(":").endswith(".")
        and not re.search(r"\[\d+\]", t)
        and not REFERENCES_TITLE.match(t)
    ]  # fmt: skip
    assert not left, left[:5]
    titles = list(Section.objects.filter(report__in=reports).values_list("title", flat=True))
    assert not [t for t in titles if "**" in t or t.endswith(":") or "\\." in t]
    if system == "Mita":  # its sections, by the titles it gave them
        assert "1. Introduction: The Challenge of Complex Questions in Healthcare RAG" in titles
        assert sum(1 for t in titles if re.match(r"\d+\.\d*\.? ", t)) > 500


def test_the_space_a_removed_marker_left_is_closed_up(researcherbench_dir):
    """Doubao's release removed its markers and left their spaces: "introduced by Vaswani
    et al. in 2017 , has become" (response 6). Annotators read "in 2017, has"; no space
    before a comma, semicolon or full stop is left in any of its responses' prose."""
    run("reports", researcherbench_dir / "Doubao.json", study="RB", format="researcherbench",
        system="Doubao")  # fmt: skip
    texts = list(
        Paragraph.objects.filter(report__system__name="Doubao").values_list("text", flat=True)
    )
    assert any("introduced by Vaswani et al. in 2017, has become" in t for t in texts)
    spaced = [
        t for t in texts
        if "$" not in t and "`" not in t and re.search(r"\w +[,;.](?:\s|$)", t)
    ]  # fmt: skip
    assert not spaced, spaced[:3]


def test_a_report_whose_id_the_questions_file_lacks_is_warned_of(researcherbench_dir, tmp_path):
    """The study holds the 65 questions of questions.json; a reports file whose record 4
    has id 999 created a 66th question without a rubric and without a word (found by an
    admin importing the released files). It is still imported, with a warning naming the
    record and field; the released files themselves give none."""
    import json

    from annotation.importers import run
    from annotation.models import Question

    questions = researcherbench_dir.parent / "questions.json"
    run("questions", questions, study="RB", format="researcherbench",
        rubric=researcherbench_dir.parent / "rubric.json")  # fmt: skip
    assert Question.objects.filter(study__name="RB").count() == 65
    records = json.loads((researcherbench_dir / "Claude.json").read_text())
    first = run("reports", researcherbench_dir / "Claude.json", study="RB",
                format="researcherbench", system="Claude")  # fmt: skip
    assert not [w for w in first.warnings if "not among the study's" in str(w)]
    # a re-import of a system (the general writer) and a new system's file (new_reports)
    for system, wrong, known in (("Claude", 999, 65), ("Claude-z", 998, 66)):
        records[3]["id"] = wrong
        changed = tmp_path / f"{system}.json"
        changed.write_text(json.dumps(records))
        rep = run("reports", changed, study="RB", format="researcherbench", system=system)
        (said,) = [str(w) for w in rep.warnings if "not among the study's" in str(w)]
        assert "record 4, field 'id'" in said and f"'{wrong}'" in said
        assert f"{known} questions" in said
    assert Question.objects.filter(study__name="RB").count() == 67


def test_links_with_brackets_in_their_words_are_whole_citations(researcherbench_dir):
    """OpenAI's ~520 links ``([[2403.11144] Is Mamba …](url))`` were read from their inner
    bracket: the annotator saw ``([`` before the marker and the source was titled
    "2403.11144] Is Mamba …". None is left so in the released file."""
    run("reports", researcherbench_dir / "OpenAI.json", study="RB", format="researcherbench",
        system="OpenAI")  # fmt: skip
    reports = Report.objects.filter(system__name="OpenAI")
    titles = [c.title for c in citations(reports)]
    assert "[2403.11144] Is Mamba Effective for Time Series Forecasting?" in titles
    assert not [t for t in titles if re.match(r"[\w.]*\d[\w.]*\]", t)]
    left = [
        p.text[max(0, a - 10) : b + 2]
        for a, b, _, p in anchors(report__in=reports)
        if p.text[:a].endswith("([")
    ]
    assert not left, left[:5]


#: What a text fragment's quoted words leave after a marker when its link ended at the
#: fragment's first ")": " If the))", "%2C whose))" (not an empty "()" the system wrote).
FRAGMENT_SCRAP = re.compile(r"\[\d+\](?!\s*\(\))[^\[\]()\n]{0,80}\)\)")


def test_a_text_fragments_unmatched_parenthesis_leaves_no_scrap(researcherbench_dir):
    """OpenAI's links quote page text in a ``#:~:text=`` fragment, unmatched parentheses
    and all (``…#:~:text=We show that training on,I) If the))``): 31 places read " If
    the))" or "%2C whose))" after the marker, and the link's words were left before it,
    "(s1: Simple test-time scaling [2]". None is left; the sources keep no fragment."""
    run("reports", researcherbench_dir / "OpenAI.json", study="RB", format="researcherbench",
        system="OpenAI")  # fmt: skip
    texts = list(
        Paragraph.objects.filter(report__system__name="OpenAI").values_list("text", flat=True)
    )
    scraps = [m.group() for t in texts for m in FRAGMENT_SCRAP.finditer(t)]
    assert not scraps, scraps[:5]
    prose = [re.sub(r"```[\s\S]*?(?:```|$)", "", t) for t in texts]  # code shown as written
    assert not [t for t in prose if "%2C" in t or "#:~:" in t]
    assert any("high-quality solutions [" in t for t in texts)  # "…solutions ([s1 …](url))"
    reports = Report.objects.filter(system__name="OpenAI")
    assert not [c for c in citations(reports) if "%2C" in c.title or "#:~:" in c.url]
    title = {
        (pk, item["key"]): item["title"]
        for pk, stored in reports.values_list("pk", "citations")
        for item in stored
    }
    left = [  # a link's words before its marker: "(s1: Simple test-time scaling [2]"
        p.text[max(0, a - 60) : b]
        for a, b, key, p in anchors(report__in=reports)
        if title[p.report_id, key]
        and re.search(rf"\(\s*{re.escape(title[p.report_id, key].strip())}\s*$", p.text[:a])
    ]
    assert not left, left[:5]


# --- Vendors' AI notices: a signature every report of a system shares ----------------------

NOTICES = {"Doubao": "（注：文档部分内容可能由 AI 生成）", "Mita": "\\[AI生成\\]"}
SHARED_CLOSING = "a closing line every report of this file shares"


@pytest.mark.parametrize("system", sorted(NOTICES))
def test_a_vendors_ai_notice_is_not_read_and_the_release_keeps_it(researcherbench_dir, system):
    """Every released Doubao report ends with "（注：文档部分内容可能由 AI 生成）", every Mita
    report says ``\\[AI生成\\]``: shown as written they told annotators which system wrote a
    report. They are system markup (removed from what annotators read); the record as
    released keeps them, so no closing line is left to warn of."""
    rep = run("reports", researcherbench_dir / f"{system}.json", study="RB",
              format="researcherbench", system=system)  # fmt: skip
    texts = Paragraph.objects.filter(report__system__name=system).values_list("text", flat=True)
    assert len(texts) > 65 * 10
    assert not [t for t in texts if "AI生成" in t or "AI 生成" in t]
    assert not [t for t in texts if not t.strip(" >\n")]
    released = [
        r.original["released"][0]["data"]["response"]
        for r in Report.objects.filter(system__name=system)
    ]
    assert len(released) == 65 and all(NOTICES[system] in r for r in released)
    assert not [w for w in rep.warnings if SHARED_CLOSING in str(w)]


def test_a_closing_line_every_report_shares_is_warned_of(researcherbench_dir, tmp_path):
    """The next vendor's signature is caught at import: one warning naming the file, the
    line and how many reports end with it, when at least 90 % of a file's reports (and at
    least 5) share their final paragraph; on a new system's file and on a re-import. The
    released Claude file, whose reports end each in their own words, gives none."""
    closing = "> *This report was generated by an AI research assistant.*"
    records = [
        {"id": n, "question": f"Question {n}?", "response": f"Answer {n} [1].\n\n{closing}\n\n"
         f"## References\n\n[1] Paper {n} https://a.example/{n}\n"}
        for n in range(1, 11)
    ]  # fmt: skip
    path = tmp_path / "Signed.json"
    path.write_text(json.dumps(records))
    for _ in range(2):  # a new system's file, then a re-import (the general writer)
        rep = run("reports", path, study="S", format="researcherbench", system="Signed")
        (said,) = [str(w) for w in rep.warnings if SHARED_CLOSING in str(w)]
        assert "Signed.json" in said and "10 of its 10 reports" in said
        assert "This report was generated by an AI research assistant." in said
    records[0]["response"] = records[0]["response"].replace(closing, "My own ending.")
    path.write_text(json.dumps(records))  # 9 of 10: still warned; 8 of 10 is not
    assert [w for w in run("reports", path, study="S2", format="researcherbench",
                           system="Signed").warnings if SHARED_CLOSING in str(w)]  # fmt: skip
    records[1]["response"] = records[1]["response"].replace(closing, "Another ending.")
    path.write_text(json.dumps(records))
    assert not [w for w in run("reports", path, study="S3", format="researcherbench",
                               system="Signed").warnings if SHARED_CLOSING in str(w)]  # fmt: skip
    rep = run("reports", researcherbench_dir / "Claude.json", study="RB",
              format="researcherbench", system="Claude")  # fmt: skip
    assert rep.records == 65 and not [w for w in rep.warnings if SHARED_CLOSING in str(w)]


def test_no_system_name_in_a_sources_address(researcherbench_dir):
    """gpt-4o-search-preview tags 434 of its links ``?utm_source=openai``: what annotators
    read (the sources' addresses, the paragraphs) holds no analytics tag, the addresses are
    otherwise as written, and the released record keeps them for researchers."""
    path = researcherbench_dir / "gpt-4o-search-preview.json"
    assert path.read_text().count("utm_source=openai") == 434
    run("reports", path, study="RB", format="researcherbench", system="g")
    reports = list(Report.objects.filter(system__name="g"))
    urls = [c.url for r in reports for c in citations(pk=r.pk) if c.url]
    assert len(urls) > 300 and not [u for u in urls if "utm_" in u.lower()]
    assert not Paragraph.objects.filter(report__in=reports, text__icontains="utm_").exists()
    written = {
        re.sub(r"[?&]utm_source=openai$", "", u.rstrip(".,;:"))
        # an address may hold balanced parentheses: ".../wiki/Fine-tuning_(deep_learning)"
        for u in re.findall(r"https?://(?:[^\s()\]\"\\]|\([^\s()\]\"\\]*\))+", path.read_text())
    }
    assert set(urls) <= written  # nothing else of an address changed
    assert any("utm_source=openai" in json.dumps(r.original) for r in reports)


# --- Loose lists and code blocks as the reader sees them -----------------------------------


def _paragraphs_of(system: str, question: str) -> list:
    report = Report.objects.get(system__name=system, question__external_id=question)
    return list(Paragraph.objects.filter(report=report).order_by("number"))


def test_a_fenced_block_is_one_paragraph_of_code(researcherbench_dir):
    """OpenAI's report 8 ("Complex Instruction…") shows three prompts in fenced blocks:
    their fences were shown as text, their lines were ¶20–¶36, shown as markdown, with
    ``[4, 5, 5, 3, 4, 4]`` read as citations. Each block is one paragraph, with no
    citation, shown as one ``<pre><code>``; the paragraphs around them keep theirs."""
    from annotation.rendering import render_reports

    run("reports", researcherbench_dir / "OpenAI.json", study="RB", format="researcherbench",
        system="OpenAI")  # fmt: skip
    paragraphs = _paragraphs_of("OpenAI", "8")
    code = [p for p in paragraphs if "```" in p.text]
    assert len(code) == 3
    for p in code:
        assert p.text.startswith("```") and p.text.endswith("```") and p.text.count("```") == 2
        assert p.anchors == []
    assert "Customer Ratings: [4, 5, 5, 3, 4, 4]" in code[1].text
    assert any(p.anchors for p in paragraphs if p.number > code[-1].number)
    (rendered,) = render_reports([code[0].report_id])
    shown = {p.number: str(p.html) for p in rendered.paragraphs}
    for p in code:
        assert shown[p.number].startswith("<pre><code>") and "```" not in shown[p.number]
        assert "<strong>" not in shown[p.number] and "**Prompt:**" in shown[p.number]


def test_a_loose_numbered_list_shows_its_numbers(researcherbench_dir):
    """Doubao's report 8 lists four limitations a blank line apart, stored one item a
    paragraph: each was shown as "1.". They read 1, 2, 3, 4, one paragraph each."""
    from annotation.rendering import render_reports

    run("reports", researcherbench_dir / "Doubao.json", study="RB", format="researcherbench",
        system="Doubao")  # fmt: skip
    paragraphs = _paragraphs_of("Doubao", "8")
    items = [p for p in paragraphs if re.match(r"[1-4]\.\s+\*\*", p.text)][:4]
    assert [p.text[0] for p in items] == ["1", "2", "3", "4"]
    assert [p.number for p in items] == list(range(items[0].number, items[0].number + 4))
    (rendered,) = render_reports([items[0].report_id])
    shown = {p.number: str(p.html) for p in rendered.paragraphs}
    opening = [shown[p.number].partition(">")[0] + ">" for p in items]
    assert opening == ["<ol>", '<ol start="2">', '<ol start="3">', '<ol start="4">']
