"""ScholarQA-CS2 pairwise exports keep what the released files hold: the expert-agreed
records (``import_pairwise --expert-agreed``) export as the released agreement-only files,
an annotator's records export one file per question split named as released (the import
reads the split from the name), and export -> import into a fresh study gives the released
script's figures again (compat mode, expert-agreed: 332 comparisons and 0.5904 for
citation precision, not 335 and 0.5910).

Data: ``../shared/data/scholarqa-cs2/`` beside the checkout (never copied into the repo).
"""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.importers import run
from annotation.models import ExpertAgreedRecord, Question, Study
from studio.studyadmin.exports import import_pairwise_bundle, pairwise_bundle_zip
from tests.annotation.test_export import assert_same_records
from tests.builders.scholarqa import (
    AGREEMENT_ONLY,
    FILES,
    JUDGE,
    import_expert_agreed,
    import_release,
)
from tests.builders.users import make_user
from tests.metaeval.script_output import parse
from tests.metaeval.test_reproduction_db import SCRIPT_OUTPUT, _assert_equals_script, report

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]


def admin_api() -> APIClient:
    from django.contrib.auth.models import User

    api = APIClient()
    api.force_login(
        User.objects.filter(username="exporter").first() or make_user("exporter", "admin")
    )
    return api


def export(study, **params) -> dict[str, list]:
    """``GET /api/studies/{id}/export/?kind=pairwise&file_format=scholarqa&…`` as an admin:
    {file name: records}, one file as itself, several unzipped."""
    api = admin_api()
    answer = api.get(reverse("study-export", args=[study.pk]),
                     {"kind": "pairwise", "file_format": "scholarqa", **params})  # fmt: skip
    assert answer.status_code == 200, answer.content[:300]
    name = answer["Content-Disposition"].split('filename="')[1].rstrip('"')
    if not name.endswith(".zip"):
        return {name: json.loads(answer.content)}
    with zipfile.ZipFile(io.BytesIO(answer.content)) as zf:
        return {n: json.loads(zf.read(n)) for n in zf.namelist()}


def released(scholarqa_dir, name: str) -> list:
    return json.loads((scholarqa_dir / "annotation" / name).read_text(encoding="utf-8"))


def test_expert_agreed_records_export_as_the_released_files(scholarqa_dir):
    """Import -> export gives back each released agreement-only file: same records, same
    order, same fields in the same order, nulls where the release has them; the study's
    pairwise.zip carries them too, and its import restores the records."""
    import_expert_agreed(scholarqa_dir, "agreed")
    study = Study.objects.get(name="agreed")
    files = export(study, setting="assigned", expert_agreed="true")
    assert sorted(files) == sorted(AGREEMENT_ONLY)
    for name in AGREEMENT_ONLY:
        original = released(scholarqa_dir, name)
        assert files[name] == original, name
        assert [list(r) for r in files[name]] == [list(r) for r in original], name
    assert export(study, setting="assigned", expert_agreed="true", split="test") == {
        AGREEMENT_ONLY[1]: released(scholarqa_dir, AGREEMENT_ONLY[1])
    }

    bundle = pairwise_bundle_zip(study)
    with zipfile.ZipFile(io.BytesIO(bundle)) as zf:
        assert {n: json.loads(zf.read(n)) for n in AGREEMENT_ONLY} == {
            n: released(scholarqa_dir, n) for n in AGREEMENT_ONLY
        }
    import_pairwise_bundle(bundle, study="agreed again")
    again = Study.objects.get(name="agreed again")
    assert ExpertAgreedRecord.objects.filter(study=again).count() == 157 + 178
    assert export(again, setting="assigned", expert_agreed="true") == files


def test_export_format_writes_them_and_refuses_an_annotator_with_them(scholarqa_dir, tmp_path):
    from django.core.management import CommandError, call_command

    import_expert_agreed(scholarqa_dir, "agreed")
    call_command("export_format", "pairwise", "scholarqa", study="agreed", setting="assigned",
                 expert_agreed=True, out=str(tmp_path))  # fmt: skip
    for name in AGREEMENT_ONLY:
        assert json.loads((tmp_path / name).read_text()) == released(scholarqa_dir, name)
    # the study holds no annotator's records: 'ann1' names nobody in it (before the writer
    # would say that expert-agreed records are no one annotator's)
    with pytest.raises(CommandError, match="--annotator: no annotator .*'ann1' in this study"):
        call_command("export_format", "pairwise", "scholarqa", study="agreed",
                     setting="assigned", expert_agreed=True, annotator="ann1", out=str(tmp_path))  # fmt: skip


def test_expert_agreed_export_refuses_an_annotator(scholarqa_dir):
    import_expert_agreed(scholarqa_dir, "agreed")
    study = Study.objects.get(name="agreed")
    api = admin_api()
    url = reverse("study-export", args=[study.pk])
    base = {"kind": "pairwise", "file_format": "scholarqa", "setting": "assigned"}
    named = api.get(url, {**base, "expert_agreed": "true", "annotator": "ann1"})
    assert named.status_code == 400 and named.json()["errors"][0]["field"] == "annotator"
    neither = api.get(url, {**base, "expert_agreed": "maybe"})
    assert neither.status_code == 400
    assert {e["field"] for e in neither.json()["errors"]} == {"expert_agreed", "annotator"}


