"""Flat indices decomposed in place and then stored through as if they were still flat.

Kernels unflatten a thread's element index digit by digit. When they do it on the index variable itself
(`w = idx % W; idx /= W; h = idx % H; idx /= H;`), `idx` is afterwards the prefix `flat / (W*H)`: the same
for every thread of one group of W*H consecutive elements. A later store `out[idx] = value` then makes
all those threads write one element, and the elements past `total / (W*H)` are never written.

A store is reported when:
- its address depends on the thread only through the decomposed variable's value after its last
  decomposition step (`idx`, `idx * S + k`, or locals computed from that value: `c = idx % C`);
- the stored value depends on what those steps dropped: it reads the variable before the last step
  (through `w = idx % W`, `x = in[idx]`, and any local computed from them, loads through them included),
  or the store is a read-modify-write (`+=`), which loses updates whatever is added;
- no thread-dependent condition picks one writer per element (`if (w == 0)`): the store's dominating
  conditions are uniform, bounds of the flat index itself (`idx < total`, before the first step) or
  conditions on the decomposed value alone;
- the steps dominate the store in straight-line order (no branch or loop that may skip or repeat them)
  and divide by something that is not provably 1.
An atomic on that address (`atomicAdd(&out[idx], v)`: a deliberate reduction over the dropped digits), a
copy decomposed instead (`int t = idx; t /= W;`), and values the dropped digits do not reach (every
thread of the group stores the same value) are never reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import FunctionGuards, comparisons_of, strip
from cudalint.analysis.pointer_accesses import Access
from cudalint.analysis.uniformity import ThreadDependence, Uniformity
from cudalint.model import ir
from cudalint.model.constants import ConstantEnv, is_integer_type
from cudalint.model.program import Program

_STEP_OPERATORS = {"/=": "/", "%=": "%", ">>=": ">>"}
_WARP_COLLECTIVE = re.compile(r"^(__shfl\w*|__reduce_\w+_sync|__ballot\w*|__any\w*|__all\w*)$")
_BARRIERS = frozenset({"__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or"})

Position = tuple[int, int]


def _position(node: ir.Node) -> Position:
    return node.span.line, node.span.column


@dataclass(frozen=True)
class Decomposed:
    """A thread-dependent local whose only writes after its declaration are `v /= d`, `v %= d`,
    `v >>= d` or `v = v / d` (and `%`, `>>`)."""

    ref: str
    name: str
    steps: tuple[ir.Binary, ...]  # in source order

    def step_operator(self, step: ir.Binary) -> str:
        return _STEP_OPERATORS.get(step.op) or strip(step.rhs).op  # type: ignore[union-attr]

    def step_divisor(self, step: ir.Binary) -> ir.Expr:
        return step.rhs if step.op in _STEP_OPERATORS else strip(step.rhs).rhs  # type: ignore[union-attr]


@dataclass(frozen=True)
class ReusedIndex:
    """A store through a decomposed flat index that many threads make to one element."""

    access: Access
    store: ir.Expr  # the assignment
    variable: Decomposed
    last_step: ir.Binary  # the decomposition step whose value the address uses
    dropped: tuple[str, ...]  # names of the coordinates taken off before it (`w`, `h`), for messages
    read_modify_write: bool
    looped: bool  # some step runs in a loop over the digits (its divisors are not one list of texts)
    copy_of: str | None  # the flat index the variable was declared as a copy of (`int t = idx;`), if any

    @property
    def divisors(self) -> tuple[str, ...] | None:
        """The source text of what the steps up to the last one divided by, when all are divisions."""
        steps = self.variable.steps[:self.variable.steps.index(self.last_step) + 1]
        if self.looped or any(self.variable.step_operator(step) != "/" for step in steps):
            return None
        return tuple(" ".join(self.variable.step_divisor(step).text.split()) for step in steps)


def reused_indices(program: Program, function: ir.Function) -> list[ReusedIndex]:
    """The stores of `function` through a flat index its decomposition has already divided down."""
    return program.analysis(_IndexReuse).of(function)


class _IndexReuse:
    def __init__(self, program: Program) -> None:
        self.program = program
        self._found: dict[int, list[ReusedIndex]] = {}

    def of(self, function: ir.Function) -> list[ReusedIndex]:
        key = id(function)
        if key not in self._found:
            self._found[key] = _FunctionReuse(self.program, function).find() \
                if function.is_device_code and function.body is not None else []
        return self._found[key]


class _FunctionReuse:
    def __init__(self, program: Program, function: ir.Function) -> None:
        self.program = program
        self.function = function
        analysis = GuardAnalysis.of(program)
        self.analysis = analysis
        self.guards: FunctionGuards = analysis.guards(function)
        self.env: ConstantEnv = program.env(function)
        self.dependence: ThreadDependence = program.analysis(Uniformity).of(function)

    def find(self) -> list[ReusedIndex]:
        variables = _decomposed_variables(self.function, self.dependence)
        if not variables:
            return []
        stores = _assignments_by_target(self.function)
        found = []
        for access in self.analysis.accesses(self.function):
            if not access.is_write or access.space not in ("param", "global") or isinstance(access.node, ir.Call):
                continue
            store = stores.get(id(access.node))
            if store is None:
                continue
            reuse = self._reuse(access, store, variables)
            if reuse is not None:
                found.append(reuse)
        return found

    def _reuse(self, access: Access, store: ir.Expr, variables: dict[str, Decomposed]) -> ReusedIndex | None:
        reads: list[ir.Name] = []
        for part in access.parts:
            if not self._reads_only(part, variables, reads):
                return None
        if len({name.ref for name in reads}) != 1:
            return None
        variable = variables[reads[0].ref]  # type: ignore[index]
        found = self._last_step(variable, store)
        if found is None:
            return None
        last, looped = found
        if any(_position(name) < _position(last) for name in reads):
            return None  # the address also uses a dropped digit: the flat index rebuilt, or CL208's case
        read_modify_write = isinstance(store, ir.Unary) or (isinstance(store, ir.Binary) and store.op != "=")
        if not read_modify_write and not self._depends_on_dropped(store.rhs, variable, last):
            return None  # every thread of the group stores the same value
        if not self._many_writers(store, variable, last):
            return None
        source = self._copied_from(variable)
        return ReusedIndex(access, store, variable, last, self._dropped_names(variable, last), read_modify_write,
                           looped, source.name if source is not None else None)

    # ------------------------------------------------------------------------------------ the address

    def _reads_only(self, expr: ir.Expr, variables: dict[str, Decomposed], reads: list[ir.Name],
                    depth: int = 0) -> bool:
        """Whether the only thread-dependent values `expr` reads (through single-assignment locals) are
        decomposed variables; their reads are added to `reads`."""
        if depth > 12:
            return False
        for node in expr.walk():
            if isinstance(node, ir.Member) and isinstance(node.base, ir.Name) and node.base.name == "threadIdx":
                return False
            if isinstance(node, ir.Call) and self.dependence.is_dependent(node):
                return False
            if isinstance(node, (ir.Index, ir.Unary)) and (not isinstance(node, ir.Unary) or node.op == "*") \
                    and self.dependence.is_dependent(node):
                return False  # a per-thread load: its value is not a function of the index
            if isinstance(node, ir.Name) and node.ref:
                if node.ref in variables:
                    reads.append(node)
                    continue
                if not self.dependence.is_dependent(node):
                    continue
                definition = self.env.definition(node.ref)
                if definition is None or not self._reads_only(definition, variables, reads, depth + 1):
                    return False
        return True

    def _last_step(self, variable: Decomposed, store: ir.Expr) -> tuple[ir.Binary, bool] | None:
        """The last decomposition step before `store`, when every step before it runs before the store
        whenever the store runs (straight-line code, or the body of a finished loop over the digits that
        does not enclose the store), none after it can run before it again (a loop around both), and some
        step divides by something other than 1. With it: whether a step runs in such a loop."""
        store_conditions = {id(c) for c in self.guards.conditions(store)}
        store_loops = self.guards.loops(store)
        before = []
        looped = False
        for step in variable.steps:
            loops = self.guards.loops(step)
            if _position(step) < _position(store):
                shared = 0
                while shared < min(len(loops), len(store_loops)) and loops[shared] is store_loops[shared]:
                    shared += 1
                if shared < len(store_loops) and len(loops) > shared:
                    return None  # in a loop beside the store's, not around it nor inside it
                digit_loops = {id(loop) for loop in loops[shared:]}
                looped |= bool(digit_loops)
                if any(id(c) not in store_conditions and not (c.kind == "loop" and id(c.origin) in digit_loops)
                       for c in self.guards.conditions(step)):
                    return None  # under a branch the store is not in
                before.append(step)
            elif set(map(id, loops)) & set(map(id, store_loops)):
                return None  # a later step runs before the store in the next iteration
        if not any(self._divides(variable, step) for step in before):
            return None
        return before[-1], looped

    def _divides(self, variable: Decomposed, step: ir.Binary) -> bool:
        value = self.env.value(variable.step_divisor(step))
        if value is None:
            return True
        if variable.step_operator(step) == ">>":
            return value >= 1
        return value >= 2 if variable.step_operator(step) == "/" else True

    # -------------------------------------------------------------------------------------- the value

    def _depends_on_dropped(self, value: ir.Expr, variable: Decomposed, last: ir.Binary) -> bool:
        """Whether `value` reads the variable before `last` (what the steps up to it dropped), directly or
        through locals computed from such reads (loads through them included). Warp collectives and
        calls of functions with barriers are cut: their results are shared by the threads of a group."""
        step_nodes = {id(n) for step in variable.steps for n in step.walk()}
        tainted: set[str] = set()
        sites = _definition_sites(self.function)
        changed = True
        while changed:
            changed = False
            for ref, expr in sites:
                if ref in tainted or ref == variable.ref:
                    continue
                if self._reads_dropped(expr, variable, last, step_nodes, tainted):
                    tainted.add(ref)
                    changed = True
        return self._reads_dropped(value, variable, last, step_nodes, tainted)

    def _reads_dropped(self, expr: ir.Expr, variable: Decomposed, last: ir.Binary, step_nodes: set[int],
                       tainted: set[str]) -> bool:
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, ir.Call) and self._collective(node):
                continue
            if isinstance(node, ir.Name) and node.ref:
                if node.ref in tainted:
                    return True
                if node.ref == variable.ref and id(node) not in step_nodes and _position(node) < _position(last):
                    return True
            stack.extend(node.children())
        return False

    def _collective(self, call: ir.Call) -> bool:
        if _WARP_COLLECTIVE.match(call.callee):
            return True
        return any(n.callee in _BARRIERS or _WARP_COLLECTIVE.match(n.callee)
                   for f in self.program.functions_by_name.get(call.callee, []) if f.body is not None
                   for r in self.program.reachable_functions(f) for n in r.of_type(ir.Call))

    # ----------------------------------------------------------------------------------- the writers

    def _many_writers(self, store: ir.Expr, variable: Decomposed, last: ir.Binary) -> bool:
        """Whether the dominating conditions let every thread of a group reach the store."""
        first = variable.steps[0]
        for condition in self.guards.conditions(store):
            if not self.dependence.is_dependent(condition.expr):
                continue
            reads: list[ir.Name] = []
            if not self._reads_only(condition.expr, {variable.ref: variable}, reads):
                source = self._copied_from(variable)
                if source is not None and self._bounds(condition, source.ref):
                    continue  # `idx < total` of the flat index that `int t = idx;` copies: its own bound
                return False  # another per-thread value decides who stores (`if (w == 0)`)
            if all(_position(name) > _position(last) for name in reads):
                continue  # a condition on the decomposed value itself: the same for the whole group
            if all(_position(name) < _position(first) for name in reads) and self._bounds(condition,
                                                                                         variable.ref):
                continue  # `idx < total` before the decomposition: the flat index's own bound
            return False
        return True

    def _copied_from(self, variable: Decomposed) -> ir.Name | None:
        """The never-written local that the variable is declared as a copy of (`int t = idx;`)."""
        for decl in self.function.of_type(ir.VarDecl):
            if decl.ref == variable.ref and decl.init is not None:
                source = strip(decl.init)
                if isinstance(source, ir.Name) and self.env.definition(source.ref) is not None:
                    return source
        return None

    def _bounds(self, condition, ref: str) -> bool:
        """Whether every comparison of `condition` bounds the local `ref` by a uniform value (`idx < total`;
        `idx == 0` picks one writer)."""
        comparisons = comparisons_of(condition, self.env)
        if not comparisons:
            return False
        for comparison in comparisons:
            sides = (strip(comparison.lhs), strip(comparison.rhs))
            own = [s for s in sides if isinstance(s, ir.Name) and s.ref == ref]
            other = [s for s in sides if not (isinstance(s, ir.Name) and s.ref == ref)]
            if len(own) != 1 or comparison.op not in ("<", "<=", ">", ">=") \
                    or self.dependence.is_dependent(other[0]):
                return False
        return True

    def _dropped_names(self, variable: Decomposed, last: ir.Binary) -> tuple[str, ...]:
        """The locals defined as `v % d` (or `v & m`) before `last`: the coordinates the steps took off."""
        names = []
        for node in self.function.of_type(ir.VarDecl):
            init = strip(node.init) if node.init is not None else None
            if isinstance(init, ir.Binary) and init.op in ("%", "&") and _position(node) < _position(last):
                operand = strip(init.lhs)
                if isinstance(operand, ir.Name) and operand.ref == variable.ref:
                    names.append(node.name)
        return tuple(names)


def _decomposed_variables(function: ir.Function, dependence: ThreadDependence) -> dict[str, Decomposed]:
    declared: dict[str, ir.VarDecl | None] = {}
    steps: dict[str, list[ir.Binary]] = {}
    other: set[str] = set()
    for node in function.of_type(ir.VarDecl, ir.Binary, ir.Unary):
        if isinstance(node, ir.VarDecl):
            if node.ref:
                declared[node.ref] = None if node.ref in declared else node
        elif isinstance(node, ir.Binary) and node.is_assignment:
            target = strip(node.lhs)
            if isinstance(target, ir.Name) and target.ref:
                if _is_step(node, target.ref):
                    steps.setdefault(target.ref, []).append(node)
                else:
                    other.add(target.ref)
        elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--", "&"):
            target = strip(node.operand)
            if isinstance(target, ir.Name) and target.ref:
                other.add(target.ref)
    # a device function's parameter counts too, when some call passes it a thread-dependent value
    params = {p.ref: p for p in function.params if p.ref and p.ref in dependence.dependent_refs}
    found = {}
    for ref, found_steps in steps.items():
        if ref in other:
            continue
        decl = declared.get(ref)
        if decl is not None:
            if decl.init is None or decl.dims or decl.shared or not is_integer_type(decl.type) \
                    or not dependence.is_dependent(decl.init):
                continue
            name = decl.name
        elif ref in params and ref not in declared and is_integer_type(params[ref].type):
            name = params[ref].name
        else:
            continue
        found[ref] = Decomposed(ref, name, tuple(sorted(found_steps, key=_position)))
    return found


def _is_step(node: ir.Binary, ref: str) -> bool:
    if node.op in _STEP_OPERATORS:
        return True
    if node.op != "=":
        return False
    value = strip(node.rhs)
    return isinstance(value, ir.Binary) and value.op in ("/", "%", ">>") and \
        isinstance(strip(value.lhs), ir.Name) and strip(value.lhs).ref == ref  # type: ignore[union-attr]


def _assignments_by_target(function: ir.Function) -> dict[int, ir.Expr]:
    """The assignment (or increment) of each assigned lvalue node, by the lvalue's id."""
    found: dict[int, ir.Expr] = {}
    for node in function.of_type(ir.Binary, ir.Unary):
        if isinstance(node, ir.Binary) and node.is_assignment:
            found[id(node.lhs)] = node
        elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--"):
            found[id(node.operand)] = node
    return found


def _definition_sites(function: ir.Function) -> list[tuple[str, ir.Expr]]:
    """(variable ref, value) for every initializer and assignment of a local in `function`."""
    return function.analysis(_find_definition_sites)


def _find_definition_sites(function: ir.Function) -> list[tuple[str, ir.Expr]]:
    """Local arrays count as one variable: `coord[d] = idx % dims[d]` defines `coord`."""
    arrays = {node.ref for node in function.of_type(ir.VarDecl) if node.ref and node.dims and not node.shared}
    sites = []
    for node in function.of_type(ir.VarDecl, ir.Binary):
        if isinstance(node, ir.VarDecl):
            if node.ref and node.init is not None:
                sites.append((node.ref, node.init))
        elif node.is_assignment:
            target = strip(node.lhs)
            while isinstance(target, ir.Index) and not isinstance(strip(target.base), ir.Name):
                target = strip(target.base)
            if isinstance(target, ir.Index) and strip(target.base).ref in arrays:  # type: ignore[union-attr]
                sites.append((strip(target.base).ref, node.rhs))  # type: ignore[union-attr]
            elif isinstance(target, ir.Name) and target.ref:
                sites.append((target.ref, node.rhs))
    return sites
