"""DeepScholar-Bench's released files import as released (issue 25; 26 dead end 1).

Every baseline folder of ``../shared/data/deepscholar`` is checked against a reading of
its source written here, independently of the importer: at least 99 % of the body words
kept, no reference-list entry left as a body paragraph, no raw markdown link left, at least
98 % of the inline markers whose reference has a URL carrying that URL.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.models import Paragraph, Question, Report, Section
from tests.builders.sources import anchors, citations

DS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "deepscholar"
SYSTEMS = ("deepscholar-base", "openscholar", "search_ai_gpt_4.1", "storm")
PAPERS = DS / "test_dataset" / "related_works_combined.csv"

pytestmark = [pytest.mark.shared_data, pytest.mark.django_db]


@pytest.fixture(scope="module")
def release() -> Path:
    if not DS.is_dir():
        pytest.skip("../shared/data/deepscholar not available")
    return DS


# --- An independent reading of each released paper folder ------------------------------------

WORD = re.compile(r"[A-Za-z0-9]+")
LINK_MARKER = re.compile(r"\\\[\[[^\]]*\]\((http[^)]*)\)\\\]")
NUMBERS = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def _cut_references(text: str) -> str:
    """The text without its reference lists: from a "References" heading or line to the
    next heading (STORM has two)."""
    out, skipping = [], False
    for line in text.split("\n"):
        bare = line.strip().strip("#").strip()
        if re.fullmatch(r"References:?", bare):
            skipping = True
            continue
        if line.startswith("#"):
            skipping = False
        if not skipping:
            out.append(line)
    return "\n".join(out)


#: STORM's words around its article, not the article's (normalisation removes them from
#: what annotators read: blinding, annotation.boilerplate): its echo of the lead-section
#: prompt, its sentences to the requester about the lead section, its "summary" and "Lead
#: Section" headings.
STORM_BOILERPLATE = re.compile(
    r"Here is a potential lead section for the Wikipedia page:|[^.\n]*\blead section\b[^.\n]*\."
    r"|^#+ (?:summary|Lead Section)$",
    re.M,
)


def source_reading(paper: Path) -> tuple[str, list[str]]:
    """(body text without markers, URL of every inline marker whose reference has one)."""
    if (paper / "intro.md").is_file():
        body = _cut_references((paper / "intro.md").read_text())
        urls = LINK_MARKER.findall(body)
        return LINK_MARKER.sub(" ", body), urls
    runs = [p for p in paper.iterdir() if p.is_dir()]
    if runs:
        run = runs[0]
        body = _cut_references((run / "storm_gen_article_polished.md").read_text())
        body = STORM_BOILERPLATE.sub(" ", body)
        index = json.loads((run / "url_to_info.json").read_text())["url_to_unified_index"]
        by_n = {str(n): url for url, n in index.items()}
        urls = [by_n[n] for m in NUMBERS.finditer(body) for n in re.findall(r"\d+", m.group(1))
                if n in by_n]  # fmt: skip
        return NUMBERS.sub(" ", body), urls
    md = next(paper.glob("*.md")).read_text()
    listed = {}
    for line in md.split("\n"):
        m = re.match(r"\[?(\d+)[\].]\s.*?(https?://\S+)\s*$", line)
        if m:
            listed[m.group(1)] = m.group(2)
    body = _cut_references(md)
    urls = [listed[n] for m in NUMBERS.finditer(body) for n in re.findall(r"\d+", m.group(1))
            if n in listed]  # fmt: skip
    return NUMBERS.sub(" ", body), urls


def words(text: str) -> Counter:
    return Counter(w.lower() for w in WORD.findall(text.replace("#", " ")))


def stored_reading(report: Report) -> tuple[str, list[str], list[str]]:
    """(stored body without markers, paragraph texts, URL of every stored anchor)."""
    titles = [s.title for s in Section.objects.filter(report=report)]
    paras = list(Paragraph.objects.filter(report=report).order_by("number"))
    texts = [p.text for p in paras]
    url = {c.key: c.url for c in citations(pk=report.pk)}
    urls = [url[key] for _, _, key, _ in anchors(report=report)]  # by paragraph, then start
    body = "\n".join(titles + [NUMBERS.sub(" ", t) for t in texts])
    return body, texts, urls


def check_report(report: Report, paper: Path) -> None:
    source_body, source_urls = source_reading(paper)
    body, texts, stored_urls = stored_reading(report)
    want, got = words(source_body), words(body)
    kept = sum(min(n, got[w]) for w, n in want.items()) / sum(want.values())
    assert kept >= 0.99, (paper, kept)
    for text in texts:
        assert not re.match(r"^\s*\\?\[\d+\\?\]\s+\S", text), (paper, text[:80])
        assert "](http" not in text, (paper, text[:120])
        assert "Document " not in text[:20], (paper, text[:80])
    if source_urls:
        stored = Counter(stored_urls)
        carried = sum(min(n, stored[u]) for u, n in Counter(source_urls).items())
        assert carried / len(source_urls) >= 0.98, (paper, carried, len(source_urls))


def check_study(study: str, systems=SYSTEMS) -> None:
    for system in systems:
        folder = DS / "baselines_results" / system
        reports = Report.objects.filter(question__study__name=study, system__name=system)
        assert reports.count() == 2, system
        for report in reports:
            original = report.original.get("deepscholar") or {}
            check_report(report, folder / original["folder"])


# --- The command ---------------------------------------------------------------------------


def test_every_released_baseline_imports_by_command(release):
    for system in SYSTEMS:
        call_command("import_reports", str(release / "baselines_results" / system),
                     "--study", "DS", "--format", "deepscholar", "--papers", str(PAPERS))  # fmt: skip
    check_study("DS")
    # Questions are the papers (arXiv id) with the nuggetizer's query, not folder ids.
    questions = dict(Question.objects.filter(study__name="DS").values_list("external_id", "text"))
    assert set(questions) == {"2506.02838v1", "2506.02634v1"}
    nuggetizer = json.loads((release / "dataset/gt_nuggets_outputs/0/res.json").read_text())
    assert questions["2506.02838v1"] == nuggetizer["query"]


def test_the_released_papers_csv_names_the_papers_too(release):
    for system in ("search_ai_gpt_4.1", "storm"):
        call_command("import_reports", str(release / "baselines_results" / system), "--study",
                     "DS", "--format", "deepscholar", "--papers", str(release / "dataset/papers.csv"))  # fmt: skip
    assert set(Question.objects.filter(study__name="DS").values_list("external_id", flat=True)) == {
        "2506.02838v1",
        "2506.02634v1",
    }


def test_questions_are_named_by_the_paper_without_a_paper_table(release):
    """A system whose files carry the arXiv id (OpenScholar) names the questions; the others
    find them by the abstract inside their query."""
    for system in ("openscholar", "deepscholar-base", "search_ai_gpt_4.1", "storm"):
        call_command("import_reports", str(release / "baselines_results" / system),
                     "--study", "DS", "--format", "deepscholar")  # fmt: skip
    assert set(Question.objects.filter(study__name="DS").values_list("external_id", flat=True)) == {
        "2506.02838v1",
        "2506.02634v1",
    }


def test_citation_titles_come_from_the_reference_source(release):
    call_command("import_reports", str(release / "baselines_results" / "deepscholar-base"),
                 "--study", "DS", "--format", "deepscholar", "--papers", str(PAPERS))  # fmt: skip
    call_command("import_reports", str(release / "baselines_results" / "openscholar"),
                 "--study", "DS", "--format", "deepscholar", "--papers", str(PAPERS))  # fmt: skip
    base = Report.objects.get(system__name="deepscholar-base", question__external_id="2506.02838v1")
    [cit] = [c for c in citations(pk=base.pk) if c.url == "http://arxiv.org/abs/2108.02755v1"]
    assert cit.title == (
        "The AI Economist: Optimal Economic Policy Design via Two-level Deep Reinforcement Learning"
    )
    assert cit.snippets and cit.snippets[0].startswith("AI and reinforcement learning (RL)")
    assert not [c for c in citations(pk=base.pk) if "' 20" in c.title]
    scholar = Report.objects.get(system__name="openscholar", question__external_id="2506.02838v1")
    data = json.loads(
        next((release / "baselines_results/openscholar/0").glob("*.json")).read_text()
    )
    passage = data["ctxs"][27]["text"]
    # [27] of the markdown is ctxs[27]: its passage is the snippet, never the title.
    assert any(passage in (c.snippets or []) for c in citations(pk=scholar.pk))
    assert not [c for c in citations(pk=scholar.pk) if c.title.startswith(passage[:40])]


# --- The nuggetizer's output ---------------------------------------------------------------


def _nuggetizer_files(release):
    return sorted((release / "dataset" / "gt_nuggets_outputs").rglob("res.json"))


def test_nuggetizer_folder_imports_as_released(release):
    from annotation.models import Nugget, Study
    from judges.models import JudgeDeepScholarLabel

    Study.objects.create(name="DS")
    folder = release / "dataset" / "gt_nuggets_outputs"
    call_command("import_deepscholar", str(folder), "--study", "DS", "--format", "nuggetizer")
    files = _nuggetizer_files(release)
    released = [json.loads(p.read_text()) for p in files]
    assert Question.objects.filter(study__name="DS").count() == len(released) == 63
    for record in released:
        q = Question.objects.get(study__name="DS", external_id=record["qid"])
        assert q.text == record["query"]
        stored = list(Nugget.objects.filter(question=q).order_by("position"))
        assert [n.text for n in stored] == [n["text"] for n in record["nuggets"]]
        importance = dict(
            JudgeDeepScholarLabel.objects.filter(question=q, kind="nugget_importance")
            .values_list("unit", "label")
        )  # fmt: skip
        want = {"vital": "vital", "okay": "non_vital"}
        assert importance == {
            str(i + 1): want[n["importance"]] for i, n in enumerate(record["nuggets"])
        }
    # The judge is the model config.txt names.
    assert set(JudgeDeepScholarLabel.objects.values_list("judge__name", flat=True)) == {"gpt-4.1"}
    # Re-importing the same output changes nothing.
    out = __import__("io").StringIO()
    call_command("import_deepscholar", str(folder), "--study", "DS", "--format", "nuggetizer",
                 stdout=out)  # fmt: skip
    assert "created" not in out.getvalue() and "updated" not in out.getvalue()


def test_nuggetizer_support_labels_judge_the_named_systems_reports(release):
    from judges.models import JudgeDeepScholarLabel

    call_command("import_reports", str(release / "baselines_results" / "storm"),
                 "--study", "DS", "--format", "deepscholar", "--papers", str(PAPERS))  # fmt: skip
    res = release / "dataset" / "gt_nuggets_outputs" / "0" / "res.json"
    call_command("import_deepscholar", str(res), "--study", "DS", "--format", "nuggetizer",
                 "--system", "storm", "--judge", "nuggetizer-gpt-4.1")  # fmt: skip
    record = json.loads(res.read_text())
    labels = JudgeDeepScholarLabel.objects.filter(
        kind="nugget_support", judge__name="nuggetizer-gpt-4.1"
    )
    assert labels.count() == len(record["nuggets"])
    assert {lab.report.system.name for lab in labels} == {"storm"}
    want = {"support": "supported", "partial_support": "partially_supported",
            "not_support": "not_supported"}  # fmt: skip
    assert sorted(labels.values_list("label", flat=True)) == sorted(
        want[n["assignment"]] for n in record["nuggets"]
    )


def _nuggetizer_content(study: str) -> dict:
    """qid -> its nuggets as (text, importance, support) with the judge's labels."""
    from annotation.models import Nugget
    from judges.models import JudgeDeepScholarLabel

    labels = {(r.kind, r.question.external_id, r.unit): (r.judge.name, r.label)
              for r in JudgeDeepScholarLabel.objects.filter(question__study__name=study)
              .select_related("judge", "question")}  # fmt: skip
    out = {}
    for n in Nugget.objects.filter(question__study__name=study).select_related("question"):
        qid = n.question.external_id
        out.setdefault(qid, []).append((n.position, n.text,
                                        labels.get(("nugget_importance", qid, n.key)),
                                        labels.get(("nugget_support", qid, n.key))))  # fmt: skip
    return {qid: sorted(rows) for qid, rows in out.items()}


