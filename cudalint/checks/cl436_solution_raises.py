"""CL436 solution-raises (error): running the solution as the harness runs it fails in the solution's own
Python: importing it, building `ModelNew(*get_init_inputs())`, or calling forward raises (a name never
defined, an attribute the module does not have, a call with the wrong arguments), or it calls `exit()`.
The harness records a runtime error and the kernel is never checked.

Only from the dry run (cudalint/dryrun/), and only when its facts prove it: see
`DryRunFacts.harness_failure` (an exit the solution called; a failure while importing or building
before any compiled function ran; or the same failure at the same line in every forward call, with every
compiled function's result shape computed from its C++ and no value of theirs read). Only an error
raised in the solution's own frames counts (`worker._cause`: the innermost frame is the solution's file;
raised in torch's Python, the standard library, the reference or a stand-in it is the environment's). A
timeout, the memory limit, an operation the sandbox refuses are never reported. A call that pybind11
would refuse is CL424's.
"""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import state_of
from cudalint.harness.statements import line_location

_STAGES = {"import": "importing the solution", "construct": "building ModelNew(*get_init_inputs())",
           "forward": "forward", "call 1": "the first forward call"}


@rule("CL436", "solution-raises", "error",
      "importing the solution, building ModelNew or calling forward raises in the solution's own Python (or "
      "it calls exit()) when run as the harness runs it", scope="document")
def check(ctx: RuleContext) -> Iterator[Finding]:
    failure = ctx.harness.harness_failure() if ctx.harness is not None else None
    if failure is None:
        return
    line = failure.get("line") or _forward_line(ctx)
    stage = _STAGES.get(failure["stage"], failure["stage"])
    message = (failure.get("message") or "").strip().splitlines()
    detail = message[0][:200] if message else ""
    if failure["type"] == "exit":
        text = (f"the solution exits during {stage} ({detail}): the harness's process ends with it and no "
                f"result is recorded")
    elif failure["stage"] == "forward":
        text = (f"forward raises `{failure['type']}: {detail}` here in each of the {failure['calls']} calls the "
                f"dry run made as the harness makes them: the harness records a runtime error and never "
                f"checks the kernel")
    else:
        text = (f"{stage} raises `{failure['type']}: {detail}` here, as the harness would: it records a "
                f"runtime error and never checks the kernel")
    yield ctx.finding_at(line_location(ctx.document, line), text)


def _forward_line(ctx: RuleContext) -> int:
    solution = state_of(ctx.document).solution
    forward = solution.method(solution.model_new, "forward") if solution and solution.model_new else None
    return forward.lineno if forward is not None else 1
