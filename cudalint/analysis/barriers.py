"""Barrier intervals: the memory accesses that can run between two barriers, and the races among them.

For each kernel (with its `__device__` callees inlined, see `cfg.py`):
- every shared-memory access (read, write, read-modify-write, atomic, and the warp-collective wmma
  loads/stores) with its index flattened to `sum(scale * expr)` over the array's dimensions, through
  pointers derived from the array (`float* row = &tile[ty][0]`, `volatile float* v = s`);
- the barrier intervals ("epochs"): from the kernel's entry or a block barrier, the nodes reachable
  without passing another block barrier. Two accesses in one epoch can run concurrently in two threads.
  Loops make intervals loop-carried: the read at the end of iteration k and the write at the top of
  iteration k+1 share an epoch when no barrier separates them;
- for each pair of accesses of one array in one epoch (at least one writing), the variables assigned on a
  barrier-free path between them (they get separate copies per access in the conflict test), and the
  conflict test of `conflicts.py`. A loop counter among them whose step count from the epoch's start is
  the same on every path to an access is pinned there: the write before the back edge runs at counter
  `c`, the read after it at `c + step`.

The same pairs are formed for global memory (buffers reached from a kernel's pointer parameters and
`__device__` variables): within a block, in the intervals between block barriers; across blocks, in the
intervals between grid barriers, with the block indices of the two accesses free to differ.

`sync_analysis(program)` caches all of it per program; rules read `races(kernel)` (shared memory) and
`global_races(kernel)`.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property


from cudalint.analysis.cfg import (BLOCK_LEVEL, GRID, WARP, CfgNode, FunctionCFG, Graph, Guard, Scope, build_cfg,
                                  immediate_dominators)
from cudalint.analysis.conflicts import (
    CONFLICT, NONE, UNKNOWN, BlockShape, Constraint, LinearContext, Lin, Linearizer, Verdict, block_bounds,
    block_var, by_value_param_member, decide, distinct, eq, ge, less, less_equal, linear_thread_id, mentions,
    assigned_values, renamed_constraint, renamed_lin, thread_bounds, thread_var, unify_products,
)
from cudalint.analysis.uniformity import Uniformity, per_thread_nodes, value_dependent_refs
from cudalint.findings import short_text
from cudalint.model import ir
from cudalint.model.constants import bare_type, is_integer_type, type_size
from cudalint.model.program import Program, SharedArray

READ, WRITE, UPDATE, ATOMIC = "read", "write", "update", "atomic"

_MAX_PAIRS = 5000  # pairs of accesses tested per kernel at most
_MANY_STEPS = 3  # loop steps on a barrier-free path: from this many on, the count is not tracked
_WMMA_LOAD = {"load_matrix_sync"}
_WMMA_STORE = {"store_matrix_sync"}


@dataclass
class FlatIndex:
    """The element an access touches: sum(scale * expr) + const, with each subscript kept in range."""

    terms: list[tuple[ir.Expr, int, Scope]] = field(default_factory=list)
    ranges: list[tuple[ir.Expr, int, Scope]] = field(default_factory=list)  # 0 <= expr < bound
    # warp-collective accesses cover a region: offset + sum(a_i * stride_i), 0 <= a_i < extent_i
    region: list[tuple[int, ir.Expr | int, Scope | None]] = field(default_factory=list)
    exact: bool = True
    # the terms that come from pointer arithmetic (`float* b = smem + cols`), as text, and whether one of
    # them is a block-uniform value that is not a constant (the size of a region, chosen at run time)
    base: tuple[str, ...] = ()
    symbolic_base: bool = False


@dataclass(eq=False)
class GlobalBuffer:
    """Global memory reached from one kernel pointer parameter (`pointer`), or one `__device__` variable."""

    decl: ir.VarDecl
    pointer: bool


@dataclass(eq=False)
class MemoryAccess:
    array: SharedArray | GlobalBuffer
    field: str  # a struct member ("" for the whole element)
    mode: str  # READ, WRITE, UPDATE, ATOMIC
    expr: ir.Expr  # the access as written (span for messages)
    node: CfgNode
    index: FlatIndex
    guards: tuple[Guard, ...]
    collective: bool = False  # a warp-wide operation (wmma): every lane may touch every element
    volatile: bool = False
    value: ir.Expr | None = None  # what a plain store (`=`) stores

    @property
    def writes(self) -> bool:
        return self.mode in (WRITE, UPDATE, ATOMIC)

    @property
    def name(self) -> str:
        return self.array.decl.name + (f".{self.field}" if self.field else "")

    @property
    def key(self) -> int:
        """Accesses of one array can overlap: a whole struct element and one of its fields do."""
        return id(self.array)


@dataclass
class Race:
    """Two accesses of one array that two threads may make in one barrier interval."""

    first: MemoryAccess  # the access that runs first
    second: MemoryAccess  # the one that runs second (the anchor of the finding)
    warp_only: bool  # only threads of one warp can collide: warp-synchronous code without __syncwarp
    across_blocks: bool = False  # the two threads are in different blocks


# ----------------------------------------------------------------------------------- pointer resolution


@dataclass
class _Loc:
    array: SharedArray
    terms: list
    ranges: list
    dims: list  # remaining dimensions of the lvalue, or of the pointee for pointers
    pointer: bool
    exact: bool = True
    volatile: bool = False
    field: str = ""
    base: int = 0  # the first `base` terms come from pointer arithmetic

    def copy(self, **changes) -> _Loc:
        values = dict(array=self.array, terms=list(self.terms), ranges=list(self.ranges), dims=list(self.dims),
                      pointer=self.pointer, exact=self.exact, volatile=self.volatile, field=self.field,
                      base=self.base)
        values.update(changes)
        return _Loc(**values)


def _element_name(type_: str) -> str:
    for word in ("const", "volatile", "__restrict__", "__restrict", "struct", "*", "&"):
        type_ = type_.replace(word, " ")
    return " ".join(type_.split())


def _product(dims: list) -> int | None:
    total = 1
    for d in dims:
        if d is None:
            return None
        total *= d
    return total


class _Accesses:
    """Collects the accesses of every node of one kernel's graph to the arrays of `by_ref` (declaration ref
    -> array): the unit's shared arrays by default."""

    def __init__(self, program: Program, cfg: FunctionCFG,
                 by_ref: dict[str, SharedArray | GlobalBuffer] | None = None) -> None:
        self.program = program
        self.cfg = cfg
        self.by_ref = program.shared_by_ref if by_ref is None else by_ref
        self.found: list[MemoryAccess] = []

    def collect(self) -> list[MemoryAccess]:
        if not self.by_ref:
            return self.found  # every access this finds resolves to one of the arrays
        reachable = self.cfg.reachable
        for node in self.cfg.nodes:
            if node not in reachable:
                continue
            for root in node.access_roots():
                self._visit(root, node, ())
        return self.found

    # ------------------------------------------------------------------------------------ resolution

    def resolve(self, expr: ir.Expr, scope: Scope, depth: int = 0) -> tuple[_Loc | None, Scope]:
        if depth > 30:
            return None, scope
        if isinstance(expr, ir.Cast):
            inner, _ = self.resolve(expr.operand, scope, depth + 1)
            if inner is None:
                return None, scope
            if inner.pointer or "*" in expr.type:
                pointee = _element_name(expr.type)
                same = pointee == _element_name(inner.array.decl.element_type) or pointee in ("", "void")
                loc = inner.copy(volatile=inner.volatile or "volatile" in expr.type)
                if not same:
                    loc.exact = False
                    loc.dims = []
                return loc, scope
            return inner, scope
        if isinstance(expr, ir.Name):
            if expr.ref in self.by_ref:
                array = self.by_ref[expr.ref]
                pointer = isinstance(array, GlobalBuffer) and array.pointer
                return _Loc(array, [], [], list(array.decl.dims), pointer, volatile=array.decl.volatile), scope
            bound = scope.binding(expr.ref)
            if bound is not None:
                loc, _ = self.resolve(bound[0], bound[1], depth + 1)
                if loc is not None and "volatile" in expr.type:
                    loc = loc.copy(volatile=True)
                return loc, scope
            definition = scope.env.definition(expr.ref)
            if definition is not None and ("*" in expr.type or "&" in expr.type or "[" in expr.type):
                loc, _ = self.resolve(definition, scope, depth + 1)
                if loc is not None and "volatile" in expr.type:
                    loc = loc.copy(volatile=True)
                return loc, scope
            return None, scope
        if isinstance(expr, ir.Index):
            base, _ = self.resolve(expr.base, scope, depth + 1)
            if base is None:
                return None, scope
            pointer = self._decay(base, expr.index, scope)
            if pointer is None:
                return None, scope
            stride = _product(pointer.dims)
            loc = pointer.copy(pointer=False)
            if stride is None:
                loc.exact = False
            else:
                loc.terms.append((expr.index, stride, scope))
            return loc, scope
        if isinstance(expr, ir.Unary) and expr.op == "&":
            inner, _ = self.resolve(expr.operand, scope, depth + 1)
            if inner is None or inner.pointer:
                return None, scope
            return inner.copy(pointer=True, base=len(inner.terms)), scope
        if isinstance(expr, ir.Unary) and expr.op == "*":
            inner, _ = self.resolve(expr.operand, scope, depth + 1)
            if inner is None:
                return None, scope
            pointer = self._decay(inner, None, scope)
            return (pointer.copy(pointer=False) if pointer is not None else None), scope
        if isinstance(expr, ir.Binary) and expr.op in ("+", "-"):
            for side, other in ((expr.lhs, expr.rhs), (expr.rhs, expr.lhs)):
                if expr.op == "-" and side is expr.rhs:
                    break
                inner, _ = self.resolve(side, scope, depth + 1)
                if inner is None:
                    continue
                pointer = self._decay(inner, None, scope)
                if pointer is None:
                    return None, scope
                stride = _product(pointer.dims)
                if stride is None:
                    pointer.exact = False
                else:
                    pointer.terms.append((other, -stride if expr.op == "-" else stride, scope))
                    pointer.base = len(pointer.terms)
                return pointer, scope
            return None, scope
        if isinstance(expr, ir.Member) and expr.base is not None and "->" not in expr.text:
            inner, _ = self.resolve(expr.base, scope, depth + 1)
            if inner is None or inner.pointer or inner.dims:
                return None, scope
            return inner.copy(field=(inner.field + "." if inner.field else "") + expr.field), scope
        return None, scope

    def _decay(self, loc: _Loc, index: ir.Expr | None, scope: Scope) -> _Loc | None:
        """`loc` as a pointer to its elements (an array lvalue decays; a pointer stays)."""
        if loc.pointer:
            return loc.copy()
        if not loc.dims:
            return None  # a scalar element is not subscripted
        ranges = list(loc.ranges)
        if index is not None and loc.dims[0] is not None:
            ranges.append((index, loc.dims[0], scope))
        return loc.copy(pointer=True, dims=loc.dims[1:], ranges=ranges)

    # ---------------------------------------------------------------------------------------- visits

    def _record(self, loc: _Loc, mode: str, expr: ir.Expr, node: CfgNode, guards: tuple, collective=False,
                region=None, value: ir.Expr | None = None) -> None:
        base_terms = loc.terms[:loc.base]
        index = FlatIndex(list(loc.terms), list(loc.ranges), list(region or []), loc.exact,
                          tuple(f"{k}*{' '.join(e.text.split())}" for e, k, _ in base_terms),
                          any(sc.env.value(e) is None and not sc.facts.is_dependent(e) for e, _, sc in base_terms))
        all_guards = node.guards + tuple(Guard(c, p, node.scope, "ternary") for c, p in guards)
        self.found.append(MemoryAccess(loc.array, loc.field, mode, expr, node, index, all_guards, collective,
                                       loc.volatile, value))

    def _element(self, expr: ir.Expr, scope: Scope) -> _Loc | None:
        loc, _ = self.resolve(expr, scope)
        if loc is None or loc.pointer or loc.dims:
            return None
        return loc

    def _visit(self, expr: ir.Expr | None, node: CfgNode, guards: tuple) -> None:
        if expr is None or id(expr) in node.skip or isinstance(expr, ir.Lambda):
            return
        scope = node.scope
        if isinstance(expr, ir.Binary) and expr.is_assignment:
            self._lvalue(expr.lhs, WRITE if expr.op == "=" else UPDATE, node, guards,
                         expr.rhs if expr.op == "=" else None)
            self._visit(expr.rhs, node, guards)
            return
        if isinstance(expr, ir.Unary) and expr.op in ("++", "--", "post++", "post--"):
            self._lvalue(expr.operand, UPDATE, node, guards)
            return
        if isinstance(expr, ir.Unary) and expr.op == "&":
            self._address_parts(expr.operand, node, guards)
            return
        if isinstance(expr, ir.Binary) and expr.op in ("&&", "||"):
            self._visit(expr.lhs, node, guards)
            self._visit(expr.rhs, node, guards + ((expr.lhs, expr.op == "&&"),))
            return
        if isinstance(expr, ir.Conditional):
            self._visit(expr.cond, node, guards)
            self._visit(expr.then, node, guards + ((expr.cond, True),))
            self._visit(expr.otherwise, node, guards + ((expr.cond, False),))
            return
        if isinstance(expr, ir.Call):
            self._call(expr, node, guards)
            return
        if isinstance(expr, (ir.Index, ir.Name, ir.Member)) or isinstance(expr, ir.Unary) and expr.op == "*":
            loc = self._element(expr, scope)
            if loc is not None:
                self._record(loc, READ, expr, node, guards)
                self._address_parts(expr, node, guards)
                return
        for child in expr.children():
            if isinstance(child, ir.Expr):
                self._visit(child, node, guards)

    def _lvalue(self, expr: ir.Expr, mode: str, node: CfgNode, guards: tuple, value: ir.Expr | None = None) -> None:
        loc = self._element(expr, node.scope)
        if loc is not None:
            self._record(loc, mode, expr, node, guards, value=value)
            self._address_parts(expr, node, guards)
        else:
            self._address_parts(expr, node, guards)

    def _address_parts(self, expr: ir.Expr, node: CfgNode, guards: tuple) -> None:
        """Visit the sub-expressions that compute an address (subscripts), not the location itself."""
        if isinstance(expr, ir.Index):
            self._visit(expr.index, node, guards)
            self._address_parts(expr.base, node, guards)
        elif isinstance(expr, ir.Member) and expr.base is not None:
            if "->" in expr.text:
                self._visit(expr.base, node, guards)
            else:
                self._address_parts(expr.base, node, guards)
        elif isinstance(expr, ir.Cast):
            self._address_parts(expr.operand, node, guards)
        elif isinstance(expr, ir.Unary) and expr.op == "*":
            self._visit(expr.operand, node, guards)
        elif isinstance(expr, (ir.Name, ir.Const)):
            return
        else:
            self._visit(expr, node, guards)

    def _call(self, call: ir.Call, node: CfgNode, guards: tuple) -> None:
        name = call.callee.rsplit("::", 1)[-1]
        scope = node.scope
        args = list(call.args)
        if name.startswith("atomic") and args:
            loc, _ = self.resolve(args[0], scope)
            if loc is not None and loc.pointer:
                pointer = self._decay(loc, None, scope)
                if pointer is not None:
                    self._record(pointer.copy(pointer=False, dims=[]), ATOMIC, call, node, guards)
                self._address_parts(args[0], node, guards)
                for arg in args[1:]:
                    self._visit(arg, node, guards)
                return
        if name in _WMMA_LOAD | _WMMA_STORE and len(args) >= 3:
            pointer_arg = args[1] if name in _WMMA_LOAD else args[0]
            loc, _ = self.resolve(pointer_arg, scope)
            if loc is not None and loc.pointer:
                rows, cols = _fragment_shape(args[0] if name in _WMMA_LOAD else args[1])
                side = max(rows, cols)  # row or column major: a side x side square covers both
                region = [(side, args[2], scope), (side, 1, None)]
                pointer = self._decay(loc, None, scope)
                if pointer is not None:
                    target = pointer.copy(pointer=False, dims=[])
                    target.exact = target.exact and rows == cols
                    self._record(target, READ if name in _WMMA_LOAD else WRITE, call, node, guards,
                                 collective=True, region=region)
                for arg in args:
                    if arg is not pointer_arg:
                        self._visit(arg, node, guards)
                self._address_parts(pointer_arg, node, guards)
                return
        if call.receiver is not None:
            self._visit(call.receiver, node, guards)
        for arg in args:
            self._visit(arg, node, guards)


