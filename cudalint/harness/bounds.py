"""Global accesses evaluated over the whole thread space of a launch, at the reference problem's shapes.

A launch reached at the reference's input shapes (`harness.shapes`) has a concrete grid and block, and
its kernel's scalar parameters have values (`kernel_env_at_reference`). A pointer parameter given
`t.data_ptr<T>()` of a tensor whose shape is known there points at `t.numel()` elements. The kernel's
index maps and guards, lowered to linear integer constraints with those values pinned
(`SyncAnalysis.kernel_at`), say exactly which elements each thread of the launch accesses: the Omega test
decides whether some thread reaches past the end, and bisection names one thread and the first element
past the end it reaches. Anything the constraints do not describe exactly (see `KernelSync.first_past`)
leaves the access unjudged.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from cudalint.analysis.barriers import GlobalBuffer, MemoryAccess, PastTheEnd, sync_analysis
from cudalint.analysis.guards import strip
from cudalint.analysis.launch_link import LaunchLinks
from cudalint.harness.shapes import ShapedLaunch, kernel_env_at_reference, reached_launches_at_reference
from cudalint.model import ir


@dataclass(frozen=True)
class AccessPastTensor:
    shaped: ShapedLaunch
    kernel: ir.Function
    access: MemoryAccess
    tensor: str  # the host expression whose data pointer the launch passes (`targets`)
    elements: int  # its number of elements at the reference's shapes
    past: PastTheEnd


def accesses_past_tensors(ctx) -> list[AccessPastTensor]:
    """The global accesses of the launches reached at the reference's shapes that some thread makes past
    the end of the tensor the launch passes for that pointer."""
    program = ctx.program
    analysis = sync_analysis(program)
    found: list[AccessPastTensor] = []
    for shaped in reached_launches_at_reference(ctx):
        launch = shaped.at_reference
        if launch.grid is None or launch.block is None or None in launch.grid or None in launch.block:
            continue
        at_reference = kernel_env_at_reference(program, shaped)
        link = LaunchLinks.of(program).of_node(shaped.site.node)
        if at_reference is None or link is None:
            continue
        kernel, env = at_reference
        sizes = _tensor_sizes(kernel, link.args, shaped)
        if not sizes:
            continue
        values = {ref: value for ref, value in env.scalars.items() if isinstance(value, int)}
        launched = analysis.kernel_at(kernel, tuple(launch.block), tuple(launch.grid), values)
        reported: set[str] = set()
        for access in launched.global_accesses:
            array = access.array
            if not isinstance(array, GlobalBuffer) or array.decl.ref not in sizes or access.field \
                    or array.decl.ref in reported:
                continue
            tensor, elements = sizes[array.decl.ref]
            past = launched.first_past(access, elements)
            if past is not None:
                reported.add(array.decl.ref)  # the first access past a tensor names the bug
                found.append(AccessPastTensor(shaped, kernel, access, tensor, elements, past))
    return found


def _tensor_sizes(kernel: ir.Function, args: list[ir.Expr], shaped: ShapedLaunch) -> dict[str, tuple[str, int]]:
    """Pointer parameter ref -> (tensor, its number of elements), for the arguments that are the data
    pointer (`t.data_ptr<T>()`, T the parameter's element type) of a tensor whose shape is known."""
    sizes: dict[str, tuple[str, int]] = {}
    for param, arg in zip(kernel.params, args):
        arg = strip(arg)
        if not param.ref or param.type.count("*") != 1 or not isinstance(arg, ir.Call) \
                or arg.callee != "data_ptr" or arg.receiver is None or arg.args \
                or _element(arg.template_args) != _element(param.type.replace("*", "")):
            continue
        shape = shaped.at_reference.env.shape(arg.receiver)
        if shape is not None:
            sizes[param.ref] = (" ".join(arg.receiver.text.split()), prod(shape))
    return sizes


def _element(type_: str) -> str:
    words = [w for w in type_.replace("::", " ").split() if w not in ("const", "__restrict__", "volatile", "c10",
                                                                        "at", "std")]
    return " ".join(words)
