"""Control-flow graphs of device functions, with barrier nodes and inlined `__device__` calls.

One node per statement, condition, loop step and barrier. Calls of `__device__` functions defined in the
unit are inlined: the callee's statements become nodes of the caller's graph in a new `Scope` that binds
the callee's parameters to the caller's arguments, so a callee containing `__syncthreads()` is a barrier
site at its call. Every node carries the guards (branch conditions, loop conditions, early exits) under
which it runs, innermost last.

Barrier kinds: "block" (`__syncthreads`, `_count/_and/_or`, `this_thread_block().sync()`, `cg::sync(block)`),
"grid" (`this_grid().sync()`, also a block barrier), "warp" (`__syncwarp`, `tile.sync()`).
"""

from __future__ import annotations

import itertools
import weakref
from dataclasses import dataclass, field
from functools import cached_property


from cudalint.model import ir
from cudalint.model.constants import ConstantEnv

BLOCK, WARP, GRID = "block", "warp", "grid"
BLOCK_LEVEL = (BLOCK, GRID)

_BLOCK_BARRIER_CALLS = {"__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
                        "__barrier_sync", "bar_sync"}
_WARP_BARRIER_CALLS = {"__syncwarp"}
_SYNC_METHODS = {"sync", "barrier_wait", "arrive_and_wait"}
_MAX_INLINE_DEPTH = 6


def barrier_kind(call: ir.Call, env: ConstantEnv | None = None) -> str | None:
    """The kind of barrier `call` is, or None when it is not a barrier."""
    name = call.callee.rsplit("::", 1)[-1]
    if call.receiver is None:
        if name in _BLOCK_BARRIER_CALLS:
            return BLOCK
        if name in _WARP_BARRIER_CALLS:
            return WARP
        if name == "sync" and call.args:  # cooperative_groups::sync(group)
            return group_kind(call.args[0], env)
        return None
    if name in _SYNC_METHODS:
        return group_kind(call.receiver, env)
    return None


def group_kind(expr: ir.Expr, env: ConstantEnv | None = None, depth: int = 0) -> str | None:
    """BLOCK, GRID or WARP for a cooperative-groups group expression; None when unknown."""
    while isinstance(expr, ir.Cast):
        expr = expr.operand
    if isinstance(expr, ir.Call):
        name = expr.callee.rsplit("::", 1)[-1]
        if name in ("this_grid", "this_multi_grid"):
            return GRID
        if name == "this_thread_block":
            return BLOCK
        if name in ("tiled_partition", "coalesced_threads", "binary_partition", "labeled_partition"):
            return WARP
    type_ = expr.type.replace(" ", "")
    if "grid_group" in type_:
        return GRID
    if "thread_block_tile" in type_ or "coalesced_group" in type_ or "thread_group" in type_.split("::")[-1] \
            and "thread_block" not in type_:
        return WARP
    if "thread_block" in type_:
        return BLOCK
    if isinstance(expr, ir.Name) and env is not None and depth < 5:
        definition = env.definition(expr.ref)
        if definition is not None:
            return group_kind(definition, env, depth + 1)
    return None


# ---------------------------------------------------------------------------------------------- scopes


class Scope:
    """One activation of a function in the graph: the kernel itself, or an inlined call."""

    def __init__(self, function: ir.Function, env: ConstantEnv, facts, parent: Scope | None = None,
                 bindings: dict[str, ir.Expr] | None = None, call: ir.Call | None = None, key: str = "0") -> None:
        self.function = function
        self.env = env
        self.facts = facts  # the function's ThreadDependence
        self.parent = parent
        self.bindings = bindings or {}
        self.call = call  # the call in `parent` that this scope inlines
        self.key = key
        self.depth = 0 if parent is None else parent.depth + 1

    @property
    def function_key(self) -> str:
        return self.function.ref or self.function.name

    def binding(self, ref: str | None) -> tuple[ir.Expr, Scope] | None:
        if ref is None or ref not in self.bindings or self.parent is None:
            return None
        return self.bindings[ref], self.parent

    def chain(self) -> list[Scope]:
        """Outermost scope first."""
        scopes = []
        scope: Scope | None = self
        while scope is not None:
            scopes.append(scope)
            scope = scope.parent
        return scopes[::-1]

    def is_inside(self, other: Scope) -> bool:
        scope: Scope | None = self
        while scope is not None:
            if scope is other:
                return True
            scope = scope.parent
        return False

    def __repr__(self) -> str:
        return f"Scope({self.function.name}, {self.key})"


