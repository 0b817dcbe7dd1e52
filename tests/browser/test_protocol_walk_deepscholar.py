"""DeepScholar-Bench end to end in Chromium, from an empty study (issue 26, "Done when"): the
``protocol_walk.walk`` of its six label tasks (seed 002 §8.11, Table 3), uploaded as the
release's folders zipped.

The released report of paper 0 cites some thirty sources, which would make the six label
tasks dozens of key presses; the walk writes into tmp_path a subset of the released files
in their released layout, with real content: the first paragraph of two systems' reports
(deepscholar-base, STORM) and only the references it cites, the nuggetizer's first three
nuggets, and the exemplar's first paragraph with the references it cites. Each is zipped
and uploaded through the study's import page. The nuggetizer's own importance labels are
its model's (gpt-4.1, config.txt); for the other label kinds the release has no judge
labels, so the walk uploads a judge's labels of every unit (ours, in the
``deepscholar-labels`` format) for Table 3 to compare the experts with.

The released data is read from ../shared/data/ (never copied into the repository).
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.annotate.registry import SPECS
from annotation.models import DeepScholarLabel, Question, Study
from annotation.models.deepscholar import LABELS
from tests.annotation.test_annotate_deepscholar import KEYS
from tests.annotation.test_deepscholar_release import zipped

from .helpers import label_keys, label_units
from .protocol_walk import Protocol, Upload, walk
from .test_every_task_feeds_analysis import REPORT_TIMEOUT
from .test_protocol_walks import DATA, _need

pytestmark = [pytest.mark.browser, pytest.mark.shared_data, pytest.mark.django_db(transaction=True)]

DS = DATA / "deepscholar"
PAPER = "2506.02838v1"  # row 0 of the test split: the folders baselines_results/*/0
FOLDER = "0"
N_NUGGETS = 3
LABELS_JUDGE = "labels-judge"
#: The study's name (``walk`` names it after the protocol).
NAME = "DeepScholar-Bench"

csv.field_size_limit(1 << 30)


def _first_paragraph(text: str) -> str:
    """The first paragraph after the heading lines (the text up to its first blank line)."""
    body = [p for p in re.split(r"\n\s*\n", text.strip()) if not p.lstrip().startswith("#")]
    return body[0].strip()


def _csv_rows(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _write_csv(path: Path, rows: list[dict], fields) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(fields))
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")


def _zip(tmp: Path, folder: Path) -> Path:
    out = tmp / f"{folder.name}.zip"
    out.write_bytes(zipped(folder))
    return out


# --- the exemplar (test_dataset/, the papers table too) ------------------------------------

LATEX = ("clean_latex_related_works", "raw_latex_related_works", "pdf_related_works")
CITE = re.compile(r"\\cite[tp]?\{([^}]*)\}")


def _dataset(tmp: Path) -> Path:
    """test_dataset/ with paper 0 alone: its exemplar cut to the first subsection's first
    paragraph (related_works_combined.csv, also the papers table the system folders are
    named from) and the references that paragraph cites (recovered_citations.csv)."""
    folder = tmp / "ds" / "dataset"
    if folder.is_dir():
        return folder
    source = _need(DS / "test_dataset")
    rows = _csv_rows(source / "related_works_combined.csv")
    paper = next(r for r in rows if r["arxiv_id"] == PAPER)
    heading, rest = paper["clean_latex_related_works"].strip().split("\n", 1)
    text = f"{heading}\n{_first_paragraph(rest)}\n"  # \subsection{Traditional Tax Systems} ¶ 1
    paper.update({k: text for k in LATEX})
    _write_csv(folder / "related_works_combined.csv", [paper], paper)
    keys = {k.strip() for m in CITE.finditer(text) for k in m.group(1).split(",")}
    cites = [r for r in _csv_rows(source / "recovered_citations.csv")
             if r["parent_paper_arxiv_id"] == PAPER and r["citation_shorthand"] in keys]  # fmt: skip
    assert {r["citation_shorthand"] for r in cites} == keys, keys
    _write_csv(folder / "recovered_citations.csv", cites, cites[0])
    return folder


def _exemplar(tmp: Path, study: Study) -> Path:
    return _zip(tmp, _dataset(tmp))


# --- two systems' folders of paper 0 --------------------------------------------------------

BASE_MARKER = re.compile(r"\]\((https?://[^)\s]+)\)")


def _deepscholar_base(tmp: Path, study: Study) -> Path:
    """deepscholar-base/0/: intro.md's first paragraph and the References lines it cites,
    those rows of paper.csv, result.json's scalar fields (its query)."""
    _dataset(tmp)
    source = _need(DS / "baselines_results" / "deepscholar-base" / FOLDER)
    intro = (source / "intro.md").read_text(encoding="utf-8")
    body, refs = intro.split("## References", 1)
    first = _first_paragraph(body)
    urls = set(BASE_MARKER.findall(first))
    cited = [line for line in refs.strip().split("\n") if set(BASE_MARKER.findall(line)) & urls]
    folder = tmp / "ds" / "deepscholar-base"
    paper = folder / FOLDER
    paper.mkdir(parents=True, exist_ok=True)
    (paper / "intro.md").write_text(
        "## Related Works\n\n" + first + "\n\n## References\n\n" + "\n".join(cited) + "\n"
    )
    rows = [r for r in _csv_rows(source / "paper.csv") if r["url"] in urls]
    assert {r["url"] for r in rows} == urls, urls
    _write_csv(paper / "paper.csv", rows, rows[0])
    result = json.loads((source / "result.json").read_text(encoding="utf-8"))
    (paper / "result.json").write_text(
        json.dumps({k: v for k, v in result.items() if isinstance(v, str)}, indent=4)
    )
    return _zip(tmp, folder)


