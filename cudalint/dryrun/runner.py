"""Run the dry-run worker for a solution and its reference, and keep its facts in the cache.

The worker runs in a process of its own (see worker.py): one server process per cudalint process imports
torch once and forks a child per solution, so that a solution costs its own run and not torch's import.
The server runs in the sandbox the GPU stage uses too (cudalint/sandbox.py: a private directory, an
environment scrubbed of credentials, user, PID, mount and network namespaces where the machine allows
them with the file system read-only but for that directory, no Unix sockets, process and file limits,
everything killed when it ends); each child runs in a session of its own under its solution's CPU-time
and memory limits and is killed, with whatever it started, at the wall-clock limit.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from cudalint.caching import cache_root, mark_used_and_prune
from cudalint.dryrun.facts import DryRunFacts

WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
# the worker's code: the script and the modules it imports from beside it (the cache key hashes them all)
WORKER_FILES = tuple(os.path.join(os.path.dirname(WORKER_SCRIPT), name) for name in
                     ("worker.py", "cuda_on_cpu.py", "extension_calls.py", "stand_ins.py", "watching.py"))
# wall clock per solution, the fork included: the limit of a hang; CPU work is bounded by CPU_SECONDS, so
# that a loaded machine (wall clock several times the CPU time) does not cut level-3 models short
TIMEOUT_SECONDS = 60.0
CPU_SECONDS = 15
MEMORY_BYTES = 4 * 1024 ** 3  # on top of what the server already maps
REAL_LIMIT = 1 << 22  # inputs with more elements than this run on fake tensors
SEED = 42  # KernelBench's default seed


def _server_limits():
    from cudalint.sandbox import GIB, Limits

    # the server's own: each child lowers the CPU time and address space to its solution's budget
    return Limits(cpu_seconds=None, address_space=None, processes=256, file_size=GIB, open_files=1024)


def torch_version() -> str | None:
    """The installed torch's version, without importing it; None when torch is not installed."""
    if importlib.util.find_spec("torch") is None:
        return None
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def run_dry(solution_text: str, reference: str | None, extension: list[dict], *, use_cache: bool = True,
            timeout: float = TIMEOUT_SECONDS) -> DryRunFacts:
    """The facts of running the solution `solution_text` against the reference file `reference` (None: the
    solution's own `Model`) with `extension` (extension.py's model) standing in for its compiled code."""
    version = torch_version()
    if version is None:
        return DryRunFacts.skip("dry run skipped: torch is not installed")
    try:
        texts = [solution_text] + ([_read(reference)] if reference else [])
    except OSError as error:
        return DryRunFacts.skip(f"dry run skipped: cannot read the reference {error.filename}: {error.strerror}")
    key = _key(texts, extension, version, timeout)
    cache = _cache_directory() if use_cache else None
    if cache is not None:
        found = _lookup(cache, key)
        if found is not None:
            return found
    facts = _server().run(solution_text, {"reference": os.path.abspath(reference) if reference else None,
                                          "extension": extension, "seed": SEED, "cpu_seconds": CPU_SECONDS,
                                          "memory_bytes": MEMORY_BYTES, "real_limit": REAL_LIMIT}, timeout)
    # a run cut short by its time or memory limits depends on the machine's load: run it again next time
    if cache is not None and not facts.skipped and (facts.data.get("error") or {}).get("cause") != "limits":
        _store(cache, key, facts)
    return facts


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        return handle.read()


# ------------------------------------------------------------------------------------------- the cache


def _key(texts: list[str], extension: list[dict], version: str, timeout: float) -> str:
    from cudalint.version import __version__

    worker = hashlib.sha256()
    for path in WORKER_FILES:
        with open(path, "rb") as handle:
            worker.update(handle.read())
    parts = [__version__, version, worker.hexdigest(), json.dumps(extension, sort_keys=True),
             repr((SEED, CPU_SECONDS, MEMORY_BYTES, REAL_LIMIT, timeout)), *texts]
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def _cache_directory() -> str | None:
    root = cache_root()
    if root is None:
        return None
    directory = os.path.join(root, "dryrun-1")
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError:
        return None
    mark_used_and_prune(directory)
    return directory


def _lookup(directory: str, key: str) -> DryRunFacts | None:
    try:
        with open(os.path.join(directory, key[:2], key[2:40] + ".json"), encoding="utf-8") as handle:
            facts = DryRunFacts.from_dict(json.load(handle))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    facts.cached = True
    return facts


def _store(directory: str, key: str, facts: DryRunFacts) -> None:
    target = os.path.join(directory, key[:2], key[2:40] + ".json")
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".entry-", dir=os.path.dirname(target))
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(facts.to_dict(), file)
        os.replace(temporary, target)
    except OSError:
        return  # a full or read-only cache: the facts are simply not kept


