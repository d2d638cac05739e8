"""One worker run, wherever it happens: the job (what to run, on which kind of slot) and its execution.

The batch (`cudalint.verify.runner`) turns each build, correctness-and-timing run and sanitizer run into a
`WorkerJob`; an executor runs the jobs, on this machine's cores and GPUs (`LocalExecutor`) or as tasks of a
Ray cluster (`cudalint.verify.ray_cluster.RayExecutor`); and `execute` runs one job on the host that got
it. The scrubbed environment, the network namespace and the worker process with its time limit
(`cudalint.verify.isolation`) are that host's, so generated code is isolated the same way everywhere.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import queue
import shutil
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from cudalint.verify import clock, diagnostics, launch_counter
from cudalint.verify.gpus import Gpu, detect_gpus
from cudalint.sandbox import Channel, Isolation, isolation, private_directory, scrubbed_environment
from cudalint.verify.isolation import WorkerOutcome, judged, run_worker, worker_command


SANITIZER_LOG_LIMIT = 64 << 20  # what is read of compute-sanitizer's log (--print-limit keeps it far smaller)


@dataclass
class WorkerJob:
    """One worker process to run: a build (on a CPU slot), or a run or sanitizer run (on a GPU slot)."""

    group: int  # the candidate's index in the batch: a candidate's run finds the files of its build
    mode: str  # build, pch, run, sanitize or probe (`cudalint/verify/worker.py`)
    request: dict
    timeout: float
    gpu: bool  # needs a GPU of its own (run, sanitize); a build sees none
    device: str = "cuda"
    command: list[str] | None = None  # the worker command (a stand-in in tests); None: worker.py
    python: str | None = None  # the interpreter of worker.py on the executing host; None: the host's own
    isolate_network: bool = True
    pass_env: tuple[str, ...] = ()
    extra_env: dict = field(default_factory=dict)
    arch: str = ""  # TORCH_CUDA_ARCH_LIST
    visible: str | None = None  # CUDA_VISIBLE_DEVICES of a GPU job: set by the executor that places it
    sanitizer: dict | None = None  # {"tool", "executable", "kernels"}: run the worker under compute-sanitizer
    workdir: str | None = None  # the batch's directory, where the job's private one is made; None: a temporary one
    files: dict | None = None  # request key -> (file name, bytes): written on the host (a cluster's nodes)


@dataclass
class JobResult:
    outcome: WorkerOutcome
    ran: bool = True  # false: the job could not start there (the sanitizer is not installed)
    log: str = ""  # compute-sanitizer's log
    network: str = ""  # the network isolation the worker had
    gpu: dict = field(default_factory=dict)  # where a GPU job ran: {"id", "name"} (and "node" on a cluster)


def worker_isolation(isolate: bool, standin: bool) -> Isolation | None:
    """The namespaces a worker runs in, with or without network (None: none, for a stand-in worker of the
    tests)."""
    return None if standin else isolation(network=not isolate)


def network_state(isolate: bool, standin: bool) -> str:
    """What the worker's network is, in words."""
    if standin:
        return "not isolated (a stand-in worker)"
    return worker_isolation(isolate, standin).network


def isolation_record(isolate: bool, standin: bool) -> dict:
    """What isolated the workers, in words, for each candidate's record."""
    isolated = worker_isolation(isolate, standin)
    why = "a stand-in worker"
    return {"environment": "scrubbed", "home": "private", "directory": "private to each worker",
            "network": network_state(isolate, standin),
            "processes": isolated.processes if isolated else f"shared PID namespace ({why})",
            "files": isolated.files if isolated else f"writable ({why})",
            "unix_sockets": "refused to builds; GPU workers keep them (CUDA needs them), their socket files hidden "
                            "where the file system is confined",
            "verdict": "judge (a worker that never loads the solution)"}


