"""CL409 result-replay: forward returns a result kept from an earlier call instead of computing it.

- Python: a `return` on the forward path that runs no kernel and computes nothing on its way that
  reaches the returned value, and returns state forward itself wrote on an earlier call (`self.cache[key]`,
  a module global, a class attribute), or returns under a condition on such state (`if self.calls > 1:`,
  a key built from `data_ptr()`, `id()`, `is`, `_version`, shapes or values). What the path computes only
  for the lookup's key or condition (`x.sum().item()`, a hash of the input's bytes, `torch.equal(x,
  self.last)`) selects a stored result and does not count as computing one. `Dataflow` names the state.
- C++: a host function that returns a `static` (or namespace-scope) tensor, or returns under a condition
  on a `static` or global variable (a flag, a counter), so later calls skip the launch.
- Observed: when the dry run (cudalint/dryrun/) completed and one of forward's calls returned the very
  tensor an earlier call returned without running any compiled function, while other calls ran them
  (a cache keyed by anything, however the Python spells it): reported on the line that made the tensor,
  unless the static reading already reported the replay.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from cudalint import pyast
from cudalint.analysis.guards import strip
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.dataflow import Dataflow, dataflow_of, replays_graph, statement_path
from cudalint.harness.document_state import record_unit
from cudalint.harness.statements import line_location, node_location
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
        found = list(_python_replays(ctx, state.flow, dataflow_of(state)))
        yield from found or _observed_replay(ctx)


def _observed_replay(ctx: RuleContext) -> Iterator[Finding]:
    replay = ctx.observed.replay() if ctx.observed is not None else None
    if replay is None or replay["line"] is None:
        return
    inputs = "the same input objects" if replay["inputs"] == "same" else "new inputs"
    yield ctx.finding_at(line_location(ctx.document, replay["line"]), (
        f"forward returned the tensor made here during call {replay['earlier']} again in call {replay['call']} "
        f"({inputs}) without running a compiled function: the kernel ran in {replay['ran']} of {replay['total']} "
        f"calls of the dry run; the harness times repeated calls on the same inputs, so it times a lookup, not "
        f"the kernel"))


def _python_replays(ctx: RuleContext, flow, dataflow: Dataflow) -> Iterator[Finding]:
    for info in flow.functions:
        for statement, _, _ in dataflow.of(info).returns:
            path = statement_path(info.node, statement)
            if path is None or statement.value is None:
                continue
            before, enclosing = path
            if _computes_result(statement, before, dataflow, info):
                continue
            stored = dataflow.reads_history(statement.value, info) or _stored_local(statement.value, before,
                                                                                     dataflow, info)
            condition = next((dataflow.reads_history(s.test, info) for s in enclosing
                              if isinstance(s, (ast.If, ast.While)) and dataflow.reads_history(s.test, info)), None)
            if stored is not None:
                yield ctx.finding_at(node_location(ctx.document, statement), (
                    f"forward returns `{ast.unparse(stored)[:50]}`, kept from an earlier call, without running "
                    f"a kernel or computing the result on this path: the harness checks and times a replayed "
                    f"result, not the kernel"))
            elif condition is not None:
                yield ctx.finding_at(node_location(ctx.document, statement), (
                    f"forward returns without running a kernel when `{ast.unparse(condition)[:50]}` (state it "
                    f"keeps from earlier calls) says so: later calls skip the work the harness times"))


def _computes_result(statement: ast.Return, before: list[ast.stmt], dataflow: Dataflow, info) -> bool:
    """Whether the path to `statement` computes what it returns: compiled code on it (a kernel may write
    the kept state; `Dataflow.computes` decides for branches), or torch computing a value that reaches the
    returned value other than as the key of a lookup in kept state. A key computed from the input
    (`x.sum().item()`, a hash of its bytes) selects a stored result; it does not compute one."""
    typing = dataflow.flow.typing(info)

    def runs_compiled(node: ast.AST) -> bool:
        return any(isinstance(n, ast.Call) and (typing.runs_kernel(n) or replays_graph(n)) for n in pyast.walk(node))

    if runs_compiled(statement):
        return True
    keys = _lookup_keys(statement.value, dataflow, info)
    if any(id(n) not in keys for n in typing.compute_nodes(statement.value)):
        return True
    needed = _names_outside(statement.value, keys)
    for earlier in reversed(before):
        assigned = _assigned_names(earlier)
        if assigned is not None and not assigned & needed and not runs_compiled(earlier) and not _may_write(
                earlier.value, dataflow, info):
            continue  # a local the returned value does not use: a key, a flag, a shape
        if dataflow.computes(earlier, info):
            return True
        if assigned is not None:
            value = earlier.value
            needed |= _names_outside(value, _lookup_keys(value, dataflow, info))
    return False


def _may_write(expr: ast.expr, dataflow: Dataflow, info) -> bool:
    """Whether `expr` may write a tensor: an `out=` argument, an in-place method (`copy_`), or kept state
    handed to a call."""
    for call in pyast.of_type(expr, ast.Call):
        if any(k.arg == "out" for k in call.keywords):
            return True
        if isinstance(call.func, ast.Attribute) and call.func.attr.endswith("_") and not call.func.attr.startswith("_"):
            return True
        if any(dataflow.reads_history(a, info) is not None for a in [*call.args, *(k.value for k in call.keywords)]):
            return True
    return False


def _lookup_keys(expr: ast.expr, dataflow: Dataflow, info) -> set[int]:
    """The ids of the nodes of `expr` inside the key of a lookup in kept state (`self.cache[key]`,
    `self.cache.get(key)`)."""
    keys: set[int] = set()
    for sub in pyast.walk(expr):
        if isinstance(sub, ast.Subscript) and dataflow.reads_history(sub.value, info) is not None:
            roots: list[ast.AST] = [sub.slice]
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in (
                "get", "pop", "setdefault", "__getitem__") and dataflow.reads_history(sub.func.value, info):
            roots = sub.args[:1]
        else:
            continue
        keys.update(id(n) for root in roots for n in pyast.walk(root))
    return keys


def _names_outside(expr: ast.expr, keys: set[int]) -> set[str]:
    return {n.id for n in pyast.walk(expr) if isinstance(n, ast.Name) and id(n) not in keys}


def _assigned_names(statement: ast.stmt) -> set[str] | None:
    """The locals a plain assignment (`key = ...`, `a, b = ...`) binds; None for any other statement."""
    if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or statement.value is None:
        return None
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    elements = [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]
    if not all(isinstance(e, ast.Name) for e in elements):
        return None
    return {e.id for e in elements}


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