def test_nuggetizer_output_round_trips_through_its_writer(release, tmp_path):
    """The format the README imports the nuggetizer's output with is written back: its
    folder imports into a fresh study as the same nuggets and the same judge's labels
    (it answered "has no writer")."""
    from annotation.models import Study

    Study.objects.create(name="DS")
    folder = release / "dataset" / "gt_nuggets_outputs"
    call_command("import_deepscholar", str(folder), "--study", "DS", "--format", "nuggetizer")
    out = tmp_path / "out"
    call_command("export_format", "deepscholar", "nuggetizer", study="DS", judge="gpt-4.1",
                 out=str(out))  # fmt: skip
    # config.txt as released (its model names the judge)
    assert (out / "gt_nuggets_outputs" / "config.txt").read_text() == (
        folder / "config.txt"
    ).read_text()
    Study.objects.create(name="DS again")
    call_command("import_deepscholar", str(out / "gt_nuggets_outputs"), "--study", "DS again",
                 "--format", "nuggetizer")  # fmt: skip
    first, again = _nuggetizer_content("DS"), _nuggetizer_content("DS again")
    assert len(first) == 63 and again == first
    assert dict(Question.objects.filter(study__name="DS again").values_list("external_id", "text")) == dict(
        Question.objects.filter(study__name="DS").values_list("external_id", "text"))  # fmt: skip


