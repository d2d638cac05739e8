"""The kernel model of one CUDA unit, built once and shared by every rule.

Kernels and device functions, their `__shared__` arrays with byte sizes, and every launch site with
its configuration resolved to constants where the source allows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

from cudalint.caching import Analysed
from cudalint.model import ir
from cudalint.model.constants import ConstantEnv, Dim3
from cudalint.sources import CudaUnit

_COOPERATIVE_LAUNCHES = {"cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernelMultiDevice"}
_DYNAMIC_SMEM_ATTRIBUTE = "cudaFuncAttributeMaxDynamicSharedMemorySize"


@dataclass(eq=False)
class SharedArray:
    decl: ir.VarDecl
    function: ir.Function | None  # None for a file-scope __shared__ declaration

    @property
    def dynamic(self) -> bool:
        return self.decl.extern

    @property
    def size_bytes(self) -> int | None:
        return None if self.dynamic else self.decl.size_bytes


@dataclass(eq=False)
class LaunchSite:
    """A kernel launch: `<<<...>>>` or a cooperative launch API call."""

    node: ir.Expr  # the ir.Launch, or the ir.Call of cudaLaunchCooperativeKernel
    caller: ir.Function
    kernel_name: str
    kernel: ir.Function | None
    grid: Dim3 | None
    block: Dim3 | None
    shared_bytes: int | None  # the dynamic shared memory request; 0 when absent
    shared_bytes_expr: ir.Expr | None
    cooperative: bool
    env: ConstantEnv

    @property
    def threads_per_block(self) -> int | None:
        if self.block is None or None in self.block:
            return None
        x, y, z = self.block
        return x * y * z  # type: ignore[operator]


@dataclass(eq=False)
class Program(Analysed):
    unit: CudaUnit
    functions: list[ir.Function]
    globals: list[ir.VarDecl]
    shared_arrays: list[SharedArray] = field(default_factory=list)
    launches: list[LaunchSite] = field(default_factory=list)
    # kernel name -> the dynamic shared memory size opted into with cudaFuncSetAttribute (None: unknown value)
    dynamic_smem_opt_in: dict[str, int | None] = field(default_factory=dict)

    @cached_property
    def kernels(self) -> list[ir.Function]:
        return [f for f in self.functions if f.is_kernel]

    @cached_property
    def functions_by_name(self) -> dict[str, list[ir.Function]]:
        found: dict[str, list[ir.Function]] = {}
        for function in self.functions:
            found.setdefault(function.name, []).append(function)
        return found

    @cached_property
    def called_names(self) -> frozenset[str]:
        """The callee of every call in the unit's function bodies: lets an analysis skip a unit that never
        calls what it looks for."""
        return frozenset(node.callee for function in self.functions for node in function.of_type(ir.Call))

    def kernel_named(self, name: str) -> ir.Function | None:
        return next((f for f in self.functions_by_name.get(name, []) if f.is_kernel), None)

    # The indexes below are built once per unit, on first use (after `build_program`): analyses ask them
    # per kernel or per function, and a scan of the whole unit each time made lint time grow with the
    # square of the file's size. Callers must not change what they return.

    @cached_property
    def shared_by_ref(self) -> dict[str, SharedArray]:
        """The shared arrays by declaration ref (the last one of a ref, as a dict built in order keeps)."""
        return {s.decl.ref: s for s in self.shared_arrays if s.decl.ref}

    @cached_property
    def shared_refs(self) -> frozenset[str]:
        return frozenset(self.shared_by_ref)

    @cached_property
    def globals_by_ref(self) -> dict[str, ir.VarDecl]:
        return {g.ref: g for g in self.globals if g.ref}

    @cached_property
    def _launches_by_name(self) -> dict[str, list[LaunchSite]]:
        found: dict[str, list[LaunchSite]] = {}
        for site in self.launches:
            found.setdefault(site.kernel_name, []).append(site)
        return found

    def launches_of(self, name: str) -> list[LaunchSite]:
        """The launch sites of the kernel named `name`, in source order."""
        return self._launches_by_name.get(name, [])

    @cached_property
    def _calls_by_callee(self) -> dict[str, list[tuple[ir.Function, ir.Call]]]:
        found: dict[str, list[tuple[ir.Function, ir.Call]]] = {}
        for function in self.functions:
            if function.body is not None:
                for node in function.of_type(ir.Call):
                    if node.receiver is None:
                        found.setdefault(node.callee, []).append((function, node))
        return found

    def calls_to(self, name: str) -> list[tuple[ir.Function, ir.Call]]:
        """(caller, call) of every plain call `name(...)` in the unit's function bodies, in source order."""
        return self._calls_by_callee.get(name, [])

    @cached_property
    def _kernels_reaching(self) -> dict[int, list[ir.Function]]:
        found: dict[int, list[ir.Function]] = {}
        for kernel in self.kernels:
            for function in self.reachable_functions(kernel):
                found.setdefault(id(function), []).append(kernel)
        return found

    def kernels_reaching(self, function: ir.Function) -> list[ir.Function]:
        """The kernels of the unit from which `function` is reachable (itself, for a kernel), in order."""
        return self._kernels_reaching.get(id(function), [])

    @cached_property
    def _shared_arrays_by_function(self) -> dict[int, list[tuple[int, SharedArray]]]:
        found: dict[int, list[tuple[int, SharedArray]]] = {}
        for position, array in enumerate(self.shared_arrays):
            if array.function is not None:
                found.setdefault(id(array.function), []).append((position, array))
        return found

    def shared_arrays_of(self, function: ir.Function) -> list[SharedArray]:
        """The shared arrays a kernel uses: its own and those of the device functions it calls."""
        located = [item for reached in self.reachable_functions(function)
                   for item in self._shared_arrays_by_function.get(id(reached), ())]
        return [array for _, array in sorted(located, key=lambda item: item[0])]

    _reachable_cache: dict[int, tuple[ir.Function, ...]] = field(default_factory=dict, repr=False)

    def reachable_functions(self, function: ir.Function) -> tuple[ir.Function, ...]:
        """`function` and every function of this unit it calls, directly or not (cached: rules ask often)."""
        found = self._reachable_cache.get(id(function))
        if found is not None:
            return found
        seen: list[ir.Function] = []
        seen_ids: set[int] = set()
        stack = [function]
        while stack:
            current = stack.pop()
            if id(current) in seen_ids:
                continue
            seen.append(current)
            seen_ids.add(id(current))
            if current.body is not None:
                for node in current.of_type(ir.Call):
                    if node.receiver is None:
                        stack.extend(self.functions_by_name.get(node.callee, []))
        found = self._reachable_cache[id(function)] = tuple(seen)
        return found

    _env_cache: dict[int, ConstantEnv] = field(default_factory=dict, repr=False)
    analyses: dict = field(default_factory=dict, repr=False)  # see `Analysed`

    def env(self, function: ir.Function) -> ConstantEnv:
        """Constant values of `function`'s single-assignment locals (and the file's constants)."""
        if id(function) not in self._env_cache:
            self._env_cache[id(function)] = ConstantEnv(function, self._global_env)
        return self._env_cache[id(function)]

    @cached_property
    def _global_env(self) -> ConstantEnv:
        env = ConstantEnv()
        for decl in self.globals:
            if decl.is_const and decl.init is not None and decl.ref:
                env.definitions[decl.ref] = decl.init
        return env


