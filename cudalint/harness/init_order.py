"""The random draws a model's `__init__` makes, in order, read from the Python AST (nothing is run).

KernelBench's harness seeds the RNG, builds `Model(*get_init_inputs())`, seeds it again the same way and
builds `ModelNew(*get_init_inputs())`, then compares the outputs. Both models get equal weights only
when their constructors consume the CPU random stream in the same way: the same distributions over
the same shapes, in the same order. This module lists those draws for a class of a module:

- the default init of each torch.nn layer, in the order torch creates it: `Linear`, `ConvNd` and
  `ConvTransposeNd` draw `kaiming_uniform_(a=sqrt(5))` on the weight, then a uniform bias;
  `Bilinear`, `Embedding` (`normal_`), `RNN`/`LSTM`/`GRU` and their cells (uniform over every
  parameter), `MultiheadAttention` (its `out_proj` Linear, then xavier on the packed projection); the
  norm layers, activations, pooling and dropout draw nothing;
- `torch.randn/rand/randint/normal/..._like`, `Tensor.uniform_/normal_/...`, and `torch.nn.init.*_`
  (kaiming, xavier, uniform, normal, trunc_normal, orthogonal) with their bounds computed from the
  tensor's shape.

The interpreter follows assignments, arithmetic, `if` on known values, loops and comprehensions over
known ranges, helper methods and functions of the file, classes of the file (their `__init__`),
`nn.Sequential`/`ModuleList`/`ModuleDict`, `super().__init__` into a class of the file. Anything it
cannot decide (a value it cannot compute that decides control flow, a call of something unknown that
might draw) ends the known part of the sequence: `InitDraws.complete` is False and `draws` holds what
came before, which is exact. A draw whose shape or parameters cannot be computed keeps None there
(it matches anything when compared). A draw whose values are transformed afterwards (`randn(...) *
0.02`) keeps its distribution family and shape but not its parameters.
"""

from __future__ import annotations

import ast
import math
import os
from dataclasses import dataclass, field
from functools import lru_cache

from cudalint.findings import short_text
from cudalint.harness.kernelbench import ImportMap, import_map, read_python

_MAX_STEPS = 20000
_MAX_DEPTH = 24


