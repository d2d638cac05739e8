"""CL901 compile-error: clang rejects the CUDA source, so nvcc will not build it either."""

from __future__ import annotations

import re
from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Edit, Finding, Fix
from cudalint.frontend.parse import header_declaring, namespaces_named
from cudalint.model.ir import Span

# Errors that an unknown header (parsed as empty) causes by itself; not reported when one is present.
_LOOKUP_ERRORS = re.compile(
    r"unknown type name|undeclared identifier|no member named|no type named|no matching|is not a template|"
    r"incomplete type|not a class|not a namespace|unknown template name|does not name a type|"
    r"expected (?:class name|namespace name)|no template named|cannot initialize|no viable|"
    # an unknown template read as comparisons (`cuda::std::tuple<int, float> t{...}`), its braces as a scalar's
    r"expected '\(' for function-style cast|excess elements in scalar initializer"
)


_UNKNOWN_NAME = re.compile(
    r"(?:use of undeclared identifier|unknown type name|no (?:member|type|template) named|unknown template name) "
    r"'(?P<name>\w+)'(?: in namespace '(?P<namespace>[\w:]+)')?")
# `namespace cg = cooperative_groups;`, `using namespace nvcuda;` without the header: the name is at the position
_NOT_A_NAMESPACE = re.compile(r"expected namespace name")
_QUALIFIED_NAME = re.compile(r"\w+(?:\s*::\s*\w+)*")


@rule("CL901", "compile-error", "error", "the CUDA source does not compile: clang reports an error")
def check(ctx: RuleContext) -> Iterator[Finding]:
    lowered = ctx.facts.lowered
    for diagnostic in lowered.diagnostics:
        if diagnostic.severity != "error" or not diagnostic.in_main_file:
            continue
        if lowered.unknown_headers and _LOOKUP_ERRORS.search(diagnostic.message):
            continue
        span = Span(diagnostic.line, diagnostic.column, diagnostic.line, diagnostic.column + 1)
        header = _missing_header(diagnostic.message, ctx.facts.unit.lines, diagnostic.line, diagnostic.column)
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


def _missing_header(message: str, lines: list[str], line: int, column: int) -> str | None:
    """The header to include for a name the message says is unknown, when one header declares it: the name as
    the source spells it at the error, from its longest qualified form (`cuda::barrier`, `nvcuda::wmma`) down to
    the unknown name itself, then as the message qualifies it (`at::cuda`)."""
    match = _UNKNOWN_NAME.search(message)
    if match is None and not _NOT_A_NAMESPACE.search(message):
        return None
    written = _name_at(lines, line, column)
    candidates = []
    if match is None:  # `expected namespace name`: the name written there is the unknown one
        first = 0
    else:
        name, namespace = match.group("name"), match.group("namespace")
        first = written.index(name) if name in written else None
        candidates.append(f"{namespace}::{name}" if namespace else name)
    if first is not None:
        candidates[:0] = ["::".join(written[:end]) for end in range(len(written), first, -1)]
    if first == 0 and written:
        # `wmma::fragment` after a failed `using namespace nvcuda;`: the one namespace of that name
        enclosing = namespaces_named(written[0])
        if len(enclosing) == 1:
            candidates += ["::".join([enclosing[0], *written[1:end]]) for end in range(len(written), 0, -1)]
    return next((header for header in map(header_declaring, candidates) if header is not None), None)


def _name_at(lines: list[str], line: int, column: int) -> list[str]:
    """The parts of the qualified name written at the 1-based (line, byte column) of the unit."""
    if not 0 < line <= len(lines):
        return []
    text = lines[line - 1]
    offset = len(text.encode("utf-8")[:max(column - 1, 0)].decode("utf-8", errors="ignore"))
    for found in _QUALIFIED_NAME.finditer(text):
        if found.start() <= offset < found.end():
            return [part.strip() for part in found.group().split("::")]
    return []
