"""Run one worker process with a time limit, and turn however it ended into a status.

Each candidate runs in its own process (`python worker.py REQUEST.json`), started in a new session so
that the whole group (ninja, nvcc, compute-sanitizer and whatever the candidate starts) can be killed
when the time limit passes. The worker rewrites its result file at every stage; the parent reads it
whatever happened, so a crash, a hang or an out-of-memory is reported with the stage it happened in,
and never stops the batch.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
TAIL_BYTES = 6000


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
               workdir: str | None = None, prefix: list[str] | None = None,
               on_timeout=None) -> WorkerOutcome:
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
    started = time.monotonic()
    timed_out = False
    with open(stdout_path, "wb") as stdout, open(stderr_path, "wb") as stderr:
        try:
            process = subprocess.Popen(argv, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                                       env=env, start_new_session=True, cwd=directory)
        except OSError as error:
            if own_dir:
                _remove_tree(directory)
            return WorkerOutcome("worker_error", f"cannot start the worker: {error}", seconds=0.0)
        try:
            returncode = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(process)
            returncode = process.wait()
    seconds = time.monotonic() - started
    outcome = WorkerOutcome("", "", _read_json(result_path), returncode, None, timed_out, seconds,
                            _tail(stdout_path), _tail(stderr_path))
    if returncode is not None and returncode < 0:
        outcome.signal = _signal_name(-returncode)
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


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            process.kill()
        except ProcessLookupError:
            pass


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


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


__all__ = ["WORKER_SCRIPT", "WorkerOutcome", "classify", "run_worker", "worker_command"]
