"""CL431 aten-call-rejected (error): an ATen call in the C++ wrapper that torch raises for at the
reference's inputs: a convolution whose input has another number of channels than its weight expects
(a transposed convolution's weight read as `[out, in, ...]`), a bias of the wrong size, a `view` whose
sizes do not match the elements, a `linear` whose input and weight cannot be multiplied, a `group_norm` or
`layer_norm` whose groups, normalized shape or affine parameters do not fit the input.

The wrapper is evaluated as CL430 evaluates it (harness/output_shape.py): the arguments forward passes at
`get_init_inputs()` and `get_inputs()`, the C++ host code stepped through, torch's shape rules
(harness/torch_shapes.py) applied to each ATen call. Reported only when every shape the check needs is
known exactly, on the call. Only when the reference is known.
"""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.output_shape import complete_reading, input_shapes_text


@rule("CL431", "aten-call-rejected", "error",
      "an ATen call in the C++ wrapper gets arguments torch rejects at the reference's inputs (channels, bias "
      "size, view sizes): the first forward raises")
def check(ctx: RuleContext) -> Iterator[Finding]:
    read = complete_reading(ctx)
    if read is None:
        return
    problem, reading = read
    inputs = input_shapes_text(problem)
    for rejection in reading.rejections:
        origin = rejection.origin
        if origin.span is None or origin.unit is None:
            continue
        yield ctx.finding_at(ctx.location(origin.span, origin.unit), (
            f"at the reference's inputs ({inputs}), `{rejection.operation}` gets arguments torch rejects: "
            f"{rejection.reason}; forward raises a RuntimeError before any kernel runs (check the layout and "
            f"sizes the wrapper passes, e.g. a transposed convolution's weight is [in, out / groups, ...])"))
