"""`cudalint check` on a directory prints the batch summary; `--fix` rewrites files with checked fixes."""

from pathlib import Path

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
