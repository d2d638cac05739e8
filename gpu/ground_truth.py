"""Run the generated corpus drivers on the GPU under compute-sanitizer and record what they find.

Runs on the device machine (stdlib only; needs nvcc and compute-sanitizer on PATH or in
/usr/local/cuda/bin). For every driver that gpu/driver_gen.py wrote into the build folder:

1. `nvcc -arch=sm_90 -lineinfo` (in parallel);
2. a plain run (two identical launches: launch errors, outputs left unwritten, outputs that differ
   between the two runs; then a third after a kernel filled every SM's shared memory with NaNs:
   outputs that change read shared memory no thread stored; and, for a file with a clean twin, a
   fourth run of the twin on the same inputs: outputs that differ are the bug's wrong values), then
   `compute-sanitizer --tool memcheck`, `--tool racecheck` and `--tool synccheck`, each under a
   timeout, many processes at a time. No initcheck: it tracks global memory only, and the drivers
   initialise every buffer they pass;
3. parse every report into records {tool, kind, kernel, locations [corpus file:line], count} and write
   `ground_truth.json`, a markdown table (`ground_truth_device.md`), and a tarball of the raw logs into the output folder.

    python3 gpu/ground_truth.py --build gpu/build --out "$OUT" [--jobs 12] [--timeout 90] [--budget 420]

`--budget` is a wall-clock budget in seconds for the whole script: tasks not started by then are
recorded as skipped, so a partial result still comes back.

The parser also runs here on saved logs: `python3 gpu/ground_truth.py --reparse LOGS.tar.gz --base OLD.json --out DIR`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

TOOLS = ("plain", "memcheck", "racecheck", "synccheck")
PLAIN_RUNS = 3  # the drivers' plain mode: two identical runs, a third after shared memory was dirtied (and the twin's)
MAX_LOG = 200_000  # characters kept per log
MAX_RECORDS = 40  # distinct records kept per task


def find_tool(name: str) -> str:
    for cand in (shutil.which(name), f"/usr/local/cuda/bin/{name}", f"/usr/local/cuda/compute-sanitizer/{name}"):
        if cand and os.path.exists(cand):
            return cand
    return name


def sh(cmd: list[str], cwd: str | None = None, timeout: float | None = None) -> tuple[int | None, str, float]:
    """Run a command in its own process group; on timeout kill the whole group (the sanitizer's target too)."""
    start = time.time()
    try:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, errors="replace",
                                text=True, start_new_session=True)
    except OSError as exc:
        return 127, f"cannot run {cmd[0]}: {exc}", time.time() - start
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out, time.time() - start
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        out, _ = proc.communicate()
        return None, out or "", time.time() - start


# --------------------------------------------------------------------------------------------- parsing
_LOC = re.compile(r"in (\S+?):(\d+)\b")
_AT = re.compile(r"\bat (?:0x[0-9a-f]+ in )?([A-Za-z_][\w:<>~]*)(?:\(|\+0x|\s)")
_CORPUS = re.compile(r"(?:^|/)corpus/(cu/[^:]+\.cu)$")
_SKIP = re.compile(r"^(COMPUTE-SANITIZER|ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|Target application returned|"
                   r"Error: process didn't terminate successfully|No CUDA-capable|Note:|Warning: Compute-Sanitizer|"
                   r"Warning: Error buffer overflow|Target application returned|\d+ errors were)")


def corpus_path(path: str) -> str:
    m = _CORPUS.search(path.replace("\\", "/"))
    return m.group(1) if m else os.path.basename(path)


def normalize_kind(text: str) -> str:
    text = re.sub(r"0x[0-9a-f]+", "0x", text)
    text = re.sub(r"\[\d+ hazards?\]", "", text)
    text = re.sub(r"\bat [^ ]+(\(.*?\))?\+0x", "at ", text)
    text = re.sub(r" in \S+:\d+", "", text)
    return " ".join(text.split())


