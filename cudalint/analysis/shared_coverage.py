"""Reads of `__shared__` elements that no thread of the block ever writes.

For a kernel whose block size the unit's launches give, the elements of a
static shared array that any thread can write are bounded by evaluation: the lowest and
highest index of every write over all threads of the block and all iterations of the loops around it,
guards ignored (an over-approximation: a write under a condition counts as made). A read is reported when
some thread, in some loop iteration, satisfies every dominating condition and reads an element inside the
array but outside those bounds: a tree reduction that starts at `s = 256` over a 256-thread block reads
`sh[tid + 256]`, which nobody stored. A multi-dimensional array is bounded one dimension at a time
(every access subscripting each dimension, no pointer arithmetic): a `[16][32]` tile that a 16x16 block
fills with `xs[threadIdx.y][threadIdx.x]` has columns 16 to 31 unwritten, and a loop over all 32 reads
them.

Nothing is said of an array whose address escapes to code not modelled (passed to a function the unit
does not bind, cast to another element type, given to an async copy), of a write whose index is unknown
(a loop bounded by a runtime size, a data-dependent index), or of a read under a condition on the thread
or a loop counter that does not evaluate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import strip
from cudalint.analysis.launch_link import LaunchLinks
from cudalint.analysis.pointer_accesses import Access, shared_parameters
from cudalint.analysis.ranges import RangeAnalysis, Witness
from cudalint.model import ir
from cudalint.model.constants import ConstantEnv, Dim3
from cudalint.model.program import Program, SharedArray


@dataclass(frozen=True)
class UnwrittenRead:
    access: Access
    function: ir.Function
    array: SharedArray
    written: tuple[int, int]  # lowest and highest element any thread of the block writes (in `dimension`)
    witness: Witness
    dimension: int  # the array dimension read outside what was written (0 for a 1-D array)


def unwritten_reads(program: Program, kernel: ir.Function,
                    launches: list[tuple[Dim3, ConstantEnv]] | None = None) -> list[UnwrittenRead]:
    """The reads of `kernel` (and the device functions it calls) of shared elements no thread writes.
    `launches`: (block, the kernel's values there) of launches evaluated at the reference's shapes, where
    a condition on a size parameter evaluates; else the blocks of the unit's launches, with the kernel's
    own constants."""
    if launches is None:
        # the blocks of the unit's launches: a __launch_bounds__ maximum says nothing of the block used
        launches = []
        for link in LaunchLinks.of(program).of_kernel(kernel):
            if link.block is not None and None not in link.block and (link.block, None) not in launches:
                launches.append((link.block, None))
    if not launches or kernel.body is None:
        return []
    analysis = GuardAnalysis.of(program)
    ranges = RangeAnalysis.of(program)
    functions = [f for f in program.reachable_functions(kernel) if f.body is not None and f.is_device_code]
    by_array: dict[int, list[tuple[ir.Function, Access]]] = {}
    for function in functions:
        for access in analysis.accesses(function):
            if access.space == "shared" and access.root.shared is not None:
                by_array.setdefault(id(access.root.shared), []).append((function, access))
    found = []
    for array in program.shared_arrays_of(kernel):
        accesses = by_array.get(id(array), [])
        dims = array.decl.dims
        if not accesses or not dims or not all(isinstance(d, int) for d in dims) or array.dynamic \
                or any(a.root.retyped for _, a in accesses) \
                or not _accounted(program, functions, array, [a for _, a in accesses]):
            continue
        # a multi-dimensional array is read one dimension at a time: an element whose index in some
        # dimension lies outside every write's range in that dimension is outside what was written
        if len(dims) > 1 and not all(len(a.indices) == len(dims) and not a.root.offsets
                                     and not isinstance(a.node, ir.Call) for _, a in accesses):
            continue
        for dimension, size in enumerate(dims):
            parts = partial(_index_parts, rank=len(dims), dimension=dimension)
            for block, env in launches:
                written = _written(ranges, accesses, block, parts, kernel, env)
                if written is None or (written[0] <= 0 and written[1] >= size - 1):
                    continue
                for function, access in accesses:
                    if access.is_write or isinstance(access.node, ir.Call):
                        continue
                    witness = ranges.unwritten_witness(function, access, block, written, parts(access),
                                                       env if function is kernel else None)
                    if witness is not None and 0 <= witness.index < size:
                        found.append(UnwrittenRead(access, function, array, written, witness, dimension))
    return found


def _index_parts(access: Access, rank: int, dimension: int) -> list[ir.Expr]:
    """What makes up the access's index in `dimension`: the pointer offsets and subscripts of a 1-D array,
    the one subscript of that dimension otherwise."""
    if rank == 1:
        return list(access.root.offsets) + list(access.indices)
    return [access.indices[dimension]]


def _written(ranges: RangeAnalysis, accesses: list[tuple[ir.Function, Access]], block: Dim3,
             parts: Callable[[Access], list[ir.Expr]], kernel: ir.Function,
             env: ConstantEnv | None) -> tuple[int, int] | None:
    low = high = None
    for function, access in accesses:
        if not access.is_write:
            continue
        if isinstance(access.node, ir.Call) and not access.node.callee.startswith("atomic"):
            return None  # a copy or a fragment store writes a region, not the one element its pointer names
        bounds = ranges.index_interval(function, access, block, parts(access), env if function is kernel else None)
        if bounds is None:
            return None
        low = bounds[0] if low is None else min(low, bounds[0])
        high = bounds[1] if high is None else max(high, bounds[1])
    return (low, high) if low is not None else None


def _accounted(program: Program, functions: list[ir.Function], array: SharedArray, accesses: list[Access]) -> bool:
    """Whether every mention of the array (and of the pointers and parameters bound to it) is inside one
    of its modelled accesses: the written bounds then see every write."""
    covered = {id(n) for access in accesses for n in access.node.walk()}
    aliases = {array.decl.ref}
    bound = {ref for ref, target in shared_parameters(program).items() if target is array}
    for function in functions:
        for node in function.of_type(ir.VarDecl, ir.Call):
            if isinstance(node, ir.VarDecl) and node.init is not None and "*" in node.type and not node.dims:
                init = strip(node.init)
                if isinstance(init, ir.Name) and init.ref in aliases:
                    aliases.add(node.ref)
                    covered.add(id(init))
            elif isinstance(node, ir.Call):
                for callee in program.functions_by_name.get(node.callee, []):
                    for param, arg in zip(callee.params, node.args):
                        if param.ref in bound and isinstance(strip(arg), ir.Name):
                            aliases.add(param.ref)
                            covered.add(id(strip(arg)))
    return all(id(node) in covered for function in functions for node in function.of_type(ir.Name)
               if node.ref in aliases)
