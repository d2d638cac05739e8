"""Kernels evaluated over the whole thread space of their launches, at the reference problem's shapes.

A launch reached at the reference's input shapes (`harness.shapes`) has a concrete grid and block, and
its kernel's scalar parameters have values (`kernel_env_at_reference`). A pointer parameter given
`t.data_ptr<T>()` of a tensor whose shape is known there points at `t.numel()` elements. The kernel's
index maps and guards, lowered to linear integer constraints with those values pinned
(`SyncAnalysis.kernel_at`), say exactly which elements each thread of the launch accesses: the Omega test
decides whether some thread reaches past the end, and bisection names one thread and the first element
past the end it reaches. Anything the constraints do not describe exactly (see `KernelSync.first_past`)
leaves the access unjudged.

`graded_launches` gives the same concrete view of every launch of a kernel, for questions such as "does
any thread of the graded launches take this `return`" (a latent barrier divergence).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from cudalint.analysis.accesses import GlobalBuffer, MemoryAccess
from cudalint.analysis.barriers import sync_analysis
from cudalint.analysis.intervals import KernelSync, PastTheEnd
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


@dataclass(frozen=True)
class GradedLaunch:
    shaped: ShapedLaunch
    kernel: ir.Function
    launched: KernelSync  # the kernel as this launch runs it at the reference's shapes


def launched_at_reference(ctx) -> list[GradedLaunch]:
    """Each launch reached at the reference's shapes with a concrete grid and block, its kernel evaluated
    there (block, grid and the scalar parameters the arguments decide pinned)."""
    program = ctx.program
    if "graded_launches" in program.analyses:
        return program.analyses["graded_launches"]
    found: list[GradedLaunch] = []
    for shaped in reached_launches_at_reference(ctx):
        launch = shaped.at_reference
        if launch.grid is None or launch.block is None or None in launch.grid or None in launch.block:
            continue
        at_reference = kernel_env_at_reference(program, shaped)
        if at_reference is None:
            continue
        kernel, env = at_reference
        values = {ref: value for ref, value in env.scalars.items() if isinstance(value, int)}
        launched = sync_analysis(program).kernel_at(kernel, tuple(launch.block), tuple(launch.grid), values)
        found.append(GradedLaunch(shaped, kernel, launched))
    program.analyses["graded_launches"] = found
    return found


def accesses_past_tensors(ctx) -> list[AccessPastTensor]:
    """The global accesses of the launches reached at the reference's shapes that some thread makes past
    the end of the tensor the launch passes for that pointer."""
    found: list[AccessPastTensor] = []
    for graded in launched_at_reference(ctx):
        shaped, kernel, launched = graded.shaped, graded.kernel, graded.launched
        link = LaunchLinks.of(ctx.program).of_node(shaped.site.node)
        sizes = _tensor_sizes(kernel, link.args, shaped) if link is not None else None
        if not sizes:
            continue
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


def graded_launches(ctx, kernel: ir.Function) -> list[KernelSync] | None:
    """The kernel as each of its launches runs it at the reference's shapes (concrete block, grid and the
    parameters the arguments decide); None unless every launch site of the kernel in this unit is one
    the bound functions reach there with a concrete configuration (then the list holds them all)."""
    sites = ctx.program.launches_of(kernel.name)
    reached = [s for s in reached_launches_at_reference(ctx) if s.site.kernel_name == kernel.name]
    if not sites or {id(s.node) for s in sites} != {id(s.site.node) for s in reached}:
        return None
    launched = [g for g in launched_at_reference(ctx) if g.shaped.site.kernel_name == kernel.name]
    if len(launched) != len(reached) or any(g.kernel is not kernel for g in launched):
        return None
    return [g.launched for g in launched]


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