def parse_sanitizer(tool: str, log: str) -> dict:
    """Records from a compute-sanitizer log (memcheck, racecheck, synccheck)."""
    blocks: list[list[str]] = []
    summary = None
    for raw in log.splitlines():
        if not raw.startswith("========="):
            continue
        body = raw[len("========="):]
        if not body.strip():
            continue
        if body.startswith("     ") or body.startswith("\t"):
            if blocks:
                blocks[-1].append(body.strip())
            continue
        body = body.strip()
        if body.startswith("ERROR SUMMARY") or body.startswith("RACECHECK SUMMARY"):
            summary = body
            continue
        if _SKIP.match(body):
            continue
        blocks.append([body])
    records: dict[tuple, dict] = {}
    for block in blocks:
        head = block[0]
        text = " ".join(block)
        if tool == "racecheck" and re.match(r"(Error|Warning|Info): Race reported", head):
            kind = "race"
            severity = head.split(":")[0].lower()
        elif head.startswith("Trace/breakpoint trap") or "trap" in head.lower():
            kind = "trap"  # a device-side trap, e.g. grid.sync() in a launch that is not cooperative
            severity = "error"
        elif head.startswith("Program hit"):
            kind = "api_error"
            severity = "error"
        elif head.startswith("Invalid __global__") or head.startswith("Invalid __shared__") or head.startswith("Invalid __local__"):
            space = re.search(r"Invalid __(\w+)__ (read|write|atomic)", head)
            kind = f"oob_{space.group(1)}_{space.group(2)}" if space else "invalid_access"
            severity = "error"
        elif "Misaligned" in head:
            kind = "misaligned"
            severity = "error"
        elif "Barrier error" in head or "barrier" in head.lower():
            kind = "barrier_error"
            severity = "error"
        elif "Invalid arguments" in head or "invalid" in head.lower() and tool == "synccheck":
            kind = "sync_invalid_args"
            severity = "error"
        else:
            kind = "other"
            severity = "error"
        locs = []
        for path, line in _LOC.findall(text):
            if path.endswith((".cu", ".cuh", ".h", ".hpp")):
                locs.append(f"{corpus_path(path)}:{line}")
        locs = list(dict.fromkeys(locs))
        kernel = None
        m = _AT.search(text)
        if m:
            kernel = m.group(1)
        hazards = re.search(r"\[(\d+) hazards?\]", text)
        api = re.search(r"Program hit (\w+)", head)
        key = (kind, kernel, tuple(locs), api.group(1) if api else None)
        rec = records.get(key)
        if rec is None:
            if len(records) >= MAX_RECORDS:
                continue
            rec = records[key] = {"tool": tool, "kind": kind, "severity": severity, "kernel": kernel,
                                  "locations": locs, "count": 0, "message": normalize_kind(head)[:200]}
            if api:
                rec["api_error"] = api.group(1)
                call = re.search(r"on CUDA API call to (\w+)", text)
                rec["api_call"] = call.group(1) if call else None
        rec["count"] += int(hazards.group(1)) if hazards else 1
    out = {"records": list(records.values())}
    if summary:
        out["summary"] = summary
        m = re.search(r"(\d+) errors?", summary)
        if m:
            out["error_count"] = int(m.group(1))
        m = re.search(r"(\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)", summary)
        if m:
            out["hazards_displayed"] = int(m.group(1))
    return out


