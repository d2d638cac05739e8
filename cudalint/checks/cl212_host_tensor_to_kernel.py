"""CL212 host-tensor-to-kernel: a tensor made in C++ with options that name no device (a CPU tensor)
whose data pointer a kernel launch is given.

`torch::zeros(sizes, torch::kLong)`, `torch::empty({n})` and `at::ones(sizes, torch::dtype(torch::kFloat))`
allocate host memory: C++ factories take no default device from the inputs. The kernel then reads or
writes host memory through what it takes for a device pointer."""

from __future__ import annotations

import re
from collections.abc import Iterator

from cudalint.analysis.guards import definitions, strip
from cudalint.checks.cl411_input_mutation import data_pointer_of
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.model import ir

# factories whose options follow the sizes (`full` also takes the fill value first)
_FACTORIES = {"empty": 1, "zeros": 1, "ones": 1, "rand": 1, "randn": 1, "full": 2}
# options that say only the element type (or layout): `torch::kLong`, `torch::dtype(...)`,
# `torch::TensorOptions().dtype(...)`; anything naming a device, another tensor's options or pinned memory
# is left alone, and so is an options variable
_DTYPE_ONLY = re.compile(r"^(?:(?:torch|at|c10)::)?(?:k(?!CUDA|HIP|XPU|MPS|Meta|PrivateUse)[A-Z]\w*|ScalarType::\w+|dtype\s*\([\w:\s]*\)"
                         r"|TensorOptions\s*\(\s*\)(?:\s*\.\s*(?:dtype|layout|requires_grad)\s*\([\w:\s]*\))*)$")


@rule("CL212", "host-tensor-to-kernel", "error",
      "a tensor made in C++ with options that name no device (a CPU tensor: `torch::zeros(sizes, torch::kLong)`) "
      "whose data pointer a kernel launch is given")
def check(ctx: RuleContext) -> Iterator[Finding]:
    for function in ctx.program.functions:
        if function.space not in ("host", "host_device") or function.body is None:
            continue
        host_tensors = dict(_host_tensors(function))
        if not host_tensors:
            continue
        for launch in function.of_type(ir.Launch):
            for argument in launch.args:
                ref = _pointer_of(function, argument)
                if ref in host_tensors:
                    decl, factory = host_tensors.pop(ref)
                    yield ctx.finding(factory.span, _message(ctx, decl, factory, launch),
                                      related=[(launch.span, f"`{launch.kernel}` is given its data pointer here")])


def _host_tensors(function: ir.Function) -> Iterator[tuple[str, tuple[ir.VarDecl, ir.Call]]]:
    """Tensor locals set once, by a torch/ATen factory whose options name no device."""
    for decl in function.of_type(ir.VarDecl):
        factory = strip(decl.init) if decl.init is not None else None
        if not isinstance(factory, ir.Call) or factory.receiver is not None or decl.ref is None:
            continue
        name = factory.callee.rsplit("::", 1)[-1]
        if name not in _FACTORIES or not factory.text.lstrip().startswith(("torch::", "at::")):
            continue
        options = factory.args[_FACTORIES[name]:]
        if all(_DTYPE_ONLY.match(" ".join(option.text.split())) for option in options) \
                and len(definitions(function, decl.ref)) == 1:  # not moved to the GPU later (`t = t.cuda()`)
            yield decl.ref, (decl, factory)


def _pointer_of(function: ir.Function, argument: ir.Expr, depth: int = 0) -> str | None:
    """The tensor local whose data pointer `argument` is: `t.data_ptr<T>()`, or a local set once to one."""
    ref = data_pointer_of(argument)
    if ref is not None:
        return ref
    argument = strip(argument)
    if isinstance(argument, ir.Name) and depth < 3:
        values = definitions(function, argument.ref)
        if len(values) == 1:
            return _pointer_of(function, values[0], depth + 1)
    return None


def _message(ctx: RuleContext, decl: ir.VarDecl, factory: ir.Call, launch: ir.Launch) -> str:
    line = ctx.location(launch.span).line
    return (f"`{short_text(factory.text)}` makes `{decl.name}` a CPU tensor (its options name no device; C++ "
            f"factories do not take the inputs' device), and `{launch.kernel}<<<...>>>` (line {line}) is given its "
            f"data pointer: the kernel accesses host memory through a device pointer (an illegal memory access, or "
            f"a device mismatch when the result meets a CUDA tensor); make it with the input's options "
            f"(`input.options().dtype(...)`) or add `.device(torch::kCUDA)`")
