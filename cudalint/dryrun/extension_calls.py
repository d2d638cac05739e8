"""The dry-run worker's model of compiled extensions (`Extensions`): `load_inline` and `load` replaced by
objects whose functions check their arguments by pybind11's conversion rules, record the call (and what it
aliases and writes) and return a tensor of the modelled shape (the model: extension.py, in the parent).

Part of the dry-run worker (`worker.py`, run as a script): it imports nothing of cudalint, only the standard
library and the worker's modules beside it; torch is passed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .worker import Recorder


def find_alias(torch, output, candidates: list) -> int | None:
    """The position in `candidates` of the tensor `output` is, or shares storage with."""
    if not isinstance(output, torch.Tensor):
        return None
    for position, candidate in enumerate(candidates):
        if not isinstance(candidate, torch.Tensor):
            continue
        if candidate is output or _same_storage(candidate, output):
            return position
    return None


def _same_storage(a, b) -> bool:
    from torch._subclasses.fake_tensor import FakeTensor

    if isinstance(a, FakeTensor) or isinstance(b, FakeTensor):
        return False  # no storage to compare: identity alone
    try:
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr() and a.untyped_storage().nbytes() > 0
    except Exception:  # noqa: BLE001 - fake tensors have no data pointer
        return False


class Extensions:
    """`load_inline` and `load` replaced: each returns an object whose functions check their arguments
    by pybind11's conversion rules, record the call and return a tensor of the modelled shape."""

    def __init__(self, torch, recorder: Recorder, model: list[dict]) -> None:
        self.torch = torch
        self.recorder = recorder
        self.model = model
        self.call: dict | None = None
        self.custom_ids: dict[int, object] = {}  # id -> weakref of tensors derived from custom results
        self.made_at: dict[int, tuple] = {}  # id -> (weakref, line, call index) of custom results
        self.written: list = []  # tensors written by a modelled launcher during this call
        self.pointers: dict[int, object] = {}  # data_ptr() -> weakref of its tensor (real tensors), for raw launches
        self.unmodelled = 0

    def install(self) -> None:
        import torch.utils.cpp_extension as cpp_extension

        owner = self

        def load_inline(name, cpp_sources=None, cuda_sources=None, functions=None, *args, **kwargs):
            line = owner.recorder.solution_line()
            return owner.build(name, functions, line)

        def load(name, sources=None, *args, **kwargs):
            return owner.build(name, None, owner.recorder.solution_line())

        cpp_extension.load_inline = load_inline
        cpp_extension.load = load

    def build(self, name, functions, line):
        if isinstance(functions, str):
            functions = [functions]
        entry = None
        for candidate in self.model:
            if line is not None and candidate["line"] <= line <= candidate.get("end_line", candidate["line"]):
                entry = candidate
        if entry is None and functions:
            entry = next((c for c in self.model if set(c["functions"]) == set(functions)), None)
        if entry is None:
            entry = next((c for c in self.model if c.get("name") == name), None)
        known = dict(entry["functions"]) if entry else {}
        for function in functions or []:
            known.setdefault(function, {"known": False})
        return _ExtensionModule(self, name, known, entry is not None)

    # bookkeeping per forward call
    def begin(self, call: dict) -> None:
        self.call = call
        self.written = []
        self.call_unmodelled = 0

    def end(self, call: dict, output) -> None:
        call["unmodelled_results"] = self.call_unmodelled
        call["output_from_custom"] = self.derives(output) if output is not None else False
        self.call = None

    def inputs_written(self, inputs) -> set[int]:
        found = set()
        for tensor in self.written:
            position = find_alias(self.torch, tensor, list(inputs))
            if position is not None:
                found.add(position)
        return found

    def made(self, output) -> dict | None:
        if not isinstance(output, self.torch.Tensor):
            return None
        held = self.made_at.get(id(output))
        if held is None or held[0]() is not output:
            return None
        return {"line": held[1], "call": held[2], "function": held[3], "allocation": held[4]}

    def mark(self, tensor) -> None:
        import weakref

        if isinstance(tensor, self.torch.Tensor):
            try:
                self.custom_ids[id(tensor)] = weakref.ref(tensor)
            except TypeError:
                pass

    def derives(self, value) -> bool:
        """Whether `value` (a tensor, or a tuple of them) holds a result of custom work."""
        if isinstance(value, (tuple, list)):
            return any(self.derives(v) for v in value)
        if not isinstance(value, self.torch.Tensor):
            return False
        held = self.custom_ids.get(id(value))
        return held is not None and held() is value

    def propagate(self, args, kwargs, result) -> None:
        """A torch operation on custom results makes custom results (`out.copy_(y)` marks `out`)."""
        if not self.custom_ids:
            return
        flat = list(args) + list(kwargs.values())
        if any(self.derives(a) for a in flat):
            if isinstance(result, (tuple, list)):
                for value in result:
                    self.mark(value)
            else:
                self.mark(result)

    def _record(self, module: str, name: str, modelled: bool, line: int | None) -> dict | None:
        """Count a call of compiled code in this forward call's `custom` entries (one per function and line)."""
        self.recorder.facts["extension_calls"] += 1
        call = self.call
        if call is None:
            return None
        for entry in call["custom"]:
            if entry["function"] == name and entry["line"] == line:
                entry["count"] += 1
                break
        else:
            entry = {"function": name, "extension": module, "line": line, "count": 1, "rejected": 0,
                     "modelled": modelled, "stack": [], "empty": []}
            call["custom"].append(entry)
        entry["stack"] = sorted(set(entry["stack"]) | set(self.recorder.solution_stack()[:16]))
        return entry

    def unmodelled_result(self) -> None:
        """A result whose shape the dry run guessed (a cupy ElementwiseKernel without its output array)."""
        self.unmodelled += 1
        if self.call is not None:
            self.call_unmodelled += 1

    def launch(self, backend: str, name: str, grid, arguments) -> None:
        """A kernel of another backend (Triton, cupy, CuTe DSL) launched: recorded like a compiled call, with
        its grid; it writes nothing here, and every tensor among its arguments may be written by it, so each
        counts as holding custom results (never as proof that an input was written)."""
        line = self.recorder.solution_line()
        entry = self._record(backend, name, False, line)
        if entry is not None and "grid" not in entry:
            entry["grid"] = _plain_grid(grid)
        for value in arguments:
            tensor = unwrapped(self.torch, value)
            if isinstance(tensor, int) and tensor in self.pointers:  # `x.data_ptr()` passed to a raw kernel
                tensor = self.pointers[tensor]()
            if isinstance(tensor, self.torch.Tensor):
                self.mark(tensor)
                held = self.made_at.get(id(tensor))
                if held is not None and held[0]() is tensor and self.call is not None and held[2] == self.call["index"]:
                    self.note_made(tensor, line, function=name)  # made in this call, then filled by the kernel

    def invoke(self, module: str, name: str, spec: dict, args: tuple, kwargs: dict):
        torch = self.torch
        recorder = self.recorder
        line = recorder.solution_line()
        call = self.call
        entry = self._record(module, name, bool(spec.get("known")), line)
        if spec.get("known"):
            try:
                _check_arguments(torch, name, spec, args, kwargs)
            except TypeError:
                if entry is not None:
                    entry["rejected"] += 1
                raise
            args = _bind(spec, args, kwargs)
        else:
            args = list(args) + list(kwargs.values())
        if entry is not None:
            empty = {i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and a.numel() == 0}
            entry["empty"] = sorted(set(entry["empty"]) | empty)
        for position in spec.get("writes", []):
            if position < len(args) and isinstance(args[position], torch.Tensor):
                self.written.append(args[position])
                self.mark(args[position])
        result, modelled = self._result(spec, args)
        if not modelled:
            self.unmodelled += 1
            if call is not None:
                self.call_unmodelled += 1
        for tensor in (result if isinstance(result, tuple) else (result,)):
            if isinstance(tensor, torch.Tensor):
                self.mark(tensor)
                self.note_made(tensor, line, function=name, origin=spec.get("result_line") if modelled else None)
        return result

    def note_made(self, tensor, line: int | None, function: str | None = None, origin: int | None = None) -> None:
        """Where the solution made a tensor during a forward call: its line, the call, the compiled function and
        the line of the C++ allocation it returned."""
        import weakref

        if line is None:
            return
        try:
            self.made_at[id(tensor)] = (weakref.ref(tensor), line, self.call["index"] if self.call else None,
                                        function, origin)
        except TypeError:
            pass

    def _result(self, spec: dict, args: list):
        torch = self.torch
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        returns = spec.get("returns", "unknown")
        if returns == "void":
            return None, True
        if returns == "scalar":
            return 0, False
        result = spec.get("result") if spec.get("known") else None
        if returns == "tensor" and result is not None:
            if "same" in result:
                return args[result["same"]], True
            try:
                shape = _shape(result, args)
                dtype = _dtype(torch, result.get("dtype"), args)
            except (IndexError, KeyError, TypeError, ValueError, ZeroDivisionError):
                shape = dtype = None
            if shape is not None and dtype is not None:
                return torch.zeros(shape, dtype=dtype), True
        if not tensors:
            return torch.zeros(()), False
        return torch.zeros_like(tensors[0]), False


