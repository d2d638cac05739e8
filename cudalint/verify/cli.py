"""The `verify` command; `register(app)` adds it to a typer app.

    cudalint verify SOLUTION.py --reference REFERENCE.py
    cudalint verify RUN_DIR --problems KERNELBENCH_DIR
    cudalint verify RUN_DIR --problems KERNELBENCH_DIR --ray [--ray-address HOST:6379] --results sweep.jsonl

Exit codes: 0 every candidate passed (correct, and sanitizer-clean when --sanitize is given); 1 some
candidate did not; 2 usage errors (no such path, no reference, a bad option, a Ray cluster that cannot be
reached). The table (or JSON) goes to
stdout, the progress bars and the explanations of failures to stderr.
"""

from __future__ import annotations

import json
import sys
import threading
from enum import Enum
from typing import Annotated, Optional

import typer

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


class VerifyFormat(str, Enum):
    table = "table"
    markdown = "markdown"
    json = "json"


def _fail(message: str) -> typer.Exit:
    sys.stderr.write(f"cudalint: error: {message}\n")
    return typer.Exit(EXIT_ERROR)


def parse_tolerances(values: list[str] | None, base: dict | None = None) -> dict:
    """`DTYPE=ATOL[:RTOL]` entries (comma-separated or repeated) over `base` (default: cudalint's)."""
    from cudalint.verify.runner import DEFAULT_TOLERANCES

    tolerances = dict(base or DEFAULT_TOLERANCES)
    for value in values or []:
        for entry in filter(None, (e.strip() for e in value.split(","))):
            name, _, numbers = entry.partition("=")
            if not numbers:
                raise ValueError(f"tolerance {entry!r}: expected DTYPE=ATOL[:RTOL], e.g. float32=1e-4")
            atol, _, rtol = numbers.partition(":")
            try:
                pair = (float(atol), float(rtol or atol))
            except ValueError:
                raise ValueError(f"tolerance {entry!r}: not a number") from None
            tolerances[name.strip().replace("torch.", "")] = pair
    return tolerances


