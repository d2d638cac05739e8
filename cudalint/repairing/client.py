"""A small client for any OpenAI-compatible chat server (`POST <base URL>/chat/completions`), on the
standard library's HTTP client: the answer is read in chunks and decoded under a byte cap, which a client
that reads the whole body first cannot do (a 2 MB gzip body can decode to gigabytes).

- The server: `base_url` if given, else the `OPENAI_BASE_URL` environment variable, else OpenAI's API
  (as the openai client does). vLLM, llama.cpp's server, Ollama and LiteLLM all work through a base URL.
  Proxies come from the environment (`https_proxy`, `no_proxy`); redirects are not followed (they would
  carry the key to another host).
- The key: read from the environment variable named by `api_key_env` (default `OPENAI_API_KEY`). A missing
  or empty variable is an error (`MissingAPIKey`), as in the openai client; a server that needs no key
  accepts any value.
- Retries: connection errors, timeouts, HTTP 408, 409, 429 and 5xx are retried up to `retries` times,
  waiting `backoff * 2**(attempt - 1)` seconds plus up to 10% jitter, or the seconds of the server's
  `Retry-After` header when it sends one; no wait is longer than `max_wait`. Every retry is recorded in
  the `Completion`.
- `timeout` is the wall time one answer may take, retries and waits included, not per read: a server that
  trickles a byte at a time is cut off when it passes, and no retry starts after it.
- The base URL must be an http(s) URL with a host: anything else is a fatal error at once, not retried.
- Answers are checked: a body over `MAX_BODY_BYTES` once decoded (gzip or deflate) is refused as soon as
  the cap is passed; a body that is no chat completion (not JSON, nested past what Python parses, NaN or
  Infinity, `choices` of the wrong shape) is a `ModelAPIError`, as is an answer over `MAX_ANSWER_CHARS`.
- The answer's text is returned as the model wrote it: it is code, and redaction never touches code.
  `redact` is for text that may be shown or stored (messages, transcripts): it removes the key and its
  encoded forms (see `Redactor`).
- Errors are `ModelError` subclasses whose messages never contain the key: `MissingAPIKey`,
  `ServerUnreachable`, `ModelRefused`, `ModelAPIError` (any other HTTP error, or retries exhausted).
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import queue
import random
import re
import socket
import threading
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import quote, quote_plus, urlsplit, urlunsplit

from cudalint.repairing import DEFAULT_API_KEY_ENV

BASE_URL_ENV = "OPENAI_BASE_URL"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRYABLE_STATUS = frozenset({408, 409, 429})
MAX_ANSWER_CHARS = 4 * 1024 * 1024  # what cudalint lints at most (engine.MAX_FILE_BYTES): more is no kernel
MAX_BODY_BYTES = 4 * MAX_ANSWER_CHARS  # a body, decoded: room for the longest answer with its JSON escapes
MIN_SECRET_CHARS = 16  # shorter keys ("x", "EMPTY", "sk-local") are placeholders for servers that need none


class ModelError(Exception):
    """A problem talking to the model; the message is safe to print (it never holds the key)."""

    #: True when no later request can succeed either (the CLI stops instead of going on to other files)
    fatal = False


class MissingAPIKey(ModelError):
    fatal = True


class ServerUnreachable(ModelError):
    fatal = True


class ModelRefused(ModelError):
    def __init__(self, message: str, refusal: str = "") -> None:
        super().__init__(message)
        self.refusal = refusal


class ModelAPIError(ModelError):
    def __init__(self, message: str, status: int | None = None, fatal: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.fatal = fatal


@dataclass(frozen=True)
class ClientSettings:
    model: str
    base_url: str | None = None  # None: OPENAI_BASE_URL, else OpenAI's API
    api_key_env: str = DEFAULT_API_KEY_ENV
    temperature: float = 0.3
    max_tokens: int = 4096
    frequency_penalty: float | None = None  # None: the server's default
    stop: tuple[str, ...] = ()  # stop sequences (none: the server's default)
    timeout: float = 120.0  # seconds per request
    retries: int = 3  # retries after the first attempt
    backoff: float = 1.0  # first wait between attempts, doubled each time
    max_wait: float = 30.0  # no single wait is longer


@dataclass
class Completion:
    text: str
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    model: str | None
    attempts: int = 1
    retry_notes: list[str] = field(default_factory=list)  # "HTTP 429, waited 1.0 s", one per retry


def safe_url(url: str | None) -> str | None:
    """The URL without any user:password part, for printing."""
    if not url:
        return url
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        if parts.port:
            host += f":{parts.port}"
        return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    return url


class Redactor:
    """Removes the key from text that may be shown or stored (messages, logs, transcripts; never code): the
    key in any letter case, base64 (standard or URL-safe, at any alignment in a longer encoded string),
    percent-encoded, and any 8-character piece of it (servers echo keys partly masked). A key shorter than
    `MIN_SECRET_CHARS` is a placeholder, not a secret: nothing is removed (redacting "x" would mangle every
    word with an x)."""

    def __init__(self, secret: str | None) -> None:
        self.secret = secret or ""
        self._pattern = _secret_pattern(self.secret) if len(self.secret) >= MIN_SECRET_CHARS else None

    def __call__(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub("[redacted]", text)


def _secret_pattern(secret: str) -> re.Pattern:
    forms = {secret, quote(secret, safe=""), quote_plus(secret)}
    forms.update(secret[i:i + 8] for i in range(len(secret) - 7))
    data = secret.encode("utf-8")
    for offset in range(3):  # the key after 0, 1 or 2 other bytes: the characters that encode only its bytes
        encoded = base64.b64encode(bytes(offset) + data).decode("ascii")
        first, last = -(-offset * 8 // 6), (8 * (offset + len(data)) - 6) // 6
        inner = encoded[first:last + 1]
        forms.update((inner, inner.replace("+", "-").replace("/", "_")))
    alternatives = "|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True))
    return re.compile(f"(?:{alternatives})+", re.IGNORECASE)


class _Unreachable(Exception):
    """An attempt that got no answer: `what` says why ("cannot connect", "no answer within 5 s")."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class _TooLarge(Exception):
    pass