class _ExtensionModule:
    def __init__(self, owner: Extensions, name, functions: dict, modelled: bool) -> None:
        self._owner, self._name, self._functions = owner, name, functions
        self._modelled = modelled

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        spec = self._functions.get(attribute)
        if spec is None:
            if self._modelled and all(s.get("known") for s in self._functions.values()) and self._functions:
                raise AttributeError(f"module '{self._name}' has no attribute '{attribute}'")
            spec = {"known": False}
        owner, module = self._owner, self._name

        def bound(*args, **kwargs):
            return owner.invoke(module, attribute, spec, args, kwargs)

        bound.__name__ = attribute
        return bound


def _check_arguments(torch, name: str, spec: dict, args: tuple, kwargs: dict) -> None:
    params = spec["params"]
    message = _mismatch(torch, spec, args, kwargs)
    if message is not None:
        signature = ", ".join(f"arg{i}: {p['kind']}" for i, p in enumerate(params))
        raise TypeError(f"{name}(): incompatible function arguments. The following argument types are supported:\n"
                        f"    1. ({signature})\n\nInvoked with: {message}")


def _mismatch(torch, spec: dict, args: tuple, kwargs: dict) -> str | None:
    params = spec["params"]
    if kwargs and not spec.get("keywords"):
        return f"keyword argument {next(iter(kwargs))}= (the binding names no arguments)"
    names = [p["name"] for p in params]
    unknown = [k for k in kwargs if k not in names]
    if unknown:
        return f"unknown keyword argument {unknown[0]}="
    given = len(args) + len(kwargs)
    required = len(params) - int(spec.get("defaults") or 0)
    if given > len(params) or given < required:
        return f"{given} argument(s) where the function takes {len(params)}"
    values = list(args) + [kwargs[n] for n in names[len(args):] if n in kwargs]
    for position, (value, param) in enumerate(zip(values, params)):
        why = _rejects(torch, param["kind"], value)
        if why:
            return f"argument {position + 1} ({param['name']}) is {why} where C++ takes {param['kind']}"
    return None


