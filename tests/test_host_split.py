"""The host-split build of `cudalint verify` (`cudalint/verify/host_split.py`): what moves where, line for
line, what is refused and why, and (with nvcc) that the CUDA unit it writes compiles to the launchers the
host part calls. The build itself, against torch, is measured on the GPU machine
(`benchmarks/results/build_speed.md`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cudalint.verify import host_split
from cudalint.verify.host_split import NotSplittable, split_host_code
from cudalint.verify.builds import HOST_UNIT, _host_unit, split_cuda_sources

UNIT = r"""#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#define BLOCK 256
constexpr int kTile = 4;
struct Params { int n; float scale; };

__device__ __forceinline__ float twice(float x) { return 2.0f * x; }

__global__ void __launch_bounds__(BLOCK) scale_kernel(const float* __restrict__ x, float* y, Params p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) y[i] = twice(x[i]) * p.scale;
}

__global__ void fill_kernel(float* y, int, float value = 1.0f) {
    y[threadIdx.x] = value;
}

torch::Tensor scale_cuda(torch::Tensor x, double scale) {
    auto y = torch::empty_like(x);
    Params p{(int)x.numel(), (float)scale};
    int blocks = (p.n + BLOCK - 1) / BLOCK;
    scale_kernel<<<blocks, BLOCK, 0,
                   at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), p);
    fill_kernel<<<1, kTile>>>(y.data_ptr<float>(), 0);
    return y;
}
"""


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _host_lines(split) -> list[str]:
    """The host part's lines after its preamble: line N of the source is item N."""
    return _lines(split.host_source.split("void cudalint_configure_launch(", 1)[1].split("\n", 1)[1])


def test_host_code_moves_out_and_kernels_stay_line_for_line():
    split = split_host_code([UNIT])
    [device] = split.device_sources
    original = _lines(UNIT)
    device_lines, host_lines = _lines(device), _host_lines(split)
    launchers = device_lines[len(original):]
    for number, line in enumerate(original):
        kept, moved = device_lines[number], host_lines[number]
        if number == 0:  # torch's header: host part only
            assert kept.strip() == "" and moved == line
        elif 18 <= number <= 26:  # the wrapper
            assert kept.strip() == ""
        elif number in (2,):  # a device library: not given to g++
            assert kept == line and moved.strip() == ""
        elif number in (1, 3, 4, 5):  # the CUDA runtime, a macro, a constant, a type: both
            assert kept == line and moved == line, number
        elif number == 7:  # a device function: CUDA unit only
            assert kept == line and moved.strip() == ""
        elif number in (9, 14):  # a kernel: its launcher's declaration where it was
            assert kept == line and moved.startswith("void cudalint_launch_")
        else:
            assert kept == line
    # a launch over two lines: the configuration (evaluated first, as nvcc does) and the call's head on the
    # first, the arguments where they were
    assert host_lines[22] == ("    (::cudalint_configure_launch((blocks), (BLOCK), (0), (at::cuda::getCurrentCUDAStream())), "
                              "::cudalint_launch_scale_kernel(")
    assert host_lines[23] == "x.data_ptr<float>(), y.data_ptr<float>(), p));"
    assert host_lines[24] == ("    (::cudalint_configure_launch((1), (kTile), (0), (0)), "
                              "::cudalint_launch_fill_kernel(y.data_ptr<float>(), 0));")
    assert "<<<" not in split.host_source
    launcher_text = "\n".join(launchers)
    assert "void cudalint_launch_fill_kernel(float* y, int cudalint_argument_1, float value) {" in launcher_text
    assert "fill_kernel<<<cudalint_grid, cudalint_block, cudalint_shared_bytes, cudalint_stream>>>(y, cudalint_argument_1, value);" in launcher_text
    # the host declaration keeps the default argument the launch relies on
    assert "int cudalint_argument_1, float value = 1.0f);" in host_lines[14]
    assert "torch" not in split.device_preamble + device and "#include <cuda_runtime.h>" in split.device_preamble


