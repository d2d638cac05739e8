"""The extension model: what each function a solution's `load_inline` binds does at the Python layer,
built statically from the C++ that cudalint already parsed, as plain JSON-serialisable data for the
dry-run worker (which never compiles anything).

Per `load_inline` call (found again at run time by its line, else by its function names), per bound
function:

- `params`: name and pybind11 conversion class of each parameter (`tensor` rejects None and numbers,
  `optional_tensor` accepts None, `int` rejects floats, `float`, `bool`, `int_list`, `scalar`, `string`,
  `any` for types the model does not know: every value passes);
- `keywords`: whether the binding names its arguments (`py::arg`), so that keywords may be passed;
- `returns`: `tensor`, `tensors` (a tuple or vector), `void`, `scalar` or `unknown`;
- `result`: the result's shape and dtype as a small expression over the arguments, where the host code
  determines it (`torch::empty_like(x)`, `torch::empty({a.size(0), b.size(1)}, a.options())`); None
  when not known (the worker then returns a tensor like the first tensor argument and says so);
- `writes`: the positions of tensor parameters that the function's kernels (or in-place ATen methods)
  write: a lower bound (writes through a helper function are not followed).

Shape expressions: `{"int": n}`, `{"size": [p, dim]}` (dim an expression; negative counts from the end),
`{"numel": p}`, `{"dim": p}`, `{"arg": p}` (an integer argument's value), `{"item": [p, i]}` (element of
an integer-list argument), `{"op": "+", "args": [a, b]}` (C arithmetic: `/` truncates). A result is
`{"same": p}` (the argument itself), `{"like": p}` (p's sizes) or `{"sizes": [expr, ...]}`, with `"dtype"`: a dtype name, `{"of": p}`, or None.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from cudalint.analysis.guard_analysis import GuardAnalysis
from cudalint.analysis.guards import strip
from cudalint.analysis.launch_link import LaunchLinks, data_pointer_of
from cudalint.harness.kernelbench import Solution
from cudalint.model import ir

MAX_DEPTH = 24

_TENSOR = re.compile(r"^(const\s+)?((torch|at)::)?Tensor\s*&?$")
_OPTIONAL_TENSOR = re.compile(r"^(const\s+)?((c10|std|at|torch)::)?optional\s*<\s*((torch|at)::)?Tensor\s*>\s*&?$")
_INTEGER = re.compile(r"^(const\s+)?(unsigned\s+|signed\s+)?(int|long|long\s+int|long\s+long|short|size_t|"
                      r"(std::)?u?int(8|16|32|64)_t|std::size_t|int64_t)\s*&?$")
_FLOAT = re.compile(r"^(const\s+)?(float|double)\s*&?$")
_BOOL = re.compile(r"^(const\s+)?bool\s*&?$")
_INT_LIST = re.compile(r"^(const\s+)?(((at|c10|torch)::)?IntArrayRef|std::vector\s*<\s*(int64_t|int|long)\s*>)\s*&?$")
_SCALAR = re.compile(r"^(const\s+)?((at|c10|torch)::)?Scalar\s*&?$")
_STRING = re.compile(r"^(const\s+)?std::string\s*&?$")
_PYBIND_DEF = re.compile(r"\.def\(\s*\"(?P<name>\w+)\"\s*,\s*&?\s*(?P<target>[\w:]+)(?P<rest>[^;]*)\)\s*;")
_PY_ARG = re.compile(r"py::arg\(\s*\"(\w+)\"\s*\)(\s*=)?")
_DTYPES = {"kFloat": "float32", "kFloat32": "float32", "kHalf": "float16", "kFloat16": "float16",
           "kBFloat16": "bfloat16", "kDouble": "float64", "kFloat64": "float64", "kInt": "int32", "kInt32": "int32",
           "kLong": "int64", "kInt64": "int64", "kBool": "bool", "kByte": "uint8", "kUInt8": "uint8",
           "kChar": "int8", "kInt8": "int8", "kShort": "int16", "kInt16": "int16"}
_EMPTY_LIKE = {"empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like"}
_EMPTY = {"empty", "zeros", "ones", "full", "rand", "randn"}
_ARITHMETIC = {"+", "-", "*", "/", "%"}
_SHAPE_KEEPING = {"contiguous", "clone", "detach", "to", "cuda", "float", "half"}
_CPP_METADATA_INPLACE = {"resize_", "requires_grad_", "set_requires_grad", "record_stream"}


def conversion_class(type_text: str) -> str:
    """The pybind11 conversion class of a C++ parameter type (see the module docstring)."""
    spelled = " ".join(type_text.split())
    for pattern, kind in ((_TENSOR, "tensor"), (_OPTIONAL_TENSOR, "optional_tensor"), (_INTEGER, "int"),
                          (_FLOAT, "float"), (_BOOL, "bool"), (_INT_LIST, "int_list"), (_SCALAR, "scalar"),
                          (_STRING, "string")):
        if pattern.match(spelled):
            return kind
    return "any"


def return_kind(type_text: str) -> str:
    spelled = " ".join(type_text.split())
    if spelled == "void":
        return "void"
    if ("vector" in spelled or "tuple" in spelled or "pair" in spelled) and "Tensor" in spelled:
        return "tensors"
    if _TENSOR.match(spelled):
        return "tensor"
    if _INTEGER.match(spelled) or _FLOAT.match(spelled) or _BOOL.match(spelled):
        return "scalar"
    return "unknown"


def extension_model(solution: Solution, units: Iterable) -> list[dict]:
    """One entry per `load_inline` call of `solution` (see the module docstring); `units` are the
    document's UnitFacts."""
    units = list(units)
    model = []
    for call in solution.load_inline_calls:
        own = [facts for facts in units if facts.unit.text in
               {argument.text for argument in (call.cpp, call.cuda) if argument.text is not None}]
        functions = _host_functions(own)
        bound = _bindings(call, own)
        entry = {"line": call.call.lineno, "end_line": call.call.end_lineno or call.call.lineno, "name": call.name,
                 "functions": {}}
        for name, (target, arg_names, defaults) in bound.items():
            entry["functions"][name] = _function_model(target, functions, arg_names, defaults)
        model.append(entry)
    return model


