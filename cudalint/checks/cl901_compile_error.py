"""CL901 compile-error: clang rejects the CUDA source, so nvcc will not build it either."""

from __future__ import annotations

import re
from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Edit, Finding, Fix
from cudalint.frontend.parse import header_declaring
from cudalint.model.ir import Span

# Errors that an unknown header (parsed as empty) causes by itself; not reported when one is present.
_LOOKUP_ERRORS = re.compile(
    r"unknown type name|undeclared identifier|no member named|no type named|no matching|is not a template|"
    r"incomplete type|not a class|not a namespace|unknown template name|does not name a type|"
    r"expected (?:class name|namespace name)|no template named|cannot initialize|no viable"
)


_UNKNOWN_NAME = re.compile(
    r"(?:use of undeclared identifier|unknown type name|no (?:member|type|template) named) '(?P<name>\w+)'"
    r"(?: in namespace '(?P<namespace>[\w:]+)')?")


@rule("CL901", "compile-error", "error", "the CUDA source does not compile: clang reports an error")
def check(ctx: RuleContext) -> Iterator[Finding]:
    lowered = ctx.facts.lowered
    for diagnostic in lowered.diagnostics:
        if diagnostic.severity != "error" or not diagnostic.in_main_file:
            continue
        if lowered.unknown_headers and _LOOKUP_ERRORS.search(diagnostic.message):
            continue
        span = Span(diagnostic.line, diagnostic.column, diagnostic.line, diagnostic.column + 1)
        header = _missing_header(diagnostic.message)
        if header is None:
            yield ctx.finding(span, diagnostic.message)
            continue
        start = ctx.location(Span(1, 1, 1, 1))
        fix = Fix(f"add `#include <{header}>`", (Edit(start.line, start.column, start.line, start.column,
                                                      f"#include <{header}>\n"),))
        why = (" (load_inline puts only <torch/types.h> before CUDA sources and <torch/extension.h> before C++ "
               "ones, and neither includes it)") if ctx.facts.unit.origin == "load_inline" else ""
        yield ctx.finding(span, (f"{diagnostic.message}: it is declared in <{header}>, which this source does not "
                                 f"include{why}; add `#include <{header}>`"), fix=fix)


def _missing_header(message: str) -> str | None:
    """The header to include for a name the message says is unknown, when only that header declares it
    (a CUDA-side torch API: streams, guards, CUDA error checks)."""
    match = _UNKNOWN_NAME.search(message)
    if match is None:
        return None
    namespace = match.group("namespace")
    if namespace is not None and namespace not in ("c10::cuda", "at::cuda", "c10", "at", "torch"):
        return None
    return header_declaring(match.group("name"))
