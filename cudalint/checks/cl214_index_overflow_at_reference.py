"""CL214 index-overflow-at-reference: index arithmetic in 32-bit `int` whose value passes 2^31 - 1 for a
thread the launch runs at the reference problem's shapes (CL205 reports the latent case).

The analysis is `cudalint.harness.index_overflow`; this module words its findings."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.harness.index_overflow import IndexOverflow, index_overflows


@rule("CL214", "index-overflow-at-reference", "error",
      "index arithmetic in 32-bit int that exceeds 2^31 - 1 at the reference problem's shapes")
def check(ctx: RuleContext) -> Iterator[Finding]:
    for overflow in index_overflows(ctx):
        yield ctx.finding(overflow.expr.span, _message(overflow),
                          related=[(overflow.shaped.site.node.span, "the launch")])


def _message(overflow: IndexOverflow) -> str:
    thread = ", ".join(f"{name} = {value}" for name, value in overflow.thread)
    return (f"`{short_text(overflow.expr.text)}` is computed in 32-bit `int` and reaches {overflow.value:,} "
            f"(past 2^31 - 1 = 2,147,483,647) at the reference's shapes ({overflow.shaped.shapes})"
            f"{f' for {thread}' if thread else ''}: the index wraps negative and the access lands outside "
            f"the tensor; compute it in 64 bits (`(int64_t)row * cols + col`, `int64_t` locals and sizes)")
