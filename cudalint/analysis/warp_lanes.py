"""What the lanes of one warp access together: the facts the performance advisories are decided on.

The 32 lanes of a warp issue a memory instruction together; how their addresses spread decides its cost.
Lanes are numbered along threadIdx.x first, then y, then z, so a warp of a (32, 8) block holds
threadIdx.x = 0..31 of one row. Two views of an access:

- `lane_stride`: the address as a polynomial, and the uniform coefficient of the thread index the lanes
  step along (a warp-uniform row length `K` in `a[row * K + k]` with `row` from threadIdx.x). Used for
  global memory, whose strides are usually runtime sizes.
- `warp_offsets`: the element offsets the active lanes of the first warps touch, evaluated lane by lane
  for the launch's block size and the first iterations of the loops around the access (dominating
  guards switch lanes off). Used for shared memory, whose indices are built from constants and counters.

Both give up (None) where the address is not decided by the lane: an index loaded from memory, a
thread-dependent variable assigned more than once that is no loop counter, a template parameter.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import AXES
from cudalint.analysis.launch_link import LaunchLinks
from cudalint.analysis.pointer_accesses import Access
from cudalint.analysis.ranges import Evaluator, _loop_of, _references, _step_function
from cudalint.analysis.symbolic import BLOCK_DIM, THREAD_IDX, Atom, Poly
from cudalint.model import ir
from cudalint.model.constants import Dim3
from cudalint.model.program import Program

WARP_SIZE = 32
_MIN_LANE_EXTENT = 8  # a block narrower along x puts lanes of several rows in one warp
_ITERATIONS = 2  # iterations of each enclosing loop evaluated (the first ones: a pattern shows at once)
_VARIED_LOOPS = 3  # the innermost loops whose iterations are varied; outer ones stay at their first
_ELEMENT_BYTES = {
    "char": 1, "signed char": 1, "unsigned char": 1, "int8_t": 1, "uint8_t": 1, "bool": 1,
    "short": 2, "unsigned short": 2, "int16_t": 2, "uint16_t": 2, "half": 2, "__half": 2,
    "__nv_bfloat16": 2, "nv_bfloat16": 2, "at::Half": 2, "at::BFloat16": 2, "c10::Half": 2, "c10::BFloat16": 2,
    "int": 4, "unsigned int": 4, "unsigned": 4, "int32_t": 4, "uint32_t": 4, "float": 4, "half2": 4,
    "__half2": 4, "__nv_bfloat162": 4,
    "double": 8, "long": 8, "long long": 8, "unsigned long": 8, "int64_t": 8, "uint64_t": 8, "size_t": 8,
    "float2": 8, "int2": 8, "float4": 16, "int4": 16, "double2": 16,
}
_QUALIFIERS = re.compile(r"\b(const|volatile|__restrict__|__restrict|restrict)\b")


def element_bytes(type_: str) -> int | None:
    """The size of the element a pointer or array type points to (`const float *` -> 4), when known."""
    base = _QUALIFIERS.sub("", type_.split("[")[0]).replace("*", " ").replace("&", " ")
    return _ELEMENT_BYTES.get(" ".join(base.split()))


def lane_axis(blocks: list[Dim3]) -> str:
    """The thread axis consecutive lanes step along: x, unless every known block is one thread wide."""
    if blocks and all(block[0] == 1 for block in blocks):
        return "y" if not all(block[1] == 1 for block in blocks) else "z"
    return "x"


@dataclass(frozen=True)
class LaneStride:
    """How far apart, in elements, consecutive lanes' addresses are."""

    axis: str  # the thread axis the lanes step along
    coefficient: Poly  # the stride, warp-uniform: a constant, or sizes such as `K` or `H * W`
    value: int | None  # the stride for the kernel's known block sizes, when it is a constant


