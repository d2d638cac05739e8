"""Inputs that once crashed, hung or passed unchecked (issue 20): each lints in a real process, which a
crash would end with a signal instead of an exit code."""

from __future__ import annotations

import json
import mmap
import multiprocessing
import os
import re
import resource
import signal
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

import cudalint
from cudalint.cli import app
from cudalint.config import LintOptions
from cudalint.engine import Budget, iter_lint_each, iter_lint_files, lint_file

GUARDED = "int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = 0;"
UNGUARDED = "int i = blockIdx.x * blockDim.x + threadIdx.x; x[i] = 0;"


def check(path, *args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cudalint", "check", "--no-config", *args, str(path)],
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize(("body", "line", "message"), [
    # issue 38's reproducers: each took the process down (SIGSEGV in libclang's recursive descent) or ran for minutes
    ("x[0] = " + "-" * 400_000 + "1;", 2, "the code nests more than 5,000 levels deep"),
    ("if(n)" * 600_000 + "x[0] = 1;", 2, "the code nests more than 5,000 levels deep"),
    ("x[0] = " + "*".join(["n"] * 30_000) + ";", 2, "a statement holds more than 10,000 operators"),  # quadratic
    ("if (n == 0) x[0] = 0;\n" + "".join(f"else if (n == {i}) x[0] = {i};\n" for i in range(1, 10000)), 1252,
     "the code nests more than 5,000 levels deep"),  # the line where the count passes the limit
    ("int m = n;\n" + "while (m-- > 0)\n" * 10000 + "x[0] = 1;", 2502, "the code nests more than 5,000 levels deep"),
    ("x[0] = " + "!" * 1000 + "n;", 2, "code nested more than 120 levels deep (from column 127) was not analysed"),
], ids=["400k-unary-minus", "600k-if", "30k-product", "10k-else-if", "10k-while", "1k-not"])
def test_code_too_deep_or_long_to_analyse_is_incomplete_never_a_crash(tmp_path, body, line, message):
    path = tmp_path / "deep.cu"
    path.write_text("__global__ void k(float* x, int n) {\n" + body + "\n}\n")
    start = time.monotonic()
    done = check(path, "--output-format", "concise", timeout=60)
    assert time.monotonic() - start < 60
    assert done.returncode == 2, done.stderr[-2000:]  # never a signal, never a pass
    assert f"{path}:{line}:" in done.stdout and message in done.stdout and "[CL900]" in done.stdout
    assert "the analysis did not complete (CL900)" in done.stderr


def test_without_room_for_a_large_stack_the_nesting_limit_is_lower(tmp_path):
    """Under `ulimit -v` too tight for the lint thread's 512 MiB stack, code is parsed on an 8 MB one, which
    2,400 nested casts overflow: the limit there is 500 levels."""
    path = tmp_path / "casts.cu"
    path.write_text("__global__ void k(float* x, int n) {\n  x[0] = " + "(int)" * 2400 + "n;\n}\n")

    def tight() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (600 * 1024 * 1024, resource.RLIM_INFINITY))

    done = subprocess.run([sys.executable, "-m", "cudalint", "check", "--no-config", "--output-format", "concise",
                           str(path)], capture_output=True, text=True, timeout=120, preexec_fn=tight)
    assert done.returncode == 2, done.stderr
    assert done.stdout == (f"{path}:2:1: warning: the code nests more than 500 levels deep, past what cudalint "
                           f"parses: this CUDA unit was not analysed [CL900]\n")


def test_a_macro_bomb_is_not_expanded(tmp_path):
    defines = "#define A0 n\n" + "".join(f"#define A{i} A{i - 1} + A{i - 1}\n" for i in range(1, 64))
    path = tmp_path / "bomb.cu"
    path.write_text(defines + "__global__ void k(float* x, int n) {\n  x[0] = A63;\n}\n")
    done = check(path, "--output-format", "concise", timeout=60)
    assert done.returncode == 2
    assert f"{path}:66:1: warning: its macros expand to more than 1,000,000 tokens, past what cudalint parses" \
        in done.stdout


