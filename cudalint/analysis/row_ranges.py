"""Row ranges of offset arrays (CSR and its kin): `beg = P[x]` and `end = P[x + 1]`, loaded from one
array, delimit row x's elements `[beg, end)` in whatever arrays the offsets index (`nlist`, `eweight`).

`row_range_overruns` finds the accesses whose index is built from such a range and can leave it:
- a loop over the row that runs one step too far (`for (i = beg; i <= end; i++) nlist[i]`, or
  `nlist[i + 1]` under `i < end`): its last iteration reads the next row's first element, and past
  the end of the array for the last row;
- an element of the row read with nothing showing the row is not empty (`first = nlist[beg]` with no
  `beg < end`, `end - beg > 0`, `beg != end` or loop over the row around it): for an empty row it is
  the next row's element, and past the end of the array when the last row is empty.

An access counts as inside its row when the conditions dominating it imply `beg <= index < end`:
comparisons of polynomials over the loaded offsets (`deg = end - beg; if (deg > 0)` too), where a loop
`for (i = start; i < limit; ++i)` that was entered also shows `start < limit`.
"""

from __future__ import annotations

from dataclasses import dataclass

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import Comparison, strip
from cudalint.analysis.symbolic import Atom, Poly, Symbolizer
from cudalint.model import ir
from cudalint.model.program import Program


@dataclass(frozen=True, eq=False)
class RowRange:
    """`low` = P[x] and `high` = P[x + 1], two loads from one offset array that a loop runs over."""

    low: ir.Index
    high: ir.Index
    low_value: Poly
    high_value: Poly
    element_arrays: frozenset[str]  # the arrays the loops over the row index with their counter


@dataclass(frozen=True, eq=False)
class RangeOverrun:
    access: ir.Index  # `A[index]`, of any array (struct fields like `g.nlist` too)
    row: RowRange
    kind: str  # "loop" (the loop's last iteration leaves the row) or "empty" (nothing shows the row is not empty)
    loop: ir.For | None = None
    past: int = 0  # for "loop": how many elements past the row's end the last iteration reaches (0: `end` itself)


@dataclass(frozen=True, eq=False)
class _Counter:
    """An increasing loop counter: `for (i = start; i < limit (or <=, !=); i++ / i += step)`."""

    loop: ir.For
    atom: Atom
    start: Poly
    last: Poly | None  # the largest value the condition admits (limit - 1, or limit for <=)


def row_range_overruns(program: Program, function: ir.Function) -> list[RangeOverrun]:
    loops = function.of_type(ir.For)
    if not loops:
        return []  # a row range is one some loop runs over
    symbolizer = Symbolizer(program.env(function))
    counters = {id(loop): _read_counter(loop, symbolizer) for loop in loops}
    rows = _row_ranges(function, symbolizer, [c for c in counters.values() if c is not None])
    if not rows:
        return []
    guards = GuardAnalysis.of(program).guards(function)
    found: list[RangeOverrun] = []
    for access in function.of_type(ir.Index):
        if isinstance(strip(access.base), ir.Index):
            continue
        index = symbolizer.poly(access.index)
        known = [counters[id(loop)] for loop in guards.loops(access)
                 if isinstance(loop, ir.For) and counters[id(loop)] is not None]
        facts = _facts(guards.comparisons(access), symbolizer, known)
        for row in rows:
            overrun = _overrun(access, index, row, known, facts)
            if overrun is not None:
                found.append(overrun)
                break
    return found


def _row_ranges(function: ir.Function, symbolizer: Symbolizer, counters: list[_Counter]) -> list[RowRange]:
    """Pairs of loads `P[x]`, `P[x + 1]` from one array (by its spelling) that some loop runs over: from
    `P[x]` (plus a lane offset) up to `P[x + 1]`, or from 0 up to `P[x + 1] - P[x]`. Adjacent elements
    compared or subtracted (segment boundaries, gaps) are no row."""
    # only arrays whose loads bound some loop's start or limit can hold a row's ends
    bounding = {_spelling(expr.base) for c in counters for poly in (c.start, c.last) if poly is not None
                for atom in poly.atoms() if isinstance(expr := symbolizer.opaque_exprs.get(atom), ir.Index)}
    if not bounding:
        return []
    by_array: dict[str, list[tuple[ir.Index, Poly]]] = {}
    for node in function.of_type(ir.Index):
        if isinstance(strip(node.base), ir.Index):  # a row of a 2-D array, not an offset array
            continue
        spelling = _spelling(node.base)
        if spelling in bounding:
            by_array.setdefault(spelling, []).append((node, symbolizer.poly(node.index)))
    rows: list[RowRange] = []
    seen: set[tuple[Poly, Poly]] = set()
    for loads in by_array.values():
        for low, low_index in loads:
            for high, high_index in loads:
                if (high_index - low_index).constant != 1:
                    continue
                values = symbolizer.poly(low), symbolizer.poly(high)
                if values in seen:
                    continue
                seen.add(values)
                loops = [c for c in counters if _runs_over(c, *values)]
                if loops:
                    rows.append(RowRange(low, high, *values, element_arrays=frozenset(
                        _spelling(node.base) for c in loops for node in c.loop.body.walk()
                        if isinstance(node, ir.Index) and symbolizer.poly(node.index).coefficient(c.atom)
                        not in (None, Poly()))))
    return rows


def _spelling(expr: ir.Expr) -> str:
    return " ".join(expr.text.split())


