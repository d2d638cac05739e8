"""The synchronization analysis of one program: `sync_analysis(program)` computes on demand and caches, per
program, what the rules read:
- `races(kernel)` (shared memory) and `global_races(kernel)`: the races within barrier intervals
  (`intervals.py`, over the accesses of `accesses.py` lowered by `kernel_constraints.py`);
- `divergent_barriers` and `partial_warp_calls`: barriers and warp intrinsics under thread-dependent
  conditions (`divergence.py`);
- `global_store_races`: many threads storing to one global address (`global_stores.py`);
- `grid_syncs` and `spin_loops`: grid barriers, and loops that wait on other blocks (`spin_loops.py`).
"""

from __future__ import annotations

from functools import cached_property

from cudalint.analysis.accesses import Race
from cudalint.analysis.cfg import GRID, CfgNode, FunctionCFG, build_cfg
from cudalint.analysis.conflicts import BlockShape
from cudalint.analysis.divergence import (
    DivergentBarrier, PartialWarpCall, find_divergent_barriers, find_partial_warp_calls,
)
from cudalint.analysis.global_stores import GlobalRace, find_global_store_races
from cudalint.analysis.intervals import KernelSync
from cudalint.analysis.spin_loops import SpinLoop, find_spin_loops, loop_variables
from cudalint.analysis.uniformity import Uniformity, value_dependent_refs
from cudalint.model import ir
from cudalint.model.program import Program


# ------------------------------------------------------------------------------------- per-program cache


