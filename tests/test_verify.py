"""CPU-side tests of `cudalint verify` (no GPU, and no torch unless stated): the lint gate, build-cache keys,
compiler and compute-sanitizer output parsing and their mapping to .py lines, GPU selection, isolation of
workers (a CPU stand-in that crashes, hangs, exits or succeeds), results, GPU reports and the CLI.

Tests that need torch (the real worker on the CPU) skip when it is absent: CI installs the `test` extra,
which has no torch (a CUDA build of torch is several GB)."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import typer
from hostile_solutions import FORGED_FRAMES
from typer.testing import CliRunner

from cudalint.verify import diagnostics, gpu_check, results
from cudalint.verify.builds import (TORCH_EXTENSION_INCLUDE, AtenHeaders, BindingHeader, cache_key, lighter_cuda_sources,
                                    minimal_cuda_sources, source_offsets)
from cudalint.verify.cli import parse_tolerances, register
from cudalint.verify.gpus import Gpu, arch_list, detect_gpus, parse_nvidia_smi, parse_visible_devices
from cudalint.verify.isolation import run_worker
from cudalint.verify.runner import Candidate, VerifyOptions, collect_candidates, verify_batch
from cudalint.verify.clock import summarize
from cudalint.verify.worker import classify_error

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures" / "verify"
RUN = FIXTURES / "run"
PROBLEMS = FIXTURES / "problems"
STANDIN = [sys.executable, str(FIXTURES / "standin_worker.py")]
RELU_REF = PROBLEMS / "level1" / "19_ReLU.py"


def _options(tmp_path: Path, **changes) -> VerifyOptions:
    base = dict(worker=STANDIN, device="cuda", gpus=["0"], cache_dir=str(tmp_path / "cache"), lint=False,
                run_timeout=20.0, build_timeout=20.0, sanitize_timeout=20.0, pass_env=("STANDIN_LOG", "STANDIN_PIDS"))
    base.update(changes)
    return VerifyOptions(**base)


def _solution(tmp_path: Path, name: str, behaviour: str, cuda: str = "") -> str:
    path = tmp_path / name
    body = cuda or "__global__ void k(float* y) { y[threadIdx.x] = 1.0f; }\n"
    path.write_text(textwrap.dedent(f'''\
        # standin: {behaviour}
        import torch
        from torch.utils.cpp_extension import load_inline

        source = """
        {textwrap.indent(body, "        ").strip()}
        """

        mod = load_inline(name="m", cpp_sources="", cuda_sources=source, functions=[])


        class ModelNew(torch.nn.Module):
            def forward(self, x):
                return x
        '''))
    return str(path)


def _log(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# ------------------------------------------------------------------------------------------ cache keys


def test_cache_key_depends_on_sources_flags_and_toolchain() -> None:
    toolchain = {"torch": "2.11.0", "cuda": "13.0", "arch_list": "9.0"}
    base = cache_key("ext", "int f();", "__global__ void k() {}", ["f"], None, ["-O3", "-lineinfo"], None, None,
                     {}, toolchain)
    assert base == cache_key("ext", ["int f();"], ["__global__ void k() {}"], ["f"], [], ["-O3", "-lineinfo"], [],
                             [], {}, dict(reversed(list(toolchain.items()))))  # str == [str], order-free dicts
    assert len(base) == 64
    changed = [
        cache_key("ext2", "int f();", "__global__ void k() {}", ["f"], None, ["-O3", "-lineinfo"], None, None, {},
                  toolchain),
        cache_key("ext", "int f(); ", "__global__ void k() {}", ["f"], None, ["-O3", "-lineinfo"], None, None, {},
                  toolchain),
        cache_key("ext", "int f();", "__global__ void k() { }", ["f"], None, ["-O3", "-lineinfo"], None, None, {},
                  toolchain),
        cache_key("ext", "int f();", "__global__ void k() {}", ["f"], None, ["-O2", "-lineinfo"], None, None, {},
                  toolchain),
        cache_key("ext", "int f();", "__global__ void k() {}", ["f"], ["-DX"], ["-O3", "-lineinfo"], None, None,
                  {}, toolchain),
        cache_key("ext", "int f();", "__global__ void k() {}", ["f", "g"], None, ["-O3", "-lineinfo"], None, None,
                  {}, toolchain),
        cache_key("ext", "int f();", "__global__ void k() {}", ["f"], None, ["-O3", "-lineinfo"], None, None,
                  {"with_pytorch_error_handling": False}, toolchain),
        cache_key("ext", "int f();", "__global__ void k() {}", ["f"], None, ["-O3", "-lineinfo"], None, None, {},
                  dict(toolchain, arch_list="8.0;9.0")),
        cache_key("ext", "int f();", "__global__ void k() {}", ["f"], None, ["-O3", "-lineinfo"], None, None, {},
                  dict(toolchain, torch="2.13.0")),
    ]
    assert base not in changed and len(set(changed)) == len(changed)


def test_source_offsets_find_each_part_after_torchs_implicit_lines() -> None:
    written = "#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\nA\nB\nC\nD"
    assert [p["start_line"] for p in source_offsets(written, ["A\nB", "C", "D"])] == [4, 6, 7]
    assert source_offsets(written, ["not there"])[0]["start_line"] is None


def test_error_classification() -> None:
    assert classify_error("RuntimeError: CUDA error: an illegal memory access was encountered") == "illegal_address"
    assert classify_error("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB") == "oom"
    assert classify_error("CUDA error: misaligned address") == "misaligned_address"
    assert classify_error("CUDA error: device-side assert triggered") == "device_assert"
    # what the H200 said for a store gigabytes past the output (cudaErrorInvalidAddressSpace), with torch's
    # advice about device-side assertions appended: an illegal address, not an assert
    seen = ("AcceleratorError: CUDA error: operation not supported on global/shared address space\nSearch for "
            "`cudaErrorInvalidAddressSpace' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES."
            "html for more information.\nCUDA kernel errors might be asynchronously reported at some other API "
            "call, so the stacktrace below might be incorrect.\nFor debugging consider passing "
            "CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")
    assert classify_error(seen) == "illegal_address"
    assert classify_error("CUDA error: an illegal memory access was encountered\nCompile with `TORCH_USE_CUDA_DSA` "
                          "to enable device-side assertions.") == "illegal_address"
    assert classify_error("CUDA error: unspecified launch failure") == "launch_failure"
    assert classify_error("CUDA error: invalid configuration argument") == "cuda_error"
    assert classify_error("ValueError: bad shape") is None


def test_timing_summary() -> None:
    stats = summarize([4.0, 1.0, 3.0, 2.0, 100.0])
    assert stats["median_ms"] == 3.0 and stats["min_ms"] == 1.0 and stats["max_ms"] == 100.0
    assert stats["p25_ms"] == 2.0 and stats["p75_ms"] == 4.0 and stats["trials"] == 5
    assert summarize([2.5])["std_ms"] == 0.0


# ---------------------------------------------------------------------------------- compiler messages


def test_compiler_output_parsing() -> None:
    log = textwrap.dedent("""\
        Error building extension 'x': [1/3] /usr/local/cuda/bin/nvcc ... -c /c/x/cuda.cu -o cuda.cuda.o
        FAILED: cuda.cuda.o
        /c/x/cuda.cu(15): error: identifier "totl" is undefined
              for (int64_t idx = 0; idx < totl; ++idx) {
                                          ^
        /c/x/cuda.cu(9): warning #177-D: variable "unused" was declared but never referenced
        /c/x/main.cpp:7:12: error: expected ';' before '}' token
        ptxas error   : Entry function '_Z1kPf' uses too much shared data (0x10000 bytes, 0xc000 max)
        ImportError: /c/x/x.so: undefined symbol: _Z4fooN2at6TensorE
        1 error detected in the compilation of "/c/x/cuda.cu".
        """)
    messages = diagnostics.parse_compiler_output(log)
    assert [(m.severity, os.path.basename(m.file or ""), m.line) for m in messages] == [
        ("error", "cuda.cu", 15), ("error", "main.cpp", 7), ("error", "", None), ("error", "", None),
        ("warning", "cuda.cu", 9)]
    assert messages[0].message == 'identifier "totl" is undefined'
    assert messages[1].column == 12
    assert "too much shared data" in messages[2].message
    assert "undefined symbol _Z4fooN2at6TensorE" in messages[3].message


def test_compile_error_mapped_back_to_the_py_line(tmp_path: Path) -> None:
    """A line of the cuda.cu torch wrote maps to the line of the .py file that holds it."""
    solution = RUN / "level_1_problem_12_sample_1_kernel.py"
    text = solution.read_text()
    from cudalint.sources import load_document

    cuda = next(u.text for u in load_document(str(solution), text).units if u.language == "cuda")
    written = tmp_path / "cuda.cu"
    written.write_text("#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n" + cuda)
    line_in_cu = 3 + next(i for i, line in enumerate(cuda.splitlines(), 1) if "totl" in line)
    extension = {"name": "x", "ok": False, "sources": {"cuda.cu": {
        "path": str(written), "kind": "cuda", "parts": source_offsets(written.read_text(), [cuda])}},
        "error": f'{written}({line_in_cu}): error: identifier "totl" is undefined\n'}
    source_map = diagnostics.SourceMap(str(solution), text, [extension])
    [message] = diagnostics.compile_messages([extension], source_map)
    py_line = next(i for i, line in enumerate(text.splitlines(), 1) if "totl" in line)
    assert (message.source, message.py_line) == ("cuda_sources", py_line)
    assert message.describe() == f'line {py_line}: error: identifier "totl" is undefined'


# -------------------------------------------------------------------------------- sanitizer reports

MEMCHECK_LOG = """\
========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at relu_kernel(const float *, float *, long)+0x80 in /cache/ext/relu-1/cuda.cu:{line}
=========     by thread (127,0,0) in block (1023,0,0)
=========     Address 0x7f1e3e1ffffc is out of bounds
=========     and is 4 bytes after the nearest allocation at 0x7f1e3e100000 of size 1048512 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: [0x2d3bcf] in libcuda.so.1
=========         Host Frame: relu_cuda(at::Tensor) [0x1234] in relu.so
=========
========= Invalid __global__ write of size 4 bytes
=========     at relu_kernel(const float *, float *, long)+0x80 in /cache/ext/relu-1/cuda.cu:{line}
=========     by thread (128,0,0) in block (1023,0,0)
=========     Access to 0x7f1e3e200000 is out of bounds
=========
========= Invalid __global__ read of size 4 bytes
=========     at void at::native::vectorized_elementwise_kernel<4>(int, T2, T3)+0x900
=========     by thread (0,0,0) in block (0,0,0)
=========
========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaStreamSynchronize.
=========     Saved host backtrace up to driver entry point at error
=========
========= ERROR SUMMARY: 4 errors
"""


def test_memcheck_reports_folded_filtered_and_mapped(tmp_path: Path) -> None:
    solution = RUN / "level_1_problem_19_sample_1_kernel.py"
    text = solution.read_text()
    from cudalint.sources import load_document

    cuda = next(u.text for u in load_document(str(solution), text).units if u.language == "cuda")
    line_in_source = next(i for i, line in enumerate(cuda.splitlines(), 1) if "y[i] = " in line)
    reports, summary = diagnostics.parse_sanitizer_output(MEMCHECK_LOG.format(line=line_in_source + 3), "memcheck")
    assert summary["errors"] == 4
    kinds = [(r.kind, r.count) for r in reports]
    assert kinds == [("invalid_global_write", 2), ("invalid_global_read", 1), ("api_error", 1)]
    write = reports[0]
    assert (write.kernel_name, os.path.basename(write.file), write.thread, write.block) == (
        "relu_kernel", "cuda.cu", "127,0,0", "1023,0,0")
    assert any("4 bytes after the nearest allocation" in d for d in write.details)
    assert not any("Host Frame" in d for d in write.details)

    extension = {"name": "relu", "ok": True, "sources": {"cuda.cu": {
        "path": "/cache/ext/relu-1/cuda.cu", "kind": "cuda", "parts": [{"start_line": 4, "text": cuda}]}}}
    source_map = diagnostics.SourceMap(str(solution), text, [extension])
    kept, other = diagnostics.candidate_reports(reports, source_map, diagnostics.kernel_names(text, str(solution)))
    assert [r.kind for r in kept] == ["invalid_global_write", "api_error"] and other == 1  # PyTorch's own kernel
    py_line = next(i for i, line in enumerate(text.splitlines(), 1) if "y[i] = " in line)
    assert kept[0].py_line == py_line
    assert kept[0].describe().startswith(f"memcheck: Invalid __global__ write of size 4 bytes in relu_kernel at "
                                         f"line {py_line} by thread (127,0,0) in block (1023,0,0) (x2)")


@pytest.mark.parametrize("log", [
    # analysis report, two lines (CUDA 12)
    """========= Error: Race reported between Write access at sum_dim1_kernel(const float *, float *, int, int)+0x1a0 in /c/cuda.cu:25
=========     and Read access at sum_dim1_kernel(const float *, float *, int, int)+0x220 in /c/cuda.cu:27 [4096 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)""",
    # the locations on lines of their own
    """========= Error: Race reported between Write access at
=========     sum_dim1_kernel(const float *, float *, int, int)+0x1a0 in /c/cuda.cu:25
=========     and Read access at
=========     sum_dim1_kernel(const float *, float *, int, int)+0x220 in /c/cuda.cu:27
=========     [4096 hazards]
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)""",
    # CUDA 11 style: "at 0xOFFSET in FILE:LINE:KERNEL"
    """========= ERROR: Race reported between Write access at 0x000001a0 in /c/cuda.cu:25:sum_dim1_kernel(float const *, float*, int, int)
