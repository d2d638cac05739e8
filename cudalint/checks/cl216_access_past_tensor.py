"""CL216 access-past-tensor: at the reference problem's shapes, some thread of a launch reads or writes a
tensor past its last element.

The analysis is `cudalint.harness.bounds` (the launch's whole thread space, as linear constraints with the
launch's sizes pinned); this module words its findings."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.accesses import READ
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.harness.bounds import AccessPastTensor, accesses_past_tensors


@rule("CL216", "access-past-tensor", "error",
      "at the reference's shapes a thread of the launch reads or writes a tensor past its last element")
def check(ctx: RuleContext) -> Iterator[Finding]:
    for past in accesses_past_tensors(ctx):
        yield ctx.finding(past.access.expr.span, _message(past),
                          related=[(past.shaped.site.node.span, "the launch")])


def _message(past: AccessPastTensor) -> str:
    verb = "reads" if past.access.mode == READ else "writes"
    thread, block = (_triple(t) for t in (past.past.thread, past.past.block))
    return (f"at the reference's shapes ({past.shaped.shapes}) thread {thread} of block {block} of this launch "
            f"of `{past.kernel.name}` {verb} `{past.access.name}[{past.past.element}]`, past the "
            f"{past.elements:,} elements of `{short_text(past.tensor, 40)}`: an illegal address or another "
            f"tensor's data (`{short_text(past.access.expr.text, 50)}`)")


def _triple(values: tuple[int, int, int]) -> str:
    return f"({values[0]}, {values[1]}, {values[2]})"
