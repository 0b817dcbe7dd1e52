"""A client generated from the OpenAPI schema works against the server (issue 28).

A researcher who does not use ``concord_client`` generates one from ``/api/schema/`` with
openapi-python-client. The schema once documented ``format`` on the export where the server
reads ``file_format`` (DRF takes ``format`` as the renderer: a generated client's export was
a 404). Here the schema is generated, a client is generated from it, and a list, a report
and an export run through that client against a live server: the schema and the server agree.
"""

from __future__ import annotations

import importlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from rest_framework.authtoken.models import Token

from annotation.models import Report, Study
from tests.builders.users import make_user

pytestmark = pytest.mark.django_db(transaction=True)
STUDY = "Demo: deep-research reports"
GENERATOR = Path(sys.executable).with_name("openapi-python-client")


@pytest.fixture
def generated(tmp_path):
    """The ``concord_api`` package openapi-python-client writes from today's schema."""
    schema = tmp_path / "schema.yaml"
    call_command("spectacular", file=str(schema), validate=True, fail_on_warn=False)
    config = tmp_path / "config.yaml"
    config.write_text("post_hooks: []\npackage_name_override: concord_api\n")
    subprocess.run(
        [GENERATOR, "generate", "--path", schema, "--config", config, "--meta", "none"],
        cwd=tmp_path, check=True, capture_output=True,
    )  # fmt: skip
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("concord_api")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == "concord_api" or n.startswith("concord_api.")]:
            del sys.modules[name]


@pytest.fixture
def server(live_server, settings):
    settings.DEBUG = True  # the demo loads only with DEBUG on
    call_command("demo", verbosity=0, stdout=io.StringIO())
    researcher = make_user("generated_researcher", "researcher")
    Study.objects.get(name=STUDY).researchers.add(researcher)
    return live_server.url, Token.objects.create(user=researcher).key


def test_a_schema_generated_client_lists_reads_a_report_and_exports(generated, server):
    url, token = server
    client = generated.AuthenticatedClient(base_url=url, token=token, prefix="Token")

    from concord_api.api.reports import reports_retrieve
    from concord_api.api.studies import (
        studies_agreement_retrieve,
        studies_export_retrieve,
        studies_list,
    )
    from concord_api.models.studies_export_retrieve_file_format import (
        StudiesExportRetrieveFileFormat,
    )
    from concord_api.models.studies_export_retrieve_kind import StudiesExportRetrieveKind

    listed = studies_list.sync_detailed(client=client)
    assert listed.status_code == 200, listed.content[:300]
    names = [s["name"] for s in json.loads(listed.content)["results"]]
    study = Study.objects.get(name=STUDY)
    assert STUDY in names

    report = Report.objects.filter(question__study=study).first()
    got = reports_retrieve.sync_detailed(report.public_id, client=client)
    assert got.status_code == 200, got.content[:300]
    assert json.loads(got.content)["public_id"] == report.public_id
    agreement = studies_agreement_retrieve.sync_detailed(study.pk, client=client)
    assert agreement.status_code == 200, agreement.content[:300]
    assert json.loads(agreement.content)

    exported = studies_export_retrieve.sync_detailed(
        study.pk,
        client=client,
        kind=StudiesExportRetrieveKind.JUDGMENTS,
        file_format=StudiesExportRetrieveFileFormat.JSONL,
    )
    assert exported.status_code == 200, exported.content[:300]
    lines = [json.loads(line) for line in exported.content.split(b"\n") if line.strip()]
    assert lines and all("kind" in line for line in lines)
