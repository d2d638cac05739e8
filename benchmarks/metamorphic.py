"""Metamorphic test of the pre-filter: semantics-preserving rewrites of KernelBench solutions' Python, in
the shapes the next model may write, and what each rewrite changes in the pre-filter's verdict.

    python benchmarks/metamorphic.py [--runs ../shared/data/realkernels] [--sample N] [--ops a,b]
                                     [--jobs 2] [--markdown OUT] [--json OUT] [--show N]

Each operator (`OPERATORS`) is one rewrite of the Python layer (never of the CUDA text): the extension
imported under an alias or built in a helper, the bound function reached through a dict, a partial, a
lambda, getattr or an autograd Function, forward delegated or inherited, ModelNew built in a function,
names rebound, the kernel source assembled from pieces. A rewrite keeps what the file computes, so the
pre-filter's verdict should not move. It is applied to every correct solution of the real-kernel set
(`--sample N` takes N of them, spread over the runs) and to every case of the hack set
(`benchmarks/hacks`), and each rewritten file is judged by `prefilter` with the dry run, as the
original is. Counted per operator:

- *false claims*: correct solutions the pre-filter accepts and rejects once rewritten, unless every code
  rejecting it is one a review confirmed real on that file (`benchmarks/realkernels/reviews.toml`: a latent
  defect whose latency the rewritten file no longer lets cudalint prove), counted apart as *confirmed*;
- *hacks lost*: hacks caught for the right reason before and not after;
- *controls rejected*: honest controls of the hack set rejected once rewritten (before: 0).

An operator that does not apply to a file (no load_inline call to move, no bound call to wrap) leaves it
out. `roundtrip` (parse and print, the common step of every operator) is the baseline: a change it makes
is the printer's, not an operator's.
"""

from __future__ import annotations

import argparse
import ast
import copy
import io
import json
import os
import random
import sys
import tokenize
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cudalint import prefilter  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_RUNS = HERE.parents[1] / "shared" / "data" / "realkernels"
HACK_SET = HERE / "hacks"

# ------------------------------------------------------------------------------------------ printing


def _single_string_token(segment: str) -> bool:
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(segment).readline)
                  if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)]
    except (tokenize.TokenError, SyntaxError):
        return False
    return len(tokens) == 1 and tokens[0].type == tokenize.STRING


class _Printer(ast._Unparser):  # type: ignore[name-defined]
    """ast.unparse, but a string literal written as one token keeps its spelling (a triple-quoted CUDA
    source stays multi-line, so findings keep their CUDA lines readable)."""

    def visit_Constant(self, node):
        spelling = getattr(node, "spelling", None)
        if spelling is not None:
            self.write(spelling)
        else:
            super().visit_Constant(node)


def _mark_spellings(tree: ast.AST, source: str) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            segment = ast.get_source_segment(source, node)
            if segment and _single_string_token(segment):
                node.spelling = segment


def _literal(text: str) -> ast.Constant:
    """A string constant printed triple-quoted where that spells it exactly."""
    node = ast.Constant(text)
    if '"""' not in text and "\\" not in text and not text.endswith('"'):
        node.spelling = '"""' + text + '"""'
    return node


def render(tree: ast.Module) -> str:
    return _Printer().visit(ast.fix_missing_locations(tree)) + "\n"


# ------------------------------------------------------------------------------------------ reading


def _is_load_inline(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Name) and node.func.id == "load_inline")
        or (isinstance(node.func, ast.Attribute) and node.func.attr == "load_inline"))


def _extension_assignments(tree: ast.Module) -> list[tuple[int, ast.Assign]]:
    """Module-level `NAME = load_inline(...)` statements, with their index in the body."""
    return [(i, s) for i, s in enumerate(tree.body)
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
            and _is_load_inline(s.value)]


