"""The link between host launches and the kernels they launch, where both are in one unit (every
load_inline file, most standalone .cu files).

For each launch: the kernel parameter each argument goes to, the block size, and for each grid axis
how the grid was computed from a size: ceil division (`(n + b - 1) / b`, can overshoot the size),
floor division (`n / b`, leaves a tail uncovered), the size itself (one block per item), a capped
count (`min(..., cap)`, for grid-stride kernels), or unknown; and which kernel parameter receives
that size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cudalint.analysis.guards import AXES, strip
from cudalint.archs import block_can_run
from cudalint.analysis.symbolic import Poly, Symbolizer
from cudalint.model import ir
from cudalint.model.constants import Dim3
from cudalint.model.program import LaunchSite, Program

CEIL, FLOOR, EXACT, CAPPED, UNKNOWN = "ceil", "floor", "exact", "capped", "unknown"
_CEIL_CALLS = re.compile(r"(?i)(ceil|cdiv|div_?up|divup|round_?up|div_round_up|blocks_?for|num_?blocks)")


@dataclass(eq=False)
class GridAxis:
    axis: str  # "x", "y", "z"
    expr: ir.Expr | None  # the grid dimension as written (resolved through single-assignment locals)
    kind: str  # CEIL, FLOOR, EXACT, CAPPED, UNKNOWN
    size: ir.Expr | None = None  # the size divided (ceil/floor), or the grid itself (exact)
    divisor: ir.Expr | None = None
    division: ir.Binary | None = None  # the `/` (or `>>`) node of a floor division
    divisor_value: int | None = None
    size_params: list[int] = field(default_factory=list)  # kernel parameters that receive the size

    @property
    def can_overshoot(self) -> bool:
        """Whether grid * block can exceed the size: true unless a floor division or the size itself."""
        return self.kind not in (FLOOR, EXACT)


@dataclass(eq=False)
class LaunchLink:
    site: LaunchSite
    kernel: ir.Function | None
    args: list[ir.Expr]  # launch arguments, in parameter order
    grid: list[GridAxis]  # x, y, z
    block: Dim3 | None
    block_exprs: list[ir.Expr | None]  # the block dimension expressions, x, y, z

    def param_of_arg(self, expr: ir.Expr) -> int | None:
        for i, arg in enumerate(self.args):
            if arg is expr:
                return i
        return None


class LaunchLinks:
    """Launch links of a program, built once."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.links: list[LaunchLink] = [self._link(site) for site in program.launches]
        self._by_kernel: dict[int, list[LaunchLink]] = {}
        self._by_node: dict[int, LaunchLink] = {}
        for link in self.links:
            if link.kernel is not None:
                self._by_kernel.setdefault(id(link.kernel), []).append(link)
            self._by_node.setdefault(id(link.site.node), link)

    @staticmethod
    def of(program: Program) -> LaunchLinks:
        return program.analysis(LaunchLinks)

    def of_kernel(self, kernel: ir.Function) -> list[LaunchLink]:
        return self._by_kernel.get(id(kernel), [])

    def of_node(self, node: ir.Expr) -> LaunchLink | None:
        """The link of a launch site's node (the ir.Launch, or the cooperative launch's ir.Call)."""
        return self._by_node.get(id(node))

    def block_sizes(self, kernel: ir.Function) -> list[Dim3]:
        """The distinct known block sizes the kernel is launched with in this unit; with no launch with a
        known block, the __launch_bounds__ maximum as a 1-D block. Not a block the GPU rejects (CL302): no
        thread runs with it, and its threads are not to be enumerated (2**27 of them would take gigabytes)."""
        sizes: list[Dim3] = []
        for link in self.of_kernel(kernel):
            block = link.block
            if block is not None and None not in block and block not in sizes and block_can_run(block):
                sizes.append(block)
        bound = kernel.max_threads_per_block
        if not sizes and bound and block_can_run((bound, 1, 1)):
            sizes.append((bound, 1, 1))
        return sizes

    def grid_can_overshoot(self, kernel: ir.Function, axis: str) -> bool:
        """Whether a launch can start more threads than the data has along `axis`: some launch in this
        unit rounds the grid up (or caps a rounded-up grid), or the unit has no launch of the kernel (a
        kernel-only source: the usual launch rounds up). A grid computed elsewhere (a parameter) cannot
        be judged and does not count."""
        links = self.of_kernel(kernel)
        if not links:
            return True
        index = AXES.index(axis)
        return any(link.grid[index].kind in (CEIL, CAPPED) for link in links)

    # ------------------------------------------------------------------------------------- linking

    def _link(self, site: LaunchSite) -> LaunchLink:
        node = site.node
        if isinstance(node, ir.Launch):
            args, grid_expr, block_expr = list(node.args), node.grid, node.block
        else:  # cudaLaunchCooperativeKernel(func, grid, block, args, ...)
            args, grid_expr, block_expr = [], node.args[1] if len(node.args) > 1 else None, \
                node.args[2] if len(node.args) > 2 else None
        env = site.env
        symbolizer = Symbolizer(env)
        block_exprs = _dimensions(block_expr, env) or [None, None, None]
        grid_exprs = _dimensions(grid_expr, env)
        grid = []
        for i, axis in enumerate(AXES):
            if grid_exprs is None:
                grid.append(GridAxis(axis, None, UNKNOWN))
                continue
            block_value = site.block[i] if site.block is not None else None
            grid.append(self._classify(axis, grid_exprs[i], block_exprs[i], block_value, site, symbolizer, args))
        return LaunchLink(site, site.kernel, args, grid, site.block, block_exprs)

    def _classify(self, axis: str, expr: ir.Expr | None, block_expr: ir.Expr | None, block_value: int | None,
                  site: LaunchSite, symbolizer: Symbolizer, args: list[ir.Expr]) -> GridAxis:
        env = site.env
        if expr is None:
            return GridAxis(axis, None, EXACT if axis != "x" else UNKNOWN)
        resolved = None
        if _multi_assigned(expr, site.caller):
            resolved = _clamped_definition(expr, site.caller)
            if resolved is None:
                return GridAxis(axis, expr, UNKNOWN)
        resolved = strip(resolved if resolved is not None else env.resolve(strip(expr)))
        value = env.value(resolved)
        if isinstance(value, (int, float)) and not isinstance(resolved, ir.Binary):
            return GridAxis(axis, expr, EXACT, size=resolved)
        if isinstance(resolved, ir.Call):
            if _CEIL_CALLS.search(resolved.callee) and resolved.args:
                size = resolved.args[0]
                if resolved.callee.lower().startswith("ceil") and isinstance(strip(size), ir.Binary) \
                        and strip(size).op == "/":
                    size = strip(size).lhs
                return self._with_params(GridAxis(axis, expr, CEIL, size=size), symbolizer, args, site)
            if re.fullmatch(r"(std::)?min", resolved.callee) and len(resolved.args) == 2:
                # min(n / b, cap): the floor division still leaves the tail out
                for arg in resolved.args:
                    inner = self._classify(axis, arg, block_expr, block_value, site, symbolizer, args)
                    if inner.kind == FLOOR:
                        return inner
                return GridAxis(axis, expr, CAPPED)
            if re.fullmatch(r"(std::)?max", resolved.callee):
                return GridAxis(axis, expr, UNKNOWN)
            return self._with_params(GridAxis(axis, expr, EXACT, size=resolved), symbolizer, args, site)
        if isinstance(resolved, ir.Binary) and resolved.op in ("/", ">>"):
            lhs, rhs = strip(resolved.lhs), strip(resolved.rhs)
            written = Symbolizer(env, expand_locals=False)  # the rounding term as written
            divisor_poly = written.poly(rhs)
            divisor_value = env.value(rhs)
            if resolved.op == ">>":
                if not isinstance(divisor_value, int) or not 0 <= divisor_value < 31:
                    return GridAxis(axis, expr, UNKNOWN)
                divisor_value = 1 << divisor_value
                divisor_poly = Poly.const(divisor_value)
            if not isinstance(divisor_value, int):
                divisor_value = None
            lhs_poly = written.poly(lhs)
            size_poly = lhs_poly - divisor_poly + Poly.const(1)
            divisor_atoms = divisor_poly.atoms()
            ceil = False
            if divisor_value is not None and divisor_value > 1 and lhs_poly.terms.get((), 0) == divisor_value - 1 \
                    and len(lhs_poly.terms) > 1:
                ceil = True
                size_poly = lhs_poly - Poly.const(divisor_value - 1)
            elif divisor_atoms and not (size_poly.atoms() & divisor_atoms) and size_poly != lhs_poly:
                ceil = True
            elif _rounds_up(lhs, rhs, divisor_value, env):
                ceil = True
                size_poly = None
            if ceil:
                size_expr = _size_expression(lhs)
                if size_expr is not None and divisor_value:
                    size_value = env.value(size_expr)
                    if isinstance(size_value, int) and size_value % divisor_value == 0:
                        return GridAxis(axis, expr, EXACT, size=size_expr)
                return self._with_params(GridAxis(axis, expr, CEIL, size=size_expr, divisor=rhs,
                                                  divisor_value=divisor_value), written, args, site, size_poly)
            if "float" in resolved.type or "double" in resolved.type:
                return GridAxis(axis, expr, UNKNOWN)
            grid_axis = GridAxis(axis, expr, FLOOR, size=lhs, divisor=rhs, division=resolved,
                                 divisor_value=divisor_value)
            lhs_value = env.value(lhs)
            if isinstance(lhs_value, int) and divisor_value and lhs_value % divisor_value == 0:
                grid_axis.kind = EXACT
            return self._with_params(grid_axis, symbolizer, args, site)
        if isinstance(resolved, ir.Binary) and resolved.op == "+":
            # (n - 1) / b + 1 and n / b + (n % b != 0): ceil divisions written differently
            parts = [strip(resolved.lhs), strip(resolved.rhs)]
            if any(isinstance(p, ir.Binary) and p.op == "/" for p in parts):
                return GridAxis(axis, expr, CEIL)
            return GridAxis(axis, expr, UNKNOWN)
        if isinstance(resolved, ir.Name) and re.search(r"(?i)block|grid|blk", resolved.name):
            return GridAxis(axis, expr, UNKNOWN)  # a block count computed elsewhere
        if isinstance(resolved, (ir.Name, ir.Member)) or (isinstance(resolved, ir.Binary) and resolved.op == "*"):
            return self._with_params(GridAxis(axis, expr, EXACT, size=resolved), symbolizer, args, site)
        return GridAxis(axis, expr, UNKNOWN)

    def _with_params(self, grid_axis: GridAxis, symbolizer: Symbolizer, args: list[ir.Expr], site: LaunchSite,
                     size_poly: Poly | None = None) -> GridAxis:
        if grid_axis.size is None and size_poly is None:
            return grid_axis
        target = size_poly if size_poly is not None else symbolizer.poly(strip(grid_axis.size))
        expanded = Symbolizer(site.env)
        expanded_target = expanded.poly(strip(grid_axis.size)) if grid_axis.size is not None else None
        for i, arg in enumerate(args):
            if symbolizer.poly(strip(arg)) == target or (
                    expanded_target is not None and expanded.poly(strip(arg)) == expanded_target):
                grid_axis.size_params.append(i)
        return grid_axis