def test_nuggetizer_support_labels_of_a_system_round_trip(release, tmp_path):
    from django.core.management import CommandError

    from annotation.models import Study

    res = release / "dataset" / "gt_nuggets_outputs" / "0" / "res.json"
    for study in ("DS", "DS again"):
        call_command("import_reports", str(release / "baselines_results" / "storm"),
                     "--study", study, "--format", "deepscholar", "--papers", str(PAPERS))  # fmt: skip
    call_command("import_deepscholar", str(res), "--study", "DS", "--format", "nuggetizer",
                 "--system", "storm", "--judge", "nuggetizer-gpt-4.1")  # fmt: skip
    out = tmp_path / "out"
    call_command("export_format", "deepscholar", "nuggetizer", study="DS",
                 judge="nuggetizer-gpt-4.1", system="storm", out=str(out))  # fmt: skip
    call_command("import_deepscholar", str(out / "gt_nuggets_outputs"), "--study", "DS again",
                 "--format", "nuggetizer", "--system", "storm")  # fmt: skip
    first = _nuggetizer_content("DS")
    assert first == _nuggetizer_content("DS again") and len(first) == 1
    assert all(support is not None for rows in first.values() for *_, support in rows)
    with pytest.raises(CommandError, match="--judge: no judge with verdicts 'nobody'"):
        call_command("export_format", "deepscholar", "nuggetizer", study="DS", judge="nobody")
    assert Study.objects.filter(name="DS again").exists()


