"""What the dry run costs on top of static lint, on the real generated kernels (their own references).

    python benchmarks/dry_run_cost.py [--labels ../shared/data/realkernels] [--sample 120] [--jobs 2]
                                      [--markdown benchmarks/results/dry_run.md]

Per solution (one process, `--sample` solutions spread over the labels, every dry run afresh, its cache
off): the static lint's time, and the dry run's time as the parent sees it (server round trip, fork,
run; the server's one start is timed apart). Then the batch: every labelled solution linted with
`--jobs` processes, the result cache off, once without and once with the dry run (its cache off too),
wall time each. Prints, and with --markdown writes, one table with the machine's load average, since the
numbers are wall-clock times on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cudalint import LintOptions, lint_source  # noqa: E402
from cudalint.engine import iter_lint_each  # noqa: E402


def labelled(labels_dir: Path) -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in (labels_dir / "labels.jsonl").read_text().splitlines() if line.strip()]
    return [(str(labels_dir / "kernels" / r["path"]), str(labels_dir / "problems" / r["reference"])) for r in rows]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def per_solution(pairs: list[tuple[str, str]]) -> dict:
    from cudalint.engine import dry_run

    server_start = 0.0
    for solution, reference in pairs:  # the first solution that runs starts this process's server
        start = time.perf_counter()
        if not dry_run(solution, reference, use_cache=False).skipped:
            server_start = time.perf_counter() - start
            break
    lint, dry, ran, completed = [], [], 0, 0
    for solution, reference in pairs:
        text = Path(solution).read_text()
        start = time.perf_counter()
        lint_source(text, filename=solution, options=LintOptions(reference=reference, dry_run=False))
        lint.append(time.perf_counter() - start)
        start = time.perf_counter()
        facts = dry_run(solution, reference, use_cache=False)
        elapsed = time.perf_counter() - start
        if not facts.skipped:
            dry.append(elapsed)
            ran += 1
            completed += facts.completed
    return {"server_start": server_start, "lint": lint, "dry": dry, "ran": ran, "completed": completed,
            "sampled": len(pairs)}


def batch(pairs: list[tuple[str, str]], jobs: int, dry_run: bool) -> float:
    os.environ["CUDALINT_NO_CACHE"] = "1"  # the dry run's cache too: every run afresh
    options = [LintOptions(reference=reference, dry_run=dry_run) for _, reference in pairs]
    start = time.perf_counter()
    for _ in iter_lint_each([solution for solution, _ in pairs], options, jobs):
        pass
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "realkernels"))
    parser.add_argument("--sample", type=int, default=120)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--markdown")
    args = parser.parse_args()
    pairs = labelled(Path(args.labels))
    step = max(1, len(pairs) // args.sample)
    single = per_solution(pairs[::step][:args.sample])
    load_before = os.getloadavg()[0]
    static_wall = batch(pairs, args.jobs, dry_run=False)
    dry_wall = batch(pairs, args.jobs, dry_run=True)
    load_after = os.getloadavg()[0]
    rows = [
        ("solutions sampled (per-solution figures)", f"{single['sampled']} ({single['ran']} dry-run, "
                                                     f"{single['completed']} completed)"),
        ("server start and first dry run (sandbox, torch import; once per process)",
         f"{single['server_start']:.2f} s"),
        ("static lint per solution: median / p95", f"{statistics.median(single['lint']):.3f} / "
                                                   f"{percentile(single['lint'], 0.95):.3f} s"),
        ("dry run per solution: median / p95", f"{statistics.median(single['dry']):.3f} / "
                                               f"{percentile(single['dry'], 0.95):.3f} s"),
        (f"batch of {len(pairs)}, {args.jobs} processes, static only", f"{static_wall:.0f} s"),
        (f"batch of {len(pairs)}, {args.jobs} processes, with the dry run", f"{dry_wall:.0f} s"),
        ("load average (1 min) before / after the batches", f"{load_before:.1f} / {load_after:.1f}"),
    ]
    table = "| measure | value |\n| --- | --- |\n" + "\n".join(f"| {a} | {b} |" for a, b in rows)
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(
            "# The dry run's cost\n\n`python benchmarks/dry_run_cost.py --jobs " + str(args.jobs) +
            " --markdown benchmarks/results/dry_run.md` on the real generated kernels "
            "(`../shared/data/realkernels`), every dry run afresh (caches off). Wall-clock times on a "
            "shared 2-core machine: the load average says how shared.\n\n" + table + "\n")


if __name__ == "__main__":
    main()
