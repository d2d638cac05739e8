"""Unit tests of the memory-safety analyses (guards, accesses, provenance, launch links, ranges) and of
the fixes CL201, CL202 and CL204 attach: the fixed code must lint free of the finding."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import cudalint
from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import comparisons_of
from cudalint.analysis.launch_link import CAPPED, CEIL, EXACT, FLOOR, UNKNOWN, LaunchLinks
from cudalint.analysis.provenance import global_axes
from cudalint.analysis.ranges import Evaluator, RangeAnalysis
from cudalint.analysis.symbolic import Atom, Poly
from cudalint.frontend import lower_unit
from cudalint.harness.host_run import ShapeEnv
from cudalint.model import ir
from cudalint.model.constants import type_size
from cudalint.model.program import Program, build_program
from cudalint.sources import load_document

FIXTURES = Path(__file__).parent / "fixtures" / "rules"


def program_of(source: str, filename: str = "kernel.cu") -> Program:
    document = load_document(filename, source)
    unit = next(u for u in document.units if u.language == "cuda")
    lowered = lower_unit(unit)
    return build_program(unit, lowered.functions, lowered.globals)


def function(program: Program, name: str) -> ir.Function:
    return next(f for f in program.functions if f.name == name)


def access(program: Program, kernel: ir.Function, text: str):
    found = [a for a in GuardAnalysis.of(program).accesses(kernel) if " ".join(a.node.text.split()) == text]
    assert found, f"no access {text!r} in {[a.node.text for a in GuardAnalysis.of(program).accesses(kernel)]}"
    return found[0]


def apply_edits(text: str, findings) -> str:
    """Apply the (deduplicated) edits of the findings' fixes: 1-based positions, end exclusive."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    edits = {(e.line, e.column, e.end_line, e.end_column, e.text) for f in findings if f.fix for e in f.fix.edits}
    offsets = sorted(((starts[l - 1] + c - 1, starts[el - 1] + ec - 1, t) for l, c, el, ec, t in edits), reverse=True)
    for start, end, replacement in offsets:
        text = text[:start] + replacement + text[end:]
    return text


def codes(findings, *wanted: str) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in findings if f.code in wanted)


# ------------------------------------------------------------------------------------------ guards

GUARDED = """
__global__ void k(const float* x, float* y, int n, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= m) return;
    bool ok = i + 1 < n;
    if (ok && x[i] > 0.0f) {
        y[i] = x[i + 1];
    } else {
        y[i] = (j < 4) ? x[j] : 0.0f;
    }
    for (int k = i; k < n; k += gridDim.x * blockDim.x) y[k] += 1.0f;
    while (j < m) { y[j] = 0.0f; j += 4; }
}
"""


def test_guards_record_early_exits_branches_loops_and_short_circuits():
    program = program_of(GUARDED)
    kernel = function(program, "k")
    guards = GuardAnalysis.of(program).guards(kernel)

    def facts(text):
        return {(" ".join(c.lhs.text.split()), c.op, " ".join(c.rhs.text.split()))
                for c in guards.comparisons(access(program, kernel, text).node)}

    then_facts = facts("y[i] = x[i + 1]".split(" = ")[0])
    assert {("i", "<", "n"), ("j", "<", "m"), ("i + 1", "<", "n")} <= then_facts  # early exit, boolean local
    assert ("x[i]", ">", "0.0f") in then_facts  # && chain
    assert ("j", "<", "4") in facts("x[j]")  # ?: branch
    assert ("k", "<", "n") in facts("y[k]")  # loop condition
    assert ("j", "<", "m") in facts("y[j]")  # while condition
    # the rhs of && sees the lhs
    load = [a for a in GuardAnalysis.of(program).accesses(kernel) if a.node.text == "x[i]"][0]
    assert ("i + 1", "<", "n") in {(c.lhs.text, c.op, c.rhs.text) for c in guards.comparisons(load.node)}


def test_negated_disjunction_splits_and_negated_conjunction_gives_nothing():
    program = program_of("""
__global__ void k(float* y, int n, int m) {
    int i = threadIdx.x;
    if (!(i < n && i < m)) { y[0] = 1.0f; }
    if (!(i >= n || i >= m)) { y[1] = 1.0f; }
}""")
    kernel = function(program, "k")
    guards = GuardAnalysis.of(program).guards(kernel)
    first = access(program, kernel, "y[0]")
    second = access(program, kernel, "y[1]")
    assert guards.comparisons(first.node) == []
    assert {(c.lhs.text, c.op, c.rhs.text) for c in guards.comparisons(second.node)} == {("i", "<", "n"),
                                                                                          ("i", "<", "m")}
    condition = guards.conditions(second.node)[0]
    assert len(comparisons_of(condition)) == 2