=========     and Read access at 0x00000220 in /c/cuda.cu:27:sum_dim1_kernel(float const *, float*, int, int) [4096 hazards]
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)""",
    # both accesses on one line
    """========= Error: Race reported between Write access at sum_dim1_kernel(int)+0x1a0 in /c/cuda.cu:25 and Read access at sum_dim1_kernel(int)+0x220 in /c/cuda.cu:27 [4096 hazards]""",
])
def test_racecheck_report_formats(log: str) -> None:
    [report], _ = diagnostics.parse_sanitizer_output(log, "racecheck")
    assert (report.kind, report.severity, report.kernel_name) == ("race_write_read", "error", "sum_dim1_kernel")
    assert (report.line, report.second_line, report.hazards) == (25, 27, 4096)


def test_racecheck_mapping_points_at_both_lines() -> None:
    solution = RUN / "level_1_problem_47_sample_1_kernel.py"
    text = solution.read_text()
    from cudalint.sources import load_document

    cuda = next(u.text for u in load_document(str(solution), text).units if u.language == "cuda")
    lines = cuda.splitlines()
    write = next(i for i, line in enumerate(lines, 1) if "partial[ty][tx] = acc;" in line)
    read = next(i for i, line in enumerate(lines, 1) if "partial[ty][tx] += partial[ty + s][tx]" in line)
    log = (f"========= Error: Race reported between Write access at sum_dim1_kernel(int)+0x1 in /b/cuda.cu:{write + 3}\n"
           f"=========     and Read access at sum_dim1_kernel(int)+0x2 in /b/cuda.cu:{read + 3} [64 hazards]\n")
    reports, _ = diagnostics.parse_sanitizer_output(log, "racecheck")
    extension = {"sources": {"cuda.cu": {"path": "/b/cuda.cu", "kind": "cuda",
                                         "parts": [{"start_line": 4, "text": cuda}]}}}
    kept, _ = diagnostics.candidate_reports(reports, diagnostics.SourceMap(str(solution), text, [extension]), set())
    py_lines = text.splitlines()
    assert "partial[ty][tx] = acc;" in py_lines[kept[0].py_line - 1]
    assert "partial[ty + s][tx]" in py_lines[kept[0].second_py_line - 1]


def test_initcheck_and_synccheck_headers() -> None:
    log = """========= Uninitialized __global__ memory read of size 4 bytes
=========     at k(float *)+0x30 in /c/cuda.cu:9
=========     by thread (0,0,0) in block (0,0,0)
========= Barrier error detected. Divergent thread(s) in block
=========     at k2(float *)+0x40 in /c/cuda.cu:12
========= ERROR SUMMARY: 2 errors"""
    init, _ = diagnostics.parse_sanitizer_output(log.split("========= Barrier")[0], "initcheck")
    sync, _ = diagnostics.parse_sanitizer_output("========= Barrier" + log.split("========= Barrier")[1], "synccheck")
    assert [(r.kind, r.line) for r in init] == [("uninitialized_global_read", 9)]
    assert [(r.kind, r.kernel_name, r.line) for r in sync] == [("barrier_error", "k2", 12)]


def test_sanitizer_command_and_tools() -> None:
    assert diagnostics.sanitizer_command("racecheck")[:3] == ["compute-sanitizer", "--tool", "racecheck"]
    with pytest.raises(ValueError):
        diagnostics.sanitizer_command("leakcheck")
    with pytest.raises(ValueError):
        VerifyOptions(sanitize=("memcheck", "nope")).validate()


def test_kernel_names_of_a_solution() -> None:
    text = (RUN / "level_1_problem_23_sample_0_kernel.py").read_text()
    assert diagnostics.kernel_names(text) == {"softmax_kernel"}


# ---------------------------------------------------------------------------------------------- GPUs


def test_gpu_selection() -> None:
    assert parse_visible_devices(None) is None
    assert parse_visible_devices("") == []
    assert parse_visible_devices("1, 0") == ["1", "0"]
    assert parse_visible_devices("2,-1,3") == ["2"]
    smi = "0, GPU-aaa, NVIDIA H200, 9.0\n1, GPU-bbb, NVIDIA H200, 9.0\n"
    assert [g.id for g in parse_nvidia_smi(smi)] == ["0", "GPU-aaa", "1", "GPU-bbb"]
    assert arch_list([Gpu("0", "", "9.0"), Gpu("1", "", "8.0"), Gpu("2", "", "9.0")], {}) == "8.0;9.0"
    assert arch_list([Gpu("0", "", "9.0")], {"TORCH_CUDA_ARCH_LIST": "9.0a"}) == "9.0a"
    assert detect_gpus(None, {"CUDA_VISIBLE_DEVICES": ""}) == []


# ---------------------------------------------------------------------------------------- candidates


def test_run_directory_candidates_find_their_references() -> None:
    candidates = collect_candidates(str(RUN), problems=str(PROBLEMS))
    assert len(candidates) == 20
    assert all(c.reference and os.path.isfile(c.reference) for c in candidates)
    first = candidates[0]
    assert (first.level, first.problem, first.sample) == (1, 7, 0)
    assert first.reference.endswith("level1/7_Matmul_with_small_K_dimension_.py")
    assert collect_candidates(str(RUN / "level_1_problem_19_sample_0_kernel.py"), reference=str(RELU_REF))[
        0].reference == str(RELU_REF)
    with pytest.raises(ValueError):
        collect_candidates(str(RUN), reference=str(RELU_REF))


def test_every_correct_fixture_passes_lint_and_the_gate_catches_four_broken_ones() -> None:
    from cudalint.engine import lint_paths
    from cudalint.findings import Severity

    rejected = {Path(r.path).name for r in lint_paths([str(RUN)]) if any(
        f.severity == Severity.ERROR for f in r.findings)}
    assert rejected == {"level_1_problem_12_sample_1_kernel.py", "level_1_problem_19_sample_1_kernel.py",
                        "level_1_problem_23_sample_1_kernel.py", "level_1_problem_47_sample_1_kernel.py"}


# ----------------------------------------------------------------------------------------- lint gate


def test_lint_gate_rejects_without_building(tmp_path: Path, monkeypatch) -> None:
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("STANDIN_LOG", str(log))
    broken = str(RUN / "level_1_problem_19_sample_1_kernel.py")
    [record] = verify_batch([Candidate(broken, str(RELU_REF), 1, 19, 1)], _options(tmp_path, lint=True))
    assert record["status"] == "rejected" and not record["passed"]
    assert record["lint"]["errors"] == 2 and record["lint"]["findings"][0]["code"] == "CL201"
    assert "never built" in record["message"]
    assert _log(log) == []  # no worker ever started
    reports = results.gpu_reports(record)
    assert [r.kind for r in reports] == ["lint", "lint"] and "CL201" in reports[0].text

    [record] = verify_batch([Candidate(broken, str(RELU_REF), 1, 19, 1)], _options(tmp_path, lint=False))
    assert record["status"] == "correct"  # the stand-in judge's verdict: it was built, run and judged
    assert [entry["mode"] for entry in _log(log)] == ["build", "run", "judge"]


def test_lint_gate_judges_with_the_candidates_reference(tmp_path: Path, monkeypatch) -> None:
    """One gate: verify rejects what `check --reference` rejects (CL430 needs the reference to be seen)."""
    monkeypatch.setenv("STANDIN_LOG", str(tmp_path / "log.jsonl"))
    shape_bug = HERE / "fixtures" / "cli" / "reference_run"
    solution = shape_bug / "run" / "level_1_problem_1_sample_0_kernel.py"
    [record] = verify_batch([Candidate(str(solution), str(shape_bug / "problems" / "level1" / "1_RowSum.py"), 1, 1, 0)],
                            _options(tmp_path, lint=True))
    assert record["status"] == "rejected" and "CL430" in record["message"]


def test_lint_gate_does_not_honour_the_candidates_suppressions(tmp_path: Path, monkeypatch) -> None:
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("STANDIN_LOG", str(log))
    hidden = tmp_path / "level_1_problem_19_sample_1_kernel.py"
    hidden.write_text("# cudalint: ignore-file\n" + (RUN / "level_1_problem_19_sample_1_kernel.py").read_text())
    [record] = verify_batch([Candidate(str(hidden), str(RELU_REF), 1, 19, 1)], _options(tmp_path, lint=True))
    assert record["status"] == "rejected" and record["lint"]["findings"][0]["code"] == "CL201"
    assert _log(log) == []


# ---------------------------------------------------------------------------------------- isolation


def test_isolation_statuses_and_the_batch_goes_on(tmp_path: Path, monkeypatch) -> None:
    pids = tmp_path / "pids"
    monkeypatch.setenv("STANDIN_PIDS", str(pids))
    names = ["ok", "crash", "hang", "illegal", "oom", "incorrect", "compile"]
    candidates = [Candidate(_solution(tmp_path, f"{n}.py", n, "__global__ void k(float* y) {\n  y[0] = BROKEN;\n}\n"
                                      if n == "compile" else ""), str(RELU_REF)) for n in names]
    started = time.monotonic()
    records = verify_batch(candidates, _options(tmp_path, run_timeout=10.0))
    elapsed = time.monotonic() - started
    statuses = {Path(r["solution"]).stem: r["status"] for r in records}
    assert statuses == {"ok": "correct", "crash": "crash", "hang": "timeout", "illegal": "illegal_address",
                        "oom": "oom", "incorrect": "incorrect", "compile": "compile_error"}
    by_name = {Path(r["solution"]).stem: r for r in records}
    assert "SIGSEGV" in by_name["crash"]["message"] and "correctness trial 1/5: candidate" in by_name["crash"]["message"]
    assert by_name["crash"]["worker"]["run"]["signal"] == "SIGSEGV"
    assert "no result after 10 s" in by_name["hang"]["message"] and "correctness trial 1/5" in by_name["hang"]["message"]
    assert by_name["ok"]["timing"]["speedup"] == pytest.approx(2.0, rel=0.25) and by_name["ok"]["passed"]
    assert by_name["ok"]["timing"]["status"] == "trusted"
    compile_record = by_name["compile"]
    assert compile_record["compile_errors"][0]["py_line"] == 7  # `y[0] = BROKEN;` in the generated file
    assert compile_record["message"] == 'build failed: line 7: error: identifier "BROKEN" is undefined'
    assert elapsed < 40
    # the hang's whole process group was killed, its child included
    for pid in pids.read_text().split():
        assert _gone_within(int(pid), 5.0), f"process {pid} of the hung candidate still runs"


def _gone_within(pid: int, seconds: float) -> bool:
    """The process has exited: no such pid, or a zombie that nobody has reaped yet (a container's init
    may reap late or never)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            os.kill(pid, 0)
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except (ProcessLookupError, FileNotFoundError):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def test_run_worker_reports_missing_interpreter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temp))
    outcome = run_worker([str(tmp_path / "no-such-python")], {"mode": "run"}, 5.0)
    assert outcome.status == "worker_error" and "cannot start" in outcome.message
    assert list(temp.iterdir()) == []  # its own working directory is removed on this path too


