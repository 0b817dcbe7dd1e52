"""Chat completions through the official ``openai`` SDK, for any OpenAI-compatible endpoint.

The SDK speaks the protocol (OpenAI, Azure OpenAI, vLLM, Ollama, …), keeps one pooled HTTP
connection per client and parses the answers; this module adds what a judge run needs on
top of it:

* **Retries we can count.** The SDK's own retries are off (``max_retries=0``): a run
  records every HTTP call (``JudgeUnit.attempts``, ``JudgeRun.requests``), so this client
  retries what is worth retrying — 429 (honouring ``Retry-After``), 5xx, timeouts, dropped
  connections and bodies that are not the protocol's JSON — with exponential backoff, and
  raises at once on any other 4xx (a wrong key or model will not get better by asking
  again) and on a **refusal** (``content: null`` with ``refusal``: the model will refuse
  again). Tokens are counted on every attempt that reports usage, refusals included.
* **Model-dependent parameters.** Reasoning models (o-series, GPT-5) reject ``temperature``
  and ``max_tokens``: by default, their requests leave ``temperature`` out and cap the
  answer with ``max_completion_tokens`` (``token_parameter`` overrides the choice;
  ``temperature: null`` leaves it out for any model).
* **Azure.** A base URL carrying ``?api-version=`` (or the ``api_version`` parameter) is an
  Azure OpenAI endpoint: the SDK's ``AzureOpenAI`` client sends the key as ``api-key``,
  the version as a query parameter, and routes to ``/openai/deployments/<model>/…`` unless
  the base URL already names a deployment. Other query parameters of a base URL, and
  ``extra_query``/``extra_headers``, go with every request.
* **JSON mode / structured outputs** (``response_format``: ``"json_object"`` or
  ``"json_schema"``) for the prompts whose answer is a JSON object; the other prompts are
  sent as text. An endpoint that does not support it answers 400, which fails the run with
  the endpoint's message instead of being silently ignored.

* **The SDK's request, without its per-call work.** For an OpenAI-compatible endpoint the
  URL, headers and query the SDK builds are read once per client and each call is posted
  through the SDK's own HTTP client (:meth:`ChatClient._post_direct`): the SDK's options
  copying, URL and header rebuilding and response typing were half of a call's CPU
  (issue 29). Azure endpoints go through the SDK (its deployment routing).

* **The SDK is imported when a client is made**, not with this module: the judge forms,
  serializers and run pages of every web worker import this module (for
  :class:`LLMConfig` and the endpoint rule), and the SDK with its typed models is ~40 MB
  of a process that never calls an endpoint (issue 29: a worker's memory).

Whether the *content* of an answer is usable is the caller's business (see
:mod:`judges.prompts`). Configuration comes from settings ``LLM_BASE_URL`` /
``LLM_API_KEY``, overridden per judge by ``Judge.parameters`` (see :class:`LLMConfig`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import re
import time
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx2

if TYPE_CHECKING:
    import openai

from annotation.outbound import AddressRefused, public_transport, ssl_context, why_not_public
from judges.secrets import masked_url

logger = logging.getLogger("concord.judges")

#: Judge.parameters keys that configure the client (anything else is sent to the API
#: as a request field only when listed under ``"request"``).
CONFIG_KEYS = (
    "base_url",
    "api_key",
    "api_version",
    "temperature",
    "max_tokens",
    "token_parameter",
    "response_format",
    "extra_headers",
    "extra_query",
    "timeout",
    "max_retries",
    "backoff",
    "max_backoff",
    "concurrency",
    "format_retries",
    "input_price_per_mtok",
    "output_price_per_mtok",
    "request",
)
TOKEN_PARAMETERS = ("auto", "max_tokens", "max_completion_tokens")
RESPONSE_FORMATS = ("text", "json_object", "json_schema")
#: Models that take ``max_completion_tokens`` and no ``temperature`` (OpenAI's reasoning
#: models: o1, o3, o4-mini, …, GPT-5), also behind a provider prefix ("openai/o3").
REASONING_MODEL = re.compile(r"(^|/)(o\d+|gpt-5)([-.:_]|$)", re.IGNORECASE)
#: Extra headers left out of the cache key: credentials do not change an answer.
_SECRET_HEADER = re.compile(r"auth|key|token|secret|cookie", re.IGNORECASE)
AUTO = "auto"


class LLMError(Exception):
    """A call that did not produce an answer; ``attempts`` HTTP calls were made and the
    tokens of those that reported usage are counted."""

    def __init__(
        self,
        message: str,
        attempts: int = 0,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        detail: str = "",
    ):
        super().__init__(message)
        self.attempts = attempts
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens
        #: The start of the reply's body, for the operator's log only: never in the message,
        #: which a run's errors store and researchers read.
        self.detail = detail


class PermanentError(LLMError):
    """A 4xx other than 429: the request itself is wrong; not retried."""


class Refusal(PermanentError):
    """The model refused to answer (``content: null``, ``refusal``); not retried."""


class RetriesExhausted(LLMError):
    """Every retry of a transient failure (429, 5xx, timeout, bad body) failed."""


class _Transient(Exception):
    def __init__(self, message: str, retry_after: float | None = None, usage=None):
        super().__init__(message)
        self.retry_after = retry_after
        self.usage = usage


def is_reasoning_model(model: str) -> bool:
    return bool(REASONING_MODEL.search(model or ""))


def _of_type(value, expected: type) -> bool:
    """JSON's types against a parameter's: an int is a float, a bool is neither."""
    if isinstance(value, bool):
        return expected is bool
    if expected is float:
        return isinstance(value, int | float)
    return isinstance(value, expected)


@dataclass(frozen=True)
class LLMConfig:
    model: str
    base_url: str = ""
    api_key: str = ""
    #: Azure OpenAI's ``api-version``; taken from the base URL's query when present there.
    api_version: str = ""
    #: None: not sent. "auto": 0.0, except for reasoning models (not sent).
    temperature: float | None | str = AUTO
    max_tokens: int | None = None
    #: Which request field carries ``max_tokens``; "auto" chooses by the model's name.
    token_parameter: str = AUTO
    #: "text" (nothing sent), "json_object" (JSON mode) or "json_schema" (structured
    #: outputs), applied to the prompts whose answer is a JSON object.
    response_format: str = "text"
    extra_headers: dict = field(default_factory=dict)
    extra_query: dict = field(default_factory=dict)
    timeout: float = 120.0
    max_retries: int = 6
    backoff: float = 1.0  # first wait in seconds; doubles per retry, with jitter
    max_backoff: float = 60.0
    concurrency: int = 4  # calls in flight per run
    format_retries: int = 3  # re-asks when an answer cannot be parsed
    input_price_per_mtok: float = 0.0
    output_price_per_mtok: float = 0.0
    request: dict = field(default_factory=dict)  # extra request fields (e.g. top_p)

    @classmethod
    def for_judge(cls, judge) -> LLMConfig:
        """The judge's model and parameters over the settings' endpoint and key."""
        from django.conf import settings

        params = dict(judge.parameters or {})
        cls._refuse_unknown(judge.name, params)
        model = params.pop("model", None) or judge.model
        if not model:
            raise ValueError(f"judge {judge.name!r} has no model")
        params.setdefault("base_url", getattr(settings, "LLM_BASE_URL", ""))
        params.setdefault("api_key", getattr(settings, "LLM_API_KEY", ""))
        if not params["base_url"]:
            raise ValueError(
                f"judge {judge.name!r}: no endpoint (set LLM_BASE_URL or parameters.base_url)"
            )
        known = {f.name for f in fields(cls)}
        config = cls(model=model, **{k: v for k, v in params.items() if k in known})
        config.validate(judge.name)
        return config

    @staticmethod
    def _refuse_unknown(name: str, params: dict) -> None:
        unknown = sorted(set(params) - set(CONFIG_KEYS) - {"model"})
        if unknown:
            raise ValueError(
                f"judge {name!r}: unknown parameter(s) {', '.join(unknown)}; "
                f"known: {', '.join(CONFIG_KEYS)}"
            )

    @classmethod
    def check_parameters(cls, name: str, model: str, parameters: dict) -> None:
        """Refuse, when a judge is saved, what :meth:`for_judge` would refuse when a run
        starts: an unknown name (``"tempreature"``), a value of the wrong type or outside
        its choices (issue 28: a typo was found only at the first run). The endpoint itself
        is checked when a run starts: the server's ``LLM_BASE_URL`` may be set later."""
        params = dict(parameters or {})
        cls._refuse_unknown(name, params)
        known = {f.name for f in fields(cls)}
        given = {k: v for k, v in params.items() if k in known and k != "model"}
        for f in fields(cls):
            if f.name not in given or f.name in ("temperature", "max_tokens"):
                continue  # those two take several types: validate() and below check them
            expected = type(f.default_factory() if f.default_factory is not MISSING else f.default)
            if not _of_type(given[f.name], expected):
                raise ValueError(
                    f"judge {name!r}: {f.name} must be {expected.__name__}, not {given[f.name]!r}"
                )
        max_tokens = given.get("max_tokens")
        if max_tokens is not None and (
            not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1
        ):
            raise ValueError(f"judge {name!r}: max_tokens must be a positive integer or null")
        config = cls(model=params.get("model") or model or "-", **given)
        config.validate(name, endpoint="base_url" in given)

    def validate(self, name: str = "", *, endpoint: bool = True) -> None:
        """Refuse what cannot be honoured, naming the parameter."""
        who = f"judge {name!r}: " if name else ""
        if self.concurrency < 1:
            raise ValueError(f"{who}concurrency must be at least 1")
        if self.token_parameter not in TOKEN_PARAMETERS:
            raise ValueError(f"{who}token_parameter must be one of {', '.join(TOKEN_PARAMETERS)}")
        if self.response_format not in RESPONSE_FORMATS:
            raise ValueError(f"{who}response_format must be one of {', '.join(RESPONSE_FORMATS)}")
        if not (
            self.temperature is None
            or self.temperature == AUTO
            or (
                isinstance(self.temperature, int | float) and not isinstance(self.temperature, bool)
            )
        ):
            raise ValueError(f"{who}temperature must be a number, null or 'auto'")
        for name_, value in (
            ("extra_headers", self.extra_headers),
            ("extra_query", self.extra_query),
        ):
            if not isinstance(value, dict) or not all(
                isinstance(k, str) and isinstance(v, str | int | float) for k, v in value.items()
            ):
                raise ValueError(f"{who}{name_} must be an object of names to strings")
        if not isinstance(self.request, dict):
            raise ValueError(f"{who}request must be an object of request fields")
        scheme = urlsplit(self.base_url).scheme
        if endpoint and scheme not in ("http", "https"):
            raise ValueError(  # masked: a run's errors are read by researchers
                f"{who}base_url must be an http(s) URL, not {masked_url(self.base_url)!r}"
            )
        refused = private_address(self.base_url)
        if refused:
            raise ValueError(
                f"{who}base_url {urlsplit(self.base_url).hostname} is {refused}; a judge "
                "calls public endpoints unless CONCORD_JUDGE_ALLOW_PRIVATE=1 (a local vLLM, "
                "an endpoint inside your network)"
            )

    # --- what is sent

    @property
    def endpoint(self) -> tuple[str, dict]:
        """(base URL without its query, the query's parameters)."""
        parts = urlsplit(self.base_url)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", "")), query

    @property
    def azure_version(self) -> str:
        return self.api_version or self.endpoint[1].get("api-version", "")

    @property
    def sent_temperature(self) -> float | None:
        if self.temperature == AUTO:
            return None if is_reasoning_model(self.model) else 0.0
        return self.temperature

    @property
    def sent_token_parameter(self) -> str:
        if self.token_parameter == AUTO:
            return "max_completion_tokens" if is_reasoning_model(self.model) else "max_tokens"
        return self.token_parameter

    def body(self, messages: list[dict], schema: dict | None = None) -> dict:
        """The request's fields (``model`` and ``messages`` included)."""
        body: dict = {"model": self.model, "messages": messages}
        if self.sent_temperature is not None:
            body["temperature"] = self.sent_temperature
        if self.max_tokens:
            body[self.sent_token_parameter] = self.max_tokens
        if schema is not None and self.response_format == "json_object":
            body["response_format"] = {"type": "json_object"}
        elif schema is not None and self.response_format == "json_schema":
            body["response_format"] = {"type": "json_schema", "json_schema": schema}
        body.update(self.request)
        return body

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.input_price_per_mtok
            + completion_tokens * self.output_price_per_mtok
        ) / 1e6