def parse_gt_lines(log: str) -> dict:
    """The driver's own @@GT lines."""
    out: dict = {"launch_errors": [], "sync_errors": [], "api_errors": [], "unwritten": [], "nondet": [],
                 "dirty": [], "dirty_errors": [], "twin": [], "done": False}
    for line in log.splitlines():
        if not line.startswith("@@GT "):
            continue
        parts = line.split()
        tag = parts[1]
        if tag == "launch_error":
            out["launch_errors"].append(parts[3] if len(parts) > 3 else parts[2])
        elif tag == "sync_error":
            out["sync_errors"].append(parts[3] if len(parts) > 3 else parts[2])
        elif tag == "api_error":
            out["api_errors"].append(" ".join(parts[3:]))
        elif tag == "unwritten":
            out["unwritten"].append({"param": parts[2], "count": int(parts[3]), "total": int(parts[4]),
                                     "first": int(parts[5])})
        elif tag == "nondet":
            out["nondet"].append({"param": parts[2], "count": int(parts[3]), "total": int(parts[4]),
                                  "max_rel_diff": float(parts[5])})
        elif tag == "dirty":
            out["dirty"].append({"param": parts[2], "count": int(parts[3]), "total": int(parts[4]),
                                 "max_rel_diff": float(parts[5]), "stable": parts[6] == "1"})
        elif tag == "twin":
            out["twin"].append({"param": parts[2], "count": int(parts[3]), "total": int(parts[4]),
                                "max_rel_diff": float(parts[5])})
        elif tag == "dirty_error":
            out["dirty_errors"].append(parts[3] if len(parts) > 3 else parts[2])
        elif tag == "done":
            out["done"] = True
    return out


def summarize_task(tool: str, rc: int | None, log: str, seconds: float) -> dict:
    res = {"tool": tool, "rc": rc, "timed_out": rc is None, "seconds": round(seconds, 2),
           "driver": parse_gt_lines(log)}
    if tool != "plain":
        res.update(parse_sanitizer(tool, log))
    return res


# ------------------------------------------------------------------------------------------------ run
def run_all(build: str, out: str, jobs: int, timeout: float, budget: float, only: list[str] | None) -> dict:
    t0 = time.time()
    index = json.load(open(os.path.join(build, "drivers.json")))
    nvcc = find_tool("nvcc")
    sanitizer = find_tool("compute-sanitizer")
    env_info = {}
    for name, cmd in (("nvidia_smi", ["nvidia-smi", "-L"]), ("nvcc", [nvcc, "--version"]),
                      ("compute_sanitizer", [sanitizer, "--version"])):
        rc, text, _ = sh(cmd, timeout=30)
        env_info[name] = text.strip().splitlines()[-1] if text.strip() else f"rc={rc}"
    bindir = os.path.join(build, "bin")
    os.makedirs(bindir, exist_ok=True)
    logdir = os.path.join(out, "logs")
    os.makedirs(logdir, exist_ok=True)
    recs = [r for r in index["records"] if r["status"] == "driver" and (not only or r["path"] in only)]

    # 1. compile
    def compile_one(rec):
        stem = rec["driver"][:-3]
        rc, text, secs = sh([nvcc, "-arch=sm_90", "-lineinfo", "-o", os.path.join("bin", stem), rec["driver"]],
                            cwd=build, timeout=300)
        return rec, rc, text, secs
    results: dict[str, dict] = {}
    with ThreadPoolExecutor(max(jobs, 8)) as pool:
        for rec, rc, text, secs in pool.map(compile_one, recs):
            results[rec["path"]] = {"compile": {"rc": rc, "seconds": round(secs, 2), "log": text[-3000:] if rc else ""},
                                    "tools": {}}
    compile_s = time.time() - t0
    print(f"compiled {sum(1 for r in results.values() if r['compile']['rc'] == 0)}/{len(recs)} in {compile_s:.0f}s",
          flush=True)

    # 2. run: all plain runs first, then memcheck, racecheck, synccheck (a budget cut keeps whole tools)
    tasks = []
    for tool in TOOLS:
        for rec in recs:
            if results[rec["path"]]["compile"]["rc"] == 0:
                tasks.append((tool, rec))

    def run_one(tool, rec):
        if time.time() - t0 > budget:
            return tool, rec, {"tool": tool, "skipped": "budget"}, ""
        exe = os.path.join(os.path.abspath(bindir), rec["driver"][:-3])
        if tool == "plain":
            cmd, limit = [exe, "plain"], min(timeout, 60)
        else:
            cmd = [sanitizer, "--tool", tool, "--print-limit", "100"]
            if tool == "memcheck":
                cmd += ["--show-backtrace", "no", "--leak-check", "no"]
            elif tool == "racecheck":
                cmd += ["--show-backtrace", "no", "--racecheck-report", "analysis"]
            else:
                cmd += ["--show-backtrace", "no"]
            cmd += [exe]
            limit = timeout
        rc, text, secs = sh(cmd, cwd=build, timeout=limit)
        text = text[:MAX_LOG]
        with open(os.path.join(logdir, f"{rec['driver'][:-3]}.{tool}.log"), "w") as handle:
            handle.write(f"$ {' '.join(cmd)}\n# rc={rc} seconds={secs:.2f}\n{text}")
        return tool, rec, summarize_task(tool, rc, text, secs), text

    with ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(run_one, tool, rec) for tool, rec in tasks]
        done = 0
        for fut in as_completed(futures):
            tool, rec, res, _ = fut.result()
            results[rec["path"]]["tools"][tool] = res
            done += 1
            if done % 50 == 0:
                print(f"  {done}/{len(tasks)} tasks, {time.time() - t0:.0f}s", flush=True)
    total = time.time() - t0
    doc = {"generated_by": "gpu/ground_truth.py", "environment": env_info, "seconds": round(total, 1),
           "plain_runs": PLAIN_RUNS,
           "compile_seconds": round(compile_s, 1), "jobs": jobs, "timeout_s": timeout, "files": results,
           "drivers": {r["path"]: {k: r[k] for k in ("status", "driver", "expected")} for r in index["records"]
                       if r["status"] == "driver"},
           "not_run": {r["path"]: {"status": r["status"], "reason": r.get("reason")} for r in index["records"]
                       if r["status"] != "driver"}}
    return doc


