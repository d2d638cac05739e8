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
from cudalint.verify.turns import GpuTurns, Turn


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
    # with overlap: when each worker of the job held its GPU ({"worker", "granted", "released"}, time.time())
    held: list = field(default_factory=list)


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


def execute(job: WorkerJob, turn: Turn | None = None) -> JobResult:
    """Run `job` in a worker process on this host, with this host's toolchain environment, scrubbed, in a
    private directory of its own (under the batch's work directory, or a temporary one removed after). A
    run is judged: its candidate outputs are compared by a second worker, in a directory of its own, that
    never loads the solution. With `turn` (its GPU's `turns.GpuTurns`: overlap), the run's worker and its
    judge both start at once and each uses the GPU only in its turn; the judge gets the run's outputs and
    nonces with its grant, or is withdrawn when the run failed."""
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
        grant = turn.grant(0) if turn is not None else None
        with tempfile.TemporaryFile(dir=job.workdir) as outputs:
            judge = _Judge(job, outputs, candidate_clock, turn)
            judge_directory = private()
            judge_run = functools.partial(outcome_of, env=_environment(job, judge_directory), workdir=judge_directory)
            if turn is not None:
                judge.start(judge_run)
            try:
                outcome = outcome_of(request, env=_environment(job, directory), workdir=directory,
                                     outputs_into=outputs, writable=writable, clock=candidate_clock, grant=grant)
                verdict, judge_clock = judge.verdict(judge_run, outcome.status == "correct")
            finally:
                judge.close()  # a judge started beside a run that raised here must not wait on forever
            timing = None
            if verdict is not None and candidate_clock is not None:
                timing = clock.timing_record(candidate_clock, judge_clock, verdict.result.get("timing_check"),
                                             bool(job.request.get("compile")),
                                             outcome.result.get("timing_self_reported"),
                                             verdict.result.get("timing_reference_events"))
                if verdict.result.get("compiled_error"):
                    timing["compiled_error"] = verdict.result["compiled_error"]
        held = [{"worker": name, "granted": round(g.held[0], 6), "released": round(g.held[1], 6)}
                for name, g in (("run", grant), ("judge", judge.grant)) if g is not None and g.held]
        return JobResult(judged(outcome, verdict, timing), network=network, held=held)
    finally:
        if job.workdir is None:
            for directory in directories:
                shutil.rmtree(directory, ignore_errors=True)


class _Judge:
    """A run's judge worker (`worker.py`'s `judge` mode; it never loads the solution). Without a turn it starts
    once the run has ended correct, its request holding the run's timing rounds (projections, nonces). With a
    turn (overlap) it starts beside the run (`start`), prepares, and waits: its grant brings those, once the
    run has ended correct, or it is withdrawn."""

    def __init__(self, job: WorkerJob, outputs, candidate_clock: clock.Timekeeper | None, turn: Turn | None) -> None:
        self.request = dict(job.request, mode="judge", cache_dir=None)
        self.outputs = outputs
        self.candidate_clock = candidate_clock
        self.repeat = 2 if job.request.get("compile") else 1  # then the reference's torch.compile
        self.grant = turn.grant(1, opened=False) if turn is not None else None
        self.clock: clock.Timekeeper | None = None
        self._thread: threading.Thread | None = None
        self._outcome: WorkerOutcome | None = None

    def start(self, run) -> None:
        """Start the judge beside the run: its clock's nonces and the run's outputs come later (`verdict`)."""
        if self.candidate_clock is not None:
            self.clock = clock.Timekeeper(self.candidate_clock.seeds * self.repeat, self.candidate_clock.iterations)
        # a description of the outputs file of its own (offset 0), read after the grant: the run's outputs are
        # written through ours meanwhile
        reader = open(f"/proc/self/fd/{self.outputs.fileno()}", "rb")  # noqa: SIM115 - closed by the thread

        def judge() -> None:
            with reader:
                self._outcome = run(self.request, outputs_from=reader, clock=self.clock, grant=self.grant)

        self._thread = threading.Thread(target=judge, daemon=True)
        self._thread.start()

    def verdict(self, run, correct: bool) -> tuple[WorkerOutcome | None, clock.Timekeeper | None]:
        """The judge's outcome and clock (None, None when the run was not correct: nothing to judge)."""
        if not correct:
            return None, None  # one started beside the run is withdrawn (`close`)
        fields, nonces = {}, None
        candidate = self.candidate_clock
        if candidate is not None and candidate.complete():
            fields["timing_rounds"] = [{"projections": r.projections} for r in candidate.rounds]
            nonces = [r.nonce for r in candidate.rounds] * self.repeat
        elif candidate is not None:
            fields["timing"] = False  # the candidate's timing cannot be used: the reference is not timed
        if self._thread is None:
            if nonces is not None:
                self.clock = clock.Timekeeper(candidate.seeds * self.repeat, candidate.iterations, nonces)
            return run(dict(self.request, **fields), outputs_from=self.outputs, clock=self.clock), self.clock
        if nonces is not None:
            self.clock.use_nonces(nonces)
        self.grant.open(fields)
        self._thread.join()
        return self._outcome, self.clock if nonces is not None else None

    def close(self) -> None:
        """A judge started beside its run and never given its grant is withdrawn (killed); then it has ended."""
        if self._thread is not None:
            if not self.grant.opened():
                self.grant.withdraw()
            self._thread.join()


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

    def run_on_gpus(self, jobs: list[WorkerJob], gpus: list[Gpu], done: JobDone, overlap: int = 1) -> None:
        """Run GPU jobs, one worker process at a time on each GPU; with `overlap` above 1, up to that many
        jobs per GPU at once (at most one per core), whose workers take turns on it (`turns`)."""
        per_gpu = max(1, min(overlap, (os.cpu_count() or 1) // max(1, len(gpus))))
        turns = {gpu.id: GpuTurns() for gpu in gpus} if per_gpu > 1 else {}
        order = {id(job): number for number, job in enumerate(jobs)}

        def run(job: WorkerJob, gpu: Gpu) -> None:
            gpu_turns = turns.get(gpu.id)
            result = execute(dataclasses.replace(job, workdir=self.workdir, visible=gpu.id),
                             gpu_turns.turn(order[id(job)]) if gpu_turns is not None else None)
            result.gpu = {"id": gpu.id, "name": gpu.name}
            if result.held:
                result.gpu["held"] = result.held
            done(job, result)

        spread(jobs, gpus, run, per_gpu)

    def close(self) -> None:
        """Nothing to release: the batch removes its work directory."""


def spread(jobs: list, gpus: list[Gpu], work: Callable, per_gpu: int = 1) -> None:
    """Run `work(job, gpu)` for every job, in their order, at most `per_gpu` jobs at a time on each GPU."""
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

    slots = [gpu for _ in range(per_gpu) for gpu in gpus][:max(1, len(jobs))]
    threads = [threading.Thread(target=serve, args=(gpu,), daemon=True) for gpu in slots]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


__all__ = ["JobDone", "JobResult", "LocalExecutor", "WorkerJob", "cache_namespace", "drop_locks", "execute",
           "isolation_record", "network_state", "spread", "worker_isolation"]