def _bound_names(tree: ast.Module) -> set[str]:
    """The names load_inline's functions=[...] binds, where written as a literal list."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if _is_load_inline(node):
            for keyword in node.keywords:
                if keyword.arg == "functions" and isinstance(keyword.value, (ast.List, ast.Tuple)):
                    names |= {e.value for e in keyword.value.elts
                              if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return names


def _model_class(tree: ast.Module) -> tuple[int, ast.ClassDef] | None:
    for i, statement in enumerate(tree.body):
        if isinstance(statement, ast.ClassDef) and statement.name == "ModelNew":
            return i, statement
    return None


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    for statement in cls.body:
        if isinstance(statement, ast.FunctionDef) and statement.name == name:
            return statement
    return None


def _parse(code: str) -> ast.Module:
    return ast.parse(code).body  # type: ignore[return-value]


def _insert_after_imports(tree: ast.Module, statements: list[ast.stmt]) -> None:
    index = 0
    for i, statement in enumerate(tree.body):
        if isinstance(statement, (ast.Import, ast.ImportFrom)) or (
                i == 0 and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)):
            index = i + 1
    tree.body[index:index] = statements


class _Replace(ast.NodeTransformer):
    """Replaces the loads a predicate picks by what `make` returns for them."""

    def __init__(self, pick, make):
        self.pick, self.make, self.count = pick, make, 0

    def generic_visit(self, node):
        node = super().generic_visit(node)
        if self.pick(node):
            self.count += 1
            return ast.copy_location(self.make(node), node)
        return node


def _replace(tree: ast.AST, pick, make) -> int:
    transformer = _Replace(pick, make)
    transformer.visit(tree)
    return transformer.count


def _is_load_of(node: ast.AST, names) -> bool:
    return isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names


def _direct_bound(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(extension names, bound names) of module-level extensions whose bound functions are read as
    `EXT.fn` somewhere."""
    extensions = {s.targets[0].id for _, s in _extension_assignments(tree)}
    bound = _bound_names(tree)
    return extensions, bound


def _ext_attribute(node: ast.AST, extensions: set[str], bound: set[str]) -> bool:
    return (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and node.attr in bound
            and _is_load_of(node.value, extensions))


# ------------------------------------------------------------------------------------------ operators
# each takes a parsed module (its own copy) and returns True when it rewrote it


def roundtrip(tree: ast.Module) -> bool:
    return True


def alias_module(tree: ast.Module) -> bool:
    """`from torch.utils.cpp_extension import load_inline` -> `import torch.utils.cpp_extension as ce`."""
    changed = False
    for i, statement in enumerate(tree.body):
        if isinstance(statement, ast.ImportFrom) and statement.module == "torch.utils.cpp_extension":
            names = [a for a in statement.names if a.name == "load_inline" and a.asname is None]
            if not names:
                continue
            rest = [a for a in statement.names if a not in names]
            replacement: list[ast.stmt] = _parse("import torch.utils.cpp_extension as _cpp_ext")
            if rest:
                replacement.insert(0, ast.ImportFrom(statement.module, rest, 0))
            tree.body[i:i + 1] = replacement
            changed = True
            break
    if not changed:
        return False
    _replace(tree, lambda n: _is_load_of(n, {"load_inline"}),
             lambda n: ast.Attribute(ast.Name("_cpp_ext", ast.Load()), "load_inline", ast.Load()))
    return True


def alias_name(tree: ast.Module) -> bool:
    """`from torch.utils.cpp_extension import load_inline as _compile_cuda`."""
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module == "torch.utils.cpp_extension":
            for alias in statement.names:
                if alias.name == "load_inline" and alias.asname is None:
                    alias.asname = "_compile_cuda"
                    _replace(tree, lambda n: _is_load_of(n, {"load_inline"}),
                             lambda n: ast.Name("_compile_cuda", ast.Load()))
                    return True
    return False


def build_in_helper(tree: ast.Module) -> bool:
    """`ext = load_inline(...)` -> `def _build_ext(): return load_inline(...)` and `ext = _build_ext()`."""
    found = _extension_assignments(tree)
    for index, statement in reversed(found):
        name = statement.targets[0].id
        helper = ast.FunctionDef(f"_build_{name}", ast.arguments([], [], None, [], [], None, []),
                                 [ast.Return(statement.value)], [], None)
        tree.body[index:index + 1] = [helper, ast.Assign([ast.Name(name, ast.Store())],
                                                         ast.Call(ast.Name(helper.name, ast.Load()), [], []))]
    return bool(found)


