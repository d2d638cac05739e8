"""Read-modify-writes of one global element by many threads with no atomic (`out[0] += v`,
`out[blockIdx.x] += v` in every thread of a block, `out[i / C] += x[i]`).

Two ways to know that many threads update one element:
- the constraint engine of the synchronization analysis (`SyncAnalysis.global_store_races`) finds two
  threads, of one block or of two blocks, that satisfy every guard of the store and address the same
  element; its read-modify-write races are taken from there (those between blocks only when the unit
  launches the kernel with a grid of more than one block: else they stay CL105's warnings);
- the address depends on the thread only through a quotient `e / d` (or `e >> k`) of a value `e` that
  steps by one from thread to thread (`blockIdx.x * blockDim.x + threadIdx.x`, `threadIdx.x`), by a
  divisor not provably 1: neighbouring threads then share the quotient whenever d >= 2. The engine
  cannot see that when `d` is a runtime size. The store's thread-dependent conditions must be bounds of
  `e` itself (`i < n`) or leave the quotient's threads together; a condition that picks one thread of the
  group (`if (i % C == 0)`) means one writer and no finding.
Atomics, and stores whose address comes from loaded data (a scatter through an index table, which may
well be a permutation), are never reported.
"""

from __future__ import annotations

from dataclasses import dataclass

from cudalint.analysis.barriers import sync_analysis
from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import AXES, comparisons_of, strip
from cudalint.analysis.launch_link import LaunchLinks
from cudalint.analysis.symbolic import BLOCK_DIM, BLOCK_IDX, THREAD_IDX, Poly
from cudalint.analysis.uniformity import Uniformity
from cudalint.model import ir
from cudalint.model.program import Program


@dataclass(frozen=True)
class RmwRace:
    store: ir.Expr  # the compound assignment, increment, or `x = f(x)` store
    target: ir.Expr  # the lvalue
    within_block: bool  # threads of one block update it
    across_blocks: bool  # threads of different blocks update it
    quotient: ir.Expr | None = None  # the shared quotient (`i / C`), when that is how it was found


def rmw_races(program: Program) -> list[RmwRace]:
    """Every read-modify-write race on global memory of the unit, once per store."""
    return program.analysis(_find_races)


def _find_races(program: Program) -> list[RmwRace]:
    analysis = sync_analysis(program)
    found: dict[tuple[int, int], RmwRace] = {}
    for function in analysis.roots:
        # a race between blocks only needs a grid of several blocks: known when the unit launches the kernel
        # with a grid that is not one block (a kernel launched elsewhere may run as a single block)
        launches = [site for site in program.launches if site.kernel is function]
        many_blocks = bool(launches) and any(site.grid != (1, 1, 1) for site in launches)
        for race in analysis.global_store_races(function):
            if race.read_modify_write and (race.within_block or many_blocks):
                found.setdefault(race.store.span[:2], RmwRace(race.store, race.target, race.within_block,
                                                              race.across_blocks))
    guards = GuardAnalysis.of(program)
    for function in program.functions:
        if function.body is None or not function.is_device_code:
            continue
        for race in _QuotientRaces(program, function, guards).find():
            found.setdefault(race.store.span[:2], race)
    return sorted(found.values(), key=lambda r: r.store.span[:2])


