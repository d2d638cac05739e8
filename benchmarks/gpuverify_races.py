"""Which race rules fire on the CUDA kernels of GPUVerify's test suite (mc-imperial/gpuverify, testsuite/CUDA).

    python benchmarks/gpuverify_races.py DIR [--rules CL101,CL105,CL106,CL107] [--list]

DIR holds the suite's kernels (`testsuite/CUDA/**/kernel.cu` of a checkout, or copies of them as `*.cu`).
Each kernel's first line is its expected verdict (`//pass`, `//xfail:BOOGIE_ERROR`, `//xfail:NOT_ALL_VERIFIED`,
...) and its second the launch GPUVerify checks it under (`//--blockDim=64 --gridDim=[4,4] -DWIDTH=256`).
The suite has no host code, so each kernel is linted with that launch appended as a host function
(`-D` options become `#define`s), the way a KernelBench solution launches its kernel. The table counts,
per expected verdict, the kernels that get a finding of the race rules, and of any rule; `--list` prints
the rules that fire on each kernel.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cudalint import lint_source  # noqa: E402

RACE_RULES = ("CL101", "CL105", "CL106", "CL107")
_KERNEL = re.compile(r"__global__\s+void\s+(\w+)\s*\(([^)]*)\)")
_DIM = re.compile(r"--(blockDim|gridDim)=(\[[^\]]*\]|\d+)")
_DEFINE = re.compile(r"-D(\w+)=(\S+)")


def verdict(text: str) -> str:
    """The expected verdict the kernel's first line states: "pass", or "xfail:KIND"."""
    first = text.lstrip().splitlines()[0].strip().lstrip("/").strip().lower() if text.strip() else ""
    return first.split()[0] if first else "unlabelled"


def with_launch(text: str) -> str:
    """The kernel source with its `-D` defines in front and a host function launching each kernel after."""
    lines = text.splitlines()
    options = next((line for line in lines[:4] if "--blockDim" in line or "--gridDim" in line), "")
    dims = {name: value.strip("[]").replace(" ", "") for name, value in _DIM.findall(options)}
    defines = [f"#define {name} {value}" for name, value in _DEFINE.findall(options)]
    launches = []
    for number, (name, params) in enumerate(_KERNEL.findall(text)):
        names = [re.findall(r"\w+", p)[-1] for p in params.split(",") if re.findall(r"\w+", p)]
        names = [n for n in names if n != "void"]
        launches.append(f"void gpuverify_launch_{number}({params}) {{\n"
                        f"  {name}<<<dim3({dims.get('gridDim', '1')}), dim3({dims.get('blockDim', '1')})>>>"
                        f"({', '.join(names)});\n}}")
    return "\n".join(defines + [text] + launches) + "\n"


def kernels(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.cu") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--rules", default=",".join(RACE_RULES), help="the race rules, comma-separated")
    parser.add_argument("--list", action="store_true", help="print the rules that fire on each kernel")
    args = parser.parse_args()
    race_rules = set(args.rules.split(","))

    totals: Counter = Counter()
    flagged_race: Counter = Counter()
    flagged_any: Counter = Counter()
    per_rule: dict[str, Counter] = {}
    for path in kernels(args.dir):
        text = path.read_text(encoding="utf-8", errors="replace")
        label = verdict(text)
        group = "pass" if label == "pass" else label
        findings = lint_source(with_launch(text), filename=path.name)
        codes = sorted({f.code for f in findings})
        races = [c for c in codes if c in race_rules]
        totals[group] += 1
        flagged_race[group] += bool(races)
        flagged_any[group] += bool(codes)
        for code in races:
            per_rule.setdefault(code, Counter())[group] += 1
        if args.list:
            print(f"{group:<24} {str(path.relative_to(args.dir)):<70} {' '.join(codes) or '-'}")

    rules = sorted(per_rule)
    print(f"\n{'expected verdict':<24} {'kernels':>7} {'race rule':>9} {'any rule':>8}  "
          + " ".join(f"{r:>6}" for r in rules))
    for group in sorted(totals):
        print(f"{group:<24} {totals[group]:>7} {flagged_race[group]:>9} {flagged_any[group]:>8}  "
              + " ".join(f"{per_rule[r][group]:>6}" for r in rules))


if __name__ == "__main__":
    main()
