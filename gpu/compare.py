"""Compare the corpus labels, cudalint's findings and the GPU ground truth, kernel by kernel.

CPU-only: reads the committed device record `gpu/results/ground_truth.json` (written by
gpu/ground_truth.py on the device), the corpus markers (`// expect: CLxxx`), and lints every corpus
file with `cudalint.lint_source` now. Writes `gpu/results/ground_truth.md` (and, with --json, a
machine-readable `gpu/results/comparison.json`).

    python gpu/compare.py [--record gpu/results/ground_truth.json] [--out gpu/results/ground_truth.md]

GPU signals, and the labels each one confirms (a label is "confirmed" when a signal that confirms it
was seen in the same kernel):

| signal | from | confirms |
| --- | --- | --- |
| oob_global | memcheck: Invalid __global__ read/write | CL201, CL202, CL211 |
| oob_shared | memcheck: Invalid __shared__ read/write | CL203 |
| fault | plain run: kernel died (illegal address, launch failure) | CL201, CL202, CL203, CL211, CL104 |
| race | racecheck: shared-memory hazard (error or warning) | CL101, CL103 |
| barrier | synccheck: barrier / warp-sync error | CL102, CL103 |
| hang | plain run did not finish in its time limit | CL102, CL104 |
| trap | memcheck: device trap (e.g. grid.sync() outside a cooperative launch) | CL104 |
| launch_fail | cudaGetLastError() after the launch / memcheck API error on the launch | CL301, CL302 |
| unwritten | output elements still holding the sentinel after the run | CL204, CL209 |
| nondet | two identical runs give outputs differing by more than 1e-3 (relative) | CL101, CL103, CL105, CL106, CL107, CL209 |
| dirty | a third run, after a kernel filled every SM's shared memory with NaNs, differs by more than 1e-3 from the first, which the second matched bit for bit | CL210 |
| twin | the file's clean twin (`TWINS` in driver_gen.py), run on the same inputs, gives outputs differing by more than 1e-3 | CL209, CL213 |

Each rule of the corpus .cu labels, and what can confirm it here (`RULE_SIGNALS`; the per-rule table
of the report repeats it):

| rule | confirmed by | when it cannot be |
| --- | --- | --- |
| CL106, CL107 | nondet | lost updates or racing stores that land the same way in both runs (small grids) |
| CL209 | unwritten, nondet, twin | the divided index still reaches every output and its racing stores land the same way in both runs |
| CL210 | dirty | initcheck does not track shared memory, so it is no signal here; a kernel whose stale shared values happen to be the NaN pattern's equal is not seen |
| CL211 | oob_global, fault | the read past a row lands in the next row except for the last vertex; the drivers' CSR graphs give the last vertex a non-empty row read to its end |
| CL213 | twin | the partials are dropped deterministically: no sanitizer or two-run comparison sees a wrong value computed the same way twice; only a file with a clean twin is confirmed |
| CL214 | none | not driven: its labels are in KernelBench `.py` files, whose sizes come from the reference (2^31 elements and more); the drivers run standalone `.cu` files, where no reference fixes the sizes |

compute-sanitizer's initcheck is not run: it reports reads of uninitialised *global* memory, and the
drivers initialise every buffer they pass.

A signal is "explained" by a label when the label's bug can produce it (an out-of-bounds read of
garbage makes outputs differ between runs; an out-of-bounds shared access aliases another shared
variable and shows as a race); a signal no label on its kernel explains is "found by the GPU, not
labelled".
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cudalint import lint_source  # noqa: E402
from cudalint.expectations import expected_findings  # noqa: E402
from cudalint.model import ir  # noqa: E402

from driver_gen import TWINS, lower_file  # noqa: E402

GPU_RULES = ("CL101", "CL102", "CL103", "CL104", "CL105", "CL106", "CL107", "CL201", "CL202", "CL203", "CL204",
             "CL209", "CL210", "CL211", "CL213", "CL214", "CL215", "CL301", "CL302")
# a third run from the same inputs that differs from the first is nondeterminism whatever the shared
# memory held: it confirms the racing rules as much as the two-run comparison does
NONDET_RULES = {"CL101", "CL103", "CL105", "CL106", "CL107", "CL209"}
CONFIRMS = {
    "oob_global": {"CL201", "CL202", "CL211"},
    "oob_shared": {"CL203", "CL215"},
    "fault": {"CL201", "CL202", "CL203", "CL211", "CL215", "CL104"},
    "race": {"CL101", "CL103"},
    "barrier": {"CL102", "CL103"},
    "hang": {"CL102", "CL104"},
    "trap": {"CL104"},
    "launch_fail": {"CL301", "CL302"},
    "unwritten": {"CL204", "CL209"},
    "nondet": NONDET_RULES,
    "dirty": {"CL210"} | NONDET_RULES,
    "twin": {"CL209", "CL213"},
}
EXPLAINED_BY = {
    "oob_global": {"CL201", "CL202", "CL211"},
    "oob_shared": {"CL203", "CL215"},
    "fault": {"CL201", "CL202", "CL203", "CL211", "CL215", "CL104"},
    "race": {"CL101", "CL103", "CL203", "CL215"},
    "barrier": {"CL102", "CL103"},
    "hang": {"CL102", "CL104"},
    "trap": {"CL104"},
    "launch_fail": {"CL301", "CL302"},
    "unwritten": {"CL204", "CL209", "CL104"},
    "nondet": {"CL101", "CL103", "CL105", "CL106", "CL107", "CL209", "CL210", "CL201", "CL202", "CL203", "CL211"},
    # stale shared values: never stored (CL210), read before the store (races), past the array (CL203),
    # or tile entries the threads that skipped a divergent barrier never loaded (CL102)
    "dirty": {"CL210", "CL203", "CL102"} | NONDET_RULES,
    "twin": set(GPU_RULES),  # a twin runs only for a labelled file: its outputs differ by the labelled bug
}
# Rules no signal confirms, and why (the per-rule table says so instead of counting them unconfirmed)
UNCONFIRMABLE = {
    "CL214": "not driven: labelled in KernelBench .py files, whose sizes (2^31 elements and more) come from the "
             "reference; the drivers run standalone .cu files, where no reference fixes the sizes",
}
NONDET_THRESHOLD = 1e-3  # below: float atomics summing in another order, not a bug

# Why a label was not confirmed / a signal is unlabelled, where the automatic reason is not enough.
# Keyed by (corpus path, rule code or signal name). Written after reading the logs of the run the
# record holds; a re-run that changes the picture makes compare.py flag the key as stale.
MANUAL_REASONS: dict[tuple[str, str], str] = {
    ("cu/reduction/sum_early_return_sync.cu", "CL102"):
        "the threads past n return before the barriers; threads that have exited count as arrived at "
        "bar.sync, so the kernel completes and synccheck reports "
        "nothing on H200; the result is not checked against a reference (undefined behaviour this GPU tolerates)",
    ("cu/layernorm/layernorm_multirow_early_return.cu", "CL102"):
        "rows=130 leaves the last block two rows short; those threads return before the barriers, exited "
        "threads count as arrived at bar.sync, and each row reduces in its own shared row, so it completes, "
        "every output is written, both runs agree, and synccheck is silent on H200",
    ("cu/attention/attention_causal_tile_loop_barrier.cu", "CL102"):
        "with BLOCK_Q == BLOCK_KV every query of a block runs the same number of tiles, so only the early "
        "return past seq_len diverges; exited threads count as arrived at bar.sync, so no hang, and synccheck "
        "is silent on H200. The output of the last block is likely wrong (the exited threads never load their "
        "columns of the K/V tiles), which only a CPU reference would show (not implemented)",
    ("cu/reduction/sum_sync_inside_branch.cu", "CL102"):
        "__syncthreads() under `if (tid < s)`: the threads that skip it run on to exit, and exited threads "
        "count as arrived at bar.sync, so the kernel completes; synccheck does not report this on "
        "H200 (as shared/notes/gpu-facts.md records for `if (threadIdx.x < 128) __syncthreads()`), and the "
        "per-block partials are scratch the driver does not check",
    ("cu/matmul/matmul_sync_inside_bounds_check.cu", "CL102"):
        "the barriers sit under `row < M && col < N`; the out-of-range threads skip the whole body and exit, "
        "and exited threads count as arrived at bar.sync, so it completes and synccheck is silent on H200. "
        "The edge blocks' in-range threads then read tile entries the skipping threads never loaded "
        "(stale shared values, the same in both runs), so those outputs are likely wrong; only a CPU "
        "reference would show it (not implemented)",
    ("cu/reduction/sum_tree_wider_than_block.cu", "CL210"):
        "the third run, right after a kernel filled every SM's shared memory with NaNs, gave the first run's "
        "bits: this kernel's 4 KiB static buffer did not see the NaNs the filler (227 KiB of dynamic shared "
        "memory, the largest carve-out) wrote, most likely because the carve-out changed between the two "
        "launches; reading sdata[256..1023] unstored stays undefined, and this GPU run neither confirms nor "
        "refutes it",
    ("cu/misc/count_nonzero_race_unguarded.cu", "CL106"):
        "racecheck does not check global memory, and the lost updates of the plain `count[0] += ...` gave "
        "the same count in both plain runs on this small grid; a CPU reference would catch the wrong count "
        "(not implemented)",
}


COMPILE_CONFIRMS = [  # (pattern in nvcc's error, rule it confirms)
    (re.compile(r"too much shared data"), "CL301"),
    (re.compile(r"identifier \"__(shfl\w*|any|all|ballot)\" is undefined|without '\.sync' is not supported"), "CL103"),
]


def nvcc_errors(path: str) -> str | None:
    """First error lines of `nvcc -arch=sm_90 -c` on a corpus file, '' when it compiles, None without nvcc."""
    nvcc = shutil.which("nvcc")
    if not nvcc:
        return None
    proc = subprocess.run([nvcc, "-arch=sm_90", "-c", "-o", os.devnull, os.path.join("corpus", path)],
                          capture_output=True, text=True, cwd=ROOT)
    if proc.returncode == 0:
        return ""
    lines = [re.sub(r"^ptxas \S+\.ptx, line \d+; ", "ptxas ", " ".join(x.split()))
             for x in (proc.stderr + proc.stdout).splitlines() if "error" in x.lower() and "detected in the compilation" not in x
             and not x.startswith("ptxas fatal")]
    return " | ".join(lines[:2]) or f"nvcc exit {proc.returncode}"


def kernel_of_line(functions: list[ir.Function], line: int, launch_lines: dict[int, str]) -> str | None:
    if line in launch_lines:
        return launch_lines[line]
    for fn in functions:
        if fn.span.line <= line <= fn.span.end_line:
            if fn.space == "global":
                return fn.name
            if fn.space == "host":
                return None
            return fn.name  # a __device__ helper: reported under its own name
    return None


def file_model(path: str):
    text, functions = lower_file(os.path.join(ROOT, "corpus", path))
    kernels = [f.name for f in functions if f.space == "global"]
    launch_lines: dict[int, str] = {}
    launched: list[str] = []
    for fn in functions:
        if fn.space != "host" or fn.body is None:
            continue
        for node in fn.body.walk():
            if isinstance(node, ir.Launch) and node.kernel in kernels:
                launch_lines[node.span.line] = node.kernel
                launched.append(node.kernel)
            elif isinstance(node, ir.Call) and node.callee == "cudaLaunchCooperativeKernel":
                for k in kernels:
                    if node.args and k in node.args[0].text:
                        launch_lines[node.span.line] = k
                        launched.append(k)
    # device helpers called from one kernel are folded into that kernel
    helper_owner: dict[str, str] = {}
    for fn in functions:
        if fn.space in ("device", "host_device"):
            for k in functions:
                if k.space == "global" and k.body is not None and any(
                        isinstance(n, ir.Call) and n.callee == fn.name for n in k.body.walk()):
                    helper_owner.setdefault(fn.name, k.name)
    return text, functions, kernels, launch_lines, list(dict.fromkeys(launched)), helper_owner


def attribute(kernel: str | None, loc_lines: list[int], ctx) -> str:
    text, functions, kernels, launch_lines, launched, helper_owner = ctx
    if kernel in kernels:
        return kernel
    if kernel in helper_owner:
        return helper_owner[kernel]
    for line in loc_lines:
        k = kernel_of_line(functions, line, launch_lines)
        if k in kernels:
            return k
        if k in helper_owner:
            return helper_owner[k]
    if len(launched) == 1:
        return launched[0]
    return "(file)"


def gpu_signals(path: str, res: dict, ctx) -> list[dict]:
    """Signals from one file's device results, each attributed to a kernel."""
    _, functions, kernels, launch_lines, launched, _ = ctx
    # atomics can order writes differently in every run (`partials[atomicAdd(&c, 1)] = v`) without a bug
    atomics = any(isinstance(n, ir.Call) and n.callee.startswith("atomic")
                  for f in functions if f.body is not None for n in f.body.walk())
    out: list[dict] = []
    tools = res.get("tools", {})
    plain = tools.get("plain", {})
    pd = plain.get("driver", {})

    def add(kind, kernel, detail, tool, lines=()):
        out.append({"signal": kind, "kernel": kernel, "detail": detail, "tool": tool, "lines": list(lines)})

    def lines_of(rec):
        got = []
        for loc in rec.get("locations", []):
            p, _, ln = loc.rpartition(":")
            if p == path and ln.isdigit():
                got.append(int(ln))
        return got

    for tool in ("memcheck", "racecheck", "synccheck"):
        t = tools.get(tool, {})
        for rec in t.get("records", []):
            lines = lines_of(rec)
            k = attribute(rec.get("kernel"), lines, ctx)
            where = ", ".join(loc.split("/")[-1] for loc in rec.get("locations", [])) or "no line"
            if rec["kind"].startswith("oob_global"):
                add("oob_global", k, f"{rec['message']} at {where} (x{rec['count']})", tool, lines)
            elif rec["kind"].startswith("oob_shared"):
                add("oob_shared", k, f"{rec['message']} at {where} (x{rec['count']})", tool, lines)
            elif rec["kind"] == "race":
                add("race", k, f"{rec['severity']}: race between {where} ({rec['count']} hazards)", tool, lines)
            elif rec["kind"] in ("barrier_error", "sync_invalid_args"):
                add("barrier", k, f"{rec['message']} at {where} (x{rec['count']})", tool, lines)
            elif rec["kind"] == "trap":
                add("trap", k, f"device trap at {where} (x{rec['count']})", tool, lines)
            elif rec["kind"] == "api_error" and rec.get("api_call") in ("cudaLaunchKernel", "cudaLaunchCooperativeKernel"):
                pass  # the driver's launch_error says the same
    for err in pd.get("launch_errors", []):
        k = launched[0] if launched else "(file)"
        add("launch_fail", k, f"cudaGetLastError() = {err} after the launch", "plain")
    if plain.get("timed_out"):
        k = launched[0] if len(launched) == 1 else "(file)"
        add("hang", k, f"plain run did not finish in {plain.get('seconds')} s", "plain")
    for err in pd.get("sync_errors", []):
        k = launched[0] if len(launched) == 1 else "(file)"
        add("fault", k, f"cudaDeviceSynchronize() = {err} in the plain run", "plain")
    for u in pd.get("unwritten", []):
        k = launched[-1] if launched else "(file)"
        add("unwritten", k, f"{u['count']}/{u['total']} elements of '{u['param']}' never written (first {u['first']})",
            "plain")
    for u in pd.get("nondet", []):
        k = launched[-1] if launched else "(file)"
        rel = u["max_rel_diff"]
        if rel == rel and rel <= NONDET_THRESHOLD:  # (rel == rel: not NaN)
            add("nondet_fp", k, f"'{u['param']}' differs slightly between runs (max rel {rel:.1e}, under the "
                                f"{NONDET_THRESHOLD:g} threshold: float atomics in another order, or a race with a small effect)",
                "plain")
        else:
            add("nondet", k, f"{u['count']}/{u['total']} elements of '{u['param']}' differ between two identical runs "
                             f"(max rel {rel:.2g})", "plain")
    for u in pd.get("twin", []):
        rel = u["max_rel_diff"]
        if not (rel <= NONDET_THRESHOLD):
            add("twin", launched[-1] if launched else "(file)",
                f"{u['count']}/{u['total']} elements of '{u['param']}' differ from the clean twin's on the same inputs "
                f"(max rel {rel:.2g})", "plain")
    for u in pd.get("dirty", []):
        rel = u["max_rel_diff"]
        # only an output the two clean runs agreed on: otherwise the difference is the nondet one
        if u["stable"] and not (rel <= NONDET_THRESHOLD):
            add("dirty", launched[-1] if launched else "(file)",
                f"{u['count']}/{u['total']} elements of '{u['param']}' differ after a kernel filled shared memory "
                f"with NaNs (max rel {rel:.2g}); the two clean runs agreed", "plain")
        elif not u["stable"] and not (rel <= NONDET_THRESHOLD) and not atomics:
            # an output left out of the two-run comparison (scratch, a per-block result) that the third run
            # changes by more than float reordering, in a file without atomics: a race's nondeterminism
            add("nondet", launched[-1] if launched else "(file)",
                f"{u['count']}/{u['total']} elements of '{u['param']}' differ between identical runs by more than "
                f"float reordering (max rel {rel:.2g}; runs 1 and 2 differed too)", "plain")
    return out


