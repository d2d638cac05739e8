"""The values of the `__init__` interpreter (`init_order.py`): the draws it records (`Draw`, `InitDraws`),
the stand-ins for tensors, objects, containers, names and the file's functions and classes, `UNKNOWN` for
what it cannot compute, and `_Stop` for where it cannot follow the constructor.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field

from cudalint.findings import short_text


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
