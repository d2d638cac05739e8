"""CL210 uninitialized-shared-read: a read of a `__shared__` element that no thread of the block writes,
for the block size the kernel is launched with.

The analysis is `cudalint.analysis.shared_coverage`; this module words its findings."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.shared_coverage import UnwrittenRead, unwritten_reads
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text


@rule("CL210", "uninitialized-shared-read", "error",
      "a read of a shared-memory element that no thread of the launched block writes (a tree reduction wider "
      "than the threads that filled the array)")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    reported: set[tuple[int, int]] = set()
    for kernel in program.kernels:
        for read in unwritten_reads(program, kernel):
            span = read.access.node.span
            if span[:2] in reported:
                continue
            reported.add(span[:2])
            yield ctx.finding(span, _message(read))


def _message(read: UnwrittenRead) -> str:
    name = read.array.decl.name
    size = read.array.decl.dims[0]
    x, y, z = read.witness.block
    block = f"{x}" + (f"x{y}" if y != 1 or z != 1 else "") + (f"x{z}" if z != 1 else "")
    when = f" when {read.witness.describe()}" if read.witness.values else ""
    low, high = read.written
    return (f"`{short_text(read.access.node.text)}` reads `{name}[{read.witness.index}]`{when}, but with a block "
            f"of {block} threads no thread writes `{name}` outside [{low}, {high}] (of its {size} elements): the "
            f"value is whatever shared memory held before, so the result is garbage; start the loop at the number "
            f"of elements written (`blockDim.x / 2` for a reduction), or fill the rest of the array first")
