"""CL401 binding-mismatch: a function the Python side binds that the C++/CUDA side does not provide
with that name and signature, so the extension does not build or does not import.

load_inline appends `m.def("<name>", <name>)` to cpp_sources for every entry of `functions=[...]`, so
each name must be declared (or defined) in cpp_sources; each declaration must be defined in
cpp_sources or cuda_sources with the same parameter types (else the import fails with an undefined
symbol). For cupy, `RawKernel(code, name)` and `RawModule.get_function(name)` need an `extern "C"`
kernel of that name in the code.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from cudalint import pyast
from cudalint.checks.context import RuleContext, UnitFacts
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import record_unit
from cudalint.harness.statements import node_location
from cudalint.model import ir


@rule("CL401", "binding-mismatch", "error",
      "a name in load_inline's functions=[...] (or a cupy kernel name) that the C++/CUDA does not declare, "
      "define, or define with the declared signature")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state, last = record_unit(ctx)
    if not last:
        return
    solution = state.solution
    if solution is None:
        return
    for call in solution.load_inline_calls:
        yield from _check_load_inline(ctx, state, call)
    yield from _check_cupy(ctx, state, solution)


def _facts_for(state, text: str | None, language: str) -> UnitFacts | None:
    if text is None:
        return None
    return state.unit_with_text(text, language)


def _clean(facts: UnitFacts | None) -> bool:
    """Parsed without errors and without unknown headers: its declarations are complete."""
    if facts is None:
        return False
    lowered = facts.lowered
    return not lowered.unknown_headers and not any(
        d.severity == "error" and d.in_main_file for d in lowered.diagnostics)


_LIBRARY_PREFIXES = ("torch/", "ATen/", "c10/", "pybind11/", "cub/", "thrust/", "cutlass/", "cute/", "cuda/",
                     "mma", "cooperative_groups", "cublas", "cudnn", "curand", "cufft", "cusparse", "nvtx",
                     "cuda", "crt/", "sm_", "vector_types", "device_", "driver_", "math_", "texture_")


def _user_headers(facts: UnitFacts) -> list[str]:
    """Unknown headers that may hold the solution's own declarations (not a library or system header)."""
    return [h for h, _ in facts.lowered.unknown_headers
            if "." in h.rsplit("/", 1)[-1] and not h.startswith(_LIBRARY_PREFIXES)]


def _check_load_inline(ctx: RuleContext, state, call) -> Iterator[Finding]:
    if not call.functions or call.cpp.text is None or (call.cuda.given and call.cuda.text is None):
        return
    document = ctx.document
    cpp_facts = _facts_for(state, call.cpp.text, "c++") if call.cpp.text.strip() else None
    cuda_facts = _facts_for(state, call.cuda.text, "cuda") if call.cuda.text and call.cuda.text.strip() else None
    if call.cpp.text.strip() and cpp_facts is None:
        return  # the C++ did not parse: nothing to compare with
    if call.cuda.text and call.cuda.text.strip() and cuda_facts is None:
        return
    cpp_declared = cpp_facts.lowered.prototypes if cpp_facts else []
    cpp_defined = [f for f in cpp_facts.program.functions if not f.is_kernel] if cpp_facts else []
    cuda_defined = [f for f in cuda_facts.program.functions if f.space != "device"] if cuda_facts else []
    visible = {f.name for f in cpp_declared + cpp_defined}
    for name, node in call.functions:
        plain = name.rsplit("::", 1)[-1]
        location = node_location(document, node)
        if plain not in visible:
            if cpp_facts is not None and _user_headers(cpp_facts):
                continue  # it may be declared in a header cudalint cannot see
            others = sorted({f.name for f in cpp_declared + cpp_defined if f.space != "device"})
            where = "cpp_sources is empty" if cpp_facts is None else (
                f"cpp_sources declares {_names(others)}" if others else "cpp_sources declares no function")
            hint = _closest(plain, {f.name for f in cuda_defined})
            yield ctx.finding_at(location, (
                f"`functions` binds `{name}`, but {where}: the binding load_inline generates "
                f"(`m.def(\"{name}\", {name})`) does not compile"
                + (f"; cuda_sources defines `{hint}`" if hint else "")))
            continue
        if any(f.name == plain for f in cpp_defined):
            continue  # defined in cpp_sources itself
        definitions = [f for f in cuda_defined if f.name == plain]
        if not definitions:
            if call.cuda.given and cuda_facts is None and call.cuda.text is None:
                continue
            if cuda_facts is not None and _user_headers(cuda_facts):
                continue
            hint = _closest(plain, {f.name for f in cuda_defined if not f.is_kernel})
            yield ctx.finding_at(location, (
                f"`{name}` is declared in cpp_sources but defined nowhere"
                + (f" (cuda_sources defines `{hint}`)" if hint else "")
                + ": importing the extension fails with an undefined symbol"))
            continue
        prototypes = [f for f in cpp_declared if f.name == plain]
        if not prototypes or not _clean(cpp_facts) or not _clean(cuda_facts):
            continue
        if any(f.templated for f in definitions + prototypes):
            continue
        wanted = {_signature(p) for p in prototypes}
        offered = {_signature(d) for d in definitions}
        if wanted & offered:
            continue
        prototype, definition = prototypes[0], definitions[0]
        yield ctx.finding_at(location, (
            f"`{name}` is declared as `{_spelled(prototype)}` in cpp_sources but defined as "
            f"`{_spelled(definition)}` in cuda_sources: the declared overload has no definition and "
            f"importing the extension fails with an undefined symbol"))


