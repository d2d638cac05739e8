"""CL434 call-arity-mismatch: a call the harness always makes passes a Python function of the solution
more positional arguments than it takes, or leaves a required one out: `ModelNew(*get_init_inputs())`,
`model(*get_inputs())` with the reference's lists, and the calls of in-file functions and methods that
forward always makes. The call raises TypeError before any kernel runs.

Evidence: the callee is resolved to one `def` of the file (a module-level function called by name, a
method called on `self`, ModelNew's `__init__` and `forward`), undecorated (but for `staticmethod`), and
the call's arguments are countable (no `*args`/`**kwargs` at the call; the reference's lists are list or
tuple literals without starred items). A function taking `*args` has no maximum.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import reference_of, state_of
from cudalint.harness.forward import always_run_functions
from cudalint.harness.kernelbench import python_module_at, returned_list_lengths
from cudalint.harness.statements import always_run_statements, evaluated_nodes, node_location


@rule("CL434", "call-arity-mismatch", "error",
      "a call the harness always makes (ModelNew(*get_init_inputs()), forward(*get_inputs()), an in-file function "
      "forward calls) passes more positional arguments than the function takes, or leaves a required one out",
      scope="document")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state = state_of(ctx.document)
    solution = state.solution
    if solution is None or solution.model_new is None:
        return
    reference = reference_of(ctx)
    module = None
    if reference is not None:
        same = os.path.abspath(reference.path) == os.path.abspath(ctx.document.path)
        module = solution.module if same else python_module_at(reference.path)
    lengths = returned_list_lengths(module) if module is not None else {}
    for method, source in (("__init__", "get_init_inputs"), ("forward", "get_inputs")):
        definition = solution.method(solution.model_new, method)
        given = lengths.get(source)
        if definition is None or given is None:
            continue
        problem = _mismatch(definition, given, (), implicit=1)
        if problem is not None:
            call = "`ModelNew(*get_init_inputs())`" if method == "__init__" else "`model(*get_inputs())`"
            yield ctx.finding_at(node_location(ctx.document, definition), (
                f"`ModelNew.{method}` {problem}, but the reference's `{source}()` gives {given}: the harness's "
                f"{call} raises TypeError before any kernel runs"))
    for info in always_run_functions(state.flow):
        for statement in always_run_statements(info.node):
            for call in (n for n in evaluated_nodes(statement) if isinstance(n, ast.Call)):
                implicit = _implicit_arguments(call, info, solution)
                callees = state.flow.callees_of(call, info)
                if implicit is None or len(callees) != 1 or not _countable(call):
                    continue
                callee = callees[0].node
                problem = _mismatch(callee, len(call.args), [k.arg for k in call.keywords], implicit)
                if problem is not None:
                    yield ctx.finding_at(node_location(ctx.document, call), (
                        f"`{callee.name}` (line {callee.lineno}) {problem}, but this call passes {len(call.args)} "
                        f"positionally: it raises TypeError every time forward runs"))


def _implicit_arguments(call: ast.Call, info, solution) -> int | None:
    """How many arguments the call supplies implicitly (`self` of `self.m(...)`): 0 for a module-level
    function called by name, 1 for a method called on `self`; None for any other form."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in solution.functions and func.id not in solution.assignments:
        return 0  # a module-level def its name is not rebound to something else
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and info.self_name \
            and func.value.id == info.self_name:
        method = solution.method(info.cls, func.attr) if info.cls is not None else None
        if method is not None and not _decorators(method):
            return 1
        if method is not None and _decorators(method) == ["staticmethod"]:
            return 0
    return None


def _countable(call: ast.Call) -> bool:
    return not any(isinstance(a, ast.Starred) for a in call.args) and all(k.arg is not None for k in call.keywords)


def _decorators(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    return [ast.unparse(d) for d in function.decorator_list]


def _mismatch(function: ast.FunctionDef | ast.AsyncFunctionDef, positional: int, keywords, implicit: int) -> str | None:
    """What is wrong with calling `function` with `positional` arguments (after the `implicit` ones) and
    these keywords: "takes at most N", "requires N (`name` has no default)"; None when it fits."""
    if _decorators(function) not in ([], ["staticmethod"]):
        return None
    args = function.args
    parameters = [a.arg for a in args.posonlyargs + args.args][implicit:]
    defaults = len(args.defaults)
    required = parameters[:max(len(parameters) - defaults, 0)] if defaults else parameters
    if args.vararg is None and positional > len(parameters):
        return f"takes {len(parameters)} positional argument{'s' if len(parameters) != 1 else ''}" \
               f"{' after `self`' if implicit else ''}"
    missing = [name for name in required[positional:] if name not in keywords]
    if missing and args.kwarg is None:
        return f"requires `{missing[0]}` (it has no default)"
    return None