def test_one_worker_per_gpu_and_builds_see_no_gpu(tmp_path: Path, monkeypatch) -> None:
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("STANDIN_LOG", str(log))
    candidates = [Candidate(_solution(tmp_path, f"s{i}.py", "ok"), str(RELU_REF)) for i in range(6)]
    records = verify_batch(candidates, _options(tmp_path, gpus=["0", "1"], build_jobs=3))
    assert all(r["status"] == "correct" for r in records)
    entries = _log(log)
    builds = [e for e in entries if e["mode"] == "build"]
    runs = [e for e in entries if e["mode"] == "run"]
    assert len(builds) == 6 and len(runs) == 6
    assert all(e["visible"] == "" for e in builds)  # builds never touch a GPU
    assert max(e["end"] for e in builds) <= min(e["start"] for e in runs)  # no build runs while timing
    assert {e["visible"] for e in runs} == {"0", "1"}
    for gpu in ("0", "1"):  # from its grant to its end, a worker is alone on its GPU (`turns`, with overlap)
        spans = sorted((e["granted"] or e["start"], e["end"]) for e in entries
                       if e["mode"] in ("run", "judge") and e["visible"] == gpu)
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
    assert {r["gpu"]["id"] for r in records} == {"0", "1"}


# ------------------------------------------------------------------------------------------ GPU turns


def _overlap_options(tmp_path: Path, **changes) -> VerifyOptions:
    return _options(tmp_path, pass_env=("STANDIN_LOG", "STANDIN_PIDS", "STANDIN_STARTUP"), **changes)


def _held(records: list[dict]) -> list[tuple[float, float, str, str]]:
    """Every grant of the batch's GPU, as this process recorded it: (granted, released, solution, worker)."""
    return sorted((h["granted"], h["released"], Path(r["solution"]).stem, h["worker"])
                  for r in records for h in (r.get("gpu") or {}).get("held") or [])


def _one_at_a_time(spans) -> bool:
    spans = sorted(spans)
    return all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


def test_gpu_turns_grant_the_earliest_waiting_job_and_skip_a_withdrawn_one() -> None:
    from cudalint.verify.turns import GpuTurns

    turns, order, never = GpuTurns(), [], threading.Event()
    assert turns.acquire((5, 0), never)  # the GPU is free: the first to ask has it
    withdrawn = threading.Event()

    def wait(key, event=never) -> None:
        if turns.acquire(key, event):
            order.append(key)
            turns.release(key, time.time())

    threads = [threading.Thread(target=wait, args=(key,)) for key in ((3, 1), (1, 0), (3, 0))]
    threads.append(threading.Thread(target=wait, args=((0, 0), withdrawn)))  # the earliest, but it is withdrawn
    for thread in threads:
        thread.start()
    time.sleep(0.3)  # all four wait now
    withdrawn.set()
    turns.wake()
    turns.release((5, 0), time.time())
    for thread in threads:
        thread.join(5)
    assert order == [(1, 0), (3, 0), (3, 1)]
    assert [entry[:2] for entry in turns.log] == [(5, 0), (1, 0), (3, 0), (3, 1)]


def test_overlap_starts_the_next_workers_while_one_holds_the_gpu(tmp_path: Path, monkeypatch) -> None:
    """(a) at most one worker holds the GPU at any instant, by this process's grants and by the workers' own
    clocks; (b) the next candidates' start-up (3 s each for the run and the judge of the stand-in) overlaps
    the GPU work of the current one: four candidates take far less than their start-ups one after another."""
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("STANDIN_LOG", str(log))
    startup, count = 3.0, 4
    monkeypatch.setenv("STANDIN_STARTUP", str(startup))
    candidates = [Candidate(_solution(tmp_path, f"s{i}.py", "ok"), str(RELU_REF)) for i in range(count)]
    records = verify_batch(candidates, _overlap_options(tmp_path, overlap=2))
    assert [r["status"] for r in records] == ["correct"] * count
    held = _held(records)
    assert sorted((name, worker) for _, _, name, worker in held) == \
        [(f"s{i}", worker) for i in range(count) for worker in ("judge", "run")]
    for i in range(count):  # each candidate's run, then its judge (a later run may come between them)
        assert [w for _, _, name, w in held if name == f"s{i}"] == ["run", "judge"]
    assert _one_at_a_time([(a, b) for a, b, _, _ in held])
    workers = [e for e in _log(log) if e["mode"] in ("run", "judge")]
    assert len(workers) == 2 * count and all(e["granted"] for e in workers)
    assert _one_at_a_time([(e["granted"], e["end"]) for e in workers])
    for entry in workers:  # the worker's GPU work lies within the grant this process recorded for it
        [(granted, released)] = [(a, b) for a, b, name, worker in held
                                 if name == Path(entry["solution"]).stem and worker == entry["mode"]]
        assert granted <= entry["granted"] and entry["end"] <= released
    # some worker started while another held the GPU, and the whole run phase took much less than the
    # start-ups alone would one after another (2 * count * startup = 24 s; about 10 s here)
    assert any(a < e["start"] < b for a, b, _, _ in held for e in workers)
    run_phase = max(e["end"] for e in workers) - min(e["start"] for e in workers)
    assert run_phase < 0.7 * 2 * count * startup, run_phase
    # the time waited for the GPU is not the candidate's: its run seconds leave it out
    assert all(r["seconds"]["run"] < startup + 3.0 for r in records)


def _verdicts(records: list[dict]) -> dict:
    return {Path(r["solution"]).stem: (r["status"], r["passed"], r["message"], r["correctness"],
                                       (r["timing"] or {}).get("status"), r["build"]["status"] if r["build"] else None,
                                       [dict(e, file=os.path.basename(e["file"] or "")) for e in r["compile_errors"]])
            for r in records}


def test_overlapped_verdicts_are_the_serial_ones(tmp_path: Path) -> None:
    """(c) the same batch, one run at a time and with three in flight: the same records, speedups alike."""
    names = ["ok", "incorrect", "crash", "illegal", "fast", "forger", "pybind", "initbuild", "compile"]
    candidates = [Candidate(_solution(tmp_path, f"{n}.py", n, "__global__ void k(float* y) {\n  y[0] = BROKEN;\n}\n"
                                      if n == "compile" else ""), str(RELU_REF)) for n in names]
    serial = verify_batch(candidates, _options(tmp_path, overlap=1))
    overlapped = verify_batch(candidates, _options(tmp_path, overlap=3))
    assert _verdicts(overlapped) == _verdicts(serial)
    assert {Path(r["solution"]).stem: r["status"] for r in serial}["forger"] == "incorrect"
    for before, after in zip(serial, overlapped):
        if before["timing"] and before["timing"]["speedup"]:
            assert after["timing"]["speedup"] == pytest.approx(before["timing"]["speedup"], rel=0.3)
    assert not any((r.get("gpu") or {}).get("held") for r in serial)  # one at a time: no turns to take
    assert _one_at_a_time([(a, b) for a, b, _, _ in _held(overlapped)])


def test_a_hostile_candidate_holds_the_gpu_no_longer_than_its_time_limit(tmp_path: Path, monkeypatch) -> None:
    """(d) a run that hangs holding the GPU, one that hangs before asking for it and one that crashes: each
    ends at its own time limit or earlier; the candidate that waited behind the hang (it asks a second
    later) for longer than its own limit is still verified (waiting is not counted), and the GPU was never
    shared."""
    pids, log = tmp_path / "pids", tmp_path / "log.jsonl"
    monkeypatch.setenv("STANDIN_PIDS", str(pids))
    monkeypatch.setenv("STANDIN_LOG", str(log))
    limit = 5.0
    names = ["a_hang", "b_late", "c_hangstart", "d_crash", "e_ok"]
    candidates = [Candidate(_solution(tmp_path, f"{n}.py", n.split("_")[1]), str(RELU_REF)) for n in names]
    started = time.monotonic()
    records = verify_batch(candidates, _overlap_options(tmp_path, overlap=2, run_timeout=limit))
    elapsed = time.monotonic() - started
    by_name = {Path(r["solution"]).stem: r for r in records}
    assert {n: r["status"] for n, r in by_name.items()} == {
        "a_hang": "timeout", "b_late": "correct", "c_hangstart": "timeout", "d_crash": "crash", "e_ok": "correct"}
    assert "during start" in by_name["c_hangstart"]["message"]
    held = _held(records)
    assert _one_at_a_time([(a, b) for a, b, _, _ in held])
    [(hang_granted, hang_released)] = [(a, b) for a, b, name, _ in held if name == "a_hang"]
    assert hang_released - hang_granted < limit + 5.0 + 1.5  # its limit, then the kill's grace at most
    assert not [h for h in held if h[2] == "c_hangstart"]  # it never asked, never held the GPU
    [ok_granted] = [a for a, _, name, worker in held if name == "b_late" and worker == "run"]
    assert hang_released <= ok_granted  # it waited behind the hang: longer than its own limit, not counted
    [ok_run] = [e for e in _log(log) if e["mode"] == "run" and e["solution"] == "b_late.py"]
    assert ok_run["end"] - ok_run["start"] > limit and by_name["b_late"]["seconds"]["run"] < limit
    assert elapsed < 4 * limit + 20
    for pid in pids.read_text().split():
        assert _gone_within(int(pid), 5.0), f"process {pid} of the hung candidate still runs"


def test_build_only_fills_the_cache_and_runs_nothing(tmp_path: Path, monkeypatch) -> None:
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("STANDIN_LOG", str(log))
    candidates = [Candidate(_solution(tmp_path, "a.py", "ok"), str(RELU_REF)),
                  Candidate(_solution(tmp_path, "b.py", "compile", "__global__ void k() {\n  BROKEN;\n}\n"),
                            str(RELU_REF))]
    records = verify_batch(candidates, _options(tmp_path, build_only=True, sanitize=("memcheck",)))
    assert [r["status"] for r in records] == ["built", "compile_error"]
    assert [e["mode"] for e in _log(log)] == ["build", "build"]
    assert {(e["light_build"], e["precompiled_header"]) for e in _log(log)} == {(True, True)}  # the defaults


def test_exact_build_and_no_precompiled_header_reach_the_build_worker(tmp_path: Path, monkeypatch) -> None:
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("STANDIN_LOG", str(log))
    candidate = Candidate(_solution(tmp_path, "a.py", "ok"), str(RELU_REF))
    verify_batch([candidate], _options(tmp_path, build_only=True, light_build=False, precompiled_header=False))
    assert [(e["light_build"], e["precompiled_header"]) for e in _log(log)] == [(False, False)]


