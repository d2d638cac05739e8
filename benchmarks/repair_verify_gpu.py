"""`cudalint repair --verify` end to end on a GPU machine, with a scripted OpenAI-compatible server.

The model is tests/openai_stub_server.py, answering from a script, so that the run is repeatable; what is
real is everything else: the prompts cudalint renders, the lint of each answer, and the GPU stage (build,
correctness against the reference, timing) of each answer that lints clean, whose reports go into the next
prompt. The starting file is a KernelBench-style level-2 solution that lints clean and is wrong on the GPU
(its grid covers half of the output's columns: the rest is never written). The script's answers: round 1
fixes the grid but drops the barrier that ends each tile's reads (a race cudalint names); round 2 restores
it.

Usage (repository root, torch with CUDA, a GPU): python benchmarks/repair_verify_gpu.py --out DIR
Writes DIR/stdout.txt, DIR/stderr.txt, DIR/transcript.jsonl, DIR/verify_records.json and DIR/summary.md.
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


def answers() -> list[str]:
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    work = os.path.join(out, "work")
    os.makedirs(work, exist_ok=True)
    solution = os.path.join(work, "level_2_problem_76_sample_1_kernel.py")
    shutil.copy(START, solution)
    script = os.path.join(out, "script.json")
    dump_script([Reply(content=text, prompt_tokens=None, completion_tokens=None) for text in answers()], script)
    server = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests", "openai_stub_server.py"), script],
                              stdout=subprocess.PIPE, text=True)
    started = time.time()
    try:
        base_url = server.stdout.readline().strip()
        env = {**os.environ, "OPENAI_API_KEY": "stub-key", "OPENAI_BASE_URL": base_url, "PYTHONUNBUFFERED": "1"}
        command = [sys.executable, "-m", "cudalint", "repair", solution, "--llm", "stub-model", "--verify",
                   "--ref", REFERENCE, "--rounds", str(args.rounds), "--out", os.path.join(out, "repaired")]
        done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=1500)
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
    with open(os.path.join(out, "summary.md"), "w", encoding="utf-8") as handle:
        handle.write(summary(command, done.returncode, seconds, done.stdout, records))
    print(open(os.path.join(out, "summary.md"), encoding="utf-8").read())
    return 0 if done.returncode in (0, 1) and records else 1


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
                                             ("lint findings", "## What cudalint f")) if marker in content]
        lines.append(f"- prompt of round {prompt['round']}: {', '.join(drivers) or 'neither'}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
