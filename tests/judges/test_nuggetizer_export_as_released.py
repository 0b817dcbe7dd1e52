"""The nuggetizer export gives back the release's folder (tester's LOW defect): its
``<n>/`` folders under the names the release gives them (0, 1, 10, 11 …, not renumbered
0–42 in question order) and its ``config.txt`` as released (``date: 2025-07-10`` kept)."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from annotation.importers import run
from annotation.models import Study
from tests.builders.released import shared

pytestmark = [pytest.mark.shared_data, pytest.mark.django_db]


def test_the_nuggetizer_export_keeps_the_released_folders_and_config(client, admin_user):
    folder = shared("deepscholar", "dataset", "gt_nuggets_outputs")
    released = {p.parent.name: json.loads(p.read_text()) for p in folder.glob("*/res.json")}
    study = Study.objects.create(name="DS")
    run("deepscholar", folder, study=study, format="nuggetizer")
    client.force_login(admin_user)
    page = client.get(f"/studies/{study.pk}/export/deepscholar/nuggetizer/?judge=gpt-4.1")
    assert page.status_code == 200, page.content[:300]
    with zipfile.ZipFile(io.BytesIO(page.content)) as zf:
        files = {n: zf.read(n).decode() for n in zf.namelist()}
    config = files.pop("gt_nuggets_outputs/config.txt")
    assert config == (folder / "config.txt").read_text()
    written = {n.split("/")[1]: json.loads(text) for n, text in files.items()}
    assert set(written) == set(released)
    for name, record in released.items():
        assert written[name]["qid"] == record["qid"], name
        assert [n["text"] for n in written[name]["nuggets"]] == [
            n["text"] for n in record["nuggets"]
        ]


def test_questions_without_a_released_folder_take_the_numbers_left(tmp_path):
    """A question whose nuggets came from one res.json (no folder) is written under a
    number no released folder uses; the released folders keep their names."""
    from judges.formats.nuggetizer import dump

    folder = shared("deepscholar", "dataset", "gt_nuggets_outputs")
    study = Study.objects.create(name="DS")
    run("deepscholar", folder, study=study, format="nuggetizer")
    record = json.loads((folder / "0" / "res.json").read_text())
    record = {**record, "qid": "9999.00001v1"}
    single = tmp_path / "res.json"
    single.write_text(json.dumps(record))
    run("deepscholar", single, study=study, format="nuggetizer", judge="gpt-4.1")
    names = [n.split("/")[1] for n in dump(study, judge="gpt-4.1") if n.endswith("res.json")]
    released = {p.parent.name for p in folder.glob("*/res.json")}
    assert len(names) == len(set(names)) == len(released) + 1
    assert released < set(names)
