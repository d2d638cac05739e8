"""CL204 grid-undercoverage: a launch whose grid is a floor division of the size by the block size
(`n / threads`) while the kernel handles one element per thread: the tail is never computed. At the
reference problem's shapes, also a launch whose threads stop short of the bound the kernel's own guard
gives its thread index (`harness.thread_coverage`)."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import AXES, strip
from cudalint.analysis.launch_link import FLOOR, GridAxis, LaunchLink, LaunchLinks
from cudalint.analysis.symbolic import Symbolizer
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Edit, Finding, Fix, short_text
from cudalint.harness.thread_coverage import ShortLaunch, short_launches
from cudalint.model import ir
from cudalint.model.program import Program


@rule("CL204", "grid-undercoverage", "error",
      "a grid computed with floor division (`n / threads`), or at the reference's shapes too few threads, for a "
      "kernel with one element per thread")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    for link in LaunchLinks.of(program).links:
        kernel = link.kernel
        if kernel is None or kernel.body is None:
            continue
        short: list[GridAxis] = []
        for grid_axis in link.grid:
            if grid_axis.kind != FLOOR:
                continue
            if not (_divides_by_block(link, grid_axis) or _divides_by_block_stride(program, link, grid_axis)):
                continue
            if _checked_divisible(link, grid_axis):
                continue
            if not _one_element_per_thread(program, kernel, grid_axis.axis):
                continue
            short.append(grid_axis)
        if short:
            yield ctx.finding(link.site.node.span, _message(link, short), fix=_fix(ctx, short))
    for short_launch in short_launches(ctx):
        store = short_launch.store.node.span
        yield ctx.finding(short_launch.shaped.site.node.span, _short_message(short_launch),
                          related=[(store, "the store the guard lets through")])


def _divides_by_block(link: LaunchLink, grid_axis: GridAxis) -> bool:
    index = AXES.index(grid_axis.axis)
    block_value = link.block[index] if link.block is not None else None
    if grid_axis.divisor_value is not None and block_value is not None:
        return grid_axis.divisor_value == block_value and block_value > 1
    block_expr = link.block_exprs[index]
    if block_expr is None or grid_axis.divisor is None:
        return False
    symbolizer = Symbolizer(link.site.env)
    return symbolizer.poly(strip(block_expr)) == symbolizer.poly(strip(grid_axis.divisor))


def _divides_by_block_stride(program: Program, link: LaunchLink, grid_axis: GridAxis) -> bool:
    """The divisor is the number of elements one block covers along the axis, as the kernel indexes
    them: blockIdx.x * (blockDim.x / 32) for a warp per row, blockIdx.x * blockDim.x * 4 for float4."""
    divisor = grid_axis.divisor_value
    if divisor is None or divisor <= 1 or link.block is None or None in link.block or link.kernel is None:
        return False
    analysis = GuardAnalysis.of(program)
    axis = grid_axis.axis
    for function in program.reachable_functions(link.kernel):
        if function.body is None:
            continue
        provenance = analysis.provenance(function)
        polys = [provenance.index_poly(a) for a in analysis.accesses(function) if a.space in ("param", "global")]
        guards = analysis.guards(function)
        for condition in guards.all_conditions():
            for comparison in guards.comparisons_of(condition):
                polys += [provenance.poly(subject) for subject, _, _ in comparison.upper_bounds()]
        for poly in polys:
            for monomial, coefficient in poly.terms.items():
                blocks = [a for a in monomial if a.kind == "bid" and a.key == axis]
                if len(blocks) != 1:
                    continue
                value = coefficient
                for atom in monomial:
                    if atom is blocks[0]:
                        continue
                    if atom.kind == "bdim" and atom.key in AXES:
                        value *= link.block[AXES.index(atom.key)]
                        continue
                    found = provenance.classify(atom) if atom.kind == "opaque" else None
                    if found is not None and found[0] == "bdim":
                        value *= link.block[AXES.index(found[1])] // found[2]
                        continue
                    value = None
                    break
                if value == divisor:
                    return True
    return False


def _checked_divisible(link: LaunchLink, grid_axis: GridAxis) -> bool:
    """The host checks (or ensures) that the size is a multiple of the block: `n % threads`."""
    caller = link.site.caller
    if caller.body is None or grid_axis.size is None:
        return False
    symbolizer = Symbolizer(link.site.env)
    size = symbolizer.poly(strip(grid_axis.size))
    for node in caller.of_type(ir.Binary):
        if node.op == "%" and symbolizer.poly(strip(node.lhs)) == size:
            return True
    return False


def _one_element_per_thread(program: Program, kernel: ir.Function, axis: str) -> bool:
    """The kernel indexes global memory with the global thread index of `axis`, and no loop strides
    over that axis (a grid-stride loop covers any grid)."""
    analysis = GuardAnalysis.of(program)
    direct = False
    for function in program.reachable_functions(kernel):
        if function.body is None:
            continue
        provenance = analysis.provenance(function)
        for access in analysis.accesses(function):
            if access.space not in ("param", "global"):
                continue
            found = provenance.access_provenance(access)
            if any(axis in provenance.variable_axes(v) and provenance.strides_over_grid(v) for v in found.variables):
                return False  # a grid-stride loop along the axis covers any grid
            if axis in provenance.all_axes(found):
                direct = True
    return direct


def _message(link: LaunchLink, short: list[GridAxis]) -> str:
    parts = []
    for grid_axis in short:
        division = " ".join(grid_axis.division.text.split()) if grid_axis.division is not None else "n / block"
        parts.append(f"grid.{grid_axis.axis} = `{division}`")
    size = " ".join(short[0].size.text.split()) if short[0].size is not None else "the size"
    return (f"launch of `{link.site.kernel_name}` computes {' and '.join(parts)} with floor division while the "
            f"kernel handles one element per thread: when `{size}` is not a multiple of the block size the "
            f"remainder is never processed; round up: (size + block - 1) / block")


def _short_message(short: ShortLaunch) -> str:
    axis = short.axis
    launch = short.shaped.at_reference
    given = (f"grid.{axis} x block.{axis} = {launch.grid[AXES.index(axis)]} x {launch.block[AXES.index(axis)]}"
             if short.threads != launch.block[AXES.index(axis)] else f"block.{axis} = {short.threads}")
    return (f"at the reference's input shapes ({short.shaped.shapes}) the launch of `{short.shaped.site.kernel_name}` "
            f"gives `{short_text(short.subject.text)}` {short.threads} values ({given}), but the kernel's guard lets it "
            f"go up to `{short_text(short.limit.text)}` = {short.needed} and each thread stores one element: the "
            f"elements from {short.threads} to {short.needed - 1} are never computed; launch enough threads or loop "
            f"over the rest (`for (i = index; i < n; i += stride)`)")


def _fix(ctx: RuleContext, short: list[GridAxis]) -> Fix | None:
    edits = []
    for grid_axis in short:
        division = grid_axis.division
        if division is None or division.op != "/":
            return None
        lines = ctx.facts.unit.lines
        lhs, rhs = _operand(division.lhs, lines), _operand(division.rhs, lines)
        if not lhs or not rhs:
            return None
        location = ctx.location(division.span)
        edits.append(Edit(location.line, location.column, location.end_line, location.end_column,
                          f"({lhs} + {rhs} - 1) / {rhs}"))
    if not edits:
        return None
    return Fix("round the grid up: (size + block - 1) / block", tuple(edits))


def _operand(expr: ir.Expr, lines: list[str]) -> str:
    text = " ".join(_source(lines, expr.span).split())
    if not text:
        return ""
    inner = strip(expr)
    if isinstance(inner, (ir.Name, ir.Const, ir.Call, ir.Member, ir.Index)) or (text.startswith("(") and text.endswith(")")):
        return text
    return f"({text})"


def _source(lines: list[str], span: ir.Span) -> str:
    """The unit's text of a span, given the unit's lines (clang columns count bytes)."""
    if not (1 <= span.line <= span.end_line <= len(lines)):
        return ""
    if span.line == span.end_line:
        return lines[span.line - 1].encode()[span.column - 1:span.end_column - 1].decode(errors="replace")
    parts = [lines[span.line - 1].encode()[span.column - 1:].decode(errors="replace")]
    parts += lines[span.line:span.end_line - 1]
    parts.append(lines[span.end_line - 1].encode()[:span.end_column - 1].decode(errors="replace"))
    return "\n".join(parts)
