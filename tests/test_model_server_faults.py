"""The model client against servers that misbehave (issues 20, 37, 38): a trickle that would outlast the
timeout, bodies that are no chat completion (deep, NaN), oversized or compressed answers, redirects, a base
URL that cannot work, a key echoed back (encoded too), a placeholder key."""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
import tracemalloc
import zlib
from urllib.parse import quote

import pytest

from cudalint.repairing.client import (MAX_ANSWER_CHARS, MAX_BODY_BYTES, ChatClient, ClientSettings, ModelAPIError,
                                      Redactor, ServerUnreachable)

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
    after four attempts and three waits: a wait that would end past the deadline is not begun."""
    busy = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Length: 0\r\n\r\n"
    with RawServer(lambda connection, stopped: connection.sendall(busy)) as server:
        patient = client(server.base_url, timeout=1.0, retries=3)
        start = time.monotonic()
        with pytest.raises(ServerUnreachable, match=r"no answer within 1 s \(\d attempts?, the last HTTP 503\)"):
            patient.complete(HI)
        assert time.monotonic() - start < 1  # the Retry-After alone would be 5 s a retry, 15 s in all
    backoff = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0.2\r\nContent-Length: 0\r\n\r\n"
    with RawServer(lambda connection, stopped: connection.sendall(backoff)) as server:
        start = time.monotonic()
        with pytest.raises(ModelAPIError, match=r"HTTP 503, server error after 3 attempts"):
            client(server.base_url, timeout=10.0, retries=2).complete(HI)
        assert time.monotonic() - start < 5  # two short waits within the deadline were taken


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


def test_the_answer_text_is_the_code_as_written_and_only_messages_are_redacted():
    answer = http_200(completion(f'const char* key = "{KEY}";'))
    with RawServer(lambda connection, stopped: connection.sendall(answer)) as server:
        chat = client(server.base_url, retries=0)
        text = chat.complete(HI).text
    assert text == f'const char* key = "{KEY}";'  # code: redaction never touches it
    assert chat.redact(text) == 'const char* key = "[redacted]";'


@pytest.mark.parametrize("encoding, wbits", [("gzip", 16 + zlib.MAX_WBITS), ("deflate", zlib.MAX_WBITS)])
def test_a_compressed_answer_is_decoded(encoding, wbits):
    packer = zlib.compressobj(6, zlib.DEFLATED, wbits)
    body = packer.compress(completion("__global__ void k() {}")) + packer.flush()
    reply = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: %s\r\n"
             b"Content-Length: %d\r\n\r\n%s" % (encoding.encode(), len(body), body))
    with RawServer(lambda connection, stopped: connection.sendall(reply)) as server:
        assert client(server.base_url, retries=0).complete(HI).text == "__global__ void k() {}"


def test_a_compressed_answer_is_cut_off_at_the_cap_while_it_is_read():
    head = b'{"choices": [{"message": {"role": "assistant", "content": "'
    bomb = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # gzip: 256 MiB of "x" in about 250 KB
    body = bomb.compress(head) + b"".join(bomb.compress(b"x" * (1 << 20)) for _ in range(256)) + bomb.flush()
    assert len(body) < 1 << 20
    reply = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
             b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    with RawServer(lambda connection, stopped: connection.sendall(reply)) as server:
        tracemalloc.start()
        try:
            with pytest.raises(ModelAPIError, match=f"over {MAX_BODY_BYTES:,} bytes: not a kernel"):
                client(server.base_url, retries=0).complete(HI)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 4 * MAX_BODY_BYTES  # read whole, it takes 256 MiB and more


@pytest.mark.parametrize("body", [
    b"[" * 100_000 + b"]" * 100_000,
    b'{"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": NaN}}',
    b'{"choices": [{"message": {"content": "ok"}, "x": -Infinity}]}',
    b'{"choices": [{"message": {"content": "ok"}}], "usage": {"prompt_tokens": 1' + b"0" * 5000 + b"}}",
], ids=["deep", "nan", "infinity", "huge-integer"])
def test_a_deep_or_nan_answer_is_a_model_error(body):
    with RawServer(lambda connection, stopped: connection.sendall(http_200(body))) as server:
        with pytest.raises(ModelAPIError, match="not a chat completion"):
            client(server.base_url, retries=0).complete(HI)


def test_odd_token_counts_are_unknown_not_wrong():
    body = json.dumps({"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": -3, "completion_tokens": True}}).encode()
    with RawServer(lambda connection, stopped: connection.sendall(http_200(body))) as server:
        answer = client(server.base_url, retries=0).complete(HI)
    assert (answer.text, answer.prompt_tokens, answer.completion_tokens) == ("ok", None, None)


def test_a_redirect_is_not_followed_with_the_key():
    seen = []

    def redirect(connection, stopped):
        seen.append(1)
        connection.sendall(b"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:9/v1/chat/completions"
                           b"\r\nContent-Length: 0\r\n\r\n")

    with RawServer(redirect) as server:
        with pytest.raises(ModelAPIError, match="HTTP 307"):
            client(server.base_url, retries=0).complete(HI)
    assert seen == [1]


_LONG = "sk-proj-Abc123/XyZ789+Qrs456=Tuv012"  # "/", "+", "=": as in base64-made keys
_ENCODED = {
    "plain": _LONG,
    "upper case": _LONG.upper(),
    "lower case": _LONG.lower(),
    "url-encoded": quote(_LONG, safe=""),
    "url-encoded, lower-case escapes": quote(_LONG, safe="").replace("%2F", "%2f"),
    "base64": base64.b64encode(_LONG.encode()).decode(),
    "base64 after other bytes": base64.b64encode(b"user:" + _LONG.encode()).decode(),
    "base64 url-safe, misaligned": base64.urlsafe_b64encode(b"ab" + _LONG.encode()).decode(),
    "a masked piece": _LONG[:3] + "****" + _LONG[-12:],
}


@pytest.mark.parametrize("form", _ENCODED)
def test_redaction_removes_encoded_forms_of_the_key(form):
    text = f"the server said: {_ENCODED[form]} was wrong"
    redacted = Redactor(_LONG)(text)
    assert "[redacted]" in redacted and redacted.startswith("the server said: ")
    for encoded in _ENCODED.values():
        assert encoded not in redacted or len(encoded) < 8


@pytest.mark.parametrize("key", ["x", "EMPTY", "sk-no-key-req"])
def test_a_placeholder_key_is_never_redacted(key):
    text = "from torch.utils.cpp_extension import load_inline  # EMPTY x sk-no-key-req"
    assert Redactor(key)(text) == text


@pytest.mark.parametrize("url", ["htp://127.0.0.1:9/v1", "localhost:8000", "http:///v1"])
def test_a_base_url_that_cannot_work_fails_at_once(url):
    with pytest.raises(ServerUnreachable, match="not an http:// or https:// URL with a host"):
        client(url)
