"""The statements of a function as a KernelBench harness runs them: which it runs (`graded_paths`: the
harness runs forward on CUDA tensors, in training mode), which always run (`always_run_statements`), in what
order (`statements_in_order`), what each evaluates (`evaluated_nodes`), what it assigns; and where a line or
a node is in the document (`line_location`, `node_location`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from cudalint import pyast
from cudalint.harness.kernelbench import callee_name

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def harness_polarity(test: ast.expr) -> bool | None:
    """The value a condition has when a KernelBench harness runs forward: on CUDA tensors (`x.is_cuda`:
    True; `not x.is_cuda`, `x.device.type == "cpu"`: False) and in training mode (`self.training`: True,
    the harness never calls `.eval()`); None when it depends on anything else."""
    if isinstance(test, ast.BoolOp):
        values = [harness_polarity(v) for v in test.values]
        decisive = isinstance(test.op, ast.Or)  # True decides an `or`, False an `and`
        if decisive in values:
            return decisive
        return None if None in values else not decisive
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = harness_polarity(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.Attribute) and test.attr == "training":
        return True
    text = ast.unparse(test)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and "device" in text:
        equal = isinstance(test.ops[0], (ast.Eq, ast.Is))
        if not equal and not isinstance(test.ops[0], (ast.NotEq, ast.IsNot)):
            return None
        if "'cpu'" in text or '"cpu"' in text:
            return not equal
        if "'cuda'" in text or '"cuda"' in text:
            return equal
        return None
    if isinstance(test, (ast.Attribute, ast.Call)):
        if text.endswith((".is_cuda", "torch.cuda.is_available()")):
            return True
        if text.endswith(".is_cpu"):
            return False
    return None


def _asks_grad_mode(test: ast.expr) -> bool:
    """`torch.is_grad_enabled()`, `x.requires_grad`: whether the harness grades with autograd on is
    its own choice, so both sides of such a branch are graded."""
    return any((isinstance(n, ast.Attribute) and n.attr == "requires_grad")
               or (isinstance(n, ast.Call) and callee_name(n) in ("is_grad_enabled", "is_inference_mode_enabled"))
               for n in pyast.walk(test))


@dataclass
class GradedPaths:
    """How the statements of a function run under a KernelBench harness (see `harness_polarity`)."""

    ungraded: set[int]  # ids of statements it never runs (CPU-only, eval-only)
    conditional: set[int]  # ids of statements it runs only when a condition it does not decide holds


_GRADED, _CONDITIONAL, _UNGRADED = 0, 1, 2


def graded_paths(function: _FunctionNode) -> GradedPaths:
    paths = GradedPaths(set(), set())
    _add_graded(function.body, _GRADED, paths)
    return paths


def _add_graded(body: list[ast.stmt], state: int, paths: GradedPaths) -> None:
    # a function, not a recursive closure: that would be a reference cycle keeping the module's AST alive
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if state == _UNGRADED:
            paths.ungraded.add(id(statement))
        elif state == _CONDITIONAL:
            paths.conditional.add(id(statement))
        if isinstance(statement, ast.If):
            polarity = harness_polarity(statement.test)
            open_question = polarity is None and not _asks_grad_mode(statement.test)
            inner = _CONDITIONAL if open_question else _GRADED
            body_state = max(state, _UNGRADED if polarity is False else inner)
            else_state = max(state, _UNGRADED if polarity is True else inner)
            _add_graded(statement.body, body_state, paths)
            _add_graded(statement.orelse, else_state, paths)
            # what follows a branch that returns runs only when the branch is not taken
            if _exits(statement.body):
                state = max(state, {True: _UNGRADED, False: state, None: inner}[polarity])
            if _exits(statement.orelse):
                state = max(state, {False: _UNGRADED, True: state, None: inner}[polarity])
            continue
        for name in ("body", "orelse", "finalbody"):
            _add_graded(getattr(statement, name, []) or [], state, paths)
        for handler in getattr(statement, "handlers", []) or []:
            _add_graded(handler.body, state, paths)


def _exits(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


def _own_nodes(function: _FunctionNode):
    """Every node of `function`, nested functions included (closures run as part of it)."""
    for statement in function.body:
        yield from pyast.walk(statement)


def _calls(function: _FunctionNode) -> list[ast.Call]:
    return [n for n in _own_nodes(function) if isinstance(n, ast.Call)]


def _targets_and_value(statement: ast.stmt) -> tuple[list[ast.expr], ast.expr | None]:
    if isinstance(statement, ast.Assign):
        return statement.targets, statement.value
    if isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
        return [statement.target], statement.value
    if isinstance(statement, ast.For):
        return [statement.target], statement.iter
    if isinstance(statement, ast.With):
        pairs = [(i.optional_vars, i.context_expr) for i in statement.items if i.optional_vars is not None]
        if pairs:
            return [pairs[0][0]], pairs[0][1]
    return [], None


def _names_in_target(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _names_in_target(e)]
    if isinstance(target, ast.Starred):
        return _names_in_target(target.value)
    if isinstance(target, ast.Subscript):
        return _names_in_target(target.value)  # out[...] = value writes out
    return []


SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr)  # no body of their own


def statements_in_order(function: _FunctionNode) -> list[ast.stmt]:
    """The statements of `function` (not of nested functions) in source order, each compound statement
    before the statements of its bodies."""
    found: list[ast.stmt] = []
    _add_statements(function.body, found)
    return found


def _add_statements(body: list[ast.stmt], found: list[ast.stmt]) -> None:
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        found.append(statement)
        for name in ("body", "orelse", "finalbody"):
            _add_statements(getattr(statement, name, []) or [], found)
        for handler in getattr(statement, "handlers", []) or []:
            _add_statements(handler.body, found)
        for case in getattr(statement, "cases", []) or []:
            _add_statements(case.body, found)


_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_NOT_RUN_HERE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def always_run_statements(method: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    """The statements of `method` that run every time it runs (up to its first exit), in order."""
    found: list[ast.stmt] = []
    _add_always_run(method.body, graded_paths(method), found)
    return found


def _add_always_run(body: list[ast.stmt], paths: GradedPaths, found: list[ast.stmt]) -> bool:
    """Add the statements of `body` that always run; True when it always exits (return, raise). A function,
    not a recursive closure: that would be a reference cycle keeping the module's AST alive."""
    for statement in body:
        if id(statement) in paths.ungraded or id(statement) in paths.conditional \
                or isinstance(statement, _NOT_RUN_HERE):
            continue
        found.append(statement)
        if isinstance(statement, (ast.Return, ast.Raise)):
            return True
        exits = False
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            exits = _add_always_run(statement.body, paths, found)
        elif isinstance(statement, ast.If):
            exits = _add_always_run(statement.body, paths, found) & _add_always_run(statement.orelse, paths, found)
        elif isinstance(statement, ast.Try) and not statement.handlers:
            exits = _add_always_run(statement.body, paths, found) | _add_always_run(statement.finalbody, paths, found)
        if exits:
            return True
    return False


