"""CL403 pytorch-fallback: forward computes the result with PyTorch instead of the custom kernel.

Reported on the Python line where PyTorch takes over:
- the `except` line of a try/except around a kernel call whose handler computes with torch instead
  of re-raising;
- the `except` line of a try/except around the build (`load_inline`) that swallows the failure, when
  forward branches on the result to a torch path;
- a statement of forward that computes with torch on data derived from forward's inputs and not from
  the kernel's results (in a run file of KernelBench level 2 or 3, where keeping some layers in torch
  is a valid solution, only such `return`s).

Torch used to allocate (`torch.empty_like`), reshape (`x.view`), move or set up weights is not a
fallback.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from cudalint import pyast
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.forward import (
    ForwardFlow, cpu_only_statements, line_location, state_of, statements_in_order,
)
from cudalint.harness.kernelbench import parse_run_name


@rule("CL403", "pytorch-fallback", "error",
      "forward computes the operation with torch ops instead of the kernel, or falls back to PyTorch in an "
      "except handler", scope="document")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state = state_of(ctx.document)
    solution = state.solution
    flow = state.flow
    if solution is None or flow is None or flow.forward is None or solution.uses_foreign_kernels:
        return
    if not solution.load_inline_calls and not solution.raw_kernels:
        return  # CL400: no build at all
    reported: set[int] = set()

    def report(line: int, message: str) -> Iterator[Finding]:
        if line not in reported:
            reported.add(line)
            yield ctx.finding_at(line_location(ctx.document, line), message)

    # a try/except around a kernel call that computes with torch in the handler
    for info in flow.functions:
        typing = flow.typing(info)
        for node in pyast.walk(info.node):
            if not isinstance(node, ast.Try) or not _invokes(flow, info, node.body):
                continue
            for handler in node.handlers:
                if _raises(handler.body) or _catches_only_imports(handler):
                    continue
                if any(typing.is_compute(s) or _calls_fallback(flow, info, s) for s in handler.body):
                    yield from report(handler.lineno, (
                        "the kernel call is wrapped in try/except and the handler computes the result with "
                        "PyTorch: a kernel that fails still passes the harness, timed as PyTorch"))
    # a try/except around the build that swallows the failure, with forward branching on it
    yield from _swallowed_build(ctx, flow, report)
    # statements of forward that compute on the inputs with torch, not on the kernel's results
    yield from _torch_on_inputs(ctx, flow, report)


def _torch_on_inputs(ctx: RuleContext, flow: ForwardFlow, report) -> Iterator[Finding]:
    """One pass over forward in source order: a statement is reported when it computes with torch on
    data derived from forward's inputs that does not come from the kernel (weights and buffers alone
    are set-up, not the operation)."""
    info = flow.functions[0]
    typing = flow.typing(info)
    forward = flow.forward
    cpu_only = cpu_only_statements(forward)
    handled = _kernel_try_handlers(flow, info)
    inputs = {name for name in typing.tensors if _is_parameter(forward, name)}
    tainted: set[str] = set()
    # KernelBench levels 2 and 3 are fusions and whole architectures: keeping some layers in torch
    # next to the custom kernels is a valid solution there; only paths that return torch results are
    # fallbacks. Level 1 problems (and files of unknown level) are one operation.
    entry = parse_run_name(ctx.document.path)
    partial_ok = flow.reaches_kernel and entry is not None and entry.level >= 2
    for statement in statements_in_order(forward):
        if not _simple(statement) or id(statement) in cpu_only or id(statement) in handled \
                or (partial_ok and not isinstance(statement, ast.Return)):
            _update(statement, typing, inputs, tainted)
            continue
        for node in typing.compute_nodes(statement) + _fallback_calls(flow, info, statement):
            if _uses(node, inputs) and not _uses_kernel(node, typing, tainted):
                what = ("forward computes the result with PyTorch and never calls the custom kernel"
                        if not flow.reaches_kernel else
                        "forward computes part of the operation on its inputs with PyTorch instead of "
                        "the custom kernel")
                yield from report(statement.lineno, (
                    f"{what} (`{_short(node)}`): the harness checks and times PyTorch here, not the kernel"))
                break
        _update(statement, typing, inputs, tainted)


def _update(statement: ast.stmt, typing, inputs: set[str], tainted: set[str]) -> None:
    from cudalint.harness.forward import _names_in_target, _targets_and_value

    for call in (n for n in pyast.walk(statement) if isinstance(n, ast.Call)):
        if typing.runs_kernel(call):
            tainted.update(typing.output_buffers(call))
    targets, value = _targets_and_value(statement)
    if value is None:
        return
    from_kernel = _uses_kernel(value, typing, tainted)
    from_inputs = _uses(value, inputs)
    for target in targets:
        for name in _names_in_target(target):
            if from_kernel:
                tainted.add(name)
            elif isinstance(statement, ast.Assign) and not isinstance(target, ast.Subscript):
                tainted.discard(name)
            if from_inputs or from_kernel:
                inputs.add(name)


def _uses(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(sub, ast.Name) and sub.id in names for sub in pyast.walk(node))


def _uses_kernel(node: ast.AST, typing, tainted: set[str]) -> bool:
    return any((isinstance(sub, ast.Name) and sub.id in tainted)
               or (isinstance(sub, ast.Call) and typing.runs_kernel(sub)) for sub in pyast.walk(node))


def _is_parameter(function: ast.FunctionDef, name: str) -> bool:
    arguments = function.args.posonlyargs + function.args.args + function.args.kwonlyargs
    return any(a.arg == name for a in arguments) or (function.args.vararg is not None
                                                     and function.args.vararg.arg == name)


def _kernel_try_handlers(flow: ForwardFlow, info) -> set[int]:
    """ids of the statements inside except handlers of a try around a kernel call (reported once, on
    the except line)."""
    found: set[int] = set()
    for node in pyast.walk(info.node):
        if isinstance(node, ast.Try) and _invokes(flow, info, node.body):
            for handler in node.handlers:
                for statement in handler.body:
                    found.update(id(sub) for sub in pyast.walk(statement) if isinstance(sub, ast.stmt))
    return found


def _fallback_calls(flow: ForwardFlow, info, node: ast.AST) -> list[ast.Call]:
    return [c for c in pyast.walk(node) if isinstance(c, ast.Call) and _calls_fallback(flow, info, c)]


def _short(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


def _simple(statement: ast.stmt) -> bool:
    return isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr))


def _invokes(flow: ForwardFlow, info, body: list[ast.stmt]) -> bool:
    return any(flow.invoking_calls(statement, info) for statement in body)


def _raises(body: list[ast.stmt]) -> bool:
    return any(isinstance(s, ast.Raise) for s in body)


def _catches_only_imports(handler: ast.ExceptHandler) -> bool:
    names = []
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    for kind in kinds:
        if isinstance(kind, ast.Name):
            names.append(kind.id)
        else:
            return False
    return bool(names) and all(n in ("ImportError", "ModuleNotFoundError") for n in names)


def _calls_fallback(flow: ForwardFlow, info, node: ast.AST) -> bool:
    """A call to a forward-path helper that computes with torch and runs no kernel
    (`self._reference(x)`, `super().forward(x)`)."""
    for call in (n for n in pyast.walk(node) if isinstance(n, ast.Call)):
        for target, _ in flow._call_targets(call, info):
            helper = flow.info(target)
            if helper is None or helper.invokes:
                continue
            helper_typing = flow.typing(helper)
            if any(helper_typing.is_compute(s) for s in statements_in_order(target) if _simple(s)):
                return True
    return False


def _swallowed_build(ctx: RuleContext, flow: ForwardFlow, report) -> Iterator[Finding]:
    solution = flow.solution
    builds = {id(c.call) for c in solution.load_inline_calls} | {id(r.call) for r in solution.raw_kernels}
    for node in pyast.of_type(solution.module, ast.Try):
        if not any(id(sub) in builds for statement in node.body for sub in pyast.walk(statement)):
            continue
        for handler in node.handlers:
            if _raises(handler.body):
                continue
            flags = _assigned_names(handler.body)
            if not flags:
                continue
            derived = set(flags)
            for sub in pyast.of_type(solution.module, ast.Assign):  # self.use_cuda = EXT_OK
                if any(isinstance(n, ast.Name) and n.id in flags for n in pyast.walk(sub.value)):
                    derived.update(_assigned_names([sub]))
            if _forward_branches_on(flow, derived):
                yield from report(handler.lineno, (
                    "a failed build is swallowed here and forward branches on it: when the CUDA does not "
                    "compile, the harness silently checks and times a PyTorch path instead"))


def _assigned_names(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for statement in body:
        for sub in pyast.walk(statement):
            if isinstance(sub, ast.Assign):
                for target in sub.targets:
                    if isinstance(target, ast.Name):
                        names.add(target.id)
                    elif isinstance(target, ast.Attribute):
                        names.add(f".{target.attr}")
    return names


def _forward_branches_on(flow: ForwardFlow, names: set[str]) -> bool:
    for info in flow.functions:
        for node in pyast.walk(info.node):
            if isinstance(node, (ast.If, ast.IfExp, ast.While)):
                for sub in pyast.walk(node.test):
                    if isinstance(sub, ast.Name) and sub.id in names:
                        return True
                    if isinstance(sub, ast.Attribute) and f".{sub.attr}" in names:
                        return True
    return False
