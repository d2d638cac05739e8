"""Build time of real generated solutions in the `verify` stage, cold and warm: the lighter build (host code
split off into the binding unit, else the CUDA unit with only the ATen headers it uses, else
`<torch/types.h>` for `<torch/extension.h>`; redone as written when it fails) against building exactly as
`load_inline` would, with the verdict of each (issue 24). Needs torch with CUDA and a GPU.

    # pick the solutions (here): every k-th kernel the harness built, levels 1-2, from the development set
    python benchmarks/build_speed.py --pick 24 --data ../shared/data/realkernels --copy-to buildbench
    # more of them, other than those measured before (here: level 3 too)
    python benchmarks/build_speed.py --pick 6 --levels 1 2 3 --not-in exact.json --data ../shared/data/realkernels \
        --copy-to buildbench
    # on the GPU machine, one call per variant (each with an empty build cache):
    python3 benchmarks/build_speed.py --data buildbench --variant light --warm-pch --warm --out $OUT [--shard I N]
    python3 benchmarks/build_speed.py --data buildbench --variant exact --warm --out $OUT [--not-in exact.json]
    # here: the table (several exact records are merged)
    python benchmarks/build_speed.py --render light.json exact.json [exact-more.json] > benchmarks/results/build_speed.md

Each variant runs `verify_batch` over the picked solutions with a fresh cache: 8 builds at a time (2 ninja
jobs each on the 16 cores), then the five correctness trials of each (no timing, no lint gate: every
solution is built). Build time is the build worker's wall time, torch's import included (about 5 s).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time

from build_floor import ninja_steps  # this script's folder is first on sys.path

HEAVY = re.compile(r'#\s*include\s*[<"]torch/(?:extension|torch|all)\.h[>"]')


def measured(records: list[str]) -> set[str]:
    """The solutions the given result files hold."""
    return {r["path"] for path in records for r in json.load(open(path, encoding="utf-8"))["results"]}


def pick(data: str, count: int, levels=(1, 2), skip: set[str] = frozenset()) -> list[dict]:
    rows = [json.loads(line) for line in open(os.path.join(data, "labels.jsonl"), encoding="utf-8")]
    usable = [r for r in rows if r["compiled"] and r["cause"] not in ("C", "D") and r.get("level") in levels
              and r["path"] not in skip
              and HEAVY.search(open(os.path.join(data, "kernels", r["path"]), encoding="utf-8").read())]
    usable.sort(key=lambda r: r["path"])
    step = max(1, len(usable) // count)
    return usable[::step][:count]


def copy(rows: list[dict], data: str, target: str) -> None:
    """Copy the solutions and their references under `target`, adding to the labels already there."""
    for row in rows:
        for kind, relative in (("kernels", row["path"]), ("problems", row["reference"])):
            destination = os.path.join(target, kind, relative)
            os.makedirs(os.path.dirname(destination), exist_ok=True)
            shutil.copy(os.path.join(data, kind, relative), destination)
    with open(os.path.join(target, "labels.jsonl"), "a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)


def extension_steps(directory: str) -> dict[str, float]:
    """`build_floor.ninja_steps` of one extension's build directory; empty when it has no ninja log."""
    try:
        return ninja_steps(directory)
    except OSError:
        return {}


def run(data: str, variant: str, out: str, skip: set[str] = frozenset(), builds: int = 8,
        warm_pch: bool = False, shard: tuple[int, int] = (0, 1), warm: bool = False, build_only: bool = False) -> str:
    """One variant over the solutions with an empty build cache. With `warm_pch`, the binding unit's
    precompiled header (made once per toolchain and flags, like the torch install itself) is made first by
    building the first solution alone, whose time is recorded apart; then the extension cache is emptied.
    With `warm`, the same solutions are built once more into the cache the cold builds filled (the warm
    build: every library is found, ninja has nothing to do). With `build_only`, no correctness trials: the
    verdict is left to another record of the same solutions."""
    from cudalint.verify.runner import Candidate, VerifyOptions, verify_batch

    rows = [json.loads(line) for line in open(os.path.join(data, "labels.jsonl"), encoding="utf-8")]
    rows = [r for r in rows if r["path"] not in skip][shard[0]::shard[1]]
    candidates = [Candidate(os.path.join(data, "kernels", r["path"]), os.path.join(data, "problems", r["reference"]))
                  for r in rows]
    cache = tempfile.mkdtemp(prefix=f"cudalint-build-{variant}-")
    options = VerifyOptions(lint=False, timing=False, cache_dir=cache, build_jobs=builds, light_build=variant == "light",
                            run_timeout=180.0, build_timeout=400.0, build_only=build_only)
    pch_warmup = None
    if warm_pch:
        started = time.time()
        [first] = verify_batch(candidates[:1], dataclasses.replace(options, build_only=True))
        pch_warmup = {"path": rows[0]["path"], "seconds": time.time() - started,
                "headers": sorted(os.listdir(os.path.join(cache, "pch"))) if os.path.isdir(os.path.join(cache, "pch"))
                else [], "status": first["status"]}
        shutil.rmtree(os.path.join(cache, "ext"), ignore_errors=True)
    started = time.time()
    records = verify_batch(candidates, options)
    seconds = time.time() - started
    again = verify_batch(candidates, dataclasses.replace(options, build_only=True)) if warm else [{}] * len(rows)
    payload = {"variant": variant, "builds_at_a_time": builds, "pch_warmup": pch_warmup, "seconds": seconds,
               "results": [
        {"path": row["path"], "harness_correct": row["correct"], "status": record["status"],
         "message": record["message"][:300], "build_seconds": (record["build"] or {}).get("seconds"),
         "warm_build_seconds": (rebuilt.get("build") or {}).get("seconds"),
         "extensions": [dict(e, steps=extension_steps(e.get("directory", "")))
                        for e in (record["build"] or {}).get("extensions", [])], "notes": record["notes"]}
        for row, record, rebuilt in zip(rows, records, again)]}
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"{variant}{'-pch' if warm_pch else ''}{'-warm' if warm else ''}"
                             f"{'-buildonly' if build_only else ''}-{builds}-{shard[0]}of{shard[1]}.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(payload, handle, indent=1)
    shutil.rmtree(cache, ignore_errors=True)
    return path


