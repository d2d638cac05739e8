"""Guards: the conditions that dominate each expression of a function, the memory accesses of a
function, and where index values come from (their provenance in the grid).

- `FunctionGuards` records, for every expression and statement of a function, the conditions known to
  hold there: `if (c)` (and `else`), early exits `if (c) return;` / `continue;` / `break;`, loop
  conditions (`for`, `while`, grid-stride loops), `&&` / `||` short circuits and `?:` branches.
  Conditions are split into atomic comparisons (`&&` chains, negated `||` chains, `!`, boolean locals).
- `accesses(function)` lists the memory accesses: `p[i]`, `a[i][j]`, `*(p + i)`, and the pointer
  arguments of memory intrinsics (`__ldg`, atomics, `wmma::load_matrix_sync`, ...), each with the
  root it reaches through pointer arithmetic (a pointer parameter, a `__shared__` array, a local array).
- `Provenance` says which global thread indices a value derives from: the grid axes whose
  `blockIdx * blockDim + threadIdx` it contains (through single-assignment locals, divisions and
  shifts), and the thread-dependent multi-assigned variables (grid-stride counters) it depends on.
  `covers()` decides whether dominating comparisons bound every such source from above.

Everything is computed lazily and cached per program (`GuardAnalysis.of(program)`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from cudalint.analysis.symbolic import BLOCK_DIM, BLOCK_IDX, THREAD_IDX, Atom, Poly, Symbolizer
from cudalint.analysis.uniformity import Uniformity
from cudalint.model import ir
from cudalint.model.constants import ConstantEnv
from cudalint.model.program import Program, SharedArray

COMPARISON_OPERATORS = frozenset({"<", "<=", ">", ">=", "==", "!="})
NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
AXES = ("x", "y", "z")


# ------------------------------------------------------------------------------------------ conditions


@dataclass(frozen=True, eq=False)
class Condition:
    """`expr` is known to be true (`holds`) or false (not `holds`) where this condition applies."""

    expr: ir.Expr
    holds: bool
    origin: ir.Node  # the If, For, While, Conditional or &&/|| that establishes it
    kind: str  # "if", "else", "early-exit", "loop", "ternary", "and", "or"


@dataclass(frozen=True, eq=False)
class Comparison:
    """An atomic fact `lhs op rhs` (op already negated when the condition is known false)."""

    lhs: ir.Expr
    op: str
    rhs: ir.Expr
    node: ir.Binary  # the comparison as written
    condition: Condition

    @property
    def negated(self) -> bool:
        """Whether the fact is the negation of the written comparison (an early exit, an else)."""
        return self.op != self.node.op

    def upper_bounds(self) -> Iterator[tuple[ir.Expr, ir.Expr, bool]]:
        """(subject, limit, inclusive): subject < limit, or subject <= limit when inclusive."""
        op = self.op
        if op in ("<", "<="):
            yield self.lhs, self.rhs, op == "<="
        elif op in (">", ">="):
            yield self.rhs, self.lhs, op == ">="
        elif op == "==":
            yield self.lhs, self.rhs, True
            yield self.rhs, self.lhs, True

    def lower_bounds(self) -> Iterator[tuple[ir.Expr, ir.Expr, bool]]:
        """(subject, limit, inclusive): subject > limit, or subject >= limit when inclusive."""
        op = self.op
        if op in (">", ">="):
            yield self.lhs, self.rhs, op == ">="
        elif op in ("<", "<="):
            yield self.rhs, self.lhs, op == "<="
        elif op == "==":
            yield self.lhs, self.rhs, True
            yield self.rhs, self.lhs, True


def strip(expr: ir.Expr) -> ir.Expr:
    while isinstance(expr, ir.Cast) or (isinstance(expr, ir.Call) and expr.callee in ("__builtin_expect", "likely",
                                                                                      "unlikely", "__builtin_assume")
                                        and expr.args):
        expr = expr.operand if isinstance(expr, ir.Cast) else expr.args[0]
    return expr


def definitions(function: ir.Function, ref: str | None) -> list[ir.Expr]:
    """The values `function` gives the variable `ref`: its initializer and what plain `=` assigns it."""
    return list(function.analysis(_definitions_by_ref).get(ref, ())) if ref is not None else []


def _definitions_by_ref(function: ir.Function) -> dict[str, list[ir.Expr]]:
    """`definitions` of every variable of `function`, found in one pass (rules ask about many variables)."""
    found: dict[str, list[ir.Expr]] = {}
    for node in function.of_type(ir.VarDecl, ir.Binary):
        if isinstance(node, ir.VarDecl):
            if node.ref is not None and node.init is not None:
                found.setdefault(node.ref, []).append(node.init)
        elif isinstance(node, ir.Binary) and node.op == "=":
            target = strip(node.lhs)
            if isinstance(target, ir.Name) and target.ref is not None:
                found.setdefault(target.ref, []).append(node.rhs)
    return found


def comparisons_of(condition: Condition, env: ConstantEnv | None = None) -> list[Comparison]:
    """The atomic comparisons a condition implies."""
    found: list[Comparison] = []
    _add_comparisons(condition.expr, condition.holds, 0, condition, env, found)
    return found


def _add_comparisons(expr: ir.Expr, holds: bool, depth: int, condition: Condition, env: ConstantEnv | None,
                     found: list[Comparison], disjunctions: list[list[list[Comparison]]] | None = None) -> None:
    # a function, not a recursive closure: that would be a reference cycle keeping the file's IR alive
    if depth > 20:
        return
    expr = strip(expr)
    if isinstance(expr, ir.Unary) and expr.op == "!":
        _add_comparisons(expr.operand, not holds, depth + 1, condition, env, found, disjunctions)
    elif isinstance(expr, ir.Binary) and expr.op in ("&&", "||"):
        if (expr.op == "&&") == holds:  # a && b true, or a || b false: both parts
            _add_comparisons(expr.lhs, holds, depth + 1, condition, env, found, disjunctions)
            _add_comparisons(expr.rhs, holds, depth + 1, condition, env, found, disjunctions)
        elif disjunctions is not None:  # one part or the other
            alternatives = []
            for part in _operands(expr, expr.op):
                alternatives.append([])
                _add_comparisons(part, holds, depth + 1, condition, env, alternatives[-1])
            disjunctions.append(alternatives)
    elif isinstance(expr, ir.Binary) and expr.op in COMPARISON_OPERATORS:
        op = expr.op if holds else NEGATED[expr.op]
        found.append(Comparison(expr.lhs, op, expr.rhs, expr, condition))
    elif isinstance(expr, ir.Name) and env is not None:
        definition = env.definition(expr.ref)
        if definition is not None and _is_boolean(strip(definition)):
            _add_comparisons(definition, holds, depth + 1, condition, env, found, disjunctions)


def disjunctions_of(condition: Condition, env: ConstantEnv | None = None) -> list[list[list[Comparison]]]:
    """The disjunctions a condition implies, each as its alternatives' atomic comparisons: `a || b` true
    (or `a && b` false) is [[comparisons of a], [comparisons of b]]. Something bounded in every
    alternative is bounded (`i == 0 || i == n - 1` bounds `i` by `n`), which no single comparison says."""
    disjunctions: list[list[list[Comparison]]] = []
    _add_comparisons(condition.expr, condition.holds, 0, condition, env, [], disjunctions)
    return disjunctions


def _operands(expr: ir.Expr, op: str) -> list[ir.Expr]:
    """`a || b || c` as [a, b, c]."""
    expr = strip(expr)
    if isinstance(expr, ir.Binary) and expr.op == op:
        return _operands(expr.lhs, op) + _operands(expr.rhs, op)
    return [expr]


def _is_boolean(expr: ir.Expr) -> bool:
    return (isinstance(expr, ir.Binary) and expr.op in COMPARISON_OPERATORS | {"&&", "||"}) or (
        isinstance(expr, ir.Unary) and expr.op == "!")


def always_exits(stmt: ir.Stmt | None) -> bool:
    """Whether control never falls through `stmt` (return, break, continue, or a block ending in one)."""
    if isinstance(stmt, (ir.Return, ir.Break, ir.Continue)):
        return True
    if isinstance(stmt, ir.Block):
        return any(always_exits(s) for s in stmt.body)
    if isinstance(stmt, ir.If):
        return stmt.otherwise is not None and always_exits(stmt.then) and always_exits(stmt.otherwise)
    if isinstance(stmt, ir.ExprStmt) and isinstance(stmt.expr, ir.Call):
        return stmt.expr.callee in ("__trap", "abort", "__builtin_trap", "__builtin_unreachable")
    return False


Facts = tuple[Condition, ...]


class FunctionGuards:
    """The conditions dominating every expression and statement of one function."""

    def __init__(self, function: ir.Function, env: ConstantEnv) -> None:
        self.function = function
        self.env = env
        self._facts: dict[int, Facts] = {}
        self._loops: dict[int, tuple[ir.Stmt, ...]] = {}
        self._comparisons: dict[Condition, list[Comparison]] = {}  # by the condition (short-lived ones too)
        if function.body is not None:
            self._stmt(function.body, (), ())

    def conditions(self, node: ir.Node) -> Facts:
        return self._facts.get(id(node), ())

    def comparisons(self, node: ir.Node) -> list[Comparison]:
        found: list[Comparison] = []
        for condition in self.conditions(node):
            found += self.comparisons_of(condition)
        return found

    def comparisons_of(self, condition: Condition) -> list[Comparison]:
        if condition not in self._comparisons:
            self._comparisons[condition] = comparisons_of(condition, self.env)
        return self._comparisons[condition]

    def disjunctions(self, node: ir.Node) -> list[list[list[Comparison]]]:
        """The disjunctions dominating `node` (`disjunctions_of`)."""
        return [d for condition in self.conditions(node) for d in disjunctions_of(condition, self.env)]

    def loops(self, node: ir.Node) -> tuple[ir.Stmt, ...]:
        """The loops enclosing `node`, outermost first."""
        return self._loops.get(id(node), ())

    def all_conditions(self) -> list[Condition]:
        seen: dict[int, Condition] = {}
        for facts in self._facts.values():
            for condition in facts:
                seen.setdefault(id(condition), condition)
        return list(seen.values())

    # --------------------------------------------------------------------------------------- walk

    def _stmt(self, stmt: ir.Stmt | None, facts: Facts, loops: tuple[ir.Stmt, ...]) -> None:
        if stmt is None:
            return
        self._facts[id(stmt)] = facts
        self._loops[id(stmt)] = loops
        if isinstance(stmt, ir.Block):
            for child in stmt.body:
                self._stmt(child, facts, loops)
                if isinstance(child, ir.If):
                    if always_exits(child.then) and not (child.otherwise is not None and always_exits(child.otherwise)):
                        facts = facts + (Condition(child.cond, False, child, "early-exit"),)
                    elif child.otherwise is not None and always_exits(child.otherwise) and not always_exits(child.then):
                        facts = facts + (Condition(child.cond, True, child, "early-exit"),)
        elif isinstance(stmt, ir.If):
            self._expr(stmt.cond, facts, loops)
            self._stmt(stmt.then, facts + (Condition(stmt.cond, True, stmt, "if"),), loops)
            if stmt.otherwise is not None:
                self._stmt(stmt.otherwise, facts + (Condition(stmt.cond, False, stmt, "else"),), loops)
        elif isinstance(stmt, ir.For):
            self._stmt(stmt.init, facts, loops)
            inner = loops + (stmt,)
            body_facts = facts + (Condition(stmt.cond, True, stmt, "loop"),) if stmt.cond is not None else facts
            if stmt.cond is not None:
                self._expr(stmt.cond, facts, inner)
            self._stmt(stmt.body, body_facts, inner)
            if stmt.step is not None:
                self._expr(stmt.step, body_facts, inner)
        elif isinstance(stmt, ir.While):
            inner = loops + (stmt,)
            self._expr(stmt.cond, facts, inner)
            body_facts = facts if stmt.do_while else facts + (Condition(stmt.cond, True, stmt, "loop"),)
            self._stmt(stmt.body, body_facts, inner)
        elif isinstance(stmt, ir.Switch):
            self._expr(stmt.cond, facts, loops)
            self._stmt(stmt.body, facts, loops)
        elif isinstance(stmt, ir.ExprStmt):
            self._expr(stmt.expr, facts, loops)
        elif isinstance(stmt, ir.DeclStmt):
            for decl in stmt.decls:
                self._facts[id(decl)] = facts
                self._loops[id(decl)] = loops
                if decl.init is not None:
                    self._expr(decl.init, facts, loops)
        elif isinstance(stmt, ir.Return):
            if stmt.value is not None:
                self._expr(stmt.value, facts, loops)
        elif isinstance(stmt, ir.OpaqueStmt):
            for part in stmt.parts:
                if isinstance(part, ir.Stmt):
                    self._stmt(part, facts, loops)
                elif isinstance(part, ir.Expr):
                    self._expr(part, facts, loops)

    def _expr(self, expr: ir.Expr | None, facts: Facts, loops: tuple[ir.Stmt, ...]) -> None:
        if expr is None:
            return
        self._facts[id(expr)] = facts
        self._loops[id(expr)] = loops
        if isinstance(expr, ir.Conditional):
            self._expr(expr.cond, facts, loops)
            self._expr(expr.then, facts + (Condition(expr.cond, True, expr, "ternary"),), loops)
            self._expr(expr.otherwise, facts + (Condition(expr.cond, False, expr, "ternary"),), loops)
        elif isinstance(expr, ir.Binary) and expr.op in ("&&", "||"):
            self._expr(expr.lhs, facts, loops)
            self._expr(expr.rhs, facts + (Condition(expr.lhs, expr.op == "&&", expr, "and" if expr.op == "&&" else "or"),),
                       loops)
        elif isinstance(expr, ir.Lambda):
            self._stmt(expr.body, (), ())
        else:
            for child in expr.children():
                if isinstance(child, ir.Expr):
                    self._expr(child, facts, loops)
                elif isinstance(child, ir.Stmt):
                    self._stmt(child, facts, loops)


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


class _AccessCollector:
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


# ------------------------------------------------------------------------------------------ provenance


@dataclass(frozen=True)
class Provenance:
    """The unbounded sources of a value: global thread indices per grid axis, and thread-dependent
    variables assigned more than once (grid-stride counters). `unknown`: part of it comes from a load or
    a call cudalint does not model, so nothing can be said."""

    axes: frozenset[str] = frozenset()
    variables: frozenset[str] = frozenset()  # declaration refs
    unknown: bool = False

    def __or__(self, other: Provenance) -> Provenance:
        return Provenance(self.axes | other.axes, self.variables | other.variables, self.unknown or other.unknown)

    @property
    def empty(self) -> bool:
        return not self.axes and not self.variables


NOTHING = Provenance()
UNKNOWN = Provenance(unknown=True)

_MIN_CALLS = re.compile(r"^(std::)?(min|fminf?|umin|llmin|ullmin|__vimin\w*|imin)$")
_MAX_CALLS = re.compile(r"^(std::)?(max|fmaxf?|umax|llmax|ullmax|__vimax\w*|imax)$")
_PRODUCT_CALLS = {"__mul24", "__umul24"}
_PASS_CALLS = {"static_cast", "int", "size_t", "__float2int_rz", "__float2int_rd", "__float2uint_rz", "__float2uint_rd",
               "__double2int_rz", "floor", "floorf", "truncf", "trunc"}


class ProvenanceAnalysis:
    """Provenance of the values of one function."""

    def __init__(self, program: Program, function: ir.Function, guards: FunctionGuards) -> None:
        self.program = program
        self.function = function
        self.env = program.env(function)
        self.symbolizer = Symbolizer(self.env)
        self.guards = guards
        self.dependence = program.analysis(Uniformity).of(function)
        self._poly_memo: dict[ir.Expr, Poly] = {}
        self._var_memo: dict[str, Provenance | None] = {}
        self._var_axes: dict[str, frozenset[str]] = {}
        self._classified: dict[Atom, tuple[str, str, int] | None] = {}
        self._assigned: dict[str, list[ir.Expr]] = {}
        self._multi: set[str] = set()
        self._stepped: set[str] = set()  # variables updated from their own value (i += stride, i++)
        self._steps: dict[str, list[ir.Expr]] = {}  # the right-hand sides of those updates
        self._collect_assignments()

    def _collect_assignments(self) -> None:
        declared: set[str] = set()
        for node in self.function.of_type(ir.VarDecl, ir.Binary, ir.Unary):
            if isinstance(node, ir.VarDecl) and node.ref:
                declared.add(node.ref)
                if node.init is not None:
                    self._assigned.setdefault(node.ref, []).append(node.init)
            elif isinstance(node, ir.Binary) and node.is_assignment and isinstance(strip(node.lhs), ir.Name):
                ref = strip(node.lhs).ref
                if ref:
                    self._assigned.setdefault(ref, []).append(node.rhs)
                    self._multi.add(ref)
                    if node.op != "=" or any(isinstance(n, ir.Name) and n.ref == ref for n in node.rhs.walk()):
                        self._stepped.add(ref)
                        self._steps.setdefault(ref, []).append(node.rhs)
            elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--") \
                    and isinstance(strip(node.operand), ir.Name):
                ref = strip(node.operand).ref
                if ref:
                    self._assigned.setdefault(ref, [])
                    self._multi.add(ref)
                    self._stepped.add(ref)
        self._multi &= declared

    def poly(self, expr: ir.Expr) -> Poly:
        if expr not in self._poly_memo:  # by the expression itself: short-lived ones come here too
            self._poly_memo[expr] = self.symbolizer.poly(expr)
        return self._poly_memo[expr]

    def of(self, expr: ir.Expr) -> Provenance:
        return self.of_poly(self.poly(expr))

    def is_size_like(self, expr: ir.Expr) -> bool:
        """Whether a value is the same for every thread and block, and no loop counter: a size
        (a parameter, a constant, blockDim, what is computed from those), not an index."""
        if self.dependence.is_dependent(expr):
            return False
        for atom in self.poly(expr).atoms():
            if atom.kind in (THREAD_IDX, BLOCK_IDX):
                return False
            if atom.kind == "var" and atom.key in self._multi:
                return False
            if atom.kind == "opaque":
                inner = self.symbolizer.opaque_exprs.get(atom)
                if inner is None or not self._opaque_is_size(inner):
                    return False
        return True

    def _opaque_is_size(self, expr: ir.Expr) -> bool:
        """An expression the polynomial form does not model (`row % T`, `min(a, b)`) is a size when
        nothing in it, nor in the definitions of the locals it reads (`row = blockIdx.x`), is a thread or
        block index, a variable assigned more than once, or a value loaded from memory."""
        stack, seen = [expr], 0
        while stack and seen < 50:
            node_root = stack.pop()
            seen += 1
            for node in node_root.walk():
                if isinstance(node, ir.Member) and isinstance(node.base, ir.Name) \
                        and node.base.name in ("blockIdx", "threadIdx"):
                    return False
                if isinstance(node, ir.Name) and node.ref in self._multi:
                    return False
                if isinstance(node, ir.Index) or (isinstance(node, ir.Unary) and node.op == "*"):
                    return False  # a value loaded from memory (an offset table), not a size
                if isinstance(node, ir.Name) and node.ref:
                    definition = self.env.definition(node.ref)
                    if definition is not None:
                        stack.append(definition)
        return not stack

    def is_stepped(self, ref: str) -> bool:
        """Whether the variable is updated from its own value (a loop counter: `i += stride`)."""
        return ref in self._stepped

    def strides_over_grid(self, ref: str) -> bool:
        """Whether the variable's updates step by a multiple of gridDim (a grid-stride loop)."""
        for step in self._steps.get(ref, []):
            stack = [step]
            seen = 0
            while stack and seen < 50:
                expr = stack.pop()
                seen += 1
                for node in expr.walk():
                    if isinstance(node, ir.Member) and isinstance(node.base, ir.Name) and node.base.name == "gridDim":
                        return True
                    if isinstance(node, ir.Name) and node.ref:
                        definition = self.env.definition(node.ref)
                        if definition is not None:
                            stack.append(definition)
        return False

    def variable_axes(self, ref: str) -> frozenset[str]:
        self._variable(ref)
        return self._var_axes.get(ref, frozenset())

    def all_axes(self, provenance: Provenance) -> frozenset[str]:
        axes = set(provenance.axes)
        for ref in provenance.variables:
            axes |= self.variable_axes(ref)
        return frozenset(axes)

    def classify(self, atom: Atom) -> tuple[str, str, int] | None:
        """`threadIdx.a / c` (or `>> k`) as ("tid", a, c), `blockDim.a / c` as ("bdim", a, c)."""
        if atom in self._classified:
            return self._classified[atom]
        found = None
        expr = self.symbolizer.opaque_exprs.get(atom)
        expr = strip(expr) if expr is not None else None
        if isinstance(expr, ir.Binary) and expr.op in ("/", ">>"):
            value = self.env.value(expr.rhs)
            if isinstance(value, int) and value > 0:
                divisor = value if expr.op == "/" else (1 << value if value < 31 else 0)
                inner = self.symbolizer.poly(expr.lhs)
                if divisor > 1 and len(inner.terms) == 1:
                    (monomial, coefficient), = inner.terms.items()
                    if coefficient == 1 and len(monomial) == 1 and monomial[0].kind in (THREAD_IDX, BLOCK_DIM):
                        found = (monomial[0].kind, monomial[0].key, divisor)
        self._classified[atom] = found
        return found

    def of_poly(self, poly: Poly, depth: int = 0) -> Provenance:
        if depth > 12:
            return UNKNOWN
        result = Provenance(global_axes(poly, classify=self.classify))
        for atom in poly.atoms():
            if atom.kind == "var":
                result = result | self._variable(atom.key)
            elif atom.kind == "opaque":
                expr = self.symbolizer.opaque_exprs.get(atom)
                result = result | (self._opaque(expr, depth + 1) if expr is not None else UNKNOWN)
        return result

    def _variable(self, ref: str) -> Provenance:
        """A variable that is not expanded: a parameter (nothing), or a local assigned more than once."""
        if ref in self._var_memo:
            return self._var_memo[ref] or NOTHING  # None while being computed (a cycle)
        if ref not in self._multi:
            self._var_memo[ref] = NOTHING
            return NOTHING
        self._var_memo[ref] = None
        origin = NOTHING
        for value in self._assigned.get(ref, []):
            origin = origin | self.of(value)
        axes = self.all_axes(origin)
        if origin.unknown:
            result = UNKNOWN
        elif axes:
            result = Provenance(frozenset(), frozenset({ref}))
        else:
            result = NOTHING
        self._var_axes[ref] = axes
        self._var_memo[ref] = result
        return result

    def _opaque(self, expr: ir.Expr, depth: int) -> Provenance:
        expr = strip(expr) if isinstance(expr, ir.Cast) else expr
        if isinstance(expr, ir.Const):
            return NOTHING
        if isinstance(expr, ir.Member):
            if isinstance(expr.base, ir.Name) and expr.base.name in ("blockIdx", "threadIdx", "blockDim", "gridDim"):
                return NOTHING
            return UNKNOWN if self.dependence.is_dependent(expr) else NOTHING
        if isinstance(expr, ir.Binary):
            op = expr.op
            if op in ("/", ">>"):
                result = self.of_poly(self.poly(expr.lhs), depth)
                if self.dependence.is_dependent(expr.rhs):
                    result = result | self.of_poly(self.poly(expr.rhs), depth)
                return result
            if op == "%":
                if not self.dependence.is_dependent(expr.rhs):
                    return NOTHING  # bounded by the divisor
                return self.of_poly(self.poly(expr.lhs), depth) | self.of_poly(self.poly(expr.rhs), depth)
            if op == "&":
                if self.env.value(expr.rhs) is not None or self.env.value(expr.lhs) is not None:
                    return NOTHING  # masked
                return self.of_poly(self.poly(expr.lhs), depth) | self.of_poly(self.poly(expr.rhs), depth)
            if op in COMPARISON_OPERATORS or op in ("&&", "||"):
                return NOTHING
            if op in ("|", "^", "<<", "+", "-", "*"):
                return self.of_poly(self.poly(expr.lhs), depth) | self.of_poly(self.poly(expr.rhs), depth)
            return UNKNOWN
        if isinstance(expr, ir.Unary):
            if expr.op == "!":
                return NOTHING
            if expr.op in ("-", "+", "~"):
                return self.of_poly(self.poly(expr.operand), depth)
            return UNKNOWN
        if isinstance(expr, ir.Call):
            args = [self.of_poly(self.poly(a), depth) for a in expr.args]
            if _MIN_CALLS.match(expr.callee):
                if any(a.empty and not a.unknown for a in args):
                    return NOTHING  # clamped by a bound
                return _union(args)
            if _MAX_CALLS.match(expr.callee) or expr.callee in _PRODUCT_CALLS or expr.callee in _PASS_CALLS:
                return _union(args)
            if not any(self.dependence.is_dependent(a) for a in expr.args) and expr.receiver is None:
                return NOTHING
            return UNKNOWN
        if isinstance(expr, ir.Conditional):
            then = self.of_poly(self.poly(expr.then), depth)
            otherwise = self.of_poly(self.poly(expr.otherwise), depth)
            if then.unknown or otherwise.unknown:
                return UNKNOWN
            true = Condition(expr.cond, True, expr, "ternary")
            false = Condition(expr.cond, False, expr, "ternary")
            then_left = self.uncovered(then, self.guards.comparisons_of(true))
            else_left = self.uncovered(otherwise, self.guards.comparisons_of(false))
            return then_left | else_left
        return UNKNOWN

    # ----------------------------------------------------------------------------------- coverage

    def uncovered(self, need: Provenance, comparisons: list[Comparison], index: Poly | None = None) -> Provenance:
        """The sources of `need` that no comparison bounds from above. A guard on a flattened index of
        several axes (`i * cols + j < rows * cols`) bounds only an index equal to it (plus a uniform
        offset): it says nothing of each axis alone."""
        if need.empty:
            return need
        axes, variables = self.bounded(comparisons, index)
        left_axes = frozenset(a for a in need.axes if a not in axes)
        left_vars = frozenset(v for v in need.variables
                              if v not in variables and not (self.variable_axes(v) and self.variable_axes(v) <= axes))
        return Provenance(left_axes, left_vars, need.unknown)

    def bounded(self, comparisons: list[Comparison], index: Poly | None = None) -> tuple[set[str], set[str]]:
        """Grid axes and variables that some comparison bounds from above. `x < min(a, b)` bounds by
        both; thread-dependent terms of the limit move to the subject (`tid < n - base` bounds
        `base + tid`)."""
        axes: set[str] = set()
        variables: set[str] = set()
        for subject, limit in self._upper_bounds_closed(comparisons):
            for part in self._min_parts(limit, 0):
                subject_poly = self.poly(subject) - self._dependent_terms(self.poly(part))
                provenance = self.of_poly(subject_poly)
                # a term -(blockIdx * blockDim + threadIdx) in the subject is a lower bound, not an upper one
                lower = global_axes(subject_poly, classify=self.classify) \
                    - global_axes(subject_poly, positive=True, classify=self.classify)
                subject_axes = self.all_axes(provenance) - lower
                if len(provenance.axes) > 1 and not self._same_index(subject_poly, index):
                    continue  # a flattened multi-axis index bounds only itself
                axes |= subject_axes
                variables |= provenance.variables
        return axes, variables

    def _upper_bounds_closed(self, comparisons: list[Comparison]) -> list[tuple[ir.Expr, ir.Expr]]:
        """(subject, limit) of every upper bound, and those its chains imply: `col <= row` with `row < N`
        bounds `col` by `N` too (a step or two deep, as guards chain)."""
        bounds = [(subject, limit) for c in comparisons for subject, limit, _ in c.upper_bounds()]
        limits_of: dict[Poly, list[ir.Expr]] = {}
        for subject, limit in bounds:
            limits_of.setdefault(self.poly(subject), []).append(limit)
        closed, frontier = list(bounds), bounds
        for _ in range(2):
            frontier = [(subject, further) for subject, limit in frontier
                        for part in self._min_parts(limit, 0) if self._dependent_terms(self.poly(part)).terms
                        for further in limits_of.get(self.poly(part), ())]
            closed += frontier
        return closed

    def _min_parts(self, limit: ir.Expr, depth: int) -> list[ir.Expr]:
        expr = strip(self.env.resolve(strip(limit)))
        if depth < 4 and isinstance(expr, ir.Call) and _MIN_CALLS.match(expr.callee) and len(expr.args) == 2:
            return self._min_parts(expr.args[0], depth + 1) + self._min_parts(expr.args[1], depth + 1)
        return [limit]

    def _dependent_terms(self, poly: Poly) -> Poly:
        """The terms of `poly` that vary between threads (thread and block indices, counters)."""
        terms = {}
        for monomial, coefficient in poly.terms.items():
            for atom in monomial:
                if atom.kind in (THREAD_IDX, BLOCK_IDX) or (atom.kind == "var" and atom.key in self._multi) or (
                        atom.kind == "opaque" and not self.of_poly(Poly.atom(atom)).empty):
                    terms[monomial] = coefficient
                    break
        return Poly(terms)

    def below_block_start(self, index: Poly, comparisons: list[Comparison], axis: str) -> bool:
        """Whether the guards on threadIdx put the index below the first element of its own block
        (`if (threadIdx.x < R) in[gi - R]`: a left halo), which a launched block always covers."""
        thread = next((a for a in index.atoms() if a.kind == THREAD_IDX and a.key == axis), None)
        if thread is None:
            return False
        factor = index.coefficient(thread)
        if factor is None or factor.constant != 1:
            return False
        for comparison in comparisons:
            for subject, limit, inclusive in comparison.upper_bounds():
                subject_poly = self.poly(subject)
                if subject_poly != Poly.atom(thread):
                    continue
                bound = self.poly(limit) - (Poly() if inclusive else Poly.const(1))
                replaced = index - Poly.atom(thread) * factor + bound * factor
                block = next((a for a in replaced.atoms() if a.kind == BLOCK_IDX and a.key == axis), None)
                if block is None:
                    continue
                start = Poly({m: c for m, c in replaced.terms.items() if block in m})
                rest = replaced - start
                if axis not in global_axes(start + Poly.atom(thread)):
                    continue
                if rest.constant is not None and rest.constant <= -1:
                    return True
        return False

    def _same_index(self, subject: Poly, index: Poly | None) -> bool:
        if index is None:
            return True
        rest = index - subject
        return not any(a.kind in (THREAD_IDX, BLOCK_IDX) or (a.kind == "var" and self.variable_axes(a.key))
                       or (a.kind == "opaque" and not self.of_poly(Poly.atom(a)).empty)
                       for a in rest.atoms())

    def index_poly(self, access: Access) -> Poly:
        total = Poly()
        for part in access.parts:
            total = total + self.poly(part)
        return total

    def access_provenance(self, access: Access) -> Provenance:
        return _union([self.of(part) for part in access.parts])


