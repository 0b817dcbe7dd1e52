"""The report page on the imported ScholarQA-CS2 data equals `manage.py agreement --json`."""

import pytest
from django.urls import reverse

from tests.metaeval.test_reproduction_db import study  # noqa: F401 - module fixture
from tests.metaeval.test_views import (  # noqa: F401
    _empty_cache,
    _float,
    assert_page_equals_report,
    command_json,
    page_values,
)

pytestmark = [pytest.mark.shared_data, pytest.mark.django_db]


@pytest.mark.parametrize(
    "query, args",
    [
        ("settings=assigned&compat=scholarqa-cs2", ["--setting", "assigned", "--compat", "scholarqa-cs2"]),
        ("settings=near_expert", ["--setting", "near_expert"]),
    ],
)  # fmt: skip
def test_page_equals_the_command(client, researcher_user, study, query, args):  # noqa: F811
    study.researchers.add(researcher_user)  # rolled back with the test's transaction
    client.force_login(researcher_user)
    html = client.get(reverse("metaeval:report", args=[study.pk]) + "?" + query).content.decode()
    report = command_json(study, *args)
    values = page_values(html)
    assert_page_equals_report(values, report)
    if "compat" in query:
        assert round(100 * _float(values[("iaa", None, None, "strict")]), 1) == 55.0
        assert round(100 * _float(values[("preference", "overall", None, "agreement")]), 1) == 51.6
        assert 'id="table-notes"' in html
    # one judge: no cross-judge figure, and the page says why
    assert html.count("<svg") >= 5
    assert 'id="cross-judge-note"' in html
