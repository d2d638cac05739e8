"""The model client against servers that misbehave (issue 20): a trickle that would outlast the timeout,
bodies that are no chat completion, oversized answers, a base URL that cannot work, a key echoed back."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from cudalint.repairing.client import MAX_ANSWER_CHARS, ChatClient, ClientSettings, ModelAPIError, ServerUnreachable

KEY = "sk-test-0123456789abcdef"
HI = [{"role": "user", "content": "hi"}]


class RawServer:
    """Answers every request on 127.0.0.1 with `respond(connection)`; bounded: it stops with the test."""

    def __init__(self, respond) -> None:
        self.respond = respond
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(8)
        self.socket.settimeout(0.2)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.socket.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                connection, _ = self.socket.accept()
            except OSError:
                continue
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection) -> None:
        with connection:
            connection.settimeout(5)
            try:
                _read_request(connection)  # all of it: closing on unread data would reset the connection
                self.respond(connection, self.stopped)
            except OSError:
                pass

    def __enter__(self) -> RawServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopped.set()
        self.socket.close()


def _read_request(connection) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        chunk = connection.recv(65536)
        if not chunk:
            return
        body += chunk


def http_200(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


def completion(content: str) -> bytes:
    return json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop"}]}).encode()


def client(url: str, **settings) -> ChatClient:
    return ChatClient(ClientSettings("m", base_url=url, backoff=0.01, **settings), environ={"OPENAI_API_KEY": KEY})


def test_timeout_is_a_deadline_for_the_whole_answer():
    def trickle(connection, stopped):
        reply = http_200(completion("x" * 100))
        for byte in reply:  # one byte each 0.05 s: every read returns in time, the answer never does
            if stopped.is_set():
                return
            connection.sendall(bytes([byte]))
            time.sleep(0.05)

    with RawServer(trickle) as server:
        patient = client(server.base_url, timeout=0.5, retries=1)
        start = time.monotonic()
        with pytest.raises(ServerUnreachable, match=r"no answer within 0.5 s \(1 attempt\); a slow model may need a "
                                                    r"longer --timeout"):
            patient.complete(HI)
        assert time.monotonic() - start < 8  # without the deadline: over 20 s


def test_timeout_is_the_wall_time_retries_and_waits_included():
    """A server that keeps answering 503 with Retry-After: 5 is given up on when --timeout has passed, not
    after four attempts and three waits."""
    busy = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Length: 0\r\n\r\n"
    with RawServer(lambda connection, stopped: connection.sendall(busy)) as server:
        patient = client(server.base_url, timeout=1.0, retries=3)
        start = time.monotonic()
        with pytest.raises(ServerUnreachable, match=r"no answer within 1 s \(\d attempts?\)"):
            patient.complete(HI)
        assert time.monotonic() - start < 8  # the Retry-After alone would be 5 s a retry, 15 s in all


@pytest.mark.parametrize("body", [
    b"\xff\xfe not json",
    json.dumps({"choices": "oops"}).encode(),
    json.dumps({"choices": [{"message": {"content": 7}}]}).encode(),
], ids=["not-utf8", "choices-a-string", "content-a-number"])
def test_a_body_that_is_no_chat_completion_is_a_model_error(body):
    with RawServer(lambda connection, stopped: connection.sendall(http_200(body))) as server:
        with pytest.raises(ModelAPIError):
            client(server.base_url, retries=0).complete(HI)


def test_an_oversized_answer_is_refused():
    answer = http_200(completion("x" * (MAX_ANSWER_CHARS + 1)))
    with RawServer(lambda connection, stopped: connection.sendall(answer)) as server:
        with pytest.raises(ModelAPIError, match="not a kernel"):
            client(server.base_url, retries=0).complete(HI)


def test_the_key_is_removed_from_the_answer_text():
    answer = http_200(completion(f'const char* key = "{KEY}";'))
    with RawServer(lambda connection, stopped: connection.sendall(answer)) as server:
        text = client(server.base_url, retries=0).complete(HI).text
    assert KEY not in text and "[redacted]" in text


@pytest.mark.parametrize("url", ["htp://127.0.0.1:9/v1", "localhost:8000", "http:///v1"])
def test_a_base_url_that_cannot_work_fails_at_once(url):
    with pytest.raises(ServerUnreachable, match="not an http:// or https:// URL with a host"):
        client(url)
