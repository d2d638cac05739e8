"""Unit tests of the synchronization analyses: CFG shape, thread dependence, the conflict test, intervals."""

from __future__ import annotations

import time

import pytest

from cudalint.analysis.barriers import SyncAnalysis, sync_analysis
from cudalint.analysis.intervals import KernelSync
from cudalint.analysis.cfg import BLOCK, GRID, WARP
from cudalint.analysis.conflicts import CONFLICT, NONE, UNKNOWN
from cudalint.analysis.omega import Lin, eq, feasible, ge, less
from cudalint.frontend import lower_unit
from cudalint.model import ir
from cudalint.model.program import Program, build_program
from cudalint.sources import load_document


def program_of(source: str) -> Program:
    document = load_document("test.cu", source)
    unit = document.units[0]
    lowered = lower_unit(unit)
    errors = [d for d in lowered.diagnostics if d.severity == "error"]
    assert not errors, errors
    return build_program(unit, lowered.functions, lowered.globals)


def kernel_of(source: str, name: str | None = None) -> tuple[SyncAnalysis, ir.Function]:
    program = program_of(source)
    analysis = sync_analysis(program)
    kernel = program.kernels[0] if name is None else program.kernel_named(name)
    return analysis, kernel


def access_on_line(sync: KernelSync, line: int, mode: str | None = None):
    found = [a for a in sync.accesses if a.expr.span.line == line and (mode is None or a.mode == mode)]
    assert found, f"no access on line {line}: {[(a.expr.text, a.expr.span.line) for a in sync.accesses]}"
    return found[0]


# ------------------------------------------------------------------------------------------------ solver


def test_solver_decides_small_integer_systems() -> None:
    t1, t2, s = Lin.var("t1"), Lin.var("t2"), Lin.var("s")
    bounds = [ge(t1), less(t1, Lin.of(256)), ge(t2), less(t2, Lin.of(256))]
    assert feasible(bounds + [eq(t1 - t2 - Lin.of(1))]) is True
    assert feasible(bounds + [eq(t1 - t2), less(t1, t2)]) is False
    # parity: 2*t1 == 2*t2 + 1 has rational but no integer solutions
    assert feasible(bounds + [eq(t1.scale(2) - t2.scale(2) - Lin.of(1))]) is False
    # the tree reduction step: t1 == t2 + s with t1 < s and t2 >= 0 is impossible
    assert feasible(bounds + [eq(t1 - t2 - s), less(t1, s), less(t2, s)]) is False
    # non-unit coefficients: 3a == 5b + 1 has a = 2, b = 1
    a, b = Lin.var("a"), Lin.var("b")
    assert feasible([eq(a.scale(3) - b.scale(5) - Lin.of(1)), ge(a), less(a, Lin.of(10)), ge(b)]) is True
    assert feasible([eq(a.scale(3) - b.scale(5) - Lin.of(1)), ge(a), less(a, Lin.of(2)), ge(b)]) is False


def test_solver_is_exact_where_the_shadows_disagree() -> None:
    # Pugh's example: the real shadow has solutions, the dark shadow none, and there is no integer point
    x, y = Lin.var("x"), Lin.var("y")
    system = [ge(x.scale(11) + y.scale(13) - Lin.of(27)), ge(Lin.of(45) - x.scale(11) - y.scale(13)),
              ge(x.scale(7) - y.scale(9) + Lin.of(10)), ge(Lin.of(4) - x.scale(7) + y.scale(9))]
    assert feasible(system) is False
    # 3x - 2y in [2, 3] with 0 <= x <= 5: x = 2, y = 2
    assert feasible([ge(x.scale(3) - y.scale(2) - Lin.of(2)), ge(Lin.of(3) - x.scale(3) + y.scale(2)),
                     ge(x), ge(y), ge(Lin.of(5) - x)]) is True


# ---------------------------------------------------------------------------------------------------- CFG

CFG_KERNEL = """
#include <cuda_runtime.h>
__device__ float helper(float* s, float v) {
    s[threadIdx.x] = v;
    __syncthreads();
    return s[0];
}
__global__ void k(float* out, int n) {
    __shared__ float s[256];
    float v = out[threadIdx.x];
    for (int i = 0; i < n; ++i) {
        v += 1.0f;
    }
    if (threadIdx.x < 128) {
        __syncthreads();
    }
    v = helper(s, v);
    __syncwarp();
    out[threadIdx.x] = v;
}
void launch(float* out, int n) { k<<<4, 256>>>(out, n); }
"""


