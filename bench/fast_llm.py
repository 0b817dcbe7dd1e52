"""A lean OpenAI-compatible chat-completions server for the throughput benchmark (issue 18).

The tests' fake server (``tests/judges/fake_llm.py``) is a ``ThreadingHTTPServer`` in the
test process, with fault scripting and a log of every request: right for tests, but its
pure-Python HTTP parsing (``http.server`` reads headers through ``email.parser``), a thread
per connection and the interpreter lock of the process it shares made it one of the
parties the benchmark measured (≈ 1–2 ms of CPU per answer). An "instant" endpoint should
cost next to nothing, so the benchmark answers from here instead:

* its own processes (``--processes``, default 2), each an asyncio loop accepting on one
  shared listening socket: no interpreter lock shared with the benchmark or between the
  processes;
* a minimal HTTP/1.1 reader (request line, ``Content-Length`` body, keep-alive), each
  answer sent in one write;
* the same protocol and answers as the tests' server: ``POST …/chat/completions``, a JSON
  body whose last message is the prompt, an answer ``{"choices": [{"message": {"role":
  "assistant", "content": …}}], "usage": …}`` whose content is
  :func:`tests.judges.fake_llm.default_answer` of the prompt (memoised: the benchmark's
  runs ask the same prompts under different model names), ``model`` echoed; 404 on any
  other path, 400 on a body that is not the protocol's JSON.

    python bench/fast_llm.py [--processes 2]   # prints the port, serves until killed
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import signal
import socket
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.judges.fake_llm import default_answer  # noqa: E402

_answer = functools.lru_cache(maxsize=65536)(default_answer)


def _response(status: int, payload: bytes, keep_alive: bool) -> bytes:
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\n"
        f"Connection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
    )
    return head.encode() + payload


def _error(message: str) -> bytes:
    return json.dumps({"error": {"message": message}}).encode()


def answer(path: str, raw: bytes) -> tuple[int, bytes]:
    """(status, JSON body) of one request."""
    if not path.split("?", 1)[0].rstrip("/").endswith("/chat/completions"):
        return 404, _error("not found")
    try:
        body = json.loads(raw)
        prompt = body["messages"][-1]["content"]
        content = _answer(prompt)
    except (ValueError, KeyError, IndexError, TypeError):
        return 400, _error("bad request")
    p, c = max(1, len(prompt) // 4), max(1, len(content) // 4)
    return 200, json.dumps(
        {
            "id": "chatcmpl-fast",
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
        }
    ).encode()


class _HTTP(asyncio.Protocol):
    def connection_made(self, transport) -> None:
        self.transport = transport
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].decode("latin-1").split("\r\n")
            length, keep_alive = 0, True
            for line in head[1:]:
                name, _, value = line.partition(":")
                name = name.strip().lower()
                if name == "content-length":
                    length = int(value)
                elif name == "connection":
                    keep_alive = value.strip().lower() != "close"
            if len(self.buffer) < end + 4 + length:
                return
            raw = self.buffer[end + 4 : end + 4 + length]
            self.buffer = self.buffer[end + 4 + length :]
            method, path, _ = (head[0].split(" ") + ["", "", ""])[:3]
            status, payload = answer(path, raw) if method == "POST" else (404, _error("not found"))
            self.transport.write(_response(status, payload, keep_alive))
            if not keep_alive:
                self.transport.close()
                return


def _serve(sock: socket.socket) -> None:
    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(loop.create_server(_HTTP, sock=sock))
    loop.add_signal_handler(signal.SIGTERM, loop.stop)
    try:
        loop.run_forever()
    finally:
        server.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(512)
    sock.setblocking(False)
    children = []
    for _ in range(args.processes - 1):
        pid = os.fork()
        if pid == 0:
            _serve(sock)
            os._exit(0)
        children.append(pid)
    print(sock.getsockname()[1], " ".join(str(p) for p in [os.getpid(), *children]), flush=True)
    try:
        _serve(sock)
    finally:
        for pid in children:
            os.kill(pid, signal.SIGTERM)
    return 0


if __name__ == "__main__":
    sys.exit(main())