def _fragment_shape(fragment: ir.Expr) -> tuple[int, int]:
    """(rows, cols) of a wmma fragment from its type `fragment<use, M, N, K, ...>`; 16x16 when unknown."""
    import re

    match = re.search(r"fragment<\s*[\w:]*?(matrix_a|matrix_b|accumulator)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)",
                      fragment.type.replace("nvcuda::wmma::", "").replace("wmma::", ""))
    if not match:
        return 16, 16
    use, m, n, k = match.group(1), int(match.group(2)), int(match.group(3)), int(match.group(4))
    if use == "matrix_a":
        return m, k
    if use == "matrix_b":
        return k, n
    return m, n


# -------------------------------------------------------------------------------------- kernel analysis


def _modes_conflict(a: MemoryAccess, b: MemoryAccess) -> bool:
    if not (a.writes or b.writes):
        return False
    if a.field and b.field and not (a.field.startswith(b.field + ".") or b.field.startswith(a.field + ".")) \
            and a.field != b.field:
        return False  # two different members of a struct element
    return not (a.mode == ATOMIC and b.mode == ATOMIC)


class KernelSync:
    """Barrier intervals and races of one kernel (or of a device function analyzed on its own)."""

    def __init__(self, analysis: SyncAnalysis, function: ir.Function, shape: BlockShape | None = None,
                 values: dict[str, int] | None = None) -> None:
        """`shape` and `values` (parameter ref -> value) describe one launch (`SyncAnalysis.kernel_at`);
        without them, every launch the source shows."""
        # the analysis, and the context's callbacks into both, are held weakly: the analysis caches this
        # object, and the cycle would keep the file's IR alive for the cycle collector
        self.analysis = weakref.proxy(analysis)
        self.function = function
        self.cfg = analysis.cfg(function)
        self.shape = shape or analysis.block_shape(function)
        self._write_backs: dict[int, bool] = {}
        self.context = LinearContext(self.shape, analysis.induction, analysis.loop_counters,
                                     analysis.counter_bounds, _weakly(analysis.value_dependent),
                                     reaching=_weakly(self.reaching), values=dict(values or {}))
        self._reaching: dict[tuple[str, int], tuple | None] = {}
        self._lowerings: dict[tuple, tuple] = {}
        self._path_guards: dict[CfgNode, dict[CfgNode, tuple[Guard, ...]]] = {}
        self._exact_indices: dict[tuple, bool] = {}
        # per-counter facts of the loop-counter pinning, and thread-index lowerings, made on first use
        self._pinned_cache: dict[tuple, tuple[str, ...]] = {}
        self._stepped_cache: dict[str, tuple[set[CfgNode], set[CfgNode]] | None] = {}
        self._counter_loops: dict[str, set[CfgNode]] = {}
        self._counter_steps_cache: dict[tuple, dict | None] = {}
        self._thread_indices: dict = {}

    @cached_property
    def accesses(self) -> list[MemoryAccess]:
        """The shared-memory accesses (a launch's view, `kernel_at`, asks only for the global ones)."""
        return _Accesses(self.analysis.program, self.cfg).collect()

    @cached_property
    def by_node(self) -> dict[CfgNode, list[MemoryAccess]]:
        return _by_node(self.accesses)

    @cached_property
    def global_buffers(self) -> dict[str, GlobalBuffer]:
        """The global memory a kernel reaches by name: its pointer parameters and the unit's `__device__`
        variables (a device function analyzed on its own has no such roots: its callers are unknown)."""
        if not self.function.is_kernel:
            return {}
        found: dict[str, GlobalBuffer] = {ref: GlobalBuffer(decl, False)
                                          for ref, decl in self.analysis.device_globals.items()}
        for param in self.function.params:
            if param.ref and param.type.count("*") == 1 and "(" not in param.type:
                pointee = param.type[:param.type.rindex("*")].strip()
                decl = ir.VarDecl(param.span, name=param.name, ref=param.ref, type=param.type,
                                  volatile="volatile" in pointee, element_type=pointee)
                found[param.ref] = GlobalBuffer(decl, True)
        return found

    @cached_property
    def global_accesses(self) -> list[MemoryAccess]:
        return _Accesses(self.analysis.program, self.cfg, self.global_buffers).collect()

    @cached_property
    def global_by_node(self) -> dict[CfgNode, list[MemoryAccess]]:
        return _by_node(self.global_accesses)

    @cached_property
    def grid_epoch_starts(self) -> list[CfgNode]:
        """The entry and the grid barriers: the intervals in which threads of different blocks run unordered."""
        reachable = self.cfg.reachable
        return [self.cfg.entry] + [n for n in self.cfg.barrier_nodes((GRID,)) if n in reachable]

    @cached_property
    def epoch_starts(self) -> list[CfgNode]:
        """The entry and the block barriers that every thread reaches: after a divergent barrier (CL102)
        the intervals are meaningless and no race is derived from them."""
        reachable = self.cfg.reachable
        divergent = {item.barrier for item in self.analysis.divergent_barriers(self.function)}
        return [self.cfg.entry] + [n for n in self.cfg.barrier_nodes(BLOCK_LEVEL)
                                   if n in reachable and n not in divergent]

    @cached_property
    def _def_nodes(self) -> dict[CfgNode, frozenset[str]]:
        out = {}
        for node in self.cfg.nodes:
            assigned = _assigns(node)
            if assigned:
                out[node] = assigned
        return out

    def reaching(self, scope: Scope, ref: str | None, at: CfgNode) -> tuple[ir.Expr, Scope, CfgNode] | None:
        """The value of variable `ref` at node `at` when exactly one plain assignment reaches it."""
        if ref is None:
            return None
        key = f"{scope.key}|{ref}"
        cache_key = (key, at.index)
        if cache_key in self._reaching:
            return self._reaching[cache_key]
        self._reaching[cache_key] = None
        defs = self._def_nodes
        pred = self.cfg.graph.pred
        found: list[CfgNode] = []
        seen = {at}
        stack = list(pred[at])
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if key in defs.get(node, ()):
                found.append(node)
                if len(found) > 1:
                    return None
                continue
            if node is self.cfg.entry or len(seen) > 5000:
                return None
            stack.extend(pred[node])
        if len(found) != 1:
            return None
        node = found[0]
        result = None
        if node.kind == "call" and node.call is not None and node.scope is scope and scope.parent is not None:
            for param, arg in zip(scope.function.params, node.call.args):
                if param.ref == ref:
                    result = (arg, scope.parent, node)
        elif node.decl is not None and node.decl.ref == ref and node.decl.init is not None:
            if not node.decl.dims and not isinstance(node.decl.init, ir.InitList):
                result = (node.decl.init, scope, node)
        elif isinstance(node.expr, ir.Binary) and node.expr.op == "=" and isinstance(node.expr.lhs, ir.Name) \
                and node.expr.lhs.ref == ref and not node.skip:
            result = (node.expr.rhs, scope, node)
        self._reaching[cache_key] = result
        return result

    def path_guards(self, start: CfgNode) -> dict[CfgNode, tuple[Guard, ...]]:
        """For the interval from `start`, per access node in it: the branch sides every barrier-free path
        from the start to the node takes (`if (uniform) { ...; __syncthreads(); }` skipped, a loop left)."""
        found = self._path_guards.get(start)
        if found is not None:
            return found
        region = self.cfg.reach(start)
        targets = [n for n in region if n in self.by_node]
        idom = _dominators(self.cfg.graph, start, region) if targets else {}
        found = {}
        for target in targets:
            guards = []
            node = target
            steps = 0
            while node is not start and node in idom and steps < 10000:
                if node.branch is not None:
                    guards.append(Guard(node.branch[0], node.branch[1], node.scope, "path", node=node))
                node = idom[node]
                steps += 1
            found[target] = tuple(reversed(guards))
        self._path_guards[start] = found
        return found

    def candidate_pairs(self, by_node: dict[CfgNode, list[MemoryAccess]] | None = None,
                        across_blocks: bool = False) -> list[tuple[MemoryAccess, MemoryAccess, list[CfgNode]]]:
        """Pairs of accesses of one array, at least one writing, that can run in one barrier interval, with
        the starts of the intervals they share: the accesses of `by_node` (the shared ones by default), in
        the intervals between block barriers, or between grid barriers when `across_blocks`. Within a
        block, accesses that all touch element f(threadIdx), for one injective f, are never paired with
        each other (a thread only meets itself there)."""
        by_node = self.by_node if by_node is None else by_node
        starts, stop = (self.grid_epoch_starts, (GRID,)) if across_blocks else (self.epoch_starts, BLOCK_LEVEL)
        found: dict[tuple[int, int], tuple[MemoryAccess, MemoryAccess, list[CfgNode]]] = {}
        for start in starts:
            region = self.cfg.reach(start, stop)
            groups: dict[int, list[MemoryAccess]] = {}
            for node in region:
                for access in by_node.get(node, ()):
                    groups.setdefault(access.key, []).append(access)
            for group in groups.values():
                if not any(access.writes for access in group):
                    continue  # reads only: no pair conflicts (and the element keys cost a linearization each)
                group.sort(key=lambda a: (a.node.index, a.expr.span.line, a.expr.span.column))
                buckets: dict[object, list[MemoryAccess]] = {}
                for access in group:
                    own = None if across_blocks else self._own_element_key(access)
                    buckets.setdefault(own or id(access), []).append(access)
                lists = list(buckets.items())
                for i, (key_a, bucket_a) in enumerate(lists):
                    for key_b, bucket_b in lists[i:]:
                        if key_a is key_b and not isinstance(key_a, int):
                            continue  # one injective thread index: no two threads meet
                        for a in bucket_a:
                            for b in bucket_b:
                                if key_a is key_b and b is not a and (id(b), id(a)) in found:
                                    continue
                                if not _modes_conflict(a, b):
                                    continue
                                pair = (id(a), id(b))
                                if pair not in found:
                                    found[pair] = (a, b, [])
                                found[pair][2].append(start)
        return list(found.values())

    def _own_element_key(self, access: MemoryAccess) -> tuple | None:
        """A key shared by accesses that touch the same injective function of threadIdx; None otherwise."""
        if access.collective:
            return None
        index = self._thread_index(access)
        if index is None or not self._injective(index):
            return None
        return (tuple(sorted(index.coeffs.items())), index.const, access.field)

    def renamed_between(self, a: MemoryAccess, b: MemoryAccess) -> frozenset[str]:
        """Variables assigned on a barrier-free path from one access to the other (either way)."""
        reach = self.cfg.reach
        ra, rb = reach(a.node), reach(b.node)
        out: set[str] = set()
        for node, assigned in self._def_nodes.items():
            if (node in ra and b.node in reach(node)) or (node in rb and a.node in reach(node)):
                out |= assigned
        return frozenset(out)

    def same_warp_interval(self, a: MemoryAccess, b: MemoryAccess) -> bool:
        """Whether the pair can also run with no __syncwarp (or tile sync) between them."""
        stop = BLOCK_LEVEL + (WARP,)
        reach = self.cfg.reach
        if b.node in reach(a.node, stop) or a.node in reach(b.node, stop) or a.node is b.node:
            return True
        starts = [self.cfg.entry] + [n for n in self.cfg.barrier_nodes() if n in self.cfg.reachable]
        return any(a.node in reach(s, stop) and b.node in reach(s, stop) for s in starts)

    # ------------------------------------------------------------------------------- conflict test

    def test(self, a: MemoryAccess, b: MemoryAccess, renamed: frozenset[str] = frozenset(),
             cross_warp: bool = False, start: CfgNode | None = None, across_blocks: bool = False) -> Verdict:
        """May two different threads make accesses `a` and `b` to one element (in one interval)?

        `renamed`: variables that may change between the two accesses; `start`: the interval's first node
        (its path conditions apply); `cross_warp`: only threads of different warps count; `across_blocks`:
        only threads of different blocks count."""
        index1, index_constraints1, guards1, exact1, products1 = self._lowered(a, "1", renamed, start, across_blocks)
        index2, index_constraints2, guards2, exact2, products2 = self._lowered(b, "2", renamed, start, across_blocks)
        if not (self._index_exact(a, "1", renamed, across_blocks)
                and self._index_exact(b, "2", renamed, across_blocks)):
            return Verdict(UNKNOWN, exact=False)  # an index the constraints do not capture: never a conflict
        if (a.index.symbolic_base or b.index.symbolic_base) and a.index.base != b.index.base:
            # two regions of one buffer split at a run-time size: they are meant not to overlap
            return Verdict(UNKNOWN, exact=False)
        # products of two unknowns (`row * seq`): the same factors in both instances, or made equal
        same, unified = unify_products(products1, products2)
        if same:
            index2 = renamed_lin(index2, same)
            index_constraints2 = [renamed_constraint(c, same) for c in index_constraints2]
            guards2 = [([[renamed_constraint(c, same) for c in option] for option in options],
                        [renamed_constraint(c, same) for c in constraints]) for options, constraints in guards2]
        base: list[Constraint] = thread_bounds(self.shape, "1") + thread_bounds(self.shape, "2")
        base.append(eq(index1 - index2))
        base += index_constraints1 + index_constraints2 + unified
        if (products1 or products2) and mentions(
                base + [c for options, constraints in guards1 + guards2
                        for c in constraints + [c for option in options for c in option]], [*products1, *products2]):
            return Verdict(UNKNOWN, exact=False)  # a product the constraints cannot drop: never a conflict
        alternatives = []
        if across_blocks:
            blocks = [axis for axis in "xyz" if self.shape.grid_extent(axis) != 1]
            if not blocks:
                return Verdict(NONE)  # a grid of one block
            base += block_bounds(self.shape, "1") + block_bounds(self.shape, "2")
            alternatives.append(distinct([block_var("1", x) for x in blocks], [block_var("2", x) for x in blocks]))
        else:
            base += block_bounds(self.shape, "")  # the one block both threads are in
        active = [axis for axis in "xyz" if self.shape.block_extent(axis) != 1]
        if not (a.collective or b.collective or across_blocks):
            alternatives.append(distinct([thread_var("1", x) for x in active], [thread_var("2", x) for x in active]))
        if a.collective and b.collective:
            cross_warp = True  # one warp's collective operations are ordered among themselves
        if cross_warp:
            l1, l2 = Linearizer(self.context, "1"), Linearizer(self.context, "2")
            w1, w2 = self._warp(l1), self._warp(l2)
            if w1 is None or w2 is None:
                return Verdict("unknown", exact=False)
            base += l1.constraints + l2.constraints
            alternatives.append([[less(w1, w2)], [less(w2, w1)]])
        # the products made equal restrict the system: only its conflicts are conclusive
        unproven = Verdict(UNKNOWN, exact=False) if unified else Verdict(NONE)
        # without the guards first: most pairs of correct code are told apart by their indices alone
        if decide(base, alternatives, True).result == NONE:
            return unproven
        for options, constraints in guards1 + guards2:
            alternatives.append(options)
            base += constraints
        verdict = decide(base, alternatives, exact1 and exact2)
        return unproven if verdict.result == NONE else verdict

    def below_a_compared_size(self, access: MemoryAccess, limit: ir.Expr | None = None) -> bool:
        """Whether the guards dominating `access` keep its index below `limit`, or, without one, below some
        variable they compare with (`n` in `base + BDIM + R <= n`): no thread of the launch passes them with
        the index at or past it. Decided by the Omega test over the lowered guards and the launch's block
        and grid bounds; a guard or limit the lowering cannot express is left free, which only makes the
        system easier to satisfy, and undecided is False. CL201 and CL202 ask this before reporting what
        their patterns find (a bound implied by a block-uniform fast path, `interior = ...`)."""
        if not self._solver_exact(access, limit):
            return False
        index, index_constraints, guards, _exact, products = self._lowered(access, "1", frozenset(), None)
        base = thread_bounds(self.shape, "1") + block_bounds(self.shape, "") + list(index_constraints)
        alternatives = []
        sizes: set[str] = set()
        for options, constraints in guards:
            alternatives.append(options)
            base += constraints
            for constraint in constraints + [c for option in options for c in option]:
                sizes |= set(constraint[0])
        if limit is not None:
            lin = Linearizer(self.context, "1", products=True)
            lin.at = access.node
            bounds = [lin.lin(limit, access.node.scope)]
            base += lin.constraints
        else:
            launch = {thread_var("1", axis) for axis in "xyz"} | {block_var("", axis) for axis in "xyz"}
            sizes -= launch | {f"B.{axis}" for axis in "xyz"} | {f"G.{axis}" for axis in "xyz"} | set(products)
            bounds = [Lin.var(size) for size in sorted(sizes - set(index.coeffs))]
        return any(decide(base + [less_equal(bound, index)], alternatives, True).result == NONE for bound in bounds)

    def reached_by_some_thread(self, node: CfgNode) -> bool | None:
        """Whether some thread of this kernel's launch (`kernel_at`) passes every guard of `node`: True, False
        (no thread of the launch reaches it), or None when the constraints do not say exactly what the guards
        compute (as `first_past` requires)."""
        if any(guard.kind in ("switch", "after_loop") for guard in node.guards) \
                or not self._values_exact([], node.guards, node):
            return None
        probe = Linearizer(self.context, "1", products=True)
        base = thread_bounds(self.shape, "1") + block_bounds(self.shape, "")
        alternatives = []
        for guard in node.guards:
            probe.constraints = []
            probe.at = guard.node or node
            options = guard_alternatives(probe, guard)
            if options is None:
                return None
            alternatives.append(options)
            base += probe.constraints
        names = {name for coeffs, _, _ in base for name in coeffs} | {
            name for options in alternatives for option in options for coeffs, _, _ in option for name in coeffs}
        if not probe.exact or not all(_pinned_launch_var(name) for name in names):
            return None
        return {CONFLICT: True, NONE: False}.get(decide(base, alternatives, True).result)

    def first_past(self, access: MemoryAccess, elements: int) -> PastTheEnd | None:
        """A thread of this kernel's launch (the block shape, grid and parameter values `kernel_at` pinned)
        whose access `access` reaches element `elements` or beyond, with the first such element; None when
        no thread does, or when the constraints do not say exactly what the code computes: an inexact
        index, a guard the lowering drops or cannot express (a switch, a per-thread loop's exit, a test of
        loaded data), a free value (a parameter, a local with several definitions), an undecided system."""
        if not self._solver_exact(access, None) or any(guard.kind == "switch" for guard in access.guards):
            return None
        index, index_constraints, guards, exact, _products = self._lowered(access, "1", frozenset(), None)
        if not exact or len(guards) != len(access.guards):
            return None
        indexed = set(index.coeffs) | {name for coeffs, _, _ in index_constraints for name in coeffs}
        probe = Linearizer(self.context, "1", products=True)
        for guard in access.guards:
            probe.at = guard.node or access.node
            options = guard_alternatives(probe, guard)
            if options is None:
                return None  # a guard that puts no constraint: the access may not run where the system says
            if guard.kind == "after_loop" and indexed & {name for option in options for coeffs, _, _ in option
                                                         for name in coeffs}:
                return None  # a failed loop test bounds the counter's final value from one side only
        base = thread_bounds(self.shape, "1") + block_bounds(self.shape, "") + list(index_constraints)
        alternatives = []
        for options, constraints in guards:
            alternatives.append(options)
            base += constraints
        base.append(less_equal(Lin.of(elements), index))
        names = {name for coeffs, _, _ in base for name in coeffs} | {
            name for options in alternatives for option in options for coeffs, _, _ in option for name in coeffs}
        if not all(_pinned_launch_var(name) for name in names):
            return None
        if decide(base, alternatives, True).result != CONFLICT:
            return None
        pins: list[Constraint] = []
        position = {}
        for var, extent in ([(block_var("", a), self.shape.grid_extent(a)) for a in "xyz"]
                            + [(thread_var("1", a), self.shape.block_extent(a)) for a in "xyz"]):
            if var not in names or extent is None:
                position[var] = 0
                continue
            low = _least(lambda bound: decide(base + pins + [less_equal(Lin.var(var), Lin.of(bound))],
                                              alternatives, True).result == CONFLICT, 0, extent - 1)
            if low is None:
                return None
            pins.append(eq(Lin.var(var) - Lin.of(low)))
            position[var] = low
        limit = elements
        while decide(base + pins + [less_equal(index, Lin.of(limit))], alternatives, True).result != CONFLICT:
            if limit > 2 ** 62:
                return None
            limit = 2 * limit + 1
        element = _least(lambda bound: decide(base + pins + [less_equal(index, Lin.of(bound))], alternatives,
                                              True).result == CONFLICT, elements, limit)
        if element is None:
            return None
        return PastTheEnd(tuple(position[thread_var("1", a)] for a in "xyz"),
                          tuple(position[block_var("", a)] for a in "xyz"), element)

    def _solver_exact(self, access: MemoryAccess, limit: ir.Expr | None) -> bool:
        """Whether one thread's guards and index mean, as constraints, what they compute: every variable
        assigned more than once, other than a loop counter, has one assignment reaching where it is read
        (the lowering then takes that value; with several, it would take the guard's and the index's for one
        value), and no integer is narrower than 32 bits (the constraints' integers do not wrap)."""
        stack = [(access.expr, access.node.scope, access.node)]
        if limit is not None:
            stack.append((limit, access.node.scope, access.node))
        return self._values_exact(stack, access.guards, access.node)

    def _values_exact(self, stack: list[tuple[ir.Expr, Scope, CfgNode]], guards: tuple[Guard, ...],
                      at: CfgNode) -> bool:
        """`_solver_exact` for the expressions of `stack` ((expr, scope, where it is evaluated)) under `guards`."""
        assigned = assigned_values(at.scope.function)
        counters = self.analysis.induction.get(at.scope.function_key, {})
        stack = list(stack)
        # the guards the lowering keeps (`guard_alternatives` drops a switch and a per-thread loop's exit)
        stack += [(guard.cond, guard.scope, guard.node or at) for guard in guards
                  if not (guard.kind == "switch" or (guard.kind == "after_loop"
                                                     and guard.scope.facts.is_dependent(guard.cond)))]
        seen: set[tuple] = set()
        while stack:
            expr, where, at = stack.pop()
            for node in expr.walk():
                if isinstance(node, ir.Cast) and _narrow_integer(node.type):
                    return False
                if not isinstance(node, ir.Name) or not node.ref or (node.ref, at.index) in seen:
                    continue
                seen.add((node.ref, at.index))
                if _narrow_integer(node.type):
                    return False
                definition = where.env.definition(node.ref)
                if definition is not None:
                    stack.append((definition, where, at))
                elif len(assigned.get(node.ref, ())) > 1 and node.ref not in counters:
                    reaching = self.reaching(where, node.ref, at)
                    if reaching is None:
                        return False
                    stack.append(reaching)
        return True

    def _index_exact(self, access: MemoryAccess, inst: str, renamed: frozenset[str], across_blocks: bool) -> bool:
        return self._exact_indices.get((id(access), inst, renamed, across_blocks), False)

    def _lowering_key(self, access: MemoryAccess, inst: str, renamed: frozenset[str], start: CfgNode | None,
                      across_blocks: bool = False) -> tuple[tuple, tuple[Guard, ...]]:
        """What lowering `access` in the interval from `start` depends on, and the interval's path guards
        that its own guards do not state. Intervals whose path guards are the same branches share a key."""
        paths = self.path_guards(start) if start is not None else {}
        own = {(id(g.cond), g.positive) for g in access.guards}
        extra = tuple(g for g in paths.get(access.node, ()) if (id(g.cond), g.positive) not in own)
        pinned = self._pinned_counters(start, access, extra, renamed)
        return (id(access), inst, renamed, across_blocks, tuple((id(g.cond), g.positive, id(g.node)) for g in extra),
                (start.index, pinned) if pinned else ()), extra

    def _lowered(self, access: MemoryAccess, inst: str, renamed: frozenset[str], start: CfgNode | None,
                 across_blocks: bool = False):
        """An access lowered for instance `inst`: (index, its side constraints, [(guard alternatives, their
        side constraints)], exact). Cached: names of solver variables depend only on these inputs.

        Loaded integers in a shared-memory index stand for any value (some input makes two threads meet);
        in a global one they do not: a scatter through a permutation is the normal, race-free case."""
        key, extra = self._lowering_key(access, inst, renamed, start, across_blocks)
        found = self._lowerings.get(key)
        if found is not None:
            return found
        keys = self._pinned_counters(start, access, extra, renamed)
        lin = Linearizer(self.context, inst, renamed, global_mode=across_blocks,
                         data_values=not isinstance(access.array, GlobalBuffer), products=True,
                         iterations=(lambda at: self._iterations_at(start, keys, at, access)) if keys else None)
        index = self._index(access, lin)
        index_constraints = list(lin.constraints)
        self._exact_indices[(id(access), inst, renamed, across_blocks)] = lin.exact and access.index.exact
        guards = []
        for guard in access.guards + extra:
            lin.constraints = []
            lin.at = guard.node or access.node
            options = guard_alternatives(lin, guard)
            if options is not None or lin.constraints:
                guards.append((options if options is not None else [[]], lin.constraints))
        found = (index, index_constraints, guards, lin.exact and access.index.exact, lin.products)
        self._lowerings[key] = found
        return found

    def _pinned_counters(self, start: CfgNode | None, access: MemoryAccess, extra: tuple[Guard, ...],
                         renamed: frozenset[str]) -> tuple[str, ...]:
        """The loop counters among `renamed` whose iteration, counted from the interval's start, is the same
        on every barrier-free path from `start` to the access and to the nodes its guards are evaluated at
        (the path guards `extra` among them): a write before a loop's back edge and a read after it are one
        iteration apart."""
        if start is None or not renamed:
            return ()
        nodes = [access.node] + [g.node for g in access.guards + extra if g.node is not None]
        cache = self._pinned_cache
        cache_key = (start.index, tuple(node.index for node in nodes), renamed)
        if cache_key not in cache:
            cache[cache_key] = tuple(sorted(key for key in renamed if self._stepped(key) is not None and all(
                key in self._iterations_at(start, (key,), node, access) for node in nodes)))
        return cache[cache_key]

    def _iterations_at(self, start: CfgNode, keys: tuple[str, ...], at: CfgNode | None, access: MemoryAccess
                       ) -> dict[str, tuple[str | None, int]]:
        """The `iterations` of a Linearizer lowering `access` (and its guards) in the interval from `start`,
        at node `at`, for the counters `keys` that are pinned there. A guard of the access is evaluated in the
        access's iteration (the conditions enclosing it), also when its node is reached again from the
        interval's start through the loop's back edge; another node is pinned by its own state only when
        every path to it from the start is barrier-free and within the interval (`steps`), and a node the
        access is reached from in an earlier iteration is not told apart from one in the same iteration, so
        any other node of the loop pins nothing."""
        found: dict[str, tuple[str | None, int]] = {}
        for key in keys:
            steps = self._counter_steps(start, key)
            if steps is None or at is None:
                continue
            if at is access.node or any(g.node is at for g in access.guards):
                state = steps.get(access.node)
            elif at in self._counter_loop(key):
                continue  # maybe evaluated in an earlier iteration than the access's: left free
            else:
                state = steps.get(at)
            if state is None:
                continue
            entered, count = state
            if entered:
                found[key] = (None, count)
            elif start in self._counter_loop(key):
                found[key] = (str(start.index), count)
            # else: the interval starts outside the loop, where the counter may differ between threads
        return found

    def _stepped(self, key: str) -> tuple[set[CfgNode], set[CfgNode]] | None:
        """The step nodes of the loop whose counter `key` is, and the other nodes assigning it (its init);
        None when no loop step assigns it."""
        cache = self._stepped_cache
        if key not in cache:
            steps = {n for n, assigned in self._def_nodes.items() if key in assigned and n.kind == "step"}
            inits = {n for n, assigned in self._def_nodes.items() if key in assigned and n.kind != "step"}
            cache[key] = (steps, inits) if steps else None
        return cache[key]

    def _counter_loop(self, key: str) -> set[CfgNode]:
        """The nodes on a cycle through the counter's step that passes no init of it: its loop's body."""
        cache = self._counter_loops
        if key not in cache:
            steps, inits = self._stepped(key)
            graph = self.cfg.graph

            def closure(edges) -> set[CfgNode]:
                found, stack = set(), list(steps)
                while stack:
                    node = stack.pop()
                    if node in found:
                        continue
                    found.add(node)
                    stack.extend(n for n in edges[node] if n not in inits)
                return found

            cache[key] = closure(graph.succ) & closure(graph.pred)
        return cache[key]

    def _counter_steps(self, start: CfgNode, key: str) -> dict[CfgNode, tuple[bool, int] | None] | None:
        """For the loop counter `key`, per node of the barrier-free region from `start`: (entered, steps)
        when all paths from the start agree on it: whether they pass the counter's init, and how many of its
        steps they pass after that (or after the start); None for a node where paths disagree. None when no
        loop step assigns the variable."""
        cache = self._counter_steps_cache
        cache_key = (start.index, key)
        if cache_key in cache:
            return cache[cache_key]
        stepped = self._stepped(key)
        if stepped is None:
            cache[cache_key] = None
            return None
        steps, inits = stepped
        states: dict[CfgNode, set[tuple[bool, int]]] = {}
        succ = self.cfg.graph.succ
        stack = [(node, (False, 0)) for node in succ[start]]
        while stack:
            node, state = stack.pop()
            seen = states.setdefault(node, set())
            if state in seen:
                continue
            seen.add(state)
            if node.kind == "barrier" and node.barrier in BLOCK_LEVEL:
                continue
            entered, count = state
            if node in steps:
                state = (entered, min(count + 1, _MANY_STEPS))
            elif node in inits:
                state = (True, 0)
            stack.extend((next_node, state) for next_node in succ[node])
        found = {node: next(iter(seen)) if len(seen) == 1 and max(seen)[1] < _MANY_STEPS else None
                 for node, seen in states.items()}
        cache[cache_key] = found
        return found

    def _warp(self, lin: Linearizer) -> Lin | None:
        """The warp number of `lin`'s thread, as a variable shared with its other divisions by 32."""
        thread = linear_thread_id(self.shape, lin.inst)
        return None if thread is None else lin.divmod(thread, 32)[0]

    def single_warp(self, access: MemoryAccess) -> bool:
        """Whether the guards of `access` let the threads of one warp at most run it (`if (tid < 32)`)."""
        l1 = Linearizer(self.context, "1", shared_iterations=True)
        l2 = Linearizer(self.context, "2", shared_iterations=True)
        w1, w2 = self._warp(l1), self._warp(l2)
        if w1 is None or w2 is None:
            return False
        base = thread_bounds(self.shape, "1") + thread_bounds(self.shape, "2")
        alternatives = [[[less(w1, w2)], [less(w2, w1)]]]
        for guard in access.guards:
            for lin in (l1, l2):
                lin.at = guard.node or access.node
                options = guard_alternatives(lin, guard)
                if options is not None:
                    alternatives.append(options)
        return decide(base + l1.constraints + l2.constraints, alternatives, True).result == NONE

    def _index(self, access: MemoryAccess, lin: Linearizer) -> Lin:
        lin.at = access.node
        total = _linear_sum(lin, access.index.terms)
        for expr, bound, scope in access.index.ranges:
            value = lin.lin(expr, scope)
            lin.constraints += [ge(value), less(value, Lin.of(bound))]
        for n, (extent, stride, scope) in enumerate(access.index.region):
            offset = Lin.var(f"region{n}#{lin.inst}")
            lin.constraints += [ge(offset), less(offset, Lin.of(extent))]
            if isinstance(stride, int):
                total = total + offset.scale(stride)
                continue
            stride_lin = lin.lin(stride, scope)
            if stride_lin.is_const:
                total = total + offset.scale(stride_lin.const)
            else:
                lin.exact = False
        return total

    def _thread_index(self, access: MemoryAccess) -> Lin | None:
        """The access's index when it is an exact function of threadIdx alone (`s[tid]`, `s[ty][tx]`)."""
        cache = self._thread_indices
        if id(access) not in cache:
            lin = Linearizer(self.context, "1", data_values=True)
            value = self._index(access, lin)
            pure = lin.exact and access.index.exact and not access.index.region \
                and all(v.startswith("t1.") for v in value.coeffs) \
                and all(v.startswith("t1.") for c, _, _ in lin.constraints for v in c)  # range checks only
            cache[id(access)] = value if pure else None
        return cache[id(access)]

    def _injective(self, index: Lin) -> bool:
        """Whether distinct threads of a block always get distinct values of `index`."""
        terms = []
        for axis in "xyz":
            extent = self.shape.block_extent(axis)
            coeff = index.coeffs.get(thread_var("1", axis), 0)
            if extent == 1:
                continue
            if coeff == 0:
                return False
            if extent is None:
                if len(terms) or any(self.shape.block_extent(a) != 1 for a in "xyz" if a != axis):
                    return False
            terms.append((abs(coeff), extent))
        terms.sort()
        span = 0
        for coeff, extent in terms:
            if coeff <= span:
                return False
            span += coeff * ((extent or 1) - 1)
        return True

    def _same_element_only(self, a: MemoryAccess, b: MemoryAccess) -> bool:
        """Both accesses touch element f(threadIdx) for one injective f: no two threads meet."""
        if a.collective or b.collective:
            return False
        ia, ib = self._thread_index(a), self._thread_index(b)
        if ia is None or ib is None or ia.coeffs != ib.coeffs or ia.const != ib.const:
            return False
        return self._injective(ia)

    @cached_property
    def races(self) -> list[Race]:
        """Shared-memory races between threads of one block, at least one per access that can race (the
        first pair found for it, with the earlier access of the pair). A store of the value its thread read
        from the same element (`v = s[0]; s[0] = v;`) leaves the element as it is: it races with no read and
        no other such store (racecheck reports none), only with a store of another value."""
        return self._races([(a, b, starts) for a, b, starts in self.candidate_pairs()
                            if not all(not x.writes or self._is_write_back(x) for x in (a, b))])

    def _is_write_back(self, access: MemoryAccess) -> bool:
        """`_writes_back`, decided once per access (it is asked for every pair the access is in)."""
        found = self._write_backs.get(id(access))
        if found is None:
            found = self._write_backs[id(access)] = self._writes_back(access)
        return found

    @cached_property
    def global_races(self) -> list[Race]:
        """Global-memory races between two accesses (one a plain write) of two threads: of one block with no
        block barrier between them, or of two blocks with no grid barrier between them. A store that many
        threads run (`out[0] = v`, `out[k] += v`) is not paired with itself: CL105 and CL106 decide those.
        Atomics are never a side (a plain read of an atomically updated counter is how tickets are read),
        and two plain stores of one block-uniform value (`flag[0] = 1`) do not race."""
        if self._orders_itself:
            return []
        found = []
        for across in (False, True):
            pairs = [(a, b, starts) for a, b, starts in self.candidate_pairs(self.global_by_node, across)
                     if a is not b and ATOMIC not in (a.mode, b.mode) and not self._same_value(a, b, across)]
            found += self._races(pairs, across)
        return found

    @cached_property
    def _orders_itself(self) -> bool:
        """Code that takes a lock (atomicCAS/atomicExch) or spins on flags (volatile, __threadfence) orders
        its global accesses by means the intervals do not see."""
        for function in self.analysis.reachable(self.function):
            if any(n.callee in ("atomicCAS", "atomicExch", "__threadfence") for n in function.of_type(ir.Call)):
                return True
        return any(access.volatile for access in self.global_accesses)

    def _writes_back(self, access: MemoryAccess) -> bool:
        """A plain store `s[e] = v` where the one value of `v` reaching it was read from `s[e]` by this thread
        as the element's own type, with no barrier and no other store to the array on any path between the
        read and the store, and `e` names only values assigned once: the store writes back the content the
        element still has in this barrier interval."""
        value = access.value
        if access.mode != WRITE or not isinstance(value, ir.Name) or not isinstance(access.expr, ir.Index):
            return False
        scope = access.node.scope
        reaching = self.reaching(scope, value.ref, access.node)
        if reaching is None or reaching[1] is not scope or not isinstance(reaching[0], ir.Index):
            return False
        read, read_node = reaching[0], reaching[2]
        if _shape(read) != _shape(access.expr) or any(
                isinstance(node, (ir.Index, ir.Call)) or (isinstance(node, ir.Unary) and node.op == "*")
                for node in access.expr.index.walk()):
            return False  # another element, or an index read from memory that may change in between
        if _escapes(scope.function, value.ref):
            return False  # `bump(v)` by reference, `*(&v) = ...`: v may not hold what was read
        element = access.array.decl.element_type
        if not value.type or bare_type(value.type) != bare_type(read.type) or (
                element and bare_type(element) != bare_type(read.type)):
            return False  # `int v = s[0]; s[0] = v;` on a float array stores a truncated value
        assigned = assigned_values(scope.function)
        if any(len(assigned.get(node.ref, ())) > 1 for node in access.expr.index.walk()
               if isinstance(node, ir.Name) and node.ref):
            return False
        # every path from the read to the store: no barrier, no other store to the array
        pred, seen, stack = self.cfg.graph.pred, {access.node}, list(self.cfg.graph.pred[access.node])
        while stack:
            node = stack.pop()
            if node in seen or node is read_node:
                continue
            seen.add(node)
            if node.kind == "barrier" or node is self.cfg.entry or len(seen) > 2000 or any(
                    other.writes and other.key == access.key for other in self.by_node.get(node, ())):
                return False
            stack.extend(pred[node])
        return True

    def _same_value(self, a: MemoryAccess, b: MemoryAccess, across_blocks: bool) -> bool:
        """Both plain stores of one value that is the same in every thread (and block)."""
        if a.value is None or b.value is None or " ".join(a.value.text.split()) != " ".join(b.value.text.split()):
            return False
        return not any(value_dependent_expr(self.analysis, access.value, access.node.scope)
                       or (across_blocks and _mentions_block_or_memory(access.value)) for access in (a, b))

    def _races(self, pairs: list[tuple[MemoryAccess, MemoryAccess, list[CfgNode]]],
               across_blocks: bool = False) -> list[Race]:
        races = []
        anchored: set[int] = set()  # accesses already known to race: rules report one finding per access
        for count, (a, b, starts) in enumerate(pairs):
            if count >= _MAX_PAIRS:
                break  # a pathological kernel: keep lint time bounded (only findings are lost)
            if not across_blocks and self._same_element_only(a, b):
                continue
            if id(self._order(a, b)[1]) in anchored:
                continue
            renamed = self.renamed_between(a, b)
            same_warp = not across_blocks and self.same_warp_interval(a, b)
            tested: set[tuple] = set()
            # across blocks, only the accesses' own guards apply: the path guards are those of block intervals
            for start in ([None] if across_blocks else starts):
                lowerings = (self._lowering_key(a, "1", renamed, start, across_blocks)[0],
                             self._lowering_key(b, "2", renamed, start, across_blocks)[0])
                if lowerings in tested:
                    continue  # the constraints of an interval already tested, so its verdict: no conflict
                tested.add(lowerings)
                verdict = self.test(a, b, renamed, cross_warp=not same_warp and not across_blocks, start=start,
                                    across_blocks=across_blocks)
                if verdict.result != CONFLICT:
                    continue
                warp_only = False
                if same_warp and not (a.collective or b.collective) and (
                        a.volatile or b.volatile or (self.single_warp(a) and self.single_warp(b))):
                    warp_only = self.test(a, b, renamed, cross_warp=True, start=start).result == NONE
                first, second = self._order(a, b)
                races.append(Race(first, second, warp_only, across_blocks))
                anchored.add(id(second))
                break
        return races

    def partially_active(self, guards: tuple[Guard, ...], at: CfgNode) -> Guard | None:
        """A guard that some lanes of a warp can fail while other lanes of that warp pass all `guards`
        (threads that returned from the kernel do not count); None when every warp runs whole."""
        if linear_thread_id(self.shape, "1") is None:
            return None
        candidates = [g for g in guards if g.kind != "after_loop" and not g.thread_exits]
        if not candidates:
            return None
        for candidate in candidates:
            l1 = Linearizer(self.context, "1", shared_iterations=True)
            l2 = Linearizer(self.context, "2", shared_iterations=True)
            base = thread_bounds(self.shape, "1") + thread_bounds(self.shape, "2")
            base.append(eq(self._warp(l1) - self._warp(l2)))
            alternatives = []
            for guard in guards:
                l1.at = guard.node or at
                options = guard_alternatives(l1, guard)
                if options is not None:
                    alternatives.append(options)
                if guard.thread_exits:  # the other lane is still running
                    l2.at = guard.node or at
                    options = guard_alternatives(l2, guard)
                    if options is not None:
                        alternatives.append(options)
            l2.at = candidate.node or at
            negated = l2.condition(candidate.cond, candidate.scope, not candidate.positive) \
                if candidate.kind != "switch" else None
            if negated is None:
                continue
            alternatives.append(negated)
            verdict = decide(base + l1.constraints + l2.constraints, alternatives, l1.exact and l2.exact)
            if verdict.result == CONFLICT:
                return candidate
        return None

    def _order(self, a: MemoryAccess, b: MemoryAccess) -> tuple[MemoryAccess, MemoryAccess]:
        if a is b:
            return a, b
        reach = self.cfg.reach
        a_then_b = b.node in reach(a.node) or (a.node is b.node)
        b_then_a = a.node in reach(b.node)
        if a.node is b.node:  # one statement: the write lands after the read of its right-hand side
            return (b, a) if a.writes and not b.writes else (a, b)
        if a_then_b and not b_then_a:
            return a, b
        if b_then_a and not a_then_b:
            return b, a
        # both orders (a barrier-free loop) or neither (two branches): name the read second
        if a.writes and not b.writes:
            return a, b
        if b.writes and not a.writes:
            return b, a
        return (a, b) if (a.expr.span.line, a.expr.span.column) <= (b.expr.span.line, b.expr.span.column) else (b, a)


