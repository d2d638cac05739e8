"""CL410 graph-replay: forward replays a captured CUDA graph without handing it the call's inputs.

A CUDA graph replays the kernels it captured on the buffers it captured: unless forward copies its new
inputs into the graph's static input buffers first, every call after the first returns the output of
the captured input, however the inputs change; what is timed is a replay of stale work. Reported:
- Python: a `.replay()` on the forward path when forward copies none of its inputs into another tensor
  (`static_x.copy_(x)`) and does not capture the graph anew from them on every call (an unconditional
  `with torch.cuda.graph(g):` before the replay);
- C++: a host function that calls `cudaGraphLaunch` with its graph kept in a `static` (or namespace-scope)
  variable and copies nothing (`cudaMemcpy*`, `copy_`) on its way.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from cudalint import pyast
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.dataflow import replays_graph, dataflow_of
from cudalint.harness.document_state import record_unit
from cudalint.harness.statements import node_location
from cudalint.model import ir

_MESSAGE = ("replays a captured CUDA graph without copying this call's inputs into its static input buffers: "
            "after the first call it returns the output of the captured input, and the timing measures a replay "
            "of stale work; copy the inputs in before replay() (`self.static_x.copy_(x)`), or do not use a graph")


@rule("CL410", "graph-replay", "error",
      "forward replays a captured CUDA graph without copying its inputs into the graph's static buffers")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state, last = record_unit(ctx)
    if state.solution is None or not state.solution.is_kernelbench:
        return
    yield from _cpp_replays(ctx)
    if last and state.flow is not None and state.flow.forward is not None:
        yield from _python_replays(ctx, state)


def _python_replays(ctx: RuleContext, state) -> Iterator[Finding]:
    flow, dataflow = state.flow, dataflow_of(state)
    if any(_copies_an_input(info, dataflow.of(info)) or _captures_every_call(info, dataflow.of(info))
           for info in flow.functions):
        return
    for info in flow.functions:
        for call in pyast.of_type(info.node, ast.Call):
            if replays_graph(call):
                yield ctx.finding_at(node_location(ctx.document, call), f"forward {_MESSAGE}")


def _copies_an_input(info, facts) -> bool:
    """`buffer.copy_(x)` (or `buffer[...] = x`) with `x` derived from forward's inputs."""
    for node in pyast.of_type(info.node, ast.Call, ast.Assign):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "copy_" \
                and node.args and _from_inputs(node.args[0], facts):
            return True
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) for t in node.targets) \
                and _from_inputs(node.value, facts):
            return True
    return False


def _captures_every_call(info, facts) -> bool:
    """An unconditional `with torch.cuda.graph(...)` whose body reads forward's inputs."""
    for statement in info.node.body:
        if isinstance(statement, ast.With) and any("graph" in ast.unparse(item.context_expr).lower()
                                                   for item in statement.items):
            if any(_from_inputs(node, facts) for node in statement.body):
                return True
    return False


def _from_inputs(node: ast.AST, facts) -> bool:
    return any(isinstance(n, ast.Name) and (n.id in facts.inputs or facts.depends.get(n.id))
               for n in pyast.walk(node))


def _cpp_replays(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    kept = {d.ref for d in program.globals if d.ref}
    for function in program.functions:
        if function.is_device_code or function.body is None:
            continue
        launches = [c for c in function.of_type(ir.Call) if c.callee == "cudaGraphLaunch"]
        if not launches:
            continue
        kept_here = kept | {d.ref for d in function.of_type(ir.VarDecl) if d.static and d.ref}
        holds_graph = any(isinstance(n, ir.Name) and n.ref in kept_here for c in launches for n in c.walk())
        copies = any(c.callee.startswith("cudaMemcpy") or c.callee == "copy_" for c in function.of_type(ir.Call))
        if holds_graph and not copies:
            yield ctx.finding(launches[0].span, f"`{function.name}` {_MESSAGE}")
