"""CL503 undersized-block (warning, opt-in): a launch of many blocks whose block size caps the SM's
resident warps at half its maximum or less (blocks under 64 threads on sm_80/sm_90: the SM runs at most
32 blocks at once), or leaves an eighth or more of the lanes of its warps idle (a size that is not a
multiple of 32). A single-block launch is left alone: its problem is parallelism, not occupancy."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding

WARP = 32


@rule("CL503", "undersized-block", "warning",
      "a launch whose blocks are too small to fill an SM (fewer than 64 threads on sm_80/sm_90) or leave "
      "lanes of their warps idle (a size not a multiple of 32)", opt_in=True)
def check(ctx: RuleContext) -> Iterator[Finding]:
    arch = ctx.arch
    for site in ctx.program.launches:
        threads = site.threads_per_block
        if site.kernel is None or not threads or site.grid == (1, 1, 1):
            continue
        warps = -(-threads // WARP)
        resident = arch.resident_blocks(threads)
        resident_warps = resident * warps
        idle = warps * WARP - threads
        dims = list(site.block)
        while dims[-1] == 1 and len(dims) > 1:
            dims.pop()
        shape = "x".join(map(str, dims))
        threads_text = f"{shape} = {threads} threads" if len(dims) > 1 else \
            f"{threads} thread{'s' if threads > 1 else ''}"
        if 2 * resident_warps <= arch.max_warps_per_sm:
            yield ctx.finding(site.node.span,
                              f"blocks of {threads_text}: at most {resident} blocks fit on an SM of {arch.name}, "
                              f"{resident_warps} of its {arch.max_warps_per_sm} warps "
                              f"({100 * resident_warps // arch.max_warps_per_sm}% occupancy at best), too few "
                              f"to hide memory latency; use 128-256 threads per block")
        elif idle * 8 >= warps * WARP:
            yield ctx.finding(site.node.span,
                              f"blocks of {threads_text} fill {warps} warps with {idle} of their {warps * WARP} "
                              f"lanes idle; use a multiple of 32 threads per block")
