"""Launches evaluated at the reference problem's input shapes.

A launch configuration computed from tensor sizes (`<<<rows, x.size(1)>>>`, `cols * sizeof(float)` bytes
of dynamic shared memory) has no value in the source, but it has one at the shapes the harness uses.
When the reference is known (`harness.document_state.reference_of`), each argument forward passes to a bound
C++ function (`ext.fn(x, self.linear.weight, self.dim)`) has the shape or value `harness.output_shape`
reads for it at `get_inputs()`/`get_init_inputs()` (a tensor forward hands unchanged keeps its input's
shape even when the rest of forward is not followed). In the C++ function, `t.size(k)`, `t.sizes()[k]`,
`t.size(-1)`, `t.numel()` and `t.dim()` of those parameters, and of the tensors the function makes from
known sizes (`torch::empty({rows, cols}, ...)`, `x.view({rows, -1})`), then have values, and `HostRun`
(`host_run.py`) runs the
function's statements on them (loops over the dimensions, reassigned locals, AT_DISPATCH lambdas) to
know each local at each launch. Anything else stays unknown: a launch that is not decided is never
reported.
"""

from __future__ import annotations

import ast
import dataclasses

from cudalint import pyast
from cudalint.analysis.guards import strip
from cudalint.analysis.launch_link import LaunchLinks
from cudalint.harness.document_state import record_unit, reference_of, state_of
from cudalint.harness.host_run import _PASS_THROUGH, HostRun, ShapeEnv, TensorArgument
from cudalint.harness.output_shape import reference_call_arguments
from cudalint.model import ir
from cudalint.model.program import LaunchSite


_SIGNED_INT32 = {"int", "const int", "int32_t", "const int32_t", "signed int", "signed", "const signed int"}


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
        run = _host_run(program, function, shapes, scalars)
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
        calls = _check_failures(function)
        if not calls:
            continue
        certain = [point for point in _host_run(program, function, shapes, scalars).certain if point in calls]
        if certain:  # the first check that fails throws: the later ones never run
            found.append(FailedCheck(function, calls[certain[0]][1], ", ".join(described)))
    return found


def _check_failures(function: ir.Function) -> dict[int, tuple[ir.Call, ir.If]]:
    """id -> (the failure call, its check) for each `TORCH_CHECK` of `function`."""
    calls = {}
    for statement in function.of_type(ir.If):
        for node in statement.then.walk() if statement.then is not None else ():
            if isinstance(node, ir.Call) and node.callee.endswith("torchCheckFailed"):
                calls[id(node)] = (node, statement)
    return calls


def _host_run(program, function: ir.Function, shapes: dict, scalars: dict) -> HostRun:
    """`HostRun` of a bound function at these arguments to its launches and its checks' failures, run once
    per unit for the launches' (`reached_launches_at_reference`) and the checks' (`failed_checks_at_reference`)
    readers: where a point is reached, and the values there, do not depend on which other points are watched."""
    runs = program.analyses.setdefault("host_runs", {})
    key = (id(function), tuple(sorted(shapes.items())), tuple(sorted(scalars.items())))
    if key not in runs:
        points = [site.node for site in program.launches if site.caller is function]
        points += [call for call, _ in _check_failures(function).values()]
        runs[key] = HostRun(function, ShapeEnv(function, program.env(function).outer, shapes, scalars), points)
    return runs[key]


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


def _bound_arguments(ctx) -> dict[str, dict[int, object]]:
    """Bound function name -> {argument position: a TensorArgument, or a number or tuple of numbers}:
    what forward passes at the reference's inputs, read by `output_shape` (weights, computed tensors,
    sizes); else forward's inputs passed unchanged."""
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
