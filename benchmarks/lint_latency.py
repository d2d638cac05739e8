"""Lint latency per corpus file, and the ratio to `nvcc -c` on the same .cu files, measured in one run.

    python benchmarks/lint_latency.py [CORPUS] [--repeat 5] [--nvcc 20]

Each file is linted `--repeat` times (the first run warms the stub headers and libclang) and its median
kept; the table gives the median and p95 over files, by kind, and nvcc's median on the first `--nvcc`
.cu files next to cudalint's median on those same files.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cudalint import lint_source  # noqa: E402
from cudalint.engine import tune_garbage_collector  # noqa: E402
from cudalint.evaluation.corpus import load_corpus  # noqa: E402
from cudalint.evaluation.run import percentile, time_nvcc  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(Path(__file__).resolve().parents[1] / "corpus"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--nvcc", type=int, default=20, help=".cu files to compile with nvcc (0: skip)")
    args = parser.parse_args()

    cases = load_corpus(args.corpus)
    tune_garbage_collector()  # as the CLI does
    lint_source("__global__ void warm() {}", "warm.cu")
    per_file: dict[str, float] = {}
    for case in cases:
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            lint_source(case.text, filename=case.path)
            times.append((time.perf_counter() - start) * 1000)
        per_file[case.path] = statistics.median(times)

    print(f"{'files':<22} {'count':>5} {'median ms':>10} {'p95 ms':>8}")
    for label, suffix in (("all", ""), (".cu", ".cu"), (".py (KernelBench)", ".py")):
        values = [t for p, t in per_file.items() if p.endswith(suffix)]
        if values:
            print(f"{label:<22} {len(values):>5} {statistics.median(values):>10.2f} {percentile(values, 0.95):>8.2f}")

    if args.nvcc:
        nvcc_times, paths = time_nvcc(args.corpus, cases, args.nvcc)
        if not nvcc_times:
            print("\nnvcc not found: no comparison")
            return
        lint_same = statistics.median(per_file[p] for p in paths)
        nvcc_median = statistics.median(nvcc_times)
        print(f"\nnvcc -c -arch=sm_90 on {len(paths)} .cu files: median {nvcc_median:.0f} ms; "
              f"cudalint on the same files: median {lint_same:.2f} ms; ratio {nvcc_median / lint_same:.0f}x")


if __name__ == "__main__":
    main()
