"""Index expressions as polynomials over thread ids, block ids, dimensions, parameters and variables.

`blockIdx.x * blockDim.x + threadIdx.x` becomes {(bid.x, bdim.x): 1, (tid.x,): 1}. Locals assigned once
are replaced by their definitions; anything non-polynomial (division, modulo, calls, loads) becomes an
opaque atom keyed by its text, so equal sub-expressions still compare equal.
"""

from __future__ import annotations

from dataclasses import dataclass

from cudalint.model import ir
from cudalint.model.constants import ConstantEnv

# atom kinds
THREAD_IDX, BLOCK_IDX, BLOCK_DIM, GRID_DIM = "tid", "bid", "bdim", "gdim"
_BUILTIN_ATOMS = {"threadIdx": THREAD_IDX, "blockIdx": BLOCK_IDX, "blockDim": BLOCK_DIM, "gridDim": GRID_DIM}


@dataclass(frozen=True, order=True)
class Atom:
    kind: str  # "tid", "bid", "bdim", "gdim", "var" (a local or parameter), "opaque", "warpsize"
    key: str  # axis for builtins ("x"), the declaration ref for variables, the text for opaque atoms
    label: str = ""  # for messages: "threadIdx.x", "n"

    def __str__(self) -> str:
        return self.label or self.key


Monomial = tuple[Atom, ...]  # sorted atoms; () is the constant term


class Poly:
    """A polynomial with integer coefficients over atoms."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict[Monomial, int] | None = None) -> None:
        self.terms = {m: c for m, c in (terms or {}).items() if c != 0}

    @staticmethod
    def const(value: int) -> Poly:
        return Poly({(): value})

    @staticmethod
    def atom(atom: Atom) -> Poly:
        return Poly({(atom,): 1})

    def __add__(self, other: Poly) -> Poly:
        terms = dict(self.terms)
        for m, c in other.terms.items():
            terms[m] = terms.get(m, 0) + c
        return Poly(terms)

    def __neg__(self) -> Poly:
        return Poly({m: -c for m, c in self.terms.items()})

    def __sub__(self, other: Poly) -> Poly:
        return self + (-other)

    def __mul__(self, other: Poly) -> Poly:
        terms: dict[Monomial, int] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in other.terms.items():
                m = tuple(sorted(m1 + m2))
                terms[m] = terms.get(m, 0) + c1 * c2
        return Poly(terms)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Poly) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(frozenset(self.terms.items()))

    def __repr__(self) -> str:
        return f"Poly({self})"

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for m, c in sorted(self.terms.items(), key=lambda t: (len(t[0]), t[0])):
            name = "*".join(str(a) for a in m)
            parts.append(str(c) if not m else (name if c == 1 else f"{c}*{name}"))
        return " + ".join(parts)

    @property
    def constant(self) -> int | None:
        """The value when the polynomial is a constant."""
        if not self.terms:
            return 0
        if set(self.terms) == {()}:
            return self.terms[()]
        return None

    def atoms(self) -> set[Atom]:
        return {a for m in self.terms for a in m}

    def has_kind(self, kind: str) -> bool:
        return any(a.kind == kind for a in self.atoms())

    def coefficient(self, atom: Atom) -> Poly | None:
        """The polynomial multiplying `atom` when it occurs only linearly; None if it occurs squared."""
        terms = {}
        for m, c in self.terms.items():
            count = m.count(atom)
            if count > 1:
                return None
            if count == 1:
                rest = list(m)
                rest.remove(atom)
                terms[tuple(rest)] = c
        return Poly(terms)

    def without(self, atom: Atom) -> Poly:
        """The terms that do not mention `atom`."""
        return Poly({m: c for m, c in self.terms.items() if atom not in m})


def thread_atom(axis: str) -> Atom:
    return Atom(THREAD_IDX, axis, f"threadIdx.{axis}")


class Symbolizer:
    """Converts expressions of one function to polynomials, expanding single-assignment locals."""

    def __init__(self, env: ConstantEnv, expand_locals: bool = True) -> None:
        self.env = env
        self.expand_locals = expand_locals
        # the expression behind each opaque atom made so far (the first one seen for that text)
        self.opaque_exprs: dict[Atom, ir.Expr] = {}

    def poly(self, expr: ir.Expr | None, depth: int = 0) -> Poly:
        if expr is None:
            return Poly.atom(Atom("opaque", "?"))
        if depth > 40:
            return self._opaque(expr)
        if isinstance(expr, ir.Const):
            value = expr.value
            if isinstance(value, bool):
                return Poly.const(int(value))
            if isinstance(value, int):
                return Poly.const(value)
            return self._opaque(expr)
        if isinstance(expr, ir.Member) and isinstance(expr.base, ir.Name) and expr.base.name in _BUILTIN_ATOMS:
            kind = _BUILTIN_ATOMS[expr.base.name]
            return Poly.atom(Atom(kind, expr.field, f"{expr.base.name}.{expr.field}"))
        if isinstance(expr, ir.Name):
            if expr.constant is not None and isinstance(expr.constant, int):
                return Poly.const(expr.constant)
            if expr.name == "warpSize":
                return Poly.const(32)
            definition = self.env.definition(expr.ref) if self.expand_locals else None
            if definition is not None:
                return self.poly(definition, depth + 1)
            return Poly.atom(Atom("var", expr.ref or expr.name, expr.name))
        if isinstance(expr, ir.Cast):
            return self.poly(expr.operand, depth + 1)
        if isinstance(expr, ir.Unary):
            if expr.op == "-":
                return -self.poly(expr.operand, depth + 1)
            if expr.op == "+":
                return self.poly(expr.operand, depth + 1)
            return self._opaque(expr)
        if isinstance(expr, ir.Binary):
            if expr.op in ("+", "-", "*"):
                left, right = self.poly(expr.lhs, depth + 1), self.poly(expr.rhs, depth + 1)
                return left + right if expr.op == "+" else (left - right if expr.op == "-" else left * right)
            if expr.op == "<<":
                shift = self.env.value(expr.rhs)
                if isinstance(shift, int) and 0 <= shift < 31:
                    return self.poly(expr.lhs, depth + 1) * Poly.const(1 << shift)
            if expr.op in ("/", "%", ">>", "&"):
                value = self.env.value(expr)
                if isinstance(value, int):
                    return Poly.const(value)
            return self._opaque(expr)
        value = self.env.value(expr)
        if isinstance(value, int):
            return Poly.const(value)
        return self._opaque(expr)

    def _opaque(self, expr: ir.Expr) -> Poly:
        atom = Atom("opaque", " ".join(expr.text.split()) or type(expr).__name__, expr.text)
        self.opaque_exprs.setdefault(atom, expr)
        return Poly.atom(atom)