@dataclass
class _Answer:
    status: int
    headers: Mapping[str, str]
    body: bytes


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # the 3xx answer stands: following it would send the key to wherever it points


class ChatClient:
    """Sends chat messages to one model and returns a `Completion`; see the module docstring."""

    def __init__(self, settings: ClientSettings, environ: Mapping[str, str] | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        environ = os.environ if environ is None else environ
        self.settings = settings
        self.base_url = settings.base_url or environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ServerUnreachable(f"{safe_url(self.base_url)}: not an http:// or https:// URL with a host; "
                                    f"check --base-url or {BASE_URL_ENV}")
        key = environ.get(settings.api_key_env, "")
        if not key.strip():
            raise MissingAPIKey(
                f"the environment variable {settings.api_key_env} is not set: set it to the API key of "
                f"{safe_url(self.base_url)} (a server that needs no key accepts any value), or name "
                f"another variable with --api-key-env")
        self._redact = Redactor(key)
        self._sleep = sleep
        self.on_attempt: Callable[[int], None] | None = None  # told each attempt's number as it starts (progress)
        self._key = key
        self._opener = urllib.request.build_opener(_NoRedirects())

    def sampling(self) -> dict:
        """The sampling settings sent with every request (those left unset are not sent)."""
        settings = self.settings
        sent = {"temperature": settings.temperature, "max_tokens": settings.max_tokens}
        if settings.frequency_penalty is not None:
            sent["frequency_penalty"] = settings.frequency_penalty
        if settings.stop:
            sent["stop"] = list(settings.stop)
        return sent

    def _request(self, messages: Sequence[Mapping[str, str]], seconds: float) -> _Answer:
        """One attempt, cut off after `seconds` (what is left of the answer's time). It runs on a daemon thread: one cut off stops at its next
        chunk (or its socket's timeout), and never holds up the exit."""
        body = json.dumps({"model": self.settings.model, "messages": list(messages), **self.sampling()}).encode()
        request = urllib.request.Request(
            self.base_url.rstrip("/") + "/chat/completions", data=body, method="POST",
            headers={"Authorization": f"Bearer {self._key}", "Content-Type": "application/json",
                     "Accept": "application/json", "Accept-Encoding": "gzip, deflate"})
        done, cancelled = queue.Queue(maxsize=1), threading.Event()

        def send() -> None:
            try:
                done.put(self._exchange(request, cancelled))
            except BaseException as error:  # noqa: BLE001 - handed to the waiting caller
                done.put(error)

        threading.Thread(target=send, name="cudalint-model-request", daemon=True).start()
        try:
            value = done.get(timeout=max(seconds, 0.0))
        except queue.Empty:
            cancelled.set()
            raise _Unreachable(self._no_answer) from None
        if isinstance(value, BaseException):
            raise value
        return value

    def _exchange(self, request: urllib.request.Request, cancelled: threading.Event) -> _Answer:
        try:
            response = self._opener.open(request, timeout=self.settings.timeout)
        except urllib.error.HTTPError as error:
            response = error  # an answer all the same: its body says why
        except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
            raise _Unreachable(self._no_answer if _timed_out(error) else "cannot connect") from None
        with response:
            try:
                data = _decoded(_chunks(response, cancelled), response.headers.get("Content-Encoding", ""))
            except (http.client.HTTPException, OSError) as error:
                raise _Unreachable(self._no_answer if _timed_out(error) else "the connection broke off") from None
            return _Answer(response.status, response.headers, data)

    @property
    def _no_answer(self) -> str:
        return f"no answer within {self.settings.timeout:g} s"

    @property
    def server(self) -> str:
        return safe_url(self.base_url) or ""

    def redact(self, text: str) -> str:
        return self._redact(text)

    def complete(self, messages: Sequence[Mapping[str, str]]) -> Completion:
        notes: list[str] = []
        attempt = 0
        deadline = time.monotonic() + self.settings.timeout  # what the user waits, retries included
        while True:
            attempt += 1
            if self.on_attempt is not None:
                self.on_attempt(attempt)
            try:
                answer = self._request(messages, deadline - time.monotonic())
            except _Unreachable as error:
                timed_out = error.what == self._no_answer or time.monotonic() >= deadline
                if attempt > self.settings.retries or timed_out:
                    why = ("a slow model may need a longer --timeout" if timed_out else
                           "is the server running and is the base URL right?")
                    raise ServerUnreachable(
                        f"{self.server}: {self._no_answer if timed_out else error.what} "
                        f"({attempt} attempt{'s' if attempt > 1 else ''}); {why}") from None
                notes.append(self._wait(attempt, error.what, None, deadline))
                continue
            except _TooLarge:
                raise ModelAPIError(f"{self.server}: the answer is over {MAX_BODY_BYTES:,} bytes: not a kernel"
                                    ) from None
            status = answer.status
            if status == 200:
                return self._completion(answer.body, attempt, notes)
            retry_after = answer.headers.get("Retry-After")
            if (status in RETRYABLE_STATUS or status >= 500) and attempt <= self.settings.retries:
                # a retry only where its wait ends before the deadline: a wait cut at the deadline would end in
                # a request with no time left, whose outcome (the same status, or no answer) would be a race
                if time.monotonic() + self._delay(attempt, retry_after) >= deadline:
                    raise ServerUnreachable(f"{self.server}: {self._no_answer} ({attempt} attempt"
                                            f"{'s' if attempt > 1 else ''}, the last HTTP {status}); a slow model "
                                            f"may need a longer --timeout")
                notes.append(self._wait(attempt, f"HTTP {status}", retry_after, deadline))
                continue
            raise self._status_error(status, self.redact(_error_detail(answer.body)), attempt)

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        """How long to wait before the next attempt: the server's Retry-After, else exponential backoff;
        never over max_wait (NaN from "nan" too: min keeps max_wait)."""
        delay = self.settings.backoff * (2 ** (attempt - 1)) * (1 + random.uniform(0, 0.1))
        if retry_after:  # the server knows best when to come back
            try:
                delay = max(float(retry_after), 0.0)
            except ValueError:
                pass
        return max(min(delay, self.settings.max_wait), 0.0)

    def _wait(self, attempt: int, what: str, retry_after: str | None, deadline: float) -> str:
        delay = max(min(self._delay(attempt, retry_after), deadline - time.monotonic()), 0.0)  # never past the deadline
        self._sleep(delay)
        return f"{what}, retried after {delay:.2f} s"

    def _status_error(self, status: int, detail: str, attempt: int) -> ModelError:
        tries = f" after {attempt} attempts" if attempt > 1 else ""
        where = f"{self.server} (model {self.settings.model})"
        if status == 401:
            return ModelAPIError(f"{where}: HTTP 401, the key in {self.settings.api_key_env} was not accepted: "
                                 f"{detail}", status, fatal=True)
        if status == 403:
            return ModelAPIError(f"{where}: HTTP 403, access denied: {detail}", status, fatal=True)
        if status == 404:
            return ModelAPIError(f"{where}: HTTP 404, no such model or endpoint: {detail}", status, fatal=True)
        if status == 429:
            return ModelAPIError(f"{where}: HTTP 429, rate limited{tries}: {detail}", status, fatal=True)
        if status >= 500:
            return ModelAPIError(f"{where}: HTTP {status}, server error{tries}: {detail}", status, fatal=True)
        return ModelAPIError(f"{where}: HTTP {status}: {detail}", status)

    def _completion(self, body: bytes, attempt: int, notes: list[str]) -> Completion:
        not_completion = ModelAPIError(f"{self.server}: the answer is not a chat completion")
        try:
            response = json.loads(body, parse_constant=_no_constant)
        except (ValueError, RecursionError):  # not JSON or UTF-8, NaN or Infinity, nested too deep
            raise not_completion from None
        choices = response.get("choices") if isinstance(response, dict) else None
        if not isinstance(choices, list) or not choices:
            raise ModelAPIError(f"{self.server}: the answer holds no choices")
        choice = choices[0] if isinstance(choices[0], dict) else {}
        message = choice.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(message, dict) or not isinstance(content, (str, type(None))):
            raise ModelAPIError(f"{self.server}: the answer is not a chat completion (no message text)")
        if content is not None and len(content) > MAX_ANSWER_CHARS:
            raise ModelAPIError(f"{self.server}: the answer is {len(content):,} characters long, more than "
                                f"{MAX_ANSWER_CHARS:,}: not a kernel")
        refusal = message.get("refusal")
        if refusal:
            refusal = self.redact(str(refusal)[:2000])
            raise ModelRefused(f"the model refused: {refusal}", refusal)
        finish_reason = choice.get("finish_reason")
        if finish_reason == "content_filter":
            raise ModelRefused("the model's answer was withheld by the server's content filter "
                               '(finish_reason "content_filter")')
        usage = response.get("usage") if isinstance(response.get("usage"), dict) else {}
        model = response.get("model")
        return Completion(
            text=content or "", finish_reason=finish_reason if isinstance(finish_reason, str) else None,
            prompt_tokens=_count(usage.get("prompt_tokens")), completion_tokens=_count(usage.get("completion_tokens")),
            model=model if isinstance(model, str) else None, attempts=attempt, retry_notes=notes)


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _count(value) -> int | None:
    """A token count, when the server sent a plausible one."""
    return value if type(value) is int and 0 <= value < 2 ** 53 else None


def _timed_out(error: BaseException) -> bool:
    reason = getattr(error, "reason", error)
    return isinstance(reason, (TimeoutError, socket.timeout))


def _chunks(response, cancelled: threading.Event) -> Iterator[bytes]:
    while not cancelled.is_set():
        chunk = response.read1(65536)
        if not chunk:
            return
        yield chunk


def _decoded(chunks: Iterator[bytes], encoding: str) -> bytes:
    """The body of `chunks` decoded as `encoding` says (identity, gzip or deflate); _TooLarge as soon as it
    passes MAX_BODY_BYTES, before decoding any more of it."""
    encoding = encoding.strip().lower()
    if encoding in ("gzip", "x-gzip", "deflate"):
        decoder = zlib.decompressobj(zlib.MAX_WBITS | (16 if "gzip" in encoding else 0))
    elif encoding in ("", "identity"):
        decoder = None
    else:
        raise ModelAPIError(f"the answer is in an encoding cudalint does not read ({encoding[:40]})")
    body = bytearray()
    for chunk in chunks:
        while chunk:
            if decoder is None:
                piece, chunk = chunk, b""
            else:
                piece = decoder.decompress(chunk, MAX_BODY_BYTES + 1 - len(body))
                chunk = decoder.unconsumed_tail
            body += piece
            if len(body) > MAX_BODY_BYTES:
                raise _TooLarge
    return bytes(body)


def _error_detail(body: bytes) -> str:
    try:
        data = json.loads(body, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return body[:500].decode("utf-8", "replace")
    inner = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(inner, dict) and inner.get("message"):
        return str(inner["message"])[:500]
    if isinstance(inner, str):
        return inner[:500]
    return body[:500].decode("utf-8", "replace")


__all__ = ["BASE_URL_ENV", "ChatClient", "ClientSettings", "Completion", "DEFAULT_API_KEY_ENV", "MissingAPIKey",
           "ModelAPIError", "ModelError", "ModelRefused", "Redactor", "ServerUnreachable", "safe_url"]
