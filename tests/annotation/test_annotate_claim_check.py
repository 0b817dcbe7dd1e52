"""Claim citation check: fully supported, per-citation support, skip."""

import pytest
from django.urls import reverse

from annotation.models import ClaimCheck
from tests.builders.content import make_assignment, make_claims, make_question, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(annotator_user, client):
    study = make_study()
    question = make_question(study, n_reports=2)
    claims = make_claims(question)
    a = make_assignment(annotator_user.annotator, question, "claim_check")
    client.force_login(annotator_user)
    return a, client, claims


def post(client, a, data):
    return client.post(
        reverse("annotate:submit", args=[a.pk]), {"version": "0", **data}, HTTP_HX_REQUEST="true"
    )


def test_page_shows_claims_and_evidence_blinded(setup, django_assert_max_num_queries):
    a, client, claims = setup
    make_claims(a.question)  # more claims, same number of queries
    client.get(reverse("annotate:task", args=[a.pk]))
    with django_assert_max_num_queries(14):
        html = client.get(reverse("annotate:task", args=[a.pk])).content.decode()
    assert "Summarization and dialogue exhibit high memorization." in html
    assert "judge-x" not in html and "SecretSystem" not in html
    assert 'data-keys="yn"' in html


def test_submit_with_one_skipped(setup):
    a, client, (c1, c2) = setup
    data = {
        f"cc.{c1.public_id}.fully": "no",
        f"cc.{c1.public_id}.cite.0": "yes",
        f"cc.{c2.public_id}.skip": "on",
    }
    assert post(client, a, data).status_code == 204
    checks = {c.claim_id: c for c in ClaimCheck.objects.all()}
    assert checks[c1.pk].fully_supported is False and checks[c1.pk].citation_supports == {
        "[1]": True
    }
    assert checks[c2.pk].skipped and checks[c2.pk].fully_supported is None


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"fully": "maybe"}, "not yes or no"),
        ({"cite.3": "yes"}, "no citation 3"),
        ({}, "is it fully supported"),
    ],
)
def test_invalid(setup, extra, message):
    a, client, (c1, c2) = setup
    data = {
        f"cc.{c2.public_id}.skip": "on",
        **{f"cc.{c1.public_id}.{k}": v for k, v in extra.items()},
    }
    response = post(client, a, data)
    assert response.status_code == 422 and message in response.content.decode()
    assert not ClaimCheck.objects.exists()


def test_forged_claim_is_refused(setup, annotator_user):
    a, client, claims = setup
    other = make_claims(make_question(a.study, n_reports=1))[0]
    response = post(client, a, {f"cc.{other.public_id}.fully": "yes"})
    assert response.status_code == 422 and "not in this task" in response.content.decode()
