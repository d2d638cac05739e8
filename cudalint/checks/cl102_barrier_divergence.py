"""CL102 barrier-divergence: a block barrier that some threads of the block may not reach."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.barriers import sync_analysis
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding


@rule("CL102", "barrier-divergence", "error",
      "__syncthreads() under a thread-dependent condition, after a thread-dependent exit, or in a loop "
      "with a thread-dependent trip count")
def check(ctx: RuleContext) -> Iterator[Finding]:
    analysis = sync_analysis(ctx.program)
    reported: set[tuple[int, int]] = set()
    for function in analysis.roots:
        for item in analysis.divergent_barriers(function):
            key = (item.anchor.line, item.anchor.column)
            if key in reported:
                continue
            reported.add(key)
            message = item.message(lambda span: ctx.location(span).line)
            yield ctx.finding(item.anchor, message, related=[(item.branch_span, item.branch_label)])
