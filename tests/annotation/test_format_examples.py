"""Every import format documents its shape where the import happens, with an example file
(issue 25 "Round trips", issue 26 dead end 7): declared once in the registry, shown by the
study's import page, the admin import page and each import command's ``--help``, and each
example imports cleanly."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.importers import run
from annotation.importers.registry import FORMATS, KINDS, formats
from annotation.models import Study
from tests.annotation.test_import_common import table_counts
from tests.builders.users import token_client

pytestmark = pytest.mark.django_db

COMMANDS = {
    "reports": "import_reports",
    "questions": "import_questions",
    "pairwise": "import_pairwise",
    "judge_scores": "import_judge_scores",
    "judgments": "import_judgments",
    "deepscholar": "import_deepscholar",
}


def import_example(fmt, study: str):
    """Import what the example needs, then the example itself; its report."""
    example = fmt.example
    for kind, name, options in example.needs:
        needed = FORMATS[(kind, name)]
        run(kind, needed.example.path, study=study, format=name,
            **{**needed.example.import_options(needed), **options})  # fmt: skip
    return run(fmt.kind, example.path, study=study, format=fmt.name,
               **example.import_options(fmt))  # fmt: skip


@pytest.mark.parametrize("key", sorted(FORMATS), ids="/".join)
def test_every_format_has_a_shape_and_an_example_that_imports_cleanly(key):
    fmt = FORMATS[key]
    assert fmt.shape.strip(), f"{key}: no shape described"
    assert fmt.example is not None and fmt.example.path.exists(), f"{key}: no example file"
    for name in fmt.example.files(fmt):
        assert (fmt.example.folder / name).exists()
    rep = import_example(fmt, "examples")
    assert rep.records >= 1 and not rep.warnings, rep.summary()
    assert sum(rep.created.values()) >= 1, rep.summary()
    # and again: a second import of the same example changes nothing
    before = table_counts()
    again = import_example(fmt, "examples")
    assert table_counts() == before and not again.created, again.summary()


@pytest.mark.parametrize("kind", sorted(COMMANDS))
def test_each_import_command_help_shows_every_shape_and_example(kind, capsys):
    with pytest.raises(SystemExit):
        call_command(COMMANDS[kind], "--help")
    text = " ".join(capsys.readouterr().out.split())
    assert kind in KINDS
    for fmt in formats(kind):
        assert f"--format {fmt.name}" in text
        assert " ".join(fmt.shape.split()) in text
        assert fmt.example.file in text


def _page_shows_every_format(html: str):
    for fmt in formats():
        assert f'id="format-{fmt.kind}-{fmt.name}"' in html, fmt.key
        for name in fmt.example.files(fmt):
            url = reverse("format_example", args=[fmt.kind, fmt.name, name])
            assert url in html, (fmt.key, url)


def test_the_study_import_page_and_the_admin_import_page_show_every_format(admin_user, client):
    client.force_login(admin_user)
    study = Study.objects.create(name="S")
    _page_shows_every_format(
        client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    )
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    _page_shows_every_format(client.get(reverse("admin:annotation_import")).content.decode())


@pytest.mark.parametrize("key", sorted(FORMATS), ids="/".join)
def test_each_example_downloads_and_the_download_imports(admin_user, client, key, tmp_path):
    """What the page offers is the example file (a folder format's as a zip)."""
    fmt = FORMATS[key]
    client.force_login(admin_user)
    response = client.get(reverse("format_example", args=[*key, fmt.example.file]))
    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    if fmt.directory:
        import zipfile

        names = zipfile.ZipFile(io.BytesIO(body)).namelist()
        folder = fmt.example.path
        assert sorted(names) == sorted(
            f"{folder.name}/{p.relative_to(folder).as_posix()}"
            for p in folder.rglob("*")
            if p.is_file()
        )
    else:
        assert body == fmt.example.path.read_bytes()
        assert "attachment" in response["Content-Disposition"]


def test_an_example_url_names_only_declared_files(admin_user, client):
    client.force_login(admin_user)
    for args in (["reports", "scholarqa", "..%2Fregistry.py"], ["reports", "nope", "x.json"],
                 ["reports", "scholarqa", "researchqa_items.json"]):  # fmt: skip
        assert client.get(reverse("format_example", args=args)).status_code == 404


def test_a_script_downloads_an_example_with_its_api_token(admin_user):
    """Issue 26: the API import's description sends a script to these examples, and with
    its token it got the login page (302); the token works as for every download, and a
    wrong token is a 401, never the login page."""
    from django.test import Client

    fmt = FORMATS[("questions", "jsonl")]
    url = reverse("format_example", args=["questions", "jsonl", fmt.example.file])
    got = token_client(admin_user, api=False).get(url)
    assert got.status_code == 200
    assert b"".join(got.streaming_content) == fmt.example.path.read_bytes()
    assert token_client(key="not-a-real-token", api=False).get(url).status_code == 401
    assert Client().get(url).status_code == 302  # a browser without a session: login page
