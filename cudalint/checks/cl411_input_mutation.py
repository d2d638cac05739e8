"""CL411 input-mutation: forward writes into its input tensors, so whatever runs after it (the reference
model, the next timing iteration, the comparison) sees altered inputs.

- Python (`Dataflow`'s mutations): in-place ops on forward's inputs or views of them on the forward
  path: `x.zero_()`, `x.copy_(y)`, `x[...] = v`, `x += v`, `torch.relu_(x)`, `out=x`, `inplace=True`.
- C++: in a bound function that forward calls with one of its inputs at that position, an in-place op
  on that parameter (`x.zero_()`, `x.copy_(...)`), or a launch handing the parameter's data pointer to a
  kernel that stores through it (an input written instead of an allocated output).
"""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import strip
from cudalint.analysis.launch_link import LaunchLinks, data_pointer_of
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.dataflow import dataflow_of
from cudalint.harness.document_state import record_unit
from cudalint.harness.kernelbench import callee_name
from cudalint.harness.statements import node_location
from cudalint.model import ir

_CPP_VIEWS = {"contiguous", "view", "reshape", "flatten", "squeeze", "unsqueeze", "permute", "transpose", "t",
              "expand", "narrow", "select", "detach", "view_as", "reshape_as", "to", "cuda", "as_strided"}
_CPP_METADATA_INPLACE = {"requires_grad_", "squeeze_", "unsqueeze_", "t_", "transpose_", "set_requires_grad"}


@rule("CL411", "input-mutation", "error",
      "forward writes into its input tensors (an in-place op in Python or in the C++ wrapper, or a kernel "
      "storing through an input's pointer), so the reference and later calls see altered inputs")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state, last = record_unit(ctx)
    solution = state.solution
    if solution is None or not solution.is_kernelbench or state.flow is None:
        return
    dataflow = dataflow_of(state)
    positions: dict[str, set[int]] = {}
    for info in state.flow.functions:
        for call, given in dataflow.of(info).kernel_inputs:
            positions.setdefault(callee_name(call) or "", set()).update(given)
    yield from _cpp_writes(ctx, positions)
    if last:
        for info in state.flow.functions:
            for mutation in dataflow.of(info).mutations:
                yield ctx.finding_at(node_location(ctx.document, mutation.node), (
                    f"`{mutation.how}` writes into `{mutation.name}`, one of forward's inputs: the reference and "
                    f"later calls see the altered tensor (compute into a new output instead)"))


def input_parameters(program, positions: dict[str, set[int]]) -> Iterator[tuple[ir.Function, dict[str, ir.Param]]]:
    """The host functions forward calls with inputs, and their parameters (by declaration ref) that
    receive forward's inputs, with the locals that alias them (`auto xc = x.contiguous()`)."""
    for function in program.functions:
        given = positions.get(function.name)
        if function.body is None or function.is_device_code or not given:
            continue
        inputs = {p.ref: p for i, p in enumerate(function.params) if i in given and "Tensor" in p.type}
        for decl in function.of_type(ir.VarDecl):
            init = strip(decl.init) if decl.init is not None else None
            while isinstance(init, ir.Call) and init.callee in _CPP_VIEWS and init.receiver is not None:
                init = strip(init.receiver)
            if isinstance(init, ir.Name) and init.ref in inputs and "Tensor" in (decl.type + init.type):
                inputs[decl.ref] = inputs[init.ref]
        if inputs:
            yield function, inputs


def _cpp_writes(ctx: RuleContext, positions: dict[str, set[int]]) -> Iterator[Finding]:
    program = ctx.program
    links = analysis = None
    for function, inputs in input_parameters(program, positions):
        for node in function.of_type(ir.Call, ir.Launch):
            if isinstance(node, ir.Call):
                target = node.receiver if node.receiver is not None else (node.args[0] if node.args else None)
                target = strip(target) if target is not None else None
                if isinstance(target, ir.Name) and target.ref in inputs and node.callee.endswith("_") \
                        and not node.callee.startswith("_") and node.callee not in _CPP_METADATA_INPLACE:
                    yield ctx.finding(node.span, (
                        f"`{' '.join(node.text.split())[:60]}` writes in place into `{inputs[target.ref].name}`, which "
                        f"forward passes one of its inputs: the reference and later calls see the altered tensor"))
                continue
            if links is None:
                links, analysis = LaunchLinks.of(program), GuardAnalysis.of(program)
            link = links.of_node(node)
            kernel = link.kernel if link is not None else None
            if kernel is None or kernel.body is None:
                continue
            written = {a.root.ref for a in analysis.accesses(kernel) if a.is_write and a.root.kind == "param"}
            for position, arg in enumerate(node.args):
                ref = data_pointer_of(arg)
                if ref in inputs and position < len(kernel.params) and kernel.params[position].ref in written:
                    yield ctx.finding(node.span, (
                        f"`{kernel.name}` stores through `{kernel.params[position].name}`, the data of "
                        f"`{inputs[ref].name}`, which forward passes one of its inputs: the kernel overwrites the "
                        f"input instead of an allocated output"))
                    break
