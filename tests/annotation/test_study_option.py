"""``--study`` takes a name or an id in every command, and ``/reports/<name>/`` opens the
study's report (issue 13). One helper, :mod:`annotation.study_lookup`, does the finding."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from annotation.study_lookup import find_study
from tests.builders.ranked import ranked_study

pytestmark = pytest.mark.django_db

#: (command, extra arguments): every command with a --study option that reads a study
COMMANDS = [
    ("study_progress", []),
    ("export_table", ["question"]),
    ("export_study_judgments", []),
    ("export_pairwise", ["--setting", "assigned", "--annotator", "ranked-ann1"]),
    ("agreement", ["--json"]),
    ("judge_alignment", ["--json"]),
    ("assign", ["--task", "medal_ranking"]),
]


@pytest.fixture
def study():
    study = ranked_study(n_questions=3)
    study.tasks = ["medal_ranking"]  # `assign` refuses a task the study does not enable
    study.save(update_fields=["tasks"])
    return study


def _run(name, args, value):
    out = io.StringIO()
    call_command(name, *args, "--study", value, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.mark.parametrize(("name", "args"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_name_and_id_give_the_same_output(study, name, args):
    assert _run(name, args, study.name) == _run(name, args, str(study.pk))


@pytest.mark.parametrize(("name", "args"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_an_unknown_study_is_named_in_the_error(study, name, args):
    with pytest.raises(CommandError, match="--study: no study named 'nope'"):
        _run(name, args, "nope")


def test_export_study_by_id(study, tmp_path):
    out = tmp_path / "backup.zip"
    call_command("export_study", "--study", str(study.pk), "--out", str(out), stdout=io.StringIO())
    assert out.stat().st_size > 0


def test_a_name_wins_over_an_id(study):
    from annotation.models import Study

    other = Study.objects.create(name=str(study.pk))
    assert find_study(str(study.pk)) == other
    assert find_study(study.name) == study


def test_report_url_by_name_redirects_to_the_report(client, study, researcher_user):
    from urllib.parse import quote

    study.researchers.add(researcher_user)
    client.force_login(researcher_user)
    response = client.get(f"/reports/{quote(study.name)}/?ties=partial")
    assert response.status_code == 302
    assert response["Location"] == reverse("metaeval:report", args=[study.pk]) + "?ties=partial"
    assert client.get(response["Location"]).status_code == 200
    assert client.get("/reports/no-such-study/").status_code == 404


def test_report_url_by_name_refuses_a_study_the_researcher_does_not_read(client, researcher_user):
    hidden = ranked_study(n_questions=2, name="hidden")
    client.force_login(researcher_user)
    assert client.get(f"/reports/{hidden.name}/").status_code == 404