def _host_functions(units: list) -> dict[str, list[tuple[ir.Function, object]]]:
    found: dict[str, list[tuple[ir.Function, object]]] = {}
    for facts in units:
        for function in facts.program.functions:
            if not function.is_device_code:
                found.setdefault(function.name, []).append((function, facts))
    return found


def _bindings(call, units: list) -> dict[str, tuple[str, list[str] | None, int]]:
    """bound name -> (C++ function, keyword names or None, how many trailing parameters have defaults)."""
    bound: dict[str, tuple[str, list[str] | None, int]] = {}
    for name, _ in call.functions or []:
        bound[name] = (name, None, 0)
    for facts in units:
        for match in _PYBIND_DEF.finditer(facts.unit.text):
            arguments = _PY_ARG.findall(match.group("rest"))
            names = [argument for argument, _ in arguments] or None
            defaults = sum(1 for _, default in arguments if default)
            bound[match.group("name")] = (match.group("target").rsplit("::", 1)[-1], names, defaults)
    return bound


def _function_model(target: str, functions: dict, arg_names: list[str] | None, defaults: int) -> dict:
    found = functions.get(target, [])
    defined = [(f, facts) for f, facts in found if f.body is not None]
    if len(defined) != 1 or defined[0][0].templated or len({len(f.params) for f, _ in found}) != 1:
        return {"known": False}  # overloaded, templated, or defined elsewhere: every call is accepted
    function, facts = defined[0]
    params = [{"name": p.name, "kind": conversion_class(p.canonical_type or p.type)
               if conversion_class(p.type) == "any" else conversion_class(p.type)} for p in function.params]
    if arg_names is not None and len(arg_names) == len(params):
        for param, name in zip(params, arg_names):
            param["name"] = name
    kind = return_kind(function.return_type)
    model = {"known": True, "params": params, "keywords": arg_names is not None, "defaults": defaults,
             "returns": kind, "writes": sorted(_written_positions(function, facts.program)), "result": None,
             "line": function.span.line}
    if kind == "tensor":
        model["result"], span = _result(function, facts.program)
        if span is not None:  # the allocation the result is, on the file's line
            model["result_line"] = facts.unit.to_file(span.line, span.column).line
    return model


