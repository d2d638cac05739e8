"""CL207 non-contiguous-input (warning): raw-pointer indexing (`data_ptr`) of a tensor that the file
shows may be a non-contiguous view (transpose, permute, expand, strided slice, ...), never made
contiguous nor checked with `is_contiguous()`."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from cudalint.analysis.guards import definitions, strip
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.kernelbench import extension_call_arguments
from cudalint.model import ir
from cudalint.sources import SourceDocument

# operations whose result is in general a non-contiguous view
_VIEW_OPS = {"t", "transpose", "permute", "narrow", "expand", "expand_as", "unfold", "as_strided", "diagonal",
             "movedim", "moveaxis", "swapaxes", "swapdims", "mT", "T", "mH", "H", "transpose_", "t_", "slice"}
# operations that keep the layout question open (their result is contiguous iff the input is)
_KEEP_OPS = {"detach", "cuda", "to", "float", "half", "double", "bfloat16", "clone", "type", "requires_grad_"}
_CONTIGUOUS_OPS = {"contiguous"}


@rule("CL207", "non-contiguous-input", "warning",
      "`data_ptr` of a tensor that may be a non-contiguous view, never made contiguous or checked")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    python_views = ctx.document.analysis(_python_view_arguments)
    for function in program.functions:
        if function.body is None or function.is_device_code:
            continue
        contiguous_refs = _made_contiguous(function)
        params = {p.ref: (i, p) for i, p in enumerate(function.params) if p.ref and "Tensor" in p.type}
        view_params = python_views.get(function.name, {})
        reported: set[str] = set()
        for node in function.of_type(ir.Call):
            if not (node.callee in ("data_ptr", "data", "const_data_ptr", "mutable_data_ptr")
                    and node.receiver is not None):
                continue
            receiver = strip(node.receiver)
            if not isinstance(receiver, ir.Name) or not receiver.ref or receiver.ref in contiguous_refs:
                continue
            why = None
            if receiver.ref in params:
                index, param = params[receiver.ref]
                if index in view_params and not definitions(function, receiver.ref):
                    why = f"the Python code passes `{view_params[index]}`, a view that may not be contiguous"
            else:
                assigned = definitions(function, receiver.ref)
                if assigned and all(_cpp_view(d, function, contiguous_refs, 0) for d in assigned):
                    why = f"`{receiver.name}` = `{' '.join(assigned[0].text.split())}` is a view that may not " \
                          f"be contiguous"
            if why is None or receiver.ref in reported:
                continue
            reported.add(receiver.ref)
            yield ctx.finding(node.span,
                              f"`{' '.join(node.text.split())}` indexes `{receiver.name}` as a dense array, but {why}, "
                              f"and it is never made contiguous (`.contiguous()`) or checked (`is_contiguous()`): "
                              f"the kernel reads the elements in the wrong order")


def _made_contiguous(function: ir.Function) -> set[str]:
    """Refs of tensors the function checks (`x.is_contiguous()`) or reassigns from `.contiguous()`."""
    refs: set[str] = set()
    for node in function.of_type(ir.Call, ir.Binary):
        if isinstance(node, ir.Call) and node.callee == "is_contiguous" and node.receiver is not None:
            receiver = strip(node.receiver)
            if isinstance(receiver, ir.Name) and receiver.ref:
                refs.add(receiver.ref)
        elif isinstance(node, ir.Binary) and node.op == "=" and isinstance(strip(node.lhs), ir.Name):
            if _ends_contiguous(node.rhs) and strip(node.lhs).ref:
                refs.add(strip(node.lhs).ref)
    text = "\n".join(n.text for n in function.of_type(ir.Call))
    for match in re.finditer(r"CHECK_(?:CONTIGUOUS|INPUT)\s*\(\s*(\w+)", text):
        for param in function.params:
            if param.name == match.group(1) and param.ref:
                refs.add(param.ref)
    return refs


def _ends_contiguous(expr: ir.Expr) -> bool:
    expr = strip(expr)
    return isinstance(expr, ir.Call) and expr.callee in _CONTIGUOUS_OPS


def _cpp_view(expr: ir.Expr, function: ir.Function, contiguous_refs: set[str], depth: int) -> bool:
    """Whether a C++ tensor expression is (in general) a non-contiguous view."""
    if depth > 8:
        return False
    expr = strip(expr)
    if isinstance(expr, ir.Call) and expr.receiver is not None:
        if expr.callee in _CONTIGUOUS_OPS:
            return False
        if expr.callee in _VIEW_OPS:
            return True
        if expr.callee in _KEEP_OPS:
            return _cpp_view(expr.receiver, function, contiguous_refs, depth + 1)
        return False
    if isinstance(expr, ir.Name) and expr.ref and expr.ref not in contiguous_refs:
        assigned = definitions(function, expr.ref)
        return bool(assigned) and all(_cpp_view(d, function, contiguous_refs, depth + 1) for d in assigned)
    return False


# ------------------------------------------------------------------------------------------- Python side


def _python_view_arguments(document: SourceDocument) -> dict[str, dict[int, str]]:
    """For each called function name: the positions of arguments that are non-contiguous views. Per
    document: a .py file's units all ask."""
    if document.python_module is None:
        return {}
    return extension_call_arguments(
        document.python_module,
        lambda arg, assignments: ast.unparse(arg) if _python_view(arg, assignments, 0) else None)


def _python_view(expr: ast.expr, assignments: dict[str, list[ast.expr]], depth: int) -> bool:
    if depth > 8:
        return False
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        method = expr.func.attr
        if method in _CONTIGUOUS_OPS:
            return False
        if method in _VIEW_OPS:
            return True
        if method in _KEEP_OPS:
            return _python_view(expr.func.value, assignments, depth + 1)
        return False
    if isinstance(expr, ast.Attribute):
        if expr.attr in ("T", "mT", "mH", "H"):
            return True
        return False
    if isinstance(expr, ast.Subscript):
        return _strided_slice(expr.slice)
    if isinstance(expr, ast.Name):
        values = assignments.get(expr.id, [])
        return len(values) == 1 and _python_view(values[0], assignments, depth + 1)
    return False


def _strided_slice(node: ast.expr) -> bool:
    """`x[:, ::2]`, `x[..., 1:]` on a non-leading dimension: a strided view."""
    parts = node.elts if isinstance(node, ast.Tuple) else [node]
    for position, part in enumerate(parts):
        if isinstance(part, ast.Slice):
            if part.step is not None:
                return True
            if position > 0 and (part.lower is not None or part.upper is not None):
                return True
    return False
