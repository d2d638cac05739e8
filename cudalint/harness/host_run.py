"""A host C++ function run on known tensor shapes: `ShapeEnv`, a constant environment that also knows the sizes
of some tensors (`t.size(k)`, `t.sizes()[k]`, `t.numel()`, `t.dim()`), and `HostRun`, which runs the
function's statements on it (loops over the dimensions, reassigned locals, AT_DISPATCH lambdas) to know each
local at each launch. Both `shapes.py` (launches at the reference's shapes) and `output_shape.py` (the
wrapper's output at those shapes) run on it.
"""

from __future__ import annotations

import dataclasses
from math import prod

from cudalint.analysis.guards import strip
from cudalint.model import ir
from cudalint.model.constants import ConstantEnv


_PASS_THROUGH = {"contiguous", "cuda", "float", "clone", "detach"}  # methods that keep the shape
_LIKE = {"empty_like", "zeros_like", "ones_like", "rand_like", "randn_like", "full_like"}  # a new tensor of that shape
_FACTORIES = {"empty", "zeros", "ones", "full", "rand", "randn"}  # `torch::empty({n, c}, options)`: sizes first
_RESHAPES = {"view", "reshape"}  # the same elements in another shape


class ShapeEnv(ConstantEnv):
    """A function's constant environment that also knows the sizes of some tensor parameters."""

    def __init__(self, function: ir.Function, outer: ConstantEnv | None, shapes: dict[str, tuple[int, ...]],
                 scalars: dict | None = None) -> None:
        super().__init__(function, outer)
        assigned, elements = written_refs(function)
        # a parameter the function writes has its argument's value only until then (HostRun follows it);
        # writing a tensor's elements keeps its shape
        self.arguments = dict(scalars or {})
        self.shapes = {ref: shape for ref, shape in shapes.items() if ref not in assigned}  # parameter ref -> shape
        # parameter ref -> a number, or a tuple of them (an IntArrayRef)
        self.scalars = {ref: value for ref, value in self.arguments.items() if ref not in assigned | elements}
        self.state: dict[str, object] | None = None  # a HostRun's values at one point (numbers, tensors)

    def value(self, expr: ir.Expr | None, depth: int = 0) -> int | float | None:
        if isinstance(expr, ir.Name) and self.state is not None and expr.ref in self.state:
            value = self.state[expr.ref]
            return value if isinstance(value, (int, float)) else None
        if isinstance(expr, ir.Name) and expr.ref in self.scalars:
            value = self.scalars[expr.ref]
            return value if isinstance(value, (int, float)) else None
        if isinstance(expr, ir.Index) and isinstance(expr.base, ir.Name):
            return self._element(expr, depth)
        if isinstance(expr, ir.Call) and expr.callee == "size" and not expr.args and expr.receiver is not None:
            return self._length(expr.receiver)
        if isinstance(expr, ir.Call):
            shape = self.shape(expr.receiver)
            if shape is not None and expr.callee == "numel" and not expr.args:
                return prod(shape)
            if shape is not None and expr.callee == "dim" and not expr.args:
                return len(shape)
            if shape is not None and expr.callee == "size" and len(expr.args) == 1:
                return _dimension(shape, self.value(expr.args[0], depth + 1))
        if isinstance(expr, ir.Index) and isinstance(expr.base, ir.Call) and expr.base.callee == "sizes":
            shape = self.shape(expr.base.receiver)
            if shape is not None:
                return _dimension(shape, self.value(expr.index, depth + 1))
        return super().value(expr, depth)

    def _element(self, expr: ir.Index, depth: int) -> int | float | None:
        """`stride[0]` of an IntArrayRef parameter; `sizes[2]` of a local `auto sizes = x.sizes()`."""
        index = self.value(expr.index, depth + 1)
        if expr.base.ref in self.scalars:
            sequence = self.scalars[expr.base.ref]
            found = sequence[index] if isinstance(sequence, tuple) and isinstance(index, int) \
                and 0 <= index < len(sequence) else None
            return found if isinstance(found, (int, float)) else None
        base = self.resolve(expr.base)
        if isinstance(base, ir.Call) and base.callee == "sizes" and base.receiver is not None:
            return _dimension(self.shape(base.receiver) or (), index)
        return super().value(expr, depth)

    def _length(self, sequence: ir.Expr) -> int | None:
        """`sizes.size()` of `auto sizes = x.sizes()`, or of an IntArrayRef parameter."""
        if isinstance(sequence, ir.Name) and isinstance(self.scalars.get(sequence.ref), tuple):
            return len(self.scalars[sequence.ref])
        base = self.resolve(sequence)
        if isinstance(base, ir.Call) and base.callee == "sizes" and base.receiver is not None:
            shape = self.shape(base.receiver)
            return len(shape) if shape is not None else None
        return None

    def shape(self, expr: ir.Expr | None, depth: int = 0) -> tuple[int, ...] | None:
        """The shape of a tensor expression: a known parameter, a single-assignment local holding one,
        a shape-keeping method of one (`input.contiguous()`), a factory given a size list of known values
        (`torch::empty({rows, cols}, x.options())`, `torch::zeros(x.sizes(), ...)`) or a view of a known
        tensor (`x.view({rows, -1})`)."""
        if expr is None or depth > 10:
            return None
        if isinstance(expr, ir.Name):
            if self.state is not None and expr.ref in self.state:
                held = self.state[expr.ref]
                return held.shape if isinstance(held, TensorArgument) else None
            if expr.ref in self.shapes:
                return self.shapes[expr.ref]
            definition = self.definition(expr.ref)
            return self.shape(definition, depth + 1) if definition is not None else None
        if isinstance(expr, ir.Call) and expr.callee in _PASS_THROUGH and not expr.args:
            return self.shape(expr.receiver, depth + 1)
        if isinstance(expr, ir.Call) and expr.callee.rsplit("::", 1)[-1] in _LIKE and expr.receiver is None \
                and expr.args:
            return self.shape(expr.args[0], depth + 1)
        if isinstance(expr, ir.Call) and expr.callee.rsplit("::", 1)[-1] in _FACTORIES and expr.receiver is None \
                and expr.args and expr.text.lstrip().startswith(("torch::", "at::")):
            return self._sizes(expr.args[0], depth + 1)
        if isinstance(expr, ir.Call) and expr.callee in _RESHAPES and expr.receiver is not None and expr.args:
            return self._reshaped(expr, depth + 1)
        return None

    def _sizes(self, expr: ir.Expr, depth: int) -> tuple[int, ...] | None:
        """A size list: `{a, b}` of known non-negative integers, or `t.sizes()` of a tensor of known shape."""
        expr = strip(expr)
        if isinstance(expr, ir.InitList):
            values = [self.value(element, depth) for element in expr.elements]
            if values and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
                return tuple(values)
            return None
        if isinstance(expr, ir.Call) and expr.callee == "sizes" and not expr.args:
            return self.shape(expr.receiver, depth)
        return None

    def _reshaped(self, call: ir.Call, depth: int) -> tuple[int, ...] | None:
        """`t.view({a, -1})`, `t.reshape({n})`, `t.view(a, b)`: the new shape, a -1 inferred from `t`'s
        number of elements; None unless the element counts agree."""
        source = self.shape(call.receiver, depth)
        if source is None:
            return None
        if len(call.args) == 1 and isinstance(strip(call.args[0]), ir.InitList):
            values = [self.value(element, depth) for element in strip(call.args[0]).elements]
        else:
            values = [self.value(arg, depth) for arg in call.args]
        if not values or not all(isinstance(v, int) and not isinstance(v, bool) and v >= -1 for v in values) \
                or values.count(-1) > 1:
            return None
        known = prod(v for v in values if v != -1)
        if -1 in values:
            if known == 0 or prod(source) % known:
                return None
            values[values.index(-1)] = prod(source) // known
        return tuple(values) if prod(values) == prod(source) else None

    def tensor_value(self, expr: ir.Expr) -> object:
        """What a HostRun keeps for a tensor local assigned `expr`; None when not known."""
        shape = self.shape(expr)
        return TensorArgument(shape) if shape is not None else None


