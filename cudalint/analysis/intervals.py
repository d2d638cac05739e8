"""Barrier intervals: the memory accesses that can run between two barriers, and the races among them.

For each kernel (with its `__device__` callees inlined, see `cfg.py`):
- every shared-memory access (read, write, read-modify-write, atomic, and the warp-collective wmma
  loads/stores) with its index flattened to `sum(scale * expr)` over the array's dimensions, through
  pointers derived from the array (`float* row = &tile[ty][0]`, `volatile float* v = s`);
- the barrier intervals ("epochs"): from the kernel's entry or a block barrier, the nodes reachable
  without passing another block barrier. Two accesses in one epoch can run concurrently in two threads.
  Loops make intervals loop-carried: the read at the end of iteration k and the write at the top of
  iteration k+1 share an epoch when no barrier separates them;
- for each pair of accesses of one array in one epoch (at least one writing), the variables assigned on a
  barrier-free path between them (they get separate copies per access in the conflict test), and the
  conflict test of `conflicts.py`. A loop counter among them whose step count from the epoch's start is
  the same on every path to an access is pinned there: the write before the back edge runs at counter
  `c`, the read after it at `c + step`.

The same pairs are formed for global memory (buffers reached from a kernel's pointer parameters and
`__device__` variables): within a block, in the intervals between block barriers; across blocks, in the
intervals between grid barriers, with the block indices of the two accesses free to differ.

The memory accesses come from `accesses.py`; their intervals' starts and the lowering of each access,
with the loop-counter pinning, from `KernelConstraints` (`kernel_constraints.py`), which `KernelSync`
extends with the pairs, their conflict test, the races, and the questions about one launch's threads
(`first_past`, `below_a_compared_size`, `reached_by_some_thread`). `barriers.py` caches a `KernelSync`
per kernel and launch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from cudalint.analysis.accesses import ATOMIC, WRITE, MemoryAccess, Race
from cudalint.analysis.cfg import BLOCK_LEVEL, GRID, WARP, CfgNode, Guard, Scope
from cudalint.analysis.conflicts import (
    CONFLICT, NONE, UNKNOWN, BlockShape, Verdict, block_bounds, block_var, decide, distinct, linear_thread_id, mentions,
    renamed_constraint, renamed_lin, thread_bounds, thread_var, unify_products,
)
from cudalint.analysis.kernel_constraints import KernelConstraints, guard_alternatives
from cudalint.analysis.linearizer import Linearizer, assigned_values
from cudalint.analysis.omega import Constraint, Lin, eq, less, less_equal
from cudalint.analysis.uniformity import per_thread_nodes
from cudalint.model import ir
from cudalint.model.constants import bare_type, is_integer_type, type_size

if TYPE_CHECKING:
    from cudalint.analysis.barriers import SyncAnalysis


_MAX_PAIRS = 5000  # pairs of accesses tested per kernel at most


# -------------------------------------------------------------------------------------- kernel analysis


def _modes_conflict(a: MemoryAccess, b: MemoryAccess) -> bool:
    if not (a.writes or b.writes):
        return False
    if a.field and b.field and not (a.field.startswith(b.field + ".") or b.field.startswith(a.field + ".")) \
            and a.field != b.field:
        return False  # two different members of a struct element
    return not (a.mode == ATOMIC and b.mode == ATOMIC)


class KernelSync(KernelConstraints):
    """Barrier intervals and races of one kernel (or of a device function analyzed on its own)."""

    def __init__(self, analysis: SyncAnalysis, function: ir.Function, shape: BlockShape | None = None,
                 values: dict[str, int] | None = None) -> None:
        super().__init__(analysis, function, shape, values)
        self._write_backs: dict[int, bool] = {}

    def candidate_pairs(self, by_node: dict[CfgNode, list[MemoryAccess]] | None = None,
                        across_blocks: bool = False) -> list[tuple[MemoryAccess, MemoryAccess, list[CfgNode]]]:
        """Pairs of accesses of one array, at least one writing, that can run in one barrier interval, with
        the starts of the intervals they share: the accesses of `by_node` (the shared ones by default), in
        the intervals between block barriers, or between grid barriers when `across_blocks`. Within a
        block, accesses that all touch element f(threadIdx), for one injective f, are never paired with
        each other (a thread only meets itself there)."""
        by_node = self.by_node if by_node is None else by_node
        starts, stop = (self.grid_epoch_starts, (GRID,)) if across_blocks else (self.epoch_starts, BLOCK_LEVEL)
        found: dict[tuple[int, int], tuple[MemoryAccess, MemoryAccess, list[CfgNode]]] = {}
        for start in starts:
            region = self.cfg.reach(start, stop)
            groups: dict[int, list[MemoryAccess]] = {}
            for node in region:
                for access in by_node.get(node, ()):
                    groups.setdefault(access.key, []).append(access)
            for group in groups.values():
                if not any(access.writes for access in group):
                    continue  # reads only: no pair conflicts (and the element keys cost a linearization each)
                group.sort(key=lambda a: (a.node.index, a.expr.span.line, a.expr.span.column))
                buckets: dict[object, list[MemoryAccess]] = {}
                for access in group:
                    own = None if across_blocks else self._own_element_key(access)
                    buckets.setdefault(own or id(access), []).append(access)
                lists = list(buckets.items())
                for i, (key_a, bucket_a) in enumerate(lists):
                    for key_b, bucket_b in lists[i:]:
                        if key_a is key_b and not isinstance(key_a, int):
                            continue  # one injective thread index: no two threads meet
                        for a in bucket_a:
                            for b in bucket_b:
                                if key_a is key_b and b is not a and (id(b), id(a)) in found:
                                    continue
                                if not _modes_conflict(a, b):
                                    continue
                                pair = (id(a), id(b))
                                if pair not in found:
                                    found[pair] = (a, b, [])
                                found[pair][2].append(start)
        return list(found.values())

    def _own_element_key(self, access: MemoryAccess) -> tuple | None:
        """A key shared by accesses that touch the same injective function of threadIdx; None otherwise."""
        if access.collective:
            return None
        index = self._thread_index(access)
        if index is None or not self._injective(index):
            return None
        return (tuple(sorted(index.coeffs.items())), index.const, access.field)

    def renamed_between(self, a: MemoryAccess, b: MemoryAccess) -> frozenset[str]:
        """Variables assigned on a barrier-free path from one access to the other (either way)."""
        reach = self.cfg.reach
        ra, rb = reach(a.node), reach(b.node)
        out: set[str] = set()
        for node, assigned in self._def_nodes.items():
            if (node in ra and b.node in reach(node)) or (node in rb and a.node in reach(node)):
                out |= assigned
        return frozenset(out)

    def same_warp_interval(self, a: MemoryAccess, b: MemoryAccess) -> bool:
        """Whether the pair can also run with no __syncwarp (or tile sync) between them."""
        stop = BLOCK_LEVEL + (WARP,)
        reach = self.cfg.reach
        if b.node in reach(a.node, stop) or a.node in reach(b.node, stop) or a.node is b.node:
            return True
        starts = [self.cfg.entry] + [n for n in self.cfg.barrier_nodes() if n in self.cfg.reachable]
        return any(a.node in reach(s, stop) and b.node in reach(s, stop) for s in starts)

    # ------------------------------------------------------------------------------- conflict test

    def test(self, a: MemoryAccess, b: MemoryAccess, renamed: frozenset[str] = frozenset(),
             cross_warp: bool = False, start: CfgNode | None = None, across_blocks: bool = False) -> Verdict:
        """May two different threads make accesses `a` and `b` to one element (in one interval)?

        `renamed`: variables that may change between the two accesses; `start`: the interval's first node
        (its path conditions apply); `cross_warp`: only threads of different warps count; `across_blocks`:
        only threads of different blocks count."""
        index1, index_constraints1, guards1, exact1, products1 = self._lowered(a, "1", renamed, start, across_blocks)
        index2, index_constraints2, guards2, exact2, products2 = self._lowered(b, "2", renamed, start, across_blocks)
        if not (self._index_exact(a, "1", renamed, across_blocks)
                and self._index_exact(b, "2", renamed, across_blocks)):
            return Verdict(UNKNOWN, exact=False)  # an index the constraints do not capture: never a conflict
        if (a.index.symbolic_base or b.index.symbolic_base) and a.index.base != b.index.base:
            # two regions of one buffer split at a run-time size: they are meant not to overlap
            return Verdict(UNKNOWN, exact=False)
        # products of two unknowns (`row * seq`): the same factors in both instances, or made equal
        same, unified = unify_products(products1, products2)
        if same:
            index2 = renamed_lin(index2, same)
            index_constraints2 = [renamed_constraint(c, same) for c in index_constraints2]
            guards2 = [([[renamed_constraint(c, same) for c in option] for option in options],
                        [renamed_constraint(c, same) for c in constraints]) for options, constraints in guards2]
        base: list[Constraint] = thread_bounds(self.shape, "1") + thread_bounds(self.shape, "2")
        base.append(eq(index1 - index2))
        base += index_constraints1 + index_constraints2 + unified
        if (products1 or products2) and mentions(
                base + [c for options, constraints in guards1 + guards2
                        for c in constraints + [c for option in options for c in option]], [*products1, *products2]):
            return Verdict(UNKNOWN, exact=False)  # a product the constraints cannot drop: never a conflict
        alternatives = []
        if across_blocks:
            blocks = [axis for axis in "xyz" if self.shape.grid_extent(axis) != 1]
            if not blocks:
                return Verdict(NONE)  # a grid of one block
            base += block_bounds(self.shape, "1") + block_bounds(self.shape, "2")
            alternatives.append(distinct([block_var("1", x) for x in blocks], [block_var("2", x) for x in blocks]))
        else:
            base += block_bounds(self.shape, "")  # the one block both threads are in
        active = [axis for axis in "xyz" if self.shape.block_extent(axis) != 1]
        if not (a.collective or b.collective or across_blocks):
            alternatives.append(distinct([thread_var("1", x) for x in active], [thread_var("2", x) for x in active]))
        if a.collective and b.collective:
            cross_warp = True  # one warp's collective operations are ordered among themselves
        if cross_warp:
            l1, l2 = Linearizer(self.context, "1"), Linearizer(self.context, "2")
            w1, w2 = self._warp(l1), self._warp(l2)
            if w1 is None or w2 is None:
                return Verdict("unknown", exact=False)
            base += l1.constraints + l2.constraints
            alternatives.append([[less(w1, w2)], [less(w2, w1)]])
        # the products made equal restrict the system: only its conflicts are conclusive
        unproven = Verdict(UNKNOWN, exact=False) if unified else Verdict(NONE)
        # without the guards first: most pairs of correct code are told apart by their indices alone
        if decide(base, alternatives, True).result == NONE:
            return unproven
        for options, constraints in guards1 + guards2:
            alternatives.append(options)
            base += constraints
        verdict = decide(base, alternatives, exact1 and exact2)
        return unproven if verdict.result == NONE else verdict

    def below_a_compared_size(self, access: MemoryAccess, limit: ir.Expr | None = None) -> bool:
        """Whether the guards dominating `access` keep its index below `limit`, or, without one, below some
        variable they compare with (`n` in `base + BDIM + R <= n`): no thread of the launch passes them with
        the index at or past it. Decided by the Omega test over the lowered guards and the launch's block
        and grid bounds; a guard or limit the lowering cannot express is left free, which only makes the
        system easier to satisfy, and undecided is False. CL201 and CL202 ask this before reporting what
        their patterns find (a bound implied by a block-uniform fast path, `interior = ...`)."""
        if not self._solver_exact(access, limit):
            return False
        index, index_constraints, guards, _exact, products = self._lowered(access, "1", frozenset(), None)
        base = thread_bounds(self.shape, "1") + block_bounds(self.shape, "") + list(index_constraints)
        alternatives = []
        sizes: set[str] = set()
        for options, constraints in guards:
            alternatives.append(options)
            base += constraints
            for constraint in constraints + [c for option in options for c in option]:
                sizes |= set(constraint[0])
        if limit is not None:
            lin = Linearizer(self.context, "1", products=True)
            lin.at = access.node
            bounds = [lin.lin(limit, access.node.scope)]
            base += lin.constraints
        else:
            launch = {thread_var("1", axis) for axis in "xyz"} | {block_var("", axis) for axis in "xyz"}
            sizes -= launch | {f"B.{axis}" for axis in "xyz"} | {f"G.{axis}" for axis in "xyz"} | set(products)
            bounds = [Lin.var(size) for size in sorted(sizes - set(index.coeffs))]
        return any(decide(base + [less_equal(bound, index)], alternatives, True).result == NONE for bound in bounds)

    def reached_by_some_thread(self, node: CfgNode) -> bool | None:
        """Whether some thread of this kernel's launch (`kernel_at`) passes every guard of `node`: True, False
        (no thread of the launch reaches it), or None when the constraints do not say exactly what the guards
        compute (as `first_past` requires)."""
        if any(guard.kind in ("switch", "after_loop") for guard in node.guards) \
                or not self._values_exact([], node.guards, node):
            return None
        probe = Linearizer(self.context, "1", products=True)
        base = thread_bounds(self.shape, "1") + block_bounds(self.shape, "")
        alternatives = []
        for guard in node.guards:
            probe.constraints = []
            probe.at = guard.node or node
            options = guard_alternatives(probe, guard)
            if options is None:
                return None
            alternatives.append(options)
            base += probe.constraints
        names = {name for coeffs, _, _ in base for name in coeffs} | {
            name for options in alternatives for option in options for coeffs, _, _ in option for name in coeffs}
        if not probe.exact or not all(_pinned_launch_var(name) for name in names):
            return None
        return {CONFLICT: True, NONE: False}.get(decide(base, alternatives, True).result)

    def first_past(self, access: MemoryAccess, elements: int) -> PastTheEnd | None:
        """A thread of this kernel's launch (the block shape, grid and parameter values `kernel_at` pinned)
        whose access `access` reaches element `elements` or beyond, with the first such element; None when
        no thread does, or when the constraints do not say exactly what the code computes: an inexact
        index, a guard the lowering drops or cannot express (a switch, a per-thread loop's exit, a test of
        loaded data), a free value (a parameter, a local with several definitions), an undecided system."""
        if not self._solver_exact(access, None) or any(guard.kind == "switch" for guard in access.guards):
            return None
        index, index_constraints, guards, exact, _products = self._lowered(access, "1", frozenset(), None)
        if not exact or len(guards) != len(access.guards):
            return None
        indexed = set(index.coeffs) | {name for coeffs, _, _ in index_constraints for name in coeffs}
        probe = Linearizer(self.context, "1", products=True)
        for guard in access.guards:
            probe.at = guard.node or access.node
            options = guard_alternatives(probe, guard)
            if options is None:
                return None  # a guard that puts no constraint: the access may not run where the system says
            if guard.kind == "after_loop" and indexed & {name for option in options for coeffs, _, _ in option
                                                         for name in coeffs}:
                return None  # a failed loop test bounds the counter's final value from one side only
        base = thread_bounds(self.shape, "1") + block_bounds(self.shape, "") + list(index_constraints)
        alternatives = []
        for options, constraints in guards:
            alternatives.append(options)
            base += constraints
        base.append(less_equal(Lin.of(elements), index))
        names = {name for coeffs, _, _ in base for name in coeffs} | {
            name for options in alternatives for option in options for coeffs, _, _ in option for name in coeffs}
        if not all(_pinned_launch_var(name) for name in names):
            return None
        if decide(base, alternatives, True).result != CONFLICT:
            return None
        pins: list[Constraint] = []
        position = {}
        for var, extent in ([(block_var("", a), self.shape.grid_extent(a)) for a in "xyz"]
                            + [(thread_var("1", a), self.shape.block_extent(a)) for a in "xyz"]):
            if var not in names or extent is None:
                position[var] = 0
                continue
            low = _least(lambda bound: decide(base + pins + [less_equal(Lin.var(var), Lin.of(bound))],
                                              alternatives, True).result == CONFLICT, 0, extent - 1)
            if low is None:
                return None
            pins.append(eq(Lin.var(var) - Lin.of(low)))
            position[var] = low
        limit = elements
        while decide(base + pins + [less_equal(index, Lin.of(limit))], alternatives, True).result != CONFLICT:
            if limit > 2 ** 62:
                return None
            limit = 2 * limit + 1
        element = _least(lambda bound: decide(base + pins + [less_equal(index, Lin.of(bound))], alternatives,
                                              True).result == CONFLICT, elements, limit)
        if element is None:
            return None
        return PastTheEnd(tuple(position[thread_var("1", a)] for a in "xyz"),
                          tuple(position[block_var("", a)] for a in "xyz"), element)

    def _solver_exact(self, access: MemoryAccess, limit: ir.Expr | None) -> bool:
        """Whether one thread's guards and index mean, as constraints, what they compute: every variable
        assigned more than once, other than a loop counter, has one assignment reaching where it is read
        (the lowering then takes that value; with several, it would take the guard's and the index's for one
        value), and no integer is narrower than 32 bits (the constraints' integers do not wrap)."""
        stack = [(access.expr, access.node.scope, access.node)]
        if limit is not None:
            stack.append((limit, access.node.scope, access.node))
        return self._values_exact(stack, access.guards, access.node)

    def _values_exact(self, stack: list[tuple[ir.Expr, Scope, CfgNode]], guards: tuple[Guard, ...],
                      at: CfgNode) -> bool:
        """`_solver_exact` for the expressions of `stack` ((expr, scope, where it is evaluated)) under `guards`."""
        assigned = assigned_values(at.scope.function)
        counters = self.analysis.induction.get(at.scope.function_key, {})
        stack = list(stack)
        # the guards the lowering keeps (`guard_alternatives` drops a switch and a per-thread loop's exit)
        stack += [(guard.cond, guard.scope, guard.node or at) for guard in guards
                  if not (guard.kind == "switch" or (guard.kind == "after_loop"
                                                     and guard.scope.facts.is_dependent(guard.cond)))]
        seen: set[tuple] = set()
        while stack:
            expr, where, at = stack.pop()
            for node in expr.walk():
                if isinstance(node, ir.Cast) and _narrow_integer(node.type):
                    return False
                if not isinstance(node, ir.Name) or not node.ref or (node.ref, at.index) in seen:
                    continue
                seen.add((node.ref, at.index))
                if _narrow_integer(node.type):
                    return False
                definition = where.env.definition(node.ref)
                if definition is not None:
                    stack.append((definition, where, at))
                elif len(assigned.get(node.ref, ())) > 1 and node.ref not in counters:
                    reaching = self.reaching(where, node.ref, at)
                    if reaching is None:
                        return False
                    stack.append(reaching)
        return True

    def single_warp(self, access: MemoryAccess) -> bool:
        """Whether the guards of `access` let the threads of one warp at most run it (`if (tid < 32)`)."""
        l1 = Linearizer(self.context, "1", shared_iterations=True)
        l2 = Linearizer(self.context, "2", shared_iterations=True)
        w1, w2 = self._warp(l1), self._warp(l2)
        if w1 is None or w2 is None:
            return False
        base = thread_bounds(self.shape, "1") + thread_bounds(self.shape, "2")
        alternatives = [[[less(w1, w2)], [less(w2, w1)]]]
        for guard in access.guards:
            for lin in (l1, l2):
                lin.at = guard.node or access.node
                options = guard_alternatives(lin, guard)
                if options is not None:
                    alternatives.append(options)
        return decide(base + l1.constraints + l2.constraints, alternatives, True).result == NONE

    def _same_element_only(self, a: MemoryAccess, b: MemoryAccess) -> bool:
        """Both accesses touch element f(threadIdx) for one injective f: no two threads meet."""
        if a.collective or b.collective:
            return False
        ia, ib = self._thread_index(a), self._thread_index(b)
        if ia is None or ib is None or ia.coeffs != ib.coeffs or ia.const != ib.const:
            return False
        return self._injective(ia)

    @cached_property
    def races(self) -> list[Race]:
        """Shared-memory races between threads of one block, at least one per access that can race (the
        first pair found for it, with the earlier access of the pair). A store of the value its thread read
        from the same element (`v = s[0]; s[0] = v;`) leaves the element as it is: it races with no read and
        no other such store (racecheck reports none), only with a store of another value."""
        return self._races([(a, b, starts) for a, b, starts in self.candidate_pairs()
                            if not all(not x.writes or self._is_write_back(x) for x in (a, b))])

    def _is_write_back(self, access: MemoryAccess) -> bool:
        """`_writes_back`, decided once per access (it is asked for every pair the access is in)."""
        found = self._write_backs.get(id(access))
        if found is None:
            found = self._write_backs[id(access)] = self._writes_back(access)
        return found

    @cached_property
    def global_races(self) -> list[Race]:
        """Global-memory races between two accesses (one a plain write) of two threads: of one block with no
        block barrier between them, or of two blocks with no grid barrier between them. A store that many
        threads run (`out[0] = v`, `out[k] += v`) is not paired with itself: CL105 and CL106 decide those.
        Atomics are never a side (a plain read of an atomically updated counter is how tickets are read),
        and two plain stores of one block-uniform value (`flag[0] = 1`) do not race."""
        if self._orders_itself:
            return []
        found = []
        for across in (False, True):
            pairs = [(a, b, starts) for a, b, starts in self.candidate_pairs(self.global_by_node, across)
                     if a is not b and ATOMIC not in (a.mode, b.mode) and not self._same_value(a, b, across)]
            found += self._races(pairs, across)
        return found

    @cached_property
    def _orders_itself(self) -> bool:
        """Code that takes a lock (atomicCAS/atomicExch) or spins on flags (volatile, __threadfence) orders
        its global accesses by means the intervals do not see."""
        for function in self.analysis.reachable(self.function):
            if any(n.callee in ("atomicCAS", "atomicExch", "__threadfence") for n in function.of_type(ir.Call)):
                return True
        return any(access.volatile for access in self.global_accesses)

    def _writes_back(self, access: MemoryAccess) -> bool:
        """A plain store `s[e] = v` where the one value of `v` reaching it was read from `s[e]` by this thread
        as the element's own type, with no barrier and no other store to the array on any path between the
        read and the store, and `e` names only values assigned once: the store writes back the content the
        element still has in this barrier interval."""
        value = access.value
        if access.mode != WRITE or not isinstance(value, ir.Name) or not isinstance(access.expr, ir.Index):
            return False
        scope = access.node.scope
        reaching = self.reaching(scope, value.ref, access.node)
        if reaching is None or reaching[1] is not scope or not isinstance(reaching[0], ir.Index):
            return False
        read, read_node = reaching[0], reaching[2]
        if _shape(read) != _shape(access.expr) or any(
                isinstance(node, (ir.Index, ir.Call)) or (isinstance(node, ir.Unary) and node.op == "*")
                for node in access.expr.index.walk()):
            return False  # another element, or an index read from memory that may change in between
        if _escapes(scope.function, value.ref):
            return False  # `bump(v)` by reference, `*(&v) = ...`: v may not hold what was read
        element = access.array.decl.element_type
        if not value.type or bare_type(value.type) != bare_type(read.type) or (
                element and bare_type(element) != bare_type(read.type)):
            return False  # `int v = s[0]; s[0] = v;` on a float array stores a truncated value
        assigned = assigned_values(scope.function)
        if any(len(assigned.get(node.ref, ())) > 1 for node in access.expr.index.walk()
               if isinstance(node, ir.Name) and node.ref):
            return False
        # every path from the read to the store: no barrier, no other store to the array
        pred, seen, stack = self.cfg.graph.pred, {access.node}, list(self.cfg.graph.pred[access.node])
        while stack:
            node = stack.pop()
            if node in seen or node is read_node:
                continue
            seen.add(node)
            if node.kind == "barrier" or node is self.cfg.entry or len(seen) > 2000 or any(
                    other.writes and other.key == access.key for other in self.by_node.get(node, ())):
                return False
            stack.extend(pred[node])
        return True

    def _same_value(self, a: MemoryAccess, b: MemoryAccess, across_blocks: bool) -> bool:
        """Both plain stores of one value that is the same in every thread (and block)."""
        if a.value is None or b.value is None or " ".join(a.value.text.split()) != " ".join(b.value.text.split()):
            return False
        return not any(value_dependent_expr(self.analysis, access.value, access.node.scope)
                       or (across_blocks and mentions_block_or_memory(access.value)) for access in (a, b))

    def _races(self, pairs: list[tuple[MemoryAccess, MemoryAccess, list[CfgNode]]],
               across_blocks: bool = False) -> list[Race]:
        races = []
        anchored: set[int] = set()  # accesses already known to race: rules report one finding per access
        for count, (a, b, starts) in enumerate(pairs):
            if count >= _MAX_PAIRS:
                break  # a pathological kernel: keep lint time bounded (only findings are lost)
            if not across_blocks and self._same_element_only(a, b):
                continue
            if id(self._order(a, b)[1]) in anchored:
                continue
            renamed = self.renamed_between(a, b)
            same_warp = not across_blocks and self.same_warp_interval(a, b)
            tested: set[tuple] = set()
            # across blocks, only the accesses' own guards apply: the path guards are those of block intervals
            for start in ([None] if across_blocks else starts):
                lowerings = (self._lowering_key(a, "1", renamed, start, across_blocks)[0],
                             self._lowering_key(b, "2", renamed, start, across_blocks)[0])
                if lowerings in tested:
                    continue  # the constraints of an interval already tested, so its verdict: no conflict
                tested.add(lowerings)
                verdict = self.test(a, b, renamed, cross_warp=not same_warp and not across_blocks, start=start,
                                    across_blocks=across_blocks)
                if verdict.result != CONFLICT:
                    continue
                warp_only = False
                if same_warp and not (a.collective or b.collective) and (
                        a.volatile or b.volatile or (self.single_warp(a) and self.single_warp(b))):
                    warp_only = self.test(a, b, renamed, cross_warp=True, start=start).result == NONE
                first, second = self._order(a, b)
                races.append(Race(first, second, warp_only, across_blocks))
                anchored.add(id(second))
                break
        return races

    def partially_active(self, guards: tuple[Guard, ...], at: CfgNode) -> Guard | None:
        """A guard that some lanes of a warp can fail while other lanes of that warp pass all `guards`
        (threads that returned from the kernel do not count); None when every warp runs whole."""
        if linear_thread_id(self.shape, "1") is None:
            return None
        candidates = [g for g in guards if g.kind != "after_loop" and not g.thread_exits]
        if not candidates:
            return None
        for candidate in candidates:
            l1 = Linearizer(self.context, "1", shared_iterations=True)
            l2 = Linearizer(self.context, "2", shared_iterations=True)
            base = thread_bounds(self.shape, "1") + thread_bounds(self.shape, "2")
            base.append(eq(self._warp(l1) - self._warp(l2)))
            alternatives = []
            for guard in guards:
                l1.at = guard.node or at
                options = guard_alternatives(l1, guard)
                if options is not None:
                    alternatives.append(options)
                if guard.thread_exits:  # the other lane is still running
                    l2.at = guard.node or at
                    options = guard_alternatives(l2, guard)
                    if options is not None:
                        alternatives.append(options)
            l2.at = candidate.node or at
            negated = l2.condition(candidate.cond, candidate.scope, not candidate.positive) \
                if candidate.kind != "switch" else None
            if negated is None:
                continue
            alternatives.append(negated)
            verdict = decide(base + l1.constraints + l2.constraints, alternatives, l1.exact and l2.exact)
            if verdict.result == CONFLICT:
                return candidate
        return None

    def _order(self, a: MemoryAccess, b: MemoryAccess) -> tuple[MemoryAccess, MemoryAccess]:
        if a is b:
            return a, b
        reach = self.cfg.reach
        a_then_b = b.node in reach(a.node) or (a.node is b.node)
        b_then_a = a.node in reach(b.node)
        if a.node is b.node:  # one statement: the write lands after the read of its right-hand side
            return (b, a) if a.writes and not b.writes else (a, b)
        if a_then_b and not b_then_a:
            return a, b
        if b_then_a and not a_then_b:
            return b, a
        # both orders (a barrier-free loop) or neither (two branches): name the read second
        if a.writes and not b.writes:
            return a, b
        if b.writes and not a.writes:
            return b, a
        return (a, b) if (a.expr.span.line, a.expr.span.column) <= (b.expr.span.line, b.expr.span.column) else (b, a)


@dataclass(frozen=True)
class PastTheEnd:
    """A thread that accesses past the end of a buffer, and the first element past it that it reaches."""

    thread: tuple[int, int, int]
    block: tuple[int, int, int]
    element: int


def _pinned_launch_var(name: str) -> bool:
    """Whether a solver variable is one a launch with pinned parameters leaves free only as the thread
    space or its arithmetic: a thread or block index, a loop's iteration count, a quotient or remainder."""
    return name.startswith(("t1.", "b.")) or name[:1] in ("k", "q", "r") and name[1:2].isdigit()


def _least(holds: Callable[[int], bool], low: int, high: int) -> int | None:
    """The least value in [low, high] for which the monotone `holds` is true; None when not at `high`."""
    if not holds(high):
        return None
    while low < high:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _shape(expr: ir.Expr) -> tuple:
    """An expression's structure with variables by declaration, not by name (shadowing `i` is another `i`)."""
    return tuple((type(node).__name__, node.ref or node.name) if isinstance(node, ir.Name)
                 else (type(node).__name__, getattr(node, "op", None), getattr(node, "value", None))
                 for node in expr.walk())


def _escapes(function: ir.Function, ref: str | None) -> bool:
    """Whether a local's address is taken or it is passed to a call (which may take it by reference)."""
    for node in function.of_type(ir.Unary, ir.Call):
        operands = [node.operand] if isinstance(node, ir.Unary) and node.op == "&" else (
            node.args if isinstance(node, ir.Call) else [])
        if any(isinstance(operand, ir.Name) and operand.ref == ref for operand in operands):
            return True
    return False


def _narrow_integer(type_: str) -> bool:
    """An integer type narrower than 32 bits (`short`, `uint8_t`); not `bool`, whose 0 and 1 the constraints hold."""
    return is_integer_type(type_) and "bool" not in type_ and (type_size(type_) or 4) < 4


_PER_THREAD = None


def _per_thread_call(name: str) -> bool:
    global _PER_THREAD
    if _PER_THREAD is None:
        from cudalint.analysis import uniformity

        _PER_THREAD = uniformity._PER_THREAD_CALL
    return bool(_PER_THREAD.match(name))


def value_dependent_expr(analysis: SyncAnalysis, expr: ir.Expr, scope: Scope, depth: int = 0) -> bool:
    """Whether `expr` may differ between threads at one point of execution (control dependence aside)."""
    if depth > 8:
        return True
    dependent = analysis.value_dependent(scope.function)
    for node in per_thread_nodes(expr):
        if isinstance(node, ir.Name):
            if node.name == "threadIdx":
                return True
            bound = scope.binding(node.ref)
            if bound is not None:
                if value_dependent_expr(analysis, bound[0], bound[1], depth + 1):
                    return True
            elif node.ref and node.ref in dependent:
                return True
        elif isinstance(node, ir.Call) and _per_thread_call(node.callee):
            return True
    return False


def mentions_block_or_memory(expr: ir.Expr) -> bool:
    for node in expr.walk():
        if isinstance(node, (ir.Index, ir.Call)) or isinstance(node, ir.Unary) and node.op == "*":
            return True
        if isinstance(node, ir.Member) and isinstance(node.base, ir.Name) and node.base.name == "blockIdx":
            return True
        if isinstance(node, ir.Name) and node.decl_kind in ("var", "") and node.constant is None:
            return True
    return False
