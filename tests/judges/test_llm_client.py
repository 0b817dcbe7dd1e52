"""The judge client (``judges.llm``, the official ``openai`` SDK) against the local fake
server speaking OpenAI, Azure OpenAI, vLLM and Ollama paths: the endpoint matrix."""

from __future__ import annotations

import pytest

from judges import runs
from judges.llm import (
    ChatClient,
    LLMConfig,
    PermanentError,
    Refusal,
    RetriesExhausted,
    cache_key,
    is_reasoning_model,
)
from judges.models import JudgeRun, JudgeUnit, LLMResponse
from judges.prompts import CLAIM_SCHEMA
from tests.builders.judged import build_study, make_judge

MESSAGES = [{"role": "user", "content": '{"irrelevant"} Question: x'}]


def config(fake, base_url=None, **kw) -> LLMConfig:
    kw = {"model": "gpt-4o", "api_key": "sk-test", "backoff": 0.0, "timeout": 5, **kw}
    return LLMConfig(base_url=base_url or fake.base_url, **kw)


ENDPOINTS = {
    # name: (base URL under the fake server's root, model, path the server must see, auth)
    "openai": ("/v1", "gpt-4o", "/v1/chat/completions", "Bearer sk-test"),
    "vllm": ("/v1/", "meta-llama/Llama-3.1-8B-Instruct", "/v1/chat/completions",
             "Bearer sk-test"),
    "ollama": ("/ollama/v1", "llama3.1:8b", "/ollama/v1/chat/completions", "Bearer sk-test"),
    "azure-deployment-url": ("/openai/deployments/judge-4o?api-version=2024-10-21", "gpt-4o",
                             "/openai/deployments/judge-4o/chat/completions", "api-key sk-test"),
    "azure-resource-url": ("?api-version=2024-10-21", "judge-4o",
                           "/openai/deployments/judge-4o/chat/completions", "api-key sk-test"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(ENDPOINTS))
def test_every_endpoint_kind_is_reached_with_its_path_query_and_key(fake_llm, name):
    suffix, model, path, auth = ENDPOINTS[name]
    client = ChatClient(config(fake_llm, fake_llm.root + suffix, model=model))
    answer = client.complete(MESSAGES)
    assert answer.content == '{"irrelevant": []}' and answer.attempts == 1
    assert answer.prompt_tokens > 0 and answer.completion_tokens > 0
    (request,) = fake_llm.requests
    assert request["path"] == path  # never "/v1?api-version=…/chat/completions"
    assert fake_llm.auth == {auth}
    if name.startswith("azure"):
        assert request["query"] == {"api-version": "2024-10-21"}
        assert "authorization" not in request["headers"]
    else:
        assert request["query"] == {}
        assert request["body"]["model"] == model
    assert request["body"]["temperature"] == 0.0 and "max_tokens" not in request["body"]


def test_extra_headers_and_query_parameters_go_with_every_request(fake_llm):
    client = ChatClient(
        config(
            fake_llm,
            fake_llm.base_url + "?tenant=lab",
            extra_headers={"X-Team": "concord", "OpenAI-Organization": "org-1"},
            extra_query={"route": "fast"},
        )
    )
    client.complete(MESSAGES)
    client.complete(MESSAGES)
    for request in fake_llm.requests:
        assert request["query"] == {"tenant": "lab", "route": "fast"}
        assert request["headers"]["x-team"] == "concord"
        assert request["headers"]["openai-organization"] == "org-1"


def test_a_direct_call_sends_what_the_sdk_sends(fake_llm, monkeypatch):
    """Calls to an OpenAI-compatible endpoint bypass the SDK's per-request work (issue 29)
    but must reach the server as the SDK's own request does: path, query, body and headers
    (auth, organisation, user agent, extra headers), the SDK's per-request bookkeeping
    headers (retry count, timeout) and the body's length aside."""
    monkeypatch.setenv("OPENAI_ORG_ID", "org-env")
    client = ChatClient(config(fake_llm, fake_llm.base_url + "?tenant=lab",
                               extra_headers={"X-Team": "concord"}))  # fmt: skip
    body = client.config.body(MESSAGES, CLAIM_SCHEMA)
    assert client._route is not None  # an OpenAI-compatible endpoint: the direct path
    assert client._post_sdk(body) == client._post(body)
    through_sdk, direct = fake_llm.requests

    def kept(headers):
        per_request = ("x-stainless-retry-count", "x-stainless-read-timeout", "content-length")
        return {k: v for k, v in headers.items() if k not in per_request}

    assert kept(direct["headers"]) == kept(through_sdk["headers"])
    assert direct["headers"]["authorization"] == "Bearer sk-test"
    assert direct["headers"]["openai-organization"] == "org-env"
    assert (direct["path"], direct["query"], direct["body"]) == (
        through_sdk["path"], through_sdk["query"], through_sdk["body"]
    )  # fmt: skip


@pytest.mark.parametrize(
    ("model", "sent", "absent"),
    [
        ("gpt-4o", {"temperature": 0.0, "max_tokens": 300}, "max_completion_tokens"),
        ("o3-mini", {"max_completion_tokens": 300}, "max_tokens"),
        ("gpt-5", {"max_completion_tokens": 300}, "max_tokens"),
        ("openai/o1", {"max_completion_tokens": 300}, "max_tokens"),
    ],
)
def test_reasoning_models_get_max_completion_tokens_and_no_temperature(
    fake_llm, model, sent, absent
):
    ChatClient(config(fake_llm, model=model, max_tokens=300)).complete(MESSAGES)
    body = fake_llm.requests[0]["body"]
    assert {k: body[k] for k in sent} == sent
    assert absent not in body
    assert ("temperature" in body) == (not is_reasoning_model(model))


def test_the_token_parameter_and_temperature_can_be_chosen(fake_llm):
    ChatClient(
        config(fake_llm, max_tokens=50, token_parameter="max_completion_tokens", temperature=None)
    ).complete(MESSAGES)
    ChatClient(config(fake_llm, model="o3", temperature=0.7, token_parameter="max_tokens",
                      max_tokens=60)).complete(MESSAGES)  # fmt: skip
    first, second = (r["body"] for r in fake_llm.requests)
    assert first["max_completion_tokens"] == 50 and "temperature" not in first
    assert second["max_tokens"] == 60 and second["temperature"] == 0.7


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("json_object", {"type": "json_object"}),
        ("json_schema", {"type": "json_schema", "json_schema": CLAIM_SCHEMA}),
    ],
)
def test_json_mode_and_structured_outputs_for_json_prompts_only(fake_llm, mode, expected):
    client = ChatClient(config(fake_llm, response_format=mode))
    client.complete(MESSAGES, CLAIM_SCHEMA)
    client.complete(MESSAGES)  # a text prompt (coverage, pairwise): nothing asked
    with_schema, without = (r["body"] for r in fake_llm.requests)
    assert with_schema["response_format"] == expected
    assert "response_format" not in without


