"""KernelBench conventions, read from the Python AST (never by regex over the text).

A *solution* is a Python module with `class ModelNew(nn.Module)` whose CUDA is compiled at import time
by `torch.utils.cpp_extension.load_inline(name=..., cpp_sources=..., cuda_sources=..., functions=[...],
extra_cuda_cflags=[...])` (or by cupy's `RawKernel`/`RawModule`). The compiled extension is bound to a
variable (`mod = load_inline(...)`), usually stored on the model (`self.op = mod`) and called from
`forward` (`self.op.fn(x)` or `mod.fn(x)`).

A *reference* (problem) file holds `class Model(nn.Module)`, `get_inputs()` and `get_init_inputs()`,
usually with module-level sizes (`batch_size = 16`, `dim = 16384`) that `get_inputs` uses.

Run directories hold one solution per file. The level and problem of a file are read from its path:
KernelBench's run name `level_<L>_problem_<P>_sample_<S>_kernel.py`, or a level directory (`level_2/`,
`level2/`, `L2/`, `<run>-level2/`) holding `problem_<P>.py`, `<P>.py` or `<P>_<Name>.py` (a reference
problem's own path reads the same way). Given a problems directory, the reference of such a file is
found by level and problem id; the layout supported is KernelBench's own: `<problems>/level<L>/<P>_<Name>.py`
(also `<problems>/KernelBench/level<L>/...`, so the repository root can be given).

What makes a file a KernelBench solution, which the harness rules judge: it defines or names
`ModelNew`, compiles CUDA through `load_inline`/`RawKernel`/`RawModule`, or belongs to a KernelBench run
(its path names a level, or a problems directory is given). Only a file of a run must define `ModelNew`
(CL400): a helper module, a reference file with `Model` and `get_inputs` but no CUDA, or an ordinary
extension loader outside those conventions is never reported as an invalid solution.
"""

from __future__ import annotations

import ast
import builtins
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache

from cudalint import pyast
from cudalint.string_resolver import StringResolver

RUN_NAME = re.compile(r"level_(\d+)_problem_(\d+)_sample_(\d+)_kernel\.py$")
# a directory naming the level: level_2, level2, L2, qwen-level2
_LEVEL_PART = re.compile(r"(?:(?:^|.*[-_.])level[-_]?|^L)(\d+)$", re.IGNORECASE)
# the file of a level directory: problem_7.py, 7.py, 7_Conv2d_ReLU.py
_PROBLEM_STEM = re.compile(r"(?:problem[-_]?)?(\d+)(?:_.*)?$", re.IGNORECASE)
# a run name without the sample: level_2_problem_7.py
_LEVEL_PROBLEM_STEM = re.compile(r"level[-_]?(\d+)[-_]problem[-_]?(\d+)(?:[-_].*)?$", re.IGNORECASE)

# callees that compile CUDA from strings the file holds
LOAD_INLINE = "load_inline"
CUPY_SOURCES = ("RawKernel", "RawModule")
# other ways a solution may build or run device code that cudalint does not read: a solution using
# them is not "without a build", and forward-path rules stay silent about it
_FOREIGN_MODULES = ("triton", "numba", "pycuda", "tilelang", "cuda", "cutlass", "warp", "taichi", "jax")
# what the dry run stands in for at the Python layer (cudalint/dryrun/stand_ins.py): Triton's and CuTe DSL's
# launches, cupy's kernels and `cpp_extension.load`, with cuda-python's objects as recorded stand-ins
_DRY_RUN_MODULES = ("triton", "cutlass", "cupy", "cuda")
_DRY_RUN_BUILDERS = {"load", "ElementwiseKernel", "ReductionKernel", "jit"}
_OTHER_BUILDERS = {"load", "ElementwiseKernel", "ReductionKernel", "SourceModule", "compile_kernel",
                   "_get_cuda_kernel", "jit", "CUDAKernel"}

HALF_DTYPES = {"torch.float16", "torch.half", "torch.bfloat16"}


# ------------------------------------------------------------------------------------------ run layout


@dataclass(frozen=True)
class RunEntry:
    level: int
    problem: int | None  # None: a level directory whose file names no problem
    sample: int | None = None  # only the run name `..._sample_<S>_kernel.py` carries one


def parse_run_name(path: str) -> RunEntry | None:
    """The level, problem and sample of a run file `level_<L>_problem_<P>_sample_<S>_kernel.py`."""
    match = RUN_NAME.search(os.path.basename(path))
    if match is None:
        return None
    return RunEntry(int(match.group(1)), int(match.group(2)), int(match.group(3)))


