"""The memory accesses of a function's code, each with the root its pointer reaches.

`p[i]`, `a[i][j]`, `*(p + i)`, and the pointer arguments of memory intrinsics (`__ldg`, atomics,
`wmma::load_matrix_sync`, ...), each as an `Access` with its `PointerRoot`: the pointer parameter,
`__shared__` array, local array or global variable it reaches through pointer arithmetic, with the offsets
added on the way. `shared_parameters` binds a device function's pointer parameter to the `__shared__` array
every call passes it. (The accesses the barrier analysis pairs, on the control-flow graph with flattened
indices, are `accesses.py`'s.) Listed per function by `GuardAnalysis.accesses` (`guard_analysis.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cudalint.analysis.guards import strip
from cudalint.model import ir
from cudalint.model.constants import ConstantEnv
from cudalint.model.program import Program, SharedArray


# -------------------------------------------------------------------------------------------- accesses


@dataclass(eq=False)
class PointerRoot:
    """What a pointer expression points into, and the pointer arithmetic on the way there."""

    kind: str  # "param", "shared", "local", "global", "constant"
    name: str
    ref: str | None
    type: str  # the declared type of the root
    offsets: list[ir.Expr] = field(default_factory=list)  # added element offsets (in the root's element type)
    decl: ir.VarDecl | None = None
    shared: SharedArray | None = None
    retyped: bool = False  # a cast changed the element type on the way (indices count other elements)
    mixed_units: bool = False  # offsets were added before such a cast and after it: their units differ


@dataclass(eq=False)
class Access:
    """A memory access: `node` reads or writes memory at root + offsets + indices."""

    node: ir.Expr  # the Index (outermost of a chain), the Unary `*`, or the memory intrinsic Call
    root: PointerRoot
    indices: list[ir.Expr]  # one per subscript, outermost array dimension first
    is_write: bool = False

    @property
    def parts(self) -> list[ir.Expr]:
        """Every expression that adds to the address: pointer offsets and subscripts."""
        return list(self.root.offsets) + list(self.indices)

    @property
    def space(self) -> str:
        return self.root.kind

    @property
    def line(self) -> int:
        return self.node.span.line


# pointer arguments of memory intrinsics, by callee spelling
_MEMORY_CALLS: dict[str, tuple[int, ...]] = {
    "load_matrix_sync": (1,), "store_matrix_sync": (0,),
    "__ldg": (0,), "__ldcg": (0,), "__ldca": (0,), "__ldcs": (0,), "__ldlu": (0,), "__ldcv": (0,),
    "__stcg": (0,), "__stcs": (0,), "__stwb": (0,), "__stwt": (0,),
    "__pipeline_memcpy_async": (0, 1), "memcpy_async": (),
}
_ATOMIC = re.compile(r"^atomic\w+$")


def _is_pointer_type(type_: str) -> bool:
    return "*" in type_ or "[" in type_


def shared_parameters(program: Program) -> dict[str, SharedArray]:
    """Pointer parameters of device functions that every call in the unit binds to the same
    `__shared__` array (`block_reduce(v, sbuf)`), by parameter ref."""
    return program.analysis(_bind_shared_parameters)


def _bind_shared_parameters(program: Program) -> dict[str, SharedArray]:
    shared = program.shared_by_ref
    bound: dict[str, set] = {}
    for caller in program.functions:
        if caller.body is None:
            continue
        for node in caller.of_type(ir.Call):
            if node.receiver is not None:
                continue
            for callee in program.functions_by_name.get(node.callee, []):
                if callee.is_kernel or callee.body is None or len(callee.params) != len(node.args):
                    continue
                for param, arg in zip(callee.params, node.args):
                    if not param.ref or not _is_pointer_type(param.type):
                        continue
                    arg = strip(arg)
                    target = shared.get(arg.ref) if isinstance(arg, ir.Name) else None
                    bound.setdefault(param.ref, set()).add(id(target) if target is not None else None)
                    if target is not None:
                        bound.setdefault("#" + param.ref, set()).add(target)
    result = {}
    for ref, targets in bound.items():
        if ref.startswith("#") or None in targets or len(targets) != 1:
            continue
        result[ref] = next(iter(bound["#" + ref]))
    return result


class PointerAccessCollector:
    """Collects the accesses of one function (`GuardAnalysis.accesses`)."""

    def __init__(self, program: Program, function: ir.Function, env: ConstantEnv) -> None:
        self.program = program
        self.function = function
        self.env = env
        self.params = {p.ref: p for p in function.params if p.ref}
        self.shared = program.shared_by_ref
        self.shared_params = shared_parameters(program) if not function.is_kernel else {}
        self.globals = program.globals_by_ref
        self.locals: dict[str, ir.VarDecl] = {}
        if function.body is not None:
            for node in function.of_type(ir.VarDecl):
                if node.ref:
                    self.locals[node.ref] = node
        self.found: list[Access] = []

    def collect(self) -> list[Access]:
        if self.function.body is not None:
            self._visit(self.function.body, False)
        return self.found

    def resolve(self, expr: ir.Expr, depth: int = 0) -> PointerRoot | None:
        """The root of a pointer expression with its offsets, or None when it cannot be followed."""
        if depth > 20:
            return None
        if isinstance(expr, ir.Cast):
            root = self.resolve(expr.operand, depth + 1)
            if root is not None and _element(expr.type) != _element(expr.operand.type) and expr.operand.type:
                root.retyped = True
                if root.offsets:
                    root.mixed_units = True
            return root
        if isinstance(expr, ir.Name):
            ref = expr.ref
            if ref in self.shared_params:
                shared = self.shared_params[ref]
                return PointerRoot("shared", shared.decl.name, shared.decl.ref, shared.decl.type, decl=shared.decl,
                                   shared=shared)
            if ref in self.params:
                param = self.params[ref]
                return PointerRoot("param", param.name, ref, param.type) if _is_pointer_type(param.type) else None
            if ref in self.shared:
                shared = self.shared[ref]
                return PointerRoot("shared", shared.decl.name, ref, shared.decl.type, decl=shared.decl, shared=shared)
            if ref in self.locals:
                decl = self.locals[ref]
                if decl.dims:
                    kind = "constant" if decl.constant_memory else "local"
                    return PointerRoot(kind, decl.name, ref, decl.type, decl=decl)
                definition = self.env.definition(ref)
                if definition is not None and _is_pointer_type(decl.type):
                    return self.resolve(definition, depth + 1)
                return None
            if ref in self.globals:
                decl = self.globals[ref]
                if decl.dims or _is_pointer_type(decl.type):
                    kind = "constant" if decl.constant_memory else "global"
                    return PointerRoot(kind, decl.name, ref, decl.type, decl=decl)
            return None
        if isinstance(expr, ir.Binary) and expr.op in ("+", "-"):
            if _is_pointer_type(expr.lhs.type) and not _is_pointer_type(expr.rhs.type):
                root = self.resolve(expr.lhs, depth + 1)
                offset = expr.rhs if expr.op == "+" else ir.Unary(expr.rhs.span, "-" + expr.rhs.text, expr.rhs.type,
                                                                   "-", expr.rhs)
            elif expr.op == "+" and _is_pointer_type(expr.rhs.type) and not _is_pointer_type(expr.lhs.type):
                root = self.resolve(expr.rhs, depth + 1)
                offset = expr.lhs
            else:
                return None
            if root is not None:
                root.offsets.append(offset)
            return root
        if isinstance(expr, ir.Unary) and expr.op == "&" and isinstance(strip(expr.operand), ir.Index):
            chain = _index_chain(strip(expr.operand))
            if chain is None:
                return None
            base, indices = chain
            root = self.resolve(base, depth + 1)
            if root is None:
                return None
            if root.kind in ("shared", "local", "constant") and root.decl is not None and len(root.decl.dims) > 1:
                return None  # &tile[r][c]: a row pointer into a 2-D array, not modelled
            root.offsets.extend(indices)
            return root
        return None

    def _add(self, node: ir.Expr, pointer: ir.Expr, indices: list[ir.Expr], is_write: bool) -> None:
        root = self.resolve(pointer)
        if root is not None:
            self.found.append(Access(node, root, indices, is_write))

    def _visit(self, node: ir.Node, is_write: bool) -> None:
        if isinstance(node, ir.Index):
            chain = _index_chain(node)
            if chain is not None:
                base, indices = chain
                self._add(node, base, indices, is_write)
                for index in indices:
                    self._visit(index, False)
                self._visit_pointer(base)
                return
        elif isinstance(node, ir.Unary) and node.op == "*":
            self._add(node, node.operand, [], is_write)
            self._visit_pointer(node.operand)
            return
        elif isinstance(node, ir.Unary) and node.op == "&" and isinstance(strip(node.operand), ir.Index):
            self._visit_address(strip(node.operand))
            return
        elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--"):
            self._visit(node.operand, True)
            return
        elif isinstance(node, ir.Binary) and node.is_assignment:
            self._visit(node.lhs, True)
            self._visit(node.rhs, False)
            return
        elif isinstance(node, ir.Call):
            positions = _MEMORY_CALLS.get(node.callee)
            if positions is None and _ATOMIC.match(node.callee):
                positions = (0,)
            if positions:
                writes = node.callee.startswith(("store", "__st", "atomic")) or node.callee == "__pipeline_memcpy_async"
                for position, arg in enumerate(node.args):
                    if position in positions:
                        self._add(node, arg, [], writes and (position == 0))
                        self._visit_pointer(arg)
                    else:
                        self._visit(arg, False)
                if node.receiver is not None:
                    self._visit(node.receiver, False)
                return
        for child in node.children():
            self._visit(child, False)

    def _visit_pointer(self, expr: ir.Expr) -> None:
        """Accesses inside a pointer expression (in its offsets), not the pointer itself."""
        expr = strip(expr) if isinstance(expr, ir.Cast) else expr
        if isinstance(expr, ir.Unary) and expr.op == "&" and isinstance(strip(expr.operand), ir.Index):
            self._visit_address(strip(expr.operand))
        elif isinstance(expr, ir.Index):
            chain = _index_chain(expr)
            if chain is None:
                self._visit(expr, False)
                return
            base, indices = chain
            root = self.resolve(base)
            if root is not None and root.decl is not None and root.decl.dims and len(indices) < len(root.decl.dims):
                for index in indices:  # a row of a multi-dimensional array used as a pointer
                    self._visit(index, False)
                return
            self._visit(expr, False)
        elif isinstance(expr, ir.Binary) and expr.op in ("+", "-"):
            self._visit_pointer(expr.lhs)
            self._visit_pointer(expr.rhs)
        elif not isinstance(expr, ir.Name):
            self._visit(expr, False)

    def _visit_address(self, index: ir.Index) -> None:
        chain = _index_chain(index)
        if chain is None:
            self._visit(index, False)
            return
        base, indices = chain
        for sub in indices:
            self._visit(sub, False)
        self._visit_pointer(base)


def _index_chain(node: ir.Index) -> tuple[ir.Expr, list[ir.Expr]] | None:
    """The base and the subscripts (outermost dimension first) of `a[i][j]`."""
    indices: list[ir.Expr] = []
    current: ir.Expr = node
    while isinstance(current, ir.Index):
        indices.insert(0, current.index)
        current = current.base
    return current, indices


def _element(type_: str) -> str:
    type_ = re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict)\b", "", type_)
    return re.sub(r"\s+", "", type_).rstrip("*")