def test_several_source_strings_keep_their_own_lines():
    first, second = UNIT.split("torch::Tensor scale_cuda")
    second = "torch::Tensor scale_cuda" + second
    split = split_host_code([first, second])
    assert [part.count("\n") for part in split.device_sources[:1]] == [first.count("\n")]
    assert split.device_sources[1].startswith(" " * len("torch::Tensor scale_cuda"))
    assert "void cudalint_launch_scale_kernel(const float* __restrict__ x" in split.device_sources[1]


REFUSED = {
    "templated kernel": ("template <typename T> __global__ void k(T* y) { y[0] = 0; }\n"
                         "void f(float* y) { k<float><<<1, 1>>>(y); }", "a template or a pointer"),
    "deduced template": ("template <typename T> __global__ void k(T* y) { y[0] = 0; }\n"
                         "void f(float* y) { k<<<1, 1>>>(y); }", "k is a template"),
    "kernel named outside a launch": ("__global__ void k(float* y) { y[0] = 0; }\n"
                                      "void f(float* y) { cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 16);"
                                      " k<<<1, 1>>>(y); }", "host code names k"),
    "device variable from the host": ("__constant__ float w[4];\n__global__ void k(float* y) { y[0] = w[0]; }\n"
                                      "void f(float* y, float* h) { cudaMemcpyToSymbol(w, h, 16); k<<<1, 1>>>(y); }",
                                      "host code names w"),
    "torch in device code": ("__global__ void k(at::Half* y) { y[0] = 0; }\nvoid f(at::Half* y) { k<<<1, 1>>>(y); }",
                             "device code needs torch's headers (k)"),
    "a macro of torch's in device code": ("#define HALF at::Half\n__global__ void k(HALF* y) { y[0] = 0; }\n"
                                          "void f(at::Half* y) { k<<<1, 1>>>(y); }", "device code needs torch's headers"),
    "conditional compilation": ("#ifdef FAST\n#define N 4\n#endif\n__global__ void k(float* y) { y[0] = 0; }\n"
                                "void f(float* y) { k<<<1, 1>>>(y); }", "top-level #ifdef"),
    "namespace": ("namespace a { __global__ void k(float* y) { y[0] = 0; } }\nvoid f(float* y) { a::k<<<1, 1>>>(y); }",
                  "a namespace"),
    "extern C": ('extern "C" { __global__ void k(float* y) { y[0] = 0; } }', 'extern "C"'),
    "no launch": ("__global__ void k(float* y) { y[0] = 0; }\n", "no kernel launch"),
    "host code asks for nvcc": ("__global__ void k(float* y) { y[0] = 0; }\n"
                                "void f(float* y) {\n#ifdef __CUDACC__\n k<<<1, 1>>>(y);\n#endif\n}", "__CUDACC__"),
    "shared host-device function with external linkage": (
        "__host__ __device__ float sq(float x) { return x * x; }\n__global__ void k(float* y) { y[0] = sq(y[0]); }\n"
        "void f(float* y) { float s = sq(2.0f); k<<<1, 1>>>(y); }", "defined twice"),
    "overloaded kernel": ("__global__ void k(float* y) { y[0] = 0; }\n__global__ void k(int* y) { y[0] = 0; }\n"
                          "void f(float* y) { k<<<1, 1>>>(y); }", "not one kernel"),
    "device code uses a host function": ("int host_only() { return 3; }\n__global__ void k(float* y) { y[0] = host_only(); }\n"
                                         "void f(float* y) { k<<<1, 1>>>(y); }", "moves to the host part"),
    "nvcc's own min in host code": ("__global__ void k(float* y) { y[0] = 0; }\n"
                                    "void f(float* y, int n) { k<<<1, min(n, 1024)>>>(y); }", "calls min()"),
    "nvcc's own rsqrtf in host code": ("__global__ void k(float* y, float s) { y[0] = s; }\n"
                                       "void f(float* y, int d) { k<<<1, 1>>>(y, rsqrtf((float)d)); }", "calls rsqrtf()"),
    "qualified launch": ("__global__ void k(float* y) { y[0] = 0; }\nvoid f(float* y) { a::k<<<1, 1>>>(y); }",
                         "a launch of a qualified name (a::k)"),
    "a macro changed inside a body": ("#define TILE 16\nstatic void configure() {\n#undef TILE\n#define TILE 32\n}\n"
                                      "__global__ void k(int* y) { y[0] = TILE; }\nvoid f(int* y) { k<<<1, 1>>>(y); }",
                                      "#undef inside a declaration"),
    "a // comment continued": ("#define BLOCK 256\n__global__ void k(int* y) { y[0] = 0; }\n// tune it: \\\n"
                               "#define BLOCK 128\nvoid f(int* y) { k<<<1, BLOCK>>>(y); }", "a // comment continued"),
    "a directive after a comment": ("/* tuning */ #define BLOCK 128\n__global__ void k(int* y) { y[0] = 0; }\n"
                                    "void f(int* y) { k<<<1, BLOCK>>>(y); }", "a directive after a comment"),
    "a lone carriage return": ("__global__ void k(int* y) { y[0] = 0; }\rvoid f(int* y) { k<<<1, 1>>>(y); }",
                               "a lone carriage return"),
    "an unterminated raw string": ('const char* s = R"x(never closed;\n__global__ void k(int* y) {}', "unterminated raw"),
    "host-device helper that asks for nvcc": (
        "__host__ __device__ inline int block_size() { return __CUDACC_VER_MAJOR__ > 0 ? 128 : 64; }\n"
        "__global__ void k(int* y) { y[0] = 0; }\nvoid f(int* y) { k<<<1, block_size()>>>(y); }", "__CUDACC_VER_MAJOR__"),
    "host-device helper that calls nvcc's min": (
        "__host__ __device__ inline int clamp_block(int n) { return min(n, 1024); }\n"
        "__global__ void k(int* y) { y[0] = 0; }\nvoid f(int* y, int n) { k<<<1, clamp_block(n)>>>(y); }", "calls min()"),
    "launch through a pointer": ("__global__ void k(float* y) { y[0] = 0; }\n"
                                 "void f(float* y) { auto p = k; (*p)<<<1, 1>>>(y); }", "other than a named kernel"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_with_its_reason(case):
    source, reason = REFUSED[case]
    with pytest.raises(NotSplittable, match=re.escape(reason)):
        split_host_code([source])


def test_torch_names_in_host_only_declarations_and_look_alikes_in_device_code():
    source = ("#include <torch/extension.h>\n#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x)\nusing namespace torch;\n"
              "__global__ void k(float* y) { float c10 = 0.0f; float at = 1.0f; y[0] = c10 + at; }\n"
              "Tensor f(Tensor y) { CHECK_CUDA(y); k<<<1, 1>>>(y.data_ptr<float>()); return y; }")
    split = split_host_code([source])
    device, host = split.device_sources[0].split("\n"), _host_lines(split)
    assert device[1].startswith("#define CHECK_CUDA") and device[2].strip() == ""  # the macro is unused there
    assert host[2] == "using namespace torch;" and "float c10" in device[3]


def test_declarations_that_look_alike():
    source = ("struct __align__(16) Pair { float a, b; };\nstruct Pair make_pair_host(float a) { return Pair{a, a}; }\n"
              "__global__ void k(Pair* y) { y[0].a = 0; }\n"
              "void f(Pair* y) { Pair p = make_pair_host(1.0f); ::k<<<1, 1>>>(y); }")
    split = split_host_code([source])
    device, host = split.device_sources[0].split("\n"), _host_lines(split)
    assert device[0] == host[0] == "struct __align__(16) Pair { float a, b; };"  # a type: both units
    assert device[1].strip() == "" and host[1].startswith("struct Pair make_pair_host")  # a host function
    assert "(::cudalint_configure_launch((1), (1), (0), (0)), ::cudalint_launch_k(y));" in host[3]


def test_a_hash_inside_a_line_is_no_directive():
    tokens = host_split.tokenize("x = a #b\n  # define N 3\ny " + "#" * 5000)
    assert [t.kind for t in tokens[:5]] == ["id", "punct", "id", "punct", "id"]
    assert tokens[5].kind == "pp" and tokens[5].text == "# define N 3"
    assert len(tokens) == 5007 and {t.text for t in tokens[7:]} == {"#"}


def test_inline_host_device_function_goes_to_both_units():
    source = ("__host__ __device__ inline float sq(float x) { return x * x; }\n"
              "__global__ void k(float* y) { y[0] = sq(y[0]); }\nvoid f(float* y) { float s = sq(2.0f); k<<<1, 1>>>(y); }")
    split = split_host_code([source])
    assert "inline float sq" in split.host_source and "inline float sq" in split.device_sources[0]


def _arguments(**changes) -> dict:
    return {"name": "m", "cpp_sources": "torch::Tensor scale_cuda(torch::Tensor x, double scale);", **changes}


def test_the_worker_refuses_what_would_change_host_code():
    assert split_cuda_sources(_arguments(extra_cuda_cflags=["-O3", "--use_fast_math", "-Xptxas", "-v"],
                                         extra_cflags=["-O3", "-Wall"]), [UNIT])[0]
    # nvcc's -D/-U reach host code as well: the host part defines them first, torch's own before the call's
    split, _ = split_cuda_sources(_arguments(extra_cuda_cflags=["-DUSE_FAST=1", "-D", "WIDE", "-U__CUDA_NO_HALF_OPERATORS__"]),
                                  [UNIT], ["-D__CUDA_NO_HALF_OPERATORS__", "--expt-relaxed-constexpr"])
    assert split.host_source.startswith("#define __CUDA_NO_HALF_OPERATORS__ 1\n#define USE_FAST 1\n#define WIDE 1\n"
                                        "#undef __CUDA_NO_HALF_OPERATORS__\n#include <cuda.h>\n")
    for flag in ("-I/opt/include", "-Xcompiler", "-fopenmp", "--compiler-options=-O0", "-std=c++20"):
        split, reason = split_cuda_sources(_arguments(extra_cuda_cflags=[flag]), [UNIT])
        assert split is None and flag in reason, flag
    # torch joins the flags unquoted into its ninja file: the shell splits them at spaces, and reads quotes
    split, _ = split_cuda_sources(_arguments(extra_cuda_cflags=["-DN=4 -DFAST_PATH", "", "-O3 --use_fast_math"],
                                             extra_cflags=[""]), [UNIT])
    assert split.host_source.startswith("#define N 4\n#define FAST_PATH 1\n#include")
    for flag in ("-DTHREADS='128'", '-DNAME="abc"', "-DX=$(id)"):
        split, reason = split_cuda_sources(_arguments(extra_cuda_cflags=[flag]), [UNIT])
        assert split is None and "the shell" in reason, flag
    # g++ gives the host part the C++ flags too, which nvcc never gave host code
    for flag in ("-DFAST_PATH", "-fopenmp", "-ffast-math", "-std=c++20"):
        split, reason = split_cuda_sources(_arguments(extra_cflags=[flag]), [UNIT])
        assert split is None and flag in reason, flag


def test_the_host_unit_joins_the_build_and_leaves_torch_as_it_was(tmp_path, monkeypatch):
    calls = []

    class Extension:  # the one function of torch.utils.cpp_extension the host unit goes through
        @staticmethod
        def _jit_compile(name, sources, *rest, **options):
            calls.append((name, list(sources), rest, options, os.environ.get("MAX_JOBS")))
            return "module"

    original = Extension._jit_compile
    monkeypatch.setenv("MAX_JOBS", "2")
    with _host_unit(Extension, str(tmp_path), "int host_part();\n"):
        assert Extension._jit_compile("m", ["main.cpp", "cuda.cu"], ["-O3"], verbose=False) == "module"
    assert calls == [("m", ["main.cpp", "cuda.cu", str(tmp_path / HOST_UNIT)], (["-O3"],), {"verbose": False}, "3")]
    assert (tmp_path / HOST_UNIT).read_text() == "int host_part();\n"
    assert Extension._jit_compile is original and os.environ["MAX_JOBS"] == "2"
    # an unchanged host unit is not written again (ninja would rebuild it), and no host part changes nothing
    stamp = (tmp_path / HOST_UNIT).stat().st_mtime_ns
    with _host_unit(Extension, str(tmp_path), "int host_part();\n"):
        pass
    with _host_unit(Extension, str(tmp_path), ""):
        assert Extension._jit_compile is original
    assert (tmp_path / HOST_UNIT).stat().st_mtime_ns == stamp


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("k<>(){};,#\n \"'/*=") + ["__global__", "void", "int", "template", "<<<", ">>>",
                                                                "namespace", "x", "__device__", "f"]),
                max_size=60).map("".join))
