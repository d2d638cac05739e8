"""How `ModelNew.forward` reaches the compiled CUDA, read from the Python AST.

- *Handles*: values that are the compiled code: the result of `load_inline` (an extension module), of
  cupy's `RawKernel`/`RawModule`/`get_function`, and what is derived from them (`mod.fn`,
  `self.op = mod`, a function returning the module). Tracked flow-insensitively by variable name and
  by `self` attribute name.
- *Forward path*: `ModelNew.forward` and every function of the file it calls: its methods
  (`self.helper(x)`), module-level functions, `forward` of in-file submodules (`self.block(x)`) and of
  in-file `torch.autograd.Function`s (`Fn.apply(x)`).
- *Invocations*: calls on the forward path that run compiled code (`mod.fn(x)`, `self.op.fn(x)`,
  `kernel(grid, block, args)`).
- *Torch compute*: expressions that compute with PyTorch (`torch.relu(x)`, `x @ w`, `self.conv(x)`),
  as opposed to torch used to allocate (`torch.empty_like`), reshape (`x.view`) or set up weights.
"""

from __future__ import annotations

import ast
import builtins
import os
import re
import weakref
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from cudalint import pyast
from cudalint.harness.kernelbench import (ImportMap, RunEntry, Solution, builder_name, callee_name, parse_solution,
                                         problem_of_path)

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

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
_BUILTINS = set(dir(builtins))
_ALLOCATORS = {"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full",
               "full_like", "new_empty", "new_zeros", "new_ones", "new_full", "empty_cache_like"}
_BINARY_OPERATIONS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.MatMult: "matmul",
                      ast.Pow: "pow", ast.FloorDiv: "floordivide"}
# torch.nn containers: what they compute is what their members are
_CONTAINER_MODULES = {"Sequential", "ModuleList", "ModuleDict"}
_SCALAR_ANNOTATIONS = {"int", "float", "bool", "str", "tuple", "list", "dict", "Tuple", "List", "Dict",
                       "Optional", "Sequence"}


@dataclass
class FunctionInfo:
    node: _FunctionNode
    cls: ast.ClassDef | None
    self_name: str | None  # the first parameter of a method; None for functions and static methods
    callees: list[FunctionInfo] = field(default_factory=list)
    invocations: list[ast.Call] = field(default_factory=list)  # calls that run compiled code
    invokes: bool = False  # runs compiled code, here or through a callee on the forward path


