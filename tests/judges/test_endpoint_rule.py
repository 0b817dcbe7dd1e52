"""A judge's endpoint and what its errors keep (issue 24): ``base_url`` could be any address
and the reply's body was stored in the run's errors, which researchers read. Private,
loopback and link-local addresses are refused unless ``CONCORD_JUDGE_ALLOW_PRIVATE`` allows
them (the test suite allows them for its local LLM server; here the rule is on), and an
error keeps the status and its reason only."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from judges import runs
from judges.llm import LLMConfig, private_address
from judges.models import Judge, JudgeRun
from tests.builders.judged import build_study, make_judge

pytestmark = pytest.mark.django_db

INSIDE = {
    "http://127.0.0.1:8000/v1": "a loopback address",
    "http://localhost:8000/v1": "a loopback address",
    "http://[::1]:8000/v1": "a loopback address",
    "http://169.254.169.254/latest/meta-data": "a link-local address",
    "http://10.0.0.7/v1": "a private address",
    "http://192.168.1.2/v1": "a private address",
    "http://[::ffff:127.0.0.1]/v1": "a loopback address",
    "http://0.0.0.0/v1": "an unspecified address",
    # under localhost: loopback by name, whether or not this machine resolves it (RFC 6761)
    "http://foo.localhost/v1": "a loopback address",
    "http://API.Localhost./v1": "a loopback address",
}


@pytest.mark.parametrize("url, why", INSIDE.items())
def test_an_inside_address_is_refused_unless_allowed(settings, url, why):
    settings.CONCORD_JUDGE_ALLOW_PRIVATE = False
    assert private_address(url).startswith(why)
    judge = Judge.objects.create(name="inside", model="m", parameters={"base_url": url})
    study = build_study(questions=1, systems=("alpha",), items=2)
    with pytest.raises(runs.RunError, match=f"is {why}.*CONCORD_JUDGE_ALLOW_PRIVATE=1"):
        runs.create_run(judge, study, ["coverage"])
    assert not JudgeRun.objects.exists()
    settings.CONCORD_JUDGE_ALLOW_PRIVATE = True
    assert private_address(url) == ""
    LLMConfig.for_judge(judge)  # allowed: a local vLLM is legitimate


def test_a_public_address_is_accepted(settings):
    settings.CONCORD_JUDGE_ALLOW_PRIVATE = False
    assert private_address("https://8.8.8.8/v1") == ""


def test_the_api_refuses_an_inside_base_url_naming_it(settings, admin_user):
    settings.CONCORD_JUDGE_ALLOW_PRIVATE = False
    client = APIClient()
    client.force_login(admin_user)
    r = client.post(
        reverse("judge-list"),
        {"name": "j", "model": "m", "parameters": {"base_url": "http://169.254.169.254/v1"}},
        format="json",
    )
    assert r.status_code == 400 and "base_url" in r.content.decode()
    assert "link-local" in r.content.decode() and not Judge.objects.exists()


def test_a_run_error_keeps_the_status_and_reason_never_the_body(fake_llm):
    study = build_study(questions=1, systems=("alpha",), items=2)
    judge = make_judge(fake_llm, max_retries=0)
    fake_llm.faults.extend([403, 500])
    run = runs.start_run(judge, study, ["coverage"])
    run.refresh_from_db()
    said = " | ".join(e["error"] for e in run.errors)
    assert "403 Forbidden" in said
    assert "error 403" not in said and "error 500" not in said  # the bodies' messages


# --- The address connected to (DNS rebinding) ------------------------------------------------

PUBLIC = "93.184.216.34"  # a public address (example.com's), never connected to here


class Resolver:
    """A stand-in for DNS in one test: ``judge.example`` answers the checks before a call
    (which ask without a port) with ``checked``, and the connections (which ask with one)
    with ``connected`` in turn, the last one again and again: a rebinding name, whose short
    lived answer changed between the check and the connection. Every other name resolves
    as the system resolves it. Records the connections' lookups."""

    def __init__(self, monkeypatch, checked: str, *connected: str):
        import socket

        self.connected, self.lookups = list(connected), []
        real = socket.getaddrinfo

        def getaddrinfo(host, port, *args, **kwargs):
            if host != "judge.example":
                return real(host, port, *args, **kwargs)
            address = checked
            if port is not None:
                self.lookups.append(host)
                address = self.connected.pop(0) if len(self.connected) > 1 else self.connected[0]
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port or 0))]

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def _config(fake_llm, base_url: str) -> LLMConfig:
    return LLMConfig(model="gpt-4o", base_url=base_url, api_key="sk-test", backoff=0.0,
                     timeout=5, max_retries=2)  # fmt: skip


