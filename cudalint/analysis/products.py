"""Matrix-product-shaped loops: a loop whose body accumulates the product of two loaded elements whose
addresses both step with the loop's counter, and which two different output coordinates pick.

`acc += A[row * K + k] * B[k * N + col]` in `for (k ...)` is one: the counter `k` runs through both
operands, `A` depends on the row and not on the column, `B` on the column and not on the row, so every
element of `A` is needed by every thread of its row and every element of `B` by every thread of its
column. A direct convolution (`x[...c, ih + kh, iw + kw] * w[oc, c, kh, kw]`) is one too; a
matrix-vector product (`A[row * K + k] * x[k]`: `x` picks no output coordinate) or a dot product is not.

Operands may be wrapped in conversions (`__half2float(a[i])`, `(float)a[i]`) or loaded through an
intrinsic (`__ldg(&a[i])`); the accumulation may be
`acc += p * q`, `acc = acc + p * q`, or a fused multiply-add call (`fmaf(p, q, acc)`, `__hfma`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import strip
from cudalint.analysis.pointer_accesses import Access
from cudalint.analysis.symbolic import BLOCK_IDX, THREAD_IDX, Atom
from cudalint.model import ir
from cudalint.model.program import Program

_FMA_CALLS = re.compile(r"^(std::)?(fmaf?|__fmaf?_r[nzud]|__hfma2?|__fma_r[nzud])$")
_CONVERSIONS = re.compile(r"^(__half2float|__bfloat162float|__low2float|__high2float|float|double|static_cast)$")


@dataclass(frozen=True)
class InnerProduct:
    """One accumulation of a matrix-product-shaped loop."""

    loop: ir.Stmt  # the innermost loop whose counter steps through both operands
    counter: str  # the counter's name
    update: ir.Expr  # the accumulation expression
    operands: tuple[Access, Access]


class InnerProducts:
    """The matrix-product-shaped accumulations of each kernel (`InnerProducts.of(program)`)."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.guards = GuardAnalysis.of(program)
        self._found: dict[int, list[InnerProduct]] = {}

    @staticmethod
    def of(program: Program) -> InnerProducts:
        return program.analysis(InnerProducts)

    def of_kernel(self, kernel: ir.Function) -> list[InnerProduct]:
        key = id(kernel)
        if key not in self._found:
            self._found[key] = self._collect(kernel) if kernel.body is not None else []
        return self._found[key]

    def _collect(self, kernel: ir.Function) -> list[InnerProduct]:
        by_node = {id(access.node): access for access in self.guards.accesses(kernel)}
        guards = self.guards.guards(kernel)
        provenance = self.guards.provenance(kernel)
        found = []
        for update in kernel.of_type(ir.Binary, ir.Call):
            factors = _product_factors(update)
            if factors is None:
                continue
            operands = [by_node.get(id(_loaded(factor))) for factor in factors]
            if None in operands:
                continue
            first, second = operands
            polys = [provenance.index_poly(a) for a in (first, second)]
            for loop in reversed(guards.loops(update)):
                counter = _counter(loop)
                if counter is None:
                    continue
                if all(any(a.kind == "var" and a.key == counter.ref for a in p.atoms()) for p in polys):
                    coordinates = [_coordinates(p, provenance) for p in polys]
                    if coordinates[0] - coordinates[1] and coordinates[1] - coordinates[0]:
                        found.append(InnerProduct(loop, counter.name, update, (first, second)))
                    break
        return found


def _product_factors(expr: ir.Expr) -> tuple[ir.Expr, ir.Expr] | None:
    """The two factors an accumulation adds: `acc += p * q`, `acc = acc + p * q`, `fmaf(p, q, acc)`."""
    if isinstance(expr, ir.Call):
        if _FMA_CALLS.match(expr.callee) and len(expr.args) == 3:
            return expr.args[0], expr.args[1]
        return None
    product = None
    if expr.op == "+=":
        product = strip(expr.rhs)
    elif expr.op == "=" and isinstance(strip(expr.rhs), ir.Binary) and strip(expr.rhs).op == "+":
        total = strip(expr.rhs)
        target = strip(expr.lhs)
        if isinstance(target, ir.Name):
            for own, other in ((total.lhs, total.rhs), (total.rhs, total.lhs)):
                if isinstance(strip(own), ir.Name) and strip(own).ref == target.ref:
                    product = strip(other)
    if isinstance(product, ir.Binary) and product.op == "*":
        return product.lhs, product.rhs
    return None


def _loaded(expr: ir.Expr) -> ir.Expr:
    """The load under conversions: `__half2float(a[i])` -> `a[i]` (a load intrinsic, `__ldg(&a[i])`, is
    its own access)."""
    expr = strip(expr)
    while isinstance(expr, ir.Call) and _CONVERSIONS.match(expr.callee) and len(expr.args) == 1:
        expr = strip(expr.args[0])
    return expr


@dataclass(frozen=True)
class _Counter:
    ref: str
    name: str


def _counter(loop: ir.Stmt) -> _Counter | None:
    if not isinstance(loop, ir.For) or loop.init is None:
        return None
    if isinstance(loop.init, ir.DeclStmt) and len(loop.init.decls) == 1 and loop.init.decls[0].ref:
        decl = loop.init.decls[0]
        return _Counter(decl.ref, decl.name)
    if isinstance(loop.init, ir.ExprStmt) and isinstance(loop.init.expr, ir.Binary) and loop.init.expr.op == "=":
        target = strip(loop.init.expr.lhs)
        if isinstance(target, ir.Name) and target.ref:
            return _Counter(target.ref, target.name)
    return None


def _coordinates(poly, provenance) -> frozenset[Atom]:
    """The thread- or block-dependent parts of an index: thread and block indices, and variables and
    opaque terms (`idx / N`, `idx % N`) that differ between threads."""
    dependence = provenance.dependence
    found = set()
    for atom in poly.atoms():
        if atom.kind in (THREAD_IDX, BLOCK_IDX):
            found.add(atom)
        elif atom.kind == "var" and atom.key in dependence.dependent_refs:
            found.add(atom)
        elif atom.kind == "opaque":
            expr = provenance.symbolizer.opaque_exprs.get(atom)
            if expr is not None and (dependence.is_dependent(expr) or not provenance.of(expr).empty
                                     or _reads_block_index(expr)):
                found.add(atom)
    return frozenset(found)


def _reads_block_index(expr: ir.Expr) -> bool:
    return any(isinstance(node, ir.Member) and isinstance(node.base, ir.Name) and node.base.name == "blockIdx"
               for node in expr.walk())
