"""Schemathesis against ``/api/schema/``, in-process (WSGI), as every role.

Every operation of the schema gets generated requests (valid by the schema), sent with a
token of an admin, a researcher and an annotator over a small real study. Each response must
not be a 5xx and must conform to the schema: a documented status code, the documented
content type, a body that matches the response schema.

Checks deliberately not run: ``positive_data_acceptance`` (a schema-valid request may still
be refused: a role without the right, an id that does not exist, a file that does not
parse), ``use_after_free``/``ensure_resource_availability`` (stateful, not meaningful across
roles on one shared study), ``ignored_auth`` (tokens are sent by the test, not declared per
operation).
"""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.builders.content import make_assignment, make_question, make_study
from tests.builders.users import make_user

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
ROLES = ("admin", "researcher", "annotator")
MAX_EXAMPLES = 4


@pytest.fixture
def tokens(db) -> dict[str, str]:
    """A token per role, over one study with a question, reports and assignments."""
    users = {role: make_user(f"fuzz_{role}", role, annotator=role == "annotator") for role in ROLES}
    other = make_user("fuzz_other", "annotator", annotator=True)
    study = make_study("Fuzz study")
    question = make_question(study, n_reports=2, paragraphs=2, rubric_items=2)
    make_assignment(users["annotator"].annotator, question, "pairwise")
    make_assignment(other.annotator, question, "medal_ranking")
    return {role: Token.objects.create(user=user).key for role, user in users.items()}


@pytest.fixture
def keep_test_connection():
    """Schemathesis calls the WSGI handler directly, which fires ``request_started`` and
    ``request_finished``; their ``close_old_connections`` would close the test's connection
    (CONN_MAX_AGE 0) inside its transaction. Django's own test client disconnects them the
    same way."""
    signals = (request_started, request_finished)
    for signal in signals:
        signal.disconnect(close_old_connections)
    yield
    for signal in signals:
        signal.connect(close_old_connections)


def load_schema():
    schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
    schema.config.generation.update(modes=[GenerationMode.POSITIVE], deterministic=True)
    return schema


def run_operation(operation, tokens: dict[str, str]) -> None:
    """Hypothesis over one operation; each generated request is sent once per role (a
    researcher's and an annotator's refusals and scoped views must conform too)."""

    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(GenerationMode.POSITIVE))
    def run(case):
        for role in ROLES:
            case.call_and_validate(
                headers={"Authorization": f"Token {tokens[role]}"}, checks=CHECKS
            )

    run()


def test_api_conforms_to_its_schema(tokens, keep_test_connection):
    """Schemathesis' pytest plugin does not run under pytest 9 (it reads a removed private
    attribute), so the operations are driven here with plain Hypothesis; every failing
    operation is reported, not only the first."""
    schema = load_schema()
    failures, count = [], 0
    for result in schema.get_all_operations():
        operation = result.ok()
        count += 1
        try:
            run_operation(operation, tokens)
        except (Exception, BaseExceptionGroup) as exc:  # collected and reported below
            failures.append(f"{operation.label}: {exc}")
    assert count > 50
    assert not failures, "\n\n".join(failures)
