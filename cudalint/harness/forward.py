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
- *Torch compute*: expressions that compute with PyTorch (`ForwardFlow.typing`, in `harness.torch_compute`).

The statements of a function that the harness runs, and their places in the document, are
`harness.statements`; what the harness rules share about one document (its flow, its reference),
`harness.document_state`.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

from cudalint import pyast
from cudalint.harness.kernelbench import ImportMap, Solution, builder_name, callee_name
from cudalint.harness.statements import _calls, _names_in_target, _own_nodes, always_run_statements, evaluated_nodes
from cudalint.harness.torch_compute import _NONCOMPUTE_MODULES, _NONCOMPUTE_NAMESPACES, Typing

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

_BUILTINS = set(dir(builtins))


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


# ------------------------------------------------------------------------------- what always runs


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


