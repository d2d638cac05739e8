"""The mutation generator plants one labelled bug per mutant, only where the label is a real bug."""

import cudalint
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


def findings(mutant: CorpusCase) -> set[tuple[int, str]]:
    return {(f.line, f.code) for f in cudalint.lint_source(mutant.text, filename="k.cu")}


TREE_STORED = """#include <cuda_runtime.h>
__global__ void row_max(const float* x, float* out, int cols) {
    __shared__ float partial[256];
    int tid = threadIdx.x;
    float m = -INFINITY;
    for (int c = tid; c < cols; c += blockDim.x) m = fmaxf(m, x[blockIdx.x * cols + c]);
    partial[tid] = m;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            m = fmaxf(m, partial[tid + stride]);
            partial[tid] = m;
        }
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = m;
}
"""


def test_tree_fold_drops_the_partial_store_of_a_register_read_after_the_loop() -> None:
    mutant, = by_operator(CorpusCase("k.cu", TREE_STORED, set()))["tree-fold-into-register"]
    assert mutant.expected == {(None, "CL213")} and mutant.text.splitlines()[11] == ""
    assert (11, "CL213") in findings(mutant)
    # the block's max read from partial[0] after the loop: the register's fold is dropped there, no CL213
    from_shared = TREE_STORED.replace("out[blockIdx.x] = m;", "out[blockIdx.x] = partial[0];")
    assert "tree-fold-into-register" not in by_operator(CorpusCase("k.cu", from_shared, set()))


def test_tree_fold_turns_the_shared_step_into_a_register_fold() -> None:
    centred = CLEAN.replace("if (i < n) s[tid] = x[i];", "float v = i < n ? x[i] : 0.0f;\n    s[tid] = v;") \
        .replace("    if (tid == 0) out[blockIdx.x] = __shfl_down_sync(0xffffffff, s[0], 0);",
                 "    if (i < n) out[i] = v - s[0] / blockDim.x;")
    mutant, = by_operator(CorpusCase("k.cu", centred, set()))["tree-fold-into-register"]
    assert mutant.expected == {(11, "CL213")}
    assert mutant.text.splitlines()[10] == "        if (tid < k) v += s[tid + k];"
    assert (11, "CL213") in findings(mutant)
    assert "tree-fold-into-register" not in by_operator(CorpusCase("k.cu", CLEAN, set()))


DECOMPOSED_COPY = """#include <cuda_runtime.h>
__global__ void pool_rows(const float* in, float* out, int C, int W) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int t = idx;
    int w = t % W;
    t /= W;
    float v = in[t * W + w] * 0.5f;
    out[idx] = v;
}
"""


def test_store_through_decomposed_copy_stores_at_the_divided_copy() -> None:
    mutant, = by_operator(CorpusCase("k.cu", DECOMPOSED_COPY, set()))["store-through-decomposed-copy"]
    assert mutant.expected == {(8, "CL209")} and mutant.text.splitlines()[7] == "    out[t] = v;"
    assert (8, "CL209") in findings(mutant)
    # a value the dropped coordinate does not reach is the same for the whole row: no mutant
    uniform = DECOMPOSED_COPY.replace("in[t * W + w]", "in[t]")
    assert "store-through-decomposed-copy" not in by_operator(CorpusCase("k.cu", uniform, set()))


IN_PLACE = """#include <cuda_runtime.h>
__global__ void relu_inplace(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = fmaxf(x[i], 0.0f);
}
void launch(float* x, int n) {
    relu_inplace<<<(n + 255) / 256, 256>>>(x, n);
}
"""


def test_in_place_mirror_read_reads_the_element_another_thread_writes() -> None:
    mutant, = by_operator(CorpusCase("k.cu", IN_PLACE, set()))["in-place-mirror-read"]
    assert mutant.expected == {(4, "CL107")}
    assert mutant.text.splitlines()[3] == "    if (i < n) x[i] = fmaxf(x[n - 1 - i], 0.0f);"
    assert (4, "CL107") in findings(mutant)
    # out of place, or with no bound on the line to keep the mirrored index in range: no mutant
    out_of_place = IN_PLACE.replace("void relu_inplace(float* x", "void relu_inplace(const float* x, float* y") \
        .replace("x[i] =", "y[i] =")
    unbounded = IN_PLACE.replace("if (i < n) ", "")
    for text in (out_of_place, unbounded):
        assert "in-place-mirror-read" not in by_operator(CorpusCase("k.cu", text, set()))


DYNAMIC_SHARED = """#include <cuda_runtime.h>
__global__ void block_sum(const float* x, float* out,
                          int n) {
    extern __shared__ float s[];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
void launch(const float* x, float* out, int n, cudaStream_t stream) {
    block_sum<<<(n + 255) / 256, 256, 256 * sizeof(float)>>>(x, out, n);
    block_sum<<<(n + 255) / 256, 256, 256 * sizeof(float), stream>>>(x, out, n);
}
"""


def test_drop_dynamic_shared_size_launches_a_kernel_using_extern_shared_with_no_bytes() -> None:
    first, second = by_operator(CorpusCase("k.cu", DYNAMIC_SHARED, set()))["drop-dynamic-shared-size"]
    assert first.expected == {(16, "CL215")}
    assert first.text.splitlines()[15] == "    block_sum<<<(n + 255) / 256, 256>>>(x, out, n);"
    assert second.expected == {(17, "CL215")}
    assert second.text.splitlines()[16] == "    block_sum<<<(n + 255) / 256, 256, 0, stream>>>(x, out, n);"
    assert (16, "CL215") in findings(first) and (17, "CL215") in findings(second)
    # a kernel with static shared memory only needs no dynamic bytes: no mutant
    static = DYNAMIC_SHARED.replace("extern __shared__ float s[];", "__shared__ float s[256];")
    assert "drop-dynamic-shared-size" not in by_operator(CorpusCase("k.cu", static, set()))