def markdown(doc: dict) -> str:
    lines = ["| file | plain | memcheck | racecheck | synccheck |", "| --- | --- | --- | --- | --- |"]

    def cell(res):
        if not res:
            return "-"
        if res.get("skipped"):
            return "skipped"
        if res.get("timed_out"):
            return "TIMEOUT"
        bits = []
        d = res.get("driver", {})
        bits += [f"launch:{e}" for e in d.get("launch_errors", [])]
        bits += [f"sync:{e}" for e in d.get("sync_errors", [])]
        bits += [f"unwritten {u['param']} {u['count']}/{u['total']}" for u in d.get("unwritten", [])]
        bits += [f"nondet {u['param']} {u['count']}/{u['total']} rel {u['max_rel_diff']:.1e}" for u in d.get("nondet", [])]
        bits += [f"dirty {u['param']} {u['count']}/{u['total']} rel {u['max_rel_diff']:.1e}"
                 + ("" if u["stable"] else " (runs 1 and 2 differ too)") for u in d.get("dirty", [])]
        bits += [f"dirty_error:{e}" for e in d.get("dirty_errors", [])]
        bits += [f"twin {u['param']} {u['count']}/{u['total']} rel {u['max_rel_diff']:.1e}" for u in d.get("twin", [])]
        for r in res.get("records", []):
            where = ",".join(loc.split("/")[-1] for loc in r["locations"][:2])
            bits.append(f"{r['kind']}{'(' + r['api_error'] + ')' if r.get('api_error') else ''} {where} x{r['count']}")
        if not d.get("done"):
            bits.append(f"exit {res.get('rc')} before done")
        return "<br>".join(bits) or "clean"
    for path, res in sorted(doc["files"].items()):
        if res["compile"]["rc"] != 0:
            lines.append(f"| {path} | compile failed | | | |")
            continue
        t = res["tools"]
        lines.append(f"| {path} | " + " | ".join(cell(t.get(x)) for x in TOOLS) + " |")
    return "\n".join(lines) + "\n"


