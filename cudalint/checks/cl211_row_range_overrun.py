"""CL211 row-range-overrun: an access through an offset array's row range (`beg = P[x]`,
`end = P[x + 1]`, as in CSR graphs and sparse matrices) that can leave `[beg, end)`.

The analysis is `cudalint.analysis.row_ranges`; this module words its findings."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.row_ranges import RangeOverrun, row_range_overruns
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text


@rule("CL211", "row-range-overrun", "error",
      "an access through a CSR-style row range `[P[x], P[x+1])` that leaves it: a loop over the row that runs "
      "one step too far, or the row's first element read with nothing showing the row is not empty")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    reported: set[tuple[int, int]] = set()
    for function in program.functions:
        if function.space == "host":
            continue
        for overrun in row_range_overruns(program, function):
            span = overrun.access.span
            if span[:2] in reported:
                continue
            reported.add(span[:2])
            ends = f"the row ends at `{short_text(overrun.row.high.text)}`"
            yield ctx.finding(span, _message(ctx, overrun), related=[(overrun.row.high.span, ends)])


def _message(ctx: RuleContext, overrun: RangeOverrun) -> str:
    access = f"`{short_text(overrun.access.text)}`"
    low, high = f"`{short_text(overrun.row.low.text, 40)}`", f"`{short_text(overrun.row.high.text, 40)}`"
    row = f"the row [{low}, {high})"
    if overrun.kind == "loop":
        line = ctx.location(overrun.loop.span).line
        reach = "the row's end itself" if overrun.past == 0 else f"{overrun.past + 1} elements past the row"
        return (f"{access}: the loop (line {line}) over {row} reaches {reach} on its last iteration: that is the "
                f"next row's first element, and past the end of the array for the last row (an out-of-bounds "
                f"access); stop the loop below the row's end (`<`, not `<=`)")
    return (f"{access} reads an element of {row} with nothing showing the row is not empty: for an empty row "
            f"(`{short_text(overrun.row.low.text, 40)} == {short_text(overrun.row.high.text, 40)}`) it is the next "
            f"row's element, and past the end of the array when the last row is empty; check `beg < end` first "
            f"(or read it inside the loop over the row)")