class WarpLanes:
    """Lane-level views of the accesses of a program's kernels (`WarpLanes.of(program)`)."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.guards = GuardAnalysis.of(program)
        self.links = LaunchLinks.of(program)
        self._bounds: dict[int, frozenset[str]] = {}

    @staticmethod
    def of(program: Program) -> WarpLanes:
        return program.analysis(WarpLanes)

    def blocks(self, kernel: ir.Function) -> list[Dim3]:
        return self.links.block_sizes(kernel)

    def is_extent(self, kernel: ir.Function, poly: Poly) -> bool:
        """Whether `poly` is built from extents: constants, blockDim, and variables that bound an index in
        some guard or loop condition of the kernel (`k < K`, `if (col >= N) return;`). A row length is
        one; a convolution's stride or dilation, which bound nothing, is not."""
        bounds = self._bounding_refs(kernel)
        return all(atom.kind == BLOCK_DIM or (atom.kind == "var" and atom.key in bounds) for atom in poly.atoms())

    def _bounding_refs(self, kernel: ir.Function) -> frozenset[str]:
        key = id(kernel)
        if key not in self._bounds:
            guards = self.guards.guards(kernel)
            provenance = self.guards.provenance(kernel)
            refs = {atom.key for condition in guards.all_conditions() for comparison in guards.comparisons_of(condition)
                    for _subject, limit, _inclusive in comparison.upper_bounds() if provenance.is_size_like(limit)
                    for atom in provenance.poly(limit).atoms() if atom.kind == "var"}
            self._bounds[key] = frozenset(refs)
        return self._bounds[key]

    # ------------------------------------------------------------------------------------ strides

    def lane_stride(self, kernel: ir.Function, access: Access) -> LaneStride | None:
        """The stride between consecutive lanes of the address of `access` (its offsets and subscripts
        summed, in elements), or None when the address is not affine in the lane's thread index with a
        warp-uniform coefficient."""
        if access.root.retyped or len(access.indices) > 1:
            return None
        provenance = self.guards.provenance(kernel)
        dependence = provenance.dependence
        poly = provenance.index_poly(access)
        poly = self._counters_as_starts(kernel, access, poly)
        if poly is None:
            return None
        blocks = self.blocks(kernel)
        axis = lane_axis(blocks)
        if axis == "x" and any(1 < block[0] < _MIN_LANE_EXTENT for block in blocks):
            return None  # a warp spans several rows of a narrow block: its lanes step along y as well
        lane = Atom(THREAD_IDX, axis, f"threadIdx.{axis}")
        for monomial in poly.terms:
            threads = [a for a in monomial if a.kind == THREAD_IDX]
            if len(threads) > 1:
                return None
            for atom in monomial:
                if atom.kind == "var" and atom.key in dependence.dependent_refs:
                    return None
                if atom.kind == "opaque":
                    expr = provenance.symbolizer.opaque_exprs.get(atom)
                    if expr is None or dependence.is_dependent(expr) or (threads and not provenance.is_size_like(expr)):
                        return None
        coefficient = poly.coefficient(lane)
        if coefficient is None or not coefficient.terms:
            return None
        return LaneStride(axis, coefficient, _value_for_blocks(coefficient, blocks))

    def _counters_as_starts(self, kernel: ir.Function, access: Access, poly: Poly) -> Poly | None:
        """`poly` with each thread-dependent counter of an enclosing loop that steps by a uniform amount
        (`for (row = blockIdx.x * blockDim.x + threadIdx.x; ...; row += stride)`) replaced by its start:
        the steps move every lane alike. None when another thread-dependent variable is in the address."""
        provenance = self.guards.provenance(kernel)
        dependence = provenance.dependence
        loops = {loop.ref: loop for loop in map(_loop_of, self.guards.guards(kernel).loops(access.node))
                 if loop is not None}
        for atom in sorted(poly.atoms()):
            if atom.kind != "var" or atom.key not in dependence.dependent_refs:
                continue
            loop = loops.get(atom.key)
            if loop is None or not _uniform_step(loop.step, dependence):
                return None
            factor = poly.coefficient(atom)
            if factor is None:
                return None
            start = provenance.poly(loop.init)
            if any(a.kind == "var" and a.key in dependence.dependent_refs for a in start.atoms()):
                return None
            poly = poly.without(atom) + factor * start
        return poly

    # --------------------------------------------------------------------------------- evaluation

    def warp_offsets(self, kernel: ir.Function, access: Access, parts: list[ir.Expr]) -> list[list[int]] | None:
        """The element offsets (the sum of `parts`) of the active lanes, one list per warp instruction:
        the first two warps of each known block size, at the first two iterations of the innermost three
        loops around the access. None when some active lane's offset cannot be evaluated, no block size
        is known, or the offset does not depend on the thread."""
        blocks = self.blocks(kernel)
        if not blocks:
            return None
        env = self.program.env(kernel)
        guards = self.guards.guards(kernel)
        refs, builtins, templated = _references(parts, env)
        if templated or not any(name.startswith("tid.") for name in builtins):
            return None  # an offset the same for every lane is a broadcast: nothing to tell apart
        loops = [loop for loop in map(_loop_of, guards.loops(access.node)) if loop is not None]
        loop_refs = set(refs)
        for loop in reversed(loops):  # the bounds of an inner loop may use an outer counter
            if loop.ref in loop_refs:
                loop_refs |= _references([loop.init, loop.cond], env)[0]
        loops = [loop for loop in loops if loop.ref in loop_refs]
        keys = {loop.ref: "var:" + loop.ref for loop in loops}
        evaluator = Evaluator(env, keys)
        offsets = [evaluator.compile(part) for part in parts]
        conditions = [(evaluator.compile(c.expr), c.holds) for c in guards.conditions(access.node)]
        plans = [(evaluator.compile(loop.init), evaluator.compile(loop.cond),
                  _step_function(loop, evaluator, keys[loop.ref]), keys[loop.ref]) for loop in loops]
        instructions: list[list[int]] = []
        varied = min(len(plans), _VARIED_LOOPS)
        for block in blocks:
            threads = block[0] * block[1] * block[2]
            for warp in range(min(2, -(-threads // WARP_SIZE))):
                for inner in itertools.product(range(_ITERATIONS), repeat=varied):
                    trips = (0,) * (len(plans) - varied) + inner
                    lanes: list[int] = []
                    for lane in range(warp * WARP_SIZE, min(threads, (warp + 1) * WARP_SIZE)):
                        point = _thread_point(block, lane)
                        if not _enter_loops(plans, trips, point):
                            continue
                        if any(value is not None and bool(value) != holds
                               for value, holds in ((condition(point), holds) for condition, holds in conditions)):
                            continue
                        total = 0
                        for offset in offsets:
                            value = offset(point)
                            if not isinstance(value, int):
                                return None
                            total += value
                        lanes.append(total)
                    if lanes:
                        instructions.append(lanes)
        return instructions or None


def _thread_point(block: Dim3, linear: int) -> dict[str, int]:
    x, y, _ = block
    point = {"bdim." + axis: extent for axis, extent in zip(AXES, block)}
    point["tid.x"], point["tid.y"], point["tid.z"] = linear % x, linear // x % y, linear // (x * y)
    return point


def _enter_loops(plans, trips: tuple[int, ...], point: dict[str, int]) -> bool:
    """Run each loop (outermost first) to its iteration in `trips`; False when the lane has left it by
    then. A condition that cannot be evaluated (a runtime bound) is taken as true."""
    for (init, cond, step, key), count in zip(plans, trips):
        value = init(point)
        for trip in range(count + 1):
            if not isinstance(value, int):
                return False
            point[key] = value
            test = cond(point)
            if test is not None and not test:
                return False
            if trip < count:
                value = step(point)
    return True


def _uniform_step(step: ir.Expr, dependence) -> bool:
    if isinstance(step, ir.Unary):
        return True
    return isinstance(step, ir.Binary) and step.op in ("+=", "-=") and not dependence.is_dependent(step.rhs)


def _value_for_blocks(poly: Poly, blocks: list[Dim3]) -> int | None:
    """The value of `poly` when it is the same constant for every known block size (blockDim filled in)."""
    values = set()
    for block in blocks or [None]:
        total = 0
        for monomial, coefficient in poly.terms.items():
            term = coefficient
            for atom in monomial:
                if atom.kind == BLOCK_DIM and block is not None:
                    term *= block[AXES.index(atom.key)]
                else:
                    return None
            total += term
        values.add(total)
    return values.pop() if len(values) == 1 else None


def flat_subscripts(access: Access) -> list[ir.Expr] | None:
    """The parts whose sum is the element offset of an access into an array with constant dimensions:
    `tile[i][j]` of `float tile[32][33]` as [i * 33, j] (the multiplication made explicit), pointer
    offsets of a one-dimensional array included. None when a dimension is unknown or the subscripts do
    not reach an element."""
    decl = access.root.decl
    if decl is None:
        return None
    dims = decl.dims or [None]
    if len(access.indices) != len(dims) or access.root.retyped or (access.root.offsets and len(dims) > 1):
        return None
    if len(dims) > 1 and None in dims[1:]:
        return None
    parts: list[ir.Expr] = list(access.root.offsets)
    for position, index in enumerate(access.indices):
        scale = 1
        for extent in dims[position + 1:]:
            scale *= extent  # type: ignore[operator]
        parts.append(index if scale == 1 else _scaled(index, scale))
    return parts


def _scaled(expr: ir.Expr, factor: int) -> ir.Expr:
    const = ir.Const(expr.span, str(factor), "int", factor)
    return ir.Binary(expr.span, f"({expr.text}) * {factor}", expr.type, "*", expr, const)
