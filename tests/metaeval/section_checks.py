"""Checks shared by the issue-16 section tests: one analysis reaches the API (typed in the
OpenAPI schema), `manage.py analysis --kind K --json`, a CSV download and the offline HTML,
and its figure changes when a judgment is added."""

import csv
import io
import json
import re

from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse


def schema_component(key: str) -> dict:
    """The OpenAPI schema of the section ``key`` inside the agreement report (resolved)."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    op = schema["paths"]["/api/studies/{study_id}/agreement/"]["get"]
    ref = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    comps = schema["components"]["schemas"]

    def resolve(node):
        while "$ref" in node:
            node = comps[node["$ref"].rsplit("/", 1)[1]]
        if "allOf" in node:
            return resolve(node["allOf"][0])
        if "oneOf" in node:
            return resolve(node["oneOf"][0])
        return node

    prop = resolve(comps[ref.rsplit("/", 1)[1]]["properties"][key])
    return prop


def assert_typed(key: str, fields: set[str]) -> None:
    prop = schema_component(key)
    assert prop.get("type") == "object" and "properties" in prop, prop  # not free-form
    assert fields <= set(prop["properties"]), set(prop["properties"])


def command(study, kind: str, *args) -> dict:
    out = io.StringIO()
    call_command("analysis", "--study", study.name, "--kind", kind, "--json", *args, stdout=out)
    return json.loads(out.getvalue())[kind]


def csv_rows(client, study, table: str, query: str = "") -> list[dict]:
    got = client.get(reverse("metaeval:table", args=[study.pk, table, "csv"]) + query)
    assert got.status_code == 200, got.status_code
    return list(csv.DictReader(io.StringIO(got.content.decode())))


def svg(client, study, name: str, query: str = "") -> bytes:
    """The figure as served: the report cache is not cleared, so a figure that does not
    change after a judgment is added also catches a cache key blind to that kind."""
    got = client.get(reverse("metaeval:figure", args=[study.pk, name, "svg"]) + query)
    assert got.status_code == 200 and b"<svg" in got.content, got.status_code
    return got.content


FIGURE = re.compile(r'<figure class="report-figure" id="figure-([\w-]+)"[^>]*>(.*?)</figure>', re.S)


def page_figures(client, study, query: str = "") -> dict[str, str]:
    """Every figure drawn on the report page (inline SVG), by name: one page GET for all of
    them, where the figure download draws one per request with matplotlib. The report cache
    is not cleared (see :func:`svg`)."""
    got = client.get(reverse("metaeval:report", args=[study.pk]) + query)
    assert got.status_code == 200, got.status_code
    return dict(FIGURE.findall(got.content.decode()))


def everywhere(client, study, key: str, table: str, figure: str, query: str = "") -> dict:
    """The section's result from the API, checked against the command, the CSV download,
    the page and the offline HTML; returns the API's result."""
    cache.clear()
    api = client.get(reverse("api-agreement", args=[study.pk]) + query).json()
    assert api.get(key), f"{key} missing from the API"
    opts = [] if not query else [f"--{p.split('=')[0]}={p.split('=')[1]}"
                                 for p in query.lstrip("?").split("&")]  # fmt: skip
    assert command(study, key, *opts) == api[key]
    assert csv_rows(client, study, table, query)
    page = client.get(reverse("metaeval:report", args=[study.pk]) + query).content.decode()
    assert f'id="section-{key}"' in page and f'id="figure-{figure}"' in page
    offline = client.get(reverse("metaeval:offline", args=[study.pk]) + query).content.decode()
    assert f'id="section-{key}"' in offline and f'id="table-{table}"' in offline
    return api[key]


def check_kind(client, study, key, table, figure, fields, add_judgment, query=""):
    """Everything the issue asks of one analysis section, and its figure changing when
    ``add_judgment()`` adds a judgment of its kind."""
    got = everywhere(client, study, key, table, figure, query)
    assert_typed(key, fields)
    before = svg(client, study, figure, query)
    add_judgment()
    assert svg(client, study, figure, query) != before
    return got
