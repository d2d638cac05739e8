"""Sweep benchmark: the same real solutions through cudalint's GPU stage and through KernelBench's eval loop,
cold, on one GPU host: solutions verified per hour, verdict agreement per solution, median build.

    python benchmarks/kernelbench_sweep.py --limit 12 --out /tmp/sweep            # both, then the table
    python benchmarks/kernelbench_sweep.py --limit 24 --out DIR --phase cudalint   # one side per call
    python benchmarks/kernelbench_sweep.py --limit 24 --out DIR --phase kernelbench
    python benchmarks/kernelbench_sweep.py --limit 24 --out DIR --phase report     # table of what is there
    python benchmarks/kernelbench_sweep.py --limit 24 --out DIR --phase cudalint --overlap 2   # GPU turns

Writes `DIR/sweep.md` (the table) and `DIR/sweep.json` (every row and the summary); each side's raw results
stay in `DIR/cudalint.json` and `DIR/kernelbench.json`, so the two sides can run in separate calls. Needs only
torch, ninja, nvcc and cudalint: no network, no KernelBench checkout.

The solutions: `--limit N` rows of the real-kernel set's `labels.jsonl` (`--data`, default `shared/data/
realkernels`, else /work/shared/data/realkernels), levels `--levels` (1,2), leaving out the causes of the
evaluation machine (`C` no kernel image, `D` out of memory), chosen by a hash of their path (the same N every
time), alternating between solutions the archive's harness accepted and ones it rejected, at most one per
problem and archive. Each runs against its own archive's reference.

cudalint's side: `verify_batch` with `--harness kernelbench` (its current eval's rules, `--precision`), the
lint gate off (agreement with the harness is what is measured), a fresh build cache in DIR (cold: the
precompiled header is built inside the batch), 5 correctness trials, 100 timing trials.

KernelBench's side, re-implemented faithfully from ScalingIntelligence/KernelBench (main, 2026), not vendored
(it imports pydra, modal, datasets, pydantic):
- `scripts/eval_from_generations.py`: `num_correct_trials` 5, `num_perf_trials` 100, `timeout` 180 s,
  `measure_performance` on; on one GPU one sample at a time (`batch_size = num_gpu_devices = 1`), each in
  a fresh spawned process (`mp.Pool(1)`), its build directory `cache/<run>/<problem>/<sample>` (fresh here:
  cold); with `--kb-build-cache` (its faster mode, `build_cache = True`; off by default there and here) all samples are
  first built in parallel on the CPU (`compile.batch_compile`, `num_cpu_workers` processes, here the host's
  cores; a build past the timeout is not retried here), and the eval then loads the built library.
- `src/kernelbench/eval.py` `eval_kernel_against_ref`: the reference `exec`'d into a context; `set_seed`;
  init inputs and every input tensor cast to `precision` and moved to the device (`_process_input_tensor`);
  the solution `exec`'d into the same context with `TORCH_EXTENSIONS_DIR` its build directory
  (`load_custom_model`); both models `.to(device, dtype=precision)`; `run_and_check_correctness`: trial seeds
  drawn from `torch.manual_seed(seed)`, the same input tensors for both models, a shape check, then
  `torch.allclose` with atol = rtol = `get_tolerance_for_precision(precision)` (fp32 1e-4, fp16/bf16 1e-2);
  when correct, `timing.time_execution_with_cuda_event` (3 warm-ups, `num_perf_trials` + 1 trials, the first
  dropped, L2 thrashed with a 256 MB fill before each, a device synchronize after each), the mean; then the
  reference timed the same way and `excessive_speedup` flagged above 10x.
- Not reproduced: the results file and its locking, Modal, pass@k, printing; a build error mentioning a
  lock file or a missing file, which KernelBench leaves without a result (to be retried), is a failed build
  here, as every other exception while the solution module runs is in both.
The re-implementation runs the generated Python unsandboxed, as KernelBench does: run it only on a machine you
can throw away (the GPU machine of this benchmark, which has no network).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import sys
import time

PHASES = ("both", "cudalint", "kernelbench", "report")
ENVIRONMENT_CAUSES = ("C", "D")  # failures of the evaluation machine, not of the code (realkernels README)
KB_TIMEOUT = 180.0  # eval_from_generations.py's timeout
KB_TOLERANCE = {"fp32": 1e-4, "fp16": 1e-2, "bf16": 1e-2}  # get_tolerance_for_precision
EXCESSIVE_SPEEDUP = 10.0


# ----------------------------------------------------------------------------------------------- selection


def default_data_dir() -> str:
    for candidate in ("shared/data/realkernels", "/work/shared/data/realkernels"):
        if os.path.isfile(os.path.join(candidate, "labels.jsonl")):
            return candidate
    return "shared/data/realkernels"


def select(rows: list[dict], limit: int, levels: tuple[int, ...]) -> list[dict]:
    """`limit` solutions: levels `levels`, no environment failures, one per (archive, level, problem), in the
    order of a hash of their path, alternating accepted and rejected by the archive's harness."""
    usable = [r for r in rows if r.get("level") in levels and r.get("cause") not in ENVIRONMENT_CAUSES
              and r.get("reference")]
    usable.sort(key=lambda r: hashlib.sha256(r["path"].encode()).hexdigest())
    seen: set[tuple] = set()
    accepted, rejected = [], []
    for row in usable:
        key = (row["path"].split("/")[0], row["level"], row["problem_id"])
        if key in seen:
            continue
        seen.add(key)
        (accepted if row.get("correct") else rejected).append(row)
    chosen = []
    while len(chosen) < limit and (accepted or rejected):
        for pool in (accepted, rejected):
            if pool and len(chosen) < limit:
                chosen.append(pool.pop(0))
    return chosen


