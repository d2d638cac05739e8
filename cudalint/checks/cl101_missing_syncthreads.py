"""CL101 missing-syncthreads: two threads touch one shared element, one writing, with no barrier between."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.accesses import ATOMIC, READ, UPDATE, Race
from cudalint.analysis.barriers import sync_analysis
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Edit, Finding, Fix, short_text
from cudalint.harness.bounds import launched_at_reference
from cudalint.model import ir


def _what(mode: str) -> str:
    return {READ: "read", ATOMIC: "atomic update"}.get(mode, "write")


def describe(race: Race, line_of=lambda span: span.line) -> tuple[str, str]:
    """The message of a race and the label of its earlier access."""
    first, second = race.first, race.second
    array = f"`{second.name}`"
    first_text = short_text(first.expr.text)
    second_text = short_text(second.expr.text)
    line = line_of(first.expr.span)
    if first is second:
        return (f"`{second_text}` is a read-modify-write of one element of {array} that several threads of the "
                f"block make at once: updates are lost; use an atomic (atomicAdd) or a reduction", "the update")
    if not second.writes:
        return (f"read `{second_text}` may see shared memory that another thread writes with `{first_text}` "
                f"(line {line}) and no __syncthreads() separates them on some path; add __syncthreads() between "
                f"the write and the read", "the " + _what(first.mode))
    if not first.writes:
        return (f"write `{second_text}` may overwrite {array} while another thread still reads it with "
                f"`{first_text}` (line {line}); add __syncthreads() after the last read and before this write",
                "the read")
    return (f"write `{second_text}` and `{first_text}` (line {line}) may touch the same element of {array} "
            f"from two threads with no __syncthreads() between them", "the " + _what(first.mode))


@rule("CL101", "missing-syncthreads", "error",
      "a shared-memory write and another thread's access of the same element with no barrier between them")
def check(ctx: RuleContext) -> Iterator[Finding]:
    analysis = sync_analysis(ctx.program)
    reported: set[tuple[int, int]] = set()
    partners: set[int] = set()  # one finding per unsynchronized earlier access: one missing barrier, one finding
    for function in analysis.roots:
        yield from _report(ctx, analysis.races(function), reported, partners, "")
    # at the reference's shapes the block size is known: an index or guard built on `blockIdx.x * blockDim.x`
    # becomes linear there, and a race the symbolic test left undecided is decided
    for graded in launched_at_reference(ctx):
        yield from _report(ctx, graded.launched.races, reported, partners,
                           f" (at the reference's shapes: {graded.shaped.shapes}; block "
                           f"{_dims(graded.shaped.at_reference.block)}, grid {_dims(graded.shaped.at_reference.grid)})")


def _report(ctx: RuleContext, races: list[Race], reported: set[tuple[int, int]], partners: set[tuple[int, int]],
            where: str) -> Iterator[Finding]:
    for race in sorted(races, key=lambda r: (r.second.expr.span.line, r.second.expr.span.column)):
        if race.warp_only:
            continue
        if race.first is race.second and race.second.mode != UPDATE:
            continue  # one store run by many threads: an indexing question, not a missing barrier
        span = race.second.expr.span
        key = (span.line, span.column)
        statement = race.second.node.span
        first = (race.first.expr.span.line, race.first.expr.span.column)
        if key in reported or (statement.line, -statement.column) in reported or first in partners:
            continue
        if race.first is not race.second:
            partners.add(first)
        reported.add(key)
        reported.add((statement.line, -statement.column))
        message, label = describe(race, lambda s: ctx.location(s).line)
        related = [] if race.first is race.second else [(race.first.expr.span, label)]
        yield ctx.finding(span, message + where, related=related, fix=_barrier_fix(ctx, race.second.node.span))


def _dims(values) -> str:
    return "(" + ", ".join(str(v) for v in values) + ")"


def _barrier_fix(ctx: RuleContext, statement: ir.Span) -> Fix | None:
    """A `__syncthreads();` on its own line before the statement of the second access. The fix is kept
    only when the re-lint shows the race gone and no new finding (a barrier that lands under a
    thread-dependent branch would be CL102), so the placement can stay simple."""
    line = ctx.location(statement).line
    lines = ctx.document.lines
    if not 0 < line <= len(lines):
        return None
    text = lines[line - 1]
    indent = text[: len(text) - len(text.lstrip())]
    return Fix("insert __syncthreads() before the second access",
               (Edit(line, 1, line, 1, f"{indent}__syncthreads();\n"),))