def cached_factory(tree: ast.Module) -> bool:
    """The extension built lazily by an lru_cache'd factory, called where the extension was read."""
    found = _extension_assignments(tree)
    if not found:
        return False
    names = {}
    for index, statement in reversed(found):
        name = statement.targets[0].id
        names[name] = f"_get_{name}"
        helper = ast.FunctionDef(names[name], ast.arguments([], [], None, [], [], None, []),
                                 [ast.Return(statement.value)],
                                 [_parse("functools.lru_cache(maxsize=None)")[0].value], None)
        tree.body[index:index + 1] = [helper]
    _replace(tree, lambda n: _is_load_of(n, names),
             lambda n: ast.Call(ast.Name(names[n.id], ast.Load()), [], []))
    _insert_after_imports(tree, _parse("import functools"))
    return True


def _module_level_binding(tree: ast.Module, make_value, prefix: str) -> bool:
    """Each `EXT.fn` read replaced by a module-level name bound (after the extension) to make_value(EXT.fn)."""
    extensions, bound = _direct_bound(tree)
    used: dict[tuple[str, str], str] = {}

    def make(node):
        key = (node.value.id, node.attr)
        used.setdefault(key, f"{prefix}{node.value.id}_{node.attr}")
        return ast.Name(used[key], ast.Load())

    _replace(tree, lambda n: _ext_attribute(n, extensions, bound), make)
    if not used:
        return False
    for index, statement in reversed(_extension_assignments(tree)):
        name = statement.targets[0].id
        bindings = [ast.Assign([ast.Name(alias, ast.Store())],
                               make_value(ast.Attribute(ast.Name(ext, ast.Load()), attr, ast.Load()), attr))
                    for (ext, attr), alias in sorted(used.items()) if ext == name]
        tree.body[index + 1:index + 1] = bindings
    return True


def bound_partial(tree: ast.Module) -> bool:
    """`EXT.fn` read through `functools.partial(EXT.fn)` bound at module level."""
    if not _module_level_binding(tree, lambda fn, _: ast.Call(_parse("functools.partial")[0].value, [fn], []),
                                 "_p_"):
        return False
    _insert_after_imports(tree, _parse("import functools"))
    return True


def bound_lambda(tree: ast.Module) -> bool:
    """`EXT.fn` read through `lambda *a, **k: EXT.fn(*a, **k)`."""
    def make(fn, _):
        call = ast.Call(fn, [ast.Starred(ast.Name("a", ast.Load()), ast.Load())],
                        [ast.keyword(None, ast.Name("k", ast.Load()))])
        return ast.Lambda(ast.arguments([], [], ast.arg("a"), [], [], ast.arg("k"), []), call)
    return _module_level_binding(tree, make, "_l_")


def bound_rebound(tree: ast.Module) -> bool:
    """`EXT.fn` read through a module-level name rebound to it (`_fn = EXT.fn`)."""
    return _module_level_binding(tree, lambda fn, _: fn, "_r_")


def bound_dict(tree: ast.Module) -> bool:
    """`EXT.fn` read as `_OPS["fn"]`, a dict of the bound functions."""
    extensions, bound = _direct_bound(tree)
    entries: dict[str, tuple[str, str]] = {}

    def make(node):
        entries[f"{node.value.id}.{node.attr}"] = (node.value.id, node.attr)
        return ast.Subscript(ast.Name("_OPS", ast.Load()), ast.Constant(f"{node.value.id}.{node.attr}"), ast.Load())

    _replace(tree, lambda n: _ext_attribute(n, extensions, bound), make)
    if not entries:
        return False
    last = max(i for i, _ in _extension_assignments(tree))
    table = ast.Dict([ast.Constant(k) for k in sorted(entries)],
                     [ast.Attribute(ast.Name(entries[k][0], ast.Load()), entries[k][1], ast.Load())
                      for k in sorted(entries)])
    tree.body.insert(last + 1, ast.Assign([ast.Name("_OPS", ast.Store())], table))
    return True


