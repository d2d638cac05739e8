"""Launches evaluated at the reference problem's input shapes.

A launch configuration computed from tensor sizes (`<<<rows, x.size(1)>>>`, `cols * sizeof(float)` bytes
of dynamic shared memory) has no value in the source, but it has one at the shapes the harness uses.
When the reference is known (`harness.forward.reference_of`), each argument forward passes to a bound
C++ function (`ext.fn(x, self.linear.weight, self.dim)`) has the shape or value `harness.output_shape`
reads for it at `get_inputs()`/`get_init_inputs()` (a tensor forward hands unchanged keeps its input's
shape even when the rest of forward is not followed). In the C++ function, `t.size(k)`, `t.sizes()[k]`,
`t.size(-1)`, `t.numel()` and `t.dim()` of those parameters, and of the tensors the function makes from
known sizes (`torch::empty({rows, cols}, ...)`, `x.view({rows, -1})`), then have values, and `HostRun` runs the
function's statements on them (loops over the dimensions, reassigned locals, AT_DISPATCH lambdas) to
know each local at each launch. Anything else stays unknown: a launch that is not decided is never
reported.
"""

from __future__ import annotations

import ast
import dataclasses
from math import prod

from cudalint import pyast
from cudalint.analysis.guards import strip
from cudalint.analysis.launch_link import LaunchLinks
from cudalint.harness.forward import record_unit, reference_of, state_of
from cudalint.model import ir
from cudalint.model.constants import ConstantEnv
from cudalint.model.program import LaunchSite

_SIGNED_INT32 = {"int", "const int", "int32_t", "const int32_t", "signed int", "signed", "const signed int"}
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


@dataclasses.dataclass
class ShapedLaunch:
    site: LaunchSite  # as the source alone decides it
    at_reference: LaunchSite  # the same launch with the reference's shapes known
    shapes: str  # "x: 16 x 4095", for messages


def kernel_env_at_reference(program, shaped: ShapedLaunch) -> tuple[ir.Function, ShapeEnv] | None:
    """The kernel a reached launch runs, with the values its scalar parameters get there (the launch's
    arguments in the host's state at the reference's shapes); None when the kernel is not in the unit."""
    link = LaunchLinks.of(program).of_node(shaped.site.node)
    kernel = link.kernel if link is not None else None
    if kernel is None or kernel.body is None:
        return None
    scalars = {}
    for param, arg in zip(kernel.params, link.args):
        value = shaped.at_reference.env.value(strip(arg))
        if param.ref and isinstance(value, int) and not isinstance(value, bool) \
                and not (is_signed_int32(param.type) and not -2**31 <= value < 2**31):  # converted: wrapped
            scalars[param.ref] = value
    return kernel, ShapeEnv(kernel, program.env(kernel).outer, {}, scalars)


def is_signed_int32(type_: str) -> bool:
    return " ".join(type_.split()) in _SIGNED_INT32


def launches_at_reference(ctx) -> list[ShapedLaunch]:
    """The launches of this unit whose configuration the reference's input shapes decide further."""
    return [shaped for shaped in reached_launches_at_reference(ctx)
            if (shaped.at_reference.grid, shaped.at_reference.block, shaped.at_reference.shared_bytes)
            != (shaped.site.grid, shaped.site.block, shaped.site.shared_bytes)]


def reached_launches_at_reference(ctx) -> list[ShapedLaunch]:
    """Every launch of this unit that the bound functions reach at the reference's input shapes, with the
    host's values there (`at_reference.env`), whether or not the shapes change its configuration."""
    program = ctx.program
    if "shaped_launches" in program.analyses:
        return program.analyses["shaped_launches"]
    found: list[ShapedLaunch] = []
    program.analyses["shaped_launches"] = found
    if not program.launches:
        return found
    for function, shapes, scalars, described in _bound_environments(ctx):
        outer = program.env(function).outer
        run = HostRun(function, ShapeEnv(function, outer, shapes, scalars),
                      [site.node for site in program.launches if site.caller is function])
        for site in program.launches:
            if site.caller is not function or id(site.node) not in run.states:
                continue  # not reached at these arguments
            env = ShapeEnv(function, outer, shapes, scalars)
            env.state = run.states[id(site.node)]
            launch = site.node
            grid, block = (launch.grid, launch.block) if isinstance(launch, ir.Launch) else \
                (launch.args[1], launch.args[2])
            shared_expr = site.shared_bytes_expr
            shared = env.value(shared_expr) if shared_expr is not None else 0
            shaped = dataclasses.replace(site, grid=env.dim3(grid), block=env.dim3(block),
                                         shared_bytes=int(shared) if shared is not None else None, env=env)
            found.append(ShapedLaunch(site, shaped, ", ".join(described)))
    return found