NUMBER = re.compile(r"\[(\d+)\]")


def _storm(tmp: Path, study: Study) -> Path:
    """storm/0/<run>/: storm_gen_article_polished.md's heading and first paragraph (with the
    line before it) and the References lines it cites; url_to_info.json's entries of the
    markers it holds."""
    source = next(_need(DS / "baselines_results" / "storm" / FOLDER).iterdir())
    article = (source / "storm_gen_article_polished.md").read_text(encoding="utf-8")
    body, refs = article.split("## References", 1)
    heading, rest = body.strip().split("\n", 1)
    lines = rest.strip().split("\n")[:2]  # "Here is a potential lead section…" and ¶ 1
    numbers = {int(n) for n in NUMBER.findall("\n".join(lines))}
    cited = [x for x in refs.strip().split("\n") if (m := NUMBER.match(x)) and int(m[1]) in numbers]
    folder = tmp / "ds" / "storm"
    run = folder / FOLDER / source.name
    run.mkdir(parents=True, exist_ok=True)
    (run / "storm_gen_article_polished.md").write_text(
        f"{heading}\n\n" + "\n".join(lines) + "\n\n## References\n\n" + "\n".join(cited) + "\n"
    )
    info = json.loads((source / "url_to_info.json").read_text(encoding="utf-8"))
    index = {u: n for u, n in info["url_to_unified_index"].items() if n in numbers}
    assert set(index.values()) == numbers, numbers
    (run / "url_to_info.json").write_text(json.dumps({
        "url_to_unified_index": index,
        "url_to_info": {u: info["url_to_info"][u] for u in index},
    }))  # fmt: skip
    return _zip(tmp, folder)


# --- the nuggetizer's output and a judge's labels ------------------------------------------


def _nuggets(tmp: Path, study: Study) -> Path:
    """gt_nuggets_outputs/ with config.txt (the nuggetizer's model) and 0/res.json holding
    the first nuggets (the derived summaries and metrics left out: not stored)."""
    source = _need(DS / "dataset" / "gt_nuggets_outputs")
    folder = tmp / "ds" / "gt_nuggets_outputs"
    (folder / FOLDER).mkdir(parents=True, exist_ok=True)
    (folder / "config.txt").write_text((source / "config.txt").read_text(encoding="utf-8"))
    res = json.loads((source / FOLDER / "res.json").read_text(encoding="utf-8"))
    assert res["qid"] == PAPER
    (folder / FOLDER / "res.json").write_text(json.dumps(
        {"qid": res["qid"], "query": res["query"], "nuggets": res["nuggets"][:N_NUGGETS]}
    ))  # fmt: skip
    return _zip(tmp, folder)