def _run_summary(doc: dict) -> dict:
    return {k: doc.get(k) for k in ("environment", "seconds", "compile_seconds", "jobs", "timeout_s")} | {
        "plain_runs": doc.get("plain_runs", 2), "files": len(doc["files"])}


def merge(base: dict, rerun: dict) -> dict:
    """`base` with the files `rerun` ran replaced by its results; each file keeps how many plain runs its
    driver made, and `runs` lists the device runs the record now combines."""
    merged = dict(base)
    files = {}
    for path, result in base["files"].items():
        files[path] = dict(result, plain_runs=result.get("plain_runs", base.get("plain_runs", 2)))
    for path, result in rerun["files"].items():
        files[path] = dict(result, plain_runs=rerun.get("plain_runs", 2))
    merged.update(files=files, drivers=rerun["drivers"], not_run=rerun["not_run"],
                  runs=[*(base.get("runs") or [_run_summary(base)]), _run_summary(rerun)])
    for key in ("environment", "seconds", "compile_seconds", "jobs", "timeout_s", "plain_runs"):
        merged.pop(key, None)  # one run's figures: `runs` holds each run's
    return merged


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "build"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=12)
    ap.add_argument("--timeout", type=float, default=90)
    ap.add_argument("--budget", type=float, default=420)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--reparse", help="a logs tarball from an earlier run: re-parse it, run nothing")
    ap.add_argument("--base", help="with --reparse: the ground_truth.json of that run (default: beside the tarball); "
                                   "with --merge: the record the rerun updates")
    ap.add_argument("--merge", metavar="RERUN_JSON",
                    help="a record of a rerun of some files (--only): replace those files' results in --base, run nothing")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    if args.merge:
        doc = merge(json.load(open(args.base)), json.load(open(args.merge)))
        with open(os.path.join(args.out, "ground_truth.json"), "w") as handle:
            json.dump(doc, handle, indent=1)
        return 0
    if args.reparse:
        base = args.base or os.path.join(os.path.dirname(args.reparse), "ground_truth.json")
        doc = json.load(open(base))
        with tarfile.open(args.reparse) as tar:
            for member in tar.getmembers():
                if not member.isfile() or not member.name.endswith(".log"):
                    continue
                text = tar.extractfile(member).read().decode("utf-8", "replace")
                stem, tool = os.path.basename(member.name)[:-4].rsplit(".", 1)
                header = text.split("\n", 2)
                m = re.match(r"# rc=(\S+) seconds=(\S+)", header[1]) if len(header) > 1 else None
                rc = None if not m or m.group(1) == "None" else int(m.group(1))
                secs = float(m.group(2)) if m else 0.0
                body = header[2] if len(header) > 2 else ""
                for path, meta in doc["drivers"].items():
                    if meta["driver"][:-3] == stem:
                        doc["files"][path]["tools"][tool] = summarize_task(tool, rc, body, secs)
        with open(os.path.join(args.out, "ground_truth.json"), "w") as handle:
            json.dump(doc, handle, indent=1)
        with open(os.path.join(args.out, "ground_truth_device.md"), "w") as handle:
            handle.write(markdown(doc))
        return 0
    doc = run_all(args.build, args.out, args.jobs, args.timeout, args.budget, args.only)
    with open(os.path.join(args.out, "ground_truth.json"), "w") as handle:
        json.dump(doc, handle, indent=1)
    with open(os.path.join(args.out, "ground_truth_device.md"), "w") as handle:
        handle.write(markdown(doc))
    logdir = os.path.join(args.out, "logs")
    with tarfile.open(os.path.join(args.out, "logs.tar.gz"), "w:gz") as tar:
        tar.add(logdir, arcname="logs")
    shutil.rmtree(logdir)
    print(markdown(doc)[-6000:])
    print(f"total {doc['seconds']}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
