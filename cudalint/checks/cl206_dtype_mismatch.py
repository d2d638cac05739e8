"""CL206 dtype-mismatch (warning): `t.data_ptr<T>()` where the file shows `t` holds another dtype, or
whose pointer reaches a kernel parameter of another element type (through a cast)."""

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

# element types by C++ spelling (namespaces and qualifiers removed)
_ELEMENT = {
    "float": "float32", "float2": "float32", "float4": "float32", "double": "float64", "double2": "float64",
    "half": "float16", "__half": "float16", "Half": "float16", "half2": "float16", "__half2": "float16",
    "__nv_bfloat16": "bfloat16", "BFloat16": "bfloat16", "__nv_bfloat162": "bfloat16", "nv_bfloat16": "bfloat16",
    "int": "int32", "int32_t": "int32", "int2": "int32", "int4": "int32", "unsigned": "uint32",
    "long": "int64", "int64_t": "int64", "longlong": "int64",
    "short": "int16", "int16_t": "int16", "int8_t": "int8", "uint8_t": "uint8", "bool": "bool",
}
# dtype tokens as written in C++ (torch::kHalf) and in Python (torch.float16)
_DTYPE_TOKEN = {
    "Half": "float16", "Float16": "float16", "BFloat16": "bfloat16", "Float": "float32", "Float32": "float32",
    "Double": "float64", "Float64": "float64", "Int": "int32", "Int32": "int32", "Long": "int64", "Int64": "int64",
    "Short": "int16", "Int16": "int16", "Char": "int8", "Int8": "int8", "Byte": "uint8", "UInt8": "uint8",
    "Bool": "bool",
}
_CPP_DTYPE = re.compile(r"(?:\b(?:torch|at|c10|ScalarType)::(?:ScalarType::)?k?|\bk)(" + "|".join(_DTYPE_TOKEN) + r")\b")
_METHOD_DTYPE = {"half": "float16", "float": "float32", "double": "float64", "bfloat16": "bfloat16", "int": "int32",
                 "long": "int64"}
_METHOD = re.compile(r"\.(half|float|double|bfloat16|int|long)\(\s*\)")
_SAME_DTYPE_CALLS = re.compile(r"^(torch::|at::)?(empty_like|zeros_like|ones_like|rand_like|randn_like|full_like)$")
_SAME_DTYPE_METHODS = {"contiguous", "clone", "view", "reshape", "flatten", "squeeze", "unsqueeze", "transpose",
                       "permute", "t", "narrow", "select", "slice", "expand", "detach", "cuda", "to"}


def element_type(type_: str) -> str | None:
    """The dtype of a C++ element or pointer type (`const float *__restrict` -> float32)."""
    text = re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict|struct|unsigned\s+char)\b",
                  lambda m: "uint8_t" if m.group(0).startswith("unsigned") else "", type_)
    text = text.replace("*", " ").replace("&", " ")
    text = re.sub(r"\b\w+::", "", text)
    words = text.split()
    if not words:
        return None
    if words == ["long", "long"] or words == ["long", "long", "int"]:
        return "int64"
    if words[0] == "unsigned" and len(words) > 1:
        return {"int": "uint32", "long": "uint64"}.get(words[1])
    return _ELEMENT.get(words[0])


_PY_DTYPES = {"float16": "float16", "half": "float16", "bfloat16": "bfloat16", "float32": "float32",
              "float": "float32", "float64": "float64", "double": "float64", "int32": "int32", "int": "int32",
              "int64": "int64", "long": "int64"}


def _python_argument_dtypes(document: SourceDocument) -> dict[str, dict[int, str]]:
    """For each called function name: the dtype of arguments the Python code converts explicitly
    (`ext.fn(x.half())`, `fn(x.to(torch.float16))`, or a local assigned such a value). Per document: a .py
    file's units all ask."""
    if document.python_module is None:
        return {}
    return extension_call_arguments(document.python_module,
                                    lambda arg, assignments: _python_dtype(arg, assignments, 0))


def _python_dtype(expr: ast.expr, assignments: dict[str, list[ast.expr]], depth: int) -> str | None:
    if depth > 6:
        return None
    if isinstance(expr, ast.Name):
        values = assignments.get(expr.id, [])
        return _python_dtype(values[0], assignments, depth + 1) if len(values) == 1 else None
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)):
        return None
    method = expr.func.attr
    if method in ("half", "float", "double", "bfloat16") and not expr.args:
        return _METHOD_DTYPE[method]
    if method in ("to", "type"):
        candidates = list(expr.args) + [k.value for k in expr.keywords if k.arg == "dtype"]
        for candidate in candidates:
            if isinstance(candidate, ast.Attribute) and isinstance(candidate.value, ast.Name) \
                    and candidate.value.id == "torch" and candidate.attr in _PY_DTYPES:
                return _PY_DTYPES[candidate.attr]
        return None
    if method in ("contiguous", "cuda", "clone", "detach", "view", "reshape", "flatten", "t", "transpose",
                  "permute", "unsqueeze", "squeeze"):
        return _python_dtype(expr.func.value, assignments, depth + 1)
    return None


