"""CL302 invalid-launch-config: a launch configuration the hardware rejects."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.archs import MAX_BLOCK_DIMS, MAX_GRID_X, MAX_GRID_YZ, MAX_THREADS_PER_BLOCK
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.shapes import launches_at_reference

_GRID_DIM_LIMITS = (MAX_GRID_X, MAX_GRID_YZ, MAX_GRID_YZ)


@rule("CL302", "invalid-launch-config", "error",
      "a launch whose block or grid dimensions the GPU rejects, or whose block exceeds __launch_bounds__")
def check(ctx: RuleContext) -> Iterator[Finding]:
    for site in ctx.program.launches:
        problems = list(_problems(site))
        if problems:
            yield ctx.finding(site.node.span, f"launch of `{site.kernel_name}` cannot run: {'; '.join(problems)}")
    for shaped in launches_at_reference(ctx):
        if not any(_problems(shaped.site)):
            problems = list(_problems(shaped.at_reference))
            if problems:
                yield ctx.finding(shaped.site.node.span, (
                    f"launch of `{shaped.site.kernel_name}` cannot run at the reference's input shapes "
                    f"({shaped.shapes}): {'; '.join(problems)}"))


def _problems(site) -> Iterator[str]:
    block, grid = site.block, site.grid
    if block is not None:
        for axis, size, limit in zip("xyz", block, MAX_BLOCK_DIMS):
            if size is not None and size <= 0:
                yield f"block dimension {axis} is {size}"
            elif size is not None and size > limit:
                yield f"block dimension {axis} is {size}, over the limit of {limit}"
        threads = site.threads_per_block
        if threads is not None and threads > MAX_THREADS_PER_BLOCK:
            yield f"{threads} threads per block, over the limit of {MAX_THREADS_PER_BLOCK}"
        bound = site.kernel.max_threads_per_block if site.kernel is not None else None
        if threads is not None and bound is not None and 0 < threads <= MAX_THREADS_PER_BLOCK and threads > bound:
            yield f"{threads} threads per block, over the kernel's __launch_bounds__({bound})"
    if grid is not None:
        for axis, size, limit in zip("xyz", grid, _GRID_DIM_LIMITS):
            if size is not None and size <= 0:
                yield f"grid dimension {axis} is {size}"
            elif size is not None and size > limit:
                yield f"grid dimension {axis} is {size}, over the limit of {limit}"
