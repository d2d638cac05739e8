"""Where forward's inputs and its call history go on the forward path, read from the Python AST.

Built on `ForwardFlow` (the forward path and its call graph). Per forward-path function, in source order:

- *Input aliases*: the names that are (views of) one of forward's input tensors: its parameters, and
  what `view`, `reshape`, `contiguous`, slicing and friends make of them. A forward-path callee's
  parameters are inputs where its call sites pass input aliases.
- *Mutations*: in-place writes to an input alias (`x.zero_()`, `x[...] = v`, `x += v`, `out=x`,
  `inplace=True`), and the positions of input aliases in calls that run compiled code (the C++ side
  decides whether those write).
- *Input dependence*: for each name, the forward inputs its value is computed from; shapes, dtypes and
  allocations (`torch.zeros_like(x)`) carry none.
- *Persistent state*: `self` attributes, module globals and class attributes that forward writes, so
  that they outlive the call (caches, counters, captured CUDA graphs); a `return` of such state, or
  under a condition on it, on a path that computes nothing replays an earlier call's result.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from functools import cached_property

from cudalint import pyast
from cudalint.harness.forward import ForwardFlow, FunctionInfo
from cudalint.harness.kernelbench import callee_name
from cudalint.harness.statements import statements_in_order

# methods (and torch functions) whose result is the same storage as their tensor argument
VIEW_METHODS = {"view", "reshape", "contiguous", "flatten", "unflatten", "squeeze", "unsqueeze", "permute",
                "transpose", "t", "expand", "expand_as", "view_as", "reshape_as", "narrow", "select", "detach",
                "to", "cuda", "float", "type_as", "as_strided", "diagonal", "movedim", "swapaxes", "unfold",
                "requires_grad_", "squeeze_", "unsqueeze_", "t_", "transpose_"}
_VIEW_ATTRIBUTES = {"T", "mT", "H", "mH", "data", "real"}
# in-place-named methods that do not write the tensor's elements
_METADATA_INPLACE = {"requires_grad_", "share_memory_", "detach_", "retain_grad", "squeeze_", "unsqueeze_",
                     "t_", "transpose_", "resize_as_", "record_stream", "pin_memory_"}
# reading these of a tensor reads no element
_METADATA = {"shape", "size", "numel", "dim", "ndim", "dtype", "device", "is_cuda", "stride", "nelement",
             "ndimension", "element_size", "is_contiguous", "data_ptr", "layout", "get_device", "storage_offset",
             "requires_grad", "is_floating_point", "nbytes", "itemsize", "type", "untyped_storage"}
ALLOCATORS = {"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full",
              "full_like", "new_empty", "new_zeros", "new_ones", "new_full", "tensor", "as_tensor", "arange",
              "linspace", "eye", "rand", "randn", "randint", "rand_like", "randn_like", "randint_like",
              "zero_", "fill_"}
# container methods that store into the container
_STORE_METHODS = {"append", "extend", "insert", "update", "setdefault", "add", "__setitem__", "put"}
_BUILTINS = set(dir(builtins))
UNKNOWN = "?"  # a dependence cudalint cannot name (a global, an attribute forward writes)

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class Mutation:
    node: ast.AST  # the statement or call that writes
    name: str  # the input alias written
    how: str  # the write, as written


@dataclass
class FunctionFacts:
    info: FunctionInfo
    inputs: set[str]  # the parameters that receive forward's inputs
    mutations: list[Mutation] = field(default_factory=list)
    # compiled-code calls and the argument positions that receive input aliases
    kernel_inputs: list[tuple[ast.Call, set[int]]] = field(default_factory=list)
    # callee calls and the argument positions that receive input aliases (for the callee's inputs)
    passes: list[tuple[ast.Call, dict[int, str]]] = field(default_factory=list)
    depends: dict[str, frozenset[str]] = field(default_factory=dict)  # name -> forward inputs it comes from
    returns: list[tuple[ast.Return, frozenset[str], bool]] = field(default_factory=list)  # (return, deps, alias)
    touched: set[str] = field(default_factory=set)  # input aliases passed to any call (it may write them)
    slices: list[tuple[ast.Subscript, str]] = field(default_factory=list)  # stepped slices of input aliases


class Dataflow:
    """The facts above for every function of a `ForwardFlow`."""

    def __init__(self, flow: ForwardFlow) -> None:
        self.flow = flow
        self.module_names = {t.id for s in flow.solution.module.body if isinstance(s, (ast.Assign, ast.AnnAssign))
                             for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
                             if isinstance(t, ast.Name)}
        self.facts: dict[int, FunctionFacts] = {}
        if not flow.functions:
            return
        inputs: dict[int, set[str]] = {id(flow.functions[0]): set(_tensor_parameters(flow.functions[0]))}
        for info in flow.functions:  # the queue is in call order: callers before callees
            facts = self._analyse(info, inputs.get(id(info), set()))
            self.facts[id(info)] = facts
            for call, positions in facts.passes:
                for target, _ in flow._call_targets(call, info):
                    callee = flow.info(target)
                    if callee is None or id(callee) in self.facts:
                        continue
                    params = [a.arg for a in target.args.posonlyargs + target.args.args]
                    passes_self = bool(call.args) and isinstance(call.args[0], ast.Name) \
                        and call.args[0].id == info.self_name  # `helper(self, x)`, `Cls.forward(self, x)`
                    if callee.self_name and params and params[0] == callee.self_name and not passes_self:
                        params = params[1:]
                    received = inputs.setdefault(id(callee), set())
                    received.update(params[i] for i in positions if i < len(params))
                    received.update(k for k in positions.values() if k in params)

    def of(self, info: FunctionInfo) -> FunctionFacts:
        return self.facts[id(info)]

    # ------------------------------------------------------------------------------ persistent state

    def persistent_key(self, expr: ast.expr, info: FunctionInfo) -> str | None:
        """The state outliving the call that `expr` reads or writes: `self.cache`, `self.cache[k]`,
        `self.cache.get(k)` -> "self.cache"; a module global `_CACHE[k]` -> "global._CACHE"."""
        while True:
            if isinstance(expr, ast.Subscript):
                expr = expr.value
            elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in (
                    "get", "setdefault", "pop", "clone", "detach", "__getitem__", "view_as", "to"):
                expr = expr.func.value
            else:
                break
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            base = expr.value.id
            if info.self_name and base == info.self_name:
                return f"self.{expr.attr}"
            if base in self.flow.solution.classes:
                return f"self.{expr.attr}"  # a class attribute is shared by every instance
        if isinstance(expr, ast.Name) and (expr.id in self.module_names or expr.id in _declared_global(info.node)):
            return f"global.{expr.id}"
        return None

    @cached_property
    def written_state(self) -> set[str]:
        """The persistent state forward's path writes: assigns, stores into, or hands to compiled code."""
        found: set[str] = set()
        for info in self.flow.functions:
            for node in pyast.walk(info.node):
                targets: list[ast.expr] = []
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    targets = [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                        node.func.attr in _STORE_METHODS or node.func.attr.endswith("_")):
                    targets = [node.func.value]
                elif isinstance(node, ast.Call) and callee_name(node) == "setattr" and node.args:
                    targets = [node.args[0]] if not (isinstance(node.args[0], ast.Name)
                                                     and node.args[0].id == info.self_name) else []
                    if not targets and len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                        found.add(f"self.{node.args[1].value}")
                if isinstance(node, ast.Call) and self.flow.is_invocation(node):
                    targets = targets + list(node.args)
                for target in targets:
                    key = self.persistent_key(target, info)
                    if key is not None:
                        found.add(key)
        return found

    def reads_history(self, expr: ast.AST, info: FunctionInfo) -> ast.expr | None:
        """The first read under `expr` of state forward itself writes (its call history), if any."""
        for sub in pyast.walk(expr):
            if isinstance(sub, (ast.Attribute, ast.Name, ast.Subscript)) and isinstance(
                    getattr(sub, "ctx", None), ast.Load) and self.persistent_key(sub, info) in self.written_state:
                return sub
        return None

    def computes(self, statement: ast.stmt, info: FunctionInfo) -> bool:
        """Whether running `statement` certainly runs compiled code or computes with torch: a branch on
        the call history (see `reads_history`) must do so on both sides; any other compound statement
        counts if anything in it does (cudalint cannot tell which side the harness takes)."""
        typing = self.flow.typing(info)
        if isinstance(statement, ast.If) and self.reads_history(statement.test, info) is not None:
            return any(self.computes(s, info) for s in statement.body) and any(
                self.computes(s, info) for s in statement.orelse)
        # a CUDA graph's replay() runs the kernels it captured (whether on fresh inputs is CL410's business)
        return any(isinstance(n, ast.Call) and (typing.runs_kernel(n) or replays_graph(n))
                   for n in pyast.walk(statement)) or typing.is_compute(statement)

    # ------------------------------------------------------------------------------------ analysis

    def _analyse(self, info: FunctionInfo, inputs: set[str]) -> FunctionFacts:
        facts = FunctionFacts(info, set(inputs))
        aliases = set(inputs)
        depends: dict[str, frozenset[str]] = {name: frozenset([name]) for name in inputs}
        for arg in info.node.args.posonlyargs + info.node.args.args + info.node.args.kwonlyargs:
            if arg.arg not in inputs and arg.arg != info.self_name:
                depends[arg.arg] = frozenset([UNKNOWN])
        facts.depends = depends
        typing = self.flow.typing(info)

        def deps(expr: ast.AST | None) -> frozenset[str]:
            return self._depends(expr, depends, info)

        for statement in statements_in_order(info.node):
            if isinstance(statement, (ast.If, ast.While)):
                continue  # their bodies are statements of their own; the test writes nothing
            for call in _own_calls(statement):
                self._record_call(call, aliases, facts, typing, deps)
            for sub in pyast.of_type(statement, ast.Subscript):
                if stepped_slice(sub) and _root_name(sub.value) in aliases and isinstance(sub.ctx, ast.Load):
                    facts.slices.append((sub, _root_name(sub.value)))
            if isinstance(statement, ast.Return):
                value = statement.value
                facts.returns.append((statement, deps(value), value is not None and self._is_alias(value, aliases)))
                continue
            targets, value = _assignment(statement)
            if isinstance(statement, ast.AugAssign):
                name = _root_name(statement.target)
                if name in aliases and (isinstance(statement.target, ast.Subscript) or typing.is_tensor(
                        statement.target)):
                    facts.mutations.append(Mutation(statement, name, ast.unparse(statement).strip()))
                if name is not None:
                    depends[name] = deps(statement.target) | deps(value)
                continue
            for target in targets:
                for element in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                    self._assign(element, value, aliases, depends, facts, deps, statement)
        return facts

    def _assign(self, target: ast.expr, value: ast.expr | None, aliases: set[str], depends: dict,
                facts: FunctionFacts, deps, statement: ast.stmt) -> None:
        if isinstance(target, ast.Starred):
            target = target.value
        if isinstance(target, ast.Name):
            depends[target.id] = deps(value)
            if value is not None and self._is_alias(value, aliases):
                aliases.add(target.id)
            else:
                aliases.discard(target.id)
        elif isinstance(target, (ast.Subscript, ast.Attribute)):
            name = _root_name(target)
            if name in aliases and (isinstance(target, ast.Subscript) or target.attr == "data"):
                facts.mutations.append(Mutation(statement, name, ast.unparse(statement).strip()[:80]))
            if name is not None and name in depends and isinstance(target, ast.Subscript):
                depends[name] = depends[name] | deps(value) | deps(target.slice)

    def _record_call(self, call: ast.Call, aliases: set[str], facts: FunctionFacts, typing, deps) -> None:
        func = call.func
        receiver = _root_name(func.value) if isinstance(func, ast.Attribute) else None
        method = func.attr if isinstance(func, ast.Attribute) else None
        qualified = self.flow.imports.qualify(func) or ""
        args = [a for a in call.args if not isinstance(a, ast.Starred)]
        positions = {i for i, a in enumerate(args) if self._is_alias(a, aliases)}
        if self.flow.is_invocation(call):
            facts.kernel_inputs.append((call, positions))
        elif positions or any(self._is_alias(k.value, aliases) for k in call.keywords if k.arg):
            facts.passes.append((call, {**{i: "" for i in positions},
                                        **{i: k.arg for i, k in enumerate(call.keywords)
                                           if k.arg and self._is_alias(k.value, aliases)}}))
        written = None
        if receiver in aliases and method and method.endswith("_") and not method.startswith("_") \
                and method not in _METADATA_INPLACE and not qualified.startswith("torch."):
            written = receiver
        elif qualified.startswith("torch.") and qualified.endswith("_") and not qualified.endswith("__") \
                and args and _root_name(args[0]) in aliases and qualified.rsplit(".", 1)[-1] not in _METADATA_INPLACE:
            written = _root_name(args[0])
        for keyword in call.keywords:
            if keyword.arg == "out" and _root_name(keyword.value) in aliases:
                written = _root_name(keyword.value)
            elif keyword.arg == "inplace" and isinstance(keyword.value, ast.Constant) and keyword.value.value \
                    and args and _root_name(args[0]) in aliases:
                written = _root_name(args[0])
        if written is not None:
            facts.mutations.append(Mutation(call, written, ast.unparse(call)[:80]))
        # a call may write what it is given: its arguments now depend on all of its inputs
        # (every name inside an argument: `kernel(grid, block, (cp.asarray(x), cp.asarray(y)))` writes y)
        given = [n.id for a in args + [k.value for k in call.keywords] for n in pyast.walk(a)
                 if isinstance(n, ast.Name)]
        if receiver is not None and (method.endswith("_") or method in _STORE_METHODS or not typing.is_tensor(
                func.value) or self.flow.is_invocation(call)):
            given.append(receiver)
        if given and (method not in _METADATA and method not in VIEW_METHODS):
            combined = deps(call)
            if _root_name(func) not in self.flow.imports.aliases:  # code cudalint does not model: it reads
                # the data behind the pointers it is given (`launcher.run(x.data_ptr(), y.data_ptr())`)
                combined = combined.union(*(deps(n.func.value) for a in args + [k.value for k in call.keywords]
                                            for n in pyast.walk(a) if isinstance(n, ast.Call)
                                            and isinstance(n.func, ast.Attribute) and n.func.attr == "data_ptr"))
            for name in given:
                if name in facts.depends:
                    facts.depends[name] = facts.depends[name] | combined
                if name in aliases and not (method and method in _METADATA_INPLACE):
                    facts.touched.add(name)

    def _is_alias(self, expr: ast.expr, aliases: set[str]) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in aliases
        if isinstance(expr, ast.Attribute):
            return expr.attr in _VIEW_ATTRIBUTES and self._is_alias(expr.value, aliases)
        if isinstance(expr, ast.Subscript):
            return self._is_alias(expr.value, aliases) and not _advanced_index(expr.slice)
        if isinstance(expr, ast.IfExp):
            return self._is_alias(expr.body, aliases) or self._is_alias(expr.orelse, aliases)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
            if expr.func.attr in VIEW_METHODS and self._is_alias(expr.func.value, aliases):
                return True
            qualified = self.flow.imports.qualify(expr.func) or ""
            if qualified.startswith("torch.") and qualified.rsplit(".", 1)[-1] in VIEW_METHODS and expr.args:
                return self._is_alias(expr.args[0], aliases)
        return False

    def _depends(self, expr: ast.AST | None, depends: dict[str, frozenset[str]], info: FunctionInfo) -> frozenset[str]:
        """The forward inputs `expr`'s value is computed from (UNKNOWN where it cannot tell)."""
        if expr is None or isinstance(expr, ast.Constant):
            return frozenset()
        if isinstance(expr, ast.Name):
            if expr.id in depends:
                return depends[expr.id]
            return frozenset() if expr.id in self.flow.imports.aliases or expr.id in ("True", "False", "None") \
                else frozenset([UNKNOWN])
        if isinstance(expr, ast.Attribute):
            if expr.attr in _METADATA:
                return frozenset()
            key = self.persistent_key(expr, info)
            if key is not None:
                return frozenset([UNKNOWN]) if key in self.written_state else frozenset()  # weights: no input
            if self.flow.imports.qualify(expr) and _root_name(expr) in self.flow.imports.aliases:
                return frozenset()  # torch.float32, math.pi
            return self._depends(expr.value, depends, info)
        if isinstance(expr, ast.Call):
            func = expr.func
            name = callee_name(expr) or ""
            if isinstance(func, ast.Attribute) and name in _METADATA:
                return frozenset()
            if name in ALLOCATORS and name not in ("tensor", "as_tensor"):
                return frozenset()
            parts = [*expr.args, *(k.value for k in expr.keywords)]
            if isinstance(func, ast.Attribute):
                parts.append(func.value)
            elif not (isinstance(func, ast.Name) and (func.id in self.flow.imports.aliases or func.id in _BUILTINS
                                                       or func.id in self.flow.solution.functions
                                                       or func.id in self.flow.solution.classes)):
                parts.append(func)
            return frozenset().union(*(self._depends(p, depends, info) for p in parts))
        if isinstance(expr, (ast.Lambda, ast.FunctionDef)):
            return frozenset([UNKNOWN])
        found: frozenset[str] = frozenset()
        for child in ast.iter_child_nodes(expr):
            if isinstance(child, (ast.expr_context, ast.operator, ast.cmpop, ast.unaryop, ast.boolop)):
                continue
            found = found | self._depends(child, depends, info)
        return found