def _additive_terms(expr: ir.Expr, sign: int = 1, depth: int = 0) -> list[tuple[int, ir.Expr]]:
    expr = strip(expr)
    if isinstance(expr, ir.Binary) and expr.op in ("+", "-") and depth < 10:
        return _additive_terms(expr.lhs, sign, depth + 1) + _additive_terms(expr.rhs, sign if expr.op == "+" else -sign,
                                                                           depth + 1)
    return [(sign, expr)]


def _rounds_up(lhs: ir.Expr, rhs: ir.Expr, divisor_value: int | None, env) -> bool:
    """`(size + block - 1)` written with the divisor's own spelling (all constants: the polynomial
    cannot tell the rounding term from the size)."""
    terms = _additive_terms(lhs)
    if len(terms) < 2:
        return False
    divisor_text = " ".join(strip(rhs).text.split())
    has_divisor = any(sign > 0 and " ".join(t.text.split()) == divisor_text for sign, t in terms)
    has_minus_one = any(sign < 0 and env.value(t) == 1 for sign, t in terms)
    if has_divisor and has_minus_one:
        return True
    if divisor_value is not None and divisor_value > 1:
        return any(sign > 0 and env.value(t) == divisor_value - 1 for sign, t in terms)
    return False


def _size_expression(lhs: ir.Expr) -> ir.Expr | None:
    """The size operand of `(size + d - 1)`: the additive operand that is not the rounding term."""
    lhs = strip(lhs)
    if isinstance(lhs, ir.Binary) and lhs.op in ("+", "-"):
        inner = strip(lhs.lhs)
        if isinstance(inner, ir.Binary) and inner.op == "+":
            return strip(inner.lhs)
        return inner
    return lhs


