"""CL421 eval-mode-statistics: forward hands a normalization layer's running statistics to the custom
kernel on the path the harness grades, which runs in training mode.

KernelBench's harness never calls `.eval()`: BatchNorm and InstanceNorm normalize with the statistics of
the batch itself there, so a kernel that normalizes with `running_mean`/`running_var` (eval-mode
folding) computes another function. Reported on the call's argument, when:
- the statistics of an `nn.BatchNorm*`/`nn.SyncBatchNorm`/`nn.InstanceNorm*` attribute reach a call of
  compiled code, directly or through a local, on a statement the harness runs (not under
  `if not self.training:` or after a training-mode return; see `harness.statements.graded_paths`);
- and the compiled sources never name a momentum: a training-mode kernel that updates the running
  statistics needs one, and is left alone.

Evidence: which statements the harness runs is the static reading's (`graded_paths`); when the dry run
completed every call, a statement that never reached compiled code in any of them (the kernel call sits
on a branch the static reading took for graded) is not reported. Without a completed dry run the static
reading alone decides.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from cudalint import pyast
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import state_of
from cudalint.harness.statements import SIMPLE_STATEMENTS, graded_paths, node_location, statements_in_order

_STATISTICS = ("running_mean", "running_var")
_NORMALIZATIONS = re.compile(r"^(Sync)?BatchNorm(\dd)?$|^InstanceNorm\dd$")
_MOMENTUM = re.compile(r"\b(momentum|exponential_average_factor)\b", re.IGNORECASE)


@rule("CL421", "eval-mode-statistics", "error",
      "a BatchNorm/InstanceNorm's running statistics passed to the custom kernel on the path the harness "
      "grades in training mode", scope="document")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state = state_of(ctx.document)
    flow = state.flow
    if state.solution is None or flow is None or flow.forward is None:
        return
    if any(_MOMENTUM.search(unit.text) for unit in ctx.document.units):
        return  # the kernels update the running statistics: a training-mode implementation
    observed = ctx.observed
    for info in flow.functions:
        ungraded = graded_paths(info.node).ungraded
        from_statistics: dict[str, ast.Attribute] = {}  # local -> the statistics it holds
        for statement in statements_in_order(info.node):
            # compound statements come in pieces: their branches are statements of their own
            if id(statement) in ungraded or not isinstance(statement, SIMPLE_STATEMENTS):
                continue
            if observed is not None and observed.compiled_calls_within(statement.lineno, statement.end_lineno) == []:
                continue  # forward ran as the harness runs it and this statement never reached compiled code
            for call in flow.invoking_calls(statement, info):
                for argument in [*call.args, *(k.value for k in call.keywords)]:
                    statistic = _statistic(argument, flow, from_statistics)
                    if statistic is not None:
                        yield ctx.finding_at(node_location(ctx.document, argument), _message(statistic, flow))
                        break
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], ast.Name):
                statistic = _statistic(statement.value, flow, from_statistics)
                if statistic is not None:
                    from_statistics[statement.targets[0].id] = statistic
                else:
                    from_statistics.pop(statement.targets[0].id, None)


def _statistic(expr: ast.expr, flow, from_statistics: dict[str, ast.Attribute]) -> ast.Attribute | None:
    """The `self.<norm>.running_mean`/`running_var` that `expr` is (or a view of it), else None."""
    for node in pyast.walk(expr):
        if isinstance(node, ast.Name) and node.id in from_statistics:
            return from_statistics[node.id]
        if isinstance(node, ast.Attribute) and node.attr in _STATISTICS and isinstance(node.value, ast.Attribute) \
                and isinstance(node.value.value, ast.Name) and node.value.value.id == "self" \
                and _NORMALIZATIONS.match(flow.attr_torch_modules.get(node.value.attr, "")):
            return node
    return None


def _message(statistic: ast.Attribute, flow) -> str:
    layer = flow.attr_torch_modules[statistic.value.attr]
    return (f"`{ast.unparse(statistic)}` ({layer}'s running statistics) goes to the custom kernel on the path the "
            f"harness grades: it never calls .eval(), so {layer} normalizes with the batch's own mean and variance "
            f"there, and a kernel folding in the running statistics computes something else; compute the batch "
            f"statistics in the kernel (and update the running ones with the momentum), or keep the eval-mode "
            f"kernel under `if not self.training:`")
