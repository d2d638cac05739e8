"""CPU time of `cudalint check` per real generated kernel, paired across checkouts, a fresh process per file;
and the start-up times of `cudalint --version`, `--help` and one small file.

    python benchmarks/lint_cpu_ab.py CHECKOUT... [--files 60] [--repeat 1] [--dry-run] [--save DIR]
    python benchmarks/lint_cpu_ab.py CHECKOUT... --startup [--repeat 20]

Each CHECKOUT is a source tree with its own virtualenv (`CHECKOUT/.venv/bin/python` imports `cudalint` from
CHECKOUT; see HELPERS.md for the .pth trick) and its compiled `_subtree` built or copied in. The first
checkout is the baseline of the ratios. The solutions are `--files` of /work/shared/data/realkernels,
spread over its runs (a fixed seed), each checked with its own reference problem (`--reference`, so both
old and new releases judge it the same way). Per file and checkout, in turn (old, new, old, new...: the
machine's speed drifts), one `python -m cudalint check -q -j 1 --exit-zero --no-config --format json
--reference REF FILE` in a fresh process, run from a neutral folder; its CPU time (user + sys, the process
and every child it waited for: the lint runs in the process itself with `-j 1` and one file, the dry run
in its sandboxed server) is read from `wait4`. The result cache is off (`--no-cache`, where the checkout
has one; older releases have none), the dry run off (`--no-dry-run`, where the checkout has one) unless
`--dry-run`: then each checkout that has a dry run is also timed with it, its own cache emptied before each
file. Each checkout has a cache folder of its own (`CUDALINT_CACHE_DIR`), warmed by one untimed run, so the
precompiled preludes are there as they are for a user; `PYTHONDONTWRITEBYTECODE` is dropped from the
environment for the same reason (an installed package has its byte code; compiling every module from
source costs about 0.5 s of each start).

Prints the per-file medians over files, mean, and the median per-file ratio to the first checkout.
The dry run's sandboxed server is a child of the lint worker, which is stopped without reaping it: its CPU
(torch's import, the run) is not in the CPU figures, only in the wall clock's (a shared machine's: noisy);
`benchmarks/dry_run_cost.py` measures it apart. `--save DIR` keeps
each checkout's JSON findings per file (DIR/<checkout name>/<n>.json) for comparing findings.
`--startup` times `--version`, `--help` and one small `.cu` file (fresh processes, `--repeat` each,
median wall and CPU seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

REALKERNELS = Path("/work/shared/data/realkernels")
SMALL_CU = Path(__file__).resolve().parents[1] / "corpus" / "cu" / "elementwise" / "vector_add.cu"


def pick(labels_dir: Path, count: int, seed: int = 36) -> list[tuple[str, str]]:
    """`count` solutions with their reference, taken round-robin over the runs in a seeded order."""
    rows = [json.loads(line) for line in (labels_dir / "labels.jsonl").read_text().splitlines() if line.strip()]
    by_run: dict[str, list[dict]] = {}
    for row in sorted(rows, key=lambda r: r["path"]):
        if row["reference"] and (labels_dir / "problems" / row["reference"]).is_file():
            by_run.setdefault(os.path.dirname(row["path"]), []).append(row)
    rng = random.Random(seed)
    picked: list[dict] = []
    while len(picked) < count and any(by_run.values()):
        for run in sorted(by_run):
            if by_run[run] and len(picked) < count:
                picked.append(by_run[run].pop(rng.randrange(len(by_run[run]))))
    return [(str(labels_dir / "kernels" / r["path"]), str(labels_dir / "problems" / r["reference"])) for r in picked]


class Checkout:
    def __init__(self, root: str, work: Path) -> None:
        self.root = os.path.abspath(root)
        self.name = os.path.basename(self.root.rstrip("/"))
        self.python = os.path.join(self.root, ".venv", "bin", "python")
        self.cache = work / ("cache-" + self.name)
        self.cache.mkdir()
        self.cwd = work
        options = self.run(["check", "--help"])[1]
        self.has_cache = "--no-cache" in options
        self.has_dry_run = "--no-dry-run" in options

    def run(self, arguments: list[str]) -> tuple[float, str, float]:
        """(CPU seconds of the process and its waited-for children, stdout, wall seconds)."""
        env = dict(os.environ, CUDALINT_CACHE_DIR=str(self.cache), COLUMNS="100")
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its byte code: no compiling each start
        start = time.perf_counter()
        process = subprocess.Popen([self.python, "-m", "cudalint", *arguments], cwd=self.cwd, env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        out = process.stdout.read()
        _, _, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = 0
        return usage.ru_utime + usage.ru_stime, out.decode(errors="replace"), wall

    def check(self, path: str, reference: str, dry_run: bool) -> tuple[float, str, float]:
        arguments = ["check", "-q", "-j", "1", "--exit-zero", "--no-config", "--format", "json",
                     "--reference", reference, path]
        if self.has_cache:
            arguments.insert(1, "--no-cache")
        if self.has_dry_run and not dry_run:
            arguments.insert(1, "--no-dry-run")
        if dry_run:
            for folder in self.cache.glob("dryrun-*"):
                shutil.rmtree(folder)
        return self.run(arguments)


def per_file(checkouts: list[Checkout], pairs: list[tuple[str, str]], repeat: int, dry_run: bool,
             save: Path | None) -> None:
    columns = [(c, False) for c in checkouts] + ([(c, True) for c in checkouts if c.has_dry_run] if dry_run else [])
    for checkout in checkouts:  # the preludes of each checkout's cache folder
        checkout.check(*pairs[0], dry_run=False)
    times = [[[] for _ in pairs] for _ in columns]
    walls = [[[] for _ in pairs] for _ in columns]
    for index, (path, reference) in enumerate(pairs):
        for _ in range(repeat):
            for which, (checkout, dry) in enumerate(columns):
                cpu, out, wall = checkout.check(path, reference, dry)
                times[which][index].append(cpu)
                walls[which][index].append(wall)
                if save is not None:
                    folder = save / (checkout.name + ("-dry" if dry else ""))
                    folder.mkdir(parents=True, exist_ok=True)
                    (folder / f"{index:03d}.json").write_text(out)
    medians = [[statistics.median(t) for t in column] for column in times]
    print(f"{len(pairs)} solutions, {repeat} run(s) each, a fresh process per file; CPU seconds (user + sys)")
    print(f"| checkout | dry run | median CPU s per file | mean | median per-file ratio to {checkouts[0].name} | "
          f"median wall s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (checkout, dry), values, wall in zip(columns, medians, walls):
        ratios = [new / old for new, old in zip(values, medians[0])]
        print(f"| {checkout.name} | {'on' if dry else 'off'} | {statistics.median(values):.3f} | "
              f"{statistics.mean(values):.3f} | {statistics.median(ratios):.2f} | "
              f"{statistics.median(statistics.median(w) for w in wall):.3f} |")


def startup(checkouts: list[Checkout], repeat: int) -> None:
    names = ["--version", "--help", "check one small file"]
    print(f"median of {repeat} fresh processes: wall s / CPU s")
    print("| checkout | " + " | ".join(names) + " |")
    print("| --- |" + " --- |" * len(names))
    for checkout in checkouts:
        small = ["check", "-q", "--exit-zero", "--no-config"] + (["--no-cache"] if checkout.has_cache else [])
        cells = []
        for arguments in (["--version"], ["--help"], small + [str(SMALL_CU)]):
            checkout.run(arguments)  # the preludes, the byte-code caches
            runs = [checkout.run(arguments) for _ in range(repeat)]
            cells.append(f"{statistics.median(r[2] for r in runs):.3f} / {statistics.median(r[0] for r in runs):.3f}")
        print(f"| {checkout.name} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+")
    parser.add_argument("--labels", type=Path, default=REALKERNELS)
    parser.add_argument("--files", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--save", type=Path)
    parser.add_argument("--startup", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lint-cpu-ab-") as work:
        checkouts = [Checkout(root, Path(work)) for root in args.checkouts]
        if args.startup:
            startup(checkouts, args.repeat)
        else:
            per_file(checkouts, pick(args.labels, args.files), args.repeat, args.dry_run, args.save)


if __name__ == "__main__":
    main()
