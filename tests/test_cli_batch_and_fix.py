"""`cudalint check` on a directory prints the batch summary; `--fix` rewrites files with checked fixes."""

import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cudalint.cli import app

CLEAN = """#include <cuda_runtime.h>
__global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
void launch(float* x, float a, int n) { scale<<<(n + 255) / 256, 256>>>(x, a, n); }
"""

FLOOR_GRID = """#include <cuda_runtime.h>
__global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
void launch(float* x, float a, int n) {
    const int threads = 256;
    scale<<<n / threads, threads>>>(x, a, n);
}
"""


def run(*args: str):
    return CliRunner().invoke(app, ["check", "--no-config", *args])


def test_directory_gets_the_batch_summary(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text(CLEAN)
    (tmp_path / "b.cu").write_text(CLEAN.replace("scale", "scale2"))
    (tmp_path / "c.cu").write_text(FLOOR_GRID)
    result = run(str(tmp_path))
    assert result.exit_code == 1
    assert "Batch: 3 files, 2 accepted, 1 rejected." in result.stdout
    assert any(line.startswith("CL204") and line.split()[-3:] == ["1", "1", "1"] for line in result.stdout.splitlines())
    assert "Batch:" not in run("-q", str(tmp_path)).stdout


def test_fix_rewrites_the_file_and_reports_what_remains(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(FLOOR_GRID)
    before = run(str(path))
    assert before.exit_code == 1 and "CL204" in before.stdout
    fixed = run("--fix", str(path))
    assert fixed.exit_code == 0, fixed.stdout
    assert "(n + threads - 1) / threads" in path.read_text()
    assert "CL204" not in fixed.stdout
    assert run(str(path)).exit_code == 0


def test_without_fix_the_file_is_untouched(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(FLOOR_GRID)
    run(str(path))
    assert path.read_text() == FLOOR_GRID


def test_diff_prints_what_fix_would_change_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(FLOOR_GRID)
    result = run("--diff", str(path))
    assert result.exit_code == 1
    assert path.read_text() == FLOOR_GRID
    removed = [line for line in result.stdout.splitlines() if line.startswith("-") and not line.startswith("---")]
    added = [line for line in result.stdout.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert removed == ["-    scale<<<n / threads, threads>>>(x, a, n);"]
    assert added == ["+    scale<<<(n + threads - 1) / threads, threads>>>(x, a, n);"]
    assert "CL204" not in result.stdout  # the diff replaces the findings
    assert "would fix 1 finding in 1 file" in result.stderr


def test_diff_of_a_file_without_fixes_is_empty_and_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(CLEAN)
    result = run("--diff", str(path))
    assert (result.exit_code, result.stdout) == (0, "")
    assert run("--diff", "--exit-zero", str(tmp_path / "missing.cu")).exit_code == 2


def test_show_fixes_lists_the_fixed_findings_per_file_and_rule(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(FLOOR_GRID)
    (tmp_path / "clean.cu").write_text(CLEAN)
    fixed = run("--fix", "--show-fixes", str(tmp_path))
    assert fixed.exit_code == 0
    assert fixed.stderr.splitlines()[-3:] == [
        "cudalint: fixed 1 finding in 1 file:", f"  {path}:", "    1 × CL204 (grid-undercoverage)"]
    path.write_text(FLOOR_GRID)
    assert run("--fix", str(tmp_path)).stderr.splitlines()[-1] == "cudalint: fixed 1 finding in 1 file"


# a fixable finding (CL204) and one that no fix removes (CL301)
FLOOR_GRID_AND_OVERSIZE = FLOOR_GRID.replace(
    "    int i = blockIdx.x", "    __shared__ float cache[16384];\n    int i = blockIdx.x").replace(
    "if (i < n) x[i] *= a;", "if (i < n) {\n        cache[threadIdx.x] = x[i] * a;\n        x[i] = cache[threadIdx.x];\n    }")


def test_fix_only_fixes_and_reports_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(FLOOR_GRID_AND_OVERSIZE)
    assert run(str(path)).exit_code == 1
    result = run("--fix-only", str(path))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "cudalint: fixed 1 finding in 1 file\n")
    assert "scale<<<(n + threads - 1) / threads, threads>>>" in path.read_text()
    remaining = run("--output-format", "concise", "-q", str(path))
    assert remaining.exit_code == 1 and remaining.stdout.endswith("[CL301]\n") and remaining.stdout.count("\n") == 1
    again = run("--fix-only", str(path))  # nothing left to fix, a finding left: still 0
    assert (again.exit_code, again.stdout, again.stderr) == (0, "", "cudalint: fixed 0 findings in 0 files\n")


def test_exit_non_zero_on_fix_exits_1_when_a_file_was_fixed(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(FLOOR_GRID)
    assert run("--fix-only", "--exit-non-zero-on-fix", str(path)).exit_code == 1
    assert run("--fix-only", "--exit-non-zero-on-fix", str(path)).exit_code == 0  # nothing to fix now
    path.write_text(FLOOR_GRID)
    fixed = run("--fix", "--exit-non-zero-on-fix", str(path))  # no finding remains, but the file changed
    assert (fixed.exit_code, fixed.stdout) == (1, "All checks passed.\n")


def test_fix_only_keeps_unsafe_fixes_symlinks_and_line_endings_as_fix_does(tmp_path: Path) -> None:
    source = "__global__ void k(float* x) {\n    float v = x[threadIdx.x];\n    v += __shfl_down(v, 1);\n" \
             "    x[threadIdx.x] = v;\n}\n\nvoid launch(float* x) { k<<<1, 32>>>(x); }\n"
    target = tmp_path / "warp.cu"
    target.write_bytes(source.replace("\n", "\r\n").encode())
    link = tmp_path / "link.cu"
    link.symlink_to(target)
    assert run("--fix-only", str(link)).stderr == "cudalint: fixed 0 findings in 0 files\n"  # the fix is unsafe
    assert target.read_bytes() == source.replace("\n", "\r\n").encode()
    result = run("--fix-only", "--unsafe-fixes", str(link))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "cudalint: fixed 1 finding in 1 file\n")
    assert link.is_symlink()
    fixed = target.read_bytes()
    assert b"__shfl_down_sync(0xffffffff, v, 1);\r\n" in fixed and fixed.count(b"\n") == fixed.count(b"\r\n")


def test_fix_only_still_exits_2_on_an_input_error(tmp_path: Path) -> None:
    result = run("--fix-only", str(tmp_path / "missing.cu"))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (f"cudalint: fixed 0 findings in 0 files\n"
                             f"cudalint: error: {tmp_path / 'missing.cu'}: no such file or directory\n")


def test_fix_writes_a_hard_linked_file_in_place(tmp_path: Path) -> None:
    path, other = tmp_path / "k.cu", tmp_path / "also.cu"
    path.write_text(FLOOR_GRID)
    other.hardlink_to(path)
    assert run("--fix-only", str(path)).exit_code == 0
    assert "(n + threads - 1) / threads" in other.read_text()  # still one file under two names
    assert path.stat().st_ino == other.stat().st_ino and path.stat().st_nlink == 2


def test_fix_keeps_the_owner_of_a_file_it_rewrites(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a file to another owner needs root")
    path = tmp_path / "k.cu"
    path.write_text(FLOOR_GRID)
    os.chown(path, 4321, 4321)
    path.chmod(0o664)
    assert run("--fix-only", str(path)).exit_code == 0
    status = path.stat()
    assert "(n + threads - 1) / threads" in path.read_text()
    assert (status.st_uid, status.st_gid, stat.S_IMODE(status.st_mode)) == (4321, 4321, 0o664)


def test_fix_leaves_a_read_only_file_alone_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(FLOOR_GRID)
    path.chmod(0o444)
    result = run("--fix-only", str(path))
    assert result.exit_code == 2
    assert f"cudalint: error: {path}: cannot write the fixes: read-only file, not rewritten\n" in result.stderr
    assert path.read_text() == FLOOR_GRID


def test_a_byte_order_mark_is_no_syntax_error_and_fix_keeps_it(tmp_path: Path) -> None:
    python = tmp_path / "m.py"
    python.write_bytes(b"\xef\xbb\xbfimport torch\nx = 1\n")
    assert (run("--select", "ALL", str(python)).exit_code, run(str(python)).stdout) == (0, "All checks passed.\n")
    path = tmp_path / "k.cu"
    path.write_bytes(b"\xef\xbb\xbf" + FLOOR_GRID.encode())
    assert run("--fix-only", str(path)).exit_code == 0
    assert path.read_bytes().startswith(b"\xef\xbb\xbf#include") and b"(n + threads - 1) / threads" in path.read_bytes()