def load_rows(data: str) -> list[dict]:
    with open(os.path.join(data, "labels.jsonl"), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def sample_id(row: dict) -> str:
    return hashlib.sha256(row["path"].encode()).hexdigest()[:12]


# ------------------------------------------------------------------------------------------ cudalint side


def _cudalint_result(record: dict) -> dict:
    return {"status": record["status"], "correct": bool(record["passed"]),
            "build_s": (record.get("seconds") or {}).get("build"),
            "speedup": (record.get("timing") or {}).get("speedup"),
            "excessive_speedup": bool(record.get("excessive_speedup")), "message": record.get("message", "")[:300]}


def run_cudalint(chosen: list[dict], data: str, out: str, precision: str, save=None, overlap: int = 1) -> dict:
    """cudalint's stage over `chosen`; each phase a candidate ends is printed, and `save(partial)` is called with
    the candidates settled so far (a call cut short by its time limit keeps them, `complete` false)."""
    from cudalint.verify.runner import Candidate, VerifyOptions, harness_tolerances, verify_batch

    cache = os.path.join(out, "cudalint-cache")
    shutil.rmtree(cache, ignore_errors=True)
    keys = {os.path.join(data, "kernels", r["path"]): sample_id(r) for r in chosen}
    candidates = [Candidate(os.path.join(data, "kernels", r["path"]), os.path.join(data, "problems", r["reference"]),
                            r["level"], r["problem_id"]) for r in chosen]
    options = VerifyOptions(parity="kernelbench", precision=precision,
                            tolerances=harness_tolerances("kernelbench", precision), lint=False, cache_dir=cache,
                            run_timeout=KB_TIMEOUT, overlap=overlap)
    started = time.monotonic()
    results: dict[str, dict] = {}

    def progress(phase: str, record: dict) -> None:
        elapsed = time.monotonic() - started
        print(f"[cudalint {elapsed:6.1f}s] {phase:9} {record.get('status', '')!s:16} {record.get('solution', '')}",
              flush=True)
        key = keys.get(str(record.get("solution")))
        if key and record.get("status") not in (None, "pending") and phase in ("build", "run"):
            results[key] = _cudalint_result(record)
            if save is not None:
                save({"wall_s": elapsed, "results": dict(results), "complete": False})

    records = verify_batch(candidates, options, progress)
    wall = time.monotonic() - started
    results = {sample_id(row): _cudalint_result(record) for row, record in zip(chosen, records)}
    shutil.rmtree(cache, ignore_errors=True)  # each extra precompiled header is 750 MB
    return {"wall_s": wall, "results": results, "complete": True}


# --------------------------------------------------------------------------- KernelBench side (re-implemented)


def _kb_set_seed(torch, seed: int) -> None:
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)


