"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests that drive the real openai client.

openai 3.x talks HTTP through httpx2, which httpx mocks do not intercept; a real local server does.
Only `POST /v1/chat/completions` is served. Each request takes the next reply of the script (the last
reply repeats once the script is used up); every request is recorded with its headers and JSON body.

In a test:

    with StubServer([Reply(content="```cuda\\n...\\n```"), Reply.error(500)]) as server:
        client = OpenAI(base_url=server.base_url, api_key="test-key")

From a shell or a CLI subprocess test (prints the base URL on its first line, serves until killed):

    python tests/openai_stub_server.py script.json

where script.json is a list of objects with the fields of `Reply`.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    """One scripted answer: a chat completion, or an HTTP error when `status` is not 200."""

    content: str | None = ""
    finish_reason: str = "stop"
    status: int = 200
    refusal: str | None = None
    prompt_tokens: int | None = 100
    completion_tokens: int | None = 50
    headers: dict[str, str] = field(default_factory=dict)
    error_message: str = "scripted error"
    delay: float = 0.0  # seconds to wait before answering

    @classmethod
    def error(cls, status: int, message: str = "scripted error", headers: dict[str, str] | None = None) -> Reply:
        return cls(content=None, status=status, error_message=message, headers=headers or {})


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages", [])


ReplySource = Sequence[Reply] | Callable[[Request], Reply]


class StubServer:
    def __init__(self, script: ReplySource = (), model: str = "stub-model") -> None:
        self.script = script
        self.model = model
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def next_reply(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            if callable(self.script):
                return self.script(request)
            if not self.script:
                return Reply.error(500, "the stub server has no scripted reply")
            index = min(len(self.requests), len(self.script)) - 1
            return self.script[index]

    def start(self) -> StubServer:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args) -> None:  # noqa: A002 - keep test output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_invalid_json": raw.decode("utf-8", "replace")}
                request = Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                reply = stub.next_reply(request)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    self._send(reply.status, {"error": {"message": reply.error_message, "type": "scripted",
                                                        "code": str(reply.status)}}, reply.headers)
                    return
                message: dict = {"role": "assistant", "content": reply.content}
                if reply.refusal is not None:
                    message["refusal"] = reply.refusal
                payload: dict = {
                    "id": f"chatcmpl-stub-{len(stub.requests)}", "object": "chat.completion",
                    "created": int(time.time()), "model": body.get("model", stub.model),
                    "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
                }
                if reply.prompt_tokens is not None and reply.completion_tokens is not None:
                    payload["usage"] = {"prompt_tokens": reply.prompt_tokens,
                                        "completion_tokens": reply.completion_tokens,
                                        "total_tokens": reply.prompt_tokens + reply.completion_tokens}
                self._send(200, payload, reply.headers)

            def _send(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="openai-stub", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def load_script(path: str) -> list[Reply]:
    with open(path, encoding="utf-8") as handle:
        return [Reply(**entry) for entry in json.load(handle)]


def dump_script(replies: Sequence[Reply], path: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump([asdict(r) for r in replies], handle)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        sys.stderr.write("usage: python tests/openai_stub_server.py SCRIPT.json\n")
        return 2
    server = StubServer(load_script(argv[0])).start()
    print(server.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