def getattr_call(tree: ast.Module) -> bool:
    """Every read of a bound function `X.fn` (X the extension or an attribute holding it) as
    `getattr(X, "fn")`."""
    bound = _bound_names(tree)

    def pick(node):
        return isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and node.attr in bound \
            and not (isinstance(node.value, ast.Name) and node.value.id in ("torch", "F", "nn", "self"))

    return _replace(tree, pick, lambda n: ast.Call(ast.Name("getattr", ast.Load()),
                                                   [n.value, ast.Constant(n.attr)], [])) > 0


def autograd_function(tree: ast.Module) -> bool:
    """Each call `EXT.fn(args)` as `_Fn_fn.apply(args)`, an autograd Function whose forward calls it."""
    extensions, bound = _direct_bound(tree)
    wrapped: dict[tuple[str, str], str] = {}

    def pick(node):
        return isinstance(node, ast.Call) and _ext_attribute(node.func, extensions, bound) and not node.keywords \
            and not any(isinstance(a, ast.Starred) for a in node.args)

    def make(node):
        key = (node.func.value.id, node.func.attr)
        wrapped.setdefault(key, f"_Fn_{node.func.value.id}_{node.func.attr}")
        return ast.Call(ast.Attribute(ast.Name(wrapped[key], ast.Load()), "apply", ast.Load()), node.args, [])

    _replace(tree, pick, make)
    if not wrapped:
        return False
    for index, statement in reversed(_extension_assignments(tree)):
        name = statement.targets[0].id
        classes = [_parse(f"class {cls}(torch.autograd.Function):\n"
                          f"    @staticmethod\n"
                          f"    def forward(ctx, *args):\n"
                          f"        return {ext}.{attr}(*args)\n")[0]
                   for (ext, attr), cls in sorted(wrapped.items()) if ext == name]
        tree.body[index + 1:index + 1] = classes
    return True


def _forward_signature(forward: ast.FunctionDef) -> tuple[ast.arguments, list[ast.expr], list[ast.keyword]]:
    """forward's arguments and the call expressions that pass them on unchanged."""
    args = forward.args
    positional = [ast.Name(a.arg, ast.Load()) for a in args.posonlyargs + args.args[1:]]
    if args.vararg:
        positional.append(ast.Starred(ast.Name(args.vararg.arg, ast.Load()), ast.Load()))
    keywords = [ast.keyword(a.arg, ast.Name(a.arg, ast.Load())) for a in args.kwonlyargs]
    if args.kwarg:
        keywords.append(ast.keyword(None, ast.Name(args.kwarg.arg, ast.Load())))
    return args, positional, keywords


def _self_name(function: ast.FunctionDef) -> str | None:
    all_args = function.args.posonlyargs + function.args.args
    return all_args[0].arg if all_args else None


def _uses_zero_arg_super(function: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "super" and not n.args
               for n in ast.walk(function))


def _movable(function: ast.FunctionDef | None) -> bool:
    """Whether a method keeps its meaning outside its class: it has a self, no zero-argument super()
    and no name the class would mangle (`self.__x`)."""
    return bool(function) and _self_name(function) is not None and not _uses_zero_arg_super(function) and not any(
        isinstance(n, (ast.Attribute, ast.Name)) and (getattr(n, "attr", None) or getattr(n, "id", "")).startswith("__")
        and not (getattr(n, "attr", None) or getattr(n, "id", "")).endswith("__") for n in ast.walk(function))


def forward_helper(tree: ast.Module) -> bool:
    """forward's body moved to a module-level function `_forward_impl(self, ...)` that forward calls."""
    found = _model_class(tree)
    forward = found and _method(found[1], "forward")
    if not _movable(forward):
        return False
    index, cls = found
    args, positional, keywords = _forward_signature(forward)
    helper = ast.FunctionDef("_forward_impl", copy.deepcopy(args), forward.body, [], None)
    call = ast.Call(ast.Name("_forward_impl", ast.Load()), [ast.Name(_self_name(forward), ast.Load())] + positional,
                    keywords)
    forward.body = [ast.Return(call)]
    tree.body.insert(index, helper)
    return True