_MAX_ITERATIONS = 256


class HostRun:
    """The values of a host function's locals at each of its launches, from running its statements on
    the values `env` knows: assignments and compound assignments, `++`/`--`, branches on known
    conditions (both sides otherwise, values that differ becoming unknown), loops with known bounds (a
    loop that cannot be run makes what it writes unknown), the bodies of lambdas where they are written
    (AT_DISPATCH runs them once, there). `states`: id(point) -> ref -> value (None: unknown) for each of
    `points` (launches, return statements) reached; one missing from it is not reached."""

    def __init__(self, function: ir.Function, env: ShapeEnv, points: list[ir.Node]) -> None:
        self.env = env
        self.points = {id(node) for node in points}
        self.states: dict[int, dict] = {}
        self.certain: list[int] = []  # ids of the points reached on a path every run takes, in order
        self.may_have_returned = False  # a return under a condition not known was passed
        self.steps = 0
        # > 0 while running code that may not run: a branch of an unknown condition, the body of a loop
        # not run to its end, the children of a statement not followed
        self.guessing = 0
        self._run(function.body, {ref: v for ref, v in env.arguments.items() if isinstance(v, (int, float))})

    def _value(self, expr: ir.Expr | None, state: dict):
        self.env.state = state
        try:
            return self.env.value(expr)
        finally:
            self.env.state = None

    def _tensor(self, expr: ir.Expr, state: dict) -> object:
        self.env.state = state
        try:
            return self.env.tensor_value(expr)
        finally:
            self.env.state = None

    def _run(self, statement: ir.Stmt | None, state: dict) -> bool:
        """Run `statement`; True when it certainly returns."""
        self.steps += 1
        if statement is None or self.steps > 100_000:
            return False
        if isinstance(statement, ir.Block):
            return any(self._run(inner, state) for inner in statement.body)
        if isinstance(statement, ir.DeclStmt):
            for decl in statement.decls:
                if decl.init is not None:
                    self._effects(decl.init, state)
                if decl.ref:
                    state[decl.ref] = None if decl.init is None or decl.dims else \
                        self._tensor(decl.init, state) if _is_tensor(decl.type) else self._value(decl.init, state)
            return False
        if isinstance(statement, ir.ExprStmt):
            self._effects(statement.expr, state)
            return False
        if isinstance(statement, ir.Return):
            if statement.value is not None:
                self._effects(statement.value, state)
            self._record(statement, state)
            return True
        if isinstance(statement, ir.If):
            self._effects(statement.cond, state)
            condition = self._value(statement.cond, state)
            if condition is not None:
                return self._run(statement.then if condition else statement.otherwise, state)
            then_state, other_state = dict(state), dict(state)
            self.guessing += 1
            then_returns = self._run(statement.then, then_state)
            other_returns = self._run(statement.otherwise, other_state)
            self.guessing -= 1
            # past a return only one side takes, the rest may not run
            self.may_have_returned |= then_returns != other_returns
            survivors = [s for s, returns in ((then_state, then_returns), (other_state, other_returns)) if not returns]
            state.update(_merge(survivors) if survivors else {})
            return then_returns and other_returns
        if isinstance(statement, (ir.For, ir.While)):
            self._loop(statement, state)
            return False
        if isinstance(statement, ir.OpaqueStmt):  # a case label, goto, asm: what it holds runs here
            for part in statement.parts:
                self._run(part, state) if isinstance(part, ir.Stmt) else self._effects(part, state)
            return False
        if isinstance(statement, ir.Switch):
            self._effects(statement.cond, state)
        # a switch (cases not followed) or another statement: what it writes is not known; its launches
        # see that
        self._forget(statement, state)
        self.guessing += 1
        for child in statement.children():
            if isinstance(child, ir.Stmt):
                self._run(child, dict(state))
        self.guessing -= 1
        return False

    def _loop(self, loop: ir.For | ir.While, state: dict) -> None:
        if isinstance(loop, ir.For) and loop.init is not None:
            self._run(loop.init, state)
        jumps = any(isinstance(n, (ir.Break, ir.Continue, ir.Return, ir.OpaqueStmt)) for n in loop.body.walk())
        for iteration in range(_MAX_ITERATIONS + 1):
            first = iteration == 0 and isinstance(loop, ir.While) and loop.do_while
            condition = 1 if first or loop.cond is None and isinstance(loop, ir.For) else self._value(loop.cond, state)
            if condition is not None and not condition:
                return
            if condition is None or jumps or iteration == _MAX_ITERATIONS:
                break
            self._run(loop.body, state)
            if isinstance(loop, ir.For) and loop.step is not None:
                self._effects(loop.step, state)
        # not run to its end: what it writes is not known; its launches see that
        self._forget(loop, state)
        self.guessing += 1
        self._run(loop.body, dict(state))
        self.guessing -= 1

    def _effects(self, expr: ir.Node, state: dict) -> None:
        """The writes and launches of an expression, in order; a lambda's body runs where it is written."""
        if isinstance(expr, ir.Lambda):
            self._run(expr.body, state)
            return
        for child in expr.children():
            if child is not None:
                self._effects(child, state)
        self._record(expr, state)
        if isinstance(expr, ir.Binary) and expr.is_assignment and isinstance(expr.lhs, ir.Name) and expr.lhs.ref:
            value = expr.rhs if expr.op == "=" else ir.Binary(expr.span, op=expr.op[:-1], lhs=expr.lhs, rhs=expr.rhs)
            tensor = _is_tensor(expr.lhs.type)
            state[expr.lhs.ref] = (self._tensor(value, state) if expr.op == "=" else None) if tensor else \
                self._value(value, state)
        elif isinstance(expr, ir.Unary) and expr.op in ("++", "--", "post++", "post--") \
                and isinstance(expr.operand, ir.Name) and expr.operand.ref:
            step = ir.Binary(expr.span, op="+" if "+" in expr.op else "-", lhs=expr.operand,
                             rhs=ir.Const(expr.span, value=1))
            state[expr.operand.ref] = self._value(step, state)
        elif isinstance(expr, ir.Unary) and expr.op == "&" and isinstance(expr.operand, ir.Name) and expr.operand.ref:
            state[expr.operand.ref] = None  # handed out by address: it may be written

    def _record(self, point: ir.Node, state: dict) -> None:
        if id(point) in self.points:
            if not self.guessing and not self.may_have_returned and id(point) not in self.certain:
                self.certain.append(id(point))
            previous = self.states.get(id(point))
            self.states[id(point)] = dict(state) if previous is None else _merge([previous, state])

    @staticmethod
    def _forget(statement: ir.Node, state: dict) -> None:
        for node in statement.walk():
            target = node.lhs if isinstance(node, ir.Binary) and node.is_assignment else \
                node.operand if isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--", "&") else \
                node if isinstance(node, ir.VarDecl) else None
            ref = target.ref if isinstance(target, (ir.Name, ir.VarDecl)) else None
            if ref:
                state[ref] = None


