"""CL403 pytorch-fallback: on a path the harness grades, forward's result is computed by PyTorch and
the custom kernels do none of the work.

Reported on the Python line where PyTorch takes over:
- the `except` line of a try/except around a kernel call whose handler computes with torch instead
  of re-raising;
- the `except` line of a try/except around the build (`load_inline`) that swallows the failure, when
  forward branches on the result to a torch path;
- a statement of forward that computes with torch on forward's inputs when forward never reaches the
  kernel, or a `return` computed by torch alone on a path the harness certainly takes (no branch, or a
  branch on `self.training`, `torch.is_grad_enabled()`, `x.requires_grad`);
- with a reference, the first statement of a forward that still computes every operation of the
  reference's forward with torch (the kernel is decoration).

Evidence: when the dry run (cudalint/dryrun/) completed, two of these claims yield to what it
observed. "forward never calls the custom kernel" is not made when a function of the compiled extension
ran in every call; "forward returns a result computed with PyTorch alone" is not made when, in every
call, forward's output held a result of the compiled code (a bound function's result, a tensor a
launcher wrote, or what torch made of them). The except-handler and swallowed-build claims are about
paths the dry run does not take (a failing kernel or build) and stay static. When the dry run did not
complete, every claim is the static reading's.

Partial use, torch computing some of the work next to kernels that do the rest, is CL408's (a
warning); both rules share one pass over forward (`fallback_claims`). Torch used to allocate
(`torch.empty_like`), reshape (`x.view`), move or set up weights, and updates of running statistics
that never reach the output, are not computing with torch.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from cudalint import pyast
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.harness.document_state import problem_of, reference_operations, state_of
from cudalint.harness.forward import ForwardFlow
from cudalint.harness.statements import (
    SIMPLE_STATEMENTS, _names_in_target, _targets_and_value, graded_paths, line_location, statements_in_order,
)


_BACKEND_NAMES = {"triton": "Triton", "cutlass": "CuTe DSL", "cuda": "cuda-python"}


@rule("CL403", "pytorch-fallback", "error",
      "on a graded path forward's result is computed with torch ops and the custom kernels do none of the work: "
      "no kernel call, a torch-only return, or a torch fallback in an except handler", scope="document")
def check(ctx: RuleContext) -> Iterator[Finding]:
    for claim in fallback_claims(ctx):
        if claim.fallback:
            yield ctx.finding_at(line_location(ctx.document, claim.line), claim.message)


@dataclass(frozen=True)
class Claim:
    line: int
    fallback: bool  # True: the kernels do none of the work (CL403); False: torch does part of it (CL408)
    message: str
    basis: str = ""  # "no kernel call" or "torch return": claims a completed dry run can refute


def fallback_claims(ctx: RuleContext) -> list[Claim]:
    """Where forward computes with torch instead of the custom kernels, one claim a line (cached)."""
    state = state_of(ctx.document)
    if "fallback_claims" not in state.cache:
        state.cache["fallback_claims"] = _claims(ctx, state)
    return state.cache["fallback_claims"]


def _claims(ctx: RuleContext, state) -> list[Claim]:
    solution = state.solution
    flow = state.flow
    if solution is None or flow is None or flow.forward is None:
        return []
    if solution.uses_foreign_kernels:
        return _observed_foreign(ctx, solution, flow)
    if not solution.load_inline_calls and not solution.raw_kernels:
        return []  # CL400: no build at all
    claims: dict[int, Claim] = {}

    def claim(line: int, fallback: bool, message: str, basis: str = "") -> None:
        if line not in claims or (fallback and not claims[line].fallback):
            claims[line] = Claim(line, fallback, message, basis)

    # a try/except around a kernel call that computes with torch in the handler
    for info in flow.functions:
        typing = flow.typing(info)
        for node in pyast.walk(info.node):
            if not isinstance(node, ast.Try) or not _invokes(flow, info, node.body):
                continue
            for handler in node.handlers:
                if _raises(handler.body) or _catches_only_imports(handler):
                    continue
                if any(typing.is_compute(s) or _calls_fallback(flow, info, s) for s in handler.body):
                    claim(handler.lineno, True, (
                        "the kernel call is wrapped in try/except and the handler computes the result with "
                        "PyTorch: a kernel that fails still passes the harness, timed as PyTorch"))
    # a try/except around the build that swallows the failure, with forward branching on it
    for line in _swallowed_build(flow):
        claim(line, True, (
            "a failed build is swallowed here and forward branches on it: when the CUDA does not "
            "compile, the harness silently checks and times a PyTorch path instead"))
    # statements of forward that compute on the inputs with torch, not on the kernel's results
    _torch_on_inputs(ctx, flow, claim, claims)
    return sorted(_refuted_dropped(ctx, claims.values()), key=lambda c: c.line)


def _observed_foreign(ctx: RuleContext, solution, flow: ForwardFlow) -> list[Claim]:
    """Triton, CuTe DSL and the other backends cudalint does not read: the static reading makes no claim; a
    completed dry run that stood in for every backend the solution uses and saw forward launch nothing in
    any call is the evidence."""
    observed = ctx.observed
    if observed is None or not solution.kernels_stood_in or len(observed.completed_calls) != len(observed.calls):
        return []
    if observed.kernel_ran() or observed.data.get("extension_calls") or observed.stand_ins_called():
        return []
    backends = sorted(observed.data.get("backends") or {})
    if not backends:
        return []
    names = " and ".join(_BACKEND_NAMES.get(b, b) for b in backends)
    return [Claim(flow.forward.lineno, True, (
        f"forward never launched a custom kernel: the dry run called it {len(observed.calls)} times as the "
        f"harness does (on the CPU, {names} launches recorded instead of run) and no call launched one, so "
        f"what the harness checks and times is PyTorch"), "observed")]


def _refuted_dropped(ctx: RuleContext, claims) -> list[Claim]:
    """The claims the dry run's observations do not refute."""
    observed = ctx.observed
    if observed is None:
        return list(claims)
    refuted = set()
    if observed.kernel_ran():
        refuted.add("no kernel call")
    if observed.output_from_custom():
        refuted.update({"no kernel call", "torch return"})
    return [c for c in claims if c.basis not in refuted]