def test_nuggetizer_vocabulary_outside_its_own_is_refused_naming_the_field(tmp_path):
    from annotation.importers import ImportFailed, run
    from annotation.models import Study

    Study.objects.create(name="DS")
    bad = tmp_path / "res.json"
    bad.write_text(json.dumps({"qid": "p1", "query": "Q", "nuggets": [
        {"text": "a", "importance": "vital", "assignment": "support"},
        {"text": "b", "importance": "crucial", "assignment": "support"}]}))  # fmt: skip
    with pytest.raises(ImportFailed) as failed:
        run("deepscholar", bad, study="DS", format="nuggetizer", judge="j")
    assert "nuggets[1].importance" in str(failed.value.problems[0])
    assert not Question.objects.filter(study__name="DS").exists()


# --- The LaTeX exemplars -------------------------------------------------------------------


def test_latex_exemplars_import_with_their_citations_resolved(release):
    import csv

    from annotation.models import Exemplar, ExemplarReference, Study

    Study.objects.create(name="DS")
    call_command("import_deepscholar", str(release / "dataset"), "--study", "DS",
                 "--format", "exemplar-latex")  # fmt: skip
    csv.field_size_limit(1 << 28)
    sections = list(csv.DictReader((release / "dataset/related_works_combined.csv").open()))
    cites = list(csv.DictReader((release / "dataset/recovered_citations.csv").open()))
    assert Exemplar.objects.filter(question__study__name="DS").count() == len(sections) == 63
    tax = Exemplar.objects.get(question__external_id="2506.02838v1")
    assert "\\cite" not in tax.text and "\\subsection" not in tax.text
    assert "## Traditional Tax Systems" in tax.text
    refs = {r.key: r for r in ExemplarReference.objects.filter(question=tax.question)}
    released = {
        c["citation_shorthand"]: c for c in cites if c["parent_paper_arxiv_id"] == "2506.02838v1"
    }
    assert set(released) <= set(refs)
    nber = refs["NBERw21340"]
    assert nber.title.startswith("Effective Policy for Reducing Inequality?")
    assert nber.url == "http://www.nber.org/papers/w21340"
    with_arxiv = [c for c in cites if c["cited_paper_arxiv_link"]]
    stored = {
        (r.question.external_id, r.key): r.url
        for r in ExemplarReference.objects.select_related("question")
    }
    assert all(stored[(c["parent_paper_arxiv_id"], c["citation_shorthand"])] == c["cited_paper_arxiv_link"]
               for c in with_arxiv)  # fmt: skip
    # Every \cite of every section became a marker of a reference, and no reference is empty.
    for ex in Exemplar.objects.filter(question__study__name="DS"):
        assert "\\cite" not in ex.text
        n = ExemplarReference.objects.filter(question=ex.question).count()
        marks = {int(m) for m in re.findall(r"\[(\d+)\]", ex.text)}
        assert marks <= set(range(1, n + 1))
    # A re-import changes nothing.
    out = __import__("io").StringIO()
    call_command("import_deepscholar", str(release / "dataset"), "--study", "DS",
                 "--format", "exemplar-latex", stdout=out)  # fmt: skip
    assert "created" not in out.getvalue() and "updated" not in out.getvalue()


def test_the_papers_own_latex_macros_are_kept_and_named_not_dropped(release):
    """A macro the paper defines in its preamble (not released) was dropped with its words:
    "Other {\\kvcache}-related optimizations" read "Other -related optimizations",
    "Aghilinasab~\\etal~\\cite{…}" lost its "et al." (found by an admin importing the
    released dataset). Abbreviation macros are written out; any other is kept as written
    and the import names it, per paper."""
    from annotation.importers import run
    from annotation.models import Exemplar, Study

    Study.objects.create(name="DS")
    rep = run("deepscholar", release / "dataset", study="DS", format="exemplar-latex")
    text = {e.question.external_id: e.text for e in Exemplar.objects.select_related("question")}
    assert "Other \\kvcache-related optimizations" in text["2506.02634v1"]
    assert "non-prefix \\kvcache cache" in text["2506.02634v1"]
    assert "developing \\task techniques" in text["2504.15849v1"]
    assert "\\mips methods" in text["2504.14861v1"]
    assert "e.g. TALLRec" in text["2504.18383v1"]
    assert re.search(r"Aghilinasab\s+et al\.\s+\[\d+\]", text["2505.11554v1"])
    said = "\n".join(str(w) for w in rep.warnings)
    assert "related_works_combined.csv" in said and "clean_latex_related_works" in said
    assert "paper '2506.02634v1': \\nospacestitle, \\kvcache defined" in said
    assert (
        "defined in the paper's preamble, which the release does not hold: kept as written" in said
    )
    assert "\\eg" not in said  # written out, not warned about


def test_a_zipped_dataset_names_its_files_as_the_zip_holds_them(release):
    """A tester's LOW defect: the zipped dataset's warnings named the server's temporary
    folder (``/tmp/concord-import-…/dataset/related_works_combined.csv``), which says
    nothing to the admin and shows a server path. They name the zip and the file in it."""
    from annotation.importers import run
    from annotation.models import Study

    Study.objects.create(name="DS")
    upload = _upload("dataset.zip", zipped(release / "dataset"))
    rep = run("deepscholar", upload, study="DS", format="exemplar-latex")
    files = {w.file for w in rep.warnings}
    assert files and all(f.startswith("dataset.zip/") for f in files), files
    assert "dataset.zip/related_works_combined.csv" in files
    assert not any("concord-import-" in str(w) for w in rep.warnings)