class _Stop(Exception):
    """The rest of the constructor cannot be followed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --------------------------------------------------------------------------------------------- values


class _Unknown:
    """A value that cannot be computed (it may still be passed around harmlessly)."""

    def __repr__(self) -> str:
        return "?"


UNKNOWN = _Unknown()


@dataclass
class Draw:
    """One random draw: `dist` over `shape` with `params` (None where not computable)."""

    dist: str  # "uniform", "normal", "trunc_normal", "orthogonal", "randint", "randperm", ...
    shape: tuple[int, ...] | None
    params: tuple[float, ...] | None
    device: str | None  # "cpu", "cuda"; None when not known
    dtype: str | None  # "float32" unless the call says otherwise; None when not known
    line: int
    node: ast.AST = field(repr=False, compare=False)  # the call that makes it
    role: str | None = None  # what of the call's result it initialises: "the weight", "the bias"

    @property
    def what(self) -> str:
        """The call as written, with the part it initialises: "the weight of `nn.Linear(64, 32)`"."""
        return f"{self.role} of `{_text(self.node)}`" if self.role else _text(self.node)

    def describe(self) -> str:
        shape = "?" if self.shape is None else "[" + ", ".join(str(d) for d in self.shape) + "]"
        if self.params is None:
            dist = self.dist
        elif self.dist == "uniform" and len(self.params) == 2 and _close(self.params[0], -self.params[1]):
            dist = f"uniform(±{_number(self.params[1])})"
        else:
            dist = f"{self.dist}({', '.join(_number(p) for p in self.params)})"
        where = "" if self.device in (None, "cpu") else f" on {self.device}"
        dtype = "" if self.dtype in (None, "float32") else f" {self.dtype}"
        return f"{dist} over {shape}{dtype}{where}"


def _number(value: float) -> str:
    return f"{value:.4g}"


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-12)


@dataclass
class InitDraws:
    draws: list[Draw]
    complete: bool  # False: after the last draw listed, the constructor could not be followed
    reason: str | None = None  # why it stopped


class _Tensor:
    __slots__ = ("shape", "draws", "dtype", "device")

    def __init__(self, shape: tuple[int, ...] | None, draws: list[Draw] | None = None,
                 dtype: str | None = "float32", device: str | None = "cpu") -> None:
        self.shape = shape
        self.draws = draws or []  # the draws its values come from
        self.dtype = dtype
        self.device = device

    def transformed(self) -> _Tensor:
        for draw in self.draws:
            draw.params = None
        return self


class _Object:
    """An instance being constructed (the model, a module class of the file) or a torch layer."""

    def __init__(self, cls: ast.ClassDef | None = None, kind: str | None = None) -> None:
        self.cls = cls
        self.kind = kind  # the torch.nn class name of a layer
        self.attrs: dict[str, object] = {}
        self.params: list[_Tensor] = []  # in registration order (layers)


class _Container:
    def __init__(self, items: list) -> None:
        self.items = items


@dataclass(frozen=True)
class _Dotted:
    """A library name: torch.nn.Linear, math.sqrt."""

    name: str


@dataclass(frozen=True)
class _FileFunction:
    node: ast.FunctionDef
    bound: object = None  # the instance of a method


@dataclass(frozen=True)
class _FileClass:
    node: ast.ClassDef


@dataclass(frozen=True)
class _Super:
    instance: _Object
    cls: ast.ClassDef


@dataclass(frozen=True)
class _Method:
    receiver: object
    name: str


# ------------------------------------------------------------------------------------- torch.nn facts

# layers and modules that create no parameter from the random stream
_NO_DRAW_MODULES = {
    "ReLU", "ReLU6", "GELU", "SiLU", "Mish", "Tanh", "Sigmoid", "Hardtanh", "Hardswish", "Hardsigmoid",
    "LeakyReLU", "ELU", "SELU", "CELU", "Softplus", "Softsign", "Softshrink", "Hardshrink", "Tanhshrink",
    "Threshold", "LogSigmoid", "GLU", "Softmax", "Softmax2d", "LogSoftmax", "Softmin", "PReLU", "Identity",
    "Flatten", "Unflatten", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
    "FeatureAlphaDropout", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LayerNorm",
    "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm", "RMSNorm",
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
    "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "Upsample", "UpsamplingNearest2d",
    "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "ZeroPad1d", "ZeroPad2d",
    "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d",
    "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
    "CircularPad2d", "CircularPad3d", "Fold", "Unfold", "CosineSimilarity", "PairwiseDistance",
    "MSELoss", "L1Loss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "HuberLoss",
    "SmoothL1Loss", "KLDivLoss", "TripletMarginLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
    "CosineEmbeddingLoss", "MultiMarginLoss", "SoftMarginLoss", "MultiLabelMarginLoss", "PoissonNLLLoss",
    "GaussianNLLLoss", "CTCLoss", "MultiLabelSoftMarginLoss", "TripletMarginWithDistanceLoss",
}
_CONV = {"Conv1d": 1, "Conv2d": 2, "Conv3d": 3}
_CONV_T = {"ConvTranspose1d": 1, "ConvTranspose2d": 2, "ConvTranspose3d": 3}
_CONV_ARGS = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "groups", "bias",
              "padding_mode", "device", "dtype")
_CONV_T_ARGS = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "output_padding", "groups",
                "bias", "dilation", "padding_mode", "device", "dtype")
_RNN_GATES = {"RNN": 1, "LSTM": 4, "GRU": 3}
_CELL_GATES = {"RNNCell": 1, "LSTMCell": 4, "GRUCell": 3}
_RNN_ARGS = ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional",
             "proj_size", "device", "dtype")
_PLAIN_RNN_ARGS = ("input_size", "hidden_size", "num_layers", "nonlinearity", "bias", "batch_first", "dropout",
                   "bidirectional", "device", "dtype")
_LAYER_ARGS = {
    "Linear": ("in_features", "out_features", "bias", "device", "dtype"),
    "Bilinear": ("in1_features", "in2_features", "out_features", "bias", "device", "dtype"),
    "Embedding": ("num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type",
                  "scale_grad_by_freq", "sparse", "_weight", "_freeze", "device", "dtype"),
    "MultiheadAttention": ("embed_dim", "num_heads", "dropout", "bias", "add_bias_kv", "add_zero_attn", "kdim",
                           "vdim", "batch_first", "device", "dtype"),
    "RNNCell": ("input_size", "hidden_size", "bias", "nonlinearity", "device", "dtype"),
    "LSTMCell": ("input_size", "hidden_size", "bias", "device", "dtype"),
    "GRUCell": ("input_size", "hidden_size", "bias", "device", "dtype"),
}

# torch functions that draw from the random stream (anything else of torch outside torch.nn draws nothing)
_RANDOM_FACTORIES = {"randn", "rand", "randint", "randperm", "normal", "randn_like", "rand_like", "randint_like",
                     "bernoulli", "multinomial", "poisson"}
_SEEDING = {"manual_seed", "seed", "set_rng_state", "initial_seed", "Generator", "fork_rng", "get_rng_state"}
_FACTORIES = {"empty", "zeros", "ones", "full", "Tensor", "FloatTensor", "eye"}
_LIKE_FACTORIES = {"empty_like", "zeros_like", "ones_like", "full_like"}
# Tensor methods that draw: name -> (distribution, default parameters)
_RANDOM_METHODS = {"uniform_": ("uniform", (0.0, 1.0)), "normal_": ("normal", (0.0, 1.0)),
                   "random_": ("random", None), "bernoulli_": ("bernoulli", None),
                   "exponential_": ("exponential", None), "cauchy_": ("cauchy", None),
                   "log_normal_": ("log_normal", None), "geometric_": ("geometric", None)}
# Tensor methods that keep the values (and shape, unless noted) of the tensor
_SAME_VALUES = {"data", "detach", "clone", "contiguous", "float", "cuda", "cpu", "to", "requires_grad_",
                "detach_", "share_memory_"}
_RESHAPES = {"t", "T", "transpose", "permute", "view", "reshape", "flatten", "unsqueeze", "squeeze", "expand",
             "repeat", "narrow", "chunk", "split"}
_NO_DRAW_METHODS = {"zero_", "fill_", "copy_", "clamp_", "fill_diagonal_", "masked_fill_", "data_ptr",
                    "register_hook", "retain_grad", "numel", "dim", "size", "item", "tolist", "stride",
                    "is_contiguous", "element_size", "nelement"}
_INIT_NO_DRAW = {"zeros_", "ones_", "constant_", "eye_", "dirac_", "calculate_gain"}
_GAINS = {"linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0, "conv_transpose1d": 1.0,
          "conv_transpose2d": 1.0, "conv_transpose3d": 1.0, "sigmoid": 1.0, "tanh": 5.0 / 3, "relu": math.sqrt(2.0),
          "selu": 0.75}


def _gain(nonlinearity: object, param: object) -> float:
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if not isinstance(slope, (int, float)) or isinstance(slope, bool):
            raise _Stop("leaky_relu slope not known")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if isinstance(nonlinearity, str) and nonlinearity in _GAINS:
        return _GAINS[nonlinearity]
    raise _Stop(f"gain of {nonlinearity!r}")


def _fans(shape: tuple[int, ...] | None) -> tuple[int, int]:
    if shape is None:
        raise _Stop("fan of a tensor of unknown shape")
    if len(shape) < 2:
        raise _Stop("fan of a tensor with fewer than 2 dimensions")
    receptive = 1
    for d in shape[2:]:
        receptive *= d
    return shape[1] * receptive, shape[0] * receptive


# ------------------------------------------------------------------------------------------ evaluator


class _Interpreter:
    def __init__(self, module: ast.Module, imports: ImportMap | None = None) -> None:
        self.module = module
        self.imports = imports if imports is not None else import_map(module)
        self.draws: list[Draw] = []
        self.steps = 0
        self.depth = 0
        self.classes: dict[str, ast.ClassDef] = {}
        self.functions: dict[str, ast.FunctionDef] = {}
        self.global_nodes: dict[str, ast.expr | None] = {}
        self.globals: dict[str, object] = {}
        self.frames: list[tuple[ast.ClassDef | None, object]] = []  # (the method's class, its self)
        self.owners: dict[int, ast.ClassDef] = {}
        for statement in module.body:
            self._index_global(statement)
        for cls in self.classes.values():
            for statement in cls.body:
                if isinstance(statement, ast.FunctionDef):
                    self.owners[id(statement)] = cls

    def _index_global(self, statement: ast.stmt) -> None:
        if isinstance(statement, ast.ClassDef):
            self.classes[statement.name] = statement
            self.global_nodes.pop(statement.name, None)
        elif isinstance(statement, ast.FunctionDef):
            self.functions[statement.name] = statement
            self.global_nodes.pop(statement.name, None)
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    # a name assigned twice at module level is not known (which binding is meant)
                    self.global_nodes[target.id] = None if target.id in self.global_nodes else statement.value
                else:
                    for node in ast.walk(target):
                        if isinstance(node, ast.Name):
                            self.global_nodes[node.id] = None
        elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)) and isinstance(statement.target, ast.Name):
            self.global_nodes[statement.target.id] = None
        elif isinstance(statement, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    self.global_nodes[node.id] = None
                elif isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                    self.global_nodes[node.name] = None

    # ---------------------------------------------------------------------------------------- names

    def lookup(self, name: str, env: dict) -> object:
        if name in env:
            return env[name]
        if name in self.global_nodes:
            if name not in self.globals:
                node = self.global_nodes[name]
                self.globals[name] = UNKNOWN  # guards against cycles
                self.globals[name] = self._pure(node) if node is not None else UNKNOWN
            return self.globals[name]
        if name in self.classes:
            return _FileClass(self.classes[name])
        if name in self.functions:
            return _FileFunction(self.functions[name])
        if name in self.imports.aliases:
            return _Dotted(self.imports.aliases[name])
        if name in _BUILTINS:
            return _Dotted("builtins." + name)
        return UNKNOWN

    def _pure(self, node: ast.expr) -> object:
        """A module-level value: constants and arithmetic on them, tuples; calls only of pure builtins."""
        saved = self.draws
        self.draws = []
        try:
            value = self.eval(node, {})
            if self.draws:
                value = UNKNOWN  # a module-level draw happens before the harness seeds
        except (_Stop, RecursionError):
            value = UNKNOWN
        finally:
            self.draws = saved
        return value

    # ------------------------------------------------------------------------------------ statements

    def tick(self) -> None:
        self.steps += 1
        if self.steps > _MAX_STEPS:
            raise _Stop("too many steps")

    def run_body(self, body: list[ast.stmt], env: dict) -> tuple[bool, object]:
        """Run statements; (returned, value)."""
        for statement in body:
            self.tick()
            done, value = self.run(statement, env)
            if done:
                return done, value
        return False, None

    def run(self, s: ast.stmt, env: dict) -> tuple[bool, object]:
        if isinstance(s, ast.Expr):
            self.eval(s.value, env)
        elif isinstance(s, ast.Assign):
            value = self.eval(s.value, env)
            for target in s.targets:
                self.assign(target, value, env)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.assign(s.target, self.eval(s.value, env), env)
        elif isinstance(s, ast.AugAssign):
            current = self.eval(s.target, env)
            value = self.binop(s.op, current, self.eval(s.value, env))
            if isinstance(current, _Tensor):
                current.transformed()
            else:
                self.assign(s.target, value, env)
        elif isinstance(s, ast.If):
            test = self.truth(self.eval(s.test, env))
            return self.run_body(s.body if test else s.orelse, env)
        elif isinstance(s, ast.For):
            iterable = self.iterate(self.eval(s.iter, env))
            for item in iterable:
                self.tick()
                self.assign(s.target, item, env)
                done, value = self.run_body(s.body, env)
                if done:
                    return done, value
            else:
                return self.run_body(s.orelse, env)
        elif isinstance(s, ast.While):
            while self.truth(self.eval(s.test, env)):
                self.tick()
                done, value = self.run_body(s.body, env)
                if done:
                    return done, value
        elif isinstance(s, ast.With):
            for item in s.items:
                self.eval(item.context_expr, env)
            return self.run_body(s.body, env)
        elif isinstance(s, ast.Return):
            return True, (self.eval(s.value, env) if s.value is not None else None)
        elif isinstance(s, (ast.Pass, ast.Assert)):
            pass
        elif isinstance(s, (ast.Import, ast.ImportFrom)):
            for alias in s.names:
                base = s.module + "." if isinstance(s, ast.ImportFrom) and s.module else ""
                if isinstance(s, ast.ImportFrom) and s.level:
                    raise _Stop("relative import")
                full = base + alias.name
                env[(alias.asname or alias.name).split(".")[0]] = _Dotted(
                    full if alias.asname or base else alias.name.split(".")[0])
        elif isinstance(s, ast.FunctionDef):
            env[s.name] = _FileFunction(s)
        elif isinstance(s, ast.Delete):
            for target in s.targets:
                if isinstance(target, ast.Name):
                    env.pop(target.id, None)
                elif isinstance(target, ast.Attribute):
                    owner = self.eval(target.value, env)
                    if isinstance(owner, _Object):
                        owner.attrs.pop(target.attr, None)
                else:
                    raise _Stop("del of a subscript")
        else:
            raise _Stop(f"{type(s).__name__} statement")
        return False, None

    def truth(self, value: object) -> bool:
        if isinstance(value, (bool, int, float, str, tuple, list, dict)) or value is None:
            return bool(value)
        if isinstance(value, (_Tensor, _Object, _Container)):
            raise _Stop("truth of a tensor or module")
        raise _Stop("condition not known")

    def iterate(self, value: object) -> list:
        if isinstance(value, (list, tuple, range, str)):
            if len(value) > 4096:
                raise _Stop("loop too long")
            return list(value)
        if isinstance(value, dict):
            return list(value)
        if isinstance(value, _Container):
            return list(value.items)
        raise _Stop("loop over an unknown value")

    def assign(self, target: ast.expr, value: object, env: dict) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, ast.Attribute):
            owner = self.eval(target.value, env)
            if isinstance(owner, _Object):
                owner.attrs[target.attr] = value
            elif isinstance(owner, _Tensor) and target.attr in ("data",):
                pass
            elif isinstance(owner, _Tensor) and target.attr in ("requires_grad",):
                pass
            else:
                raise _Stop("attribute assigned on an unknown value")
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, _Container):
                value = value.items
            if not isinstance(value, (list, tuple)):
                raise _Stop("unpacking an unknown value")
            if any(isinstance(e, ast.Starred) for e in target.elts) or len(target.elts) != len(value):
                raise _Stop("unpacking")
            for element, item in zip(target.elts, value):
                self.assign(element, item, env)
        elif isinstance(target, ast.Subscript):
            owner = self.eval(target.value, env)
            key = self.eval(target.slice, env)
            if isinstance(owner, list) and isinstance(key, int):
                owner[key] = value
            elif isinstance(owner, dict) and isinstance(key, (str, int)):
                owner[key] = value
            elif isinstance(owner, _Container) and isinstance(key, int):
                owner.items[key] = value
            elif isinstance(owner, _Tensor):
                owner.transformed()
            else:
                raise _Stop("subscript assignment")
        else:
            raise _Stop("assignment target")

    # ----------------------------------------------------------------------------------- expressions

    def eval(self, node: ast.expr, env: dict) -> object:
        self.tick()
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.lookup(node.id, env)
        if isinstance(node, ast.Attribute):
            return self.attribute(self.eval(node.value, env), node.attr)
        if isinstance(node, ast.Call):
            return self.call(node, env)
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.eval(node.left, env), self.eval(node.right, env))
        if isinstance(node, ast.UnaryOp):
            operand = self.eval(node.operand, env)
            if isinstance(operand, _Tensor):
                return operand.transformed()
            if isinstance(node.op, ast.Not):
                return not self.truth(operand)
            if isinstance(operand, (int, float)):
                if isinstance(node.op, ast.USub):
                    return -operand
                if isinstance(node.op, ast.UAdd):
                    return +operand
                if isinstance(node.op, ast.Invert) and isinstance(operand, int):
                    return ~operand
            return UNKNOWN
        if isinstance(node, ast.BoolOp):
            result: object = None
            for value_node in node.values:
                result = self.eval(value_node, env)
                truth = self.truth(result)
                if isinstance(node.op, ast.And) and not truth:
                    return result
                if isinstance(node.op, ast.Or) and truth:
                    return result
            return result
        if isinstance(node, ast.Compare):
            left = self.eval(node.left, env)
            for op, right_node in zip(node.ops, node.comparators):
                right = self.eval(right_node, env)
                if not self.compare(op, left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            return self.eval(node.body if self.truth(self.eval(node.test, env)) else node.orelse, env)
        if isinstance(node, (ast.Tuple, ast.List)):
            items: list = []
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    items.extend(self.iterate(self.eval(element.value, env)))
                else:
                    items.append(self.eval(element, env))
            return tuple(items) if isinstance(node, ast.Tuple) else items
        if isinstance(node, ast.Dict):
            result_dict = {}
            for key, value in zip(node.keys, node.values):
                if key is None:
                    raise _Stop("dict unpacking")
                k = self.eval(key, env)
                if not isinstance(k, (str, int, float, bool, tuple)):
                    raise _Stop("dict key")
                result_dict[k] = self.eval(value, env)
            return result_dict
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            return self.comprehension(node, env)
        if isinstance(node, ast.Subscript):
            return self.subscript(self.eval(node.value, env), self.eval(node.slice, env))
        if isinstance(node, ast.Slice):
            parts = [self.eval(p, env) if p is not None else None for p in (node.lower, node.upper, node.step)]
            if any(p is not None and not isinstance(p, int) for p in parts):
                return UNKNOWN
            return slice(*parts)
        if isinstance(node, ast.JoinedStr):
            return UNKNOWN
        raise _Stop(f"{type(node).__name__} expression")

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp, env: dict) -> list:
        results: list = []
        local = dict(env)

        def loop(index: int) -> None:
            if index == len(node.generators):
                results.append(self.eval(node.elt, local))
                return
            generator = node.generators[index]
            if generator.is_async:
                raise _Stop("async comprehension")
            for item in self.iterate(self.eval(generator.iter, local)):
                self.tick()
                self.assign(generator.target, item, local)
                if all(self.truth(self.eval(condition, local)) for condition in generator.ifs):
                    loop(index + 1)

        loop(0)
        return results

    def subscript(self, value: object, key: object) -> object:
        if isinstance(value, _Container):
            value = value.items
        if isinstance(value, (list, tuple, str)) and isinstance(key, (int, slice)) and not isinstance(key, bool):
            try:
                result = value[key]
            except IndexError:
                raise _Stop("index out of range") from None
            return _Container(list(result)) if isinstance(key, slice) and isinstance(value, list) and any(
                isinstance(v, (_Object, _Tensor)) for v in result) else result
        if isinstance(value, dict) and isinstance(key, (str, int, tuple)):
            if key in value:
                return value[key]
            raise _Stop("missing key")
        if isinstance(value, _Tensor):
            return _Tensor(None, value.draws, value.dtype)
        return UNKNOWN

    def compare(self, op: ast.cmpop, left: object, right: object) -> bool:
        if isinstance(op, (ast.Is, ast.IsNot)):
            if not (_known(left) and _known(right)):
                raise _Stop("identity of an unknown value")
            same = left is right or (left is None and right is None) or (
                _plain(left) and _plain(right) and type(left) is type(right) and left == right)
            return same if isinstance(op, ast.Is) else not same
        if isinstance(op, (ast.In, ast.NotIn)):
            if isinstance(right, (list, tuple, str, dict)) and not any(
                    x is UNKNOWN for x in (right if not isinstance(right, dict) else right.keys())) \
                    and _plain(left):
                inside = left in right
                return inside if isinstance(op, ast.In) else not inside
            raise _Stop("membership of an unknown value")
        if not (_plain(left) and _plain(right)):
            raise _Stop("comparison of unknown values")
        try:
            return {ast.Eq: lambda: left == right, ast.NotEq: lambda: left != right,
                    ast.Lt: lambda: left < right, ast.LtE: lambda: left <= right,
                    ast.Gt: lambda: left > right, ast.GtE: lambda: left >= right}[type(op)]()
        except TypeError:
            raise _Stop("comparison") from None

    def binop(self, op: ast.operator, left: object, right: object) -> object:
        if isinstance(left, _Tensor) or isinstance(right, _Tensor):
            tensor = left if isinstance(left, _Tensor) else right
            other = right if tensor is left else left
            if isinstance(other, _Tensor):
                other.transformed()
                return _Tensor(None, tensor.transformed().draws + other.draws, tensor.dtype)
            return _Tensor(tensor.shape, tensor.transformed().draws, tensor.dtype)
        if not (_plain(left) and _plain(right)) or left is None or right is None:
            return UNKNOWN
        try:
            if isinstance(op, ast.Add):
                return left + right
            if isinstance(op, ast.Sub):
                return left - right
            if isinstance(op, ast.Mult):
                if isinstance(left, (list, tuple, str)) or isinstance(right, (list, tuple, str)):
                    count = right if isinstance(left, (list, tuple, str)) else left
                    if not isinstance(count, int) or count > 4096:
                        return UNKNOWN
                return left * right
            if isinstance(op, ast.Div):
                return left / right
            if isinstance(op, ast.FloorDiv):
                return left // right
            if isinstance(op, ast.Mod):
                return left % right
            if isinstance(op, ast.Pow):
                if isinstance(right, (int, float)) and abs(right) > 64:
                    return UNKNOWN
                return left ** right
            if isinstance(op, ast.LShift) and isinstance(right, int) and 0 <= right <= 64:
                return left << right
            if isinstance(op, ast.RShift):
                return left >> right
            if isinstance(op, ast.BitAnd):
                return left & right
            if isinstance(op, ast.BitOr):
                return left | right
        except (TypeError, ZeroDivisionError, ValueError, OverflowError):
            return UNKNOWN
        return UNKNOWN

    def attribute(self, value: object, name: str) -> object:
        if isinstance(value, _Dotted):
            return _Dotted(f"{value.name}.{name}")
        if isinstance(value, _Object):
            if name in value.attrs:
                return value.attrs[name]
            if value.cls is not None:
                method = self.method(value.cls, name)
                if method is not None:
                    return _FileFunction(method, value)
                for klass in self.chain(value.cls):  # a class attribute
                    for statement in klass.body:
                        if isinstance(statement, ast.Assign) and any(
                                isinstance(t, ast.Name) and t.id == name for t in statement.targets):
                            return self._pure(statement.value)
            return _Method(value, name)  # a method of nn.Module (or a missing attribute: not known)
        if isinstance(value, _Super):
            return _Method(value, name)
        if isinstance(value, _Tensor):
            if name in ("data", "T", "mT"):
                return value if name == "data" else _Tensor(
                    tuple(reversed(value.shape)) if value.shape else None, value.draws)
            if name == "shape":
                return value.shape if value.shape is not None else UNKNOWN
            if name == "dtype":
                return UNKNOWN
            if name in ("requires_grad", "device", "grad", "is_cuda"):
                return UNKNOWN
            return _Method(value, name)
        if isinstance(value, (_Container, list, dict, tuple, str, int, float)):
            return _Method(value, name)
        if isinstance(value, _FileClass):
            for statement in value.node.body:
                if isinstance(statement, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == name for t in statement.targets):
                    return self._pure(statement.value)
            method = self.method(value.node, name)
            if method is not None:
                return _FileFunction(method)
            return UNKNOWN
        return UNKNOWN

    def method(self, cls: ast.ClassDef, name: str, skip_first: bool = False) -> ast.FunctionDef | None:
        for klass in self.chain(cls)[1 if skip_first else 0:]:
            for statement in klass.body:
                if isinstance(statement, ast.FunctionDef) and statement.name == name:
                    return statement
        return None

    def chain(self, cls: ast.ClassDef) -> list[ast.ClassDef]:
        """The class and its bases of this file, in method resolution order (single inheritance)."""
        found = [cls]
        while True:
            bases = [b for b in found[-1].bases if isinstance(b, ast.Name) and b.id in self.classes]
            if not bases or self.classes[bases[0].id] in found:
                return found
            found.append(self.classes[bases[0].id])

    def _foreign_bases(self, cls: ast.ClassDef) -> list[str]:
        names = []
        for klass in self.chain(cls):
            for base in klass.bases:
                if isinstance(base, ast.Name) and base.id in self.classes:
                    continue
                names.append(self.imports.qualify(base) or "?")
        return names

    # ------------------------------------------------------------------------------------------ calls

    def call(self, node: ast.Call, env: dict) -> object:
        func = self.eval(node.func, env)
        args: list = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                args.extend(self.iterate(self.eval(arg.value, env)))
            else:
                args.append(self.eval(arg, env))
        kwargs: dict = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                value = self.eval(keyword.value, env)
                if not isinstance(value, dict):
                    raise _Stop("** of an unknown value")
                kwargs.update(value)
            else:
                kwargs[keyword.arg] = self.eval(keyword.value, env)
        return self.apply(func, args, kwargs, node)

    def apply(self, func: object, args: list, kwargs: dict, node: ast.Call) -> object:
        if func == _Dotted("builtins.super"):
            if len(args) == 2 and isinstance(args[0], _FileClass) and isinstance(args[1], _Object):
                return _Super(args[1], args[0].node)
            if not args and self.frames and self.frames[-1][0] is not None and isinstance(self.frames[-1][1], _Object):
                return _Super(self.frames[-1][1], self.frames[-1][0])
            raise _Stop("super() not resolved")
        if isinstance(func, _Dotted):
            return self.library(func.name, args, kwargs, node)
        if isinstance(func, _FileFunction):
            return self.invoke(func.node, ([func.bound] if func.bound is not None else []) + args, kwargs)
        if isinstance(func, _FileClass):
            return self.construct(func.node, args, kwargs, node)
        if isinstance(func, _Method):
            return self.call_method(func.receiver, func.name, args, kwargs, node)
        raise _Stop(f"call of an unknown function `{_text(node.func)}`")

    def invoke(self, function: ast.FunctionDef, args: list, kwargs: dict) -> object:
        if self.depth >= _MAX_DEPTH:
            raise _Stop("calls nested too deep")
        if function.decorator_list:
            names = {self.imports.qualify(d) for d in function.decorator_list}
            if not names <= {"staticmethod"}:
                raise _Stop("decorated function")
            args = args[1:] if names == {"staticmethod"} and args and isinstance(args[0], _Object) else args
        env = self.bind(function.args, args, kwargs)
        self.depth += 1
        self.frames.append((self.owners.get(id(function)), args[0] if args else None))
        try:
            done, value = self.run_body(function.body, env)
        finally:
            self.depth -= 1
            self.frames.pop()
        return value if done else None

    def bind(self, spec: ast.arguments, args: list, kwargs: dict) -> dict:
        env: dict = {}
        positional = list(spec.posonlyargs) + list(spec.args)
        defaults = [None] * (len(positional) - len(spec.defaults)) + list(spec.defaults)
        kwargs = dict(kwargs)
        for index, param in enumerate(positional):
            if index < len(args):
                env[param.arg] = args[index]
            elif param.arg in kwargs:
                env[param.arg] = kwargs.pop(param.arg)
            elif defaults[index] is not None:
                env[param.arg] = self._pure(defaults[index])
            else:
                raise _Stop(f"argument `{param.arg}` not given")
        extra = args[len(positional):]
        if spec.vararg is not None:
            env[spec.vararg.arg] = tuple(extra)
        elif extra:
            raise _Stop("too many arguments")
        for param, default in zip(spec.kwonlyargs, spec.kw_defaults):
            if param.arg in kwargs:
                env[param.arg] = kwargs.pop(param.arg)
            elif default is not None:
                env[param.arg] = self._pure(default)
            else:
                raise _Stop(f"argument `{param.arg}` not given")
        if spec.kwarg is not None:
            env[spec.kwarg.arg] = kwargs
        elif kwargs:
            raise _Stop("unexpected keyword arguments")
        return env

    def construct(self, cls: ast.ClassDef, args: list, kwargs: dict, node: ast.Call | None) -> _Object:
        bases = self._foreign_bases(cls)
        if not all(b in ("torch.nn.Module", "nn.Module", "Module", "object") or b.endswith("nn.Module")
                   for b in bases):
            raise _Stop(f"class `{cls.name}` derives from {', '.join(bases)}")
        instance = _Object(cls)
        init = self.method(cls, "__init__")
        if init is not None:
            self.invoke(init, [instance] + args, kwargs)
        elif args or kwargs:
            raise _Stop("arguments to a class without __init__")
        return instance

    def call_method(self, receiver: object, name: str, args: list, kwargs: dict, node: ast.Call) -> object:
        if isinstance(receiver, _Super):
            method = None
            chain = self.chain(receiver.cls)
            for klass in chain[1:]:
                for statement in klass.body:
                    if isinstance(statement, ast.FunctionDef) and statement.name == name:
                        method = statement
                        break
                if method is not None:
                    break
            if method is not None:
                return self.invoke(method, [receiver.instance] + args, kwargs)
            if name == "__init__":
                return None  # nn.Module.__init__ draws nothing
            raise _Stop(f"super().{name}")
        if isinstance(receiver, _Object):
            return self.object_method(receiver, name, args, kwargs, node)
        if isinstance(receiver, _Tensor):
            return self.tensor_method(receiver, name, args, kwargs, node)
        if isinstance(receiver, _Container):
            if name in ("append", "extend", "insert"):
                if name == "append":
                    receiver.items.append(args[0])
                elif name == "extend":
                    receiver.items.extend(self.iterate(args[0]))
                else:
                    receiver.items.insert(args[0], args[1])
                return receiver
            if name in ("parameters",):
                return [p for item in receiver.items for p in self.parameters(item)]
            if name in ("to", "cuda", "float", "cpu", "train", "requires_grad_"):
                return receiver
            if name in ("items", "keys", "values") and all(isinstance(k, tuple) for k in receiver.items):
                return [k if name == "items" else k[0 if name == "keys" else 1] for k in receiver.items]
            raise _Stop(f"container method {name}")
        if isinstance(receiver, list):
            if name == "append":
                receiver.append(args[0])
                return None
            if name == "extend":
                receiver.extend(self.iterate(args[0]))
                return None
            if name == "insert" and isinstance(args[0], int):
                receiver.insert(args[0], args[1])
                return None
            if name == "pop":
                return receiver.pop(*args)
            if name in ("index", "count") and _plain(args[0]):
                return getattr(receiver, name)(args[0])
            raise _Stop(f"list.{name}")
        if isinstance(receiver, dict):
            if name in ("items", "keys", "values"):
                return list(getattr(receiver, name)())
            if name == "get":
                return receiver.get(*args)
            raise _Stop(f"dict.{name}")
        if isinstance(receiver, (str, int, float, tuple)):
            if isinstance(receiver, tuple) and name in ("index", "count") and _plain(args[0]):
                return getattr(receiver, name)(args[0])
            if isinstance(receiver, str) and name in ("lower", "upper", "format", "startswith", "endswith",
                                                      "strip", "replace", "join", "split"):
                try:
                    return getattr(receiver, name)(*args, **kwargs)
                except Exception:
                    return UNKNOWN
            if isinstance(receiver, (int, float)) and name in ("bit_length", "is_integer"):
                return getattr(receiver, name)()
            return UNKNOWN
        raise _Stop(f"method `{name}` of an unknown value")

    def parameters(self, value: object) -> list[_Tensor]:
        if isinstance(value, _Tensor):
            return [value]
        if isinstance(value, _Container):
            return [p for item in value.items for p in self.parameters(item)]
        if isinstance(value, _Object):
            if value.kind is not None:
                return list(value.params)
            found = []
            for attr in value.attrs.values():
                if isinstance(attr, (_Object, _Container)) or (isinstance(attr, _Tensor) and id(attr) in {
                        id(p) for p in value.params}):
                    found.extend(self.parameters(attr))
            return found
        raise _Stop("parameters of an unknown value")

    def object_method(self, obj: _Object, name: str, args: list, kwargs: dict, node: ast.Call) -> object:
        if name in ("register_buffer", "register_parameter", "add_module", "register_module"):
            if not args or not isinstance(args[0], str):
                raise _Stop(f"{name} with an unknown name")
            value = args[1] if len(args) > 1 else kwargs.get("tensor", kwargs.get("param", kwargs.get("module")))
            obj.attrs[args[0]] = value
            if name == "register_parameter" and isinstance(value, _Tensor):
                obj.params.append(value)
            return None
        if name in ("to", "cuda", "cpu", "float", "double", "half", "train", "eval", "requires_grad_", "type"):
            return obj
        if obj.kind is not None:
            if name == "reset_parameters":
                return self.layer(obj.kind, obj.attrs.get("_args", []), obj.attrs.get("_kwargs", {}), node)
            if name in ("parameters",):
                return list(obj.params)
            raise _Stop(f"method `{name}` of nn.{obj.kind}")
        if name == "parameters":
            return self.parameters(obj)
        raise _Stop(f"method `{name}` not found")

    def tensor_method(self, tensor: _Tensor, name: str, args: list, kwargs: dict, node: ast.Call) -> object:
        if name in _RANDOM_METHODS:
            dist, default = _RANDOM_METHODS[name]
            params = None
            if default is not None:
                values = [kwargs.get(k, args[i] if i < len(args) else default[i])
                          for i, k in enumerate(("from", "to") if dist == "uniform" else ("mean", "std"))]
                params = tuple(float(v) for v in values) if all(_number_like(v) for v in values) else None
            if dist == "uniform" and "from" not in kwargs and "a" in kwargs:
                params = None
            self.record(dist, tensor.shape, params, tensor.device, tensor.dtype, node, tensor)
            return tensor
        if name in _SAME_VALUES:
            if name in ("cuda", "cpu", "to"):
                device = "cuda" if name == "cuda" else "cpu" if name == "cpu" else tensor.device
                if name == "to":
                    for value in list(args) + [kwargs.get("device")]:
                        if isinstance(value, str) or (isinstance(value, _Dotted) is False and value is UNKNOWN):
                            device = _device(value) if isinstance(value, str) else None
                        elif isinstance(value, _Tensor):
                            device = value.device
                copy = _Tensor(tensor.shape, tensor.draws, tensor.dtype, device)
                return copy
            return tensor
        if name in _RESHAPES:
            if name == "t" and tensor.shape is not None and len(tensor.shape) == 2:
                return _Tensor((tensor.shape[1], tensor.shape[0]), tensor.draws, tensor.dtype)
            return _Tensor(None, tensor.draws, tensor.dtype)
        if name == "size":
            if tensor.shape is None:
                return UNKNOWN
            if args and isinstance(args[0], int):
                try:
                    return tensor.shape[args[0]]
                except IndexError:
                    raise _Stop("size() out of range") from None
            return tensor.shape
        if name in ("numel", "nelement"):
            return math.prod(tensor.shape) if tensor.shape is not None else UNKNOWN
        if name == "dim":
            return len(tensor.shape) if tensor.shape is not None else UNKNOWN
        if name in _NO_DRAW_METHODS:
            return UNKNOWN if name in ("item", "tolist", "stride", "data_ptr") else tensor
        if name.endswith("_") and not name.startswith("_"):
            return tensor.transformed()  # an in-place arithmetic update (mul_, add_, ...)
        if name in ("mul", "add", "sub", "div", "abs", "sqrt", "exp", "log", "clamp", "sigmoid", "tanh",
                    "neg", "pow", "square", "sign", "relu", "softmax", "mean", "sum", "norm", "std", "var",
                    "matmul", "mm", "tril", "triu", "cumsum", "fmod", "remainder", "floor", "ceil", "round"):
            tensor.transformed()
            return _Tensor(None, tensor.draws, tensor.dtype)
        raise _Stop(f"tensor method `{name}`")

    def record(self, dist: str, shape, params, device, dtype, node: ast.Call, tensor: _Tensor | None,
               role: str | None = None) -> Draw:
        draw = Draw(dist, _shape(shape), params, device, dtype, node.lineno, node, role)
        self.draws.append(draw)
        if tensor is not None:
            tensor.draws = [draw]
        return draw

    # ---------------------------------------------------------------------------------------- library

    def library(self, name: str, args: list, kwargs: dict, node: ast.Call) -> object:
        if name.startswith("builtins."):
            return self.builtin(name[9:], args, kwargs)
        if name.startswith("math."):
            function = getattr(math, name[5:], None)
            if function is None or not callable(function) or not all(_number_like(a) for a in args):
                return UNKNOWN
            try:
                return function(*args)
            except (TypeError, ValueError, OverflowError):
                return UNKNOWN
        if name.startswith(("numpy.", "np.")):
            short = name.split(".", 1)[1]
            if short.startswith("random"):
                raise _Stop("numpy random")
            if short in ("sqrt", "prod") and all(_number_like(a) for a in args):
                return math.sqrt(args[0]) if short == "sqrt" else math.prod(args)
            return UNKNOWN
        if name.startswith(("torch.nn.init.", "torch.nn.init")) and name.count(".") == 3:
            return self.init_function(name.rsplit(".", 1)[1], args, kwargs, node)
        if name in ("torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer"):
            value = args[0] if args else kwargs.get("data")
            if value is None:
                return _Tensor((0,), [])
            if not isinstance(value, _Tensor):
                raise _Stop("Parameter of an unknown value")
            return value
        if name in ("torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict",
                    "torch.nn.ParameterList", "torch.nn.ParameterDict"):
            items = args
            if name != "torch.nn.Sequential":
                if not args:
                    items = []
                elif isinstance(args[0], dict):
                    items = list(args[0].items())
                else:
                    items = self.iterate(args[0])
            elif len(args) == 1 and isinstance(args[0], dict):
                items = list(args[0].values())
            return _Container(list(items))
        if name.startswith("torch.nn.") and name.count(".") == 2:
            return self.layer(name[9:], args, kwargs, node)
        if name.startswith("torch.nn.functional.") or name.startswith("torch.nn.utils."):
            if name.rsplit(".", 1)[1] in ("dropout", "dropout2d", "dropout3d", "rrelu", "alpha_dropout",
                                          "feature_alpha_dropout", "gumbel_softmax"):
                raise _Stop(f"`{name}` may draw")
            return UNKNOWN
        if name.startswith("torch.utils.cpp_extension.") or name in ("torch.device", "torch.dtype"):
            return UNKNOWN
        if name.startswith("torch.") and name.count(".") == 1:
            return self.torch_function(name[6:], args, kwargs, node)
        if name.startswith(("torch.cuda.", "torch.random.")) and name.rsplit(".", 1)[1] in _SEEDING | {
                "manual_seed_all"}:
            raise _Stop(f"`{name}` reseeds")
        if name.startswith(("torch.backends.", "torch.cuda.", "torch._dynamo.", "torch.jit.",
                            "torch.autograd.")):
            return UNKNOWN
        if name in ("warnings.warn", "logging.info", "logging.warning", "os.environ.get", "os.getenv"):
            return UNKNOWN
        raise _Stop(f"call of `{name}`")

    def builtin(self, name: str, args: list, kwargs: dict) -> object:
        if name in ("print", "setattr", "isinstance", "hasattr", "getattr", "issubclass", "callable", "id",
                    "repr", "str", "format", "type"):
            if name == "setattr" and len(args) == 3 and isinstance(args[0], _Object) and isinstance(args[1], str):
                args[0].attrs[args[1]] = args[2]
                return None
            if name == "getattr" and len(args) >= 2 and isinstance(args[0], _Object) and isinstance(args[1], str):
                value = self.attribute(args[0], args[1])
                return value
            if name == "str" and args and _plain(args[0]):
                return str(args[0])
            if name in ("print",):
                return None
            if name == "isinstance" and len(args) == 2 and _plain(args[0]) and isinstance(args[1], (_Dotted, tuple)):
                types = args[1] if isinstance(args[1], tuple) else (args[1],)
                mapping = {"builtins.int": int, "builtins.float": float, "builtins.tuple": tuple,
                           "builtins.list": list, "builtins.bool": bool, "builtins.str": str}
                if all(isinstance(t, _Dotted) and t.name in mapping for t in types):
                    return isinstance(args[0], tuple(mapping[t.name] for t in types))
            raise _Stop(f"builtin {name}")
        if name == "range":
            if all(isinstance(a, int) and not isinstance(a, bool) for a in args) and 1 <= len(args) <= 3:
                return range(*args)
            raise _Stop("range of unknown bounds")
        if name in ("len",):
            value = args[0]
            if isinstance(value, _Container):
                return len(value.items)
            if isinstance(value, (list, tuple, str, dict, range)):
                return len(value)
            return UNKNOWN
        if name in ("int", "float", "bool", "abs", "round"):
            if args and _number_like(args[0]) or (name == "int" and args and isinstance(args[0], str)):
                try:
                    return {"int": int, "float": float, "bool": bool, "abs": abs, "round": round}[name](*args)
                except (TypeError, ValueError):
                    return UNKNOWN
            if not args and name in ("int", "float", "bool"):
                return {"int": 0, "float": 0.0, "bool": False}[name]
            return UNKNOWN
        if name in ("min", "max", "sum"):
            if len(args) == 1 and isinstance(args[0], range):  # from its ends: range(10**12) is never listed
                span = args[0]
                if not span:
                    return 0 if name == "sum" else UNKNOWN
                first, last = span[0], span[-1]
                return {"min": min(first, last), "max": max(first, last), "sum": len(span) * (first + last) // 2}[name]
            values = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
            if values and all(_number_like(v) for v in values):
                return {"min": min, "max": max, "sum": sum}[name](values)
            return UNKNOWN
        if name in ("tuple", "list"):
            if not args:
                return () if name == "tuple" else []
            items = self.iterate(args[0])
            return tuple(items) if name == "tuple" else list(items)
        if name in ("enumerate", "zip", "reversed", "sorted"):
            try:
                if name == "enumerate":
                    return list(enumerate(self.iterate(args[0]), *args[1:]))
                if name == "zip":
                    return list(zip(*[self.iterate(a) for a in args]))
                if name == "reversed":
                    return list(reversed(self.iterate(args[0])))
                values = self.iterate(args[0])
                if all(_plain(v) for v in values):
                    return sorted(values)
            except TypeError:
                pass
            raise _Stop(f"builtin {name}")
        if name == "dict":
            return dict(kwargs) if not args else UNKNOWN
        if name in ("divmod", "pow") and all(_number_like(a) for a in args):
            try:
                return divmod(*args) if name == "divmod" else pow(*args)
            except (TypeError, ValueError, ZeroDivisionError):
                return UNKNOWN
        raise _Stop(f"builtin {name}")

    def torch_function(self, name: str, args: list, kwargs: dict, node: ast.Call) -> object:
        if name in _SEEDING:
            raise _Stop(f"torch.{name} reseeds")
        if name in ("set_default_dtype", "set_default_device", "set_default_tensor_type", "use_deterministic_algorithms"):
            raise _Stop(f"torch.{name}")
        dtype = _dtype(kwargs.get("dtype", "float32"))
        device = _device(kwargs.get("device", "cpu"))
        if name in _RANDOM_FACTORIES:
            tensor = _Tensor(None, [], dtype, device)
            if name in ("randn", "rand"):
                shape = _size_args(args if "size" not in kwargs else [kwargs["size"]])
                params = (0.0, 1.0)
                self.record("normal" if name == "randn" else "uniform", shape, params, device, dtype, node, tensor)
            elif name in ("randn_like", "rand_like"):
                like = args[0] if args else kwargs.get("input")
                shape = like.shape if isinstance(like, _Tensor) else None
                if "device" not in kwargs:
                    device = None
                self.record("normal" if name == "randn_like" else "uniform", shape, (0.0, 1.0), device, dtype,
                            node, tensor)
            elif name == "randint":
                positional = [a for a in args if not isinstance(a, (tuple, list))]
                sizes = [a for a in args if isinstance(a, (tuple, list))] or [kwargs.get("size")]
                bounds = ([0] + positional)[-2:] if len(positional) == 1 else positional[:2]
                params = tuple(float(b) for b in bounds) if all(_number_like(b) for b in bounds) else None
                self.record("randint", _size_args(sizes), params, device,
                            dtype if "dtype" in kwargs else "int64", node, tensor)
            elif name == "randperm":
                n = args[0] if args else kwargs.get("n")
                self.record("randperm", (n,) if isinstance(n, int) else None, None, device,
                            dtype if "dtype" in kwargs else "int64", node, tensor)
            elif name == "normal":
                mean, std = (list(args) + [None, None])[:2]
                mean = kwargs.get("mean", mean)
                std = kwargs.get("std", std)
                size = kwargs.get("size", args[2] if len(args) > 2 else None)
                if not (_number_like(mean) and _number_like(std)) or size is None:
                    raise _Stop("torch.normal with tensor arguments")
                self.record("normal", _size_args([size]), (float(mean), float(std)), device, dtype, node, tensor)
            else:
                raise _Stop(f"torch.{name}")
            tensor.shape = self.draws[-1].shape
            return tensor
        if name in _FACTORIES:
            if name == "full":
                shape = _size_args(args[:1] if args else [kwargs.get("size")])
            elif name == "eye":
                n = args[0] if args else None
                m = args[1] if len(args) > 1 else n
                shape = (n, m) if isinstance(n, int) and isinstance(m, int) else None
            else:
                shape = _size_args(args if "size" not in kwargs else [kwargs["size"]])
            return _Tensor(shape, [], dtype, device)
        if name in _LIKE_FACTORIES:
            like = args[0] if args else None
            if not isinstance(like, _Tensor):
                return _Tensor(None, [], dtype, None)
            return _Tensor(like.shape, [], dtype if "dtype" in kwargs else like.dtype,
                           device if "device" in kwargs else like.device)
        if name in ("tensor", "as_tensor", "from_numpy", "arange", "linspace", "logspace", "zeros_like",
                    "stack", "cat", "ones_like"):
            for a in args:
                if isinstance(a, _Tensor):
                    a.transformed()
            return _Tensor(None, [], dtype)
        if name in ("float32", "float16", "float64", "bfloat16", "half", "float", "double", "long", "int",
                    "int32", "int64", "bool", "device", "Size", "finfo", "iinfo", "get_default_dtype",
                    "no_grad", "enable_grad", "inference_mode", "is_tensor", "is_grad_enabled"):
            return UNKNOWN
        # other torch functions compute from their arguments and draw nothing
        for a in args:
            if isinstance(a, _Tensor):
                a.transformed()
        return _Tensor(None, [], dtype)

    def init_function(self, name: str, args: list, kwargs: dict, node: ast.Call) -> object:
        tensor = args[0] if args else kwargs.get("tensor")
        if name in _INIT_NO_DRAW:
            if name == "calculate_gain":
                return _gain(args[0] if args else kwargs.get("nonlinearity"),
                             args[1] if len(args) > 1 else kwargs.get("param"))
            return tensor
        if name == "_calculate_fan_in_and_fan_out":
            return _fans(tensor.shape if isinstance(tensor, _Tensor) else None)
        if name == "_calculate_correct_fan":
            mode = args[1] if len(args) > 1 else kwargs.get("mode")
            fan_in, fan_out = _fans(tensor.shape if isinstance(tensor, _Tensor) else None)
            return fan_in if mode == "fan_in" else fan_out
        if not isinstance(tensor, _Tensor):
            raise _Stop(f"nn.init.{name} of an unknown tensor")

        def arg(i: int, key: str, default: object) -> object:
            return kwargs.get(key, args[i] if i < len(args) else default)

        dist, params = None, None
        try:
            if name in ("uniform_", "uniform"):
                dist, params = "uniform", (arg(1, "a", 0.0), arg(2, "b", 1.0))
            elif name in ("normal_", "normal"):
                dist, params = "normal", (arg(1, "mean", 0.0), arg(2, "std", 1.0))
            elif name in ("trunc_normal_",):
                dist, params = "trunc_normal", (arg(1, "mean", 0.0), arg(2, "std", 1.0), arg(3, "a", -2.0),
                                                arg(4, "b", 2.0))
            elif name in ("kaiming_uniform_", "kaiming_normal_", "kaiming_uniform", "kaiming_normal"):
                a, mode, nonlinearity = arg(1, "a", 0), arg(2, "mode", "fan_in"), arg(3, "nonlinearity", "leaky_relu")
                fan_in, fan_out = _fans(tensor.shape)
                if mode not in ("fan_in", "fan_out"):
                    raise _Stop("kaiming mode not known")
                fan = fan_in if mode == "fan_in" else fan_out
                gain = _gain(nonlinearity, a)
                std = gain / math.sqrt(fan) if fan > 0 else 0.0
                if name.startswith("kaiming_uniform"):
                    dist, params = "uniform", (-math.sqrt(3.0) * std, math.sqrt(3.0) * std)
                else:
                    dist, params = "normal", (0.0, std)
            elif name in ("xavier_uniform_", "xavier_normal_", "xavier_uniform", "xavier_normal"):
                gain = arg(1, "gain", 1.0)
                fan_in, fan_out = _fans(tensor.shape)
                if not _number_like(gain):
                    raise _Stop("xavier gain not known")
                std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
                if name.startswith("xavier_uniform"):
                    dist, params = "uniform", (-math.sqrt(3.0) * std, math.sqrt(3.0) * std)
                else:
                    dist, params = "normal", (0.0, std)
            elif name in ("orthogonal_", "orthogonal"):
                dist, params = "orthogonal", (arg(1, "gain", 1.0),)
            elif name in ("sparse_",):
                dist, params = "sparse", (arg(1, "sparsity", None), arg(2, "std", 0.01))
            else:
                raise _Stop(f"nn.init.{name}")
        except (TypeError, ZeroDivisionError, ValueError):
            raise _Stop(f"nn.init.{name} parameters") from None
        if params is not None and not all(_number_like(p) for p in params):
            params = None
        elif params is not None:
            params = tuple(float(p) for p in params)
        self.record(dist, tensor.shape, params, tensor.device, tensor.dtype, node, tensor)
        return tensor

    # ----------------------------------------------------------------------------------------- layers

    def layer(self, kind: str, args: list, kwargs: dict, node: ast.Call) -> _Object:
        layer = _Object(kind=kind)
        layer.attrs["_args"], layer.attrs["_kwargs"] = list(args), dict(kwargs)
        if kind in _NO_DRAW_MODULES:
            return layer
        names = _CONV_ARGS if kind in _CONV else _CONV_T_ARGS if kind in _CONV_T else \
            _PLAIN_RNN_ARGS if kind == "RNN" else _RNN_ARGS if kind in _RNN_GATES else _LAYER_ARGS.get(kind)
        if names is None:
            raise _Stop(f"nn.{kind} (its init is not known)")
        if len(args) > len(names) or any(k not in names for k in kwargs):
            raise _Stop(f"nn.{kind} arguments")
        bound = dict(zip(names, args))
        bound.update(kwargs)
        layer.attrs.update({k: v for k, v in bound.items() if not k.startswith("_")})
        device = _device(bound.get("device", "cpu"))
        dtype = _dtype(bound.get("dtype", "float32"))
        def need(key: str, default: object = None) -> object:
            value = bound.get(key, default)
            if value is UNKNOWN or isinstance(value, (_Tensor, _Object)):
                raise _Stop(f"nn.{kind}: `{key}` not known")
            return value

        def param(shape: tuple, dist: str, params: tuple | None, what: str, attr: str) -> None:
            tensor = _Tensor(shape, [], dtype, device)
            self.record(dist, shape, params, device, dtype, node, tensor, what)
            layer.params.append(tensor)
            layer.attrs[attr] = tensor

        def tensor_only(shape: tuple, attr: str) -> None:
            tensor = _Tensor(shape, [], dtype, device)
            layer.params.append(tensor)
            layer.attrs[attr] = tensor

        def ints(*values: object) -> bool:
            return all(isinstance(v, int) and not isinstance(v, bool) for v in values)

        if kind == "Linear" or kind == "Bilinear":
            bias = need("bias", True)
            if kind == "Linear":
                fan_in, out = need("in_features"), need("out_features")
                shape: tuple = (out, fan_in)
            else:
                in1, in2, out = need("in1_features"), need("in2_features"), need("out_features")
                if not ints(in1, in2):
                    raise _Stop("nn.Bilinear sizes")
                fan_in, shape = in1, (out, in1, in2)
            if not ints(fan_in, out):
                raise _Stop(f"nn.{kind} sizes not known")
            bound_value = 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0
            param(shape, "uniform", (-bound_value, bound_value), "the weight", "weight")
            if bias:
                param((out,), "uniform", (-bound_value, bound_value), "the bias", "bias")
            else:
                layer.attrs["bias"] = None
            layer.attrs["in_features"], layer.attrs["out_features"] = fan_in, out
            return layer
        if kind in _CONV or kind in _CONV_T:
            dims = _CONV.get(kind) or _CONV_T[kind]
            cin, cout, groups, bias = need("in_channels"), need("out_channels"), need("groups", 1), need("bias", True)
            kernel = need("kernel_size")
            kernel = tuple(kernel) if isinstance(kernel, (tuple, list)) else (kernel,) * dims
            if not ints(cin, cout, groups, *kernel) or len(kernel) != dims or groups <= 0:
                raise _Stop(f"nn.{kind} sizes not known")
            if kind in _CONV:
                shape = (cout, cin // groups) + kernel
            else:
                shape = (cin, cout // groups) + kernel
            receptive = math.prod(kernel)
            fan_in = shape[1] * receptive
            bound_value = 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0
            param(shape, "uniform", (-bound_value, bound_value), "the weight", "weight")
            if bias:
                param((cout,), "uniform", (-bound_value, bound_value), "the bias", "bias")
            else:
                layer.attrs["bias"] = None
            layer.attrs["kernel_size"] = kernel
            for key in ("stride", "padding", "dilation", "output_padding"):
                value = bound.get(key, 0 if "padding" in key else 1)
                if isinstance(value, int) and not isinstance(value, bool):
                    value = (value,) * dims
                layer.attrs[key] = value
            layer.attrs["groups"] = groups
            return layer
        if kind == "Embedding":
            num, dim = need("num_embeddings"), need("embedding_dim")
            if bound.get("_weight") is not None:
                raise _Stop("nn.Embedding with _weight")
            if not ints(num, dim):
                raise _Stop("nn.Embedding sizes not known")
            param((num, dim), "normal", (0.0, 1.0), "the weight", "weight")
            return layer
        if kind in _RNN_GATES or kind in _CELL_GATES:
            gates = _RNN_GATES.get(kind) or _CELL_GATES[kind]
            cell = kind in _CELL_GATES
            size_in, hidden, bias = need("input_size"), need("hidden_size"), need("bias", True)
            layers = 1 if cell else need("num_layers", 1)
            directions = 1 if cell or not need("bidirectional", False) else 2
            proj = 0 if cell else need("proj_size", 0)
            if not ints(size_in, hidden, layers, proj) or hidden <= 0 or not 0 < layers <= 4096:
                raise _Stop(f"nn.{kind} sizes not known")
            stdv = 1.0 / math.sqrt(hidden)
            real_hidden = proj if proj > 0 else hidden
            suffix_attrs = []
            for index in range(layers):
                for direction in range(directions):
                    width = size_in if index == 0 else real_hidden * directions
                    suffix = "" if cell else f"_l{index}" + ("_reverse" if direction else "")
                    shapes = [("weight_ih", (gates * hidden, width)), ("weight_hh", (gates * hidden, real_hidden))]
                    if bias:
                        shapes += [("bias_ih", (gates * hidden,)), ("bias_hh", (gates * hidden,))]
                    if proj > 0:
                        shapes.append(("weight_hr", (proj, hidden)))
                    suffix_attrs.extend((name + suffix, shape) for name, shape in shapes)
            for attr, shape in suffix_attrs:  # reset_parameters: uniform over self.parameters(), in order
                param(shape, "uniform", (-stdv, stdv), f"`{attr}`", attr)
            return layer
        if kind == "MultiheadAttention":
            embed, heads, bias = need("embed_dim"), need("num_heads"), need("bias", True)
            if need("add_bias_kv", False) or need("kdim") not in (None, embed) or need("vdim") not in (None, embed):
                raise _Stop("nn.MultiheadAttention with kdim/vdim or bias_kv")
            if not ints(embed, heads):
                raise _Stop("nn.MultiheadAttention sizes not known")
            tensor_only((3 * embed, embed), "in_proj_weight")
            b = 1 / math.sqrt(embed)
            out_proj = _Object(kind="Linear")
            tensor = _Tensor((embed, embed), [], dtype, device)
            self.record("uniform", (embed, embed), (-b, b), device, dtype, node, tensor,
                        "the out_proj weight")
            out_proj.attrs["weight"] = tensor
            out_proj.params.append(tensor)
            if bias:
                tensor = _Tensor((embed,), [], dtype, device)
                self.record("uniform", (embed,), (-b, b), device, dtype, node, tensor,
                            "the out_proj bias")
                out_proj.attrs["bias"] = tensor
                out_proj.params.append(tensor)
            layer.attrs["out_proj"] = out_proj
            x = math.sqrt(3.0) * math.sqrt(2.0 / (4 * embed))
            self.record("uniform", (3 * embed, embed), (-x, x), device, dtype, node, layer.params[0],
                        "the in_proj_weight (xavier_uniform_)")
            return layer
        raise _Stop(f"nn.{kind}")


_BUILTINS = {"range", "len", "int", "float", "bool", "abs", "round", "min", "max", "sum", "tuple", "list",
             "enumerate", "zip", "reversed", "sorted", "dict", "divmod", "pow", "print", "setattr", "getattr",
             "isinstance", "hasattr", "issubclass", "callable", "id", "repr", "str", "format", "type", "super"}


def _known(value: object) -> bool:
    """A value whose identity is known (not a stand-in for something not computed)."""
    return _plain(value) or isinstance(value, (_Tensor, _Object, _Container, _FileClass, _FileFunction, _Super))


def _plain(value: object) -> bool:
    if isinstance(value, (tuple, list)):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (int, float, str, bool))


def _number_like(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) or isinstance(value, bool)


def _shape(value: object) -> tuple[int, ...] | None:
    if isinstance(value, tuple) and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in value):
        return value
    return None


def _size_args(args: list) -> tuple[int, ...] | None:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = list(args[0])
    if args and all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return tuple(args)
    return None


def _dtype(value: object) -> str | None:
    if value == "float32":
        return value
    if isinstance(value, _Dotted) and value.name.startswith("torch."):
        short = value.name[6:]
        return {"float": "float32", "half": "float16", "double": "float64"}.get(short, short)
    return None


def _device(value: object) -> str | None:
    if value in ("cpu", None):
        return "cpu"
    if isinstance(value, str):
        return "cuda" if value.startswith("cuda") else None
    if isinstance(value, int) and not isinstance(value, bool):
        return "cuda"
    return None


def _text(node: ast.AST) -> str:
    return short_text(ast.unparse(node), 80)


# ------------------------------------------------------------------------------------------- the API


def init_inputs(module: ast.Module) -> list | None:
    """The values `get_init_inputs()` of a (reference) module returns; None when not computable."""
    function = next((s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == "get_init_inputs"), None)
    if function is None:
        return None
    interpreter = _Interpreter(module)
    try:
        value = interpreter.invoke(function, [], {})
    except (_Stop, RecursionError, ArithmeticError, LookupError, TypeError, ValueError, AttributeError):
        return None
    if isinstance(value, tuple):
        value = list(value)
    if not isinstance(value, list) or interpreter.draws or not all(_plain(v) for v in value):
        return None
    return value


def init_draws(module: ast.Module, class_name: str, args: list, imports: ImportMap | None = None) -> InitDraws | None:
    """The random draws of `class_name(*args)` defined in `module`, in order; None without the class.
    `imports`: the module's ImportMap, when the caller has it."""
    interpreter = _Interpreter(module, imports)
    cls = interpreter.classes.get(class_name)
    if cls is None:
        return None
    try:
        interpreter.construct(cls, list(args), {}, None)
    except _Stop as stop:
        return InitDraws(interpreter.draws, False, stop.reason)
    except (RecursionError, ArithmeticError, LookupError, TypeError, ValueError, AttributeError) as error:
        # a construct the interpreter does not model: what came before is still exact
        return InitDraws(interpreter.draws, False, type(error).__name__)
    return InitDraws(interpreter.draws, True)