def _dominators(graph: Graph, start: CfgNode, region: set[CfgNode]) -> dict[CfgNode, CfgNode]:
    """Immediate dominators from `start` in the barrier-free part of the graph: `start`, and the nodes of
    `region` that are not block barriers."""
    inside = {n for n in region if not (n.kind == "barrier" and n.barrier in BLOCK_LEVEL)} | {start}
    idom = immediate_dominators(graph.succ, graph.pred, start, inside)
    del idom[start]
    return idom


@dataclass(frozen=True)
class PastTheEnd:
    """A thread that accesses past the end of a buffer, and the first element past it that it reaches."""

    thread: tuple[int, int, int]
    block: tuple[int, int, int]
    element: int


def _pinned_launch_var(name: str) -> bool:
    """Whether a solver variable is one a launch with pinned parameters leaves free only as the thread
    space or its arithmetic: a thread or block index, a loop's iteration count, a quotient or remainder."""
    return name.startswith(("t1.", "b.")) or name[:1] in ("k", "q", "r") and name[1:2].isdigit()


def _least(holds: Callable[[int], bool], low: int, high: int) -> int | None:
    """The least value in [low, high] for which the monotone `holds` is true; None when not at `high`."""
    if not holds(high):
        return None
    while low < high:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle + 1
    return low


