"""Run one worker process in the sandbox, with a time limit, and turn however it ended into a status.

Each worker (`python worker.py /dev/fd/N`, N a pipe holding the request) runs in a sandbox of its own
(`cudalint.sandbox`: a private directory, a scrubbed environment, namespaces and a read-only file system
where the machine allows them, resource limits with the GPU stage's address space unlimited, no Unix
sockets, and everything it started killed at its end). It
sends its progress through a pipe (the request's `channel`) at every stage; the parent reads it whatever
happened, so a crash, a hang or an out-of-memory is reported with the stage it happened in, and never
stops the batch.

The verdict of a run is never the run worker's word, since the solution's code runs in that process
and can say anything there: the worker sends the candidate's output tensors through a second pipe into
a file only this process holds (unlinked), and a judge worker that never loads the solution compares
them with the reference's (`judged`). What the run worker says can only fail it.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from dataclasses import dataclass, field

from cudalint.sandbox import GIB, Channel, Isolation, Limits, private_directory, run_sandboxed

WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
TAIL_BYTES = 6000
PROGRESS_LIMIT = 16 << 20  # the progress a worker may send (snapshots of a few kB each)
OUTPUTS_LIMIT = 64 * GIB  # the candidate outputs a run worker may send (its trials' output tensors)


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

    def to_dict(self) -> dict:
        return {"status": self.status, "message": self.message, "returncode": self.returncode,
                "signal": self.signal, "timed_out": self.timed_out, "seconds": round(self.seconds, 3),
                "stage": self.result.get("stage"), "stderr_tail": self.stderr_tail[-2000:]}


def worker_command(python: str | None = None) -> list[str]:
    """The command that starts a worker: the interpreter (default: this one) and the worker script."""
    return [python or sys.executable, WORKER_SCRIPT]


def run_worker(command: list[str], request: dict, timeout: float, env: dict | None = None,
               workdir: str | None = None, prefix: list[str] | None = None, on_timeout=None,
               isolated: Isolation | None = None, outputs_into=None, outputs_from=None,
               writable: tuple[str, ...] = (), unix_sockets: bool = False, clock=None,
               stdout_into: Channel | None = None, grant=None) -> WorkerOutcome:
    """Run `prefix + command + [/dev/fd/N]` (N: a pipe holding the request) in the sandbox with `env` for at
    most `timeout` seconds.

    `workdir` is the worker's own private directory (None: a new one, removed after); with `isolated`
    namespaces, it and `writable` (the build cache) are all the worker can write. `unix_sockets`: for
    a worker that uses the GPU (CUDA needs them; socket files are hidden instead). `request` is
    sent as JSON with `channel` (the progress pipe) and `timeout` added, and `outputs`: the write end
    of a pipe drained into the open file `outputs_into` (a run worker's candidate outputs), or the file
    descriptor of `outputs_from` (the judge reads them). `prefix` wraps the command (compute-sanitizer).
    `on_timeout(partial_result)` runs after a kill (to clean up a lock). `clock` (a `clock.Timekeeper`) times
    the worker's timed rounds from here: its pipes are passed and named in the request. `stdout_into`: a
    `Channel` the standard output goes to instead of a file in the worker's directory (compute-sanitizer's
    report: a pipe can be written to by the worker, never rewritten). `grant` (a `turns.GpuGrant`): the
    worker waits for its turn on the GPU before its first CUDA call; the wait is not counted against
    `timeout`, nor in the outcome's seconds, and the GPU is taken back once the process has ended."""
    own_dir = workdir is None
    directory = workdir or private_directory(prefix="cudalint-verify-")
    stdout_path = os.path.join(directory, f"{request.get('mode', 'job')}.stdout")
    stderr_path = stdout_path[:-len(".stdout")] + ".stderr"
    progress = Channel(PROGRESS_LIMIT)
    outputs = Channel(OUTPUTS_LIMIT, into=outputs_into) if outputs_into is not None else None
    if outputs is not None:
        request = dict(request, outputs=outputs.fd)
    elif outputs_from is not None:
        outputs_from.seek(0)
        request = dict(request, outputs=outputs_from.fileno())
    if clock is not None:
        request = dict(request, **clock.request())
    if grant is not None:
        request = dict(request, **grant.request())
    request = dict(request, channel=progress.fd, timeout=timeout)
    # the request is read from a pipe (/dev/fd/N), not from a file another worker could rewrite first
    request_fd = _pipe_holding(json.dumps(request).encode("utf-8"))
    argv = list(prefix or []) + list(command) + [f"/dev/fd/{request_fd}"]
    passed = (request_fd, progress.fd) + ((request["outputs"],) if "outputs" in request else ())
    passed += clock.pass_fds() if clock is not None else ()
    passed += grant.pass_fds() if grant is not None else ()
    try:
        with open(stdout_path, "wb") as stdout, open(stderr_path, "wb") as stderr:
            finished = run_sandboxed(argv, directory, env if env is not None else dict(os.environ), timeout,
                                     worker_limits(timeout), isolated, pass_fds=passed,
                                     stdout=stdout if stdout_into is None else stdout_into.fd,
                                     stderr=stderr, writable=writable, unix_sockets=unix_sockets,
                                     paused=grant.waited if grant is not None else None,
                                     stop=grant.withdrawn if grant is not None else None)
        waited = 0.0
        if grant is not None:
            grant.finish()  # the process has ended: the GPU is free for the next
            waited = grant.waited()
        sent = progress.read()
        if outputs is not None:
            outputs.read()
        if finished.error:
            return WorkerOutcome("worker_error", f"cannot start the worker: {finished.error}", seconds=0.0)
        stdout_tail = _tail(stdout_path) if stdout_into is None else \
            stdout_into.read()[-TAIL_BYTES:].decode("utf-8", errors="replace")
        outcome = WorkerOutcome("", "", last_state(sent), finished.returncode, finished.signal, finished.timed_out,
                                max(finished.seconds - waited, 0.0), stdout_tail, _tail(stderr_path))
        if outputs is not None and outputs.overflowed:
            outcome.result["outputs_overflowed"] = True
    finally:
        os.close(request_fd)
        for channel in (progress, outputs):
            if channel is not None:
                channel.started()
        if clock is not None:
            clock.finish()
        if grant is not None:
            grant.finish()
        if own_dir:
            _remove_tree(directory)
    if outcome.timed_out and on_timeout is not None:
        on_timeout(outcome.result)
    outcome.status, outcome.message = classify(outcome, timeout)
    return outcome