class _Progress:
    """One progress bar per phase on stderr (quiet: none)."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.bar = None
        self.lock = threading.Lock()
        self.resumed = 0

    def __call__(self, phase: str, record: dict) -> None:
        if self.quiet:
            return
        with self.lock:
            if phase == "resumed":
                self.resumed += 1
            elif record.get("start"):
                self.close()
                labels = {"build": "building", "run": "running", "sanitize": "sanitizing"}
                self.bar = typer.progressbar(length=record["total"], label=labels.get(phase, phase), file=sys.stderr,
                                             show_pos=True)
                self.bar.__enter__()
            elif self.bar is not None and phase in ("build", "run", "sanitize"):
                self.bar.update(1)

    def resumed_line(self) -> None:
        if self.resumed:
            sys.stderr.write(f"{self.resumed} candidate(s) already in the results file: not verified again\n")
            self.resumed = 0

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None
        self.resumed_line()


def verify_command(
    path: Annotated[str, typer.Argument(metavar="PATH", show_default=False,
                                        help="A solution file (ModelNew), or a run directory of "
                                             "level_<L>_problem_<P>_sample_<S>_kernel.py files.")],
    reference: Annotated[Optional[str], typer.Option(
        "--reference", metavar="REFERENCE.py", help="The reference problem (Model, get_inputs, get_init_inputs).")] = None,
    problems: Annotated[Optional[str], typer.Option(
        "--problems", metavar="DIR", help="KernelBench problems directory (level<L>/<P>_<Name>.py): references "
                                          "are found by level and problem id.")] = None,
    trials: Annotated[int, typer.Option("--trials", help="Correctness trials, each with fresh seeded inputs.")] = 5,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the first trial (trial i uses seed + i).")] = 42,
    tolerance: Annotated[Optional[list[str]], typer.Option(
        "--tolerance", metavar="DTYPE=ATOL[:RTOL]",
        help="Tolerance per output dtype (default float32=1e-4, float16=1e-2, bfloat16=1e-2); repeatable.")] = None,
    sanitize: Annotated[Optional[str], typer.Option(
        "--sanitize", metavar="TOOLS", help="Run compute-sanitizer tools on each candidate: comma-separated "
                                            "memcheck,racecheck,synccheck,initcheck.")] = None,
    sanitize_shapes: Annotated[bool, typer.Option(
        "--sanitize-shapes", help="Run the sanitizers at reduced input sizes where the problem allows it (sizes "
                                  "get_inputs reads and the solution never names, halved to about a million input "
                                  "elements, keeping multiples of up to 32); the sizes are in each record.")] = False,
    timing: Annotated[bool, typer.Option("--timing/--no-timing", help="Time candidate and reference.")] = True,
    timing_trials: Annotated[int, typer.Option(
        "--timing-trials", help="Timed runs of each, in 5 rounds clocked by cudalint (docs/verify.md).")] = 100,
    warmup: Annotated[int, typer.Option("--warmup", help="Untimed runs before timing.")] = 3,
    compile_baseline: Annotated[bool, typer.Option(
        "--compile", help="Also time torch.compile of the reference (slow to compile).")] = False,
    no_lint: Annotated[bool, typer.Option("--no-lint", help="Build and run files with lint errors too.")] = False,
    no_poison: Annotated[bool, typer.Option(
        "--no-poison", help="Do not fill the output memory with NaN before each candidate run.")] = False,
    allow_tf32: Annotated[bool, typer.Option(
        "--allow-tf32", help="Let the reference use TF32 matmul/convolution (default: IEEE fp32).")] = False,
    cache: Annotated[Optional[str], typer.Option(
        "--cache", metavar="DIR", help="Build cache (default $CUDALINT_CACHE_DIR/verify, else "
                                       "~/.cache/cudalint/verify).")] = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", help="Parallel builds (default: cores / 2, "
                                                                      "at most 8).")] = None,
    gpus: Annotated[Optional[str], typer.Option("--gpus", metavar="IDS",
                                                help="GPUs to use, comma-separated (default: all visible).")] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds per candidate run.")] = 300.0,
    overlap: Annotated[int, typer.Option(
        "--overlap", metavar="K", help="Candidate runs in flight per GPU: the next ones start while one uses the GPU, "
                                       "which they take in turns (default 1: one at a time; not yet measured on a GPU).")] = 1,
    build_timeout: Annotated[float, typer.Option("--build-timeout", help="Seconds per build.")] = 900.0,
    sanitize_timeout: Annotated[float, typer.Option("--sanitize-timeout", help="Seconds per sanitizer run.")] = 600.0,
    python: Annotated[Optional[str], typer.Option("--python", metavar="EXE",
                                                  help="Python with torch for the workers (default: this one).")] = None,
    device: Annotated[str, typer.Option("--device", help="cuda, or cpu for pure-PyTorch solutions (testing).",
                                        hidden=True)] = "cuda",
    output_format: Annotated[VerifyFormat, typer.Option("--format", help="Output format.")] = VerifyFormat.table,
    json_out: Annotated[Optional[str], typer.Option("--json", metavar="FILE",
                                                    help="Also write the batch (summary and records) as JSON.")] = None,
    output_dir: Annotated[Optional[str], typer.Option("--output-dir", metavar="DIR",
                                                      help="Also write one JSON file per kernel.")] = None,
    fast_p: Annotated[float, typer.Option("--fast-p", help="Speedup threshold p of fast_p.")] = 1.0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    build_only: Annotated[bool, typer.Option(
        "--build-only", help="Only fill the build cache (lint gate and builds); run nothing.")] = False,
    sanitize_kernels: Annotated[str, typer.Option(
        "--sanitize-kernels", metavar="all|own|flagged|NAME,...",
        help="Kernels compute-sanitizer instruments: the solution's own (default), those holding a line cudalint "
             "flagged, all (PyTorch's too: slow), or the named ones.")] = "own",
    harness: Annotated[str, typer.Option(
        "--harness", metavar="cudalint|kernelbench|kernelbench-v0.1",
        help="kernelbench: mirror KernelBench's current eval (the tolerance of --precision for every output, inputs "
             "and models cast to it, its trial seeds, PyTorch's TF32 defaults, the same input tensors for both "
             "models, excessive speedups flagged); kernelbench-v0.1: its v0.1 eval (atol=rtol=1e-2, no cast); "
             "the timing is cudalint's in every mode.")] = "cudalint",
    precision: Annotated[str, typer.Option(
        "--precision", metavar="fp32|fp16|bf16",
        help="KernelBench's precision (with --harness kernelbench): inputs and both models cast to it, and its "
             "tolerance (fp32 1e-4, fp16/bf16 1e-2) for every output.")] = "fp32",
    network: Annotated[bool, typer.Option(
        "--network", help="Let workers reach the network (default: none, where user namespaces allow).")] = False,
    exact_build: Annotated[bool, typer.Option(
        "--exact-build", help="Build the CUDA sources exactly as written (default: host code split off into a "
                              "unit of its own, else only the ATen headers they use; as written when that "
                              "fails).")] = False,
    precompiled_header: Annotated[bool, typer.Option(
        "--precompiled-header/--no-precompiled-header",
        help="The lighter build's binding unit loads <torch/extension.h> precompiled once per C++ flag set in "
             "the cache's pch/ (about 750 MB each with g++ 12 and torch 2.11).")] = True,
    pass_env: Annotated[Optional[list[str]], typer.Option(
        "--pass-env", metavar="NAME", help="An environment variable the scrubbed worker environment keeps; "
                                           "repeatable.")] = None,
    ray: Annotated[bool, typer.Option(
        "--ray", help="Run builds and GPU runs as tasks of a Ray cluster (the `ray` extra): the one "
                      "ray.init() finds ($RAY_ADDRESS, one started on this machine) or a new local one.")] = False,
    ray_address: Annotated[Optional[str], typer.Option(
        "--ray-address", metavar="ADDRESS", help="The Ray cluster to connect to (implies --ray), e.g. "
                                                 "HEAD_HOST:6379.")] = None,
    results_file: Annotated[Optional[str], typer.Option(
        "--results", metavar="FILE.jsonl", help="Append each finished candidate's record to FILE; a restarted "
                                                "sweep takes those already there instead of verifying them again.")] = None,
    ref: Annotated[Optional[str], typer.Option("--ref", hidden=True)] = None,  # the old spelling of --reference
) -> None:
    """Build, check, sanitize and time KernelBench-style solutions on the GPU, each in its own process.

    Files with lint errors are rejected and never built (unless --no-lint). Builds are cached by source
    and flags, and run in parallel; each candidate then runs alone on a GPU with a time limit: a crash, a
    hang or an illegal address ends that candidate, never the batch.
    """
    import os

    from cudalint.harness.kernelbench import reference_options_error
    from cudalint.verify import results
    from cudalint.verify.ray_cluster import ClusterUnavailable
    from cudalint.verify.runner import (PRECISIONS, VerifyOptions, collect_candidates, deprecated_settings,
                                        harness_tolerances, verify_batch)

    ref = reference or ref
    for line in deprecated_settings():
        sys.stderr.write(f"cudalint: warning: {line}\n")

    if not os.path.exists(path):
        raise _fail(f"{path}: no such file or directory")
    unusable = reference_options_error(ref, problems)
    if unusable is not None:
        raise _fail(unusable)
    if os.path.isfile(path) and ref is None and problems is None:
        raise _fail("give the reference: --reference REFERENCE.py (or --problems DIR for a run file)")
    try:
        if precision not in PRECISIONS:
            raise ValueError(f"unknown precision {precision!r} (choose from {', '.join(PRECISIONS)})")
        base_tolerances = harness_tolerances(harness, precision)
        options = VerifyOptions(
            trials=trials, seed=seed, tolerances=parse_tolerances(tolerance, base_tolerances), timing=timing,
            warmup=warmup,
            timing_trials=timing_trials, compile=compile_baseline,
            sanitize=tuple(t.strip() for t in (sanitize or "").split(",") if t.strip()), lint=not no_lint,
            poison=not no_poison, allow_tf32=allow_tf32, cache_dir=cache, build_jobs=jobs,
            gpus=[g.strip() for g in gpus.split(",") if g.strip()] if gpus else None, build_timeout=build_timeout,
            run_timeout=timeout, overlap=overlap, sanitize_timeout=sanitize_timeout, python=python, device=device, fast_p=fast_p,
            build_only=build_only, sanitize_kernels=sanitize_kernels, parity=harness, precision=precision,
            sanitize_shapes=sanitize_shapes,
            isolate_network=not network,
            pass_env=tuple(pass_env or ()), light_build=not exact_build, precompiled_header=precompiled_header,
            ray=ray_address if ray_address else ("" if ray else None), results_file=results_file,
        ).validate()
        candidates = collect_candidates(path, ref, problems)
    except ValueError as error:
        raise _fail(str(error)) from None
    no_gpu = options.missing_gpu()
    if no_gpu is not None:
        raise _fail(no_gpu)
    if not candidates:
        raise _fail(f"{path}: no solution files")
    progress = _Progress(quiet)
    try:
        records = verify_batch(candidates, options, progress)
    except ClusterUnavailable as error:
        raise _fail(str(error)) from None
    finally:
        progress.close()
    if json_out:
        results.write_json(records, json_out, fast_p)
    if output_dir:
        results.write_per_kernel(records, output_dir)
    if output_format == VerifyFormat.json:
        payload = {"schema": "cudalint.verify.batch/1", "summary": results.summary(records, fast_p),
                   "results": records}
        sys.stdout.write(json.dumps(payload, indent=2, default=str) + "\n")
    else:
        sys.stdout.write(results.render_table(records, markdown=output_format == VerifyFormat.markdown, p=fast_p)
                         + "\n")
        for record in records:
            for line in results.messages(record):
                sys.stderr.write(line + "\n")
    passed = all(r["passed"] or (build_only and r["status"] == "built") for r in records)
    raise typer.Exit(EXIT_OK if passed else EXIT_FAILED)


def register(app: typer.Typer) -> None:
    """Add `verify` to a typer app (the cudalint CLI)."""
    app.command("verify")(verify_command)


__all__ = ["parse_tolerances", "register", "verify_command"]
