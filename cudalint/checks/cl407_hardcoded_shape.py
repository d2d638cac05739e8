"""CL407 hardcoded-shape (warning): sizes of the reference's inputs baked into the kernel, the wrapper or
forward as literals, instead of being read from the tensors.

Only when the reference is known (`LintOptions.reference`, a problems directory with a run-directory
file name, or the file's own `get_inputs`). The sizes are the input dimensions, the products of adjacent
dimensions (numel, rows, ...) and the integers `get_init_inputs` returns; only distinctive values
count (over 1024, or at least 100 and not a power of two), so block sizes, tile sizes and small
constants that happen to equal a dimension are never reported. Reported on the literal, or on the
`#define`/`const` that holds it; the block size of a launch is never a shape.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from cudalint import pyast
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import record_unit, reference_of
from cudalint.harness.statements import node_location
from cudalint.model import ir
from cudalint.model.ir import Span
from cudalint.model.program import Program
from cudalint.positions import with_lines

_INTEGER_LITERAL = re.compile(r"^\(?\s*(\d+)\s*[uUlL]*\s*\)?$")
_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\b", re.MULTILINE)


def distinctive(value: int) -> bool:
    return value > 1024 or (value >= 100 and value & (value - 1) != 0)


@rule("CL407", "hardcoded-shape", "warning",
      "sizes equal to the reference's input shapes baked into the kernel, wrapper or forward instead of "
      "being read from the tensors")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state, last = record_unit(ctx)
    solution = state.solution
    if solution is None or not solution.is_kernelbench:
        return
    reference = reference_of(ctx)
    if reference is None:
        return
    sizes = {s for s in reference.sizes() if distinctive(s)}
    if not sizes:
        return
    yield from _cuda_literals(ctx, sizes)
    if last:
        yield from _python_literals(ctx, state, sizes)


def _cuda_literals(ctx: RuleContext, sizes: set[int]) -> Iterator[Finding]:
    program = ctx.program
    unit_lines = ctx.facts.unit.lines
    reported_macros: set[str] = set()
    excluded: set[int] = set()
    for function in program.functions:
        if function.body is None:
            continue
        for node in function.of_type(ir.Launch):
            for part in (node.block, node.shared_bytes, node.stream):
                if part is not None:
                    excluded.update(id(n) for n in part.walk())
    for decl in program.globals:
        value = _literal_value(decl.init) if decl.init is not None else None
        if value in sizes:
            yield ctx.finding(decl.span, _message(decl.name, value))
    for function in program.functions:
        if function.body is None:
            continue
        for node in function.of_type(ir.Const):
            if id(node) in excluded or isinstance(node.value, (bool, float)):
                continue
            if node.value not in sizes:
                continue
            text = node.text.strip() or _span_text(unit_lines, node.span)
            if _INTEGER_LITERAL.match(text):
                yield ctx.finding(node.span, _message(None, node.value))
            elif _IDENTIFIER.match(text) and text not in reported_macros:
                line = program.analysis(_define_lines).get(text)
                if line is not None:
                    reported_macros.add(text)
                    yield ctx.finding(Span(line, 1, line, 2), _message(text, node.value))


def _literal_value(expr: ir.Expr | None) -> int | None:
    if isinstance(expr, ir.Const) and isinstance(expr.value, int) and not isinstance(expr.value, bool) \
            and _INTEGER_LITERAL.match(expr.text.strip()):
        return expr.value
    return None


def _span_text(lines: list[str], span: Span) -> str:
    """The unit text a one-line span covers (a macro name, where clang gives no text), given its lines."""
    if span.line != span.end_line or not 0 < span.line <= len(lines):
        return ""
    return lines[span.line - 1][span.column - 1 : span.end_column - 1].strip()


def _define_lines(program: Program) -> dict[str, int]:
    """The line of each macro's first `#define` in the unit, from one scan of its text."""
    found: dict[str, int] = {}
    for match, line in with_lines(_DEFINE.finditer(program.unit.text), program.unit.text):
        found.setdefault(match.group(1), line)
    return found


def _message(name: str | None, value: int) -> str:
    what = f"`{name}` = {value}" if name else f"the literal {value}"
    return (f"{what} equals a size of the reference's inputs: the code only works for that shape; read the "
            f"size from the tensor (`x.size(d)`, `x.numel()`) and pass it to the kernel")


def _python_literals(ctx: RuleContext, state, sizes: set[int]) -> Iterator[Finding]:
    flow = state.flow
    if flow is None:
        return
    seen: set[int] = set()
    for info in flow.functions:
        for node in pyast.walk(info.node):
            if isinstance(node, ast.Constant) and type(node.value) is int and node.value in sizes \
                    and node.lineno not in seen:
                seen.add(node.lineno)
                yield ctx.finding_at(node_location(ctx.document, node), _message(None, node.value))