def dataflow_of(state) -> Dataflow:
    """The `Dataflow` of a document's forward flow (`DocumentState`), built once for the rules sharing it."""
    if "dataflow" not in state.cache:
        state.cache["dataflow"] = Dataflow(state.flow)
    return state.cache["dataflow"]


def replays_graph(call: ast.Call) -> bool:
    """`g.replay()`: a CUDA graph re-running the kernels it captured."""
    return isinstance(call.func, ast.Attribute) and call.func.attr == "replay" and not call.args


def _tensor_parameters(info: FunctionInfo) -> list[str]:
    node = info.node
    typing_scalars = {"int", "float", "bool", "str"}
    found = []
    for arg in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
        if arg.arg == info.self_name:
            continue
        if arg.annotation is not None and ast.unparse(arg.annotation).split("[")[0].split(".")[-1] in typing_scalars:
            continue
        found.append(arg.arg)
    if node.args.vararg:
        found.append(node.args.vararg.arg)
    return found


def _declared_global(function: _FunctionNode) -> set[str]:
    return {name for node in pyast.of_type(function, ast.Global) for name in node.names}


def _own_calls(statement: ast.stmt) -> list[ast.Call]:
    """The calls of a simple statement, or of the header of a compound one (not of its body)."""
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        roots: list[ast.AST] = [statement.iter]
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        roots = [item.context_expr for item in statement.items]
    elif isinstance(statement, (ast.Try, ast.If, ast.While, ast.FunctionDef, ast.ClassDef)) \
            or hasattr(ast, "TryStar") and isinstance(statement, ast.TryStar):
        roots = []
    else:
        roots = [statement]
    return [n for root in roots for n in pyast.walk(root) if isinstance(n, ast.Call)]


