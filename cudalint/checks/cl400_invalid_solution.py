"""CL400 invalid-solution: a Python kernel file that cannot even be imported."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, Location


@rule("CL400", "invalid-solution", "error",
      "the Python file does not parse, so the harness cannot load it", scope="document")
def check(ctx: RuleContext) -> Iterator[Finding]:
    error = ctx.document.python_syntax_error
    if error is None:
        return
    line = error.lineno or 1
    column = error.offset or 1
    yield ctx.finding_at(Location(ctx.document.path, line, column, line, column + 1),
                         f"Python syntax error: {error.msg}; the file cannot be imported")