@dataclass
class ReferenceInit:
    path: str
    args: list  # get_init_inputs()
    draws: InitDraws


@lru_cache(maxsize=1024)
def _reference_init_cached(path: str, mtime: float) -> ReferenceInit | None:
    parsed = read_python(path, mtime)
    if parsed is None:
        return None
    return reference_init_of_module(parsed[0], path)


def reference_init_of_module(module: ast.Module, path: str) -> ReferenceInit | None:
    """The reference's `get_init_inputs()` and the draws of `Model(*get_init_inputs())`; None when
    either is not known."""
    args = init_inputs(module)
    if args is None:
        return None
    draws = init_draws(module, "Model", args)
    if draws is None:
        return None
    return ReferenceInit(path, args, draws)


def reference_init(path: str) -> ReferenceInit | None:
    """`reference_init_of_module` of the file at `path`, parsed once per process (by path and mtime)."""
    try:
        mtime = os.path.getmtime(path)
    except OSError:
        return None
    return _reference_init_cached(os.path.abspath(path), mtime)


# ------------------------------------------------------------------------------------------ comparing


def same_shape(a: tuple[int, ...] | None, b: tuple[int, ...] | None) -> bool:
    """Shapes that fill the same elements from the same stream in the same order: equal once size-1
    dimensions are dropped, or one merges adjacent dimensions of the other ((o, i*k*k) and (o, i, k, k))."""
    if a is None or b is None:
        return True
    a = tuple(d for d in a if d != 1)
    b = tuple(d for d in b if d != 1)
    if a == b:
        return True
    if math.prod(a) != math.prod(b):
        return False

    def cuts(shape: tuple[int, ...]) -> set[int]:
        found, product = set(), 1
        for d in shape:
            product *= d
            found.add(product)
        return found

    ca, cb = cuts(a), cuts(b)
    return ca <= cb or cb <= ca


