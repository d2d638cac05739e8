"""Guards: the conditions that dominate each expression and statement of a function.

`FunctionGuards` records, for every expression and statement of a function, the conditions known to hold
there: `if (c)` (and `else`), early exits `if (c) return;` / `continue;` / `break;`, loop conditions
(`for`, `while`, grid-stride loops), `&&` / `||` short circuits and `?:` branches. Conditions are split into
atomic comparisons (`&&` chains, negated `||` chains, `!`, boolean locals): `Comparison`,
`comparisons_of`, `disjunctions_of`. With them, the small readings of expressions the rules share: `strip`
(casts and branch hints removed) and `definitions` (the values a function gives a variable).

The memory accesses of a function are in `pointer_accesses.py`, where index values come from in
`provenance.py`; `guard_analysis.py` computes all three lazily and caches them per program.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from cudalint.model import ir
from cudalint.model.constants import ConstantEnv

COMPARISON_OPERATORS = frozenset({"<", "<=", ">", ">=", "==", "!="})
NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
AXES = ("x", "y", "z")

# ------------------------------------------------------------------------------------------ conditions


@dataclass(frozen=True, eq=False)
class Condition:
    """`expr` is known to be true (`holds`) or false (not `holds`) where this condition applies."""

    expr: ir.Expr
    holds: bool
    origin: ir.Node  # the If, For, While, Conditional or &&/|| that establishes it
    kind: str  # "if", "else", "early-exit", "loop", "ternary", "and", "or"


@dataclass(frozen=True, eq=False)
class Comparison:
    """An atomic fact `lhs op rhs` (op already negated when the condition is known false)."""

    lhs: ir.Expr
    op: str
    rhs: ir.Expr
    node: ir.Binary  # the comparison as written
    condition: Condition

    @property
    def negated(self) -> bool:
        """Whether the fact is the negation of the written comparison (an early exit, an else)."""
        return self.op != self.node.op

    def upper_bounds(self) -> Iterator[tuple[ir.Expr, ir.Expr, bool]]:
        """(subject, limit, inclusive): subject < limit, or subject <= limit when inclusive."""
        op = self.op
        if op in ("<", "<="):
            yield self.lhs, self.rhs, op == "<="
        elif op in (">", ">="):
            yield self.rhs, self.lhs, op == ">="
        elif op == "==":
            yield self.lhs, self.rhs, True
            yield self.rhs, self.lhs, True

    def lower_bounds(self) -> Iterator[tuple[ir.Expr, ir.Expr, bool]]:
        """(subject, limit, inclusive): subject > limit, or subject >= limit when inclusive."""
        op = self.op
        if op in (">", ">="):
            yield self.lhs, self.rhs, op == ">="
        elif op in ("<", "<="):
            yield self.rhs, self.lhs, op == "<="
        elif op == "==":
            yield self.lhs, self.rhs, True
            yield self.rhs, self.lhs, True


def strip(expr: ir.Expr) -> ir.Expr:
    while isinstance(expr, ir.Cast) or (isinstance(expr, ir.Call) and expr.callee in ("__builtin_expect", "likely",
                                                                                      "unlikely", "__builtin_assume")
                                        and expr.args):
        expr = expr.operand if isinstance(expr, ir.Cast) else expr.args[0]
    return expr


def definitions(function: ir.Function, ref: str | None) -> list[ir.Expr]:
    """The values `function` gives the variable `ref`: its initializer and what plain `=` assigns it."""
    return list(function.analysis(_definitions_by_ref).get(ref, ())) if ref is not None else []


def _definitions_by_ref(function: ir.Function) -> dict[str, list[ir.Expr]]:
    """`definitions` of every variable of `function`, found in one pass (rules ask about many variables)."""
    found: dict[str, list[ir.Expr]] = {}
    for node in function.of_type(ir.VarDecl, ir.Binary):
        if isinstance(node, ir.VarDecl):
            if node.ref is not None and node.init is not None:
                found.setdefault(node.ref, []).append(node.init)
        elif isinstance(node, ir.Binary) and node.op == "=":
            target = strip(node.lhs)
            if isinstance(target, ir.Name) and target.ref is not None:
                found.setdefault(target.ref, []).append(node.rhs)
    return found


def comparisons_of(condition: Condition, env: ConstantEnv | None = None) -> list[Comparison]:
    """The atomic comparisons a condition implies."""
    found: list[Comparison] = []
    _add_comparisons(condition.expr, condition.holds, 0, condition, env, found)
    return found


def _add_comparisons(expr: ir.Expr, holds: bool, depth: int, condition: Condition, env: ConstantEnv | None,
                     found: list[Comparison], disjunctions: list[list[list[Comparison]]] | None = None) -> None:
    # a function, not a recursive closure: that would be a reference cycle keeping the file's IR alive
    if depth > 20:
        return
    expr = strip(expr)
    if isinstance(expr, ir.Unary) and expr.op == "!":
        _add_comparisons(expr.operand, not holds, depth + 1, condition, env, found, disjunctions)
    elif isinstance(expr, ir.Binary) and expr.op in ("&&", "||"):
        if (expr.op == "&&") == holds:  # a && b true, or a || b false: both parts
            _add_comparisons(expr.lhs, holds, depth + 1, condition, env, found, disjunctions)
            _add_comparisons(expr.rhs, holds, depth + 1, condition, env, found, disjunctions)
        elif disjunctions is not None:  # one part or the other
            alternatives = []
            for part in _operands(expr, expr.op):
                alternatives.append([])
                _add_comparisons(part, holds, depth + 1, condition, env, alternatives[-1])
            disjunctions.append(alternatives)
    elif isinstance(expr, ir.Binary) and expr.op in COMPARISON_OPERATORS:
        op = expr.op if holds else NEGATED[expr.op]
        found.append(Comparison(expr.lhs, op, expr.rhs, expr, condition))
    elif isinstance(expr, ir.Name) and env is not None:
        definition = env.definition(expr.ref)
        if definition is not None and _is_boolean(strip(definition)):
            _add_comparisons(definition, holds, depth + 1, condition, env, found, disjunctions)


def disjunctions_of(condition: Condition, env: ConstantEnv | None = None) -> list[list[list[Comparison]]]:
    """The disjunctions a condition implies, each as its alternatives' atomic comparisons: `a || b` true
    (or `a && b` false) is [[comparisons of a], [comparisons of b]]. Something bounded in every
    alternative is bounded (`i == 0 || i == n - 1` bounds `i` by `n`), which no single comparison says."""
    disjunctions: list[list[list[Comparison]]] = []
    _add_comparisons(condition.expr, condition.holds, 0, condition, env, [], disjunctions)
    return disjunctions


def _operands(expr: ir.Expr, op: str) -> list[ir.Expr]:
    """`a || b || c` as [a, b, c]."""
    expr = strip(expr)
    if isinstance(expr, ir.Binary) and expr.op == op:
        return _operands(expr.lhs, op) + _operands(expr.rhs, op)
    return [expr]


def _is_boolean(expr: ir.Expr) -> bool:
    return (isinstance(expr, ir.Binary) and expr.op in COMPARISON_OPERATORS | {"&&", "||"}) or (
        isinstance(expr, ir.Unary) and expr.op == "!")


def always_exits(stmt: ir.Stmt | None) -> bool:
    """Whether control never falls through `stmt` (return, break, continue, or a block ending in one)."""
    if isinstance(stmt, (ir.Return, ir.Break, ir.Continue)):
        return True
    if isinstance(stmt, ir.Block):
        return any(always_exits(s) for s in stmt.body)
    if isinstance(stmt, ir.If):
        return stmt.otherwise is not None and always_exits(stmt.then) and always_exits(stmt.otherwise)
    if isinstance(stmt, ir.ExprStmt) and isinstance(stmt.expr, ir.Call):
        return stmt.expr.callee in ("__trap", "abort", "__builtin_trap", "__builtin_unreachable")
    return False


Facts = tuple[Condition, ...]


class FunctionGuards:
    """The conditions dominating every expression and statement of one function."""

    def __init__(self, function: ir.Function, env: ConstantEnv) -> None:
        self.function = function
        self.env = env
        self._facts: dict[int, Facts] = {}
        self._loops: dict[int, tuple[ir.Stmt, ...]] = {}
        self._comparisons: dict[Condition, list[Comparison]] = {}  # by the condition (short-lived ones too)
        if function.body is not None:
            self._stmt(function.body, (), ())

    def conditions(self, node: ir.Node) -> Facts:
        return self._facts.get(id(node), ())

    def comparisons(self, node: ir.Node) -> list[Comparison]:
        found: list[Comparison] = []
        for condition in self.conditions(node):
            found += self.comparisons_of(condition)
        return found

    def comparisons_of(self, condition: Condition) -> list[Comparison]:
        if condition not in self._comparisons:
            self._comparisons[condition] = comparisons_of(condition, self.env)
        return self._comparisons[condition]

    def disjunctions(self, node: ir.Node) -> list[list[list[Comparison]]]:
        """The disjunctions dominating `node` (`disjunctions_of`)."""
        return [d for condition in self.conditions(node) for d in disjunctions_of(condition, self.env)]

    def loops(self, node: ir.Node) -> tuple[ir.Stmt, ...]:
        """The loops enclosing `node`, outermost first."""
        return self._loops.get(id(node), ())

    def all_conditions(self) -> list[Condition]:
        seen: dict[int, Condition] = {}
        for facts in self._facts.values():
            for condition in facts:
                seen.setdefault(id(condition), condition)
        return list(seen.values())

    # --------------------------------------------------------------------------------------- walk

    def _stmt(self, stmt: ir.Stmt | None, facts: Facts, loops: tuple[ir.Stmt, ...]) -> None:
        if stmt is None:
            return
        self._facts[id(stmt)] = facts
        self._loops[id(stmt)] = loops
        if isinstance(stmt, ir.Block):
            for child in stmt.body:
                self._stmt(child, facts, loops)
                if isinstance(child, ir.If):
                    if always_exits(child.then) and not (child.otherwise is not None and always_exits(child.otherwise)):
                        facts = facts + (Condition(child.cond, False, child, "early-exit"),)
                    elif child.otherwise is not None and always_exits(child.otherwise) and not always_exits(child.then):
                        facts = facts + (Condition(child.cond, True, child, "early-exit"),)
        elif isinstance(stmt, ir.If):
            self._expr(stmt.cond, facts, loops)
            self._stmt(stmt.then, facts + (Condition(stmt.cond, True, stmt, "if"),), loops)
            if stmt.otherwise is not None:
                self._stmt(stmt.otherwise, facts + (Condition(stmt.cond, False, stmt, "else"),), loops)
        elif isinstance(stmt, ir.For):
            self._stmt(stmt.init, facts, loops)
            inner = loops + (stmt,)
            body_facts = facts + (Condition(stmt.cond, True, stmt, "loop"),) if stmt.cond is not None else facts
            if stmt.cond is not None:
                self._expr(stmt.cond, facts, inner)
            self._stmt(stmt.body, body_facts, inner)
            if stmt.step is not None:
                self._expr(stmt.step, body_facts, inner)
        elif isinstance(stmt, ir.While):
            inner = loops + (stmt,)
            self._expr(stmt.cond, facts, inner)
            body_facts = facts if stmt.do_while else facts + (Condition(stmt.cond, True, stmt, "loop"),)
            self._stmt(stmt.body, body_facts, inner)
        elif isinstance(stmt, ir.Switch):
            self._expr(stmt.cond, facts, loops)
            self._stmt(stmt.body, facts, loops)
        elif isinstance(stmt, ir.ExprStmt):
            self._expr(stmt.expr, facts, loops)
        elif isinstance(stmt, ir.DeclStmt):
            for decl in stmt.decls:
                self._facts[id(decl)] = facts
                self._loops[id(decl)] = loops
                if decl.init is not None:
                    self._expr(decl.init, facts, loops)
        elif isinstance(stmt, ir.Return):
            if stmt.value is not None:
                self._expr(stmt.value, facts, loops)
        elif isinstance(stmt, ir.OpaqueStmt):
            for part in stmt.parts:
                if isinstance(part, ir.Stmt):
                    self._stmt(part, facts, loops)
                elif isinstance(part, ir.Expr):
                    self._expr(part, facts, loops)

    def _expr(self, expr: ir.Expr | None, facts: Facts, loops: tuple[ir.Stmt, ...]) -> None:
        if expr is None:
            return
        self._facts[id(expr)] = facts
        self._loops[id(expr)] = loops
        if isinstance(expr, ir.Conditional):
            self._expr(expr.cond, facts, loops)
            self._expr(expr.then, facts + (Condition(expr.cond, True, expr, "ternary"),), loops)
            self._expr(expr.otherwise, facts + (Condition(expr.cond, False, expr, "ternary"),), loops)
        elif isinstance(expr, ir.Binary) and expr.op in ("&&", "||"):
            self._expr(expr.lhs, facts, loops)
            self._expr(expr.rhs, facts + (Condition(expr.lhs, expr.op == "&&", expr, "and" if expr.op == "&&" else "or"),),
                       loops)
        elif isinstance(expr, ir.Lambda):
            self._stmt(expr.body, (), ())
        else:
            for child in expr.children():
                if isinstance(child, ir.Expr):
                    self._expr(child, facts, loops)
                elif isinstance(child, ir.Stmt):
                    self._stmt(child, facts, loops)
