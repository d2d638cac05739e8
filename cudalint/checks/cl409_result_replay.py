"""CL409 result-replay: forward returns a result kept from an earlier call instead of computing it.

- Python: a `return` on the forward path that runs no kernel and computes nothing on its way, and
  returns state forward itself wrote on an earlier call (`self.cache[key]`, a module global, a class
  attribute), or returns under a condition on such state (`if self.calls > 1:`, a key built from
  `data_ptr()`, `id()`, `is`, `_version`, shapes or values). `Dataflow` names the state and the path.
- C++: a host function that returns a `static` (or namespace-scope) tensor, or returns under a condition
  on a `static` or global variable (a flag, a counter), so later calls skip the launch.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from cudalint.analysis.guards import strip
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.dataflow import Dataflow, dataflow_of, statement_path
from cudalint.harness.forward import node_location, record_unit
from cudalint.model import ir


@rule("CL409", "result-replay", "error",
      "forward returns a result kept from an earlier call (a cache keyed by pointer, identity, version, "
      "shape or value, a first- or last-call cache, a call counter, a C++ static) instead of computing it")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state, last = record_unit(ctx)
    solution = state.solution
    if solution is None or not solution.is_kernelbench:
        return
    yield from _static_results(ctx)
    if last and state.flow is not None:
        yield from _python_replays(ctx, state.flow, dataflow_of(state))


def _python_replays(ctx: RuleContext, flow, dataflow: Dataflow) -> Iterator[Finding]:
    for info in flow.functions:
        for statement, _, _ in dataflow.of(info).returns:
            path = statement_path(info.node, statement)
            if path is None or statement.value is None:
                continue
            before, enclosing = path
            if any(dataflow.computes(s, info) for s in before) or dataflow.computes(statement, info):
                continue
            stored = dataflow.reads_history(statement.value, info) or _stored_local(statement.value, before,
                                                                                     dataflow, info)
            condition = next((dataflow.reads_history(s.test, info) for s in enclosing
                              if isinstance(s, (ast.If, ast.While)) and dataflow.reads_history(s.test, info)), None)
            if stored is not None:
                yield ctx.finding_at(node_location(ctx.document, statement), (
                    f"forward returns `{ast.unparse(stored)[:50]}`, kept from an earlier call, without running "
                    f"a kernel or computing anything on this path: the harness checks and times a replayed "
                    f"result, not the kernel"))
            elif condition is not None:
                yield ctx.finding_at(node_location(ctx.document, statement), (
                    f"forward returns without running a kernel when `{ast.unparse(condition)[:50]}` (state it "
                    f"keeps from earlier calls) says so: later calls skip the work the harness times"))


def _stored_local(value: ast.expr, before: list[ast.stmt], dataflow: Dataflow, info) -> ast.expr | None:
    """A local returned as is that an earlier statement on the path took from kept state."""
    if not isinstance(value, ast.Name):
        return None
    for statement in reversed(before):
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == value.id
                                                     for t in statement.targets):
            return dataflow.reads_history(statement.value, info)
    return None


def _static_results(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    kept = {d.ref: d for d in program.globals if not d.is_const and not d.constant_memory and not d.shared}
    for function in program.functions:
        if function.body is None or function.is_device_code:
            continue
        statics = dict(kept)
        statics.update((d.ref, d) for d in function.of_type(ir.VarDecl) if d.static and not d.is_const)
        if not statics:
            continue
        replayed = [n for n in function.of_type(ir.Return) if n.value is not None and isinstance(
            strip(n.value), ir.Name) and strip(n.value).ref in statics and "Tensor" in statics[strip(n.value).ref].type]
        for node in replayed:
            yield ctx.finding(node.span, (
                f"`{function.name}` returns `{strip(node.value).name}`, a static tensor kept from an earlier "
                f"call: calls after the first get the stored result, not the kernel's"))
        for node in function.of_type(ir.If):
            kept_read = next((n for n in node.cond.walk() if isinstance(n, ir.Name) and n.ref in statics), None)
            exits = next((n for n in node.then.walk() if isinstance(n, ir.Return)), None)
            if kept_read is not None and exits is not None and exits not in replayed and not any(
                    isinstance(n, ir.Launch) for n in node.then.walk()):
                yield ctx.finding(exits.span, (
                    f"`{function.name}` returns without launching a kernel when `{kept_read.name}` (static "
                    f"state kept from earlier calls) says so: later calls skip the work the harness times"))