# ------------------------------------------------------------------------------------------ accesses


def test_accesses_follow_pointer_arithmetic_to_their_roots():
    program = program_of("""
#include <mma.h>
using namespace nvcuda;
__global__ void k(const float* x, float* out, const half* a, float* c, int cols) {
    __shared__ float tile[16][17];
    const float* row = x + (size_t)blockIdx.x * cols;
    float v = row[threadIdx.x] + *(x + threadIdx.x) + __ldg(&x[threadIdx.y]);
    tile[threadIdx.y][threadIdx.x] = v;
    atomicAdd(&out[blockIdx.x], v);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f;
    wmma::load_matrix_sync(f, a + blockIdx.y * 256, 16);
}""")
    kernel = function(program, "k")
    found = {" ".join(a.node.text.split()): a for a in GuardAnalysis.of(program).accesses(kernel)}
    row = found["row[threadIdx.x]"]
    assert (row.space, row.root.name, [o.text for o in row.root.offsets]) == ("param", "x",
                                                                              ["(size_t)blockIdx.x * cols"])
    assert found["*(x + threadIdx.x)"].root.offsets[0].text == "threadIdx.x"
    assert found["__ldg(&x[threadIdx.y])"].root.offsets[0].text == "threadIdx.y"
    tile = found["tile[threadIdx.y][threadIdx.x]"]
    assert tile.space == "shared" and tile.root.decl.dims == [16, 17] and tile.is_write
    atomic = found["atomicAdd(&out[blockIdx.x], v)"]
    assert atomic.root.name == "out" and atomic.is_write
    assert found["wmma::load_matrix_sync(f, a + blockIdx.y * 256, 16)"].root.name == "a"
    assert "&out[blockIdx.x]" not in found and "out[blockIdx.x]" not in found  # one access per atomic


# ---------------------------------------------------------------------------------------- provenance

PROVENANCE = """
__global__ void k(const float* x, const int* idx, float* y, int M, int N, int K) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int r2 = i / N;
    int c2 = i % N;
    int tile_col = blockIdx.x * 16 + threadIdx.x;
    int clamped = min(i, M - 1);
    int lane = threadIdx.x;
    int per_row = blockIdx.x * N + threadIdx.x;
    y[row * K + i] = x[r2 * N + c2] + x[clamped] + x[lane] + x[per_row] + x[tile_col] + x[idx[i]];
    for (int s = i; s < M; s += blockDim.x * gridDim.x) y[s] = 0.0f;
}
"""


def test_provenance_of_indices():
    program = program_of(PROVENANCE)
    kernel = function(program, "k")
    analysis = GuardAnalysis.of(program)
    provenance = analysis.provenance(kernel)

    def of(text):
        return provenance.access_provenance(access(program, kernel, text))

    assert of("y[row * K + i]").axes == {"x", "y"}  # scaled row index still counts
    assert of("x[r2 * N + c2]").axes == {"x"}  # derived through division; the modulo is bounded
    assert of("x[clamped]").empty  # min clamp
    assert of("x[lane]").empty  # threadIdx alone: bounded by the block
    assert of("x[per_row]").empty  # one block per row of N: not the global thread index
    assert of("x[tile_col]").axes == {"x"}  # blockIdx times a tile constant
    assert of("x[idx[i]]").unknown  # index loaded from memory
    stride = of("y[s]")
    assert stride.variables and not stride.axes
    (ref,) = stride.variables
    assert provenance.variable_axes(ref) == {"x"} and provenance.is_stepped(ref)