class ForwardFlow:
    """The forward path of ModelNew and the handles on compiled code (see the module docstring)."""

    def __init__(self, solution: Solution, model: ast.ClassDef | None = None) -> None:
        """The forward path of `model`, by default the solution's ModelNew."""
        self.solution = solution
        self.imports: ImportMap = solution.imports
        self.name_handles: dict[str, str] = {}  # variable -> "ext" | "kernel" | "rawmodule" | "callable"
        self.attr_handles: dict[str, str] = {}  # self attribute -> kind
        self.function_handles: dict[str, str] = {}  # function or method name -> kind of handle it returns
        # self attribute -> the in-file classes of the modules it is or holds (a container's members)
        self.attr_classes: dict[str, list[ast.ClassDef]] = {}
        self.attr_torch_modules: dict[str, str] = {}  # self attribute -> torch.nn class name
        # self attribute -> the torch.nn constructor call, for attributes assigned one exactly once
        self.attr_torch_module_calls: dict[str, ast.Call | None] = {}
        self.attr_tensors: set[str] = set()  # self attributes holding tensors (parameters, buffers)
        self._collect()
        self.forward: ast.FunctionDef | None = None
        self.functions: list[FunctionInfo] = []
        model = model or solution.model_new
        if model is not None:
            forward = solution.method(model, "forward")
            if isinstance(forward, ast.FunctionDef):
                self.forward = forward
                self._walk_forward_path(model, forward)

    # ---------------------------------------------------------------------------------------- handles

    def handle_kind(self, expr: ast.expr | None, depth: int = 0) -> str | None:
        if expr is None or depth > 20:
            return None
        if isinstance(expr, ast.Call):
            name = builder_name(expr, self.imports)
            qualified = self.imports.qualify(expr.func) or ""
            if name == "load_inline" or (name == "load" and "cpp_extension" in qualified):
                return "ext"
            if name in ("RawKernel", "ElementwiseKernel", "ReductionKernel"):
                return "kernel"
            if name == "RawModule":
                return "rawmodule"
            if name == "get_function" and isinstance(expr.func, ast.Attribute) and self.handle_kind(
                    expr.func.value, depth + 1) == "rawmodule":
                return "kernel"
            if name == "getattr" and expr.args and self.handle_kind(expr.args[0], depth + 1) == "ext":
                return "callable"
            if qualified in ("functools.partial", "partial") and expr.args and self.handle_kind(
                    expr.args[0], depth + 1) in ("callable", "kernel"):
                return "callable"
            if isinstance(expr.func, ast.Name) and expr.func.id in self.function_handles:
                return self.function_handles[expr.func.id]
            if isinstance(expr.func, ast.Attribute) and isinstance(expr.func.value, ast.Name) \
                    and expr.func.value.id in ("self", "cls") and expr.func.attr in self.function_handles:
                return self.function_handles[expr.func.attr]
            return None
        if isinstance(expr, ast.Name):
            return self.name_handles.get(expr.id)
        if isinstance(expr, ast.Attribute):
            if isinstance(expr.value, ast.Name) and expr.value.id in ("self", "cls") \
                    and expr.attr in self.attr_handles:
                return self.attr_handles[expr.attr]
            if isinstance(expr.value, ast.Name) and expr.value.id in self.solution.classes \
                    and expr.attr in self.attr_handles:
                return self.attr_handles[expr.attr]  # a class attribute: ModelNew.ext
            base = self.handle_kind(expr.value, depth + 1)
            if base == "ext":
                return "callable"
            return None
        if isinstance(expr, ast.IfExp):
            return self.handle_kind(expr.body, depth + 1) or self.handle_kind(expr.orelse, depth + 1)
        if isinstance(expr, ast.BoolOp):
            for value in expr.values:
                kind = self.handle_kind(value, depth + 1)
                if kind:
                    return kind
        return None

    def is_invocation(self, call: ast.Call) -> bool:
        """A call that runs compiled code: `mod.fn(x)`, `self.op.fn(x)`, `kernel(grid, block, args)`."""
        kind = self.handle_kind(call.func)
        if kind in ("callable", "kernel"):
            return True
        qualified = self.imports.qualify(call.func) or ""
        if qualified.startswith("torch.ops.") and not qualified.startswith(("torch.ops.aten.", "torch.ops.prims.")):
            return bool(self.solution.load_inline_calls)
        return False

    def bound_function_calls(self) -> list[tuple[str, ast.Call]]:
        """(bound function name, call) for forward's own calls of compiled functions (`ext.fn(x)`,
        `self.op.fn(x)`): their positional arguments are the C++ function's parameters, in order."""
        if self.forward is None:
            return []
        return [(call.func.attr, call) for call in pyast.of_type(self.forward, ast.Call)
                if isinstance(call.func, ast.Attribute) and self.is_invocation(call)]

    def _collect(self) -> None:
        module = self.solution.module
        assigns: list[tuple[ast.expr, ast.expr, bool]] = []  # (target, value, in a class body)
        class_bodies = {id(s) for c in self.solution.classes.values() for s in c.body}
        returns: list[tuple[str, ast.expr]] = []
        for node in pyast.of_type(module, ast.Assign, ast.AnnAssign, ast.FunctionDef, ast.AsyncFunctionDef):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    assigns.append((target, node.value, id(node) in class_bodies))
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                assigns.append((node.target, node.value, id(node) in class_bodies))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for sub in _own_nodes(node):
                    if isinstance(sub, ast.Return) and sub.value is not None:
                        returns.append((node.name, sub.value))
        for _ in range(8):
            changed = False
            for target, value, in_class in assigns:
                kind = self.handle_kind(value)
                if kind is None:
                    continue
                if isinstance(target, ast.Name):
                    table, key = (self.attr_handles if in_class else self.name_handles), target.id
                elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id in ("self", "cls"):
                    table, key = self.attr_handles, target.attr
                else:
                    continue
                if table.get(key) != kind:
                    table[key] = kind
                    changed = True
            for name, value in returns:
                kind = self.handle_kind(value)
                if kind and self.function_handles.get(name) != kind:
                    self.function_handles[name] = kind
                    changed = True
            if not changed:
                break
        for target, value, _ in assigns:
            if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                    and target.value.id == "self"):
                continue
            if isinstance(value, ast.Call):
                qualified = self.imports.qualify(value.func) or ""
                if isinstance(value.func, ast.Name) and value.func.id in self.solution.classes:
                    pass  # an in-file module: attr_classes below
                elif qualified.startswith("torch.nn.") and qualified.count(".") == 2:
                    last = qualified.rsplit(".", 1)[-1]
                    if last in ("Parameter", "Buffer"):
                        self.attr_tensors.add(target.attr)
                    elif last not in _NONCOMPUTE_MODULES and last[:1].isupper():
                        self.attr_torch_modules[target.attr] = last
                        self.attr_torch_module_calls[target.attr] = (
                            None if target.attr in self.attr_torch_module_calls else value)
                elif qualified.startswith("torch.") and not qualified.startswith(_NONCOMPUTE_NAMESPACES):
                    self.attr_tensors.add(target.attr)
        for function in pyast.of_type(module, ast.FunctionDef, ast.AsyncFunctionDef):
            for node in pyast.of_type(function, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                            and target.value.id == "self":
                        classes = self._module_classes(node.value, function, set())
                        if classes:
                            known = self.attr_classes.setdefault(target.attr, [])
                            known.extend(c for c in classes if c not in known)
        for node in pyast.of_type(module, ast.Call):
            if callee_name(node) == "register_buffer" and node.args and \
                    isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                self.attr_tensors.add(node.args[0].value)

    def _module_classes(self, expr: ast.AST, scope: _FunctionNode, seen: set) -> list[ast.ClassDef]:
        """The in-file classes of the modules `expr` builds or holds, in `scope`: `Block(c)`, containers of
        them (`nn.Sequential(*layers)`, `nn.ModuleList([Block(c) for c in cs])`), a local list filled with
        `append`, a helper that returns them (`self._make_layer(...)`)."""
        solution = self.solution
        found: list[ast.ClassDef] = []

        def add(classes) -> None:
            found.extend(c for c in classes if c not in found)

        for node in pyast.walk(expr):
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Name) and func.id in solution.classes:
                    add([solution.classes[func.id]])
                helper = solution.functions.get(func.id) if isinstance(func, ast.Name) else (
                    self._method_named(func.attr) if isinstance(func, ast.Attribute) and isinstance(
                        func.value, ast.Name) and func.value.id == "self" else None)
                if helper is not None and ("return", id(helper)) not in seen:
                    seen.add(("return", id(helper)))
                    for sub in _own_nodes(helper):
                        if isinstance(sub, ast.Return) and sub.value is not None:
                            add(self._module_classes(sub.value, helper, seen))
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and (id(scope), node.id) not in seen:
                seen.add((id(scope), node.id))
                add(self._module_classes_of_local(node.id, scope, seen))
        return found

    def _module_classes_of_local(self, name: str, scope: _FunctionNode, seen: set) -> list[ast.ClassDef]:
        found: list[ast.ClassDef] = []
        for sub in _own_nodes(scope):
            values: list[ast.AST] = []
            if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and sub.value is not None:
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                if any(name in _names_in_target(t) for t in targets):
                    values.append(sub.value)
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                    and isinstance(sub.func.value, ast.Name) and sub.func.value.id == name \
                    and sub.func.attr in ("append", "extend", "insert", "add_module", "update"):
                values.extend(sub.args)
            for value in values:
                found.extend(c for c in self._module_classes(value, scope, seen) if c not in found)
        return found

    def _method_named(self, name: str) -> _FunctionNode | None:
        for cls in self.solution.classes.values():
            method = self.solution.method(cls, name)
            if method is not None:
                return method
        return None

    # ---------------------------------------------------------------------------------- forward path

    def _walk_forward_path(self, model: ast.ClassDef, forward: ast.FunctionDef) -> None:
        infos: dict[int, FunctionInfo] = {}

        def info_for(node: _FunctionNode, cls: ast.ClassDef | None) -> FunctionInfo:
            if id(node) not in infos:
                self_name = None
                is_static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
                if cls is not None and node.args.args and not is_static:
                    self_name = node.args.args[0].arg
                infos[id(node)] = FunctionInfo(node, cls, self_name)
                queue.append(infos[id(node)])
            return infos[id(node)]

        queue: list[FunctionInfo] = []
        info_for(forward, model)
        index = 0
        while index < len(queue):
            info = queue[index]
            index += 1
            for call in _calls(info.node):
                if self.is_invocation(call):
                    info.invocations.append(call)
                    continue
                for target, cls in self._call_targets(call, info):
                    callee = info_for(target, cls)
                    if callee not in info.callees:
                        info.callees.append(callee)
        self.functions = queue
        # propagate "invokes" up the call graph
        for info in queue:
            info.invokes = bool(info.invocations)
        for _ in range(len(queue) + 1):
            changed = False
            for info in queue:
                if not info.invokes and any(c.invokes for c in info.callees):
                    info.invokes = changed = True
            if not changed:
                break

    def _call_targets(self, call: ast.Call, info: FunctionInfo) -> list[tuple[_FunctionNode, ast.ClassDef | None]]:
        solution = self.solution
        func = call.func
        found: list[tuple[_FunctionNode, ast.ClassDef | None]] = []
        if isinstance(func, ast.Attribute):
            value = func.value
            if isinstance(value, ast.Name) and info.self_name and value.id == info.self_name and info.cls:
                method = solution.method(info.cls, func.attr)
                if method is not None:
                    found.append((method, _owner(solution, info.cls, method)))
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super" \
                    and info.cls is not None:
                for klass in solution.class_chain(info.cls)[1:]:
                    method = solution.method(klass, func.attr)
                    if method is not None:
                        found.append((method, klass))
                        break
            if isinstance(value, ast.Name) and value.id in solution.classes and func.attr in ("apply", "forward"):
                klass = solution.classes[value.id]
                method = solution.method(klass, "forward")
                if method is not None:
                    found.append((method, klass))
            if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) \
                    and value.value.id == info.self_name and func.attr in ("forward", "__call__"):
                found.extend(self._forwards(self.attr_classes.get(value.attr, [])))  # self.block.forward(x)
        if isinstance(func, ast.Subscript):
            func = func.value  # self.layers[i](x): a member of the container
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == info.self_name:
            found.extend(self._forwards(self.attr_classes.get(func.attr, [])))
        if isinstance(func, ast.Name):
            found.extend(self._forwards(self._loop_classes(func.id, info)))
            if func.id in solution.functions:  # `helper(self, x)`: a method in all but name, of the caller's class
                passes_self = bool(call.args) and isinstance(call.args[0], ast.Name) and info.self_name is not None \
                    and call.args[0].id == info.self_name
                found.append((solution.functions[func.id], info.cls if passes_self else None))
            nested = _nested_function(info.node, func.id)
            if nested is not None:
                found.append((nested, info.cls))
        if isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id in solution.classes:
            klass = solution.classes[func.func.id]
            method = solution.method(klass, "forward") or solution.method(klass, "__call__")
            if method is not None:
                found.append((method, klass))
        return found

    def _forwards(self, classes: list[ast.ClassDef]) -> list[tuple[_FunctionNode, ast.ClassDef]]:
        found = []
        for klass in classes:
            method = self.solution.method(klass, "forward") or self.solution.method(klass, "__call__")
            if method is not None:
                found.append((method, klass))
        return found

    def _loop_classes(self, name: str, info: FunctionInfo) -> list[ast.ClassDef]:
        """The in-file classes of the container members a loop of `info` binds to `name`:
        `for layer in self.layers:`, `for i, block in enumerate(self.blocks.values()):`."""
        found: list[ast.ClassDef] = []
        for loop in (n for n in _own_nodes(info.node) if isinstance(n, (ast.For, ast.comprehension))):
            if name not in _names_in_target(loop.target):
                continue
            for sub in pyast.walk(loop.iter):
                if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) \
                        and sub.value.id == info.self_name:
                    found.extend(c for c in self.attr_classes.get(sub.attr, []) if c not in found)
        return found

    @property
    def reaches_kernel(self) -> bool:
        return bool(self.functions) and self.functions[0].invokes

    def info(self, node: _FunctionNode) -> FunctionInfo | None:
        return next((i for i in self.functions if i.node is node), None)

    def callees_of(self, call: ast.Call, info: FunctionInfo) -> list[FunctionInfo]:
        """The functions of the forward path that `call`, made in `info`, may run."""
        found = (self.info(node) for node, _ in self._call_targets(call, info))
        return [callee for callee in found if callee is not None]

    def invoking_calls(self, node: ast.AST, info: FunctionInfo) -> list[ast.Call]:
        """Calls under `node` that run compiled code, directly or through a forward-path callee."""
        found = []
        for call in (n for n in pyast.walk(node) if isinstance(n, ast.Call)):
            if self.is_invocation(call):
                found.append(call)
            elif any(self.info(t) is not None and self.info(t).invokes for t, _ in self._call_targets(call, info)):
                found.append(call)
        return found

    def unresolved_calls(self) -> list[ast.Call]:
        """Calls on the forward path whose target cudalint cannot name: a subscripted or computed
        callee, an attribute of self that is neither a method nor a known submodule, a local callable.
        Any of them might run the kernel."""
        if hasattr(self, "_unresolved"):
            return self._unresolved
        solution = self.solution
        unresolved = []
        # a method of the file's classes called on an object cudalint did not follow (`owner._relu(x)` where
        # `owner = self.__dict__["_owner"]`): it may be that method, which may run the kernel
        methods = {n.name for cls in [*solution.classes.values(), solution.model_new] if cls is not None
                   for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for info in self.functions:
            local_functions = {n.name for n in pyast.walk(info.node) if isinstance(n, ast.FunctionDef)}
            for node in pyast.walk(info.node):
                if not isinstance(node, ast.Call) or self.is_invocation(node) or self._call_targets(node, info):
                    continue
                func = node.func
                if isinstance(func, ast.Name):
                    if func.id in _BUILTINS or func.id in solution.functions or func.id in solution.classes \
                            or func.id in self.imports.aliases or func.id in local_functions \
                            or func.id in self.name_handles:
                        continue
                    unresolved.append(node)
                elif isinstance(func, ast.Attribute):
                    if isinstance(func.value, ast.Name) and info.self_name and func.value.id == info.self_name:
                        attr = func.attr
                        if info.cls is not None and solution.method(info.cls, attr) is not None:
                            continue
                        if attr in self.attr_classes or attr in self.attr_torch_modules or attr in self.attr_handles:
                            continue
                        unresolved.append(node)
                    elif func.attr in methods and not func.attr.startswith("__"):
                        unresolved.append(node)
                elif not isinstance(func, ast.Call):
                    unresolved.append(node)  # subscripted or computed callee
        self._unresolved = unresolved
        return unresolved

    # ------------------------------------------------------------------------------- torch compute

    def typing(self, info: FunctionInfo) -> Typing:
        """The (cached) typing of one forward-path function."""
        cache = self.__dict__.setdefault("_typings", {})
        if id(info) not in cache:
            cache[id(info)] = Typing(self, info)
        return cache[id(info)]


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


def harness_polarity(test: ast.expr) -> bool | None:
    """The value a condition has when a KernelBench harness runs forward: on CUDA tensors (`x.is_cuda`:
    True; `not x.is_cuda`, `x.device.type == "cpu"`: False) and in training mode (`self.training`: True,
    the harness never calls `.eval()`); None when it depends on anything else."""
    if isinstance(test, ast.BoolOp):
        values = [harness_polarity(v) for v in test.values]
        decisive = isinstance(test.op, ast.Or)  # True decides an `or`, False an `and`
        if decisive in values:
            return decisive
        return None if None in values else not decisive
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = harness_polarity(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.Attribute) and test.attr == "training":
        return True
    text = ast.unparse(test)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and "device" in text:
        equal = isinstance(test.ops[0], (ast.Eq, ast.Is))
        if not equal and not isinstance(test.ops[0], (ast.NotEq, ast.IsNot)):
            return None
        if "'cpu'" in text or '"cpu"' in text:
            return not equal
        if "'cuda'" in text or '"cuda"' in text:
            return equal
        return None
    if isinstance(test, (ast.Attribute, ast.Call)):
        if text.endswith((".is_cuda", "torch.cuda.is_available()")):
            return True
        if text.endswith(".is_cpu"):
            return False
    return None


def _asks_grad_mode(test: ast.expr) -> bool:
    """`torch.is_grad_enabled()`, `x.requires_grad`: whether the harness grades with autograd on is
    its own choice, so both sides of such a branch are graded."""
    return any((isinstance(n, ast.Attribute) and n.attr == "requires_grad")
               or (isinstance(n, ast.Call) and callee_name(n) in ("is_grad_enabled", "is_inference_mode_enabled"))
               for n in pyast.walk(test))


@dataclass
class GradedPaths:
    """How the statements of a function run under a KernelBench harness (see `harness_polarity`)."""

    ungraded: set[int]  # ids of statements it never runs (CPU-only, eval-only)
    conditional: set[int]  # ids of statements it runs only when a condition it does not decide holds


_GRADED, _CONDITIONAL, _UNGRADED = 0, 1, 2


def graded_paths(function: _FunctionNode) -> GradedPaths:
    paths = GradedPaths(set(), set())
    _add_graded(function.body, _GRADED, paths)
    return paths


def _add_graded(body: list[ast.stmt], state: int, paths: GradedPaths) -> None:
    # a function, not a recursive closure: that would be a reference cycle keeping the module's AST alive
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if state == _UNGRADED:
            paths.ungraded.add(id(statement))
        elif state == _CONDITIONAL:
            paths.conditional.add(id(statement))
        if isinstance(statement, ast.If):
            polarity = harness_polarity(statement.test)
            open_question = polarity is None and not _asks_grad_mode(statement.test)
            inner = _CONDITIONAL if open_question else _GRADED
            body_state = max(state, _UNGRADED if polarity is False else inner)
            else_state = max(state, _UNGRADED if polarity is True else inner)
            _add_graded(statement.body, body_state, paths)
            _add_graded(statement.orelse, else_state, paths)
            # what follows a branch that returns runs only when the branch is not taken
            if _exits(statement.body):
                state = max(state, {True: _UNGRADED, False: state, None: inner}[polarity])
            if _exits(statement.orelse):
                state = max(state, {False: _UNGRADED, True: state, None: inner}[polarity])
            continue
        for name in ("body", "orelse", "finalbody"):
            _add_graded(getattr(statement, name, []) or [], state, paths)
        for handler in getattr(statement, "handlers", []) or []:
            _add_graded(handler.body, state, paths)


def _exits(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


def _owner(solution: Solution, cls: ast.ClassDef, method: _FunctionNode) -> ast.ClassDef:
    for klass in solution.class_chain(cls):
        if method in klass.body:
            return klass
    return cls


def _nested_function(function: _FunctionNode, name: str) -> _FunctionNode | None:
    for node in pyast.walk(function):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not function and node.name == name:
            return node
    return None


def _own_nodes(function: _FunctionNode):
    """Every node of `function`, nested functions included (closures run as part of it)."""
    for statement in function.body:
        yield from pyast.walk(statement)


def _calls(function: _FunctionNode) -> list[ast.Call]:
    return [n for n in _own_nodes(function) if isinstance(n, ast.Call)]


def _targets_and_value(statement: ast.stmt) -> tuple[list[ast.expr], ast.expr | None]:
    if isinstance(statement, ast.Assign):
        return statement.targets, statement.value
    if isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
        return [statement.target], statement.value
    if isinstance(statement, ast.For):
        return [statement.target], statement.iter
    if isinstance(statement, ast.With):
        pairs = [(i.optional_vars, i.context_expr) for i in statement.items if i.optional_vars is not None]
        if pairs:
            return [pairs[0][0]], pairs[0][1]
    return [], None


def _names_in_target(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _names_in_target(e)]
    if isinstance(target, ast.Starred):
        return _names_in_target(target.value)
    if isinstance(target, ast.Subscript):
        return _names_in_target(target.value)  # out[...] = value writes out
    return []


SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr)  # no body of their own


def statements_in_order(function: _FunctionNode) -> list[ast.stmt]:
    """The statements of `function` (not of nested functions) in source order, each compound statement
    before the statements of its bodies."""
    found: list[ast.stmt] = []
    _add_statements(function.body, found)
    return found


def _add_statements(body: list[ast.stmt], found: list[ast.stmt]) -> None:
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        found.append(statement)
        for name in ("body", "orelse", "finalbody"):
            _add_statements(getattr(statement, name, []) or [], found)
        for handler in getattr(statement, "handlers", []) or []:
            _add_statements(handler.body, found)
        for case in getattr(statement, "cases", []) or []:
            _add_statements(case.body, found)


# ------------------------------------------------------------------------------------ per-document state


# ------------------------------------------------------------------------------- what always runs

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_NOT_RUN_HERE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def always_run_functions(flow: ForwardFlow | None) -> list[FunctionInfo]:
    """forward, and the functions of the forward path that a statement forward always runs calls (a
    single target: a helper method, an in-file function, an autograd Function's forward), transitively."""
    forward = next((info for info in flow.functions if info.node is flow.forward), None) if flow else None
    if forward is None:
        return []
    found, seen = [forward], {id(forward.node)}
    for info in found:
        for statement in always_run_statements(info.node):
            for call in (n for n in evaluated_nodes(statement) if isinstance(n, ast.Call)):
                callees = flow.callees_of(call, info)
                if len(callees) == 1 and id(callees[0].node) not in seen:
                    seen.add(id(callees[0].node))
                    found.append(callees[0])
    return found


def always_run_statements(method: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    """The statements of `method` that run every time it runs (up to its first exit), in order."""
    found: list[ast.stmt] = []
    _add_always_run(method.body, graded_paths(method), found)
    return found


def _add_always_run(body: list[ast.stmt], paths: GradedPaths, found: list[ast.stmt]) -> bool:
    """Add the statements of `body` that always run; True when it always exits (return, raise). A function,
    not a recursive closure: that would be a reference cycle keeping the module's AST alive."""
    for statement in body:
        if id(statement) in paths.ungraded or id(statement) in paths.conditional \
                or isinstance(statement, _NOT_RUN_HERE):
            continue
        found.append(statement)
        if isinstance(statement, (ast.Return, ast.Raise)):
            return True
        exits = False
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            exits = _add_always_run(statement.body, paths, found)
        elif isinstance(statement, ast.If):
            exits = _add_always_run(statement.body, paths, found) & _add_always_run(statement.orelse, paths, found)
        elif isinstance(statement, ast.Try) and not statement.handlers:
            exits = _add_always_run(statement.body, paths, found) | _add_always_run(statement.finalbody, paths, found)
        if exits:
            return True
    return False


def evaluated_nodes(statement: ast.stmt) -> list[ast.AST]:
    """The nodes a statement's own expressions evaluate on every execution (its header only, for a
    compound statement), in source order."""
    if isinstance(statement, ast.If):
        roots = [statement.test]
    elif isinstance(statement, _LOOPS):
        roots = [statement.iter] if isinstance(statement, (ast.For, ast.AsyncFor)) else [statement.test]
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        roots = [item.context_expr for item in statement.items]
    elif isinstance(statement, ast.Try):
        roots = []
    else:
        roots = [statement]
    nodes: list[ast.AST] = []
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        if isinstance(node, _NOT_RUN_HERE):
            continue
        nodes.append(node)
        if isinstance(node, ast.IfExp):
            children = [node.test]
        elif isinstance(node, ast.BoolOp):
            children = node.values[:1]
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            children = [node.generators[0].iter]
        else:
            children = list(ast.iter_child_nodes(node))
        stack.extend(reversed(children))
    return sorted((n for n in nodes if hasattr(n, "lineno")), key=lambda n: (n.lineno, n.col_offset))



def line_location(document, line: int):
    """The Location of a whole line of the document (leading indentation excluded)."""
    from cudalint.findings import Location

    lines = document.lines
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    start = len(text) - len(text.lstrip()) + 1
    return Location(document.path, line, start, line, max(len(text) + 1, start + 1))


def node_location(document, node: ast.AST):
    """The Location of a Python AST node; a node spanning several lines is reported on its first."""
    from cudalint.findings import Location

    end_line = getattr(node, "end_lineno", None) or node.lineno
    if end_line != node.lineno:
        return line_location(document, node.lineno)
    end_offset = getattr(node, "end_col_offset", None) or node.col_offset
    # Python's offsets count UTF-8 bytes; a column counts characters, as editors do
    line = document.lines[node.lineno - 1].encode("utf-8") if 0 < node.lineno <= len(document.lines) else b""
    start, end = (len(line[:offset].decode("utf-8", "ignore")) + 1 for offset in (node.col_offset, end_offset))
    return Location(document.path, node.lineno, start, end_line, end)



class DocumentState:
    """What the harness rules share about the document being linted: the solution, its forward flow,
    and the parsed CUDA units seen so far (unit-scope rules collect them, one call per unit)."""

    def __init__(self, document) -> None:
        self.document = document
        self.units: list = []  # UnitFacts, in document order
        self.cache: dict = {}
        self._solution: Solution | None = None
        self._flow: ForwardFlow | None = None
        self._recorded: set[int] = set()  # ids of `units`: each rule records each unit
        self._by_text: dict[tuple[str, str], object] = {}  # (text, language) -> the first unit of `units`
        self._by_text_count = 0  # how many of `units` `_by_text` holds

    def record(self, facts) -> None:
        if id(facts) not in self._recorded:
            self._recorded.add(id(facts))
            self.units.append(facts)

    def unit_with_text(self, text: str, language: str):
        """The first recorded unit (UnitFacts) of that text and language, or None."""
        for facts in self.units[self._by_text_count:]:
            self._by_text.setdefault((facts.unit.text, facts.unit.language), facts)
        self._by_text_count = len(self.units)
        return self._by_text.get((text, language))

    @property
    def solution(self) -> Solution | None:
        document = self.document
        if document.kind != "python" or document.python_module is None:
            return None
        if self._solution is None:
            self._solution = parse_solution(document.python_module, document.text, document.path)
        return self._solution

    @property
    def flow(self) -> ForwardFlow | None:
        if self._flow is None and self.solution is not None:
            self._flow = ForwardFlow(self.solution)
        return self._flow


def state_of(document) -> DocumentState:
    return document.analysis(DocumentState)


def record_unit(ctx) -> tuple[DocumentState, bool]:
    """Record the unit a unit-scope rule is looking at; returns the state and whether this is the
    document's last unit (then every unit that parsed has been recorded)."""
    state = state_of(ctx.document)
    facts = ctx.facts
    state.record(facts)
    return state, facts.unit is ctx.document.units[-1]


def reference_of(ctx):
    """The reference problem of the document being linted: `options.reference`, else the problem found
    in `options.problems` by the file's run-directory name, else the `get_inputs` of the file itself;
    None when none is known."""
    from cudalint.harness.kernelbench import parse_reference, reference_for, reference_from_module

    state = state_of(ctx.document)
    if "reference" not in state.cache:
        options = ctx.options
        found = None
        path = reference_for(ctx.document.path, getattr(options, "reference", None),
                             getattr(options, "problems", None))
        if path is not None:
            found = parse_reference(path)
        if found is None and ctx.document.python_module is not None:
            found = reference_from_module(ctx.document.python_module, ctx.document.path)
        state.cache["reference"] = found
    return state.cache["reference"]


def problem_of(ctx) -> RunEntry | None:
    """The KernelBench level and problem of the document being linted: from its reference's path when a
    reference is known, else from the document's own path; None when neither names a level."""
    reference = reference_of(ctx)
    for path in (reference.path if reference is not None else None, ctx.document.path):
        entry = problem_of_path(path) if path else None
        if entry is not None:
            return entry
    return None


def reference_operations(ctx) -> frozenset[str] | None:
    """The torch operations (`Typing.operation` names) the reference's `Model.forward` computes; None
    without a reference file, or when forward reaches something whose operations cannot be named (a
    torch container, a call that cannot be followed)."""
    reference = reference_of(ctx)
    if reference is None or os.path.abspath(reference.path) == os.path.abspath(ctx.document.path):
        return None
    try:
        mtime = os.path.getmtime(reference.path)
    except OSError:
        return None
    return _reference_operations(os.path.abspath(reference.path), mtime)


@lru_cache(maxsize=64)
def _reference_operations(path: str, mtime: float) -> frozenset[str] | None:
    from cudalint.harness.kernelbench import read_python

    parsed = read_python(path, mtime)
    if parsed is None:
        return None
    module, text = parsed
    solution = parse_solution(module, text, path)
    model = solution.classes.get("Model")
    flow = ForwardFlow(solution, model) if model is not None else None
    if flow is None or flow.forward is None or flow.unresolved_calls() or any(
            kind in _CONTAINER_MODULES for kind in flow.attr_torch_modules.values()):
        return None
    found = set()
    for info in flow.functions:
        typing = flow.typing(info)
        for statement in statements_in_order(info.node):
            found.update(typing.operation(node) for node in typing.compute_nodes(statement))
    return frozenset(found) or None
