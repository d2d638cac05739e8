"""CL209 flat-index-reused: a flat index decomposed in place (`idx /= W`) and then stored through as if
it still were the flat index, so the threads of one row of the output all write one element.

The analysis is `cudalint.analysis.index_reuse`; this module words its findings."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.index_reuse import ReusedIndex, reused_indices
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text


@rule("CL209", "flat-index-reused", "error",
      "a store through a flat index after `idx /= W` divided it in place: the threads of one output row all "
      "write one element and the rest is never written")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    reported: set[tuple[int, int]] = set()
    for function in program.functions:
        for reuse in reused_indices(program, function):
            span = reuse.store.span
            if span[:2] in reported:
                continue
            reported.add(span[:2])
            yield ctx.finding(span, _message(ctx, reuse),
                              related=[(reuse.last_step.span, f"`{reuse.variable.name}` is divided in place here")])


def _message(ctx: RuleContext, reuse: ReusedIndex) -> str:
    name = reuse.variable.name
    step = f"`{short_text(reuse.last_step.text, 40)}` (line {ctx.location(reuse.last_step.span).line})"
    store = f"`{short_text(reuse.store.text)}`"
    divisors = reuse.divisors
    if divisors:
        group = " * ".join(f"({d})" if " " in d else d for d in divisors)
        how = "divided it in place"
        state = f"it is now the flat index divided by {group}, the same for {group} consecutive threads"
        fraction = group if len(divisors) == 1 else f"({group})"
        unwritten = f"only the first 1/{fraction} of the output is ever written"
    else:
        how = "decomposed it in place"
        state = "it now has the same value in many threads"
        unwritten = "most of the output is never written"
    if reuse.read_modify_write:
        return (f"{store}: {step} {how}: {state}, and they all update that one element without an atomic: "
                f"updates are lost; use atomicAdd, or reduce first and let one thread store")
    dropped = f" (they differ in {', '.join(f'`{d}`' for d in reuse.dropped)})" if reuse.dropped else ""
    repair = f"store at `{reuse.copy_of}`, the flat index it copies" if reuse.copy_of else \
        f"decompose a copy (`int t = {name}; t /= ...`) and store at the flat index"
    return (f"{store} stores at `{name}` as if it were the flat index, but {step} {how}: {state}{dropped}, "
            f"which store different values to one element (the last one wins), and {unwritten}; {repair}")