def _fake_sanitizer(tmp_path: Path, log_text: str, run: bool = True) -> Path:
    """A compute-sanitizer stand-in: writes `log_text` as its log, records its arguments in LOG.argv, then
    runs the worker (or, with `run` false, dies at start as a sanitizer that cannot attach does; with
    "killed", runs it and is then killed, as by a candidate that kills its sanitizer)."""
    canned = tmp_path / "canned.log"
    canned.write_text(log_text)
    fake = tmp_path / "fake-sanitizer"
    fake.write_text(f"""#!{sys.executable}
import os, shutil, sys
args = sys.argv[1:]
with open({str(canned)!r}) as canned:  # the report on standard output, as compute-sanitizer writes it
    sys.stdout.write(canned.read())
sys.stdout.flush()
try:  # the real worker's sandbox leaves the test's folder read-only
    with open({str(tmp_path / "sanitizer.argv")!r}, "w") as handle:
        handle.write(" ".join(args[:args.index(sys.executable)]))
except OSError:
    pass
if not {run!r}:
    sys.exit(1)
rest = args[args.index(sys.executable):]
if {run!r} == "killed":
    import signal, subprocess
    subprocess.call(rest, close_fds=False)
    os.kill(os.getpid(), signal.SIGKILL)
os.execv(rest[0], rest)
""")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return fake


UNGUARDED = ("__global__ void relu_kernel(const float* x, float* y) {\n"
             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  y[i] = x[i];\n}\n")


def test_sanitizer_phase_parses_and_maps_the_log(tmp_path: Path, monkeypatch) -> None:
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("STANDIN_LOG", str(log))
    # the source string starts with a newline: `y[i] = x[i];` is its line 4, line 7 of cuda.cu
    fake = _fake_sanitizer(tmp_path, MEMCHECK_LOG.format(line=7))
    path = _solution(tmp_path, "unguarded.py", "ok", UNGUARDED)
    py_line = next(i for i, line in enumerate(Path(path).read_text().splitlines(), 1) if "y[i] = x[i];" in line)
    [record] = verify_batch([Candidate(path, str(RELU_REF))],
                            _options(tmp_path, sanitize=("memcheck",), sanitizer=str(fake)))
    memcheck = record["sanitizer"]["memcheck"]
    assert memcheck["ran"] and memcheck["errors"] == 3 and memcheck["other_reports"] == 1
    assert memcheck["reports"][0]["py_line"] == py_line
    assert record["status"] == "sanitizer_error" and not record["passed"]
    assert [e["no_caching"] for e in _log(log) if e["mode"] == "sanitize"] == ["1"]
    kinds = [r.kind for r in results.gpu_reports(record)]
    assert kinds == ["memcheck", "memcheck"]
    # by default only the solution's own kernels are instrumented
    assert "--kernel-name kns=relu_kernel" in (tmp_path / "sanitizer.argv").read_text()


@pytest.mark.parametrize("run, log_text, why", [
    (False, "", "crashed at start"),  # the tool died before the forward: nothing was checked
    (True, "========= COMPUTE-SANITIZER\n", "no summary"),  # the forward ran, the tool never finished its report
    # the worker said "ran" and a summary is there, but the tool itself did not end cleanly: the worker's
    # word is the candidate's, and so is a log in its directory
    ("killed", "========= ERROR SUMMARY: 0 errors\n", "sanitizer killed"),
])
def test_an_unfinished_sanitizer_run_is_unchecked_never_correct(tmp_path: Path, run, log_text, why) -> None:
    fake = _fake_sanitizer(tmp_path, log_text, run=run)
    path = _solution(tmp_path, "ok.py", "ok", UNGUARDED)
    [record] = verify_batch([Candidate(path, str(RELU_REF))],
                            _options(tmp_path, sanitize=("racecheck",), sanitizer=str(fake)))
    assert record["status"] == "unchecked" and not record["passed"], why
    assert "did not finish" in record["message"] and not record["sanitizer"]["racecheck"]["complete"]
    assert "racecheck: unfinished" in results.render_table([record])


def test_a_missing_sanitizer_leaves_the_kernel_unchecked(tmp_path: Path) -> None:
    path = _solution(tmp_path, "ok.py", "ok", UNGUARDED)
    [record] = verify_batch([Candidate(path, str(RELU_REF))],
                            _options(tmp_path, sanitize=("memcheck",), sanitizer=str(tmp_path / "no-such-tool")))
    assert (record["status"], record["passed"]) == ("unchecked", False)
    assert "no-such-tool not found" in record["message"]


RACE_WARNING_LOG = """========= COMPUTE-SANITIZER
========= Warning: Race reported between Write access at relu_kernel(const float *, float *)+0x10 in /b/cuda.cu:6
=========     and Read access at relu_kernel(const float *, float *)+0x20 in /b/cuda.cu:7 [2 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)
"""


def test_racecheck_warnings_reach_the_message_and_the_summary(tmp_path: Path) -> None:
    fake = _fake_sanitizer(tmp_path, RACE_WARNING_LOG)
    path = _solution(tmp_path, "ok.py", "ok", UNGUARDED)
    [record] = verify_batch([Candidate(path, str(RELU_REF))],
                            _options(tmp_path, sanitize=("racecheck",), sanitizer=str(fake)))
    assert record["status"] == "correct" and record["sanitizer_warnings"] == 1
    assert record["message"] == "correct; racecheck reported 1 warning(s)"
    assert results.summary([record])["with_sanitizer_warnings"] == 1
    assert "sanitizer warnings on 1 (1 in all)" in results.render_table([record])
    assert "racecheck: 0 +1w" in results.render_table([record])
    assert any("racecheck warning" in line for line in results.messages(record))
    assert results.gpu_reports(record) == []  # warnings do not fail the candidate in a repair round


TWO_KERNELS = UNGUARDED + ("__global__ void scale_kernel(float* y, int n) {\n"
                           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] *= 2.0f;\n}\n")


@pytest.mark.parametrize("selection, expected", [
    ("all", ""), ("own", "--kernel-name kns=relu_kernel --kernel-name kns=scale_kernel"),
    ("flagged", "--kernel-name kns=relu_kernel --kernel-name kns=scale_kernel"),  # nothing flagged: its own
    ("scale_kernel", "--kernel-name kns=scale_kernel"),
])
def test_sanitize_kernels_limits_instrumentation(tmp_path: Path, selection, expected) -> None:
    fake = _fake_sanitizer(tmp_path, "========= ERROR SUMMARY: 0 errors\n")
    path = _solution(tmp_path, "two.py", "ok", TWO_KERNELS)
    [record] = verify_batch([Candidate(path, str(RELU_REF))],
                            _options(tmp_path, sanitize=("memcheck",), sanitizer=str(fake), sanitize_kernels=selection))
    argv = (tmp_path / "sanitizer.argv").read_text()
    assert (" ".join(a for a in argv.split() if a == "--kernel-name" or a.startswith("kns="))) == expected
    assert record["sanitizer"]["memcheck"]["kernels"] == (expected.split(" ")[1::2] and
                                                           [k[4:] for k in expected.split(" ")[1::2]] or "all")


def test_kernels_at_lines_finds_the_kernel_holding_a_flagged_line(tmp_path: Path) -> None:
    path = _solution(tmp_path, "two.py", "ok", TWO_KERNELS)
    text = Path(path).read_text()
    lines = text.splitlines()
    store = next(i for i, line in enumerate(lines, 1) if "y[i] = x[i];" in line)
    scale = next(i for i, line in enumerate(lines, 1) if "y[i] *= 2.0f" in line)
    assert diagnostics.kernels_at_lines(text, path, {store}) == {"relu_kernel"}
    assert diagnostics.kernels_at_lines(text, path, {store, scale}) == {"relu_kernel", "scale_kernel"}
    assert diagnostics.kernels_at_lines(text, path, {1}) == set()


def test_kernel_selection_parsing() -> None:
    assert diagnostics.parse_kernel_selection("flagged") == "flagged"
    assert diagnostics.parse_kernel_selection("a_kernel, b") == ["a_kernel", "b"]
    for bad in ("", "a;rm -rf", "1x"):
        with pytest.raises(ValueError):
            diagnostics.parse_kernel_selection(bad)


def test_two_extensions_map_a_base_name_report_by_its_kernel(tmp_path: Path) -> None:
    """compute-sanitizer names `cuda.cu` only; both extensions have one: the kernel decides which."""
    first = "\n__global__ void add_kernel(float* y) { y[threadIdx.x] += 1.0f; }\n"
    second = "\n__global__ void race_kernel(float* y) {\n  __shared__ float s[32];\n  s[0] = y[0];\n  y[1] = s[0];\n}\n"
    text = ("import torch\nfrom torch.utils.cpp_extension import load_inline\n"
            f'a = load_inline(name="a", cpp_sources="", cuda_sources="""{first}""", functions=[])\n'
            f'b = load_inline(name="b", cpp_sources="", cuda_sources="""{second}""", functions=[])\n')
    extensions = []
    for name, source in (("a", first), ("b", second)):
        written = tmp_path / name / "cuda.cu"
        written.parent.mkdir()
        written.write_text("#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n" + source)
        extensions.append({"name": name, "sources": {"cuda.cu": {"path": str(written), "kind": "cuda", "parts":
                                                                 source_offsets(written.read_text(), [source])}}})
    source_map = diagnostics.SourceMap("s.py", text, extensions)
    py_lines = text.splitlines()
    # line 7 of b's cuda.cu is `s[0] = y[0];` (a's ends at line 6); line 5 of each is its kernel's signature
    located = source_map.locate("cuda.cu", 7, kernel="race_kernel")
    assert "s[0] = y[0];" in py_lines[located["py_line"] - 1]
    assert "race_kernel" in py_lines[source_map.locate("cuda.cu", 5, kernel="race_kernel")["py_line"] - 1]
    assert "add_kernel" in py_lines[source_map.locate("cuda.cu", 5, kernel="add_kernel")["py_line"] - 1]
    assert source_map.locate("cuda.cu", 5) == {}  # two files hold line 5 and no kernel says which


# ------------------------------------------------------------------------------------------- isolation


