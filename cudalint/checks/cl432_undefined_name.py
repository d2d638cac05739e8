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
from cudalint.harness.forward import graded_paths, node_location, reference_of, state_of
from cudalint.harness.kernelbench import module_bound_names

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


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
    methods = [solution.method(solution.model_new, name) for name in ("__init__", "forward")]
    for method in methods:
        if method is None:
            continue
        for name in _unbound_names_run(method, bound):
            where = "forward" if method.name == "forward" else "`ModelNew(...)` (its `__init__`)"
            hint = ""
            if _named_in_source_strings(solution.module, name.id):
                hint = (f"; `{name.id}` is a function of the C++/CUDA source, which Python reaches only as an "
                        f"attribute of the module `load_inline` returns"
                        + ("" if solution.load_inline_calls else ", and this file never calls `load_inline`"))
            yield ctx.finding_at(node_location(ctx.document, name), (
                f"`{name.id}` is never defined, imported or assigned anywhere in the file: {where} raises "
                f"NameError the first time the harness runs it{hint}"))
            break  # the first one stops the method: later names are never reached


def _unbound_names_run(method: ast.FunctionDef | ast.AsyncFunctionDef, bound: frozenset[str]) -> list[ast.Name]:
    """The unbound names of the statements of `method` that run every time it runs, in order."""
    paths = graded_paths(method)
    found: list[ast.Name] = []

    def visit(body: list[ast.stmt]) -> None:
        for statement in body:
            if id(statement) in paths.ungraded or id(statement) in paths.conditional or isinstance(statement, _NESTED):
                continue
            found.extend(n for n in _evaluated_names(statement) if n.id not in bound)
            if isinstance(statement, (ast.If, ast.With, ast.AsyncWith)):
                visit(statement.body)
                if isinstance(statement, ast.If):
                    visit(statement.orelse)
            elif isinstance(statement, ast.Try) and not statement.handlers:
                visit(statement.body)
                visit(statement.finalbody)

    visit(method.body)
    return found


def _evaluated_names(statement: ast.stmt) -> list[ast.Name]:
    """The names a statement's own expressions load on every execution (its header only, for a compound
    statement), in source order."""
    if isinstance(statement, ast.If):
        roots = [statement.test]
    elif isinstance(statement, _LOOPS):
        roots = [statement.iter] if isinstance(statement, (ast.For, ast.AsyncFor)) else [statement.test]
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        roots = [item.context_expr for item in statement.items]
    elif isinstance(statement, ast.Try):
        roots = []
    else:
        roots = [statement]
    names: list[ast.Name] = []
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.append(node)
            continue
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, ast.IfExp):
            children = [node.test]
        elif isinstance(node, ast.BoolOp):
            children = node.values[:1]
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            children = [node.generators[0].iter]
        else:
            children = list(ast.iter_child_nodes(node))
        stack.extend(reversed(children))
    return sorted(names, key=lambda n: (n.lineno, n.col_offset))


def _named_in_source_strings(module: ast.Module, name: str) -> bool:
    """Whether a string of the module calls or declares `name(`: the C++/CUDA source defines it."""
    pattern = re.compile(rf"\b{re.escape(name)}\s*\(")
    return any(isinstance(node, ast.Constant) and isinstance(node.value, str) and pattern.search(node.value)
               for node in pyast.of_type(module, ast.Constant))