def _dimensions(expr: ir.Expr | None, env) -> list[ir.Expr | None] | None:
    """The x, y, z expressions of a launch dimension (absent ones are None); None when unknown."""
    if expr is None:
        return [None, None, None]
    expr = strip(expr)
    for _ in range(10):
        if isinstance(expr, ir.Name) and "dim3" in expr.type:
            definition = env.definition(expr.ref)
            if definition is None:
                return None  # a dim3 whose value is not known
            expr = strip(definition)
            continue
        break
    if isinstance(expr, ir.Construct) and ("dim3" in expr.type or expr.text.startswith("dim3")):
        if len(expr.args) == 1 and "dim3" in expr.args[0].type:
            return _dimensions(expr.args[0], env)
        args: list[ir.Expr | None] = list(expr.args[:3])
        return args + [None] * (3 - len(args))
    if isinstance(expr, ir.InitList):
        args = list(expr.elements[:3])
        return args + [None] * (3 - len(args))
    return [expr, None, None]


def _clamped_definition(expr: ir.Expr, caller: ir.Function) -> ir.Expr | None:
    """The initial value of a grid variable whose later assignments only clamp it to a constant
    (`if (blocks > 65535) blocks = 65535;`, `if (blocks < 1) blocks = 1;`): the rounding is the
    initial value's. None when some later assignment does something else."""
    name = strip(expr)
    if not isinstance(name, ir.Name) or caller.body is None:
        return None
    initial = None
    parents: dict[int, ir.Node] = {}
    for node in caller.nodes:
        for child in node.children():
            parents[id(child)] = node
    for node in caller.of_type(ir.VarDecl, ir.Unary, ir.Binary):
        if isinstance(node, ir.VarDecl) and node.ref == name.ref:
            initial = node.init
        elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--") \
                and isinstance(strip(node.operand), ir.Name) and strip(node.operand).ref == name.ref:
            return None
        elif isinstance(node, ir.Binary) and node.is_assignment and isinstance(strip(node.lhs), ir.Name) \
                and strip(node.lhs).ref == name.ref:
            if node.op != "=" or not isinstance(strip(node.rhs), (ir.Const, ir.Name)):
                return None
            guard = parents.get(id(node))
            while guard is not None and not isinstance(guard, ir.If):
                guard = parents.get(id(guard))
            if guard is None or not any(isinstance(n, ir.Name) and n.ref == name.ref for n in guard.cond.walk()):
                return None
    return initial