def _check_cupy(ctx: RuleContext, state, solution) -> Iterator[Finding]:
    from cudalint.harness.forward import ForwardFlow

    flow: ForwardFlow | None = state.flow
    for raw in solution.raw_kernels:
        facts = _facts_for(state, raw.code.text, "cuda") if raw.code.text else None
        if facts is None or not _clean(facts):
            continue
        names: list[tuple[str, ast.expr]] = []
        if raw.kind == "RawKernel":
            node = raw.call.args[1] if len(raw.call.args) > 1 else next(
                (k.value for k in raw.call.keywords if k.arg == "name"), None)
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.append((node.value, node))
        elif raw.target and flow is not None:
            for sub in pyast.walk(solution.module):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                        and sub.func.attr == "get_function" and sub.args \
                        and isinstance(sub.args[0], ast.Constant) and isinstance(sub.args[0].value, str) \
                        and _names_target(sub.func.value, raw.target):
                    names.append((sub.args[0].value, sub.args[0]))
        if raw.kind == "RawModule" and any(k.arg == "name_expressions" for k in raw.call.keywords):
            continue  # mangled names are looked up through name_expressions
        kernels = {f.name: f for f in facts.program.kernels}
        for name, node in names:
            kernel = kernels.get(name)
            location = node_location(ctx.document, node)
            if kernel is None:
                hint = _closest(name, set(kernels))
                yield ctx.finding_at(location, (
                    f"cupy looks up the kernel `{name}`, but the code defines no such `__global__` function"
                    + (f" (it defines `{hint}`)" if hint else "") + ": the first launch fails"))
            elif kernel.ref and "#" in kernel.ref and not kernel.templated:
                yield ctx.finding_at(location, (
                    f"kernel `{name}` is not declared `extern \"C\"`, so its symbol is C++-mangled and cupy "
                    f"cannot find it by this name: the first launch fails"))


def _names_target(expr: ast.expr, target: str) -> bool:
    if isinstance(expr, ast.Name):
        return expr.id == target
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return f"{expr.value.id}.{expr.attr}" == target
    return False


def _normalize(type_: str) -> str:
    type_ = re.sub(r"\s+", " ", type_.strip())
    if not type_.endswith(("&", "*")):
        type_ = re.sub(r"^const |^volatile | const$", "", type_)
    else:
        type_ = re.sub(r" ?\bconst$", "", type_)
    return type_


def _signature(function: ir.Function) -> tuple[str, ...]:
    return tuple(_normalize(p.canonical_type or p.type) for p in function.params)


def _spelled(function: ir.Function) -> str:
    return f"{function.name}({', '.join(p.type for p in function.params)})"


def _names(names: list[str]) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:4])
    return shown + (", ..." if len(names) > 4 else "")


def _closest(name: str, candidates: set[str]) -> str | None:
    import difflib

    matches = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.5)
    if matches:
        return matches[0]
    return next(iter(candidates)) if len(candidates) == 1 else None
