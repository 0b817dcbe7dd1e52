"""A local OpenAI-compatible chat-completions server for the judge tests.

``FakeLLM`` listens on 127.0.0.1 (a free port) in a background thread of the test process;
the judge code talks to it over real HTTP, from the test process (eager runs) or from a
Celery worker process. It answers ``POST /v1/chat/completions`` like the real protocol
(``choices[0].message.content`` and ``usage``) and can be scripted:

* ``faults``: a queue consumed one per request before the normal answer, each one of
  ``429`` (with ``Retry-After: 0``), any 5xx status, ``"timeout"`` (sleep past the
  client's timeout, answer nothing), ``"malformed"`` (a 200 whose content has the wrong
  shape), ``"badjson"`` (a 200 whose body is not JSON), or a callable returning content.
* ``block_after = N``: answer N requests, then hold every further request until
  :meth:`release` (held requests are then dropped unanswered, as when the client died).
* ``responder``: ``fn(prompt) -> content`` to replace the default answers.
* ``"refusal"`` (a fault): a 200 whose message has ``content: null`` and a ``refusal``,
  with usage, as OpenAI answers when the model declines.
* ``rejects_response_format``: answer 400 to any request carrying ``response_format``
  (an endpoint without JSON mode).

It speaks the paths of the providers the judges reach: ``/v1/chat/completions`` (OpenAI,
vLLM, Ollama's ``/v1``; any prefix before ``/chat/completions`` works, e.g. a proxy's) and
Azure OpenAI's ``/openai/deployments/<deployment>/chat/completions?api-version=…`` with the
key in an ``api-key`` header (an Azure path without ``api-version`` is refused with 400, as
Azure does). ``requests`` records each request's path, query, headers and body.

The default answers read the prompt: coverage prompts get one label per question line,
binary coverage prompts a yes / no per criterion line,
pairwise prompts "Response 1", relevance prompts flag nothing, claim prompts "supported".
``answered`` counts the answers delivered per prompt (sha256 of the user message), which is
how the tests check that each unit was judged exactly once.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
import time
from collections import Counter, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

LABELS = ("Not at all", "Barely", "Moderately", "Mostly", "Completely")


def prompt_hash(prompt: str) -> str:
    return hashlib.sha256(prompt.encode()).hexdigest()


def default_answer(prompt: str) -> str:
    if "Questions:\n" in prompt and prompt.rstrip().endswith("Output:"):
        block = prompt.split("Questions:\n", 1)[1].rsplit("\n\nOutput:", 1)[0]
        n = len([line for line in block.splitlines() if line.strip()])
        # a deterministic, varied label per question
        return (
            "\n".join(
                LABELS[int(hashlib.md5(q.encode()).hexdigest(), 16) % 5]
                for q in block.splitlines()
                if q.strip()
            )[:10_000]
            if n
            else ""
        )
    if '"covered": "yes"' in prompt and "\nCriteria:\n" in prompt:
        # binary coverage: a deterministic yes / no per numbered criterion line
        block = prompt.split("\nCriteria:\n", 1)[1].split("\n\nAI response:", 1)[0]
        lines = [line for line in block.splitlines() if line.strip()]
        return json.dumps({"criteria": [
            {"criterion": n, "justification": "as read",
             "covered": "yes" if int(hashlib.md5(line.encode()).hexdigest(), 16) % 2 else "no"}
            for n, line in enumerate(lines, start=1)]})  # fmt: skip
    if '"judgement"' in prompt:
        return (
            '**output: {"judgement": "Response 1" }**\nJustification: the first is more thorough.'
        )
    if '"irrelevant"' in prompt:
        return '{"irrelevant": []}'
    if '"verdict"' in prompt:
        keys = re.findall(r"^Citation (.+?): ", prompt, re.MULTILINE)
        return json.dumps(
            {"verdict": "supported", "supporting": keys, "rationale": "the snippet says so"}
        )
    return "I do not know this prompt."


class FakeLLM:
    def __init__(self, *, timeout_sleep: float = 3.0):
        self.faults: deque = deque()
        self.block_after: int | None = None
        self.responder = default_answer
        self.timeout_sleep = timeout_sleep
        self.answered: Counter = Counter()  # prompt hash -> answers delivered
        self.received: Counter = Counter()  # prompt hash -> requests received
        self.statuses: Counter = Counter()
        self.models: Counter = Counter()
        self.auth: set = set()
        self.requests: list[dict] = []  # {"path", "query", "headers", "body"} per request
        self.rejects_response_format = False
        self.held = 0
        self.delay = 0.0  # seconds to think before each normal answer
        self.inflight = 0
        self.max_inflight = 0
        self._release = threading.Event()
        self._lock = threading.Lock()
        self._n_answered = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body leave in two writes: without TCP_NODELAY, Nagle's algorithm
            # and the client's delayed ACK add ~40 ms to every keep-alive answer
            disable_nagle_algorithm = True

            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):  # noqa: N802 - http.server API
                server._handle(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    # --- lifecycle

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def base_url(self) -> str:
        return f"{self.root}/v1"

    def start(self) -> FakeLLM:
        self.thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def release(self) -> None:
        """Stop holding: held requests are dropped, new ones answered."""
        self.block_after = None
        self._release.set()

    @property
    def total_answered(self) -> int:
        return sum(self.answered.values())

    # --- protocol

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length)
        parts = urlsplit(h.path)
        path, query = parts.path.rstrip("/"), dict(parse_qsl(parts.query))
        if not path.endswith("/chat/completions"):
            return self._send(h, 404, {"error": {"message": "not found"}})
        azure = re.fullmatch(r"/openai/deployments/([^/]+)/chat/completions", path)
        if path.startswith("/openai/") and (not azure or "api-version" not in query):
            return self._send(h, 400, {"error": {"message": "missing api-version / deployment"}})
        try:
            body = json.loads(raw)
            prompt = body["messages"][-1]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return self._send(h, 400, {"error": {"message": "bad request"}})
        if self.rejects_response_format and "response_format" in body:
            return self._send(h, 400, {"error": {"message": "response_format is not supported"}})
        key = prompt_hash(prompt)
        with self._lock:
            self.requests.append(
                {
                    "path": path,
                    "query": query,
                    "headers": {k.lower(): v for k, v in h.headers.items()},
                    "body": body,
                }
            )
            self.received[key] += 1
            self.models[azure.group(1) if azure else body.get("model")] += 1
            if azure:
                self.auth.add(f"api-key {h.headers.get('api-key')}")
            else:
                self.auth.add(h.headers.get("Authorization"))
            fault = self.faults.popleft() if self.faults else None
            hold = (
                fault is None
                and self.block_after is not None
                and self._n_answered >= self.block_after
            )
            if hold:
                self.held += 1
            elif fault is None:
                self._n_answered += 1  # reserve the slot before answering
        if hold:
            self._release.wait()
            self.close(h)  # dropped unanswered
            return
        with self._lock:
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
        try:
            self._answer(h, body, prompt, key, fault)
        finally:
            with self._lock:
                self.inflight -= 1

    def _answer(self, h, body: dict, prompt: str, key: str, fault) -> None:
        if isinstance(fault, int):
            self.statuses[fault] += 1
            return self._send(
                h, fault, {"error": {"message": "slow down" if fault == 429 else f"error {fault}"}},
                headers={"Retry-After": "0"} if fault == 429 else None,
            )  # fmt: skip
        if fault == "timeout":
            self.statuses["timeout"] += 1
            time.sleep(self.timeout_sleep)
            self.close(h)
            return
        if fault == "badjson":
            self.statuses["badjson"] += 1
            return self._send_raw(h, 200, b"{this is not json")
        if fault == "refusal":
            self.statuses["refusal"] += 1
            return self._send(h, 200, {
                "id": "chatcmpl-fake", "object": "chat.completion", "model": body.get("model"),
                "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": None, "refusal": "I can't help with that."}}],
                "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
            })  # fmt: skip
        if fault == "malformed":
            self.statuses["malformed"] += 1
            content = "Completely\nI am not sure about the rest."
        elif callable(fault):
            content = fault(prompt)
        else:
            if self.delay:
                time.sleep(self.delay)
            content = self.responder(prompt)
        payload = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content},
                 "finish_reason": "stop"}
            ],
            "usage": {
                "prompt_tokens": max(1, len(prompt) // 4),
                "completion_tokens": max(1, len(content) // 4),
                "total_tokens": max(1, len(prompt) // 4) + max(1, len(content) // 4),
            },
        }  # fmt: skip
        if self._send(h, 200, payload):
            with self._lock:
                self.answered[key] += 1

    def close(self, h) -> None:
        h.close_connection = True
        with contextlib.suppress(OSError):
            h.connection.shutdown(2)

    def _send(self, h, status: int, payload: dict, headers: dict | None = None) -> bool:
        return self._send_raw(h, status, json.dumps(payload).encode(), headers)

    def _send_raw(self, h, status: int, data: bytes, headers: dict | None = None) -> bool:
        try:
            h.send_response(status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(data)
            h.wfile.flush()
            return True
        except OSError:
            return False
