"""The mutation generator plants one labelled bug per mutant, only where the label is a real bug."""

from cudalint.evaluation.corpus import CorpusCase
from cudalint.evaluation.mutations import mutants

CLEAN = """#include <cuda_runtime.h>
__global__ void sum_rows(const float* x, float* out, int n) {
    __shared__ float s[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = 0.0f;
    if (i < n) s[tid] = x[i];
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = __shfl_down_sync(0xffffffff, s[0], 0);
}
void launch(const float* x, float* out, int n) {
    sum_rows<<<(n + 255) / 256, 256>>>(x, out, n);
}
"""


def by_operator(case: CorpusCase) -> dict[str, list[CorpusCase]]:
    found: dict[str, list[CorpusCase]] = {}
    for mutant in mutants(case, per_operator=5):
        found.setdefault(mutant.origin, []).append(mutant)
    return found


def test_each_operator_plants_its_bug_with_its_label() -> None:
    found = by_operator(CorpusCase("k.cu", CLEAN, set()))
    (line, code), = found["barrier-in-thread-branch"][0].expected
    assert code == "CL102" and "if (threadIdx.x % 2 == 0) __syncthreads();" in found["barrier-in-thread-branch"][0].text.splitlines()[line - 1]
    assert {next(iter(m.expected)) for m in found["drop-barrier"]} == {(None, "CL101")}
    assert found["drop-guard"][0].expected == {(7, "CL201")}
    assert "    s[tid] = x[i];" in found["drop-guard"][0].text.splitlines()
    assert found["grow-shared-array"][0].expected == {(3, "CL301")}
    assert found["floor-div-grid"][0].expected == {(16, "CL204")}
    assert "n / 256" in found["floor-div-grid"][0].text
    assert found["legacy-warp-intrinsic"][0].expected == {(13, "CL103")}
    assert "__shfl_down(s[0], 0)" in found["legacy-warp-intrinsic"][0].text


def test_guards_that_are_not_size_bounds_are_left_alone() -> None:
    found = by_operator(CorpusCase("k.cu", CLEAN, set()))
    # `if (tid < k)` of the tree reduction bounds no data size: no drop-guard / off-by-one mutant of it
    assert all(m.meta["line"] != 10 for m in found.get("off-by-one-guard", []) + found.get("drop-guard", []))
    assert [m.meta["line"] for m in found["off-by-one-guard"]] == [7]


def test_grid_stride_kernels_get_no_floor_div_mutant() -> None:
    grid_stride = CLEAN.replace("int i = blockIdx.x * blockDim.x + threadIdx.x;",
                                "int i = blockIdx.x * blockDim.x + threadIdx.x; int stride = gridDim.x;")
    assert "floor-div-grid" not in by_operator(CorpusCase("k.cu", grid_stride, set()))


def test_buggy_cases_are_not_mutated() -> None:
    assert mutants(CorpusCase("k.cu", CLEAN, {(7, "CL201")})) == []
