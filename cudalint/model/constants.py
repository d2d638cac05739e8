"""Constant evaluation of IR expressions, with the values of a function's single-assignment locals."""

from __future__ import annotations

import operator
from collections.abc import Callable

from cudalint.model import ir

_BINARY: dict[str, Callable] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "%": None, "/": None,
    "<<": operator.lshift, ">>": operator.rshift, "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge, "==": operator.eq,
    "!=": operator.ne, "&&": lambda a, b: bool(a) and bool(b), "||": lambda a, b: bool(a) or bool(b),
}

Dim3 = tuple[int | None, int | None, int | None]


class ConstantEnv:
    """Knows the value of locals that are initialized once and never written again in `function`."""

    def __init__(self, function: ir.Function | None = None, outer: ConstantEnv | None = None) -> None:
        self.definitions: dict[str, ir.Expr] = {}
        self.outer = outer
        if function is not None and function.body is not None:
            self._collect(function.of_type(ir.VarDecl, ir.Binary, ir.Unary))

    def _collect(self, nodes: tuple[ir.Node, ...]) -> None:
        written: set[str] = set()
        declared: dict[str, ir.VarDecl] = {}
        duplicate: set[str] = set()
        for node in nodes:
            if isinstance(node, ir.VarDecl) and node.ref:
                if node.ref in declared:
                    duplicate.add(node.ref)
                declared[node.ref] = node
            elif isinstance(node, ir.Binary) and node.is_assignment:
                target = _root_name(node.lhs)
                if target is not None and target.ref:
                    written.add(target.ref)
            elif isinstance(node, ir.Unary) and node.op in ("++", "--", "post++", "post--", "&"):
                target = _root_name(node.operand)
                if target is not None and target.ref:
                    written.add(target.ref)
        for ref, decl in declared.items():
            if ref in written or ref in duplicate or decl.init is None or decl.dims:
                continue
            self.definitions[ref] = decl.init

    def definition(self, ref: str | None) -> ir.Expr | None:
        if ref is None:
            return None
        found = self.definitions.get(ref)
        if found is None and self.outer is not None:
            return self.outer.definition(ref)
        return found

    def value(self, expr: ir.Expr | None, depth: int = 0) -> int | float | None:
        """The value of `expr` when it is a compile-time or single-assignment constant."""
        if expr is None or depth > 30:
            return None
        if isinstance(expr, ir.Const):
            value = expr.value
            return int(value) if isinstance(value, bool) else value
        if isinstance(expr, ir.Name):
            if expr.constant is not None:
                return expr.constant
            definition = self.definition(expr.ref)
            return self.value(definition, depth + 1) if definition is not None else None
        if isinstance(expr, ir.Cast):
            value = self.value(expr.operand, depth + 1)
            if value is not None and is_integer_type(expr.type):
                return int(value)
            return value
        if isinstance(expr, ir.Unary):
            value = self.value(expr.operand, depth + 1)
            if value is None:
                return None
            return {"-": lambda v: -v, "+": lambda v: v, "!": lambda v: int(not v),
                    "~": lambda v: ~v if isinstance(v, int) else None}.get(expr.op, lambda v: None)(value)
        if isinstance(expr, ir.Binary) and expr.op in _BINARY:
            left = self.value(expr.lhs, depth + 1)
            right = self.value(expr.rhs, depth + 1)
            if left is None or right is None:
                return None
            if expr.op in ("/", "%"):
                if right == 0:
                    return None
                if isinstance(left, int) and isinstance(right, int):
                    quotient = abs(left) // abs(right) * (1 if (left >= 0) == (right >= 0) else -1)
                    return quotient if expr.op == "/" else left - quotient * right
                return left / right if expr.op == "/" else None
            result = _BINARY[expr.op](left, right)
            return int(result) if isinstance(result, bool) else result
        if isinstance(expr, ir.Conditional):
            cond = self.value(expr.cond, depth + 1)
            if cond is None:
                return None
            return self.value(expr.then if cond else expr.otherwise, depth + 1)
        if isinstance(expr, ir.Member) and expr.field in ("x", "y", "z") and isinstance(expr.base, ir.Name) \
                and "dim3" in expr.base.type:  # `block.x` of a `dim3 block(256)`
            dims = self.dim3(expr.base, depth + 1)
            return dims["xyz".index(expr.field)] if dims is not None else None
        if isinstance(expr, ir.Call) and expr.callee in ("min", "max", "std::min", "std::max") and len(expr.args) == 2:
            values = [self.value(a, depth + 1) for a in expr.args]
            if None in values:
                return None
            return min(values) if expr.callee.endswith("min") else max(values)
        if isinstance(expr, ir.Call) and expr.callee == "__builtin_expect" and len(expr.args) == 2:
            return self.value(expr.args[0], depth + 1)  # a branch hint (C10_UNLIKELY): its first argument
        return None

    def dim3(self, expr: ir.Expr | None, depth: int = 0) -> Dim3 | None:
        """The (x, y, z) of a launch dimension: an integer, a `dim3(...)`, or a dim3 variable."""
        if expr is None or depth > 30:
            return None
        if isinstance(expr, ir.Construct) and "dim3" in expr.type:
            if len(expr.args) == 1 and "dim3" in expr.args[0].type:
                return self.dim3(expr.args[0], depth + 1)
            values = [self.value(a) for a in expr.args[:3]]
            values += [1] * (3 - len(values))
            return values[0], values[1], values[2]
        if isinstance(expr, ir.InitList):
            values = [self.value(a) for a in expr.elements[:3]]
            values += [1] * (3 - len(values))
            return values[0], values[1], values[2]
        if isinstance(expr, ir.Name) and "dim3" in expr.type:
            definition = self.definition(expr.ref)
            return self.dim3(definition, depth + 1) if definition is not None else (None, None, None)
        if isinstance(expr, ir.Cast):
            return self.dim3(expr.operand, depth + 1)
        value = self.value(expr)
        if isinstance(value, float):
            value = int(value)
        return value, 1, 1

    def resolve(self, expr: ir.Expr, depth: int = 0) -> ir.Expr:
        """Follow single-assignment locals to the expression that defines them."""
        while isinstance(expr, ir.Name) and depth < 30:
            definition = self.definition(expr.ref)
            if definition is None:
                break
            expr, depth = definition, depth + 1
        return expr


