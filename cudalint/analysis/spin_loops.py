"""Loops that spin on global memory other blocks must write (CL104), and the loop counters (initial value, step,
direction) of each device function, which the barrier-interval analysis pins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cudalint.model import ir

if TYPE_CHECKING:
    from cudalint.analysis.barriers import SyncAnalysis


# ------------------------------------------------------------------------------------ spin loops (CL104)


@dataclass
class SpinLoop:
    loop: ir.Stmt
    function: ir.Function
    cond: ir.Expr


_WAIT_CALLS = {"__nanosleep", "__threadfence", "__threadfence_block", "__threadfence_system", "__syncwarp",
               "__builtin_ia32_pause"}
_READ_ATOMICS = {"atomicAdd", "atomicSub", "atomicOr", "atomicAnd", "atomicXor", "atomicMax", "atomicMin",
                 "atomicAdd_system", "atomicOr_system", "atomicAdd_block"}
_LOAD_CALLS = {"__ldcg", "__ldcv", "__ldca", "__ldlu", "__ldg", "ld_acquire", "load", "__ldcs"}


def find_spin_loops(analysis: SyncAnalysis) -> list[SpinLoop]:
    program = analysis.program
    out = []
    for function in program.functions:
        if function.body is None or not function.is_device_code:
            continue
        env = program.env(function)
        params = {p.ref: p for p in function.params if p.ref}
        for node in function.of_type(ir.While, ir.For):
            if isinstance(node, ir.For) and (node.init is not None or node.step is not None):
                continue
            if node.cond is None or not _waits(node.body, node.cond):
                continue
            if _polls_global(node.cond, env, params, analysis.device_globals):
                out.append(SpinLoop(node, function, node.cond))
    return out


def _waits(body: ir.Stmt | None, cond: ir.Expr) -> bool:
    """A loop body that makes no progress of its own: empty, a pause, or re-reading a flag into a local.
    A local that moves the address the loop reads is progress: `while (v > p[v]) v = p[v];` chases
    pointers (union-find's root search) and ends by itself."""
    if body is None:
        return True
    assigned = {stmt.lhs.ref for stmt in body.walk()
                if isinstance(stmt, ir.Binary) and stmt.is_assignment and isinstance(stmt.lhs, ir.Name)}
    addresses = [node.index for part in (cond, body) for node in part.walk() if isinstance(node, ir.Index)]
    if any(isinstance(node, ir.Name) and node.ref in assigned for index in addresses for node in index.walk()):
        return False
    for stmt in body.walk():
        if isinstance(stmt, ir.Call) and stmt.callee not in _WAIT_CALLS and stmt.callee not in _LOAD_CALLS \
                and not stmt.callee.startswith("atomic"):
            return False
        if isinstance(stmt, ir.Binary) and stmt.is_assignment and not isinstance(stmt.lhs, ir.Name):
            return False
        if isinstance(stmt, ir.Unary) and stmt.op in ("++", "--", "post++", "post--"):
            return False
        if isinstance(stmt, (ir.Break, ir.Return)):
            return False
    return True


def _polls_global(cond: ir.Expr, env, params: dict, device_globals: dict) -> bool:
    for node in cond.walk():
        if isinstance(node, ir.Call):
            name = node.callee.rsplit("::", 1)[-1]
            if name == "atomicCAS" and len(node.args) == 3:
                compare, value = env.value(node.args[1]), env.value(node.args[2])
                if compare is not None and compare == value:
                    return True  # atomicCAS(p, v, v): a read
                continue  # a lock acquisition: waits for a holder that is running, not for other blocks
            if name in _READ_ATOMICS and len(node.args) >= 2 and env.value(node.args[1]) == 0 \
                    and name in ("atomicAdd", "atomicOr", "atomicSub", "atomicXor", "atomicAdd_system",
                                 "atomicOr_system", "atomicAdd_block"):
                return True
            if name in _LOAD_CALLS and node.args:
                return True
        if isinstance(node, (ir.Index, ir.Unary)) and (not isinstance(node, ir.Unary) or node.op == "*"):
            base = node.base if isinstance(node, ir.Index) else node.operand
            while isinstance(base, (ir.Cast, ir.Index)):
                base = base.operand if isinstance(base, ir.Cast) else base.base
            if isinstance(base, ir.Name) and (base.ref in device_globals or base.ref in params and "*" in base.type):
                return True  # a load through a kernel parameter or from a __device__ array
        if isinstance(node, ir.Name) and node.ref in device_globals and not device_globals[node.ref].dims:
            return True
    return False


def loop_variables(function: ir.Function, env) -> tuple[dict, set[str], dict]:
    counts: dict[str, int] = {}
    for node in function.of_type(ir.Binary, ir.Unary):
        target = None
        if isinstance(node, ir.Binary) and node.is_assignment:
            target = node.lhs
        elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--", "&"):
            target = node.operand
        if isinstance(target, ir.Name) and target.ref:
            counts[target.ref] = counts.get(target.ref, 0) + 1
    found: dict[str, tuple[ir.Expr, ir.Expr]] = {}
    counters: set[str] = set()
    bounds: dict[str, tuple[str, ir.Expr]] = {}
    for node in function.of_type(ir.For):
        if node.step is None:
            continue
        ref, init, init_assigns = None, None, 0
        if isinstance(node.init, ir.DeclStmt) and len(node.init.decls) == 1 and node.init.decls[0].init is not None:
            ref, init = node.init.decls[0].ref, node.init.decls[0].init
        elif isinstance(node.init, ir.ExprStmt) and isinstance(node.init.expr, ir.Binary) \
                and node.init.expr.op == "=" and isinstance(node.init.expr.lhs, ir.Name):
            ref, init, init_assigns = node.init.expr.lhs.ref, node.init.expr.rhs, 1
        if ref is None:
            continue
        step_assigns = sum(1 for sub in node.step.walk() if _assigns_ref(sub, ref))
        if step_assigns == 0 or counts.get(ref, 0) != step_assigns + init_assigns:
            continue
        counters.add(ref)
        step = _step_of(node.step, ref)
        if step is not None:
            found[ref] = (init, step)
        direction = _direction(node.step, ref, env)
        if direction is not None:
            bounds[ref] = (direction, init)
    return found, counters, bounds


def _direction(step: ir.Expr, ref: str, env) -> str | None:
    """How a loop step moves its counter: "up", "down", "halving" (>>=, /=), or None."""
    if isinstance(step, ir.Unary) and isinstance(step.operand, ir.Name) and step.operand.ref == ref:
        return "up" if "+" in step.op else "down"
    if isinstance(step, ir.Binary) and isinstance(step.lhs, ir.Name) and step.lhs.ref == ref:
        amount = env.value(step.rhs)
        if not isinstance(amount, int):
            return None
        if step.op in ("+=", "<<=") and amount >= 0 or step.op == "*=" and amount >= 1:
            return "up"
        if step.op == "-=" and amount >= 0:
            return "down"
        if step.op in (">>=",) and amount >= 0 or step.op == "/=" and amount >= 1:
            return "halving"
    return None


def _assigns_ref(node: ir.Node, ref: str) -> bool:
    target = None
    if isinstance(node, ir.Binary) and node.is_assignment:
        target = node.lhs
    elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--"):
        target = node.operand
    return isinstance(target, ir.Name) and target.ref == ref


def _step_of(step: ir.Expr, ref: str) -> ir.Expr | None:
    """The increment of `ref` in a loop step (`i++`, `i += s`, `i = i + s`, `i -= s`), as an expression."""
    if isinstance(step, ir.Unary) and step.op in ("++", "post++", "--", "post--") \
            and isinstance(step.operand, ir.Name) and step.operand.ref == ref:
        return ir.Const(step.span, "1" if "+" in step.op else "-1", "int", 1 if "+" in step.op else -1)
    if isinstance(step, ir.Binary) and isinstance(step.lhs, ir.Name) and step.lhs.ref == ref:
        if step.op == "+=":
            return step.rhs
        if step.op == "-=":
            return ir.Unary(step.span, "-" + step.rhs.text, step.rhs.type, "-", step.rhs)
        if step.op == "=" and isinstance(step.rhs, ir.Binary) and step.rhs.op == "+":
            for a, b in ((step.rhs.lhs, step.rhs.rhs), (step.rhs.rhs, step.rhs.lhs)):
                if isinstance(a, ir.Name) and a.ref == ref:
                    return b
    return None