def _kb_time(torch, fn, args, device, num_trials: int, num_warmup: int = 3, discard_first: int = 1) -> list[float]:
    """timing.time_execution_with_cuda_event."""
    with torch.cuda.device(device):
        for _ in range(num_warmup):
            fn(*args)
            torch.cuda.synchronize(device=device)
        torch.cuda.empty_cache()
        times = []
        for trial in range(num_trials + discard_first):
            torch.cuda.synchronize(device=device)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            dummy = torch.empty((32, 1024, 1024), dtype=torch.int64, device=device)  # clear_l2_cache
            dummy.fill_(42)
            del dummy
            start.record()
            fn(*args)
            end.record()
            torch.cuda.synchronize(device=device)
            if trial >= discard_first:
                times.append(start.elapsed_time(end))
    return times


def kb_build(kernel_path: str, build_dir: str) -> dict:
    """compile.compile_single_sample / eval.build_compile_cache: exec the solution with TORCH_EXTENSIONS_DIR set."""
    import contextlib
    import io

    with open(kernel_path, encoding="utf-8") as handle:
        source = handle.read()
    os.environ["TORCH_USE_CUDA_DSA"] = "1"
    source = f"import os\nos.environ['TORCH_EXTENSIONS_DIR'] = {build_dir!r}\n" + source
    started = time.monotonic()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            exec(compile(source, "<string>", "exec"), {})  # noqa: S102 - KernelBench's load_custom_model
        return {"compiled": True, "build_s": time.monotonic() - started}
    except Exception as error:  # noqa: BLE001 - as KernelBench: any exception is a failed build
        return {"compiled": False, "build_s": time.monotonic() - started, "error": f"{type(error).__name__}: "
                f"{str(error)[:300]}"}


def kb_eval(reference_path: str, kernel_path: str, build_dir: str, precision: str, num_correct_trials: int = 5,
            num_perf_trials: int = 100, seed: int = 42) -> dict:
    """eval.eval_kernel_against_ref with eval_from_generations.py's settings, on cuda:0."""
    import torch

    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[precision]
    device = torch.device("cuda:0")
    torch.cuda.set_device(device)
    with open(reference_path, encoding="utf-8") as handle:
        reference_src = handle.read()
    with open(kernel_path, encoding="utf-8") as handle:
        custom_src = handle.read()

    def cast(x):  # _process_input_tensor
        return x.to(dtype=dtype).to(device=device) if isinstance(x, torch.Tensor) else x

    context: dict = {}
    exec(compile(reference_src, "<string>", "exec"), context)  # noqa: S102 - load_original_model_and_inputs
    model_cls, get_init_inputs, get_inputs = context["Model"], context["get_init_inputs"], context["get_inputs"]
    _kb_set_seed(torch, seed)
    init_inputs = [cast(x) for x in get_init_inputs()]
    with torch.no_grad():
        _kb_set_seed(torch, seed)
        original = model_cls(*init_inputs)
    result = {"compiled": False, "correct": False, "build_s": None, "excessive_speedup": False}
    started = time.monotonic()
    try:
        os.environ["TORCH_USE_CUDA_DSA"] = "1"
        source = f"import os\nos.environ['TORCH_EXTENSIONS_DIR'] = {build_dir!r}\n" + custom_src
        exec(compile(source, "<string>", "exec"), context)  # noqa: S102 - load_custom_model
        model_new_cls = context.get("ModelNew")
        torch.cuda.synchronize(device=device)
    except Exception as error:  # noqa: BLE001
        result.update(build_s=time.monotonic() - started, error=f"compile: {type(error).__name__}: {str(error)[:300]}")
        return result
    result["build_s"] = time.monotonic() - started
    if model_new_cls is None:
        result["error"] = "compile: no ModelNew"
        return result
    try:
        with torch.no_grad():
            _kb_set_seed(torch, seed)
            custom = model_new_cls(*init_inputs)
            original = original.to(device=device, dtype=dtype)
            custom = custom.to(device=device, dtype=dtype)
            torch.cuda.synchronize(device=device)
    except RuntimeError as error:
        result.update(compiled=True, error=f"runtime: {str(error)[:300]}")
        return result
    result["compiled"] = True
    tolerance = KB_TOLERANCE[precision]
    try:  # run_and_check_correctness: a failure ends it, and the eval goes on to the timing block
        torch.manual_seed(seed)
        trial_seeds = [torch.randint(0, 2 ** 32 - 1, (1,)).item() for _ in range(num_correct_trials)]
        passed = 0
        with torch.no_grad():
            for trial_seed in trial_seeds:
                _kb_set_seed(torch, trial_seed)
                inputs = [cast(x) for x in get_inputs()]
                output = original(*inputs)
                torch.cuda.synchronize(device=device)
                output_new = custom(*inputs)
                torch.cuda.synchronize(device=device)
                if output.shape != output_new.shape:
                    result["error"] = f"correctness: shape {tuple(output_new.shape)}, expected {tuple(output.shape)}"
                    break
                if torch.allclose(output, output_new, atol=tolerance, rtol=tolerance):
                    passed += 1
                else:
                    result["error"] = "correctness: output mismatch"
        result["correct"] = passed == num_correct_trials
    except Exception as error:  # noqa: BLE001
        result["error"] = f"runtime: {type(error).__name__}: {str(error)[:300]}"
    runtime = None
    if result["correct"]:  # measure_performance
        try:
            with torch.no_grad():
                _kb_set_seed(torch, seed)
                inputs = [cast(x) for x in get_inputs()]
                runtime = statistics.mean(_kb_time(torch, custom, inputs, device, num_perf_trials))
        except Exception as error:  # noqa: BLE001 - error_during_performance: the verdict stands
            result["error_during_performance"] = f"{type(error).__name__}: {str(error)[:300]}"
    # check_for_excessive_speedup: the reference is timed whatever the verdict; an exception here (a context an
    # illegal access broke) leaves the eval, and evaluate_single_sample records the sample as not compiled
    with torch.no_grad():
        _kb_set_seed(torch, seed)
        inputs = [cast(x) for x in get_inputs()]
        reference_runtime = statistics.mean(_kb_time(torch, original, inputs, device, num_perf_trials))
    if runtime:
        result.update(runtime_ms=runtime, ref_runtime_ms=reference_runtime, speedup=reference_runtime / runtime,
                      excessive_speedup=reference_runtime / runtime > EXCESSIVE_SPEEDUP)
    return result


