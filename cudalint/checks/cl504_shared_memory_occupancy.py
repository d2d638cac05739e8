"""CL504 shared-memory-occupancy (info, opt-in): a launch whose shared memory per block (static arrays
plus a constant dynamic request) lets so few blocks reside on an SM of the target architecture that a
quarter of its warps or fewer can run, fewer than the block size alone would allow."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding


@rule("CL504", "shared-memory-occupancy", "info",
      "a launch whose shared memory per block leaves room for so few resident blocks that at most a quarter "
      "of the SM's warps can run", opt_in=True)
def check(ctx: RuleContext) -> Iterator[Finding]:
    program, arch = ctx.program, ctx.arch
    for site in program.launches:
        threads = site.threads_per_block
        if site.kernel is None or not threads or site.shared_bytes is None:
            continue
        arrays = [a for a in program.shared_arrays_of(site.kernel) if not a.dynamic]
        if any(a.size_bytes is None for a in arrays):
            continue
        static = sum(a.size_bytes for a in arrays)  # type: ignore[misc]
        total = static + site.shared_bytes
        if not total:
            continue
        by_threads = arch.resident_blocks(threads)
        resident = arch.resident_blocks(threads, total)
        warps = resident * -(-threads // 32)
        if resident >= by_threads or 4 * warps > arch.max_warps_per_sm:
            continue
        related = [(a.decl.span, f"`{a.decl.name}`: {a.size_bytes} bytes")
                   for a in sorted(arrays, key=lambda a: -a.size_bytes)[:2]]  # type: ignore[operator]
        yield ctx.finding(site.node.span,
                          f"{_kb(total)} of shared memory per block lets {resident} block"
                          f"{'s' if resident != 1 else ''} of {threads} threads reside on an SM of {arch.name} "
                          f"({_kb(arch.shared_per_sm)}), {warps} of its {arch.max_warps_per_sm} warps; the block "
                          f"size alone allows {by_threads}: shrink the tiles, or keep the data in registers",
                          related)


def _kb(size: int) -> str:
    return f"{size / 1024:g} KB"