def problem_of_path(path: str) -> RunEntry | None:
    """The KernelBench level (and problem) a path names: the run name, else `level_L_problem_P.py`, else
    the nearest directory naming a level with the problem from the file name; None when no part of the
    path names a level."""
    entry = parse_run_name(path)
    if entry is not None:
        return entry
    directory, name = os.path.split(os.path.normpath(path))
    stem = os.path.splitext(name)[0]
    match = _LEVEL_PROBLEM_STEM.match(stem)
    if match is not None:
        return RunEntry(int(match.group(1)), int(match.group(2)))
    problem = _PROBLEM_STEM.match(stem)
    while directory and os.path.basename(directory):
        level = _LEVEL_PART.match(os.path.basename(directory))
        if level is not None:
            return RunEntry(int(level.group(1)), int(problem.group(1)) if problem else None)
        directory = os.path.dirname(directory)
    return None


def find_reference(problems_dir: str, level: int, problem: int) -> str | None:
    """The reference file of (level, problem) in a KernelBench problems directory:
    `<problems_dir>/level<L>/<P>_<Name>.py`, or the same under `<problems_dir>/KernelBench/`."""
    for base in (problems_dir, os.path.join(problems_dir, "KernelBench")):
        for name in (f"level{level}", f"level_{level}"):
            directory = os.path.join(base, name)
            if not os.path.isdir(directory):
                continue
            for entry in sorted(os.listdir(directory)):
                match = re.match(r"(\d+)_.*\.py$", entry)
                if match and int(match.group(1)) == problem:
                    return os.path.join(directory, entry)
    return None


def reference_for(path: str, reference: str | None = None, problems: str | None = None) -> str | None:
    """The reference file for the solution at `path`: `reference` when given, else the file found in
    `problems` from the level and problem that `path` names."""
    if reference:
        return reference
    if problems:
        entry = problem_of_path(path)
        if entry is not None and entry.problem is not None:
            return find_reference(problems, entry.level, entry.problem)
    return None


def reference_options_error(reference: str | None, problems: str | None) -> str | None:
    """Why a reference file or problems directory given as an option cannot be used, or None."""
    if reference is not None and not os.path.isfile(reference):
        return f"{reference}: no such reference file"
    if problems is not None and not os.path.isdir(problems):
        return f"{problems}: no such problems directory"
    return None


def missing_reference(path: str, reference: str | None = None, problems: str | None = None) -> str | None:
    """Why the reference asked for the Python solution at `path` cannot be found (a one-line message),
    or None when it is found or none was asked for. A reference asked for and not found must not turn
    the reference-aware rules off without a word: the solution would pass unjudged."""
    if not path.endswith(".py"):
        return None  # only a Python solution has a reference problem
    if reference or not problems:
        return reference_options_error(reference, None)
    if not os.path.isdir(problems):
        return reference_options_error(None, problems)
    entry = problem_of_path(path)
    if entry is None or entry.problem is None:
        return (f"{path}: the file name names no KernelBench problem (level_<L>_problem_<P>_sample_<S>_kernel.py, "
                f"or <P>_<Name>.py in a level folder), so its reference in {problems} is not known")
    if find_reference(problems, entry.level, entry.problem) is None:
        return f"{path}: no reference for level {entry.level} problem {entry.problem} in {problems}"
    return None


# -------------------------------------------------------------------------------------------- imports


