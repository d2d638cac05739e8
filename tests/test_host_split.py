"""The host-split build of `cudalint verify` (`cudalint/verify/host_split.py`): what moves where, line for
line, what is refused and why, and (with nvcc) that the CUDA unit it writes compiles to the launchers the
host part calls. The build itself, against torch, is measured on the GPU machine
(`benchmarks/results/build_speed.md`)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cudalint.verify import host_split
from cudalint.verify.host_split import NotSplittable, split_host_code
from cudalint.verify.worker import split_cuda_sources

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


def test_host_code_moves_out_and_kernels_stay_line_for_line():
    split = split_host_code([UNIT])
    [device] = split.device_sources
    original = _lines(UNIT)
    preamble = len(host_split.HOST_PREAMBLE_HEADERS)
    device_lines, host_lines = _lines(device), _lines(split.host_source)[preamble:]
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
    # a launch over two lines: the call's head on the first, the arguments where they were
    assert host_lines[22] == "    ::cudalint_launch_scale_kernel((blocks), (BLOCK), (0), (at::cuda::getCurrentCUDAStream()), "
    assert host_lines[23] == "x.data_ptr<float>(), y.data_ptr<float>(), p);"
    assert host_lines[24] == "    ::cudalint_launch_fill_kernel((1), (kTile), (0), (0), y.data_ptr<float>(), 0);"
    assert "<<<" not in split.host_source
    assert split.launches == 2 and split.kernels == ("fill_kernel", "scale_kernel")
    launcher_text = "\n".join(launchers)
    assert ("void cudalint_launch_fill_kernel(dim3 cudalint_grid, dim3 cudalint_block, size_t cudalint_shared_bytes, "
            "cudaStream_t cudalint_stream, float* y, int cudalint_argument_1, float value)") in launcher_text
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
    assert "cudalint_launch_scale_kernel(dim3" in split.device_sources[1]


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
    device, host = split.device_sources[0].split("\n"), split.host_source.split("\n")[len(host_split.HOST_PREAMBLE_HEADERS):]
    assert device[1].startswith("#define CHECK_CUDA") and device[2].strip() == ""  # the macro is unused there
    assert host[2] == "using namespace torch;" and "float c10" in device[3]


def test_declarations_that_look_alike():
    source = ("struct __align__(16) Pair { float a, b; };\nstruct Pair make_pair_host(float a) { return Pair{a, a}; }\n"
              "__global__ void k(Pair* y) { y[0].a = 0; }\n"
              "void f(Pair* y) { Pair p = make_pair_host(1.0f); ::k<<<1, 1>>>(y); }")
    split = split_host_code([source])
    device, host = split.device_sources[0].split("\n"), split.host_source.split("\n")[len(host_split.HOST_PREAMBLE_HEADERS):]
    assert device[0] == host[0] == "struct __align__(16) Pair { float a, b; };"  # a type: both units
    assert device[1].strip() == "" and host[1].startswith("struct Pair make_pair_host")  # a host function
    assert "::cudalint_launch_k((1), (1), (0), (0), y);" in host[3]


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
    assert split_cuda_sources(_arguments(extra_cuda_cflags=["-O3", "--use_fast_math", "-Xptxas", "-v"]), [UNIT])[0]
    # nvcc's -D/-U reach host code as well: the host part defines them first, torch's own before the call's
    split, _ = split_cuda_sources(_arguments(extra_cuda_cflags=["-DUSE_FAST=1", "-D", "WIDE", "-U__CUDA_NO_HALF_OPERATORS__"]),
                                  [UNIT], ["-D__CUDA_NO_HALF_OPERATORS__", "--expt-relaxed-constexpr"])
    assert split.host_source.startswith("#define __CUDA_NO_HALF_OPERATORS__ 1\n#define USE_FAST 1\n#define WIDE 1\n"
                                        "#undef __CUDA_NO_HALF_OPERATORS__\n#include <cuda.h>\n")
    for flag in ("-I/opt/include", "-Xcompiler", "-fopenmp", "--compiler-options=-O0"):
        split, reason = split_cuda_sources(_arguments(extra_cuda_cflags=[flag]), [UNIT])
        assert split is None and flag in reason
    # without <torch/extension.h> the host code saw <torch/types.h>: nothing beyond ATen may pass
    beyond = UNIT.replace("#include <torch/extension.h>", "").replace("return y;", "py::print(1); return y;")
    split, reason = split_cuda_sources(_arguments(), [beyond])
    assert split is None and "torch/types.h" in reason
    # the C++ sources follow the host part in one unit: they may not lean on its names undeclared
    split, reason = split_cuda_sources(_arguments(cpp_sources="int blocks_for(int n) { return n / kTile; }"), [UNIT])
    assert split is None and "kTile" in reason
    assert split_cuda_sources(_arguments(cpp_sources="constexpr int kTile = 4;\nint g() { return kTile; }"), [UNIT])[0]


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
    assert "cudalint_launch_scale_kernel(dim3, dim3, unsigned long, CUstream_st*, float const*, float*, Params)" in symbols
    assert "cudalint_launch_fill_kernel(dim3, dim3, unsigned long, CUstream_st*, float*, int, float)" in symbols