def _judge_labels(tmp: Path, study: Study) -> Path:
    """A judge's label of every unit of the label kinds the release has no judge labels of
    (the nuggetizer labels importance), cycling through each kind's labels."""
    question = Question.objects.get(study=study, external_id=PAPER)
    lines = []
    for kind in KEYS:
        if kind == "nugget_importance":
            continue
        for n, (unit, system) in enumerate(SPECS[kind].question_keys(question)):
            record = {"kind": kind, "question_id": PAPER, "unit": unit,
                      "label": LABELS[kind][n % len(LABELS[kind])]}  # fmt: skip
            if system:
                record["system"] = system
            lines.append(json.dumps(record) + "\n")
    out = tmp / "judge_labels.jsonl"
    out.write_text("".join(lines))
    return out


# --- the annotators' answers ---------------------------------------------------------------


def _labels(differ: bool = False):
    def answer(page, assignment):
        """Every unit labelled with the keyboard, the labels cycling; with ``differ`` the
        first unit gets the next label (annotator B's one disagreement)."""
        keys = label_keys(assignment)
        if differ:
            keys[0] = label_keys(assignment, shift=1)[0]
        label_units(page, keys)

    return answer


PAPERS = Path("ds/dataset/related_works_combined.csv")  # beside the uploads, in tmp_path

DEEPSCHOLAR = Protocol(
    name=NAME,
    uploads=(
        Upload("reports", "deepscholar", _deepscholar_base, {"papers": PAPERS}),
        Upload("reports", "deepscholar", _storm, {"papers": PAPERS}),
        Upload("deepscholar", "nuggetizer", _nuggets),
        Upload("deepscholar", "exemplar-latex", _exemplar),
        Upload("judge_scores", "deepscholar-labels", _judge_labels, {"judge": LABELS_JUDGE}),
    ),
    tasks={
        "organization": "002 §8.11 Table 3: organization, pairwise against the exemplar",
        "nugget_importance": "002 §4.2, §8.11: nugget importance (vital / okay)",
        "nugget_support": "002 §4.2, §8.11: nugget support in a report",
        "retrieval_relevance": "002 §8.11: retrieval relevance of a cited source (0/1/2)",
        "reference_importance": "002 §8.11: importance of an exemplar reference",
        "entailment": "002 §8.11: claim–source entailment of a cited paragraph",
    },
    answers={task: _labels() for task in KEYS},
    analyses={
        task: ("deepscholar_agreement", "deepscholar_agreement", f"kind={task}") for task in KEYS
    },  # fmt: skip
    disagree=("entailment", _labels(differ=True)),
)


def test_deepscholar_protocol_walk(login, researcher_user, shot, tmp_path):
    walk(DEEPSCHOLAR, login, researcher_user, shot, tmp_path)
    study = Study.objects.get(name=f"{NAME} walk")
    # one paragraph of each report, three nuggets, the exemplar's first paragraph: a short walk
    kinds = set(DeepScholarLabel.objects.filter(study=study).values_list("kind", flat=True))
    assert kinds == set(KEYS)
    # the two experts' labels give a human-vs-human IAA of each label kind (B's judgments
    # made it: with A's alone no unit had two labels)
    page = login(researcher_user).new_page()
    page.goto(reverse("metaeval:report", args=[study.pk]), timeout=REPORT_TIMEOUT)
    table = page.locator("#section-label_iaa table#table-label_iaa")
    for task in KEYS:
        expect(
            table.locator(f'td[data-key="kind"][data-value="deepscholar_{task}"]')
        ).to_have_count(1)
