"""CL903 unknown-header: an include cudalint has no model of; analysis goes on without it."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.model.ir import Span


@rule("CL903", "unknown-header", "info",
      "an included header cudalint does not model: parsed as empty, compile checks that need it are skipped")
def check(ctx: RuleContext) -> Iterator[Finding]:
    for header, line in ctx.facts.lowered.unknown_headers:
        text_line = ctx.facts.unit.lines[line - 1]
        column = text_line.find(header) + 1 or 1
        yield ctx.finding(Span(line, column, line, column + len(header)),
                          f"header <{header}> is not known to cudalint and not found next to the file or in the "
                          f"include directories (-I); it is treated as empty, and errors that depend on its "
                          f"declarations are not reported")
