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

The interpreter's values live in `init_values.py`, what its calls of builtins, torch and torch.nn do in
`torch_calls.py`, and the facts about torch's random stream those read in `torch_draws.py`.
"""

from __future__ import annotations

import ast
import math
import os
from dataclasses import dataclass
from functools import lru_cache

from cudalint.harness.init_values import (
    UNKNOWN, _BUILTINS, Draw, InitDraws, _Container, _Dotted, _FileClass, _FileFunction, _Method, _Object, _Stop,
    _Super, _Tensor, _close, _device, _known, _number_like, _plain, _shape, _text,
)
from cudalint.harness.kernelbench import ImportMap, import_map, read_python
from cudalint.harness.torch_calls import _TorchCalls
from cudalint.harness.torch_draws import _NO_DRAW_METHODS, _RANDOM_METHODS, _RESHAPES, _SAME_VALUES


_MAX_STEPS = 20000
_MAX_DEPTH = 24


# ------------------------------------------------------------------------------------------ evaluator


class _Interpreter(_TorchCalls):
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
        if func == _Dotted("builtins.getattr") and len(args) == 2 and isinstance(args[1], str) and not kwargs:
            return self.attribute(args[0], args[1])  # `getattr(ext, "fn")` reads what `ext.fn` reads
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
        if function.decorator_list:  # a memoizing decorator returns what the function returns
            names = {self.imports.qualify(d.func if isinstance(d, ast.Call) else d) for d in function.decorator_list} \
                - {"functools.lru_cache", "functools.cache"}
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