def _arch_list() -> str:
    import torch

    major, minor = torch.cuda.get_device_capability(0)
    return f"{major}.{minor}"


def run_kernelbench(chosen: list[dict], data: str, out: str, precision: str, build_cache: bool,
                    cpu_workers: int, save=None) -> dict:
    """KernelBench's loop over `chosen`; `save(partial)` is called after each sample (a call cut short by its
    time limit keeps what it measured: `wall_s` and `results` so far, `complete` false)."""
    import multiprocessing as mp

    builds = os.path.join(out, "kernelbench-cache")
    shutil.rmtree(builds, ignore_errors=True)
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", _arch_list())  # set_gpu_arch
    context = mp.get_context("spawn")
    work = [(sample_id(r), os.path.join(data, "kernels", r["path"]), os.path.join(data, "problems", r["reference"]),
             os.path.join(builds, sample_id(r))) for r in chosen]
    results: dict[str, dict] = {}
    built: dict[str, dict] = {}
    started = time.monotonic()
    if build_cache:  # compile.batch_compile
        with context.Pool(cpu_workers) as pool:
            pending = {key: (pool.apply_async(kb_build, (kernel, build_dir)), time.monotonic())
                       for key, kernel, _, build_dir in work}
            for key, (handle, submitted) in pending.items():
                try:
                    built[key] = handle.get(timeout=max(KB_TIMEOUT - (time.monotonic() - submitted), 1.0))
                except mp.TimeoutError:
                    built[key] = {"compiled": False, "build_s": KB_TIMEOUT, "error": "build timed out"}
                    shutil.rmtree(os.path.join(builds, key), ignore_errors=True)
    for key, kernel, reference, build_dir in work:  # batch_eval: one sample at a time on the one GPU
        with context.Pool(1) as pool:
            try:
                result = pool.apply_async(kb_eval, (reference, kernel, build_dir, precision)).get(timeout=KB_TIMEOUT)
            except mp.TimeoutError:
                result = {"compiled": False, "correct": False, "error": "timed out (no result recorded)"}
            except Exception as error:  # noqa: BLE001 - evaluate_single_sample's last-level catch
                result = {"compiled": False, "correct": False, "error": f"{type(error).__name__}: {str(error)[:300]}"}
        if key in built:
            result["eval_build_s"], result["build_s"] = result.get("build_s"), built[key]["build_s"]
        results[key] = result
        print(f"[kernelbench {time.monotonic() - started:6.1f}s] {key} correct={result.get('correct')} "
              f"compiled={result.get('compiled')} {str(result.get('error', ''))[:100]}", flush=True)
        if save is not None:
            save({"wall_s": time.monotonic() - started, "results": results, "build_cache": build_cache,
                  "cpu_workers": cpu_workers, "complete": False})
    wall = time.monotonic() - started
    shutil.rmtree(builds, ignore_errors=True)
    return {"wall_s": wall, "results": results, "build_cache": build_cache, "cpu_workers": cpu_workers,
            "complete": True}