def _root_name(expr: ir.Expr) -> ir.Name | None:
    while True:
        if isinstance(expr, ir.Name):
            return expr
        if isinstance(expr, ir.Member) and expr.base is not None:
            expr = expr.base
        elif isinstance(expr, ir.Cast):
            expr = expr.operand
        else:
            return None


def is_integer_type(type_: str) -> bool:
    """Whether clang's spelling of a type names an integer type (not a pointer, not floating point)."""
    if not type_ or "float" in type_ or "double" in type_ or "half" in type_ or "*" in type_:
        return False
    return any(word in type_ for word in ("int", "long", "short", "size_t", "char", "unsigned", "bool"))


# sizes in bytes of the element types kernels put in shared memory, by clang's spelling without qualifiers
_TYPE_SIZES = {
    **dict.fromkeys(("char", "signed char", "unsigned char", "int8_t", "uint8_t", "bool"), 1),
    **dict.fromkeys(("short", "unsigned short", "int16_t", "uint16_t", "half", "__half", "__nv_bfloat16",
                     "nv_bfloat16", "c10::Half", "at::Half", "c10::BFloat16", "at::BFloat16"), 2),
    **dict.fromkeys(("int", "unsigned int", "unsigned", "int32_t", "uint32_t", "float", "half2", "__half2",
                     "__nv_bfloat162"), 4),
    **dict.fromkeys(("long long", "unsigned long long", "int64_t", "uint64_t", "long", "unsigned long", "size_t",
                     "double", "float2", "int2", "uint2"), 8),
    **dict.fromkeys(("float3", "int3", "uint3"), 12),
    **dict.fromkeys(("float4", "int4", "uint4", "double2"), 16),
}


def bare_type(type_: str) -> str:
    """A C type without qualifiers, references and spacing differences (`const float &` is `float`)."""
    return " ".join(w for w in type_.replace("&", " ").replace("*", " * ").split()
                    if w not in ("const", "volatile", "__restrict__"))


def type_size(type_: str) -> int | None:
    """The size in bytes of a scalar or CUDA vector type (`const float`, `__half`); None for any other type
    (a template parameter, a struct, a pointer)."""
    if "*" in type_ or "[" in type_:
        return None
    return _TYPE_SIZES.get(bare_type(type_))