@pytest.mark.parametrize(
    "sections, citations",
    [
        ("test_dataset/related_works_combined.csv", "test_dataset/recovered_citations.csv"),
        ("dataset/paper_content.csv", "dataset/citations.csv"),
        ("dataset/papers_with_related_works.csv", "dataset/recovered_citations.csv"),
    ],
)
def test_every_sections_csv_imports_with_its_citations(release, sections, citations):
    from annotation.models import Exemplar, Study

    Study.objects.create(name="DS")
    call_command("import_deepscholar", str(release / sections),
                 "--study", "DS", "--format", "exemplar-latex",
                 "--citations", str(release / citations))  # fmt: skip
    assert Exemplar.objects.filter(question__study__name="DS").count() >= 63
    assert not Exemplar.objects.filter(text__contains="\\cite").exists()


# --- Zip uploads: the study's import page and the API (issue 26, dead end 1) ---------------


def zipped(folder: Path, top: str | None = None) -> bytes:
    """The folder zipped as a user would (``top/…`` inside)."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, str(Path(top or folder.name) / path.relative_to(folder)))
    return buffer.getvalue()


def _upload(name: str, data: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    kind = "application/zip" if name.endswith(".zip") else "text/csv"
    return SimpleUploadedFile(name, data, content_type=kind)


def test_every_released_baseline_uploads_as_a_zip_through_the_api(release, admin_user):
    from django.urls import reverse
    from rest_framework.test import APIClient

    from annotation.models import Study

    study = Study.objects.create(name="DS")
    client = APIClient()
    client.force_login(admin_user)
    for system in SYSTEMS:
        data = zipped(release / "baselines_results" / system)
        response = client.post(
            reverse("study-import", args=[study.pk]),
            {"kind": "reports", "format": "deepscholar", "file": _upload(f"{system}.zip", data),
             "papers": _upload("related_works_combined.csv", PAPERS.read_bytes())},
            format="multipart",
        )  # fmt: skip
        assert response.status_code == 200, response.content
    check_study("DS")
    assert set(Question.objects.filter(study=study).values_list("external_id", flat=True)) == {
        "2506.02838v1",
        "2506.02634v1",
    }
    # The nuggetizer's folder and the exemplars' dataset folder upload zipped too.
    for fmt, folder in (
        ("nuggetizer", "dataset/gt_nuggets_outputs"),
        ("exemplar-latex", "dataset"),
    ):
        response = client.post(
            reverse("study-import", args=[study.pk]),
            {"kind": "deepscholar", "format": fmt,
             "file": _upload("x.zip", zipped(release / folder))},
            format="multipart",
        )  # fmt: skip
        assert response.status_code == 200, response.content


def test_every_released_baseline_uploads_as_a_zip_through_the_import_page(
    release, client, admin_user
):
    from django.urls import reverse

    from annotation.models import Study

    study = Study.objects.create(name="DS")
    client.force_login(admin_user)
    for system in SYSTEMS:
        # Zipped with the paper folders at the top: the zip's name names the system.
        data = zipped(release / "baselines_results" / system, top=".")
        response = client.post(
            reverse("studies:import", args=[study.pk]),
            {"kind": "reports", "format": "deepscholar", "file": _upload(f"{system}.zip", data),
             "papers": _upload("papers.csv", PAPERS.read_bytes())},
        )  # fmt: skip
        assert response.status_code == 302, response.content.decode()[:2000]
    check_study("DS")
    for fmt, folder in (
        ("nuggetizer", "dataset/gt_nuggets_outputs"),
        ("exemplar-latex", "dataset"),
    ):
        response = client.post(
            reverse("studies:import", args=[study.pk]),
            {"kind": "deepscholar", "format": fmt, "file": _upload("x.zip", zipped(release / folder))},
        )  # fmt: skip
        assert response.status_code == 302, response.content.decode()[:2000]
    from annotation.models import Exemplar, Nugget

    assert Nugget.objects.filter(question__study=study).count() > 600
    assert Exemplar.objects.filter(question__study=study).count() == 63


@pytest.mark.parametrize(
    "entry, why",
    [("../evil/0/output.md", "'..'"), ("/abs/0/output.md", "absolute")],
)
def test_a_zip_leaving_its_folder_is_refused_and_writes_nothing(admin_user, entry, why, tmp_path):
    import io
    import zipfile

    from django.urls import reverse
    from rest_framework.test import APIClient

    from annotation.models import Study

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("sys/1/output.md", "# A\n\nText [1].\n\n## References\n\n[1] T\n")
        archive.writestr(entry, "x")
    study = Study.objects.create(name="Z")
    client = APIClient()
    client.force_login(admin_user)
    response = client.post(
        reverse("study-import", args=[study.pk]),
        {"kind": "reports", "format": "deepscholar", "file": _upload("sys.zip", buffer.getvalue())},
        format="multipart",
    )
    assert response.status_code == 400
    assert why in response.content.decode() and "sys.zip" in response.content.decode()
    assert not Report.objects.exists()
    assert not (tmp_path.parent / "evil").exists()


def test_a_zip_bomb_is_refused(admin_user, settings):
    import io
    import zipfile

    from annotation.importers import ImportFailed, run

    settings.IMPORT_ZIP_MAX_BYTES = 1_000_000
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("sys/1/output.md", "a" * 5_000_000)
    assert len(buffer.getvalue()) < 100_000
    with pytest.raises(ImportFailed) as failed:
        run("reports", buffer.getvalue(), study="Z", format="deepscholar")
    assert "IMPORT_ZIP_MAX_BYTES" in str(failed.value.problems[0])


def test_a_zip_for_a_one_file_format_says_which_formats_read_zips(admin_user):
    from annotation.importers import ImportFailed, run

    with pytest.raises(ImportFailed) as failed:
        run("questions", _upload("q.zip", b"PK\x03\x04rest"), study="Z", format="jsonl")
    assert "folder formats" in str(failed.value.problems[0])


# --- Export: what re-imports to the same content --------------------------------------------


def _write(files: dict[str, str], root: Path) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.mark.parametrize("system", SYSTEMS)
def test_export_reimports_to_the_same_content_and_exports_identically(release, system, tmp_path):
    from annotation.importers import run
    from annotation.importers.deepscholar import dump_folder
    from annotation.importers.structure import stored_reports
    from annotation.models import Study

    run("reports", release / "baselines_results" / system, study="A", format="deepscholar",
        papers=PAPERS)  # fmt: skip
    first = dump_folder(Study.objects.get(name="A"), system=system)
    _write(first, tmp_path / "one")
    run("reports", tmp_path / "one" / system, study="B", format="deepscholar")
    second = dump_folder(Study.objects.get(name="B"), system=system)
    assert second == first
    # The first export is the imported content: questions (ids and queries), sections,
    # paragraphs, and every source with its title, URL and snippets.
    a = stored_reports(Study.objects.get(name="A"))
    b = stored_reports(Study.objects.get(name="B"))
    assert [(r.question_id, r.question_text, r.question_title) for r in b] == [
        (r.question_id, r.question_text, r.question_title) for r in a
    ]
    assert all(r.question_title for r in a)  # the --papers table's titles, kept
    assert [r.sections for r in b] == [r.sections for r in a]
    assert [[c.canonical() for c in r.citations] for r in b] == [
        [c.canonical() for c in r.citations] for r in a
    ]
    assert {r.question_id for r in a} == {"2506.02838v1", "2506.02634v1"}


def test_exemplar_references_export_reimports_identically(release, tmp_path):
    from annotation.importers import run
    from annotation.importers.deepscholar_units import dump_references
    from annotation.models import Exemplar, Study

    Study.objects.create(name="A")
    run("deepscholar", release / "dataset", study="A", format="exemplar-latex")
    first = dump_references(Study.objects.get(name="A"))
    _write(first, tmp_path)
    b = Study.objects.create(name="B")
    for q in Question.objects.filter(study__name="A"):
        Question.objects.create(study=b, external_id=q.external_id, text=q.text)
    run("deepscholar", tmp_path / "exemplar_references.jsonl", study="B",
        format="exemplar-references")  # fmt: skip
    assert dump_references(b) == first
    assert Exemplar.objects.filter(question__study=b).count() == 63
    record = json.loads(first["exemplar_references.jsonl"].splitlines()[0])
    assert record["references"] and all("url" in r and "title" in r for r in record["references"])


def test_the_zip_the_export_writes_uploads_back_through_the_api(release, admin_user):
    from django.urls import reverse
    from rest_framework.test import APIClient

    from annotation.importers import run
    from annotation.importers.structure import stored_reports
    from annotation.models import Study

    run("reports", release / "baselines_results" / "openscholar", study="A",
        format="deepscholar")  # fmt: skip
    a = Study.objects.get(name="A")
    b = Study.objects.create(name="B")
    client = APIClient()
    client.force_login(admin_user)
    exported = client.get(reverse("study-export", args=[a.pk]),
                          {"kind": "reports", "file_format": "deepscholar", "system": "openscholar"})  # fmt: skip
    assert exported.status_code == 200 and exported["Content-Type"] == "application/zip"
    response = client.post(
        reverse("study-import", args=[b.pk]),
        {
            "kind": "reports",
            "format": "deepscholar",
            "file": _upload("export.zip", exported.content),
        },
        format="multipart",
    )
    assert response.status_code == 200, response.content
    assert [(r.question_id, r.question_text, r.system, r.sections) for r in stored_reports(b)] == [
        (r.question_id, r.question_text, r.system, r.sections) for r in stored_reports(a)
    ]


def test_the_import_page_and_help_document_the_deepscholar_shapes(client, admin_user, capsys):
    from django.urls import reverse

    from annotation.models import Study

    study = Study.objects.create(name="DS")
    client.force_login(admin_user)
    html = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    for fmt in ("reports/deepscholar", "deepscholar/nuggetizer", "deepscholar/exemplar-latex"):
        kind, name = fmt.split("/")
        assert f'id="format-{kind}-{name}"' in html
    assert "storm_gen_article_polished.md" in html and "paper.csv" in html
    with pytest.raises(SystemExit):
        call_command("import_reports", "--help")
    out = capsys.readouterr().out
    assert "intro.md + paper.csv" in out and "url_to_info.json" in out


def test_the_nuggets_format_points_a_nuggetizer_file_to_its_format(release):
    from annotation.importers import ImportFailed, run
    from annotation.models import Study

    Study.objects.create(name="DS")
    with pytest.raises(ImportFailed) as failed:
        run("deepscholar", release / "dataset/gt_nuggets_outputs/0/res.json", study="DS",
            format="nuggets")  # fmt: skip
    assert "--format nuggetizer" in str(failed.value.problems[0])


# --- Families, not files: layouts of the same families written here -------------------------


def _family_folder(root: Path) -> Path:
    """Three papers written the way other systems of the release's families write them."""
    system = root / "other-system"
    # A JSON-only output whose [n] index its contexts, with a nested run folder beside none.
    one = system / "0"
    one.mkdir(parents=True)
    (one / "Paper A.json").write_text(json.dumps({
        "arxiv_id": "2501.00001v1", "query": "Q. Here is the paper abstract:\nAbstract A.",
        "output": "## Related Works\n\nRetrieval helps [0]. Agents plan [1][0].\n",
        "ctxs": [{"paperId": "p0", "title": "Retrieval Paper", "abstract": "We retrieve.",
                  "url": "https://example.org/p0"},
                 {"id": "p1", "title": "Agent Paper", "text": "We plan."}]}))  # fmt: skip
    # A markdown with bracketed arXiv ids and a <references> block, in one run folder.
    two = system / "1" / "run-2025"
    two.mkdir(parents=True)
    (two / "answer.md").write_text(
        "Related Works\n\nDense retrieval [2204.06547v2] beats sparse retrieval "
        "[2301.00002].\n\n<references>\n1. [2204.06547v2] Dense Paper\n"
        "2. [2301.00002] Sparse Paper\n</references>\n"
    )
    # A markdown with inline links and a references list.
    three = system / "2"
    three.mkdir()
    (three / "report.md").write_text(
        "# Related Works\n\nLarge models scale ([Kaplan et al.](https://arxiv.org/abs/2001.08361)) "
        "and reason [1].\n\n## References\n\n[1] Chain of Thought. https://arxiv.org/abs/2201.11903\n"
    )
    return system