def test_a_single_source_that_crashes_its_worker_does_not_take_down_the_caller(monkeypatch):
    """prefilter() lints even one source in a worker process: a crash there is the source's CL900."""
    monkeypatch.setattr("cudalint.engine.lint_file", _lint_file_or_crash)
    verdict = cudalint.prefilter([("k_crash.cu", f"__global__ void k(float* x, int n) {{ {GUARDED} }}\n")])
    assert [item.name for item in verdict.rejected] == ["k_crash.cu"]
    assert [f.code for f in verdict.rejected[0].reasons] == ["CL900"]
    assert "the process linting it ended (signal 9)" in verdict.rejected[0].findings[0].message


DEVICE_INCLUDES = [
    ('#include "/dev/zero"', "the include of /dev/zero is a character device"),
    ('#include "/dev/urandom"', "the include of /dev/urandom is a character device"),
    ("#include </dev/stdin>", "the include of /dev/stdin is"),  # a pipe, a terminal or a file: not read either way
    ('%:include "/dev/zero"', "the include of /dev/zero is a character device"),
    ('#define HEADER "/dev/zero"\n#include HEADER', "the include of /dev/zero is a character device"),
    ('#  include \\\n  "/dev/zero"', "the include of /dev/zero is a character device"),
]


@pytest.mark.parametrize(("include", "message"), DEVICE_INCLUDES, ids=["zero", "urandom", "stdin", "digraph", "macro",
                                                                      "continued"])
def test_an_include_of_a_device_is_refused_before_it_is_read(tmp_path, include, message):
    path = tmp_path / "k.cu"
    path.write_text(f"{include}\n__global__ void k(float* x, int n) {{ {UNGUARDED} }}\n")
    with subprocess.Popen([sys.executable, "-m", "cudalint", "check", "--no-config", "--output-format", "concise",
                           str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as process:
        out, _ = process.communicate(timeout=60)  # standard input stays open: reading /dev/stdin would hang
    assert process.returncode == 1
    line = include.count("\n") + 1 if "define" in include else 1
    assert re.search(rf":{line}:1: error: {re.escape(message)}.*, not a regular file: it was not read \[CL901\]", out)
    assert "[CL201]" in out  # the rest of the file is checked
    assert "CL903" not in out and "CL900" not in out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_included_directly_through_a_link_or_from_a_header_is_refused(tmp_path):
    os.mkfifo(tmp_path / "pipe.h")
    (tmp_path / "link.h").symlink_to(tmp_path / "pipe.h")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "common.h").write_text('#pragma once\n#include "../pipe.h"\n#define SCALE 2\n')
    kernel = f"__global__ void k(float* x, int n) {{ {UNGUARDED} }}\n"
    for include, message in (('#include "pipe.h"', f"the include of {tmp_path}/pipe.h is a FIFO"),
                             ("#include <link.h>", f"the include of {tmp_path}/link.h is a FIFO"),
                             ('#include "sub/common.h"', f"{tmp_path}/sub/common.h includes {tmp_path}/pipe.h; "
                                                          f"{tmp_path}/pipe.h is a FIFO")):
        findings = cudalint.lint_source(f"{include}\n{kernel}", filename=str(tmp_path / "k.cu"),
                                        directory=str(tmp_path))
        assert [(f.code, f.line, f.message) for f in findings] == [
            ("CL901", 1, f"{message}, not a regular file: it was not read"), ("CL201", 2, findings[1].message)]
    # the header's own definitions are still read, its include of the FIFO left out
    source = f'#include "sub/common.h"\n__global__ void k(float* x, int n) {{ {GUARDED.replace("= 0", "= SCALE")} }}\n'
    assert [f.code for f in cudalint.lint_source(source, filename=str(tmp_path / "k.cu"), directory=str(tmp_path))] \
        == ["CL901"]


def test_a_pseudo_file_or_a_huge_header_is_refused(tmp_path):
    """/proc/self/environ passes for a regular file: read, it would put the environment into clang's messages."""
    with open(tmp_path / "weights.h", "wb") as handle:
        handle.truncate(17 * 1024 * 1024)
    kernel = f"__global__ void k(float* x, int n) {{ {GUARDED} }}\n"
    for include, message in (('"/proc/self/environ"', "/proc/self/environ is a file the kernel makes as it is read"),
                             ('"weights.h"', f"{tmp_path}/weights.h is a file of 17 MiB, too large for a header")):
        findings = cudalint.lint_source(f"#include {include}\n{kernel}", filename=str(tmp_path / "k.cu"),
                                        directory=str(tmp_path))
        assert [(f.code, f.message) for f in findings] == [("CL901", f"the include of {message}: it was not read")]


def test_a_regular_header_and_a_missing_one_are_not_refused(tmp_path):
    (tmp_path / "common.h").write_text("#define SCALE 2\n")
    source = f'#include "common.h"\n#include "none.h"\n__global__ void k(float* x, int n) {{ {GUARDED} }}\n'
    findings = cudalint.lint_source(source, filename=str(tmp_path / "k.cu"), directory=str(tmp_path))
    assert [f.code for f in findings] == ["CL903"]  # the missing header is unknown, as before


SLOW_INCLUDE = "#define STR(x) #x\n#define PATH(x) STR(x)\n#include PATH({target})\n"  # no scan follows this


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork" or not hasattr(os, "mkfifo"),
                    reason="FIFOs and forked workers")