def render(*paths: str) -> str:
    """The table of the lighter build against the build as written, from result files of either variant
    (several files of one variant are merged: shards, or solutions measured in another session)."""
    runs = [json.load(open(path, encoding="utf-8")) for path in paths]
    light, exact = _merged(runs, "light"), _merged(runs, "exact")
    lines = ["| solution | harness | exact: cold s | warm s | verdict | lighter: cold s | warm s | build used | verdict "
             "| same |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    same = 0
    ratios, exact_times, light_times, warm_times = [], [], [], {"exact": [], "light": []}
    for path in sorted(exact):
        e, l = exact[path], light.get(path)
        if l is None:
            continue
        variants = ", ".join(sorted({x.get("variant") or "-" for x in l["extensions"]})) or "-"
        fell_back = any("the lighter build" in note and "failed" in note for note in l["notes"])
        used = variants + (" (after a lighter build failed)" if fell_back else "")
        agree = e["status"] == l["status"]
        same += agree
        if e["build_seconds"] and l["build_seconds"]:
            exact_times.append(e["build_seconds"])
            light_times.append(l["build_seconds"])
            ratios.append(l["build_seconds"] / e["build_seconds"])
        for variant, result in (("exact", e), ("light", l)):
            if result.get("warm_build_seconds"):
                warm_times[variant].append(result["warm_build_seconds"])
        lines.append(f"| {path} | {'correct' if e['harness_correct'] else 'wrong'} | {e['build_seconds'] or 0:.1f} | "
                     f"{_seconds(e.get('warm_build_seconds'))} | {e['status']} | {l['build_seconds'] or 0:.1f} | "
                     f"{_seconds(l.get('warm_build_seconds'))} | {used} | {l['status']} | {'yes' if agree else '**no**'} |")
    summary = (f"{len(lines) - 2} solutions; verdicts identical on {same}; cold build median "
               f"{statistics.median(exact_times):.1f} s exact, {statistics.median(light_times):.1f} s lighter "
               f"(median ratio {statistics.median(ratios):.2f})" if ratios else "no timings")
    for variant, times in warm_times.items():
        if times:
            summary += f"; warm build median {statistics.median(times):.1f} s {variant} ({len(times)} solutions)"
    return summary + "\n\n" + "\n".join(lines) + "\n"


def _merged(runs: list[dict], variant: str) -> dict[str, dict]:
    """One record per solution from the runs of `variant`: the first with a verdict (a build-only run has
    none), with the warm build time of whichever run measured one."""
    merged: dict[str, dict] = {}
    for run in runs:
        if run["variant"] != variant:
            continue
        for result in run["results"]:
            known = merged.get(result["path"])
            if known is None or known["status"] == "built" and result["status"] != "built":
                merged[result["path"]] = dict(result, warm_build_seconds=result.get("warm_build_seconds")
                                              or (known or {}).get("warm_build_seconds"))
            elif result.get("warm_build_seconds") and not known.get("warm_build_seconds"):
                known["warm_build_seconds"] = result["warm_build_seconds"]
    return merged


def _seconds(value) -> str:
    return f"{value:.1f}" if value else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data")
    parser.add_argument("--pick", type=int)
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--not-in", nargs="+", default=[], metavar="RESULTS_JSON",
                        help="leave out the solutions these result files hold")
    parser.add_argument("--copy-to")
    parser.add_argument("--variant", choices=("light", "exact"))
    parser.add_argument("--out")
    parser.add_argument("--builds", type=int, default=8, help="builds at a time (default 8)")
    parser.add_argument("--warm-pch", action="store_true",
                        help="make the binding unit's precompiled header first (one solution alone), then measure")
    parser.add_argument("--warm", action="store_true", help="then build the same solutions again into the filled cache")
    parser.add_argument("--build-only", action="store_true", help="no correctness trials (verdicts from other records)")
    parser.add_argument("--shard", type=int, nargs=2, default=[0, 1], metavar=("I", "N"),
                        help="only every N-th solution from the I-th (to fit a device call's time limit)")
    parser.add_argument("--render", nargs="+", metavar="JSON", help="result files of both variants")
    args = parser.parse_args()
    skip = measured(args.not_in)
    if args.render:
        sys.stdout.write(render(*args.render))
    elif args.pick:
        rows = pick(args.data, args.pick, tuple(args.levels), skip)
        copy(rows, args.data, args.copy_to)
        print(f"{len(rows)} solutions copied to {args.copy_to}")
    else:
        print(run(args.data, args.variant, args.out, skip, args.builds, args.warm_pch, tuple(args.shard), args.warm,
                  args.build_only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
