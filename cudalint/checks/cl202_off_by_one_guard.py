"""CL202 off-by-one-guard: a guard or loop bound that admits the size itself (`i <= n`), dominating an
access whose index is that value."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.barriers import index_proven_below
from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import Comparison, strip
from cudalint.analysis.provenance import global_axes
from cudalint.analysis.symbolic import BLOCK_DIM, BLOCK_IDX, GRID_DIM, Poly
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Edit, Finding, Fix
from cudalint.model import ir

_PIVOT_KINDS = ("tid", "var", "opaque")


@rule("CL202", "off-by-one-guard", "error",
      "a guard or loop bound that admits the size itself (`i <= n`) before an access at that index")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    analysis = GuardAnalysis.of(program)
    reported: set[int] = set()
    for function in program.functions:
        if not function.is_device_code or function.body is None:
            continue
        guards = analysis.guards(function)
        provenance = analysis.provenance(function)
        for access in analysis.accesses(function):
            if access.root.mixed_units or len(access.indices) > 1 or access.space not in ("param", "global"):
                continue
            index = None
            for comparison in guards.comparisons(access.node):
                if id(comparison.node) in reported:
                    continue
                for subject, limit, inclusive in comparison.upper_bounds():
                    if not inclusive or comparison.op == "==" or _symmetric_range(comparison, provenance):
                        continue
                    if index is None:
                        index = Poly()
                        for part in access.parts:
                            index = index + provenance.poly(part)
                    if not (provenance.is_size_like(limit) or _exclusive_end(limit, subject, comparison, provenance)):
                        continue
                    subject_poly = provenance.poly(subject)
                    constant_size = bool(global_axes(subject_poly))
                    if _admits_size(subject_poly, provenance.poly(limit), index, constant_size) \
                            and not index_proven_below(program, function, access.node, limit):
                        reported.add(id(comparison.node))
                        yield _finding(ctx, comparison, subject, limit, access)
                        break


def _admits_size(subject: Poly, limit: Poly, index: Poly, constant_size: bool = False) -> bool:
    """Whether `subject <= limit` lets `index` (= q * subject + d, d >= 0) reach limit * q + d. A constant
    limit counts as a size only for a global thread index (`gid <= N` with `#define N`)."""
    if limit.terms.get((), 0) < 0 or (limit.constant is not None and not (constant_size and limit.constant > 0)):
        return False  # `n - 1`, or a constant bound of a counter (CL203's business for shared arrays)
    if limit.constant is None and all(a.kind in (BLOCK_DIM, GRID_DIM, BLOCK_IDX) for a in limit.atoms()):
        return False
    for monomial, coefficient in subject.terms.items():
        if len(monomial) != 1 or coefficient <= 0 or monomial[0].kind not in _PIVOT_KINDS:
            continue
        pivot = monomial[0]
        if pivot in limit.atoms():
            continue
        q = index.coefficient(pivot)
        if q is None or not q.terms or pivot in q.atoms():
            continue
        if any(c <= 0 or c % coefficient for c in q.terms.values()):
            continue
        q = Poly({m: c // coefficient for m, c in q.terms.items()})
        rest = index - q * subject
        if pivot in rest.atoms():
            continue
        if q.constant is not None and rest.terms.get((), 0) < 0:
            continue  # `a[k - 1]` under `k <= K`; a row stride (q = cols) makes any column of row `rows` bad
        return True
    return False


def _loop_start(comparison: Comparison) -> ir.Expr | None:
    loop = comparison.condition.origin
    if isinstance(loop, ir.For) and loop.init is not None:
        if isinstance(loop.init, ir.DeclStmt) and len(loop.init.decls) == 1:
            return loop.init.decls[0].init
        if isinstance(loop.init, ir.ExprStmt) and isinstance(loop.init.expr, ir.Binary) and loop.init.expr.op == "=":
            return loop.init.expr.rhs
    return None


def _symmetric_range(comparison: Comparison, provenance) -> bool:
    """`for (k = -r; k <= r; ++k)`: a radius, inclusive on both sides, not a size."""
    start = _loop_start(comparison)
    if start is None:
        return False
    poly = provenance.poly(start)
    return bool(poly.terms) and all(c < 0 for c in poly.terms.values())


def _exclusive_end(limit: ir.Expr, subject: ir.Expr, comparison: Comparison, provenance) -> bool:
    """Whether `limit` is the exclusive end of a range that starts where the loop starts: CSR-style
    `end = offsets[k + 1]` with `start = offsets[k]`, `end = min(start + chunk, n)`, `end = start + len`."""
    env = provenance.env
    end = strip(env.resolve(strip(limit)))
    start = _loop_start(comparison)
    if start is not None:
        start = strip(env.resolve(strip(start)))
    if isinstance(end, ir.Index) and isinstance(start, ir.Index) and end.base.text == start.base.text:
        if provenance.poly(end.index) - provenance.poly(start.index) == Poly.const(1):
            return True
    if isinstance(end, ir.Call) and end.callee.split("::")[-1] in ("min", "umin") and len(end.args) == 2:
        return any(provenance.is_size_like(a) for a in end.args)
    if isinstance(end, ir.Binary) and end.op == "+" and start is not None:
        start_poly = provenance.poly(start)
        for part, other in ((end.lhs, end.rhs), (end.rhs, end.lhs)):
            if provenance.poly(part) == start_poly and provenance.is_size_like(other):
                return True
    return False


def _finding(ctx: RuleContext, comparison: Comparison, subject: ir.Expr, limit: ir.Expr, access) -> Finding:
    node = comparison.node
    written = node.op
    replacement = written + "=" if comparison.negated else written[0]
    subject_text = " ".join(subject.text.split())
    limit_text = " ".join(limit.text.split())
    if comparison.negated:
        how = f"`{' '.join(node.text.split())}` exits only past `{limit_text}`, so `{subject_text} == {limit_text}` " \
              f"goes on"
    else:
        how = f"`{' '.join(node.text.split())}` admits `{subject_text} == {limit_text}`"
    target = " ".join(access.node.text.split())
    message = (f"off-by-one bound: {how}, and `{target}` then accesses one element past the end; "
               f"use `{written}` → `{replacement}`")
    fix = _operator_fix(ctx, node, replacement)
    return ctx.finding(node.span, message, fix=fix)


def _operator_fix(ctx: RuleContext, node: ir.Binary, replacement: str) -> Fix | None:
    lines = ctx.facts.unit.lines
    start_line, start_column = node.lhs.span.end_line, node.lhs.span.end_column
    end_line, end_column = node.rhs.span.line, node.rhs.span.column
    for line in range(start_line, end_line + 1):
        if not 1 <= line <= len(lines):
            return None
        raw = lines[line - 1].encode("utf-8")
        lo = start_column - 1 if line == start_line else 0
        hi = end_column - 1 if line == end_line else len(raw)
        found = raw.find(node.op.encode(), lo, hi)
        if found >= 0:
            column = found + 1
            location = ctx.location(ir.Span(line, column, line, column + len(node.op)))
            edit = Edit(location.line, location.column, location.line, location.column + len(node.op), replacement)
            return Fix(f"use `{replacement}` instead of `{node.op}`", (edit,))
    return None