def test_other_systems_of_the_same_families_import(tmp_path):
    from annotation.importers import run

    folder = _family_folder(tmp_path)
    run("reports", folder, study="F", format="deepscholar")
    reports = {r.original["deepscholar"]["folder"]: r for r in Report.objects.all()}
    assert set(reports) == {"0", "1", "2"}
    a = reports["0"]
    assert a.question.external_id == "2501.00001v1"
    titles = {c.title: c for c in citations(pk=a.pk)}
    assert titles["Retrieval Paper"].url == "https://example.org/p0"
    assert titles["Retrieval Paper"].snippets == ["We retrieve."]
    assert titles["Agent Paper"].snippets == ["We plan."]
    b = reports["1"]
    urls = {c.url for c in citations(pk=b.pk)}
    assert (
        "https://arxiv.org/abs/2204.06547v2" in urls and "https://arxiv.org/abs/2301.00002" in urls
    )
    texts = list(Paragraph.objects.filter(report=b).values_list("text", flat=True))
    assert not any("Dense Paper" in t or "references>" in t for t in texts), texts
    assert len(anchors(report=b)) == 2
    c = reports["2"]
    url = {source.key: source.url for source in citations(pk=c.pk)}
    urls = {url[key] for _, _, key, _ in anchors(report=c)}
    assert urls == {"https://arxiv.org/abs/2001.08361", "https://arxiv.org/abs/2201.11903"}
    for r in reports.values():
        for t in Paragraph.objects.filter(report=r).values_list("text", flat=True):
            assert "](http" not in t


