"""Re-importing DeepScholar-Bench's exemplars (tester's HIGH defect): the release's
``dataset/`` imported, then its ``test_dataset/related_works_combined.csv`` with
``test_dataset/recovered_citations.csv`` (the file-plus-citations form). The test split's
references file lacks many of the references the full one resolves, and names other titles
and URLs for some: the re-import blanked 927 titles and URLs annotators' work points at.

A re-import never blanks a stored value it has no value for; a real change of a reference
experts labelled is refused naming the record and field; the dry run lists the changes.
What changes is read here from the two released CSVs, independently of the importer."""

from __future__ import annotations

import csv

import pytest

from annotation.importers import ImportFailed, run
from annotation.models import Annotator, DeepScholarLabel, ExemplarReference, Study
from tests.builders.released import shared

pytestmark = pytest.mark.django_db


def _cites(path) -> dict[tuple[str, str], tuple[int, dict]]:
    """(paper, key) -> (CSV line, first row) of a released references file."""
    csv.field_size_limit(1 << 28)
    out = {}
    with path.open(encoding="utf-8") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            key = (row["parent_paper_arxiv_id"].strip(), row["citation_shorthand"].strip())
            out.setdefault(key, (line, row))
    return out


def _stored() -> dict[tuple[str, str], tuple[str, str]]:
    return {
        (r.question.external_id, r.key): (r.title, r.url)
        for r in ExemplarReference.objects.select_related("question")
    }


def _reimport(**kw):
    ds = shared("deepscholar")
    return run("deepscholar", ds / "test_dataset/related_works_combined.csv", study="DS",
               format="exemplar-latex", citations=ds / "test_dataset/recovered_citations.csv",
               **kw)  # fmt: skip


@pytest.fixture
def imported():
    Study.objects.create(name="DS")
    run("deepscholar", shared("deepscholar", "dataset"), study="DS", format="exemplar-latex")
    return _stored()


@pytest.mark.shared_data
def test_a_reimport_never_blanks_a_title_or_url_it_has_none_for(imported):
    ds = shared("deepscholar")
    test_cites = _cites(ds / "test_dataset/recovered_citations.csv")
    papers = {p for p, _ in test_cites}
    absent = [k for k, (title, _) in imported.items()
              if k[0] in papers and k not in test_cites and title]  # fmt: skip
    assert absent  # the test split's references file lacks references the full one has
    assert imported[("2504.06211v1", "bts")][0].startswith("BTS: An Accelerator")
    rep = _reimport()
    after = _stored()
    assert after[("2504.06211v1", "bts")] == imported[("2504.06211v1", "bts")]
    assert all(after[k] == imported[k] for k in absent)
    blanked = [k for k, (title, url) in imported.items()
               if k in after and ((title and not after[k][0]) or (url and not after[k][1]))]  # fmt: skip
    assert not blanked
    assert any("kept as stored, not blanked" in w.message for w in rep.warnings)


def _retitled(imported) -> tuple[tuple[str, str], int, str]:
    """A reference the test split's file names with another title: (key, line, title)."""
    test_cites = _cites(shared("deepscholar", "test_dataset/recovered_citations.csv"))
    for key, (line, row) in sorted(test_cites.items()):
        title = row["cited_paper_title"].strip()
        if key in imported and title and imported[key][0] and title != imported[key][0]:
            return key, line, title
    raise AssertionError("the released files name every title alike")


@pytest.mark.shared_data
def test_a_labelled_references_change_is_refused_naming_record_and_field(imported):
    (paper, key), line, title = _retitled(imported)
    ref = ExemplarReference.objects.get(question__external_id=paper, key=key)
    expert = Annotator.objects.create(pseudonym="Expert-1")
    DeepScholarLabel.objects.create(study=ref.question.study, annotator=expert,
                                    question=ref.question, kind="reference_importance",
                                    unit=key, label="important")  # fmt: skip
    with pytest.raises(ImportFailed) as failed:
        _reimport()
    hits = [p for p in failed.value.problems if key in p.message and paper in p.message]
    assert hits, failed.value.problems
    problem = next(p for p in hits if p.field == "cited_paper_title")
    assert problem.file.endswith("recovered_citations.csv") and problem.record == line
    assert "experts' labels" in problem.message and title[:40] in problem.message
    assert _stored() == imported  # nothing written


@pytest.mark.shared_data
def test_the_dry_run_lists_what_would_change(imported):
    (paper, key), _line, title = _retitled(imported)
    rep = _reimport(dry_run=True)
    said = [str(w) for w in rep.warnings]
    assert any(f"question {paper!r}, reference {key!r}: title" in w and title[:40] in w
               for w in said), said[:30]  # fmt: skip
    assert _stored() == imported


# --- The JSON lines form writes through the same guard --------------------------------------


def test_a_units_file_may_not_reword_or_drop_a_labelled_reference(tmp_path):
    """``exemplar-references`` (JSON lines) re-imports by id: a labelled reference reworded
    or dropped is refused naming the record and field; an unlabelled one changes, listed."""
    import json

    from tests.builders.world import question, study

    s = study("Units")
    q = question(s)
    refs = [{"id": "r1", "title": "Judging LLM-as-a-Judge", "url": "https://arxiv.org/abs/2306.05685"},
            {"id": "r2", "title": "Other work"}]  # fmt: skip
    path = tmp_path / "refs.jsonl"

    def write(references):
        path.write_text(json.dumps({"question_id": q.external_id, "references": references}))

    write(refs)
    run("deepscholar", path, study=s, format="exemplar-references")
    expert = Annotator.objects.create(pseudonym="Expert-2")
    DeepScholarLabel.objects.create(study=s, annotator=expert, question=q,
                                    kind="reference_importance", unit="r1", label="important")  # fmt: skip
    write([{**refs[0], "title": "Another paper"}, refs[1]])
    with pytest.raises(ImportFailed) as failed:
        run("deepscholar", path, study=s, format="exemplar-references")
    [problem] = failed.value.problems
    assert (problem.record, problem.field) == (1, "references[0].title")
    assert "'r1'" in problem.message and "'Another paper'" in problem.message
    write([refs[1]])
    with pytest.raises(ImportFailed) as failed:
        run("deepscholar", path, study=s, format="exemplar-references")
    [problem] = failed.value.problems
    assert (problem.record, problem.field) == (1, "references")
    assert "would remove reference 'r1'" in problem.message
    assert ExemplarReference.objects.get(question=q, key="r1").title == refs[0]["title"]
    write([refs[0], {**refs[1], "title": "Renamed"}])
    rep = run("deepscholar", path, study=s, format="exemplar-references")
    assert any("reference 'r2': title 'Other work' -> 'Renamed'" in w.message for w in rep.warnings)
