"""CL425 avg-pool-divisor: the kernel averages each pooling window over its in-bounds elements, while the
reference's average pooling counts the padding (`count_include_pad=True`, the default) and divides by the
full kernel size.

With padding > 0 the two divisors differ on every window that overlaps the border, so the output there
is wrong. Reported on the division, when:
- the reference's `Model.forward` applies `nn.AvgPool1d/2d/3d` (a layer of the constructor) or
  `F.avg_pool1d/2d/3d`, every one of them with padding > 0, `count_include_pad` true and no
  `divisor_override` (arguments evaluated at `get_init_inputs()`);
- and a device function divides an accumulated sum by a local counter that starts at 0, is only ever
  incremented, and is incremented inside a loop only for in-bounds positions: under a test against 0
  (`if (i >= 0 && i < n)`, or after `if (i < 0 ...) continue;`), or in a loop whose start is clamped with
  `max(..., 0)`.

Silent when the reference is not known or cannot be evaluated, when any of its average poolings has no
padding or excludes it, and when the kernel divides by a constant or by the kernel size.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from functools import lru_cache

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import record_unit, reference_of
from cudalint.harness.init_order import LayerCall, init_inputs, model_layers
from cudalint.harness.kernelbench import import_map, read_python
from cudalint.model import ir

_POOL_LAYERS = {"AvgPool1d", "AvgPool2d", "AvgPool3d"}
_POOL_FUNCTIONS = {f"torch.nn.functional.avg_pool{n}d" for n in (1, 2, 3)} | {"torch.avg_pool1d"}
# the arguments after the input, in order, of the layers and the functions alike
_POOL_ARGS = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
_INCREMENTS = {"++", "post++"}
_WRITES = {"++", "--", "post++", "post--", "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}
_COMPARISONS = {"<", "<=", ">", ">="}
_CLAMPS = {"max", "fmaxf", "::max", "std::max"}


@rule("CL425", "avg-pool-divisor", "error",
      "the kernel divides each pooling window's sum by its in-bounds count, while the reference's AvgPool "
      "counts the padding (count_include_pad=True) and divides by the kernel size")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state, _ = record_unit(ctx)
    if state.solution is None or not state.solution.is_kernelbench:
        return
    reference = reference_of(ctx)
    if reference is None:
        return
    pooling = _reference_pooling(reference.path, ctx.document)
    if pooling is None:
        return
    for function in ctx.program.functions:
        if function.body is None or not function.is_device_code:
            continue
        for division, counter in _divisions_by_in_bounds_count(function):
            yield ctx.finding(division.span, (
                f"`{division.text}` divides the window's sum by `{counter}`, the count of its in-bounds elements, "
                f"but the reference's {pooling} pads with count_include_pad=True (the default): it divides every "
                f"window by the full kernel size, padding included, so the windows at the border differ; divide "
                f"by the kernel size (the product over the pooled dimensions)"))


def _reference_pooling(path: str, document) -> str | None:
    """`nn.AvgPoolNd(...)` as the reference's forward applies it, when every average pooling it applies
    pads and counts the padding; None otherwise (none applied, one not evaluated, one excluding padding)."""
    if os.path.abspath(path) == os.path.abspath(document.path):
        module = document.python_module
    else:
        try:
            parsed = read_python(os.path.abspath(path), os.path.getmtime(path))
        except OSError:
            return None
        module = parsed[0] if parsed is not None else None
    return _pooling_of(module) if module is not None else None


@lru_cache(maxsize=16)  # asked on each unit of a file, and a reference's module is read once per process
def _pooling_of(module: ast.Module) -> str | None:
    model = next((s for s in module.body if isinstance(s, ast.ClassDef) and s.name == "Model"), None)
    forward = next((s for s in model.body if isinstance(s, ast.FunctionDef) and s.name == "forward"), None) \
        if model is not None else None
    args = init_inputs(module) if forward is not None else None
    constructed = model_layers(module, args) if args is not None else None
    if constructed is None:
        return None
    layers, attributes = constructed
    imports = import_map(module)
    described = []
    for call in (n for n in ast.walk(forward) if isinstance(n, ast.Call)):
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" \
                and func.attr in layers and layers[func.attr].kind in _POOL_LAYERS:
            settings = _settings(layers[func.attr])
            kind = layers[func.attr].kind
        elif imports.qualify(func) in _POOL_FUNCTIONS and call.args:
            values = [_value(a, attributes) for a in call.args[1:]]
            keywords = {k.arg: _value(k.value, attributes) for k in call.keywords if k.arg is not None}
            settings = _settings(LayerCall("", values, keywords))
            kind = "AvgPool" + imports.qualify(func)[-2:]
        else:
            continue
        if settings is None:
            return None
        padding, include_pad, override = settings
        if not (padding and include_pad and override is None):
            return None
        described.append(f"nn.{kind}(padding={padding})")
    return described[0] if described else None


def _settings(call: LayerCall) -> tuple[int | tuple, bool, object] | None:
    """(padding, count_include_pad, divisor_override) of an average pooling; None when not all known."""
    bound = dict(zip(_POOL_ARGS, call.args))
    bound.update(call.kwargs)
    padding = bound.get("padding", 0)
    include_pad = bound.get("count_include_pad", True)
    override = bound.get("divisor_override")
    paddings = padding if isinstance(padding, (tuple, list)) else (padding,)
    if not all(isinstance(p, int) and not isinstance(p, bool) for p in paddings) or not isinstance(include_pad, bool) \
            or not (override is None or isinstance(override, int)):
        return None
    return (padding if any(p > 0 for p in paddings) else 0), include_pad, override


def _value(node: ast.expr, attributes: dict[str, object]) -> object:
    """A functional pooling argument: a literal or a plain attribute of the constructed model; else a
    marker that `_settings` rejects."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return attributes.get(node.attr, _value)
    return _value