def _written_positions(function: ir.Function, program) -> set[int]:
    positions = {p.ref: index for index, p in enumerate(function.params) if p.ref and "Tensor" in p.type}
    written: set[int] = set()
    links = analysis = None
    for node in function.of_type(ir.Call, ir.Launch):
        if isinstance(node, ir.Call):
            receiver = strip(node.receiver) if node.receiver is not None else None
            if isinstance(receiver, ir.Name) and receiver.ref in positions and node.callee.endswith("_") \
                    and not node.callee.startswith("_") and node.callee not in _CPP_METADATA_INPLACE:
                written.add(positions[receiver.ref])
            continue
        if links is None:
            links, analysis = LaunchLinks.of(program), GuardAnalysis.of(program)
        link = links.of_node(node)
        kernel = link.kernel if link is not None else None
        if kernel is None or kernel.body is None:
            continue
        stores = {a.root.ref for a in analysis.accesses(kernel) if a.is_write and a.root.kind == "param"}
        for position, arg in enumerate(node.args):
            ref = data_pointer_of(arg)
            if ref in positions and position < len(kernel.params) and kernel.params[position].ref in stores:
                written.add(positions[ref])
    return written


class _Unknown(Exception):
    """The host code does not determine this part of the result."""


def _result(function: ir.Function, program) -> tuple[dict | None, ir.Span | None]:
    """The shape and dtype of the tensor `function` returns, when every return gives the same expression,
    and the span of the allocation it is (when one)."""
    env = program.env(function)
    params = {p.ref: index for index, p in enumerate(function.params) if p.ref}
    reassigned = _reassigned(function)
    translator = _Translator(env, params, reassigned)
    results = []
    for statement in function.of_type(ir.Return):
        if statement.value is None:
            return None, None
        value = strip(statement.value)
        if isinstance(value, ir.Name) and value.ref in params and value.ref not in reassigned:
            results.append({"same": params[value.ref]})  # the argument itself: the caller gets its own tensor
            continue
        try:
            results.append(translator.tensor(statement.value, 0))
        except _Unknown:
            return None, None
    if not results or any(r != results[0] for r in results):
        return None, None
    return results[0], translator.allocation


def _reassigned(function: ir.Function) -> set[str]:
    """Declarations assigned after their definition (their value at the return is not their definition)."""
    found: set[str] = set()
    for node in function.of_type(ir.Binary):
        if node.is_assignment and isinstance(strip(node.lhs), ir.Name):
            found.add(strip(node.lhs).ref)
    return found