def test_global_axis_needs_block_times_block_dim_and_thread():
    tid, bid, bdim = (Poly.atom(Atom(k, "x", f"{k}.x")) for k in ("tid", "bid", "bdim"))
    tid_y = Poly.atom(Atom("tid", "y", "threadIdx.y"))
    n = Poly.atom(Atom("var", "n", "n"))
    assert "x" in global_axes(bid * bdim + tid)
    assert "x" in global_axes((bid * bdim + tid) * n + Poly.const(3))
    assert "x" in global_axes(bid * Poly.const(64) + tid)
    assert "x" not in global_axes(bid * n + tid)
    assert "x" not in global_axes(bid * bdim)
    assert "y" not in global_axes(bid * bdim + tid)
    assert "x" in global_axes(bid * Poly.const(4) + tid_y)  # rows of a 2-D block: blockIdx.x * ROWS + threadIdx.y
    assert "x" not in global_axes(Poly() - bid * bdim - tid, positive=True)


# ---------------------------------------------------------------------------------------- launch link

LAUNCHES = """
#define TILE 16
__global__ void k1(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
__global__ void __launch_bounds__(512) k2(float* y) { y[threadIdx.x] = 0.0f; }
void host(const float* x, float* y, int n, int rows, int num_blocks) {
    const int threads = 256;
    k1<<<(n + threads - 1) / threads, threads>>>(x, y, n);
    k1<<<n / threads, threads>>>(x, y, n);
    k1<<<rows, 128>>>(x, y, rows * 128);
    k1<<<min((n + 255) / 256, 1024), 256>>>(x, y, n);
    k1<<<num_blocks, 256>>>(x, y, n);
    int size = n * 4;
    dim3 grid((size + TILE - 1) / TILE, rows / TILE);
    k1<<<grid, dim3(TILE, TILE)>>>(x, y, size);
    k1<<<(4096 + 255) / 256, 256>>>(x, y, 4096);
}
"""


def test_launch_links_classify_grids_and_find_size_parameters():
    program = program_of(LAUNCHES)
    links = LaunchLinks.of(program)
    kinds = [(link.grid[0].kind, link.grid[1].kind) for link in links.links]
    assert kinds == [(CEIL, EXACT), (FLOOR, EXACT), (EXACT, EXACT), (CAPPED, EXACT), (UNKNOWN, EXACT),
                     (CEIL, FLOOR), (EXACT, EXACT)]
    first, second = links.links[0], links.links[1]
    assert first.grid[0].size_params == [2] and second.grid[0].size_params == [2]
    assert second.grid[0].division is not None and second.grid[0].divisor_value == 256
    assert links.links[5].grid[0].size_params == [2]  # `size` is the third argument
    assert links.links[5].block == (16, 16, 1)
    k1, k2 = function(program, "k1"), function(program, "k2")
    assert links.block_sizes(k1) == [(256, 1, 1), (128, 1, 1), (16, 16, 1)]
    assert links.block_sizes(k2) == [(512, 1, 1)]  # __launch_bounds__ without a launch
    assert links.grid_can_overshoot(k1, "x")
    assert links.grid_can_overshoot(k2, "x")  # no launch: anything goes


def test_grid_that_cannot_overshoot():
    program = program_of("""
__global__ void k(float* y) { y[blockIdx.x * blockDim.x + threadIdx.x] = 0.0f; }
void host(float* y, int rows) { k<<<rows, 128>>>(y); }""")
    assert not LaunchLinks.of(program).grid_can_overshoot(function(program, "k"), "x")


# --------------------------------------------------------------------------------------------- ranges

REDUCTIONS = """
#define B 256
__global__ void k(const float* x, float* out) {
    __shared__ float s[B];
    __shared__ float w[B / 32];
    int tid = threadIdx.x;
    int lane = tid % 32;
    s[tid] = x[tid];
    for (int st = blockDim.x / 2; st > 0; st >>= 1) { if (tid < st) s[tid] += s[tid + st]; }
    for (int st = blockDim.x; st > 0; st >>= 1) { if (tid < st) s[tid] += s[tid + st]; }
    for (int st = 1; st < blockDim.x; st *= 2) { if (tid % (2 * st) == 0) s[tid] += s[tid + st]; }
    if (tid < 32) out[0] = (lane < B / 32) ? w[lane] : 0.0f;
    if (tid < 32) out[1] = w[lane];
    out[2] = s[tid - 1];
}
void host(const float* x, float* out) { k<<<1, B>>>(x, out); }
"""


