"""`cudalint repair --verify` end to end on a GPU machine, with a scripted OpenAI-compatible server.

The model is tests/openai_stub_server.py, answering from a script, so that the run is repeatable; what is
real is everything else: the prompts cudalint renders, the lint of each answer, and the GPU stage (build,
correctness against the reference, timing) of each answer that lints clean, whose reports go into the next
prompt. Two cases (`--case`):

- `unwritten`: a KernelBench-style level-2 solution that lints clean and is wrong on the GPU (its grid
  covers half of the output's columns). The script's answers: round 1 fixes the grid but drops the barrier
  that ends each tile's reads (a race cudalint names); round 2 restores it.
- `perf`: `repair --perf --verify` on a correct elementwise kernel launched with 32-thread blocks (CL503);
  the answer launches 256-thread blocks. The input and the result are then timed by `cudalint verify`
  (the input's build runs alongside the repair), so the speedup the advisory led to is measured.

Usage (repository root, torch with CUDA, a GPU): python benchmarks/repair_verify_gpu.py --out DIR [--case perf]
Writes DIR/stdout.txt, DIR/stderr.txt, DIR/transcript.jsonl and DIR/summary.md (perf: DIR/timing.json too).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from openai_stub_server import Reply, dump_script  # noqa: E402

FIXTURES = os.path.join(ROOT, "tests", "fixtures", "verify")
START = os.path.join(FIXTURES, "run", "level_2_problem_76_sample_1_kernel.py")  # grid over half the columns
CORRECT = os.path.join(FIXTURES, "run", "level_2_problem_76_sample_0_kernel.py")
REFERENCE = os.path.join(FIXTURES, "problems", "level2", "76_Gemm_Add_ReLU.py")
HALF_GRID = "dim3 grid((Cn / 2 + TILE - 1) / TILE, (R + TILE - 1) / TILE);"
FULL_GRID = "dim3 grid((Cn + TILE - 1) / TILE, (R + TILE - 1) / TILE);"
TILE_END_BARRIER = "        for (int kk = 0; kk < TILE; ++kk) acc += xs[ty][kk] * ws[tx][kk];\n        __syncthreads();\n"


SCALE_SHIFT = os.path.join(FIXTURES, "perf", "scale_shift_32_threads.py")
SCALE_SHIFT_REFERENCE = os.path.join(FIXTURES, "perf", "scale_shift_reference.py")


def unwritten_answers() -> list[str]:
    start = open(START, encoding="utf-8").read()
    assert HALF_GRID in start and TILE_END_BARRIER in start
    racy = start.replace(HALF_GRID, FULL_GRID).replace(
        TILE_END_BARRIER, "        for (int kk = 0; kk < TILE; ++kk) acc += xs[ty][kk] * ws[tx][kk];\n")
    correct = open(CORRECT, encoding="utf-8").read()
    return [
        "The grid only covered half of the output columns; it now covers all of them, and I removed a barrier "
        f"that looked redundant.\n\n```python\n{racy}```\n",
        f"The barrier after the inner product is needed: the next tile overwrites the shared tiles.\n\n"
        f"```python\n{correct}```\n",
    ]


def perf_answers() -> list[str]:
    start = open(SCALE_SHIFT, encoding="utf-8").read()
    assert "const int threads = 32;" in start
    faster = start.replace("const int threads = 32;", "const int threads = 256;").replace(
        "# Correct, but launched with 32-thread blocks: a warp per block, far from filling an SM (CL503 with --perf).",
        "# 256-thread blocks: eight warps per block, enough resident warps to hide memory latency.")
    return [f"Blocks of one warp leave most of each SM idle; 256 threads per block fill it.\n\n```python\n{faster}```\n"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--case", choices=("unwritten", "perf"), default="unwritten")
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    work = os.path.join(out, "work")
    os.makedirs(work, exist_ok=True)
    perf = args.case == "perf"
    start, reference = (SCALE_SHIFT, SCALE_SHIFT_REFERENCE) if perf else (START, REFERENCE)
    solution = os.path.join(work, os.path.basename(start))
    shutil.copy(start, solution)
    script = os.path.join(out, "script.json")
    replies = perf_answers() if perf else unwritten_answers()
    dump_script([Reply(content=text, prompt_tokens=None, completion_tokens=None) for text in replies], script)
    server = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests", "openai_stub_server.py"), script],
                              stdout=subprocess.PIPE, text=True)
    started = time.time()
    baseline = None
    try:
        base_url = server.stdout.readline().strip()
        env = {**os.environ, "OPENAI_API_KEY": "stub-key", "OPENAI_BASE_URL": base_url, "PYTHONUNBUFFERED": "1"}
        if perf:  # the input's build and timing alongside the repair (the repair never builds the input)
            baseline = subprocess.Popen(_verify_command(start, reference, os.path.join(out, "input.json")), cwd=work,
                                        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        command = [sys.executable, "-m", "cudalint", "repair", solution, "--llm", "stub-model", "--verify",
                   "--ref", reference, "--rounds", str(args.rounds), "--out", os.path.join(out, "repaired")]
        command += ["--perf", "--min-speedup", "0"] if perf else []
        done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=1500)
        if perf:
            result = os.path.join(out, "repaired", os.path.basename(solution))
            if os.path.exists(result):
                subprocess.run(_verify_command(result, reference, os.path.join(out, "result.json")), cwd=work,
                               env=env, capture_output=True, timeout=600)
            baseline.wait(timeout=600)
    finally:
        server.kill()
    seconds = time.time() - started
    for name, text in (("stdout.txt", done.stdout), ("stderr.txt", done.stderr)):
        with open(os.path.join(out, name), "w", encoding="utf-8") as handle:
            handle.write(text)
    transcript = os.path.join(out, "repaired", os.path.basename(solution) + ".repair.jsonl")
    records = [json.loads(line) for line in open(transcript, encoding="utf-8")] if os.path.exists(transcript) else []
    if records:
        shutil.copy(transcript, os.path.join(out, "transcript.jsonl"))
    text = summary(command, done.returncode, seconds, done.stdout, records)
    if perf:
        text += _timing_summary(out)
    with open(os.path.join(out, "summary.md"), "w", encoding="utf-8") as handle:
        handle.write(text)
    print(open(os.path.join(out, "summary.md"), encoding="utf-8").read())
    return 0 if done.returncode in (0, 1) and records else 1


def _verify_command(solution: str, reference: str, json_path: str) -> list[str]:
    return [sys.executable, "-m", "cudalint", "verify", solution, "--ref", reference, "--json", json_path, "--quiet"]


def _timing_summary(out: str) -> str:
    """The input's and the result's times from their `cudalint verify` runs, and the speedup between them."""
    timed = {}
    for name in ("input", "result"):
        path = os.path.join(out, f"{name}.json")
        if os.path.exists(path):
            record = json.load(open(path, encoding="utf-8"))["results"][0]
            timed[name] = {"status": record["status"], **{k: (record.get("timing") or {}).get(k) for k in ("speedup",)},
                           "median_ms": ((record.get("timing") or {}).get("candidate") or {}).get("median_ms"),
                           "reference_ms": ((record.get("timing") or {}).get("reference") or {}).get("median_ms")}
    with open(os.path.join(out, "timing.json"), "w", encoding="utf-8") as handle:
        json.dump(timed, handle, indent=1)
    lines = ["", "Measured by `cudalint verify` (median of 100 CUDA-event timed runs, L2 flushed):", ""]
    for name, entry in timed.items():
        shown = {k: f"{v:.4g}" if isinstance(v, float) else v for k, v in entry.items()}
        lines.append(f"- {name}: {shown['status']}, {shown['median_ms']} ms (eager PyTorch {shown['reference_ms']} "
                     f"ms): {shown['speedup']}x the reference")
    if all(timed.get(n, {}).get("median_ms") for n in ("input", "result")):
        lines.append(f"- the answer is {timed['input']['median_ms'] / timed['result']['median_ms']:.2f}x faster "
                     f"than the input")
    return "\n".join(lines) + "\n"


def summary(command: list[str], code: int, seconds: float, stdout: str, records: list[dict]) -> str:
    shown = " ".join(os.path.relpath(part, ROOT) if os.path.isabs(part) else part for part in command[1:])
    lines = [f"Command: `python {shown}` (exit {code}, {seconds:.0f} s wall)", "", "Output:", "", "```",
             stdout.rstrip(), "```", "", "Rounds (from the transcript):", ""]
    run = next((r for r in records if r["type"] == "run"), {})
    for report in run.get("gpu_reports", []):
        lines.append(f"- before round 1, the input on the GPU: **{report['kind']}**: {report['text']}")
    for record in records:
        if record["type"] == "round":
            after = record["findings_after"]
            lint = ", ".join(f["code"] for f in after) if after else "lint clean"
            gpu = "; ".join(f"{r['kind']}: {r['text']}" for r in record["gpu_reports"]) or (
                "passed the GPU check" if after == [] else "not run on the GPU (lint findings first)")
            lines.append(f"- round {record['round']}: {record['outcome']}: {lint}; GPU: {gpu}")
        elif record["type"] == "result":
            lines.append(f"- result: {record['status']} (round {record['result_round']})")
    prompts = [r for r in records if r["type"] == "prompt" and r["role"] == "user"]
    lines += ["", "What each user prompt was driven by:", ""]
    for prompt in prompts:
        content = prompt["content"]
        drivers = [name for name, marker in (("GPU reports", "## Reports from building and running it on a GPU"),
                                             ("lint findings", "## What cudalint f"),
                                             ("performance advisories", "## Performance problems"))
                   if marker in content]
        lines.append(f"- prompt of round {prompt['round']}: {', '.join(drivers) or 'neither'}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
