"""CL432 undefined-name: `ModelNew.__init__` or `forward` uses a name nothing in the file binds, on a
statement the harness runs: the first construction or call raises NameError.

Generated solutions often call a C++ function by its bare name (`fused_relu_cuda(x)`) where only the
module `load_inline` returns holds it (`ext.fused_relu_cuda(x)`), or when the file never builds its CUDA at
all; or they use `F` without importing `torch.nn.functional as F`.

KernelBench's harness executes the solution in the namespace it executed the reference problem in, so the
reference's names (`Model`, its helper classes, `batch_size`) are defined for the solution too.

Evidence: the reference problem is known (its names are counted as bound; without it the rule is silent),
the name is loaded in a statement of `__init__` or `forward` that runs whenever the method runs
(not under a condition the harness does not decide, not in a loop body, a `try` with a handler, a
conditional expression, the right side of `and`/`or`, a lambda or a nested function), and the file binds
it nowhere: no assignment, definition, parameter, import, `global` or handler anywhere in the module, and
no builtin of that name. A module that may bind names at run time (a star import, `exec`, `eval`,
`globals()`, `setattr` of anything but `self`, a module's `__dict__`) is never judged.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator

from cudalint import pyast
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import reference_of, state_of
from cudalint.harness.forward import always_run_functions
from cudalint.harness.kernelbench import module_bound_names
from cudalint.harness.statements import always_run_statements, evaluated_nodes, node_location



@rule("CL432", "undefined-name", "error",
      "ModelNew's __init__ or forward uses a name the file never binds: constructing or calling it raises NameError",
      scope="document")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state = state_of(ctx.document)
    solution = state.solution
    if solution is None or solution.model_new is None or solution.bound_names is None:
        return
    reference = reference_of(ctx)
    if reference is None:
        return  # the harness runs the solution in the reference's namespace: its names are unknown
    bound = solution.bound_names
    if os.path.abspath(reference.path) != os.path.abspath(ctx.document.path):
        reference_names = module_bound_names(reference.path)
        if reference_names is None:
            return
        bound = bound | reference_names
    init = solution.method(solution.model_new, "__init__")
    if init is not None:
        yield from _first_unbound(ctx, solution, init, bound, "`ModelNew(...)` (its `__init__`)")
    for info in always_run_functions(state.flow):
        where = "forward" if info.node is state.flow.forward else f"`{info.node.name}` (which forward always calls)"
        yield from _first_unbound(ctx, solution, info.node, bound, where)


def _first_unbound(ctx: RuleContext, solution, method, bound: frozenset[str], where: str) -> Iterator[Finding]:
    """The first unbound name a statement of `method` that always runs loads: the later ones are never
    reached."""
    for statement in always_run_statements(method):
        for name in (n for n in evaluated_nodes(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)):
            if name.id in bound:
                continue
            hint = ""
            if _named_in_source_strings(solution.module, name.id):
                hint = (f"; `{name.id}` is a function of the C++/CUDA source, which Python reaches only as an "
                        f"attribute of the module `load_inline` returns"
                        + ("" if solution.load_inline_calls else ", and this file never calls `load_inline`"))
            yield ctx.finding_at(node_location(ctx.document, name), (
                f"`{name.id}` is never defined, imported or assigned anywhere in the file or the reference: "
                f"{where} raises NameError the first time the harness runs it{hint}"))
            return


def _named_in_source_strings(module: ast.Module, name: str) -> bool:
    """Whether a string of the module calls or declares `name(`: the C++/CUDA source defines it."""
    pattern = re.compile(rf"\b{re.escape(name)}\s*\(")
    return any(isinstance(node, ast.Constant) and isinstance(node.value, str) and pattern.search(node.value)
               for node in pyast.of_type(module, ast.Constant))