def execute(job: WorkerJob) -> JobResult:
    """Run `job` in a worker process on this host, with this host's toolchain environment, scrubbed, in a
    private directory of its own (under the batch's work directory, or a temporary one removed after). A
    run is judged: its candidate outputs are compared by a second worker, in a directory of its own, that
    never loads the solution."""
    directories = []

    def private() -> str:
        directories.append(private_directory(job.workdir, prefix=f"{job.mode}-{job.group}-"))
        return directories[-1]

    standin = job.command is not None
    isolated, network = worker_isolation(job.isolate_network, standin), network_state(job.isolate_network, standin)
    command = job.command or worker_command(job.python)
    try:
        directory = private()
        if job.sanitizer:
            return _sanitize(job, command, _environment(job, directory), directory, isolated, network)
        outcome_of = functools.partial(run_worker, command, timeout=job.timeout, on_timeout=drop_locks,
                                       isolated=isolated, unix_sockets=_uses_cuda(job))
        request, writable = _confined(job)
        if job.mode != "run":
            return JobResult(outcome_of(request, env=_environment(job, directory), workdir=directory,
                                        writable=writable), network=network)
        # the candidate outputs go to a file no worker can name (unlinked), read by the judge through its fd;
        # the speed is the parent's clock's (`clock`), for the candidate here and for the reference in the judge
        timed = bool(job.request.get("timing", True))
        rounds, iterations = clock.schedule(int(job.request.get("timing_trials", 100)))
        candidate_clock = clock.Timekeeper(clock.round_seeds(rounds), iterations) if timed else None
        with tempfile.TemporaryFile(dir=job.workdir) as outputs:
            outcome = outcome_of(request, env=_environment(job, directory), workdir=directory,
                                 outputs_into=outputs, writable=writable, clock=candidate_clock)
            verdict, judge_clock, timing = None, None, None
            if outcome.status == "correct":  # the judge writes nothing but its own directory
                judge_directory = private()
                request = dict(job.request, mode="judge", cache_dir=None)
                if candidate_clock is not None and candidate_clock.complete():
                    repeat = 2 if job.request.get("compile") else 1  # then the reference's torch.compile
                    judge_clock = clock.Timekeeper(candidate_clock.seeds * repeat, iterations,
                                                   [r.nonce for r in candidate_clock.rounds] * repeat)
                    request["timing_rounds"] = [{"projections": r.projections} for r in candidate_clock.rounds]
                verdict = outcome_of(request, env=_environment(job, judge_directory), workdir=judge_directory,
                                     outputs_from=outputs, clock=judge_clock)
                if candidate_clock is not None:
                    timing = clock.timing_record(candidate_clock, judge_clock, verdict.result.get("timing_check"),
                                                 bool(job.request.get("compile")),
                                                 outcome.result.get("timing_self_reported"),
                                                 verdict.result.get("timing_reference_events"))
                    if verdict.result.get("compiled_error"):
                        timing["compiled_error"] = verdict.result["compiled_error"]
        return JobResult(judged(outcome, verdict, timing), network=network)
    finally:
        if job.workdir is None:
            for directory in directories:
                shutil.rmtree(directory, ignore_errors=True)


def _uses_cuda(job: WorkerJob) -> bool:
    """The worker starts CUDA, which cannot start without Unix sockets (builds see no GPU)."""
    return job.gpu and job.device == "cuda"


def cache_namespace(cache_dir: str, solution: bytes) -> str:
    """The part of the build cache one candidate's workers write: `cache_dir/candidates/<its solution's
    digest>`, so that no candidate can plant a library or a compile error under another's key."""
    return os.path.join(cache_dir, "candidates", hashlib.sha256(solution).hexdigest()[:32])


def _confined(job: WorkerJob) -> tuple[dict, tuple[str, ...]]:
    """The job's request, with the build cache narrowed to the candidate's namespace (`cache_namespace`)
    and the shared precompiled headers (`pch_dir`, only read there), and the one place outside its own
    directory the worker writes: that namespace; for the `pch` worker (no solution), the headers."""
    cache_dir = job.request.get("cache_dir")
    if not cache_dir:
        return job.request, ()
    pch = os.path.join(cache_dir, "pch")
    if job.mode == "pch":
        os.makedirs(pch, exist_ok=True)
        return dict(job.request, pch_dir=pch), (pch,)
    try:
        with open(job.request.get("solution") or "", "rb") as handle:
            namespace = cache_namespace(cache_dir, handle.read())
    except OSError:  # no solution (a probe), or none to read: nothing of the cache is writable
        return job.request, ()
    os.makedirs(namespace, exist_ok=True)
    return dict(job.request, cache_dir=namespace, pch_dir=pch), (namespace,)


def _environment(job: WorkerJob, directory: str) -> dict:
    env = scrubbed_environment(dict(os.environ), directory, job.pass_env)
    if job.device == "cuda":
        env["CUDA_VISIBLE_DEVICES"] = job.visible if job.visible is not None else ""
        if job.arch:
            env["TORCH_CUDA_ARCH_LIST"] = job.arch
    env.setdefault("PYTHONUNBUFFERED", "1")
    env.update(job.extra_env)
    return env