def test_cfg_has_barrier_nodes_loops_and_inlined_callees() -> None:
    analysis, kernel = kernel_of(CFG_KERNEL)
    cfg = analysis.cfg(kernel)
    assert cfg.exit in cfg.reachable
    barriers = cfg.barrier_nodes()
    assert sorted(n.barrier for n in barriers) == [BLOCK, BLOCK, WARP]
    # the helper's __syncthreads() is a node of the kernel's graph, inside the helper's scope
    inlined = [n for n in barriers if n.scope.function.name == "helper"]
    assert len(inlined) == 1 and inlined[0].scope.parent is not None
    # the for loop has a back edge: its condition is reachable from itself
    loop_cond = next(n for n in cfg.nodes if n.kind == "cond" and isinstance(n.stmt, ir.For))
    assert loop_cond in cfg.reach(loop_cond)


def test_control_dependence_of_a_barrier_under_a_branch() -> None:
    analysis, kernel = kernel_of(CFG_KERNEL)
    cfg = analysis.cfg(kernel)
    guarded = next(n for n in cfg.barrier_nodes((BLOCK,)) if n.scope.parent is None)
    branches = cfg.controlling_branches(guarded)
    assert any(b.expr is not None and b.expr.text == "threadIdx.x < 128" for b in branches)
    inlined = next(n for n in cfg.barrier_nodes((BLOCK,)) if n.scope.parent is not None)
    assert cfg.controlling_branches(inlined) == []
    divergent = analysis.divergent_barriers(kernel)
    assert [d.barrier for d in divergent] == [guarded]


def test_cooperative_groups_barrier_kinds() -> None:
    source = """
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(float* x) {
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    block.sync();
    cg::this_thread_block().sync();
    cg::sync(block);
    tile.sync();
    grid.sync();
}
"""
    analysis, kernel = kernel_of(source)
    kinds = [n.barrier for n in analysis.cfg(kernel).barrier_nodes()]
    assert kinds == [BLOCK, BLOCK, BLOCK, WARP, GRID]


# ------------------------------------------------------------------------------------------- uniformity

UNIFORMITY_KERNEL = """
#include <cuda_runtime.h>
__global__ void k(const float* x, float* out, int n) {
    int tid = threadIdx.x;
    int lane = tid % 32;
    int row = blockIdx.x;
    float loaded = x[tid];
    float row_value = x[row];
    if (tid < 32) {
        for (int s = 16; s > 0; s >>= 1) {
            out[s] = loaded;
        }
    }
    out[row * n + tid] = loaded + row_value + lane;
}
"""


def _decl_init(function: ir.Function, name: str) -> ir.Expr:
    return next(n.init for n in function.body.walk() if isinstance(n, ir.VarDecl) and n.name == name)


def test_thread_dependence_of_expressions() -> None:
    analysis, kernel = kernel_of(UNIFORMITY_KERNEL)
    facts = analysis.uniformity.of(kernel)
    names = {n.name: n for n in kernel.body.walk() if isinstance(n, ir.Name)}
    assert facts.is_dependent(names["tid"])
    assert facts.is_dependent(names["lane"])
    assert facts.is_dependent(names["loaded"])  # loaded through a thread-dependent index
    assert not facts.is_dependent(names["row"])
    assert not facts.is_dependent(names["row_value"])  # loaded at a block-uniform address
    assert not facts.is_dependent(names["n"])
    # `s` runs under `if (tid < 32)` (control dependence) but its values are the same in every thread
    loop_counter = next(n for n in kernel.body.walk() if isinstance(n, ir.VarDecl) and n.name == "s")
    assert facts.is_dependent(names["s"])
    assert loop_counter.ref not in analysis.value_dependent(kernel)


# --------------------------------------------------------------------------------------- conflict test

def conflict_kernel(write: str, read: str, guard: str = "true", block: int = 256) -> str:
    return f"""
#include <cuda_runtime.h>
__global__ void k(float* out) {{
    __shared__ float s[1024];
    int tid = threadIdx.x;
    if ({guard}) s[{write}] = 1.0f;
    if ({guard}) out[tid] = s[{read}];
}}
void launch(float* out) {{ k<<<8, {block}>>>(out); }}
"""