def auto_reason_unconfirmed(path: str, code: str, kernel_signals: list[dict], file_signals: list[dict], res: dict) -> str:
    kinds = {s["signal"] for s in file_signals}
    if "launch_fail" in kinds and code not in ("CL301", "CL302"):
        return "the launch itself fails (the file's CL301/CL302 bug), so the kernel never runs and no runtime check can see this one"
    if code in ("CL201", "CL202") and "fault" in kinds:
        return "the plain run faulted, but memcheck attributed no out-of-bounds access to this kernel"
    if code in ("CL201", "CL202"):
        return "memcheck saw no out-of-bounds access: the driver's sizes did not make the bad index leave its buffer"
    if code == "CL203":
        return ("memcheck only flags shared accesses outside the block's whole shared window; this index stays "
                "inside another shared array of the block")
    if code == "CL204":
        return "every output element was written with the driver's sizes"
    if code == "CL101":
        return "racecheck reported no hazard for this kernel with the driver's sizes"
    if code == "CL102":
        return "synccheck reports no barrier divergence on H200 for this pattern (see shared/notes/gpu-facts.md) and the run completed"
    if code == "CL104":
        return "no trap or hang was observed"
    if code in ("CL105", "CL106", "CL107"):
        return "racecheck does not check global memory and both runs produced identical results"
    if code == "CL209":
        return "every output element was written and both runs agreed"
    if code == "CL210":
        return "the run after the kernel that filled shared memory with NaNs gave the first run's outputs"
    if code == "CL211":
        return "memcheck saw no read past the adjacency array: the row overrun stayed inside the next row"
    if code == "CL213":
        return ("the clean twin gave the same outputs" if path in TWINS else
                "the partials are dropped the same way in every run, so only a reference shows the wrong value, "
                "and this file has no clean twin (TWINS in gpu/driver_gen.py)")
    if code in UNCONFIRMABLE:
        return UNCONFIRMABLE[code]
    if code in ("CL301", "CL302"):
        return "the launch succeeded on H200"
    return "no GPU signal for this rule"