class _QuotientRaces:
    def __init__(self, program: Program, function: ir.Function, guards: GuardAnalysis) -> None:
        self.program = program
        self.function = function
        self.accesses = guards.accesses(function)
        self.guards = guards.guards(function)
        self.provenance = guards.provenance(function)
        self.env = program.env(function)
        self.dependence = program.analysis(Uniformity).of(function)
        self.blocks = LaunchLinks.of(program).block_sizes(function) if function.is_kernel else []

    def find(self) -> list[RmwRace]:
        updates = _updates(self.function)
        found = []
        for access in self.accesses:
            if not access.is_write or access.space not in ("param", "global") or isinstance(access.node, ir.Call):
                continue
            store = updates.get(id(access.node))
            if store is None:
                continue
            quotients: list[ir.Binary] = []
            if not all(self._through_quotients(part, quotients, 0) for part in access.parts) or not quotients:
                continue
            if self._one_writer(store, quotients):
                continue
            found.append(RmwRace(store, access.node, True, False, quotients[0]))
        return found

    def _through_quotients(self, expr: ir.Expr, quotients: list[ir.Binary], depth: int) -> bool:
        """Whether every thread-dependent value `expr` reads is a shared quotient (added to `quotients`),
        or a remainder or sum of such values, through single-assignment locals."""
        expr = strip(expr)
        if depth > 12:
            return False
        if not self.dependence.is_dependent(expr):
            return True
        if isinstance(expr, ir.Binary) and expr.op in ("/", ">>") and self._shared_quotient(expr):
            quotients.append(expr)
            return True
        if isinstance(expr, ir.Binary) and (expr.op in ("+", "-") or (expr.op == "%" and not self.dependence
                                            .is_dependent(expr.rhs)) or (expr.op == "*" and not (
                self.dependence.is_dependent(expr.lhs) and self.dependence.is_dependent(expr.rhs)))):
            return self._through_quotients(expr.lhs, quotients, depth + 1) and \
                self._through_quotients(expr.rhs, quotients, depth + 1)
        if isinstance(expr, ir.Unary) and expr.op in ("-", "+"):
            return self._through_quotients(expr.operand, quotients, depth + 1)
        if isinstance(expr, ir.Name) and expr.ref:
            definition = self.env.definition(expr.ref)
            return definition is not None and self._through_quotients(definition, quotients, depth + 1)
        return False

    def _shared_quotient(self, expr: ir.Binary) -> bool:
        """`e / d` with `e` stepping by one along a thread axis the launches give more than one thread, and
        `d` uniform and not provably 1."""
        if self.dependence.is_dependent(expr.rhs):
            return False
        divisor = self.env.value(expr.rhs)
        if divisor is not None and (divisor < 1 if expr.op == ">>" else divisor < 2):
            return False
        poly = self.provenance.poly(expr.lhs)
        threads = [a for a in poly.atoms() if a.kind == THREAD_IDX]
        if len(threads) != 1 or poly.coefficient(threads[0]) != Poly.const(1):
            return False
        if self.blocks and all(block[AXES.index(threads[0].key)] == 1 for block in self.blocks):
            return False  # one thread along that axis: no neighbours
        # besides the thread index only uniform terms: block offsets, parameters, constants
        return all(a.kind in (THREAD_IDX, BLOCK_IDX, BLOCK_DIM)
                   or (a.kind == "var" and a.key not in self.dependence.dependent_refs) for a in poly.atoms())

    def _one_writer(self, store: ir.Expr, quotients: list[ir.Binary]) -> bool:
        """Whether a thread-dependent condition of the store may single out one thread of a quotient's
        group: anything but a bound of the quotient's dividend (`i < n`) or a condition on shared
        quotients alone (`row < rows`)."""
        dividends = {self.provenance.poly(q.lhs) for q in quotients}
        for condition in self.guards.conditions(store):
            if not self.dependence.is_dependent(condition.expr):
                continue
            comparisons = comparisons_of(condition, self.env)
            if not comparisons:
                if not self._through_quotients(condition.expr, [], 0):
                    return True
                continue
            for comparison in comparisons:
                if not (self._bounds_dividend(comparison.lhs, comparison.rhs, dividends)
                        or (self._through_quotients(comparison.lhs, [], 0)
                            and self._through_quotients(comparison.rhs, [], 0))):
                    return True
        return False

    def _bounds_dividend(self, lhs: ir.Expr, rhs: ir.Expr, dividends: set) -> bool:
        for subject, limit in ((lhs, rhs), (rhs, lhs)):
            if self.provenance.poly(subject) in dividends and not self.dependence.is_dependent(limit):
                return True
        return False


def _updates(function: ir.Function) -> dict[int, ir.Expr]:
    """The read-modify-write stores of `function` by the id of their lvalue: compound assignments,
    increments, and `x = f(x)` with the same lvalue text read on the right."""
    found: dict[int, ir.Expr] = {}
    for node in function.of_type(ir.Binary, ir.Unary):
        if isinstance(node, ir.Binary) and node.is_assignment:
            target = " ".join(node.lhs.text.split())
            if node.op != "=" or any(isinstance(n, (ir.Index, ir.Unary)) and " ".join(n.text.split()) == target
                                     for n in node.rhs.walk()):
                found[id(node.lhs)] = node
        elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--"):
            found[id(node.operand)] = node
    return found