class Guard:
    """A condition a node runs under: `cond` is true (positive) or false."""

    __slots__ = ("cond", "positive", "scope", "kind", "exit_stmt", "_node")

    def __init__(self, cond: ir.Expr, positive: bool, scope: Scope, kind: str, exit_stmt: ir.Stmt | None = None,
                 node: CfgNode | None = None) -> None:
        self.cond = cond
        self.positive = positive
        self.scope = scope
        # "if", "loop" (a loop's condition, for its body), "exit" (statements after `if (c)
        # return/break/continue`), "after_loop" (the loop condition failed), "switch" (a case of a switch:
        # not expressible)
        self.kind = kind
        self.exit_stmt = exit_stmt  # for "exit": the return/break/continue
        self._node = None if node is None else weakref.ref(node)

    @property
    def node(self) -> CfgNode | None:
        """Where the condition is evaluated. Held weakly (the graph holds its nodes): a loop's head runs
        under the loop's own guard, and that cycle would keep the file's IR alive for the cycle collector."""
        return None if self._node is None else self._node()

    def evaluated_at(self, node: CfgNode) -> None:
        self._node = weakref.ref(node)

    @property
    def thread_exits(self) -> bool:
        """Threads failing this guard left the kernel (a `return` in the kernel itself)."""
        return self.kind == "exit" and isinstance(self.exit_stmt, ir.Return) and self.scope.parent is None


@dataclass(eq=False)
class CfgNode:
    kind: str  # "entry", "exit", "stmt", "cond", "step", "barrier", "call", "return", "join", "jump"
    scope: Scope
    span: ir.Span
    expr: ir.Expr | None = None  # the expression evaluated here
    stmt: ir.Stmt | None = None  # the statement (for conditions: the if/loop/switch)
    decl: ir.VarDecl | None = None  # a declaration whose initializer `expr` is
    guards: tuple[Guard, ...] = ()
    barrier: str | None = None  # BLOCK, WARP or GRID on barrier nodes
    call: ir.Call | None = None  # the barrier call, or the inlined call on "call" nodes
    # accesses are collected from `roots` (default: [expr]), without descending into `skip` calls
    roots: tuple[ir.Expr, ...] | None = None
    skip: frozenset[int] = frozenset()
    index: int = 0
    # on the join node that starts one side of a branch: (condition, which side)
    branch: tuple[ir.Expr, bool] | None = None

    def access_roots(self) -> tuple[ir.Expr, ...]:
        if self.roots is not None:
            return self.roots
        return (self.expr,) if self.expr is not None else ()

    def __repr__(self) -> str:
        return f"<{self.kind} {self.scope.function.name}:{self.span.line}>"


# ------------------------------------------------------------------------------------------------ graph


class Graph:
    """A directed graph as adjacency maps: insertion-ordered, one edge per pair. (Three algorithms on
    it are all the analyses need; networkx cost 0.3 s of start-up in every process.)"""

    def __init__(self) -> None:
        self.succ: dict[CfgNode, dict[CfgNode, None]] = {}
        self.pred: dict[CfgNode, dict[CfgNode, None]] = {}

    def add_node(self, node: CfgNode) -> None:
        self.succ.setdefault(node, {})
        self.pred.setdefault(node, {})

    def add_edge(self, source: CfgNode, target: CfgNode) -> None:
        self.add_node(source)
        self.add_node(target)
        self.succ[source][target] = None
        self.pred[target][source] = None

    def descendants(self, start: CfgNode) -> set[CfgNode]:
        """Nodes reachable from `start` by at least one edge."""
        found: set[CfgNode] = set()
        stack = list(self.succ[start])
        while stack:
            node = stack.pop()
            if node not in found:
                found.add(node)
                stack.extend(self.succ[node])
        return found