def written_refs(function: ir.Function) -> tuple[set[str], set[str]]:
    """(the declarations `function` assigns, increments or hands out by address; those it writes an
    element or member of). `x = x.contiguous()` (a shape-keeping method of itself) is no write."""
    assigned: set[str] = set()
    elements: set[str] = set()
    for node in function.of_type(ir.Binary, ir.Unary):
        if isinstance(node, ir.Binary) and node.op == "=" and _keeps_itself(node):
            continue
        target = node.lhs if isinstance(node, ir.Binary) and node.is_assignment else \
            node.operand if isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--", "&") else None
        found = assigned
        while isinstance(target, (ir.Member, ir.Index, ir.Cast)):
            target = target.operand if isinstance(target, ir.Cast) else target.base
            found = elements if found is assigned and not isinstance(target, ir.Cast) else found
        if isinstance(target, ir.Name) and target.ref:
            found.add(target.ref)
    return assigned, elements


def _is_tensor(type_: str) -> bool:
    return "Tensor" in type_ and "*" not in type_ and "vector" not in type_ and "optional" not in type_


def _keeps_itself(assignment: ir.Binary) -> bool:
    value = assignment.rhs
    while isinstance(value, ir.Call) and value.callee in _PASS_THROUGH and not value.args:
        value = value.receiver
    return isinstance(value, ir.Name) and isinstance(assignment.lhs, ir.Name) and value.ref == assignment.lhs.ref \
        and value is not assignment.rhs


def _merge(states: list[dict]) -> dict:
    """The values the states agree on; the others unknown."""
    merged: dict = {}
    for key in set().union(*states):
        values = [s.get(key) for s in states]
        merged[key] = values[0] if all(v == values[0] and key in s for v, s in zip(values, states)) else None
    return merged


def _dimension(shape: tuple[int, ...], index) -> int | None:
    if not isinstance(index, int) or not -len(shape) <= index < len(shape):
        return None
    return shape[index]


@dataclasses.dataclass(frozen=True)
class TensorArgument:
    shape: tuple[int, ...]
