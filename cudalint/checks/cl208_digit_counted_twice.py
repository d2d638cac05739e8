"""CL208 digit-counted-twice: a flat index decomposed into coordinates (`c = idx % C`) and then used in
one subscript together with that coordinate, although it still holds it.

Kernels unflatten a thread's element index digit by digit: `w = idx % W; idx /= W; h = idx % H; ...`.
After the last step, `idx` is the prefix of the coordinates not divided out. A subscript that uses
`idx` as if it were the outermost coordinate alone, next to a coordinate `c = idx % C` that was taken
from it without `idx /= C` (or `b = idx / C` used instead), counts `c` twice: `idx * (C*H*W) + c * (H*W)`
is `b * C * (C*H*W) + c * (C*H*W + H*W)`, which leaves the array for every `b` past the first rows or
writes the wrong elements. Reported on the subscript of a global access when:
- its index is linear in a variable `v` and in a local `c` whose only definition is `v % m`, both with
  positive coefficients (the same direction: `row_start = idx - idx % cols` is fine);
- no assignment to `v` lies between the definition of `c` and the access (straight-line code: `v` still
  holds the digit `c` was taken from).
"""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import strip
from cudalint.analysis.symbolic import Poly
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.model import ir

_ASSIGNMENTS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="})


@rule("CL208", "digit-counted-twice", "error",
      "a flat index used in one subscript with a coordinate taken from it (`c = idx % C`) that it still holds")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    analysis = GuardAnalysis.of(program)
    for function in program.functions:
        if not function.is_device_code or function.body is None:
            continue
        provenance = analysis.provenance(function)
        writes = _writes(function)
        reported: set[tuple[int, int]] = set()
        for access in analysis.accesses(function):
            if access.space not in ("param", "global") or len(access.parts) != 1:
                continue
            found = _double_count(access.parts[0], provenance, writes)
            if found is None or access.node.span[:2] in reported:
                continue
            reported.add(access.node.span[:2])
            flat, digit, modulus = found
            yield ctx.finding(access.node.span, (
                f"`{' '.join(access.node.text.split())}` counts a coordinate twice: `{digit.name}` is "
                f"`{flat.name} % {' '.join(modulus.text.split())}`, but `{flat.name}` was not divided by it "
                f"afterwards, so it still holds `{digit.name}`, and the subscript uses both: past the first "
                f"{' '.join(modulus.text.split())} values of `{flat.name}` it leaves the array or hits other "
                f"elements; divide first (`{flat.name} /= {' '.join(modulus.text.split())}`) or use the quotient"))


def _double_count(index: ir.Expr, provenance, writes: dict[str, list[tuple[int, int]]]):
    """(v, c, m) when `index` holds `v` and `c = v % m` with positive coefficients, and `v` is not
    written between the definition of `c` and the index."""
    poly = provenance.poly(index)
    names = [n for n in index.walk() if isinstance(n, ir.Name) and n.ref]
    for digit in names:
        definition = provenance.env.definition(digit.ref)
        definition = strip(definition) if definition is not None else None
        if not (isinstance(definition, ir.Binary) and definition.op == "%"):
            continue
        flat = strip(definition.lhs)
        if not isinstance(flat, ir.Name) or flat.ref is None:
            continue
        if not any(isinstance(n, ir.Name) and n.ref == flat.ref for n in names):
            continue
        if any(definition.span[:2] < at < index.span[:2] for at in writes.get(flat.ref, ())):
            continue
        flat_coefficient = _coefficient(poly, provenance.poly(flat))
        digit_coefficient = _coefficient(poly, provenance.poly(definition))
        if _positive(flat_coefficient) and _positive(digit_coefficient):
            return flat, digit, definition.rhs
    return None


def _coefficient(poly: Poly, of: Poly) -> Poly | None:
    atoms = list(of.atoms())
    if len(atoms) != 1 or of != Poly.atom(atoms[0]):
        return None
    return poly.coefficient(atoms[0])


def _positive(poly: Poly | None) -> bool:
    return poly is not None and bool(poly.terms) and all(c > 0 for c in poly.terms.values())


def _writes(function: ir.Function) -> dict[str, list[tuple[int, int]]]:
    """Where each variable is assigned (line, column), declarations aside."""
    found: dict[str, list[tuple[int, int]]] = {}
    for node in function.of_type(ir.Binary, ir.Unary):
        target = node.lhs if isinstance(node, ir.Binary) and node.op in _ASSIGNMENTS else \
            node.operand if isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--") else None
        target = strip(target) if target is not None else None
        if isinstance(target, ir.Name) and target.ref:
            found.setdefault(target.ref, []).append(node.span[:2])
    return found
