"""CL430 output-shape-mismatch (error): ModelNew's forward returns a tensor whose shape differs from the
reference's output at the reference's inputs, so the harness rejects it before comparing a value.

Both forwards are read statically at `get_init_inputs()` and `get_inputs()` (harness/output_shape.py):
the reference's torch layers and functions by torch's shape rules, the solution's Python the same way
and its compiled functions through their C++ (the allocation a wrapper returns, `torch::empty({N, C, H,
W}, ...)` with its sizes evaluated, or the ATen call it returns). Reported only when both shapes are
known exactly, on the line that makes the solution's output shape (the allocation, or the Python call),
else on forward's line.

Only when the reference is known: `--reference`, `--problems` with a run file, or the file's own
`class Model` next to its `get_inputs`.

Evidence: when the dry run (cudalint/dryrun/) completed, the shapes it observed decide: the reference's
output and ModelNew's in the first call whose every compiled function returned a modelled shape (the
extension model computed it from the C++ host code); reported on the line that made the output. A call
that used a function whose result shape the model does not know never decides; when no call does, or the
dry run did not complete, the static reading reports.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import state_of
from cudalint.harness.output_shape import Output, complete_reading, input_shapes_text, shape_text
from cudalint.harness.statements import line_location, node_location


@rule("CL430", "output-shape-mismatch", "error",
      "ModelNew's output shape differs from the reference's at the reference's inputs (a wrong output-size "
      "formula, a dropped or kept dimension): the harness rejects it")
def check(ctx: RuleContext) -> Iterator[Finding]:
    observed = ctx.observed.observed_output_shape() if ctx.observed is not None else None
    if observed is not None:
        if ctx.facts.unit is ctx.document.units[-1]:  # once per document
            yield from _observed(ctx, *observed)
        return
    yield from _static(ctx, complete_reading(ctx))


def _static(ctx: RuleContext, read) -> Iterator[Finding]:
    if read is None:
        return
    problem, reading = read
    mine, expected = reading.output, problem.output
    if expected is None or mine is None or mine.shape == expected.shape:
        return
    yield ctx.finding_at(_location(ctx, mine, state_of(ctx.document).solution), (
        f"ModelNew returns a tensor of shape {shape_text(mine.shape)} where the reference returns "
        f"{shape_text(expected.shape)} (at the reference's inputs {input_shapes_text(problem)}): the harness "
        f"compares shapes first and rejects the output; compute the output size as the reference's layers do "
        f"(padding, stride, kernel size, kept or reduced dimensions)"))


def _observed(ctx: RuleContext, mine: list[int], theirs: list[int], call: dict) -> Iterator[Finding]:
    if mine == theirs:
        return
    read = complete_reading(ctx)
    solution = state_of(ctx.document).solution
    if read is not None and read[1].output is not None and read[0].output is not None \
            and (list(read[1].output.shape), list(read[0].output.shape)) == (mine, theirs):
        yield from _static(ctx, read)  # both readings agree: the static one places it on the allocation
        return
    made = call.get("output_made") or {}
    forward = solution.method(solution.model_new, "forward") if solution and solution.model_new else None
    line = made.get("allocation") or made.get("line") or (forward.lineno if forward is not None else 1)
    by = f" by `{made['function']}`" if made.get("function") else ""
    where = f"made at line {made['line']}{by}" if made.get("line") else "as it returned it"
    if made.get("allocation"):
        where += f", which returns the allocation at line {made['allocation']}"
    yield ctx.finding_at(line_location(ctx.document, line), (
        f"in the dry run (the reference's inputs, the compiled functions replaced by their model), ModelNew's "
        f"forward returned a tensor of shape {shape_text(tuple(mine))} ({where}) where the reference returns "
        f"{shape_text(tuple(theirs))}: the harness compares shapes first and rejects the output; compute the "
        f"output size as the reference's layers do (padding, stride, kernel size, kept or reduced dimensions)"))


def _location(ctx: RuleContext, output: Output, solution):
    origin = output.origin
    if origin is not None and origin.span is not None and origin.unit is not None:
        return ctx.location(origin.span, origin.unit)
    if origin is not None and isinstance(origin.node, ast.AST) and hasattr(origin.node, "lineno"):
        return node_location(ctx.document, origin.node)
    forward = solution.method(solution.model_new, "forward")
    return line_location(ctx.document, forward.lineno if forward is not None else 1)