def immediate_dominators(succ: dict, pred: dict, start: CfgNode,
                         inside: set[CfgNode] | None = None) -> dict[CfgNode, CfgNode]:
    """Immediate dominators of the nodes reachable from `start` (through nodes of `inside`, when given),
    `start` mapped to itself: Cooper, Harvey and Kennedy's iterative algorithm. For post-dominators,
    pass the edges reversed."""
    order: list[CfgNode] = []  # postorder
    seen = {start}
    stack = [(start, iter(succ[start]))]
    while stack:
        node, children = stack[-1]
        for child in children:
            if (inside is None or child in inside) and child not in seen:
                seen.add(child)
                stack.append((child, iter(succ[child])))
                break
        else:
            stack.pop()
            order.append(node)
    number = {node: i for i, node in enumerate(order)}
    idom = {start: start}
    changed = True
    while changed:
        changed = False
        for node in reversed(order):
            if node is start:
                continue
            new = None
            for p in pred[node]:
                if p not in idom or p not in number:
                    continue
                if new is None:
                    new = p
                    continue
                a, b = p, new
                while a is not b:
                    while number[a] < number[b]:
                        a = idom[a]
                    while number[b] < number[a]:
                        b = idom[b]
                new = a
            if new is not None and idom.get(node) is not new:
                idom[node] = new
                changed = True
    return idom


class FunctionCFG:
    def __init__(self, function: ir.Function, graph: Graph, entry: CfgNode, exit_: CfgNode,
                 nodes: list[CfgNode]) -> None:
        self.function = function
        self.graph = graph
        self.entry = entry
        self.exit = exit_
        self.nodes = nodes
        self._reach: dict[tuple[int, tuple[str, ...]], set[CfgNode]] = {}

    def barrier_nodes(self, kinds: tuple[str, ...] = (BLOCK, GRID, WARP)) -> list[CfgNode]:
        return [n for n in self.nodes if n.kind == "barrier" and n.barrier in kinds]

    @cached_property
    def reachable(self) -> set[CfgNode]:
        return self.graph.descendants(self.entry) | {self.entry}

    def reach(self, start: CfgNode, stop: tuple[str, ...] = BLOCK_LEVEL) -> set[CfgNode]:
        """Nodes reachable from `start` on paths that pass no barrier of the `stop` kinds (a barrier can end
        such a path). `start` itself is included only when a path returns to it."""
        key = (start.index, stop)
        found = self._reach.get(key)
        if found is not None:
            return found
        found = set()
        succ = self.graph.succ
        stack = list(succ[start])
        while stack:
            node = stack.pop()
            if node in found:
                continue
            found.add(node)
            if node.kind == "barrier" and node.barrier in stop:
                continue
            stack.extend(succ[node])
        self._reach[key] = found
        return found

    @cached_property
    def post_dominators(self) -> dict[CfgNode, CfgNode]:
        return immediate_dominators(self.graph.pred, self.graph.succ, self.exit)

    @cached_property
    def control_dependences(self) -> dict[CfgNode, set[CfgNode]]:
        """node -> the branch nodes it is directly control dependent on (Ferrante et al.)."""
        ipdom = self.post_dominators
        deps: dict[CfgNode, set[CfgNode]] = {}
        for a in self.nodes:
            successors = list(self.graph.succ[a])
            if len(successors) < 2 or a not in ipdom:
                continue
            stop = ipdom.get(a)
            for b in successors:
                runner = b
                seen = 0
                while runner is not None and runner is not stop and seen < 10000:
                    deps.setdefault(runner, set()).add(a)
                    nxt = ipdom.get(runner)
                    if nxt is runner:
                        break
                    runner = nxt
                    seen += 1
        return deps

    def controlling_branches(self, node: CfgNode) -> list[CfgNode]:
        """Every branch node that decides whether `node` runs, transitively, nearest first."""
        direct = self.control_dependences
        out: list[CfgNode] = []
        seen = {node}
        frontier = [node]
        while frontier:
            nxt = []
            for current in frontier:
                for branch in sorted(direct.get(current, ()), key=lambda n: -n.index):
                    if branch not in seen:
                        seen.add(branch)
                        out.append(branch)
                        nxt.append(branch)
            frontier = nxt
        return out


def build_cfg(program, uniformity, function: ir.Function) -> FunctionCFG:
    return _Builder(program, uniformity).build(function)


# --------------------------------------------------------------------------------------------- builder


@dataclass
class _Loop:
    breaks: list[CfgNode] = field(default_factory=list)
    continues: list[CfgNode] = field(default_factory=list)
    is_switch: bool = False


@dataclass
class _Ctx:
    scope: Scope
    returns: list[CfgNode]
    loops: list[_Loop]