def _runs_over(counter: _Counter, low: Poly, high: Poly) -> bool:
    if counter.last is None or len(low.atoms()) != 1 or len(high.atoms()) != 1:
        return False  # a constant load is no row's bound
    [low_atom], [high_atom] = low.atoms(), high.atoms()
    one = Poly.const(1)
    from_low = counter.start.coefficient(low_atom) == one and counter.last.coefficient(high_atom) == one
    over_degree = (counter.start.constant == 0 and counter.last.coefficient(high_atom) == one
                   and counter.last.coefficient(low_atom) == -one)
    return from_low or over_degree


def _read_counter(loop: ir.For, symbolizer: Symbolizer) -> _Counter | None:
    ref, name, start = _loop_start(loop.init)
    if ref is None or not _increases(loop.step, ref):
        return None
    atom = Atom("var", ref, name)  # as the symbolizer spells the counter
    last = None
    cond = strip(loop.cond) if loop.cond is not None else None
    if isinstance(cond, ir.Binary) and cond.op in ("<", "<=", "!=", ">", ">="):
        lhs, rhs, op = strip(cond.lhs), strip(cond.rhs), cond.op
        if isinstance(rhs, ir.Name) and rhs.ref == ref and op in (">", ">="):
            lhs, rhs, op = rhs, lhs, {">": "<", ">=": "<="}[op]
        if isinstance(lhs, ir.Name) and lhs.ref == ref and op in ("<", "<=", "!="):
            last = symbolizer.poly(rhs) - Poly.const(0 if op == "<=" else 1)
    return _Counter(loop, atom, symbolizer.poly(start), last)


def _loop_start(init: ir.Stmt | None) -> tuple[str | None, str, ir.Expr | None]:
    """The counter a loop's init sets (its declaration ref and name) and its first value."""
    if isinstance(init, ir.DeclStmt) and len(init.decls) == 1 and init.decls[0].init is not None:
        return init.decls[0].ref, init.decls[0].name, init.decls[0].init
    if isinstance(init, ir.ExprStmt) and isinstance(init.expr, ir.Binary) and init.expr.op == "=":
        target = strip(init.expr.lhs)
        if isinstance(target, ir.Name):
            return target.ref, target.name, init.expr.rhs
    return None, "", None


def _increases(step: ir.Expr | None, ref: str) -> bool:
    step = strip(step) if step is not None else None
    if isinstance(step, ir.Unary) and step.op in ("++", "post++"):
        operand = strip(step.operand)
        return isinstance(operand, ir.Name) and operand.ref == ref
    if isinstance(step, ir.Binary) and step.op == "+=":
        target, amount = strip(step.lhs), strip(step.rhs)
        negative = isinstance(amount, ir.Const) and isinstance(amount.value, (int, float)) and amount.value <= 0
        return isinstance(target, ir.Name) and target.ref == ref and not negative
    return False


def _facts(comparisons: list[Comparison], symbolizer: Symbolizer, counters: list[_Counter]) -> list[tuple[Poly, int]]:
    """Each dominating comparison as `difference >= least` (`a < b`: b - a >= 1). A counter that is the
    smaller side of its loop's own condition is replaced by its start as well: an entered loop shows
    `start < limit` too."""
    facts: list[tuple[Poly, int]] = []
    for comparison in comparisons:
        lhs, rhs = symbolizer.poly(comparison.lhs), symbolizer.poly(comparison.rhs)
        op = comparison.op
        if op in ("<", "<="):
            facts.append((rhs - lhs, 1 if op == "<" else 0))
        elif op in (">", ">="):
            facts.append((lhs - rhs, 1 if op == ">" else 0))
        elif op == "!=":  # offsets only grow: end != beg is end - beg >= 1; taken either way round (a fact
            # too many can only silence a finding)
            facts += [(rhs - lhs, 1), (lhs - rhs, 1)]
        elif op == "==":
            facts += [(rhs - lhs, 0), (lhs - rhs, 0)]
    for counter in counters:
        for difference, least in list(facts):
            if difference.coefficient(counter.atom) == Poly.const(-1):
                facts.append((_substitute(difference, counter.atom, counter.start), least))
    return facts


def _substitute(poly: Poly, atom: Atom, value: Poly) -> Poly:
    coefficient = poly.coefficient(atom)
    return poly if coefficient is None else poly.without(atom) + coefficient * value


def _implied(amount: Poly, least: int, facts: list[tuple[Poly, int]]) -> bool:
    """Whether `amount >= least` follows from a constant or from one fact plus a constant."""
    if amount.constant is not None:
        return amount.constant >= least
    for difference, at_least in facts:
        gap = (amount - difference).constant
        if gap is not None and gap + at_least >= least:
            return True
    return False


def _overrun(access: ir.Index, index: Poly, row: RowRange, counters: list[_Counter],
             facts: list[tuple[Poly, int]]) -> RangeOverrun | None:
    low, high = row.low_value, row.high_value
    room = high - index  # the row's end minus the index: at least 1 inside the row
    for counter in counters:
        coefficient = index.coefficient(counter.atom)
        if coefficient is None or not coefficient.terms:
            continue
        if coefficient != Poly.const(1) or counter.last is None or _implied(room, 1, facts):
            return None
        left = _substitute(room, counter.atom, counter.last).constant
        if left is not None and left < 1:
            return RangeOverrun(access, row, "loop", counter.loop, past=-left)
        return None
    above, below = (index - low).constant, room.constant
    if (above is None and below is None) or _spelling(access.base) not in row.element_arrays:
        return None  # not an offset from the row's ends into an array the row's loops read
    if not _implied(room, 1, facts) or not _implied(index - low, 0, facts):
        return RangeOverrun(access, row, "empty")
    return None