def guard_alternatives(lin: Linearizer, guard: Guard) -> list[list[Constraint]] | None:
    """The constraints a guard puts on one access instance; None when it adds none."""
    if guard.kind == "switch":
        if guard.scope.facts.is_dependent(guard.cond):
            lin.exact = False
        return None
    if guard.kind == "after_loop" and guard.scope.facts.is_dependent(guard.cond):
        # every thread leaves the loop eventually: the failed condition only describes the final value of a
        # per-thread counter, which does not decide which threads run the code after the loop
        return None
    return lin.condition(guard.cond, guard.scope, guard.positive)


def _shape(expr: ir.Expr) -> tuple:
    """An expression's structure with variables by declaration, not by name (shadowing `i` is another `i`)."""
    return tuple((type(node).__name__, node.ref or node.name) if isinstance(node, ir.Name)
                 else (type(node).__name__, getattr(node, "op", None), getattr(node, "value", None))
                 for node in expr.walk())


def _escapes(function: ir.Function, ref: str | None) -> bool:
    """Whether a local's address is taken or it is passed to a call (which may take it by reference)."""
    for node in function.of_type(ir.Unary, ir.Call):
        operands = [node.operand] if isinstance(node, ir.Unary) and node.op == "&" else (
            node.args if isinstance(node, ir.Call) else [])
        if any(isinstance(operand, ir.Name) and operand.ref == ref for operand in operands):
            return True
    return False


