"""Verify results: the batch summary (fast_p), the table, JSON files, and GPU reports for `cudalint repair`.

A record (one per candidate, `cudalint.verify.runner.new_record`) is plain JSON data:

- `status`: `correct`, `incorrect`, `rejected` (lint), `compile_error`, `build_timeout`, `timeout`,
  `crash`, `illegal_address`, `misaligned_address`, `oom`, `launch_failure`, `cuda_error`, `device_assert`,
  `runtime_error`, `sanitizer_error` (correct output, sanitizer errors), `unchecked` (correct output, but a
  sanitizer run asked for did not finish: crashed at start, timed out, ran out of memory, or the tool is
  missing; never reported as passed), `invalid_solution`,
  `reference_error`, `no_reference`, `no_gpu`, `worker_error`; `passed` is true for `correct` only.
- `lint`, `build` (seconds, cache hit, extensions), `compile_errors` (mapped to .py lines),
  `correctness` (trials, max and mean absolute error, failures), `timing` (candidate, reference and
  optionally torch.compile: median, mean, std, min, max, quartiles in ms; speedups), `sanitizer` (per
  tool: structured reports), `seconds` (per phase), `worker` (how each process ended).

fast_p (KernelBench): the fraction of candidates that are correct and faster than the eager reference by
more than the factor p; `fast_0` is the fraction correct.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable

from cudalint.verify.diagnostics import CompileMessage, SanitizerReport


def summary(records: list[dict], p: float = 1.0) -> dict:
    """Counts and fractions of a batch. The fractions (fast_0, fast_p, fast_p over problems) count the
    candidates that were judged: one the GPU stage could not judge (no GPU, no reference, a reference or
    worker that failed: `NOT_THE_CANDIDATES`, or only built) is `unmeasured`, and a fraction with no judged
    candidate is None, never 0.0 as if measured."""
    total = len(records)
    unmeasured: dict[str, int] = {}
    for record in records:
        if record["status"] in NOT_THE_CANDIDATES or record["status"] == "built":
            unmeasured[record["status"]] = unmeasured.get(record["status"], 0) + 1
    judged = total - sum(unmeasured.values())
    correct = [r for r in records if r["status"] == "correct"]
    fast = [r for r in correct if _speedup(r) is not None and _speedup(r) > p]
    by_status: dict[str, int] = {}
    for record in records:
        by_status[record["status"]] = by_status.get(record["status"], 0) + 1
    problems: dict[tuple, list[dict]] = {}
    for record in records:
        if record["status"] not in unmeasured:
            problems.setdefault((record.get("level"), record.get("problem"), record.get("reference")), []).append(record)
    fast_problems = sum(1 for group in problems.values()
                        if any(r["status"] == "correct" and (_speedup(r) or 0) > p for r in group))
    speedups = [_speedup(r) for r in correct if _speedup(r) is not None]
    return {
        "candidates": total, "by_status": by_status, "correct": len(correct), "judged": judged,
        "unmeasured": unmeasured,
        "fast_0": len(correct) / judged if judged else None,
        "p": p, "fast_p": len(fast) / judged if judged else None,
        "problems": len(problems), "fast_p_by_problem": fast_problems / len(problems) if problems else None,
        "geomean_speedup": _geomean(speedups),
        "sanitizer_errors": sum(r.get("sanitizer_errors", 0) for r in records),
        "sanitizer_warnings": sum(r.get("sanitizer_warnings", 0) for r in records),
        "with_sanitizer_warnings": sum(1 for r in records if r.get("sanitizer_warnings")),
    }


def fraction(value: float | None, digits: int = 2) -> str:
    """A fraction of `summary` as text: `-` when nothing was judged."""
    return "-" if value is None else f"{value:.{digits}f}"


def unmeasured_note(info: dict) -> str:
    """`16 not measured (16 no_gpu): the fractions count the 4 judged`, or "" when every candidate was judged."""
    if not info["unmeasured"]:
        return ""
    count = sum(info["unmeasured"].values())
    kinds = ", ".join(f"{n} {status}" for status, n in sorted(info["unmeasured"].items()))
    return f"{count} not measured ({kinds}): the fractions count the {info['judged']} judged"


def _speedup(record: dict) -> float | None:
    timing = record.get("timing") or {}
    return timing.get("speedup")


def _geomean(values: list[float]) -> float | None:
    import math

    values = [v for v in values if v and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _fmt(value, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def table_rows(records: Iterable[dict]) -> list[list[str]]:
    rows = []
    for record in records:
        build = record.get("build") or {}
        correctness = record.get("correctness") or {}
        timing = record.get("timing") or {}
        candidate = timing.get("candidate") or {}
        reference = timing.get("reference") or {}
        sanitizer = ", ".join(_sanitizer_cell(tool, r) for tool, r in (record.get("sanitizer") or {}).items())
        cache = "-" if not build.get("extensions") else ("hit" if build.get("cache_hit") else "cold")
        rows.append([
            record["name"], record["status"],
            f"{build.get('seconds', 0):.1f}s {cache}" if build else "-",
            _fmt(correctness.get("max_abs_error")) if correctness else "-",
            f"{candidate['median_ms']:.4g}" if candidate else "-",
            f"{reference['median_ms']:.4g}" if reference else "-",
            f"{timing['speedup']:.2f}x" if timing.get("speedup") else "-",
            f"{timing['speedup_compile']:.2f}x" if timing.get("speedup_compile") else "-",
            sanitizer or "-",
        ])
    return rows


def _sanitizer_cell(tool: str, result: dict) -> str:
    if not result.get("ran"):
        return f"{tool}: not run"
    if result.get("status") in ("not_launched", "uncounted", "sanitizer_internal_error") and not result.get("errors"):
        return f"{tool}: {result['status'].replace('sanitizer_', '').replace('_', ' ')}"
    if not result.get("complete", True) and not result.get("errors"):
        return f"{tool}: unfinished"
    warnings = f" +{result['warnings']}w" if result.get("warnings") else ""
    return f"{tool}: {result.get('errors', 0)}{warnings}"


HEADERS = ["kernel", "status", "build", "max err", "ms", "ref ms", "speedup", "vs compile", "sanitizer"]


def render_table(records: list[dict], markdown: bool = False, p: float = 1.0) -> str:
    rows = table_rows(records)
    lines = []
    if markdown:
        lines.append("| " + " | ".join(HEADERS) + " |")
        lines.append("|" + "|".join("---" for _ in HEADERS) + "|")
        lines += ["| " + " | ".join(row) + " |" for row in rows]
    else:
        from cudalint.report.tables import render_table

        lines += render_table(HEADERS, rows, rule=False).splitlines()
    info = summary(records, p)
    statuses = ", ".join(f"{count} {status}" for status, count in sorted(info["by_status"].items()))
    geomean = f", geomean speedup {info['geomean_speedup']:.2f}x" if info["geomean_speedup"] else ""
    lines.append("")
    warned = (f"; sanitizer warnings on {info['with_sanitizer_warnings']} ({info['sanitizer_warnings']} in all)"
              if info["with_sanitizer_warnings"] else "")
    lines.append(f"{info['candidates']} candidates: {statuses}; fast_0 {fraction(info['fast_0'])}, "
                 f"fast_{p:g} {fraction(info['fast_p'])}{geomean}{warned}"
                 + (f"; {unmeasured_note(info)}" if info["unmeasured"] else ""))
    return "\n".join(lines)


def messages(record: dict) -> list[str]:
    """The lines that explain a record that did not pass, or passed with sanitizer warnings."""
    lines = []
    if record.get("message") and (record["status"] != "correct" or record.get("sanitizer_warnings")):
        lines.append(f"{record['name']}: {record['status']}: {record['message']}")
    for report in gpu_reports(record, warnings=True):
        if report.kind not in (record["status"],) and report.text not in (record.get("message") or ""):
            lines.append(f"    {report.kind}: {report.text}")
    return lines


def write_json(records: list[dict], path: str, p: float = 1.0) -> None:
    payload = {"schema": "cudalint.verify.batch/1", "summary": summary(records, p), "results": records}
    _atomic_write(path, json.dumps(payload, indent=2, default=str) + "\n")


def write_per_kernel(records: list[dict], directory: str) -> list[str]:
    os.makedirs(directory, exist_ok=True)
    written = []
    for record in records:
        path = os.path.join(directory, f"{record['name']}.json")
        _atomic_write(path, json.dumps(record, indent=2, default=str) + "\n")
        written.append(path)
    return written


def _atomic_write(path: str, text: str) -> None:
    temporary = f"{path}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, path)


# ---------------------------------------------------------------------------------------- repair loop

# statuses about the machine or the reference, not the candidate: a repair round cannot act on them
NOT_THE_CANDIDATES = ("no_gpu", "no_reference", "reference_error", "worker_error")


def gpu_reports(record: dict, warnings: bool = False, min_speedup: float | None = None) -> list:
    """The record as `cudalint.repairing.prompts.GpuReport`s (kind, text) for a repair round; empty when the
    candidate passed (sanitizer warnings, which do not fail a candidate, only with `warnings`). With
    `min_speedup`, a correct candidate timed slower than that over the eager reference is reported too."""
    from cudalint.repairing.prompts import SLOW, GpuReport

    reports: list = []
    status = record["status"]
    if status == "rejected":
        for finding in (record.get("lint") or {}).get("findings", [])[:5]:
            if finding["severity"] == "error":
                reports.append(GpuReport("lint", f"line {finding['line']}: {finding['code']} {finding['message']}"))
    elif status == "compile_error":
        for item in record.get("compile_errors", [])[:8]:
            if item["severity"] == "error":
                reports.append(GpuReport("compile_error", CompileMessage(**item).describe()))
        if not reports:
            reports.append(GpuReport("compile_error", record.get("message") or "the build failed"))
    elif status == "incorrect":
        correctness = record.get("correctness") or {}
        failing = [t for t in correctness.get("trial_results", []) if not t.get("ok")]
        for failure in (failing[-1]["failures"] if failing else [])[:4]:
            seed = failing[-1].get("seed")
            reports.append(GpuReport(failure["kind"], f"trial {failing[-1].get('trial')} (seed {seed}): "
                                     f"{failure['message']}"))
        if not reports:
            reports.append(GpuReport("incorrect", record.get("message") or "wrong result"))
    elif status not in ("correct", "sanitizer_error"):
        reports.append(GpuReport(status, record.get("message") or status))
    speedup = _speedup(record)
    rejected = (record.get("timing") or {}).get("status") == "rejected"
    if status == "correct" and min_speedup is not None and rejected:
        reports.append(GpuReport(SLOW, f"correct, but its timing was rejected ({record['timing'].get('message')}): "
                                       f"at least {min_speedup:g}x is required, measured by cudalint's clock"))
    elif status == "correct" and min_speedup is not None and speedup is not None and speedup < min_speedup:
        timing = record["timing"]
        reports.append(GpuReport(SLOW, f"correct, but {speedup:.2f}x the speed of the PyTorch reference "
                                       f"({timing['candidate']['median_ms']:.4g} ms against "
                                       f"{timing['reference']['median_ms']:.4g} ms, median of "
                                       f"{timing['candidate'].get('trials', '?')} timed runs); at least "
                                       f"{min_speedup:g}x is required: make it faster and keep it correct"))
    for tool, result in (record.get("sanitizer") or {}).items():
        for item in result.get("reports", [])[:6]:
            if item.get("severity") == "error" or warnings:
                reports.append(GpuReport(tool if item.get("severity") == "error" else f"{tool} warning",
                                         SanitizerReport(**item).describe()))
    return reports


__all__ = ["HEADERS", "gpu_reports", "messages", "render_table", "summary", "table_rows", "write_json",
           "write_per_kernel"]