def _assignment(statement: ast.stmt) -> tuple[list[ast.expr], ast.expr | None]:
    if isinstance(statement, ast.Assign):
        return statement.targets, statement.value
    if isinstance(statement, ast.AnnAssign):
        return [statement.target], statement.value
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        return [statement.target], None  # the loop variable: an element, not the iterable itself
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return [i.optional_vars for i in statement.items if i.optional_vars is not None], None
    return [], None


def _root_name(expr: ast.expr | None) -> str | None:
    """`x` for `x`, `x[i]`, `x.data`, `x[i].data`."""
    while isinstance(expr, (ast.Subscript, ast.Attribute)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _advanced_index(index: ast.expr) -> bool:
    """An index that copies (a tensor or list of indices) rather than viewing."""
    elements = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(isinstance(e, (ast.List, ast.Name, ast.Call, ast.Compare)) for e in elements)


def stepped_slice(subscript: ast.Subscript) -> bool:
    """A slice with a step other than 1: `x[::2]`, `x[:, ::k]`."""
    elements = subscript.slice.elts if isinstance(subscript.slice, ast.Tuple) else [subscript.slice]
    for element in elements:
        if isinstance(element, ast.Slice) and element.step is not None and not (
                isinstance(element.step, ast.Constant) and element.step.value in (1, None)):
            return True
    return False


def statement_path(function: _FunctionNode, target: ast.stmt) -> tuple[list[ast.stmt], list[ast.stmt]] | None:
    """The statements that run before `target` on its path through `function` (the earlier statements of
    each enclosing block, outermost first), and the compound statements enclosing it; None when
    `target` is not a statement of `function` (outside nested functions)."""
    return _path_in(function.body, target, [], [])


def _path_in(body: list[ast.stmt], target: ast.stmt, before: list[ast.stmt],
             enclosing: list[ast.stmt]) -> tuple[list[ast.stmt], list[ast.stmt]] | None:
    for index, statement in enumerate(body):
        if statement is target:
            return before + body[:index], enclosing
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        blocks = [getattr(statement, name, None) or [] for name in ("body", "orelse", "finalbody")]
        blocks += [handler.body for handler in getattr(statement, "handlers", None) or []]
        blocks += [case.body for case in getattr(statement, "cases", None) or []]
        for block in blocks:
            found = _path_in(block, target, before + body[:index], enclosing + [statement])
            if found is not None:
                return found
    return None
