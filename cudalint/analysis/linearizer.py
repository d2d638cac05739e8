"""Linearization: index expressions and branch conditions of one access instance as linear integer constraints.

`Linearizer` lowers the expressions of one of the two accesses the conflict test (`conflicts.py`) compares
to linear forms (`omega.Lin`) over per-thread variables (`t1.x`, `t2.x`), block-uniform variables shared by
both accesses (parameters, blockIdx, loop counters that do not change between the two accesses), and
per-access copies of variables that may change in between. Division and modulo by constants become
quotient/remainder pairs, loop induction variables become `init + step * k`. What it cannot lower exactly
becomes an unconstrained variable and marks the system inexact. Values loaded from memory may stand for any
value where that is sound (an index read from data, a condition on data: some input makes them anything).
`LinearContext` is what it needs to know about the code, provided by the barrier analysis.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from cudalint.analysis.conflicts import BlockShape, block_var, linear_thread_id, thread_var
from cudalint.analysis.omega import Constraint, Lin, eq, ge, less, less_equal
from cudalint.model import ir

# ------------------------------------------------------------------------------------------ linearization


@dataclass
class LinearContext:
    """What the linearizer needs to know about the code: provided by the barrier analysis."""

    shape: BlockShape = field(default_factory=BlockShape)
    # per function (by key): ref -> (init expr, step expr) of loop counters with an additive step
    induction: dict[str, dict[str, tuple[ir.Expr, ir.Expr]]] = field(default_factory=dict)
    # per function (by key): refs assigned only by a for loop's init and step (any step: `s >>= 1`)
    loop_counters: dict[str, set[str]] = field(default_factory=dict)
    # per function (by key): ref -> (direction, initial value) of monotone loop counters: "up" (never below
    # the initial value), "down" (never above it), "halving" (between 0 and the initial value)
    counter_bounds: dict[str, dict[str, tuple[str, ir.Expr]]] = field(default_factory=dict)
    # the variables of a function whose assigned values depend on the thread (None: use control dependence)
    value_dependent: Callable[[ir.Function], set[str]] | None = None
    # long variable keys (declaration USRs) -> short solver names
    names: dict[str, str] = field(default_factory=dict)
    # (scope, ref, node) -> the one definition of a variable that reaches the node: (value, scope, def node)
    reaching: Callable | None = None
    # the kernel's own parameters pinned to the values one launch passes (ref -> value): a launch evaluated
    # at the reference problem's shapes
    values: Mapping[str, int] = field(default_factory=dict)

    def short(self, key: str) -> str:
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = f"{key[0]}{len(self.names)}{key[key.rfind('#'):] if '#' in key else ''}"
        return name


class Linearizer:
    """Lowers expressions of one access instance (`inst`, "1" or "2") to linear forms.

    `renamed` holds the variable keys ("<scope key>|<ref>") whose value may differ between the two
    accesses; they get per-instance copies. Side constraints (quotient/remainder ranges, induction
    counters >= 0) accumulate in `constraints`. `exact` turns False when something had to be
    over-approximated by an unconstrained variable.

    `iterations(node)` pins renamed loop counters, as evaluated at `node`, to an iteration counted from the
    start of the barrier interval: key -> (anchor, steps). With an anchor, the counter is
    `init + step * (K + steps)`, K the iterations done before the interval began (one variable per anchor,
    the same in both instances: both threads left the same barrier); without one, the loop was entered in
    the interval and the counter is `init + step * steps`.

    With `products`, a product of two non-constant values is a variable keyed by the linear forms of its
    factors (the same factors give the same variable) instead of an inexact opaque value, recorded in
    `products`: name -> (source text, left factor, right factor). Only a system in which no such variable
    is left (they cancel, or `unify_products` made them meet) can be exact: the caller checks (`mentions`).
    """

    def __init__(self, context: LinearContext, inst: str, renamed: frozenset[str] = frozenset(),
                 global_mode: bool = False, shared_iterations: bool = False, data_values: bool = False,
                 iterations: Callable[[object], Mapping[str, tuple[str | None, int]]] | None = None,
                 products: bool = False) -> None:
        self.context = context
        # loaded integers stand for any value (shared-memory races: some input makes them collide); not for
        # global stores, where a scatter through a permutation is the normal, race-free case
        self.data_values = data_values
        self.inst = inst
        self.renamed = renamed
        self.global_mode = global_mode  # blockIdx differs between the two instances
        self.shared_iterations = shared_iterations  # both instances are in the same loop iteration
        self.iterations = iterations
        self.products: dict[str, tuple[str, Lin, Lin]] | None = {} if products else None
        self.constraints: list[Constraint] = []
        self.exact = True
        self.at = None  # the graph node where the expressions being lowered are evaluated
        self._cache: dict[tuple, Lin] = {}
        self._divisions: set[str] = set()
        self._bounded: set[str] = set()
        self._depth = 0

    # -------------------------------------------------------------------------------------- expressions

    def lin(self, expr: ir.Expr | None, scope) -> Lin:
        if expr is None:
            self.exact = False
            return self._fresh("none")
        # keyed by the expression itself, not its id: analyses pass short-lived expressions too (a loop
        # step's negation), and a dead one's id can come back as another expression's
        key = (expr, scope.key, self.at.index if self.at is not None else -1)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        self._depth += 1
        try:
            if self._depth > 60:
                result = self._opaque(expr, scope)
            else:
                result = self._lin(expr, scope)
        finally:
            self._depth -= 1
        self._cache[key] = result
        return result

    def _lin(self, expr: ir.Expr, scope) -> Lin:
        if isinstance(expr, ir.Const):
            value = expr.value
            if isinstance(value, bool):
                return Lin.of(int(value))
            if isinstance(value, int):
                return Lin.of(value)
            return self._opaque(expr, scope)
        if isinstance(expr, ir.Member) and isinstance(expr.base, ir.Name) and expr.field in ("x", "y", "z"):
            builtin = self._builtin(expr.base.name, expr.field)
            if builtin is not None:
                return builtin
        if isinstance(expr, ir.Member) and by_value_param_member(expr, scope):
            # a field of a struct the kernel takes by value (`args.n`): one value in every thread, as a parameter
            return Lin.var(self.context.short(f"v:{scope.key}|{' '.join(expr.text.split())}"))
        if isinstance(expr, ir.Name):
            return self._name(expr, scope)
        if isinstance(expr, ir.Cast):
            if _is_float_type(expr.type):
                return self._opaque(expr, scope)
            return self.lin(expr.operand, scope)
        if isinstance(expr, ir.Unary):
            if expr.op == "-":
                return -self.lin(expr.operand, scope)
            if expr.op == "+":
                return self.lin(expr.operand, scope)
            return self._opaque(expr, scope)
        if isinstance(expr, ir.Binary):
            return self._binary(expr, scope)
        if isinstance(expr, ir.Call):
            return self._call(expr, scope)
        value = scope.env.value(expr)
        if isinstance(value, int):
            return Lin.of(value)
        return self._opaque(expr, scope)

    def _builtin(self, name: str, axis: str) -> Lin | None:
        shape = self.context.shape
        if name == "threadIdx":
            if shape.block_extent(axis) == 1:
                return Lin.of(0)
            return Lin.var(thread_var(self.inst, axis))
        if name == "blockIdx":
            if shape.grid_extent(axis) == 1:
                return Lin.of(0)
            return Lin.var(block_var(self.inst if self.global_mode else "", axis))
        if name == "blockDim":
            extent = shape.block_extent(axis)
            return Lin.of(extent) if extent is not None else Lin.var(f"B.{axis}")
        if name == "gridDim":
            extent = shape.grid_extent(axis)
            return Lin.of(extent) if extent is not None else Lin.var(f"G.{axis}")
        return None

    def _name(self, expr: ir.Name, scope) -> Lin:
        if isinstance(expr.constant, bool):
            return Lin.of(int(expr.constant))
        if isinstance(expr.constant, int):
            return Lin.of(expr.constant)
        if expr.name == "warpSize":
            return Lin.of(32)
        if expr.decl_kind == "template_param":
            self.exact = False
            return Lin.var(self.context.short(f"tp:{expr.name}"))
        if expr.ref is None:
            return self._opaque(expr, scope)
        bound = scope.binding(expr.ref)
        if bound is not None:
            arg, arg_scope = bound
            return self.lin(arg, arg_scope)
        if scope.parent is None and expr.decl_kind == "param" and expr.ref in self.context.values:
            return Lin.of(self.context.values[expr.ref])
        definition = scope.env.definition(expr.ref)
        if definition is not None and not isinstance(definition, ir.InitList):
            return self.lin(definition, scope)
        if self.at is not None and self.context.reaching is not None:
            found = self.context.reaching(scope, expr.ref, self.at)
            if found is not None:
                value, value_scope, node = found
                at, self.at = self.at, node
                try:
                    return self.lin(value, value_scope)
                finally:
                    self.at = at
        key = f"{scope.key}|{expr.ref}"
        control_dependent = scope.facts.is_dependent(expr)
        # across blocks, a local variable may hold a different value in each block (it may derive from
        # blockIdx): every instance gets its own copy
        per_block = self.global_mode and expr.decl_kind != "param"
        renamed = key in self.renamed or per_block
        # a launch with pinned parameters is one exact thread space: every additive loop counter is
        # `init + step * iterations`, not only those of per-thread loops
        if control_dependent or renamed or self.context.values:
            function_key = scope.function_key
            induction = self.context.induction.get(function_key, {}).get(expr.ref)
            if induction is not None:
                init, step = induction
                step_lin = self.lin(step, scope)
                scale = None
                if step_lin.is_const and step_lin.const != 0:
                    scale = step_lin.const
                elif len(step_lin.coeffs) == 1 and step_lin.const == 0:
                    # a grid-stride step c * gridDim.x, seen from one block: the counter moves by multiples of
                    # c (gridDim.x = 1 is a valid launch, so every multiple is reachable). Not across blocks:
                    # two blocks mean gridDim.x >= 2.
                    (name, coeff), = step_lin.coeffs.items()
                    if coeff > 0 and "#" not in name and name.startswith("G.") and not self.global_mode:
                        scale = coeff
                if scale is not None:
                    iteration = self.iterations(self.at).get(key) if self.iterations is not None else None
                    if iteration is not None:
                        anchor, steps = iteration
                        if anchor is None:
                            return self.lin(init, scope) + Lin.of(scale * steps)
                        counter = self.context.short(f"k:{key}@{anchor}")
                        self.constraints.append(ge(Lin.var(counter)))
                        return self.lin(init, scope) + Lin({counter: scale}, scale * steps)
                    counter = self.context.short(f"k:{key}" if self.shared_iterations else f"k:{key}#{self.inst}")
                    self.constraints.append(ge(Lin.var(counter)))
                    return self.lin(init, scope) + Lin.var(counter, scale)
            counter_only = expr.ref in self.context.loop_counters.get(function_key, ())
            bounds = self.context.counter_bounds.get(function_key, {}).get(expr.ref)
            value_dependent = control_dependent and (
                self.context.value_dependent is None or expr.ref in self.context.value_dependent(scope.function))
            if self.data_values and value_dependent and _data_only(expr, scope):
                pass  # a value computed from loaded data: for some input it is anything
            elif value_dependent or (control_dependent and not counter_only) or per_block:
                self.exact = False  # a per-thread (or per-block) value the constraints do not describe
            elif counter_only and not renamed:
                # a loop counter under thread-dependent control, not advanced between the two accesses:
                # both threads are in the same iteration
                return self._counter(Lin.var(self.context.short(f"v:{key}")), bounds, scope)
            return self._counter(Lin.var(self.context.short(f"v:{key}#{self.inst}")), bounds, scope)
        bounds = self.context.counter_bounds.get(scope.function_key, {}).get(expr.ref)
        return self._counter(Lin.var(self.context.short(f"v:{key}")), bounds, scope)

    def _counter(self, var: Lin, bounds: tuple[str, ir.Expr] | None, scope) -> Lin:
        """`var`, with the range its monotone loop counter stays in."""
        name = next(iter(var.coeffs))
        if bounds is None or name in self._bounded:
            return var
        self._bounded.add(name)
        direction, init = bounds
        exact = self.exact
        start = self.lin(init, scope)
        if self.exact:
            if direction == "up":
                self.constraints.append(less_equal(start, var))
            else:
                self.constraints.append(less_equal(var, start))
                if direction == "halving":
                    self.constraints.append(ge(var))
        self.exact = exact
        return var

    def _binary(self, expr: ir.Binary, scope) -> Lin:
        op = expr.op
        if op in ("+", "-"):
            left, right = self.lin(expr.lhs, scope), self.lin(expr.rhs, scope)
            return left + right if op == "+" else left - right
        if op == "*":
            left, right = self.lin(expr.lhs, scope), self.lin(expr.rhs, scope)
            if left.is_const:
                return right.scale(left.const)
            if right.is_const:
                return left.scale(right.const)
            if self.products is not None:
                return self._product(expr, scope, left, right)
            return self._opaque(expr, scope)
        if op == "<<":
            shift = self._known(expr.rhs, scope)
            if isinstance(shift, int) and 0 <= shift < 31:
                return self.lin(expr.lhs, scope).scale(1 << shift)
            return self._opaque(expr, scope)
        divisor = None
        operand = expr.lhs
        take = "q"
        if op in ("/", "%"):
            value = self._known(expr.rhs, scope)
            if isinstance(value, int) and value > 0:
                divisor, take = value, ("q" if op == "/" else "r")
        elif op == ">>":
            value = self._known(expr.rhs, scope)
            if isinstance(value, int) and 0 <= value < 31:
                divisor = 1 << value
        elif op == "&":
            for mask_side, other in ((expr.rhs, expr.lhs), (expr.lhs, expr.rhs)):
                value = self._known(mask_side, scope)
                if isinstance(value, int) and value >= 0 and (value + 1) & value == 0:
                    divisor, operand, take = value + 1, other, "r"
                    break
        if divisor is None:
            value = scope.env.value(expr)
            if isinstance(value, int):
                return Lin.of(value)
            return self._opaque(expr, scope)
        dividend = self.lin(operand, scope)
        q, r = self.divmod(dividend, divisor)
        return q if take == "q" else r

    def _known(self, expr: ir.Expr, scope) -> int | float | None:
        """The value of `expr` at compile time, or, with parameters pinned to a launch's values, there."""
        value = _constant(expr, scope)
        if value is not None or not self.context.values:
            return value
        exact = self.exact
        lin = self.lin(expr, scope)
        self.exact = exact
        return lin.const if lin.is_const else None

    def divmod(self, dividend: Lin, divisor: int) -> tuple[Lin, Lin]:
        """Quotient and remainder of a non-negative `dividend` by a positive constant, as new variables.
        The same dividend and divisor always give the same variables (`tid & 31` and `tid % 32` agree)."""
        if dividend.is_const:
            q, r = divmod(dividend.const, divisor)
            return Lin.of(q), Lin.of(r)
        if divisor == 1:
            return dividend, Lin.of(0)
        tag = f"{sorted(dividend.coeffs.items())}{dividend.const}/{divisor}"
        q, r = Lin.var(self.context.short(f"q:{tag}")), Lin.var(self.context.short(f"r:{tag}"))
        if tag not in self._divisions:
            self._divisions.add(tag)
            self.constraints += [eq(dividend - q.scale(divisor) - r), ge(r), less(r, Lin.of(divisor)),
                                 ge(dividend)]
        return q, r

    def _call(self, expr: ir.Call, scope) -> Lin:
        if expr.callee == "thread_rank" and expr.receiver is not None and "thread_block" in expr.receiver.type \
                and "tile" not in expr.receiver.type:
            lin = linear_thread_id(self.context.shape, self.inst)
            if lin is not None:
                return lin
        value = scope.env.value(expr)
        if isinstance(value, int):
            return Lin.of(value)
        name = expr.callee.rsplit("::", 1)[-1]
        if name in ("min", "max", "umin", "umax") and len(expr.args) == 2 \
                and all(self._is_uniform(a, scope) for a in expr.args):
            # a block-uniform bound such as min(ctx_len, MAX_CTX): a value on the right side of both
            # operands (exactly one of them, when the other is a free parameter)
            bound = Lin.var(self.context.short(f"m:{scope.key}|{' '.join(expr.text.split())}"))
            for arg in expr.args:
                value = self.lin(arg, scope)
                self.constraints.append(less_equal(bound, value) if name.endswith("min") else less_equal(value, bound))
            return bound
        return self._opaque(expr, scope)

    def _product(self, expr: ir.Binary, scope, left: Lin, right: Lin) -> Lin:
        """`left * right` as a variable that only these factors give (in either order): a function of them."""
        factors = sorted(f"{sorted(f.coeffs.items())}{f.const}" for f in (left, right))
        name = self.context.short(f"p:{'*'.join(factors)}")
        self.products[name] = (f"{scope.key}|{' '.join(expr.text.split())}", left, right)
        return Lin.var(name)

    def _opaque(self, expr: ir.Expr, scope) -> Lin:
        if self.data_values and _is_load(expr) and _data_only(expr, scope):
            # a value read from memory: arbitrary data can make it anything (an index into a histogram)
            return Lin.var(self.context.short(f"d:{scope.key}|{' '.join(expr.text.split())}#{self.inst}"))
        self.exact = False
        text = " ".join(expr.text.split()) or f"{type(expr).__name__}@{id(expr)}"
        if self._is_uniform(expr, scope):
            return Lin.var(self.context.short(f"o:{scope.key}|{text}"))
        return Lin.var(self.context.short(f"o:{scope.key}|{text}#{self.inst}"))

    def _fresh(self, tag: str) -> Lin:
        return Lin.var(f"f:{tag}:{len(self._cache)}#{self.inst}")

    def _is_uniform(self, expr: ir.Expr, scope) -> bool:
        """Same value in both instances: no thread dependence, no renamed variable, no memory load."""
        if scope.facts.is_dependent(expr):
            return False
        for node in expr.walk():
            if isinstance(node, (ir.Index, ir.Call)) or (isinstance(node, ir.Unary) and node.op == "*"):
                return False
            if isinstance(node, ir.Name) and node.ref and f"{scope.key}|{node.ref}" in self.renamed:
                return False
            if self.global_mode and isinstance(node, ir.Member) and isinstance(node.base, ir.Name) \
                    and node.base.name == "blockIdx":
                return False
        return True

    # -------------------------------------------------------------------------------------- conditions

    def condition(self, expr: ir.Expr, scope, positive: bool = True) -> list[list[Constraint]] | None:
        """The condition (or its negation) as alternatives of constraint lists; None when it adds no
        constraint (then `exact` turns False unless the condition only tests loaded data)."""
        exact_before = self.exact
        self.exact = True
        result = self._condition(expr, scope, positive, 0)
        cond_exact = self.exact
        self.exact = exact_before
        if result is _ANY:
            return None  # depends on loaded data only: true for any set of threads, for some input
        if result is None or not cond_exact:
            if scope.facts.is_dependent(expr) or (self.global_mode and _mentions_block(expr)):
                self.exact = False  # thread-index arithmetic the constraints do not capture
                return None
            # a block-uniform condition: both instances see the same value; keep what was expressible
            return result
        return result

    def _droppable(self, expr: ir.Expr, scope) -> bool:
        """A thread-dependent condition on loaded data (`x[i] > 0`): within one block any set of threads may
        satisfy it. Across blocks, data can single out one block (the last-block ticket), so it is not."""
        return not self.global_mode and scope.facts.is_dependent(expr) and _data_only(expr, scope)

    def _compare(self, expr: ir.Expr, scope, pairs):
        """Lower the operands of a comparison; _ANY when they are loaded data only."""
        saved = self.exact
        self.exact = True
        values = [self.lin(e, scope) for e in pairs]
        if not self.exact and self._droppable(expr, scope):
            self.exact = saved
            return _ANY
        self.exact = saved and self.exact
        return values

    def _condition(self, expr: ir.Expr, scope, positive: bool, depth: int):
        if depth > 12:
            return None
        while isinstance(expr, ir.Cast) and not _is_float_type(expr.type):
            expr = expr.operand
        if isinstance(expr, ir.Unary) and expr.op == "!":
            return self._condition(expr.operand, scope, not positive, depth + 1)
        if isinstance(expr, ir.Name) and expr.ref and scope.binding(expr.ref) is None:
            definition = scope.env.definition(expr.ref)
            if definition is not None and _is_boolean(definition):
                return self._condition(definition, scope, positive, depth + 1)
        if isinstance(expr, ir.Binary) and expr.op in ("&&", "||"):
            left = self._condition(expr.lhs, scope, positive, depth + 1)
            right = self._condition(expr.rhs, scope, positive, depth + 1)
            conjunction = (expr.op == "&&") == positive
            if conjunction:
                if left is _ANY:
                    return right
                if right is _ANY:
                    return left
                if left is None or right is None:
                    # dropping one conjunct over-approximates: keep the other
                    self.exact = False
                    return left if right is None else right
                out = [a + b for a, b in itertools.product(left, right)]
                return out if len(out) <= 16 else None
            if left is _ANY or right is _ANY:
                return _ANY
            if left is None or right is None:
                return None
            return left + right if len(left) + len(right) <= 16 else None
        if isinstance(expr, ir.Binary) and expr.op in ("<", "<=", ">", ">=", "==", "!="):
            values = self._compare(expr, scope, (expr.lhs, expr.rhs))
            if values is _ANY:
                return _ANY
            a, b = values
            op = expr.op
            if not positive:
                op = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}[op]
            if op == "<":
                return [[less(a, b)]]
            if op == "<=":
                return [[less_equal(a, b)]]
            if op == ">":
                return [[less(b, a)]]
            if op == ">=":
                return [[less_equal(b, a)]]
            if op == "==":
                return [[eq(a - b)]]
            return [[less(a, b)], [less(b, a)]]
        if isinstance(expr, ir.Const) and isinstance(expr.value, (int, bool)):
            truth = bool(expr.value) == positive
            return [[]] if truth else []
        if isinstance(expr, ir.Binary) and expr.op in ("+", "-", "*", "%", "/", "&", ">>", "<<") \
                or isinstance(expr, (ir.Name, ir.Member, ir.Index)):
            values = self._compare(expr, scope, (expr,))
            if values is _ANY:
                return _ANY
            value, zero = values[0], Lin.of(0)
            return [[eq(value)]] if not positive else [[less(value, zero)], [less(zero, value)]]
        if self._droppable(expr, scope):
            return _ANY
        return None