def _multi_assigned(expr: ir.Expr, caller: ir.Function) -> bool:
    """A grid variable the host code changes after its definition (`if (blocks > 1024) blocks = 1024;`)."""
    expr = strip(expr)
    if not isinstance(expr, ir.Name) or not expr.ref or caller.body is None:
        return False
    count = 0
    for node in caller.of_type(ir.VarDecl, ir.Binary, ir.Unary):
        if isinstance(node, ir.VarDecl) and node.ref == expr.ref and node.init is not None:
            count += 1
        elif isinstance(node, ir.Binary) and node.is_assignment and isinstance(strip(node.lhs), ir.Name) \
                and strip(node.lhs).ref == expr.ref:
            count += 1
        elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--") \
                and isinstance(strip(node.operand), ir.Name) and strip(node.operand).ref == expr.ref:
            count += 1
    return count > 1


def data_pointer_of(expr: ir.Expr) -> str | None:
    """The declaration ref of `t` in `t.data_ptr<T>()`, `(T*)t.data_ptr()`, `t.mutable_data_ptr<T>()`."""
    inner = strip(expr)
    while isinstance(inner, ir.Cast):
        inner = strip(inner.operand)
    if isinstance(inner, ir.Call) and inner.callee in ("data_ptr", "mutable_data_ptr", "data") and not inner.args \
            and isinstance(inner.receiver, ir.Name):
        return inner.receiver.ref
    return None