def _divisions_by_in_bounds_count(function: ir.Function) -> Iterator[tuple[ir.Binary, str]]:
    parents: dict[int, ir.Node] = {}
    for node in function.nodes:
        for child in node.children():
            parents[id(child)] = node
    counters = _in_bounds_counters(function, parents)
    accumulated = {n.lhs.ref for n in function.of_type(ir.Binary)
                   if n.op == "+=" and isinstance(n.lhs, ir.Name) and _enclosing_loop(n, parents) is not None}
    for node in function.of_type(ir.Binary):
        if node.op not in ("/", "/="):
            continue
        numerator, divisor = _uncast(node.lhs), _uncast(node.rhs)
        if isinstance(divisor, ir.Name) and divisor.ref in counters and isinstance(numerator, ir.Name) \
                and numerator.ref in accumulated:
            yield node, divisor.name


def _in_bounds_counters(function: ir.Function, parents: dict[int, ir.Node]) -> set[str]:
    """The locals that start at 0, are only incremented, always inside a loop, at least once only for
    in-bounds positions."""
    starts_at_zero = {d.ref for d in function.of_type(ir.VarDecl)
                      if isinstance(_uncast(d.init), ir.Const) and d.init is not None and _uncast(d.init).value == 0}
    writes: dict[str, list[ir.Expr]] = {}
    for node in function.of_type(ir.Unary, ir.Binary):
        target = node.operand if isinstance(node, ir.Unary) else node.lhs
        if node.op not in _WRITES:
            continue
        if isinstance(target, ir.Name) and target.ref in starts_at_zero:
            writes.setdefault(target.ref, []).append(node)
    counters = set()
    for ref, nodes in writes.items():
        if all(_is_increment(n) and _enclosing_loop(n, parents) is not None for n in nodes) \
                and any(_counts_in_bounds_only(n, parents, function) for n in nodes):
            counters.add(ref)
    return counters


def _is_increment(node: ir.Expr) -> bool:
    if isinstance(node, ir.Unary):
        return node.op in _INCREMENTS
    return node.op == "+=" and isinstance(_uncast(node.rhs), ir.Const) and _uncast(node.rhs).value == 1


def _counts_in_bounds_only(increment: ir.Expr, parents: dict[int, ir.Node], function: ir.Function) -> bool:
    """Whether the increment runs only for in-bounds positions of its loop: under a test against 0, after
    a `continue` on one, or in a loop whose start is clamped with max(..., 0)."""
    node, loop = increment, _enclosing_loop(increment, parents)
    while node is not loop:
        parent = parents[id(node)]
        if isinstance(parent, ir.If) and node is not parent.cond and _tests_against_zero(parent.cond):
            return True
        if isinstance(parent, ir.Block):
            for earlier in parent.body[:parent.body.index(node)] if node in parent.body else ():
                if isinstance(earlier, ir.If) and _skips(earlier.then) and _tests_against_zero(earlier.cond):
                    return True
        node = parent
    return _start_clamped(loop, function)


def _skips(stmt: ir.Stmt) -> bool:
    return isinstance(stmt, ir.Continue) or isinstance(stmt, ir.Block) and len(stmt.body) == 1 \
        and isinstance(stmt.body[0], ir.Continue)


def _tests_against_zero(cond: ir.Expr) -> bool:
    return any(isinstance(n, ir.Binary) and n.op in _COMPARISONS and any(
        isinstance(_uncast(side), ir.Const) and _uncast(side).value == 0 for side in (n.lhs, n.rhs))
        for n in cond.walk())


def _start_clamped(loop: ir.Stmt, function: ir.Function) -> bool:
    """A for loop whose start is `max(..., 0)`, written in its init or in the start variable's
    assignments."""
    if not isinstance(loop, ir.For) or loop.init is None:
        return False
    starts = [d.init for d in loop.init.walk() if isinstance(d, ir.VarDecl) and d.init is not None]
    names = {_uncast(s).ref for s in starts if isinstance(_uncast(s), ir.Name)}
    return any(_clamps_at_zero(s) for s in starts) or bool(names) and any(
        isinstance(n, ir.Binary) and n.op == "=" and isinstance(n.lhs, ir.Name) and n.lhs.ref in names
        and _clamps_at_zero(n.rhs) or isinstance(n, ir.VarDecl) and n.ref in names and n.init is not None
        and _clamps_at_zero(n.init) for n in function.nodes)


def _clamps_at_zero(expr: ir.Expr) -> bool:
    expr = _uncast(expr)
    return isinstance(expr, ir.Call) and expr.callee in _CLAMPS and any(
        isinstance(_uncast(a), ir.Const) and _uncast(a).value == 0 for a in expr.args)


def _enclosing_loop(node: ir.Node, parents: dict[int, ir.Node]) -> ir.Stmt | None:
    while id(node) in parents:
        node = parents[id(node)]
        if isinstance(node, (ir.For, ir.While)):
            return node
    return None


def _uncast(expr: ir.Expr | None) -> ir.Expr | None:
    while isinstance(expr, ir.Cast):
        expr = expr.operand
    return expr
