"""Value ranges of index expressions, given the block size (from the unit's launches or
`__launch_bounds__`) and the guards that dominate the access.

Block sizes are small and the loops that shape shared-memory indices (tree reductions, tile loops)
have constant trip counts once the block size is known, so ranges are decided by evaluation: every
thread of the block, every iteration of the enclosing loops the index depends on, each dominating
condition evaluated concretely. A finding needs a witness (a thread and loop iteration where the
access executes with an index outside the array); where something is unknown (a runtime size in the
index, a loop bounded by a parameter, a template parameter) there is no witness and no finding.
Conditions that depend only on runtime values (`idx < n - 1`) are taken as satisfiable.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import AXES, FunctionGuards, strip
from cudalint.analysis.launch_link import LaunchLinks
from cudalint.analysis.pointer_accesses import Access
from cudalint.analysis.symbolic import BLOCK_DIM, THREAD_IDX, Poly, Symbolizer
from cudalint.analysis.uniformity import Uniformity
from cudalint.model import ir
from cudalint.model.constants import ConstantEnv, Dim3, is_integer_type

Value = int | float | bool | None  # None: unknown
Point = dict[str, int]
_MAX_EVALUATIONS = 200_000
_MAX_LOOP_TRIPS = 4096


@dataclass(frozen=True)
class Witness:
    """A thread (and loop iteration) where an access runs with an out-of-range index."""

    index: int
    size: int
    values: tuple[tuple[str, int], ...]  # ("threadIdx.x", 255), ("s", 128)
    block: Dim3 | None

    def describe(self) -> str:
        parts = [f"{name} = {value}" for name, value in self.values]
        return ", ".join(parts)

    def block_shape(self) -> str | None:
        """The block as messages write it: "256", "16x16", "8x8x4"; None when unknown."""
        if self.block is None:
            return None
        x, y, z = self.block
        return f"{x}" + (f"x{y}" if y != 1 or z != 1 else "") + (f"x{z}" if z != 1 else "")


class _Abort(Exception):
    """The search cannot decide (an unknown the index depends on, or too much work)."""


class Evaluator:
    """Compiles expressions of one function into closures over a point (thread index, block size,
    loop counters); unknown values evaluate to None."""

    def __init__(self, env: ConstantEnv, loop_refs: dict[str, str]) -> None:
        self.env = env
        self.loop_refs = loop_refs  # ref -> the point key of a loop counter
        self._cache: dict[ir.Expr, Callable[[Point], Value]] = {}

    def compile(self, expr: ir.Expr | None, depth: int = 0) -> Callable[[Point], Value]:
        if expr is None:
            return _unknown
        if expr not in self._cache:  # by the expression itself: a dead expression's id can be reused
            self._cache[expr] = self._compile(expr, depth)
        return self._cache[expr]

    def _compile(self, expr: ir.Expr, depth: int) -> Callable[[Point], Value]:
        if depth > 40:
            return _unknown
        if isinstance(expr, ir.Const):
            value = expr.value
            if value is None:
                return _unknown
            value = int(value) if isinstance(value, bool) else value
            return lambda p: value
        if isinstance(expr, ir.Name):
            if expr.constant is not None:
                constant = expr.constant
                return lambda p: constant
            if expr.name == "warpSize":
                return lambda p: 32
            if expr.ref in self.loop_refs:
                point_key = self.loop_refs[expr.ref]
                return lambda p: p.get(point_key)
            definition = self.env.definition(expr.ref)
            if definition is not None:
                inner = self.compile(definition, depth + 1)
                if is_integer_type(expr.type):
                    return lambda p: _to_int(inner(p))
                return inner
            value = self.env.value(expr)  # a parameter whose value the environment knows (at the reference)
            if isinstance(value, int):
                return lambda p: value
            return _unknown
        if isinstance(expr, ir.Member) and isinstance(expr.base, ir.Name):
            base = expr.base.name
            if base in ("threadIdx", "blockDim") and expr.field in AXES:
                point_key = ("tid." if base == "threadIdx" else "bdim.") + expr.field
                return lambda p: p.get(point_key)
            return _unknown
        if isinstance(expr, ir.Cast):
            inner = self.compile(expr.operand, depth + 1)
            if is_integer_type(expr.type):
                return lambda p: _to_int(inner(p))
            return inner
        if isinstance(expr, ir.Unary):
            inner = self.compile(expr.operand, depth + 1)
            op = expr.op
            if op == "-":
                return lambda p: _neg(inner(p))
            if op == "+":
                return inner
            if op == "!":
                return lambda p: _not(inner(p))
            if op == "~":
                return lambda p: _invert(inner(p))
            return _unknown
        if isinstance(expr, ir.Binary):
            if expr.is_assignment:
                return _unknown
            left = self.compile(expr.lhs, depth + 1)
            right = self.compile(expr.rhs, depth + 1)
            op = expr.op
            if op == "&&":
                return _and_closure(left, right)
            if op == "||":
                return _or_closure(left, right)
            function = _BINARY.get(op)
            if function is None:
                return _unknown
            return lambda p: _apply(function, left(p), right(p))
        if isinstance(expr, ir.Conditional):
            cond = self.compile(expr.cond, depth + 1)
            then = self.compile(expr.then, depth + 1)
            otherwise = self.compile(expr.otherwise, depth + 1)

            def conditional(p: Point) -> Value:
                c = cond(p)
                if c is None:
                    return None
                return then(p) if c else otherwise(p)

            return conditional
        if isinstance(expr, ir.Call) and len(expr.args) == 2 and expr.receiver is None:
            name = expr.callee.split("::")[-1]
            if name in ("min", "umin", "fminf", "fmin", "max", "umax", "fmaxf", "fmax"):
                args = [self.compile(a, depth + 1) for a in expr.args]
                pick = min if "min" in name else max
                return lambda p: _pick(pick, args[0](p), args[1](p))
        value = self.env.value(expr)
        if value is not None:
            return lambda p: value
        return _unknown


def _unknown(_p: Point) -> Value:
    return None


def _to_int(value: Value) -> Value:
    return None if value is None else int(value)


def _neg(value: Value) -> Value:
    return None if value is None else -value


def _not(value: Value) -> Value:
    return None if value is None else int(not value)


def _invert(value: Value) -> Value:
    return ~value if isinstance(value, int) else None


def _pick(pick, a: Value, b: Value) -> Value:
    if a is None or b is None:
        return None
    return pick(a, b)


def _div(a, b):
    if b == 0:
        return None
    if isinstance(a, int) and isinstance(b, int):
        quotient = abs(a) // abs(b)
        return quotient if (a >= 0) == (b >= 0) else -quotient
    return a / b


def _mod(a, b):
    if not isinstance(a, int) or not isinstance(b, int) or b == 0:
        return None
    return a - _div(a, b) * b


def _shift_left(a, b):
    if not isinstance(a, int) or not isinstance(b, int) or not 0 <= b < 64:
        return None
    return a << b


def _shift_right(a, b):
    if not isinstance(a, int) or not isinstance(b, int) or not 0 <= b < 64:
        return None
    return a >> b


def _bitwise(function):
    def apply(a, b):
        if not isinstance(a, int) or not isinstance(b, int):
            return None
        return function(a, b)
    return apply


_BINARY: dict[str, Callable] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": _div, "%": _mod,
    "<<": _shift_left, ">>": _shift_right, "&": _bitwise(lambda a, b: a & b), "|": _bitwise(lambda a, b: a | b),
    "^": _bitwise(lambda a, b: a ^ b),
    "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b), ">": lambda a, b: int(a > b),
    ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    ",": lambda a, b: b,
}


def _apply(function: Callable, a: Value, b: Value) -> Value:
    if a is None or b is None:
        return None
    return function(a, b)


# short-circuit operators: the right operand only when the left does not decide
def _and_closure(left, right):
    def evaluate(p: Point) -> Value:
        a = left(p)
        if a is not None and not a:
            return 0
        b = right(p)
        if b is not None and not b:
            return 0
        if a is None or b is None:
            return None
        return 1
    return evaluate


def _or_closure(left, right):
    def evaluate(p: Point) -> Value:
        a = left(p)
        if a:
            return 1
        b = right(p)
        if b:
            return 1
        if a is None or b is None:
            return None
        return 0
    return evaluate


# ------------------------------------------------------------------------------------------- loops


@dataclass(eq=False)
class _Loop:
    stmt: ir.Stmt
    ref: str
    name: str
    init: ir.Expr
    cond: ir.Expr
    step: ir.Expr  # the step expression, written as an assignment or increment of the counter


def _loop_of(stmt: ir.Stmt) -> _Loop | None:
    if not isinstance(stmt, ir.For) or stmt.cond is None or stmt.step is None or stmt.init is None:
        return None
    ref = name = None
    init = None
    if isinstance(stmt.init, ir.DeclStmt) and len(stmt.init.decls) == 1:
        decl = stmt.init.decls[0]
        ref, name, init = decl.ref, decl.name, decl.init
    elif isinstance(stmt.init, ir.ExprStmt) and isinstance(stmt.init.expr, ir.Binary) and stmt.init.expr.op == "=" \
            and isinstance(strip(stmt.init.expr.lhs), ir.Name):
        target = strip(stmt.init.expr.lhs)
        ref, name, init = target.ref, target.name, stmt.init.expr.rhs
    if ref is None or init is None:
        return None
    step = stmt.step
    target = None
    if isinstance(step, ir.Unary) and step.op in ("++", "--", "post++", "post--"):
        target = strip(step.operand)
    elif isinstance(step, ir.Binary) and step.is_assignment:
        target = strip(step.lhs)
    if not isinstance(target, ir.Name) or target.ref != ref:
        return None
    # the counter must not be written in the body
    for node in stmt.body.walk():
        if isinstance(node, ir.Binary) and node.is_assignment and isinstance(strip(node.lhs), ir.Name) \
                and strip(node.lhs).ref == ref:
            return None
        if isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--") \
                and isinstance(strip(node.operand), ir.Name) and strip(node.operand).ref == ref:
            return None
    return _Loop(stmt, ref, name, init, stmt.cond, step)


def _step_function(loop: _Loop, evaluator: Evaluator, key: str) -> Callable[[Point], Value]:
    step = loop.step
    if isinstance(step, ir.Unary):
        delta = 1 if "++" in step.op else -1
        return lambda p: None if p.get(key) is None else p[key] + delta
    assert isinstance(step, ir.Binary)
    rhs = evaluator.compile(step.rhs)
    if step.op == "=":
        return rhs
    function = _BINARY.get(step.op[:-1])
    if function is None:
        return _unknown
    return lambda p: _apply(function, p.get(key), rhs(p))


# ------------------------------------------------------------------------------------------ analysis


class RangeAnalysis:
    """Out-of-range witnesses for array accesses of the kernels of a program."""

    def __init__(self, program) -> None:
        self.program = program
        self.guards = GuardAnalysis.of(program)
        self.links = LaunchLinks.of(program)
        self._loops: dict[int, _Loop | None] = {}  # by id of the loop statement

    @staticmethod
    def of(program) -> RangeAnalysis:
        return program.analysis(RangeAnalysis)

    def _loop(self, stmt: ir.Stmt) -> _Loop | None:
        """`_loop_of(stmt)`, once per loop: every access under the loop asks, and it walks the loop's body."""
        key = id(stmt)
        if key not in self._loops:
            self._loops[key] = _loop_of(stmt)
        return self._loops[key]

    def array_witness(self, kernel: ir.Function, function: ir.Function, access: Access, dimension: int,
                      size: int, launch: tuple[Dim3, ConstantEnv] | None = None) -> Witness | None:
        """A thread where subscript `dimension` of `access` (in `function`, run by `kernel`) is outside
        [0, size), or None when there is none or it cannot be decided. `launch`: (the block, the kernel's
        values) of one launch evaluated at the reference's shapes, else the blocks of the unit's launches
        with the function's own constants."""
        root = access.root
        if root.retyped:
            return None
        if dimension >= len(access.indices):
            return None
        parts = [access.indices[dimension]]
        if dimension == 0 and len(access.indices) == 1 and root.offsets:
            if root.decl is not None and len(root.decl.dims) > 1:
                return None
            parts = list(root.offsets) + parts
        elif root.offsets:
            return None
        if launch is not None:
            return self._search(function, access, parts, 0, size, [launch[0]], False, launch[1])
        return self._search(function, access, parts, 0, size, self.links.block_sizes(kernel), False)

    def buffer_witness(self, function: ir.Function, access: Access, size: int, block: Dim3,
                       env: ConstantEnv | None = None) -> Witness | None:
        """A thread of a `block`-sized block where a 1-D `access` into a buffer of `size` elements of the
        accessed type (a dynamic shared-memory allocation) is outside [0, size): its pointer offsets and
        subscript together. `env`: the function's values at one launch (its parameters at the reference's
        shapes), else its own constants. None when there is none, when it cannot be decided, or when the
        offsets were added in units of another element type."""
        root = access.root
        if root.mixed_units or len(access.indices) > 1 or (root.decl is not None and len(root.decl.dims) > 1):
            return None
        return self._search(function, access, access.parts, 0, size, [block], False, env)

    def unwritten_witness(self, function: ir.Function, access: Access, block: Dim3,
                          written: tuple[int, int], parts: list[ir.Expr] | None = None,
                          env: ConstantEnv | None = None) -> Witness | None:
        """A thread of a `block`-sized block where the element index of a 1-D `access` (or the index
        `parts` of one dimension) falls outside `written` (the lowest and highest element any thread
        writes). Dominating conditions on the thread or a loop counter must evaluate: an unknown one is not
        taken as satisfiable here. `env`: the function's values at one launch, else its own constants."""
        if parts is None:
            parts = list(access.root.offsets) + list(access.indices)
        return self._search(function, access, parts, written[0], written[1] + 1, [block], True, env)

    def _search(self, function: ir.Function, access: Access, parts: list[ir.Expr], low: int, high: int,
                blocks: list[Dim3], strict: bool, env: ConstantEnv | None = None) -> Witness | None:
        guards = self.guards.guards(function)
        loops = [loop for loop in map(self._loop, guards.loops(access.node)) if loop is not None]
        try:
            return _Search(self.program, function, guards, access.node, parts, high, blocks, loops, low,
                           strict, env).run()
        except _Abort:
            return None

    def index_interval(self, function: ir.Function, access: Access, block: Dim3,
                       parts: list[ir.Expr] | None = None, env: ConstantEnv | None = None) -> tuple[int, int] | None:
        """The lowest and highest element index of a 1-D `access` (or of the index `parts` of one
        dimension) over every thread of a `block`-sized block and every iteration of the loops around it,
        guards ignored; None when unknown. `env`: the function's values at one launch, else its own
        constants."""
        env = env if env is not None else self.program.env(function)
        loops = [loop for loop in map(self._loop, self.guards.guards(function).loops(access.node)) if loop]
        keys = {loop.ref: "var:" + loop.ref for loop in loops}
        ranges: dict[str, tuple[int, int]] = {}
        for axis, extent in zip(AXES, block):
            if extent is None:
                return None
            ranges["tid." + axis] = (0, extent - 1)
            ranges["bdim." + axis] = (extent, extent)
        intervals = _Intervals(env, keys, ranges)
        evaluator = Evaluator(env, keys)
        for loop in loops:  # a counter left without bounds makes every index that uses it unknown
            bounds = _loop_bounds(loop, evaluator, block) or _loop_interval(loop, intervals)
            if bounds is not None:
                ranges["var:" + loop.ref] = bounds
        low = high = 0
        for part in parts if parts is not None else list(access.root.offsets) + list(access.indices):
            bounds = intervals.of(part)
            if bounds is None:
                return None
            low, high = low + bounds[0], high + bounds[1]
        return low, high