def _rejects(torch, kind: str, value) -> str | None:
    """Why pybind11 cannot convert `value` to a parameter of conversion class `kind`; None when it can."""
    if kind == "tensor":
        return None if isinstance(value, torch.Tensor) else _what(value)
    if kind == "optional_tensor":
        return None if value is None or isinstance(value, torch.Tensor) else _what(value)
    if kind == "int":
        return _what(value) if isinstance(value, float) or value is None or isinstance(value, (str, list, tuple)) \
            else None
    if kind in ("float", "scalar"):
        return _what(value) if value is None or isinstance(value, (str, list, tuple)) else None
    if kind == "int_list":
        return _what(value) if value is None or isinstance(value, (str, float)) else None
    if kind == "string":
        return None if isinstance(value, str) else _what(value)
    return None


def _what(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, (int, float)):
        return f"a Python {type(value).__name__} ({value!r})"
    return f"a {type(value).__name__}"


def _bind(spec: dict, args: tuple, kwargs: dict) -> list:
    names = [p["name"] for p in spec["params"]]
    return list(args) + [kwargs[n] for n in names[len(args):] if n in kwargs]


def _shape(result: dict, args: list) -> list[int]:
    if "like" in result:
        return list(args[result["like"]].shape)
    return [_value(e, args) for e in result["sizes"]]


def _value(expression: dict, args: list) -> int:
    if "int" in expression:
        return int(expression["int"])
    if "arg" in expression:
        value = args[expression["arg"]]
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("not an integer argument")
        return value
    if "size" in expression:
        tensor, dim = expression["size"]
        return int(args[tensor].shape[_value(dim, args)])
    if "numel" in expression:
        return int(args[expression["numel"]].numel())
    if "dim" in expression:
        return int(args[expression["dim"]].dim())
    if "item" in expression:
        sequence, index = expression["item"]
        return int(args[sequence][_value(index, args)])
    left, right = (_value(e, args) for e in expression["args"])
    op = expression["op"]
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if op == "/":
        return int(left / right) if (left < 0) != (right < 0) else left // right
    return left - right * int(left / right)


def _dtype(torch, dtype, args: list):
    if dtype is None:
        return None
    if isinstance(dtype, dict):
        return args[dtype["of"]].dtype
    return getattr(torch, dtype)


def unwrapped(torch, value):
    """The torch tensor a backend's wrapper holds (a cupy array, a CuTe tensor), or the value itself."""
    return getattr(value, "tensor", value) if not isinstance(value, torch.Tensor) else value


def _plain_grid(grid) -> list[int] | None:
    if isinstance(grid, int) and not isinstance(grid, bool):
        return [grid]
    if isinstance(grid, (tuple, list)) and all(isinstance(g, int) and not isinstance(g, bool) for g in grid):
        return [int(g) for g in grid]
    return None
