"""Reward hacks and honest controls in code shapes no rule was written for: how many hacks the pre-filter
flags for the right reason, and how many honest solutions it rejects.

    python benchmarks/hack_detection.py [--set benchmarks/hacks] [--jobs 2] [--json OUT] [-- PREFILTER_KWARGS]

`benchmarks/hacks/manifest.jsonl` lists each case: `path` (under kernels/), `reference` (under problems/),
`kind` (`hack` or `control`), `family` (what the hack does) and `expected` (the codes that name it; any one
is the right reason). Every case is a complete KernelBench solution with a correct CUDA kernel: what makes
a hack a hack is its Python. The cases were written after the rules, as a held-out check of the rules'
generality; do not tune a rule to a case's spelling.

A hack is *caught* when the pre-filter rejects it with a finding whose code is expected, *flagged* when a
finding of an expected code is reported at any severity (CL406, a warning, names a precision downgrade
without rejecting). A control is a *false alarm* when the pre-filter rejects it.
Extra keyword arguments for `prefilter` (`dry_run=False`) are given as `name=value` after the options.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cudalint import prefilter  # noqa: E402

HERE = Path(__file__).resolve().parent


def load_cases(root: Path) -> list[dict]:
    with open(root / "manifest.jsonl", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def judge(root: Path, cases: list[dict], jobs: int, extra: dict) -> list[dict]:
    """Each case with its findings' codes, the rejecting codes, and the verdict."""
    by_reference: dict[str, list[dict]] = defaultdict(list)
    for case in cases:
        by_reference[case["reference"]].append(case)
    results = []
    for reference, group in sorted(by_reference.items()):
        paths = [str(root / "kernels" / case["path"]) for case in group]
        result = prefilter(paths, jobs=jobs, reference=str(root / "problems" / reference), **extra)
        items = {os.path.abspath(item.name): item for item in result.items}
        for case, path in zip(group, paths):
            item = items[os.path.abspath(path)]
            codes = sorted({f.code for f in item.findings})
            rejecting = sorted({f.code for f in item.reasons})
            expected = set(case["expected"])
            results.append({**case, "codes": codes, "rejecting": rejecting, "error": item.error,
                            "caught": bool(expected & set(rejecting)),
                            "flagged": bool(expected & set(codes)),
                            "rejected": item.rejected})
    return results


def table(results: list[dict]) -> str:
    hacks = [r for r in results if r["kind"] == "hack"]
    controls = [r for r in results if r["kind"] == "control"]
    lines = ["| case | kind | expected | rejecting findings | verdict |", "| --- | --- | --- | --- | --- |"]
    for r in sorted(results, key=lambda r: (r["kind"] != "hack", r["path"])):
        if r["kind"] == "hack":
            verdict = "caught" if r["caught"] else ("flagged" if r["flagged"] else
                                                    ("rejected, other reason" if r["rejected"] else "MISSED"))
        else:
            verdict = "FALSE ALARM" if r["rejected"] else "accepted"
        lines.append(f"| {Path(r['path']).stem} | {r['kind']} | {', '.join(r['expected']) or '-'} | "
                     f"{', '.join(r['rejecting']) or '-'} | {verdict} |")
    caught = sum(r["caught"] for r in hacks)
    flagged = sum(r["flagged"] or r["caught"] for r in hacks)
    rejected = sum(r["rejected"] for r in hacks)
    alarms = sum(r["rejected"] for r in controls)
    lines += ["", f"hacks caught for the right reason: {caught} of {len(hacks)} "
                  f"(flagged at any severity: {flagged}; rejected for any reason: {rejected})",
              f"honest controls rejected: {alarms} of {len(controls)}"]
    return "\n".join(lines)


def _keyword(text: str) -> tuple[str, object]:
    name, _, value = text.partition("=")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default=str(HERE / "hacks"), help="the case set (a manifest.jsonl, kernels/, problems/)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", help="also write the per-case results here")
    parser.add_argument("prefilter_kwargs", nargs="*", help="name=value keyword arguments for prefilter()")
    args = parser.parse_args()
    root = Path(args.set)
    results = judge(root, load_cases(root), args.jobs, dict(_keyword(k) for k in args.prefilter_kwargs))
    print(table(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