def auto_reason_unlabelled(sig: dict, labels: set[str]) -> str:
    s = sig["signal"]
    if s == "nondet":
        return "outputs differ between two identical runs with no race/OOB label on this kernel: check for an unlabelled race"
    if s == "race":
        return "racecheck hazard with no CL101/CL103 label on this kernel"
    if s in ("oob_global", "oob_shared", "fault"):
        return "out-of-bounds access with no CL201/CL202/CL203 label on this kernel: a real bug, or the driver's buffer for it is too small"
    if s == "dirty":
        return "outputs change when shared memory starts dirty, with no CL210 label: a read of shared memory no thread stored"
    if s == "unwritten":
        return "outputs left unwritten with no CL204 label: the driver sized an output larger than the kernel writes, or a real coverage bug"
    return f"{s} with labels {sorted(labels) or 'none'}"


def compare(record: dict) -> dict:
    manifest = [json.loads(x) for x in open(os.path.join(ROOT, "corpus", "cu", "manifest.jsonl")) if x.strip()]
    rows = []
    summary = {code: {"labelled": 0, "labelled_ran": 0, "confirmed": 0, "not_confirmed": 0, "gpu_unlabelled": 0,
                      "cudalint_tp": 0, "cudalint_fp": 0, "cudalint_fn": 0, "compile_confirmed": 0} for code in GPU_RULES}
    compile_notes: dict[str, str | None] = {}
    disagreements: list[dict] = []
    used_manual: set[tuple[str, str]] = set()
    for entry in manifest:
        path = entry["path"]
        ctx = file_model(path)
        text, functions, kernels, launch_lines, launched, helper_owner = ctx
        labels_by_kernel: dict[str, set[str]] = defaultdict(set)
        for line, code in expected_findings(text):
            k = kernel_of_line(functions, line, launch_lines)
            k = helper_owner.get(k, k) if k not in kernels else k
            labels_by_kernel[k or "(file)"].add(code)
        findings = lint_source(text, filename=os.path.join("corpus", path))
        lint_by_kernel: dict[str, set[str]] = defaultdict(set)
        for f in findings:
            k = kernel_of_line(functions, f.location.line, launch_lines)
            k = helper_owner.get(k, k) if k not in kernels else k
            lint_by_kernel[k or "(file)"].add(f.code)
        res = record["files"].get(path)
        ran = res is not None and res["compile"]["rc"] == 0 and any(
            not t.get("skipped") for t in res.get("tools", {}).values())
        signals = gpu_signals(path, res, ctx) if ran else []
        if not ran:
            compile_notes[path] = nvcc_errors(path)
            for code in sorted({c for labels in labels_by_kernel.values() for c in labels}):
                if compile_notes[path] and any(code == rule and pat.search(compile_notes[path])
                                               for pat, rule in COMPILE_CONFIRMS):
                    summary[code]["compile_confirmed"] += 1
        sig_by_kernel: dict[str, list[dict]] = defaultdict(list)
        for s in signals:
            sig_by_kernel[s["kernel"]].append(s)
        for code in [c for labels in labels_by_kernel.values() for c in labels if c in GPU_RULES]:
            summary[code]["labelled"] += 1
        names = list(dict.fromkeys(kernels + [k for k in labels_by_kernel if k not in kernels]
                                   + [k for k in sig_by_kernel if k not in kernels]
                                   + [k for k in lint_by_kernel if k not in kernels]))
        for k in names:
            labels = {c for c in labels_by_kernel.get(k, set())}
            lint = {c for c in lint_by_kernel.get(k, set())}
            sigs = sig_by_kernel.get(k, [])
            # file-level signals (kernel unknown) count for every kernel of the file
            sigs_all = sigs + (sig_by_kernel.get("(file)", []) if k != "(file)" else [])
            row = {"path": path, "kernel": k, "launched": k in launched, "ran": ran and (k in launched or k == "(file)"),
                   "labels": sorted(labels), "cudalint": sorted(lint), "gpu": sigs, "confirmed": [],
                   "not_confirmed": [], "unlabelled": []}
            for code in sorted(c for c in labels if c in GPU_RULES):
                if code in lint:
                    summary[code]["cudalint_tp"] += 1
                else:
                    summary[code]["cudalint_fn"] += 1
                if not row["ran"]:
                    continue
                summary[code]["labelled_ran"] += 1
                hits = [s for s in sigs_all if code in CONFIRMS.get(s["signal"], set())]
                if hits:
                    summary[code]["confirmed"] += 1
                    row["confirmed"].append(code)
                else:
                    summary[code]["not_confirmed"] += 1
                    key = (path, code)
                    reason = MANUAL_REASONS.get(key) or auto_reason_unconfirmed(path, code, sigs, signals, res)
                    if key in MANUAL_REASONS:
                        used_manual.add(key)
                    row["not_confirmed"].append({"code": code, "reason": reason})
                    disagreements.append({"path": path, "kernel": k, "what": f"labelled {code}, not confirmed by the GPU",
                                          "reason": reason})
            for code in sorted(c for c in lint if c in GPU_RULES and c not in labels):
                summary[code]["cudalint_fp"] += 1
            for s in sigs:
                if s["signal"] == "nondet_fp":
                    continue
                if labels & EXPLAINED_BY.get(s["signal"], set()):
                    continue
                key = (path, s["signal"])
                reason = MANUAL_REASONS.get(key) or auto_reason_unlabelled(s, labels)
                if key in MANUAL_REASONS:
                    used_manual.add(key)
                row["unlabelled"].append({"signal": s["signal"], "detail": s["detail"], "reason": reason})
                first = sorted(CONFIRMS.get(s["signal"], {"?"}))[0]
                if first in summary:
                    summary[first]["gpu_unlabelled"] += 1
                disagreements.append({"path": path, "kernel": k, "what": f"GPU {s['signal']} ({s['detail']}), no label explains it",
                                      "reason": reason})
            rows.append(row)
    stale = sorted(set(MANUAL_REASONS) - used_manual)
    return {"rows": rows, "summary": summary, "disagreements": disagreements, "stale_manual_reasons": stale,
            "compile_notes": compile_notes}


