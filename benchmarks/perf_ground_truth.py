"""Ground truth for the performance advisories (CL5xx): for each rule, a kernel with the pattern and its
fixed twin (`benchmarks/perf_cases/`), what cudalint says about each, the Nsight Compute metric that
measures the pattern, and the time of each with CUDA events. A rule ships when the metric confirms it.

    # here (CPU; nvcc, no GPU): compile every case (nvcc -c -arch=sm_90) and record cudalint's findings
    python benchmarks/perf_ground_truth.py --check
    # on the GPU machine (one H200, ncu; stdlib only, no network), 2 to 4 minutes:
    python3 benchmarks/perf_ground_truth.py --out $OUT
    # here again: the table from the GPU run, with cudalint's findings computed now
    python benchmarks/perf_ground_truth.py --render RESULTS/perf_ground_truth.json

A GPU run writes `perf_ground_truth.json` (every figure), `perf_advisories.md` (the table) and
`logs.tar.gz` (ncu's CSV reports and the programs' output) under `--out`. `--render` writes the table to
`benchmarks/results/perf_advisories.md`. Where cudalint cannot be imported (the GPU machine has no
libclang) the findings come from `benchmarks/perf_cases/findings.json`, which `--check` writes and a test
keeps current.

Each case is linked with `perf_cases/harness.cu`, which allocates three buffers, calls the case's
`launch_case` once, and with a repetition count times it (mean of the repetitions, each after a 256 MB
memset that flushes L2). Under ncu the program launches the case's kernel once (`--launch-count 1`,
kernels named `case_*`).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, "perf_cases")
FINDINGS_FILE = os.path.join(CASES_DIR, "findings.json")
TABLE_FILE = os.path.join(HERE, "results", "perf_advisories.md")
ARCH = "sm_90"
MB = 1 << 20


@dataclass(frozen=True)
class Figure:
    """The measure of a pattern: a metric, or the ratio of two (each a list of candidate names, the first
    the GPU's ncu knows is used), and how the pattern must compare with its twin to confirm the rule."""

    name: str
    numerator: tuple[str, ...]
    denominator: tuple[str, ...] = ()
    confirm: str = "higher"  # "higher": the pattern's figure at least `factor` times the twin's;
    # "lower": at most 1/`factor` of it; "zero": 0 for the pattern and above 0 for the twin
    factor: float = 2.0

    def confirmed(self, pattern: float | None, fixed: float | None) -> bool | None:
        if pattern is None or fixed is None:
            return None
        if self.confirm == "zero":
            return pattern == 0 and fixed > 0
        if self.confirm == "higher":
            return pattern >= self.factor * max(fixed, 1e-9) and pattern > 0
        return pattern * self.factor <= fixed

    @property
    def criterion(self) -> str:
        return {"higher": f"pattern >= {self.factor:g}x twin", "lower": f"pattern <= twin / {self.factor:g}",
                "zero": "pattern 0, twin > 0"}[self.confirm]


@dataclass(frozen=True)
class Case:
    rule: str
    what: str
    stem: str  # perf_cases/<stem>_pattern.cu and <stem>_fixed.cu
    n: int  # the problem size launch_case receives
    buffer_bytes: int
    figure: Figure
    reps: int = 20

    def source(self, variant: str) -> str:
        return os.path.join(CASES_DIR, f"{self.stem}_{variant}.cu")


SECTORS = Figure("global load sectors per request", ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",),
                 ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",))
OCCUPANCY = Figure("achieved occupancy (% of peak warps)", ("sm__warps_active.avg.pct_of_peak_sustained_active",),
                   confirm="lower", factor=1.5)
CASES = (
    Case("CL501", "row sums, a thread per row vs a warp per row (262144 x 256 floats)", "cl501", 262144, 256 * MB,
         SECTORS),
    Case("CL502", "transpose through a [32][32] vs [32][33] float tile (8192 x 8192)", "cl502", 8192, 256 * MB,
         Figure("shared load bank conflicts", ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",),
                factor=10.0)),
    Case("CL503", "y = a * x + b with 32- vs 256-thread blocks (64M floats)", "cl503", 64 * MB, 256 * MB, OCCUPANCY),
    Case("CL504", "3-point stencil with 48 KB vs 520 B of shared memory per block (64M floats)", "cl504", 64 * MB,
         256 * MB, OCCUPANCY),
    Case("CL505", "2048^3 fp32 matrix product, naive vs 16x16 shared-memory tiles", "cl505", 2048, 64 * MB,
         Figure("global load requests", ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",), factor=4.0)),
    Case("CL506", "2048^3 fp16 matrix product (fp32 accumulation), scalar multiply-adds vs wmma", "cl506", 2048,
         64 * MB, Figure("tensor-pipe instructions", ("sm__inst_executed_pipe_tensor_op_hmma.sum",
                                                      "sm__inst_executed_pipe_tensor.sum",
                                                      "smsp__inst_executed_pipe_tensor_op_hmma.sum"),
                        # not "zero": on the H200 the scalar kernel still counts one tensor-pipe instruction per
                        # warp (131,072 for 128 x 128 blocks of 8 warps), whatever the length of its k loop
                        confirm="lower", factor=8.0)),
)
VARIANTS = ("pattern", "fixed")


# ------------------------------------------------------------------------------------------- cudalint


def lint_cases(cases=CASES) -> dict[str, list[str]]:
    """The CL5xx codes cudalint reports on each case file (`cl501_pattern.cu` -> ["CL501"])."""
    from cudalint import lint_source
    from cudalint.config import LintOptions

    options = LintOptions(select=["CL5"], arch=ARCH)
    found = {}
    for case in cases:
        for variant in VARIANTS:
            path = case.source(variant)
            with open(path, encoding="utf-8") as handle:
                findings = lint_source(handle.read(), filename=os.path.basename(path), options=options)
            found[os.path.basename(path)] = sorted({f.code for f in findings})
    return found


def findings_for_table() -> tuple[dict[str, list[str]], str]:
    """cudalint's findings on the cases, computed now where cudalint can run, else as recorded."""
    try:
        return lint_cases(), "computed by cudalint in this run"
    except ImportError:
        with open(FINDINGS_FILE, encoding="utf-8") as handle:
            return json.load(handle), f"as recorded in {os.path.relpath(FINDINGS_FILE, os.path.dirname(HERE))}"


# ------------------------------------------------------------------------------------------- building


def compile_case(source: str, output: str, link: bool) -> tuple[bool, str]:
    """nvcc -arch=sm_90: a program linked with the harness, or (`link` false) an object file only."""
    command = ["nvcc", "-O3", f"-arch={ARCH}", "-lineinfo", "-o", output]
    command += [os.path.join(CASES_DIR, "harness.cu"), source] if link else ["-c", source]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return False, str(error)
    return done.returncode == 0, done.stdout + done.stderr


def check(cases=CASES) -> int:
    """Compile every case (object files, no GPU needed) and record cudalint's findings."""
    failures = 0
    with tempfile.TemporaryDirectory() as build, concurrent.futures.ThreadPoolExecutor(4) as pool:
        sources = [case.source(v) for case in cases for v in VARIANTS] + [os.path.join(CASES_DIR, "harness.cu")]
        jobs = {pool.submit(compile_case, s, os.path.join(build, os.path.basename(s) + ".o"), False): s
                for s in sources}
        for job in concurrent.futures.as_completed(jobs):
            ok, log = job.result()
            print(f"nvcc -c {os.path.basename(jobs[job])}: {'ok' if ok else 'FAILED'}")
            if not ok:
                failures += 1
                print(log)
    found = lint_cases(cases)
    with open(FINDINGS_FILE, "w", encoding="utf-8") as handle:
        json.dump(found, handle, indent=2, sort_keys=True)
        handle.write("\n")
    for case in cases:
        pattern, fixed = (found[os.path.basename(case.source(v))] for v in VARIANTS)
        right = case.rule in pattern and case.rule not in fixed
        failures += not right
        print(f"{case.rule}: pattern {pattern or 'no finding'}, twin {fixed or 'no finding'}"
              f"{'' if right else '  <- WRONG'}")
    return 1 if failures else 0


# ----------------------------------------------------------------------------------------- measuring


def available_metrics() -> set[str] | None:
    """The metric base names ncu knows on this GPU (None when the query fails: use first candidates)."""
    try:
        done = subprocess.run(["ncu", "--query-metrics"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    names = set(re.findall(r"^([a-z0-9]+__[a-z0-9_]+)", done.stdout, re.MULTILINE))
    return names or None


def ordered(candidates: tuple[str, ...], known: set[str] | None) -> list[str]:
    """The candidate metric names to try, those this GPU's ncu lists first (by base name, before the
    suffixes); all of them when the list is unknown."""
    listed = [c for c in candidates if known is not None and c.split(".", 1)[0] in known]
    return listed + [c for c in candidates if c not in listed]


def parse_ncu_csv(text: str) -> dict[str, float]:
    """Metric name -> value from ncu's --csv report (the details page: one row per metric; or the raw
    page: one column per metric, units in the second row)."""
    start = text.find('"ID"')
    rows = list(csv.reader(io.StringIO(text[start:] if start >= 0 else text)))
    if not rows:
        return {}
    header, values = rows[0], {}
    if "Metric Name" in header and "Metric Value" in header:
        name_at, value_at = header.index("Metric Name"), header.index("Metric Value")
        for row in rows[1:]:
            if len(row) > max(name_at, value_at):
                number = _number(row[value_at])
                if number is not None:
                    values[row[name_at]] = number
        return values
    for row in rows[1:]:
        for name, cell in zip(header, row):
            number = _number(cell)
            if number is not None and "__" in name:
                values[name] = number
    return values


def _number(cell: str) -> float | None:
    try:
        return float(cell.replace(",", ""))
    except ValueError:
        return None


def run(command: list[str], timeout: float, log: list[str]) -> subprocess.CompletedProcess | None:
    log.append("$ " + " ".join(command))
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        log.append(f"failed: {error}")
        return None
    log.append(done.stdout + done.stderr)
    return done


def measure(case: Case, variant: str, binary: str, known: set[str] | None, work: str, log: list[str],
            deadline: float) -> dict:
    result: dict = {"time_ms": None, "min_ms": None, "metrics": {}, "error": None}
    done = run([binary, str(case.n), str(case.buffer_bytes), str(case.reps)], 60, log)
    if done is None or done.returncode != 0:
        result["error"] = "the timing run failed"
        return result
    timing = json.loads(done.stdout.strip().splitlines()[-1])
    result["time_ms"], result["min_ms"] = timing["ms"], timing["min_ms"]
    for candidates in (case.figure.numerator, case.figure.denominator):
        for metric in ordered(candidates, known):  # one metric per ncu run: an unknown name fails the run
            if time.monotonic() > deadline:
                result["error"] = "not profiled: the time budget ran out"
                return result
            value = profile(case, variant, binary, metric, work, log)
            if value is not None:
                result["metrics"][metric] = value
                break
        else:
            if candidates:
                result["error"] = f"ncu measured none of {', '.join(candidates)}"
    return result


def profile(case: Case, variant: str, binary: str, metric: str, work: str, log: list[str]) -> float | None:
    """One ncu run of the case's kernel (its first launch) for one metric."""
    report = os.path.join(work, f"ncu_{case.stem}_{variant}_{metric.split('.')[0]}.csv")
    done = run(["ncu", "--clock-control", "none", "--launch-count", "1", "--kernel-name", "regex:^case_",
                "--metrics", metric, "--csv", "--log-file", report,
                binary, str(case.n), str(case.buffer_bytes), "0"], 45, log)
    if done is None or done.returncode != 0 or not os.path.exists(report):
        return None
    with open(report, encoding="utf-8", errors="replace") as handle:
        return parse_ncu_csv(handle.read()).get(metric)


def figure_value(case: Case, metrics: dict) -> float | None:
    numerator = next((metrics[m] for m in case.figure.numerator if metrics.get(m) is not None), None)
    if not case.figure.denominator:
        return numerator
    denominator = next((metrics[m] for m in case.figure.denominator if metrics.get(m) is not None), None)
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def gpu_run(out: str, budget: float) -> int:
    os.makedirs(out, exist_ok=True)
    deadline = time.monotonic() + budget
    log: list[str] = []
    results: dict = {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "arch": ARCH, "cases": {}}
    done = run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], 30, log)
    results["gpu"] = done.stdout.strip() if done is not None else "unknown"
    work = tempfile.mkdtemp(prefix="perf-gt-")
    try:
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            builds = {(case.stem, v): pool.submit(compile_case, case.source(v), os.path.join(work, f"{case.stem}_{v}"),
                                                  True)
                      for case in CASES for v in VARIANTS}
        known = available_metrics()
        for case in CASES:
            entry = results["cases"][case.rule] = {"what": case.what, "figure": case.figure.name,
                                                   "criterion": case.figure.criterion}
            for variant in VARIANTS:
                ok, build_log = builds[(case.stem, variant)].result()
                if not ok:
                    log.append(build_log)
                    entry[variant] = {"error": "nvcc failed", "metrics": {}, "time_ms": None}
                    continue
                entry[variant] = measure(case, variant, os.path.join(work, f"{case.stem}_{variant}"), known, work,
                                         log, deadline)
                entry[variant]["figure"] = figure_value(case, entry[variant]["metrics"])
                print(f"{case.rule} {variant}: {entry[variant]}", flush=True)
            entry["confirmed"] = case.figure.confirmed(entry["pattern"].get("figure"), entry["fixed"].get("figure"))
        with open(os.path.join(work, "run.log"), "w", encoding="utf-8") as handle:
            handle.write("\n".join(log))
        with tarfile.open(os.path.join(out, "logs.tar.gz"), "w:gz") as archive:
            for name in sorted(os.listdir(work)):
                if name.endswith((".csv", ".log")):
                    archive.add(os.path.join(work, name), arcname=name)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    path = os.path.join(out, "perf_ground_truth.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(results, handle, indent=2)
    table = render(results)
    with open(os.path.join(out, "perf_advisories.md"), "w", encoding="utf-8") as handle:
        handle.write(table)
    print(table)
    return 0


# ------------------------------------------------------------------------------------------- the table


def render(results: dict) -> str:
    found, source = findings_for_table()
    lines = [
        "# Performance advisories against Nsight Compute",
        "",
        f"Measured {results.get('date', '?')} on {results.get('gpu', '?')} ({results.get('arch', ARCH)}) with "
        "`python3 benchmarks/perf_ground_truth.py --out DIR`: each rule's pattern kernel and its fixed twin "
        "(`benchmarks/perf_cases/`), one launch profiled by ncu, times as the mean of 20 launches with CUDA "
        f"events, L2 flushed before each. cudalint's findings: {source}.",
        "",
        "| rule | case | cudalint: pattern / twin | metric | pattern | twin | confirmed | time pattern (ms) | "
        "time twin (ms) | speedup |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for case in CASES:
        entry = results.get("cases", {}).get(case.rule, {})
        pattern, fixed = entry.get("pattern", {}), entry.get("fixed", {})
        said = [("yes" if case.rule in found.get(os.path.basename(case.source(v)), []) else "no") for v in VARIANTS]
        # judged by the criterion as it stands, on the figures as measured
        confirmed = {True: "yes", False: "**no**", None: "not measured"}[
            case.figure.confirmed(pattern.get("figure"), fixed.get("figure"))]
        speedup = (f"{pattern['time_ms'] / fixed['time_ms']:.2f}x"
                   if pattern.get("time_ms") and fixed.get("time_ms") else "-")
        lines.append(f"| {case.rule} | {entry.get('what', case.what)} | {said[0]} / {said[1]} | {case.figure.name} "
                     f"({case.figure.criterion}) | {_show(pattern.get('figure'))} | {_show(fixed.get('figure'))} | "
                     f"{confirmed} | {_show(pattern.get('time_ms'))} | {_show(fixed.get('time_ms'))} | {speedup} |")
    errors = [f"- {rule} {variant}: {entry[variant]['error']}" for rule, entry in results.get("cases", {}).items()
              for variant in VARIANTS if isinstance(entry.get(variant), dict) and entry[variant].get("error")]
    if errors:
        lines += ["", "Problems in the run:", "", *errors]
    return "\n".join(lines) + "\n"


def _show(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if abs(value) < 100 else f"{value:,.0f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="compile every case and record cudalint's findings")
    mode.add_argument("--out", metavar="DIR", help="run on the GPU and write the results under DIR")
    mode.add_argument("--render", metavar="JSON", help="write the table of a GPU run's perf_ground_truth.json")
    parser.add_argument("--budget", type=float, default=180.0, metavar="SECONDS",
                        help="start no profiler run after this long (default 180: the whole run stays under 5 "
                             "minutes)")
    args = parser.parse_args()
    if args.check:
        return check()
    if args.out:
        return gpu_run(args.out, args.budget)
    with open(args.render, encoding="utf-8") as handle:
        table = render(json.load(handle))
    os.makedirs(os.path.dirname(TABLE_FILE), exist_ok=True)
    with open(TABLE_FILE, "w", encoding="utf-8") as handle:
        handle.write(table)
    sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