@pytest.mark.parametrize("azure", [False, True], ids=["direct", "through-the-sdk"])
def test_a_name_that_resolves_inside_when_connecting_is_refused(
    settings, monkeypatch, fake_llm, azure
):
    """The name answers a public address to the check (when the judge is saved and the run
    starts) and 127.0.0.1, where the LLM stand-in listens, to the connection: the call is
    refused with the reason, not retried, and nothing reaches the server."""
    from judges.llm import ChatClient, PermanentError

    settings.CONCORD_JUDGE_ALLOW_PRIVATE = False
    port = fake_llm.httpd.server_address[1]
    base_url = f"http://judge.example:{port}/v1" + ("?api-version=2024-10-21" if azure else "")
    resolver = Resolver(monkeypatch, PUBLIC, "127.0.0.1")
    config = _config(fake_llm, base_url)
    config.validate("rebinding")  # the check before the call passes: a public address
    client = ChatClient(config)
    with pytest.raises(PermanentError, match="when connecting, to a loopback address") as err:
        client.complete([{"role": "user", "content": "x"}])
    assert "CONCORD_JUDGE_ALLOW_PRIVATE=1" in str(err.value) and err.value.attempts == 1
    assert fake_llm.requests == [] and resolver.lookups == ["judge.example"]


def test_the_connection_goes_to_the_address_checked(settings, monkeypatch, fake_llm):
    """Checked at connect time, the name is resolved once per connection and the socket
    opened to the address that was checked, not to a second answer of the resolver. Here
    127.0.0.1 stands for a public address (the rule's verdict is the stand-in, not the
    connection)."""
    from annotation import outbound
    from judges.llm import ChatClient

    settings.CONCORD_JUDGE_ALLOW_PRIVATE = False
    monkeypatch.setattr(outbound, "why_address_not_public", lambda address: "")
    resolver = Resolver(monkeypatch, PUBLIC, "127.0.0.1", "192.0.2.1")  # 192.0.2.1: unreachable
    port = fake_llm.httpd.server_address[1]
    answer = ChatClient(_config(fake_llm, f"http://judge.example:{port}/v1")).complete(
        [{"role": "user", "content": "x"}]
    )
    assert answer.attempts == 1 and len(fake_llm.requests) == 1
    assert resolver.lookups == ["judge.example"]


def test_a_run_whose_endpoint_rebinds_fails_with_the_reason(settings, monkeypatch, fake_llm):
    """Through a whole run: the run starts (the check passes) and each unit's call is
    refused, the run's errors saying why."""
    settings.CONCORD_JUDGE_ALLOW_PRIVATE = False
    Resolver(monkeypatch, PUBLIC, "127.0.0.1")
    port = fake_llm.httpd.server_address[1]
    study = build_study(questions=1, systems=("alpha",), items=2)
    judge = Judge.objects.create(
        name="rebinding", model="gpt-4o",
        parameters={"base_url": f"http://judge.example:{port}/v1", "api_key": "k",
                    "max_retries": 0, "backoff": 0.0},
    )  # fmt: skip
    run = runs.start_run(judge, study, ["coverage"])
    run.refresh_from_db()
    said = " | ".join(e["error"] for e in run.errors)
    assert "when connecting, to a loopback address (127.0.0.1)" in said, said
    assert fake_llm.requests == []