def confirming_signals(code: str) -> str:
    """The signals that confirm a rule, or why none can."""
    signals = [signal for signal, codes in CONFIRMS.items() if code in codes]
    return ", ".join(signals) if signals else f"none: {UNCONFIRMABLE[code]}"


# records before the shared-memory run have no `plain_runs`: their drivers ran twice
_PLAIN_RUNS = {2: "twice", 3: "twice, then once after a kernel filled shared memory with NaNs"}


def render(record: dict, cmp: dict) -> str:
    files = record["files"]
    ran = [p for p, r in files.items() if r["compile"]["rc"] == 0]
    kernels_ran = [r for r in cmp["rows"] if r["ran"] and r["kernel"] != "(file)"]
    out = []
    w = out.append
    w("# GPU ground truth for the labelled corpus")
    w("")
    w("Generated by `python gpu/compare.py` from `gpu/results/ground_truth.json` (the device record written by "
      "`gpu/ground_truth.py`), the corpus markers, and `cudalint.lint_source` as of this run. "
      "How the drivers are built and what each signal means: `gpu/README.md`.")
    w("")
    w(f"- Corpus .cu files: {len(record.get('drivers', {})) + len(record.get('not_run', {}))}; driven on the GPU: "
      f"{len(ran)} files, {len(kernels_ran)} kernels, each under a plain run, memcheck, racecheck and synccheck.")
    # a record merged from a rerun of some files (`ground_truth.py --merge`) lists each device run
    for run in record.get("runs") or [dict(record, files=len(files))]:
        env = run.get("environment", {})
        w(f"- Device run of {run['files']} files: {env.get('nvidia_smi', '?')}; {env.get('nvcc', '?')}; compute-sanitizer "
          f"{env.get('compute_sanitizer', '?')}; plain run {_PLAIN_RUNS[run.get('plain_runs', 2)]}; {run.get('seconds')} s "
          f"wall, {run.get('jobs')} processes at a time, {run.get('timeout_s')} s limit per run.")
    failed_launch = {r["path"] for r in cmp["rows"] if any(x["signal"] == "launch_fail" for x in r["gpu"])}
    executed = [r for r in kernels_ran if r["path"] not in failed_launch]
    w(f"- Of those kernels, {len(executed)} executed; the launches of {len(failed_launch)} files fail by design "
      f"(their CL301/CL302 bug), so their kernels never start.")
    not_run = record.get("not_run", {})
    if not_run:
        w(f"- Not run ({len(not_run)}): " + "; ".join(f"`{p}` ({v['reason']})" for p, v in sorted(not_run.items())) + ".")
    w("")
    w("## Per rule")
    w("")
    w("| rule | confirmed by | labelled | labelled, kernel ran | confirmed by GPU | labelled, not confirmed | GPU found, not labelled | not launchable, confirmed by nvcc | cudalint TP / FN / FP (whole corpus .cu) |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for code, s in cmp["summary"].items():
        w(f"| {code} | {confirming_signals(code)} | {s['labelled']} | {s['labelled_ran']} | {s['confirmed']} | {s['not_confirmed']} | "
          f"{s['gpu_unlabelled']} | {s['compile_confirmed']} | {s['cudalint_tp']} / {s['cudalint_fn']} / {s['cudalint_fp']} |")
    w("")
    if cmp["compile_notes"]:
        w("Files not launchable (they do not compile), with `nvcc -arch=sm_90 -c` here as their ground truth:")
        w("")
        for path, note in sorted(cmp["compile_notes"].items()):
            w(f"- `{path}`: " + ("nvcc not on PATH" if note is None else (f"`{note}`" if note else "compiles")))
        w("")
    w("'GPU found, not labelled' is counted under the first rule the signal would confirm. cudalint counts are "
      "per kernel and rule (a label or finding anywhere in the kernel), restricted to the rules above.")
    w("")
    w("## Disagreements (one line each, with the likely reason)")
    w("")
    if not cmp["disagreements"]:
        w("None.")
    for d in cmp["disagreements"]:
        w(f"- `{d['path']}` `{d['kernel']}`: {d['what']}. Likely reason: {d['reason']}.")
    if cmp["stale_manual_reasons"]:
        w("")
        w("Stale hand-written reasons (the case no longer disagrees): " +
          ", ".join(f"`{p}` {c}" for p, c in cmp["stale_manual_reasons"]))
    w("")
    w("## Kernel by kernel")
    w("")
    w("| file | kernel | labels | cudalint now | GPU signals | verdict |")
    w("| --- | --- | --- | --- | --- | --- |")
    for r in cmp["rows"]:
        if not r["launched"] and not r["labels"] and not r["cudalint"] and not r["gpu"]:
            continue
        gpu = "<br>".join(f"{s['signal']}: {s['detail']}" for s in r["gpu"]) or ("clean" if r["ran"] else "not run")
        verdict = []
        if not r["ran"]:
            note = cmp["compile_notes"].get(r["path"])
            confirmed = sorted({rule for pat, rule in COMPILE_CONFIRMS if note and pat.search(note)} & set(r["labels"]))
            verdict.append("not run on the GPU" + (f" (does not compile; nvcc's error confirms {', '.join(confirmed)})"
                                                   if confirmed else ""))
        if r["confirmed"]:
            verdict.append("confirmed " + ", ".join(r["confirmed"]))
        if r["not_confirmed"]:
            verdict.append("not confirmed " + ", ".join(x["code"] for x in r["not_confirmed"]))
        if r["unlabelled"]:
            verdict.append("unlabelled GPU " + ", ".join(x["signal"] for x in r["unlabelled"]))
        gl = {c for c in r["labels"] if c in GPU_RULES}
        lt = {c for c in r["cudalint"] if c in GPU_RULES}
        if gl != lt:
            extra = sorted(lt - gl)
            missed = sorted(gl - lt)
            verdict.append("cudalint " + ("misses " + ", ".join(missed) if missed else "") +
                           ("; " if missed and extra else "") + ("extra " + ", ".join(extra) if extra else ""))
        if r["ran"] and not r["labels"] and not [s for s in r["gpu"] if s["signal"] != "nondet_fp"] and not lt:
            verdict.append("clean everywhere")
        elif r["ran"] and not verdict:
            verdict.append("all agree")
        w(f"| {r['path']} | {r['kernel']} | {', '.join(r['labels']) or '-'} | {', '.join(r['cudalint']) or '-'} | {gpu} | {'; '.join(verdict)} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", default=os.path.join(ROOT, "gpu", "results", "ground_truth.json"))
    ap.add_argument("--out", default=os.path.join(ROOT, "gpu", "results", "ground_truth.md"))
    ap.add_argument("--json", help="also write the comparison as JSON here")
    args = ap.parse_args(argv)
    record = json.load(open(args.record))
    cmp = compare(record)
    with open(args.out, "w") as handle:
        handle.write(render(record, cmp))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(cmp, handle, indent=1)
    for code, s in cmp["summary"].items():
        print(f"{code}: labelled {s['labelled']} ran {s['labelled_ran']} confirmed {s['confirmed']} "
              f"not {s['not_confirmed']} gpu-unlabelled {s['gpu_unlabelled']}")
    print(f"{len(cmp['disagreements'])} disagreements; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