class ImportMap:
    """Local names bound by imports, anywhere in the module, mapped to dotted paths:
    `import torch.nn as nn` gives nn -> torch.nn; `from torch.utils.cpp_extension import load_inline`
    gives load_inline -> torch.utils.cpp_extension.load_inline."""

    def __init__(self, module: ast.Module) -> None:
        self.aliases: dict[str, str] = {}
        self.modules: set[str] = set()  # every module imported, top-level packages included
        for node in pyast.of_type(module, ast.Import, ast.ImportFrom):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.modules.add(alias.name)
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.aliases[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                self.modules.add(node.module)
                for alias in node.names:
                    self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        self._value_aliases(module)

    def _value_aliases(self, module: ast.Module) -> None:
        """Names bound once, anywhere, to an imported object: `E = torch.cuda.Event`, `c = torch.cuda`,
        `sync = getattr(torch.cuda, "synchronize")` alias what they name, as an import would."""
        bindings: dict[str, list[ast.expr | None]] = {}
        for node in pyast.walk(module):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                bindings.setdefault(node.targets[0].id, []).append(node.value)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                bindings.setdefault(node.id, []).append(None)  # counted once more: any other binding
            elif isinstance(node, ast.arg):
                bindings.setdefault(node.arg, []).append(None)
        candidates = {name: values[0] for name, values in bindings.items()
                      if len(values) == 2 and values[0] is not None and name not in self.aliases}
        roots = {m.split(".")[0] for m in self.modules}
        for _ in range(4):  # aliases of aliases
            changed = False
            for name, value in candidates.items():
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "getattr" \
                        and len(value.args) == 2 and isinstance(value.args[1], ast.Constant) \
                        and isinstance(value.args[1].value, str):
                    base = self.qualify(value.args[0])
                    target = f"{base}.{value.args[1].value}" if base is not None else None
                else:
                    target = self.qualify(value) if isinstance(value, ast.Attribute) or (
                        isinstance(value, ast.Name) and value.id in self.aliases) else None
                if target is not None and target.split(".")[0] in roots and self.aliases.get(name) != target:
                    self.aliases[name] = target
                    changed = True
            if not changed:
                break

    def imports(self, package: str) -> bool:
        return any(m == package or m.startswith(package + ".") for m in self.modules)

    def qualify(self, expr: ast.expr | None) -> str | None:
        """The dotted name of a Name/Attribute chain, with import aliases resolved; None otherwise."""
        if isinstance(expr, ast.Name):
            return self.aliases.get(expr.id, expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.qualify(expr.value)
            return f"{base}.{expr.attr}" if base is not None else None
        return None


@lru_cache(maxsize=64)  # the analyses and rules of a file each ask for its module's (and its reference's) imports
def import_map(module: ast.Module) -> ImportMap:
    """`ImportMap(module)`, made once per module (the map is not changed after it is made)."""
    return ImportMap(module)


def callee_name(call: ast.Call) -> str | None:
    """The last name of the callee: `load_inline` for `torch.utils.cpp_extension.load_inline(...)`."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def builder_name(call: ast.Call, imports: "ImportMap") -> str | None:
    """The callee's last name as imported: `load_inline` for `build(...)` after `from torch.utils.cpp_extension
    import load_inline as build` (or `build = cpp_extension.load_inline`), else as spelled (`callee_name`).
    A builder is known by what its name is bound to, never by its spelling alone."""
    qualified = imports.qualify(call.func)
    return qualified.rsplit(".", 1)[-1] if qualified else callee_name(call)


def argument(call: ast.Call, keyword: str, position: int | None) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    if position is not None and len(call.args) > position and not any(
            isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    return None


# ------------------------------------------------------------------------------------------- solution


@dataclass
class SourceArgument:
    """One `cpp_sources`/`cuda_sources` argument of a load_inline call."""

    node: ast.expr | None  # None: not passed
    text: str | None  # the resolved source; None when it cannot be resolved statically
    undefined_names: list[ast.Name] = field(default_factory=list)  # names it uses that nothing binds

    @property
    def given(self) -> bool:
        return self.node is not None and not (isinstance(self.node, ast.Constant) and self.node.value is None)

    @property
    def empty(self) -> bool:
        return self.text is not None and not self.text.strip()


@dataclass
class LoadInlineCall:
    call: ast.Call
    name: str | None  # the extension's name= when a string
    cpp: SourceArgument
    cuda: SourceArgument
    # (function name, the string's node) for each entry of functions=[...]; None when not given or
    # not a static list/str/dict of strings (`functions_given` tells which)
    functions: list[tuple[str, ast.expr]] | None
    functions_given: bool
    extra_cuda_cflags: list[str] | None
    target: str | None  # the module-level variable the result is assigned to, if any


@dataclass
class RawKernelCall:
    call: ast.Call
    kind: str  # "RawKernel" or "RawModule"
    code: SourceArgument
    kernel_name: str | None  # RawKernel's second argument
    target: str | None


@dataclass
class Solution:
    path: str
    module: ast.Module
    imports: ImportMap
    classes: dict[str, ast.ClassDef]  # module level (also inside module-level if/try/with)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
    assignments: dict[str, list[ast.expr]]  # module-level `name = value`
    load_inline_calls: list[LoadInlineCall]
    raw_kernels: list[RawKernelCall]
    model_new: ast.ClassDef | None
    model_new_named: bool  # ModelNew is defined, assigned or imported
    other_builders: list[ast.Call]  # cpp_extension.load, cupy ElementwiseKernel, ...
    get_inputs: ast.FunctionDef | None
    get_init_inputs: ast.FunctionDef | None
    # every name the module binds anywhere, builtins included; None when names may be bound at run time
    # (a star import, `exec`, `globals()`): then no name is known to be unbound
    bound_names: frozenset[str] | None = None
    # methods attached after their class by unconditional module-level statements (`setattr(C, "forward", f)`,
    # `C.forward = f`, f a module-level function): (id of the class node, method name) -> f
    attached: dict[tuple[int, str], ast.FunctionDef] = field(default_factory=dict)

    @property
    def uses_foreign_kernels(self) -> bool:
        """Triton, numba, pycuda, ...: device code cudalint does not read."""
        return any(self.imports.imports(m) for m in _FOREIGN_MODULES) or bool(self.other_builders)

    @property
    def builds_kernels(self) -> bool:
        """Builds or imports custom kernels of some backend: `load_inline`, cupy, Triton, CuTe DSL, ..."""
        return bool(self.load_inline_calls or self.raw_kernels or self.other_builders) or any(
            self.imports.imports(m) for m in _FOREIGN_MODULES + ("cupy",))

    @property
    def kernels_stood_in(self) -> bool:
        """Every way the module builds kernels is one the dry run models or records (load_inline, cupy,
        Triton, CuTe DSL): when forward launched nothing in a dry run, it launches nothing on the GPU."""
        return not any(self.imports.imports(m) for m in _FOREIGN_MODULES if m not in _DRY_RUN_MODULES) and all(
            builder_name(builder, self.imports) in _DRY_RUN_BUILDERS for builder in self.other_builders)

    @property
    def is_kernelbench(self) -> bool:
        return is_kernelbench_solution(self)

    def class_chain(self, cls: ast.ClassDef) -> list[ast.ClassDef]:
        """`cls` and its base classes defined in this file, nearest first."""
        chain, stack = [], [cls]
        while stack:
            current = stack.pop(0)
            if current in chain:
                continue
            chain.append(current)
            for base in current.bases:
                name = base.id if isinstance(base, ast.Name) else None
                if name and name in self.classes:
                    stack.append(self.classes[name])
        return chain

    def method(self, cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
        for klass in self.class_chain(cls):
            if (id(klass), name) in self.attached:  # assigned after the class body: it replaces the body's
                return self.attached[id(klass), name]
            for node in klass.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                    return node
        return None

    def is_subclass_of(self, cls: ast.ClassDef, qualified: str) -> bool:
        """Whether `cls` derives (through classes of this file) from the class with dotted name
        `qualified` (`torch.nn.Module`, `torch.autograd.Function`, `torch.Tensor`)."""
        last = qualified.rsplit(".", 1)[-1]
        for klass in self.class_chain(cls):
            for base in klass.bases:
                name = self.imports.qualify(base) or ""
                if name == qualified or (name.startswith("torch.") and name.endswith("." + last)):
                    return True
        return False


def is_kernelbench_solution(solution: Solution) -> bool:
    """Looks like a solution (ModelNew, a CUDA build, a run path): the harness rules apply to it."""
    return (solution.model_new_named or bool(solution.load_inline_calls) or bool(solution.raw_kernels)
            or in_kernelbench_run(solution.path))


def in_kernelbench_run(path: str, problems: str | None = None) -> bool:
    """A file of a KernelBench run, which must define ModelNew: its path names a level, or `problems`
    (the problems directory its run is judged against) is given."""
    return bool(problems) or problem_of_path(path) is not None


def _module_level_statements(body: list[ast.stmt]):
    """Statements at module level, looking into if/try/with blocks (not into functions or classes)."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.If):
            yield from _module_level_statements(statement.body)
            yield from _module_level_statements(statement.orelse)
        elif isinstance(statement, ast.Try) or type(statement).__name__ == "TryStar":
            yield from _module_level_statements(statement.body)
            for handler in statement.handlers:
                yield from _module_level_statements(handler.body)
            yield from _module_level_statements(statement.orelse)
            yield from _module_level_statements(statement.finalbody)
        elif isinstance(statement, (ast.With, ast.For, ast.While)):
            yield from _module_level_statements(statement.body)


def _class_made_by(call: ast.Call, functions: dict[str, ast.FunctionDef]) -> ast.ClassDef | None:
    """The class a call of a module-level factory returns, where the factory takes no arguments and its
    body is that one class and `return` of it (`def make(): class M(nn.Module): ...; return M`): the class
    then means what it would at module level. Any other factory (arguments, locals the class may close
    over) is unresolved: None."""
    factory = functions.get(call.func.id) if isinstance(call.func, ast.Name) and not call.args \
        and not call.keywords else None
    if factory is None or factory.decorator_list or any(
            (factory.args.posonlyargs, factory.args.args, factory.args.vararg, factory.args.kwonlyargs,
             factory.args.kwarg)):
        return None
    body = [s for s in factory.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) == 2 and isinstance(body[0], ast.ClassDef) and isinstance(body[1], ast.Return) \
            and isinstance(body[1].value, ast.Name) and body[1].value.id == body[0].name:
        return body[0]
    return None


def parse_solution(module: ast.Module, text: str, path: str = "<solution>.py") -> Solution:
    """Read a (possible) solution module: its classes, functions, builds and KernelBench functions."""
    imports = import_map(module)
    classes: dict[str, ast.ClassDef] = {}
    functions: dict[str, ast.FunctionDef] = {}
    assignments: dict[str, list[ast.expr]] = {}
    model_new_named = False
    for statement in _module_level_statements(module.body):
        # a later definition rebinds the name: Python's import sees the last ModelNew of the file
        if isinstance(statement, ast.ClassDef):
            classes[statement.name] = statement
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[statement.name] = statement
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                for name in _target_names(target):
                    assignments.setdefault(name, []).append(statement.value)
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
            assignments.setdefault(statement.target.id, []).append(statement.value)
        elif isinstance(statement, ast.ImportFrom):
            model_new_named |= any((a.asname or a.name) == "ModelNew" for a in statement.names)
    model_new = classes.get("ModelNew")
    if model_new is None and "ModelNew" in assignments:
        value = assignments["ModelNew"][-1]
        if isinstance(value, ast.Name) and value.id in classes:
            model_new = classes[value.id]
        elif isinstance(value, ast.Call):
            model_new = _class_made_by(value, functions)
    model_new_named |= model_new is not None or "ModelNew" in assignments

    bound = _bound_names(module, imports)
    resolver = StringResolver(module, text)
    targets = _assignment_targets(module)
    load_inline_calls: list[LoadInlineCall] = []
    raw_kernels: list[RawKernelCall] = []
    other_builders: list[ast.Call] = []
    for node in pyast.of_type(module, ast.Call):
        name = builder_name(node, imports)
        if name == LOAD_INLINE:
            load_inline_calls.append(_load_inline(node, resolver, bound, targets.get(id(node))))
        elif name in CUPY_SOURCES:
            code = _source_argument(argument(node, "code", 0), resolver, bound)
            kernel = argument(node, "name", 1)
            raw_kernels.append(RawKernelCall(
                node, name, code, kernel.value if isinstance(kernel, ast.Constant) and isinstance(
                    kernel.value, str) else None, targets.get(id(node))))
        elif name in _OTHER_BUILDERS:
            qualified = imports.qualify(node.func) or ""
            if name != "load" or "cpp_extension" in qualified:
                if name != "jit" or any(m in qualified for m in _FOREIGN_MODULES):
                    other_builders.append(node)
    return Solution(
        path=path, module=module, imports=imports, classes=classes, functions=functions,
        assignments=assignments, load_inline_calls=load_inline_calls, raw_kernels=raw_kernels,
        model_new=model_new, model_new_named=model_new_named, other_builders=other_builders,
        get_inputs=_function(functions, "get_inputs"), get_init_inputs=_function(functions, "get_init_inputs"),
        bound_names=None if binds_dynamically(module) else frozenset(bound),
        attached=_attached_methods(module, classes, functions, model_new),
    )


def _attached_methods(module: ast.Module, classes: dict[str, ast.ClassDef], functions: dict,
                      model_new: ast.ClassDef | None) -> dict[tuple[int, str], ast.FunctionDef]:
    """Module-level functions made methods by top-level statements after the class (`setattr(C, "m", f)`,
    `C.m = f`): the class node's id and the method's name, to the function. Only unconditional statements
    count (one inside an `if` may not run); the last one wins, as it does when the module runs."""
    def class_named(node: ast.expr) -> ast.ClassDef | None:
        if not isinstance(node, ast.Name):
            return None
        return model_new if node.id == "ModelNew" and model_new is not None else classes.get(node.id)

    attached: dict[tuple[int, str], ast.FunctionDef] = {}
    for statement in module.body:
        owner = name = value = None
        call = statement.value if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) else None
        if call is not None and isinstance(call.func, ast.Name) and call.func.id == "setattr" and len(call.args) == 3 \
                and not call.keywords and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str):
            owner, name, value = call.args[0], call.args[1].value, call.args[2]
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Attribute):
            owner, name, value = statement.targets[0].value, statement.targets[0].attr, statement.value
        cls = class_named(owner) if owner is not None else None
        if cls is None:
            continue
        function = functions.get(value.id) if isinstance(value, ast.Name) else None
        if isinstance(function, ast.FunctionDef):
            attached[id(cls), name] = function
        else:  # a value that is no module-level function (a lambda, a call): not followed, as before
            attached.pop((id(cls), name), None)
    return attached


def _function(functions: dict, name: str) -> ast.FunctionDef | None:
    node = functions.get(name)
    return node if isinstance(node, ast.FunctionDef) else None


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for element in target.elts for n in _target_names(element)]
    return []


def _assignment_targets(module: ast.Module) -> dict[int, str]:
    """id(call) -> the simple variable or `self.attr` its value is assigned to."""
    found: dict[int, str] = {}
    for node in pyast.of_type(module, ast.Assign):
        if len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                found[id(node.value)] = target.id
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                found[id(node.value)] = f"{target.value.id}.{target.attr}"
    return found


_BUILTIN_NAMES = frozenset(dir(builtins))


_BINDING_CLASSES = (ast.Name, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.arg, ast.alias, ast.Global,
                    ast.Nonlocal, ast.ExceptHandler, ast.MatchAs)


def module_bound_names(path: str) -> frozenset[str] | None:
    """Every name the Python file at `path` binds (as `Solution.bound_names`); None when it cannot be read
    or may bind names at run time."""
    module = python_module_at(path)
    if module is None or binds_dynamically(module):
        return None
    return frozenset(_bound_names(module, import_map(module)))


def _bound_names(module: ast.Module, imports: ImportMap) -> set[str]:
    """Every name the module binds anywhere (assignments, defs, parameters, imports, loops, ...)."""
    names = set(_BUILTIN_NAMES) | set(imports.aliases)
    for node in pyast.of_type(module, *_BINDING_CLASSES):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchAs) and node.name:
            names.add(node.name)
    return names


_DYNAMIC_BINDERS = frozenset({"exec", "eval", "globals"})


def binds_dynamically(module: ast.Module) -> bool:
    """Whether the module may bind names its text does not show: a star import, or a call of `exec`,
    `globals()`, `setattr` of anything but `self`, a module's `__dict__` or `sys.modules`."""
    for node in pyast.of_type(module, ast.ImportFrom, ast.Call, ast.Attribute):
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id in _DYNAMIC_BINDERS or (node.func.id == "setattr" and not (
                    node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "self"))):
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("__dict__", "modules", "__builtins__"):
            return True
    return False


def _source_argument(node: ast.expr | None, resolver: StringResolver, bound: set[str]) -> SourceArgument:
    if node is None:
        return SourceArgument(None, None)
    undefined = [n for n in pyast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                 and n.id not in bound]
    return SourceArgument(node, resolver.value(node), undefined)


def _load_inline(call: ast.Call, resolver: StringResolver, bound: set[str], target: str | None) -> LoadInlineCall:
    name_node = argument(call, "name", 0)
    functions_node = argument(call, "functions", 3)
    functions = _string_entries(functions_node, resolver) if functions_node is not None else None
    flags_node = argument(call, "extra_cuda_cflags", None)
    flags = None
    if isinstance(flags_node, (ast.List, ast.Tuple)):
        flags = [e.value for e in flags_node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return LoadInlineCall(
        call=call,
        name=name_node.value if isinstance(name_node, ast.Constant) and isinstance(name_node.value, str) else None,
        cpp=_source_argument(argument(call, "cpp_sources", 1), resolver, bound),
        cuda=_source_argument(argument(call, "cuda_sources", 2), resolver, bound),
        functions=functions,
        functions_given=functions_node is not None and not (
            isinstance(functions_node, ast.Constant) and functions_node.value is None),
        extra_cuda_cflags=flags, target=target,
    )


def _string_entries(node: ast.expr, resolver: StringResolver, depth: int = 0) -> list[tuple[str, ast.expr]] | None:
    """The names of `functions=`: a str, or a list/tuple of str, or a dict with str keys; a variable
    holding one of those is followed. None when not static."""
    if depth > 10:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [(node.value, node)]
    if isinstance(node, (ast.List, ast.Tuple)):
        entries = []
        for element in node.elts:
            if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
                return None
            entries.append((element.value, element))
        return entries
    if isinstance(node, ast.Dict):
        entries = []
        for key in node.keys:
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None
            entries.append((key.value, key))
        return entries
    if isinstance(node, ast.Name):
        value = resolver.assigned_value(node)
        if value is not None:
            return _string_entries(value, resolver, depth + 1)
    return None


# ------------------------------------------------------------------------------------------ reference


@dataclass
class InputSpec:
    shape: tuple[int, ...] | None  # None when the shape cannot be evaluated
    dtype: str  # "torch.float32" unless the call says otherwise
    line: int


@dataclass
class Reference:
    path: str
    inputs: list[InputSpec]
    init_arguments: list[int | None]  # what get_init_inputs returns, by position: the integers, None for others
    constants: dict[str, int]  # module-level integer constants

    @property
    def init_values(self) -> list[int]:
        """The integers get_init_inputs returns."""
        return [v for v in self.init_arguments if v is not None]

    @property
    def fp32(self) -> bool:
        """An fp32 problem: no input is created in half or bf16 (torch's default dtype is fp32)."""
        return not any(spec.dtype in HALF_DTYPES for spec in self.inputs)

    def sizes(self) -> set[int]:
        """Every size the inputs have: each dimension, and the products of runs of adjacent dimensions
        (numel, rows = prod(shape[:-1]), ...)."""
        found: set[int] = set()
        for spec in self.inputs:
            if not spec.shape:
                continue
            shape = spec.shape
            for i in range(len(shape)):
                product = 1
                for j in range(i, len(shape)):
                    product *= shape[j]
                    found.add(product)
        found.update(v for v in self.init_values if v > 0)
        return found


def reference_from_module(module: ast.Module, path: str) -> Reference | None:
    """The problem definition in `module` (its get_inputs), or None when it has no get_inputs."""
    functions = {n.name: n for n in module.body if isinstance(n, ast.FunctionDef)}
    get_inputs = functions.get("get_inputs")
    if get_inputs is None:
        return None
    imports = import_map(module)
    constants = _integer_constants(module)
    inputs = [_input_spec(call, constants, imports) for call in _returned_calls(get_inputs)]
    init_arguments: list[int | None] = []
    if "get_init_inputs" in functions:
        for node in pyast.walk(functions["get_init_inputs"]):
            if isinstance(node, ast.Return) and isinstance(node.value, (ast.List, ast.Tuple)):
                init_arguments = [_int_value(element, constants) for element in node.value.elts]
    return Reference(path, inputs, init_arguments, constants)


@lru_cache(maxsize=1024)
def read_python(path: str, mtime: float) -> tuple[ast.Module, str] | None:
    """The syntax tree and text of the Python file at `path` (absolute), read once per process for each
    modification time: a reference is read by several rules. The tree must not be changed."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        return ast.parse(text, filename=path), text
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
        return None


@lru_cache(maxsize=256)
def _parse_reference_cached(path: str, mtime: float) -> Reference | None:
    parsed = read_python(path, mtime)
    if parsed is None:
        return None
    return reference_from_module(parsed[0], path)


def parse_reference(path: str) -> Reference | None:
    """The reference problem at `path` (cached by path and modification time); None if unreadable."""
    try:
        mtime = os.path.getmtime(path)
    except OSError:
        return None
    return _parse_reference_cached(os.path.abspath(path), mtime)


def _integer_constants(module: ast.Module) -> dict[str, int]:
    constants: dict[str, int] = {}
    for statement in module.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(
                statement.targets[0], ast.Name):
            value = _int_value(statement.value, constants)
            if value is not None:
                constants[statement.targets[0].id] = value
            else:
                constants.pop(statement.targets[0].id, None)
    return constants


def _int_value(node: ast.expr, constants: dict[str, int], depth: int = 0) -> int | None:
    if depth > 20:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _int_value(node.operand, constants, depth + 1)
        return -value if value is not None else None
    if isinstance(node, ast.BinOp):
        left = _int_value(node.left, constants, depth + 1)
        right = _int_value(node.right, constants, depth + 1)
        if left is None or right is None:
            return None
        try:
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            if isinstance(node.op, ast.Mult):
                return left * right
            if isinstance(node.op, ast.FloorDiv):
                return left // right
            if isinstance(node.op, ast.Pow) and 0 <= right <= 64:
                return left ** right
            if isinstance(node.op, ast.LShift) and 0 <= right <= 64:
                return left << right
        except ZeroDivisionError:
            return None
    return None


def python_module_at(path: str) -> ast.Module | None:
    """The syntax tree of the Python file at `path` (read once per modification time); None if unreadable."""
    try:
        parsed = read_python(os.path.abspath(path), os.path.getmtime(path))
    except OSError:
        return None
    return parsed[0] if parsed is not None else None


def returned_list_lengths(module: ast.Module) -> dict[str, int]:
    """For `get_inputs` and `get_init_inputs` of `module`: how many items the list it returns holds, when
    every return of the function is a list or tuple literal without starred items and all have that
    length (what the harness unpacks into `ModelNew(*...)` and `model(*...)`)."""
    found: dict[str, int] = {}
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name in ("get_inputs", "get_init_inputs"):
            returns = [r.value for r in pyast.of_type(node, ast.Return)]
            lengths = {len(v.elts) if isinstance(v, (ast.List, ast.Tuple)) and not any(
                isinstance(e, ast.Starred) for e in v.elts) else None for v in returns}
            if len(lengths) == 1 and None not in lengths:
                found[node.name] = lengths.pop()
    return found


def _returned_calls(function: ast.FunctionDef) -> list[ast.Call]:
    """The tensor-creating calls of the list get_inputs returns (following simple local variables)."""
    local: dict[str, ast.expr] = {}
    for node in pyast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            local[node.targets[0].id] = node.value
    calls: list[ast.Call] = []
    for node in pyast.walk(function):
        if isinstance(node, ast.Return) and isinstance(node.value, (ast.List, ast.Tuple)):
            for element in node.value.elts:
                value = local.get(element.id, element) if isinstance(element, ast.Name) else element
                while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in (
                        "cuda", "to", "contiguous", "float", "half", "bfloat16", "requires_grad_") and not (
                        isinstance(value.func.value, ast.Name) and value.func.value.id == "torch"):
                    if value.func.attr in ("half", "bfloat16"):
                        break
                    value = value.func.value
                if isinstance(value, ast.Call):
                    calls.append(value)
    return calls


_CREATORS = {"randn", "rand", "zeros", "ones", "empty", "full", "randint", "normal", "tensor", "arange"}


def _input_spec(call: ast.Call, constants: dict[str, int], imports: ImportMap) -> InputSpec:
    dtype = "torch.float32"
    name = callee_name(call) or ""
    if name in ("half", "bfloat16") and isinstance(call.func, ast.Attribute):
        dtype = "torch.float16" if name == "half" else "torch.bfloat16"
        inner = call.func.value
        call = inner if isinstance(inner, ast.Call) else call
        name = callee_name(call) or ""
    for kw in call.keywords:
        if kw.arg == "dtype":
            dtype = imports.qualify(kw.value) or dtype
    if name == "randint":
        dtype = "torch.int64" if dtype == "torch.float32" else dtype
    shape: tuple[int, ...] | None = None
    if name in _CREATORS and name not in ("tensor", "arange"):
        args = list(call.args)
        size_kw = next((kw.value for kw in call.keywords if kw.arg == "size"), None)
        if name == "randint":
            args = [a for a in args if isinstance(a, (ast.Tuple, ast.List))] or ([size_kw] if size_kw else [])
        elif name == "full":
            args = args[:1]
        elif name == "normal":
            args = [size_kw] if size_kw is not None else args[2:3]
        elif size_kw is not None and not args:
            args = [size_kw]
        if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
            args = list(args[0].elts)
        values = [_int_value(a, constants) for a in args]
        if values and None not in values:
            shape = tuple(values)  # type: ignore[arg-type]
    return InputSpec(shape, dtype, call.lineno)


_LIBRARY_MODULES = ("torch", "F", "nn", "np", "numpy", "math", "triton")


def library_call(func: ast.expr) -> bool:
    """`torch.matmul(...)`, `F.relu(...)`: a library function, not the extension's."""
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id in _LIBRARY_MODULES


def extension_call_arguments(module: ast.Module, classify) -> dict[str, dict[int, object]]:
    """For each function the Python code calls (by name; library calls excluded): the positions of
    arguments for which `classify(arg, assignments)` says something, with what it says. `assignments`
    maps each local of the enclosing function to the values assigned to it, so `y = x.half(); f(y)` is
    seen through."""
    found: dict[str, dict[int, object]] = {}
    for name, call, assignments in _extension_calls(module):
        for index, arg in enumerate(call.args):
            verdict = classify(arg, assignments)
            if verdict is not None:
                found.setdefault(name, {})[index] = verdict
    return found


@lru_cache(maxsize=4)  # several rules ask about the module being linted
def _extension_calls(module: ast.Module) -> list[tuple[str, ast.Call, dict[str, list[ast.expr]]]]:
    """Calls of non-library functions by name, each with the assignments of its enclosing function."""
    calls = []
    for function in pyast.of_type(module, ast.FunctionDef, ast.AsyncFunctionDef):
        assignments: dict[str, list[ast.expr]] = {}
        for node in pyast.of_type(function, ast.Assign):
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                assignments.setdefault(node.targets[0].id, []).append(node.value)
        for node in pyast.of_type(function, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else (
                node.func.id if isinstance(node.func, ast.Name) else None)
            if name is not None and not library_call(node.func):
                calls.append((name, node, assignments))
    return calls
