"""The shape and dtype of what a model's forward returns at the reference problem's inputs, read
statically (nothing is run).

The reference's `Model(*get_init_inputs())` and the solution's `ModelNew(*get_init_inputs())` are built
by the constructor interpreter of `harness.init_order` (layers with their weights' shapes, attributes
computed from the init arguments); their `forward` then runs on the tensors `get_inputs()` makes, each
a shape and a dtype. Torch calls follow the shape rules of `harness.torch_shapes`; `nn` layers map to
their functional form; in-file helpers, submodules and `nn.Sequential` are followed. A call of a
compiled function (`ext.fn(x, self.weight)`) evaluates the C++ function it binds: its parameters take
the arguments' shapes and values, its statements run on them (`shapes.HostRun`: branches on known
values, loops over the dimensions, reassigned locals), and what each return it reaches gives is followed
back to the allocation (`torch::empty({N, C, H, W}, x.options())`, `torch::zeros_like(x)`), to an ATen
call (`torch::conv2d(...)`, `x.view({...})`) or to tensor operators. The arguments of each such call
are kept (`SolutionReading.calls`): the launch rules evaluate the C++ at them (`harness.shapes`).

Anything not known exactly (a branch on an unknown value, a call that cannot be followed, a local
written twice in C++) makes the values it touches unknown; a result is reported only when its shape
is known. Each tensor remembers where its shape was made (`Origin`): the Python call, or the C++
allocation, so that a finding can point at the line that creates the output.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from cudalint.harness import init_order
from cudalint.harness.init_order import _Interpreter
from cudalint.harness.init_values import (
    UNKNOWN, _Container, _Dotted, _FileClass, _Object, _plain, _size_args, _Stop, _Tensor,
)
from cudalint.harness.kernelbench import ImportMap, read_python
from cudalint.harness.host_run import HostRun, ShapeEnv, TensorArgument, written_refs
from cudalint.harness.torch_shapes import DType, TensorType, ValuesIndices, apply_op, known_op
from cudalint.model import ir

_MAX_CPP_DEPTH = 4  # C++ helper calls followed below a bound function
# in-place methods that change a tensor's shape in ways the table does not follow
_RESHAPING_IN_PLACE = {"resize_", "resize_as_", "set_", "as_strided_"}
# container and module methods that store into their receiver
_STORING_METHODS = {"append", "extend", "insert", "update", "setdefault", "pop", "clear", "add_module",
                    "register_buffer", "register_parameter", "register_module"}
_TORCH_DTYPES = {"float32": "float32", "float": "float32", "float16": "float16", "half": "float16",
                 "bfloat16": "bfloat16", "float64": "float64", "double": "float64", "int64": "int64",
                 "long": "int64", "int32": "int32", "int": "int32", "int16": "int16", "int8": "int8",
                 "uint8": "uint8", "bool": "bool"}
_CPP_DTYPES = {"kFloat": "float32", "kFloat32": "float32", "kHalf": "float16", "kFloat16": "float16",
               "kBFloat16": "bfloat16", "kDouble": "float64", "kFloat64": "float64", "kLong": "int64",
               "kInt64": "int64", "kInt": "int32", "kInt32": "int32", "kBool": "bool", "kByte": "uint8",
               "kUInt8": "uint8", "kChar": "int8", "kInt8": "int8", "kShort": "int16", "kInt16": "int16"}
_CPP_FACTORIES = {"empty", "zeros", "ones", "full", "rand", "randn"}
_CPP_LIKE_FACTORIES = {"empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like"}
_CPP_NEW_FACTORIES = {"new_empty", "new_zeros", "new_ones", "new_full"}
_CPP_ARITHMETIC = {"+": "add", "-": "sub", "*": "mul", "/": "div"}  # tensor operators: broadcasting

# nn layers and the functional operation they run: (operation, the layer's constructor parameters,
# defaults that differ from the operation's)
_LAYER_OPERATIONS: dict[str, tuple[str, tuple[str, ...], dict]] = {}
for _n in (1, 2, 3):
    _LAYER_OPERATIONS[f"MaxPool{_n}d"] = (f"max_pool{_n}d", ("kernel_size", "stride", "padding", "dilation",
                                                             "return_indices", "ceil_mode"), {})
    _LAYER_OPERATIONS[f"AvgPool{_n}d"] = (f"avg_pool{_n}d", ("kernel_size", "stride", "padding", "ceil_mode",
                                                             "count_include_pad", "divisor_override"), {})
    _LAYER_OPERATIONS[f"AdaptiveAvgPool{_n}d"] = (f"adaptive_avg_pool{_n}d", ("output_size",), {})
    _LAYER_OPERATIONS[f"AdaptiveMaxPool{_n}d"] = (f"adaptive_max_pool{_n}d", ("output_size", "return_indices"), {})
_LAYER_OPERATIONS.update({
    "Softmax": ("softmax", ("dim",), {}), "LogSoftmax": ("log_softmax", ("dim",), {}),
    "Softmin": ("softmin", ("dim",), {}),
    "Flatten": ("flatten", ("start_dim", "end_dim"), {"start_dim": 1}),
    "Unflatten": ("unflatten", ("dim", "sizes"), {}),
    "Upsample": ("interpolate", ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor"), {}),
    "PixelShuffle": ("pixel_shuffle", ("upscale_factor",), {}), "GLU": ("glu", ("dim",), {}),
})
# layers whose output has the shape of their input
_SHAPE_KEEPING_LAYERS = {
    "ReLU", "ReLU6", "GELU", "SiLU", "Mish", "Tanh", "Sigmoid", "Hardtanh", "Hardswish", "Hardsigmoid",
    "LeakyReLU", "ELU", "SELU", "CELU", "Softplus", "Softsign", "Softshrink", "Hardshrink", "Tanhshrink",
    "Threshold", "LogSigmoid", "PReLU", "Identity", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
    "AlphaDropout", "FeatureAlphaDropout", "Softmax2d", "LocalResponseNorm", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d",
}
# norm layers: the input dimension their first constructor argument must match
_CHANNEL_NORMS = {"BatchNorm1d": 1, "BatchNorm2d": 1, "BatchNorm3d": 1, "SyncBatchNorm": 1}


@dataclass(frozen=True)
class Origin:
    """Where a tensor's shape was made: a Python node of the linted file, or a C++ span of a unit."""

    node: ast.AST | None = None
    unit: object = None  # the CudaUnit of `span`
    span: ir.Span | None = None


