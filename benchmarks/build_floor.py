"""Where one cold `load_inline` build's time goes, per header set of the CUDA unit (issue 24).

A trivial ReLU solution is built as written (`<torch/extension.h>`), with `<torch/types.h>`, with the
headers `verify`'s lighter build gives it (`minimal_cuda_sources`), and that again with `use_pch=True`
twice (the first builds torch's PCH); each line gives the build's total and ninja's steps (`main.o`,
`cuda.cuda.o`) from `.ninja_log`. Then `nvcc -c` of a one-line kernel after each header alone, with
load_inline's own nvcc flags, five at a time. Needs torch with CUDA and a GPU.

    python3 benchmarks/build_floor.py      # on the GPU machine; the figures are in benchmarks/results/build_speed.md

The session-10 figures were measured with an earlier form of this script whose minimal preamble was
written by hand (`ATen/core/Tensor.h`, `ATen/ops/empty_like.h`, the CUDA headers).
"""

from __future__ import annotations

import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")

KERNEL = r"""
__global__ void relu_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

torch::Tensor relu_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto y = torch::empty_like(x);
    int n = x.numel();
    relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
DECLARATION = "torch::Tensor relu_cuda(torch::Tensor x);"
HEADERS_ALONE = ("", "c10/util/Exception.h", "ATen/core/TensorBase.h", "ATen/core/Tensor.h", "ATen/cuda/CUDAContext.h",
                 "ATen/ATen.h", "torch/types.h", "torch/extension.h")


def ninja_steps(directory: str) -> dict[str, float]:
    """Seconds of each ninja step of the last build in `directory`."""
    steps = {}
    with open(os.path.join(directory, ".ninja_log"), encoding="utf-8") as handle:
        for line in handle.read().splitlines()[1:]:
            start, end, _, output, _ = line.split("\t")
            steps[output] = (int(end) - int(start)) / 1000
    return steps


def build(root: str, tag: str, cuda_sources: list[str], **options) -> str:
    """One cold load_inline build in its own directory; prints its time, ninja's steps and whether it works."""
    import torch
    from torch.utils.cpp_extension import load_inline

    directory = os.path.join(root, tag)
    os.makedirs(directory)
    cpp_sources = options.pop("cpp_sources", [DECLARATION])
    started = time.time()
    try:
        module = load_inline(name=f"relu_{tag}", cpp_sources=cpp_sources, cuda_sources=cuda_sources,
                             functions=["relu_cuda"], build_directory=directory, **options)
        x = torch.randn(1000, device="cuda")
        outcome = "ok" if bool((module.relu_cuda(x) == x.relu()).all()) else "wrong result"
    except Exception as error:  # a failed build is a measurement too
        outcome = f"failed: {str(error)[-300:]}"
    print(f"build {tag}: {time.time() - started:.1f} s, {outcome}, steps {ninja_steps(directory)}", flush=True)
    return directory


def nvcc_alone(root: str, ninja_file: str) -> None:
    """`nvcc -c` of a one-line kernel after each header alone, with the flags load_inline used."""
    with open(ninja_file, encoding="utf-8") as handle:
        ninja = handle.read()
    nvcc, flags, post = (re.search(rf"^{key} = (.*)$", ninja, re.MULTILINE).group(1)
                         for key in ("nvcc", "cuda_cflags", "cuda_post_cflags"))
    os.makedirs(os.path.join(root, "alone"))

    def compile_one(header: str) -> str:
        path = os.path.join(root, "alone", re.sub(r"\W", "_", header or "nothing") + ".cu")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write((f"#include <{header}>\n" if header else "")
                         + "#include <cuda_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 1; }\n")
        started = time.time()
        done = subprocess.run(f"{nvcc} {flags} -c {path} -o {path}.o {post}", shell=True, capture_output=True)
        return f"nvcc -c after <{header or 'nothing'}>: {time.time() - started:.1f} s, exit {done.returncode}"

    with concurrent.futures.ThreadPoolExecutor(5) as pool:
        for line in pool.map(compile_one, HEADERS_ALONE):
            print(line, flush=True)


def main() -> int:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from torch.utils import cpp_extension

    from cudalint.verify.builds import TORCH_EXTENSION_INCLUDE, AtenHeaders, minimal_cuda_sources

    root = os.path.join(tempfile.gettempdir(), "cudalint-build-floor")
    shutil.rmtree(root, ignore_errors=True)
    preamble, [minimal] = minimal_cuda_sources([KERNEL], AtenHeaders(cpp_extension.include_paths()))
    minimal_call = dict(cuda_sources=[preamble, minimal], no_implicit_headers=True,
                        cpp_sources=[TORCH_EXTENSION_INCLUDE, DECLARATION])
    build(root, "extension", ["#include <torch/extension.h>\n" + KERNEL])
    types = build(root, "types", ["#include <torch/types.h>\n" + KERNEL])
    build(root, "minimal", **minimal_call)
    build(root, "minimal_pch_first", use_pch=True, **minimal_call)
    build(root, "minimal_pch_second", use_pch=True, **minimal_call)
    nvcc_alone(root, os.path.join(types, "build.ninja"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