def test_a_file_past_its_budget_ends_alone_and_the_batch_keeps_every_other_result(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    kernel = f"__global__ void k(float* x, int n) {{ {UNGUARDED} }}\n"
    files = []
    for index in range(6):
        files.append(tmp_path / f"k{index}.cu")
        files[-1].write_text(kernel)
    (tmp_path / "k2.cu").write_text(SLOW_INCLUDE.format(target=tmp_path / "pipe") + kernel)  # hangs in libclang
    (tmp_path / "k4.cu").write_text(SLOW_INCLUDE.format(target="/dev/zero") + kernel)  # reads until memory runs out
    start = time.monotonic()
    results = list(iter_lint_each([str(f) for f in files], [LintOptions()] * len(files), jobs=2,
                                  budget=Budget(wall_seconds=5, memory_bytes=1024 ** 3)))
    assert time.monotonic() - start < 60
    codes = {os.path.basename(r.path): [f.code for f in r.findings] for r in results}
    assert codes == {"k0.cu": ["CL201"], "k1.cu": ["CL201"], "k2.cu": ["CL900"], "k3.cu": ["CL201"],
                     "k4.cu": ["CL900"], "k5.cu": ["CL201"]}
    assert results[2].findings[0].message == \
        "its analysis took longer than 5 s, the limit for one file; it was not checked"
    assert results[4].findings[0].message in (
        "the process linting it ended (signal 6): a crash, or more memory than the 1 GiB allowed for one file; "
        "it was not checked",
        "clang could not parse this CUDA unit (it failed, crashed or ran out of memory): it was not analysed")


def test_workers_of_a_caller_that_mapped_gigabytes_still_lint(tmp_path):
    """The memory budget is what a worker adds: a caller holding 6 GiB of address space (torch maps that much)
    once had workers that could not start their lint thread (its large stack), or started it and hung when it
    could not allocate; without it, deep code overflowed the worker's main thread."""
    mapped = mmap.mmap(-1, 6 * 1024 ** 3)  # address space only: no page of it is touched
    try:
        for index in range(3):
            (tmp_path / f"k{index}.cu").write_text(f"__global__ void k(float* x, int n) {{ {UNGUARDED} }}\n")
        (tmp_path / "k1.cu").write_text("__global__ void k(float* x, int n) {\n  x[0] = " + "!" * 4900 + "n;\n}\n")
        files = sorted(str(p) for p in tmp_path.iterdir())
        results = list(iter_lint_each(files, [LintOptions()] * 3, jobs=2, budget=Budget(wall_seconds=30)))
    finally:
        mapped.close()
    assert [[(f.code, f.message) for f in r.findings] for r in results] == [
        [("CL201", results[0].findings[0].message)],
        [("CL900", "code nested more than 120 levels deep (from column 129) was not analysed")],
        [("CL201", results[2].findings[0].message)]]


def test_a_huge_block_size_gives_findings_without_enumerating_its_threads(tmp_path):
    """`#define BLOCK_SIZE 134217728` once made CL203 list 2**27 threads: 5.3 GB."""
    path = tmp_path / "k.cu"
    path.write_text("#define BLOCK_SIZE 134217728\n__global__ void k(const float* x, float* y, int n) {\n"
                    "    __shared__ float s[256];\n    int t = threadIdx.x;\n    s[t % 256] = x[t];\n"
                    "    __syncthreads();\n    if (t < n) y[t] = s[(t + 1) % 256] + s[t / 2];\n}\n"
                    "void launch(const float* x, float* y, int n) { k<<<1, BLOCK_SIZE>>>(x, y, n); }\n")
    # the check runs under a Python of its own, which reports the largest of its processes (in KiB)
    measured = subprocess.run([sys.executable, "-c", (
        "import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.stdout)"),
        sys.executable, "-m", "cudalint", "check", "--no-config", "--output-format", "concise", str(path)],
        capture_output=True, text=True, timeout=120)
    returncode, largest, output = measured.stdout.split(" ", 2)
    assert returncode == "1", measured.stdout + measured.stderr
    assert "[CL302]" in output and "CL900" not in output
    assert int(largest) < 1024 * 1024  # under 1 GiB


def test_an_include_that_cannot_name_a_file_is_a_compile_error_not_a_pass(tmp_path):
    path = tmp_path / "k.cu"
    path.write_text(f"#include <x/>\n__global__ void k(float* x, int n) {{ {GUARDED} }}\n")
    done = check(path)
    assert done.returncode == 1
    assert "CL901 [error] 'x/' file not found" in done.stdout


def test_python_too_deep_for_its_parser_is_cl400(tmp_path):
    path = tmp_path / "solution.py"
    path.write_text("x = " + "-" * 100_000 + "1\n")
    findings = cudalint.lint_source(path.read_text(), filename=str(path))
    assert [(f.code, f.message) for f in findings] == [
        ("CL400", "Python syntax error: too deeply nested for Python's parser; the file cannot be imported")]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_an_input_error_not_a_hang(tmp_path):
    (tmp_path / "ok.cu").write_text(f"__global__ void k(float* x, int n) {{ {GUARDED} }}\n")
    os.mkfifo(tmp_path / "pipe.cu")
    done = check(tmp_path, timeout=60)  # found in a directory
    assert done.returncode == 2
    assert done.stderr.strip().endswith("pipe.cu: not a regular file")
    assert check(tmp_path / "pipe.cu", timeout=60).returncode == 2  # given


def test_a_missing_path_is_not_reported_as_passing(tmp_path):
    missing = str(tmp_path / "missing.cu")
    done = check(missing)
    assert done.returncode == 2
    assert "All checks passed" not in done.stdout
    assert "1 file could not be checked" in done.stdout
    sarif = json.loads(check(missing, "--format", "sarif").stdout)
    assert sarif["runs"][0]["invocations"][0]["executionSuccessful"] is False


def test_an_incomplete_analysis_exits_2_and_is_rejected(tmp_path, monkeypatch):
    def broken(*args):
        raise RuntimeError("a bug in the kernel model")

    monkeypatch.setattr("cudalint.engine.build_program", broken)
    path = tmp_path / "k.cu"
    path.write_text(f"__global__ void k(float* x, int n) {{ {GUARDED} }}\n")
    result = CliRunner().invoke(app, ["check", "--no-config", str(path)])
    assert result.exit_code == 2
    assert "the analysis did not complete (CL900), so the file was not fully checked" in result.output
    verdict = cudalint.prefilter([str(path)], jobs=1, use_config=False)
    assert [item.path for item in verdict.rejected] == [str(path)]
    assert [f.code for f in verdict.rejected[0].reasons] == ["CL900"]


def test_architecture_variants_are_accepted(tmp_path):
    path = tmp_path / "k.cu"
    path.write_text(f"__global__ void k(float* x, int n) {{ {GUARDED} }}\n")
    for arch in ("sm_90a", "sm_100a", "sm_120f"):
        result = CliRunner().invoke(app, ["check", "--no-config", "--arch", arch, str(path)])
        assert result.exit_code == 0, result.output


def test_statistics_in_a_format_that_cannot_hold_them_is_a_usage_error(tmp_path):
    path = tmp_path / "k.cu"
    path.write_text(f"__global__ void k(float* x, int n) {{ {GUARDED} }}\n")
    result = CliRunner().invoke(app, ["check", "--no-config", "--statistics", "--format", "sarif", str(path)])
    assert result.exit_code == 2
    assert "--statistics prints text or JSON, not sarif" in result.output


def test_eval_of_an_empty_directory_is_an_error(tmp_path):
    result = CliRunner().invoke(app, ["eval", str(tmp_path), "--mutants", "0"])
    assert result.exit_code == 2
    assert "no .cu, .cuh or .py corpus files" in result.output


def _lint_file_or_crash(path, options, cache=None):
    if path.endswith("crash.cu"):
        os.kill(os.getpid(), signal.SIGKILL)  # a worker dies as a stack overflow in libclang kills it
    while path.endswith("spin.cu"):  # an analysis that computes for ever
        pass
    return lint_file(path, options, cache)


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork", reason="the stand-in reaches forked workers")
def test_a_file_past_its_cpu_time_is_ended_whatever_the_clock_says(tmp_path, monkeypatch):
    """The time budget counts CPU time, so a busy machine does not fail files that are merely slow on it."""
    monkeypatch.setattr("cudalint.engine.lint_file", _lint_file_or_crash)
    (tmp_path / "k_spin.cu").write_text(f"__global__ void k(float* x, int n) {{ {GUARDED} }}\n")
    (tmp_path / "k_ok.cu").write_text(f"__global__ void k(float* x, int n) {{ {UNGUARDED} }}\n")
    files = sorted(str(p) for p in tmp_path.iterdir())
    results = list(iter_lint_each(files, [LintOptions()] * 2, jobs=2, budget=Budget(seconds=1, wall_seconds=60)))
    assert [(f.code, f.message) for f in results[1].findings] == [
        ("CL900", "its analysis took more than 1 s of CPU time, the limit for one file; it was not checked")]
    assert [f.code for f in results[0].findings] == ["CL201"]


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork", reason="the stand-in crash reaches forked workers")
def test_a_worker_that_crashes_loses_only_its_own_file(tmp_path, monkeypatch):
    monkeypatch.setattr("cudalint.engine.lint_file", _lint_file_or_crash)
    for index in range(12):
        (tmp_path / f"k{index:02d}.cu").write_text(f"__global__ void k(float* x, int n) {{ {UNGUARDED} }}\n")
    (tmp_path / "k05_crash.cu").write_text("__global__ void k(float* x) { }\n")
    files = sorted(str(p) for p in tmp_path.iterdir())
    results = list(iter_lint_files(files, LintOptions(), jobs=2))
    assert [r.path for r in results] == files
    by_code = {r.path: [f.code for f in r.findings] for r in results}
    assert by_code.pop(str(tmp_path / "k05_crash.cu")) == ["CL900"]
    assert set(map(tuple, by_code.values())) == {("CL201",)}  # every other file's findings are kept


OFF_BY_ONE = """__global__ void relu_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {
        y[i] = fmaxf(x[i], 0.0f);
    }
}

void launch(const float* x, float* y, int n) {
    relu_kernel<<<(n + 255) / 256, 256>>>(x, y, n);
}
"""


def test_fix_writes_through_a_symlink_and_keeps_crlf(tmp_path):
    target = tmp_path / "kernel.cu"
    target.write_bytes(OFF_BY_ONE.replace("\n", "\r\n").encode())
    link = tmp_path / "link.cu"
    link.symlink_to(target)
    result = CliRunner().invoke(app, ["check", "--no-config", "--fix", str(link)])
    assert result.exit_code == 0, result.output
    assert link.is_symlink()
    fixed = target.read_bytes()
    assert b"if (i < n) {\r\n" in fixed
    assert fixed.count(b"\n") == fixed.count(b"\r\n")  # every line still ends in CRLF


def test_fix_of_an_unwritable_file_is_an_input_error(tmp_path, monkeypatch):
    def refuse(path, text, like=None):
        raise PermissionError(13, "Permission denied")  # a read-only folder (root is not stopped by modes)

    monkeypatch.setattr("cudalint.repairing.loop.atomic_write", refuse)
    path = tmp_path / "kernel.cu"
    path.write_text(OFF_BY_ONE)
    result = CliRunner().invoke(app, ["check", "--no-config", "--fix", str(path)])
    assert result.exit_code == 2
    assert f"{path}: cannot write the fixes: Permission denied" in result.output
    assert path.read_text() == OFF_BY_ONE


def test_fixes_marked_unsafe_need_unsafe_fixes(tmp_path):
    source = "__global__ void k(float* x) {\n    float v = x[threadIdx.x];\n    v += __shfl_down(v, 1);\n" \
             "    x[threadIdx.x] = v;\n}\n\nvoid launch(float* x) { k<<<1, 32>>>(x); }\n"
    path = tmp_path / "warp.cu"
    path.write_text(source)
    CliRunner().invoke(app, ["check", "--no-config", "--fix", str(path)])
    assert path.read_text() == source
    CliRunner().invoke(app, ["check", "--no-config", "--fix", "--unsafe-fixes", str(path)])
    assert "__shfl_down_sync(0xffffffff, v, 1)" in path.read_text()


def test_each_file_takes_its_nearest_configuration_whatever_the_order(tmp_path):
    for folder, config in (("strict", None), ("legacy", 'ignore = ["CL201"]\n')):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "k.cu").write_text(f"__global__ void k(float* x, int n) {{ {UNGUARDED} }}\n")
        if config:
            (tmp_path / folder / "cudalint.toml").write_text(config)
    strict, legacy = str(tmp_path / "strict" / "k.cu"), str(tmp_path / "legacy" / "k.cu")
    for order in ([strict, legacy], [legacy, strict]):
        result = CliRunner().invoke(app, ["check", "--format", "json", *order])
        assert result.exit_code == 1
        assert {f["path"] for f in json.loads(result.stdout)} == {strict}


