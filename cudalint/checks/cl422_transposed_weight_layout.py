"""CL422 transposed-weight-layout: a ConvTranspose layer's weight read as if it were a convolution's.

`nn.ConvTranspose1d/2d/3d` keeps its weight as `[in_channels, out_channels / groups, *kernel]`, the
reverse of `nn.Conv*d`'s `[out_channels, in_channels / groups, *kernel]`. Reported where the C++ function
forward hands `self.<layer>.weight` of a ConvTranspose layer to sizes a new tensor's channel dimension
(the second entry of `torch::empty/zeros/ones/full({...})`) with `weight.size(0)`, directly or through a
local: that is the input channel count. The output then has the wrong number of channels whenever
`in_channels != out_channels` (a shape mismatch), and the kernel indexes the weight with the wrong
strides even when they are equal in the test.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import state_of
from cudalint.model import ir

_FACTORIES = {"empty", "zeros", "ones", "full", "rand", "randn"}


@rule("CL422", "transposed-weight-layout", "error",
      "a ConvTranspose weight's size(0) (its input channels) used as the output's channel count")
def check(ctx: RuleContext) -> Iterator[Finding]:
    flow = state_of(ctx.document).flow
    if flow is None or flow.forward is None:
        return
    weights = _transposed_weight_arguments(flow)
    for function in ctx.program.functions:
        positions = weights.get(function.name)
        if not positions or function.body is None:
            continue
        env = ctx.program.env(function)
        refs = {function.params[i].ref: layer for i, layer in positions.items()
                if i < len(function.params) and function.params[i].ref}
        for call in function.of_type(ir.Call):
            if call.callee.split("::")[-1] not in _FACTORIES or not call.args \
                    or not isinstance(call.args[0], ir.InitList) or len(call.args[0].elements) < 2:
                continue
            channels = call.args[0].elements[1]
            layer = _first_dimension_of(env.resolve(channels), refs)
            if layer is not None:
                yield ctx.finding(channels.span, (
                    f"`{' '.join(channels.text.split())}` is `size(0)` of the weight of `self.{layer}`, a "
                    f"{flow.attr_torch_modules[layer]}: its weight is [in_channels, out_channels / groups, ...], so "
                    f"this is the input channel count, not the output's; use size(1) * groups (and read the "
                    f"weight as [in, out / groups, ...] in the kernel)"))


def _first_dimension_of(expr: ir.Expr, refs: dict[str, str]) -> str | None:
    if isinstance(expr, ir.Cast):
        expr = expr.operand
    if isinstance(expr, ir.Call) and expr.callee == "size" and len(expr.args) == 1 \
            and isinstance(expr.args[0], ir.Const) and expr.args[0].value == 0 \
            and isinstance(expr.receiver, ir.Name) and expr.receiver.ref in refs:
        return refs[expr.receiver.ref]
    return None


def _transposed_weight_arguments(flow) -> dict[str, dict[int, str]]:
    """Bound function name -> {argument position: layer attribute} for `self.<ConvTranspose>.weight`
    arguments of forward's calls of compiled code."""
    found: dict[str, dict[int, str]] = {}
    for function_name, call in flow.bound_function_calls():
        for position, argument in enumerate(call.args):
            if isinstance(argument, ast.Attribute) and argument.attr == "weight" \
                    and isinstance(argument.value, ast.Attribute) and isinstance(argument.value.value, ast.Name) \
                    and argument.value.value.id == "self" \
                    and flow.attr_torch_modules.get(argument.value.attr, "").startswith("ConvTranspose"):
                found.setdefault(function_name, {})[position] = argument.value.attr
    return found