def _by_node(accesses: list[MemoryAccess]) -> dict[CfgNode, list[MemoryAccess]]:
    found: dict[CfgNode, list[MemoryAccess]] = {}
    for access in accesses:
        found.setdefault(access.node, []).append(access)
    return found


def _narrow_integer(type_: str) -> bool:
    """An integer type narrower than 32 bits (`short`, `uint8_t`); not `bool`, whose 0 and 1 the constraints hold."""
    return is_integer_type(type_) and "bool" not in type_ and (type_size(type_) or 4) < 4


def _assigns(node: CfgNode) -> frozenset[str]:
    """Variable keys ("<scope key>|<ref>") that `node` assigns."""
    scope = node.scope
    out: set[str] = set()
    if node.decl is not None and node.decl.ref:
        out.add(f"{scope.key}|{node.decl.ref}")
    if node.kind == "call" and node.call is not None:
        # parameters the callee assigns are variables of its scope, initialized here
        for param in scope.function.params:
            if param.ref and param.ref not in scope.bindings:
                out.add(f"{scope.key}|{param.ref}")
    for expr in _evaluated(node):
        target = None
        if isinstance(expr, ir.Binary) and expr.is_assignment:
            target = expr.lhs
        elif isinstance(expr, ir.Unary) and expr.op in ("++", "--", "post++", "post--"):
            target = expr.operand
        while isinstance(target, ir.Cast) or isinstance(target, ir.Member) and "->" not in target.text:
            target = target.operand if isinstance(target, ir.Cast) else target.base
        if isinstance(target, ir.Name) and target.ref:
            out.add(f"{scope.key}|{target.ref}")
    return frozenset(out)


