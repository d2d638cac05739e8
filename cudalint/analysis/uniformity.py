"""Thread dependence: which values and conditions can differ between the threads of one block.

Sources: threadIdx, per-thread calls (thread_rank, lane/warp ids, shuffles, atomics' results, clock,
curand), loads through a thread-dependent index or pointer, and variables assigned a dependent value or
assigned under a dependent branch. Kernel parameters, blockIdx, blockDim, gridDim are block-uniform; so
are loop counters whose initial value, bound and step are uniform. Parameters of device functions are
dependent when some call site in the unit passes a dependent argument.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

from cudalint.model import ir
from cudalint.model.program import Program

_THREAD_BUILTINS = {"threadIdx"}
# calls whose result differs between threads of a block
_PER_THREAD_CALL = re.compile(
    r"^(thread_rank|thread_index|meta_group_rank|laneid|__lane_id|clock|clock64|globaltimer|__shfl\w*|"
    r"shfl\w*|__ballot\w*|ballot|__activemask|__match\w*|atomic\w*|curand\w*|__lanemask\w*)$"
)


@dataclass(frozen=True)
class _Reads:
    """What an expression reads, as far as thread dependence goes."""

    per_thread: bool  # threadIdx or a per-thread call
    refs: frozenset[str]  # variables, by declaration ref


# barriers that reduce a per-thread predicate over the block: every thread gets the same result
_BLOCK_REDUCTIONS = frozenset({"__syncthreads_or", "__syncthreads_and", "__syncthreads_count"})


def per_thread_nodes(expr: ir.Expr) -> Iterator[ir.Node]:
    """The nodes of `expr` (pre-order) through which its value can differ between threads: all but the
    arguments of a block-wide reduction (`while (__syncthreads_or(cond))`: the same result in every thread
    whatever `cond` is)."""
    stack: list[ir.Node] = [expr]
    while stack:
        node = stack.pop()
        yield node
        if not (isinstance(node, ir.Call) and node.callee in _BLOCK_REDUCTIONS):
            stack.extend(reversed(node.children()))


def _reads_in(expr: ir.Expr) -> _Reads:
    per_thread, refs = False, set()
    for node in per_thread_nodes(expr):
        if isinstance(node, ir.Name):
            if node.name in _THREAD_BUILTINS:
                per_thread = True
            elif node.ref:
                refs.add(node.ref)
        elif isinstance(node, ir.Call) and _PER_THREAD_CALL.match(node.callee):
            per_thread = True
    return _Reads(per_thread, frozenset(refs))


@dataclass
class ThreadDependence:
    function: ir.Function
    dependent_refs: set[str] = field(default_factory=set)  # variables (by declaration ref) that may differ
    dependent_params: set[str] = field(default_factory=set)
    # memos by expression (the object, not its id: callers pass short-lived expressions too)
    _reads: dict[ir.Expr, _Reads] = field(default_factory=dict, repr=False)
    _writes: dict[ir.Expr, tuple[ir.Expr, ...]] = field(default_factory=dict, repr=False)

    def assignments_in(self, expr: ir.Expr) -> tuple[ir.Expr, ...]:
        """The assignments and increments inside `expr` (most expressions have none)."""
        found = self._writes.get(expr)
        if found is None:
            found = self._writes[expr] = tuple(
                node for node in expr.walk()
                if (isinstance(node, ir.Binary) and node.is_assignment)
                or (isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--")))
        return found

    def is_dependent(self, expr: ir.Expr | None) -> bool:
        """Whether `expr` may evaluate differently in two threads of one block."""
        if expr is None:
            return False
        reads = self._reads.get(expr)
        if reads is None:
            reads = self._reads[expr] = _reads_in(expr)
        return reads.per_thread or not reads.refs.isdisjoint(self.dependent_refs)


class Uniformity:
    """Thread dependence for every function of a program, computed on demand and cached."""

    def __init__(self, program: Program) -> None:
        self.program = program

    @cached_property
    def _results(self) -> dict[int, ThreadDependence]:
        # host code has no threads to tell apart (and device functions are called from device code only),
        # so only device code is analysed; a host function gets the empty answer
        device = [f for f in self.program.functions if f.body is not None and f.is_device_code]
        results = {id(f): ThreadDependence(f) for f in device}
        # iterate to a fixpoint across functions: device-function parameters depend on call sites
        for _ in range(10):
            changed = False
            for function in device:
                facts = results[id(function)]
                changed |= _propagate(function, facts)
                changed |= self._mark_callee_params(function, facts, results)
            if not changed:
                break
        return results

    def of(self, function: ir.Function) -> ThreadDependence:
        return self._results.get(id(function)) or ThreadDependence(function)

    def _mark_callee_params(self, function: ir.Function, facts: ThreadDependence,
                            results: dict[int, ThreadDependence]) -> bool:
        changed = False
        for node in function.of_type(ir.Call):
            if node.receiver is not None:
                continue
            for callee in self.program.functions_by_name.get(node.callee, []):
                if id(callee) not in results or callee.is_kernel or len(callee.params) != len(node.args):
                    continue
                callee_facts = results[id(callee)]
                for param, arg in zip(callee.params, node.args):
                    if param.ref and param.ref not in callee_facts.dependent_refs and facts.is_dependent(arg):
                        callee_facts.dependent_refs.add(param.ref)
                        callee_facts.dependent_params.add(param.name)
                        changed = True
        return changed


def _propagate(function: ir.Function, facts: ThreadDependence) -> bool:
    """Mark variables assigned dependent values or under dependent control; True when anything changed."""
    before = len(facts.dependent_refs)
    for _ in range(20):
        size = len(facts.dependent_refs)
        _visit(function.body, facts, divergent=False)
        if len(facts.dependent_refs) == size:
            break
    return len(facts.dependent_refs) != before


def _visit(stmt: ir.Stmt | None, facts: ThreadDependence, divergent: bool) -> None:
    if stmt is None:
        return
    if isinstance(stmt, ir.Block):
        for child in stmt.body:
            _visit(child, facts, divergent)
    elif isinstance(stmt, ir.DeclStmt):
        for decl in stmt.decls:
            if decl.ref and decl.init is not None and not decl.shared and (divergent or facts.is_dependent(decl.init)):
                facts.dependent_refs.add(decl.ref)
            if decl.init is not None:
                _assignments(decl.init, facts, divergent)
    elif isinstance(stmt, ir.If):
        _assignments(stmt.cond, facts, divergent)
        inner = divergent or facts.is_dependent(stmt.cond)
        _visit(stmt.then, facts, inner)
        _visit(stmt.otherwise, facts, inner)
    elif isinstance(stmt, ir.For):
        _visit(stmt.init, facts, divergent)
        loop_divergent = divergent or facts.is_dependent(stmt.cond)
        if stmt.step is not None:
            _assignments(stmt.step, facts, loop_divergent)
        if stmt.cond is not None:
            _assignments(stmt.cond, facts, loop_divergent)
        _visit(stmt.body, facts, loop_divergent or _has_dependent_exit(stmt.body, facts))
    elif isinstance(stmt, ir.While):
        _assignments(stmt.cond, facts, divergent)
        loop_divergent = divergent or facts.is_dependent(stmt.cond)
        _visit(stmt.body, facts, loop_divergent or _has_dependent_exit(stmt.body, facts))
    elif isinstance(stmt, ir.Switch):
        _visit(stmt.body, facts, divergent or facts.is_dependent(stmt.cond))
    elif isinstance(stmt, ir.ExprStmt):
        _assignments(stmt.expr, facts, divergent)
    elif isinstance(stmt, ir.Return) and stmt.value is not None:
        _assignments(stmt.value, facts, divergent)
    elif isinstance(stmt, ir.OpaqueStmt):
        for part in stmt.parts:
            if isinstance(part, ir.Stmt):
                _visit(part, facts, divergent)


def _assignments(expr: ir.Expr, facts: ThreadDependence, divergent: bool) -> None:
    for node in facts.assignments_in(expr):
        if isinstance(node, ir.Binary):
            target = _assigned_variable(node.lhs)
            if target is not None and target.ref and (divergent or facts.is_dependent(node.rhs)
                                                      or (node.op != "=" and facts.is_dependent(node.lhs))):
                facts.dependent_refs.add(target.ref)
        elif divergent:
            target = _assigned_variable(node.operand)
            if target is not None and target.ref:
                facts.dependent_refs.add(target.ref)


def _assigned_variable(expr: ir.Expr) -> ir.Name | None:
    """The local variable an assignment writes (not an array element or memory through a pointer)."""
    while isinstance(expr, ir.Cast):
        expr = expr.operand
    if isinstance(expr, ir.Name):
        return expr
    if isinstance(expr, ir.Member) and isinstance(expr.base, ir.Name) and not expr.text.count("->"):
        return expr.base  # a field of a local struct (float4 acc; acc.x = ...)
    return None


def _has_dependent_exit(stmt: ir.Stmt, facts: ThreadDependence, under_dependent: bool = False) -> bool:
    """A break/return under a thread-dependent condition makes the loop's remaining trip count divergent."""
    if isinstance(stmt, (ir.Break, ir.Return)):
        return under_dependent
    if isinstance(stmt, ir.If):
        inner = under_dependent or facts.is_dependent(stmt.cond)
        return _has_dependent_exit(stmt.then, facts, inner) or (
            stmt.otherwise is not None and _has_dependent_exit(stmt.otherwise, facts, inner))
    if isinstance(stmt, (ir.For, ir.While, ir.Switch)):
        return False  # their breaks leave the inner loop only
    return any(_has_dependent_exit(c, facts, under_dependent) for c in stmt.children() if isinstance(c, ir.Stmt))