def build_program(unit: CudaUnit, functions: list[ir.Function], globals_: list[ir.VarDecl]) -> Program:
    program = Program(unit, functions, globals_)
    program.shared_arrays = [SharedArray(d, None) for d in globals_ if d.shared]
    for function in functions:
        if function.body is None:
            continue
        env = program.env(function)
        for node in function.of_type(ir.VarDecl, ir.Launch, ir.Call):
            if isinstance(node, ir.VarDecl) and node.shared:
                program.shared_arrays.append(SharedArray(node, function))
            elif isinstance(node, ir.Launch):
                program.launches.append(_launch_site(program, node, function, env))
            elif isinstance(node, ir.Call):
                if node.callee in _COOPERATIVE_LAUNCHES and len(node.args) >= 3:
                    program.launches.append(_cooperative_site(program, node, function, env))
                elif node.callee == "cudaFuncSetAttribute" and len(node.args) >= 3 \
                        and _DYNAMIC_SMEM_ATTRIBUTE in node.args[1].text:
                    name = _referenced_function(node.args[0])
                    if name:
                        program.dynamic_smem_opt_in[name] = _as_int(env.value(node.args[2]))
    return program


def _launch_site(program: Program, launch: ir.Launch, caller: ir.Function, env: ConstantEnv) -> LaunchSite:
    smem = launch.shared_bytes
    return LaunchSite(
        node=launch, caller=caller, kernel_name=launch.kernel, kernel=program.kernel_named(launch.kernel),
        grid=env.dim3(launch.grid), block=env.dim3(launch.block),
        shared_bytes=0 if smem is None else _as_int(env.value(smem)), shared_bytes_expr=smem,
        cooperative=False, env=env,
    )


def _cooperative_site(program: Program, call: ir.Call, caller: ir.Function, env: ConstantEnv) -> LaunchSite:
    # cudaLaunchCooperativeKernel(func, gridDim, blockDim, args, sharedMem = 0, stream = 0)
    name = _referenced_function(call.args[0]) or ""
    smem = call.args[4] if len(call.args) > 4 else None
    return LaunchSite(
        node=call, caller=caller, kernel_name=name, kernel=program.kernel_named(name),
        grid=env.dim3(call.args[1]), block=env.dim3(call.args[2]),
        shared_bytes=0 if smem is None else _as_int(env.value(smem)), shared_bytes_expr=smem,
        cooperative=True, env=env,
    )


def _referenced_function(expr: ir.Expr) -> str | None:
    for node in expr.walk():
        if isinstance(node, ir.Name) and node.decl_kind in ("function", ""):
            return node.name
    return None


def _as_int(value: int | float | None) -> int | None:
    return int(value) if isinstance(value, int) or isinstance(value, float) and math.isfinite(value) else None