def _sanitize(job: WorkerJob, command: list[str], env: dict, directory: str, isolated, network: str) -> JobResult:
    """A sanitizer run: the worker under compute-sanitizer, whose log is read back."""
    executable = job.sanitizer["executable"]
    if shutil.which(executable) is None and not os.path.isfile(executable):
        return JobResult(WorkerOutcome("not_run", f"{executable} not found"), ran=False, network=network)
    request, writable = _confined(job)
    # the report: compute-sanitizer's standard output, a pipe read here. The worker shares it and a candidate can
    # add to it, never take back what compute-sanitizer wrote (a file, even unlinked, it could rewrite through
    # /proc/<compute-sanitizer's pid>/fd; namespaces apart from compute-sanitizer's would hide that, but on the
    # H200 compute-sanitizer cannot start its target in them: "unshare failed: Invalid argument")
    # without the counter the worker counts no launch, and claims none
    counter = launch_counter.build(job.workdir or os.path.dirname(directory))
    if counter is not None:
        env = launch_counter.preload(env, counter)
    report = Channel(SANITIZER_LOG_LIMIT)
    prefix = diagnostics.sanitizer_command(job.sanitizer["tool"], executable, job.sanitizer["kernels"])
    outcome = run_worker(command, request, job.timeout, env=env, workdir=directory, prefix=prefix,
                         on_timeout=drop_locks, isolated=isolated, writable=writable,
                         unix_sockets=_uses_cuda(job), stdout_into=report)
    log = report.read().decode("utf-8", errors="replace")
    return JobResult(outcome, log=log, network=network)


def drop_locks(partial: dict) -> None:
    """After killing a worker mid-build: remove the build locks it held (torch would wait on them forever)."""
    for extension in partial.get("extensions") or []:
        directory = extension.get("directory")
        if directory and not extension.get("ok"):
            try:
                os.remove(os.path.join(directory, "lock"))
            except OSError:
                pass


# the batch's callback for each finished job: (job, its result)
JobDone = Callable[[WorkerJob, JobResult], None]


class LocalExecutor:
    """Jobs on this machine: builds in parallel on its cores, GPU jobs one at a time on each GPU."""

    local = True

    def __init__(self, workdir: str, build_jobs: int | None = None) -> None:
        self.workdir = workdir
        self.build_jobs = build_jobs

    def gpus(self, explicit: list[str] | None) -> list[Gpu]:
        return detect_gpus(explicit)

    def run_builds(self, jobs: list[WorkerJob], done: JobDone) -> None:
        cores = os.cpu_count() or 2
        parallel = max(1, min(self.build_jobs or max(1, min(8, cores // 2)), len(jobs)))
        threads_each = max(1, -(-cores // parallel))  # ninja jobs per build: the cores, shared

        def build(job: WorkerJob) -> None:
            placed = dataclasses.replace(job, workdir=self.workdir,
                                         extra_env=dict(job.extra_env, MAX_JOBS=str(threads_each)))
            done(job, execute(placed))

        with ThreadPoolExecutor(max_workers=parallel) as pool:
            list(pool.map(build, jobs))

    def run_on_gpus(self, jobs: list[WorkerJob], gpus: list[Gpu], done: JobDone) -> None:
        def run(job: WorkerJob, gpu: Gpu) -> None:
            result = execute(dataclasses.replace(job, workdir=self.workdir, visible=gpu.id))
            result.gpu = {"id": gpu.id, "name": gpu.name}
            done(job, result)

        spread(jobs, gpus, run)

    def close(self) -> None:
        """Nothing to release: the batch removes its work directory."""


def spread(jobs: list, gpus: list[Gpu], work: Callable) -> None:
    """Run `work(job, gpu)` for every job, at most one job at a time on each GPU."""
    tasks: queue.Queue = queue.Queue()
    for job in jobs:
        tasks.put(job)

    def serve(gpu: Gpu) -> None:
        while True:
            try:
                job = tasks.get_nowait()
            except queue.Empty:
                return
            work(job, gpu)

    threads = [threading.Thread(target=serve, args=(gpu,), daemon=True) for gpu in gpus[:max(1, len(jobs))]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


__all__ = ["JobDone", "JobResult", "LocalExecutor", "WorkerJob", "cache_namespace", "drop_locks", "execute",
           "isolation_record", "network_state", "spread", "worker_isolation"]
