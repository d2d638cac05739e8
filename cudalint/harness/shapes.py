"""Launches evaluated at the reference problem's input shapes.

A launch configuration computed from tensor sizes (`<<<rows, x.size(1)>>>`, `cols * sizeof(float)` bytes
of dynamic shared memory) has no value in the source, but it has one at the shapes the harness uses.
When the reference is known (`harness.forward.reference_of`), a tensor that forward hands unchanged from
one of its inputs to a bound C++ function (`ext.fn(x)`, `self.op.fn(x.contiguous())`) has the shape
`get_inputs` gives that input; in the C++ function, `t.size(k)`, `t.sizes()[k]`, `t.size(-1)`,
`t.numel()` and `t.dim()` of that parameter then have values, and so do the locals computed from them.
Anything else (a tensor forward computes first, an input whose shape get_inputs does not fix) stays
unknown: a launch that is not decided is never reported.
"""

from __future__ import annotations

import ast
import dataclasses
from math import prod

from cudalint import pyast
from cudalint.harness.forward import reference_of, state_of
from cudalint.model import ir
from cudalint.model.constants import ConstantEnv
from cudalint.model.program import LaunchSite

_PASS_THROUGH = {"contiguous", "cuda", "float", "clone", "detach"}  # methods that keep the shape


class ShapeEnv(ConstantEnv):
    """A function's constant environment that also knows the sizes of some tensor parameters."""

    def __init__(self, function: ir.Function, outer: ConstantEnv | None, shapes: dict[str, tuple[int, ...]]) -> None:
        super().__init__(function, outer)
        self.shapes = shapes  # parameter ref -> shape

    def value(self, expr: ir.Expr | None, depth: int = 0) -> int | float | None:
        if isinstance(expr, ir.Call):
            shape = self.shape(expr.receiver)
            if shape is not None and expr.callee == "numel" and not expr.args:
                return prod(shape)
            if shape is not None and expr.callee == "dim" and not expr.args:
                return len(shape)
            if shape is not None and expr.callee == "size" and len(expr.args) == 1:
                return _dimension(shape, super().value(expr.args[0], depth + 1))
        if isinstance(expr, ir.Index) and isinstance(expr.base, ir.Call) and expr.base.callee == "sizes":
            shape = self.shape(expr.base.receiver)
            if shape is not None:
                return _dimension(shape, super().value(expr.index, depth + 1))
        return super().value(expr, depth)

    def shape(self, expr: ir.Expr | None, depth: int = 0) -> tuple[int, ...] | None:
        """The shape of a tensor expression: a known parameter, a single-assignment local holding one,
        or a shape-keeping method of one (`input.contiguous()`)."""
        if expr is None or depth > 10:
            return None
        if isinstance(expr, ir.Name):
            if expr.ref in self.shapes:
                return self.shapes[expr.ref]
            definition = self.definition(expr.ref)
            return self.shape(definition, depth + 1) if definition is not None else None
        if isinstance(expr, ir.Call) and expr.callee in _PASS_THROUGH and not expr.args:
            return self.shape(expr.receiver, depth + 1)
        return None


@dataclasses.dataclass
class ShapedLaunch:
    site: LaunchSite  # as the source alone decides it
    at_reference: LaunchSite  # the same launch with the reference's shapes known
    shapes: str  # "x: 16 x 4095", for messages


def launches_at_reference(ctx) -> list[ShapedLaunch]:
    """The launches of this unit whose configuration the reference's input shapes decide further."""
    program = ctx.program
    if "shaped_launches" in program.analyses:
        return program.analyses["shaped_launches"]
    found: list[ShapedLaunch] = []
    bound = _bound_input_shapes(ctx)
    for function in program.functions:
        shapes = bound.get(function.name)
        if not shapes or function.body is None:
            continue
        by_ref = {function.params[i].ref: (function.params[i].name, shape) for i, shape in shapes.items()
                  if i < len(function.params) and function.params[i].ref}
        env = ShapeEnv(function, program.env(function).outer, {ref: shape for ref, (_, shape) in by_ref.items()})
        described = ", ".join(f"{name}: {' x '.join(map(str, shape))}" for name, shape in by_ref.values())
        for site in program.launches:
            if site.caller is not function:
                continue
            launch = site.node
            grid, block = (launch.grid, launch.block) if isinstance(launch, ir.Launch) else \
                (launch.args[1], launch.args[2])
            shared_expr = site.shared_bytes_expr
            shared = env.value(shared_expr) if shared_expr is not None else 0
            shaped = dataclasses.replace(site, grid=env.dim3(grid), block=env.dim3(block),
                                         shared_bytes=int(shared) if shared is not None else None, env=env)
            if (shaped.grid, shaped.block, shaped.shared_bytes) != (site.grid, site.block, site.shared_bytes):
                found.append(ShapedLaunch(site, shaped, described))
    program.analyses["shaped_launches"] = found
    return found


def _dimension(shape: tuple[int, ...], index) -> int | None:
    if not isinstance(index, int) or not -len(shape) <= index < len(shape):
        return None
    return shape[index]


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