def test_openscholar_passages_keep_their_corpus_id(release):
    from annotation.importers import run

    run("reports", release / "baselines_results" / "openscholar", study="DS", format="deepscholar")
    data = json.loads(
        next((release / "baselines_results/openscholar/0").glob("*.json")).read_text()
    )
    report = Report.objects.get(question__external_id="2506.02838v1")
    by_passage = {c.snippets[0]: c for c in citations(pk=report.pk) if c.snippets}
    cited = by_passage[data["ctxs"][27]["text"]]
    assert cited.metadata.get("id") == data["ctxs"][27]["id"]
    assert cited.url == ""  # a corpus id is kept, never made into an address


def test_a_system_without_ids_finds_the_questions_the_nuggetizer_created(release):
    from annotation.models import Study

    Study.objects.create(name="DS")
    call_command("import_deepscholar", str(release / "dataset/gt_nuggets_outputs"),
                 "--study", "DS", "--format", "nuggetizer")  # fmt: skip
    out = __import__("io").StringIO()
    call_command("import_reports", str(release / "baselines_results" / "deepscholar-base"),
                 "--study", "DS", "--format", "deepscholar", stdout=out)  # fmt: skip
    assert "warning" not in out.getvalue()
    assert set(
        Report.objects.filter(question__study__name="DS").values_list(
            "question__external_id", flat=True
        )
    ) == {"2506.02838v1", "2506.02634v1"}