def forward_nested_runner(tree: ast.Module) -> bool:
    """forward delegates to a nested nn.Module built in __init__, whose forward runs the original body
    on the owner (held without registering it as a submodule)."""
    found = _model_class(tree)
    if not found:
        return False
    index, cls = found
    forward, init = _method(cls, "forward"), _method(cls, "__init__")
    if not _movable(forward) or not init or _self_name(init) is None:
        return False
    owner = _self_name(forward)
    args, positional, keywords = _forward_signature(forward)
    runner_args = copy.deepcopy(args)
    runner_args.args[0] = ast.arg("_runner")
    body = [ast.Assign([ast.Name(owner, ast.Store())], _parse("_runner.__dict__['_owner']")[0].value)] + forward.body
    runner = _parse("class _Runner(nn.Module):\n"
                    "    def __init__(self, owner):\n"
                    "        super().__init__()\n"
                    "        self.__dict__['_owner'] = owner\n")[0]
    runner.body.append(ast.FunctionDef("forward", runner_args, body, [], None))
    forward.body = [ast.Return(ast.Call(ast.Attribute(ast.Name(owner, ast.Load()), "_runner", ast.Load()),
                                        positional, keywords))]
    init.body.append(_parse(f"{_self_name(init)}._runner = _Runner({_self_name(init)})")[0])
    tree.body.insert(index, runner)
    if not any(isinstance(s, ast.Import) and any(a.name == "torch.nn" and a.asname == "nn" for a in s.names)
               for s in tree.body):
        _insert_after_imports(tree, _parse("import torch.nn as nn"))
    return True


def _super_explicit(function: ast.FunctionDef, old: str, new: str) -> None:
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super" \
                and node.args and _is_load_of(node.args[0], {old}):
            node.args[0] = ast.Name(new, ast.Load())


def subclass_base(tree: ast.Module) -> bool:
    """ModelNew keeps __init__; forward and every other method move to a base class it subclasses."""
    found = _model_class(tree)
    if not found or not _method(found[1], "__init__") or not _method(found[1], "forward"):
        return False
    index, cls = found
    moved = [s for s in cls.body if not (isinstance(s, ast.FunctionDef) and s.name == "__init__")]
    kept = [s for s in cls.body if s not in moved]
    if not all(_movable(s) for s in moved if isinstance(s, ast.FunctionDef)):
        return False
    for statement in moved:
        if isinstance(statement, ast.FunctionDef):
            _super_explicit(statement, "ModelNew", "_ModelBase")
    base = ast.ClassDef("_ModelBase", cls.bases, [], moved, [])
    cls.bases = [ast.Name("_ModelBase", ast.Load())]
    cls.keywords = []
    cls.body = kept
    tree.body.insert(index, base)
    return True


def class_in_function(tree: ast.Module) -> bool:
    """ModelNew defined inside a factory function and bound by calling it."""
    found = _model_class(tree)
    if not found:
        return False
    index, cls = found
    factory = ast.FunctionDef("_make_model", ast.arguments([], [], None, [], [], None, []),
                              [cls, ast.Return(ast.Name("ModelNew", ast.Load()))], [], None)
    tree.body[index:index + 1] = [factory, _parse("ModelNew = _make_model()")[0]]
    return True


def rebind_class(tree: ast.Module) -> bool:
    """The class defined under another name; ModelNew bound to it after."""
    found = _model_class(tree)
    if not found:
        return False
    index, cls = found
    cls.name = "_OptimizedModel"
    for statement in cls.body:
        if isinstance(statement, ast.FunctionDef):
            _super_explicit(statement, "ModelNew", "_OptimizedModel")
    tree.body.insert(index + 1, _parse("ModelNew = _OptimizedModel")[0])
    return True


def rebind_extension(tree: ast.Module) -> bool:
    """Each extension rebound to a second name that every later read uses."""
    found = _extension_assignments(tree)
    if not found:
        return False
    names = {s.targets[0].id: f"{s.targets[0].id}_handle" for _, s in found}
    _replace(tree, lambda n: _is_load_of(n, names), lambda n: ast.Name(names[n.id], ast.Load()))
    for index, statement in reversed(found):
        name = statement.targets[0].id
        tree.body.insert(index + 1, ast.Assign([ast.Name(names[name], ast.Store())], ast.Name(name, ast.Load())))
    return True


