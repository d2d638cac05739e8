"""CL214 index-overflow-at-reference: index arithmetic in 32-bit `int` whose value passes 2^31 - 1 for a
thread the launch runs at the reference problem's shapes (CL205 reports the latent case), or host sizes
in 32-bit `int` that do at the launches the bound functions reach there.

The analyses are `cudalint.harness.index_overflow` and `cudalint.harness.host_overflow`; this module words
their findings."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.harness.host_overflow import HostOverflow, host_overflows
from cudalint.harness.index_overflow import IndexOverflow, index_overflows


@rule("CL214", "index-overflow-at-reference", "error",
      "index arithmetic in 32-bit int that exceeds 2^31 - 1 at the reference problem's shapes")
def check(ctx: RuleContext) -> Iterator[Finding]:
    for overflow in index_overflows(ctx):
        yield ctx.finding(overflow.expr.span, _message(overflow),
                          related=[(overflow.shaped.site.node.span, "the launch")])
    for host in host_overflows(ctx):
        yield ctx.finding(host.expr.span, _host_message(host), related=[(host.shaped.site.node.span, "the launch")])


def _message(overflow: IndexOverflow) -> str:
    thread = ", ".join(f"{name} = {value}" for name, value in overflow.thread)
    return (f"`{short_text(overflow.expr.text)}` is computed in 32-bit `int` and reaches {overflow.value:,} "
            f"(past 2^31 - 1 = 2,147,483,647) at the reference's shapes ({overflow.shaped.shapes})"
            f"{f' for {thread}' if thread else ''}: the index wraps negative and the access lands outside "
            f"the tensor; compute it in 64 bits (`(int64_t)row * cols + col`, `int64_t` locals and sizes)")


def _host_message(host: HostOverflow) -> str:
    return (f"`{short_text(host.expr.text)}` ({host.what}) is {host.value:,} at the reference's shapes "
            f"({host.shaped.shapes}), past 2^31 - 1 = 2,147,483,647: in 32-bit `int` it wraps to {host.wrapped:,}, "
            f"so the sizes, grid or guards computed from it are wrong; compute and pass it as `int64_t`")
