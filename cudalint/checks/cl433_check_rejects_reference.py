"""CL433 check-rejects-reference: a `TORCH_CHECK` of a bound C++ function that fails at the reference
problem's input shapes, on a path every call takes: the first forward raises before any kernel runs.

The analysis is `cudalint.harness.shapes.failed_checks_at_reference` (the function run on the arguments
forward passes at the reference's inputs); this module words its findings."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.harness.shapes import failed_checks_at_reference


@rule("CL433", "check-rejects-reference", "error",
      "a TORCH_CHECK of the C++ wrapper fails at the reference's input shapes (dimensions, divisibility, sizes): "
      "the first forward raises")
def check(ctx: RuleContext) -> Iterator[Finding]:
    for failed in failed_checks_at_reference(ctx):
        yield ctx.finding(failed.check.cond.span, (
            f"`{short_text(failed.check.cond.text, 80)}` fails at the reference's inputs ({failed.shapes}) on "
            f"every call of `{failed.function.name}`: the harness's first forward raises this error instead of "
            f"running the kernel; accept the shapes the problem gives (or handle the other case)"))