def _evaluated(node: CfgNode, prune=None):
    """The expressions `node` evaluates itself (not the calls it skips, not lambda bodies); below an
    expression for which `prune` is true, nothing."""
    skip = node.skip
    for root in node.access_roots():
        stack = [root]
        while stack:
            expr = stack.pop()
            if id(expr) in skip or isinstance(expr, ir.Lambda):
                continue
            yield expr
            if prune is None or not prune(expr):
                stack.extend(expr.children())  # an expression's children are expressions (but a lambda's)


# ------------------------------------------------------------------------------------ divergent barriers


@dataclass
class DivergentBarrier:
    barrier: CfgNode
    branch: CfgNode  # the nearest thread-dependent branch deciding whether the barrier runs
    anchor: ir.Span  # the barrier call, or the call of the device function that holds it
    kind: str  # "exit" (after a thread-dependent return/break/continue), "loop", "switch", "if"
    what: str  # how to name the barrier in a message
    exit_stmt: ir.Stmt | None = None

    @property
    def branch_span(self) -> ir.Span:
        return self.branch.expr.span

    @property
    def branch_label(self) -> str:
        return {"exit": "the thread-dependent exit condition", "loop": "the thread-dependent loop condition",
                "switch": "the thread-dependent switch"}.get(self.kind, "the thread-dependent condition")

    def message(self, line_of=lambda span: span.line) -> str:
        what, cond, line = self.what, short_text(self.branch.expr.text, 60), line_of(self.branch.expr.span)
        if self.kind == "exit":
            word = {ir.Return: "return", ir.Break: "break", ir.Continue: "continue"}.get(type(self.exit_stmt), "exit")
            return (f"{what} runs after a thread-dependent `{word}` (line {line_of(self.exit_stmt.span)}, under "
                    f"`{cond}`): threads that left never arrive at this barrier, so the block may hang or corrupt "
                    f"the barrier; keep every thread alive to the barrier and guard only the work")
        if self.kind == "loop":
            return (f"{what} is inside a loop whose condition `{cond}` (line {line}) depends on the thread: threads "
                    f"run different numbers of iterations and reach the barrier a different number of times; make "
                    f"the trip count block-uniform and guard the work inside the loop")
        if self.kind == "switch":
            return (f"{what} is inside a `switch` on the thread-dependent value `{cond}` (line {line}): threads of "
                    f"one block take different cases; move the barrier out of the switch")
        return (f"{what} is reached only by threads for which `{cond}` (line {line}) holds, a condition that "
                f"differs between threads of a block: the block may hang or corrupt the barrier; move the "
                f"barrier out of the branch so every thread reaches it")


_PER_THREAD = None


def _per_thread_call(name: str) -> bool:
    global _PER_THREAD
    if _PER_THREAD is None:
        from cudalint.analysis import uniformity

        _PER_THREAD = uniformity._PER_THREAD_CALL
    return bool(_PER_THREAD.match(name))


def value_dependent_expr(analysis: SyncAnalysis, expr: ir.Expr, scope: Scope, depth: int = 0) -> bool:
    """Whether `expr` may differ between threads at one point of execution (control dependence aside)."""
    if depth > 8:
        return True
    dependent = analysis.value_dependent(scope.function)
    for node in per_thread_nodes(expr):
        if isinstance(node, ir.Name):
            if node.name == "threadIdx":
                return True
            bound = scope.binding(node.ref)
            if bound is not None:
                if value_dependent_expr(analysis, bound[0], bound[1], depth + 1):
                    return True
            elif node.ref and node.ref in dependent:
                return True
        elif isinstance(node, ir.Call) and _per_thread_call(node.callee):
            return True
    return False


def _exit_of(stmt: ir.If) -> ir.Stmt | None:
    from cudalint.analysis.cfg import _always_exits

    return _always_exits(stmt.then) or (_always_exits(stmt.otherwise) if stmt.otherwise is not None else None)


def _divergent_branch(analysis: SyncAnalysis, kernel: KernelSync, branch: CfgNode) -> bool:
    if branch.expr is None or not value_dependent_expr(analysis, branch.expr, branch.scope):
        return False
    if branch.stmt is not None and isinstance(branch.stmt, ir.Switch):
        return True
    # a condition that holds for all threads or for none (threadIdx.x < blockDim.x) does not diverge
    l1 = Linearizer(kernel.context, "1", shared_iterations=True)
    l2 = Linearizer(kernel.context, "2", shared_iterations=True)
    holds = l1.condition(branch.expr, branch.scope, True)
    fails = l2.condition(branch.expr, branch.scope, False)
    if holds is None or fails is None:
        return True
    base = thread_bounds(kernel.shape, "1") + thread_bounds(kernel.shape, "2") + l1.constraints + l2.constraints
    return decide(base, [holds, fails], True).result != NONE


def _divergent_barriers(analysis: SyncAnalysis, function: ir.Function) -> list[DivergentBarrier]:
    kernel = analysis.kernel(function)
    cfg = kernel.cfg
    out = []
    for barrier in cfg.barrier_nodes(BLOCK_LEVEL):
        if barrier not in cfg.reachable:
            continue
        for branch in cfg.controlling_branches(barrier):
            if branch.kind != "cond" or not _divergent_branch(analysis, kernel, branch):
                continue
            out.append(_describe_divergence(barrier, branch))
            break
    return out


