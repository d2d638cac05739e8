"""CL505 no-data-reuse (warning, opt-in): a matrix-product-shaped loop (see analysis/products.py) whose
two operands are both read from global memory, in a kernel with no shared-memory array to tile them
through: each element is fetched again by every thread (and block) that needs it, where a tiled kernel
loads it once per block and reuses it from shared memory or registers."""

from __future__ import annotations

from collections.abc import Iterator

from cudalint.analysis.products import InnerProducts
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text

GLOBAL = ("param", "global")


@rule("CL505", "no-data-reuse", "warning",
      "a matrix-product-shaped loop that reads both operands from global memory with no tiling through "
      "shared memory or registers", opt_in=True)
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    products = InnerProducts.of(program)
    for kernel in program.kernels:
        if program.shared_arrays_of(kernel):
            continue
        for product in products.of_kernel(kernel):
            first, second = product.operands
            if first.space not in GLOBAL or second.space not in GLOBAL:
                continue
            yield ctx.finding(product.update.span,
                              f"`{short_text(product.update.text)}`: a matrix-product-shaped loop over "
                              f"`{product.counter}` reads both `{first.root.name}` and `{second.root.name}` from "
                              f"global memory, each element again for every output that uses it; load tiles of "
                              f"both into shared memory once per block (or several outputs per thread into "
                              f"registers) and reuse them",
                              [(first.node.span, f"`{short_text(first.node.text)}`"),
                               (second.node.span, f"`{short_text(second.node.text)}`")])
            break  # one finding per kernel: the fix is the same loop nest
