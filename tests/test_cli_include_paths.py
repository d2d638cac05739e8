"""The project's build flags: `-I`, `-D`, `--compile-commands` and their configuration keys. A kernel that
includes a project header is parsed with it instead of with an empty stand-in (CL903)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cudalint.cli import app
from cudalint.compile_flags import CompileFlags, _parse_arguments

REPO = Path(__file__).resolve().parents[1]
PROJECT = "tests/fixtures/cli/include_project"
KERNEL = f"{PROJECT}/src/scale.cu"

OVERSIZE = (f"{KERNEL}:5:5: CL301 [error] static shared memory of kernel `scale` exceeds the 48 KB limit: `tile` "
            f"alone is 1024 KB; use dynamic shared memory with cudaFuncSetAttribute for more")


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def check(*args: str):
    return CliRunner().invoke(app, ["check", "--output-format", "concise", "-q", *args])


def test_without_the_include_directory_the_header_is_unknown_and_the_kernel_misread() -> None:
    result = check("--no-config", KERNEL)
    assert result.exit_code == 0, result.stdout  # a warning and an info: nothing at --fail-on error
    assert [line.split(" [")[0] for line in result.stdout.splitlines()] == [
        f"{KERNEL}:2:11: info: header <tiles.cuh> is not known to cudalint and not found next to the file or in "
        f"the include directories (-I); it is treated as empty, and errors that depend on its declarations are not "
        f"reported",
        # `global_index()` unknown: every thread seems to write one address
        f"{KERNEL}:9:5: warning: `out[i] = factor * tile[threadIdx.x]`: threads of one block store different "
        f"values to the same global address `out[i]` and the last one wins; reduce the values (shared memory, warp "
        f"shuffles, atomics) or give each writer its own slot"]


@pytest.mark.parametrize("flag", [["-I", f"{PROJECT}/include"], [f"-I{PROJECT}/include"],
                                  ["--include-dir", f"{PROJECT}/include"]])
def test_with_the_include_directory_the_header_is_parsed(flag: list[str]) -> None:
    result = check("--no-config", *flag, KERNEL)
    assert result.exit_code == 1
    assert result.stdout == (f"{KERNEL}:5:5: error: static shared memory of kernel `scale` exceeds the 48 KB "
                             f"limit: `tile` alone is 1024 KB; use dynamic shared memory with cudaFuncSetAttribute "
                             f"for more [CL301]\n")


def test_a_define_is_seen_by_the_kernel(tmp_path: Path) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text("#include <cuda_runtime.h>\n__global__ void k(float *out) {\n"
                      "    __shared__ float tile[TILE];\n    tile[threadIdx.x] = out[threadIdx.x];\n}\n")
    undefined = check("--no-config", "--select", "CL901,CL301", str(kernel))
    assert undefined.exit_code == 1 and "use of undeclared identifier 'TILE' [CL901]" in undefined.stdout
    small = check("--no-config", "--select", "CL901,CL301", "-D", "TILE=256", str(kernel))
    assert (small.exit_code, small.stdout) == (0, "")
    large = check("--no-config", "--select", "CL901,CL301", "-DTILE=100000", str(kernel))
    assert large.exit_code == 1 and large.stdout.endswith("[CL301]\n") and large.stdout.count("\n") == 1


def _copy_project(tmp_path: Path) -> Path:
    shutil.copytree(REPO / PROJECT, tmp_path / "project")
    return tmp_path / "project"


def test_compile_commands_give_the_file_its_flags(tmp_path: Path) -> None:
    project = _copy_project(tmp_path)
    (project / "build").mkdir()
    database = project / "build" / "compile_commands.json"
    database.write_text(json.dumps([
        {"directory": str(project / "build"), "file": "../src/scale.cu",
         "command": "nvcc -I../include -isystem /opt/none -DUNUSED=1 -std=c++20 -c ../src/scale.cu -o scale.o"}]))
    result = check("--no-config", "--compile-commands", str(database), str(project / "src" / "scale.cu"))
    assert result.exit_code == 1
    assert result.stdout.endswith("[CL301]\n") and result.stdout.count("\n") == 1
    # a file the database does not list gets no flags
    other = project / "src" / "other.cu"
    shutil.copy(project / "src" / "scale.cu", other)
    assert "[CL903]" in check("--no-config", "--compile-commands", str(database), str(other)).stdout


def test_the_configuration_sets_them_relative_to_its_folder(tmp_path: Path) -> None:
    project = _copy_project(tmp_path)
    (project / "cudalint.toml").write_text('include-dirs = ["include"]\ndefines = ["UNUSED=2"]\n')
    result = check(str(project / "src" / "scale.cu"))
    assert result.exit_code == 1 and result.stdout.endswith("[CL301]\n") and result.stdout.count("\n") == 1


@pytest.mark.parametrize("args, message", [
    (["-D", "3x"], "not a macro definition NAME or NAME=VALUE: '3x'"),
    (["--compile-commands", "tests/fixtures/cli/does_not_exist.json"], "does_not_exist.json: cannot read"),
    (["--compile-commands", f"{PROJECT}/src/scale.cu"], "cannot read a compilation database"),
])
def test_bad_flags_are_usage_errors(args: list[str], message: str) -> None:
    result = check("--no-config", *args, KERNEL)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("cudalint: error: ") and message in result.stderr


def test_compiler_arguments_in_clang_and_nvcc_spellings() -> None:
    arguments = ["-Iinc", "-I", "/abs", "--include-path=nv", "--include-path", "nv2", "-isystem", "sys",
                 "-DA", "-D", "B=1", "--define-macro=C=2", "-std=c++20", "-stdlib=libc++", "-O3", "-Xcompiler",
                 "-fPIC", "-D", "1bad"]
    assert _parse_arguments(arguments, "/build") == CompileFlags(
        ("/build/inc", "/abs", "/build/nv", "/build/nv2", "/build/sys"), ("A", "B=1", "C=2"), "c++20")
