"""Thread-dependent control flow around synchronization: block barriers that some threads of a block may not
reach (CL102), and full-mask warp intrinsics under conditions that split a warp (CL103).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cudalint.analysis.cfg import BLOCK_LEVEL, CfgNode, Guard, Scope
from cudalint.analysis.conflicts import NONE, decide, thread_bounds
from cudalint.analysis.linearizer import Linearizer
from cudalint.analysis.intervals import KernelSync, value_dependent_expr
from cudalint.findings import short_text
from cudalint.model import ir

if TYPE_CHECKING:
    from cudalint.analysis.barriers import SyncAnalysis


# ------------------------------------------------------------------------------------ divergent barriers


@dataclass
class DivergentBarrier:
    barrier: CfgNode
    branch: CfgNode  # the nearest thread-dependent branch deciding whether the barrier runs
    anchor: ir.Span  # the barrier call, or the call of the device function that holds it
    kind: str  # "exit" (after a thread-dependent return/break/continue), "loop", "switch", "if"
    what: str  # how to name the barrier in a message
    exit_stmt: ir.Stmt | None = None

    @property
    def branch_span(self) -> ir.Span:
        return self.branch.expr.span

    @property
    def branch_label(self) -> str:
        return {"exit": "the thread-dependent exit condition", "loop": "the thread-dependent loop condition",
                "switch": "the thread-dependent switch"}.get(self.kind, "the thread-dependent condition")

    def message(self, line_of=lambda span: span.line) -> str:
        what, cond, line = self.what, short_text(self.branch.expr.text, 60), line_of(self.branch.expr.span)
        if self.kind == "exit":
            word = {ir.Return: "return", ir.Break: "break", ir.Continue: "continue"}.get(type(self.exit_stmt), "exit")
            return (f"{what} runs after a thread-dependent `{word}` (line {line_of(self.exit_stmt.span)}, under "
                    f"`{cond}`): threads that left never arrive at this barrier, so the block may hang or corrupt "
                    f"the barrier; keep every thread alive to the barrier and guard only the work")
        if self.kind == "loop":
            return (f"{what} is inside a loop whose condition `{cond}` (line {line}) depends on the thread: threads "
                    f"run different numbers of iterations and reach the barrier a different number of times; make "
                    f"the trip count block-uniform and guard the work inside the loop")
        if self.kind == "switch":
            return (f"{what} is inside a `switch` on the thread-dependent value `{cond}` (line {line}): threads of "
                    f"one block take different cases; move the barrier out of the switch")
        return (f"{what} is reached only by threads for which `{cond}` (line {line}) holds, a condition that "
                f"differs between threads of a block: the block may hang or corrupt the barrier; move the "
                f"barrier out of the branch so every thread reaches it")


def _exit_of(stmt: ir.If) -> ir.Stmt | None:
    from cudalint.analysis.cfg import _always_exits

    return _always_exits(stmt.then) or (_always_exits(stmt.otherwise) if stmt.otherwise is not None else None)


def _divergent_branch(analysis: SyncAnalysis, kernel: KernelSync, branch: CfgNode) -> bool:
    if branch.expr is None or not value_dependent_expr(analysis, branch.expr, branch.scope):
        return False
    if branch.stmt is not None and isinstance(branch.stmt, ir.Switch):
        return True
    # a condition that holds for all threads or for none (threadIdx.x < blockDim.x) does not diverge
    l1 = Linearizer(kernel.context, "1", shared_iterations=True)
    l2 = Linearizer(kernel.context, "2", shared_iterations=True)
    holds = l1.condition(branch.expr, branch.scope, True)
    fails = l2.condition(branch.expr, branch.scope, False)
    if holds is None or fails is None:
        return True
    base = thread_bounds(kernel.shape, "1") + thread_bounds(kernel.shape, "2") + l1.constraints + l2.constraints
    return decide(base, [holds, fails], True).result != NONE


def find_divergent_barriers(analysis: SyncAnalysis, function: ir.Function) -> list[DivergentBarrier]:
    kernel = analysis.kernel(function)
    cfg = kernel.cfg
    out = []
    for barrier in cfg.barrier_nodes(BLOCK_LEVEL):
        if barrier not in cfg.reachable:
            continue
        for branch in cfg.controlling_branches(barrier):
            if branch.kind != "cond" or not _divergent_branch(analysis, kernel, branch):
                continue
            out.append(_describe_divergence(barrier, branch))
            break
    return out


def _describe_divergence(barrier: CfgNode, branch: CfgNode) -> DivergentBarrier:
    call_text = short_text(barrier.call.text if barrier.call is not None else "__syncthreads()", 60)
    anchor = barrier.call.span if barrier.call is not None else barrier.span
    scope = barrier.scope
    holder = None
    while scope is not branch.scope and scope.parent is not None and scope.call is not None \
            and scope.is_inside(branch.scope):
        anchor, holder = scope.call.span, scope
        scope = scope.parent
    what = f"`{call_text}`"
    if holder is not None:
        what = f"`{short_text(holder.call.text, 60)}`, which reaches `{call_text}`,"
    stmt = branch.stmt
    if isinstance(stmt, ir.If) and _exit_of(stmt) is not None:
        return DivergentBarrier(barrier, branch, anchor, "exit", what, _exit_of(stmt))
    if isinstance(stmt, (ir.For, ir.While)):
        return DivergentBarrier(barrier, branch, anchor, "loop", what)
    if isinstance(stmt, ir.Switch):
        return DivergentBarrier(barrier, branch, anchor, "switch", what)
    return DivergentBarrier(barrier, branch, anchor, "if", what)


# ------------------------------------------------------------------------------ warp intrinsics (CL103)


LEGACY_WARP_INTRINSICS = {
    "__shfl": "__shfl_sync", "__shfl_up": "__shfl_up_sync", "__shfl_down": "__shfl_down_sync",
    "__shfl_xor": "__shfl_xor_sync", "__any": "__any_sync", "__all": "__all_sync", "__ballot": "__ballot_sync",
}
_MASKED = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync",
           "__all_sync", "__uni_sync", "__match_any_sync", "__match_all_sync", "__reduce_add_sync",
           "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
           "__syncwarp"}


@dataclass
class PartialWarpCall:
    call: ir.Call
    node: CfgNode
    guard: Guard  # a guard some lanes of a warp fail


def _full_mask(call: ir.Call, scope: Scope) -> bool:
    if call.callee == "__syncwarp" and not call.args:
        return True
    if not call.args:
        return False
    value = scope.env.value(call.args[0])
    return isinstance(value, int) and (value & 0xFFFFFFFF) == 0xFFFFFFFF


def _calls_with_guards(node: CfgNode) -> list[tuple[ir.Call, tuple]]:
    """(call, expression-level guards) for each call a node evaluates."""
    found: list[tuple[ir.Call, tuple]] = []
    for root in node.access_roots():
        _add_calls_with_guards(root, (), node.skip, found)
    if node.kind == "barrier" and node.call is not None:
        found.append((node.call, ()))
    return found


def _add_calls_with_guards(expr: ir.Expr | None, guards: tuple, skip: frozenset[int], found: list) -> None:
    # a function, not a recursive closure: that would be a reference cycle keeping the file's IR alive
    if expr is None or id(expr) in skip or isinstance(expr, ir.Lambda):
        return
    if isinstance(expr, ir.Conditional):
        _add_calls_with_guards(expr.cond, guards, skip, found)
        _add_calls_with_guards(expr.then, guards + ((expr.cond, True),), skip, found)
        _add_calls_with_guards(expr.otherwise, guards + ((expr.cond, False),), skip, found)
        return
    if isinstance(expr, ir.Binary) and expr.op in ("&&", "||"):
        _add_calls_with_guards(expr.lhs, guards, skip, found)
        _add_calls_with_guards(expr.rhs, guards + ((expr.lhs, expr.op == "&&"),), skip, found)
        return
    if isinstance(expr, ir.Call):
        found.append((expr, guards))
    for child in expr.children():
        if isinstance(child, ir.Expr):
            _add_calls_with_guards(child, guards, skip, found)


def find_partial_warp_calls(analysis: SyncAnalysis, function: ir.Function) -> list[PartialWarpCall]:
    if _MASKED.isdisjoint(analysis.program.called_names):
        return []  # most units: no CFG walk (0.5 ms per KernelBench file)
    kernel = analysis.kernel(function)
    cfg = kernel.cfg
    out = []
    for node in cfg.nodes:
        if node not in cfg.reachable:
            continue
        for call, extra in _calls_with_guards(node):
            if call.callee not in _MASKED or not _full_mask(call, node.scope):
                continue
            guards = node.guards + tuple(Guard(c, p, node.scope, "ternary", node=node) for c, p in extra)
            failing = kernel.partially_active(guards, node)
            if failing is not None:
                out.append(PartialWarpCall(call, node, failing))
    return out
