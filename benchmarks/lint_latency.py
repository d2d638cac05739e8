"""Lint latency per corpus file, and the ratio to `nvcc -c` on the same .cu files, measured in one run.

    python benchmarks/lint_latency.py [CORPUS] [--repeat 5] [--nvcc 20|all] [--phases]

Each file is linted `--repeat` times (the first run warms the stub headers and libclang) and its median
kept; the table gives the median and p95 over files, by kind, and nvcc's median on the first `--nvcc`
.cu files (`all`: every one, as the ratio is meant; 20 is quicker, but the first files are the heavier
attention kernels) next to cudalint's median on those same files, and the median of the per-file ratios.
`--phases` adds where the time goes: each stage of the engine timed on its own (fastest of the repeats),
median and mean over files.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
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
    parser.add_argument("--nvcc", default="20", help=".cu files to compile with nvcc: a number (0: skip) or all")
    parser.add_argument("--phases", action="store_true", help="also time each stage of the engine")
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

    if args.phases:
        print_phases(cases, args.repeat)

    sample = len(cases) if args.nvcc == "all" else int(args.nvcc)
    if sample:
        nvcc_times, paths = time_nvcc(args.corpus, cases, sample)
        if not nvcc_times:
            print("\nnvcc not found: no comparison")
            return
        lint_same = statistics.median(per_file[p] for p in paths)
        nvcc_median = statistics.median(nvcc_times)
        per_file_ratio = statistics.median(n / per_file[p] for n, p in zip(nvcc_times, paths))
        print(f"\nnvcc -c -arch=sm_90 on {len(paths)} .cu files: median {nvcc_median:.0f} ms; "
              f"cudalint on the same files: median {lint_same:.2f} ms; ratio {nvcc_median / lint_same:.0f}x "
              f"(median of the per-file ratios {per_file_ratio:.0f}x)")


def print_phases(cases, repeat: int) -> None:
    """The engine's stages one by one, as `engine._lint_document` runs them (without suppressions)."""
    from cudalint.archs import architecture
    from cudalint.checks.context import RuleContext, UnitFacts
    from cudalint.config import LintOptions
    from cudalint.engine import selected_rules
    from cudalint.frontend.lower import LoweredUnit, Lowering
    from cudalint.frontend.parse import parse_unit
    from cudalint.frontend.prototypes import from_definitions
    from cudalint.model.program import build_program
    from cudalint.sources import load_document

    options = LintOptions().validate()
    arch = architecture(options.arch)
    per_phase: dict[str, list[float]] = {}
    for case in cases:
        best: Counter | None = None
        for _ in range(repeat):
            spent: Counter = Counter()

            def timed(phase, work):
                start = time.perf_counter()
                result = work()
                spent[phase] += (time.perf_counter() - start) * 1000
                return result

            document = timed("sources (read .py, find units)", lambda: load_document(case.path, case.text))
            rules = selected_rules(options, case.path)
            for rule in rules:
                if rule.scope == "document":
                    timed("Python-side rules (CL400, CL403, CL404)",
                          lambda: list(rule.check(RuleContext(rule, document, arch, options=options))))
            lowered_units: dict[int, LoweredUnit] = {}
            for unit in sorted(document.units, key=lambda u: u.language != "cuda"):  # as `lower_unit` is used
                cuda_units = [lowered_units[id(u)] for u in document.units if id(u) in lowered_units]
                prototypes = timed("lower to IR", lambda: from_definitions(unit, cuda_units)) \
                    if unit.language == "c++" and cuda_units else None
                if prototypes is not None:
                    lowered_units[id(unit)] = LoweredUnit(unit, [], [], prototypes=prototypes)
                    continue
                parsed = timed("parse (libclang)", lambda: parse_unit(unit))
                lowered_units[id(unit)] = timed("lower to IR", lambda: Lowering(parsed).lower())
            for unit in document.units:
                lowered = lowered_units[id(unit)]
                program = timed("unit rules", lambda: build_program(unit, lowered.functions, lowered.globals))
                facts = UnitFacts(unit, lowered, program)
                for rule in rules:
                    if rule.scope == "unit":
                        phase = f"unit rules: {rule.code}" if rule.code in ("CL101", "CL201") else "unit rules"
                        timed(phase, lambda: list(rule.check(RuleContext(rule, document, arch, facts, options))))
            if best is None or sum(spent.values()) < sum(best.values()):
                best = spent
        for phase in set(per_phase) | set(best):
            per_phase.setdefault(phase, []).append(best.get(phase, 0.0))
    print(f"\n{'stage (ms per file)':<42} {'median':>7} {'mean':>7}")
    for phase, values in sorted(per_phase.items(), key=lambda item: -statistics.mean(item[1])):
        values += [0.0] * (len(cases) - len(values))
        print(f"{phase:<42} {statistics.median(values):>7.2f} {statistics.mean(values):>7.2f}")


if __name__ == "__main__":
    main()
