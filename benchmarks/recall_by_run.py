"""Run-time and numerical failures (causes E-I) explained, per model run of the real-kernel set, with a
leave-one-run-out estimate of how much of it comes from rules fitted to that run.

    cudalint eval --runs ../shared/data/realkernels --reviews benchmarks/realkernels/reviews.toml -j 2 \\
        --format json > runs.json
    python benchmarks/recall_by_run.py runs.json [--labels ../shared/data/realkernels] \\
        [--markdown benchmarks/results/recall_by_run.md]

A *run* is one model on one archive's GPU (the labels' `model`, and the first folder of `path`); each run
directory is listed under it too. *Explained*: a rejecting finding of a rule that can cause the harness's
failure (`EXPLAINS`). *Leave one run out*: a kernel of run R counts as explained only when one of its
explaining rules also explains an E-I failure of another run, i.e. the rule would exist had R been held
out (pessimistic: a rule built from general knowledge that happens to fire on one run only is dropped).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cudalint.evaluation.runs import EXPLAINS  # noqa: E402

RUN_TIME = ("E", "F", "G", "H", "I")


def _run_of(label: dict) -> str:
    return f"{label['path'].split('/')[0]} {label['model']}"


def per_run(evaluation: dict, labels: dict[str, dict]) -> dict:
    """{"runs": {run: (failed, caught, explained, explained leaving the run out)}, "dirs": {dir: (failed,
    caught, explained)}, "rules": {rule: Counter(run -> kernels it explains)}}."""
    caught = {k["path"]: k for k in evaluation["catches"]["list"]}
    explaining: dict[str, tuple[str, set[str]]] = {}
    rules: dict[str, Counter] = defaultdict(Counter)
    runs: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    dirs: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for outcome in evaluation["outcomes"]:
        cause = outcome["cause"] or ""
        if not cause.startswith(RUN_TIME):
            continue
        label = labels[outcome["path"]]
        run, folder = _run_of(label), "/".join(outcome["path"].split("/")[:2])
        catch = caught.get(outcome["path"])
        codes = {f["code"] for f in catch["findings"]} & EXPLAINS.get(cause, frozenset()) if catch else set()
        explaining[outcome["path"]] = (run, codes)
        for code in codes:
            rules[code][run] += 1
        for row in (runs[run], dirs[folder]):
            row[0] += 1
            row[1] += catch is not None
            row[2] += bool(codes)
    for run, codes in explaining.values():
        runs[run][3] += any(sum(n for other, n in rules[code].items() if other != run) for code in codes)
    return {"runs": {r: tuple(v) for r, v in sorted(runs.items())},
            "dirs": {d: tuple(v) for d, v in sorted(dirs.items())}, "rules": dict(sorted(rules.items()))}


def markdown(table: dict) -> str:
    def pct(n: int, d: int) -> str:
        return f"{100 * n / d:.1f}%" if d else "-"

    lines = ["| run | failed (E-I) | caught | explained | | explained, leaving the run out | |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    total = [0, 0, 0, 0]
    for run, row in table["runs"].items():
        total = [a + b for a, b in zip(total, row)]
        lines.append(f"| {run} | {row[0]} | {row[1]} | {row[2]} | {pct(row[2], row[0])} | {row[3]} | "
                     f"{pct(row[3], row[0])} |")
    lines.append(f"| **all** | {total[0]} | {total[1]} | {total[2]} | {pct(total[2], total[0])} | {total[3]} | "
                 f"{pct(total[3], total[0])} |")
    lines += ["", "| run directory | failed (E-I) | caught | explained | |", "| --- | --- | --- | --- | --- |"]
    lines += [f"| {d} | {n} | {c} | {e} | {pct(e, n)} |" for d, (n, c, e) in table["dirs"].items()]
    runs = list(table["runs"])
    lines += ["", "| rule | " + " | ".join(runs) + " |", "| --- |" + " --- |" * len(runs)]
    lines += [f"| {code} | " + " | ".join(str(counts.get(r, 0)) for r in runs) + " |"
              for code, counts in table["rules"].items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("evaluation", help="the JSON of `cudalint eval --runs ... --format json`")
    parser.add_argument("--labels", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "realkernels"))
    parser.add_argument("--markdown", help="also write the tables to this file")
    args = parser.parse_args()
    labels_file = os.path.join(args.labels, "labels.jsonl") if os.path.isdir(args.labels) else args.labels
    with open(labels_file, encoding="utf-8") as handle:
        labels = {row["path"]: row for row in map(json.loads, filter(str.strip, handle))}
    with open(args.evaluation, encoding="utf-8") as handle:
        text = markdown(per_run(json.load(handle), labels))
    print(text, end="")
    if args.markdown:
        Path(args.markdown).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