@dataclass(frozen=True)
class Completion:
    content: str
    prompt_tokens: int
    completion_tokens: int
    attempts: int  # HTTP calls made for this answer (1 + retries)


def cache_key(config: LLMConfig, messages: list[dict], schema: dict | None = None) -> str:
    """sha256 of what determines an answer: the endpoint (base URL, its query and the
    Azure version), every request field (model, messages, sampling, token cap, response
    format) and the extra query and headers — credentials excepted. The same model name on
    two servers (Ollama and vLLM) therefore never shares answers."""
    base, query = config.endpoint
    blob = json.dumps(
        {
            "endpoint": base,
            "query": {**query, **config.extra_query},
            "api_version": config.azure_version,
            "headers": {
                k.lower(): v
                for k, v in config.extra_headers.items()
                if not _SECRET_HEADER.search(k)
            },
            "body": config.body(messages, schema),
        },
        sort_keys=True,
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def judge_http_client(config: LLMConfig) -> httpx2.Client:
    """The HTTP client of a judge's calls: the SDK's ``DefaultHttpxClient`` (its limits,
    redirects followed), whose connections are checked when they are made unless
    ``CONCORD_JUDGE_ALLOW_PRIVATE`` allows private addresses.

    Why at connect time too: the endpoint's address is checked when the judge is saved and
    when a run starts (:meth:`LLMConfig.validate`), but the name is resolved again for each
    connection; a name answering a public address to the check and 127.0.0.1 to the
    connection (DNS rebinding) would reach the server's own network. The transport
    (:func:`annotation.outbound.public_transport`) connects only to the public address it
    checked, redirects included; a refusal is :class:`PermanentError`, not retried."""
    import openai  # here, not at the top: see the module's docstring
    from django.conf import settings

    if getattr(settings, "CONCORD_JUDGE_ALLOW_PRIVATE", False):
        return openai.DefaultHttpxClient(verify=ssl_context(), timeout=config.timeout)
    transport = public_transport(
        verify=ssl_context(),
        limits=openai.DEFAULT_CONNECTION_LIMITS,
        allow_setting="CONCORD_JUDGE_ALLOW_PRIVATE",
    )
    return openai.DefaultHttpxClient(transport=transport, timeout=config.timeout)


def make_sdk_client(config: LLMConfig, http_client=None) -> openai.OpenAI:
    """The SDK client of an endpoint: ``AzureOpenAI`` when it has an api-version;
    ``http_client`` (:func:`judge_http_client`) is made when not given."""
    import openai  # here, not at the top: see the module's docstring

    base, query = config.endpoint
    version = config.azure_version
    query.pop("api-version", None)
    if http_client is None:
        http_client = judge_http_client(config)
    common = {
        "api_key": config.api_key or "none",  # local servers need no key; the SDK wants one
        "timeout": config.timeout,
        "max_retries": 0,  # retried (and counted) by ChatClient
        "http_client": http_client,
        "default_headers": {k: str(v) for k, v in config.extra_headers.items()} or None,
        "default_query": {**query, **{k: str(v) for k, v in config.extra_query.items()}} or None,
    }
    if version:
        path = urlsplit(base).path
        if "/deployments/" in path:  # the deployment is named in the URL
            return openai.AzureOpenAI(base_url=base, api_version=version, **common)
        endpoint = base[: -len("/openai")] if path.endswith("/openai") else base
        return openai.AzureOpenAI(azure_endpoint=endpoint, api_version=version, **common)
    return openai.OpenAI(base_url=base, **common)


def warm() -> None:
    """Pay at a worker's start what the first client of a process costs (≈ 60 ms: the
    certificate store, the SDK's and httpx's lazily built parts) instead of in the first
    chunk it executes. Nothing is sent."""
    make_sdk_client(LLMConfig(model="warm-up", base_url="http://127.0.0.1/v1")).close()


class ChatClient:
    """``complete(messages)`` with counted retries; thread-safe (the SDK client is)."""

    def __init__(self, config: LLMConfig, *, sleep=time.sleep, rng: random.Random | None = None):
        self.config = config
        self._sleep = sleep
        self._rng = rng or random.Random()
        self.http = judge_http_client(config)
        self.sdk = make_sdk_client(config, self.http)
        self._route = None if config.azure_version else _route(self.sdk)

    def close(self) -> None:
        self.sdk.close()

    def complete(self, messages: list[dict], schema: dict | None = None) -> Completion:
        attempts = prompt_tokens = completion_tokens = 0
        last = ""
        body = self.config.body(messages, schema)
        for retry in range(self.config.max_retries + 1):
            attempts += 1
            try:
                content, usage = self._post(body)
            except _Transient as exc:
                p, c = _tokens(exc.usage)
                prompt_tokens, completion_tokens = prompt_tokens + p, completion_tokens + c
                last = str(exc)
                if retry == self.config.max_retries:
                    break
                self._sleep(self._wait(retry, exc.retry_after))
                continue
            except PermanentError as exc:
                exc.attempts = attempts
                exc.prompt_tokens += prompt_tokens
                exc.completion_tokens += completion_tokens
                raise
            p, c = _tokens(usage)
            return Completion(content, prompt_tokens + p, completion_tokens + c, attempts)
        raise RetriesExhausted(
            f"gave up after {attempts} attempts: {last}", attempts, prompt_tokens, completion_tokens
        )

    def _wait(self, retry: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.config.max_backoff)
        base = min(self.config.backoff * 2**retry, self.config.max_backoff)
        return base * (0.5 + self._rng.random() / 2)  # jitter: spread retries of many units

    def _post(self, body: dict) -> tuple[str, object]:
        """One request: straight through the SDK's HTTP client (:meth:`_post_direct`)
        for an OpenAI-compatible endpoint, through the SDK itself for Azure (its
        deployments' routing)."""
        if self._route is not None:
            return self._post_direct(body)
        return self._post_sdk(body)

    def _post_sdk(self, body: dict) -> tuple[str, object]:
        """One request through the SDK (its URL building for every provider, headers,
        Azure deployments, timeouts and error types), the body sent as built and the answer
        read as plain JSON: typing the request and the response with the SDK's models cost
        about a third of a judge run's CPU against a fast endpoint (issue 18)."""
        import openai  # already imported by the client's constructor

        try:
            data = self.sdk.post("/chat/completions", body=body, cast_to=dict)
        except openai.APITimeoutError as exc:
            raise _Transient(f"timed out after {self.config.timeout} s") from exc
        except openai.APIConnectionError as exc:
            raise _Transient(f"connection failed: {exc.__cause__ or exc}") from exc
        except AddressRefused as exc:  # the SDK passes on what is no transport error
            raise PermanentError(f"endpoint refused: {exc}") from None
        except openai.APIStatusError as exc:
            _refuse_status(exc.status_code, exc.response)
        except (openai.APIResponseValidationError, ValueError) as exc:
            raise _Transient(f"malformed response body ({exc})") from None
        return _answer(data)

    def _post_direct(self, body: dict) -> tuple[str, object]:
        """One request through the SDK's HTTP client (httpx), to the URL, with the headers
        and query the SDK itself sends (its public ``base_url``, ``default_headers``,
        ``auth_headers`` and ``default_query``, read once per client: :func:`_route`). The
        SDK's per-request work — copying and validating the request options, building the
        URL and headers again, typing the response — was about half of a call's CPU
        (0.4–0.85 of 0.9–1.6 ms), the largest part of a unit on the released ScholarQA-CS2
        study against an instant endpoint (issue 29). Same errors as through the SDK."""
        url, headers, params = self._route
        try:
            response = self.http.post(
                url, content=json.dumps(body).encode(), headers=headers, params=params or None
            )
        except httpx2.TimeoutException as exc:
            raise _Transient(f"timed out after {self.config.timeout} s") from exc
        except httpx2.TransportError as exc:
            raise _Transient(f"connection failed: {exc}") from exc
        except AddressRefused as exc:
            raise PermanentError(f"endpoint refused: {exc}") from None
        if response.status_code >= 400:
            _refuse_status(response.status_code, response)
        try:
            data = json.loads(response.content)
        except ValueError as exc:
            raise _Transient(f"malformed response body ({exc})") from None
        return _answer(data)


def _route(sdk: openai.OpenAI) -> tuple[str, dict, dict]:
    """(URL, headers, query) of the chat completions of an OpenAI-compatible SDK client,
    as the SDK builds them (the values it leaves out, ``Omit``, left out)."""
    headers = {**sdk.default_headers, **sdk.auth_headers}
    headers = {k: v for k, v in headers.items() if isinstance(v, str)}
    return str(sdk.base_url).rstrip("/") + "/chat/completions", headers, dict(sdk.default_query)


def _refuse_status(code: int, response) -> None:
    """Raise what an error status means: 429 and 5xx are retried, any other 4xx is not.
    Status and reason only, never the reply's body: a run's errors are read by
    researchers, and a body could carry whatever the endpoint holds."""
    if code == 429:
        raise _Transient("429 rate limited", _retry_after(response)) from None
    if code >= 500:
        raise _Transient(f"{code} server error", _retry_after(response)) from None
    reason = response.reason_phrase
    detail = _body_start(response)
    logger.warning("judge endpoint answered %s %s: %s", code, reason, detail)
    raise PermanentError(f"{code} {reason}"[:120], detail=detail) from None


def _answer(data) -> tuple[str, object]:
    """(content, usage) of a chat completion's JSON; a refusal or another shape raises."""
    if not isinstance(data, dict):
        raise _Transient("malformed response body (not a JSON object)")
    usage = data.get("usage")
    try:
        message = data["choices"][0]["message"]
        content, refusal = message.get("content"), message.get("refusal")
    except (AttributeError, IndexError, KeyError, TypeError) as exc:
        raise _Transient(f"malformed response body ({exc!r})", usage=usage) from None
    if content is None and refusal:
        p, c = _tokens(usage)
        raise Refusal(f"the model refused: {refusal}", 1, p, c)
    if not isinstance(content, str):
        raise _Transient("malformed response body (content is not a string)", usage=usage)
    return content, usage


def _body_start(response) -> str:
    try:
        return response.text[:300].strip() if response is not None else ""
    except Exception:  # noqa: BLE001 - a detail for the log only
        return ""


def private_address(url: str) -> str:
    """Why the host of ``url`` is not a public address ("a loopback address", …), or "".

    Why: a judge's ``base_url`` is set by an admin through the API, and the run's errors are
    read by researchers, so an endpoint on the server's own network (a metadata service, a
    database, an internal API) would be a way to reach it. Every address the name resolves
    to is checked (one private answer is enough to refuse); the setting
    ``CONCORD_JUDGE_ALLOW_PRIVATE`` allows them (a local vLLM is legitimate). A name that does
    not resolve is left to the call to fail."""
    from django.conf import settings

    if getattr(settings, "CONCORD_JUDGE_ALLOW_PRIVATE", False):
        return ""
    host = urlsplit(url).hostname or ""
    if not host:
        return "no host"
    return why_not_public(host) or ""


def _tokens(usage) -> tuple[int, int]:
    if usage is None:
        return 0, 0
    get = usage.get if isinstance(usage, dict) else lambda k: getattr(usage, k, None)
    return int(get("prompt_tokens") or 0), int(get("completion_tokens") or 0)


def _retry_after(response) -> float | None:
    value = response.headers.get("Retry-After") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _error_detail(response) -> str:
    """Nothing of the reply's body: the status and its reason say what failed, and a run's
    errors are read by researchers — a body could carry whatever the endpoint holds."""
    return ""