class _Search:
    """A thread (and loop iteration) running `node` with its index outside [low, size). `strict`: a
    dominating condition on the thread or a loop counter that does not evaluate is not satisfiable."""

    def __init__(self, program, function: ir.Function, guards: FunctionGuards, node: ir.Expr, parts: list[ir.Expr],
                 size: int, blocks: list[Dim3], loops: list[_Loop], low: int = 0, strict: bool = False,
                 env: ConstantEnv | None = None) -> None:
        self.env = env if env is not None else program.env(function)
        self.node = node
        self.parts = parts
        self.size = size
        self.low = low
        self.strict = strict
        self.dependence = program.analysis(Uniformity).of(function)
        self.blocks = blocks
        self.conditions = guards.conditions(node)
        self.comparisons = guards.comparisons(node)
        self.loops = loops  # the loops around `node` whose counter the search can enumerate
        self.evaluations = 0

    def run(self) -> Witness | None:
        index_refs, index_builtins, templated = _references(self.parts, self.env)
        if templated:
            raise _Abort
        self._drop_free_loops(index_refs)
        condition_exprs = [c.expr for c in self.conditions]
        cond_refs, cond_builtins, cond_templated = _references(condition_exprs, self.env)
        if cond_templated:
            raise _Abort
        # loops to simulate: those whose counter the index or a dominating condition uses (`if (tid < s)`
        # in a tree reduction bounds tid only through s), and those their bounds use
        loops_by_ref = {loop.ref: loop for loop in self.loops}
        needed: set[str] = {ref for ref in index_refs | cond_refs if ref in loops_by_ref}
        changed = True
        while changed:
            changed = False
            for ref in list(needed):
                loop = loops_by_ref[ref]
                refs, builtins, templated = _references([loop.init, loop.cond], self.env)
                if templated:
                    raise _Abort
                index_builtins |= builtins
                for other in refs:
                    if other in loops_by_ref and other not in needed:
                        needed.add(other)
                        changed = True
        loops = [loop for loop in self.loops if loop.ref in needed]  # outermost first
        keys = {loop.ref: "var:" + loop.ref for loop in loops}
        evaluator = Evaluator(self.env, keys)
        index = [evaluator.compile(part) for part in self.parts]
        conditions = [(evaluator.compile(c.expr), c.holds, self.strict and self._varies(c.expr, keys))
                      for c in self.conditions]
        plans = [(loop, evaluator.compile(loop.init), evaluator.compile(loop.cond),
                  _step_function(loop, evaluator, keys[loop.ref])) for loop in loops]
        # threads are enumerated along the axes the index depends on; a condition on other axes is
        # satisfiable by some thread (unknown here), which is what an existential witness needs
        thread_axes = sorted({b.split(".")[1] for b in index_builtins if b.startswith("tid.")})
        needs_block = bool(index_builtins)
        candidates: list[Dim3 | None] = list(self.blocks) or [None]
        if needs_block and candidates == [None]:
            raise _Abort
        if self._fits(loops, evaluator, candidates):
            return None
        for block in candidates:
            point: Point = {}
            if block is not None:
                for axis, extent in zip(AXES, block):
                    point["bdim." + axis] = extent
            ranges = [range(block[AXES.index(axis)]) for axis in thread_axes] if block is not None else []
            for tids in itertools.product(*ranges):
                for axis, value in zip(thread_axes, tids):
                    point["tid." + axis] = value
                witness = self._loops(plans, 0, point, index, conditions, block, thread_axes)
                if witness is not None:
                    return witness
        return None

    def _drop_free_loops(self, index_refs: set[str]) -> None:
        """An enclosing loop whose counter only its own condition reads (`for (t = 0; t < K; t += TILE)`
        around a tile's reads) runs the body for some iteration whenever the body runs at all: its
        condition is not one the witness must satisfy, and its counter need not be simulated. Not a loop
        whose start or bound differs between threads (`for (j = threadIdx.x; j < 32; ...)`): some threads
        never enter it."""
        for loop in list(self.loops):
            if any(self.dependence.is_dependent(part) for part in (loop.init, loop.cond) if part is not None):
                continue  # a start or bound that differs between threads (`j = threadIdx.x`, `j < n[tid]`)
            own = [c for c in self.conditions if c.kind == "loop" and c.origin is loop.stmt]
            others = [c.expr for c in self.conditions if c not in own]
            refs, _, _ = _references(others, self.env)
            bounds, _, _ = _references([other.init for other in self.loops if other is not loop]
                                       + [other.cond for other in self.loops if other is not loop], self.env)
            if own and loop.ref not in index_refs | refs | bounds:
                self.loops = [other for other in self.loops if other is not loop]
                self.conditions = tuple(c for c in self.conditions if c not in own)

    def _varies(self, expr: ir.Expr, loop_keys: dict[str, str]) -> bool:
        """Whether a condition reads the thread index or a loop counter (through single-assignment locals)."""
        refs, _, _ = _references([expr], self.env)
        return self.dependence.is_dependent(expr) or bool(refs & set(loop_keys))

    def _fits(self, loops: list[_Loop], evaluator: Evaluator, candidates: list[Dim3 | None]) -> bool:
        """Interval bounds of the index, ignoring guards: inside the array for every block, so no
        thread can be out of range (the cheap path that spares the enumeration)."""
        for block in candidates:
            ranges: dict[str, tuple[int, int]] = {}
            if block is not None:
                for axis, extent in zip(AXES, block):
                    ranges["tid." + axis] = (0, extent - 1)
                    ranges["bdim." + axis] = (extent, extent)
            intervals = _Intervals(self.env, {loop.ref: "var:" + loop.ref for loop in loops}, ranges)
            for loop in loops:
                bounds = _loop_bounds(loop, evaluator, block) or _loop_interval(loop, intervals)
                if bounds is None:
                    return False
                ranges["var:" + loop.ref] = bounds
            low = high = 0
            for part in self.parts:
                bounds = intervals.of(part)
                if bounds is None:
                    break
                low, high = low + bounds[0], high + bounds[1]
            else:
                if self.low <= low and high < self.size:
                    continue
            if not self._fits_with_guards(intervals):
                return False
        return True

    def _fits_with_guards(self, intervals: _Intervals) -> bool:
        """Interval bounds after replacing a linear thread index or counter by the bound a dominating
        guard puts on it (`if (tid < s) sdata[tid + s]`: tid + s <= 2 s - 1)."""
        symbolizer = Symbolizer(self.env)
        index = Poly()
        for part in self.parts:
            index = index + symbolizer.poly(part)
        upper, lower = index, index
        for comparison in self.comparisons:
            for subject, limit, inclusive in comparison.upper_bounds():
                upper = _substitute(upper, symbolizer.poly(subject), symbolizer.poly(limit), 0 if inclusive else -1,
                                    positive=True)
            for subject, limit, inclusive in comparison.lower_bounds():
                lower = _substitute(lower, symbolizer.poly(subject), symbolizer.poly(limit), 0 if inclusive else 1,
                                    positive=True)
        high = _poly_interval(upper, intervals, symbolizer)
        low = _poly_interval(lower, intervals, symbolizer)
        return high is not None and low is not None and high[1] < self.size and low[0] >= self.low

    def _loops(self, plans, depth: int, point: Point, index, conditions, block, thread_axes) -> Witness | None:
        if depth == len(plans):
            return self._check(point, index, conditions, block, thread_axes, plans)
        loop, init, cond, step = plans[depth]
        key = "var:" + loop.ref
        value = init(point)
        trips = 0
        while True:
            if value is None:
                raise _Abort
            point[key] = value
            test = cond(point)
            if test is None:
                raise _Abort
            if not test:
                break
            witness = self._loops(plans, depth + 1, point, index, conditions, block, thread_axes)
            if witness is not None:
                return witness
            trips += 1
            if trips > _MAX_LOOP_TRIPS:
                raise _Abort
            value = step(point)
        point.pop(key, None)
        return None

    def _check(self, point: Point, index, conditions, block, thread_axes, plans) -> Witness | None:
        self.evaluations += 1
        if self.evaluations > _MAX_EVALUATIONS:
            raise _Abort
        total = 0
        for part in index:
            value = part(point)
            if value is None:
                raise _Abort
            total += value
        if isinstance(total, float):
            if not total.is_integer():
                raise _Abort
            total = int(total)
        if self.low <= total < self.size:
            return None
        for condition, holds, decisive in conditions:
            value = condition(point)
            if value is None and decisive:
                return None
            if value is not None and bool(value) != holds:
                return None
        values = [(f"threadIdx.{axis}", point["tid." + axis]) for axis in thread_axes]
        values += [(loop.name, point["var:" + loop.ref]) for loop, *_ in plans]
        return Witness(total, self.size, tuple(values), block)


