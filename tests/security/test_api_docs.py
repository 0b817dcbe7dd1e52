"""The OpenAPI schema is written for the API's users: every operation has a summary and a
description, none shows a developer's docstring; the agreement and judge-alignment answers
are typed components with examples, and real answers (the demo study) match them."""

from __future__ import annotations

import copy

import jsonschema
import pytest
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from concord.api_schema import INTERNAL_WORDS
from tests.builders.users import make_user

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema):
    for path, item in schema["paths"].items():
        for method in METHODS:
            if method in item:
                yield f"{method.upper()} {path}", item[method]


def test_every_operation_has_a_summary_and_a_description_for_users(schema):
    ops = list(operations(schema))
    assert len(ops) > 100, len(ops)  # the walk found the API
    wrong = []
    for name, op in ops:
        summary, description = op.get("summary") or "", op.get("description") or ""
        if not summary.strip():
            wrong.append(f"{name}: no summary")
        if len(description.strip()) < 20:
            wrong.append(f"{name}: no description")
        for word in INTERNAL_WORDS:
            if word.lower() in (summary + description).lower():
                wrong.append(f"{name}: shows {word!r}")
    assert not wrong, "\n".join(wrong)
    # one summary per operation: a reader of the docs can tell them apart
    summaries = [op["summary"] for _, op in ops]
    assert len(set(summaries)) == len(summaries), sorted(summaries)


def test_every_judgment_kind_is_readable_in_the_api(schema):
    listed = {p for p in schema["paths"] if p.startswith("/api/judgments/") and "{" not in p}
    assert len(listed) >= 12, sorted(listed)  # medal rankings … relevance adjudications


