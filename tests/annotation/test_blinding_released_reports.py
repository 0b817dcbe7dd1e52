"""Uniform formatting is a blinding requirement (seed 003 §4, issue 12).

Every released ScholarQA-CS2 report file (reports/dev, reports/test, reports/expert_written:
eight systems, each with its own citation style) is imported; then every annotator-visible
response (the task pages and the annotator's API JSON) is searched for what would tell
systems apart: a model tag, a model's version id, the study's system names, a
system-specific citation marker (author-year parentheses, the corpus-id pipe format, paper
keys with pages, footnote carets) or ScholarQA's "TLDR; … (N sources)" decoration.

Product names inside what a report *says* (a report on LLMs in medicine discussing
"Anthropic's Claude 3 family") are content and stay: they are searched for only outside
report content (attributes, labels, the structure of the JSON), where they would identify
the author.
"""

import html as htmllib
import json
import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers import question_key, run
from annotation.models import Assignment, Report, Setting, Study
from tests.module_data import module_data

pytestmark = pytest.mark.django_db

FOLDERS = ("dev", "test", "expert_written")

#: Anywhere an annotator can read, content included.
IDENTIFYING = {
    "model tag": re.compile(r"<\s*/?\s*Model\b|\bversion=\"", re.I),
    "model version id": re.compile(r"\b(?:claude|gemini|gpt|qwen)[\w.\-]*-\d{8}\b", re.I),
    "study system name": re.compile(
        r"claude-sonnet-4-20250514|gemini-2\.5-pro-preview-03-25|sqa-qwen3_8b_SFT_fullanswer"
        r"|qwen3_8b|openai-dr",
        re.I,
    ),
    "corpus-id pipe marker": re.compile(r"\[\s*\d{5,}\s*\||\|\s*Citations:\s*\d+\s*\]"),
    "author-year parentheses": re.compile(
        r"\([A-Z][^()\d\n;]{0,80}?,\s*(?:19|20)\d\d[a-z]?\s*[;)]"
    ),
    "paper key with pages": re.compile(r"\b\w+(?:19|20)\d\d\w+\s+pages\s+\d"),
    "footnote caret": re.compile(r"\[\^\d+\]|\s\^\d+\^"),
    "ScholarQA TLDR": re.compile(r"\bTLDR\s*;|\(\d+ sources?\)"),
}
#: Outside report content (attributes, labels, JSON structure): no system may be named.
SYSTEM_NAMES = re.compile(
    r"\b(?:sqa|qwen|perplexity|openai|open ai|gemini|claude|anthropic|elicit|storm|you\.com"
    r"|falcon|futurehouse|scholarqa|sonnet)\b",
    re.I,
)
#: Evidence snippets quote the cited papers, which cite their own sources in their own
#: style ("(Dwork et al., 2012)"): the same for every system, so only markup and names
#: that identify a system are searched for there.
EVIDENCE_CHECKS = ("model tag", "model version id", "study system name", "corpus-id pipe marker")
#: JSON fields whose values are report or question content, or evidence.
CONTENT_FIELDS = {"text", "title", "url", "snippets"}


def _records(path):
    raw = path.read_text(encoding="utf-8")
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return [json.loads(line) for line in raw.splitlines() if line.strip()]


