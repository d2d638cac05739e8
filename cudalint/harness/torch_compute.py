"""Torch compute: which names of a forward-path function hold tensors and which hold compiled-code results,
and which expressions compute with PyTorch (`torch.relu(x)`, `x @ w`, `self.conv(x)`), as opposed to torch
used to allocate (`torch.empty_like`), reshape (`x.view`) or set up weights. `ForwardFlow.typing` (in
`harness.forward`) makes a `Typing` per function of the forward path.
"""

from __future__ import annotations

import ast
import re
import weakref
from functools import cached_property
from typing import TYPE_CHECKING

from cudalint import pyast
from cudalint.harness.kernelbench import callee_name
from cudalint.harness.statements import _names_in_target, _own_nodes, _targets_and_value

if TYPE_CHECKING:
    from cudalint.harness.forward import ForwardFlow, FunctionInfo

# torch functions that allocate, reshape, move or describe tensors rather than compute on them
_NONCOMPUTE_TORCH = {
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like",
    "rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm", "arange", "linspace",
    "logspace", "eye", "tensor", "as_tensor", "from_numpy", "as_strided", "cat", "concat", "concatenate",
    "stack", "hstack", "vstack", "split", "chunk", "tensor_split", "reshape", "flatten", "unflatten",
    "squeeze", "unsqueeze", "permute", "transpose", "swapaxes", "movedim", "t", "narrow", "select",
    "broadcast_to", "broadcast_tensors", "unbind", "view_as_real", "view_as_complex", "numel", "is_tensor",
    "is_floating_point", "manual_seed", "seed", "no_grad", "inference_mode", "enable_grad",
    "set_grad_enabled", "device", "Size", "finfo", "iinfo", "get_default_dtype", "set_default_dtype",
    "result_type", "promote_types", "can_cast", "is_grad_enabled", "Generator", "Tensor", "clone",
    "contiguous", "empty_like", "dtype", "set_printoptions", "compile", "use_deterministic_algorithms",
}
# torch sub-namespaces that never compute on the problem's tensors
_NONCOMPUTE_NAMESPACES = ("torch.cuda", "torch.backends", "torch.utils", "torch.nn.init", "torch.jit",
                          "torch.autograd", "torch.testing", "torch.distributed", "torch.library",
                          "torch.ops", "torch._", "torch.nn.parameter", "torch.random", "torch.amp",
                          "torch.cpu", "torch.compiler", "torch.fx")
# torch.nn classes that hold no computation, or are containers
_NONCOMPUTE_MODULES = {"Parameter", "Identity", "Flatten", "Unflatten", "ModuleList", "ModuleDict",
                       "ParameterList", "ParameterDict", "Buffer"}
# tensor methods that do not compute the operation
_NONCOMPUTE_METHODS = {
    "view", "reshape", "contiguous", "flatten", "unflatten", "squeeze", "unsqueeze", "permute", "transpose",
    "t", "expand", "expand_as", "view_as", "reshape_as", "to", "cuda", "cpu", "float", "double", "half",
    "bfloat16", "int", "long", "bool", "short", "byte", "char", "type", "type_as", "size", "numel", "dim",
    "item", "tolist", "stride", "data_ptr", "element_size", "is_contiguous", "clone", "detach", "detach_",
    "requires_grad_", "zero_", "fill_", "copy_", "narrow", "select", "split", "chunk", "unbind", "as_strided",
    "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor", "numpy", "get_device", "storage_offset",
    "nelement", "ndimension", "pin_memory", "record_stream", "repeat", "tile", "movedim", "swapaxes",
    "is_floating_point", "untyped_storage", "storage", "register_hook", "retain_grad", "share_memory_",
    "nbytes", "itemsize", "is_set_to", "__len__", "__getitem__", "format", "join", "append", "extend",
    "get", "items", "keys", "values", "update", "pop", "insert", "index", "count", "startswith", "endswith",
    "replace", "strip", "lower", "upper", "setdefault", "copy", "sort_keys", "encode", "decode",
}
# attributes of a tensor that are tensors themselves
_TENSOR_ATTRIBUTES = {"T", "mT", "H", "mH", "data", "real", "imag", "grad"}
_ALLOCATORS = {"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full",
               "full_like", "new_empty", "new_zeros", "new_ones", "new_full", "empty_cache_like"}
_BINARY_OPERATIONS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.MatMult: "matmul",
                      ast.Pow: "pow", ast.FloorDiv: "floordivide"}
