"""CL301 shared-memory-oversize: more shared memory per block than the GPU allows."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.archs import STATIC_SHARED_LIMIT
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding


def _kb(size: int) -> str:
    return f"{size / 1024:g} KB" if size % 1024 == 0 else f"{size} bytes ({size / 1024:.1f} KB)"


@rule("CL301", "shared-memory-oversize", "error",
      "a kernel's shared memory exceeds the static 48 KB limit or the architecture's per-block maximum")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    static_bytes: dict[str, int] = {}
    for kernel in program.kernels:
        total = 0
        reported = False
        for array in sorted(program.shared_arrays_of(kernel), key=lambda a: (a.decl.span.line, a.decl.span.column)):
            size = array.size_bytes
            if size is None:
                continue
            total += size
            if total > STATIC_SHARED_LIMIT and not reported:
                reported = True
                detail = (f"`{array.decl.name}` alone is {_kb(size)}" if size == total
                          else f"`{array.decl.name}` ({_kb(size)}) brings the total to {_kb(total)}")
                yield ctx.finding(array.decl.span,
                                  f"static shared memory of kernel `{kernel.name}` exceeds the 48 KB limit: {detail}; "
                                  f"use dynamic shared memory with cudaFuncSetAttribute for more")
        static_bytes[kernel.name] = total
    for site in program.launches:
        dynamic = site.shared_bytes
        if site.kernel is None or not dynamic:
            continue
        static = static_bytes.get(site.kernel_name, 0)
        if static + dynamic > ctx.arch.max_shared_per_block:
            yield ctx.finding(site.node.span,
                              f"launch of `{site.kernel_name}` requests {_kb(dynamic)} dynamic + {_kb(static)} static "
                              f"shared memory, over the {_kb(ctx.arch.max_shared_per_block)} per-block maximum "
                              f"of {ctx.arch.name}")
            continue
        if dynamic > STATIC_SHARED_LIMIT:
            opted = program.dynamic_smem_opt_in.get(site.kernel_name, 0)
            if site.kernel_name not in program.dynamic_smem_opt_in:
                yield ctx.finding(site.node.span,
                                  f"launch of `{site.kernel_name}` requests {_kb(dynamic)} of dynamic shared memory, "
                                  f"over 48 KB, without cudaFuncSetAttribute({site.kernel_name}, "
                                  f"cudaFuncAttributeMaxDynamicSharedMemorySize, ...): the launch fails")
            elif opted is not None and opted < dynamic:
                yield ctx.finding(site.node.span,
                                  f"launch of `{site.kernel_name}` requests {_kb(dynamic)} of dynamic shared memory, "
                                  f"more than the {_kb(opted)} set with cudaFuncSetAttribute: the launch fails")
