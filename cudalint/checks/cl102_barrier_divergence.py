"""CL102 barrier-divergence: a block barrier that some threads of the block may not reach.

A barrier after a thread-dependent exit is *latent* (reported, rejecting only under `--strict`) when every
launch of the kernel, evaluated at the reference problem's shapes, provably has no thread that takes the
exit (`if (i >= n) return;` with n a multiple of the block size)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from cudalint.analysis.barriers import sync_analysis
from cudalint.analysis.divergence import DivergentBarrier
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.bounds import graded_launches


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
            finding = ctx.finding(item.anchor, message, related=[(item.branch_span, item.branch_label)])
            if _never_exits_at_reference(ctx, analysis, function, item):
                finding = dataclasses.replace(finding, latent=True, message=message + (
                    "; latent: at the reference's shapes no thread of the launches takes that exit, so every "
                    "thread reaches the barrier there"))
            yield finding


def _never_exits_at_reference(ctx: RuleContext, analysis, function, item: DivergentBarrier) -> bool:
    """Whether, at the reference's shapes, no thread of any launch of the kernel takes the exit before the
    barrier: the divergence is real for other sizes but cannot happen where the harness grades."""
    if item.kind != "exit" or item.exit_stmt is None:
        return False
    exits = [n for n in analysis.cfg(function).nodes if n.stmt is item.exit_stmt]
    launches = graded_launches(ctx, function) if exits else None
    return bool(launches) and all(launch.reached_by_some_thread(node) is False
                                  for launch in launches for node in exits)
