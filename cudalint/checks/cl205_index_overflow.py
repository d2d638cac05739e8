"""CL205 index-overflow (info): a flat index computed in 32-bit arithmetic in a kernel whose sizes are
64-bit (not provably under 2^31): past 2^31 elements the index wraps and the access lands elsewhere."""

from __future__ import annotations

import re
from collections.abc import Iterator

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import strip
from cudalint.analysis.provenance import global_axes
from cudalint.analysis.symbolic import Poly
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.model import ir

_INT32 = re.compile(r"^(const\s+)?(signed\s+|unsigned\s+)?(int|int32_t|uint32_t|unsigned)(\s+const)?$")
_INT64 = re.compile(r"\b(int64_t|uint64_t|long|size_t|ptrdiff_t|ssize_t|index_t|int64|longlong)\b")


@rule("CL205", "index-overflow", "info",
      "a flat index computed in 32-bit arithmetic in a kernel whose sizes are 64-bit")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    analysis = GuardAnalysis.of(program)
    for kernel in program.kernels:
        if kernel.body is None:
            continue
        wide = {p.ref: p for p in kernel.params if p.ref and "*" not in p.type and _INT64.search(p.type)}
        if not wide:
            continue
        provenance = analysis.provenance(kernel)
        guards = analysis.guards(kernel)
        bounded_by_wide = _compared_with(kernel, guards, provenance, set(wide))
        for node in kernel.of_type(ir.VarDecl):
            if node.init is None or node.dims or not node.ref:
                continue
            if not _INT32.match(" ".join(node.type.split())):
                continue
            poly = provenance.poly(node.init)
            if not _is_flat_index(poly):
                continue
            uses_wide = any(a.kind == "var" and a.key in wide for a in poly.atoms())
            if not uses_wide and node.ref not in bounded_by_wide and not _poly_refs(poly) & bounded_by_wide:
                continue
            yield ctx.finding(node.span,
                              f"`{node.name}` is a 32-bit `{node.type}` computed from "
                              f"`{' '.join(node.init.text.split())}`, but the kernel's sizes are 64-bit "
                              f"({', '.join(f'`{p.name}`' for p in wide.values())}): past 2^31 elements the "
                              f"index overflows; compute it in 64 bits (int64_t / size_t)")


def _is_flat_index(poly: Poly) -> bool:
    """A product of two runtime values: a global thread index, or row * width style arithmetic."""
    if global_axes(poly):
        return True
    for monomial in poly.terms:
        runtime = [a for a in monomial if a.kind in ("var", "bid", "tid", "opaque")]
        if len(runtime) >= 2:
            return True
    return False


def _poly_refs(poly: Poly) -> set[str]:
    return {a.key for a in poly.atoms() if a.kind == "var"}


def _compared_with(kernel: ir.Function, guards, provenance, wide: set[str]) -> set[str]:
    """Refs of the locals that some comparison bounds by a 64-bit parameter."""
    refs: set[str] = set()
    for condition in guards.all_conditions():
        for comparison in guards.comparisons_of(condition):
            for subject, limit, _inclusive in comparison.upper_bounds():
                limit_atoms = provenance.poly(limit).atoms()
                if not any(a.kind == "var" and a.key in wide for a in limit_atoms):
                    continue
                subject = strip(subject)
                if isinstance(subject, ir.Name) and subject.ref:
                    refs.add(subject.ref)
    return refs