def _describe_divergence(barrier: CfgNode, branch: CfgNode) -> DivergentBarrier:
    call_text = short_text(barrier.call.text if barrier.call is not None else "__syncthreads()", 60)
    anchor = barrier.call.span if barrier.call is not None else barrier.span
    scope = barrier.scope
    holder = None
    while scope is not branch.scope and scope.parent is not None and scope.call is not None \
            and scope.is_inside(branch.scope):
        anchor, holder = scope.call.span, scope
        scope = scope.parent
    what = f"`{call_text}`"
    if holder is not None:
        what = f"`{short_text(holder.call.text, 60)}`, which reaches `{call_text}`,"
    stmt = branch.stmt
    if isinstance(stmt, ir.If) and _exit_of(stmt) is not None:
        return DivergentBarrier(barrier, branch, anchor, "exit", what, _exit_of(stmt))
    if isinstance(stmt, (ir.For, ir.While)):
        return DivergentBarrier(barrier, branch, anchor, "loop", what)
    if isinstance(stmt, ir.Switch):
        return DivergentBarrier(barrier, branch, anchor, "switch", what)
    return DivergentBarrier(barrier, branch, anchor, "if", what)




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
        if inner is not None and _element_name(expr.type) != _element_name(expr.operand.type):
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

    for expr in _evaluated(node, prune=is_atomic):
        if isinstance(expr, ir.Binary) and expr.is_assignment:
            yield expr, expr.lhs, expr.rhs, expr.op != "="
        elif isinstance(expr, ir.Unary) and expr.op in ("++", "--", "post++", "post--"):
            yield expr, expr.operand, None, True
        elif isinstance(expr, ir.Call) and (state := rng_state(expr)) is not None:
            yield expr, ir.Unary(state.span, f"*{state.text}", op="*", operand=state), None, True


def _mentions_block_or_memory(expr: ir.Expr) -> bool:
    for node in expr.walk():
        if isinstance(node, (ir.Index, ir.Call)) or isinstance(node, ir.Unary) and node.op == "*":
            return True
        if isinstance(node, ir.Member) and isinstance(node.base, ir.Name) and node.base.name == "blockIdx":
            return True
        if isinstance(node, ir.Name) and node.decl_kind in ("var", "") and node.constant is None:
            return True
    return False


def _global_store_races(analysis: SyncAnalysis, function: ir.Function) -> list[GlobalRace]:
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
                threads = _product(list(kernel.shape.block))
                within = within is True and threads is not None and threads > _MTGP32_BLOCK_THREADS
            if within is not True and across is not True:
                continue
            if not rmw:
                # a plain store races only when the writers store different values
                varies_in_block = value is not None and value_dependent_expr(analysis, value, node.scope)
                varies_across = value is not None and _mentions_block_or_memory(value)
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
    terms.sort()
    span = 0
    for n, (coeff, extent) in enumerate(terms):
        if coeff <= span or extent is None and n != len(terms) - 1:
            return False
        span += coeff * ((extent or 1) - 1)
    return True


def _linear_sum(lin: Linearizer, terms) -> Lin:
    """The sum of an address's (expression, scale, scope) terms, each lowered by `lin` and scaled."""
    total = Lin.of(0)
    for expr, scale, scope in terms:
        total = total + lin.lin(expr, scope).scale(scale)
    return total


def _same_address(kernel: KernelSync, node: CfgNode, address: _GlobalAddress, same_block: bool) -> bool | None:
    """Whether two different threads (of one block, or of two blocks) can store to the address."""
    l1 = Linearizer(kernel.context, "1", global_mode=not same_block, shared_iterations=False)
    l2 = Linearizer(kernel.context, "2", global_mode=not same_block, shared_iterations=False)
    l1.at = l2.at = node
    first = _linear_sum(l1, address.terms)
    if not l1.exact:
        return None  # an address the constraints do not capture can never prove a race
    if _distinct_per_thread(kernel, first, not same_block):
        return False  # most stores (`out[blockIdx.x * blockDim.x + threadIdx.x]`): the second thread's is not needed
    base = thread_bounds(kernel.shape, "1") + thread_bounds(kernel.shape, "2")
    base.append(eq(first - _linear_sum(l2, address.terms)))
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


# ------------------------------------------------------------------------------ warp intrinsics (CL103)


LEGACY_WARP_INTRINSICS = {
    "__shfl": "__shfl_sync", "__shfl_up": "__shfl_up_sync", "__shfl_down": "__shfl_down_sync",
    "__shfl_xor": "__shfl_xor_sync", "__any": "__any_sync", "__all": "__all_sync", "__ballot": "__ballot_sync",
}
_MASKED = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync",
           "__all_sync", "__uni_sync", "__match_any_sync", "__match_all_sync", "__reduce_add_sync",
           "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
           "__syncwarp"}


@dataclass
class PartialWarpCall:
    call: ir.Call
    node: CfgNode
    guard: Guard  # a guard some lanes of a warp fail


def _full_mask(call: ir.Call, scope: Scope) -> bool:
    if call.callee == "__syncwarp" and not call.args:
        return True
    if not call.args:
        return False
    value = scope.env.value(call.args[0])
    return isinstance(value, int) and (value & 0xFFFFFFFF) == 0xFFFFFFFF


def _calls_with_guards(node: CfgNode) -> list[tuple[ir.Call, tuple]]:
    """(call, expression-level guards) for each call a node evaluates."""
    found: list[tuple[ir.Call, tuple]] = []
    for root in node.access_roots():
        _add_calls_with_guards(root, (), node.skip, found)
    if node.kind == "barrier" and node.call is not None:
        found.append((node.call, ()))
    return found


def _add_calls_with_guards(expr: ir.Expr | None, guards: tuple, skip: frozenset[int], found: list) -> None:
    # a function, not a recursive closure: that would be a reference cycle keeping the file's IR alive
    if expr is None or id(expr) in skip or isinstance(expr, ir.Lambda):
        return
    if isinstance(expr, ir.Conditional):
        _add_calls_with_guards(expr.cond, guards, skip, found)
        _add_calls_with_guards(expr.then, guards + ((expr.cond, True),), skip, found)
        _add_calls_with_guards(expr.otherwise, guards + ((expr.cond, False),), skip, found)
        return
    if isinstance(expr, ir.Binary) and expr.op in ("&&", "||"):
        _add_calls_with_guards(expr.lhs, guards, skip, found)
        _add_calls_with_guards(expr.rhs, guards + ((expr.lhs, expr.op == "&&"),), skip, found)
        return
    if isinstance(expr, ir.Call):
        found.append((expr, guards))
    for child in expr.children():
        if isinstance(child, ir.Expr):
            _add_calls_with_guards(child, guards, skip, found)


def _partial_warp_calls(analysis: SyncAnalysis, function: ir.Function) -> list[PartialWarpCall]:
    if _MASKED.isdisjoint(analysis.program.called_names):
        return []  # most units: no CFG walk (0.5 ms per KernelBench file)
    kernel = analysis.kernel(function)
    cfg = kernel.cfg
    out = []
    for node in cfg.nodes:
        if node not in cfg.reachable:
            continue
        for call, extra in _calls_with_guards(node):
            if call.callee not in _MASKED or not _full_mask(call, node.scope):
                continue
            guards = node.guards + tuple(Guard(c, p, node.scope, "ternary", node=node) for c, p in extra)
            failing = kernel.partially_active(guards, node)
            if failing is not None:
                out.append(PartialWarpCall(call, node, failing))
    return out




# ------------------------------------------------------------------------------------ spin loops (CL104)


@dataclass
class SpinLoop:
    loop: ir.Stmt
    function: ir.Function
    cond: ir.Expr


_WAIT_CALLS = {"__nanosleep", "__threadfence", "__threadfence_block", "__threadfence_system", "__syncwarp",
               "__builtin_ia32_pause"}
_READ_ATOMICS = {"atomicAdd", "atomicSub", "atomicOr", "atomicAnd", "atomicXor", "atomicMax", "atomicMin",
                 "atomicAdd_system", "atomicOr_system", "atomicAdd_block"}
_LOAD_CALLS = {"__ldcg", "__ldcv", "__ldca", "__ldlu", "__ldg", "ld_acquire", "load", "__ldcs"}


def _find_spin_loops(analysis: SyncAnalysis) -> list[SpinLoop]:
    program = analysis.program
    out = []
    for function in program.functions:
        if function.body is None or not function.is_device_code:
            continue
        env = program.env(function)
        params = {p.ref: p for p in function.params if p.ref}
        for node in function.of_type(ir.While, ir.For):
            if isinstance(node, ir.For) and (node.init is not None or node.step is not None):
                continue
            if node.cond is None or not _waits(node.body, node.cond):
                continue
            if _polls_global(node.cond, env, params, analysis.device_globals):
                out.append(SpinLoop(node, function, node.cond))
    return out


def _waits(body: ir.Stmt | None, cond: ir.Expr) -> bool:
    """A loop body that makes no progress of its own: empty, a pause, or re-reading a flag into a local.
    A local that moves the address the loop reads is progress: `while (v > p[v]) v = p[v];` chases
    pointers (union-find's root search) and ends by itself."""
    if body is None:
        return True
    assigned = {stmt.lhs.ref for stmt in body.walk()
                if isinstance(stmt, ir.Binary) and stmt.is_assignment and isinstance(stmt.lhs, ir.Name)}
    addresses = [node.index for part in (cond, body) for node in part.walk() if isinstance(node, ir.Index)]
    if any(isinstance(node, ir.Name) and node.ref in assigned for index in addresses for node in index.walk()):
        return False
    for stmt in body.walk():
        if isinstance(stmt, ir.Call) and stmt.callee not in _WAIT_CALLS and stmt.callee not in _LOAD_CALLS \
                and not stmt.callee.startswith("atomic"):
            return False
        if isinstance(stmt, ir.Binary) and stmt.is_assignment and not isinstance(stmt.lhs, ir.Name):
            return False
        if isinstance(stmt, ir.Unary) and stmt.op in ("++", "--", "post++", "post--"):
            return False
        if isinstance(stmt, (ir.Break, ir.Return)):
            return False
    return True


def _polls_global(cond: ir.Expr, env, params: dict, device_globals: dict) -> bool:
    for node in cond.walk():
        if isinstance(node, ir.Call):
            name = node.callee.rsplit("::", 1)[-1]
            if name == "atomicCAS" and len(node.args) == 3:
                compare, value = env.value(node.args[1]), env.value(node.args[2])
                if compare is not None and compare == value:
                    return True  # atomicCAS(p, v, v): a read
                continue  # a lock acquisition: waits for a holder that is running, not for other blocks
            if name in _READ_ATOMICS and len(node.args) >= 2 and env.value(node.args[1]) == 0 \
                    and name in ("atomicAdd", "atomicOr", "atomicSub", "atomicXor", "atomicAdd_system",
                                 "atomicOr_system", "atomicAdd_block"):
                return True
            if name in _LOAD_CALLS and node.args:
                return True
        if isinstance(node, (ir.Index, ir.Unary)) and (not isinstance(node, ir.Unary) or node.op == "*"):
            base = node.base if isinstance(node, ir.Index) else node.operand
            while isinstance(base, (ir.Cast, ir.Index)):
                base = base.operand if isinstance(base, ir.Cast) else base.base
            if isinstance(base, ir.Name) and (base.ref in device_globals or base.ref in params and "*" in base.type):
                return True  # a load through a kernel parameter or from a __device__ array
        if isinstance(node, ir.Name) and node.ref in device_globals and not device_globals[node.ref].dims:
            return True
    return False