def value_dependent_refs(function: ir.Function, facts: ThreadDependence,
                         uniform_memory: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """Variables whose assigned *values* may differ between threads: like `facts.dependent_refs`, but a
    variable assigned only block-uniform values under thread-dependent control (a loop counter inside
    `if (tid < 32)`) is not counted. Used by the synchronization analysis, where such a counter is still
    the same function of the iteration in every thread. Variables in `uniform_memory` (shared variables:
    one location every thread reads) are never counted."""
    if function.body is None:
        return set()
    params = {p.ref for p in function.params if p.ref}
    dependent = {ref for ref in facts.dependent_refs if ref in params}
    sites: list[tuple[str, ir.Expr | None, bool]] = []  # (variable, assigned value, reads the old value)
    for node in function.of_type(ir.VarDecl, ir.Binary, ir.Unary):
        if isinstance(node, ir.VarDecl) and node.ref and node.init is not None and not node.shared:
            sites.append((node.ref, node.init, False))
        elif isinstance(node, ir.Binary) and node.is_assignment:
            target = _assigned_variable(node.lhs)
            if target is not None and target.ref:
                sites.append((target.ref, node.rhs, node.op != "="))
        elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--"):
            target = _assigned_variable(node.operand)
            if target is not None and target.ref:
                sites.append((target.ref, None, True))

    def varies(expr: ir.Expr | None) -> bool:
        if expr is None:
            return False
        for node in expr.walk():
            if isinstance(node, ir.Name):
                if node.name in _THREAD_BUILTINS or (node.ref and node.ref in dependent):
                    return True
            elif isinstance(node, ir.Call) and _PER_THREAD_CALL.match(node.callee):
                return True
        return False

    for _ in range(20):
        size = len(dependent)
        for ref, value, reads_old in sites:
            if ref not in dependent and ref not in uniform_memory and varies(value):
                dependent.add(ref)
        if len(dependent) == size:
            break
    return dependent
