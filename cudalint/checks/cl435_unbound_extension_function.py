"""CL435 unbound-extension-function: forward calls an attribute of the module `load_inline` returns that
the module does not have: `functions=[...]` binds other names, so the call raises AttributeError.

Evidence: the module is the result of one `load_inline` call, held by a module-level variable or a `self`
attribute assigned once; its `functions=` is a static list; its sources are resolved and define no
`PYBIND11_MODULE` of their own (which could bind more names); the call is on a statement forward (or a
function forward always calls) always runs.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator

from cudalint import pyast
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import state_of
from cudalint.harness.forward import always_run_functions
from cudalint.harness.statements import always_run_statements, evaluated_nodes, node_location


@rule("CL435", "unbound-extension-function", "error",
      "forward calls an attribute of the load_inline module that its functions=[...] does not bind: AttributeError",
      scope="document")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state = state_of(ctx.document)
    solution = state.solution
    if solution is None or solution.model_new is None:
        return
    assigned = Counter(_target(t) for node in pyast.of_type(solution.module, ast.Assign, ast.AnnAssign)
                       for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))
    modules = {}
    for build in solution.load_inline_calls:
        if build.target is None or assigned[build.target] != 1 or build.functions is None:
            continue
        texts = [argument.text for argument in (build.cpp, build.cuda) if argument.given]
        if None in texts or any("PYBIND11_MODULE" in text for text in texts):
            continue
        modules[build.target] = (build, [name for name, _ in build.functions])
    if not modules:
        return
    for info in always_run_functions(state.flow):
        local = {n.id for n in pyast.walk(info.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for statement in always_run_statements(info.node):
            for call in (n for n in evaluated_nodes(statement) if isinstance(n, ast.Call)):
                func = call.func
                holder = _target(func.value) if isinstance(func, ast.Attribute) else None
                if holder is None or holder in local or (holder.startswith("self.") and info.self_name != "self"):
                    continue  # a local of that name hides the module's variable
                found = modules.get(holder)
                if found is None or func.attr in found[1]:
                    continue
                build, bound = found
                yield ctx.finding_at(node_location(ctx.document, call), (
                    f"`{ast.unparse(func)}` is not a function of the module `load_inline` builds at line "
                    f"{build.call.lineno}: its `functions=` binds only {', '.join(f'`{n}`' for n in bound) or 'nothing'}, "
                    f"so this call raises AttributeError every time forward runs"))
                return


def _target(node: ast.expr) -> str | None:
    """`name` or `self.attr` as `LoadInlineCall.target` spells an assignment's target."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None
