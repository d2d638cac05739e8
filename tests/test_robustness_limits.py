"""Inputs that once crashed, hung or passed unchecked (issue 20): each lints in a real process, which a
crash would end with a signal instead of an exit code."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys

import pytest
from typer.testing import CliRunner

import cudalint
from cudalint.cli import app
from cudalint.config import LintOptions
from cudalint.engine import iter_lint_files, lint_file

GUARDED = "int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = 0;"
UNGUARDED = "int i = blockIdx.x * blockDim.x + threadIdx.x; x[i] = 0;"


def check(path, *args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cudalint", "check", "--no-config", *args, str(path)],
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("body", [
    "x[0] = " + "-" * 6000 + "1;",  # libclang's recursive descent, 6000 frames deep
    "if (n == 0) x[0] = 0;\n" + "".join(f"else if (n == {i}) x[0] = {i};\n" for i in range(1, 10000)),
    "int m = n;\n" + "while (m-- > 0)\n" * 10000 + "x[0] = 1;",
], ids=["unary-minus", "else-if-chain", "nested-while"])
def test_deeply_nested_cuda_is_linted_not_a_crash(tmp_path, body):
    path = tmp_path / "deep.cu"
    path.write_text("__global__ void k(float* x, int n) {\n" + body + "\n}\n")
    done = check(path)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    assert "CL900" not in done.stdout


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
    return lint_file(path, options, cache)


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