def test_range_witnesses():
    program = program_of(REDUCTIONS)
    kernel = function(program, "k")
    ranges = RangeAnalysis.of(program)
    shared = [a for a in GuardAnalysis.of(program).accesses(kernel) if a.space == "shared"]

    def witness(text, nth=0):
        matches = [a for a in shared if " ".join(a.node.text.split()) == text]
        return ranges.array_witness(kernel, kernel, matches[nth], 0, matches[nth].root.decl.dims[0])

    assert witness("s[tid]") is None
    assert witness("s[tid + st]", 0) is None  # tid < st <= 128
    found = witness("s[tid + st]", 1)  # st starts at blockDim.x
    assert found is not None and found.index >= 256 and ("threadIdx.x", 0) in found.values
    assert witness("s[tid + st]", 2) is None  # interleaved addressing stays in range
    assert witness("w[lane]", 0) is None  # guarded by lane < 8
    late = witness("w[lane]", 1)
    assert late is not None and late.index == 8
    negative = witness("s[tid - 1]")
    assert negative is not None and negative.index == -1


def test_range_is_silent_without_a_block_size():
    program = program_of("""
__global__ void k(const float* x, float* y) {
    __shared__ float s[256];
    s[threadIdx.x + 1] = x[threadIdx.x];
    y[0] = s[300];
}""")
    kernel = function(program, "k")
    ranges = RangeAnalysis.of(program)
    first, second = [a for a in GuardAnalysis.of(program).accesses(kernel) if a.space == "shared"]
    assert ranges.array_witness(kernel, kernel, first, 0, 256) is None
    assert ranges.array_witness(kernel, kernel, second, 0, 256).index == 300  # no thread involved


def test_evaluator_follows_c_integer_semantics():
    program = program_of("""
__global__ void k(float* y) {
    int a = -7 / 2;
    int b = -7 % 2;
    int c = (5 > 3) && (2 < 1);
    int d = min(4, 9) << 2;
    y[a + b + c + d] = 0.0f;
}""")
    kernel = function(program, "k")
    evaluator = Evaluator(program.env(kernel), {})
    decls = {n.name: n for n in kernel.body.walk() if isinstance(n, ir.VarDecl)}
    assert [evaluator.compile(decls[name].init)({}) for name in "abcd"] == [-3, -1, 0, 16]


