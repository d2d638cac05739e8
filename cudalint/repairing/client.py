"""A small wrapper over the openai client for any OpenAI-compatible chat server.

- The server: `base_url` if given, else the `OPENAI_BASE_URL` environment variable, else OpenAI's API
  (as the openai client does). vLLM, llama.cpp's server, Ollama and LiteLLM all work through a base URL.
- The key: read from the environment variable named by `api_key_env` (default `OPENAI_API_KEY`). A missing
  or empty variable is an error (`MissingAPIKey`), as in the openai client; a server that needs no key
  accepts any value.
- Retries: the openai client's own retries are off; this wrapper retries connection errors, timeouts,
  HTTP 408, 409, 429 and 5xx up to `retries` times, waiting `backoff * 2**(attempt - 1)` seconds plus up
  to 10% jitter, or the seconds of the server's `Retry-After` header when it sends one; no wait is longer
  than `max_wait`. Every retry is recorded in the `Completion`.
- `timeout` is the wall time one answer may take, retries and waits included, not per read: a server that
  trickles a byte at a time is cut off when it passes (the connection is closed), and no retry starts
  after it.
- The base URL must be an http(s) URL with a host: anything else is a fatal error at once, not retried.
- Answers are checked: a body that is no chat completion (not JSON, `choices` of the wrong shape) is a
  `ModelAPIError`, an answer over `MAX_ANSWER_CHARS` is refused, and the key is removed from the
  answer's text too, so that it can never be written into a result.
- Errors are `ModelError` subclasses whose messages never contain the key: `MissingAPIKey`,
  `ServerUnreachable`, `ModelRefused`, `ModelAPIError` (any other HTTP error, or retries exhausted).
"""

from __future__ import annotations