def test_a_released_baseline_zip_imports_through_the_admin_import(release, client, admin_user):
    from django.contrib.auth.models import Permission
    from django.urls import reverse

    admin_user.is_staff = True
    admin_user.save()
    admin_user.user_permissions.set(Permission.objects.all())
    client.force_login(admin_user)
    data = zipped(release / "baselines_results" / "search_ai_gpt_4.1")
    response = client.post(
        reverse("admin:annotation_import"),
        {"kind": "reports", "format": "deepscholar", "study": "DS", "dry_run": "",
         "file": _upload("search_ai_gpt_4.1.zip", data),
         "papers": _upload("papers.csv", PAPERS.read_bytes())},
    )  # fmt: skip
    assert response.status_code == 200
    check_study("DS", systems=("search_ai_gpt_4.1",))


def test_a_refused_units_import_leaves_no_study_behind(tmp_path):
    from annotation.importers import ImportFailed, run
    from annotation.models import Study

    path = tmp_path / "nuggets.jsonl"
    path.write_text(json.dumps({"question_id": "p1", "nuggets": [{"text": "a"}]}) + "\n")
    with pytest.raises(ImportFailed) as failed:
        run("deepscholar", path, study="Fresh", format="nuggets")
    assert "no question 'p1'" in str(failed.value.problems[0])
    assert not Study.objects.filter(name="Fresh").exists()


def test_the_nuggetizer_csv_reads_like_its_json(release):
    from annotation.models import Nugget, Study
    from judges.models import JudgeDeepScholarLabel

    Study.objects.create(name="J")
    Study.objects.create(name="C")
    for study, name in (("J", "res.json"), ("C", "res.csv")):
        for n in ("0", "1"):
            call_command("import_deepscholar",
                         str(release / "dataset/gt_nuggets_outputs" / n / name),
                         "--study", study, "--format", "nuggetizer")  # fmt: skip

    def content(study):
        nuggets = list(Nugget.objects.filter(question__study__name=study).order_by(
            "question__external_id", "position").values_list("question__external_id", "key", "text"))  # fmt: skip
        labels = sorted(JudgeDeepScholarLabel.objects.filter(question__study__name=study).values_list(
            "judge__name", "kind", "question__external_id", "unit", "label"))  # fmt: skip
        questions = sorted(
            Question.objects.filter(study__name=study).values_list("external_id", "text")
        )
        return nuggets, labels, questions

    assert content("C") == content("J") and content("J")[0]


def test_the_folder_of_all_systems_is_refused_naming_them(release):
    from annotation.importers import ImportFailed, run

    with pytest.raises(ImportFailed) as failed:
        run("reports", release / "baselines_results", study="DS", format="deepscholar")
    message = str(failed.value.problems[0])
    assert "several systems' folders" in message and "storm" in message
    assert not Report.objects.exists()


def test_every_baseline_reads_as_one_related_works_section(release):
    """Blinding (seed 003 §4): search_ai's plain first line "Related Works" is the section's
    title, as the others mark it, not a two-word paragraph that tells the system apart."""
    from annotation.importers import run

    for system in ("deepscholar-base", "openscholar", "search_ai_gpt_4.1"):
        run("reports", release / "baselines_results" / system, study="DS", format="deepscholar",
            papers=PAPERS)  # fmt: skip
    for report in Report.objects.all():
        first = Paragraph.objects.filter(report=report).order_by("number").first()
        assert first.section.title == "Related Works", report.system.name
        assert first.text.strip() != "Related Works"


@pytest.mark.parametrize(
    "files, said",
    [
        (
            {
                "0/run/storm_gen_article_polished.md": "# A\n\nText [1].\n",
                "0/run/url_to_info.json": "{not json",
            },
            "url_to_info.json: not JSON",
        ),
        (
            {"0/intro.md": "## Related Works\n\nText.\n", "0/paper.csv": b"\xff\xfe\x00bad"},
            "paper.csv: not UTF-8",
        ),
        (
            {"0/output.md": "Text [1].\n", "0/references.json": '{"id": "1"}'},
            "references.json: expected a list",
        ),
        ({"0/notes.txt": "nothing here"}, "no DeepScholar layout"),
    ],
)
def test_a_malformed_paper_folder_is_refused_naming_it_and_writes_nothing(tmp_path, files, said):
    from annotation.importers import ImportFailed, run

    system = tmp_path / "sys"
    for name, content in files.items():
        path = system / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ImportFailed) as failed:
        run("reports", system, study="DS", format="deepscholar")
    problem = failed.value.problems[0]
    assert said in str(problem) and problem.field == "0" and problem.record == 1
    assert not Report.objects.exists() and not Question.objects.exists()
