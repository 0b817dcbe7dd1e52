"""A small client for OpenAI-compatible chat completions (``POST {base}/chat/completions``).

Standard library only (``urllib``): no dependency to add. The client retries what is
worth retrying — 429 (honouring ``Retry-After``), 5xx, timeouts, dropped connections and
bodies that are not the protocol's JSON — with exponential backoff, and raises at once on
any other 4xx (a wrong key or model will not get better by asking again). Whether the
*content* of an answer is usable is the caller's business (see :mod:`judges.prompts`).

Configuration comes from settings ``LLM_BASE_URL`` / ``LLM_API_KEY``, overridden per judge
by ``Judge.parameters`` (see :class:`LLMConfig`).
"""

from __future__ import annotations

import hashlib
import json
import random
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field, fields

#: Judge.parameters keys that configure the client (anything else is sent to the API
#: as a request field only when listed under ``"request"``).
CONFIG_KEYS = (
    "base_url",
    "api_key",
    "temperature",
    "max_tokens",
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


class LLMError(Exception):
    """A call that did not produce an answer; ``attempts`` HTTP calls were made."""

    def __init__(self, message: str, attempts: int = 0):
        super().__init__(message)
        self.attempts = attempts


class PermanentError(LLMError):
    """A 4xx other than 429: the request itself is wrong; not retried."""


class RetriesExhausted(LLMError):
    """Every retry of a transient failure (429, 5xx, timeout, bad body) failed."""


class _Transient(Exception):
    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class LLMConfig:
    model: str
    base_url: str = ""
    api_key: str = ""
    temperature: float = 0.0
    max_tokens: int | None = None
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
        unknown = sorted(set(params) - set(CONFIG_KEYS) - {"model"})
        if unknown:
            raise ValueError(
                f"judge {judge.name!r}: unknown parameter(s) {', '.join(unknown)}; "
                f"known: {', '.join(CONFIG_KEYS)}"
            )
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
        if config.concurrency < 1:
            raise ValueError(f"judge {judge.name!r}: concurrency must be at least 1")
        return config

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


def cache_key(config: LLMConfig, messages: list[dict]) -> str:
    """sha256 of what determines an answer: model, messages, sampling parameters."""
    blob = json.dumps(
        {
            "model": config.model,
            "messages": messages,
            "temperature": config.temperature,
            "max_tokens": config.max_tokens,
            "request": config.request,
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


class ChatClient:
    """``complete(messages)`` with retries; thread-safe (no shared mutable state)."""

    def __init__(self, config: LLMConfig, *, sleep=time.sleep, rng: random.Random | None = None):
        self.config = config
        self._sleep = sleep
        self._rng = rng or random.Random()

    @property
    def url(self) -> str:
        return self.config.base_url.rstrip("/") + "/chat/completions"

    def complete(self, messages: list[dict]) -> Completion:
        attempts = 0
        last = ""
        for retry in range(self.config.max_retries + 1):
            attempts += 1
            try:
                content, usage = self._post(messages)
            except _Transient as exc:
                last = str(exc)
                if retry == self.config.max_retries:
                    break
                self._sleep(self._wait(retry, exc.retry_after))
                continue
            except PermanentError as exc:
                exc.attempts = attempts
                raise
            return Completion(
                content,
                int(usage.get("prompt_tokens") or 0),
                int(usage.get("completion_tokens") or 0),
                attempts,
            )
        raise RetriesExhausted(f"gave up after {attempts} attempts: {last}", attempts)

    def _wait(self, retry: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.config.max_backoff)
        base = min(self.config.backoff * 2**retry, self.config.max_backoff)
        return base * (0.5 + self._rng.random() / 2)  # jitter: spread retries of many units

    def _post(self, messages: list[dict]) -> tuple[str, dict]:
        body = {
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature,
            **self.config.request,
        }
        if self.config.max_tokens:
            body["max_tokens"] = self.config.max_tokens
        headers = {"Content-Type": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        request = urllib.request.Request(
            self.url, data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.config.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            detail = _error_detail(exc)
            if exc.code == 429:
                raise _Transient(f"429 rate limited{detail}", _retry_after(exc)) from None
            if exc.code >= 500:
                raise _Transient(f"{exc.code} server error{detail}", _retry_after(exc)) from None
            raise PermanentError(f"{exc.code} {exc.reason}{detail}") from None
        except TimeoutError as exc:
            raise _Transient(f"timed out after {self.config.timeout} s") from exc
        except (urllib.error.URLError, ConnectionError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError | socket.timeout):
                raise _Transient(f"timed out after {self.config.timeout} s") from exc
            raise _Transient(f"connection failed: {reason}") from exc
        try:
            data = json.loads(raw)
            content = data["choices"][0]["message"]["content"]
            if not isinstance(content, str):
                raise TypeError("content is not a string")
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise _Transient(f"malformed response body ({exc})") from None
        return content, data.get("usage") or {}


def _retry_after(exc: urllib.error.HTTPError) -> float | None:
    value = exc.headers.get("Retry-After") if exc.headers else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _error_detail(exc: urllib.error.HTTPError) -> str:
    try:
        text = exc.read(300).decode("utf-8", "replace").strip()
    except Exception:  # noqa: BLE001 - a detail only
        return ""
    return f": {text}" if text else ""