def forward_setattr(tree: ast.Module) -> bool:
    """forward defined at module level and attached with setattr(ModelNew, "forward", ...)."""
    found = _model_class(tree)
    forward = found and _method(found[1], "forward")
    if not _movable(forward):
        return False
    index, cls = found
    cls.body.remove(forward)
    if not cls.body:
        cls.body = [ast.Pass()]
    forward.name = "_model_forward"
    tree.body[index + 1:index + 1] = [forward, _parse('setattr(ModelNew, "forward", _model_forward)')[0]]
    return True


def training_branch(tree: ast.Module) -> bool:
    """forward's body duplicated under `if self.training:` / `else:` (both paths the same)."""
    found = _model_class(tree)
    forward = found and _method(found[1], "forward")
    if not forward or _self_name(forward) is None:
        return False
    body = forward.body
    docstring = body[:1] if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else []
    rest = body[len(docstring):]
    if not rest:
        return False
    test = ast.Attribute(ast.Name(_self_name(forward), ast.Load()), "training", ast.Load())
    forward.body = docstring + [ast.If(test, rest, copy.deepcopy(rest))]
    return True


def call_counter(tree: ast.Module) -> bool:
    """A call counter kept on the model (state across calls that the result does not use)."""
    found = _model_class(tree)
    forward = found and _method(found[1], "forward")
    if not forward or _self_name(forward) is None:
        return False
    me = _self_name(forward)
    forward.body.insert(0, _parse(f"{me}._calls = getattr({me}, '_calls', 0) + 1")[0])
    return True


def _source_strings(tree: ast.Module) -> list[ast.Assign]:
    """Module-level `NAME = "..."` assignments of strings holding CUDA or C++ (several lines)."""
    return [s for s in tree.body if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant)
            and isinstance(s.value.value, str) and s.value.value.count("\n") >= 3]


def _split(text: str) -> tuple[str, str]:
    lines = text.splitlines(keepends=True)
    middle = len(lines) // 2
    return "".join(lines[:middle]), "".join(lines[middle:])


def source_concat(tree: ast.Module) -> bool:
    """Each kernel source assembled as `_part_a + _part_b` (split at a line)."""
    return _assemble(tree, lambda a, b: ast.BinOp(a, ast.Add(), b))


def source_fstring(tree: ast.Module) -> bool:
    """Each kernel source assembled as `f"{_part_a}{_part_b}"`."""
    return _assemble(tree, lambda a, b: ast.JoinedStr([ast.FormattedValue(a, -1, None),
                                                       ast.FormattedValue(b, -1, None)]))


def source_format(tree: ast.Module) -> bool:
    """Each kernel source assembled as `"{}{}".format(_part_a, _part_b)`."""
    return _assemble(tree, lambda a, b: ast.Call(ast.Attribute(ast.Constant("{}{}"), "format", ast.Load()),
                                                 [a, b], []))


def _assemble(tree: ast.Module, join) -> bool:
    found = _source_strings(tree)
    for statement in found:
        name = statement.targets[0].id
        first, second = _split(statement.value.value)
        index = tree.body.index(statement)
        parts = [ast.Assign([ast.Name(f"_{name}_a", ast.Store())], _literal(first)),
                 ast.Assign([ast.Name(f"_{name}_b", ast.Store())], _literal(second))]
        statement.value = join(ast.Name(f"_{name}_a", ast.Load()), ast.Name(f"_{name}_b", ast.Load()))
        tree.body[index:index] = parts
    return bool(found)


def constants_hoisted(tree: ast.Module) -> bool:
    """Integer literals (other than 0, 1, -1) in ModelNew's methods moved to module-level constants."""
    found = _model_class(tree)
    if not found:
        return False
    index, cls = found
    constants: dict[int, str] = {}

    def pick(node):
        return isinstance(node, ast.Constant) and type(node.value) is int and node.value not in (0, 1)

    def make(node):
        constants.setdefault(node.value, f"_K{len(constants)}")
        return ast.Name(constants[node.value], ast.Load())

    for statement in cls.body:
        if isinstance(statement, ast.FunctionDef):
            statement.body = [_Replace(pick, make).visit(s) for s in statement.body]
    if not constants:
        return False
    tree.body[index:index] = [ast.Assign([ast.Name(n, ast.Store())], ast.Constant(v)) for v, n in constants.items()]
    return True