def import_release(scholarqa_dir, study: str) -> dict[str, int]:
    """Every released report file, one system per file, imported whole: the importer reads
    the oddities of a few files (empty citation ids, markers citing nothing, a question
    twice, an empty report) by its documented rules and reports each as a warning, refusing
    nothing.

    Each file's records are all read, and every record's report is stored, except a
    record that repeats a question (one report per question and system; the importer names
    each such record in a warning and keeps a different report for researchers)."""
    imported = {}
    for folder in FOLDERS:
        for path in sorted((scholarqa_dir / "reports" / folder).glob("*.json*")):
            system = path.name.split(".json")[0]
            records = _records(path)
            rep = run("reports", path, study=study, format="scholarqa", system=system)
            assert rep.records == len(records), path.name
            repeats = [w.record for w in rep.warnings if w.field == "question"]
            # an empty report ("sections": []) is set aside, named in a warning (issue 25)
            empty = [w.record for w in rep.warnings if w.field == "report"]
            assert empty == [n for n, r in enumerate(records, 1) if not r["response"]["sections"]]
            keys = {question_key(r["question"]) for r in records if r["response"]["sections"]}
            stored = Report.objects.filter(
                question__study__name=study, system__name=system, question__external_id__in=keys
            )
            assert stored.count() == len(records) - len(repeats) - len(empty) == len(keys), (
                path.name
            )
            set_aside = [a["record"] for r in stored for a in r.original.get("set_aside", [])]
            different = [w.record for w in rep.warnings if "different report" in w.message]
            assert sorted(set_aside) == sorted(different), path.name
            imported[f"{folder}/{path.name}"] = len(records)
    return imported


