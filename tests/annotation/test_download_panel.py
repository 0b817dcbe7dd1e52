"""The study page's Download panel (issue 18): one entry per registered writer, derived from
the registry, each serving the very bytes of the API export through the same function, to
researchers of the study and admins, with a session or an API token; annotators never."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.urls import reverse

from annotation.importers.registry import FORMATS, Format, writable
from annotation.models import Annotator, Study
from studio.studyadmin.downloads import download_panel
from tests.builders.users import make_user, signed_in, token_client


class Panel(HTMLParser):
    """The Download panel's entries as rendered: (kind, format) -> what the entry shows and
    where its link or form points."""

    def __init__(self):
        super().__init__()
        self.entries: dict[tuple[str, str], dict] = {}
        self.current = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and "data-format" in a:
            self.current = {"extension": a["data-extension"], "text": "", "targets": [],
                            "fields": []}  # fmt: skip
            self.entries[(a["data-kind"], a["data-format"])] = self.current
        elif self.current is not None and tag == "a" and "download" in a:
            self.current["targets"].append(a["href"])
        elif self.current is not None and tag == "form":
            self.current["targets"].append(a["action"])
        elif self.current is not None and tag in ("select", "input"):
            self.current["fields"].append(a["name"])

    def handle_endtag(self, tag):
        if tag == "tr":
            self.current = None

    def handle_data(self, data):
        if self.current is not None:
            self.current["text"] += data


def panel_of(html: str) -> dict[tuple[str, str], dict]:
    parser = Panel()
    parser.feed(html)
    return parser.entries


def link(study: Study, writer) -> str:
    """The URL the entry's link or form sends: each required option at its first value
    (as the form preselects it), optional ones left empty."""
    query = {f.name: f.values[0] for f in writer.fields if f.required and f.values}
    return writer.url + ("?" + urlencode(query) if query else "")


def test_every_writer_declares_a_label_and_an_extension():
    for fmt in writable():
        assert fmt.label and fmt.extension.startswith("."), fmt.key


def test_the_panel_has_an_entry_per_registered_writer(demo, admin_user):
    client = signed_in(admin_user)
    page = client.get(reverse("studies:detail", args=[demo.pk])).content.decode()
    entries = panel_of(page)
    assert set(entries) == {f.key for f in writable()}
    writers = download_panel(demo)
    empty = {(w.kind, w.format) for w in writers if w.empty}
    unchoosable = {(w.kind, w.format) for w in writers if w.missing}
    assert ("claims", "jsonl") in empty  # the demo holds no claims: nothing offered
    for fmt in writable():
        entry = entries[fmt.key]
        assert fmt.label in entry["text"] and fmt.extension in entry["text"], fmt.key
        assert entry["extension"] == fmt.extension
        url = reverse("studies:export_format", args=[demo.pk, fmt.kind, fmt.name])
        if fmt.key in empty and not fmt.dump_options:
            assert entry["targets"] == [] and "nothing to write yet" in entry["text"], fmt.key
            continue
        if fmt.key in empty or fmt.key in unchoosable:  # said, with no form (no dead end)
            assert "nothing to write" in entry["text"] and entry["targets"] == [], fmt.key
            continue
        assert entry["targets"] == [url], fmt.key
        # a yes/no option (pairwise expert_agreed) is the API's and pairwise.zip's
        assert entry["fields"] == [o.name for o in fmt.dump_options if o.type is not bool]


def test_every_writer_says_what_data_it_writes():
    """The panel offers only what exists: each writer declares how it knows (issue 28)."""
    from studio.studyadmin.downloads import HOLDS, JUDGES_OF

    for fmt in writable():
        if fmt.kind == "judge_scores":
            assert fmt.name in JUDGES_OF, fmt.key
        else:
            assert f"{fmt.kind}/{fmt.name}" in HOLDS or fmt.kind in HOLDS, fmt.key


def test_a_newly_registered_writer_appears_by_itself(demo, admin_user, monkeypatch):
    fake = Format("questions", "count-only", "question count: one line", load=lambda *a: None,
                  dump=lambda study, **_: {"count.csv": f"n\n{study.questions.count()}\n"},
                  label="How many questions", extension=".csv")  # fmt: skip
    monkeypatch.setitem(FORMATS, fake.key, fake)
    client = signed_in(admin_user)
    page = client.get(reverse("studies:detail", args=[demo.pk])).content.decode()
    assert "How many questions" in panel_of(page)[fake.key]["text"]
    got = client.get(reverse("studies:export_format", args=[demo.pk, *fake.key]))
    assert got.status_code == 200 and got.content == f"n\n{demo.questions.count()}\n".encode()
    assert got["Content-Disposition"] == 'attachment; filename="count.csv"'


def test_each_link_downloads_the_bytes_of_the_api_export(demo, admin_user):
    client, api = signed_in(admin_user), signed_in(admin_user, api=True)
    written = set()
    for writer in download_panel(demo):
        url = link(demo, writer)
        page = client.get(url)
        query = {f.name: f.values[0] for f in writer.fields if f.required and f.values}
        by_api = api.get(
            reverse("study-export", args=[demo.pk]),
            {"kind": writer.kind, "file_format": writer.format, **query},
        )
        assert page.status_code == by_api.status_code, url
        # offered exactly when there is something to write (no entry leads to a 404)
        assert (page.status_code == 200) == writer.offered, (url, page.status_code)
        if page.status_code == 200:
            written.add((writer.kind, writer.format))
            assert page.content == by_api.content and page.content, url
            assert page["Content-Type"] == by_api["Content-Type"], url
            assert page["Content-Disposition"] == by_api["Content-Disposition"], url
            assert page["Content-Disposition"].endswith(f'{writer.extension}"'), url
        elif writer.empty:  # the demo has no data of this writer: said, not an empty file
            assert page.status_code == 404 and "nothing to export" in page.content.decode()
            assert "nothing to export" in by_api.content.decode()
            assert "Content-Disposition" not in page
        else:  # a judge-score writer with no judge to choose: the request names none
            assert page.status_code == 400 and "Content-Disposition" not in page
    # The demo holds content, human and judge data: the papers' content writers all write.
    assert {("reports", "researchqa"), ("reports", "researcherbench"), ("reports", "deepscholar"),
            ("reports", "scholarqa"), ("questions", "researchqa"), ("questions", "researcherbench"),
            ("questions", "jsonl"), ("judgments", "jsonl"), ("judge_scores", "csv"),
            ("pairwise", "scholarqa")} <= written  # fmt: skip


def test_researchqa_judge_files_download_as_the_api_writes_them(admin_user):
    from pathlib import Path

    from annotation.importers import run
    from tests.builders.judged import build_study

    data = Path(__file__).resolve().parent.parent / "judges" / "data"
    study = build_study("J")
    run("judge_scores", data / "researchqa_coverage_alpha.json", study=study,
        format="researchqa-coverage", judge="g", system="alpha")  # fmt: skip
    run("judge_scores", data / "researchqa_pairwise.json", study=study,
        format="researchqa-pairwise", judge="g")  # fmt: skip
    client, api = signed_in(admin_user), signed_in(admin_user, api=True)
    for name, query in (("researchqa-coverage", {"judge": "g", "system": "alpha"}),
                        ("researchqa-pairwise", {"judge": "g"})):  # fmt: skip
        url = reverse("studies:export_format", args=[study.pk, "judge_scores", name])
        page = client.get(url, query)
        by_api = api.get(reverse("study-export", args=[study.pk]),
                         {"kind": "judge_scores", "file_format": name, **query})  # fmt: skip
        assert page.status_code == 200 and page.content == by_api.content, name
        assert page["Content-Type"] == "application/json; charset=utf-8"


@pytest.fixture
def people(demo):
    users = {
        "researcher": make_user("dl_researcher", "researcher"),
        "outsider": make_user("dl_outsider", "researcher"),
        "admin": make_user("dl_admin", "admin"),
        "annotator": Annotator.objects.filter(user__isnull=False).order_by("pk").first().user,
    }
    demo.researchers.add(users["researcher"])
    return users


def test_who_may_download_with_a_session_or_a_token(demo, people):
    url = reverse("studies:export_format", args=[demo.pk, "questions", "jsonl"])
    expected = {"researcher": 200, "admin": 200, "outsider": 404, "annotator": 403}
    files = set()
    for role, status in expected.items():
        session = Client()
        session.force_login(people[role])
        token = token_client(people[role], api=False)
        for how, client in (("session", session), ("token", token)):
            got = client.get(url)
            assert got.status_code == status, (role, how)
            if status == 200:
                files.add(got.content)
                assert got["Content-Type"] == "application/x-ndjson; charset=utf-8"
                assert got["Content-Disposition"] == 'attachment; filename="questions.jsonl"'
    assert len(files) == 1 and next(iter(files)).count(b"\n") == demo.questions.count()
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and reverse("login") in anonymous["Location"]
    assert token_client(key="not-a-real-token", api=False).get(url).status_code == 401


def test_a_researcher_finds_the_panel_on_the_progress_page(demo, people):
    client = Client()
    client.force_login(people["researcher"])
    page = client.get(reverse("studies:progress", args=[demo.pk])).content.decode()
    assert set(panel_of(page)) == {f.key for f in writable()}
    client.force_login(people["annotator"])
    assert client.get(reverse("studies:progress", args=[demo.pk])).status_code == 403


def test_refusals_say_why_and_send_no_file(demo, admin_user):
    client = signed_in(admin_user)
    empty = Study.objects.create(name="Nothing yet")
    got = client.get(reverse("studies:export_format", args=[empty.pk, "questions", "jsonl"]))
    assert got.status_code == 404 and "Content-Disposition" not in got
    assert "nothing to export" in got.content.decode() and "Nothing yet" in got.content.decode()
    reports = reverse("studies:export_format", args=[demo.pk, "reports", "researchqa"])
    missing = client.get(reports)
    assert missing.status_code == 400 and "<strong>system</strong>" in missing.content.decode()
    nobody = client.get(reports, {"system": "no-such-system"})  # names nothing: a 400
    assert nobody.status_code == 400 and "<strong>system</strong>" in nobody.content.decode()
    assert "no system &#x27;no-such-system&#x27; in this study" in nobody.content.decode()
    pairwise = reverse("studies:export_format", args=[demo.pk, "pairwise", "scholarqa"])
    bad = client.get(pairwise, {"setting": "sideways", "annotator": "x"})
    assert bad.status_code == 400 and "sideways" in bad.content.decode()
    unknown = reverse("studies:export_format", args=[demo.pk, "reports", "no-such-format"])
    assert client.get(unknown).status_code == 404
    read_only = reverse("studies:export_format", args=[demo.pk, "deepscholar", "exemplar-references"])  # fmt: skip
    assert client.get(read_only).status_code == 404
    other = client.get(reverse("studies:export_format", args=[999999, "questions", "jsonl"]))
    assert other.status_code == 404


def test_the_panel_says_when_a_writer_has_nothing_to_choose(admin_user):
    client = signed_in(admin_user)
    empty = Study.objects.create(name="Empty")
    entries = panel_of(client.get(reverse("studies:detail", args=[empty.pk])).content.decode())
    assert "this study has no system" in entries[("reports", "researchqa")]["text"]
    assert "this study has no judge" in entries[("judge_scores", "csv")]["text"]


def test_each_format_offers_only_the_judges_it_can_write(admin_user):
    """A ResearchQA coverage judge (0–4 labels) was offered under ResearcherBench (covered
    flags): a certain 404 (tester). Each judge-score entry offers the judges whose verdicts
    its writer reads, and each offered judge downloads."""
    from judges.models import Judge, JudgeCoverage
    from tests.builders.judged import build_study

    study = build_study("Judged coverage", questions=1, systems=("alpha",), items=3)
    report = study.questions.get().reports.get()
    items = list(report.question.rubrics.get().items.all())
    labels, flags = Judge.objects.create(name="cov-0-4"), Judge.objects.create(name="rb-flags")
    for item in items:
        JudgeCoverage.objects.create(judge=labels, report=report, item=item, label=3)
        JudgeCoverage.objects.create(judge=flags, report=report, item=item, covered=True)
    panel = {(w.kind, w.format): w for w in download_panel(study)}

    def judges(fmt):
        return next(f.values for f in panel[("judge_scores", fmt)].fields if f.name == "judge")

    assert judges("researchqa-coverage") == ["cov-0-4"]
    assert judges("researcherbench") == ["rb-flags"]
    assert judges("csv") == [] and not panel[("judge_scores", "csv")].offered
    client = signed_in(admin_user)
    for fmt, query in (("researchqa-coverage", {"judge": "cov-0-4", "system": "alpha"}),
                       ("researcherbench", {"judge": "rb-flags"})):  # fmt: skip
        got = client.get(panel[("judge_scores", fmt)].url, query)
        assert got.status_code == 200, (fmt, got.content[:200])
    # what was offered before: the other judge in each format, an export that can only fail
    refused = client.get(panel[("judge_scores", "researcherbench")].url, {"judge": "cov-0-4"})
    assert refused.status_code == 404


def test_an_entry_with_no_value_to_choose_shows_why_and_no_form(admin_user):
    """The pairwise form's required annotator list was empty, so every download was a 400
    (tester): an entry whose required choice has no option shows why, not a form."""
    client = signed_in(admin_user)
    empty = Study.objects.create(name="No pairwise data")
    entries = panel_of(client.get(reverse("studies:detail", args=[empty.pk])).content.decode())
    pairwise = entries[("pairwise", "scholarqa")]
    assert pairwise["targets"] == [] and pairwise["fields"] == []
    assert "this study has no annotator with medal rankings, metric scores" in pairwise["text"]
    coverage = entries[("judge_scores", "researcherbench")]
    assert coverage["targets"] == [] and coverage["fields"] == []
    assert "no judge with verdicts in this format" in coverage["text"]


def test_an_empty_pairwise_zip_is_a_404_saying_so(demo, admin_user):
    """``pairwise.zip`` of a study with no pairwise records was a zip of only its manifest;
    the README says an empty export answers 404, as every other export does."""
    client = signed_in(admin_user)
    empty = Study.objects.create(name="No records")
    got = client.get(reverse("studies:export_pairwise", args=[empty.pk]))
    assert got.status_code == 404 and "Content-Disposition" not in got
    assert "nothing to export" in got.content.decode() and "No records" in got.content.decode()
    full = client.get(reverse("studies:export_pairwise", args=[demo.pk]))
    assert full.status_code == 200 and full["Content-Type"] == "application/zip"
