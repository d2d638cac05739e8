"""Pre-filter throughput: KernelBench-style files per second through `cudalint.prefilter`, in one run.

    python benchmarks/prefilter_throughput.py [--files 400] [--jobs 2] [--source corpus/py] [--profile]

Copies the corpus's KernelBench-style .py files (cycled up to `--files`) into a temporary run directory
named like a KernelBench run (`level_1_problem_<P>_sample_<S>_kernel.py`), then times one
`prefilter(run_dir, jobs=N)` call, process pool start-up included, and prints files/second with the
accepted/rejected split and the workers' CPU time per file. `--profile` lints the same files in this
process under cProfile instead and prints where the time goes.

The package's bytecode is compiled first, as `pip install` does: where PYTHONDONTWRITEBYTECODE is set (as
on our development machines), every run would otherwise compile the rules' source on import, 0.1 s
that no installed cudalint pays.
"""

from __future__ import annotations

import argparse
import compileall
import cProfile
import os
import pstats
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
compileall.compile_dir(str(Path(__file__).resolve().parents[1] / "cudalint"), quiet=1)

from cudalint import LintOptions, lint_source, prefilter  # noqa: E402


def make_run(source: Path, count: int, directory: Path) -> list[Path]:
    files = sorted(p for p in source.rglob("*.py"))
    if not files:
        raise SystemExit(f"no .py files under {source}")
    made = []
    for index in range(count):
        original = files[index % len(files)]
        target = directory / f"level_1_problem_{index // 5 + 1}_sample_{index % 5}_kernel.py"
        shutil.copyfile(original, target)
        made.append(target)
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--source", default=str(Path(__file__).resolve().parents[1] / "corpus" / "py"))
    parser.add_argument("--profile", action="store_true", help="profile a single-process lint instead")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="cudalint-run-") as temp:
        run = Path(temp) / "runs" / "bench"
        run.mkdir(parents=True)
        files = make_run(Path(args.source), args.files, run)
        if args.profile:
            texts = [(str(p), p.read_text()) for p in files]
            options = LintOptions()
            profiler = cProfile.Profile()
            start = time.perf_counter()
            profiler.enable()
            for path, text in texts:
                lint_source(text, filename=path, options=options)
            profiler.disable()
            elapsed = time.perf_counter() - start
            print(f"{len(texts)} files in {elapsed:.2f} s in one process under cProfile "
                  f"({len(texts) / elapsed:.1f} files/s)")
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
            return
        workers_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = prefilter([run], jobs=args.jobs, options=LintOptions())
        elapsed = time.perf_counter() - start
        workers_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = len(result.accepted) + len(result.rejected)
    worker_cpu = (workers_after.ru_utime + workers_after.ru_stime
                  - workers_before.ru_utime - workers_before.ru_stime)
    print(f"{total} KernelBench-style files, jobs={args.jobs} ({os.cpu_count()} cores on this machine): "
          f"{elapsed:.2f} s, {total / elapsed:.1f} files/s; accepted {len(result.accepted)}, "
          f"rejected {len(result.rejected)}; worker CPU {worker_cpu / total * 1000:.1f} ms per file")


if __name__ == "__main__":
    main()
