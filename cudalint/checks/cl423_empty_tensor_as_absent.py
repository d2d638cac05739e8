"""CL423 empty-tensor-as-absent: forward passes an empty tensor (`torch.empty(0)`, `torch.tensor([])`) to
stand for "no bias", and the C++ function tells presence with `.defined()`, which is true for it.

An empty tensor is a defined tensor with no elements: `bias.defined()` holds, so the wrapper takes the
"has a bias" path and reads `bias[c]`, `bias.data_ptr<float>()[c]` or `bias.view({1, C, 1, 1})` of zero
elements (an illegal address, or a runtime error). Reported on the `.defined()` test when:
- forward's call of the bound function passes, at that parameter's position, an empty tensor: directly,
  as a branch of a conditional (`self.bias if self.bias is not None else torch.empty(0)`), or through a
  local assigned one;
- and the C++ function never asks the parameter's `numel()` (or `size(...)`, `sizes()`, `dim()`), which
  would tell an empty tensor apart.

Evidence: when the dry run completed every call and the bound function never received a tensor without
elements at that position (the call did not run, or always got elements there: a conditional whose
`torch.empty(0)` branch the reference's configuration never takes), the defect is *latent*: reported,
rejecting only under `--strict`. Without a completed dry run the static reading alone decides.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator

from cudalint import pyast
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.harness.document_state import state_of
from cudalint.model import ir

_FACTORIES = {"torch.empty", "torch.zeros", "torch.ones", "torch.tensor", "torch.Tensor", "torch.randn"}
_SIZE_QUERIES = {"numel", "size", "sizes", "dim", "is_empty"}


@rule("CL423", "empty-tensor-as-absent", "error",
      "an empty tensor passed for \"no bias\" to C++ that tests presence with .defined(), true for it")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state = state_of(ctx.document)
    flow = state.flow
    if flow is None or flow.forward is None:
        return
    empty_locals = _locals_assigned_empty(flow)
    empty_at: dict[str, dict[int, tuple[ast.expr, bool]]] = {}
    observed = ctx.observed
    for function_name, call in flow.bound_function_calls():
        for position, argument in enumerate(call.args):
            if _may_be_empty(argument, flow, empty_locals):
                latent = _refuted(observed, function_name, call, position)
                found = empty_at.setdefault(function_name, {})
                if position not in found or found[position][1]:
                    found[position] = (argument, latent)
    for function in ctx.program.functions:
        positions = empty_at.get(function.name)
        if not positions or function.body is None:
            continue
        for position, (argument, latent) in positions.items():
            if position >= len(function.params) or not function.params[position].ref:
                continue
            param = function.params[position]
            queries = [c for c in function.of_type(ir.Call)
                       if isinstance(c.receiver, ir.Name) and c.receiver.ref == param.ref]
            if any(c.callee in _SIZE_QUERIES for c in queries):
                continue
            test = next((c for c in queries if c.callee == "defined"), None)
            if test is not None:
                finding = ctx.finding(test.span, (
                    f"`{param.name}.defined()` is true for the empty tensor forward passes for it "
                    f"(`{short_text(ast.unparse(argument))}`, line {argument.lineno}): the code meant for a present "
                    f"`{param.name}` runs and reads elements it does not have; pass `None` (an undefined "
                    f"tensor, with `c10::optional<torch::Tensor>` in C++) or test `{param.name}.numel() > 0`"))
                if latent:
                    finding = dataclasses.replace(finding, latent=True, message=finding.message + (
                        "; latent: the dry run called forward as the harness does and this argument had elements "
                        "in every call, so the empty tensor is not passed at the reference's configuration"))
                yield finding


def _refuted(observed, function_name: str, call: ast.Call, position: int) -> bool:
    """A completed dry run in which this call never passed an empty tensor at `position` (the call did not
    run, or every argument there had elements: `bias if bias is not None else torch.empty(0)` with a bias)."""
    if observed is None:
        return False
    end = call.end_lineno or call.lineno
    entries = observed.compiled_calls_within(call.lineno, end)
    if entries is None:
        return False
    return not any(position in entry.get("empty", []) for entry in entries
                   if entry["function"] == function_name and call.lineno <= (entry.get("line") or 0) <= end)


def _may_be_empty(expr: ast.expr, flow, empty_locals: set[str]) -> bool:
    if isinstance(expr, ast.IfExp):
        return _may_be_empty(expr.body, flow, empty_locals) or _may_be_empty(expr.orelse, flow, empty_locals)
    if isinstance(expr, ast.Name):
        return expr.id in empty_locals
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and not expr.args \
            and expr.func.attr in ("cuda", "to", "contiguous", "float"):
        return _may_be_empty(expr.func.value, flow, empty_locals)
    return isinstance(expr, ast.Call) and _is_empty_factory(expr, flow)


def _is_empty_factory(call: ast.Call, flow) -> bool:
    if (flow.imports.qualify(call.func) or "") not in _FACTORIES:
        return False
    if not call.args:
        return ast.unparse(call.func).endswith("Tensor")  # torch.Tensor(): no elements
    first = call.args[0]
    if isinstance(first, (ast.List, ast.Tuple)):
        elements = first.elts
        return not elements or (len(elements) == 1 and _is_zero(elements[0]))
    return _is_zero(first)


def _is_zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0 and not isinstance(node.value, bool)


def _locals_assigned_empty(flow) -> set[str]:
    found: set[str] = set()
    for node in pyast.of_type(flow.forward, ast.Assign):
        if _may_be_empty(node.value, flow, found):
            found.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return found