# torch.nn containers: what they compute is what their members are
_CONTAINER_MODULES = {"Sequential", "ModuleList", "ModuleDict"}
_SCALAR_ANNOTATIONS = {"int", "float", "bool", "str", "tuple", "list", "dict", "Tuple", "List", "Dict",
                       "Optional", "Sequence"}


class Typing:
    """Which names of one function hold tensors, which hold compiled-code results, and which
    expressions compute with torch."""

    def __init__(self, flow: ForwardFlow, info: FunctionInfo) -> None:
        # weakly: the flow caches its typings, and the cycle would keep the module's AST for the cycle collector
        self.flow = weakref.proxy(flow)
        self.info = info
        self.imports = flow.imports
        self.tensors: set[str] = set()
        self.tainted: set[str] = set()  # names holding (or written by) compiled-code results
        node = info.node
        arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        for arg in arguments:
            if arg.arg == info.self_name:
                continue
            annotation = arg.annotation
            if annotation is not None:
                text = ast.unparse(annotation)
                if text.split("[")[0].split(".")[-1] in _SCALAR_ANNOTATIONS:
                    continue
            self.tensors.add(arg.arg)
        if node.args.vararg:
            self.tensors.add(node.args.vararg.arg)
        self._infer()

    def _infer(self) -> None:
        statements = [s for s in _own_nodes(self.info.node) if isinstance(s, (ast.Assign, ast.AugAssign,
                                                                              ast.AnnAssign, ast.For, ast.With))]
        calls = [c for c in _own_nodes(self.info.node) if isinstance(c, ast.Call)]
        for _ in range(6):
            before = (len(self.tensors), len(self.tainted))
            for statement in statements:
                targets, value = _targets_and_value(statement)
                if value is None:
                    continue
                tensor = self.is_tensor(value)
                tainted = self.is_tainted(value)
                for target in targets:
                    for name in _names_in_target(target):
                        if tensor:
                            self.tensors.add(name)
                        if tainted:
                            self.tainted.add(name)
            for call in calls:  # compiled code may write the buffers it is given in place
                if self.flow.is_invocation(call) or call in self._invoking_helpers():
                    self.tainted.update(self.output_buffers(call))
            if (len(self.tensors), len(self.tainted)) == before:
                break

    @cached_property
    def allocated(self) -> set[str]:
        """Names assigned a fresh buffer (`torch.empty_like(x)`, `x.new_zeros(...)`) in this function."""
        found: set[str] = set()
        for statement in _own_nodes(self.info.node):
            if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call):
                name = callee_name(statement.value) or ""
                if name in _ALLOCATORS:
                    for target in statement.targets:
                        found.update(_names_in_target(target))
        return found

    def output_buffers(self, call: ast.Call) -> set[str]:
        """The allocated buffers passed to a kernel call: it may write them in place."""
        return {sub.id for arg in list(call.args) + [k.value for k in call.keywords] for sub in pyast.walk(arg)
                if isinstance(sub, ast.Name) and sub.id in self.allocated}

    def _invoking_helpers(self) -> list[ast.Call]:
        if not hasattr(self, "_helpers"):
            self._helpers = self.flow.invoking_calls(self.info.node, self.info)
        return self._helpers

    def is_tainted(self, expr: ast.expr) -> bool:
        for sub in pyast.walk(expr):
            if isinstance(sub, ast.Name) and sub.id in self.tainted:
                return True
            if isinstance(sub, ast.Call) and self.runs_kernel(sub):
                return True
        return False

    def runs_kernel(self, call: ast.Call) -> bool:
        """The call runs compiled code, or might (a callee cudalint cannot follow)."""
        return self.flow.is_invocation(call) or call in self._invoking_helpers() \
            or call in self.flow.unresolved_calls()

    def is_tensor(self, expr: ast.expr | None) -> bool:
        if expr is None:
            return False
        if isinstance(expr, ast.Name):
            return expr.id in self.tensors or expr.id in self.tainted
        if isinstance(expr, ast.Attribute):
            if isinstance(expr.value, ast.Name) and expr.value.id == self.info.self_name:
                return expr.attr in self.flow.attr_tensors
            if expr.attr in ("weight", "bias") and isinstance(expr.value, ast.Attribute) \
                    and expr.value.attr in self.flow.attr_torch_modules:
                return True
            return expr.attr in _TENSOR_ATTRIBUTES and self.is_tensor(expr.value)
        if isinstance(expr, ast.Subscript):
            return self.is_tensor(expr.value)
        if isinstance(expr, ast.BinOp):
            return self.is_tensor(expr.left) or self.is_tensor(expr.right)
        if isinstance(expr, ast.UnaryOp):
            return self.is_tensor(expr.operand)
        if isinstance(expr, ast.IfExp):
            return self.is_tensor(expr.body) or self.is_tensor(expr.orelse)
        if isinstance(expr, ast.Call):
            if self.flow.is_invocation(expr):
                return True
            qualified = self.imports.qualify(expr.func) or ""
            if qualified.startswith("torch.") and not qualified.startswith(_NONCOMPUTE_NAMESPACES):
                last = qualified.rsplit(".", 1)[-1]
                return last not in ("numel", "is_tensor", "is_floating_point", "get_default_dtype", "device",
                                    "Size", "finfo", "iinfo", "no_grad", "inference_mode", "dtype")
            if isinstance(expr.func, ast.Attribute):
                method = expr.func.attr
                if method in ("size", "numel", "dim", "item", "tolist", "stride", "data_ptr", "element_size",
                              "is_contiguous", "nelement", "ndimension", "get_device", "storage_offset"):
                    return False
                if self.is_tensor(expr.func.value):
                    return True
                if self._is_torch_module(expr.func):
                    return True
        return False

    def _is_torch_module(self, func: ast.expr) -> bool:
        return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id == self.info.self_name and func.attr in self.flow.attr_torch_modules

    def compute_nodes(self, expr: ast.AST) -> list[ast.AST]:
        """The sub-expressions of `expr` that compute with PyTorch."""
        found: list[ast.AST] = []
        for sub in pyast.walk(expr):
            if isinstance(sub, (ast.Lambda, ast.FunctionDef)):
                continue
            if isinstance(sub, ast.BinOp) and not isinstance(sub.op, ast.Mod) and (
                    self.is_tensor(sub.left) or self.is_tensor(sub.right)):
                found.append(sub)
            elif isinstance(sub, ast.UnaryOp) and isinstance(sub.op, (ast.USub, ast.Invert)) and self.is_tensor(sub.operand):
                found.append(sub)
            elif isinstance(sub, ast.Compare) and any(self.is_tensor(x) for x in [sub.left, *sub.comparators]) \
                    and not any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in sub.ops):
                found.append(sub)
            elif isinstance(sub, ast.Call) and self._is_compute_call(sub):
                found.append(sub)
        return found

    def _is_compute_call(self, call: ast.Call) -> bool:
        if self.flow.is_invocation(call) or call in self._invoking_helpers():
            return False
        qualified = self.imports.qualify(call.func) or ""
        if qualified.startswith("torch."):
            if qualified.startswith(_NONCOMPUTE_NAMESPACES):
                return False
            last = qualified.rsplit(".", 1)[-1]
            if qualified.startswith("torch.nn.") and not qualified.startswith("torch.nn.functional."):
                return False  # constructing a layer, not running it
            return last not in _NONCOMPUTE_TORCH and last != "pad"
        if self._is_torch_module(call.func):
            return True
        if isinstance(call.func, ast.Attribute):
            if call.func.attr in _NONCOMPUTE_METHODS or call.func.attr.startswith("__"):
                return False
            return self.is_tensor(call.func.value)
        return False

    def is_compute(self, expr: ast.AST) -> bool:
        return bool(self.compute_nodes(expr))

    def operation(self, node: ast.AST) -> str:
        """The name of the torch operation a compute node runs, the same for its spellings:
        `self.conv(x)` (an nn.Conv2d), `F.conv2d(x, w)` -> `conv`; `x @ w`, `torch.matmul` -> `matmul`."""
        if isinstance(node, ast.BinOp):
            name = _BINARY_OPERATIONS.get(type(node.op), type(node.op).__name__)
        elif isinstance(node, (ast.UnaryOp, ast.Compare)):
            name = type(node.op if isinstance(node, ast.UnaryOp) else node.ops[0]).__name__
        elif isinstance(node, ast.Call) and self._is_torch_module(node.func):
            name = self.flow.attr_torch_modules[node.func.attr]
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)):
            name = (self.imports.qualify(node.func) or "").rsplit(".", 1)[-1]
        else:
            name = ast.unparse(node)
        return re.sub(r"[123]d$", "", name.lower().replace("_", ""))
