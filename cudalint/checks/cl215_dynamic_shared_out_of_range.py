"""CL215 dynamic-shared-out-of-range: an access to `extern __shared__` memory (directly, or through a
pointer carved out of it) beyond the dynamic shared-memory size the launch passes, for the launch's
block size; or a launch that passes no dynamic shared memory to a kernel that uses it.

The launch's block and byte count must both be known (constants in the unit, or values at the
reference's input shapes for a `.py` solution), and so must the size of the element type accessed;
the index is then decided for that block by `RangeAnalysis.buffer_witness`, as CL203 decides static
arrays. Anything unknown is no finding."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.pointer_accesses import Access
from cudalint.analysis.ranges import RangeAnalysis, Witness
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.harness.shapes import kernel_env_at_reference, reached_launches_at_reference
from cudalint.model import ir
from cudalint.model.constants import ConstantEnv, Dim3, type_size
from cudalint.model.program import LaunchSite


@dataclass(frozen=True)
class _Configuration:
    """What one launch gives the kernel: its block and its dynamic shared-memory bytes."""

    site: LaunchSite
    block: Dim3
    shared_bytes: int
    shapes: str  # the reference's input shapes that decided it; "" when the source does
    kernel_env: ConstantEnv | None  # the kernel's parameters at those shapes; None: its own constants


@rule("CL215", "dynamic-shared-out-of-range", "error",
      "an `extern __shared__` access beyond the dynamic shared-memory size the launch passes, or a launch that "
      "passes none to a kernel that uses it")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    if not any(array.dynamic for array in program.shared_arrays):
        return
    analysis = GuardAnalysis.of(program)
    ranges = RangeAnalysis.of(program)
    at_reference = None
    reported: set[tuple[int, int]] = set()  # a device function reached from several kernels: once
    for kernel in program.kernels:
        sites = [site for site in program.launches_of(kernel.name) if site.kernel is kernel]
        if kernel.body is None or not sites:
            continue
        accesses = [(function, access) for function in program.reachable_functions(kernel)
                    if function.body is not None and function.is_device_code
                    for access in analysis.accesses(function)
                    if access.space == "shared" and access.root.decl is not None and access.root.decl.extern]
        if not accesses:
            continue
        for site in sites:
            if site.shared_bytes == 0:
                yield _no_dynamic_memory(ctx, site, accesses[0][1])
        if at_reference is None:
            at_reference = {id(shaped.site.node): shaped for shaped in reached_launches_at_reference(ctx)}
        configurations = [c for c in (_configuration(program, site, at_reference) for site in sites) if c is not None]
        for function, access in accesses:
            element = _element_size(access)
            if element is None or access.node.span[:2] in reported:
                continue
            for configuration in configurations:
                env = configuration.kernel_env if function is kernel else None
                witness = ranges.buffer_witness(function, access, configuration.shared_bytes // element,
                                                configuration.block, env)
                if witness is not None:
                    reported.add(access.node.span[:2])
                    yield ctx.finding(access.node.span, _message(ctx, access, element, witness, configuration),
                                      related=[(configuration.site.node.span, "the launch")])
                    break


def _configuration(program, site: LaunchSite, at_reference: dict) -> _Configuration | None:
    """The launch's block and dynamic bytes at the reference's shapes, where the launch is reached there (the
    kernel's scalar parameters then have values too), else as the source decides them."""
    shaped = at_reference.get(id(site.node))
    if shaped is not None:
        launch = shaped.at_reference
        block, shared_bytes = launch.block, launch.shared_bytes
        if block is not None and None not in block and shared_bytes:
            kernel_env = kernel_env_at_reference(program, shaped)
            return _Configuration(site, block, shared_bytes, shaped.shapes,
                                  kernel_env[1] if kernel_env is not None else None)
    block, shared_bytes = site.block, site.shared_bytes
    if block is not None and None not in block and shared_bytes:
        return _Configuration(site, block, shared_bytes, "", None)
    return None


def _element_size(access: Access) -> int | None:
    """The size of the element the access reads or writes: a subscript's or a dereference's type, or the
    value an atomic returns (the element's type)."""
    node = access.node
    if isinstance(node, ir.Call) and not node.callee.startswith("atomic"):
        return None
    return type_size(node.type)


def _launch_text(ctx: RuleContext, site: LaunchSite) -> str:
    return f"the launch of `{site.kernel_name}` at line {ctx.location(site.node.span).line}"


def _no_dynamic_memory(ctx: RuleContext, site: LaunchSite, access: Access) -> Finding:
    passed = "no dynamic shared-memory size" if site.shared_bytes_expr is None else \
        f"0 bytes of dynamic shared memory (`{short_text(site.shared_bytes_expr.text)}`)"
    decl = access.root.decl
    line = ctx.location(access.node.span).line
    return ctx.finding(
        site.node.span,
        f"launch of `{site.kernel_name}` passes {passed}, but the kernel uses `extern __shared__ "
        f"{decl.element_type} {decl.name}[]` (`{short_text(access.node.text)}` at line {line}): with 0 bytes every "
        f"access to it is out of bounds; pass the bytes the kernel uses as the third launch argument "
        f"(`<<<grid, block, bytes>>>`)",
        related=[(access.node.span, "the access")])


def _message(ctx: RuleContext, access: Access, element: int, witness: Witness, configuration: _Configuration) -> str:
    site = configuration.site
    bytes_text = f"{configuration.shared_bytes} bytes"
    written = short_text(site.shared_bytes_expr.text) if site.shared_bytes_expr is not None else None
    if written is not None and written != str(configuration.shared_bytes):
        bytes_text += f" (`{written}`)"
    where = f" at the reference's input shapes ({configuration.shapes})" if configuration.shapes else ""
    when = f" when {witness.describe()}" if witness.values else ""
    first = witness.index * element
    reach = "before the start of" if witness.index < 0 else "past the end of"
    element_type = " ".join(w for w in access.node.type.split() if w not in ("const", "volatile"))
    return (f"`{short_text(access.node.text)}` accesses `{element_type}` element {witness.index} (bytes {first} to "
            f"{first + element - 1}) of the dynamic shared memory `{access.root.name}`{when} with a block of "
            f"{witness.block_shape()} threads, {reach} the {bytes_text} that {_launch_text(ctx, site)} passes"
            f"{where}: an out-of-bounds shared-memory access; size the launch's third argument for every element "
            f"the kernel uses")
