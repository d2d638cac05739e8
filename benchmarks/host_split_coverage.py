"""How many real CUDA units the host-split build takes, why it refuses the others, and (with `--compile`)
whether the units it writes compile: the CUDA unit with nvcc and load_inline's CUDA flags, the host part
with `g++ -fsyntax-only` after `<torch/extension.h>` (issue 24). Needs no GPU; `--compile` needs nvcc, g++
and torch's headers (a CPU wheel's serve), and a precompiled `<torch/extension.h>` saves most of its time.

    python benchmarks/host_split_coverage.py --data ../shared/data/realkernels
    python benchmarks/host_split_coverage.py --data ../shared/data/realkernels --compile /tmp/split \\
        --sample 128 --host-flags "$(cat flags.txt)" --extension-header /tmp/pch/torch_extension.h

The static view: each solution's CUDA and C++ sources as cudalint reads them (`cudalint.sources`), with
torch 2.11's own nvcc flags and none of the call's (`extra_cuda_cflags` are not read here). Host parts that
include a CUDA-specific torch header (`ATen/cuda/...`, `c10/cuda/...`) or a CUDA library header the machine
lacks are not compiled (a CPU wheel has neither); the GPU run of `build_speed.py` builds them for real.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import random
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from cudalint.sources import load_document  # noqa: E402
from cudalint.verify.builds import split_cuda_sources  # noqa: E402

TORCH_NVCC_FLAGS = ["-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__", "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
                    "-D__CUDA_NO_HALF2_OPERATORS__", "--expt-relaxed-constexpr"]  # torch 2.11's COMMON_NVCC_FLAGS
CUDA_HEADER = re.compile(r'#\s*include\s*<(cu\w+\.h)>')


def units(data: str):
    """(solution, CUDA unit text, its C++ sources) of every solution with one CUDA unit."""
    for line in open(os.path.join(data, "labels.jsonl"), encoding="utf-8"):
        row = json.loads(line)
        path = os.path.join(data, "kernels", row["path"])
        document = load_document(path, open(path, encoding="utf-8").read())
        cuda = [u.text for u in document.units if u.language == "cuda"]
        cpp = [u.text for u in document.units if u.language == "c++"]
        for text in cuda:
            yield row, text, cpp if len(cuda) == 1 else []


def compile_split(directory: str, tag: str, split, cpp: list[str], host_flags: list[str], header: str,
                  cuda_include: str) -> dict:
    device_path, host_path = os.path.join(directory, f"{tag}.cu"), os.path.join(directory, f"{tag}.cpp")
    with open(device_path, "w", encoding="utf-8") as handle:
        handle.write(split.device_preamble + "\n".join(split.device_sources))
    with open(host_path, "w", encoding="utf-8") as handle:
        handle.write(f'#include "{header}"\n' + split.host_source + "\n".join(cpp))
    device = subprocess.run(["nvcc", "-c", "-O3", "-std=c++17", *TORCH_NVCC_FLAGS, device_path, "-o", device_path + ".o"],
                            capture_output=True, text=True)
    needs = set(CUDA_HEADER.findall(split.host_source))
    checkable = "cuda/" not in split.host_source and all(os.path.exists(os.path.join(cuda_include, h)) for h in needs)
    host = subprocess.run(["g++", *host_flags, "-fsyntax-only", host_path], capture_output=True, text=True) \
        if checkable else None
    return {"tag": tag, "device": device.returncode == 0, "host": None if host is None else host.returncode == 0,
            "errors": (device.stderr if device.returncode else "") + (host.stderr if host and host.returncode else "")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--compile", metavar="DIR", help="write and compile the splits here")
    parser.add_argument("--sample", type=int, default=100, help="units to compile (of those the harness built)")
    parser.add_argument("--host-flags", default="", help="g++ flags for the host part (torch's include paths, -std)")
    parser.add_argument("--extension-header", default="torch/extension.h",
                        help="the header the host part follows (a wrapper beside a .gch saves the parse)")
    parser.add_argument("--cuda-include", default="/usr/local/cuda/include")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    refusals, split_count, total, built = collections.Counter(), 0, 0, []
    for row, text, cpp in units(args.data):
        total += 1
        split, reason = split_cuda_sources({"cpp_sources": cpp}, [text], TORCH_NVCC_FLAGS)
        if split is None:
            refusals[re.sub(r"(names|uses|calls) [A-Za-z_]\w*", r"\1 NAME", reason)] += 1
            continue
        split_count += 1
        if row["compiled"] and cpp and not any(h.startswith("cublas") or h.startswith("cudnn")
                                               for h in CUDA_HEADER.findall(text)):
            built.append((row["path"], split, cpp))
    print(f"{split_count} of {total} CUDA units split\n\n| refused because | units |\n| --- | --- |")
    for reason, count in refusals.most_common():
        print(f"| {reason} | {count} |")
    if not args.compile:
        return 0
    os.makedirs(args.compile, exist_ok=True)
    random.Random(12).shuffle(built)
    flags = shlex.split(args.host_flags)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda item: compile_split(args.compile, item[0].replace("/", "__")[:-3], item[1],
                                                            item[2], flags, args.extension_header, args.cuda_include),
                                built[:args.sample]))
    device_failed = [r for r in results if not r["device"]]
    host_checked = [r for r in results if r["host"] is not None]
    host_failed = [r for r in host_checked if not r["host"]]
    print(f"\n{len(results)} splits compiled: CUDA unit failed {len(device_failed)}; host part checked "
          f"{len(host_checked)}, failed {len(host_failed)}")
    for result in device_failed + host_failed:
        print(f"- {result['tag']}: {result['errors'].strip().splitlines()[-1][:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