def _loop_bounds(loop: _Loop, evaluator: Evaluator, block: Dim3 | None) -> tuple[int, int] | None:
    """Min and max of a loop counter whose bounds do not depend on the thread (or other counters)."""
    point: Point = {}
    if block is not None:
        for axis, extent in zip(AXES, block):
            point["bdim." + axis] = extent
    key = evaluator.loop_refs.get(loop.ref)
    if key is None:
        return None
    init, cond = evaluator.compile(loop.init), evaluator.compile(loop.cond)
    step = _step_function(loop, evaluator, key)
    value = init(point)
    low = high = None
    for _ in range(_MAX_LOOP_TRIPS):
        if not isinstance(value, int):
            return None
        point[key] = value
        test = cond(point)
        if test is None:
            return None
        if not test:
            return (low, high) if low is not None else (0, 0)
        low = value if low is None else min(low, value)
        high = value if high is None else max(high, value)
        value = step(point)
    return None


def _substitute(poly: Poly, subject: Poly, limit: Poly, adjust: int, positive: bool) -> Poly:
    """Replace the single linear atom of `subject` (with coefficient 1) in `poly` by `limit + adjust - rest`,
    where it occurs in `poly` with a positive constant coefficient."""
    if len(subject.terms) == 0:
        return poly
    for monomial, coefficient in subject.terms.items():
        if len(monomial) != 1 or coefficient != 1 or monomial[0].kind not in (THREAD_IDX, "var", "opaque"):
            continue
        atom = monomial[0]
        factor = poly.coefficient(atom)
        if factor is None or factor.constant is None or factor.constant <= 0 or atom in limit.atoms():
            continue
        rest = subject - Poly.atom(atom)
        replacement = limit + Poly.const(adjust) - rest
        return poly - Poly.atom(atom) * factor + replacement * factor
    return poly