OPERATORS = {f.__name__: f for f in (
    roundtrip, alias_module, alias_name, build_in_helper, cached_factory, bound_dict, bound_partial,
    bound_lambda, bound_rebound, getattr_call, autograd_function, forward_helper, forward_nested_runner,
    subclass_base, class_in_function, rebind_class, rebind_extension, forward_setattr, training_branch,
    call_counter, source_concat, source_fstring, source_format, constants_hoisted)}


def transform(source: str, operator: str) -> str | None:
    """The source rewritten by `operator`, or None where it does not apply (or could not be printed)."""
    tree = ast.parse(source)
    _mark_spellings(tree, source)
    if not OPERATORS[operator](tree):
        return None
    text = render(tree)
    try:
        ast.parse(text)
    except SyntaxError:
        return None
    return text


# ------------------------------------------------------------------------------------------ cases


def real_cases(runs: Path, sample: int | None) -> list[dict]:
    """The correct solutions of the real-kernel set, each with its archive's problems directory."""
    rows = [json.loads(line) for line in open(runs / "labels.jsonl", encoding="utf-8") if line.strip()]
    rows = [r for r in rows if r["correct"]]
    if sample is not None and sample < len(rows):
        by_run: dict[str, list[dict]] = defaultdict(list)
        for row in rows:
            by_run[os.path.dirname(row["path"])].append(row)
        rng = random.Random(15)
        for group in by_run.values():
            rng.shuffle(group)
        picked: list[dict] = []
        while len(picked) < sample:  # round robin over the runs
            for group in by_run.values():
                if group and len(picked) < sample:
                    picked.append(group.pop())
        rows = picked
    cases = []
    for row in rows:
        archive = row["path"].split("/")[0]
        cases.append({"id": row["path"], "kind": "correct", "expected": [],
                      "file": str(runs / "kernels" / row["path"]), "problems": str(runs / "problems" / archive),
                      "level": row["level"], "problem": row["problem_id"]})
    return cases


def hack_cases(root: Path) -> list[dict]:
    cases = []
    for line in open(root / "manifest.jsonl", encoding="utf-8"):
        if not line.strip():
            continue
        case = json.loads(line)
        level, problem = case["reference"].split("/")[0][len("level"):], case["reference"].split("/")[1].split("_")[0]
        cases.append({"id": case["path"], "kind": case["kind"], "expected": case["expected"],
                      "file": str(root / "kernels" / case["path"]), "problems": str(root / "problems"),
                      "level": int(level), "problem": int(problem)})
    return cases


def confirmed_real(reviews: Path) -> set[tuple[str, str]]:
    """(path, code) of the findings a review of the real-kernel set confirmed real."""
    import tomllib

    if not reviews.is_file():
        return set()
    with open(reviews, "rb") as handle:
        return {(r["path"], r["code"]) for r in tomllib.load(handle).get("review", []) if r["verdict"] == "real"}


def judge(cases: list[dict], operators: list[str], jobs: int) -> list[dict]:
    """Every (case, variant) judged by prefilter with the dry run; variant None is the original."""
    jobs_by_problems: dict[str, list[tuple[dict, str | None, str]]] = defaultdict(list)
    for case in cases:
        original = Path(case["file"]).read_text(encoding="utf-8")
        variants = [(None, original)] + [(op, transform(original, op)) for op in operators]
        for op, text in variants:
            if text is not None:
                jobs_by_problems[case["problems"]].append((case, op, text))
    results = []
    for problems, group in sorted(jobs_by_problems.items()):
        sources = [(f"level_{c['level']}_problem_{c['problem']}_sample_{i}_kernel.py", text)
                   for i, (c, _, text) in enumerate(group)]
        outcome = prefilter(sources, problems=problems, jobs=jobs, use_config=False)
        items = {item.name: item for item in outcome.items}
        for (case, op, text), (name, _) in zip(group, sources):
            item = items[name]
            rejecting = sorted({f.code for f in item.reasons})
            results.append({"id": case["id"], "kind": case["kind"], "operator": op, "rejected": item.rejected,
                            "rejecting": rejecting, "caught": bool(set(case["expected"]) & set(rejecting)),
                            "error": item.error, "text": text,
                            "reasons": [f"{f.location.line}: {f.code} {f.message}" for f in item.reasons][:4]})
    return results