# ------------------------------------------------------------------------------------------------- report


def _per_hour(count: int, wall: float | None) -> float | None:
    return count * 3600.0 / wall if wall else None


def _median(values) -> float | None:
    values = [v for v in values if isinstance(v, (int, float))]
    return statistics.median(values) if values else None


def summarize(chosen: list[dict], cudalint: dict | None, kernelbench: dict | None) -> dict:
    rows = []
    for row in chosen:
        key = sample_id(row)
        ours = (cudalint or {}).get("results", {}).get(key)
        theirs = (kernelbench or {}).get("results", {}).get(key)
        rows.append({
            "id": key, "path": row["path"], "level": row["level"], "problem": row["problem_id"],
            "archive_correct": bool(row.get("correct")), "archive_cause": row.get("cause"),
            "cudalint_status": ours["status"] if ours else None,
            "cudalint_correct": ours["correct"] if ours else None,
            "kernelbench_correct": bool(theirs["correct"]) if theirs else None,
            "kernelbench_compiled": bool(theirs.get("compiled")) if theirs else None,
            "kernelbench_error": (theirs or {}).get("error", ""),
            "agree": ours["correct"] == bool(theirs["correct"]) if ours and theirs else None,
            "cudalint_build_s": ours.get("build_s") if ours else None,
            "kernelbench_build_s": theirs.get("build_s") if theirs else None,
            "cudalint_speedup": ours.get("speedup") if ours else None,
            "kernelbench_speedup": theirs.get("speedup") if theirs else None,
            "excessive_speedup": [bool(ours and ours.get("excessive_speedup")),
                                  bool(theirs and theirs.get("excessive_speedup"))],
        })
    count = len(chosen)
    ours_done, theirs_done = (len((side or {}).get("results") or {}) for side in (cudalint, kernelbench))
    ours_rate = _per_hour(ours_done, (cudalint or {}).get("wall_s"))
    theirs_rate = _per_hour(theirs_done, (kernelbench or {}).get("wall_s"))
    compared = [r for r in rows if r["agree"] is not None]
    return {
        "solutions": count, "cudalint_done": ours_done, "kernelbench_done": theirs_done,
        "cudalint_wall_s": (cudalint or {}).get("wall_s"), "kernelbench_wall_s": (kernelbench or {}).get("wall_s"),
        "cudalint_per_hour": ours_rate, "kernelbench_per_hour": theirs_rate,
        "throughput_ratio": ours_rate / theirs_rate if ours_rate and theirs_rate else None,
        "compared": len(compared), "agree": sum(1 for r in compared if r["agree"]),
        "cudalint_median_build_s": _median(r["cudalint_build_s"] for r in rows),
        "kernelbench_median_build_s": _median(r["kernelbench_build_s"] for r in rows),
        "kernelbench_build_cache": (kernelbench or {}).get("build_cache"), "rows": rows,
    }