def test_a_folder_that_cannot_be_listed_is_reported_not_skipped(tmp_path, monkeypatch):
    (tmp_path / "ok.cu").write_text(f"__global__ void k(float* x, int n) {{ {GUARDED} }}\n")
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "hidden.cu").write_text("\n")
    denied = PermissionError(13, "Permission denied", str(secret))
    real_scandir, real_listdir = os.scandir, os.listdir

    def scandir(path="."):  # what a folder without read permission does (root is not stopped by modes)
        if os.fspath(path) == str(secret):
            raise denied
        return real_scandir(path)

    def listdir(path="."):
        if os.fspath(path) == str(secret):
            raise denied
        return real_listdir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "listdir", listdir)
    result = CliRunner().invoke(app, ["check", "--no-config", str(tmp_path)])
    assert result.exit_code == 2
    assert f"{secret}: cannot read the directory: Permission denied" in result.output


def test_standard_input_is_linted_under_its_given_name():
    source = f"__global__ void k(float* x, int n) {{ {UNGUARDED} }}\n"
    result = CliRunner().invoke(app, ["check", "--no-config", "-", "--stdin-filename", "kernels/k.cu",
                                      "--output-format", "concise"], input=source)
    assert result.exit_code == 1
    assert result.stdout.startswith("kernels/k.cu:1:")
    assert result.stdout.rstrip().endswith("[CL201]")
    guarded = source.replace("x[i] = 0;", "if (i < n) x[i] = 0;")
    clean = CliRunner().invoke(app, ["check", "--no-config", "-"], input=guarded)
    assert clean.exit_code == 0, clean.output
    assert CliRunner().invoke(app, ["check", "-", "k.cu"], input=source).exit_code == 2


