"""benchmarks/nvcc_agreement.py: the units are written as load_inline writes them, and (where nvcc is installed)
a tiny .cu that builds and one that does not are judged as nvcc judges them, the rows kept across runs."""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from benchmark_scripts import load_script, script_path

SCRIPT = script_path("nvcc_agreement")


@pytest.fixture(scope="module")
def agreement():
    return load_script("nvcc_agreement")


SOLUTION = '''from torch.utils.cpp_extension import load_inline
cuda = """
__global__ void k(float* y) { y[threadIdx.x] = 0.0f; }
void run(torch::Tensor y) { k<<<1, 32>>>(y.data_ptr<float>()); }
"""
ext = load_inline(name="ext", cpp_sources="void run(torch::Tensor y);", cuda_sources=cuda, functions=["run"],
                  extra_cuda_cflags=["-O3"])
'''


def test_units_are_the_files_load_inline_writes(agreement) -> None:
    units, reason = agreement.solution_units("solution.py", SOLUTION)
    assert reason is None
    cpp, cuda = units
    assert (cpp.name, cpp.language, cpp.extension) == ("main.cpp", "c++", "ext")
    assert cpp.text.splitlines() == ["#include <torch/extension.h>", "void run(torch::Tensor y);",
                                     "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {",
                                     'm.def("run", torch::wrap_pybind_function(run), "run");', "}"]
    assert (cuda.name, cuda.language, cuda.extra_flags) == ("cuda.cu", "cuda", ["-O3"])
    assert cuda.text.splitlines()[:4] == ["#include <torch/types.h>", "#include <cuda.h>", "#include <cuda_runtime.h>",
                                          ""]
    assert "__global__ void k" in cuda.text


def test_a_solution_whose_sources_cannot_be_read_statically_is_skipped(agreement) -> None:
    dynamic = SOLUTION.replace("cuda_sources=cuda", "cuda_sources=open('k.cu').read()")
    assert agreement.solution_units("solution.py", dynamic) == (
        [], "the sources of load_inline call 1 are not static")
    assert agreement.solution_units("solution.py", "def f(:\n")[1].startswith("Python does not parse")


GOOD = "__global__ void k(float* y) { y[threadIdx.x] = 1.0f; }\n"
BAD = "__global__ void k(float* y) { y[threadIdx.x] = undeclared_value; }\n"


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_nvcc_and_cudalint_verdicts_are_compared_and_kept_across_runs(agreement, tmp_path) -> None:
    good, bad = tmp_path / "good.cu", tmp_path / "bad.cu"
    good.write_text(GOOD)
    bad.write_text(BAD)
    args = agreement.argparse.Namespace(torch_include=[], nvcc=shutil.which("nvcc"), cxx="g++", arch="sm_90",
                                        cuda_home=None, timeout=120.0)
    prepared = agreement.prepare([str(good), str(bad)], {}, "sm_90", 1)
    tools = agreement.default_toolchain(args, prepared["library_headers"])
    results = tmp_path / "rows.jsonl"
    summary = agreement.run(prepared, tools, 2, str(results))
    assert [row["agreement"] for row in summary["rows"]] == ["both build", "both fail"]
    assert summary["table"]["both build"] == 1 and summary["table"]["both fail"] == 1
    failing = summary["rows"][1]
    assert [f["code"] for f in failing["cudalint"]["findings"]] == ["CL901"]
    assert any("undeclared_value" in line for line in failing["nvcc"]["units"][0]["errors"])
    # rows are written as files finish, in any order
    written = sorted(json.loads(line)["path"] for line in results.read_text().splitlines())
    assert written == sorted([str(bad), str(good)])
    # a second run with the same results file compiles nothing: a compiler that cannot run changes no row
    tools.nvcc = str(tmp_path / "no-such-nvcc")
    again = agreement.run(prepared, tools, 2, str(results))
    assert again["rows"] == summary["rows"]
    assert "| 2 | 1 | 1 | 0 | 0 | 0 | 0 |" in agreement.render(again)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_the_compile_side_runs_from_the_prepared_file_without_cudalint(tmp_path) -> None:
    """The GPU machine has torch and nvcc but no libclang: --prepared must not import cudalint."""
    import subprocess

    bad = tmp_path / "bad.cu"
    bad.write_text(BAD)
    prepared = tmp_path / "prepared.json"
    subprocess.run([sys.executable, SCRIPT, str(bad), "--prepare-only", str(prepared)], check=True,
                   capture_output=True)
    blocked = f"import sys, runpy; sys.modules['cudalint'] = None; sys.argv = sys.argv[1:]; " \
              f"runpy.run_path({SCRIPT!r}, run_name='__main__')"
    done = subprocess.run([sys.executable, "-c", blocked, SCRIPT, "--prepared", str(prepared), "--jobs", "1"],
                          capture_output=True, text=True, check=True)
    assert "| 1 | 0 | 1 | 0 | 0 | 0 | 0 |" in done.stdout