def test_an_endpoint_without_json_mode_is_an_error_not_a_silent_fallback(fake_llm):
    fake_llm.rejects_response_format = True
    client = ChatClient(config(fake_llm, response_format="json_object"))
    with pytest.raises(PermanentError, match="400 Bad Request") as exc:
        client.complete(MESSAGES, CLAIM_SCHEMA)
    assert exc.value.attempts == 1  # not retried: the same request would fail again
    # the body says why, for the operator's log; the message (a run's errors) never holds it
    assert "response_format is not supported" in exc.value.detail
    assert "response_format is not supported" not in str(exc.value)


def test_a_refusal_is_not_retried_and_its_tokens_are_counted(fake_llm):
    fake_llm.faults.extend([503, "refusal"])
    client = ChatClient(config(fake_llm))
    with pytest.raises(Refusal, match="refused") as exc:
        client.complete(MESSAGES)
    assert exc.value.attempts == 2 and len(fake_llm.requests) == 2
    assert (exc.value.prompt_tokens, exc.value.completion_tokens) == (11, 7)


def test_retries_are_counted_and_give_up(fake_llm):
    fake_llm.faults.extend([429, 500, "badjson"])
    answer = ChatClient(config(fake_llm)).complete(MESSAGES)
    assert answer.attempts == 4
    fake_llm.faults.extend([500, 502, 503])
    with pytest.raises(RetriesExhausted) as exc:
        ChatClient(config(fake_llm, max_retries=2)).complete(MESSAGES)
    assert exc.value.attempts == 3


