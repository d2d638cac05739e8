"""Provenance: which global thread indices a value derives from, and whether the guards bound them.

`Provenance` says which global thread indices a value derives from: the grid axes whose
`blockIdx * blockDim + threadIdx` it contains (through single-assignment locals, divisions and shifts), and
the thread-dependent multi-assigned variables (grid-stride counters) it depends on. `ProvenanceAnalysis`
computes it for the values of one function; `uncovered` and `bounded` decide whether dominating
comparisons (`guards.py`) bound every such source from above. `global_axes` reads the
grid axes off an index polynomial. Made per function by `GuardAnalysis.provenance` (`guard_analysis.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from cudalint.analysis.guards import AXES, COMPARISON_OPERATORS, Comparison, Condition, FunctionGuards, strip
from cudalint.analysis.pointer_accesses import Access
from cudalint.analysis.symbolic import BLOCK_DIM, BLOCK_IDX, THREAD_IDX, Atom, Poly, Symbolizer
from cudalint.analysis.uniformity import Uniformity
from cudalint.model import ir
from cudalint.model.program import Program


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
