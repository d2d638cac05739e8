"""CL501 uncoalesced-global-access (warning, opt-in): consecutive lanes of a warp address global memory a
row apart (the lane's thread index multiplies a row length, or indexes the slow dimension), so each
lane loads its own 32-byte sector where a coalesced access shares one sector among 8 lanes (4-byte
elements)."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.warp_lanes import WarpLanes, element_bytes
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.model import ir

SECTOR_BYTES = 32


@rule("CL501", "uncoalesced-global-access", "warning",
      "consecutive threads of a warp access global memory a row apart (the thread index multiplies a row "
      "length): every lane loads its own sector", opt_in=True)
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    guards = GuardAnalysis.of(program)
    lanes = WarpLanes.of(program)
    for kernel in program.kernels:
        reported: set[tuple[str, str]] = set()  # one finding per array and stride: the first access shows it
        for access in guards.accesses(kernel):
            if access.space not in ("param", "global") or not isinstance(access.node, (ir.Index, ir.Unary)):
                continue
            stride = lanes.lane_stride(kernel, access)
            if stride is None or (access.root.name, str(stride.coefficient)) in reported:
                continue
            size = element_bytes(access.root.type)
            if stride.value is not None:
                if abs(stride.value) * (size or 1) < SECTOR_BYTES:
                    continue
                apart = f"{abs(stride.value)} elements ({abs(stride.value) * size} bytes)" if size else \
                    f"{abs(stride.value)} elements"
            elif lanes.is_extent(kernel, stride.coefficient):
                apart = f"`{stride.coefficient}` elements"
            else:
                continue  # a runtime factor that bounds nothing (a convolution stride) may well be 1
            reported.add((access.root.name, str(stride.coefficient)))
            verb = "store to" if access.is_write else "load from"
            yield ctx.finding(access.node.span,
                              f"`{short_text(access.node.text)}`: consecutive threads (threadIdx.{stride.axis}) "
                              f"{verb} addresses {apart} apart, so each lane of a warp needs its own 32-byte "
                              f"sector (up to 32 per request instead of {_ideal(size)}); let threadIdx.{stride.axis} "
                              f"run along the contiguous dimension, or stage the tile through shared memory")


def _ideal(size: int | None) -> str:
    return str(max(1, 32 * size // SECTOR_BYTES)) if size else "a few"
