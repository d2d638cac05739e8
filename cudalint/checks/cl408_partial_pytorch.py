"""CL408 partial-pytorch: forward computes part of the operation with PyTorch next to custom kernels
that do the rest.

Reported on the statement where torch computes on forward's inputs instead of the kernel: in a problem
of KernelBench level 1 (one operation) or of unknown level, any such statement; at every level, a
`return` computed by torch alone under a condition the harness does not decide (a shape, a dtype, a
configuration attribute), when another path runs the kernel. Levels 2 and 3 (fusions, architectures)
keep layers in torch legitimately and are not reported for that. CL403 shares the analysis
(`fallback_claims`) and reports the cases where the kernels do none of the work.
"""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.checks.cl403_pytorch_fallback import fallback_claims
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.statements import line_location


@rule("CL408", "partial-pytorch", "warning",
      "forward computes part of the operation with torch next to the custom kernels, or returns a torch "
      "result on a path that only some shapes or configurations take", scope="document")
def check(ctx: RuleContext) -> Iterator[Finding]:
    for claim in fallback_claims(ctx):
        if not claim.fallback:
            yield ctx.finding_at(line_location(ctx.document, claim.line), claim.message)
