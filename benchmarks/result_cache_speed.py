"""What the result cache saves on repeated runs: each directory is checked three ways, in this process
file by file (per-file times) and by `cudalint check -q -j 1` as a user runs it (files per second):

- without the cache (`--no-cache`),
- cold: an empty cache (each file a miss: linted, then stored),
- warm: the same run again (each file a hit).

    python benchmarks/result_cache_speed.py DIR [DIR ...] [--repeat 3]

Prints a markdown table. The prelude cache is warmed first so that only the result cache differs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cudalint.config import LintOptions  # noqa: E402
from cudalint.engine import expand_paths, lint_file, tune_garbage_collector  # noqa: E402
from cudalint.result_cache import ResultCache  # noqa: E402


def per_file_ms(files: list[str], cache: ResultCache | None) -> list[float]:
    times = []
    for path in files:
        start = time.perf_counter()
        lint_file(path, LintOptions(), cache)
        times.append((time.perf_counter() - start) * 1000)
    return times


def command_seconds(directory: str, cache_dir: str, *extra: str) -> float:
    env = {**os.environ, "CUDALINT_CACHE_DIR": cache_dir, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cudalint", "check", "--no-config", "-q", "-j", "1", *extra, directory],
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directories", nargs="+")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each way; the median is kept")
    args = parser.parse_args()
    tune_garbage_collector()
    print("| files | way | median ms per file | `cudalint check -q -j 1`: s (files/s) |")
    print("| --- | --- | --- | --- |")
    for directory in args.directories:
        files = list(expand_paths([directory]))
        per_file_ms(files, None)  # warm the preludes, libclang and the per-process caches
        ways: dict[str, tuple[list[float], list[float]]] = {"no cache": ([], []), "cold": ([], []),
                                                            "warm": ([], [])}
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as root:
                prelude_root = os.path.join(root, "cache")
                os.environ["CUDALINT_CACHE_DIR"] = prelude_root
                cache = ResultCache(os.path.join(root, "results"))
                ways["no cache"][0].append(statistics.median(per_file_ms(files, None)))
                ways["cold"][0].append(statistics.median(per_file_ms(files, cache)))
                ways["warm"][0].append(statistics.median(per_file_ms(files, cache)))
                command_seconds(directory, prelude_root, "--no-cache")  # builds the preludes of that cache
                ways["no cache"][1].append(command_seconds(directory, prelude_root, "--no-cache"))
                ways["cold"][1].append(command_seconds(directory, prelude_root))
                ways["warm"][1].append(command_seconds(directory, prelude_root))
        for way, (medians, seconds) in ways.items():
            total = statistics.median(seconds)
            print(f"| {len(files)} in `{directory}` | {way} | {statistics.median(medians):.2f} | "
                  f"{total:.2f} ({len(files) / total:.0f}) |")


if __name__ == "__main__":
    main()
