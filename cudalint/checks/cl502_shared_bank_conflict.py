"""CL502 shared-bank-conflict (warning, opt-in): the active lanes of a warp access different words of one
shared-memory bank in one instruction (a column of a `[32][32]` float tile), which the hardware serves
one word at a time. Decided by evaluating the access's offsets lane by lane for the launch's block size
and the first iterations of the loops around it; the degree reported is the median over those."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.warp_lanes import WARP_SIZE, WarpLanes, element_bytes, flat_subscripts
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.model import ir

BANKS = 32
BANK_BYTES = 4
MIN_DEGREE = 4  # two-way conflicts are common and cheap; four words per bank and more cost real replays


@rule("CL502", "shared-bank-conflict", "warning",
      "a shared-memory access whose warp's lanes hit different words of one bank (a column of a [32][32] "
      "float tile): the access is replayed once per word", opt_in=True)
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    guards = GuardAnalysis.of(program)
    lanes = WarpLanes.of(program)
    for kernel in program.kernels:
        reported: set[int] = set()
        for access in guards.accesses(kernel):
            if access.space != "shared" or not isinstance(access.node, ir.Index) or access.line in reported:
                continue
            size = element_bytes(access.root.decl.element_type or access.root.type)
            parts = flat_subscripts(access)
            if size is None or parts is None:
                continue
            instructions = lanes.warp_offsets(kernel, access, parts)
            if instructions is None:
                continue
            # the typical instruction: a tree reduction's conflicts grow from step to step
            degree = sorted(conflict_degree(offsets, size) for offsets in instructions)[len(instructions) // 2]
            if degree < MIN_DEGREE:
                continue
            reported.add(access.line)
            yield ctx.finding(access.node.span, _message(access, degree))


def conflict_degree(offsets: list[int], size: int) -> int:
    """How many times a warp's access to these element offsets (one per active lane, in lane order) is
    replayed: the most distinct words any bank is asked for within one phase (a phase is the whole warp
    for elements of 4 bytes or less, half of it for 8-byte elements, a quarter for 16-byte ones)."""
    words_per_lane = max(1, size // BANK_BYTES)
    phase = WARP_SIZE // words_per_lane
    worst = 1
    for start in range(0, len(offsets), phase):
        banks: dict[int, set[int]] = {}
        for offset in offsets[start:start + phase]:
            first = offset * size // BANK_BYTES
            for word in range(first, first + words_per_lane):
                banks.setdefault(word % BANKS, set()).add(word)
        worst = max(worst, max(len(words) for words in banks.values()))
    return worst


def _message(access, degree: int) -> str:
    decl = access.root.decl
    shape = "".join(f"[{d}]" for d in decl.dims) if decl.dims and None not in decl.dims else "[]"
    verb = "write" if access.is_write else "read"
    hint = (f"pad the row (`{decl.name}{shape[:shape.rindex('[')]}[{decl.dims[-1] + 1}]`) or swizzle the index"
            if len(decl.dims) > 1 and None not in decl.dims else "change the stride between lanes to an odd number "
                                                                 "of words (pad) or swizzle the index")
    return (f"`{short_text(access.node.text)}`: the lanes of a warp {verb} {degree} different words of one bank of "
            f"`{decl.name}{shape}` at once: a {degree}-way bank conflict, served one word at a time; {hint}")