def _poly_interval(poly: Poly, intervals: _Intervals, symbolizer: Symbolizer) -> tuple[int, int] | None:
    low = high = 0
    for monomial, coefficient in poly.terms.items():
        bounds = (coefficient, coefficient)
        for atom in monomial:
            if atom.kind == THREAD_IDX:
                value = intervals.ranges.get("tid." + atom.key)
            elif atom.kind == BLOCK_DIM:
                value = intervals.ranges.get("bdim." + atom.key)
            elif atom.kind == "var":
                key = intervals.loop_refs.get(atom.key)
                value = intervals.ranges.get(key) if key else None
            elif atom.kind == "opaque":
                expr = symbolizer.opaque_exprs.get(atom)
                value = intervals.of(expr) if expr is not None else None
            else:
                value = None
            if value is None:
                return None
            products = [x * y for x in bounds for y in value]
            bounds = (min(products), max(products))
        low, high = low + bounds[0], high + bounds[1]
    return low, high


def _loop_interval(loop: _Loop, intervals: _Intervals) -> tuple[int, int] | None:
    """Bounds of a counter that counts up from its start to an exclusive or inclusive bound
    (`for (e = tid; e < N; e += B)`), or down from its start to a lower bound."""
    step = loop.step
    if isinstance(step, ir.Unary):
        up = "++" in step.op
    elif isinstance(step, ir.Binary) and step.op in ("+=", "-=", "*=", "<<=", ">>=", "/="):
        amount = intervals.of(step.rhs)
        if amount is None or amount[0] <= 0 or (step.op in ("*=", "/=") and amount[0] < 2):
            return None
        up = step.op in ("+=", "*=", "<<=")
    else:
        return None
    start = intervals.of(loop.init)
    cond = strip(loop.cond)
    if start is None or not isinstance(cond, ir.Binary):
        return None
    lhs, rhs, op = strip(cond.lhs), strip(cond.rhs), cond.op
    if isinstance(rhs, ir.Name) and rhs.ref == loop.ref:
        lhs, rhs, op = rhs, lhs, {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
    if not (isinstance(lhs, ir.Name) and lhs.ref == loop.ref):
        return None
    limit = intervals.of(rhs)
    if limit is None:
        return None
    if up and op in ("<", "<=", "!="):
        high = limit[1] - (0 if op == "<=" else 1)
        return (start[0], max(high, start[0]))
    if not up and op in (">", ">="):
        low = limit[0] + (0 if op == ">=" else 1)
        return (min(low, start[1]), start[1])
    return None


class _Intervals:
    """Interval bounds of integer expressions (no guards): None when unknown."""

    def __init__(self, env: ConstantEnv, loop_refs: dict[str, str], ranges: dict[str, tuple[int, int]]) -> None:
        self.env = env
        self.loop_refs = loop_refs
        self.ranges = ranges

    def of(self, expr: ir.Expr | None, depth: int = 0) -> tuple[int, int] | None:
        if expr is None or depth > 40:
            return None
        if isinstance(expr, ir.Const):
            return (expr.value, expr.value) if isinstance(expr.value, int) and not isinstance(expr.value, bool) else None
        if isinstance(expr, ir.Name):
            if isinstance(expr.constant, int):
                return expr.constant, expr.constant
            if expr.name == "warpSize":
                return 32, 32
            if expr.ref in self.loop_refs:
                return self.ranges.get(self.loop_refs[expr.ref])
            definition = self.env.definition(expr.ref)
            if definition is not None:
                return self.of(definition, depth + 1)
            value = self.env.value(expr)
            return (value, value) if isinstance(value, int) and not isinstance(value, bool) else None
        if isinstance(expr, ir.Member) and isinstance(expr.base, ir.Name) and expr.field in AXES:
            if expr.base.name == "threadIdx":
                return self.ranges.get("tid." + expr.field)
            if expr.base.name == "blockDim":
                return self.ranges.get("bdim." + expr.field)
            return None
        if isinstance(expr, ir.Cast):
            if not is_integer_type(expr.type):
                return None
            return self.of(expr.operand, depth + 1)
        if isinstance(expr, ir.Unary) and expr.op == "-":
            inner = self.of(expr.operand, depth + 1)
            return (-inner[1], -inner[0]) if inner else None
        if isinstance(expr, ir.Conditional):
            a, b = self.of(expr.then, depth + 1), self.of(expr.otherwise, depth + 1)
            return (min(a[0], b[0]), max(a[1], b[1])) if a and b else None
        if isinstance(expr, ir.Binary):
            op = expr.op
            if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
                return 0, 1
            a = self.of(expr.lhs, depth + 1)
            if op in ("&", "%") and a is not None and a[0] >= 0:
                value = self.env.value(expr.rhs)
                if isinstance(value, int) and value > 0:
                    return (0, min(a[1], value if op == "&" else value - 1))
            b = self.of(expr.rhs, depth + 1)
            if a is None or b is None:
                return None
            if op == "+":
                return a[0] + b[0], a[1] + b[1]
            if op == "-":
                return a[0] - b[1], a[1] - b[0]
            if op == "*":
                products = [x * y for x in a for y in b]
                return min(products), max(products)
            if op in ("/", ">>") and b[0] == b[1] and b[0] > 0 and a[0] >= 0:
                d = b[0] if op == "/" else 1 << b[0]
                return a[0] // d, a[1] // d
            if op == "<<" and b[0] == b[1] and 0 <= b[0] < 31:
                return a[0] << b[0], a[1] << b[0]
            return None
        if isinstance(expr, ir.Call) and len(expr.args) == 2 and expr.receiver is None:
            name = expr.callee.split("::")[-1]
            a, b = self.of(expr.args[0], depth + 1), self.of(expr.args[1], depth + 1)
            if name in ("min", "umin") and a and b:
                return min(a[0], b[0]), min(a[1], b[1])
            if name in ("max", "umax") and a and b:
                return max(a[0], b[0]), max(a[1], b[1])
        return None


def _references(exprs: list[ir.Expr], env: ConstantEnv) -> tuple[set[str], set[str], bool]:
    """Variable refs (through single-assignment locals), builtins ("tid.x", "bdim.y") and whether a
    template parameter is used."""
    refs: set[str] = set()
    builtins: set[str] = set()
    templated = False
    seen: set[str] = set()
    stack = [e for e in exprs if e is not None]
    while stack:
        expr = stack.pop()
        for node in expr.walk():
            if isinstance(node, ir.Member) and isinstance(node.base, ir.Name) \
                    and node.base.name in ("threadIdx", "blockDim") and node.field in AXES:
                builtins.add(("tid." if node.base.name == "threadIdx" else "bdim.") + node.field)
            elif isinstance(node, ir.Name):
                if node.decl_kind == "template_param" and node.constant is None:
                    templated = True
                if node.ref and node.ref not in seen:
                    seen.add(node.ref)
                    refs.add(node.ref)
                    definition = env.definition(node.ref)
                    if definition is not None:
                        stack.append(definition)
    return refs, builtins, templated
