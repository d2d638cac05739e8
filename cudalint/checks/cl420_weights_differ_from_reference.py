"""CL420 weights-differ-from-reference (error): ModelNew's constructor draws its initial weights from
the random stream unlike the reference's `Model`, so under the harness's common seed its weights, and
its output, differ from the reference's whatever the kernel computes.

KernelBench's harness seeds the RNG, builds `Model(*get_init_inputs())`, seeds it again and builds
`ModelNew(*get_init_inputs())`. The draws of both constructors are listed in order (see
cudalint/harness/init_order.py: each nn layer's default init, `torch.randn/rand/...`, `nn.init.*_`,
`Tensor.uniform_/normal_`, with shapes and bounds evaluated at `get_init_inputs()`), and the first draw
both sides know that differs in distribution, bounds, shape, dtype or device is reported on
ModelNew's line, naming the reference's draw it should match.

Only when the reference is known: `LintOptions.reference` or a problems directory with a run file
(the file's own `class Model` is the reference when it defines one next to `get_init_inputs`, as in a
self-contained example). Silent when a constructor cannot be followed up to the difference (dynamic
code, sizes not computable), and on trailing extra or missing draws (an unused parameter created last,
a bias dropped before a BatchNorm that cancels it).

Evidence: when the dry run (cudalint/dryrun/) completed and built both models as the harness does
(same seed, CPU, no random draw on a cuda device), what it observed decides, not the static reading:
the draws each constructor made from the random stream (op, shape, dtype, bounds; nn.init and the
layers' own inits end in these) and the values of every parameter, buffer and tensor attribute. Reported
when the draws differ before either list ends and some randomly initialised tensor of the reference
has its values nowhere in ModelNew, on the line of ModelNew's differing draw. Trailing extra or missing
draws, weights folded or rearranged after the same draws (a BatchNorm folded into a convolution), and a
ModelNew that holds every random tensor of the reference are no proof. When the dry run did not
complete, the static comparison of draws reports.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import reference_of, state_of
from cudalint.harness.init_order import first_difference, init_draws, reference_init, reference_init_of_module
from cudalint.harness.statements import line_location


@rule("CL420", "weights-differ-from-reference", "error",
      "ModelNew draws its initial weights unlike the reference's Model (another init, order or shape): "
      "under the harness's common seed its weights, and output, differ", scope="document")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state = state_of(ctx.document)
    solution = state.solution
    observed = ctx.observed
    if solution is not None and observed is not None and observed.weights_observed():
        yield from _observed(ctx, solution, observed)
        return
    if solution is None or not solution.is_kernelbench or solution.model_new is None:
        return
    reference = reference_of(ctx)
    if reference is None:
        return
    module = ctx.document.python_module
    if os.path.abspath(reference.path) == os.path.abspath(ctx.document.path):
        if "Model" not in solution.classes:
            return
        known = reference_init_of_module(module, ctx.document.path)
        where = "line"
    else:
        known = reference_init(reference.path)
        where = os.path.basename(reference.path) + ":"
    if known is None or not known.draws.draws:
        return
    solution_draws = init_draws(module, "ModelNew", known.args, solution.imports)
    if solution_draws is None:
        return
    index = first_difference(known.draws, solution_draws)
    if index is None:
        return
    mine, theirs = solution_draws.draws[index], known.draws.draws[index]
    place = f"line {theirs.line}" if where == "line" else f"{where}{theirs.line}"
    yield ctx.finding_at(line_location(ctx.document, mine.line), (
        f"ModelNew's {_ordinal(index + 1)} random draw, {_what(mine.what)} ({mine.describe()}), is not the "
        f"reference's: {_what(theirs.what)} ({place}) draws {theirs.describe()}. The harness seeds the RNG the "
        f"same way before building Model and ModelNew, so this parameter and every one created after it "
        f"get other values and the output differs whatever the kernel computes; create the reference's "
        f"nn layers in the same order (and read their .weight/.bias), or reproduce their init exactly"))


def _observed(ctx: RuleContext, solution, observed) -> Iterator[Finding]:
    difference = observed.weights_difference()
    if difference is None:
        return
    theirs, mine, index, unmatched = difference
    line = mine.get("line") or (solution.model_new.lineno if solution.model_new is not None else 1)
    lost = f", and the reference's `{unmatched['name']}` ({_shape(unmatched['shape'])}) is nowhere among ModelNew's " \
        f"tensors" if unmatched is not None else ""
    reference = reference_of(ctx)
    where = f" ({os.path.basename(reference.path)}:{theirs['line']})" if reference is not None and theirs.get("line") \
        and os.path.abspath(reference.path) != os.path.abspath(ctx.document.path) else \
        (f" (line {theirs['line']})" if theirs.get("line") else "")
    yield ctx.finding_at(line_location(ctx.document, line), (
        f"built as the harness builds them (the same seed before each), ModelNew's {_ordinal(index + 1)} random "
        f"draw is `{_draw_text(mine)}` where the reference's{where} is `{_draw_text(theirs)}`{lost}: its weights, "
        f"and its "
        f"output, differ whatever the kernel computes; create the reference's nn layers in the same order (and "
        f"read their .weight/.bias), or reproduce their init exactly"))


def _draw_text(draw: dict) -> str:
    numbers = ", ".join(f"{n:g}" for n in draw.get("numbers") or [])
    return f"{draw['op']}({numbers}) of {_shape(draw['shape'])} {draw.get('dtype')}"


def _shape(shape: list[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _what(text: str) -> str:
    return text if text.startswith("the ") else f"`{text}`"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