# ------------------------------------------------------------------------------------------- the server


class _Server:
    """A worker server (`worker.py --serve`) of this process: started on first use, restarted when it dies."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None
        self.directory: str | None = None
        self.lock = threading.Lock()
        self.count = 0
        self.isolated: dict = {}

    def _start(self) -> None:
        from cudalint.sandbox import isolation, launcher_argv, private_directory, scrubbed_environment

        self.directory = private_directory(prefix="cudalint-dryrun-")
        env = scrubbed_environment(dict(os.environ), self.directory)
        env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
        isolated = isolation()
        self.isolated = {"network": isolated.network, "processes": isolated.processes, "files": isolated.files}
        argv = launcher_argv([sys.executable, WORKER_SCRIPT, "--serve"], self.directory, _server_limits(), isolated)
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        env=env, cwd=self.directory, start_new_session=True)

    def run(self, solution_text: str, request: dict, timeout: float) -> DryRunFacts:
        with self.lock:
            started = time.monotonic()
            if self.process is None or self.process.poll() is not None:
                self._start()
            self.count += 1
            result = os.path.join(self.directory, f"facts-{self.count}.json")
            solution = os.path.join(self.directory, f"solution-{self.count}.py")  # the text linted, as a file
            with open(solution, "w", encoding="utf-8", errors="surrogateescape") as handle:
                handle.write(solution_text)
            line = json.dumps(dict(request, solution=solution, id=self.count, result=result, timeout=timeout)) + "\n"
            try:
                self.process.stdin.write(line.encode("utf-8"))
                self.process.stdin.flush()
                # the server's own start (torch's import) comes on top of the first request's time
                reply = self._reply(timeout + 60.0)
            except OSError:
                reply = None
            seconds = time.monotonic() - started
            if reply is None:
                self.stop()
                return DryRunFacts(False, "the dry-run server did not answer (it was restarted)", seconds=seconds)
            data = _read_json(result)
            for path in (result, solution):
                try:
                    os.unlink(path)
                except OSError:
                    pass
            facts = _facts(reply, data, timeout, seconds)
            facts.data["sandbox"] = self.isolated  # what isolated it, in words
            return facts

    def _reply(self, timeout: float) -> dict | None:
        stream = self.process.stdout
        ready, _, _ = select.select([stream], [], [], timeout)
        if not ready:
            return None
        line = stream.readline()
        try:
            return json.loads(line) if line else None
        except ValueError:
            return None

    def stop(self) -> None:
        if self.process is not None:
            try:
                os.killpg(self.process.pid, 9)
            except (ProcessLookupError, PermissionError):
                pass
            self.process.wait()
            self.process = None
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None


def _facts(reply: dict, data: dict, timeout: float, seconds: float) -> DryRunFacts:
    """The facts of one child: what it wrote, and how it ended."""
    status = reply.get("status")
    stage = data.get("stage") or "start"
    if status == "timeout":
        data.setdefault("error", None)
        data["error"] = {"stage": stage, "type": "timeout", "cause": "limits", "line": None,
                         "message": f"no result after {timeout:g} s (killed) during {stage}"}
        return DryRunFacts(False, f"the dry run timed out during {stage}", data=data, seconds=seconds)
    code = status.get("exit") if isinstance(status, dict) else None
    if not data or code != 0:
        how = f"was killed by signal {-code}" if isinstance(code, int) and code < 0 else f"exited with status {code}"
        # the CPU-time limit (SIGXCPU) and the kernel's memory killer (SIGKILL) are the dry run's limits
        cause = "worker" if code in (None, 70) else "limits" if code in (-24, -9) else "solution"
        data["error"] = {"stage": stage, "type": "exit", "cause": cause,
                         "line": None, "message": f"the dry-run process {how} during {stage} without its facts"}
        return DryRunFacts(False, f"the dry run's process {how} during {stage}", data=data, seconds=seconds)
    error = data.get("error") or {}
    if not data.get("completed"):
        return DryRunFacts(False, f"{error.get('type', 'error')} during {error.get('stage', stage)}: "
                                  f"{(error.get('message') or '')[:200]}", data=data, seconds=seconds)
    return DryRunFacts(True, None, data=data, seconds=seconds)


def _read_json(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            value = json.load(handle)
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


_servers: dict[int, _Server] = {}


def _server() -> _Server:
    """This process's server (a forked process gets its own)."""
    pid = os.getpid()
    if pid not in _servers:
        _servers.clear()
        _servers[pid] = _Server()
    return _servers[pid]


__all__ = ["DryRunFacts", "run_dry", "torch_version"]
