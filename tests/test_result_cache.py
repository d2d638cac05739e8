"""The result cache: `cudalint check` run again over unchanged files reuses their findings, and never a
stale or damaged entry: a change to the file, a header it includes, its reference or the settings lints
it afresh; an incomplete analysis (CL900) is never kept; concurrent runs share one cache safely."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cudalint.cli import app

REPO = Path(__file__).resolve().parents[1]
UNGUARDED = ("#include \"helpers.cuh\"\n__global__ void k(float* x, int n) {\n"
             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    x[i] = SCALE;\n}\n")
UNGUARDED_LINE = "k.cu:4:5: error: "


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


def check(*args: str):
    return CliRunner().invoke(app, ["check", "--no-config", "--output-format", "concise", "-q", *args])


def _entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache").glob("results-*/*/*.json"))


@pytest.fixture
def analysis_fails(monkeypatch):
    """From now on, linting a file (not reading its cached result) is an incomplete analysis."""
    def fail():
        def broken(*args):
            raise RuntimeError("not linted again")
        monkeypatch.setattr("cudalint.engine.build_program", broken)
    return fail


def _project(tmp_path: Path) -> None:
    (tmp_path / "helpers.cuh").write_text("#define SCALE 2.0f\n")
    (tmp_path / "k.cu").write_text(UNGUARDED)


def test_a_second_run_reuses_the_findings(tmp_path, analysis_fails) -> None:
    _project(tmp_path)
    first = check("k.cu")
    assert first.exit_code == 1 and first.stdout.startswith(UNGUARDED_LINE) and first.stdout.endswith("[CL201]\n")
    assert len(_entries(tmp_path)) == 1
    analysis_fails()
    again = check("k.cu")
    assert (again.exit_code, again.stdout) == (1, first.stdout)
    bypassed = check("--no-cache", "k.cu")  # lints: the failure shows
    assert bypassed.exit_code == 2 and "[CL900]" in bypassed.stdout


@pytest.mark.parametrize("change", ["file", "header", "new header", "settings", "define"])
def test_a_change_to_what_the_findings_depend_on_lints_again(tmp_path, analysis_fails, change: str) -> None:
    _project(tmp_path)
    if change == "new header":
        (tmp_path / "helpers.cuh").unlink()
    args = ["--select", "CL201,CL901,CL903"] if change == "settings" else []
    before = check(*args, "k.cu")
    assert before.exit_code in (0, 1) and _entries(tmp_path)
    analysis_fails()
    if change == "file":
        (tmp_path / "k.cu").write_text(UNGUARDED + "\n")
    elif change in ("header", "new header"):
        (tmp_path / "helpers.cuh").write_text("#define SCALE 3.0f\n")
    extra = {"settings": [], "define": ["-D", "UNUSED"]}.get(change, args)
    after = check(*extra, "k.cu")
    assert after.exit_code == 2 and "[CL900]" in after.stdout


def test_a_header_in_an_include_directory_is_a_dependency(tmp_path, analysis_fails) -> None:
    _project(tmp_path)
    (tmp_path / "include").mkdir()
    (tmp_path / "helpers.cuh").rename(tmp_path / "include" / "helpers.cuh")
    assert check("-I", "include", "k.cu").exit_code == 1
    analysis_fails()
    assert check("-I", "include", "k.cu").exit_code == 1
    (tmp_path / "include" / "helpers.cuh").write_text("#define SCALE 4.0f\n")
    assert "[CL900]" in check("-I", "include", "k.cu").stdout


def test_an_incomplete_analysis_is_never_kept(tmp_path, analysis_fails) -> None:
    _project(tmp_path)
    analysis_fails()
    assert check("k.cu").exit_code == 2
    assert _entries(tmp_path) == []


@pytest.mark.parametrize("damage", [b"", b'{"digest": ', b'{"digest": 1, "findings": "x"}', b"\xff\xfe"])
def test_a_damaged_entry_is_ignored(tmp_path, damage: bytes) -> None:
    _project(tmp_path)
    first = check("k.cu")
    for entry in _entries(tmp_path):
        entry.write_bytes(damage)
    again = check("k.cu")
    assert (again.exit_code, again.stdout) == (1, first.stdout)


def test_a_forged_digest_with_other_findings_is_not_used(tmp_path) -> None:
    _project(tmp_path)
    first = check("k.cu")
    (entry,) = _entries(tmp_path)
    entry.write_text('{"digest": "0", "findings": []}')  # an entry of another state of the file
    assert (check("k.cu").exit_code, check("k.cu").stdout) == (1, first.stdout)


def test_concurrent_runs_with_workers_share_the_cache(tmp_path) -> None:
    sources = tmp_path / "many"
    sources.mkdir()
    for index in range(24):
        guard = "if (i < n) " if index % 2 else ""
        (sources / f"k{index:02d}.cu").write_text(
            f"__global__ void k{index}(float* x, int n) {{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            f"    {guard}x[i] = {index};\n}}\n")
    command = [sys.executable, "-m", "cudalint", "check", "--no-config", "-q", "--output-format", "concise",
               "-j", "2", str(sources)]
    env = {**os.environ, "PYTHONPATH": str(REPO), "CUDALINT_CACHE_DIR": str(tmp_path / "cache")}
    expected = subprocess.run([*command, "--no-cache"], capture_output=True, text=True, env=env)
    assert expected.returncode == 1 and expected.stdout.count("[CL201]") == 12
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for _ in range(3)]
    outputs = [(run.wait(), run.stdout.read()) for run in runs]
    for run in runs:
        run.stdout.close()
        run.stderr.close()
    assert outputs == [(1, expected.stdout)] * 3
    assert len(_entries(tmp_path)) == 24
    assert not list((tmp_path / "cache").rglob(".entry-*"))  # no temporary file left behind
    warm = subprocess.run(command, capture_output=True, text=True, env=env)
    assert (warm.returncode, warm.stdout) == (1, expected.stdout)


_KERNEL = "__global__ void k(float* x, int n) {\n    x[INDEX] = 1.0f;\n}\n"
UNGUARDED_INDEX = "#define INDEX (blockIdx.x * blockDim.x + threadIdx.x)\n"
# however the include is spelled, the preprocessor reads helpers.cuh: so must the cache's check
SPELLINGS = {
    "macro": ("k.cu", '#define HELPERS "helpers.cuh"\n#include HELPERS\n' + _KERNEL),
    "digraph": ("k.cu", '%:include "helpers.cuh"\n' + _KERNEL),
    "continued line": ("k.cu", '#include \\\n    "helpers.cuh"\n' + _KERNEL),
    "nested macro header": ("k.cu", '#include "outer.cuh"\n' + _KERNEL),
    "one-line python string": ("k.py", "from torch.utils.cpp_extension import load_inline\n"
                               "mod = load_inline(name='m', cpp_sources='', cuda_sources='#include \"helpers.cuh\"\\n"
                               + _KERNEL.replace("\n", "\\n") + "', functions=[])\n"),
}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_header_edit_lints_again_however_the_include_is_spelled(tmp_path, spelling: str) -> None:
    name, source = SPELLINGS[spelling]
    (tmp_path / name).write_text(source)
    (tmp_path / "outer.cuh").write_text('#define INNER <helpers.cuh>\n#include INNER\n')
    (tmp_path / "helpers.cuh").write_text(UNGUARDED_INDEX)
    assert check("--select", "CL201,CL901", name).stdout.count("[CL201]") == 1
    # the header no longer indexes by thread: a re-lint finds nothing; a stale entry would repeat CL201
    (tmp_path / "helpers.cuh").write_text("#define INDEX 0\n")
    after = check("--select", "CL201,CL901", name)
    assert (after.exit_code, after.stdout) == (0, "")


def test_a_header_created_where_a_macro_include_looked_lints_again(tmp_path) -> None:
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "helpers.cuh").write_text(UNGUARDED_INDEX)
    (tmp_path / "k.cu").write_text('#define HELPERS "helpers.cuh"\n#include HELPERS\n' + _KERNEL)
    assert check("--select", "CL201", "-I", "include", "k.cu").exit_code == 1
    # a file of that name next to k.cu comes first in the search: the same run now reads it
    (tmp_path / "helpers.cuh").write_text("#define INDEX 0\n")
    assert check("--select", "CL201", "-I", "include", "k.cu").exit_code == 0


def test_a_missing_header_spelled_through_a_macro_is_looked_for_again(tmp_path) -> None:
    (tmp_path / "k.cu").write_text('#define HELPERS "helpers.cuh"\n#include HELPERS\n' + _KERNEL)
    assert "[CL901]" in check("--select", "CL201,CL901", "k.cu").stdout  # 'helpers.cuh' file not found
    (tmp_path / "helpers.cuh").write_text(UNGUARDED_INDEX)
    after = check("--select", "CL201,CL901", "k.cu").stdout
    assert "[CL901]" not in after and "[CL201]" in after


def test_a_file_that_shadows_a_stub_header_lints_again(tmp_path) -> None:
    (tmp_path / "k.cu").write_text("#include <mma.h>\n#ifndef INDEX\n" + UNGUARDED_INDEX + "#endif\n" + _KERNEL)
    assert check("--select", "CL201", "k.cu").exit_code == 1
    (tmp_path / "mma.h").write_text("#define INDEX 0\n")  # found before cudalint's stub, precompiled or not
    assert check("--select", "CL201", "k.cu").exit_code == 0


def test_the_cleanup_removes_only_folders_cudalint_made(tmp_path) -> None:
    _project(tmp_path)
    check("k.cu")
    (ours,) = (tmp_path / "cache").glob("results-*")
    tag = (ours / "CACHEDIR.TAG").read_text()
    old_ours, theirs = tmp_path / "cache" / "results-0ld", tmp_path / "cache" / "results-2025"
    for folder in (old_ours, theirs):
        folder.mkdir()
        (folder / "data.json").write_text("{}")
    (old_ours / "CACHEDIR.TAG").write_text(tag)
    month_ago = os.stat(ours).st_mtime - 31 * 24 * 3600
    for folder in (old_ours, theirs):
        os.utime(folder, (month_ago, month_ago))
    check("k.cu")
    assert not old_ours.exists() and (theirs / "data.json").exists()


def test_a_header_edit_lints_again_with_a_standard_of_the_build(tmp_path) -> None:
    """With the build's own -std the preludes are included as text from the command line: clang lists them
    with no including file."""
    import json

    name, source = SPELLINGS["macro"]
    (tmp_path / name).write_text(source)
    (tmp_path / "helpers.cuh").write_text(UNGUARDED_INDEX)
    (tmp_path / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(tmp_path), "file": name, "command": f"nvcc -std=c++17 -c {name}"}]))
    args = ("--select", "CL201,CL900,CL901", "--compile-commands", "compile_commands.json", name)
    first = check(*args)
    assert (first.exit_code, first.stdout.count("[CL201]")) == (1, 1), first.stdout
    (tmp_path / "helpers.cuh").write_text("#define INDEX 0\n")
    assert (check(*args).exit_code, check(*args).stdout) == (0, "")