_ANY = object()  # a condition that any set of threads may satisfy (it tests loaded data)


def by_value_param_member(expr: ir.Expr, scope, depth: int = 0) -> bool:
    """Whether `expr` is a member (or a constant subscript of a member array) of a struct parameter the
    kernel takes by value: the same value in every thread of the grid (`args.n`, `args.out`, `q.p[4]`)."""
    if depth > 10:
        return False
    if isinstance(expr, ir.Member) and expr.base is not None and "->" not in expr.text:
        base = expr.base
        if isinstance(base, ir.Name):
            return base.decl_kind == "param" and scope.parent is None and scope.function.is_kernel \
                and "*" not in base.type
        return by_value_param_member(base, scope, depth + 1)
    if isinstance(expr, ir.Index) and isinstance(scope.env.value(expr.index), int):
        return by_value_param_member(expr.base, scope, depth + 1)
    return False


_DATA_TYPES = ("float", "double", "half", "bfloat", "bool")


def _data_only(expr: ir.Expr, scope, depth: int = 0) -> bool:
    """Whether `expr` varies between threads only through values loaded from memory (or computed from
    them in floating point), not through thread-index arithmetic."""
    if depth > 20:
        return False
    if isinstance(expr, (ir.Index, ir.Const)) or isinstance(expr, ir.Unary) and expr.op == "*":
        return True
    if isinstance(expr, ir.Member):
        if isinstance(expr.base, ir.Name) and expr.base.name in ("threadIdx", "blockIdx", "blockDim", "gridDim"):
            return expr.base.name != "threadIdx"
        return expr.base is None or _data_only(expr.base, scope, depth + 1)
    if isinstance(expr, ir.Name):
        if expr.name == "threadIdx":
            return False
        bound = scope.binding(expr.ref)
        if bound is not None:
            return _data_only(bound[0], bound[1], depth + 1)
        definition = scope.env.definition(expr.ref)
        if definition is not None:
            return _data_only(definition, scope, depth + 1)
        if not scope.facts.is_dependent(expr):
            return True
        if any(word in expr.type for word in _DATA_TYPES):
            return True
        # an integer variable: data-derived when every value assigned to it is (a histogram bin computed
        # from a loaded float, clamped with `if (b >= bins) b = bins - 1;`)
        values = assigned_values(scope.function).get(expr.ref)
        return bool(values) and depth < 8 and all(v is not None and _data_only(v, scope, depth + 4) for v in values)
    if isinstance(expr, ir.Call):
        if expr.callee in ("thread_rank", "thread_index", "__lane_id", "laneid", "meta_group_rank") \
                or expr.callee.startswith("atomic"):
            return False  # atomics hand out tickets: a test on one singles out a thread on purpose
        return all(_data_only(a, scope, depth + 1) for a in expr.args) or expr.callee.startswith(
            ("__shfl", "__ballot", "__any", "__all", "__match", "__reduce"))
    if isinstance(expr, (ir.Binary, ir.Unary, ir.Cast, ir.Conditional)):
        return all(_data_only(c, scope, depth + 1) for c in expr.children() if isinstance(c, ir.Expr))
    return False