def _union(items: list[Provenance]) -> Provenance:
    result = NOTHING
    for item in items:
        result = result | item
    return result


Classifier = Callable[[Atom], "tuple[str, str, int] | None"]


def global_axes(poly: Poly, positive: bool = False, classify: Classifier | None = None) -> frozenset[str]:
    """The axes a whose global thread index `poly` contains, possibly scaled (`row * K` with
    row = blockIdx.y * blockDim.y + threadIdx.y): a term F * blockIdx.a * blockDim.a (or F * c *
    blockIdx.a, c >= 2 a tile constant) next to a term F * threadIdx.a. With `classify`, opaque atoms
    `threadIdx.a / c` and `blockDim.a / c` count too (a warp per row: blockIdx.x * (blockDim.x / 32) +
    threadIdx.x / 32). `positive`: the thread term must have a positive coefficient (an upper bound)."""

    def canonical(atom: Atom) -> tuple[str, str, int]:
        if atom.kind in (THREAD_IDX, BLOCK_IDX, BLOCK_DIM):
            return atom.kind, atom.key, 1
        if atom.kind == "opaque" and classify is not None:
            found = classify(atom)
            if found is not None:
                return found
        return atom.kind, atom.key, 0

    terms = [(tuple(sorted(canonical(a) for a in m)), c) for m, c in poly.terms.items()]
    # the thread index may run along another axis than the block's (blockIdx.x * ROWS + threadIdx.y)
    threads = sorted({(k[1], k[2]) for m, _ in terms for k in m if k[0] == THREAD_IDX and k[2]})
    if not threads:
        return frozenset()
    return frozenset(axis for axis in AXES if _global_along(terms, threads, axis, positive))


