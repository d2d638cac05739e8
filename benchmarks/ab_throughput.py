"""Compare the pre-filter throughput of two checkouts back to back: fresh runs of each, alternating, on
one run directory, so both see the same machine (its speed drifts 10-20% within minutes).

    python benchmarks/ab_throughput.py OLD_CHECKOUT NEW_CHECKOUT [--rounds 6] [--files 400] [--jobs 2]

Each run is a new process that compiles its checkout's bytecode (as `pip install` does), then times one
`prefilter(run_dir, jobs=N)` call as `prefilter_throughput.py` does. Prints each checkout's median
files/s (with its range) and the workers' CPU time per file.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from prefilter_throughput import make_run  # noqa: E402

CHILD = r'''
import compileall, json, resource, sys, time
root, run, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, root)
compileall.compile_dir(root + "/cudalint", quiet=1)
from cudalint import LintOptions, prefilter
before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.perf_counter()
result = prefilter([run], jobs=jobs, options=LintOptions())
elapsed = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
count = len(result.accepted) + len(result.rejected)
cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
print(json.dumps({"rate": count / elapsed, "cpu_ms": cpu / count * 1000}))
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--source", default=str(Path(__file__).resolve().parents[1] / "corpus" / "py"))
    args = parser.parse_args()

    roots = [str(Path(args.old).resolve()), str(Path(args.new).resolve())]
    results: dict[str, list[dict]] = {root: [] for root in roots}
    with tempfile.TemporaryDirectory(prefix="cudalint-ab-") as temp:
        run = Path(temp) / "runs" / "bench"
        run.mkdir(parents=True)
        make_run(Path(args.source), args.files, run)
        for round_ in range(args.rounds):
            for root in roots if round_ % 2 == 0 else roots[::-1]:
                out = subprocess.run([sys.executable, "-c", CHILD, root, str(run), str(args.jobs)],
                                     capture_output=True, text=True, check=True)
                results[root].append(json.loads(out.stdout.strip().splitlines()[-1]))
    for root, runs in results.items():
        rates = [r["rate"] for r in runs]
        cpu = statistics.median(r["cpu_ms"] for r in runs)
        print(f"{root}: median {statistics.median(rates):.1f} files/s ({min(rates):.1f}-{max(rates):.1f}), "
              f"worker CPU {cpu:.2f} ms per file")


if __name__ == "__main__":
    main()