def _torch_on_inputs(ctx: RuleContext, flow: ForwardFlow, claim, claims: dict[int, Claim]) -> None:
    """One pass over forward in source order: a statement computes with torch when it runs a torch
    operation on data derived from forward's inputs that does not come from the kernel (weights and
    buffers alone are set-up, not the operation)."""
    info = flow.functions[0]
    typing = flow.typing(info)
    forward = flow.forward
    paths = graded_paths(forward)
    handled = _kernel_try_handlers(flow, info)
    inputs = {name for name in typing.tensors if _is_parameter(forward, name)}
    tainted: set[str] = set()
    statements = [s for s in statements_in_order(forward) if id(s) not in paths.ungraded]
    # KernelBench levels 2 and 3 are fusions and whole architectures: keeping some layers in torch
    # next to the custom kernels is a valid solution there. Level 1 problems are one operation, where
    # torch doing part of it is worth a warning; so is a file of unknown level.
    entry = problem_of(ctx)
    partial_ok = entry is not None and entry.level >= 2
    computed: set[str] = set()  # the torch operations forward certainly runs on its inputs
    torch_results: set[str] = set()  # names holding what torch computed on the inputs
    first: int | None = None
    for index, statement in enumerate(statements):
        if not _simple(statement) or id(statement) in handled or _bookkeeping(statement, statements[index + 1:]):
            _update(statement, typing, inputs, tainted)
            continue
        nodes = [node for node in typing.compute_nodes(statement) + _fallback_calls(flow, info, statement)
                 if _uses(node, inputs) and not _uses_kernel(node, typing, tainted)]
        returned = statement.value if isinstance(statement, ast.Return) else None
        if not nodes and returned is not None and flow.reaches_kernel and _uses(returned, torch_results) \
                and not _uses_kernel(returned, typing, tainted):
            nodes = [returned]  # `return x` after `x = self.bn(self.conv(x))`
        if nodes:
            if id(statement) not in paths.conditional:
                computed.update(typing.operation(node) for node in nodes if node is not returned)
                first = statement.lineno if first is None else first
            what = f"`{_short(nodes[0])}`"
            if not flow.reaches_kernel:
                claim(statement.lineno, True, (
                    f"forward computes the result with PyTorch and never calls the custom kernel ({what}): "
                    f"the harness checks and times PyTorch here, not the kernel"), "no kernel call")
            elif returned is not None and not _uses_kernel(returned, typing, tainted):
                if id(statement) in paths.conditional:
                    claim(statement.lineno, False, (
                        f"under this condition forward returns a result computed with PyTorch alone ({what}): "
                        f"when the problem's inputs or configuration take this path, the harness checks "
                        f"and times PyTorch, not the kernel"))
                else:
                    claim(statement.lineno, True, (
                        f"forward returns a result computed with PyTorch alone ({what}) on a path the harness "
                        f"takes (it runs the module in training mode): the custom kernel does none of the "
                        f"work that is checked and timed"), "torch return")
            elif not partial_ok:
                claim(statement.lineno, False, (
                    f"forward computes part of the operation on its inputs with PyTorch ({what}) next to the "
                    f"custom kernel: the harness times PyTorch for that part"))
            torch_results.update(n for t in _targets_and_value(statement)[0] for n in _names_in_target(t))
        elif _uses(statement, torch_results) and not _uses_kernel(statement, typing, tainted):
            torch_results.update(n for t in _targets_and_value(statement)[0] for n in _names_in_target(t))
        _update(statement, typing, inputs, tainted)
    if any(c.fallback for c in claims.values()):
        return  # the kernels already do none of the work on a graded path
    operations = reference_operations(ctx)
    if flow.reaches_kernel and first is not None and operations and operations <= computed:
        names = ", ".join(f"`{o}`" for o in sorted(operations))
        claim(first, True, (
            f"forward still computes every operation of the reference's forward ({names}) with PyTorch: "
            f"the custom kernels do none of the problem's work"))