def _loop_variables(function: ir.Function, env) -> tuple[dict, set[str], dict]:
    counts: dict[str, int] = {}
    for node in function.of_type(ir.Binary, ir.Unary):
        target = None
        if isinstance(node, ir.Binary) and node.is_assignment:
            target = node.lhs
        elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--", "&"):
            target = node.operand
        if isinstance(target, ir.Name) and target.ref:
            counts[target.ref] = counts.get(target.ref, 0) + 1
    found: dict[str, tuple[ir.Expr, ir.Expr]] = {}
    counters: set[str] = set()
    bounds: dict[str, tuple[str, ir.Expr]] = {}
    for node in function.of_type(ir.For):
        if node.step is None:
            continue
        ref, init, init_assigns = None, None, 0
        if isinstance(node.init, ir.DeclStmt) and len(node.init.decls) == 1 and node.init.decls[0].init is not None:
            ref, init = node.init.decls[0].ref, node.init.decls[0].init
        elif isinstance(node.init, ir.ExprStmt) and isinstance(node.init.expr, ir.Binary) \
                and node.init.expr.op == "=" and isinstance(node.init.expr.lhs, ir.Name):
            ref, init, init_assigns = node.init.expr.lhs.ref, node.init.expr.rhs, 1
        if ref is None:
            continue
        step_assigns = sum(1 for sub in node.step.walk() if _assigns_ref(sub, ref))
        if step_assigns == 0 or counts.get(ref, 0) != step_assigns + init_assigns:
            continue
        counters.add(ref)
        step = _step_of(node.step, ref)
        if step is not None:
            found[ref] = (init, step)
        direction = _direction(node.step, ref, env)
        if direction is not None:
            bounds[ref] = (direction, init)
    return found, counters, bounds


def _direction(step: ir.Expr, ref: str, env) -> str | None:
    """How a loop step moves its counter: "up", "down", "halving" (>>=, /=), or None."""
    if isinstance(step, ir.Unary) and isinstance(step.operand, ir.Name) and step.operand.ref == ref:
        return "up" if "+" in step.op else "down"
    if isinstance(step, ir.Binary) and isinstance(step.lhs, ir.Name) and step.lhs.ref == ref:
        amount = env.value(step.rhs)
        if not isinstance(amount, int):
            return None
        if step.op in ("+=", "<<=") and amount >= 0 or step.op == "*=" and amount >= 1:
            return "up"
        if step.op == "-=" and amount >= 0:
            return "down"
        if step.op in (">>=",) and amount >= 0 or step.op == "/=" and amount >= 1:
            return "halving"
    return None


def _assigns_ref(node: ir.Node, ref: str) -> bool:
    target = None
    if isinstance(node, ir.Binary) and node.is_assignment:
        target = node.lhs
    elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--"):
        target = node.operand
    return isinstance(target, ir.Name) and target.ref == ref


def _step_of(step: ir.Expr, ref: str) -> ir.Expr | None:
    """The increment of `ref` in a loop step (`i++`, `i += s`, `i = i + s`, `i -= s`), as an expression."""
    if isinstance(step, ir.Unary) and step.op in ("++", "post++", "--", "post--") \
            and isinstance(step.operand, ir.Name) and step.operand.ref == ref:
        return ir.Const(step.span, "1" if "+" in step.op else "-1", "int", 1 if "+" in step.op else -1)
    if isinstance(step, ir.Binary) and isinstance(step.lhs, ir.Name) and step.lhs.ref == ref:
        if step.op == "+=":
            return step.rhs
        if step.op == "-=":
            return ir.Unary(step.span, "-" + step.rhs.text, step.rhs.type, "-", step.rhs)
        if step.op == "=" and isinstance(step.rhs, ir.Binary) and step.rhs.op == "+":
            for a, b in ((step.rhs.lhs, step.rhs.rhs), (step.rhs.rhs, step.rhs.lhs)):
                if isinstance(a, ir.Name) and a.ref == ref:
                    return b
    return None


# ------------------------------------------------------------------------------------- per-program cache


class SyncAnalysis:
    """The synchronization facts of one program, computed on demand and cached."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.uniformity = program.analysis(Uniformity)  # the one the guard analysis uses too
        self._cfgs: dict[int, FunctionCFG] = {}
        self._kernels: dict[int, KernelSync] = {}
        self._launched: dict[tuple, KernelSync] = {}
        self._shapes: dict[int, BlockShape] = {}
        self._value_dependent: dict[int, set[str]] = {}
        self._results: dict[str, dict[int, object]] = {}
        self._reachable: dict[int, list[ir.Function]] = {}


    def cfg(self, function: ir.Function) -> FunctionCFG:
        found = self._cfgs.get(id(function))
        if found is None:
            found = self._cfgs[id(function)] = build_cfg(self.program, self.uniformity, function)
        return found

    def kernel(self, function: ir.Function) -> KernelSync:
        found = self._kernels.get(id(function))
        if found is None:
            found = self._kernels[id(function)] = KernelSync(self, function)
        return found

    def kernel_at(self, function: ir.Function, block: tuple[int, int, int], grid: tuple[int, int, int],
                  values: dict[str, int]) -> KernelSync:
        """The kernel as one launch runs it: these block and grid dimensions, its parameters pinned to
        `values` (ref -> value)."""
        key = (id(function), block, grid, tuple(sorted(values.items())))
        found = self._launched.get(key)
        if found is None:
            found = self._launched[key] = KernelSync(self, function, BlockShape(block, grid), values)
        return found

    def races(self, function: ir.Function) -> list[Race]:
        """Shared-memory races between threads of a block (CL101, and CL103 when warp-only)."""
        return self.kernel(function).races

    def global_races(self, function: ir.Function) -> list[Race]:
        """Global-memory races between two accesses, within a block or across blocks (CL107)."""
        return self.kernel(function).global_races

    def divergent_barriers(self, function: ir.Function) -> list[DivergentBarrier]:
        """Block barriers that some threads of the block may not reach (CL102)."""
        return self._memo("divergent", function, _divergent_barriers)

    def global_store_races(self, function: ir.Function) -> list[GlobalRace]:
        """Stores that many threads make to one global address (CL105)."""
        return self._memo("global", function, _global_store_races)

    def partial_warp_calls(self, function: ir.Function) -> list[PartialWarpCall]:
        """Full-mask warp intrinsics under conditions that split a warp (CL103)."""
        return self._memo("partial", function, _partial_warp_calls)

    def grid_syncs(self, function: ir.Function) -> list[CfgNode]:
        """The grid-wide barriers a kernel reaches (CL104)."""
        cfg = self.cfg(function)
        return [n for n in cfg.barrier_nodes((GRID,)) if n in cfg.reachable]

    def spin_loops(self) -> list[SpinLoop]:
        """Loops that spin on global memory other blocks must write (CL104)."""
        if "spin" not in self._results:
            self._results["spin"] = _find_spin_loops(self)
        return self._results["spin"]

    @cached_property
    def device_globals(self) -> dict[str, ir.VarDecl]:
        """`__device__` variables of the unit (global memory), by declaration ref."""
        return {d.ref: d for d in self.program.globals
                if d.ref and not d.shared and not d.constant_memory and not d.is_const}

    def _memo(self, name: str, function: ir.Function, compute):
        cache = self._results.setdefault(name, {})
        if id(function) not in cache:
            cache[id(function)] = compute(self, function)
        return cache[id(function)]

    @cached_property
    def roots(self) -> list[ir.Function]:
        """Functions analyzed as a whole: kernels, and device functions no kernel of the unit calls."""
        kernels = [f for f in self.program.functions if f.is_kernel and f.body is not None]
        reached: set[int] = set()
        for kernel in kernels:
            reached |= {id(f) for f in self.reachable(kernel)}
        loose = [f for f in self.program.functions
                 if f.body is not None and f.space in ("device", "host_device") and id(f) not in reached]
        # a template with instantiations in the unit: the instantiations know the template arguments
        instantiated = {(f.name, f.span.end_line, f.span.end_column) for f in kernels + loose if not f.templated}
        return [f for f in kernels + loose
                if not (f.templated and (f.name, f.span.end_line, f.span.end_column) in instantiated)]

    def reachable(self, function: ir.Function) -> list[ir.Function]:
        """`function` and the functions of the unit it calls, with bodies (cached)."""
        found = self._reachable.get(id(function))
        if found is None:
            found = self._reachable[id(function)] = [
                f for f in self.program.reachable_functions(function) if f.body is not None]
        return found

    def value_dependent(self, function: ir.Function) -> set[str]:
        found = self._value_dependent.get(id(function))
        if found is None:
            found = self._value_dependent[id(function)] = value_dependent_refs(
                function, self.uniformity.of(function), self.program.shared_refs)
        return found

    def block_shape(self, function: ir.Function) -> BlockShape:
        found = self._shapes.get(id(function))
        if found is None:
            found = self._shapes[id(function)] = self._block_shape(function)
        return found

    def _block_shape(self, function: ir.Function) -> BlockShape:
        sites = self.program.launches_of(function.name) if function.is_kernel else []
        used_threads, used_blocks = set(), set()
        for reached in self.reachable(function):
            for node in reached.of_type(ir.Member, ir.Call):
                if isinstance(node, ir.Member) and isinstance(node.base, ir.Name):
                    if node.base.name in ("threadIdx", "blockDim"):
                        used_threads.add(node.field)
                    elif node.base.name in ("blockIdx", "gridDim"):
                        used_blocks.add(node.field)
                elif isinstance(node, ir.Call) and node.callee in ("thread_rank", "this_thread_block", "size",
                                                                  "dim_threads", "thread_index"):
                    used_threads |= {"x", "y", "z"}

        def extents(dims_of, used) -> tuple:
            out = []
            for i, axis in enumerate("xyz"):
                values = [dims_of(s)[i] if dims_of(s) is not None else None for s in sites]
                if values and None not in values:
                    out.append(max(values))
                elif axis not in used and axis != "x":
                    out.append(1)
                elif axis not in used and not values:
                    out.append(1 if axis != "x" else None)
                else:
                    out.append(None)
            return tuple(out)

        block = extents(lambda s: s.block, used_threads)
        grid = extents(lambda s: s.grid, used_blocks)
        if block[0] is None and function.max_threads_per_block and block[1] == 1 and block[2] == 1:
            block = block  # only an upper bound is known: keep blockDim.x symbolic
        return BlockShape(block, grid, function.max_threads_per_block)

    @cached_property
    def _loops(self) -> tuple[dict, dict, dict]:
        induction: dict[str, dict[str, tuple[ir.Expr, ir.Expr]]] = {}
        counters: dict[str, set[str]] = {}
        bounds: dict[str, dict[str, tuple[str, ir.Expr]]] = {}
        for function in self.program.functions:
            if function.body is not None and function.is_device_code:
                key = function.ref or function.name
                induction[key], counters[key], bounds[key] = _loop_variables(function, self.program.env(function))
        return induction, counters, bounds

    @property
    def counter_bounds(self) -> dict[str, dict[str, tuple[str, ir.Expr]]]:
        """Per function (by key), monotone loop counters: ref -> (direction, initial value)."""
        return self._loops[2]

    @property
    def induction(self) -> dict[str, dict[str, tuple[ir.Expr, ir.Expr]]]:
        """Per function (by key), loop counters with an additive step: ref -> (initial value, step)."""
        return self._loops[0]

    @property
    def loop_counters(self) -> dict[str, set[str]]:
        """Per function (by key), variables assigned only by one for loop's init and step."""
        return self._loops[1]


def _weakly(method: Callable) -> Callable:
    """A bound method as a function that holds its object weakly."""
    reference = weakref.WeakMethod(method)
    return lambda *args: reference()(*args)


def index_proven_below(program: Program, function: ir.Function, access: ir.Expr, limit: ir.Expr | None = None) -> bool:
    """Whether the constraint solver proves the index of the global access `access` (the expression as
    written) below `limit`, or below a size its guards compare with (`KernelSync.below_a_compared_size`);
    False for what this analysis does not model (device functions, shared memory)."""
    if not function.is_kernel:
        return False
    kernel = sync_analysis(program).kernel(function)
    return any(memory.expr is access and kernel.below_a_compared_size(memory, limit)
               for memory in kernel.global_accesses)


def sync_analysis(program: Program) -> SyncAnalysis:
    """The (cached) synchronization analysis of `program`, shared by every rule."""
    return program.analysis(SyncAnalysis)