def verdict(write: str, read: str, guard: str = "true", block: int = 256) -> str:
    analysis, kernel = kernel_of(conflict_kernel(write, read, guard, block))
    sync = analysis.kernel(kernel)
    a, b = access_on_line(sync, 6, "write"), access_on_line(sync, 7, "read")
    return sync.test(a, b).result


@pytest.mark.parametrize("write, read, guard, expected", [
    ("tid", "tid + 1", "true", CONFLICT),
    ("tid", "tid", "true", NONE),
    ("2 * tid", "2 * tid + 1", "true", NONE),
    ("tid", "(tid + 1) % 256", "true", CONFLICT),
    ("0", "0", "tid == 0", NONE),  # one thread both writes and reads
    ("tid", "tid + 32", "tid < 32", NONE),
    ("tid", "tid + 16", "tid < 32", CONFLICT),
    ("tid", "255 - tid", "true", CONFLICT),
    ("tid / 2", "tid / 2", "true", CONFLICT),  # threads 0 and 1 share element 0
    ("tid & 31", "tid & 31", "tid < 32", NONE),
    ("tid * tid", "tid", "true", UNKNOWN),  # not affine: undecided, never an error
])
def test_conflict_test_cases(write: str, read: str, guard: str, expected: str) -> None:
    assert verdict(write, read, guard) == expected


def test_rotate_by_modulo_of_unknown_size_is_conflict_or_undecided() -> None:
    source = """
#include <cuda_runtime.h>
__global__ void k(float* out, int N) {
    extern __shared__ float s[];
    int tid = threadIdx.x;
    s[tid] = 1.0f;
    out[tid] = s[(tid + 1) % N];
}
"""
    analysis, kernel = kernel_of(source)
    sync = analysis.kernel(kernel)
    result = sync.test(access_on_line(sync, 6, "write"), access_on_line(sync, 7, "read")).result
    assert result in (CONFLICT, UNKNOWN)


def test_every_thread_writing_one_element_conflicts() -> None:
    analysis, kernel = kernel_of(conflict_kernel("0", "tid"))
    sync = analysis.kernel(kernel)
    write = access_on_line(sync, 6, "write")
    assert sync.test(write, write).result == CONFLICT


def test_two_dimensional_transpose_conflicts() -> None:
    source = """
#include <cuda_runtime.h>
__global__ void k(float* out) {
    __shared__ float t[32][33];
    t[threadIdx.y][threadIdx.x] = 1.0f;
    out[threadIdx.y * 32 + threadIdx.x] = t[threadIdx.x][threadIdx.y];
    out[threadIdx.y * 32 + threadIdx.x] += t[threadIdx.y][threadIdx.x];
}
void launch(float* out) { k<<<1, dim3(32, 32)>>>(out); }
"""
    analysis, kernel = kernel_of(source)
    sync = analysis.kernel(kernel)
    write = access_on_line(sync, 5, "write")
    assert sync.test(write, access_on_line(sync, 6, "read")).result == CONFLICT
    assert sync.test(write, access_on_line(sync, 7, "read")).result == NONE


# ------------------------------------------------------------------------------------ barrier intervals

TILED = """
#include <cuda_runtime.h>
__global__ void k(const float* A, float* C, int tiles) {
    __shared__ float t[16][16];
    float acc = 0.0f;
    for (int p = 0; p < tiles; ++p) {
        t[threadIdx.y][threadIdx.x] = A[p * 256 + threadIdx.y * 16 + threadIdx.x];
        __syncthreads();
        for (int k = 0; k < 16; ++k) acc += t[threadIdx.y][k];
        TRAILING
    }
    C[threadIdx.y * 16 + threadIdx.x] = acc;
}
void launch(const float* A, float* C, int tiles) { k<<<1, dim3(16, 16)>>>(A, C, tiles); }
"""


def test_loop_carried_interval_pairs_next_write_with_previous_read() -> None:
    analysis, kernel = kernel_of(TILED.replace("TRAILING", ""))
    races = analysis.races(kernel)
    assert [(r.first.mode, r.first.expr.span.line, r.second.mode, r.second.expr.span.line) for r in races] == \
        [("read", 9, "write", 7)]


def test_trailing_barrier_closes_the_loop_carried_interval() -> None:
    analysis, kernel = kernel_of(TILED.replace("TRAILING", "__syncthreads();"))
    sync = analysis.kernel(kernel)
    assert sync.races == []
    pairs = {(a.expr.span.line, b.expr.span.line) for a, b, _ in sync.candidate_pairs()}
    assert (7, 9) not in pairs and (9, 7) not in pairs