@rule("CL206", "dtype-mismatch", "warning",
      "`data_ptr<T>()` on a tensor of another dtype, or into a kernel parameter of another element type")
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    reported: set[int] = set()
    python_dtypes = ctx.document.analysis(_python_argument_dtypes)
    for function in program.functions:
        if function.body is None or function.is_kernel:
            continue
        env = program.env(function)
        passed = python_dtypes.get(function.name, {})
        param_dtypes = {p.ref: passed[i] for i, p in enumerate(function.params)
                        if i in passed and p.ref and "Tensor" in p.type}
        for node in function.of_type(ir.Launch):
            kernel = program.kernel_named(node.kernel)
            if kernel is None or kernel.templated or len(kernel.params) != len(node.args):
                continue
            for arg, param in zip(node.args, kernel.params):
                call = _data_ptr_in(arg)
                if call is None or id(call) in reported:
                    continue
                written = element_type(call.template_args) if call.template_args else None
                expected = element_type(param.type) if "*" in param.type else None
                if written and expected and written != expected and "void" not in param.type:
                    reported.add(id(call))
                    yield ctx.finding(call.span,
                                      f"`{_squash(call.text)}` is a {written} pointer, but it is passed to "
                                      f"`{kernel.name}`'s parameter `{param.name}` of type `{param.type}`: "
                                      f"the kernel reinterprets the tensor's bytes as {expected}")
        for node in function.of_type(ir.Call):
            if not _is_data_ptr(node) or id(node) in reported or not node.template_args:
                continue
            written = element_type(node.template_args)
            if written is None:
                continue
            actual = _tensor_dtype(node.receiver, function, env, 0, param_dtypes)
            if actual is not None and actual != written:
                reported.add(id(node))
                yield ctx.finding(node.span,
                                  f"`{_squash(node.text)}` reads the tensor as {written}, but "
                                  f"`{_squash(node.receiver.text)}` holds {actual} here: data_ptr<T>() fails at "
                                  f"run time, or a cast hides a reinterpretation of the bytes")


def _squash(text: str) -> str:
    return " ".join(text.split())


def _is_data_ptr(node: ir.Node) -> bool:
    return isinstance(node, ir.Call) and node.callee in ("data_ptr", "data", "mutable_data_ptr", "const_data_ptr") \
        and node.receiver is not None


def _data_ptr_in(arg: ir.Expr) -> ir.Call | None:
    """The data_ptr call an argument passes on, through casts."""
    expr = arg
    while True:
        expr = strip(expr)
        if _is_data_ptr(expr) and expr.template_args:
            return expr
        if isinstance(expr, ir.Call) and expr.callee in ("reinterpret_cast", "static_cast") and expr.args:
            expr = expr.args[0]
            continue
        return None


def _tensor_dtype(expr: ir.Expr | None, function: ir.Function, env, depth: int,
                  params: dict[str, str] | None = None) -> str | None:
    """The dtype a tensor expression is known to hold from the code around it; None when not shown."""
    if expr is None or depth > 8:
        return None
    expr = strip(expr)
    text = expr.text
    if isinstance(expr, ir.Name):
        assigned = definitions(function, expr.ref)
        if assigned:
            found = [_tensor_dtype(d, function, env, depth + 1, params) for d in assigned]
            if None not in found and len(set(found)) == 1:
                return found[0]
            return None
        return _checked_dtype(function, expr.name) or (params or {}).get(expr.ref)
    if isinstance(expr, ir.Call):
        if expr.receiver is not None and expr.callee in _METHOD_DTYPE and not expr.args:
            return _METHOD_DTYPE[expr.callee]
        tokens = _CPP_DTYPE.findall(text)
        if expr.callee in ("to", "toType", "type") or "dtype" in text or expr.callee in ("empty", "zeros", "ones",
                                                                                          "full", "rand", "randn",
                                                                                          "arange", "empty_strided"):
            if tokens:
                return _DTYPE_TOKEN[tokens[-1]]
        if _SAME_DTYPE_CALLS.match(expr.callee) and expr.args:
            if tokens and "dtype" in text:
                return _DTYPE_TOKEN[tokens[-1]]
            return _tensor_dtype(expr.args[0], function, env, depth + 1, params)
        if expr.receiver is not None and expr.callee in _SAME_DTYPE_METHODS and not tokens:
            return _tensor_dtype(expr.receiver, function, env, depth + 1, params)
        if expr.callee in ("empty", "zeros", "ones", "full", "empty_strided") and not tokens:
            for arg in expr.args:  # torch::empty(sizes, x.options()): the dtype of x
                arg = strip(arg)
                if isinstance(arg, ir.Call) and arg.callee == "options" and arg.receiver is not None:
                    return _tensor_dtype(arg.receiver, function, env, depth + 1, params)
    return None


def _checked_dtype(function: ir.Function, name: str) -> str | None:
    """`TORCH_CHECK(x.scalar_type() == torch::kHalf)` and the like in the function's text."""
    if function.body is None:
        return None
    for node in function.of_type(ir.Binary):
        if node.op == "==":
            for side, other in ((node.lhs, node.rhs), (node.rhs, node.lhs)):
                side = strip(side)
                if isinstance(side, ir.Call) and side.callee in ("scalar_type", "dtype") and side.receiver is not None \
                        and isinstance(strip(side.receiver), ir.Name) and strip(side.receiver).name == name:
                    tokens = _CPP_DTYPE.findall(other.text)
                    if tokens:
                        return _DTYPE_TOKEN[tokens[-1]]
    return None