def test_output_formats_for_editors_and_ci(tmp_path, monkeypatch):
    path = tmp_path / "k.cu"
    path.write_text(f"__global__ void k(float* x, int n) {{ {UNGUARDED} }}\n")
    concise = CliRunner().invoke(app, ["check", "--no-config", "--output-format", "concise", str(path)])
    assert re.fullmatch(rf"{re.escape(str(path))}:1:\d+: error: .+ \[CL201\]\n", concise.stdout)
    monkeypatch.setenv("CUDALINT_OUTPUT_FORMAT", "json-lines")
    lines = CliRunner().invoke(app, ["check", "--no-config", str(path)]).stdout.splitlines()
    assert [json.loads(line)["code"] for line in lines] == ["CL201"]
    monkeypatch.delenv("CUDALINT_OUTPUT_FORMAT")
    assert CliRunner().invoke(app, ["check", "--no-config", "--format", "json", str(path)]).stdout.startswith("[")


def test_fixable_findings_are_marked_and_counted_and_colour_is_chosen(tmp_path):
    path = tmp_path / "k.cu"
    path.write_text(OFF_BY_ONE)
    plain = CliRunner().invoke(app, ["check", "--no-config", "--color", "never", str(path)]).stdout
    assert "CL202 [error] [*] off-by-one bound" in plain
    assert plain.splitlines()[-1] == "[*] 1 fixable with --fix."
    assert "\x1b[" not in plain
    coloured = CliRunner().invoke(app, ["check", "--no-config", "--color", "always", str(path)]).stdout
    assert "\x1b[" in coloured


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork", reason="the stand-in crash reaches forked workers")
def test_lint_paths_can_isolate_a_single_file(tmp_path, monkeypatch):
    monkeypatch.setattr("cudalint.engine.lint_file", _lint_file_or_crash)
    path = tmp_path / "k_crash.cu"
    path.write_text(f"__global__ void k(float* x, int n) {{ {GUARDED} }}\n")
    [result] = cudalint.lint_paths([str(path)], use_config=False, isolate=True)
    assert [f.code for f in result.findings] == ["CL900"]