def evaluated_nodes(statement: ast.stmt) -> list[ast.AST]:
    """The nodes a statement's own expressions evaluate on every execution (its header only, for a
    compound statement), in source order."""
    if isinstance(statement, ast.If):
        roots = [statement.test]
    elif isinstance(statement, _LOOPS):
        roots = [statement.iter] if isinstance(statement, (ast.For, ast.AsyncFor)) else [statement.test]
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        roots = [item.context_expr for item in statement.items]
    elif isinstance(statement, ast.Try):
        roots = []
    else:
        roots = [statement]
    nodes: list[ast.AST] = []
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        if isinstance(node, _NOT_RUN_HERE):
            continue
        nodes.append(node)
        if isinstance(node, ast.IfExp):
            children = [node.test]
        elif isinstance(node, ast.BoolOp):
            children = node.values[:1]
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            children = [node.generators[0].iter]
        else:
            children = list(ast.iter_child_nodes(node))
        stack.extend(reversed(children))
    return sorted((n for n in nodes if hasattr(n, "lineno")), key=lambda n: (n.lineno, n.col_offset))


def line_location(document, line: int):
    """The Location of a whole line of the document (leading indentation excluded)."""
    from cudalint.findings import Location

    lines = document.lines
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    start = len(text) - len(text.lstrip()) + 1
    return Location(document.path, line, start, line, max(len(text) + 1, start + 1))


def node_location(document, node: ast.AST):
    """The Location of a Python AST node; a node spanning several lines is reported on its first."""
    from cudalint.findings import Location

    end_line = getattr(node, "end_lineno", None) or node.lineno
    if end_line != node.lineno:
        return line_location(document, node.lineno)
    end_offset = getattr(node, "end_col_offset", None) or node.col_offset
    # Python's offsets count UTF-8 bytes; a column counts characters, as editors do
    line = document.lines[node.lineno - 1].encode("utf-8") if 0 < node.lineno <= len(document.lines) else b""
    start, end = (len(line[:offset].decode("utf-8", "ignore")) + 1 for offset in (node.col_offset, end_offset))
    return Location(document.path, node.lineno, start, end_line, end)