def test_any_text_is_split_or_refused(text):
    try:
        split = split_host_code([text])
    except NotSplittable:
        return
    assert split.device_sources[0].count("\n") >= text.count("\n")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_the_cuda_unit_compiles_to_the_launchers(tmp_path):
    split = split_host_code([UNIT.replace("#include <cub/cub.cuh>\n", "\n")])
    source = tmp_path / "cuda.cu"
    source.write_text(split.device_preamble + "\n".join(split.device_sources))
    built = subprocess.run(["nvcc", "-c", "-std=c++17", str(source), "-o", str(tmp_path / "cuda.o")],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    symbols = subprocess.run(["nm", "-C", str(tmp_path / "cuda.o")], capture_output=True, text=True).stdout
    assert "cudalint_launch_scale_kernel(float const*, float*, Params)" in symbols
    assert "cudalint_launch_fill_kernel(float*, int, float)" in symbols
    assert "cudalint_configure_launch(dim3, dim3, unsigned long, CUstream_st*)" in symbols


@pytest.mark.skipif(shutil.which("nvcc") is None or shutil.which("g++") is None, reason="needs nvcc and g++")
def test_the_two_units_link_into_one_program(tmp_path):
    """A unit with no torch in it: the host part by g++, the kernels by nvcc, linked; the program's host
    code runs as the unit built whole does (without a GPU the launch fails the same way)."""
    unit = ("#include <cstdio>\n#define BLOCK 128\nstruct Span { int first, count; };\n"
            "__global__ void fill(float* y, Span s, float value = 2.0f) { int i = s.first + threadIdx.x; if (i < s.count) y[i] = value; }\n"
            "static int blocks_for(int n) { std::printf(\"configuration\\n\"); return (n + BLOCK - 1) / BLOCK; }\n"
            "static int counted(int n) { std::printf(\"argument\\n\"); return n; }\n"
            "int run(float* y, int n) {\n  fill<<<blocks_for(n), BLOCK>>>(y, Span{0, counted(n)});\n"
            "  cudaError_t error = cudaGetLastError();\n  std::printf(\"launch: %d\\n\", (int)(error != cudaSuccess));\n"
            "  return blocks_for(n);\n}\n")
    split = split_host_code([unit])
    (tmp_path / "cuda.cu").write_text(split.device_preamble + "\n".join(split.device_sources))
    (tmp_path / "host.cpp").write_text(split.host_source)
    (tmp_path / "main.cpp").write_text("int run(float*, int);\nint main() { return run(nullptr, 300) == 3 ? 0 : 1; }\n")
    whole = tmp_path / "whole.cu"
    whole.write_text(unit + "int main() { return run(nullptr, 300) == 3 ? 0 : 1; }\n")
    dry_run = subprocess.run(["nvcc", "--dryrun", "-c", "-x", "cu", "/dev/null"], capture_output=True, text=True)
    cuda_include = re.search(r'INCLUDES="-I([^"\s]+)', dry_run.stderr + dry_run.stdout).group(1)  # nvcc's own -I
    steps = [["nvcc", "-c", str(tmp_path / "cuda.cu"), "-o", str(tmp_path / "cuda.o")],
             ["g++", "-c", "-std=c++17", "-I", cuda_include, str(tmp_path / "host.cpp"), "-o", str(tmp_path / "host.o")],
             ["g++", "-c", str(tmp_path / "main.cpp"), "-o", str(tmp_path / "main.o")],
             ["nvcc", str(tmp_path / "cuda.o"), str(tmp_path / "host.o"), str(tmp_path / "main.o"), "-o", str(tmp_path / "split")],
             ["nvcc", str(whole), "-o", str(tmp_path / "whole")]]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        assert done.returncode == 0, (step, done.stderr)
    split_run = subprocess.run([str(tmp_path / "split")], capture_output=True, text=True, timeout=60)
    whole_run = subprocess.run([str(tmp_path / "whole")], capture_output=True, text=True, timeout=60)
    assert (split_run.returncode, split_run.stdout) == (whole_run.returncode, whole_run.stdout)
    # the configuration is evaluated before the arguments, as nvcc orders a launch
    assert split_run.returncode == 0 and split_run.stdout.startswith("configuration\nargument\nlaunch: ")
