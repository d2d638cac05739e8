"""CL301 shared-memory-oversize: more shared memory per block than the GPU allows."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.archs import STATIC_SHARED_LIMIT
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.shapes import launches_at_reference


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
        problem = _dynamic_problem(site, static_bytes.get(site.kernel_name, 0), program, ctx.arch)
        if problem:
            yield ctx.finding(site.node.span, problem)
    for shaped in launches_at_reference(ctx):
        static = static_bytes.get(shaped.site.kernel_name, 0)
        if _dynamic_problem(shaped.site, static, program, ctx.arch) is None:
            problem = _dynamic_problem(shaped.at_reference, static, program, ctx.arch)
            if problem:
                yield ctx.finding(shaped.site.node.span, f"{problem} (at the reference's input shapes: {shaped.shapes})")


def _dynamic_problem(site, static: int, program, arch) -> str | None:
    dynamic = site.shared_bytes
    if site.kernel is None or not dynamic:
        return None
    if static + dynamic > arch.max_shared_per_block:
        return (f"launch of `{site.kernel_name}` requests {_kb(dynamic)} dynamic + {_kb(static)} static shared "
                f"memory, over the {_kb(arch.max_shared_per_block)} per-block maximum of {arch.name}")
    if dynamic > STATIC_SHARED_LIMIT:
        opted = program.dynamic_smem_opt_in.get(site.kernel_name, 0)
        if site.kernel_name not in program.dynamic_smem_opt_in:
            return (f"launch of `{site.kernel_name}` requests {_kb(dynamic)} of dynamic shared memory, over 48 KB, "
                    f"without cudaFuncSetAttribute({site.kernel_name}, cudaFuncAttributeMaxDynamicSharedMemorySize, "
                    f"...): the launch fails")
        if opted is not None and opted < dynamic:
            return (f"launch of `{site.kernel_name}` requests {_kb(dynamic)} of dynamic shared memory, more than the "
                    f"{_kb(opted)} set with cudaFuncSetAttribute: the launch fails")
    return None
