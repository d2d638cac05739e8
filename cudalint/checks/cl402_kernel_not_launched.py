"""CL402 kernel-not-launched: ModelNew's forward path never runs a custom kernel.

Three ways, all reported on the `def forward` line: the CUDA defines no `__global__` function at all;
it defines kernels but no host code launches any; or forward (with the methods, functions and
submodules it calls) never calls the compiled extension or cupy kernel.

Evidence for the last one: when the dry run (cudalint/dryrun/) completed, what it observed decides. A
forward that called a function of the compiled extension in every call is never reported, whatever the
static reading of forward's calls says (blocks built by helpers, `fn = Fn.apply`, lists of layers); a
forward that ran every call without calling any is reported even where the static reading could not
follow a call. When the dry run did not complete (or did not run), or a call raised, only the static
reading reports, and only when it followed every call forward makes.
"""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import record_unit
from cudalint.harness.statements import line_location

_LAUNCH_CALLS = {"cudaLaunchKernel", "cudaLaunchKernelEx", "cudaLaunchCooperativeKernel", "cuLaunchKernel",
                 "cudaLaunchCooperativeKernelMultiDevice", "cudaGraphLaunch", "cuLaunchKernelEx",
                 "cudaLaunchKernelExC", "launch_kernel"}
@rule("CL402", "kernel-not-launched", "error",
      "ModelNew's forward path never reaches a custom kernel: no __global__ function, no launch, or the "
      "compiled function is never called from forward")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state, last = record_unit(ctx)
    if not last:
        return
    solution = state.solution
    flow = state.flow
    if solution is None or flow is None or flow.forward is None or solution.uses_foreign_kernels:
        return  # Triton, CuTe DSL, ...: CL403 reports a forward the dry run saw launch nothing
    if not solution.load_inline_calls and not solution.raw_kernels:
        return  # CL400 reports a solution without any build
    location = line_location(ctx.document, flow.forward.lineno)
    all_parsed = len(state.units) == len(ctx.document.units) and all(
        not arg.given or arg.text is not None
        for call in solution.load_inline_calls for arg in (call.cpp, call.cuda)) and all(
        raw.code.text is not None for raw in solution.raw_kernels)
    clean = all(_clean(f) for f in state.units)
    if all_parsed and clean:
        kernels = [k for f in state.units for k in f.program.kernels]
        if not kernels:
            yield ctx.finding_at(location, (
                "the CUDA sources define no `__global__` kernel, so forward cannot run a custom kernel: "
                "whatever the extension computes runs as host code: ATen or library calls such as cuBLAS"))
            return
        launched = any(f.program.launches or _launch_calls(f) or "<<<" in f.unit.text for f in state.units)
        if not launched and not solution.raw_kernels:
            names = ", ".join(f"`{k.name}`" for k in kernels[:3])
            yield ctx.finding_at(location, (
                f"the CUDA sources define {names} but no host function launches a kernel "
                f"(no `<<<...>>>` and no launch API call): the custom kernel never runs"))
            return
    observed = ctx.observed
    if observed is not None and len(observed.completed_calls) == len(observed.calls):
        if observed.kernel_ran() or observed.data.get("extension_calls") or observed.stand_ins_called():
            return
        calls = observed.completed_calls
        what = "the compiled extension nor the cupy kernel" if solution.raw_kernels else "the compiled extension"
        yield ctx.finding_at(location, (
            f"forward never called a function of {what}: the dry run called it {len(calls)} times as the harness "
            f"does (on the CPU, the kernels replaced by their model) and no call reached the custom kernel"))
        return
    if flow.reaches_kernel or not (flow.name_handles or flow.attr_handles):
        return
    if flow.unresolved_calls():
        return  # something forward calls could not be followed; it might run the kernel
    yield ctx.finding_at(location, (
        "forward never calls the compiled extension (nor a cupy kernel), directly or through the methods "
        "and functions it calls: the custom kernel is built but never runs"))


def _clean(facts) -> bool:
    """Parsed without any error and without unknown headers of the solution's own: every kernel and
    launch of the unit is in the model."""
    from cudalint.checks.cl401_binding_mismatch import _user_headers

    return not _user_headers(facts) and not any(d.severity == "error" for d in facts.lowered.diagnostics)


def _launch_calls(facts) -> bool:
    from cudalint.model import ir

    for function in facts.program.functions:
        if function.body is None:
            continue
        for node in function.of_type(ir.Call):
            if node.callee in _LAUNCH_CALLS:
                return True
    return False