def test_a_long_chain_of_macros_is_weighed_without_recursion():
    """3,000 macros each expanding the one before: weighed in a loop (a recursive weighing ran out of Python's
    stack), then parsed and found too deep for the analysis."""
    chain = "#define M0 -n\n" + "".join(f"#define M{i} -M{i - 1}\n" for i in range(1, 3000))
    findings = cudalint.lint_source(chain + "__global__ void k(float* x, int n) {\n  x[0] = M2999;\n}\n",
                                    filename="chain.cu")
    assert [(f.code, f.line, f.message) for f in findings] == [
        ("CL900", 3002, "code nested more than 120 levels deep (from column 10) was not analysed")]


def test_without_worker_processes_files_are_linted_here(tmp_path, monkeypatch):
    """Where no process pool can be made (a sandbox without process-shared semaphores), files are still linted
    completely, in the calling process."""
    def no_pool(*args, **kwargs):
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr("pebble.ProcessPool", no_pool)
    path = tmp_path / "k.cu"
    path.write_text(f"__global__ void k(float* x, int n) {{ {UNGUARDED} }}\n")
    [result] = cudalint.lint_paths([str(path)], use_config=False, isolate=True)
    assert [f.code for f in result.findings] == ["CL201"]
    assert [f.code for f in cudalint.lint_source(path.read_text(), filename="k.cu", isolate=True)] == ["CL201"]