def _pipe_holding(data: bytes) -> int:
    """The read end of a pipe that holds `data` and nothing more (its write end closed once written)."""
    read_end, write_end = os.pipe()

    def write() -> None:
        with open(write_end, "wb") as pipe:
            pipe.write(data)

    threading.Thread(target=write, daemon=True).start()
    return read_end


def last_state(sent: bytes) -> dict:
    """The last complete progress snapshot a worker sent (one JSON object a line)."""
    for line in reversed(sent.splitlines()):
        try:
            state = json.loads(line)
        except ValueError:
            continue
        if isinstance(state, dict):
            return state
    return {}


def judged(run: WorkerOutcome, judge: WorkerOutcome | None, timing: dict | None = None) -> WorkerOutcome:
    """A run's outcome with the judge's verdict: the run worker's own word can fail the candidate, never
    pass it; "correct" is the judge's, from outputs it compared itself. `timing` (`clock.timing_record`,
    from the parent's clocks) replaces whatever the run worker said of its speed."""
    run.result.pop("timing", None)
    if run.status != "correct":
        return run
    if judge is not None and judge.status not in ("correct", "incorrect"):
        checked = judge.result.get("correctness")
        if str(judge.result.get("stage", "")).startswith("timing") and isinstance(checked, dict) and "ok" in checked:
            # it died timing the reference, after its verdict (sent before the timing): the verdict stands
            judge.status, judge.message = ("correct" if checked["ok"] else "incorrect"), checked.get("message", "")
    if judge is None or judge.status not in ("correct", "incorrect") or run.result.get("outputs_overflowed"):
        why = "the outputs were larger than the limit" if run.result.get("outputs_overflowed") else \
            (judge.message if judge is not None else "it did not run")
        run.status, run.message = "worker_error", f"the judge could not check the outputs: {why}"
        return run
    run.result["self_check"] = run.result.get("correctness")
    run.result["correctness"] = judge.result.get("correctness")
    run.status, run.message = judge.status, judge.message
    if judge.status == "correct" and timing is not None:
        run.result["timing"] = timing
        if timing["status"] == "rejected":
            run.message += f"; timing rejected: {timing['message']}"
    return run


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


__all__ = ["WORKER_SCRIPT", "WorkerOutcome", "classify", "judged", "last_state", "run_worker", "worker_command",
           "worker_limits"]