def _global_along(terms: list, threads: list, axis: str, positive: bool) -> bool:
    block = (BLOCK_IDX, axis, 1)
    for thread_axis, divisor in threads:
        thread = (THREAD_IDX, thread_axis, divisor)
        dim = (BLOCK_DIM, thread_axis, divisor)
        thread_terms: dict[tuple, int] = {}
        block_terms: dict[tuple, int] = {}
        for monomial, coefficient in terms:
            if monomial.count(thread) == 1 and block not in monomial:
                rest = list(monomial)
                rest.remove(thread)
                thread_terms[tuple(rest)] = coefficient
            elif monomial.count(block) == 1 and thread not in monomial:
                rest = list(monomial)
                rest.remove(block)
                block_terms[tuple(rest)] = coefficient
        if not thread_terms or not block_terms:
            continue
        if positive and any(c <= 0 for c in thread_terms.values()):
            continue
        # every thread term F * threadIdx must come with F * blockDim * blockIdx (or F * c * blockIdx for
        # one tile constant c): the whole thread part is the thread part of a global index
        if all(block_terms.get(tuple(sorted(rest + (dim,)))) == c for rest, c in thread_terms.items()):
            return True
        rest0, c0 = next(iter(thread_terms.items()))
        scaled = block_terms.get(rest0)
        if scaled is not None and c0 and scaled % c0 == 0 and scaled // c0 >= 2:
            ratio = scaled // c0
            if all(block_terms.get(rest) == ratio * c for rest, c in thread_terms.items()):
                return True
    return False


# ------------------------------------------------------------------------------------------- analysis


class GuardAnalysis:
    """Guards, accesses and provenance for every function of a program, computed on demand."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self._guards: dict[int, FunctionGuards] = {}
        self._accesses: dict[int, list[Access]] = {}
        self._provenance: dict[int, ProvenanceAnalysis] = {}

    @staticmethod
    def of(program: Program) -> GuardAnalysis:
        return program.analysis(GuardAnalysis)

    def guards(self, function: ir.Function) -> FunctionGuards:
        key = id(function)
        if key not in self._guards:
            self._guards[key] = FunctionGuards(function, self.program.env(function))
        return self._guards[key]

    def accesses(self, function: ir.Function) -> list[Access]:
        key = id(function)
        if key not in self._accesses:
            self._accesses[key] = _AccessCollector(self.program, function, self.program.env(function)).collect()
        return self._accesses[key]

    def provenance(self, function: ir.Function) -> ProvenanceAnalysis:
        key = id(function)
        if key not in self._provenance:
            self._provenance[key] = ProvenanceAnalysis(self.program, function, self.guards(function))
        return self._provenance[key]