class _Builder:
    def __init__(self, program, uniformity) -> None:
        self.program = program
        self.uniformity = uniformity
        self.graph = Graph()
        self.nodes: list[CfgNode] = []
        self._keys = itertools.count(1)
        self._barrier_functions: dict[int, bool] = {}
        self._cond_nodes: dict[int, CfgNode] = {}  # if/loop statement -> its (last) condition node
        self._contains: dict[tuple, bool] = {}

    def build(self, function: ir.Function) -> FunctionCFG:
        scope = Scope(function, self.program.env(function), self.uniformity.of(function))
        entry = self._node("entry", scope, function.span, ())
        exit_ = self._node("exit", scope, function.span, ())
        returns: list[CfgNode] = []
        outs = self._stmt(function.body, [entry], _Ctx(scope, returns, []), ()) if function.body else [entry]
        self._link(outs + returns, exit_)
        return FunctionCFG(function, self.graph, entry, exit_, self.nodes)

    # ---------------------------------------------------------------------------------------- helpers

    def _node(self, kind: str, scope: Scope, span: ir.Span, guards: tuple, **extra) -> CfgNode:
        node = CfgNode(kind, scope, span, guards=guards, index=len(self.nodes), **extra)
        self.nodes.append(node)
        self.graph.add_node(node)
        return node

    def _link(self, preds: list[CfgNode], node: CfgNode) -> None:
        for pred in preds:
            self.graph.add_edge(pred, node)

    def callee_of(self, call: ir.Call) -> ir.Function | None:
        if call.receiver is not None:
            return None
        candidates = [f for f in self.program.functions_by_name.get(call.callee, [])
                      if f.body is not None and not f.is_kernel and f.is_device_code]
        if not candidates:
            return None
        exact = [f for f in candidates if len(f.params) == len(call.args)]
        return (exact or [f for f in candidates if len(f.params) >= len(call.args)] or [None])[0]

    def function_has_barrier(self, function: ir.Function, depth: int = 0) -> bool:
        known = self._barrier_functions.get(id(function))
        if known is not None:
            return known
        self._barrier_functions[id(function)] = False  # recursion
        result = function.body is not None and self.contains_barrier(function.body, depth + 1)
        self._barrier_functions[id(function)] = result
        return result

    def contains_barrier(self, node: ir.Node, depth: int = 0, kinds: tuple[str, ...] = BLOCK_LEVEL) -> bool:
        key = (id(node), kinds)
        known = self._contains.get(key)
        if known is None:
            known = self._contains[key] = self._contains_barrier(node, depth, kinds)
        return known

    def _contains_barrier(self, node: ir.Node, depth: int, kinds: tuple[str, ...]) -> bool:
        for sub in node.walk():
            if isinstance(sub, ir.Call):
                kind = barrier_kind(sub)
                if kind in kinds:
                    return True
                callee = self.callee_of(sub)
                if callee is not None and depth < _MAX_INLINE_DEPTH and self.function_has_barrier(callee, depth):
                    return True
        return False

    # ------------------------------------------------------------------------------------- statements

    def _stmt(self, stmt: ir.Stmt | None, preds: list[CfgNode], ctx: _Ctx, guards: tuple) -> list[CfgNode]:
        if stmt is None:
            return preds
        if isinstance(stmt, ir.Block):
            return self._block(stmt.body, preds, ctx, guards)
        if isinstance(stmt, ir.DeclStmt):
            for decl in stmt.decls:
                if decl.init is not None and not decl.shared:
                    preds = self._expr_nodes(decl.init, preds, ctx, guards, "stmt", stmt=stmt, decl=decl)
            return preds
        if isinstance(stmt, ir.ExprStmt):
            return self._expr_nodes(stmt.expr, preds, ctx, guards, "stmt", stmt=stmt)
        if isinstance(stmt, ir.If):
            return self._if(stmt, preds, ctx, guards)
        if isinstance(stmt, ir.For):
            return self._loop(stmt, stmt.init, stmt.cond, stmt.step, stmt.body, False, preds, ctx, guards)
        if isinstance(stmt, ir.While):
            return self._loop(stmt, None, stmt.cond, None, stmt.body, stmt.do_while, preds, ctx, guards)
        if isinstance(stmt, ir.Switch):
            return self._switch(stmt, preds, ctx, guards)
        if isinstance(stmt, ir.Return):
            if stmt.value is not None:
                preds = self._expr_nodes(stmt.value, preds, ctx, guards, "stmt", stmt=stmt)
            jump = self._node("jump", ctx.scope, stmt.span, guards, stmt=stmt)
            self._link(preds, jump)
            ctx.returns.append(jump)
            return []
        if isinstance(stmt, (ir.Break, ir.Continue)):
            jump = self._node("jump", ctx.scope, stmt.span, guards, stmt=stmt)
            self._link(preds, jump)
            loops = ctx.loops
            if isinstance(stmt, ir.Continue):
                loops = [loop for loop in loops if not loop.is_switch]
            if loops:
                (loops[-1].breaks if isinstance(stmt, ir.Break) else loops[-1].continues).append(jump)
            return []
        if isinstance(stmt, ir.OpaqueStmt):
            for part in stmt.parts:
                if isinstance(part, ir.Stmt):
                    preds = self._stmt(part, preds, ctx, guards)
                elif isinstance(part, ir.Expr):
                    preds = self._expr_nodes(part, preds, ctx, guards, "stmt", stmt=stmt)
            return preds
        return preds

    def _block(self, stmts: list[ir.Stmt], preds: list[CfgNode], ctx: _Ctx, guards: tuple) -> list[CfgNode]:
        for stmt in stmts:
            preds = self._stmt(stmt, preds, ctx, guards)
            if isinstance(stmt, ir.If):
                exit_guard = _exit_guard(stmt, ctx.scope, self._cond_nodes.get(id(stmt)))
                if exit_guard is not None:
                    guards = guards + (exit_guard,)
            elif isinstance(stmt, (ir.For, ir.While)) and stmt.cond is not None \
                    and not (isinstance(stmt, ir.While) and stmt.do_while) and not _has_break(stmt.body):
                after = Guard(stmt.cond, False, ctx.scope, "after_loop", node=self._cond_nodes.get(id(stmt)))
                guards = guards + (after,)
        return preds

    def _if(self, stmt: ir.If, preds, ctx: _Ctx, guards: tuple) -> list[CfgNode]:
        cond_preds = self._expr_nodes(stmt.cond, preds, ctx, guards, "cond", stmt=stmt)
        at = self._cond_nodes[id(stmt)] = cond_preds[-1]
        then_guards = guards + (Guard(stmt.cond, True, ctx.scope, "if", node=at),)
        taken = self._branch_join(stmt.cond, True, cond_preds, ctx.scope, then_guards, stmt)
        then_out = self._stmt(stmt.then, [taken], ctx, then_guards)
        else_guards = guards + (Guard(stmt.cond, False, ctx.scope, "if", node=at),)
        skipped = self._branch_join(stmt.cond, False, cond_preds, ctx.scope,
                                    else_guards if stmt.otherwise is not None else guards, stmt)
        if stmt.otherwise is None:
            return then_out + [skipped]
        else_out = self._stmt(stmt.otherwise, [skipped], ctx, else_guards)
        return then_out + else_out

    def _branch_join(self, cond: ir.Expr, side: bool, preds, scope: Scope, guards: tuple, stmt) -> CfgNode:
        join = self._node("join", scope, cond.span, guards, stmt=stmt, branch=(cond, side))
        self._link(preds, join)
        return join

    def _loop(self, stmt, init, cond, step, body, do_while: bool, preds, ctx: _Ctx, guards: tuple) -> list[CfgNode]:
        if init is not None:
            preds = self._stmt(init, preds, ctx, guards)
        loop = _Loop()
        inner = _Ctx(ctx.scope, ctx.returns, ctx.loops + [loop])
        loop_guard = Guard(cond, True, ctx.scope, "loop") if cond is not None else None
        body_guards = guards + ((loop_guard,) if loop_guard is not None else ())
        head = self._node("join", ctx.scope, body.span if body is not None else stmt.span, body_guards, stmt=stmt,
                          branch=(cond, True) if cond is not None and not do_while else None)
        if loop_guard is not None:
            # the body sees the condition's variables as they are at the loop head, in every iteration
            loop_guard.evaluated_at(head)
        # a loop holding a barrier is assumed to run at least once: no path skips it from the entry
        runs_once = do_while or (body is not None and self.contains_barrier(body))
        duplicate = cond is not None and (runs_once or bool(self._special_calls(cond, ctx.scope)))
        exits: list[CfgNode] = []
        first: list[CfgNode] = []
        if do_while or cond is None:
            self._link(preds, head)
        else:
            first = self._expr_nodes(cond, preds, ctx, guards, "cond", stmt=stmt)
            self._link(first, head)
            self._cond_nodes[id(stmt)] = first[-1]
            if not runs_once:
                exits += first
        body_out = self._stmt(body, [head], inner, body_guards)
        back = body_out + loop.continues
        if step is not None:
            back = self._expr_nodes(step, back, inner, body_guards, "step", stmt=stmt)
        if cond is None:
            self._link(back, head)
        elif duplicate:
            again = self._expr_nodes(cond, back, ctx, guards, "cond", stmt=stmt)
            self._link(again, head)
            exits += again
            if runs_once or do_while:
                self._cond_nodes[id(stmt)] = again[-1]  # the only exit
            else:
                self._cond_nodes.pop(id(stmt), None)
        else:
            self._link(back, first[0])
        if cond is not None and exits:
            exits = [self._branch_join(cond, False, exits, ctx.scope, guards, stmt)]
        return exits + loop.breaks

    def _first_of(self, nodes: list[CfgNode]) -> CfgNode:
        return min(nodes, key=lambda n: n.index)

    def _switch(self, stmt: ir.Switch, preds, ctx: _Ctx, guards: tuple) -> list[CfgNode]:
        cond_preds = self._expr_nodes(stmt.cond, preds, ctx, guards, "cond", stmt=stmt)
        loop = _Loop(is_switch=True)
        inner = _Ctx(ctx.scope, ctx.returns, ctx.loops + [loop])
        case_guards = guards + (Guard(stmt.cond, True, ctx.scope, "switch"),)
        body = stmt.body.body if isinstance(stmt.body, ir.Block) else [stmt.body]
        current: list[CfgNode] = []
        for part in body:
            if isinstance(part, ir.OpaqueStmt):  # a case or default label: entered from the condition
                current = current + cond_preds
            current = self._stmt(part, current, inner, case_guards)
        # the IR does not tell `default:` apart from `case`: keep the path that matches no label
        return current + loop.breaks + cond_preds

    # ------------------------------------------------------------------------------------ expressions

    def _expr_nodes(self, expr: ir.Expr, preds, ctx: _Ctx, guards: tuple, kind: str, stmt=None,
                    decl=None) -> list[CfgNode]:
        """Nodes for evaluating `expr`: argument accesses, inlined callees and barriers in evaluation
        order, then the node for the rest of the expression (the last node returned)."""
        specials = self._special_calls(expr, ctx.scope)
        scope = ctx.scope
        if not specials:
            node = self._node(kind, scope, expr.span, guards, expr=expr, stmt=stmt, decl=decl)
            self._link(preds, node)
            return [node]
        outermost = _outermost(specials)
        argument_roots = tuple(arg for call in outermost for arg in _call_operands(call))
        if argument_roots:
            pre = self._node("stmt", scope, expr.span, guards, expr=expr, stmt=stmt, roots=argument_roots)
            self._link(preds, pre)
            preds = [pre]
        for call, callee, barrier in specials:
            if barrier is not None:
                node = self._node("barrier", scope, call.span, guards, expr=call, stmt=stmt, barrier=barrier,
                                  call=call, roots=())
                self._link(preds, node)
                preds = [node]
            else:
                preds = self._inline(call, callee, preds, ctx, guards)
        node = self._node(kind, scope, expr.span, guards, expr=expr, stmt=stmt, decl=decl,
                          skip=frozenset(id(call) for call in outermost))
        self._link(preds, node)
        return [node]

    def _special_calls(self, expr: ir.Expr, scope: Scope) -> list[tuple[ir.Call, ir.Function | None, str | None]]:
        """Barrier calls and inlinable calls in `expr`, in evaluation order (arguments first)."""
        found: list = []
        self._add_special_calls(expr, scope, found)
        return found

    def _add_special_calls(self, node: ir.Node, scope: Scope, found: list) -> None:
        # a method, not a recursive closure: a closure that calls itself is a reference cycle, which would
        # keep the graph and the file's IR alive until the cycle collector runs
        if isinstance(node, ir.Lambda):
            return
        for child in node.children():
            self._add_special_calls(child, scope, found)
        if isinstance(node, ir.Call):
            kind = barrier_kind(node, scope.env)
            if kind is not None:
                found.append((node, None, kind))
                return
            callee = self.callee_of(node)
            if callee is None:
                return
            if self._can_inline(callee, scope):
                found.append((node, callee, None))
            elif self.function_has_barrier(callee):
                found.append((node, None, BLOCK))

    def _can_inline(self, callee: ir.Function, scope: Scope) -> bool:
        if scope.depth >= _MAX_INLINE_DEPTH:
            return False
        return all(s.function is not callee for s in scope.chain())

    def _inline(self, call: ir.Call, callee: ir.Function, preds, ctx: _Ctx, guards: tuple) -> list[CfgNode]:
        assigned = _assigned_refs(callee)
        bindings = {p.ref: arg for p, arg in zip(callee.params, call.args) if p.ref and p.ref not in assigned}
        scope = Scope(callee, self.program.env(callee), self.uniformity.of(callee), ctx.scope, bindings, call,
                      f"{ctx.scope.key}.{next(self._keys)}")
        entry = self._node("call", scope, call.span, guards, call=call)
        self._link(preds, entry)
        returns: list[CfgNode] = []
        outs = self._stmt(callee.body, [entry], _Ctx(scope, returns, []), guards)
        back = self._node("return", scope, call.span, guards, call=call)
        self._link(outs + returns, back)
        return [back]