import os
import queue
import random
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRYABLE_STATUS = frozenset({408, 409, 429})
MAX_ANSWER_CHARS = 4 * 1024 * 1024  # what cudalint lints at most (engine.MAX_FILE_BYTES): more is no kernel


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
    timeout: float = 120.0  # seconds one answer may take, retries included
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
    """Removes the key (and any long piece of it) from text that may be shown or stored."""

    def __init__(self, secret: str | None) -> None:
        self.secret = secret or ""

    def __call__(self, text: str) -> str:
        if not self.secret or not text:
            return text
        text = text.replace(self.secret, "[redacted]")
        if len(self.secret) >= 12:  # servers echo keys partly masked: drop any 8-character piece of it
            pieces = {self.secret[i:i + 8] for i in range(len(self.secret) - 7)}
            pattern = "|".join(re.escape(p) for p in sorted(pieces, key=len, reverse=True))
            text = re.sub(f"(?:{pattern})+", "[redacted]", text)
        return text


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
        try:
            import openai  # imported here: `cudalint check` never needs it
        except ModuleNotFoundError:
            raise ModelError("a model needs the openai client: pip install 'cudalint[repair]'") from None

        self._openai = openai
        self._key = key
        self._client = self._new_client()

    def _new_client(self):
        return self._openai.OpenAI(api_key=self._key, base_url=self.base_url, timeout=self.settings.timeout,
                                   max_retries=0)

    def sampling(self) -> dict:
        """The sampling settings sent with every request (those left unset are not sent)."""
        settings = self.settings
        sent = {"temperature": settings.temperature, "max_tokens": settings.max_tokens}
        if settings.frequency_penalty is not None:
            sent["frequency_penalty"] = settings.frequency_penalty
        if settings.stop:
            sent["stop"] = list(settings.stop)
        return sent

    def _request(self, messages: Sequence[Mapping[str, str]], seconds: float):
        """One request, cut off at the deadline. It runs on a daemon thread: one cut off is left to end
        with its connection (closed under it, and dropped with it), and never holds up the exit."""
        client, done = self._client, queue.Queue(maxsize=1)

        def send() -> None:
            try:
                done.put((True, client.chat.completions.create(
                    model=self.settings.model, messages=list(messages), **self.sampling())))
            except BaseException as error:  # noqa: BLE001 - handed to the waiting caller
                done.put((False, error))

        threading.Thread(target=send, name="cudalint-model-request", daemon=True).start()
        try:
            ok, value = done.get(timeout=max(seconds, 0.0))
        except queue.Empty:
            self._client = self._new_client()  # the next attempt gets a connection of its own
            client.close()
            raise self._openai.APITimeoutError(request=None) from None
        if not ok:
            raise value
        return value

    @property
    def server(self) -> str:
        return safe_url(self.base_url) or ""

    def redact(self, text: str) -> str:
        return self._redact(text)

    def complete(self, messages: Sequence[Mapping[str, str]]) -> Completion:
        openai = self._openai
        notes: list[str] = []
        attempt = 0
        deadline = time.monotonic() + self.settings.timeout  # what the user waits, retries included
        while True:
            attempt += 1
            if self.on_attempt is not None:
                self.on_attempt(attempt)
            try:
                response = self._request(messages, deadline - time.monotonic())
            except (openai.APITimeoutError, openai.APIConnectionError) as error:
                timed_out = isinstance(error, openai.APITimeoutError) or time.monotonic() >= deadline
                what = f"no answer within {self.settings.timeout:g} s" if timed_out else "cannot connect"
                if attempt > self.settings.retries or timed_out:
                    why = ("a slow model may need a longer --timeout" if timed_out else
                           "is the server running and is the base URL right?")
                    raise ServerUnreachable(
                        f"{self.server}: {what} ({attempt} attempt{'s' if attempt > 1 else ''}); {why}") from None
                notes.append(self._wait(attempt, what, None, deadline))
                continue
            except openai.APIStatusError as error:
                status = error.status_code
                detail = self.redact(_error_detail(error))
                if (status in RETRYABLE_STATUS or status >= 500) and attempt <= self.settings.retries \
                        and time.monotonic() < deadline:
                    notes.append(self._wait(attempt, f"HTTP {status}", error.response.headers.get("retry-after"),
                                            deadline))
                    continue
                raise self._status_error(status, detail, attempt) from None
            except openai.OpenAIError as error:
                raise ModelAPIError(f"{self.server}: {self.redact(str(error))}") from None
            except (ValueError, TypeError) as error:  # a 200 whose body is not JSON (or not UTF-8)
                raise ModelAPIError(f"{self.server}: the answer is not a chat completion ({type(error).__name__})"
                                    ) from None
            return self._completion(response, attempt, notes)

    def _wait(self, attempt: int, what: str, retry_after: str | None, deadline: float) -> str:
        delay = self.settings.backoff * (2 ** (attempt - 1)) * (1 + random.uniform(0, 0.1))
        if retry_after:  # the server knows best when to come back
            try:
                delay = max(float(retry_after), 0.0)
            except ValueError:
                pass
        delay = max(min(delay, self.settings.max_wait, deadline - time.monotonic()), 0.0)
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

    def _completion(self, response, attempt: int, notes: list[str]) -> Completion:
        choices = getattr(response, "choices", None) or []
        if not isinstance(choices, list) or not choices:
            raise ModelAPIError(f"{self.server}: the answer holds no choices")
        choice = choices[0]
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None)
        if message is None or not isinstance(content, (str, type(None))):
            raise ModelAPIError(f"{self.server}: the answer is not a chat completion (no message text)")
        if content is not None and len(content) > MAX_ANSWER_CHARS:
            raise ModelAPIError(f"{self.server}: the answer is {len(content):,} characters long, more than "
                                f"{MAX_ANSWER_CHARS:,}: not a kernel")
        refusal = getattr(message, "refusal", None)
        if refusal:
            raise ModelRefused(f"the model refused: {self.redact(refusal)}", self.redact(refusal))
        if choice.finish_reason == "content_filter":
            raise ModelRefused("the model's answer was withheld by the server's content filter "
                               '(finish_reason "content_filter")')
        usage = getattr(response, "usage", None)
        return Completion(
            text=self.redact(content or ""), finish_reason=getattr(choice, "finish_reason", None),
            prompt_tokens=getattr(usage, "prompt_tokens", None) if usage else None,
            completion_tokens=getattr(usage, "completion_tokens", None) if usage else None,
            model=getattr(response, "model", None), attempts=attempt, retry_notes=notes)


def _error_detail(error) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:500]
        if isinstance(inner, str):
            return inner[:500]
    return str(getattr(error, "message", "") or error)[:500]


__all__ = ["BASE_URL_ENV", "ChatClient", "ClientSettings", "Completion", "DEFAULT_API_KEY_ENV", "MissingAPIKey",
           "ModelAPIError", "ModelError", "ModelRefused", "Redactor", "ServerUnreachable", "safe_url"]