def _cell(value, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def render(summary: dict, device: str = "") -> str:
    lines = [f"# KernelBench sweep: cudalint's GPU stage against KernelBench's eval loop{' on ' + device if device else ''}",
             "",
             "| | cudalint (`--harness kernelbench`) | KernelBench eval loop |",
             "| --- | --- | --- |",
             f"| solutions verified (of {summary['solutions']}) | {summary['cudalint_done']} | "
             f"{summary['kernelbench_done']} |",
             f"| wall time (s) | {_cell(summary['cudalint_wall_s'])} | {_cell(summary['kernelbench_wall_s'])} |",
             f"| solutions verified per hour | {_cell(summary['cudalint_per_hour'], 0)} | "
             f"{_cell(summary['kernelbench_per_hour'], 0)} |",
             f"| median build (s) | {_cell(summary['cudalint_median_build_s'])} | "
             f"{_cell(summary['kernelbench_median_build_s'])} |",
             "",
             f"Throughput ratio: {_cell(summary['throughput_ratio'], 2)}x. Verdicts agree on {summary['agree']} of "
             f"{summary['compared']} solutions (KernelBench side "
             f"{'with' if summary['kernelbench_build_cache'] else 'without'} its parallel CPU build cache).",
             "",
             "| solution | level | archive | cudalint | KernelBench | agree | build s (cudalint / KB) | speedup (cudalint / KB) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in summary["rows"]:
        theirs = "-" if row["kernelbench_correct"] is None else (
            "correct" if row["kernelbench_correct"] else ("incorrect" if row["kernelbench_compiled"] else "not compiled"))
        lines.append(f"| `{row['path']}` | {row['level']} | {'correct' if row['archive_correct'] else row['archive_cause']} "
                     f"| {row['cudalint_status'] or '-'} | {theirs} | {_cell(row['agree'])} | "
                     f"{_cell(row['cudalint_build_s'])} / {_cell(row['kernelbench_build_s'])} | "
                     f"{_cell(row['cudalint_speedup'], 2)} / {_cell(row['kernelbench_speedup'], 2)} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------- main


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="output directory (sweep.md, sweep.json, each side's JSON)")
    parser.add_argument("--limit", type=int, default=24, help="number of solutions")
    parser.add_argument("--data", default=None, help="the real-kernel set (labels.jsonl, kernels/, problems/)")
    parser.add_argument("--levels", default="1,2", help="KernelBench levels, comma-separated")
    parser.add_argument("--phase", choices=PHASES, default="both")
    parser.add_argument("--precision", choices=tuple(KB_TOLERANCE), default="fp32")
    parser.add_argument("--kb-build-cache", action=argparse.BooleanOptionalAction, default=False,
                        help="KernelBench's parallel CPU build before its eval (its build_cache option, off by "
                             "default in eval_from_generations.py)")
    parser.add_argument("--kb-cpu-workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--overlap", type=int, default=1,
                        help="cudalint's candidate runs in flight per GPU (`cudalint verify --overlap`)")
    arguments = parser.parse_args(argv)
    arguments.data = arguments.data or default_data_dir()
    arguments.levels = tuple(int(level) for level in arguments.levels.split(",") if level.strip())
    if arguments.limit < 1:
        parser.error("--limit must be at least 1")
    return arguments


def _load(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError:
        return None


def _save(path: str, payload) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(payload, handle, indent=2, default=str)


def write_report(out: str, chosen: list[dict]) -> dict:
    summary = summarize(chosen, _load(os.path.join(out, "cudalint.json")), _load(os.path.join(out, "kernelbench.json")))
    device = (_load(os.path.join(out, "device.json")) or {}).get("name", "")
    _save(os.path.join(out, "sweep.json"), summary)
    with open(os.path.join(out, "sweep.md"), "w", encoding="utf-8") as handle:
        handle.write(render(summary, device))
    return summary


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    os.makedirs(arguments.out, exist_ok=True)
    chosen = select(load_rows(arguments.data), arguments.limit, arguments.levels)
    _save(os.path.join(arguments.out, "selection.json"), [r["path"] for r in chosen])
    if arguments.phase != "report":
        import torch

        _save(os.path.join(arguments.out, "device.json"), {"name": torch.cuda.get_device_name(0),
                                                            "torch": torch.__version__, "cuda": torch.version.cuda})
    if arguments.phase in ("both", "cudalint"):
        path = os.path.join(arguments.out, "cudalint.json")
        _save(path, run_cudalint(chosen, arguments.data, arguments.out, arguments.precision,
                                 save=lambda partial: _save(path, partial), overlap=arguments.overlap))
    if arguments.phase in ("both", "kernelbench"):
        path = os.path.join(arguments.out, "kernelbench.json")
        _save(path, run_kernelbench(chosen, arguments.data, arguments.out, arguments.precision,
                                    arguments.kb_build_cache, arguments.kb_cpu_workers,
                                    save=lambda partial: _save(path, partial)))
    summary = write_report(arguments.out, chosen)
    sys.stdout.write(render(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