def _outermost(specials) -> list[ir.Call]:
    calls = [call for call, _, _ in specials]
    inner: set[int] = set()
    for call in calls:
        for sub in call.walk():
            if sub is not call:
                inner.add(id(sub))
    return [call for call in calls if id(call) not in inner]


def _call_operands(call: ir.Call) -> list[ir.Expr]:
    return ([call.receiver] if call.receiver is not None else []) + list(call.args)


def _always_exits(stmt: ir.Stmt | None) -> ir.Stmt | None:
    """The return/break/continue that `stmt` always ends with, if it always leaves."""
    if isinstance(stmt, (ir.Return, ir.Break, ir.Continue)):
        return stmt
    if isinstance(stmt, ir.Block) and stmt.body:
        for child in stmt.body:
            found = _always_exits(child)
            if found is not None:
                return found
        return None
    if isinstance(stmt, ir.If) and stmt.otherwise is not None:
        a, b = _always_exits(stmt.then), _always_exits(stmt.otherwise)
        if a is not None and b is not None:
            return a
    return None


def _exit_guard(stmt: ir.If, scope: Scope, node: CfgNode | None) -> Guard | None:
    then_exit = _always_exits(stmt.then)
    if stmt.otherwise is None:
        return Guard(stmt.cond, False, scope, "exit", then_exit, node) if then_exit is not None else None
    else_exit = _always_exits(stmt.otherwise)
    if then_exit is not None and else_exit is None:
        return Guard(stmt.cond, False, scope, "exit", then_exit, node)
    if else_exit is not None and then_exit is None:
        return Guard(stmt.cond, True, scope, "exit", else_exit, node)
    return None


def _has_break(stmt: ir.Stmt | None) -> bool:
    """Whether `stmt` holds a `break` of the loop it is the body of (not one of an inner loop or switch)."""
    if stmt is None or isinstance(stmt, (ir.For, ir.While, ir.Switch)):
        return False
    return isinstance(stmt, ir.Break) or any(_has_break(c) for c in stmt.children() if isinstance(c, ir.Stmt))


def _assigned_refs(function: ir.Function) -> frozenset[str]:
    return function.analysis(_find_assigned_refs)


def _find_assigned_refs(function: ir.Function) -> frozenset[str]:
    refs = set()
    if function.body is not None:
        for node in function.of_type(ir.Binary, ir.Unary):
            target = None
            if isinstance(node, ir.Binary) and node.is_assignment:
                target = node.lhs
            elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--", "&"):
                target = node.operand
            while isinstance(target, ir.Cast) or isinstance(target, ir.Member) and "->" not in target.text:
                target = target.operand if isinstance(target, ir.Cast) else target.base
            if isinstance(target, ir.Name) and target.ref:
                refs.add(target.ref)
    return frozenset(refs)
