"""Index arithmetic in 32-bit `int` that exceeds 2^31 - 1 at the reference problem's shapes.

A flat index computed in `int` (`((n * C + c) * H + h) * W + w`, `row * cols + col`) is right until the
tensor it walks has 2^31 elements; at the reference's shapes (`harness.shapes`) the launch's grid, block
and scalar arguments are known, so the kernel can be run for one thread: `KernelRun` follows its
statements (`HostRun`) with that thread's `blockIdx`/`threadIdx`, and an index expression whose exact
value there is past the `int` range is an overflow that the harness's run meets.

The thread is searched, not guessed: along each axis, the largest block index and then the largest
thread index for which the expression is still reached (guards such as `if (idx >= total) return;`
evaluate at each probe), so the witness is the last thread that computes the index. A visit counts only
when every condition on the way evaluated: a branch on loaded data, a loop cut short, a statement not
followed make what they hold uncertain, and nothing there is reported. Only launches that handle a
tensor (or a grid) of 2^31 elements or more are searched: an index into smaller tensors that passed
2^31 would already be out of bounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import AXES, definitions, strip
from cudalint.harness.host_run import HostRun, ShapeEnv, TensorArgument
from cudalint.harness.shapes import (
    ShapedLaunch, is_signed_int32, kernel_env_at_reference, reached_launches_at_reference,
)
from cudalint.model import ir

INT32_MAX = 2**31 - 1
_ARITHMETIC = {"+", "-", "*", "<<"}
_BUILTINS = {"threadIdx": "tid", "blockIdx": "bid", "blockDim": "bdim", "gridDim": "gdim"}


@dataclass(frozen=True)
class IndexOverflow:
    shaped: ShapedLaunch
    kernel: ir.Function
    expr: ir.Expr  # the index expression computed in 32 bits
    value: int  # its exact value for the witness thread (the largest over the loop iterations it runs)
    thread: tuple[tuple[str, int], ...]  # ("blockIdx.x", 138383), ("threadIdx.x", 255)


def index_overflows(ctx) -> list[IndexOverflow]:
    """The 32-bit index expressions of the kernels reached at the reference's shapes whose value passes
    2^31 - 1 for a thread the launch runs; one per expression."""
    program = ctx.program
    found: dict[tuple, IndexOverflow] = {}
    for shaped in reached_launches_at_reference(ctx):
        launch = shaped.at_reference
        at_reference = kernel_env_at_reference(program, shaped)
        if at_reference is None or launch.grid is None or launch.block is None \
                or None in launch.grid or None in launch.block or not _handles_2g_elements(launch):
            continue
        kernel, env = at_reference
        for expr in _int32_index_expressions(program, kernel):
            if expr.span in found:
                continue
            overflow = _witness(kernel, env, expr, launch.grid, launch.block)
            if overflow is not None:
                found[expr.span] = IndexOverflow(shaped, kernel, expr, *overflow)
    return list(found.values())


def _handles_2g_elements(launch) -> bool:
    tensors = [value.shape for value in (launch.env.state or {}).values() if isinstance(value, TensorArgument)]
    tensors += list(launch.env.shapes.values())
    return prod(launch.grid) * prod(launch.block) > INT32_MAX or any(prod(shape) > INT32_MAX for shape in tensors)


def _int32_index_expressions(program, kernel: ir.Function) -> list[ir.Expr]:
    """The outermost signed 32-bit arithmetic of the kernel's global-memory subscripts and of the locals
    those subscripts read (through any number of locals), and the arithmetic stored into such a local
    when it is signed 32-bit (`int i = blockIdx.x * blockDim.x + threadIdx.x` is unsigned arithmetic
    converted to int)."""
    analysis = GuardAnalysis.of(program)
    roots: list[ir.Expr] = []
    for access in analysis.accesses(kernel):
        if access.space in ("param", "global") and not isinstance(access.node, ir.Call):
            roots += access.parts
    seen: set[str] = set()
    stack = list(roots)
    stored: list[ir.Expr] = []  # arithmetic of any type stored into a signed 32-bit local
    while stack:
        for node in stack.pop().walk():
            if isinstance(node, ir.Name) and node.ref and node.ref not in seen and node.decl_kind == "var":
                seen.add(node.ref)
                values = definitions(kernel, node.ref)
                roots += values
                stack += values
                if is_signed_int32(node.type):
                    stored += [v for v in values if isinstance(v, ir.Binary) and v.op in _ARITHMETIC]
    found: list[ir.Expr] = []
    ids: set[int] = set()
    stored_ids = {id(v) for v in stored}
    for root in stored + roots:
        for node in [root] if id(root) in stored_ids else outermost_int32(root):
            if id(node) not in ids:
                ids.add(id(node))
                found.append(node)
    return found


def outermost_int32(expr: ir.Expr) -> list[ir.Expr]:
    """The outermost signed 32-bit additions, subtractions, products and shifts in `expr`."""
    expr = strip(expr)
    if isinstance(expr, ir.Binary) and expr.op in _ARITHMETIC and is_signed_int32(expr.type):
        return [expr]
    return [inner for child in expr.children() if isinstance(child, ir.Expr) for inner in outermost_int32(child)]


class _ThreadEnv(ShapeEnv):
    """The kernel's values for one thread: its scalar arguments and the builtins of the launch."""

    def __init__(self, env: ShapeEnv, kernel: ir.Function, builtins: dict[str, int]) -> None:
        super().__init__(kernel, env.outer, {}, env.arguments)
        self.builtins = builtins  # "tid.x" -> 255

    def value(self, expr: ir.Expr | None, depth: int = 0) -> int | float | None:
        if isinstance(expr, ir.Member) and isinstance(expr.base, ir.Name) and expr.base.name in _BUILTINS:
            return self.builtins.get(f"{_BUILTINS[expr.base.name]}.{expr.field}")
        return super().value(expr, depth)


