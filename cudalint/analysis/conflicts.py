"""The conflict test: may two different threads of a block touch the same shared element, one of them writing?

The two accesses' index expressions and branch conditions are lowered to linear integer constraints by
`linearizer.py`, over per-thread variables (`t1.x`, `t2.x`), block-uniform variables shared by both
accesses (parameters, blockIdx, loop counters that do not change between the two accesses), and
per-access copies of variables that may change in between; the Omega test of `omega.py` decides whether
the system has an integer solution. This module holds what the systems are built from and what is made of
the answer: the block's shape and its thread and block variables (`BlockShape`, `thread_bounds`,
`distinct`), the renaming that makes products of the two instances meet (`unify_products`), and the
verdict (`decide`).

Free block-uniform values (kernel parameters, loop bounds) are existential: a conflict is reported when some
values of them make two threads meet. Values loaded from memory are existential too where that is sound (an
index read from data, a condition on data: some input makes them anything).

A verdict is CONFLICT only when the constraints are exact (no opaque sub-expression, no dropped
thread-dependent condition); otherwise a feasible system gives UNKNOWN, which no rule reports as an error.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from cudalint.analysis.omega import Constraint, Lin, eq, feasible, ge, less, less_equal

# ------------------------------------------------------------------------------------------ block shape


@dataclass(frozen=True)
class BlockShape:
    """What is known of a kernel's block (and grid) dimensions: a constant per axis, or None."""

    block: tuple[int | None, int | None, int | None] = (None, None, None)
    grid: tuple[int | None, int | None, int | None] = (None, None, None)
    max_threads: int | None = None

    def block_extent(self, axis: str) -> int | None:
        return self.block["xyz".index(axis)]

    def grid_extent(self, axis: str) -> int | None:
        return self.grid["xyz".index(axis)]


def thread_var(inst: str, axis: str) -> str:
    return f"t{inst}.{axis}"


def block_var(inst: str, axis: str) -> str:
    return f"b{inst}.{axis}"


def thread_bounds(shape: BlockShape, inst: str) -> list[Constraint]:
    """0 <= threadIdx.a < blockDim.a for the thread `inst`."""
    out: list[Constraint] = []
    for axis in "xyz":
        t = Lin.var(thread_var(inst, axis))
        extent = shape.block_extent(axis)
        if extent == 1:
            continue
        out.append(ge(t))
        if extent is not None:
            out.append(less(t, Lin.of(extent)))
        else:
            dim = Lin.var(f"B.{axis}")
            out.append(less(t, dim))
            out.append(less_equal(dim, Lin.of(1024)))
    return out


def block_bounds(shape: BlockShape, inst: str) -> list[Constraint]:
    out: list[Constraint] = []
    for axis in "xyz":
        b = Lin.var(block_var(inst, axis))
        extent = shape.grid_extent(axis)
        if extent == 1:
            continue
        out.append(ge(b))
        out.append(less(b, Lin.of(extent) if extent is not None else Lin.var(f"G.{axis}")))
    return out


def linear_thread_id(shape: BlockShape, inst: str) -> Lin | None:
    """threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z), when that is linear."""
    bx, by, _ = shape.block
    lin = Lin.var(thread_var(inst, "x"))
    if by == 1 and shape.block[2] == 1:
        return lin
    if bx is None:
        return None
    lin = lin + Lin.var(thread_var(inst, "y"), bx)
    if shape.block[2] == 1:
        return lin
    if by is None:
        return None
    return lin + Lin.var(thread_var(inst, "z"), bx * by)


def distinct(a: list[str], b: list[str]) -> list[list[Constraint]]:
    """Alternatives saying the variable vectors `a` and `b` differ somewhere."""
    out = []
    for x, y in zip(a, b):
        out.append([less(Lin.var(x), Lin.var(y))])
        out.append([less(Lin.var(y), Lin.var(x))])
    return out


# -------------------------------------------------------------------------------------------- products


def renamed_constraint(constraint: Constraint, names: Mapping[str, str]) -> Constraint:
    """The constraint with its variables renamed by `names` (terms that meet are added up)."""
    coeffs, const, is_eq = constraint
    out: dict[str, int] = {}
    for v, a in coeffs.items():
        v = names.get(v, v)
        out[v] = out.get(v, 0) + a
    return ({v: a for v, a in out.items() if a}, const, is_eq)


def renamed_lin(lin: Lin, names: Mapping[str, str]) -> Lin:
    coeffs, const, _ = renamed_constraint((lin.coeffs, lin.const, True), names)
    return Lin(coeffs, const)


def unify_products(first: Mapping[str, tuple[str, Lin, Lin]], second: Mapping[str, tuple[str, Lin, Lin]]
                   ) -> tuple[dict[str, str], list[Constraint]]:
    """For products the two instances take of one source expression with different factors (`row * seq`,
    `row` thread-dependent): the renaming of the second's to the first's, and the constraints that make
    their factors equal. Under those constraints the two products are equal, so the renamed system is a
    restriction of the real one: a solution of it is a real solution, its infeasibility proves nothing."""
    by_text: dict[str, list[tuple[str, Lin, Lin]]] = {}
    for name, (text, left, right) in first.items():
        by_text.setdefault(text, []).append((name, left, right))
    names: dict[str, str] = {}
    constraints: list[Constraint] = []
    for name, (text, left, right) in second.items():
        candidates = by_text.get(text, ())
        if name in first or len(candidates) != 1:
            continue
        other, other_left, other_right = candidates[0]
        names[name] = other
        constraints += [eq(left - other_left), eq(right - other_right)]
    return names, constraints


def mentions(constraints: Iterable[Constraint], names: Iterable[str]) -> bool:
    """Whether some constraint has a term in one of `names`."""
    names = set(names)
    return bool(names) and any(names.intersection(coeffs) for coeffs, _, _ in constraints)


# ------------------------------------------------------------------------------------------------ verdicts

CONFLICT, NONE, UNKNOWN = "conflict", "none", "unknown"


@dataclass
class Verdict:
    result: str  # CONFLICT, NONE, UNKNOWN
    exact: bool = True

    @property
    def conflict(self) -> bool:
        return self.result == CONFLICT


def decide(base: list[Constraint], alternatives: list[list[list[Constraint]]], exact: bool) -> Verdict:
    """Whether `base` together with one choice from each list of alternatives is feasible.

    An empty list of alternatives is unsatisfiable; a list of one empty alternative is no constraint.
    """
    quick = feasible(base)
    if quick is False:
        return Verdict(NONE)
    total = 1
    for options in alternatives:
        total *= max(len(options), 1)
    if total > 256:
        return Verdict(UNKNOWN, exact=False)
    undecided = quick is None
    for choice in itertools.product(*alternatives):
        system = list(base)
        for part in choice:
            system.extend(part)
        result = feasible(system)
        if result is True:
            return Verdict(CONFLICT if exact else UNKNOWN, exact)
        if result is None:
            undecided = True
    if any(not options for options in alternatives) and not undecided:
        return Verdict(NONE)
    return Verdict(UNKNOWN, exact=False) if undecided else Verdict(NONE)
