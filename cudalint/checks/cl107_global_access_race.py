"""CL107 global-access-race: two threads access one global element at two places of the code, one of them a
plain write, with no barrier that orders them (`A[i] = A[i + 1]`, `out[i] = ...` then `out[i - 1]`).

The analysis is `SyncAnalysis.global_races` (the shared-memory pair analysis applied to global buffers);
this module words its findings. One store that many threads run is CL105's and CL106's."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.accesses import Race
from cudalint.analysis.barriers import sync_analysis
from cudalint.analysis.global_rmw import rmw_races
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.harness.bounds import launched_at_reference


def describe(race: Race, line_of=lambda span: span.line) -> tuple[str, str]:
    """The message of a race and the label of its earlier access."""
    first, second = race.first, race.second
    first_text, second_text = short_text(first.expr.text), short_text(second.expr.text)
    line = line_of(first.expr.span)
    if race.across_blocks:
        who, order = ("a thread of another block", "__syncthreads() orders the threads of one block only; "
                      "split the kernel in two launches (or use a grid-wide sync in a cooperative launch)")
    elif race.warp_only:
        who, order = ("another thread of the same warp", "since Volta the lanes of a warp are not in lockstep; "
                      "add __syncwarp() between them, or exchange the values with __shfl_sync")
    else:
        who, order = "another thread of the same block", "add __syncthreads() between them"
    if not second.writes:
        return (f"read `{second_text}` may see the global element that {who} writes with `{first_text}` "
                f"(line {line}), and nothing orders the two: the value read depends on timing; {order}",
                "the write")
    if not first.writes:
        return (f"write `{second_text}` may overwrite the global element that {who} reads with `{first_text}` "
                f"(line {line}), and nothing orders the two: the read may see the old or the new value; "
                f"{order}", "the read")
    return (f"write `{second_text}` and the write `{first_text}` (line {line}) of {who} may store different "
            f"values to the same global element, and nothing orders them: which value remains depends on "
            f"timing; {order}", "the other write")


@rule("CL107", "global-access-race", "error",
      "two threads access one global element at two places, one writing, with no barrier ordering them "
      "(`A[i] = A[i + 1]` across threads or blocks)")
def check(ctx: RuleContext) -> Iterator[Finding]:
    analysis = sync_analysis(ctx.program)
    # statements whose store CL105 or CL106 reports already: one finding per racy store
    reported = {race.store.span[:2] for race in rmw_races(ctx.program)}
    for function in analysis.roots:
        reported |= {race.store.span[:2] for race in analysis.global_store_races(function)}
    found = [(race, "") for function in analysis.roots for race in sorted(
        analysis.global_races(function), key=lambda r: (r.second.expr.span.line, r.second.expr.span.column))]
    # at the reference's shapes the block size and the sizes are known: a race the symbolic test left
    # undecided (an index or guard built on `blockIdx.x * blockDim.x`) is decided there
    for graded in launched_at_reference(ctx):
        found += [(race, f" (at the reference's shapes: {graded.shaped.shapes})") for race in sorted(
            graded.launched.global_races, key=lambda r: (r.second.expr.span.line, r.second.expr.span.column))]
    for race, where in found:
        stores = [a.node.expr.span[:2] for a in (race.first, race.second) if a.writes and a.node.expr is not None]
        span = race.second.expr.span
        if any(store in reported for store in stores) or span[:2] in reported:
            continue
        reported.add(span[:2])
        message, label = describe(race, lambda s: ctx.location(s).line)
        yield ctx.finding(span, message + where, related=[(race.first.expr.span, label)])
