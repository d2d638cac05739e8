"""CL424 bound-call-mismatch: forward calls a function that `load_inline(functions=[...])` binds with
arguments pybind11 cannot convert, so the call raises `TypeError: incompatible function arguments`.

`load_inline` binds each function with a bare `m.def(name, &name)`: no argument names and no defaults.
pybind11 then takes exactly the C++ function's parameters, positionally. Reported on the call when:
- it passes another number of arguments than the C++ definition has parameters (a C++ default argument,
  `float beta = 1.0`, is invisible to pybind), or passes keyword arguments;
- it passes `None`, or a Python number, where the C++ parameter is a `torch::Tensor` (not an optional);
- it passes a float literal where the C++ parameter is an integer;
- it passes a layer's attribute that the layer leaves `None` where C++ takes a tensor: `bias` of a
  `Linear`/`Conv*` built with `bias=False`, `running_mean`/`running_var` of an `InstanceNorm*` (which
  tracks no running statistics unless `track_running_stats=True`) or of a `BatchNorm*` built with
  `track_running_stats=False`, `weight`/`bias` of a norm built without affine parameters.
Silent when the sources bind with their own `PYBIND11_MODULE` (names and defaults may be declared
there), for overloaded or templated functions, and for calls with `*args`/`**kwargs`.

Evidence: when the dry run (cudalint/dryrun/) ran forward, a call that the extension model refused (the
C++ signature's pybind11 conversion classes: a tensor parameter takes only a tensor, an integer no float,
the arity and keywords of the binding, `py::arg` names where `PYBIND11_MODULE` declares them) is proof,
reported on the calling line whatever the static reading saw. When the dry run completed, a static claim
about a call that the dry run saw accepted is not made.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.harness.document_state import state_of
from cudalint.harness.statements import line_location, node_location
from cudalint.model import ir

_TENSOR = re.compile(r"^(const\s+)?(torch|at)::Tensor\s*&?$")
_INTEGER = re.compile(r"^(const\s+)?(unsigned\s+|signed\s+)?(int|long|long\s+long|short|size_t|u?int(8|16|32|64)_t|"
                      r"std::size_t|std::u?int(8|16|32|64)_t)\s*&?$")

# (layer classes, keyword, its position in the constructor, value that makes the attributes None, the
# keyword's default, attributes)
_NONE_ATTRIBUTES = [
    (("Linear",), "bias", 2, False, True, ("bias",)),
    (("Bilinear",), "bias", 3, False, True, ("bias",)),
    (("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"), "bias", 7, False,
     True, ("bias",)),
    (("InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"), "track_running_stats", 4, False, False,
     ("running_mean", "running_var")),
    (("InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"), "affine", 3, False, False, ("weight", "bias")),
    (("BatchNorm1d", "BatchNorm2d", "BatchNorm3d"), "track_running_stats", 4, False, True,
     ("running_mean", "running_var")),
    (("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm"), "affine", 3, False, True, ("weight", "bias")),
    (("LayerNorm",), "elementwise_affine", 2, False, True, ("weight", "bias")),
    (("LayerNorm",), "bias", 3, False, True, ("bias",)),
]


@rule("CL424", "bound-call-mismatch", "error",
      "forward calls a load_inline-bound function with arguments pybind11 cannot convert (count, keywords, None)")
def check(ctx: RuleContext) -> Iterator[Finding]:
    flow = state_of(ctx.document).flow
    harness = ctx.harness
    if harness is not None and ctx.facts.unit is ctx.document.units[-1]:  # once per document
        yield from _observed(ctx, harness)
    if harness is not None and harness.conversion_errors():
        return
    if flow is None or flow.forward is None or "PYBIND11_MODULE" in ctx.document.text:
        return
    definitions: dict[str, list[ir.Function]] = {}
    for function in ctx.program.functions:
        if function.space == "host":
            definitions.setdefault(function.name, []).append(function)
    for name, call in flow.bound_function_calls():
        found = definitions.get(name, [])
        defined = [f for f in found if f.body is not None]
        if len(defined) != 1 or len({len(f.params) for f in found}) != 1 or defined[0].templated:
            continue
        message = _mismatch(name, call, defined[0], flow)
        if message is not None and ctx.observed is not None \
                and node_location(ctx.document, call).line in ctx.observed.accepted_call_lines(name):
            continue  # the dry run passed these arguments and the binding took them
        if message is not None:
            yield ctx.finding_at(node_location(ctx.document, call), message)


def _observed(ctx: RuleContext, harness) -> Iterator[Finding]:
    seen: set[int] = set()
    for error in harness.conversion_errors():
        line = error.get("line")
        if line is None or line in seen:
            continue
        seen.add(line)
        detail = error["message"].rsplit("Invoked with: ", 1)[-1]
        function = error["message"].split("(", 1)[0]
        yield ctx.finding_at(line_location(ctx.document, line), (
            f"the dry run called `{function}` here ({_call_text(error)}): {detail}, so pybind11 "
            f"raises `TypeError: incompatible function arguments`; pass what the C++ signature takes"))


def _call_text(error: dict) -> str:
    stage = error.get("stage") or "the run"
    return f"forward's {stage}" if stage.startswith("call") else f"while it ran the {stage}"


def _mismatch(name: str, call: ast.Call, function: ir.Function, flow) -> str | None:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    params = function.params
    signature = f"`{name}({', '.join(' '.join(p.type.split()) + ' ' + p.name for p in params)})`"
    tail = "pybind11 raises `TypeError: incompatible function arguments`"
    if call.keywords:
        return (f"`{name}` is bound by load_inline without argument names, so the keyword argument "
                f"`{call.keywords[0].arg}=` cannot be passed: {tail}; pass every argument by position, in "
                f"the order of {signature}")
    if len(call.args) != len(params):
        return (f"forward passes {len(call.args)} argument(s) to `{name}`, which takes {len(params)}: "
                f"{signature}; load_inline binds it without its C++ default arguments, so {tail}; pass all "
                f"{len(params)}")
    for position, (argument, param) in enumerate(zip(call.args, params), 1):
        spelled = " ".join((param.canonical_type or param.type).split())
        typed = " ".join(param.type.split())
        tensor = bool(_TENSOR.match(typed) or _TENSOR.match(spelled))
        shown = short_text(ast.unparse(argument))
        what = None
        if tensor and isinstance(argument, ast.Constant) and (argument.value is None or isinstance(
                argument.value, (int, float)) and not isinstance(argument.value, bool)):
            what = "None" if argument.value is None else "a Python number"
        elif tensor and (reason := _none_attribute(argument, flow)) is not None:
            what = f"None ({reason})"
        elif (_INTEGER.match(typed) or _INTEGER.match(spelled)) and isinstance(argument, ast.Constant) \
                and isinstance(argument.value, float):
            what = "a float"
        if what is not None:
            return (f"argument {position} of `{name}` is `{shown}`, {what}, where the C++ parameter `{param.name}` "
                    f"is `{typed}`: {tail}")
    return None


def _none_attribute(argument: ast.expr, flow) -> str | None:
    """Why `self.layer.attr` is None, for a layer forward's module built that way; None when it is not."""
    if not (isinstance(argument, ast.Attribute) and isinstance(argument.value, ast.Attribute)
            and isinstance(argument.value.value, ast.Name) and argument.value.value.id == "self"):
        return None
    layer = argument.value.attr
    constructor = flow.attr_torch_module_calls.get(layer)
    kind = flow.attr_torch_modules.get(layer)
    if constructor is None or kind is None:
        return None
    if any(k.arg is None for k in constructor.keywords) or any(isinstance(a, ast.Starred) for a in constructor.args):
        return None  # **options or *sizes may set anything
    keywords = {k.arg: k.value for k in constructor.keywords}
    for kinds, keyword, position, none_when, default, attributes in _NONE_ATTRIBUTES:
        if kind not in kinds or argument.attr not in attributes:
            continue
        given = keywords.get(keyword, constructor.args[position] if position < len(constructor.args) else None)
        if given is None:
            value = default
        elif isinstance(given, ast.Constant) and isinstance(given.value, bool):
            value = given.value
        else:
            continue
        if value == none_when:
            how = "by default" if given is None else f"with `{keyword}={given.value}`"
            return f"`nn.{kind}` built {how} has no `{argument.attr}`"
    return None
