"""The whole `cudalint verify` stage on a GPU machine, in one command (see benchmarks/results/verify_gpu.md).

Over tests/fixtures/verify: a dozen KernelBench-style level 1-2 problems, each with a correct solution,
and deliberately broken solutions (wrong result, unguarded index, missing barrier, hang, host crash,
illegal address, compile error, unwritten output). Steps, each written to OUT/results.json as it ends:

1. lint verdicts of every solution, and the lint gate on one file (rejected, never built);
2. a cold batch (empty build cache; lint off so that the broken files reach the GPU);
3. the build phase of every solution again (warm cache: cost per kernel with a warm cache);
4. four correct kernels run and timed again (the timing spread between two runs);
5. the GPU tests (python -m pytest -m gpu tests/test_verify_gpu.py);
6. compute-sanitizer: memcheck on the unguarded index, racecheck on the missing barrier;
7. the unwritten-output solution with output poisoning off (what poisoning catches);
8. the other correct kernels timed again, as long as time is left (--deadline).

Usage (repository root, torch with CUDA): python benchmarks/verify_gpu_demo.py --out DIR
`--standin` runs the same steps with the CPU stand-in worker of the tests (a dry run of this script);
`--report results.json` only renders the markdown report of an earlier run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

FIXTURES = os.path.join(ROOT, "tests", "fixtures", "verify")
RUN = os.path.join(FIXTURES, "run")
PROBLEMS = os.path.join(FIXTURES, "problems")

BUGS = {  # sample 1 of these problems is deliberately broken
    "level_1_problem_12_sample_1_kernel": "compile error (undeclared identifier)",
    "level_1_problem_19_sample_1_kernel": "unguarded index",
    "level_1_problem_21_sample_1_kernel": "wrong result (sigmoid of -x)",
    "level_1_problem_23_sample_1_kernel": "hang (grid-wide wait on a counter never incremented)",
    "level_1_problem_26_sample_1_kernel": "host crash (null dereference in the C++ wrapper)",
    "level_1_problem_36_sample_1_kernel": "illegal address (index typo, GBs past the output)",
    "level_1_problem_47_sample_1_kernel": "missing barrier (shared-memory tree)",
    "level_2_problem_76_sample_1_kernel": "unwritten output (grid covers half the columns)",
}
SANITIZE = [("level_1_problem_19_sample_1_kernel", "memcheck"), ("level_1_problem_47_sample_1_kernel", "racecheck")]
FIRST_TIMED = ["level_1_problem_19_sample_0_kernel", "level_1_problem_23_sample_0_kernel",
               "level_1_problem_7_sample_0_kernel", "level_2_problem_76_sample_0_kernel"]
STARTED = time.monotonic()


def log(message: str) -> None:
    print(f"[{time.monotonic() - STARTED:6.1f}s] {message}", flush=True)


def _command(argv: list[str]) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        return (done.stdout.strip() or done.stderr.strip())
    except (OSError, subprocess.SubprocessError) as error:
        return f"unavailable: {error}"


def environment(python: str) -> dict:
    torch = _command([python, "-c", "import torch; print(torch.__version__, torch.version.cuda, "
                                    "torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no GPU')"])
    return {"torch": torch.splitlines()[-1] if torch else "", "nvidia_smi": _command(["nvidia-smi", "-L"]),
            "nvcc": _command(["nvcc", "--version"]).splitlines()[-1:],
            "compute_sanitizer": _command(["compute-sanitizer", "--version"]).splitlines()[-1:],
            "cpus": os.cpu_count(), "python": sys.version.split()[0]}


class Printer:
    def __call__(self, phase: str, record: dict) -> None:
        if record.get("start"):
            log(f"{phase}: {record['total']} to go")
            return
        build = record.get("build") or {}
        extra = ""
        if phase == "build":
            extra = f" ({build.get('seconds', 0):.1f} s, {'cache hit' if build.get('cache_hit') else 'cold'})"
        elif phase == "run":
            timing = record.get("timing") or {}
            extra = f" ({record['seconds']['run']:.1f} s" + (f", {timing['speedup']:.2f}x" if timing.get(
                "speedup") else "") + ")"
        status = build.get("status", "") if phase == "build" else record["status"]
        log(f"  {phase} {record['name']}: {status}{extra}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "/tmp/verify-demo"))
    parser.add_argument("--cache", default="/tmp/cudalint-verify-demo-cache")
    parser.add_argument("--jobs", type=int, default=None, help="parallel builds")
    parser.add_argument("--run-timeout", type=float, default=25.0)
    parser.add_argument("--deadline", type=float, default=560.0, help="seconds; later steps are skipped past it")
    parser.add_argument("--standin", action="store_true", help="dry run with the tests' CPU stand-in worker")
    parser.add_argument("--report", metavar="RESULTS_JSON", help="only render the report of an earlier run")
    args = parser.parse_args()
    if args.report:
        with open(args.report, encoding="utf-8") as handle:
            print(render(json.load(handle)))
        return 0

    from cudalint.engine import lint_paths
    from cudalint.findings import Severity
    from cudalint.verify import VerifyOptions, collect_candidates, verify_batch

    os.makedirs(args.out, exist_ok=True)
    results_path = os.path.join(args.out, "results.json")
    data: dict = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "steps": {}}

    def save(step: str, value) -> None:
        data["steps"][step] = value
        data["elapsed_s"] = round(time.monotonic() - STARTED, 1)
        with open(results_path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1, default=str)
        os.replace(results_path + ".tmp", results_path)
        log(f"saved {step}")

    def options(**changes) -> VerifyOptions:
        base = dict(lint=False, cache_dir=args.cache, build_jobs=args.jobs, run_timeout=args.run_timeout,
                    build_timeout=400.0, sanitize_timeout=150.0, timing_trials=100)
        if args.standin:
            base.update(worker=[sys.executable, os.path.join(FIXTURES, "standin_worker.py")], gpus=["0"])
        base.update(changes)
        return VerifyOptions(**base)

    def time_left(needed: float) -> bool:
        return time.monotonic() - STARTED + needed < args.deadline

    data["environment"] = environment(sys.executable)
    log(f"environment: {json.dumps(data['environment'])}")
    shutil.rmtree(args.cache, ignore_errors=True)
    candidates = collect_candidates(RUN, problems=PROBLEMS)
    by_name = {c.name: c for c in candidates}

    started = time.monotonic()
    lint = {}
    for result in lint_paths([RUN]):
        name = os.path.splitext(os.path.basename(result.path))[0]
        errors = [f for f in result.findings if f.severity == Severity.ERROR]
        lint[name] = {"errors": [f"{f.code} line {f.line}" for f in errors], "rejected": bool(errors)}
    gate = verify_batch([by_name["level_1_problem_19_sample_1_kernel"]], options(lint=True))[0]
    save("lint", {"verdicts": lint, "seconds": round(time.monotonic() - started, 2),
                  "gate": {k: gate[k] for k in ("name", "status", "message", "seconds", "build")}})

    def step(name: str, needed: float, work) -> None:
        if not time_left(needed):
            log(f"skipped {name}: the deadline is near")
            data.setdefault("skipped", []).append(name)
            return
        try:
            work()
        except Exception as error:  # noqa: BLE001 - one failed step must not cost the others
            log(f"{name} failed: {type(error).__name__}: {error}")
            data.setdefault("errors", {})[name] = f"{type(error).__name__}: {error}"

    def cold() -> None:
        log("cold batch: empty cache, every solution")
        started = time.monotonic()
        records = verify_batch(candidates, options(), Printer())
        save("cold", {"wall_s": round(time.monotonic() - started, 1), "records": records})

    def warm_builds() -> None:
        log("warm cache: the build phase of every solution again")
        started = time.monotonic()
        records = verify_batch(candidates, options(build_only=True), Printer())
        save("warm_build", {"wall_s": round(time.monotonic() - started, 1), "records": records})

    def warm_runs(names: list[str], key: str) -> None:
        log(f"warm batch ({key}): {len(names)} correct kernels again, timed a second time")
        started = time.monotonic()
        records = verify_batch([by_name[n] for n in names], options(), Printer())
        save(key, {"wall_s": round(time.monotonic() - started, 1), "records": records})

    def pytest_gpu() -> None:
        log("GPU tests")
        env = dict(os.environ, CUDALINT_CACHE=args.cache, PYTHONPATH=os.pathsep.join(
            [ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
        started = time.monotonic()
        try:
            done = subprocess.run([sys.executable, "-m", "pytest", "-m", "gpu", "tests/test_verify_gpu.py", "-q",
                                   "-p", "no:cacheprovider", "-rs"], cwd=ROOT, env=env, capture_output=True,
                                  text=True, timeout=max(30.0, args.deadline - (time.monotonic() - STARTED)))
            output, returncode = done.stdout + done.stderr, done.returncode
        except subprocess.TimeoutExpired as error:
            output, returncode = f"timed out: {error}", 124
        with open(os.path.join(args.out, "pytest_gpu.txt"), "w", encoding="utf-8") as handle:
            handle.write(output)
        save("pytest", {"returncode": returncode, "seconds": round(time.monotonic() - started, 1),
                        "tail": output[-1500:]})
        print(output[-800:])

    sanitized: list = []

    def sanitize(name: str, tool: str) -> None:
        log(f"{tool} on {name}")
        candidate = by_name[name]
        candidate.sanitize = (tool,)
        try:
            record = verify_batch([candidate], options(timing=False, trials=1))[0]
        finally:
            candidate.sanitize = None
        sanitized.append(record)
        save("sanitize", sanitized)

    def no_poison() -> None:
        log("unwritten output with poisoning off")
        record = verify_batch([by_name["level_2_problem_76_sample_1_kernel"]], options(poison=False, timing=False))[0]
        save("no_poison", record)

    correct = [c.name for c in candidates if c.name not in BUGS]
    first = [n for n in FIRST_TIMED if n in by_name]
    step("cold", 0, cold)
    step("warm_build", 40, warm_builds)
    step("warm_run", 60, lambda: warm_runs(first, "warm_run"))
    if not args.standin:
        step("pytest", 100, pytest_gpu)
    for name, tool in SANITIZE:
        step(f"{tool} {name}", 60, lambda name=name, tool=tool: sanitize(name, tool))
    step("no_poison", 25, no_poison)
    rest = [n for n in correct if n not in first]
    while rest and time_left(20):
        fits = max(1, int((args.deadline - (time.monotonic() - STARTED) - 10) // 9))
        batch, rest = rest[:fits], rest[fits:]
        step("warm_run_more", 15, lambda batch=batch: warm_runs(batch, f"warm_run_{len(data['steps'])}"))

    report = render(data)
    with open(os.path.join(args.out, "verify_gpu.md"), "w", encoding="utf-8") as handle:
        handle.write(report)
    print(report[-6000:])
    return 0


# ------------------------------------------------------------------------------------------------ report


def _by_name(records: list[dict]) -> dict:
    return {r["name"]: r for r in records}


def _ms(record: dict | None) -> str:
    timing = (record or {}).get("timing") or {}
    return f"{timing['candidate']['median_ms']:.4g}" if timing.get("candidate") else "-"


def _num(value, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def render(data: dict) -> str:
    steps = data.get("steps", {})
    cold = _by_name(steps.get("cold", {}).get("records", []))
    warm = {}
    for key, value in steps.items():
        if key.startswith("warm_run"):
            warm.update(_by_name(value.get("records", [])))
    warm_build = _by_name(steps.get("warm_build", {}).get("records", []))
    lint = steps.get("lint", {}).get("verdicts", {})
    lines = [f"# cudalint verify on the GPU machine ({data.get('started', '')})", ""]
    env = data.get("environment", {})
    lines += [f"- GPU: {env.get('nvidia_smi', '')}", f"- torch: {env.get('torch', '')}; nvcc: "
              f"{' '.join(env.get('nvcc', []))}; compute-sanitizer: {' '.join(env.get('compute_sanitizer', []))}; "
              f"{env.get('cpus')} CPU cores", ""]
    gate = steps.get("lint", {}).get("gate")
    if gate:
        lines += [f"Lint gate: `{gate['name']}` -> **{gate['status']}** ({gate['message']}); lint took "
                  f"{gate['seconds']['lint']:.2f} s, nothing was built.", ""]
    lines += ["## Verdicts and cost per kernel", "",
              "Cold: empty build cache. Warm: the same batch again. Build = the build worker's wall time (torch "
              "import, ninja, nvcc); run = the run worker's (torch import, load, 5 correctness trials, timing). "
              "The batch ran with lint off so that the broken files reach the GPU; the lint column says what the "
              "gate would have done.", "",
              "| kernel | deliberate bug | lint gate | verdict (cold) | verdict (warm run, or warm build only) | "
              "build cold s | build warm s "
              "| run s (cold/warm) | max abs err | ms cold / warm | speedup |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, record in cold.items():
        other = warm.get(name)
        lint_entry = lint.get(name, {})
        verdict = "reject (" + ", ".join(lint_entry["errors"][:2]) + ")" if lint_entry.get("errors") else "pass"
        build_cold = (record.get("build") or {}).get("seconds")
        build_warm = ((warm_build.get(name) or other or {}).get("build") or {}).get("seconds")
        error = (record.get("correctness") or {}).get("max_abs_error")
        speedup = (record.get("timing") or {}).get("speedup")
        cells = [name.replace("_kernel", ""), BUGS.get(name, "-"), verdict, record["status"],
                 other["status"] if other else ((warm_build.get(name) or {}).get("status") or "not run"), _num(build_cold, ".1f"), _num(build_warm, ".1f"),
                 f"{record['seconds']['run']:.1f} / {_num(other['seconds']['run'] if other else None, '.1f')}",
                 _num(error, ".3g"), f"{_ms(record)} / {_ms(other)}", f"{speedup:.2f}x" if speedup else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    if cold:
        lines += ["", "Messages (cold batch):", ""]
        for name, record in cold.items():
            if record["status"] != "correct":
                lines.append(f"- `{name}`: **{record['status']}**: {record['message'][:300]}")
    for label, step in (("cold", steps.get("cold")), ("warm build phase", steps.get("warm_build"))):
        if step:
            records = step["records"]
            built = [r for r in records if (r.get("build") or {}).get("extensions")]
            build_total = sum((r.get("build") or {}).get("seconds", 0) for r in built)
            lines.append("")
            lines.append(f"- {label} batch: {len(records)} kernels in {step['wall_s']} s wall; build workers "
                         f"{build_total:.0f} s in total (parallel), run workers "
                         f"{sum(r['seconds']['run'] for r in records):.0f} s (one GPU, one at a time)")
    correct = [n for n, r in cold.items() if r["status"] == "correct" and n in warm and warm[n].get("timing")]
    if correct:
        lines += ["", "## Timing spread: correct kernels timed twice (cold batch, then again with a warm cache)", "",
                  "Median of 100 CUDA-event timings after 3 warm-ups, L2 flushed (256 MB written) before each; "
                  "IQR = p75 - p25 within one run.", "",
                  "| kernel | median ms run 1 | median ms run 2 | difference | IQR run 1 | ref ms run 1 | "
                  "ref ms run 2 | speedup run 1 / run 2 |", "|---|---|---|---|---|---|---|---|"]
        for name in correct:
            first, second = cold[name]["timing"], warm[name]["timing"]
            a, b = first["candidate"]["median_ms"], second["candidate"]["median_ms"]
            iqr = first["candidate"].get("p75_ms", a) - first["candidate"].get("p25_ms", a)
            lines.append(f"| {name.replace('_kernel', '')} | {a:.4g} | {b:.4g} | {100 * (b - a) / a:+.1f}% | "
                         f"{iqr:.3g} | {first['reference']['median_ms']:.4g} | {second['reference']['median_ms']:.4g}"
                         f" | {first['speedup']:.2f}x / {second['speedup']:.2f}x |")
    ablation = steps.get("no_poison")
    if ablation:
        lines += ["", f"Poisoning off, `{ablation['name']}`: **{ablation['status']}** ({ablation['message'][:200]})"]
    for record in steps.get("sanitize", []):
        for tool, result in (record.get("sanitizer") or {}).items():
            lines += ["", f"Sanitizer {tool} on `{record['name']}` ({result.get('seconds', 0):.1f} s): "
                          f"{result.get('errors', 0)} error(s), {result.get('other_reports', 0)} report(s) outside "
                          f"the candidate; verdict **{record['status']}**"]
            for report in result.get("reports", [])[:4]:
                count = f"x{report.get('count', 1)}" + (f", {report['hazards']} hazards" if report.get("hazards") else "")
                if not report.get("file"):
                    lines.append(f"  - {report['kind']}: {report['message']} ({count})")
                    continue
                where = f"line {report['py_line']}" if report.get("py_line") else f"{report['file']}:{report['line']}"
                second = f", other access line {report['second_py_line']}" if report.get("second_py_line") else ""
                details = "; ".join(report.get("details") or [])
                lines.append(f"  - {report['kind']} in `{report.get('kernel')}` at {where}{second}, thread "
                             f"{report.get('thread')} block {report.get('block')} ({count})"
                             + (f": {details}" if details else ""))
            if not result.get("reports") and result.get("log_tail"):
                lines.append("  - log tail: " + result["log_tail"][-300:].replace("\n", " | "))
    pytest_step = steps.get("pytest")
    if pytest_step:
        last = [line for line in pytest_step["tail"].splitlines() if line.strip()][-1:] or [""]
        lines += ["", f"GPU tests: exit {pytest_step['returncode']} in {pytest_step['seconds']} s: {last[0]}"]
    cold_records = steps.get("cold", {}).get("records", [])
    if cold_records:
        from cudalint.verify.results import summary

        info = summary(cold_records)
        lines += ["", f"fast_0 {info['fast_0']:.2f}, fast_1 {info['fast_p']:.2f} over {info['candidates']} "
                      f"candidates; by problem {info['fast_p_by_problem']:.2f}"]
    lines.append(f"\nTotal elapsed: {data.get('elapsed_s')} s")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