# ---------------------------------------------------------------------------------------------- fixes
# (CL204: the floor-division findings carry the fix; the reference-shape ones say what to change instead)


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("CL201/bad_*")) + sorted(FIXTURES.glob("CL202/bad_*"))
                         + sorted(FIXTURES.glob("CL204/bad_floor_*")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixes_remove_the_finding(path: Path):
    code = path.parent.name
    text = path.read_text()
    findings = [f for f in cudalint.lint_source(text, filename=path.name) if f.code == code]
    assert findings
    fixable = [f for f in findings if f.fix is not None]
    # the guard fix needs a launch rounding its grid up: the kernels of bad_followed_sources.py have none
    if code != "CL201" or not any(name in path.name for name in ("guard_on_other", "followed_sources")):
        assert fixable, f"{path.name}: no fix attached"
    fixed = apply_edits(text, fixable)
    after = cudalint.lint_source(fixed, filename=path.name)
    assert not codes(after, "CL901", "CL900"), fixed
    remaining = codes(after, code)
    fixed_lines = len(fixable)
    assert len(remaining) <= len(findings) - fixed_lines, fixed


def test_cl201_fix_text():
    text = (FIXTURES / "CL201" / "bad_unguarded_1d.cu").read_text()
    findings = [f for f in cudalint.lint_source(text, filename="a.cu") if f.code == "CL201"]
    fixed = apply_edits(text, findings)
    assert "    if (idx < n) {\n    float v = x[idx];" in fixed
    assert "y[idx] = a * v;\n    }\n}" in fixed


def test_cl202_and_cl204_fix_text_in_python_files():
    text = (FIXTURES / "CL202" / "bad_load_inline.py").read_text()
    findings = [f for f in cudalint.lint_source(text, filename="a.py") if f.code == "CL202"]
    assert "if (idx < size) {" in apply_edits(text, findings)
    text = (FIXTURES / "CL204" / "bad_floor_load_inline.py").read_text()
    findings = [f for f in cudalint.lint_source(text, filename="a.py") if f.code == "CL204"]
    assert "const int num_blocks = (size + block_size - 1) / block_size;" in apply_edits(text, findings)
    text = (FIXTURES / "CL204" / "bad_floor_2d.cu").read_text()
    findings = [f for f in cudalint.lint_source(text, filename="a.cu") if f.code == "CL204"]
    assert "dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);" in apply_edits(text, findings)


def test_cl202_early_exit_fix():
    text = (FIXTURES / "CL202" / "bad_early_exit.cu").read_text()
    findings = [f for f in cudalint.lint_source(text, filename="a.cu") if f.code == "CL202"]
    fixed = apply_edits(text, findings)
    assert "if (i >= n) return;" in fixed
    assert not codes(cudalint.lint_source(fixed, filename="a.cu"), "CL202", "CL201")


def test_no_cl201_fix_when_a_barrier_follows():
    source = """
__global__ void k(const float* x, float* y, int n) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = x[i];
    __syncthreads();
    y[i] = s[255 - threadIdx.x];
}
void host(const float* x, float* y, int n) { k<<<(n + 255) / 256, 256>>>(x, y, n); }
"""
    findings = [f for f in cudalint.lint_source(source, filename="a.cu") if f.code == "CL201"]
    assert codes(findings, "CL201") == [(5, "CL201"), (7, "CL201")]
    assert all(f.fix is None for f in findings)


# ----------------------------------------------------------------------------------------- performance


def test_analyses_take_a_few_milliseconds_per_kernel():
    source = (FIXTURES / "CL203" / "good_block_equals_size.cu").read_text()
    options = cudalint.LintOptions(select=["CL201", "CL202", "CL203", "CL204", "CL205"])
    cudalint.lint_source(source, filename="a.cu", options=options)
    parse = cudalint.LintOptions(select=["CL901"])
    start = time.perf_counter()
    for _ in range(5):
        cudalint.lint_source(source, filename="a.cu", options=parse)
    baseline = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(5):
        cudalint.lint_source(source, filename="a.cu", options=options)
    with_rules = time.perf_counter() - start
    assert (with_rules - baseline) / 5 < 0.1  # generous for loaded CI machines; typically a few ms


# ----------------------------------------------------------------------------- dynamic shared buffers

CARVED = """
__global__ void k(const float* x, float* y, int n) {
    extern __shared__ char buf[];
    float* a = (float*)buf;
    float* b = a + blockDim.x;
    float4* v = (float4*)(b + 4);
    int tid = threadIdx.x;
    a[tid] = x[tid];
    b[tid] = x[tid];
    y[0] = a[tid + n];
    y[1] = v[0].x;
}
void host(const float* x, float* y) {
    dim3 block(128);
    k<<<1, block, 2 * block.x * sizeof(float)>>>(x, y, 64);
}
"""


def test_buffer_witness_counts_carved_offsets_in_the_accessed_type():
    program = program_of(CARVED)
    kernel = function(program, "k")
    ranges = RangeAnalysis.of(program)
    assert program.launches[0].shared_bytes == 1024  # `block.x` of the dim3 local is 128
    a, b = access(program, kernel, "a[tid]"), access(program, kernel, "b[tid]")
    assert ranges.buffer_witness(kernel, a, 128, (128, 1, 1)) is None
    found = ranges.buffer_witness(kernel, b, 128, (128, 1, 1))  # b starts at element 128
    assert found is not None and found.index == 128 and found.block_shape() == "128"
    assert ranges.buffer_witness(kernel, b, 256, (128, 1, 1)) is None
    # floats added before the cast to float4: the offset's units are not the accessed type's, so even an
    # empty buffer decides nothing (where `a[tid]` in it has a witness)
    assert ranges.buffer_witness(kernel, access(program, kernel, "v[0]"), 0, (128, 1, 1)) is None
    assert ranges.buffer_witness(kernel, a, 0, (128, 1, 1)) is not None
    # a parameter in the index: undecided, unless the launch's environment gives it a value
    shifted = access(program, kernel, "a[tid + n]")
    assert ranges.buffer_witness(kernel, shifted, 256, (128, 1, 1)) is None
    env = ShapeEnv(kernel, program.env(kernel).outer, {}, {kernel.params[2].ref: 192})
    late = ranges.buffer_witness(kernel, shifted, 256, (128, 1, 1), env)
    assert late is not None and late.index == 256 and ("threadIdx.x", 64) in late.values


def test_type_sizes_of_shared_element_types():
    assert [type_size(t) for t in ("float", "const float", "volatile int", "__half", "unsigned char", "float4",
                                   "double")] == [4, 4, 4, 2, 1, 16, 8]
    assert type_size("scalar_t") is None and type_size("float *") is None and type_size("Pair") is None
