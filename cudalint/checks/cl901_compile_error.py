"""CL901 compile-error: clang rejects the CUDA source, so nvcc will not build it either."""

from __future__ import annotations

import re
from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.model.ir import Span

# Errors that an unknown header (parsed as empty) causes by itself; not reported when one is present.
_LOOKUP_ERRORS = re.compile(
    r"unknown type name|undeclared identifier|no member named|no type named|no matching|is not a template|"
    r"incomplete type|not a class|not a namespace|unknown template name|does not name a type|"
    r"expected (?:class name|namespace name)|no template named|cannot initialize|no viable"
)


@rule("CL901", "compile-error", "error", "the CUDA source does not compile: clang reports an error")
def check(ctx: RuleContext) -> Iterator[Finding]:
    lowered = ctx.facts.lowered
    for diagnostic in lowered.diagnostics:
        if diagnostic.severity != "error" or not diagnostic.in_main_file:
            continue
        if lowered.unknown_headers and _LOOKUP_ERRORS.search(diagnostic.message):
            continue
        span = Span(diagnostic.line, diagnostic.column, diagnostic.line, diagnostic.column + 1)
        yield ctx.finding(span, diagnostic.message)
