"""The verify pipeline: lint gate, parallel builds, one run worker per GPU, sanitizer runs, results.

Phases, each finished for the whole batch before the next starts, so that the compilers' CPU load never
disturbs a timing:

1. References: each solution's reference (given, or found by level and problem in a problems directory).
2. Lint gate (in this process): a file the pre-filter rejects, judged with the candidate's reference as
   `check --reference`/`prefilter` judge it, is `rejected` and never built.
3. Build: the shared precompiled headers first (a `pch` worker, which loads no solution), then `build`
   workers in parallel (no GPU visible to them), each executing its solution module with `load_inline`
   routed into its own part of the build cache (`$CUDALINT_CACHE_DIR/verify`, else ~/.cache/cudalint/verify:
   `candidates/<digest of the solution>`, the only part of it the candidate's workers can write); a
   compile error is final, mapped back to the .py lines.
4. Run: one worker process per candidate, at most one at a time using each GPU (`CUDA_VISIBLE_DEVICES`):
   correctness trials, then the candidate's timed rounds, clocked by this process; a judge worker that never
   loads the solution checks the outputs and times the reference the same way (`cudalint.verify.clock`).
   With `overlap`, the next candidates' workers start (interpreter, torch import) while one has the GPU, and
   take it in turns this process grants (`cudalint.verify.turns`).
5. Sanitize (when asked): the candidate's forward under compute-sanitizer, one run per tool.

Every worker has a time limit; however it ends (crash, illegal address, hang, out of memory) becomes the
candidate's status, and the batch goes on. The workers run on this machine (`jobs.LocalExecutor`) or as
tasks of a Ray cluster (`ray_cluster.RayExecutor`, `VerifyOptions.ray`); with a results file
(`resume.ResultsFile`), each candidate's record is appended once it is finished, and a candidate whose
record is there already is not verified again.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from cudalint.verify import diagnostics
from cudalint.verify.build_cache import OLD_CACHE_ENV, default_cache_dir
from cudalint.verify.gpus import Gpu, arch_list
from cudalint.verify.isolation import WorkerOutcome
from cudalint.verify.jobs import JobResult, LocalExecutor, WorkerJob, execute, isolation_record
from cudalint.verify.resume import ResultsFile, candidate_key

DEFAULT_TOLERANCES = {"float32": (1e-4, 1e-4), "float16": (1e-2, 1e-2), "bfloat16": (1e-2, 1e-2),
                      "float64": (1e-7, 1e-7)}
# "kernelbench": KernelBench's current eval (src/kernelbench/eval.py, main 2026); "kernelbench-v0.1": its v0/v0.1
PARITIES = ("cudalint", "kernelbench", "kernelbench-v0.1")
KERNELBENCH_PARITIES = ("kernelbench", "kernelbench-v0.1")
PRECISIONS = ("fp32", "fp16", "bf16")  # KernelBench's `precision` (get_torch_dtype_from_string)
# KernelBench v0/v0.1: atol = rtol = 1e-2 for every float dtype (run_and_check_correctness)
KERNELBENCH_TOLERANCES = {name: (1e-2, 1e-2) for name in DEFAULT_TOLERANCES}
# KernelBench now: one tolerance for the eval's `precision`, whatever an output's dtype (get_tolerance_for_precision)
KERNELBENCH_PRECISION_TOLERANCE = {"fp32": 1e-4, "fp16": 1e-2, "bf16": 1e-2}
EXCESSIVE_SPEEDUP = 10.0  # KernelBench's excessive_speedup_threshold: flagged in its metadata, the verdict unchanged


def harness_tolerances(parity: str, precision: str = "fp32") -> dict | None:
    """The tolerances a harness compares with (None: cudalint's own, `DEFAULT_TOLERANCES`): KernelBench's current
    eval takes the tolerance of its `precision` argument for every float output, v0.1 1e-2 for all."""
    if parity == "kernelbench-v0.1":
        return dict(KERNELBENCH_TOLERANCES)
    if parity == "kernelbench":
        tolerance = KERNELBENCH_PRECISION_TOLERANCE[precision]
        return {name: (tolerance, tolerance) for name in DEFAULT_TOLERANCES}
    return None
FINAL_BEFORE_RUN = ("rejected", "no_reference", "no_gpu", "compile_error", "build_timeout", "worker_error", "built")
SCHEMA = "cudalint.verify/1"


def deprecated_settings() -> list[str]:
    """What the environment sets under a deprecated name, as lines for the CLI to show."""
    if os.environ.get(OLD_CACHE_ENV):
        return [f"${OLD_CACHE_ENV} is deprecated: set $CUDALINT_CACHE_DIR instead (the build cache is its verify/ "
                f"folder)"]
    return []


@dataclass
class VerifyOptions:
    trials: int = 5
    seed: int = 42
    tolerances: dict = field(default_factory=lambda: dict(DEFAULT_TOLERANCES))
    timing: bool = True
    warmup: int = 3
    timing_trials: int = 100
    compile: bool = False  # also time torch.compile of the reference (slow: opt-in)
    sanitize: tuple[str, ...] = ()
    lint: bool = True
    lint_options: object | None = None  # cudalint.LintOptions; None: the nearest configuration file
    poison: bool = True
    allow_tf32: bool = False
    cache_dir: str | None = None
    build_jobs: int | None = None
    gpus: list[str] | None = None  # CUDA_VISIBLE_DEVICES ids; None: all visible
    build_timeout: float = 900.0
    run_timeout: float = 300.0
    sanitize_timeout: float = 600.0
    python: str | None = None  # the interpreter of the workers (one with torch); default: this one
    device: str = "cuda"  # "cpu": run on the CPU (pure-PyTorch solutions; for tests)
    worker: list[str] | None = None  # the worker command (a stand-in in tests); default: worker.py
    sanitizer: str = "compute-sanitizer"
    fast_p: float = 1.0
    build_only: bool = False  # fill the build cache; run nothing (status `built`)
    sanitize_kernels: str = "own"  # which kernels compute-sanitizer instruments: all, own, flagged or NAME,...
    isolate_network: bool = True  # workers without network where user and network namespaces allow it
    pass_env: tuple[str, ...] = ()  # environment variables the scrubbed worker environment keeps as well
    parity: str = "cudalint"  # "kernelbench", "kernelbench-v0.1": mirror KernelBench's eval (docs/verify.md)
    precision: str = "fp32"  # KernelBench's `precision` (fp32, fp16, bf16): inputs and models cast to it (kernelbench)
    sanitize_shapes: bool = False  # sanitizer runs at reduced input sizes where the problem allows (worker.reduced_sizes)
    light_build: bool = True  # host code split off, else only the ATen headers used; as written if that fails
    # the light build's binding unit loads <torch/extension.h> precompiled (about 750 MB per C++ flag set in
    # CACHE/pch with g++ 12 and torch 2.11); off: g++ parses it in every build
    precompiled_header: bool = True
    ray: str | None = None  # run the jobs on a Ray cluster: its address, or "" for ray.init()'s (README: Ray)
    results_file: str | None = None  # JSON lines, one per finished candidate; those already there are not redone
    # run jobs in flight per GPU (local runs): the next candidates' workers start while one has the GPU, which
    # they take in turns (`turns`); 1: one job at a time. Sanitizer runs are one at a time per GPU.
    overlap: int = 1  # 2 or more: opt-in until measured on a GPU (docs/verify.md)

    def validate(self) -> VerifyOptions:
        unknown = [t for t in self.sanitize if t not in diagnostics.SANITIZER_TOOLS]
        if unknown:
            raise ValueError(f"unknown sanitizer tool(s): {', '.join(unknown)} "
                             f"(choose from {', '.join(diagnostics.SANITIZER_TOOLS)})")
        if self.trials < 1:
            raise ValueError("trials must be at least 1")
        if self.timing_trials < 1:
            raise ValueError("timing trials must be at least 1")
        if self.overlap < 1:
            raise ValueError("overlap must be at least 1")
        if self.parity not in PARITIES:
            raise ValueError(f"unknown parity {self.parity!r} (choose from {', '.join(PARITIES)})")
        if self.precision not in PRECISIONS:
            raise ValueError(f"unknown precision {self.precision!r} (choose from {', '.join(PRECISIONS)})")
        if self.precision != "fp32" and self.parity != "kernelbench":
            raise ValueError("--precision is KernelBench's argument: it needs --harness kernelbench")
        diagnostics.parse_kernel_selection(self.sanitize_kernels)
        if self.ray is not None:
            if importlib.util.find_spec("ray") is None:
                raise ValueError("--ray needs Ray: pip install 'cudalint[ray]'")
            if self.gpus is not None:
                raise ValueError("--gpus chooses this machine's GPUs; on a Ray cluster, its GPU resources are used")
        return self

    def missing_gpu(self) -> str | None:
        """Why nothing can be built or run on this machine (no GPU visible), or None: asked before any work
        (and before a model call, in `repair --verify`) so that a batch without a GPU fails at once. A Ray
        cluster's GPUs are not this machine's: they are found when the batch starts."""
        from cudalint.verify.gpus import detect_gpus

        if self.device != "cuda" or self.ray is not None or detect_gpus(self.gpus):
            return None
        return ("no CUDA GPU is visible (nvidia-smi finds none, or CUDA_VISIBLE_DEVICES hides them): the GPU "
                "stage builds and runs on one; `cudalint check` lints without it")


@dataclass
class Candidate:
    path: str
    reference: str | None = None
    level: int | None = None
    problem: int | None = None
    sample: int | None = None
    sanitize: tuple[str, ...] | None = None  # overrides VerifyOptions.sanitize for this candidate

    @property
    def name(self) -> str:
        return os.path.splitext(os.path.basename(self.path))[0]


# ------------------------------------------------------------------------------------------ candidates


def collect_candidates(path: str, reference: str | None = None, problems: str | None = None) -> list[Candidate]:
    """One solution file (with `reference`, or found in `problems`), or every solution of a run directory
    (`level_<L>_problem_<P>_sample_<S>_kernel.py`, references found in `problems`)."""
    from cudalint.harness.kernelbench import parse_run_name, problem_of_path, reference_for

    if os.path.isdir(path):
        files = sorted(os.path.join(path, name) for name in os.listdir(path) if name.endswith(".py"))
        run_files = [f for f in files if parse_run_name(f) is not None]
        files = run_files or [f for f in files if not os.path.basename(f).startswith("_")]
        if reference and len(files) > 1:
            raise ValueError("--reference names one reference; give a run directory --problems instead")
    else:
        files = [path]
    candidates = []
    for file in files:
        entry = problem_of_path(file)
        candidates.append(Candidate(
            path=file, reference=reference_for(file, reference, problems),
            level=entry.level if entry else None, problem=entry.problem if entry else None,
            sample=entry.sample if entry else None))
    return _sort(candidates)


def _sort(candidates: list[Candidate]) -> list[Candidate]:
    return sorted(candidates, key=lambda c: (c.level is None, c.level or 0, c.problem or 0, c.sample or 0, c.path))


# ----------------------------------------------------------------------------------------------- records


def new_record(candidate: Candidate) -> dict:
    return {
        "schema": SCHEMA, "name": candidate.name, "solution": candidate.path, "reference": candidate.reference,
        "level": candidate.level, "problem": candidate.problem, "sample": candidate.sample,
        "status": "pending", "passed": False, "message": "", "lint": None, "build": None, "correctness": None,
        "timing": None, "sanitizer": {}, "compile_errors": [], "notes": [], "worker": {},
        "seconds": {"lint": 0.0, "build": 0.0, "run": 0.0, "sanitize": 0.0},
    }


def _final(record: dict, status: str, message: str) -> None:
    record["status"] = status
    record["message"] = diagnostics.short_message(message or "")  # printed tensors summarised, capped
    record["passed"] = status == "correct"


# ------------------------------------------------------------------------------------------------ batch


# (phase, record) after each candidate of a phase; (phase, {"start": True, "total": n}) before a phase;
# ("resumed", record) for each candidate whose record the results file already held
ProgressCallback = Callable[[str, dict], None]


class _Batch:
    def __init__(self, candidates: list[Candidate], options: VerifyOptions, progress: ProgressCallback | None):
        self.candidates = candidates
        self.options = options.validate()
        self.progress = progress or (lambda phase, record: None)
        self.records = {id(c): new_record(c) for c in candidates}  # the same file may be listed twice
        self.index = {id(c): i for i, c in enumerate(candidates)}
        self.texts: dict[str, str | None] = {}
        # on a cluster, the default cache is each node's own ($CUDALINT_CACHE_DIR or ~/.cache there)
        self.cache_dir = os.path.abspath(options.cache_dir) if options.cache_dir else \
            (None if options.ray is not None else os.path.abspath(default_cache_dir()))
        self.workdir = tempfile.mkdtemp(prefix="cudalint-verify-")
        self.executor = None
        self.gpus: list[Gpu] = []
        self.arch = ""
        self.isolation = isolation_record(options.isolate_network, options.worker is not None)
        for record in self.records.values():
            record["isolation"] = dict(self.isolation)
        self.results_file = ResultsFile(options.results_file) if options.results_file else None
        self.settled: set[int] = set()  # the candidates whose records are complete (and in the results file)
        # held while a candidate's record changes: its sanitizer runs may finish at once, on two GPUs
        self.settle_lock = threading.RLock()

    # -------------------------------------------------------------------------------------- phases

    def run(self) -> list[dict]:
        try:
            self.resume()
            self.references()
            self.lint_gate()
            if self._pending():
                self.executor = self._executor()
                self.devices()
            if self._pending():
                self.build_phase()
            if self._pending() and self.options.build_only:
                for candidate in self._pending():
                    record = self.records[id(candidate)]
                    _final(record, "built", "built (--build-only): not run")
                    self._settle(candidate)
            if self._pending():
                self.run_phase()
            self.sanitize_phase()
            for candidate in self.candidates:
                self._settle(candidate)
            return [self.records[id(c)] for c in self.candidates]
        finally:
            if self.executor is not None:
                self.executor.close()
            shutil.rmtree(self.workdir, ignore_errors=True)

    def _executor(self):
        if self.options.ray is None:
            return LocalExecutor(self.workdir, self.options.build_jobs)
        from cudalint.verify.ray_cluster import RayExecutor

        return RayExecutor(self.options.ray or None)

    def _pending(self) -> list[Candidate]:
        return [c for c in self.candidates if self.records[id(c)]["status"] == "pending"]

    def _text(self, candidate: Candidate) -> str | None:
        if candidate.path not in self.texts:
            try:
                with open(candidate.path, encoding="utf-8") as handle:
                    self.texts[candidate.path] = handle.read()
            except (OSError, UnicodeDecodeError):
                self.texts[candidate.path] = None
        return self.texts[candidate.path]

    def _tools(self, candidate: Candidate) -> tuple[str, ...]:
        return candidate.sanitize if candidate.sanitize is not None else self.options.sanitize

    def _tools_left(self, candidate: Candidate) -> tuple[str, ...]:
        """The sanitizer runs still to come for a candidate (none before its run, nor after a failed one)."""
        record = self.records[id(candidate)]
        if record["status"] in FINAL_BEFORE_RUN or record["status"] in ("timeout", "pending"):
            return ()
        return tuple(tool for tool in self._tools(candidate) if tool not in record["sanitizer"])

    def _report(self, phase: str, candidate: Candidate) -> None:
        """A candidate's phase is over: show it, and keep its record once nothing more is to come."""
        self.progress(phase, self.records[id(candidate)])
        self._settle(candidate)

    def _settle(self, candidate: Candidate) -> None:
        record = self.records[id(candidate)]
        if record["status"] == "pending" or self._tools_left(candidate):
            return
        with self.settle_lock:
            if id(candidate) in self.settled:
                return
            self.settled.add(id(candidate))
        record["seconds"]["total"] = round(sum(record["seconds"].values()), 3)
        if self.results_file is not None:
            self.results_file.append(record)

    def resume(self) -> None:
        """With a results file: take the record of every candidate already verified with these settings."""
        if self.results_file is None:
            return
        finished = self.results_file.finished()
        for candidate in self.candidates:
            record = self.records[id(candidate)]
            key = candidate_key(candidate.path, candidate.reference, self.options, self._tools(candidate))
            record["key"] = key
            if key in finished:
                # the same contents may sit at another path now: named as listed
                naming = {k: record[k] for k in ("name", "solution", "reference", "level", "problem", "sample")}
                record.clear()
                record.update(finished[key], **naming)
                self.settled.add(id(candidate))
                self.progress("resumed", record)

    def references(self) -> None:
        for candidate in self._pending():
            record = self.records[id(candidate)]
            if not os.path.isfile(candidate.path):
                _final(record, "worker_error", f"{candidate.path}: no such file")
            elif not candidate.reference:
                _final(record, "no_reference", "no reference problem: give --reference, or --problems for a run directory "
                       "of level_<L>_problem_<P>_sample_<S>_kernel.py files")
            elif not os.path.isfile(candidate.reference):
                _final(record, "no_reference", f"{candidate.reference}: no such reference file")
            if record["status"] != "pending":
                self._report("reference", candidate)

    def lint_gate(self) -> None:
        if not self.options.lint:
            for candidate in self._pending():
                self.records[id(candidate)]["lint"] = {"ran": False}
            return
        from cudalint.findings import Severity
        from cudalint.prefilter import PrefilterItem, prefilter

        # one pre-filter call lints many candidates in one pool (each worker keeps its dry-run server, which
        # imports torch once): a round holds each file once, with its candidate's reference
        rounds: list[dict[str, str | None]] = []
        for candidate in self._pending():
            free = next((r for r in rounds if r.get(candidate.path, candidate.reference) == candidate.reference), None)
            if free is None:
                rounds.append(free := {})
            free[candidate.path] = candidate.reference
        verdicts, seconds = {}, {}
        for references in rounds:
            started = time.monotonic()
            # the pre-filter's own judgement, with each candidate's reference (and, as there, not honouring the
            # candidate's own suppression comments: it is the code being judged): one gate for check --reference,
            # prefilter, verify and repair --verify
            items = prefilter(list(references), options=self.options.lint_options, references=references).items
            share = (time.monotonic() - started) / max(len(items), 1)
            for item in items:
                verdicts[(item.path, references.get(item.path))] = item
                seconds[(item.path, references.get(item.path))] = share
        for candidate in self._pending():
            record = self.records[id(candidate)]
            key = (candidate.path, candidate.reference)
            judged = verdicts.get(key) or PrefilterItem(candidate.path, candidate.path,
                                                        error=f"{candidate.path}: the pre-filter did not lint it")
            record["seconds"]["lint"] = round(seconds.get(key, 0.0), 3)  # its share of its round
            findings = judged.findings
            record["lint"] = {
                "ran": True, "errors": sum(1 for f in findings if f.severity == Severity.ERROR),
                "warnings": sum(1 for f in findings if f.severity == Severity.WARNING),
                "findings": [{"code": f.code, "name": f.name, "severity": f.severity.value, "line": f.line,
                              "column": f.column, "message": f.message} for f in findings[:30]],
            }
            if judged.error:
                _final(record, "rejected", f"cannot lint: {judged.error}")
            elif judged.reasons:
                first = judged.reasons[0]
                _final(record, "rejected", f"lint: {len(judged.reasons)} rejecting finding(s), never built; first: "
                       f"line {first.line} {first.code} {first.name}")
            if record["status"] != "pending":
                self._report("lint", candidate)

    def devices(self) -> None:
        if self.options.device != "cuda":
            self.gpus = [Gpu("cpu")]
            return
        self.gpus = self.executor.gpus(self.options.gpus)
        if self.gpus and not all(g.capability for g in self.gpus) and self.options.worker is None \
                and self.executor.local:
            self._probe()
        self.arch = arch_list(self.gpus)
        if not self.gpus:
            where = "the Ray cluster has no GPU resources" if not self.executor.local else \
                "nvidia-smi finds none, or CUDA_VISIBLE_DEVICES hides them"  # VerifyOptions.missing_gpu
            for candidate in self._pending():
                record = self.records[id(candidate)]
                _final(record, "no_gpu", f"no CUDA GPU is visible ({where}): nothing was built or run")
                self._report("devices", candidate)

    def _probe(self) -> None:
        job = WorkerJob(-1, "probe", {"mode": "probe"}, 120.0, gpu=True, command=self.options.worker,
                        python=self.options.python, isolate_network=self.options.isolate_network,
                        pass_env=self.options.pass_env, visible=self.gpus[0].id, workdir=self.workdir)
        devices = execute(job).outcome.result.get("devices") or []
        if devices:
            capability = devices[0]["capability"]
            self.gpus = [Gpu(g.id, g.name or devices[0]["name"], g.capability or capability) for g in self.gpus]

    def _job(self, index: int, candidate: Candidate, mode: str, timeout: float, **changes) -> WorkerJob:
        options = self.options
        request = {"mode": mode, "solution": os.path.abspath(candidate.path),
                   "reference": os.path.abspath(candidate.reference) if candidate.reference else None,
                   "cache_dir": self.cache_dir, "device": options.device, "seed": options.seed,
                   "trials": options.trials, "tolerances": {k: list(v) for k, v in options.tolerances.items()},
                   "timing": options.timing, "warmup": options.warmup, "timing_trials": options.timing_trials,
                   "compile": options.compile, "poison": options.poison, "allow_tf32": options.allow_tf32,
                   "parity": options.parity, "precision": options.precision, "light_build": options.light_build,
                   "sanitize_shapes": options.sanitize_shapes,
                   "precompiled_header": options.precompiled_header}
        files = None
        if not self.executor.local:  # a cluster's nodes need not share this file system
            files = {k: (os.path.basename(request[k]), _read_bytes(request[k]))
                     for k in ("solution", "reference") if request[k]}
        return WorkerJob(index, mode, request, timeout, gpu=mode != "build", device=options.device,
                         command=options.worker, python=options.python, isolate_network=options.isolate_network,
                         pass_env=options.pass_env, arch=self.arch, files=files, **changes)

    def build_phase(self) -> None:
        # a solution that never mentions load_inline has nothing to build here (cupy, Triton or pure
        # PyTorch solutions compile, if at all, inside their run)
        pending = [c for c in self._pending() if "load_inline" in (self._text(c) or "load_inline")]
        if not pending:
            return
        self.progress("build", {"start": True, "total": len(pending)})
        if self.cache_dir:
            os.makedirs(self.cache_dir, exist_ok=True)
        if self.cache_dir and self.options.light_build and self.options.precompiled_header and self.executor.local:
            self._precompile_headers()

        def built(job: WorkerJob, result: JobResult) -> None:
            candidate = self.candidates[job.group]
            self._absorb_build(candidate, self.records[id(candidate)], result.outcome)
            self._report("build", candidate)

        self.executor.run_builds([self._job(self.index[id(c)], c, "build", self.options.build_timeout) for c in pending],
                                 built)

    def _precompile_headers(self) -> None:
        """The shared precompiled headers, made by a worker that loads no solution before any build (candidates
        only read them: one candidate's header cannot reach another's build)."""
        options = self.options
        job = WorkerJob(-1, "pch", {"mode": "pch", "cache_dir": self.cache_dir}, options.build_timeout, gpu=False,
                        device=options.device, command=options.worker, python=options.python,
                        isolate_network=options.isolate_network, pass_env=options.pass_env, arch=self.arch,
                        workdir=self.workdir)
        outcome = execute(job).outcome
        if outcome.status != "built":
            for record in self.records.values():
                record["notes"].append(f"no precompiled header: {outcome.status}: {outcome.message}"[:300])

    def _absorb_build(self, candidate: Candidate, record: dict, outcome: WorkerOutcome) -> None:
        extensions = _extensions(outcome.result)
        record["seconds"]["build"] = round(outcome.seconds, 3)
        record["build"] = {
            "status": outcome.status, "seconds": round(outcome.seconds, 3),
            "cache_hit": bool(extensions) and all(e.get("cache_hit") for e in extensions),
            "extensions": [_extension_summary(e) for e in extensions], "message": outcome.message,
        }
        record["worker"]["build"] = outcome.to_dict()
        if outcome.status == "compile_error" or any(e.get("error") for e in extensions):
            record["compile_errors"] = [m.to_dict() for m in self._compile_messages(candidate, extensions)]
        if outcome.status == "compile_error":
            first = record["compile_errors"][0] if record["compile_errors"] else None
            detail = diagnostics.CompileMessage(**first).describe() if first else outcome.message
            _final(record, "compile_error", f"build failed: {detail}")
        elif outcome.status == "timeout":
            _final(record, "build_timeout", outcome.message)
        elif outcome.status == "worker_error":
            _final(record, "worker_error", outcome.message)
        elif outcome.status not in ("built",):
            record["notes"].append(f"build worker: {outcome.status}: {outcome.message}")

    def _compile_messages(self, candidate: Candidate, extensions: list[dict]):
        source_map = diagnostics.SourceMap(candidate.path, self._text(candidate), extensions)
        return diagnostics.compile_messages(extensions, source_map)

    def run_phase(self) -> None:
        def ran(job: WorkerJob, result: JobResult) -> None:
            candidate = self.candidates[job.group]
            self._absorb_run(candidate, self.records[id(candidate)], result)
            self._report("run", candidate)

        pending = self._pending()
        self.progress("run", {"start": True, "total": len(pending)})
        jobs = [self._job(self.index[id(c)], c, "run", self.options.run_timeout) for c in pending]
        self.executor.run_on_gpus(jobs, self.gpus, ran, self.options.overlap)

    def _absorb_run(self, candidate: Candidate, record: dict, job_result: JobResult) -> None:
        outcome = job_result.outcome
        result = outcome.result
        record["seconds"]["run"] = round(outcome.seconds, 3)
        record["worker"]["run"] = outcome.to_dict()
        record["gpu"] = dict(job_result.gpu, name=result.get("device_name") or job_result.gpu.get("name", ""))
        if job_result.network:
            record["isolation"]["network"] = job_result.network
        record["correctness"] = result.get("correctness")
        record["timing"] = result.get("timing")
        record["notes"] += result.get("notes") or []
        speedup = (record["timing"] or {}).get("speedup")
        if self.options.parity == "kernelbench" and isinstance(speedup, (int, float)) and speedup > EXCESSIVE_SPEEDUP:
            record["excessive_speedup"] = True  # KernelBench's metadata flag; its verdict stands
            record["notes"].append(f"excessive speedup: {speedup:.1f}x over KernelBench's {EXCESSIVE_SPEEDUP:g}x "
                                   f"threshold (check the kernel for reward hacking)")
        extensions = _extensions(result)
        # an extension built in the run (in __init__, at the first forward, or at import where the build worker
        # did not run) is build time, not run time
        built_here = round(sum(e.get("seconds") or 0.0 for e in extensions if not e.get("cache_hit")), 3)
        record["seconds"]["build"] = round(record["seconds"]["build"] + built_here, 3)
        record["seconds"]["run"] = round(max(record["seconds"]["run"] - built_here, 0.0), 3)
        if record["build"] is None:
            record["build"] = {"status": "built-in-run", "seconds": built_here, "cache_hit": None,
                               "extensions": [_extension_summary(e) for e in extensions], "message": ""}
        else:
            record["build"]["run_load"] = [_extension_summary(e) for e in extensions]
            record["build"]["seconds_in_run"] = built_here
        if outcome.status == "compile_error" or any(e.get("error") for e in extensions):
            record["compile_errors"] = [m.to_dict() for m in self._compile_messages(candidate, extensions)]
        message = outcome.message
        if outcome.status == "compile_error" and record["compile_errors"]:
            message = "build failed: " + diagnostics.CompileMessage(**record["compile_errors"][0]).describe()
        _final(record, outcome.status, message)

    def sanitize_phase(self) -> None:
        jobs = []
        for candidate in self.candidates:
            for tool in self._tools_left(candidate):
                sanitizer = {"tool": tool, "executable": self.options.sanitizer,
                             "kernels": self._kernels_to_instrument(candidate)}
                jobs.append(self._job(self.index[id(candidate)], candidate, "sanitize", self.options.sanitize_timeout,
                                      sanitizer=sanitizer, extra_env={"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}))
        if not jobs:
            return
        if not self.gpus:
            self.devices()
        self.progress("sanitize", {"start": True, "total": len(jobs)})

        def sanitized(job: WorkerJob, result: JobResult) -> None:
            candidate = self.candidates[job.group]
            record = self.records[id(candidate)]
            tool = job.sanitizer["tool"]
            outcome = self._sanitizer_result(candidate, job, result)
            with self.settle_lock:
                record["sanitizer"][tool] = outcome
                record["seconds"]["sanitize"] = round(record["seconds"]["sanitize"] + outcome["seconds"], 3)
                self._sanitizer_verdict(record)
                self._report("sanitize", candidate)

        self.executor.run_on_gpus(jobs, self.gpus, sanitized)

    def _sanitizer_result(self, candidate: Candidate, job: WorkerJob, job_result: JobResult) -> dict:
        tool, kernels = job.sanitizer["tool"], job.sanitizer["kernels"]
        outcome = job_result.outcome
        if not job_result.ran:
            return {"ran": False, "complete": False, "tool": tool, "errors": 0, "warnings": 0, "reports": [],
                    "seconds": 0.0, "message": outcome.message}
        log = job_result.log
        reports, summary = diagnostics.parse_sanitizer_output(log, tool)
        extensions = _extensions(outcome.result)
        source_map = diagnostics.SourceMap(candidate.path, self._text(candidate), extensions)
        names = diagnostics.kernel_names(self._text(candidate), candidate.path)
        kept, other = diagnostics.candidate_reports(reports, source_map, names)
        errors = [r for r in kept if r.severity == "error"]
        # complete: the sanitized forward ran to its end, compute-sanitizer itself exited cleanly (the worker's
        # "ran" is the candidate's word: its code runs there) and the tool wrote its summary; anything else
        # (a crash at start, a timeout, out of memory) checked nothing, unless it reported errors first
        complete = outcome.status == "ran" and outcome.returncode == 0 and bool(summary.get("lines"))
        status, message = outcome.status, outcome.message
        launched = _selected_launches(outcome.result, kernels or sorted(names))
        if summary.get("internal"):  # the tool failed: its own words, not the worker's (a Python fatal-error dump)
            complete, status, message = False, "sanitizer_internal_error", "; ".join(summary["internal"])[:400]
        elif complete and launched is None:  # a clean summary of launches nobody counted shows nothing ran
            complete, status = False, "uncounted"
            message = ("the sanitizer finished, but the launches under it could not be counted (no launch counter "
                       "in the worker), so nothing shows the candidate's kernels ran")
        elif complete and not any(k["attributed"] for k in launched):
            complete, status = False, "not_launched"
            others = sorted({lib for k in launched for lib in k["other_libraries"]})
            message = (f"none of the instrumented kernels ({', '.join(kernels or sorted(names)) or 'none'}) was "
                       f"launched from the candidate's extensions: nothing was checked"
                       + (f" (a same-named kernel of {', '.join(os.path.basename(o) for o in others)} ran)"
                          if others else ""))
        # errors the summary counted that no report placed in other code holds (a report cut short by a crash):
        # with the candidate's kernels alone instrumented they are its own, kept, never lost
        elsewhere = sum(r.count for r in reports if r not in kept and (r.file or r.kernel_name))
        uncounted = max(int(summary.get("errors", 0)) - sum(r.count for r in errors) - elsewhere, 0) if kernels else 0
        return {"ran": True, "complete": complete, "tool": tool, "status": status,
                "message": message, "kernels": kernels or "all", "launches": launched,
                "sizes": outcome.result.get("sizes"),
                "errors": sum(r.count for r in errors) + uncounted, "unattributed_errors": uncounted,
                "warnings": sum(r.count for r in kept if r.severity != "error"),
                "reports": [r.to_dict() for r in kept], "other_reports": other, "summary": summary.get("lines", []),
                "seconds": round(outcome.seconds, 3), "log_tail": log[-3000:] if not kept and outcome.status != "ran"
                else ""}

    def _kernels_to_instrument(self, candidate: Candidate) -> list[str]:
        """The kernel names compute-sanitizer is limited to (empty: every kernel, PyTorch's included)."""
        selection = diagnostics.parse_kernel_selection(self.options.sanitize_kernels)
        if isinstance(selection, list):
            return selection
        if selection == "all":
            return []
        text = self._text(candidate)
        own = sorted(diagnostics.kernel_names(text, candidate.path))
        if selection == "flagged":
            lines = {f["line"] for f in (self.records[id(candidate)].get("lint") or {}).get("findings", [])}
            flagged = sorted(diagnostics.kernels_at_lines(text, candidate.path, lines))
            return flagged or own
        return own

    def _sanitizer_verdict(self, record: dict) -> None:
        results = record["sanitizer"]
        errors = sum(r.get("errors", 0) for r in results.values())
        warnings = sum(r.get("warnings", 0) for r in results.values())
        record["sanitizer_errors"], record["sanitizer_warnings"] = errors, warnings
        if record["status"] not in ("correct", "unchecked"):
            return
        if errors:
            tools = [t for t, r in results.items() if r.get("errors")]
            _final(record, "sanitizer_error", f"correct output, but {', '.join(tools)} reported {errors} error(s)")
            return
        unfinished = {t: r for t, r in results.items() if not r.get("complete")}
        if unfinished:
            why = "; ".join(f"{t}: {r.get('message') or r.get('status') or 'no summary'}"[:200]
                            for t, r in unfinished.items())
            statuses = {r.get("status") for r in unfinished.values()}
            what = "checked nothing" if statuses == {"not_launched"} else \
                "cannot show it checked anything" if statuses <= {"not_launched", "uncounted"} else \
                "did not finish, so nothing was checked"
            _final(record, "unchecked", f"correct output, but the sanitizer {what} ({why})")
        elif warnings:
            tools = [t for t, r in results.items() if r.get("warnings")]
            record["message"] = f"correct; {', '.join(tools)} reported {warnings} warning(s)"


def _selected_launches(result: dict, selected: list[str]) -> list[dict] | None:
    """What the sanitized forward launched of the instrumented kernels (those whose names hold a selected
    name, as compute-sanitizer's `kns=` matches): name, launches, and whether every extension library that
    defines a kernel of that name is the candidate's (`attributed`); None when the worker could not count
    (no profiler under the sanitizer), when nothing is claimed either way."""
    launches = result.get("launches")
    if not isinstance(launches, list):
        return None
    own = {os.path.realpath(p) for p in result.get("libraries") or [] if isinstance(p, str)}
    found = []
    for entry in launches:
        if not isinstance(entry, dict) or not any(name in str(entry.get("kernel", "")) for name in selected):
            continue
        others = [p for p in entry.get("defined_in") or [] if os.path.realpath(str(p)) not in own]
        found.append({"kernel": str(entry.get("kernel")), "name": str(entry.get("name"))[:200],
                      "count": int(entry.get("count") or 0), "attributed": not others, "other_libraries": others})
    return found


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _extensions(result: dict) -> list[dict]:
    """The extensions a worker built or loaded; a lighter build that failed and was redone as written is
    not one of them (its errors are not the solution's)."""
    return [e for e in result.get("extensions") or [] if not e.get("superseded")]


def _extension_summary(extension: dict) -> dict:
    return {k: extension.get(k) for k in ("name", "key", "directory", "cache_hit", "ok", "seconds", "variant")}


# -------------------------------------------------------------------------------------------------- API


def verify_batch(candidates: list[Candidate], options: VerifyOptions | None = None,
                 progress: ProgressCallback | None = None) -> list[dict]:
    """Verify candidates; one JSON-ready record per candidate (see `cudalint.verify.results`)."""
    return _Batch(list(candidates), options or VerifyOptions(), progress).run()


def verify_file(solution: str, reference: str, options: VerifyOptions | None = None) -> dict:
    """Verify one solution against its reference."""
    from cudalint.harness.kernelbench import problem_of_path

    entry = problem_of_path(solution)
    candidate = Candidate(solution, reference, entry.level if entry else None, entry.problem if entry else None,
                          entry.sample if entry else None)
    return verify_batch([candidate], options)[0]


__all__ = ["Candidate", "DEFAULT_TOLERANCES", "VerifyOptions", "collect_candidates", "deprecated_settings",
           "new_record", "verify_batch", "verify_file"]