def test_an_annotator_exports_one_file_per_split_named_as_released(scholarqa_dir, tmp_path):
    """ann1 judged dev and test questions: two files, as released; each file's import into a
    fresh study puts its questions back in their split."""
    for name in ("pairwise_dev_assigned_ann1.json", "pairwise_test_assigned_ann1.json"):
        run("pairwise", scholarqa_dir / "annotation" / name, study="splits", annotator="ann1",
            setting="assigned", judge=JUDGE)  # fmt: skip
    study = Study.objects.get(name="splits")
    files = export(study, setting="assigned", annotator="ann1")
    assert sorted(files) == ["pairwise_dev_assigned_ann1.json", "pairwise_test_assigned_ann1.json"]
    for name, records in files.items():
        assert_same_records(records, released(scholarqa_dir, name))  # as released
        (tmp_path / name).write_text(json.dumps(records), encoding="utf-8")
        run("pairwise", tmp_path / name, study="splits again", annotator="ann1",
            setting="assigned", judge=JUDGE)  # fmt: skip
    splits = dict(Question.objects.filter(study=study).values_list("text", "split"))
    assert set(splits.values()) == {"dev", "test"}
    again = Question.objects.filter(study__name="splits again")
    assert dict(again.values_list("text", "split")) == splits


def test_export_then_import_gives_the_released_scripts_figures(scholarqa_dir, tmp_path):
    """The whole release (ann1/ann2 of both splits, near- and deep-expert, the expert-agreed
    records) exported through the API, each file imported into a fresh study as a user
    would (split and setting from the file name): every figure of every run of the authors'
    script is equalled, the expert-agreed ones (``--human_agreed``) included."""
    import_release(scholarqa_dir, "first")
    import_expert_agreed(scholarqa_dir, "first")
    first = Study.objects.get(name="first")
    wanted = [("ann1", "assigned"), ("ann2", "assigned"), ("near-expert-pool", "near_expert"),
              ("deep-expert-pool", "deep_expert")]  # fmt: skip
    assert {(a, s) for _, a, s in FILES} == set(wanted)
    folder = tmp_path / "export"
    folder.mkdir()
    for annotator, setting in wanted:
        for name, records in export(first, setting=setting, annotator=annotator).items():
            (folder / name).write_text(json.dumps(records), encoding="utf-8")
            run("pairwise", folder / name, study="second", annotator=annotator,
                setting=setting, judge=JUDGE)  # fmt: skip
    for name, records in export(first, setting="assigned", expert_agreed="true").items():
        (folder / name).write_text(json.dumps(records), encoding="utf-8")
        run("pairwise", folder / name, study="second", setting="assigned", judge=JUDGE,
            expert_agreed=True)  # fmt: skip
    second = Study.objects.get(name="second")
    split_of = dict(Question.objects.filter(study=first).values_list("text", "split"))
    assert dict(Question.objects.filter(study=second).values_list("text", "split")) == split_of

    agreed = report(second, settings=("assigned",), expert_agreed=True)
    citation = agreed["preference"]["citation_precision"]
    assert citation["n"] == 332 and round(citation["agreement"], 4) == 0.5904
    runs = sorted(SCRIPT_OUTPUT.glob("*.txt"))
    assert len(runs) == 15
    for path in runs:
        run_ = parse(path)
        _assert_equals_script(report(second, **run_.options()), run_, path.name)


def test_pairwise_files_are_named_with_the_released_setting_words(scholarqa_dir, tmp_path):
    """Imported as the README's recipe does (``--annotator ann1``, ``near-expert``), the
    export and ``pairwise.zip`` name the assigned file exactly as released and the
    near-expert one with the released word ``chosen`` (not ``near_expert``, which the
    import does not read from a name): imported again with no ``setting`` given, each file
    comes back in its setting."""
    from annotation.models import MedalRanking

    annotation = scholarqa_dir / "annotation"
    run("pairwise", annotation / "pairwise_dev_assigned_ann1.json", study="names",
        annotator="ann1", judge=JUDGE)  # fmt: skip
    run("pairwise", annotation / "pairwise_chosen.json", study="names",
        annotator="near-expert", judge=JUDGE)  # fmt: skip
    study = Study.objects.get(name="names")
    assigned = export(study, setting="assigned", annotator="ann1")
    assert list(assigned) == ["pairwise_dev_assigned_ann1.json"]
    chosen = export(study, setting="near_expert", annotator="near-expert")
    assert all("_chosen_near-expert" in n and "near_expert" not in n for n in chosen)
    with zipfile.ZipFile(io.BytesIO(pairwise_bundle_zip(study))) as zf:
        bundled = set(zf.namelist()) - {"manifest.json"}
    assert bundled == set(assigned) | set(chosen)
    for name, records in {**assigned, **chosen}.items():
        (tmp_path / name).write_text(json.dumps(records), encoding="utf-8")
        run(
            "pairwise",
            tmp_path / name,
            study="names again",
            annotator=name.split("_")[-1][:-5],
            judge=JUDGE,
        )  # fmt: skip: no setting given, read from the name
    again = MedalRanking.objects.filter(study__name="names again")
    wanted = MedalRanking.objects.filter(study=study)
    assert sorted(again.values_list("setting", "annotator__pseudonym").distinct()) == sorted(
        wanted.values_list("setting", "annotator__pseudonym").distinct()
    )
