"""CL210 uninitialized-shared-read: a read of a `__shared__` element that no thread of the block writes,
for the block size the kernel is launched with.

The analysis is `cudalint.analysis.shared_coverage`; this module words its findings."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.shared_coverage import UnwrittenRead, unwritten_reads
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.harness.shapes import kernel_env_at_reference, reached_launches_at_reference


@rule("CL210", "uninitialized-shared-read", "error",
      "a read of a shared-memory element that no thread of the launched block writes (a tree reduction wider "
      "than the threads that filled the array)")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    reported: set[tuple[int, int]] = set()
    found = [(read, "") for kernel in program.kernels for read in unwritten_reads(program, kernel)]
    # at the reference's shapes the size parameters have values: a read under `if (t + k < K)` is decided
    for shaped in reached_launches_at_reference(ctx):
        block = shaped.at_reference.block
        at_reference = kernel_env_at_reference(program, shaped)
        if block is None or None in block or at_reference is None:
            continue
        kernel, env = at_reference
        found += [(read, f" (at the reference's shapes: {shaped.shapes})")
                  for read in unwritten_reads(program, kernel, [(tuple(block), env)])]
    for read, where in found:
        span = read.access.node.span
        if span[:2] in reported:
            continue
        reported.add(span[:2])
        yield ctx.finding(span, _message(read) + where)


def _message(read: UnwrittenRead) -> str:
    name = read.array.decl.name
    dims = read.array.decl.dims
    size = dims[read.dimension]
    block = read.witness.block_shape()
    when = f" when {read.witness.describe()}" if read.witness.values else ""
    low, high = read.written
    if len(dims) == 1:
        return (f"`{short_text(read.access.node.text)}` reads `{name}[{read.witness.index}]`{when}, but with a "
                f"block of {block} threads no thread writes `{name}` outside [{low}, {high}] (of its {size} "
                f"elements): the value is whatever shared memory held before, so the result is garbage; start the "
                f"loop at the number of elements written (`blockDim.x / 2` for a reduction), or fill the rest of "
                f"the array first")
    shape = "".join(f"[{d}]" for d in dims)
    return (f"`{short_text(read.access.node.text)}` reads index {read.witness.index} of dimension "
            f"{read.dimension + 1} of `{name}{shape}`{when}, but with a block of {block} threads no thread writes "
            f"that dimension outside [{low}, {high}]: the tile is only partly filled, so the value is whatever "
            f"shared memory held before and the result is garbage; fill every element the loop reads (one load "
            f"per thread covers only as many columns as the block has threads: load the rest in a loop), or "
            f"size the tile to the block")
