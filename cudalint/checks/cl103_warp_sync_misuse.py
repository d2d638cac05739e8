"""CL103 warp-sync-misuse: legacy warp intrinsics, full masks with inactive lanes, implicit warp lockstep."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.barriers import sync_analysis
from cudalint.analysis.divergence import LEGACY_WARP_INTRINSICS
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Edit, Finding, Fix, short_text
from cudalint.model import ir


@rule("CL103", "warp-sync-misuse", "error",
      "a legacy warp intrinsic without _sync, a full mask where some lanes are inactive, or warp-synchronous "
      "shared-memory code without __syncwarp")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    analysis = sync_analysis(program)
    reported: set[tuple[int, int]] = set()

    def once(span: ir.Span) -> bool:
        key = (span.line, span.column)
        if key in reported:
            return False
        reported.add(key)
        return True

    # legacy intrinsics: removed for sm_70+, implicitly warp-synchronous
    for function in program.functions:
        if function.body is None or not function.is_device_code:
            continue
        for node in function.of_type(ir.Call):
            if node.receiver is None and node.callee in LEGACY_WARP_INTRINSICS and once(node.span):
                replacement = LEGACY_WARP_INTRINSICS[node.callee]
                yield ctx.finding(node.span,
                                  f"`{node.callee}` is the legacy warp intrinsic without a mask: it assumes the warp "
                                  f"runs in lockstep, which Volta and later GPUs do not guarantee, and it is not "
                                  f"available for sm_70+; use `{replacement}(0xffffffff, ...)` with the mask of the "
                                  f"lanes that take part", fix=_sync_variant_fix(ctx, node, replacement))

    for function in analysis.roots:
        # a full mask under a condition that splits a warp
        for item in analysis.partial_warp_calls(function):
            if not once(item.call.span):
                continue
            cond = short_text(item.guard.cond.text, 60)
            line = ctx.location(item.guard.cond.span).line
            yield ctx.finding(item.call.span,
                              f"`{item.call.callee}` names all 32 lanes in its mask, but it runs only where `{cond}` "
                              f"(line {line}) {'holds' if item.guard.positive else 'fails'}, which some lanes of a "
                              f"warp do not: the result is undefined (or the warp hangs); call it where every lane "
                              f"of the warp arrives, or pass the mask of the active lanes",
                              related=[(item.guard.cond.span, "the condition that splits the warp")])
        # warp-synchronous shared memory without __syncwarp: one finding per array and function
        seen_arrays: set[tuple] = set()
        races = sorted((r for r in analysis.races(function) if r.warp_only),
                       key=lambda r: (r.second.expr.span.line, r.second.expr.span.column))
        for race in races:
            key = (race.second.key, id(race.second.node.scope.function))
            if key in seen_arrays:
                continue
            seen_arrays.add(key)
            span = race.second.expr.span
            if not once(span):
                continue
            other = short_text(race.first.expr.text)
            line = ctx.location(race.first.expr.span).line
            qualifier = "volatile " if race.first.volatile or race.second.volatile else ""
            yield ctx.finding(span,
                              f"warp-synchronous {qualifier}shared memory: `{short_text(race.second.expr.text)}` and "
                              f"`{other}` (line {line}) are made by different lanes of one warp with nothing "
                              f"ordering them; since Volta the lanes of a warp do not run in lockstep, so this is a "
                              f"race: put __syncwarp() between the steps, or use __shfl_down_sync",
                              related=[(race.first.expr.span, "the other lane's access")])


def _sync_variant_fix(ctx: RuleContext, call: ir.Call, replacement: str) -> Fix | None:
    """`__shfl_down(v, 1)` -> `__shfl_down_sync(0xffffffff, v, 1)`. Unsafe: the full mask is right only
    where every lane of the warp makes the call (the checker reports the cases it can see)."""
    head = call.text.split("(", 1)[0]
    if "\n" in head or not call.text.startswith(call.callee):
        return None
    start = ctx.location(call.span)
    end_column = start.column + len(head) + 1  # through the opening parenthesis
    return Fix(f"use `{replacement}` with a full-warp mask",
               (Edit(start.line, start.column, start.line, end_column, f"{replacement}(0xffffffff, "),), safe=False)