class _Translator:
    def __init__(self, env, params: dict[str, int], reassigned: set[str]) -> None:
        self.env, self.params, self.reassigned = env, params, reassigned
        self.allocation: ir.Span | None = None  # the first allocation a result was read from

    def _follow(self, expr: ir.Expr) -> ir.Expr:
        expr = strip(expr)
        while isinstance(expr, ir.Cast):
            expr = strip(expr.operand)
        if isinstance(expr, ir.Name) and expr.ref not in self.params:
            if expr.ref in self.reassigned:
                raise _Unknown
            definition = self.env.definition(expr.ref)
            if definition is None:
                raise _Unknown
            return definition
        return expr

    def tensor(self, expr: ir.Expr, depth: int) -> dict:
        if depth > MAX_DEPTH:
            raise _Unknown
        expr = strip(expr)
        while isinstance(expr, ir.Cast):
            expr = strip(expr.operand)
        if isinstance(expr, ir.Name):
            if expr.ref in self.params:
                if expr.ref in self.reassigned:
                    raise _Unknown
                position = self.params[expr.ref]
                return {"like": position, "dtype": {"of": position}}
            return self.tensor(self._follow(expr), depth + 1)
        if not isinstance(expr, ir.Call):
            raise _Unknown
        callee = expr.callee.rsplit("::", 1)[-1]
        if expr.receiver is not None and callee in _SHAPE_KEEPING and not expr.args:
            return self.tensor(expr.receiver, depth + 1)
        qualified = expr.receiver is None and expr.text.lstrip().startswith(("torch::", "at::"))
        if qualified and (callee in _EMPTY_LIKE or callee in _EMPTY) and self.allocation is None:
            self.allocation = expr.span
        if qualified and callee in _EMPTY_LIKE and expr.args:
            like = self.tensor(expr.args[0], depth + 1)
            dtype = self._dtype(expr.args[2 if callee == "full_like" else 1:], like["dtype"])
            return dict(like, dtype=dtype)
        if qualified and callee in _EMPTY and expr.args:
            sizes = self.sizes(expr.args[0], depth + 1)
            options = expr.args[2:] if callee == "full" else expr.args[1:]
            return dict(sizes, dtype=self._dtype(options, "float32"))
        raise _Unknown

    def sizes(self, expr: ir.Expr, depth: int) -> dict:
        expr = self._follow(expr)
        if isinstance(expr, ir.InitList):
            return {"sizes": [self.value(e, depth + 1) for e in expr.elements]}
        if isinstance(expr, ir.Call) and expr.callee == "sizes" and not expr.args and expr.receiver is not None:
            like = self.tensor(expr.receiver, depth + 1)
            return {"like": like["like"]} if "like" in like else {"sizes": like["sizes"]}
        raise _Unknown

    def value(self, expr: ir.Expr, depth: int) -> dict:
        if depth > MAX_DEPTH:
            raise _Unknown
        expr = strip(expr)
        while isinstance(expr, ir.Cast):
            expr = strip(expr.operand)
        if isinstance(expr, ir.Const) and isinstance(expr.value, int) and not isinstance(expr.value, bool):
            return {"int": expr.value}
        if isinstance(expr, ir.Name):
            if expr.constant is not None and isinstance(expr.constant, int):
                return {"int": expr.constant}
            if expr.ref in self.params:
                if expr.ref in self.reassigned:
                    raise _Unknown
                return {"arg": self.params[expr.ref]}
            return self.value(self._follow(expr), depth + 1)
        if isinstance(expr, ir.Binary) and expr.op in _ARITHMETIC:
            return {"op": expr.op, "args": [self.value(expr.lhs, depth + 1), self.value(expr.rhs, depth + 1)]}
        if isinstance(expr, ir.Index):
            base = self._follow(expr.base) if not (isinstance(strip(expr.base), ir.Name)
                                                   and strip(expr.base).ref in self.params) else strip(expr.base)
            index = self.value(expr.index, depth + 1)
            if isinstance(base, ir.Name) and base.ref in self.params:
                return {"item": [self.params[base.ref], index]}
            if isinstance(base, ir.Call) and base.callee == "sizes" and base.receiver is not None:
                return {"size": [self._tensor_param(base.receiver, depth), index]}
            raise _Unknown
        if isinstance(expr, ir.Call) and expr.receiver is not None:
            if expr.callee == "size" and len(expr.args) == 1:
                return {"size": [self._tensor_param(expr.receiver, depth), self.value(expr.args[0], depth + 1)]}
            if expr.callee in ("numel", "dim") and not expr.args:
                return {expr.callee: self._tensor_param(expr.receiver, depth)}
        raise _Unknown

    def _tensor_param(self, expr: ir.Expr, depth: int) -> int:
        """The parameter whose sizes a tensor expression has (`x`, `x.contiguous()`, `auto y = x`)."""
        like = self.tensor(expr, depth + 1)
        if "like" not in like:
            raise _Unknown
        return like["like"]

    def _dtype(self, options: list[ir.Expr], default):
        """The dtype tensor options give (`x.options()`, `torch::kHalf`, `.dtype(torch::kFloat)`)."""
        if not options:
            return default
        found = default
        for node in options[0].walk():
            if isinstance(node, ir.Name) and node.name in _DTYPES:
                found = _DTYPES[node.name]
            elif isinstance(node, ir.Call) and node.callee in ("options", "dtype", "scalar_type") \
                    and node.receiver is not None and "Tensor" in (node.receiver.type or ""):
                try:
                    found = {"of": self._tensor_param(node.receiver, 0)}
                except _Unknown:
                    found = None
            elif isinstance(node, ir.Name) and "ScalarType" in (node.type or "") and node.name not in _DTYPES:
                return None  # chosen at run time
        return found


__all__ = ["conversion_class", "extension_model", "return_kind"]
