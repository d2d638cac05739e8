"""CL203 shared-index-out-of-range: a `__shared__` array subscript that, for some thread of a block of
the size the kernel is launched with (or its `__launch_bounds__`), falls outside the array."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.ranges import RangeAnalysis
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.shapes import kernel_env_at_reference, reached_launches_at_reference
from cudalint.model import ir


@rule("CL203", "shared-index-out-of-range", "error",
      "a shared-memory subscript that exceeds the array's declared size for the block size of the launch")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    analysis = GuardAnalysis.of(program)
    ranges = RangeAnalysis.of(program)
    reported_lines: set[tuple[str, int]] = set()
    # the unit's own launches, then each launch at the reference's shapes (its block and the scalar
    # arguments the shapes decide: `sh[tid + offset]` with `offset` a size parameter is decided there)
    runs: list[tuple[ir.Function, tuple | None, str]] = [(kernel, None, "") for kernel in program.kernels]
    for shaped in reached_launches_at_reference(ctx):
        block = shaped.at_reference.block
        at_reference = kernel_env_at_reference(program, shaped)
        if block is not None and None not in block and at_reference is not None:
            runs.append((at_reference[0], (tuple(block), at_reference[1]),
                         f" (at the reference's shapes: {shaped.shapes})"))
    for kernel, launch, where in runs:
        if kernel.body is None:
            continue
        functions = [kernel] if launch is not None else program.reachable_functions(kernel)
        for function in functions:
            if function.body is None or not function.is_device_code:
                continue
            for access in analysis.accesses(function):
                if access.space != "shared" or access.root.decl is None or access.root.decl.extern:
                    continue
                key = (function.name, access.line)
                if key in reported_lines:
                    continue
                dims = access.root.decl.dims
                for dimension, size in enumerate(dims):
                    if size is None or dimension >= len(access.indices):
                        continue
                    witness = ranges.array_witness(kernel, function, access, dimension, size, launch)
                    if witness is None:
                        continue
                    reported_lines.add(key)
                    yield ctx.finding(access.node.span, _message(access, dimension, size, witness, len(dims)) + where)
                    break


def _message(access, dimension: int, size: int, witness, rank: int) -> str:
    name = access.root.name
    text = " ".join(access.node.text.split())
    where = f"subscript {dimension + 1} of " if rank > 1 else ""
    shape = "".join(f"[{d}]" for d in access.root.decl.dims)
    block = f" with a block of {witness.block_shape()} threads" if witness.block is not None else ""
    when = f" when {witness.describe()}" if witness.values else ""
    return (f"`{text}`: {where}`{name}{shape}` is indexed at {witness.index}{when}{block}, outside [0, {size}): "
            f"an out-of-bounds shared-memory access")