class _Shaped(_Tensor):
    __slots__ = ("origin",)

    def __init__(self, shape, dtype, origin: Origin | None = None) -> None:
        super().__init__(shape, [], dtype, "cuda")
        self.origin = origin


@dataclass(frozen=True)
class _Extension:
    """The module `load_inline` returns."""


@dataclass(frozen=True)
class _Bound:
    """A function of a compiled extension: `ext.fn`."""

    name: str


@dataclass(frozen=True)
class _AutogradApply:
    """`Fn.apply` of an in-file `torch.autograd.Function`: a call runs `Fn.forward(ctx, *args)`."""

    forward: ast.FunctionDef


# the `ctx` an autograd Function's forward gets: what it is asked (`ctx.save_for_backward`) is not known
_AUTOGRAD_CTX = _Dotted("torch.autograd.function.FunctionCtx")
_AUTOGRAD_FUNCTIONS = {"torch.autograd.Function", "torch.autograd.function.Function"}


@dataclass(frozen=True)
class Output:
    shape: tuple[int, ...]
    dtype: str | None
    origin: Origin | None


def _as_shaped(result: object, inputs: list, origin: Origin) -> object:
    """A torch_shapes result as interpreter values: a shape kept from the first tensor input keeps its
    origin (an activation after the allocation); a new shape is made at `origin`."""
    if isinstance(result, ValuesIndices):
        return ValuesIndices(tuple(_as_shaped(r, inputs, origin) for r in result))
    if isinstance(result, tuple):
        return tuple(_as_shaped(r, inputs, origin) for r in result)
    if not isinstance(result, TensorType):
        return _Shaped(None, None, origin)
    first = next((i for i in inputs if isinstance(i, _Tensor)), None)
    if isinstance(first, _Shaped) and first.shape == result.shape and first.origin is not None:
        return _Shaped(result.shape, result.dtype, first.origin)
    return _Shaped(result.shape, result.dtype, origin)


def _dtype_value(value: object) -> object:
    """Interpreter values as torch_shapes takes them: torch dtypes become `DType`s."""
    if isinstance(value, _Dotted) and value.name.startswith("torch.") and value.name[6:] in _TORCH_DTYPES:
        return DType(_TORCH_DTYPES[value.name[6:]])
    if isinstance(value, list):
        return [_dtype_value(v) for v in value]
    if isinstance(value, tuple) and not isinstance(value, ValuesIndices):
        return tuple(_dtype_value(v) for v in value)
    return value