def test_workers_see_no_secrets(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    probe = tmp_path / "probe.py"
    probe.write_text("import json, os, sys\nrequest = json.load(open(sys.argv[1]))\n"
                     "os.write(request['channel'], json.dumps({'done': True, 'status': 'ok', "
                     "'message': json.dumps(dict(os.environ))}).encode())\n")
    [record] = verify_batch([Candidate(_solution(tmp_path, "a.py", "ok"), str(RELU_REF))],
                            _options(tmp_path, build_only=True, worker=[sys.executable, str(probe)]))
    seen = json.loads(record["worker"]["build"]["message"]) if "message" in record["worker"]["build"] else None
    assert record["build"]["message"] and "sk-must-not-leak" not in record["build"]["message"]
    assert json.loads(record["build"]["message"])["HOME"].endswith("home") and seen is not None


def test_network_namespace_blocks_connections(tmp_path: Path) -> None:
    """Where unprivileged user and network namespaces work, a worker cannot reach even this machine."""
    import socket

    from cudalint.sandbox import isolation

    if not isolation().namespaces:
        pytest.skip(f"no network isolation on this machine: {isolation().network}")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    probe = tmp_path / "probe.py"
    probe.write_text("import json, os, socket, sys\nrequest = json.load(open(sys.argv[1]))\n"
                     f"try:\n    socket.create_connection(('127.0.0.1', {port}), timeout=3); reached = 'reached'\n"
                     "except OSError as error:\n    reached = type(error).__name__\n"
                     "os.write(request['channel'], json.dumps({'done': True, 'status': 'ok', 'message': reached}).encode())\n")
    try:
        outside = run_worker([sys.executable, str(probe)], {"mode": "probe"}, 20.0, workdir=str(tmp_path),
                             isolated=isolation(network=True))
        inside = run_worker([sys.executable, str(probe)], {"mode": "probe"}, 20.0, workdir=str(tmp_path),
                            isolated=isolation())
    finally:
        server.close()
    assert outside.message == "reached" and inside.message != "reached", (outside.message, inside.message)


def test_solution_sees_the_reference_globals(tmp_path: Path) -> None:
    """KernelBench runs the solution in the reference's namespace: its sizes and Model are visible."""
    from cudalint.verify.builds import load_module

    reference = tmp_path / "ref.py"
    reference.write_text("batch_size = 7\nclass Model:\n    pass\n")
    solution = tmp_path / "sol.py"
    solution.write_text("SIZE = batch_size * 2\nclass ModelNew(Model):\n    pass\nbatch_size = 1\n")
    ref = load_module(str(reference), "cudalint_test_reference")
    sol = load_module(str(solution), "cudalint_test_solution", shared_globals=ref)
    assert sol.SIZE == 14 and issubclass(sol.ModelNew, ref.Model) and ref.batch_size == 7
    with pytest.raises(NameError):
        load_module(str(solution), "cudalint_test_alone")


def test_no_gpu_and_no_reference(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    good = str(RUN / "level_1_problem_19_sample_0_kernel.py")
    records = verify_batch([Candidate(good, str(RELU_REF)), Candidate(good, None)],
                           VerifyOptions(lint=False, cache_dir=str(tmp_path)))
    assert [r["status"] for r in records] == ["no_gpu", "no_reference"]


# ------------------------------------------------------------------------------------------- results


def _record(name: str, status: str, speedup: float | None = None, level=1, problem=1) -> dict:
    from cudalint.verify.runner import new_record

    record = new_record(Candidate(f"/r/{name}.py", "/p/ref.py", level, problem, 0))
    record["status"], record["passed"] = status, status == "correct"
    if speedup is not None:
        record["timing"] = {"speedup": speedup, "candidate": {"median_ms": 1.0}, "reference": {"median_ms": speedup}}
    return record


def test_fast_p_and_table(tmp_path: Path) -> None:
    records = [_record("a", "correct", 2.0, problem=1), _record("b", "correct", 0.5, problem=2),
               _record("c", "incorrect", problem=3), _record("d", "timeout", problem=3)]
    info = results.summary(records, p=1.0)
    assert (info["fast_0"], info["fast_p"], info["problems"], info["fast_p_by_problem"]) == (0.5, 0.25, 3, 1 / 3)
    assert info["geomean_speedup"] == pytest.approx(1.0)
    assert results.summary(records, p=0.4)["fast_p"] == 0.5
    text = results.render_table(records)
    assert text.splitlines()[0].split() == ["kernel", "status", "build", "max", "err", "ms", "ref", "ms", "speedup",
                                            "vs", "compile", "sanitizer"]
    assert "4 candidates: 2 correct, 1 incorrect, 1 timeout; fast_0 0.50, fast_1 0.25" in text
    assert results.render_table(records, markdown=True).startswith("| kernel | status |")
    results.write_json(records, str(tmp_path / "batch.json"))
    payload = json.loads((tmp_path / "batch.json").read_text())
    assert payload["summary"]["fast_p"] == 0.25 and len(payload["results"]) == 4
    written = results.write_per_kernel(records, str(tmp_path / "per"))
    assert sorted(os.path.basename(p) for p in written) == ["a.json", "b.json", "c.json", "d.json"]


def test_gpu_reports_feed_the_repair_loop() -> None:
    assert results.gpu_reports(_record("a", "correct", 2.0)) == []
    hang = _record("h", "timeout")
    hang["message"] = "no result after 20 s (killed) during correctness trial 1/5: candidate"
    [report] = results.gpu_reports(hang)
    assert (report.kind, report.text) == ("timeout", hang["message"])
    from cudalint.repairing.prompts import GpuReport

    assert isinstance(report, GpuReport)


def test_make_gpu_check_matches_the_repair_loops_signature(tmp_path: Path) -> None:
    check = gpu_check.make_gpu_check(str(RELU_REF), _options(tmp_path))
    text = (RUN / "level_1_problem_19_sample_0_kernel.py").read_text()
    assert check("level_1_problem_19_sample_0_kernel.py", "# standin: ok\n" + text) == []
    [report] = check("x.py", "# standin: incorrect\n" + text)
    assert report.kind == "mismatch" and "trial 1 (seed 42)" in report.text


# ------------------------------------------------------------------------------------------------ CLI


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)

    @app.callback()
    def _root() -> None:
        """cudalint (test app)"""

    return app


def test_cli_usage_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(_app(), ["verify", str(tmp_path / "missing.py"), "--ref", str(RELU_REF)])
    assert done.exit_code == 2 and "no such file or directory" in done.output
    done = runner.invoke(_app(), ["verify", str(RUN / "level_1_problem_19_sample_0_kernel.py")])
    assert done.exit_code == 2 and "give the reference" in done.output
    done = runner.invoke(_app(), ["verify", str(RUN), "--problems", str(PROBLEMS), "--sanitize", "leakcheck"])
    assert done.exit_code == 2 and "unknown sanitizer tool" in done.output
    assert parse_tolerances(["float32=1e-3", "float16=2e-2:1e-2"])["float16"] == (2e-2, 1e-2)
    assert parse_tolerances(["float32=1e-3"])["float32"] == (1e-3, 1e-3)
    with pytest.raises(ValueError):
        parse_tolerances(["float32"])
    done = runner.invoke(_app(), ["verify", str(RUN), "--problems", str(PROBLEMS), "--harness", "pytorch"])
    assert done.exit_code == 2 and "unknown parity" in done.output
    done = runner.invoke(_app(), ["verify", str(RUN), "--problems", str(PROBLEMS), "--sanitize-kernels", "a;b"])
    assert done.exit_code == 2 and "--sanitize-kernels" in done.output


def test_cli_without_gpu_is_one_line_and_exit_2(monkeypatch) -> None:
    """No GPU on this machine: one line before any work (not one no_gpu line per candidate and exit 1)."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    done = CliRunner().invoke(_app(), ["verify", str(RUN), "--problems", str(PROBLEMS), "--quiet"])
    assert done.exit_code == 2 and done.stdout == ""
    assert done.stderr.startswith("cudalint: error: no CUDA GPU is visible") and done.stderr.count("\n") == 1


def _gpu_lost_after_the_check(monkeypatch) -> None:
    """The batch's own no_gpu verdicts (the API, a Ray cluster without GPUs): the CLI's check up front passes."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.setattr(VerifyOptions, "missing_gpu", lambda self: None)


def test_cli_batch_without_gpu(tmp_path: Path, monkeypatch) -> None:
    """No GPU: the lint gate still rejects the four broken files; the others are reported as no_gpu."""
    _gpu_lost_after_the_check(monkeypatch)
    runner = CliRunner()
    done = runner.invoke(_app(), ["verify", str(RUN), "--problems", str(PROBLEMS), "--quiet", "--cache",
                                  str(tmp_path / "cache"), "--json", str(tmp_path / "b.json"), "--output-dir",
                                  str(tmp_path / "per")])
    assert done.exit_code == 1, done.output
    assert "20 candidates: 16 no_gpu, 4 rejected" in done.output
    payload = json.loads((tmp_path / "b.json").read_text())
    assert payload["summary"]["by_status"] == {"rejected": 4, "no_gpu": 16}
    assert len(os.listdir(tmp_path / "per")) == 20
    json_run = runner.invoke(_app(), ["verify", str(RUN / "level_1_problem_47_sample_1_kernel.py"), "--ref",
                                      str(PROBLEMS / "level1" / "47_Sum_reduction_over_a_dimension.py"), "--format",
                                      "json", "--quiet"])
    assert json_run.exit_code == 1
    record = json.loads(json_run.stdout)["results"][0]
    assert record["status"] == "rejected" and record["lint"]["findings"][0]["code"] == "CL101"


def test_cli_results_file_resumes_a_sweep(tmp_path: Path, monkeypatch) -> None:
    """--results: every finished candidate is appended; a restart takes the rejected four from the file and
    verifies the no_gpu ones again (a verdict about the machine, not the candidate), with the same table."""
    _gpu_lost_after_the_check(monkeypatch)
    results_file = tmp_path / "sweep.jsonl"
    arguments = ["verify", str(RUN), "--problems", str(PROBLEMS), "--cache", str(tmp_path / "cache"), "--results",
                 str(results_file)]
    first = CliRunner().invoke(_app(), arguments)
    assert first.exit_code == 1 and "20 candidates: 16 no_gpu, 4 rejected" in first.stdout
    lines = [json.loads(line) for line in results_file.read_text().splitlines()]
    assert len(lines) == 20 and len({r["key"] for r in lines}) == 20
    second = CliRunner().invoke(_app(), arguments)
    assert second.exit_code == 1 and second.stdout == first.stdout
    assert "4 candidate(s) already in the results file: not verified again" in second.stderr
    assert len(results_file.read_text().splitlines()) == 36  # the 16 no_gpu ones again


@pytest.mark.slow  # with the test-full extra (ray)
@pytest.mark.xdist_group("ray")
def test_cli_refuses_local_gpus_on_a_ray_cluster(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    done = CliRunner().invoke(_app(), ["verify", str(RUN), "--problems", str(PROBLEMS), "--ray", "--gpus", "0"])
    assert done.exit_code == 2 and "--gpus chooses this machine's GPUs" in done.output


def test_import_needs_no_torch() -> None:
    """`import cudalint.verify` (and its CLI) must not import torch: only the workers do."""
    import subprocess

    code = ("import sys, cudalint, cudalint.verify, cudalint.verify.cli, cudalint.verify.worker; "
            "print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


# ------------------------------------------------------------------- the real worker, on the CPU (torch)


def test_compare_catches_poison_nan_mismatch_and_shapes() -> None:
    torch = pytest.importorskip("torch")
    from cudalint.verify.comparison import compare
    from cudalint.verify.poisoning import POISON_BYTE

    tolerances = {"float32": (1e-4, 1e-4)}
    reference = torch.randn(4, 8)
    assert compare([reference.clone()], [reference], tolerances, True, torch)["ok"]
    unwritten = reference.clone()
    unwritten.view(torch.uint8)[:, 16:].fill_(POISON_BYTE)  # the last 4 floats of each row never written
    report = compare([unwritten], [reference], tolerances, True, torch)
    assert [f["kind"] for f in report["failures"]] == ["unwritten_output"]
    assert report["failures"][0]["unwritten"] == 16 and report["failures"][0]["first_index"] == [0, 4]
    computed_nan = reference.clone()
    computed_nan[1, 1] = float("nan")
    assert [f["kind"] for f in compare([computed_nan], [reference], tolerances, True, torch)["failures"]] == [
        "nonfinite"]
    wrong = reference.clone()
    wrong[2, 3] += 1.0
    report = compare([wrong], [reference], tolerances, True, torch)
    assert report["failures"][0]["kind"] == "mismatch" and report["failures"][0]["worst_index"] == [2, 3]
    assert report["max_abs_error"] == pytest.approx(1.0, rel=1e-6)
    assert compare([reference.t()], [reference], tolerances, True, torch)["failures"][0]["kind"] == "shape_mismatch"
    assert compare([reference.double()], [reference], tolerances, True, torch)["failures"][0]["kind"] == (
        "dtype_mismatch")
    ints = torch.arange(6)
    assert compare([ints + 1], [ints], tolerances, True, torch)["failures"][0]["message"].endswith("(exact compare)")
    assert compare(None, [reference], tolerances, True, torch)["failures"][0]["kind"] == "output_structure"


def test_real_worker_on_the_cpu(tmp_path: Path) -> None:
    """The real worker end to end on pure-PyTorch solutions (device cpu): trials, inputs check, timing."""
    pytest.importorskip("torch")
    reference = tmp_path / "ref.py"
    reference.write_text(textwrap.dedent("""\
        import torch
        import torch.nn as nn
        class Model(nn.Module):
            def __init__(self, scale):
                super().__init__()
                self.lin = nn.Linear(32, 16)
                self.scale = scale
            def forward(self, x):
                return torch.relu(self.lin(x)) * self.scale
        def get_inputs():
            return [torch.randn(8, 32)]
        def get_init_inputs():
            return [2.0]
        """))
    bodies = {
        "good": "return torch.clamp(self.lin(x), min=0) * self.scale",
        "inplace": "x.mul_(1.5)\nreturn torch.relu(self.lin(x / 1.5)) * self.scale",
        "shape": "return (torch.relu(self.lin(x)) * self.scale).t()",
        "wrong": "return torch.relu(self.lin(x)) * (self.scale + 1e-2)",
        "raises": "raise ValueError('unsupported shape')",
    }
    candidates = []
    for name, body in bodies.items():
        path = tmp_path / f"{name}.py"
        lines = ["import torch", "import torch.nn as nn", "class ModelNew(nn.Module):",
                 "    def __init__(self, scale):", "        super().__init__()", "        self.lin = nn.Linear(32, 16)",
                 "        self.scale = scale", "    def forward(self, x):"]
        path.write_text("\n".join(lines + ["        " + line for line in body.splitlines()]) + "\n")
        candidates.append(Candidate(str(path), str(reference)))
    options = VerifyOptions(device="cpu", lint=False, cache_dir=str(tmp_path / "cache"), timing_trials=5,
                            run_timeout=120, build_timeout=120, overlap=2)
    records = {Path(r["solution"]).stem: r for r in verify_batch(candidates, options)}
    assert {k: r["status"] for k, r in records.items()} == {
        "good": "correct", "inplace": "incorrect", "shape": "incorrect", "wrong": "incorrect",
        "raises": "runtime_error"}
    # two in flight: each real worker waited for its grant before its first torch op
    held = sorted((h["granted"], h["released"], name, h["worker"]) for name, r in records.items()
                  for h in r["gpu"].get("held") or [])
    assert _one_at_a_time([(a, b) for a, b, _, _ in held])
    assert [w for _, _, name, w in held if name == "good"] == ["run", "judge"]
    assert {name for _, _, name, _ in held} == set(bodies)
    good = records["good"]
    assert good["correctness"]["passed"] == 5 and good["correctness"]["max_abs_error"] < 1e-5
    assert good["timing"]["candidate"]["trials"] == 5 and good["timing"]["speedup"] > 0
    assert "modified its input(s) [0]" in records["inplace"]["message"]
    assert "shape (16, 8), the reference (8, 16)" in records["shape"]["message"]
    assert records["wrong"]["correctness"]["trial_results"][0]["failures"][0]["kind"] == "mismatch"
    assert "ValueError: unsupported shape" in records["raises"]["message"]


# ------------------------------------------------------------------------------------- verdict forgery

_DOUBLE = ("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n"
           "def get_inputs():\n    return [torch.randn(4, 16)]\ndef get_init_inputs():\n    return []\n")
# a solution's import-time forgery: a "correct, 1000x" result where the result file used to be (beside the
# request, and in the batch's work folder), the same on every channel it holds but its outputs, and the
# worker's own comparison replaced in its process (`__main__` is worker.py, the comparison its `comparison` module)
_FORGE = """\
import json, os, sys, torch
FORGED = json.dumps({"mode": "run", "stage": "done", "done": True, "status": "correct",
                     "message": "5 trials passed", "extensions": [], "notes": [],
                     "correctness": {"ok": True, "trials": 5, "passed": 5, "max_abs_error": 0.0,
                                     "mean_abs_error": 0.0, "trial_results": [], "message": "5 trials passed"},
                     "timing": {"method": "cuda-events", "candidate": {"median_ms": 0.001},
                                "reference": {"median_ms": 1.0}, "speedup": 1000.0}})
import gc  # the request pipe was read already: the worker's request dict is in this process
REQUEST = next(o for o in gc.get_objects() if isinstance(o, dict) and "channel" in o and "mode" in o)
for folder in (os.getcwd(), os.path.dirname(os.getcwd())):
    try:
        with open(os.path.join(folder, "run.result.json"), "w") as handle:
            handle.write(FORGED)
    except OSError:
        pass
for name in os.listdir("/proc/self/fd"):
    if int(name) != REQUEST.get("outputs"):
        try:
            os.write(int(name), (FORGED + "\\n").encode())
        except OSError:
            pass
import __main__
__main__.comparison.compare = lambda *a, **k: {"ok": True, "max_abs_error": 0.0, "mean_abs_error": 0.0, "failures": []}
"""
# a solution that leaves a daemon (setsid, double fork) rewriting every verdict-like file it can reach in
# the batch's work folder, its siblings' folders included, for a minute
_CROSS_WRITE = """\
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        batch = os.path.dirname(os.getcwd())
        forged = open(__file__.replace("cross.py", "forged.json")).read()
        end = time.time() + 60
        while time.time() < end:
            for folder, _, files in os.walk(batch):
                for name in files + ["run.result.json", "judge.result.json"]:
                    if name.endswith((".json", ".stdout", ".stderr")):
                        try:
                            with open(os.path.join(folder, name), "w") as handle:
                                handle.write(forged)
                        except OSError:
                            pass
            time.sleep(0.05)
        os._exit(0)
    os._exit(0)
"""


def _forgery_batch(tmp_path: Path, sources: dict[str, str]) -> dict[str, dict]:
    pytest.importorskip("torch")
    reference = tmp_path / "ref.py"
    reference.write_text(_DOUBLE)
    candidates = []
    for name, source in sources.items():
        (tmp_path / f"{name}.py").write_text(source)
        candidates.append(Candidate(str(tmp_path / f"{name}.py"), str(reference)))
    options = VerifyOptions(device="cpu", lint=False, cache_dir=str(tmp_path / "cache"), timing_trials=3,
                            run_timeout=120, build_timeout=120)
    return {Path(r["solution"]).stem: r for r in verify_batch(candidates, options)}


_MODEL = "class ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return {}\n"


def test_a_solution_cannot_forge_its_own_verdict(tmp_path: Path) -> None:
    """It writes a forged result where the result file was, on its channels, and fakes the worker's own
    comparison: the verdict is the judge's, from the wrong outputs it really returned."""
    records = _forgery_batch(tmp_path, {"forger": _FORGE + _MODEL.format("torch.zeros_like(x)"),
                                        "honest": "import torch\n" + _MODEL.format("x * 2")})
    forger = records["forger"]
    assert forger["status"] == "incorrect" and not forger["passed"], forger["message"]
    assert forger["correctness"]["trial_results"][0]["failures"][0]["kind"] == "mismatch"
    assert forger["timing"] is None  # no 1000x
    assert records["honest"]["status"] == "correct" and records["honest"]["timing"]["speedup"] > 0


@pytest.mark.parametrize("namespaces", [True, False], ids=["namespaces", "no-namespaces"])
def test_a_solution_cannot_rewrite_another_candidates_verdict(tmp_path: Path, monkeypatch, namespaces: bool) -> None:
    """It leaves a daemon rewriting every file in the batch's work folder; each candidate has a folder of its
    own, its verdict comes through pipes, and the daemon dies with its worker (even without namespaces,
    where the file system stays writable)."""
    from cudalint.sandbox import Isolation, isolation
    from cudalint.verify import jobs

    if namespaces and not isolation().namespaces:
        pytest.skip("no namespaces on this machine")
    if not namespaces:  # as on a machine without unprivileged namespaces
        monkeypatch.setattr(jobs, "isolation", lambda network: Isolation((), "not isolated: test", "shared: test",
                                                                        "writable: test"))
    (tmp_path / "forged.json").write_text(json.dumps({"done": True, "status": "correct", "message": "forged"}))
    records = _forgery_batch(tmp_path, {
        "cross": "import torch\n" + _CROSS_WRITE + _MODEL.format("x * 3"),
        "victim": "import torch\n" + _MODEL.format("x * 3"),
        "good": "import torch\n" + _MODEL.format("x * 2")})
    assert {k: r["status"] for k, r in records.items()} == {"cross": "incorrect", "victim": "incorrect",
                                                             "good": "correct"}
    assert "differ" in records["victim"]["message"] and "differ" in records["cross"]["message"]


@pytest.mark.skipif(not os.environ.get("CUDALINT_BUILD_TESTS"), reason="slow (a C++ build, about 2 minutes on "
                    "2 cores): set CUDALINT_BUILD_TESTS=1")
def test_build_cache_on_the_cpu(tmp_path: Path) -> None:
    """A C++-only load_inline extension through the real worker: cold build, warm reuse, and a compile error
    mapped back to its .py line (and cached: not rebuilt the second time)."""
    pytest.importorskip("torch")
    reference = tmp_path / "ref.py"
    reference.write_text("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n"
                         "def get_inputs():\n    return [torch.randn(8, 100)]\ndef get_init_inputs():\n    return []\n")
    template = ('import torch\nfrom torch.utils.cpp_extension import load_inline\n\nsource = """\n'
                'torch::Tensor twice(torch::Tensor x) {{\n    return x * {factor};\n}}\n"""\n\n'
                'mod = load_inline(name="{name}", cpp_sources=source, functions=["twice"])\n\n\n'
                'class ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return mod.twice(x)\n')
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(template.format(factor="2", name="twice_ok"))
    bad.write_text(template.format(factor="two", name="twice_bad"))
    options = VerifyOptions(device="cpu", lint=False, cache_dir=str(tmp_path / "cache"), timing_trials=3,
                            build_jobs=2, build_timeout=900)
    cold = {Path(r["solution"]).stem: r for r in verify_batch(
        [Candidate(str(good), str(reference)), Candidate(str(bad), str(reference))], options)}
    assert cold["good"]["status"] == "correct" and cold["good"]["build"]["cache_hit"] is False
    assert cold["bad"]["status"] == "compile_error"
    assert cold["bad"]["compile_errors"][0]["py_line"] == 6  # `return x * two;`
    warm = {Path(r["solution"]).stem: r for r in verify_batch(
        [Candidate(str(good), str(reference)), Candidate(str(bad), str(reference))], options)}
    assert warm["good"]["build"]["cache_hit"] is True and warm["good"]["build"]["extensions"][0]["seconds"] < 5
    assert warm["bad"]["status"] == "compile_error" and warm["bad"]["build"]["cache_hit"] is True
    assert warm["bad"]["compile_errors"][0]["py_line"] == 6


# ------------------------------------------------------------------------------------------ lighter builds


def test_lighter_sources_swap_the_heavy_include_and_keep_line_numbers() -> None:
    source = "#include <torch/extension.h>\n#include <cuda_runtime.h>\n__global__ void k(float* y) {}\n"
    [light] = lighter_cuda_sources([source])
    assert light.splitlines()[0] == "#include <torch/types.h>" and light.count("\n") == source.count("\n")
    assert lighter_cuda_sources(["  #  include \"torch/torch.h\"\nint x;"]) == ["  #  include <torch/types.h>\nint x;"]
    assert lighter_cuda_sources(["#include <cuda_runtime.h>\n"]) is None  # nothing heavy to swap
    for beyond in ("torch::nn::functional::relu(x)", "PYBIND11_MODULE(m, x) {}", "py::arg(\"x\")",
                   "torch::autograd::Variable v;"):
        assert lighter_cuda_sources([source + beyond]) is None, beyond


def _aten_include_dir(tmp_path: Path, operators=("empty_like", "zeros")) -> AtenHeaders:
    """A torch include directory with a few per-operator headers and torch/types.h's dtype aliases."""
    (tmp_path / "ATen" / "ops").mkdir(parents=True)
    for name in operators:
        (tmp_path / "ATen" / "ops" / f"{name}.h").write_text("#pragma once\n")
    api = tmp_path / "api"
    (api / "torch").mkdir(parents=True)
    (api / "torch" / "types.h").write_text("namespace torch {\nconstexpr auto kFloat32 = at::kFloat;\n"
                                           "constexpr auto kF32 = kFloat32;\nusing namespace at;\n}\n")
    return AtenHeaders([str(tmp_path), str(api)])


def test_minimal_sources_include_only_the_operators_the_unit_names(tmp_path: Path) -> None:
    aten = _aten_include_dir(tmp_path)
    source = ("#include <torch/extension.h>\n#include <ATen/cuda/CUDAContext.h>\n"
              "torch::Tensor f(torch::Tensor x) {\n  auto y = torch::empty_like(x);\n"
              "  auto z = at::zeros({4}, x.options().dtype(torch::kFloat32));\n"
              "  auto s = at::cuda::getCurrentCUDAStream();\n  return y;\n}\n")
    preamble, [minimal] = minimal_cuda_sources([source], aten)
    includes = re.findall(r"#include <([^>]+)>", preamble)
    assert includes[:4] == ["ATen/core/Tensor.h", "ATen/TensorOperators.h", "ATen/ops/empty_like.h",
                            "ATen/ops/zeros.h"]
    assert includes[-2:] == ["cuda.h", "cuda_runtime.h"] and "ATen/Dispatch.h" not in includes
    assert "using namespace at;" in preamble and "constexpr auto kFloat32 = at::kFloat;" in preamble
    # the ATen-wide include is blanked, the explicit CUDA one kept, and every line keeps its number
    assert minimal.splitlines()[:2] == ["", "#include <ATen/cuda/CUDAContext.h>"]
    assert minimal.count("\n") == source.count("\n")
    dispatched = minimal_cuda_sources([source + 'AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "f", [&] {});\n'], aten)
    assert "#include <ATen/Dispatch.h>" in dispatched[0]


def test_minimal_sources_leave_out_units_that_need_more_of_torch(tmp_path: Path) -> None:
    aten = _aten_include_dir(tmp_path)
    head = "#include <torch/extension.h>\ntorch::Tensor f(torch::Tensor x) { return "
    for body in ("torch::matmul(x, x); }",  # no ATen/ops/matmul.h in this include directory
                 "torch::indexing::Slice(); }", "x; }\nusing namespace torch;",
                 "torch::empty_like(x, x.options().requires_grad(true)); }",  # ATen's factories refuse it
                 "torch::nn::functional::relu(x); }"):
        assert minimal_cuda_sources([head + body], aten) is None, body
    assert minimal_cuda_sources([], aten) is None  # a C++-only extension: nothing to lighten
    assert minimal_cuda_sources([head + "torch::empty_like(x); }"], aten) is not None


class _NinjaWriter:
    """Stands in for torch.utils.cpp_extension: its ninja-file writer gives main.cpp's compiler and flags."""

    def __init__(self, include: Path) -> None:
        self.include = include
        self.calls = 0

    def _write_ninja_file_to_build_library(self, path, name, sources, extra_cflags, extra_cuda_cflags, extra_ldflags,
                                           extra_include_paths, with_cuda, is_standalone):
        self.calls += 1
        Path(path).write_text(
            f"cxx = g++\ncflags = -DTORCH_EXTENSION_NAME={name} -isystem {self.include} -fPIC -std=c++17 "
            f"{' '.join(extra_cflags)}\npost_cflags = \n")


@pytest.mark.skipif(not shutil.which("g++"), reason="needs g++")
def test_binding_header_is_precompiled_once_and_used_by_gpp(tmp_path: Path) -> None:
    include = tmp_path / "include" / "torch"
    include.mkdir(parents=True)
    (include / "extension.h").write_text("#pragma once\ntemplate <class T> T twice(T x) { return x + x; }\n")
    torch_stub = _NinjaWriter(tmp_path / "include")
    binding = BindingHeader(str(tmp_path / "pch"), torch_stub, {"torch": "2.11"})
    line = binding.include_line({"extra_cflags": ["-O2"]})
    wrapper = re.fullmatch(r'#include "(.+)"', line).group(1)
    assert Path(wrapper).read_text() == TORCH_EXTENSION_INCLUDE + "\n"
    # a second build while the first is still precompiling neither waits nor starts another
    assert binding.include_line({"extra_cflags": ["-O2"]}) == line
    binding.finish()
    assert Path(wrapper + ".gch").is_file() and not list(Path(wrapper).parent.glob("*.tmp"))
    # g++ uses it ("!" in -H's output) for a unit with another extension name, and the unit builds
    unit = tmp_path / "main.cpp"
    unit.write_text(line + "\nint main() { return twice(0); }\n")
    compiled = subprocess.run(["g++", "-DTORCH_EXTENSION_NAME=other", "-isystem", str(tmp_path / "include"), "-fPIC",
                               "-std=c++17", "-O2", "-Winvalid-pch", "-H", "-c", str(unit), "-o", str(tmp_path / "m.o")],
                              capture_output=True, text=True)
    assert compiled.returncode == 0 and f"! {wrapper}.gch" in compiled.stderr, compiled.stderr
    # other flags are another header; a torch without the writer gets the plain include
    assert binding.include_line({"extra_cflags": ["-O3"]}) != line
    binding.finish()
    assert BindingHeader(str(tmp_path / "pch2"), object(), {}).include_line({}) == TORCH_EXTENSION_INCLUDE
    # a header g++ cannot precompile with some flags is marked and not tried again by later builds
    broken = BindingHeader(str(tmp_path / "pch3"), torch_stub, {"torch": "2.11"})
    line = broken.include_line({"extra_cflags": ["-DNO_SUCH_FLAG_WORKS", "-fno-such-option"]})
    broken.finish()
    failed = re.fullmatch(r'#include "(.+)"', line).group(1)[:-len(".h")] + ".h.failed"
    assert Path(failed).is_file() and not Path(failed[:-len(".failed")] + ".gch").exists()
    # a worker that only runs candidates includes the wrapper but never starts a precompilation
    runner_side = BindingHeader(str(tmp_path / "pch4"), torch_stub, {"torch": "2.11"}, precompile=False)
    assert runner_side.include_line({}).startswith('#include "') and runner_side._pending is None
    # a partial header left by a killed build is removed by the next one that takes the lock
    fresh = BindingHeader(str(tmp_path / "pch5"), torch_stub, {"torch": "2.11"})
    stale = Path(re.fullmatch(r'#include "(.+)"', runner_side.include_line({})).group(1).replace("pch4", "pch5"))
    stale.parent.mkdir(parents=True)
    (stale.parent / "torch_extension.h.gch.999999.tmp").write_text("partial")
    fresh.include_line({})
    fresh.finish()
    assert not list(stale.parent.glob("*.tmp")) and (stale.parent / "torch_extension.h.gch").is_file()
    later = BindingHeader(str(tmp_path / "pch3"), torch_stub, {"torch": "2.11"})
    assert later.include_line({"extra_cflags": ["-DNO_SUCH_FLAG_WORKS", "-fno-such-option"]}) == line
    assert later._pending is None  # nothing started


def test_a_superseded_lighter_build_is_not_the_solutions_failure(tmp_path: Path) -> None:
    [record] = verify_batch([Candidate(_solution(tmp_path, "a.py", "lightfails"), str(RELU_REF))],
                            _options(tmp_path, build_only=True))
    assert record["status"] == "built" and record["compile_errors"] == []
    assert [e["name"] for e in record["build"]["extensions"]] == ["standin"]


# ------------------------------------------------------------------------------- the timing protocol


def _fake_worker(keeper, frames) -> threading.Thread:
    """A worker speaking the protocol from a thread: the ready of each round, then the frames `frames(round,
    go)` gives (None: it stops there)."""
    from cudalint.verify import clock

    control, timing = os.fdopen(os.dup(keeper.control_fd), "rb"), os.dup(keeper.timing_fd)
    keeper.started()

    def work() -> None:
        try:
            for number in range(1, len(keeper.rounds) + 1):
                os.write(timing, clock.encode({"kind": "ready", "round": number}))
                go = json.loads(control.readline() or b"{}")
                if not go:
                    return
                sent = frames(number, go)
                if sent is None:  # the worker stops here
                    return
                for frame in sent:
                    os.write(timing, frame)
        except OSError:
            pass
        finally:
            control.close()
            os.close(timing)

    thread = threading.Thread(target=work)
    thread.start()
    return thread


def test_timing_frames_round_trip_and_junk_is_an_error() -> None:
    import io as io_module

    from cudalint.verify.clock import MAGIC, FrameError, encode, read_frame

    stream = io_module.BytesIO(encode({"kind": "done", "round": 1, "projections": [1.5, float("nan")]}))
    frame = read_frame(stream.read)
    assert frame["round"] == 1 and frame["projections"][0] == 1.5 and read_frame(stream.read) is None
    for junk in (b"{\"kind\": \"done\"}\n", MAGIC + (10 ** 9).to_bytes(4, "big"), encode({"kind": "x"})[:-3],
                 MAGIC + (2).to_bytes(4, "big") + b"[]", MAGIC + (3).to_bytes(4, "big") + b"{no"):
        with pytest.raises(FrameError):
            read_frame(io_module.BytesIO(junk).read)


def test_the_timekeeper_clocks_rounds_itself_and_rejects_junk() -> None:
    """The round's time is this process's clock from the nonce sent to the done frame received, whatever the
    worker says it measured; a frame out of turn, junk, or anything after the last round rejects the timing;
    a worker that stops early leaves the rounds incomplete."""
    from cudalint.verify.clock import Timekeeper, encode

    def honest(number, go):
        time.sleep(0.05)  # the "work"; the worker claims a microsecond
        yield encode({"kind": "done", "round": number, "projections": [go["nonce"] % 7] * go["iterations"],
                      "events_ms": [0.001] * go["iterations"]})

    keeper = Timekeeper([1, 2, 3], 10)
    _fake_worker(keeper, honest).join()
    keeper.finish()
    assert keeper.complete() and keeper.why_not() == ""
    assert all(4.9 <= ms < 50 for ms in keeper.ms_per_iteration())  # 50 ms over 10 iterations, not 0.001
    first = keeper.rounds[0]
    assert len({r.nonce for r in keeper.rounds}) == 3 and first.projections == [first.nonce % 7] * 10

    cases = {
        "junk": lambda n, go: [b"garbage\n"],
        "out of turn": lambda n, go: [encode({"kind": "done", "round": n + 1, "projections": []})],
        "after the last": lambda n, go: [encode({"kind": "done", "round": n, "projections": []})]
        + ([encode({"kind": "done", "round": n, "projections": []})] if n == 2 else []),
    }
    for name, frames in cases.items():
        keeper = Timekeeper([1, 2], 3)
        _fake_worker(keeper, frames).join()
        keeper.finish()
        assert keeper.rejected and "junk on the timing channel" in keeper.rejected, name
        assert not keeper.complete()

    keeper = Timekeeper([1, 2], 3)
    _fake_worker(keeper, lambda n, go: None).join()  # stops in its first round
    keeper.finish()
    assert not keeper.complete() and "ended during timed round 1" in keeper.why_not()


def _timed(keeper, reference, model, tolerances=None):
    """TimedRounds (the worker's side) in a thread of this process against `keeper`: (rounds, error)."""
    import torch

    from cudalint.verify.channel import Progress
    from cudalint.verify.timed_rounds import TimedRounds

    request = {"control_fd": os.dup(keeper.control_fd), "timing_fd": os.dup(keeper.timing_fd),
               "timing_seeds": keeper.seeds, "warmup": 1}
    keeper.started()
    done: dict = {}

    def work() -> None:
        progress = Progress(os.open(os.devnull, os.O_WRONLY), "run")
        timer = TimedRounds(request, torch, torch.device("cpu"), reference, lambda: None,
                            tolerances or {"float32": (1e-4, 1e-4)}, False)
        try:
            with torch.no_grad():
                done["rounds"] = timer.run(model, progress, "test")
        finally:
            timer.control.close()
            os.close(request["timing_fd"])

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    keeper.finish()
    return done.get("rounds")


def test_timed_rounds_prove_every_iteration() -> None:
    """The judge's check of the timed rounds, on the CPU: an honest candidate's projections and last outputs
    agree with the reference's; one that returns cached outputs (no work after the first call on the
    same tensor) or slightly wrong ones is found out."""
    torch = pytest.importorskip("torch")
    import types

    from cudalint.verify.clock import Timekeeper
    from cudalint.verify.timed_rounds import check_rounds

    reference = types.SimpleNamespace(get_inputs=lambda: [torch.randn(64, 32)])
    weight = torch.randn(32, 16)

    def model(x):
        return torch.tanh(x @ weight)

    cache: dict = {}

    def caching(x):
        if id(x) not in cache:
            cache[id(x)] = model(x)
        return cache[id(x)]

    tolerances = {"float32": (1e-4, 1e-4)}
    keeper = Timekeeper([5, 6], 4)
    expected = _timed(keeper, reference, model)
    assert keeper.complete() and len(expected) == 2

    def candidate_rounds(fn):
        judge_keeper = Timekeeper(keeper.seeds, 4, [r.nonce for r in keeper.rounds])
        rounds = _timed(judge_keeper, reference, fn)
        return [{"projections": r["projections"], "outputs": r["outputs"]} for r in rounds]

    assert check_rounds(candidate_rounds(lambda x: torch.tanh(x @ weight) + 1e-6), expected, tolerances, torch)["ok"]
    cached = check_rounds(candidate_rounds(caching), expected, tolerances, torch)
    assert not cached["ok"] and "projection" in cached["message"]
    wrong = check_rounds(candidate_rounds(lambda x: torch.tanh(x @ weight) * 1.001), expected, tolerances, torch)
    assert not wrong["ok"]


def test_timed_rounds_cannot_be_rescaled_from_an_earlier_run() -> None:
    """A linear model's outputs scale with its inputs: a candidate that computes once and then rescales that
    output by how much one input element changed would pass if every run scaled the whole input by one
    factor. The factors are per element: it is found out."""
    torch = pytest.importorskip("torch")
    import types

    from cudalint.verify.clock import Timekeeper
    from cudalint.verify.timed_rounds import check_rounds

    reference = types.SimpleNamespace(get_inputs=lambda: [torch.randn(64, 32)])
    weight = torch.randn(32, 16)
    state: dict = {}

    def rescaling(x):
        flat = x.reshape(-1)
        if "output" in state:
            ratio = flat[:2] / state["first"]
            if bool(((ratio > 0.45) & (ratio < 2.2)).all()):  # the same inputs, scaled: reuse the output
                return state["output"] * ratio[0]
        state.update(output=x @ weight, first=flat[:2].clone())
        return state["output"]

    keeper = Timekeeper([5, 6], 4)
    expected = _timed(keeper, reference, lambda x: x @ weight)
    judge_keeper = Timekeeper(keeper.seeds, 4, [r.nonce for r in keeper.rounds])
    rounds = [{"projections": r["projections"], "outputs": r["outputs"]}
              for r in _timed(judge_keeper, reference, rescaling)]
    found = check_rounds(rounds, expected, {"float32": (1e-4, 1e-4)}, torch)
    assert not found["ok"] and "projection" in found["message"], found


# a solution that slows the reference down in its process (x * 2 sleeps there) and stops the clocks it can
# reach (the one that forges the timing protocol's frames: `hostile_solutions.FORGED_FRAMES`)
_SLOW_REFERENCE = """\
import time, torch
_multiply = torch.Tensor.__mul__
def _slow(self, other):
    time.sleep(0.02)
    return _multiply(self, other)
torch.Tensor.__mul__ = _slow
time.perf_counter = time.monotonic = lambda: 0.0
"""


def test_a_solution_cannot_forge_its_speedup(tmp_path: Path) -> None:
    """The reference is timed in the judge, the candidate by the parent's clock, and only work the judge
    checked counts: slowing the reference in the solution's process, stopping its clocks or forging the
    protocol's frames gives no speedup."""
    records = _forgery_batch(tmp_path, {
        "slower": _SLOW_REFERENCE + "import torch\n" + _MODEL.format("torch.add(x, x)"),
        "frames": FORGED_FRAMES + "import torch\n" + _MODEL.format("torch.add(x, x)"),
        "honest": "import torch\n" + _MODEL.format("torch.add(x, x)")})
    assert {k: r["status"] for k, r in records.items()} == dict.fromkeys(records, "correct")
    slower = records["slower"]["timing"]
    # 20 ms of reference would be about 1000x; two microsecond ops timed one run a round on a loaded machine
    # differ by scheduling noise alone (7x measured), so the bound is far from both
    assert slower["status"] == "trusted" and slower["speedup"] < 50, slower
    frames = records["frames"]["timing"]
    assert frames["status"] == "rejected" and frames["speedup"] is None, frames
    assert "timing rejected" in records["frames"]["message"]
    assert records["honest"]["timing"]["status"] == "trusted" and records["honest"]["timing"]["speedup"] > 0


_PLANT = """\
import gc, os
REQUEST = next(o for o in gc.get_objects() if isinstance(o, dict) and "cache_dir" in o and "mode" in o)
root = os.path.dirname(os.path.dirname(REQUEST["cache_dir"]))  # CACHE/candidates/<digest> -> CACHE
for folder, _, files in os.walk(root):
    for name in files + ["planted.so"]:
        try:
            with open(os.path.join(folder, name), "w") as handle:
                handle.write("planted")
        except OSError:
            pass
"""


def test_a_candidate_cannot_write_another_candidates_build_cache(tmp_path: Path) -> None:
    """Each candidate's workers write only its own part of the build cache (keyed by its solution's digest):
    one that overwrites every file it finds in the cache, and plants a library in every folder, leaves
    another candidate's cached library and the shared precompiled header as they were."""
    from cudalint.sandbox import isolation
    from cudalint.verify.jobs import cache_namespace

    if isolation().files != "read-only":
        pytest.skip("no mount namespace here: every file the user can write is writable (docs/verify.md)")
    victim = "import torch\n" + _MODEL.format("x * 2")
    library = Path(cache_namespace(str(tmp_path / "cache"), victim.encode())) / "ext" / "victim-0123" / "victim.so"
    header = tmp_path / "cache" / "pch" / "0123" / "torch_extension.h.gch"
    for path in (library, header):
        path.parent.mkdir(parents=True)
        path.write_text("built by cudalint")
    records = _forgery_batch(tmp_path, {"planter": _PLANT + "import torch\n" + _MODEL.format("x * 2"),
                                        "victim": victim})
    assert records["victim"]["status"] == "correct" and records["planter"]["status"] == "correct"
    assert library.read_text() == "built by cudalint" and header.read_text() == "built by cudalint"
    planter = Path(cache_namespace(str(tmp_path / "cache"), (tmp_path / "planter.py").read_bytes()))
    planted = [p for p in (tmp_path / "cache").rglob("planted.so") if planter not in p.parents]
    assert planted == [] and (planter / "planted.so").exists()  # it could write its own part, nothing else


_SANITIZER_REPORTING = """#!{python}
import subprocess, sys
args = sys.argv[1:]
options = {{}}
while args and args[0].startswith("--"):
    options.setdefault(args[0], args[1])
    args = args[2:]
sys.stdout.write("========= COMPUTE-SANITIZER\\n========= ERROR SUMMARY: 7 errors\\n")  # the report first
sys.stdout.flush()
sys.exit(subprocess.call(args, close_fds=False))  # the worker's request and channels pass, as under compute-sanitizer
"""
# a candidate that overwrites with a clean summary every file it can open for writing: its own descriptors,
# every descriptor of every process it can see (its parent's included), every *.log near it; and writes one
# into its standard output, the pipe compute-sanitizer reports on
_SCRUB_LOG = """\
import glob, os
CLEAN = "========= COMPUTE-SANITIZER\\n========= ERROR SUMMARY: 0 errors\\n"
os.write(1, CLEAN.encode())
targets = glob.glob("/proc/*/fd/*") + glob.glob(os.path.join(os.getcwd(), "*.log"))
targets += glob.glob(os.path.join(os.path.dirname(os.getcwd()), "*", "*.log"))
for path in targets:
    try:
        target = os.readlink(path) if path.startswith("/proc/") else path
        if target.startswith(("/dev/", "pipe:", "socket:", "anon_inode:")):  # not its own outputs' pipe
            continue
        with open(path, "w") as handle:
            handle.write(CLEAN)
    except OSError:
        pass
"""


def test_the_sanitizer_log_is_out_of_the_candidates_reach(tmp_path: Path) -> None:
    """compute-sanitizer reports on a pipe read by the parent: a candidate rewriting every file it can open,
    and adding a clean summary of its own, leaves what compute-sanitizer wrote, and the errors add up."""
    pytest.importorskip("torch")
    fake = tmp_path / "fake-sanitizer"
    fake.write_text(_SANITIZER_REPORTING.format(python=sys.executable))
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    reference = tmp_path / "ref.py"
    reference.write_text(_DOUBLE)
    solution = tmp_path / "scrubber.py"
    solution.write_text(_SCRUB_LOG + "import torch\n" + _MODEL.format("x * 2"))
    options = VerifyOptions(device="cpu", lint=False, cache_dir=str(tmp_path / "cache"), timing=False,
                            sanitize=("memcheck",), sanitizer=str(fake), run_timeout=120, build_timeout=120,
                            sanitize_timeout=120)
    [record] = verify_batch([Candidate(str(solution), str(reference))], options)
    assert record["sanitizer"], (record["status"], record["message"])
    # the candidate ran to its end (on the CPU no launch is counted: `uncounted`, where it crashed it would say so)
    assert record["sanitizer"]["memcheck"]["status"] == "uncounted", record["sanitizer"]["memcheck"]["message"]
    summary = record["sanitizer"]["memcheck"]["summary"]
    assert any("7 errors" in line for line in summary) and any("0 errors" in line for line in summary), summary
    assert sum(int(m.group(1)) for m in map(re.compile(r"(\d+) errors").search, summary) if m) == 7, summary


def test_the_judge_reads_a_garbled_outputs_stream_as_no_outputs(tmp_path: Path) -> None:
    """Text written into the outputs pipe (a length of petabytes) is no trial, never a MemoryError."""
    torch = pytest.importorskip("torch")
    from cudalint.verify.worker import received_outputs, send_outputs

    path = tmp_path / "outputs"
    with open(path, "wb") as handle:
        send_outputs(handle.fileno(), torch, 1, 42, [torch.ones(3)], [])
        handle.write(b"========= ERROR SUMMARY: 0 errors\n")
    with open(path, "rb") as stream:
        sent = list(received_outputs(stream, torch))
    assert sent[0]["trial"] == 1 and torch.equal(sent[0]["outputs"][0], torch.ones(3)) and sent[1:] == [None]


def test_a_judge_that_dies_timing_the_reference_keeps_its_verdict() -> None:
    """The judge sends its correctness verdict before it times the reference: a crash in the timing leaves
    the candidate correct with its timing rejected, never a worker error; a crash before the verdict is one."""
    from cudalint.verify.clock import Timekeeper, timing_record
    from cudalint.verify.isolation import WorkerOutcome, judged

    def run() -> WorkerOutcome:
        return WorkerOutcome("correct", "5 trials passed", {"correctness": {"ok": True}, "timing": {"speedup": 1e3}})

    checked = {"ok": True, "trials": 5, "message": "5 trials passed: max abs error 0"}
    died = WorkerOutcome("crash", "died", {"stage": "timing reference: round 2/5", "correctness": checked})
    candidate = Timekeeper([1], 1)
    candidate.finish()
    timing = timing_record(candidate, None, None, False)
    outcome = judged(run(), died, timing)
    assert outcome.status == "correct" and outcome.result["timing"]["status"] == "rejected"
    assert outcome.result["timing"]["speedup"] is None and "timing rejected" in outcome.message
    early = WorkerOutcome("crash", "died", {"stage": "judge: trial 2/5", "correctness": checked})
    assert judged(run(), early, timing).status == "worker_error"
