"""CL506 tensor-cores-unused (warning, opt-in): a matrix-product-shaped loop (see analysis/products.py)
over fp16 or bf16 operands done with scalar multiply-adds, in a kernel that issues no tensor-core
instruction (wmma/mma, inline `mma` assembly): the tensor cores do the same product many times faster."""

from __future__ import annotations

import re
from collections.abc import Iterator

from cudalint.analysis.products import InnerProducts
from cudalint.analysis.warp_lanes import element_bytes
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding, short_text
from cudalint.model import ir

_HALF_TYPES = re.compile(r"\b(half|__half|__nv_bfloat16|nv_bfloat16|at::Half|at::BFloat16|c10::Half|c10::BFloat16)\b")
_TENSOR_CORE_CALLS = re.compile(r"^(mma_sync|load_matrix_sync|__hmma\w*|wgmma\w*|__wgmma\w*|mma\w*)$")
_PTX_MMA = re.compile(r"\b(w?gmma|mma)\.")


@rule("CL506", "tensor-cores-unused", "warning",
      "an fp16/bf16 matrix product done with scalar multiply-adds in a kernel that uses no tensor-core "
      "instruction (wmma/mma)", opt_in=True)
def check(ctx: RuleContext) -> Iterator[Finding]:
    program = ctx.program
    products = InnerProducts.of(program)
    for kernel in program.kernels:
        if _uses_tensor_cores(program, kernel):
            continue
        for product in products.of_kernel(kernel):
            types = [_element_type(access) for access in product.operands]
            if not all(_HALF_TYPES.search(t) and element_bytes(t) == 2 for t in types):
                continue
            yield ctx.finding(product.update.span,
                              f"`{short_text(product.update.text)}`: {_precision(types)} matrix product done one "
                              f"multiply-add at a time over `{product.counter}`; the tensor cores "
                              f"(nvcuda::wmma 16x16x16 fragments, mma.sync, or cuBLAS) compute it with fp32 "
                              f"accumulation many times faster")
            break  # one finding per kernel


def _element_type(access) -> str:
    decl = access.root.decl
    return decl.element_type if decl is not None and decl.element_type else access.root.type


def _precision(types: list[str]) -> str:
    return "a bf16" if any("bfloat16" in t.lower() for t in types) else "an fp16"


def _uses_tensor_cores(program, kernel: ir.Function) -> bool:
    """A wmma/mma call, or inline assembly (a statement the IR keeps opaque) whose text issues mma/wgmma."""
    lines = program.unit.text.splitlines()
    for function in program.reachable_functions(kernel):
        for node in function.of_type(ir.Call):
            if _TENSOR_CORE_CALLS.match(node.callee.split("::")[-1]):
                return True
        for node in function.of_type(ir.OpaqueStmt):
            if _PTX_MMA.search("\n".join(lines[node.span.line - 1:node.span.end_line])):
                return True
    return False