class _Reached(Exception):
    """The probe's expression was reached: the run needs to go no further."""


class KernelRun(HostRun):
    """One thread's run of a kernel, watching one expression: `highest` is its largest value over the
    visits that certainly happen (None when none does); `stop` ends the run at the first such visit."""

    def __init__(self, kernel: ir.Function, env: _ThreadEnv, expr: ir.Expr, stop: bool) -> None:
        self.expr, self.stop = expr, stop
        self.highest: int | None = None
        try:
            super().__init__(kernel, env, [expr])
        except _Reached:
            pass

    def _record(self, point: ir.Node, state: dict) -> None:
        if point is not self.expr or self.guessing:
            return
        value = self._value(point, state)
        if not isinstance(value, int):
            return
        self.highest = value if self.highest is None else max(self.highest, value)
        if self.stop:
            raise _Reached


def _witness(kernel: ir.Function, env: ShapeEnv, expr: ir.Expr, grid, block):
    """(value, thread) for the last thread reaching `expr` when its value there passes INT32_MAX."""
    extents = {}
    for axis, blocks, threads in zip(AXES, grid, block):
        extents["bid." + axis], extents["tid." + axis] = blocks, threads
    builtins = {f"bdim.{axis}": threads for axis, threads in zip(AXES, block)}
    builtins |= {f"gdim.{axis}": blocks for axis, blocks in zip(AXES, grid)}
    builtins |= {key: 0 for key in extents}

    thread_env = _ThreadEnv(env, kernel, builtins)  # the probes change `builtins` in place

    def run(stop: bool) -> KernelRun:
        return KernelRun(kernel, thread_env, expr, stop)

    if run(True).highest is None:
        return None
    for axis in reversed(AXES):
        for key in ("bid." + axis, "tid." + axis):
            if extents[key] == 1:
                continue
            low, high = 0, extents[key] - 1  # reached at low
            builtins[key] = high
            if run(True).highest is not None:
                continue
            while high - low > 1:
                builtins[key] = (low + high) // 2
                if run(True).highest is not None:
                    low = builtins[key]
                else:
                    high = builtins[key]
            builtins[key] = low
    highest = run(False).highest
    if highest is None or highest <= INT32_MAX:
        return None
    names = {"bid": "blockIdx", "tid": "threadIdx"}
    thread = tuple((f"{names[key[:3]]}.{key[4:]}", builtins[key]) for key in extents if extents[key] > 1)
    return highest, thread