class SyncAnalysis:
    """The synchronization facts of one program, computed on demand and cached."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.uniformity = program.analysis(Uniformity)  # the one the guard analysis uses too
        self._cfgs: dict[int, FunctionCFG] = {}
        self._kernels: dict[int, KernelSync] = {}
        self._launched: dict[tuple, KernelSync] = {}
        self._shapes: dict[int, BlockShape] = {}
        self._value_dependent: dict[int, set[str]] = {}
        self._results: dict[str, dict[int, object]] = {}
        self._reachable: dict[int, list[ir.Function]] = {}


    def cfg(self, function: ir.Function) -> FunctionCFG:
        found = self._cfgs.get(id(function))
        if found is None:
            found = self._cfgs[id(function)] = build_cfg(self.program, self.uniformity, function)
        return found

    def kernel(self, function: ir.Function) -> KernelSync:
        found = self._kernels.get(id(function))
        if found is None:
            found = self._kernels[id(function)] = KernelSync(self, function)
        return found

    def kernel_at(self, function: ir.Function, block: tuple[int, int, int], grid: tuple[int, int, int],
                  values: dict[str, int]) -> KernelSync:
        """The kernel as one launch runs it: these block and grid dimensions, its parameters pinned to
        `values` (ref -> value)."""
        key = (id(function), block, grid, tuple(sorted(values.items())))
        found = self._launched.get(key)
        if found is None:
            found = self._launched[key] = KernelSync(self, function, BlockShape(block, grid), values)
        return found

    def races(self, function: ir.Function) -> list[Race]:
        """Shared-memory races between threads of a block (CL101, and CL103 when warp-only)."""
        return self.kernel(function).races

    def global_races(self, function: ir.Function) -> list[Race]:
        """Global-memory races between two accesses, within a block or across blocks (CL107)."""
        return self.kernel(function).global_races

    def divergent_barriers(self, function: ir.Function) -> list[DivergentBarrier]:
        """Block barriers that some threads of the block may not reach (CL102)."""
        return self._memo("divergent", function, find_divergent_barriers)

    def global_store_races(self, function: ir.Function) -> list[GlobalRace]:
        """Stores that many threads make to one global address (CL105)."""
        return self._memo("global", function, find_global_store_races)

    def partial_warp_calls(self, function: ir.Function) -> list[PartialWarpCall]:
        """Full-mask warp intrinsics under conditions that split a warp (CL103)."""
        return self._memo("partial", function, find_partial_warp_calls)

    def grid_syncs(self, function: ir.Function) -> list[CfgNode]:
        """The grid-wide barriers a kernel reaches (CL104)."""
        cfg = self.cfg(function)
        return [n for n in cfg.barrier_nodes((GRID,)) if n in cfg.reachable]

    def spin_loops(self) -> list[SpinLoop]:
        """Loops that spin on global memory other blocks must write (CL104)."""
        if "spin" not in self._results:
            self._results["spin"] = find_spin_loops(self)
        return self._results["spin"]

    @cached_property
    def device_globals(self) -> dict[str, ir.VarDecl]:
        """`__device__` variables of the unit (global memory), by declaration ref."""
        return {d.ref: d for d in self.program.globals
                if d.ref and not d.shared and not d.constant_memory and not d.is_const}

    def _memo(self, name: str, function: ir.Function, compute):
        cache = self._results.setdefault(name, {})
        if id(function) not in cache:
            cache[id(function)] = compute(self, function)
        return cache[id(function)]

    @cached_property
    def roots(self) -> list[ir.Function]:
        """Functions analyzed as a whole: kernels, and device functions no kernel of the unit calls."""
        kernels = [f for f in self.program.functions if f.is_kernel and f.body is not None]
        reached: set[int] = set()
        for kernel in kernels:
            reached |= {id(f) for f in self.reachable(kernel)}
        loose = [f for f in self.program.functions
                 if f.body is not None and f.space in ("device", "host_device") and id(f) not in reached]
        # a template with instantiations in the unit: the instantiations know the template arguments
        instantiated = {(f.name, f.span.end_line, f.span.end_column) for f in kernels + loose if not f.templated}
        return [f for f in kernels + loose
                if not (f.templated and (f.name, f.span.end_line, f.span.end_column) in instantiated)]

    def reachable(self, function: ir.Function) -> list[ir.Function]:
        """`function` and the functions of the unit it calls, with bodies (cached)."""
        found = self._reachable.get(id(function))
        if found is None:
            found = self._reachable[id(function)] = [
                f for f in self.program.reachable_functions(function) if f.body is not None]
        return found

    def value_dependent(self, function: ir.Function) -> set[str]:
        found = self._value_dependent.get(id(function))
        if found is None:
            found = self._value_dependent[id(function)] = value_dependent_refs(
                function, self.uniformity.of(function), self.program.shared_refs)
        return found

    def block_shape(self, function: ir.Function) -> BlockShape:
        found = self._shapes.get(id(function))
        if found is None:
            found = self._shapes[id(function)] = self._block_shape(function)
        return found

    def _block_shape(self, function: ir.Function) -> BlockShape:
        sites = self.program.launches_of(function.name) if function.is_kernel else []
        used_threads, used_blocks = set(), set()
        for reached in self.reachable(function):
            for node in reached.of_type(ir.Member, ir.Call):
                if isinstance(node, ir.Member) and isinstance(node.base, ir.Name):
                    if node.base.name in ("threadIdx", "blockDim"):
                        used_threads.add(node.field)
                    elif node.base.name in ("blockIdx", "gridDim"):
                        used_blocks.add(node.field)
                elif isinstance(node, ir.Call) and node.callee in ("thread_rank", "this_thread_block", "size",
                                                                  "dim_threads", "thread_index"):
                    used_threads |= {"x", "y", "z"}

        def extents(dims_of, used) -> tuple:
            out = []
            for i, axis in enumerate("xyz"):
                values = [dims_of(s)[i] if dims_of(s) is not None else None for s in sites]
                if values and None not in values:
                    out.append(max(values))
                elif axis not in used and axis != "x":
                    out.append(1)
                elif axis not in used and not values:
                    out.append(1 if axis != "x" else None)
                else:
                    out.append(None)
            return tuple(out)

        block = extents(lambda s: s.block, used_threads)
        grid = extents(lambda s: s.grid, used_blocks)
        if block[0] is None and function.max_threads_per_block and block[1] == 1 and block[2] == 1:
            block = block  # only an upper bound is known: keep blockDim.x symbolic
        return BlockShape(block, grid, function.max_threads_per_block)

    @cached_property
    def _loops(self) -> tuple[dict, dict, dict]:
        induction: dict[str, dict[str, tuple[ir.Expr, ir.Expr]]] = {}
        counters: dict[str, set[str]] = {}
        bounds: dict[str, dict[str, tuple[str, ir.Expr]]] = {}
        for function in self.program.functions:
            if function.body is not None and function.is_device_code:
                key = function.ref or function.name
                induction[key], counters[key], bounds[key] = loop_variables(function, self.program.env(function))
        return induction, counters, bounds

    @property
    def counter_bounds(self) -> dict[str, dict[str, tuple[str, ir.Expr]]]:
        """Per function (by key), monotone loop counters: ref -> (direction, initial value)."""
        return self._loops[2]

    @property
    def induction(self) -> dict[str, dict[str, tuple[ir.Expr, ir.Expr]]]:
        """Per function (by key), loop counters with an additive step: ref -> (initial value, step)."""
        return self._loops[0]

    @property
    def loop_counters(self) -> dict[str, set[str]]:
        """Per function (by key), variables assigned only by one for loop's init and step."""
        return self._loops[1]


def index_proven_below(program: Program, function: ir.Function, access: ir.Expr, limit: ir.Expr | None = None) -> bool:
    """Whether the constraint solver proves the index of the global access `access` (the expression as
    written) below `limit`, or below a size its guards compare with (`KernelSync.below_a_compared_size`);
    False for what this analysis does not model (device functions, shared memory)."""
    if not function.is_kernel:
        return False
    kernel = sync_analysis(program).kernel(function)
    return any(memory.expr is access and kernel.below_a_compared_size(memory, limit)
               for memory in kernel.global_accesses)


def sync_analysis(program: Program) -> SyncAnalysis:
    """The (cached) synchronization analysis of `program`, shared by every rule."""
    return program.analysis(SyncAnalysis)