def test_warp_synchronous_race_is_told_apart() -> None:
    source = """
#include <cuda_runtime.h>
__global__ void k(float* out) {
    __shared__ volatile float s[64];
    int tid = threadIdx.x;
    s[tid] = out[tid];
    __syncthreads();
    if (tid < 32) {
        s[tid] += s[tid + 16];
        s[tid] += s[tid + 8];
    }
}
void launch(float* out) { k<<<1, 64>>>(out); }
"""
    analysis, kernel = kernel_of(source)
    races = analysis.races(kernel)
    assert races and all(r.warp_only for r in races)


SHIFTED_ROWS = """
#include <cuda_runtime.h>
__global__ void k(float* out) {
    __shared__ float s[96 * 32];
    int w = threadIdx.x / 32, l = threadIdx.x % 32;
    s[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    for (int j = 0; j < 64; j += STEP) {
        float v = s[(j + w + 1) * 32 + l];
        __syncthreads();
        s[(j + w) * 32 + l] = v;
    }
}
void launch(float* out) { k<<<1, 256>>>(out); }
"""


@pytest.mark.parametrize("step, races", [
    (8, []),  # iteration k writes rows j .. j + 7, iteration k + 1 reads from j + 9 on
    (6, [(11, 9)]),  # warp 7 writes row j + 7, warp 0 of the next iteration reads row (j + 6) + 1
])
def test_write_before_the_back_edge_meets_the_next_iteration_only(step: int, races: list) -> None:
    analysis, kernel = kernel_of(SHIFTED_ROWS.replace("STEP", str(step)))
    assert [(r.first.expr.span.line, r.second.expr.span.line) for r in analysis.races(kernel)] == races


PRODUCT = """
#include <cuda_runtime.h>
__global__ void k(float* out, int w) {
    extern __shared__ float s[];
    int r = threadIdx.x / 32, c = threadIdx.x % 32;
    s[WRITE] = 1.0f;
    out[threadIdx.x] = s[READ];
}
void launch(float* out, int w) { k<<<8, 256>>>(out, w); }
"""


@pytest.mark.parametrize("write, read, expected", [
    # one product in both threads (block-uniform factors): it cancels, and the rest decides
    ("blockIdx.x * w + threadIdx.x", "blockIdx.x * w + threadIdx.x + 1", CONFLICT),
    ("blockIdx.x * w + threadIdx.x", "blockIdx.x * w + threadIdx.x", NONE),
    # per-thread factors: two threads of one row meet
    ("r * w + c", "r * w + (c + 1) % 32", CONFLICT),
    # only rows that differ could meet (when w == 0): that needs the product itself, undecided
    ("r * w + c", "r * w + c", UNKNOWN),
    ("r * w + c", "c", UNKNOWN),
])
def test_products_of_two_unknowns_are_functions_of_their_factors(write: str, read: str, expected: str) -> None:
    analysis, kernel = kernel_of(PRODUCT.replace("WRITE", write).replace("READ", read))
    sync = analysis.kernel(kernel)
    assert sync.test(access_on_line(sync, 6, "write"), access_on_line(sync, 7, "read")).result == expected


def test_a_product_in_a_range_checked_subscript_stays_undecided() -> None:
    # `0 <= r * w + c < 4096` constrains the product itself, which the constraints do not capture
    source = PRODUCT.replace("extern __shared__ float s[];", "__shared__ float s[4096];") \
        .replace("WRITE", "r * w + c").replace("READ", "r * w + (c + 1) % 32")
    analysis, kernel = kernel_of(source)
    sync = analysis.kernel(kernel)
    assert sync.test(access_on_line(sync, 6, "write"), access_on_line(sync, 7, "read")).result == UNKNOWN


def test_analysis_is_cached_per_program_and_fast() -> None:
    program = program_of(TILED.replace("TRAILING", "__syncthreads();"))
    assert sync_analysis(program) is sync_analysis(program)
    start = time.perf_counter()
    analysis = SyncAnalysis(program)
    for function in analysis.roots:
        analysis.races(function)
        analysis.divergent_barriers(function)
    assert time.perf_counter() - start < 1.0