def tabulate(results: list[dict], operators: list[str], confirmed: set[tuple[str, str]]) -> tuple[str, list[dict]]:
    """The per-operator table and the changed verdicts (false claims, hacks lost, controls rejected)."""
    before = {(r["id"]): r for r in results if r["operator"] is None}
    changes = []
    lines = ["| operator | correct: applied | false claims | confirmed | hacks: applied | hacks lost | "
             "controls: applied | controls rejected |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    totals = defaultdict(int)
    for op in operators:
        rows = [r for r in results if r["operator"] == op]
        counts = defaultdict(int)
        for r in rows:
            base = before.get(r["id"])
            counts[f"{r['kind']} applied"] += 1
            if r["kind"] == "correct" and base and not base["rejected"] and r["rejected"]:
                real = all((r["id"], code) in confirmed for code in r["rejecting"])
                counts["confirmed" if real else "false claims"] += 1
                changes.append({"change": "confirmed defect" if real else "false claim", **r})
            elif r["kind"] == "hack" and base and base["caught"] and not r["caught"]:
                counts["hacks lost"] += 1
                changes.append({"change": "hack lost", **r})
            elif r["kind"] == "control" and r["rejected"]:
                counts["controls rejected"] += 1
                changes.append({"change": "control rejected", **r})
        for key, value in counts.items():
            totals[key] += value
        lines.append(f"| {op} | {counts['correct applied']} | {counts['false claims']} | {counts['confirmed']} | "
                     f"{counts['hack applied']} | {counts['hacks lost']} | {counts['control applied']} | "
                     f"{counts['controls rejected']} |")
    lines.append(f"| **all** | {totals['correct applied']} | {totals['false claims']} | {totals['confirmed']} | "
                 f"{totals['hack applied']} | {totals['hacks lost']} | {totals['control applied']} | "
                 f"{totals['controls rejected']} |")
    base_rows = list(before.values())
    lines += ["", f"originals: {sum(r['kind'] == 'correct' for r in base_rows)} correct solutions "
                  f"({sum(r['rejected'] for r in base_rows if r['kind'] == 'correct')} rejected), "
                  f"{sum(r['kind'] == 'hack' for r in base_rows)} hacks "
                  f"({sum(r['caught'] for r in base_rows if r['kind'] == 'hack')} caught), "
                  f"{sum(r['kind'] == 'control' for r in base_rows)} controls "
                  f"({sum(r['rejected'] for r in base_rows if r['kind'] == 'control')} rejected)"]
    return "\n".join(lines), changes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default=str(DEFAULT_RUNS),
                        help="the real-kernel set (labels.jsonl, kernels/, problems/)")
    parser.add_argument("--hacks", default=str(HACK_SET), help="the hack set (manifest.jsonl, kernels/, problems/)")
    parser.add_argument("--reviews", default=str(HERE / "realkernels" / "reviews.toml"),
                        help="reviews of findings on the real-kernel set (those confirmed real are no false claim)")
    parser.add_argument("--sample", type=int, help="this many correct solutions, spread over the runs (default: all)")
    parser.add_argument("--ops", help="comma-separated operators (default: all)")
    parser.add_argument("--only", choices=("real", "hacks"), help="one of the two sets")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--markdown", help="write the table here")
    parser.add_argument("--json", help="write every changed verdict here (with the rewritten source)")
    parser.add_argument("--show", type=int, default=0, help="print this many changed verdicts")
    args = parser.parse_args()
    operators = args.ops.split(",") if args.ops else list(OPERATORS)
    cases = ([] if args.only == "hacks" else real_cases(Path(args.runs), args.sample)) + \
            ([] if args.only == "real" else hack_cases(Path(args.hacks)))
    results = judge(cases, operators, args.jobs)
    text, changes = tabulate(results, operators, confirmed_real(Path(args.reviews)))
    print(text)
    for change in changes[:args.show]:
        print(f"\n{change['change']}: {change['id']} under {change['operator']}: {change['rejecting']}")
        for reason in change["reasons"]:
            print("   ", reason)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n", encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps(changes, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
