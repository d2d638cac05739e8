"""Memory accesses of a kernel's graph: every shared-memory access (read, write, read-modify-write, atomic,
and the warp-collective wmma loads/stores) with its index flattened to `sum(scale * expr)` over the array's
dimensions, through pointers derived from the array (`float* row = &tile[ty][0]`, `volatile float* v = s`);
the same for global memory (buffers reached from a kernel's pointer parameters and `__device__` variables).

`intervals.py` pairs them up within barrier intervals; `Race` is what it reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cudalint.analysis.cfg import CfgNode, FunctionCFG, Guard, Scope
from cudalint.model import ir
from cudalint.model.program import Program, SharedArray


READ, WRITE, UPDATE, ATOMIC = "read", "write", "update", "atomic"


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


def element_name(type_: str) -> str:
    for word in ("const", "volatile", "__restrict__", "__restrict", "struct", "*", "&"):
        type_ = type_.replace(word, " ")
    return " ".join(type_.split())


def product_of(dims: list) -> int | None:
    total = 1
    for d in dims:
        if d is None:
            return None
        total *= d
    return total


class AccessCollector:
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
                pointee = element_name(expr.type)
                same = pointee == element_name(inner.array.decl.element_type) or pointee in ("", "void")
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
            stride = product_of(pointer.dims)
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
                stride = product_of(pointer.dims)
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