def to_json_schema(node, components):
    """An OpenAPI 3.0 schema as JSON Schema: refs inlined, ``nullable`` as a null type."""
    if isinstance(node, list):
        return [to_json_schema(n, components) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return to_json_schema(copy.deepcopy(components[node["$ref"].rsplit("/", 1)[1]]), components)
    out = {k: to_json_schema(v, components) for k, v in node.items() if k != "nullable"}
    if node.get("nullable"):
        out = {"anyOf": [out, {"type": "null"}]}
    return out


def response_schema(schema, path) -> tuple[dict, dict]:
    content = schema["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
    return content["schema"], content.get("examples", {})


@pytest.mark.parametrize(
    ("path", "component", "keys"),
    [
        # the agreement report, plus each registered analysis section's typed key (issue 16)
        (
            "/api/studies/{study_id}/agreement/",
            "AgreementReportWithSections",
            {"iaa", "preference", "system", "researchqa_pairwise", "coverage_alignment"},
        ),
        ("/api/studies/{study_id}/judge-alignment/", "JudgeAlignment", {"judges", "pearson"}),
    ],
)
def test_agreement_and_alignment_are_typed_with_examples(schema, path, component, keys):
    body, examples = response_schema(schema, path)
    assert body == {"$ref": f"#/components/schemas/{component}"}
    properties = schema["components"]["schemas"][component]["properties"]
    assert keys <= properties.keys()
    assert examples, "an example answer"
    validator = to_json_schema(body, schema["components"]["schemas"])
    for example in examples.values():
        jsonschema.validate(example["value"], validator)


@pytest.mark.django_db
def test_real_answers_match_their_schema(schema, settings):
    settings.DEBUG = True  # the demo loads only with DEBUG on
    call_command("demo", verbosity=0)
    from annotation.models import Study

    study = Study.objects.get()
    researcher = make_user("docs_researcher", "researcher")
    study.researchers.add(researcher)
    client = APIClient()
    client.force_authenticate(researcher)
    for path in ("/api/studies/{study_id}/agreement/", "/api/studies/{study_id}/judge-alignment/"):
        response = client.get(path.format(study_id=study.pk))
        assert response.status_code == 200, response.content[:300]
        validator = to_json_schema(
            response_schema(schema, path)[0], schema["components"]["schemas"]
        )
        jsonschema.validate(response.json(), validator)
        assert response.json()  # not an empty object


DESCRIBED = {"question_text", "annotator_pseudonym", "question_external_id", "systems", "system"}


def list_row(schema, path) -> dict:
    """The schema of one row of a paginated list answer."""
    components = schema["components"]["schemas"]
    page = components[response_schema(schema, path)[0]["$ref"].rsplit("/", 1)[1]]
    return components[page["properties"]["results"]["items"]["$ref"].rsplit("/", 1)[1]]


def test_what_describe_and_tables_add_is_in_the_schema(schema):
    """A tester's finding: ``describe=true`` and ``tables=true`` were documented as
    parameters, but what they add to an answer was in no schema, so a generated client
    had no such fields."""
    lists = [p for p in schema["paths"] if p.startswith("/api/judgments/") and "{" not in p]
    assert len(lists) >= 12
    for path in lists:
        names = {p["name"] for p in schema["paths"][path]["get"]["parameters"]}
        assert "describe" in names, path
        row = list_row(schema, path)
        assert row["properties"].keys() >= DESCRIBED, path
        assert not DESCRIBED & set(row.get("required", [])), path  # only with describe
    agreement = "/api/studies/{study_id}/agreement/"
    assert "tables" in {p["name"] for p in schema["paths"][agreement]["get"]["parameters"]}
    components = schema["components"]["schemas"]
    report = components[response_schema(schema, agreement)[0]["$ref"].rsplit("/", 1)[1]]
    tables = report["properties"]["tables"]
    table = components[tables["additionalProperties"]["$ref"].rsplit("/", 1)[1]]
    assert {"columns", "rows"} <= table["properties"].keys()
    assert "tables" not in report.get("required", [])


@pytest.mark.django_db
def test_described_rows_and_tables_match_their_schema(schema, settings):
    settings.DEBUG = True  # the demo loads only with DEBUG on
    call_command("demo", verbosity=0)
    from annotation.models import Study

    study = Study.objects.get()
    researcher = make_user("docs_described", "researcher")
    study.researchers.add(researcher)
    client = APIClient()
    client.force_authenticate(researcher)
    components = schema["components"]["schemas"]
    seen = 0
    for path in [p for p in schema["paths"] if p.startswith("/api/judgments/") and "{" not in p]:
        response = client.get(path, {"describe": "true", "limit": 20})
        assert response.status_code == 200, response.content[:300]
        rows = response.json()["results"]
        seen += len(rows)
        assert all(row.keys() >= DESCRIBED for row in rows)
        documented = list_row(schema, path)["properties"].keys()
        assert {k for row in rows for k in row} <= documented, path
        jsonschema.validate(response.json(), to_json_schema(response_schema(schema, path)[0],
                                                            components))  # fmt: skip
    assert seen  # the demo has judgments of some kinds
    path = "/api/studies/{study_id}/agreement/"
    response = client.get(path.format(study_id=study.pk), {"tables": "true"})
    assert response.status_code == 200, response.content[:300]
    assert response.json()["tables"]
    body = response_schema(schema, path)[0]
    report = components[body["$ref"].rsplit("/", 1)[1]]
    assert "tables" in report["properties"]
    jsonschema.validate(response.json(), to_json_schema(body, components))


def test_the_import_forms_format_lists_every_registered_format_of_each_kind(schema):
    """The multipart import form's ``format`` listed reports, questions and pairwise formats
    by hand (scholarqa, researchqa, researcherbench): it is derived from the one format
    registry, every format under its kind, and ``kind`` lists every kind."""
    from annotation.importers.registry import FORMATS, KINDS

    form = schema["paths"]["/api/studies/{id}/import/"]["post"]["requestBody"]["content"]
    ref = form["multipart/form-data"]["schema"]["$ref"].rsplit("/", 1)[-1]
    fields = schema["components"]["schemas"][ref]["properties"]
    listed = {}
    for part in fields["format"]["description"].split("; "):
        kind, names = part.split(": ")
        listed[kind] = set(names.split(" | "))
    wanted = {}
    for kind, name in FORMATS:
        wanted.setdefault(kind, set()).add(name)
    assert listed == wanted
    assert all(kind in fields["kind"]["description"] for kind in KINDS)
