"""One kernel's memory accesses as the conflict test sees them: each access lowered to linear constraints.

`KernelConstraints` holds, for one kernel (with its `__device__` callees inlined, see `cfg.py`) and
optionally one launch:
- its shared and global memory accesses (from `accesses.py`) by node, and the starts of its barrier
  intervals ("epochs"): the entry and the block barriers every thread reaches, or the grid barriers;
- what the lowering reads off the graph: the one plain definition of a variable that reaches a node
  (`reaching`), and the branch sides every barrier-free path from an interval's start takes to a node
  (`path_guards`);
- each access lowered for one of the two instances of the conflict test (`_lowered`: its index, the
  index's side constraints, its guards' alternatives, whether all of it is exact), through
  `linearizer.py`. A loop counter that may change between the two accesses, whose step count from the
  interval's start is the same on every path to an access, is pinned there: the write before the back
  edge runs at counter `c`, the read after it at `c + step` (`_pinned_counters`, `_iterations_at`).

`intervals.py` builds `KernelSync` on it: the pairs of accesses in one interval, their conflict test, the
races, and the questions about one launch's threads.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

from cudalint.analysis.accesses import GlobalBuffer, MemoryAccess, AccessCollector
from cudalint.analysis.cfg import BLOCK_LEVEL, GRID, CfgNode, Graph, Guard, Scope, immediate_dominators
from cudalint.analysis.conflicts import BlockShape, linear_thread_id, thread_var
from cudalint.analysis.linearizer import LinearContext, Linearizer
from cudalint.analysis.omega import Constraint, Lin, ge, less
from cudalint.model import ir

if TYPE_CHECKING:
    from cudalint.analysis.barriers import SyncAnalysis


_MANY_STEPS = 3  # loop steps on a barrier-free path: from this many on, the count is not tracked


class KernelConstraints:
    """One kernel's accesses, barrier intervals and the lowering of its accesses (or a device function's,
    analyzed on its own)."""

    def __init__(self, analysis: SyncAnalysis, function: ir.Function, shape: BlockShape | None = None,
                 values: dict[str, int] | None = None) -> None:
        """`shape` and `values` (parameter ref -> value) describe one launch (`SyncAnalysis.kernel_at`);
        without them, every launch the source shows."""
        # the analysis, and the context's callbacks into both, are held weakly: the analysis caches this
        # object, and the cycle would keep the file's IR alive for the cycle collector
        self.analysis = weakref.proxy(analysis)
        self.function = function
        self.cfg = analysis.cfg(function)
        self.shape = shape or analysis.block_shape(function)
        self.context = LinearContext(self.shape, analysis.induction, analysis.loop_counters,
                                     analysis.counter_bounds, _weakly(analysis.value_dependent),
                                     reaching=_weakly(self.reaching), values=dict(values or {}))
        self._reaching: dict[tuple[str, int], tuple | None] = {}
        self._lowerings: dict[tuple, tuple] = {}
        self._path_guards: dict[CfgNode, dict[CfgNode, tuple[Guard, ...]]] = {}
        self._exact_indices: dict[tuple, bool] = {}
        # per-counter facts of the loop-counter pinning, and thread-index lowerings, made on first use
        self._pinned_cache: dict[tuple, tuple[str, ...]] = {}
        self._stepped_cache: dict[str, tuple[set[CfgNode], set[CfgNode]] | None] = {}
        self._counter_loops: dict[str, set[CfgNode]] = {}
        self._counter_steps_cache: dict[tuple, dict | None] = {}
        self._thread_indices: dict = {}

    @cached_property
    def accesses(self) -> list[MemoryAccess]:
        """The shared-memory accesses (a launch's view, `kernel_at`, asks only for the global ones)."""
        return AccessCollector(self.analysis.program, self.cfg).collect()

    @cached_property
    def by_node(self) -> dict[CfgNode, list[MemoryAccess]]:
        return _by_node(self.accesses)

    @cached_property
    def global_buffers(self) -> dict[str, GlobalBuffer]:
        """The global memory a kernel reaches by name: its pointer parameters and the unit's `__device__`
        variables (a device function analyzed on its own has no such roots: its callers are unknown)."""
        if not self.function.is_kernel:
            return {}
        found: dict[str, GlobalBuffer] = {ref: GlobalBuffer(decl, False)
                                          for ref, decl in self.analysis.device_globals.items()}
        for param in self.function.params:
            if param.ref and param.type.count("*") == 1 and "(" not in param.type:
                pointee = param.type[:param.type.rindex("*")].strip()
                decl = ir.VarDecl(param.span, name=param.name, ref=param.ref, type=param.type,
                                  volatile="volatile" in pointee, element_type=pointee)
                found[param.ref] = GlobalBuffer(decl, True)
        return found

    @cached_property
    def global_accesses(self) -> list[MemoryAccess]:
        return AccessCollector(self.analysis.program, self.cfg, self.global_buffers).collect()

    @cached_property
    def global_by_node(self) -> dict[CfgNode, list[MemoryAccess]]:
        return _by_node(self.global_accesses)

    @cached_property
    def grid_epoch_starts(self) -> list[CfgNode]:
        """The entry and the grid barriers: the intervals in which threads of different blocks run unordered."""
        reachable = self.cfg.reachable
        return [self.cfg.entry] + [n for n in self.cfg.barrier_nodes((GRID,)) if n in reachable]

    @cached_property
    def epoch_starts(self) -> list[CfgNode]:
        """The entry and the block barriers that every thread reaches: after a divergent barrier (CL102)
        the intervals are meaningless and no race is derived from them."""
        reachable = self.cfg.reachable
        divergent = {item.barrier for item in self.analysis.divergent_barriers(self.function)}
        return [self.cfg.entry] + [n for n in self.cfg.barrier_nodes(BLOCK_LEVEL)
                                   if n in reachable and n not in divergent]

    @cached_property
    def _def_nodes(self) -> dict[CfgNode, frozenset[str]]:
        out = {}
        for node in self.cfg.nodes:
            assigned = _assigns(node)
            if assigned:
                out[node] = assigned
        return out

    def reaching(self, scope: Scope, ref: str | None, at: CfgNode) -> tuple[ir.Expr, Scope, CfgNode] | None:
        """The value of variable `ref` at node `at` when exactly one plain assignment reaches it."""
        if ref is None:
            return None
        key = f"{scope.key}|{ref}"
        cache_key = (key, at.index)
        if cache_key in self._reaching:
            return self._reaching[cache_key]
        self._reaching[cache_key] = None
        defs = self._def_nodes
        pred = self.cfg.graph.pred
        found: list[CfgNode] = []
        seen = {at}
        stack = list(pred[at])
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if key in defs.get(node, ()):
                found.append(node)
                if len(found) > 1:
                    return None
                continue
            if node is self.cfg.entry or len(seen) > 5000:
                return None
            stack.extend(pred[node])
        if len(found) != 1:
            return None
        node = found[0]
        result = None
        if node.kind == "call" and node.call is not None and node.scope is scope and scope.parent is not None:
            for param, arg in zip(scope.function.params, node.call.args):
                if param.ref == ref:
                    result = (arg, scope.parent, node)
        elif node.decl is not None and node.decl.ref == ref and node.decl.init is not None:
            if not node.decl.dims and not isinstance(node.decl.init, ir.InitList):
                result = (node.decl.init, scope, node)
        elif isinstance(node.expr, ir.Binary) and node.expr.op == "=" and isinstance(node.expr.lhs, ir.Name) \
                and node.expr.lhs.ref == ref and not node.skip:
            result = (node.expr.rhs, scope, node)
        self._reaching[cache_key] = result
        return result

    def path_guards(self, start: CfgNode) -> dict[CfgNode, tuple[Guard, ...]]:
        """For the interval from `start`, per access node in it: the branch sides every barrier-free path
        from the start to the node takes (`if (uniform) { ...; __syncthreads(); }` skipped, a loop left)."""
        found = self._path_guards.get(start)
        if found is not None:
            return found
        region = self.cfg.reach(start)
        targets = [n for n in region if n in self.by_node]
        idom = _dominators(self.cfg.graph, start, region) if targets else {}
        found = {}
        for target in targets:
            guards = []
            node = target
            steps = 0
            while node is not start and node in idom and steps < 10000:
                if node.branch is not None:
                    guards.append(Guard(node.branch[0], node.branch[1], node.scope, "path", node=node))
                node = idom[node]
                steps += 1
            found[target] = tuple(reversed(guards))
        self._path_guards[start] = found
        return found

    def _index_exact(self, access: MemoryAccess, inst: str, renamed: frozenset[str], across_blocks: bool) -> bool:
        return self._exact_indices.get((id(access), inst, renamed, across_blocks), False)

    def _lowering_key(self, access: MemoryAccess, inst: str, renamed: frozenset[str], start: CfgNode | None,
                      across_blocks: bool = False) -> tuple[tuple, tuple[Guard, ...]]:
        """What lowering `access` in the interval from `start` depends on, and the interval's path guards
        that its own guards do not state. Intervals whose path guards are the same branches share a key."""
        paths = self.path_guards(start) if start is not None else {}
        own = {(id(g.cond), g.positive) for g in access.guards}
        extra = tuple(g for g in paths.get(access.node, ()) if (id(g.cond), g.positive) not in own)
        pinned = self._pinned_counters(start, access, extra, renamed)
        return (id(access), inst, renamed, across_blocks, tuple((id(g.cond), g.positive, id(g.node)) for g in extra),
                (start.index, pinned) if pinned else ()), extra

    def _lowered(self, access: MemoryAccess, inst: str, renamed: frozenset[str], start: CfgNode | None,
                 across_blocks: bool = False):
        """An access lowered for instance `inst`: (index, its side constraints, [(guard alternatives, their
        side constraints)], exact). Cached: names of solver variables depend only on these inputs.

        Loaded integers in a shared-memory index stand for any value (some input makes two threads meet);
        in a global one they do not: a scatter through a permutation is the normal, race-free case."""
        key, extra = self._lowering_key(access, inst, renamed, start, across_blocks)
        found = self._lowerings.get(key)
        if found is not None:
            return found
        keys = self._pinned_counters(start, access, extra, renamed)
        lin = Linearizer(self.context, inst, renamed, global_mode=across_blocks,
                         data_values=not isinstance(access.array, GlobalBuffer), products=True,
                         iterations=(lambda at: self._iterations_at(start, keys, at, access)) if keys else None)
        index = self._index(access, lin)
        index_constraints = list(lin.constraints)
        self._exact_indices[(id(access), inst, renamed, across_blocks)] = lin.exact and access.index.exact
        guards = []
        for guard in access.guards + extra:
            lin.constraints = []
            lin.at = guard.node or access.node
            options = guard_alternatives(lin, guard)
            if options is not None or lin.constraints:
                guards.append((options if options is not None else [[]], lin.constraints))
        found = (index, index_constraints, guards, lin.exact and access.index.exact, lin.products)
        self._lowerings[key] = found
        return found

    def _pinned_counters(self, start: CfgNode | None, access: MemoryAccess, extra: tuple[Guard, ...],
                         renamed: frozenset[str]) -> tuple[str, ...]:
        """The loop counters among `renamed` whose iteration, counted from the interval's start, is the same
        on every barrier-free path from `start` to the access and to the nodes its guards are evaluated at
        (the path guards `extra` among them): a write before a loop's back edge and a read after it are one
        iteration apart."""
        if start is None or not renamed:
            return ()
        nodes = [access.node] + [g.node for g in access.guards + extra if g.node is not None]
        cache = self._pinned_cache
        cache_key = (start.index, tuple(node.index for node in nodes), renamed)
        if cache_key not in cache:
            cache[cache_key] = tuple(sorted(key for key in renamed if self._stepped(key) is not None and all(
                key in self._iterations_at(start, (key,), node, access) for node in nodes)))
        return cache[cache_key]

    def _iterations_at(self, start: CfgNode, keys: tuple[str, ...], at: CfgNode | None, access: MemoryAccess
                       ) -> dict[str, tuple[str | None, int]]:
        """The `iterations` of a Linearizer lowering `access` (and its guards) in the interval from `start`,
        at node `at`, for the counters `keys` that are pinned there. A guard of the access is evaluated in the
        access's iteration (the conditions enclosing it), also when its node is reached again from the
        interval's start through the loop's back edge; another node is pinned by its own state only when
        every path to it from the start is barrier-free and within the interval (`steps`), and a node the
        access is reached from in an earlier iteration is not told apart from one in the same iteration, so
        any other node of the loop pins nothing."""
        found: dict[str, tuple[str | None, int]] = {}
        for key in keys:
            steps = self._counter_steps(start, key)
            if steps is None or at is None:
                continue
            if at is access.node or any(g.node is at for g in access.guards):
                state = steps.get(access.node)
            elif at in self._counter_loop(key):
                continue  # maybe evaluated in an earlier iteration than the access's: left free
            else:
                state = steps.get(at)
            if state is None:
                continue
            entered, count = state
            if entered:
                found[key] = (None, count)
            elif start in self._counter_loop(key):
                found[key] = (str(start.index), count)
            # else: the interval starts outside the loop, where the counter may differ between threads
        return found

    def _stepped(self, key: str) -> tuple[set[CfgNode], set[CfgNode]] | None:
        """The step nodes of the loop whose counter `key` is, and the other nodes assigning it (its init);
        None when no loop step assigns it."""
        cache = self._stepped_cache
        if key not in cache:
            steps = {n for n, assigned in self._def_nodes.items() if key in assigned and n.kind == "step"}
            inits = {n for n, assigned in self._def_nodes.items() if key in assigned and n.kind != "step"}
            cache[key] = (steps, inits) if steps else None
        return cache[key]

    def _counter_loop(self, key: str) -> set[CfgNode]:
        """The nodes on a cycle through the counter's step that passes no init of it: its loop's body."""
        cache = self._counter_loops
        if key not in cache:
            steps, inits = self._stepped(key)
            graph = self.cfg.graph

            def closure(edges) -> set[CfgNode]:
                found, stack = set(), list(steps)
                while stack:
                    node = stack.pop()
                    if node in found:
                        continue
                    found.add(node)
                    stack.extend(n for n in edges[node] if n not in inits)
                return found

            cache[key] = closure(graph.succ) & closure(graph.pred)
        return cache[key]

    def _counter_steps(self, start: CfgNode, key: str) -> dict[CfgNode, tuple[bool, int] | None] | None:
        """For the loop counter `key`, per node of the barrier-free region from `start`: (entered, steps)
        when all paths from the start agree on it: whether they pass the counter's init, and how many of its
        steps they pass after that (or after the start); None for a node where paths disagree. None when no
        loop step assigns the variable."""
        cache = self._counter_steps_cache
        cache_key = (start.index, key)
        if cache_key in cache:
            return cache[cache_key]
        stepped = self._stepped(key)
        if stepped is None:
            cache[cache_key] = None
            return None
        steps, inits = stepped
        states: dict[CfgNode, set[tuple[bool, int]]] = {}
        succ = self.cfg.graph.succ
        stack = [(node, (False, 0)) for node in succ[start]]
        while stack:
            node, state = stack.pop()
            seen = states.setdefault(node, set())
            if state in seen:
                continue
            seen.add(state)
            if node.kind == "barrier" and node.barrier in BLOCK_LEVEL:
                continue
            entered, count = state
            if node in steps:
                state = (entered, min(count + 1, _MANY_STEPS))
            elif node in inits:
                state = (True, 0)
            stack.extend((next_node, state) for next_node in succ[node])
        found = {node: next(iter(seen)) if len(seen) == 1 and max(seen)[1] < _MANY_STEPS else None
                 for node, seen in states.items()}
        cache[cache_key] = found
        return found

    def _warp(self, lin: Linearizer) -> Lin | None:
        """The warp number of `lin`'s thread, as a variable shared with its other divisions by 32."""
        thread = linear_thread_id(self.shape, lin.inst)
        return None if thread is None else lin.divmod(thread, 32)[0]

    def _index(self, access: MemoryAccess, lin: Linearizer) -> Lin:
        lin.at = access.node
        total = linear_sum(lin, access.index.terms)
        for expr, bound, scope in access.index.ranges:
            value = lin.lin(expr, scope)
            lin.constraints += [ge(value), less(value, Lin.of(bound))]
        for n, (extent, stride, scope) in enumerate(access.index.region):
            offset = Lin.var(f"region{n}#{lin.inst}")
            lin.constraints += [ge(offset), less(offset, Lin.of(extent))]
            if isinstance(stride, int):
                total = total + offset.scale(stride)
                continue
            stride_lin = lin.lin(stride, scope)
            if stride_lin.is_const:
                total = total + offset.scale(stride_lin.const)
            else:
                lin.exact = False
        return total

    def _thread_index(self, access: MemoryAccess) -> Lin | None:
        """The access's index when it is an exact function of threadIdx alone (`s[tid]`, `s[ty][tx]`)."""
        cache = self._thread_indices
        if id(access) not in cache:
            lin = Linearizer(self.context, "1", data_values=True)
            value = self._index(access, lin)
            pure = lin.exact and access.index.exact and not access.index.region \
                and all(v.startswith("t1.") for v in value.coeffs) \
                and all(v.startswith("t1.") for c, _, _ in lin.constraints for v in c)  # range checks only
            cache[id(access)] = value if pure else None
        return cache[id(access)]

    def _injective(self, index: Lin) -> bool:
        """Whether distinct threads of a block always get distinct values of `index`."""
        terms = []
        for axis in "xyz":
            extent = self.shape.block_extent(axis)
            coeff = index.coeffs.get(thread_var("1", axis), 0)
            if extent == 1:
                continue
            if coeff == 0:
                return False
            if extent is None:
                if len(terms) or any(self.shape.block_extent(a) != 1 for a in "xyz" if a != axis):
                    return False
            terms.append((abs(coeff), extent))
        terms.sort()
        span = 0
        for coeff, extent in terms:
            if coeff <= span:
                return False
            span += coeff * ((extent or 1) - 1)
        return True


def _dominators(graph: Graph, start: CfgNode, region: set[CfgNode]) -> dict[CfgNode, CfgNode]:
    """Immediate dominators from `start` in the barrier-free part of the graph: `start`, and the nodes of
    `region` that are not block barriers."""
    inside = {n for n in region if not (n.kind == "barrier" and n.barrier in BLOCK_LEVEL)} | {start}
    idom = immediate_dominators(graph.succ, graph.pred, start, inside)
    del idom[start]
    return idom


def guard_alternatives(lin: Linearizer, guard: Guard) -> list[list[Constraint]] | None:
    """The constraints a guard puts on one access instance; None when it adds none."""
    if guard.kind == "switch":
        if guard.scope.facts.is_dependent(guard.cond):
            lin.exact = False
        return None
    if guard.kind == "after_loop" and guard.scope.facts.is_dependent(guard.cond):
        # every thread leaves the loop eventually: the failed condition only describes the final value of a
        # per-thread counter, which does not decide which threads run the code after the loop
        return None
    return lin.condition(guard.cond, guard.scope, guard.positive)


def _by_node(accesses: list[MemoryAccess]) -> dict[CfgNode, list[MemoryAccess]]:
    found: dict[CfgNode, list[MemoryAccess]] = {}
    for access in accesses:
        found.setdefault(access.node, []).append(access)
    return found


def _assigns(node: CfgNode) -> frozenset[str]:
    """Variable keys ("<scope key>|<ref>") that `node` assigns."""
    scope = node.scope
    out: set[str] = set()
    if node.decl is not None and node.decl.ref:
        out.add(f"{scope.key}|{node.decl.ref}")
    if node.kind == "call" and node.call is not None:
        # parameters the callee assigns are variables of its scope, initialized here
        for param in scope.function.params:
            if param.ref and param.ref not in scope.bindings:
                out.add(f"{scope.key}|{param.ref}")
    for expr in evaluated_exprs(node):
        target = None
        if isinstance(expr, ir.Binary) and expr.is_assignment:
            target = expr.lhs
        elif isinstance(expr, ir.Unary) and expr.op in ("++", "--", "post++", "post--"):
            target = expr.operand
        while isinstance(target, ir.Cast) or isinstance(target, ir.Member) and "->" not in target.text:
            target = target.operand if isinstance(target, ir.Cast) else target.base
        if isinstance(target, ir.Name) and target.ref:
            out.add(f"{scope.key}|{target.ref}")
    return frozenset(out)


def evaluated_exprs(node: CfgNode, prune=None):
    """The expressions `node` evaluates itself (not the calls it skips, not lambda bodies); below an
    expression for which `prune` is true, nothing."""
    skip = node.skip
    for root in node.access_roots():
        stack = [root]
        while stack:
            expr = stack.pop()
            if id(expr) in skip or isinstance(expr, ir.Lambda):
                continue
            yield expr
            if prune is None or not prune(expr):
                stack.extend(expr.children())  # an expression's children are expressions (but a lambda's)


def linear_sum(lin: Linearizer, terms) -> Lin:
    """The sum of an address's (expression, scale, scope) terms, each lowered by `lin` and scaled."""
    total = Lin.of(0)
    for expr, scale, scope in terms:
        total = total + lin.lin(expr, scope).scale(scale)
    return total


def _weakly(method: Callable) -> Callable:
    """A bound method as a function that holds its object weakly."""
    reference = weakref.WeakMethod(method)
    return lambda *args: reference()(*args)