class ShapeInterpreter(_Interpreter):
    """The constructor interpreter, extended to run forward on shapes (see the module docstring).
    `call_extension(name, args)` gives the result of a compiled function; None: not known."""

    def __init__(self, module: ast.Module, imports: ImportMap | None = None, call_extension=None) -> None:
        super().__init__(module, imports)
        self.call_extension = call_extension
        self.node: ast.AST | None = None  # the expression being evaluated: where new shapes are made
        self._last_bindings()

    def _last_bindings(self) -> None:
        """Module-level sizes bound more than once (`height = width = 128` then `height, width = 32, 32`)
        or by tuple assignment: functions called after the import see the last binding, which is known
        when every binding is a plain assignment and no module-level code reads the name in between."""
        last: dict[str, ast.expr | None] = {}
        for statement in self.module.body:
            if not isinstance(statement, ast.Assign):
                continue
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    last[target.id] = statement.value
                elif isinstance(target, ast.Tuple) and isinstance(statement.value, ast.Tuple) \
                        and len(target.elts) == len(statement.value.elts):
                    for element, value in zip(target.elts, statement.value.elts):
                        if isinstance(element, ast.Name):
                            last[element.id] = value
        read_at_module_level = {n.id for s in self.module.body if not isinstance(s, (ast.FunctionDef, ast.ClassDef))
                                for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        other_bindings = {n.id for s in self.module.body if not isinstance(s, ast.Assign)
                          for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for name, value in last.items():
            if self.global_nodes.get(name, value) is None and name not in read_at_module_level \
                    and name not in other_bindings:
                self.global_nodes[name] = value

    # ------------------------------------------------------------------- statements not followed

    def run_body(self, body: list[ast.stmt], env: dict) -> tuple[bool, object]:
        for statement in body:
            self.tick()
            try:
                done, value = self.run(statement, env)
            except _Stop:
                if any(isinstance(n, ast.Return) for n in ast.walk(statement)) or self.steps > init_order._MAX_STEPS:
                    raise  # what the function returns is not known
                self._forget(statement, env)
                continue
            if done:
                return done, value
        return False, None

    def _forget(self, statement: ast.AST, env: dict) -> None:
        """Make what a statement that could not be followed may have written unknown."""
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                env[node.id] = UNKNOWN
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                self._forget_attribute(node, env)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                    node.func.attr in _STORING_METHODS or node.func.attr.endswith("_")):
                receiver = node.func.value
                if isinstance(receiver, ast.Name) and receiver.id in env and not isinstance(env[receiver.id], _Object):
                    env[receiver.id] = UNKNOWN
                elif isinstance(receiver, ast.Attribute):
                    self._forget_attribute(receiver, env)

    def _forget_attribute(self, node: ast.Attribute, env: dict) -> None:
        owner = env.get(node.value.id) if isinstance(node.value, ast.Name) else None
        if isinstance(owner, _Object):
            owner.attrs[node.attr] = UNKNOWN

    def invoke(self, function: ast.FunctionDef, args: list, kwargs: dict) -> object:
        try:
            return super().invoke(function, args, kwargs)
        except _Stop:
            if args and isinstance(args[0], _Object):  # a method stopped half-way: its self is not known
                for node in ast.walk(function):
                    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                            and isinstance(node.value, ast.Name) and node.value.id == function.args.args[0].arg:
                        args[0].attrs[node.attr] = UNKNOWN
            raise

    # ---------------------------------------------------------------------------------- values

    def assign(self, target: ast.expr, value: object, env: dict) -> None:
        if isinstance(target, ast.Attribute) and target.attr == "data":
            owner = self.eval(target.value, env)
            if isinstance(owner, _Tensor):  # `x.data = y` gives x y's shape
                owner.shape = value.shape if isinstance(value, _Tensor) else None
                return
        super().assign(target, value, env)

    def truth(self, value: object) -> bool:
        if isinstance(value, _Shaped):
            raise _Stop("truth of a tensor")
        return super().truth(value)

    def call(self, node: ast.Call, env: dict) -> object:
        qualified = self.imports.qualify(node.func) or ""
        if qualified.rsplit(".", 1)[-1] == "load_inline":
            return _Extension()
        return super().call(node, env)

    def attribute(self, value: object, name: str) -> object:
        if isinstance(value, _Extension):
            return _Bound(name)
        if isinstance(value, _FileClass) and name == "apply" \
                and any(self.imports.qualify(base) in _AUTOGRAD_FUNCTIONS for base in value.node.bases):
            forward = self.method(value.node, "forward")
            return _AutogradApply(forward) if forward is not None else UNKNOWN
        if isinstance(value, ValuesIndices) and name in ("values", "indices"):
            return value[0 if name == "values" else 1]
        if isinstance(value, _Object) and name == "training" and "training" not in value.attrs:
            return True  # the harness never calls .eval()
        if isinstance(value, _Tensor):
            if name == "dtype":
                return DType(value.dtype) if value.dtype else UNKNOWN
            if name == "device":
                return "cuda"
            if name == "is_cuda":
                return True
            if name == "ndim":
                return len(value.shape) if value.shape is not None else UNKNOWN
            if name in ("T", "mT"):
                return self.tensor_op("permute" if name == "T" else "transpose",
                                      [value, *(range(len(value.shape) - 1, -1, -1) if name == "T" else (-2, -1))]
                                      if value.shape is not None else [value], {}, None)
        return super().attribute(value, name)

    def binop(self, op: ast.operator, left: object, right: object) -> object:
        if isinstance(left, _Tensor) or isinstance(right, _Tensor):
            name = "matmul" if isinstance(op, ast.MatMult) else "add"
            if isinstance(op, (ast.Div, ast.Pow)) and not isinstance(left, _Tensor):
                name = "div"  # a number over a tensor: int tensors become float
            return self.tensor_op(name, [left, right], {}, None)
        return super().binop(op, left, right)

    def eval(self, node: ast.expr, env: dict) -> object:
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = self.eval(node.left, env), self.eval(node.comparators[0], env)
            if isinstance(left, _Tensor) or isinstance(right, _Tensor):
                return self.tensor_op("eq", [left, right], {}, node)
            return self.compare(node.ops[0], left, right)
        outer, self.node = self.node, node
        try:
            return super().eval(node, env)
        finally:
            self.node = outer

    def subscript(self, value: object, key: object) -> object:
        if isinstance(value, _Shaped):
            return self.index(value, key)
        return super().subscript(value, key)

    def index(self, tensor: _Shaped, key: object) -> _Shaped:
        """Basic indexing: integers, slices, None and `...`; anything else is not known."""
        keys = list(key) if isinstance(key, tuple) else [key]
        shape = tensor.shape
        if shape is None or sum(k is Ellipsis for k in keys) > 1:
            return _Shaped(None, tensor.dtype)
        consumed = sum(1 for k in keys if k is not None and k is not Ellipsis)
        if consumed > len(shape):
            return _Shaped(None, tensor.dtype)
        if Ellipsis in keys:
            at = keys.index(Ellipsis)
            keys[at:at + 1] = [slice(None)] * (len(shape) - consumed)
        keys += [slice(None)] * (len(shape) - sum(1 for k in keys if k is not None))
        out, axis = [], 0
        for k in keys:
            if k is None:
                out.append(1)
                continue
            size = shape[axis]
            axis += 1
            if isinstance(k, int) and not isinstance(k, bool):
                if not -size <= k < size:
                    return _Shaped(None, tensor.dtype)
            elif isinstance(k, slice) and all(p is None or isinstance(p, int) for p in (k.start, k.stop, k.step)) \
                    and (k.step is None or k.step > 0):
                out.append(len(range(*k.indices(size))))
            else:
                return _Shaped(None, tensor.dtype)
        same = tuple(out) == shape
        return _Shaped(tuple(out), tensor.dtype, tensor.origin if same else Origin(self.node))

    # ---------------------------------------------------------------------------------- calls

    def tensor_op(self, name: str, args: list, kwargs: dict, node: ast.AST | None) -> object:
        args, kwargs = _dtype_value(list(args)), {k: _dtype_value(v) for k, v in kwargs.items()}
        result = apply_op(name, args, kwargs)
        return _as_shaped(result, args, Origin(node or self.node))

    def apply(self, func: object, args: list, kwargs: dict, node: ast.Call) -> object:
        if isinstance(func, _AutogradApply):
            return self.invoke(func.forward, [_AUTOGRAD_CTX, *args], kwargs)
        if isinstance(func, _Bound):
            if kwargs or self.call_extension is None:
                return _Shaped(None, None)
            result = self.call_extension(func.name, list(args))
            return result if result is not None else _Shaped(None, None)
        if isinstance(func, _Object):
            return self.run_module(func, args, kwargs, node)
        if isinstance(func, _Container):  # nn.Sequential
            value = args[0] if len(args) == 1 and not kwargs else UNKNOWN
            for item in func.items:
                value = self.apply(item, [value], {}, node)
            return value
        return super().apply(func, args, kwargs, node)

    def run_module(self, module: _Object, args: list, kwargs: dict, node: ast.Call) -> object:
        if module.cls is not None:
            forward = self.method(module.cls, "forward")
            if forward is None:
                raise _Stop("a module without forward")
            return self.invoke(forward, [module] + list(args), kwargs)
        kind = module.kind
        if len(args) != 1 or kwargs or not isinstance(args[0], _Tensor):
            raise _Stop(f"nn.{kind} called with other arguments")
        x = args[0]
        attrs = module.attrs
        if kind in _SHAPE_KEEPING_LAYERS:
            return x
        if kind in _CHANNEL_NORMS or kind in ("GroupNorm", "LayerNorm", "RMSNorm"):
            return self._norm(module, x)
        dims = kind[-2:-1]
        if kind.startswith("Conv") and kind[:-2] in ("Conv", "ConvTranspose") and dims in "123":
            transposed = kind.startswith("ConvTranspose")
            op = f"conv_transpose{dims}d" if transposed else f"conv{dims}d"
            keys = ("stride", "padding", "output_padding", "groups", "dilation") if transposed else \
                ("stride", "padding", "dilation", "groups")
            if any(attrs.get(k, 0) is UNKNOWN for k in keys):
                raise _Stop(f"nn.{kind} parameters")
            return self.tensor_op(op, [x, attrs.get("weight")], {k: attrs[k] for k in keys if k in attrs}, node)
        if kind == "Linear":
            return self.tensor_op("linear", [x, attrs.get("weight")], {}, node)
        if kind in _LAYER_OPERATIONS:
            op, names, defaults = _LAYER_OPERATIONS[kind]
            given = attrs.get("_args", []), attrs.get("_kwargs", {})
            if len(given[0]) > len(names) or any(k not in names for k in given[1]):
                raise _Stop(f"nn.{kind} arguments")
            bound = {**defaults, **dict(zip(names, given[0])), **given[1]}
            if "dim" in names and "dim" not in bound and kind != "GLU":
                raise _Stop(f"nn.{kind} without dim")
            return self.tensor_op(op, [x], bound, node)
        raise _Stop(f"nn.{kind} forward")

    def _norm(self, module: _Object, x: _Tensor) -> object:
        args, kwargs = module.attrs.get("_args", []), module.attrs.get("_kwargs", {})
        kind = module.kind
        names = {"GroupNorm": ("num_groups", "num_channels"), "LayerNorm": ("normalized_shape",),
                 "RMSNorm": ("normalized_shape",)}.get(kind, ("num_features",))
        bound = {**dict(zip(names, args)), **kwargs}
        shape = x.shape
        if shape is None:
            return x
        if kind in ("LayerNorm", "RMSNorm"):
            normalized = bound.get("normalized_shape")
            normalized = (normalized,) if isinstance(normalized, int) else tuple(normalized or ()) \
                if isinstance(normalized, (tuple, list)) else None
            if normalized is None or shape[len(shape) - len(normalized):] != normalized:
                raise _Stop(f"nn.{kind} shape")
            return x
        channels = bound.get("num_channels" if kind == "GroupNorm" else "num_features")
        if len(shape) < 2 or shape[1] != channels:
            raise _Stop(f"nn.{kind} channels")
        return x

    def library(self, name: str, args: list, kwargs: dict, node: ast.Call) -> object:
        if name.startswith("torch.nn.functional."):
            short = name.rsplit(".", 1)[1]
            return self.tensor_op(short, args, kwargs, node) if known_op(short) else _Shaped(None, None)
        if name.startswith("torch.") and name.count(".") == 1 and known_op(name[6:]):
            return self.tensor_op(name[6:], args, kwargs, node)
        if name in ("torch.tensor", "torch.as_tensor") and len(args) == 1 and isinstance(args[0], (int, float)) \
                and not isinstance(args[0], bool) and set(kwargs) <= {"device", "dtype"}:
            dtype = _dtype_value(kwargs.get("dtype"))
            dtype = dtype.name if isinstance(dtype, DType) else "int64" if isinstance(args[0], int) else "float32"
            return _Shaped((), dtype, Origin(node))
        value = super().library(name, args, kwargs, node)
        if isinstance(value, _Tensor) and not isinstance(value, _Shaped):
            return _Shaped(value.shape, value.dtype, Origin(node))  # a factory: the tensor is made here
        return value

    def tensor_method(self, tensor: _Tensor, name: str, args: list, kwargs: dict, node: ast.Call) -> object:
        if name in _RESHAPING_IN_PLACE:
            tensor.shape = None
            return tensor
        if known_op(name):
            result = self.tensor_op(name, [tensor] + list(args), kwargs, node)
            if name.endswith("_") and isinstance(result, _Shaped):
                tensor.shape, tensor.dtype = result.shape, tensor.dtype  # in place: the receiver changes
                if isinstance(tensor, _Shaped) and result.origin != tensor.origin:
                    tensor.origin = result.origin
                return tensor
            return result
        if name in ("new_empty", "new_zeros", "new_ones", "new_full", "new_tensor"):
            shape = _size_args(args[:1] if name == "new_full" else args) if name != "new_tensor" else None
            dtype = _dtype_value(kwargs.get("dtype"))
            dtype = dtype.name if isinstance(dtype, DType) else tensor.dtype
            return _Shaped(shape, dtype, Origin(node))
        value = super().tensor_method(tensor, name, args, kwargs, node)
        if isinstance(value, _Tensor) and not isinstance(value, _Shaped):
            return _Shaped(None, None)
        return value


# ---------------------------------------------------------------------------------- C++ wrappers


class _WrapperEnv(ShapeEnv):
    """A C++ function's constants with its parameters bound to the Python arguments' values."""

    def __init__(self, function: ir.Function, outer, tensors: dict, scalars: dict, evaluator) -> None:
        super().__init__(function, outer, {ref: t.shape for ref, t in tensors.items()}, scalars)
        self.tensors = tensors  # parameter ref -> _Shaped
        self.evaluator = evaluator

    def value(self, expr: ir.Expr | None, depth: int = 0):
        if isinstance(expr, ir.Call) and expr.callee in ("size", "dim", "numel") and expr.receiver is not None \
                and self.shape(expr.receiver) is None:
            return None
        return super().value(expr, depth)

    def shape(self, expr: ir.Expr | None, depth: int = 0):
        tensor = self.evaluator.tensor(expr, self, depth)
        return tensor.shape if isinstance(tensor, _Shaped) else None

    def tensor_value(self, expr: ir.Expr) -> object:
        return self.evaluator.tensor(expr, self)


class WrapperEvaluator:
    """The tensor a bound C++ function returns for given argument values (see the module docstring)."""

    def __init__(self, units: list) -> None:
        self.functions: dict[str, list[tuple[ir.Function, object]]] = {}
        for function, facts in self.wrappers(units):
            self.functions.setdefault(function.name, []).append((function, facts))
        self.depth = 0
        self.calls: dict[str, list[list]] = {}  # the arguments of each call from Python, in order
        self.rejections: dict[tuple, Rejection] = {}  # ATen calls torch raises for, by where and why

    @staticmethod
    def wrappers(units: list) -> Iterator[tuple[ir.Function, object]]:
        """The host functions with a body of the units (UnitFacts), each with its unit: all the evaluator reads."""
        for facts in units:
            for function in facts.program.functions:
                if function.body is not None and not function.is_device_code:
                    yield function, facts

    def call(self, name: str, args: list) -> _Shaped | None:
        if self.depth == 0:
            self.calls.setdefault(name, []).append([_argument_value(a) for a in args])
        found = self.functions.get(name, [])
        if len(found) != 1 or self.depth >= _MAX_CPP_DEPTH:
            return None
        function, facts = found[0]
        if len(args) != len(function.params):
            return None
        tensors, scalars = {}, {}
        for param, arg in zip(function.params, args):
            if not param.ref:
                continue
            if isinstance(arg, _Tensor) and "Tensor" in param.type:
                tensors[param.ref] = arg if isinstance(arg, _Shaped) else _Shaped(arg.shape, arg.dtype)
            elif "Tensor" in param.type and "optional" not in param.type:
                return None  # None or an unknown value where C++ takes a tensor: the call raises, or is not known
            elif isinstance(arg, (bool, int, float)) and "Tensor" not in param.type:
                scalars[param.ref] = arg
            elif isinstance(arg, (tuple, list)) and all(isinstance(a, (int, float)) for a in arg):
                scalars[param.ref] = tuple(arg)
        if any(isinstance(n, ir.Call) and n.callee in _RESHAPING_IN_PLACE for n in function.nodes):
            for tensor in tensors.values():
                tensor.shape = None  # the wrapper resizes what it is given
            return None
        assigned, _ = written_refs(function)
        tensors = {ref: tensor for ref, tensor in tensors.items() if ref not in assigned}
        env = _WrapperEnv(function, facts.program.env(function).outer, tensors, scalars, self)
        env.unit = facts.unit
        returns = [r for r in function.of_type(ir.Return) if r.value is not None]
        self.depth += 1
        try:
            run = HostRun(function, env, returns)  # the returns reached at these arguments, and the locals there
            results = []
            for statement in returns:
                if id(statement) in run.states:
                    env.state = run.states[id(statement)]
                    results.append(self.tensor(statement.value, env, 0, statement.span))
            env.state = None
        finally:
            self.depth -= 1
        if not results or any(not isinstance(r, _Shaped) or r.shape is None for r in results):
            return None
        if any((r.shape, r.dtype) != (results[0].shape, results[0].dtype) for r in results):
            return None
        return _Shaped(results[0].shape, results[0].dtype, results[0].origin)

    def tensor(self, expr: ir.Expr | None, env: _WrapperEnv, depth: int = 0, where: ir.Span | None = None):
        """The `_Shaped` a C++ tensor expression is; None when not known."""
        if expr is None or depth > 20:
            return None
        if isinstance(expr, ir.Cast):
            return self.tensor(expr.operand, env, depth + 1, where)
        if isinstance(expr, ir.Name):
            if env.state is not None and expr.ref in env.state:  # a local, as HostRun has it here
                held = env.state[expr.ref]
                return held if isinstance(held, _Shaped) else None
            if expr.ref in env.tensors:
                tensor = env.tensors[expr.ref]
                origin = tensor.origin or (Origin(unit=env.unit, span=where) if where else None)
                return _Shaped(tensor.shape, tensor.dtype, origin)
            definition = env.definition(expr.ref)
            return self.tensor(definition, env, depth + 1, where) if definition is not None else None
        if isinstance(expr, ir.Binary) and expr.op in _CPP_ARITHMETIC and "Tensor" in (expr.type or ""):
            operands = [self.value(side, env, depth) for side in (expr.lhs, expr.rhs)]
            return self._op(_CPP_ARITHMETIC[expr.op], operands, Origin(unit=env.unit, span=expr.span))
        if not isinstance(expr, ir.Call):
            return None
        origin = Origin(unit=env.unit, span=expr.span)
        callee = expr.callee.rsplit("::", 1)[-1]
        qualified = expr.receiver is None and expr.text.lstrip().startswith(("torch::", "at::"))
        if qualified and callee in _CPP_FACTORIES:
            sizes = self.value(expr.args[0], env, depth) if expr.args else None
            if not isinstance(sizes, tuple) or not all(isinstance(s, int) for s in sizes):
                return None
            return _Shaped(sizes, _options_dtype(expr.args[1:], env, self, depth, "float32"), origin)
        if qualified and callee in _CPP_LIKE_FACTORIES and expr.args:
            like = self.tensor(expr.args[0], env, depth + 1)
            if like is None or like.shape is None:
                return None
            return _Shaped(like.shape, _options_dtype(expr.args[1:], env, self, depth, like.dtype), origin)
        if expr.receiver is not None and "Tensor" in (expr.receiver.type or ""):
            receiver = self.tensor(expr.receiver, env, depth + 1)
            if receiver is None:
                return None
            if callee in _CPP_NEW_FACTORIES:
                sizes = self.value(expr.args[0], env, depth) if expr.args else None
                if not isinstance(sizes, tuple) or not all(isinstance(s, int) for s in sizes):
                    return None
                return _Shaped(sizes, _options_dtype(expr.args[1:], env, self, depth, receiver.dtype), origin)
            if not known_op(callee):
                return None
            return self._op(callee, [receiver] + [self.value(a, env, depth) for a in expr.args], origin)
        if qualified and known_op(callee):
            return self._op(callee, [self.value(a, env, depth) for a in expr.args], origin)
        if expr.receiver is None and callee in self.functions:
            return self.call(callee, [self.value(a, env, depth) for a in expr.args])
        return None

    def _op(self, name: str, args: list, origin: Origin):
        def rejected(reason: str) -> None:
            self.rejections.setdefault((origin.span, reason), Rejection(origin, name, reason))

        result = _as_shaped(apply_op(name, args, {}, rejected), args, origin)
        return result if isinstance(result, _Shaped) and result.shape is not None else None

    def value(self, expr: ir.Expr, env: _WrapperEnv, depth: int) -> object:
        """A C++ argument as torch_shapes takes it: a tensor, a number, a tuple (`{a, b}`, `x.sizes()`),
        None (`{}` for an optional, `c10::nullopt`), a DType; UNKNOWN otherwise."""
        if isinstance(expr, ir.Cast):
            return self.value(expr.operand, env, depth)
        if "Tensor" in (expr.type or "") and "optional" not in (expr.type or "") and "vector" not in (expr.type or ""):
            tensor = self.tensor(expr, env, depth + 1)
            return tensor if tensor is not None else UNKNOWN
        if isinstance(expr, ir.Construct) and not expr.args:
            return None if "optional" in (expr.type or "") else UNKNOWN
        if isinstance(expr, ir.InitList):
            return tuple(self.value(e, env, depth) for e in expr.elements)
        if isinstance(expr, ir.Name):
            if expr.name in _CPP_DTYPES:
                return DType(_CPP_DTYPES[expr.name])
            if expr.name in ("nullopt",) or expr.text.endswith("nullopt"):
                return None
            if expr.ref in env.scalars and isinstance(env.scalars[expr.ref], tuple):
                return env.scalars[expr.ref]
        if isinstance(expr, ir.Call) and expr.callee == "sizes" and expr.receiver is not None:
            tensor = self.tensor(expr.receiver, env, depth + 1)
            return tensor.shape if tensor is not None and tensor.shape is not None else UNKNOWN
        if isinstance(expr, ir.Const) and isinstance(expr.value, bool):
            return expr.value
        if "bool" in (expr.type or "") and isinstance(expr, ir.Const):
            return bool(expr.value)
        value = env.value(expr)
        return value if value is not None else UNKNOWN


def _options_dtype(args: list, env: _WrapperEnv, evaluator: WrapperEvaluator, depth: int,
                   default: str | None) -> str | None:
    """The dtype tensor options (`x.options()`, `torch::dtype(torch::kHalf)`, `torch::kCUDA`) give."""
    if not args:
        return default
    found = default
    for node in args[0].walk():
        if isinstance(node, ir.Name) and node.name in _CPP_DTYPES:
            found = _CPP_DTYPES[node.name]
        elif isinstance(node, ir.Call) and node.callee in ("options", "dtype", "scalar_type") \
                and node.receiver is not None and "Tensor" in (node.receiver.type or ""):
            tensor = evaluator.tensor(node.receiver, env, depth + 1)
            found = tensor.dtype if tensor is not None else None
        elif isinstance(node, ir.Name) and "ScalarType" in (node.type or "") and node.name not in _CPP_DTYPES:
            return None  # a dtype chosen at run time
    return found


# ------------------------------------------------------------------------------------------- the API


@dataclass(frozen=True)
class Problem:
    """The reference's init arguments, inputs, and what its forward returns on them."""

    init_args: list
    inputs: list  # _Shaped, in get_inputs() order
    output: Output | None


def _evaluate_forward(interpreter: ShapeInterpreter, class_name: str, init_args: list, inputs: list,
                      forward: ast.FunctionDef | None = None) -> object:
    cls = interpreter.classes.get(class_name)
    if cls is None:
        return None
    try:
        instance = interpreter.construct(cls, list(init_args), {}, None)
        forward = forward or interpreter.method(cls, "forward")
        if forward is None:
            return None
        return interpreter.invoke(forward, [instance] + list(inputs), {})
    except (_Stop, RecursionError, ArithmeticError, LookupError, TypeError, ValueError, AttributeError):
        return None


def _output(value: object) -> Output | None:
    if isinstance(value, _Shaped) and value.shape is not None:
        return Output(value.shape, value.dtype, value.origin)
    return None


def problem_of_module(module: ast.Module) -> Problem | None:
    """The reference problem a module defines (`Model`, `get_inputs`, `get_init_inputs`); None when its
    inputs or init arguments are not known."""
    interpreter = ShapeInterpreter(module)
    if "get_inputs" not in interpreter.functions or "get_init_inputs" not in interpreter.functions:
        return None
    try:
        init_args = interpreter.invoke(interpreter.functions["get_init_inputs"], [], {})
        inputs = interpreter.invoke(interpreter.functions["get_inputs"], [], {})
    except (_Stop, RecursionError, ArithmeticError, LookupError, TypeError, ValueError, AttributeError):
        return None
    init_args, inputs = (list(v) if isinstance(v, tuple) else v for v in (init_args, inputs))
    if not isinstance(init_args, list) or not all(_plain(a) for a in init_args):
        return None
    if not isinstance(inputs, list) or not all(isinstance(i, _Tensor) and i.shape is not None or _plain(i)
                                               for i in inputs):
        return None
    inputs = [_Shaped(i.shape, i.dtype) if isinstance(i, _Tensor) else i for i in inputs]
    value = _evaluate_forward(interpreter, "Model", init_args, [_fresh(i) for i in inputs])
    return Problem(init_args, inputs, _output(value))


def _fresh(value: object) -> object:
    return _Shaped(value.shape, value.dtype) if isinstance(value, _Shaped) else value


@lru_cache(maxsize=256)
def _problem_cached(path: str, mtime: float) -> Problem | None:
    parsed = read_python(path, mtime)
    return problem_of_module(parsed[0]) if parsed is not None else None


def problem_at(path: str) -> Problem | None:
    """`problem_of_module` of the reference file at `path`, read once per process (by path and mtime)."""
    try:
        mtime = os.path.getmtime(path)
    except OSError:
        return None
    return _problem_cached(os.path.abspath(path), mtime)


@dataclass(frozen=True)
class Rejection:
    """An ATen call of a C++ wrapper that torch raises for, at the reference's inputs."""

    origin: Origin  # the call
    operation: str
    reason: str  # what torch checks, with the shapes it gets


@dataclass
class SolutionReading:
    output: Output | None  # what forward returns
    calls: dict[str, list[list]]  # bound function -> the arguments of each call (see `_argument_value`)
    rejections: list[Rejection]  # the wrappers' ATen calls torch raises for


def read_solution(module: ast.Module, imports: ImportMap, problem: Problem, units: list,
                  model_new: ast.ClassDef | None = None, forward: ast.FunctionDef | None = None) -> SolutionReading:
    """`ModelNew(*init_args).forward(*inputs)` of the solution, its compiled functions read from the parsed
    CUDA/C++ `units` (UnitFacts). `model_new`: the class the name ModelNew is bound to where no class of
    that name is defined at module level (`ModelNew = Impl`, a class factory), `forward` its forward where
    one is attached after the class (`setattr(ModelNew, "forward", f)`): `Solution.model_new`, `.method`."""
    evaluator = WrapperEvaluator(units)
    interpreter = ShapeInterpreter(module, imports, evaluator.call)
    if model_new is not None:
        interpreter.classes.setdefault("ModelNew", model_new)
    value = _evaluate_forward(interpreter, "ModelNew", problem.init_args, [_fresh(i) for i in problem.inputs],
                              forward)
    return SolutionReading(_output(value), evaluator.calls, list(evaluator.rejections.values()))


def problem_of(ctx) -> Problem | None:
    """The reference problem of the document being linted (`harness.document_state.reference_of`), read: the
    file's own `get_inputs` (and `class Model`, if any) when the reference is the file itself."""
    from cudalint.harness.document_state import reference_of

    reference = reference_of(ctx)
    if reference is None:
        return None
    if os.path.abspath(reference.path) != os.path.abspath(ctx.document.path):
        return problem_at(reference.path)
    return problem_of_module(ctx.document.python_module)


def solution_reading(ctx) -> SolutionReading | None:
    """`read_solution` of the document at its reference problem, with the units parsed so far (rules on an
    early unit see the calls, the last one the whole output). Built once per set of host functions those
    units define, all that the reading takes from them: a unit of declarations only adds none."""
    from cudalint.harness.document_state import state_of

    state = state_of(ctx.document)
    key = ("solution_reading", tuple((id(function), id(facts)) for function, facts in
                                     WrapperEvaluator.wrappers(state.units)))
    if key not in state.cache:
        solution = state.solution
        problem = problem_of(ctx) if solution is not None and solution.model_new is not None else None
        state.cache[key] = read_solution(ctx.document.python_module, solution.imports, problem, state.units,
                                         solution.model_new, solution.method(solution.model_new, "forward")) \
            if problem is not None else None
    return state.cache[key]


def complete_reading(ctx) -> tuple[Problem, SolutionReading] | None:
    """(the reference problem, `solution_reading`) on the document's last unit, for a KernelBench solution
    whose reference is known: what the rules on the whole solution's shapes (CL430, CL431) read; None on
    earlier units and otherwise. Every unit is recorded on the way (`harness.document_state.record_unit`)."""
    from cudalint.harness.document_state import record_unit

    state, last = record_unit(ctx)
    solution = state.solution
    if not last or solution is None or not solution.is_kernelbench or solution.model_new is None:
        return None
    problem = problem_of(ctx)
    reading = solution_reading(ctx) if problem is not None else None
    return (problem, reading) if reading is not None else None


def shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def input_shapes_text(problem: Problem) -> str:
    """The shapes of the reference's tensor inputs, for messages: `[16, 3, 64, 64], [16]`."""
    return ", ".join(shape_text(i.shape) for i in problem.inputs if hasattr(i, "shape"))


def reference_call_arguments(ctx) -> dict[str, dict[int, object]]:
    """Bound function -> {position: value} for the arguments every call of it from forward gets at the
    reference's inputs: a `TensorArgument` for a tensor of known shape, a number, a tuple of numbers."""
    reading = solution_reading(ctx)
    found: dict[str, dict[int, object]] = {}
    for name, calls in (reading.calls if reading is not None else {}).items():
        agreed = {}
        for position, value in enumerate(calls[0]):
            if value is not None and all(len(c) == len(calls[0]) and c[position] == value for c in calls):
                agreed[position] = value
        if agreed:
            found[name] = agreed
    return found


def _argument_value(value: object) -> object:
    """A call argument as the launch rules take it: a TensorArgument, a number, a tuple of numbers; None
    when not known."""
    if isinstance(value, _Tensor):
        return TensorArgument(value.shape) if value.shape is not None else None
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, (int, float)) for v in value):
        return tuple(value)
    return None