def test_cache_key_includes_the_endpoint_and_every_request_parameter(fake_llm):
    base = config(fake_llm, "http://127.0.0.1:11434/v1", model="llama3.1:8b")
    variants = [
        config(fake_llm, "http://127.0.0.1:8000/v1", model="llama3.1:8b"),  # vLLM, same model
        config(fake_llm, "http://127.0.0.1:11434/v1?api-version=2024-10-21", model="llama3.1:8b"),
        config(fake_llm, "http://127.0.0.1:11434/v1", model="llama3.1:8b", temperature=0.5),
        config(fake_llm, "http://127.0.0.1:11434/v1", model="llama3.1:8b", max_tokens=10),
        config(fake_llm, "http://127.0.0.1:11434/v1", model="llama3.1:8b", max_tokens=10,
               token_parameter="max_completion_tokens"),
        config(fake_llm, "http://127.0.0.1:11434/v1", model="llama3.1:8b",
               request={"top_p": 0.9}),
        config(fake_llm, "http://127.0.0.1:11434/v1", model="llama3.1:8b",
               extra_query={"route": "b"}),
        config(fake_llm, "http://127.0.0.1:11434/v1", model="llama3.1:8b",
               extra_headers={"X-Route": "b"}),
        config(fake_llm, "http://127.0.0.1:11434/v1", model="llama3.1:8b",
               response_format="json_object"),
    ]  # fmt: skip
    keys = {cache_key(c, MESSAGES, CLAIM_SCHEMA) for c in [base, *variants]}
    assert len(keys) == 1 + len(variants)
    # credentials do not change an answer: a new key keeps the cache
    same = config(fake_llm, "http://127.0.0.1:11434/v1/", model="llama3.1:8b", api_key="sk-2",
                  extra_headers={"Authorization": "Bearer other"})  # fmt: skip
    assert cache_key(same, MESSAGES, CLAIM_SCHEMA) == cache_key(base, MESSAGES, CLAIM_SCHEMA)


@pytest.mark.django_db
def test_parameters_that_cannot_be_honoured_are_refused_when_the_run_is_created(fake_llm):
    study = build_study(questions=1, systems=("alpha",), items=2)
    for bad, field in [
        ({"token_parameter": "max_len"}, "token_parameter"),
        ({"response_format": "xml"}, "response_format"),
        ({"extra_headers": ["X-A"]}, "extra_headers"),
        ({"temperature": "hot"}, "temperature"),
        ({"base_url": "ftp://host/v1"}, "base_url"),
    ]:
        judge = make_judge(fake_llm, name=f"bad-{field}", **bad)
        with pytest.raises(runs.RunError, match=field):
            runs.create_run(judge, study, ["coverage"])


@pytest.mark.django_db
def test_same_model_on_two_endpoints_does_not_share_answers(fake_llm):
    """The issue's case: one model name on Ollama and on vLLM. The second endpoint's judge
    must ask its own server, not read the first one's cached answers."""
    study = build_study(questions=1, systems=("alpha",))
    ollama = make_judge(fake_llm, name="on-ollama", base_url=fake_llm.root + "/ollama/v1")
    vllm = make_judge(fake_llm, name="on-vllm", base_url=fake_llm.root + "/v1")
    for judge in (ollama, vllm):
        run = runs.start_run(judge, study, ["coverage"])
        run.refresh_from_db()
        assert run.status == JudgeRun.Status.DONE and run.cache_hits == 0, run.errors
    paths = [r["path"] for r in fake_llm.requests]
    assert paths.count("/ollama/v1/chat/completions") == paths.count("/v1/chat/completions") == 2
    assert LLMResponse.objects.count() == 4


@pytest.mark.django_db
def test_a_run_against_azure_with_a_refusal_records_it_without_retrying(fake_llm):
    study = build_study(questions=1, systems=("alpha",))  # two coverage units
    judge = make_judge(
        fake_llm, base_url=fake_llm.root + "/openai/deployments/judge?api-version=2024-10-21",
        concurrency=1, max_retries=6,
    )  # fmt: skip
    fake_llm.faults.append("refusal")
    run = runs.start_run(judge, study, ["coverage"])
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FAILED and (run.done_units, run.failed_units) == (1, 1)
    assert "refused" in run.errors[0]["error"]
    refused = JudgeUnit.objects.get(run=run, status="failed")
    assert refused.attempts == 1  # not retried
    assert (refused.prompt_tokens, refused.completion_tokens) == (11, 7)
    assert run.requests == 2 and run.prompt_tokens >= 11
    assert {r["path"] for r in fake_llm.requests} == {"/openai/deployments/judge/chat/completions"}
