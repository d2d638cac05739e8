"""Host arithmetic in 32-bit `int` that exceeds 2^31 - 1 at the reference problem's shapes.

The bound C++ function runs at the reference's shapes (`harness.shapes.HostRun`) up to each launch it
reaches, so its locals there have values. A signed 32-bit local whose exact value is past the `int`
range (`int total = x.numel();`, `const int n = B * C * H * W;`), signed 32-bit arithmetic whose exact
value is (`int64_t n = batch * channels * hw;` multiplies `int`s before widening), and an argument past
the range given to a kernel's `int` parameter (`kernel<<<g, b>>>(..., x.numel())`) all wrap: the grid,
the guard or the element count the kernel gets is wrong.

Evidence: the value is the one `HostRun` computes at the launch, and only locals declared on every path to
the launch (a branch the sizes do not take is not judged), assigned once (at their declaration), whose
initializer reads no local assigned elsewhere, are judged; anything unknown stays silent.
"""

from __future__ import annotations

from dataclasses import dataclass

from cudalint.analysis.guards import strip
from cudalint.analysis.launch_link import LaunchLinks
from cudalint.harness.host_run import written_refs
from cudalint.harness.index_overflow import outermost_int32
from cudalint.harness.shapes import ShapedLaunch, is_signed_int32, reached_launches_at_reference
from cudalint.model import ir



@dataclass(frozen=True)
class HostOverflow:
    shaped: ShapedLaunch
    expr: ir.Expr  # the arithmetic, initializer or argument whose value does not fit
    value: int  # its exact value at the reference's shapes
    what: str  # "local `total`", "argument `n` of `kernel`", "arithmetic"

    @property
    def wrapped(self) -> int:
        """What the 32-bit value becomes (two's complement wrap)."""
        return (self.value + 2**31) % 2**32 - 2**31


def host_overflows(ctx) -> list[HostOverflow]:
    """The 32-bit values of the bound functions, at the launches reached at the reference's shapes, that
    do not fit in `int`; one per expression."""
    program = ctx.program
    found: dict[tuple, HostOverflow] = {}
    for shaped in reached_launches_at_reference(ctx):
        env, caller = shaped.at_reference.env, shaped.site.caller
        if env is None or env.state is None or caller is None:
            continue
        assigned, _ = written_refs(caller)
        wrapped: set[str] = set()  # locals found wrapping: what is computed from them follows from that
        for decl in caller.of_type(ir.VarDecl):
            if decl.init is None or decl.ref in assigned or decl.dims or any(
                    isinstance(n, ir.Name) and n.ref in assigned | wrapped for n in decl.init.walk()):
                continue
            if env.state.get(decl.ref) is None:
                continue  # not run on every path to the launch (a branch for smaller sizes), or not known
            for expr, what in _candidates(decl):
                value = env.value(expr)
                if isinstance(value, int) and not isinstance(value, bool) and not -2**31 <= value < 2**31:
                    found.setdefault(expr.span, HostOverflow(shaped, expr, value, what))
                    wrapped.add(decl.ref)
                    break
        link = LaunchLinks.of(program).of_node(shaped.site.node)
        kernel = link.kernel if link is not None else None
        for param, arg in zip(kernel.params if kernel is not None else (), link.args if link is not None else ()):
            if not is_signed_int32(param.type) or arg.span in found \
                    or any(isinstance(n, ir.Name) and n.ref in wrapped for n in arg.walk()):
                continue
            value = env.value(strip(arg))
            if isinstance(value, int) and not isinstance(value, bool) and not -2**31 <= value < 2**31:
                found[arg.span] = HostOverflow(shaped, arg, value, f"argument `{param.name}` of `{kernel.name}`")
    return list(found.values())


def _candidates(decl: ir.VarDecl) -> list[tuple[ir.Expr, str]]:
    """The signed 32-bit arithmetic of the initializer, outermost first, then the initializer itself
    when the local is signed 32-bit."""
    found = [(node, "arithmetic") for node in outermost_int32(decl.init)]
    if is_signed_int32(decl.type):
        found.append((decl.init, f"local `{decl.name}`"))
    return found
