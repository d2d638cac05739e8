"""CL400 invalid-solution: a Python kernel file the harness cannot use: it does not parse, has no
`ModelNew`, or never builds its CUDA.

Only KernelBench-style solutions are judged on `ModelNew` and the build (see
`cudalint.harness.kernelbench`): a file of a KernelBench run (its path names a level, or a problems
directory is given) without `ModelNew` is invalid; a file outside a run is judged only when it names
`ModelNew`; any other Python file is only checked for syntax errors.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from cudalint import pyast
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, Location
from cudalint.harness.document_state import state_of
from cudalint.harness.kernelbench import callee_name, in_kernelbench_run
from cudalint.harness.statements import line_location as _line
from cudalint.harness.statements import node_location as _node_location


@rule("CL400", "invalid-solution", "error",
      "the Python solution cannot be loaded: it does not parse, has no ModelNew, or never builds its CUDA",
      scope="document")
def check(ctx: RuleContext) -> Iterator[Finding]:
    document = ctx.document
    error = document.python_syntax_error
    if error is not None:
        line = error.lineno or 1
        column = error.offset or 1
        yield ctx.finding_at(Location(document.path, line, column, line, column + 1),
                             f"Python syntax error: {error.msg}; the file cannot be imported")
        return
    solution = state_of(document).solution
    if solution is None or not solution.is_kernelbench:
        return
    first = solution.module.body[0] if solution.module.body else None
    top = _line(document, first.lineno if first is not None else 1)
    # outside a KernelBench run an extension loader without ModelNew is no solution; its build is still
    # checked below, as an undefined source fails its import all the same
    if not solution.model_new_named and in_kernelbench_run(document.path, getattr(ctx.options, "problems", None)):
        classes = [c.name for c in solution.classes.values() if solution.is_subclass_of(c, "torch.nn.Module")]
        found = f" (it defines {', '.join(classes)})" if classes else ""
        yield ctx.finding_at(top,
                             f"no `ModelNew` class{found}: the harness imports `ModelNew` from the solution "
                             f"and fails before anything runs")
        return
    yield from _build_problems(ctx, solution, top)


def _build_problems(ctx: RuleContext, solution, top: Location) -> Iterator[Finding]:
    document = ctx.document
    builds = solution.load_inline_calls
    if not builds and not solution.raw_kernels:
        if solution.uses_foreign_kernels or solution.model_new is None:
            return
        yield ctx.finding_at(top,
                             "`ModelNew` never builds any CUDA: there is no `load_inline` call (nor cupy "
                             "`RawKernel`/`RawModule`), so no custom kernel can run")
        return
    external = [(call, arg) for call in builds for arg in (call.cpp, call.cuda)
                if arg.given and arg.text is None and _reads_at_import(solution, arg.node)]
    if external:
        call, arg = external[0]
        yield ctx.finding_at(top, (
            f"the CUDA given to `load_inline` (`{ast.unparse(arg.node)[:40]}`) is read from a file or the "
            f"environment at import time: the harness loads this one file, so the sources are not there "
            f"and nothing can be checked or built"))
        return
    for call in builds:
        undefined = [n for arg in (call.cpp, call.cuda) for n in arg.undefined_names]
        if undefined:
            name = undefined[0]
            yield ctx.finding_at(_node_location(document, name),
                                 f"`load_inline` uses `{name.id}`, which is never defined: importing the "
                                 f"solution raises NameError before anything is built")
            continue
        if not call.cpp.given and not call.cuda.given and not _has_star_arguments(call.call):
            yield ctx.finding_at(_node_location(document, call.call),
                                 "`load_inline` is given neither `cpp_sources` nor `cuda_sources`: "
                                 "nothing is compiled")
            continue
        if (call.cpp.empty or not call.cpp.given) and (call.cuda.empty or not call.cuda.given) \
                and (call.cpp.given or call.cuda.given):
            yield ctx.finding_at(_node_location(document, call.call),
                                 "the sources given to `load_inline` are empty: nothing is compiled")
    for raw in solution.raw_kernels:
        if raw.code.undefined_names:
            name = raw.code.undefined_names[0]
            yield ctx.finding_at(_node_location(document, name),
                                 f"`{raw.kind}` uses `{name.id}`, which is never defined: importing the "
                                 f"solution raises NameError")
        elif raw.code.empty:
            yield ctx.finding_at(_node_location(document, raw.call),
                                 f"the source given to `{raw.kind}` is empty: nothing is compiled")


_READERS = {"read", "read_text", "read_bytes", "open", "getenv", "urlopen", "readlines", "load", "loads",
            "get_data", "read_file", "fetch"}


def _reads_at_import(solution, node: ast.expr, depth: int = 0) -> bool:
    """Whether a source argument comes from a file, the environment or the network (followed through
    module-level variables): `open(path).read()`, `Path(p).read_text()`, `os.environ[...]`."""
    if depth > 5:
        return False
    for sub in pyast.walk(node):
        if isinstance(sub, ast.Call) and (callee_name(sub) or "") in _READERS:
            return True
        if isinstance(sub, ast.Attribute) and sub.attr == "environ":
            return True
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            for value in _assigned_values(solution.module, sub.id):
                if value is not node and _reads_at_import(solution, value, depth + 1):
                    return True
    return False


def _assigned_values(module: ast.Module, name: str) -> list[ast.expr]:
    values = []
    for statement in pyast.of_type(module, ast.Assign):
        if any(isinstance(t, ast.Name) and t.id == name for t in statement.targets):
            values.append(statement.value)
    return values


def _has_star_arguments(call: ast.Call) -> bool:
    return any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)
