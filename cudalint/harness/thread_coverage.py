"""Launches that give a kernel fewer threads than its own bounds guard ask for, at the reference's shapes.

A kernel that handles one element per thread guards its store with the thread index it computes
(`if (i < n) out[i] = ...`, `if (threadIdx.x >= cols) return;`): the guard names how far the index is
meant to go. When the launch, evaluated at the reference problem's input shapes (`harness.shapes`),
gives that index fewer values than the guard's bound (a block capped at `min(cols, 1024)` for 4095
columns, a grid capped at 65535 blocks), the elements past the last thread are never computed and keep
whatever the output held.

Only the two plain forms of a thread index are read: `threadIdx.a` and `blockIdx.a * blockDim.a +
threadIdx.a` (through locals); a store whose index moves with a loop counter derived from the thread
index (a block- or grid-stride loop) is left alone, and so is a kernel launched from a host loop or from more
than one launch the host function reaches (chunked launches can cover the rest together). The bound must be a size the same
for every thread whose value the launch's arguments decide.
"""

from __future__ import annotations

from dataclasses import dataclass

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import AXES, strip
from cudalint.analysis.pointer_accesses import Access
from cudalint.analysis.symbolic import Atom, Poly
from cudalint.harness.host_run import ShapeEnv
from cudalint.harness.shapes import ShapedLaunch, kernel_env_at_reference, reached_launches_at_reference
from cudalint.model import ir


@dataclass(frozen=True)
class ShortLaunch:
    shaped: ShapedLaunch
    store: Access  # a store whose guard asks for more thread indices than the launch gives
    subject: ir.Expr  # the thread index the guard bounds
    limit: ir.Expr  # the guard's bound, as written in the kernel
    axis: str
    threads: int  # how many values the launch gives the thread index
    needed: int  # how many the guard lets through at the reference's shapes


def short_launches(ctx) -> list[ShortLaunch]:
    """The launches reached at the reference's shapes whose threads stop short of a store's guard."""
    program = ctx.program
    shaped_launches = reached_launches_at_reference(ctx)
    analysis = GuardAnalysis.of(program)
    reached: dict[tuple[int, str], int] = {}
    for shaped in shaped_launches:
        key = (id(shaped.site.caller), shaped.site.kernel_name)
        reached[key] = reached.get(key, 0) + 1
    found = []
    for shaped in shaped_launches:
        at_reference = kernel_env_at_reference(program, shaped)
        launch = shaped.at_reference
        if at_reference is None or launch.grid is None or launch.block is None \
                or None in launch.grid or None in launch.block \
                or reached[(id(shaped.site.caller), shaped.site.kernel_name)] != 1 \
                or analysis.guards(shaped.site.caller).loops(shaped.site.node):
            continue  # launches that may share the work between them
        kernel, env = at_reference
        short = _short_store(program, kernel, env, launch.grid, launch.block)
        if short is not None:
            found.append(ShortLaunch(shaped, *short))
    return found


def _short_store(program, kernel: ir.Function, env: ShapeEnv, grid, block):
    analysis = GuardAnalysis.of(program)
    guards = analysis.guards(kernel)
    provenance = analysis.provenance(kernel)
    stores = [a for a in analysis.accesses(kernel) if a.is_write and a.space in ("param", "global")]
    # an output some store reaches through a stride loop: that loop can store what the threads leave
    strided = {access.root.ref for access in stores
               if any(provenance.is_stepped(v) for v in provenance.access_provenance(access).variables)}
    for access in stores:
        if access.root.ref in strided:
            continue
        index = provenance.index_poly(access)
        for comparison in guards.comparisons(access.node):
            for subject, limit, inclusive in comparison.upper_bounds():
                subject_poly = provenance.poly(subject)
                axis = _thread_index_axis(subject_poly)
                if axis is None or not _uses_thread(index, axis) or not provenance.is_size_like(limit):
                    continue
                bound = env.value(strip(limit))
                if not isinstance(bound, int) or isinstance(bound, bool):
                    continue
                needed = bound + 1 if inclusive else bound
                position = AXES.index(axis)
                spans_grid = any(atom.kind == "bid" for atom in subject_poly.atoms())
                if not spans_grid and not _blocks_step_past(index, axis, needed, env, block):
                    continue  # the blocks along the axis cover the rest of the guard's range
                threads = block[position] * (grid[position] if spans_grid else 1)
                if needed > threads:
                    return access, subject, limit, axis, threads, needed
    return None


def _thread_index_axis(poly: Poly) -> str | None:
    """The axis of `threadIdx.a` or `blockIdx.a * blockDim.a + threadIdx.a`, else None."""
    for axis in AXES:
        tid, bid, bdim = Atom("tid", axis), Atom("bid", axis), Atom("bdim", axis)
        alone = Poly.atom(tid)
        if _same(poly, alone) or _same(poly, alone + Poly.atom(bid) * Poly.atom(bdim)):
            return axis
    return None


def _blocks_step_past(index: Poly, axis: str, needed: int, env: ShapeEnv, block) -> bool:
    """Whether each block index of the axis moves the store by at least the guard's range (a block per
    row of `needed` elements), so that the next block does not store what this one's threads left."""
    for monomial, coefficient in index.terms.items():
        if not any(atom.kind == "bid" and atom.key == axis for atom in monomial):
            continue
        step = coefficient
        for atom in monomial:
            if atom.kind == "bid" and atom.key == axis:
                continue
            value = block[AXES.index(atom.key)] if atom.kind == "bdim" and atom.key in AXES else \
                env.scalars.get(atom.key) if atom.kind == "var" else None
            if not isinstance(value, int):
                return False
            step *= value
        if step < needed:
            return False
    return True


def _same(poly: Poly, expected: Poly) -> bool:
    """Equal up to the atoms' labels (the symbolizer's atoms carry their spelling for messages)."""
    def canonical(p: Poly) -> dict:
        return {tuple(sorted((a.kind, a.key) for a in monomial)): c for monomial, c in p.terms.items()}
    return canonical(poly) == canonical(expected)


def _uses_thread(index: Poly, axis: str) -> bool:
    return any(atom.kind == "tid" and atom.key == axis for atom in index.atoms())

