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
    return {(f.line, f.code) for f in cudalint.lint_source(mutant.text, filename=mutant.meta["source"])}


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


WARP_PARTIALS = """#include <cuda_runtime.h>
__global__ void row_sum(const float* x, float* out, int cols) {
    __shared__ float warp_sums[32];
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    float v = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) v += x[blockIdx.x * cols + c];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < blockDim.x / 32) ? warp_sums[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
        if (lane == 0) out[blockIdx.x] = v;
    }
}
void launch(const float* x, float* out, int rows, int cols) {
    const int threads = 256;
    row_sum<<<rows, threads>>>(x, out, cols);
}
"""


def test_warp_partials_unguarded_reads_a_partial_per_lane_of_fewer_warps() -> None:
    mutant, = by_operator(CorpusCase("k.cu", WARP_PARTIALS, set()))["warp-partials-unguarded"]
    assert mutant.expected == {(12, "CL210")}
    assert mutant.text.splitlines()[11] == "        v = warp_sums[lane];"
    assert (12, "CL210") in findings(mutant)


def test_warp_partials_unguarded_only_where_lanes_read_unstored_partials() -> None:
    full_block = WARP_PARTIALS.replace("const int threads = 256;", "const int threads = 1024;")
    unknown_block = WARP_PARTIALS.replace("const int threads = 256;", "int threads = cols > 512 ? 1024 : 256;")
    one_per_warp = WARP_PARTIALS.replace("warp_sums[32]", "warp_sums[8]")  # the read would leave the array
    zero_filled = WARP_PARTIALS.replace("    if (lane == 0) warp_sums[warp] = v;",
                                        "    if (threadIdx.x < 32) warp_sums[threadIdx.x] = 0.0f;\n"
                                        "    if (lane == 0) warp_sums[warp] = v;")
    for text in (full_block, unknown_block, one_per_warp, zero_filled):
        assert "warp-partials-unguarded" not in by_operator(CorpusCase("k.cu", text, set()))


WIDE_INDEX = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
__global__ void row_bias_kernel(const float* x, const float* bias, float* out, int rows, int cols) {
    int row = blockIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows || col >= cols) return;
    int64_t offset = (int64_t)row * cols + col;
    out[offset] = x[offset] + bias[col];
}
__global__ void scale_kernel(const float* x, float* out, int rows, int cols) {
    int row = blockIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows || col >= cols) return;
    out[(int64_t)row * cols + col] = 2.0f * x[(int64_t)row * cols + col];
}
torch::Tensor row_bias(torch::Tensor x, torch::Tensor bias) {
    int rows = x.size(0);
    int cols = x.size(1);
    auto out = torch::empty_like(x);
    dim3 grid((cols + 255) / 256, rows);
    row_bias_kernel<<<grid, 256>>>(x.data_ptr<float>(), bias.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
    scale_kernel<<<grid, 256>>>(out.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
    return out;
}
"""

ext = load_inline(name="row_bias", cpp_sources="torch::Tensor row_bias(torch::Tensor x, torch::Tensor bias);",
                  cuda_sources=source, functions=["row_bias"])


class ModelNew(nn.Module):
    def forward(self, x, bias):
        return ext.row_bias(x, bias)


def get_inputs():
    return [torch.randn(40000, 65536), torch.randn(40000, 65536)]


def get_init_inputs():
    return []
'''


def test_narrow_wide_index_makes_the_flat_index_of_an_input_32_bit() -> None:
    found = by_operator(CorpusCase("k.py", WIDE_INDEX, set()))["narrow-wide-index"]
    assert [(m.expected, m.text.splitlines()[m.meta["line"] - 1]) for m in found] == [
        ({(10, "CL214")}, "    int offset = row * cols + col;"),
        ({(17, "CL214")}, "    out[(int64_t)row * cols + col] = 2.0f * x[row * cols + col];"),
    ]
    for mutant in found:
        assert next(iter(mutant.expected)) in findings(mutant)


def test_narrow_wide_index_needs_every_reference_input_past_the_int_range() -> None:
    small_bias = WIDE_INDEX.replace("torch.randn(40000, 65536)]", "torch.randn(65536)]")
    small = WIDE_INDEX.replace("40000, 65536", "4000, 6553")
    for text in (small_bias, small):
        assert "narrow-wide-index" not in by_operator(CorpusCase("k.py", text, set()))


FIXED_TREE = """#include <cuda_runtime.h>
#define THREADS 256
__global__ void row_sum(const float* x, float* out, int cols) {
    __shared__ float s[THREADS];
    int tid = threadIdx.x;
    float v = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) v += x[blockIdx.x * cols + c];
    s[tid] = v;
    __syncthreads();
    for (int k = THREADS / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
void launch(const float* x, float* out, int rows, int cols) {
    row_sum<<<rows, THREADS>>>(x, out, cols);
}
"""


def test_launch_half_block_runs_fewer_threads_than_the_tree_folds() -> None:
    mutant, = by_operator(CorpusCase("k.cu", FIXED_TREE, set()))["launch-half-block"]
    assert mutant.expected == {(None, "CL210")}
    assert mutant.text.splitlines()[16] == "    row_sum<<<rows, THREADS / 2>>>(x, out, cols);"
    assert (11, "CL210") in findings(mutant)


def test_launch_half_block_only_where_the_upper_half_stays_unstored() -> None:
    adaptive = FIXED_TREE.replace("int k = THREADS / 2;", "int k = blockDim.x / 2;")
    grid_of_blocks = FIXED_TREE.replace("row_sum<<<rows, THREADS>>>", "row_sum<<<(rows * cols + THREADS - 1) / THREADS, THREADS>>>")
    # the rest of the array filled with the identity (a repair the rule's page names)
    filled = FIXED_TREE.replace("    s[tid] = v;", "    s[tid] = v;\n"
                                "    for (int j = tid + blockDim.x; j < THREADS; j += blockDim.x) s[j] = 0.0f;")
    for text in (adaptive, grid_of_blocks, filled):
        assert "launch-half-block" not in by_operator(CorpusCase("k.cu", text, set()))


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


HOST_SIZE = WIDE_INDEX.replace('''torch::Tensor row_bias(torch::Tensor x, torch::Tensor bias) {
    int rows = x.size(0);''', '''torch::Tensor row_bias(torch::Tensor x, torch::Tensor bias) {
    int64_t total = x.numel();
    TORCH_CHECK(total > 0, "empty input");
    int rows = x.size(0);''')


def test_narrow_host_size_makes_a_host_element_count_32_bit() -> None:
    found = by_operator(CorpusCase("k.py", HOST_SIZE, set()))["narrow-host-size"]
    assert [(m.expected, m.text.splitlines()[m.meta["line"] - 1]) for m in found] == [
        ({(20, "CL214")}, "    int total = x.numel();"),
    ]
    assert (20, "CL214") in findings(found[0])
    small = HOST_SIZE.replace("40000, 65536", "4000, 6553")
    assert "narrow-host-size" not in by_operator(CorpusCase("k.py", small, set()))