@dataclasses.dataclass
class FailedCheck:
    function: ir.Function  # the bound C++ function
    check: ir.If  # the `TORCH_CHECK(cond, ...)` (as the stub headers expand it: `if (!(cond)) fail(...)`)
    shapes: str  # "x: 16 x 4095", for messages


def failed_checks_at_reference(ctx) -> list[FailedCheck]:
    """The first `TORCH_CHECK` of each bound C++ function that certainly fails at the reference's input
    shapes: run with the arguments forward passes there, the function reaches the check on a path every
    run takes and its condition evaluates to false (a dimension count, a divisibility, a size equality)."""
    program = ctx.program
    found: list[FailedCheck] = []
    for function, shapes, scalars, described in _bound_environments(ctx):
        calls = {}  # id -> (the failure call, its check)
        for statement in function.of_type(ir.If):
            for node in statement.then.walk() if statement.then is not None else ():
                if isinstance(node, ir.Call) and node.callee.endswith("torchCheckFailed"):
                    calls[id(node)] = (node, statement)
        if not calls:
            continue
        run = HostRun(function, ShapeEnv(function, program.env(function).outer, shapes, scalars),
                      [call for call, _ in calls.values()])
        if run.certain:  # the first check that fails throws: the later ones never run
            found.append(FailedCheck(function, calls[run.certain[0]][1], ", ".join(described)))
    return found


def _bound_environments(ctx):
    """(function, parameter ref -> shape, parameter ref -> scalar, descriptions) for each bound C++
    function of this unit that forward calls with a tensor whose shape the reference decides."""
    program = ctx.program
    record_unit(ctx)  # the reading of forward follows the C++ of the units recorded: this one too
    bound = _bound_arguments(ctx)
    for function in program.functions:
        arguments = bound.get(function.name)
        if not arguments or function.body is None:
            continue
        shapes, scalars, described = {}, {}, []
        for position, value in sorted(arguments.items()):
            param = function.params[position] if position < len(function.params) else None
            if param is None or not param.ref:
                continue
            if isinstance(value, TensorArgument):
                shapes[param.ref] = value.shape
                described.append(f"{param.name}: {' x '.join(map(str, value.shape))}")
            elif "Tensor" not in param.type:
                scalars[param.ref] = value
                described.append(f"{param.name} = {value}")
        if shapes:
            yield function, shapes, scalars, described


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


def _bound_arguments(ctx) -> dict[str, dict[int, object]]:
    """Bound function name -> {argument position: a TensorArgument, or a number or tuple of numbers}:
    what forward passes at the reference's inputs, read by `output_shape` (weights, computed tensors,
    sizes); else forward's inputs passed unchanged."""
    from cudalint.harness.output_shape import reference_call_arguments

    found = {name: {position: TensorArgument(shape) for position, shape in shapes.items()}
             for name, shapes in _bound_input_shapes(ctx).items()}
    for name, arguments in reference_call_arguments(ctx).items():
        found.setdefault(name, {}).update(arguments)
    return found


def _bound_input_shapes(ctx) -> dict[str, dict[int, tuple[int, ...]]]:
    """Bound function name -> {argument position: shape} for forward's inputs passed to it unchanged."""
    reference = reference_of(ctx)
    flow = state_of(ctx.document).flow
    if reference is None or flow is None or flow.forward is None:
        return {}
    forward = flow.forward
    parameters = [a.arg for a in forward.args.args[1:]]  # self first
    shapes = {name: spec.shape for name, spec in zip(parameters, reference.inputs) if spec.shape}
    assigned = {t.id for node in pyast.of_type(forward, ast.Assign, ast.AugAssign, ast.AnnAssign)
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)}
    found: dict[str, dict[int, tuple[int, ...]]] = {}
    for function_name, call in flow.bound_function_calls():
        for position, argument in enumerate(call.args):
            name = _input_name(argument)
            if name in shapes and name not in assigned:
                found.setdefault(function_name, {})[position] = shapes[name]
    return found


def _input_name(argument: ast.expr) -> str | None:
    while isinstance(argument, ast.Call) and isinstance(argument.func, ast.Attribute) \
            and argument.func.attr in _PASS_THROUGH and not argument.args:
        argument = argument.func.value
    return argument.id if isinstance(argument, ast.Name) else None