def _bookkeeping(statement: ast.stmt, later: list[ast.stmt]) -> bool:
    """A statement that only updates state of the module (`self.running_mean = ...`,
    `self.running_var.mul_(m)`) that no later graded statement of forward reads, other than further
    updates of that state: the output does not depend on it."""
    written = _written_state(statement)
    if not written:
        return False
    for other in later:
        reads = other.test if isinstance(other, (ast.If, ast.While)) else other if _simple(other) else None
        if reads is not None and not _written_state(other) and any(
                isinstance(n, ast.Attribute) and n.attr in written and isinstance(n.ctx, ast.Load)
                for n in pyast.walk(reads)):
            return False
    return True


def _written_state(statement: ast.stmt) -> list[str] | None:
    """The self attributes a statement that only writes module state writes; None for any other."""
    if isinstance(statement, (ast.Assign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        written = [_self_attribute(t) for t in targets]
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) \
            and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr.endswith("_"):
        written = [_self_attribute(statement.value.func.value)]  # an in-place method on a buffer
    else:
        return None
    return None if None in written else written


def _self_attribute(node: ast.expr) -> str | None:
    """`buffer` for `self.buffer`, `self.buffer[i]`, `self.buffer.data`; None for anything else."""
    while isinstance(node, ast.Subscript) or (isinstance(node, ast.Attribute)
                                               and isinstance(node.value, ast.Attribute)):
        node = node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _update(statement: ast.stmt, typing, inputs: set[str], tainted: set[str]) -> None:
    for call in (n for n in pyast.walk(statement) if isinstance(n, ast.Call)):
        if typing.runs_kernel(call):
            tainted.update(typing.output_buffers(call))
    targets, value = _targets_and_value(statement)
    if value is None:
        return
    from_kernel = _uses_kernel(value, typing, tainted)
    from_inputs = _uses(value, inputs)
    for target in targets:
        for name in _names_in_target(target):
            if from_kernel:
                tainted.add(name)
            elif isinstance(statement, ast.Assign) and not isinstance(target, ast.Subscript):
                tainted.discard(name)
            if from_inputs or from_kernel:
                inputs.add(name)


def _uses(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(sub, ast.Name) and sub.id in names for sub in pyast.walk(node))


def _uses_kernel(node: ast.AST, typing, tainted: set[str]) -> bool:
    return any((isinstance(sub, ast.Name) and sub.id in tainted)
               or (isinstance(sub, ast.Call) and typing.runs_kernel(sub)) for sub in pyast.walk(node))


def _is_parameter(function: ast.FunctionDef, name: str) -> bool:
    arguments = function.args.posonlyargs + function.args.args + function.args.kwonlyargs
    return any(a.arg == name for a in arguments) or (function.args.vararg is not None
                                                     and function.args.vararg.arg == name)


def _kernel_try_handlers(flow: ForwardFlow, info) -> set[int]:
    """ids of the statements inside except handlers of a try around a kernel call (reported once, on
    the except line)."""
    found: set[int] = set()
    for node in pyast.walk(info.node):
        if isinstance(node, ast.Try) and _invokes(flow, info, node.body):
            for handler in node.handlers:
                for statement in handler.body:
                    found.update(id(sub) for sub in pyast.walk(statement) if isinstance(sub, ast.stmt))
    return found


def _fallback_calls(flow: ForwardFlow, info, node: ast.AST) -> list[ast.Call]:
    return [c for c in pyast.walk(node) if isinstance(c, ast.Call) and _calls_fallback(flow, info, c)]


def _short(node: ast.AST) -> str:
    return short_text(ast.unparse(node), 60)


def _simple(statement: ast.stmt) -> bool:
    return isinstance(statement, SIMPLE_STATEMENTS)


def _invokes(flow: ForwardFlow, info, body: list[ast.stmt]) -> bool:
    return any(flow.invoking_calls(statement, info) for statement in body)


def _raises(body: list[ast.stmt]) -> bool:
    return any(isinstance(s, ast.Raise) for s in body)


def _catches_only_imports(handler: ast.ExceptHandler) -> bool:
    names = []
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    for kind in kinds:
        if isinstance(kind, ast.Name):
            names.append(kind.id)
        else:
            return False
    return bool(names) and all(n in ("ImportError", "ModuleNotFoundError") for n in names)


def _calls_fallback(flow: ForwardFlow, info, node: ast.AST) -> bool:
    """A call to a forward-path helper that computes with torch and runs no kernel
    (`self._reference(x)`, `super().forward(x)`)."""
    for call in (n for n in pyast.walk(node) if isinstance(n, ast.Call)):
        for target, _ in flow._call_targets(call, info):
            helper = flow.info(target)
            if helper is None or helper.invokes:
                continue
            helper_typing = flow.typing(helper)
            if any(helper_typing.is_compute(s) for s in statements_in_order(target) if _simple(s)):
                return True
    return False


def _swallowed_build(flow: ForwardFlow) -> Iterator[int]:
    """The `except` lines of builds whose failure is swallowed and that forward branches on."""
    solution = flow.solution
    builds = {id(c.call) for c in solution.load_inline_calls} | {id(r.call) for r in solution.raw_kernels}
    for node in pyast.of_type(solution.module, ast.Try):
        if not any(id(sub) in builds for statement in node.body for sub in pyast.walk(statement)):
            continue
        for handler in node.handlers:
            if _raises(handler.body):
                continue
            flags = _assigned_names(handler.body)
            if not flags:
                continue
            derived = set(flags)
            for sub in pyast.of_type(solution.module, ast.Assign):  # self.use_cuda = EXT_OK
                if any(isinstance(n, ast.Name) and n.id in flags for n in pyast.walk(sub.value)):
                    derived.update(_assigned_names([sub]))
            if _forward_branches_on(flow, derived):
                yield handler.lineno


def _assigned_names(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for statement in body:
        for sub in pyast.walk(statement):
            if isinstance(sub, ast.Assign):
                for target in sub.targets:
                    if isinstance(target, ast.Name):
                        names.add(target.id)
                    elif isinstance(target, ast.Attribute):
                        names.add(f".{target.attr}")
    return names


def _forward_branches_on(flow: ForwardFlow, names: set[str]) -> bool:
    for info in flow.functions:
        for node in pyast.walk(info.node):
            if isinstance(node, (ast.If, ast.IfExp, ast.While)):
                for sub in pyast.walk(node.test):
                    if isinstance(sub, ast.Name) and sub.id in names:
                        return True
                    if isinstance(sub, ast.Attribute) and f".{sub.attr}" in names:
                        return True
    return False
