"""Stores that many threads make to one global address (CL105): the same address for two threads of a block,
or of two blocks, with values that may differ between them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cudalint.analysis.accesses import element_name, product_of
from cudalint.analysis.cfg import CfgNode, Scope
from cudalint.analysis.conflicts import CONFLICT, NONE, block_bounds, block_var, decide, distinct, thread_bounds, thread_var
from cudalint.analysis.intervals import KernelSync, mentions_block_or_memory, value_dependent_expr
from cudalint.analysis.kernel_constraints import evaluated_exprs, guard_alternatives, linear_sum
from cudalint.analysis.linearizer import Linearizer, by_value_param_member
from cudalint.analysis.omega import Lin, eq
from cudalint.model import ir

if TYPE_CHECKING:
    from cudalint.analysis.barriers import SyncAnalysis


# ------------------------------------------------------------------------------- global store races (CL105)


@dataclass
class GlobalRace:
    """A store to global memory that many threads make to one address."""

    node: CfgNode
    store: ir.Expr  # the assignment (or ++/--)
    target: ir.Expr
    read_modify_write: bool  # `+=`, `++`, or a plain store of a value read from the same address
    within_block: bool  # several threads of one block store there
    across_blocks: bool  # threads of several blocks store there


@dataclass
class _GlobalAddress:
    root: str  # the parameter or __device__ variable the address is based on
    terms: list  # (expr, scale, scope)
    exact: bool = True


def _global_address(kernel: KernelSync, expr: ir.Expr, scope: Scope, depth: int = 0) -> _GlobalAddress | None:
    """The address `expr` (an lvalue) denotes, when it is global memory reached from a kernel parameter
    or a __device__ variable."""
    if depth > 20:
        return None
    if isinstance(expr, ir.Index):
        base = _global_pointer(kernel, expr.base, scope, depth + 1)
        if base is None:
            return None
        base.terms.append((expr.index, 1, scope))
        return base
    if isinstance(expr, ir.Unary) and expr.op == "*":
        return _global_pointer(kernel, expr.operand, scope, depth + 1)
    if isinstance(expr, ir.Name) and expr.ref:
        decl = kernel.analysis.device_globals.get(expr.ref)
        if decl is not None and not decl.dims:
            return _GlobalAddress(expr.ref, [])
    return None


def _global_pointer(kernel: KernelSync, expr: ir.Expr, scope: Scope, depth: int) -> _GlobalAddress | None:
    if depth > 20:
        return None
    if isinstance(expr, ir.Cast):
        inner = _global_pointer(kernel, expr.operand, scope, depth + 1)
        if inner is not None and element_name(expr.type) != element_name(expr.operand.type):
            inner.exact = False
        return inner
    if isinstance(expr, ir.Name) and expr.ref:
        bound = scope.binding(expr.ref)
        if bound is not None:
            return _global_pointer(kernel, bound[0], bound[1], depth + 1)
        if expr.decl_kind == "param" and scope.parent is None and "*" in expr.type:
            return _GlobalAddress(expr.ref, [])
        decl = kernel.analysis.device_globals.get(expr.ref)
        if decl is not None and decl.dims:
            return _GlobalAddress(expr.ref, [])
        definition = scope.env.definition(expr.ref)
        if definition is not None and "*" in expr.type:
            return _global_pointer(kernel, definition, scope, depth + 1)
        return None
    if isinstance(expr, ir.Binary) and expr.op in ("+", "-"):
        base = _global_pointer(kernel, expr.lhs, scope, depth + 1)
        if base is not None:
            base.terms.append((expr.rhs, -1 if expr.op == "-" else 1, scope))
            return base
        if expr.op == "+":
            base = _global_pointer(kernel, expr.rhs, scope, depth + 1)
            if base is not None:
                base.terms.append((expr.lhs, 1, scope))
            return base
        return None
    if isinstance(expr, ir.Unary) and expr.op == "&":
        return _global_address(kernel, expr.operand, scope, depth + 1)
    if isinstance(expr, (ir.Member, ir.Index)) and "*" in expr.type and by_value_param_member(expr, scope):
        # a pointer held in a struct the kernel takes by value (`args.out`, `q.p[4]`): one buffer per path
        return _GlobalAddress(" ".join(expr.text.split()), [])
    return None


_MTGP32_BLOCK_THREADS = 256  # the threads of one block that cuRAND lets share one MTGP32 state


def rng_state(call: ir.Call) -> ir.Expr | None:
    """The generator state a cuRAND device call advances (`curand_uniform(&s)`, `curand_init(seed, seq, off,
    &s)`): each call is a read-modify-write of the state."""
    name = call.callee.rsplit("::", 1)[-1]
    if not call.args or not (name.startswith("curand") or name.startswith("skipahead")):
        return None
    state = call.args[-1] if name == "curand_init" or name.startswith("skipahead") else call.args[0]
    type_ = state.type.replace(" ", "")
    if "*" not in type_ or "curandState" not in type_:
        return None
    return state


def _stores(node: CfgNode):
    """(store expression, target lvalue, value or None, compound) for the assignments a node makes, and for
    the cuRAND calls that advance a generator state (the target is the state)."""
    def is_atomic(expr: ir.Expr) -> bool:
        return isinstance(expr, ir.Call) and expr.callee.startswith("atomic")  # the fix, not the race

    for expr in evaluated_exprs(node, prune=is_atomic):
        if isinstance(expr, ir.Binary) and expr.is_assignment:
            yield expr, expr.lhs, expr.rhs, expr.op != "="
        elif isinstance(expr, ir.Unary) and expr.op in ("++", "--", "post++", "post--"):
            yield expr, expr.operand, None, True
        elif isinstance(expr, ir.Call) and (state := rng_state(expr)) is not None:
            yield expr, ir.Unary(state.span, f"*{state.text}", op="*", operand=state), None, True


def find_global_store_races(analysis: SyncAnalysis, function: ir.Function) -> list[GlobalRace]:
    kernel = analysis.kernel(function)
    if not function.is_kernel:
        return []
    cfg = kernel.cfg
    single_block = kernel.shape.grid == (1, 1, 1)
    # code that takes a lock (atomicCAS/atomicExch) orders its stores itself: stay silent
    locked = any(n.callee in ("atomicCAS", "atomicExch") for f in analysis.reachable(function)
                 for n in f.of_type(ir.Call))
    if locked:
        return []
    out = []
    for node in cfg.nodes:
        if node not in cfg.reachable:
            continue
        for store, target, value, compound in _stores(node):
            address = _global_address(kernel, target, node.scope)
            if address is None or not address.exact:
                continue
            rmw = compound or (value is not None and _reads_same(kernel, value, address, node.scope))
            within = _same_address(kernel, node, address, same_block=True)
            across = False if single_block else _same_address(kernel, node, address, same_block=False)
            if isinstance(store, ir.Call) and "Mtgp32" in target.operand.type:
                # an MTGP32 state is shared by the threads of one block on purpose, up to cuRAND's limit
                threads = product_of(list(kernel.shape.block))
                within = within is True and threads is not None and threads > _MTGP32_BLOCK_THREADS
            if within is not True and across is not True:
                continue
            if not rmw:
                # a plain store races only when the writers store different values
                varies_in_block = value is not None and value_dependent_expr(analysis, value, node.scope)
                varies_across = value is not None and mentions_block_or_memory(value)
                within = within is True and varies_in_block
                across = across is True and (varies_across or varies_in_block)
                if not (within or across):
                    continue
            out.append(GlobalRace(node, store, target, rmw, within is True, across is True))
    return out


def _reads_same(kernel: KernelSync, value: ir.Expr, address: _GlobalAddress, scope: Scope) -> bool:
    for sub in value.walk():
        if isinstance(sub, (ir.Index, ir.Unary)) and (not isinstance(sub, ir.Unary) or sub.op == "*"):
            other = _global_address(kernel, sub, scope)
            if other is not None and other.root == address.root and \
                    [(id(e), k) for e, k, _ in other.terms] == [(id(e), k) for e, k, _ in address.terms]:
                return True
            if other is not None and other.root == address.root and \
                    [" ".join(e.text.split()) for e, _, _ in other.terms] == \
                    [" ".join(e.text.split()) for e, _, _ in address.terms]:
                return True
    return False


def _distinct_per_thread(kernel: KernelSync, address: Lin, across_blocks: bool) -> bool:
    """Whether `address` (lowered for instance 1, exact) differs for any two threads of a block, or of the
    grid when `across_blocks`: a mixed-radix combination of thread (and block) indices, plus terms that
    are the same in both threads."""
    shape = kernel.shape
    terms = []
    own = set()
    for axis in "xyz":
        for var, extent in ((thread_var("1", axis), shape.block_extent(axis)),
                            (block_var("1", axis), shape.grid_extent(axis))):
            if var.startswith("b") and not across_blocks:
                continue
            own.add(var)
            coeff = address.coeffs.get(var, 0)
            if extent == 1:
                continue
            if coeff == 0:
                return False
            terms.append((abs(coeff), extent))
    if any(v.endswith("#1") or v not in own and v.startswith(("t1.", "b1.")) for v in address.coeffs):
        return False  # a per-thread value besides the indices
    terms.sort(key=lambda term: (term[0], term[1] is None, term[1] or 0))  # an unknown extent after known ones
    span = 0
    for n, (coeff, extent) in enumerate(terms):
        if coeff <= span or extent is None and n != len(terms) - 1:
            return False
        span += coeff * ((extent or 1) - 1)
    return True


def _same_address(kernel: KernelSync, node: CfgNode, address: _GlobalAddress, same_block: bool) -> bool | None:
    """Whether two different threads (of one block, or of two blocks) can store to the address."""
    l1 = Linearizer(kernel.context, "1", global_mode=not same_block, shared_iterations=False)
    l2 = Linearizer(kernel.context, "2", global_mode=not same_block, shared_iterations=False)
    l1.at = l2.at = node
    first = linear_sum(l1, address.terms)
    if not l1.exact:
        return None  # an address the constraints do not capture can never prove a race
    if _distinct_per_thread(kernel, first, not same_block):
        return False  # most stores (`out[blockIdx.x * blockDim.x + threadIdx.x]`): the second thread's is not needed
    base = thread_bounds(kernel.shape, "1") + thread_bounds(kernel.shape, "2")
    base.append(eq(first - linear_sum(l2, address.terms)))
    base += l1.constraints + l2.constraints
    l1.constraints, l2.constraints = [], []
    alternatives = []
    if same_block:
        active = [axis for axis in "xyz" if kernel.shape.block_extent(axis) != 1]
        alternatives.append(distinct([thread_var("1", x) for x in active], [thread_var("2", x) for x in active]))
    else:
        base += block_bounds(kernel.shape, "1") + block_bounds(kernel.shape, "2")
        active = [axis for axis in "xyz" if kernel.shape.grid_extent(axis) != 1]
        if not active:
            return False
        alternatives.append(distinct([block_var("1", x) for x in active], [block_var("2", x) for x in active]))
    if decide(base, alternatives, True).result == NONE:
        return False  # the addresses differ whatever the guards
    for guard in node.guards:
        for lin in (l1, l2):
            lin.at = guard.node or node
            options = guard_alternatives(lin, guard)
            if options is not None:
                alternatives.append(options)
    base += l1.constraints + l2.constraints
    verdict = decide(base, alternatives, l1.exact and l2.exact)
    if verdict.result == CONFLICT:
        return True
    return False if verdict.result == NONE else None