def test_an_isolated_source_is_linted_on_the_workers_lint_thread():
    """lint_source(isolate=True) parses where lint_source does, on a large stack: 2,400 nested casts are parsed
    (then too deep to analyse), not refused as they are on an 8 MB stack."""
    source = "__global__ void k(float* x, int n) {\n  x[0] = " + "(int)" * 2400 + "n;\n}\n"
    findings = cudalint.lint_source(source, filename="casts.cu", isolate=True)
    assert [(f.code, f.message) for f in findings] == [
        ("CL900", "code nested more than 120 levels deep (from column 605) was not analysed")]


def test_the_default_budget_is_a_minute_and_two_gib_per_file():
    """Issue 38: never more than 60 s or 2 GB per file, on the clock as in CPU time."""
    budget = Budget()
    assert budget.seconds <= 60 and budget.wall_seconds <= 60 and budget.memory_bytes <= 2 * 1024 ** 3


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork" or not hasattr(os, "mkfifo"),
                    reason="FIFOs and forked workers")
def test_the_prefilter_rejects_a_file_past_its_budget(tmp_path):
    """A file that hangs libclang (an include of a FIFO spelled through macros) is rejected with an
    incomplete-analysis finding once the pre-filter's budget has passed, never accepted."""
    from cudalint.prefilter import prefilter

    os.mkfifo(tmp_path / "pipe")
    path = tmp_path / "k.cu"
    path.write_text(SLOW_INCLUDE.format(target=tmp_path / "pipe") + f"__global__ void k(float* x, int n) {{ {UNGUARDED} }}\n")
    start = time.monotonic()
    result = prefilter([str(path)], jobs=1, budget=Budget(wall_seconds=5))
    assert time.monotonic() - start < 40
    [item] = result.rejected
    assert [f.code for f in item.findings] == ["CL900"] and "longer than 5 s" in item.findings[0].message
