"""Run one worker process with a time limit, and turn however it ended into a status.

Each candidate runs in its own process (`python worker.py REQUEST.json`), started in a new session so
that the whole group (ninja, nvcc, compute-sanitizer and whatever the candidate starts) can be killed
when the time limit passes. The worker rewrites its result file at every stage; the parent reads it
whatever happened, so a crash, a hang or an out-of-memory is reported with the stage it happened in,
and never stops the batch.

What a worker gets (generated code runs in it): an environment scrubbed to the toolchain's and the
GPU's settings (no API keys, tokens or other credentials), a HOME and temporary directory of its own
under the batch's work directory, and, where unprivileged user and network namespaces are available
(`unshare`), no network. It still runs as the same user, with the same file system: run untrusted
batches in a container.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass, field

from cudalint.sandbox import GIB, Isolation, Limits, run_sandboxed

WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
TAIL_BYTES = 6000


# the GPU stage's limits: CUDA reserves far more address space than it uses (none there); builds write a
# precompiled header of about 750 MB and libraries of hundreds; torch starts a thread per core
GPU_LIMITS = dict(address_space=None, processes=8192, file_size=16 * GIB, open_files=65536)


def worker_limits(timeout: float) -> Limits:
    """A worker's limits: CPU seconds enough for every core busy for the whole time limit, no more."""
    return Limits(cpu_seconds=int(timeout * (os.cpu_count() or 1)) + 60, **GPU_LIMITS)


@dataclass
class WorkerOutcome:
    """How one worker process ended, and what it reported."""

    status: str  # the final status (see `classify`)
    message: str
    result: dict = field(default_factory=dict)  # the worker's result file (possibly partial)
    returncode: int | None = None
    signal: str | None = None
    timed_out: bool = False
    seconds: float = 0.0
    stdout_tail: str = ""
    stderr_tail: str = ""
    log_path: str | None = None  # a file the command wrote (compute-sanitizer's --log-file)

    def to_dict(self) -> dict:
        return {"status": self.status, "message": self.message, "returncode": self.returncode,
                "signal": self.signal, "timed_out": self.timed_out, "seconds": round(self.seconds, 3),
                "stage": self.result.get("stage"), "stderr_tail": self.stderr_tail[-2000:]}


def worker_command(python: str | None = None) -> list[str]:
    """The command that starts a worker: the interpreter (default: this one) and the worker script."""
    return [python or sys.executable, WORKER_SCRIPT]


def run_worker(command: list[str], request: dict, timeout: float, env: dict | None = None,
               workdir: str | None = None, prefix: list[str] | None = None, on_timeout=None,
               isolated: Isolation | None = None) -> WorkerOutcome:
    """Run `prefix + command + [request file]` with `env` for at most `timeout` seconds.

    `request` is written as JSON with `result` (the result file) and `timeout` added; `prefix` wraps the
    command (compute-sanitizer). `on_timeout(partial_result)` runs after a kill (to clean up a lock)."""
    own_dir = workdir is None
    directory = workdir or tempfile.mkdtemp(prefix="cudalint-verify-")
    os.makedirs(directory, exist_ok=True)
    handle, request_path = tempfile.mkstemp(prefix=f"{request.get('mode', 'job')}-", suffix=".json", dir=directory)
    os.close(handle)
    result_path = request_path[:-5] + ".result.json"
    stdout_path = request_path[:-5] + ".stdout"
    stderr_path = request_path[:-5] + ".stderr"
    request = dict(request, result=result_path, timeout=timeout)
    with open(request_path, "w", encoding="utf-8") as out:
        json.dump(request, out)
    argv = list(prefix or []) + list(command) + [request_path]
    with open(stdout_path, "wb") as stdout, open(stderr_path, "wb") as stderr:
        finished = run_sandboxed(argv, directory, env if env is not None else dict(os.environ), timeout,
                                 worker_limits(timeout), isolated, stdout=stdout, stderr=stderr)
    if finished.error:
        if own_dir:
            _remove_tree(directory)
        return WorkerOutcome("worker_error", f"cannot start the worker: {finished.error}", seconds=0.0)
    returncode, timed_out, seconds = finished.returncode, finished.timed_out, finished.seconds
    outcome = WorkerOutcome("", "", _read_json(result_path), returncode, None, timed_out, seconds,
                            _tail(stdout_path), _tail(stderr_path))
    outcome.signal = finished.signal
    if timed_out and on_timeout is not None:
        on_timeout(outcome.result)
    outcome.status, outcome.message = classify(outcome, timeout)
    if own_dir:
        _remove_tree(directory)
    return outcome


def classify(outcome: WorkerOutcome, timeout: float) -> tuple[str, str]:
    """The status and message of a finished worker: its own when it finished, else from how it ended."""
    from cudalint.verify.worker import classify_error

    result = outcome.result
    stage = result.get("stage") or "start"
    if outcome.timed_out:
        return "timeout", (f"no result after {timeout:g} s (killed) during {stage}: a hang (a kernel that never "
                           f"finishes, a deadlock) or far too slow")
    if result.get("done"):
        return result.get("status") or "worker_error", result.get("message") or ""
    text = outcome.stderr_tail + "\n" + outcome.stdout_tail
    kind = classify_error(text)
    if outcome.signal:
        what = f"the worker process died from {outcome.signal} during {stage}"
        if kind in ("illegal_address", "oom"):
            return kind, what
        return "crash", what
    if kind:
        return kind, f"{kind.replace('_', ' ')} during {stage} (exit status {outcome.returncode})"
    last = _last_line(outcome.stderr_tail)
    return "crash", (f"the worker exited with status {outcome.returncode} during {stage} without a result"
                     + (f": {last}" if last else ""))


def _read_json(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            value = json.load(handle)
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


def _tail(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(size - TAIL_BYTES, 0))
            return handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _remove_tree(directory: str) -> None:
    import shutil

    shutil.rmtree(directory, ignore_errors=True)


__all__ = ["WORKER_SCRIPT", "WorkerOutcome", "classify", "run_worker", "worker_command", "worker_limits"]
