"""CL104 grid-sync-misuse: a grid barrier without a cooperative launch, or a spin loop waiting for other blocks."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.barriers import sync_analysis
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text


@rule("CL104", "grid-sync-misuse", "error",
      "grid.sync() in a kernel launched without cudaLaunchCooperativeKernel, or a spin loop on global memory "
      "that waits for other blocks")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    analysis = sync_analysis(program)
    reported: set[tuple[int, int]] = set()
    for function in analysis.roots:
        if not function.is_kernel:
            continue
        launches = program.launches_of(function.name)
        plain = [s for s in launches if not s.cooperative]
        if not plain:
            continue  # cooperative launches only, or no launch in this unit: nothing to say
        for node in analysis.grid_syncs(function):
            span = node.call.span if node.call is not None else node.span
            if (span.line, span.column) in reported:
                continue
            reported.add((span.line, span.column))
            line = ctx.location(plain[0].node.span).line
            yield ctx.finding(span,
                              f"`{short_text(node.call.text if node.call else 'grid.sync()')}` is a grid-wide barrier, "
                              f"but `{function.name}` is launched with <<<...>>> (line {line}), not with "
                              f"cudaLaunchCooperativeKernel: the grid barrier is invalid there and the kernel fails "
                              f"or hangs; launch it cooperatively (with a grid that fits on the GPU at once) or split "
                              f"the kernel at the barrier into two launches",
                              related=[(plain[0].node.span, "the non-cooperative launch")])
    for spin in analysis.spin_loops():
        span = spin.loop.span
        if (span.line, span.column) in reported:
            continue
        reported.add((span.line, span.column))
        yield ctx.finding(span,
                          f"spin loop waiting on global memory (`{short_text(spin.cond.text, 60)}`) that other blocks "
                          f"must write: blocks are not guaranteed to run at the same time or in any order, so a "
                          f"waiting block can starve the one it waits for and the grid deadlocks; use a cooperative "
                          f"launch with grid.sync(), or split the work into two kernel launches")
