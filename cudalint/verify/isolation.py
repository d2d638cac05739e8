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

import functools
import json
import os
import re
import signal
import site
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
TAIL_BYTES = 6000


# what a worker inherits from the parent's environment: where the toolchain is and how to use the GPU
_KEPT_NAMES = frozenset({
    "PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "CUDA_HOME",
    "CUDA_PATH", "CUDA_ROOT", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CC", "CXX", "CUDAHOSTCXX", "MAX_JOBS",
    "LANG", "LANGUAGE", "TZ", "PYTHONPATH", "PYTHONHASHSEED", "VIRTUAL_ENV", "CONDA_PREFIX", "OMP_NUM_THREADS"})
_KEPT_PREFIXES = ("LC_", "NVIDIA_", "TORCH_", "PYTORCH_", "NVCC_", "CUDA_MODULE_", "TRITON_", "MKL_", "CUDALINT_")
_CREDENTIAL = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION", re.IGNORECASE)
NETWORK_NAMESPACE = ["unshare", "--user", "--map-root-user", "--net", "--"]


def worker_environment(parent: dict, workdir: str, keep: tuple[str, ...] = ()) -> dict:
    """The environment of a worker: `parent` scrubbed to the toolchain's and GPU's settings (plus the names
    in `keep`), never a credential, with a private HOME and temporary directory under `workdir`."""
    env = {name: value for name, value in parent.items()
           if name in keep or ((name in _KEPT_NAMES or name.startswith(_KEPT_PREFIXES))
                               and not _CREDENTIAL.search(name))}
    home, temporary = os.path.join(workdir, "home"), os.path.join(workdir, "tmp")
    for directory in (home, temporary):
        os.makedirs(directory, mode=0o700, exist_ok=True)
    # packages installed with `pip install --user` stay importable under the new HOME
    env.update(HOME=home, TMPDIR=temporary, TMP=temporary, TEMP=temporary,
               XDG_CACHE_HOME=os.path.join(home, ".cache"), PYTHONUSERBASE=site.getuserbase())
    return env


@functools.lru_cache(maxsize=1)
def network_isolation() -> tuple[list[str], str]:
    """The command prefix that starts a worker without network, and what it gives: (prefix, "isolated"), or
    ([], why not) where unprivileged user and network namespaces are not available."""
    try:
        done = subprocess.run(NETWORK_NAMESPACE + ["true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as error:
        return [], f"not isolated: cannot run unshare ({error})"
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return [], f"not isolated: unshare failed ({reason[-1] if reason else f'exit {done.returncode}'})"
    return list(NETWORK_NAMESPACE), "isolated"


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


__all__ = ["NETWORK_NAMESPACE", "WORKER_SCRIPT", "WorkerOutcome", "classify", "network_isolation", "run_worker",
           "worker_command", "worker_environment"]