def assigned_values(function: ir.Function) -> dict[str, list]:
    """ref -> the expressions assigned to the variable in `function` (None for ++/--)."""
    return function.analysis(_find_assigned_values)


def _find_assigned_values(function: ir.Function) -> dict[str, list]:
    found: dict[str, list] = {}
    if function.body is not None:
        for node in function.of_type(ir.VarDecl, ir.Binary, ir.Unary):
            if isinstance(node, ir.VarDecl) and node.ref and node.init is not None:
                found.setdefault(node.ref, []).append(node.init)
            elif isinstance(node, ir.Binary) and node.is_assignment and isinstance(node.lhs, ir.Name) and node.lhs.ref:
                found.setdefault(node.lhs.ref, []).append(node.rhs)
            elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--") \
                    and isinstance(node.operand, ir.Name) and node.operand.ref:
                found.setdefault(node.operand.ref, []).append(ir.Const(node.span, "1", "int", 1))
    return found


def _is_load(expr: ir.Expr) -> bool:
    while isinstance(expr, ir.Cast):
        expr = expr.operand
    return isinstance(expr, ir.Index) and not _is_float_type(expr.type) \
        or isinstance(expr, ir.Unary) and expr.op == "*" and not _is_float_type(expr.type)


def _constant(expr: ir.Expr, scope) -> int | float | None:
    """The compile-time value of `expr` (warpSize is 32, though the headers declare it a variable)."""
    if isinstance(expr, ir.Name) and expr.name == "warpSize":
        return 32
    return scope.env.value(expr)


def _mentions_block(expr: ir.Expr) -> bool:
    return any(isinstance(n, ir.Member) and isinstance(n.base, ir.Name) and n.base.name == "blockIdx"
               for n in expr.walk())


def _is_boolean(expr: ir.Expr) -> bool:
    return isinstance(expr, ir.Binary) and expr.op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||") \
        or isinstance(expr, ir.Unary) and expr.op == "!"


def _is_float_type(type_: str) -> bool:
    return any(word in type_ for word in ("float", "double", "half", "bfloat"))
