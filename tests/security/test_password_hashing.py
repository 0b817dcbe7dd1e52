"""Passwords: Argon2id at OWASP's minimum cost, older PBKDF2 hashes upgraded at login
(concord/passwords.py; issue 29: PBKDF2 at 1M iterations made 200 logins saturate 2 cores)."""

import pytest
from django.contrib.auth.hashers import check_password, identify_hasher, make_password
from django.test import Client
from django.urls import reverse

import concord.settings as product
from tests.builders.users import make_user

#: OWASP Password Storage Cheat Sheet, Argon2id: at least 19 MiB, 2 iterations, 1 lane.
OWASP_MEMORY_KIB, OWASP_TIME = 19 * 1024, 2


@pytest.fixture
def product_hashers(settings):
    """The product's hashers (the suite's autouse fixture swaps in a fast one)."""
    settings.PASSWORD_HASHERS = product.PASSWORD_HASHERS


def test_new_passwords_are_argon2id_no_cheaper_than_owasp(product_hashers):
    encoded = make_password("correct horse battery staple")
    assert encoded.startswith("argon2$argon2id$")
    hasher = identify_hasher(encoded)
    params = hasher.decode(encoded)
    assert params["memory_cost"] >= OWASP_MEMORY_KIB
    assert params["time_cost"] >= OWASP_TIME
    assert check_password("correct horse battery staple", encoded)
    assert not check_password("wrong", encoded)


@pytest.mark.django_db
def test_a_pbkdf2_password_still_logs_in_and_is_rehashed(product_hashers, settings):
    user = make_user("olduser", "annotator")
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        *product.PASSWORD_HASHERS,
    ]
    user.set_password("an old password 1")
    user.save()
    assert user.password.startswith("pbkdf2_sha256$")
    settings.PASSWORD_HASHERS = product.PASSWORD_HASHERS

    client = Client()
    response = client.post(
        reverse("login"), {"username": "olduser", "password": "an old password 1"}
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.password.startswith("argon2$argon2id$")
    assert "m=19456,t=2,p=1" in user.password