class _Page(HTMLParser):
    """Text and attributes of a page, split into report content and the rest."""

    CONTENT_CLASSES = {"para-body", "question", "question-text"}
    #: A source's tip (``cite-tip``) and its entry in the report's references (``ref``): the
    #: source's title, snippets and address as the report gives them (evidence).
    VOID = {"br", "img", "input", "meta", "link", "hr", "mspace", "area", "col", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []  # "", "content" or "evidence" per open element
        self.text: dict[str, list[str]] = {"": [], "content": [], "evidence": []}
        self.attributes: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        kind = self.stack[-1] if self.stack else ""
        classes = set((attrs.get("class") or "").split())
        if "cite-tip" in classes or "ref" in classes:  # a source, as its tip or its entry
            kind = "evidence"
        elif not kind and (classes & self.CONTENT_CLASSES or tag == "h3"):  # h3: section titles
            kind = "content"
        if tag not in self.VOID:
            self.stack.append(kind)
        for name, value in attrs.items():
            self.attributes.append((tag, name, value or ""))

    def handle_endtag(self, tag):
        if self.stack and tag not in self.VOID:
            self.stack.pop()

    def handle_data(self, data):
        self.text[self.stack[-1] if self.stack else ""].append(data)


def _json_strings(value, field=None):
    """(field, string) for every string in a JSON value, dict keys included."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield None, k
            yield from _json_strings(v, k if k in CONTENT_FIELDS else field)
    elif isinstance(value, list):
        for v in value:
            yield from _json_strings(v, field)
    elif isinstance(value, str):
        yield field, value


#: One word of two capitals or more: an acronym or a product's name, no author's.
_ACRONYM_YEAR = re.compile(r"\([A-Z][\w-]*[A-Z][\w-]*,\s*\d{4}\)")


def _names_a_thing(text: str, m: re.Match) -> bool:
    """Whether an author-year-looking parenthesis is an acronym or a product's name and a
    year right after the words it abbreviates or names: "Access Journals (DOAJ, 2024)",
    "Summarization GAN (SumGAN, 2017)" (ScholarQA-CS2 dev perplexity 14, openai-dr 24).
    It names no author, cites nothing, and is the report's own words, kept
    (annotation.importers.markdown.attributes_a_name)."""
    return bool(_ACRONYM_YEAR.fullmatch(m.group())) and text[: m.start()].endswith(
        tuple(f"{c} " for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz*")
    )


def _problems(where: str, text: str, kind: str) -> list[str]:
    """``kind``: "content" (report text), "evidence" (snippets) or "" (anything else)."""
    checks = {n: p for n, p in IDENTIFYING.items() if kind != "evidence" or n in EVIDENCE_CHECKS}
    found = [
        f"{where}: {name}: {m.group()!r}"
        for name, p in checks.items()
        for m in p.finditer(text)
        if not (name == "author-year parentheses" and _names_a_thing(text, m))
    ]
    if not kind:
        found += [f"{where}: system name: {m.group()!r}" for m in SYSTEM_NAMES.finditer(text)]
    return found


@pytest.fixture(scope="module")
def release(django_db_setup, django_db_blocker, scholarqa_dir):
    """The release imported once for both tests (tests/module_data.py)."""
    yield from module_data(django_db_blocker, lambda: import_release(scholarqa_dir, RELEASE))


RELEASE = "Released reports"


def test_every_released_report_file_imports_whole(release):
    """The import half of the test below, on both backends (.ci/run's SQLite pass too)."""
    assert len(release) == 14


@pytest.mark.backend_independent(
    "what an annotator can read of the imported reports; the import itself runs on both "
    "backends in the test above"
)
def test_no_annotator_visible_byte_of_a_released_report_identifies_its_system(
    release, annotator_user
):
    assert len(release) == 14  # every file whole, none refused
    study = Study.objects.get(name=RELEASE)
    study.tasks = [Study.Task.MEDAL_RANKING]
    study.save()
    reports = list(Report.objects.filter(question__study=study).order_by("question_id", "id"))
    assert {r.system.name for r in reports} >= {"sqa", "storm", "falcon", "you", "openai-dr"}

    # The annotator is assigned every report: pages of up to three reports per question,
    # one setting per page of a question (one assignment per question, task and setting).
    by_question: dict[int, list[int]] = {}
    for r in reports:
        by_question.setdefault(r.question_id, []).append(r.pk)
    assignments = [
        Assignment(
            study=study,
            annotator=annotator_user.annotator,
            question_id=q,
            task=Study.Task.MEDAL_RANKING,
            setting=Setting.values[k // 3],
            position=i,
            report_order=ids[k : k + 3],
        )
        for i, (q, ids) in enumerate(by_question.items())
        for k in range(0, len(ids), 3)
    ]
    Assignment.objects.bulk_create(assignments)

    problems: list[str] = []
    client = APIClient()
    client.force_login(annotator_user)

    # The annotator's API: every report, as JSON.
    seen = set()
    for q in by_question:
        response = client.get("/api/reports/", {"question": q, "limit": 50})
        assert response.status_code == 200
        body = response.json()
        rows = body["results"] if isinstance(body, dict) else body
        seen.update(row["public_id"] for row in rows)
        # One search per field of a response, over its strings joined by newlines: joining
        # can only add a match across two strings (none of the patterns' words end or start
        # at a newline), never hide one.
        by_field: dict[str | None, list[str]] = {}
        for field, value in _json_strings(body):
            by_field.setdefault(field, []).append(value)
        for field, values in by_field.items():
            kind = "evidence" if field == "snippets" else "content" if field else ""
            problems += _problems(f"API q{q} {field}", "\n".join(values), kind)
    assert seen == {r.public_id for r in reports}

    # The task pages of every fourth question (every page renders the same way; the
    # sample holds every system's reports).
    sample = set(list(by_question)[::4])
    pages = Assignment.objects.filter(study=study, question_id__in=sample)
    shown = set(
        Report.objects.filter(question_id__in=sample).values_list("system__name", flat=True)
    )
    assert len(shown) == len({r.system.name for r in reports})
    for a in pages:
        response = client.get(reverse("annotate:task", args=[a.pk]))
        assert response.status_code == 200
        page = _Page()
        page.feed(response.content.decode())
        where = f"page {a.pk}"
        for kind, texts in page.text.items():
            problems += _problems(f"{where} {kind or 'page'}", " ".join(texts), kind)
        for tag, name, value in page.attributes:
            if name in {"href", "src"}:
                # source links are evidence; the rest are the app's own URLs
                problems += _problems(f"{where} <{tag} {name}>", value, "evidence")
            elif not tag.startswith("m"):  # MathML attributes carry no words
                problems += _problems(f"{where} <{tag} {name}>", htmllib.unescape(value), "")
    assert not problems, f"{len(problems)} identifying strings, e.g.:\n" + "\n".join(problems[:30])