def test_data_dependent_index_can_meet_any_element() -> None:
    source = """
#include <cuda_runtime.h>
__global__ void k(const unsigned char* data, unsigned int* out) {
    __shared__ unsigned int bins[256];
    bins[threadIdx.x] = 0;
    atomicAdd(&bins[data[threadIdx.x]], 1u);
    out[threadIdx.x] = bins[threadIdx.x];
}
void launch(const unsigned char* data, unsigned int* out) { k<<<1, 256>>>(data, out); }
"""
    analysis, kernel = kernel_of(source)
    sync = analysis.kernel(kernel)
    clear, count = access_on_line(sync, 5, "write"), access_on_line(sync, 6, "atomic")
    assert sync.test(clear, count).result == CONFLICT
    # two atomics on one element are not a race: such pairs are never tested
    assert all(not (a.mode == b.mode == "atomic") for a, b, _ in sync.candidate_pairs())


def test_regions_split_at_a_runtime_size_are_not_claimed_to_overlap() -> None:
    source = """
#include <cuda_runtime.h>
__global__ void k(float* out, int cols) {
    extern __shared__ float smem[];
    float* a = smem;
    float* b = smem + cols;
    a[threadIdx.x] = 1.0f;
    out[threadIdx.x] = b[threadIdx.x];
}
void launch(float* out, int cols) { k<<<1, 256, 2 * cols * sizeof(float)>>>(out, cols); }
"""
    analysis, kernel = kernel_of(source)
    sync = analysis.kernel(kernel)
    result = sync.test(access_on_line(sync, 7, "write"), access_on_line(sync, 8, "read")).result
    assert result == UNKNOWN


def test_whole_struct_and_field_accesses_overlap() -> None:
    source = """
#include <cuda_runtime.h>
struct Pair { float a; float b; };
__global__ void k(float* out) {
    __shared__ Pair p;
    if (threadIdx.x == 0) { Pair q; q.a = 1.0f; q.b = 2.0f; p = q; }
    out[threadIdx.x] = p.a;
}
void launch(float* out) { k<<<1, 64>>>(out); }
"""
    analysis, kernel = kernel_of(source)
    races = analysis.races(kernel)
    assert [(r.first.mode, r.second.field) for r in races] == [("write", "a")]


# ------------------------------------------------------------------------------------ global-memory pairs


def _global_races(source: str) -> list[tuple[int, int, bool, bool]]:
    """(line of the first access, line of the second, across blocks, warp only) of each global race."""
    analysis, kernel = kernel_of(source)
    return [(r.first.expr.span.line, r.second.expr.span.line, r.across_blocks, r.warp_only)
            for r in analysis.global_races(kernel)]


_NEIGHBOUR = """
__global__ void k(float* x, float* y) {
    int i = blockIdx.x * 128 + threadIdx.x;
    x[i] = y[i];
    SYNC
    y[i] = x[i + 1];
}
void launch(float* x, float* y) { k<<<64, 128>>>(x, y); }
"""


def test_global_pairs_within_a_block_need_a_block_barrier() -> None:
    # thread t reads x[i + 1], which thread t + 1 stores (and, for t = 127, thread 0 of the next block)
    assert _global_races(_NEIGHBOUR.replace("SYNC", "")) == [(4, 6, False, False), (4, 6, True, False)]


def test_a_block_barrier_leaves_the_pair_between_blocks() -> None:
    # thread 127 of block b reads x[128 * (b + 1)], which thread 0 of block b + 1 stores
    assert _global_races(_NEIGHBOUR.replace("SYNC", "__syncthreads();")) == [(4, 6, True, False)]


def test_global_pairs_skip_atomics_and_one_uniform_value() -> None:
    source = """
__global__ void k(int* count, int* flag, int* out) {
    atomicAdd(&count[0], 1);
    out[threadIdx.x] = count[0];
    flag[0] = 1;
    if (threadIdx.x == 0) flag[0] = 1;
}
void launch(int* count, int* flag, int* out) { k<<<1, 256>>>(count, flag, out); }
"""
    assert _global_races(source) == []


def test_global_pairs_stay_silent_in_code_that_takes_a_lock() -> None:
    source = """
__global__ void k(int* lock, float* x) {
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) {}
        x[0] = x[1] + 1.0f;
        x[1] = x[0];
        atomicExch(lock, 0);
    }
}
void launch(int* lock, float* x) { k<<<64, 32>>>(lock, x); }
"""
    assert _global_races(source) == []