def same_draw(a: Draw, b: Draw) -> bool:
    if a.dist != b.dist:
        return False
    if not same_shape(a.shape, b.shape):
        return False
    if a.device is not None and b.device is not None and a.device != b.device:
        return False
    if a.dtype is not None and b.dtype is not None and a.dtype != b.dtype:
        return False
    if a.params is not None and b.params is not None:
        if len(a.params) != len(b.params) or not all(_close(x, y) for x, y in zip(a.params, b.params)):
            return False
    return True


def first_difference(reference: InitDraws, solution: InitDraws) -> int | None:
    """The index of the first draw the two sequences both know and that differs; None when every draw
    both know is the same (trailing extra or missing draws are not differences: an unused parameter
    created last, a bias a BatchNorm cancels)."""
    for index, (ref, sol) in enumerate(zip(reference.draws, solution.draws)):
        if not same_draw(ref, sol):
            return index
    return None


# ------------------------------------------------------------------------------------ constructed layers


@dataclass
class LayerCall:
    """A torch.nn layer the constructor stored on the model: its class name and constructor arguments,
    as evaluated (a value the interpreter could not compute is `UNKNOWN`)."""

    kind: str
    args: list
    kwargs: dict


def model_layers(module: ast.Module, args: list, class_name: str = "Model") -> tuple[dict[str, LayerCall],
                                                                                      dict[str, object]] | None:
    """The torch.nn layers `class_name(*args)` stores on `self` (attribute -> LayerCall) and its other
    plain attributes (numbers, tuples); None when the constructor cannot be followed to its end."""
    interpreter = _Interpreter(module)
    cls = interpreter.classes.get(class_name)
    if cls is None:
        return None
    try:
        instance = interpreter.construct(cls, list(args), {}, None)
    except (_Stop, RecursionError, ArithmeticError, LookupError, TypeError, ValueError, AttributeError):
        return None
    layers, plain = {}, {}
    for name, value in instance.attrs.items():
        if isinstance(value, _Object) and value.kind is not None:
            layers[name] = LayerCall(value.kind, value.attrs.get("_args", []), value.attrs.get("_kwargs", {}))
        elif _plain(value):
            plain[name] = value
    return layers, plain
