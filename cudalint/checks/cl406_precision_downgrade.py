"""CL406 precision-downgrade (warning): an fp32 problem computed in half or bf16.

Only when the problem is known to be fp32: a reference is given (`LintOptions.reference`, or a problems
directory and a run-directory file name) or the file holds the problem's `get_inputs`, and no input is
created in half/bf16. Reported on the conversion:
- in forward (and what it calls) or in ModelNew's `__init__`: `.half()`, `.bfloat16()`,
  `.to(torch.float16)`, `.type(torch.half)`, `torch.autocast(...)`;
- in the C++/CUDA: `.to(torch::kHalf)`, `.half()`, and the float-to-half intrinsics of device code
  (`__float2half`, `__float2bfloat16`, ...);
- precision flags, anywhere in the module (they hold for the whole process): `allow_tf32 = True`,
  `allow_fp16/bf16_reduced_precision_reduction = True`, `fp32_precision = "tf32"`,
  `torch.set_float32_matmul_precision("high")`; in C++ `setAllowTF32CuBLAS(true)` and TF32 cuBLAS math
  modes or compute types.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from cudalint import pyast
from cudalint.checks.context import RuleContext
from cudalint.checks.registry import rule
from cudalint.findings import Finding
from cudalint.harness.document_state import record_unit, reference_of
from cudalint.harness.kernelbench import HALF_DTYPES
from cudalint.harness.statements import node_location
from cudalint.model import ir

_HALF_METHODS = {"half", "bfloat16"}
_HALF_TYPES = {"torch.HalfTensor", "torch.cuda.HalfTensor", "torch.BFloat16Tensor", "torch.cuda.BFloat16Tensor"}
_LOWER_PRECISION_FLAGS = {"allow_tf32", "allow_fp16_reduced_precision_reduction",
                          "allow_bf16_reduced_precision_reduction"}
_CPP_PRECISION = re.compile(r"^(setAllowTF32CuBLAS|setAllowTF32CuDNN|setFloat32MatmulPrecision|"
                            r"setAllowFP16ReductionCuBLAS|setAllowBF16ReductionCuBLAS)$")
_CPP_TF32_MODES = re.compile(r"\b(CUBLAS_TF32_TENSOR_OP_MATH|CUBLAS_COMPUTE_32F_FAST_TF32|CUBLAS_COMPUTE_32F_FAST_16F|"
                             r"CUBLAS_COMPUTE_32F_FAST_16BF)\b")
_AUTOCAST = {"torch.autocast", "torch.cuda.amp.autocast", "torch.amp.autocast", "torch.cpu.amp.autocast"}
_CPP_HALF = re.compile(r"\b(kHalf|kFloat16|kBFloat16|ScalarType::Half|ScalarType::BFloat16|at::Half|c10::Half|"
                       r"at::BFloat16|c10::BFloat16)\b")
_HALF_POINTER = re.compile(r"\b(__half|half|__nv_bfloat16|nv_bfloat16|__half2|__nv_bfloat162|at::Half|c10::Half)\b")
_INTRINSICS = re.compile(r"^__float2half(_r[nzdu])?$|^__float2bfloat16(_r[nzdu])?$|^__floats2half2_rn$|"
                         r"^__float22half2_rn$|^__float2half2_rn$|^__floats2bfloat162_rn$|^__float22bfloat162_rn$|"
                         r"^__float2bfloat162_rn$")


@rule("CL406", "precision-downgrade", "warning",
      "an fp32 problem computed in half or bf16: inputs, weights or intermediates converted to 16-bit")
def check(ctx: RuleContext) -> Iterator[Finding]:
    state, last = record_unit(ctx)
    solution = state.solution
    if solution is None or not solution.is_kernelbench:
        return
    reference = reference_of(ctx)
    if reference is None or not reference.inputs or not reference.fp32:
        return
    yield from _cuda_conversions(ctx)
    if last:
        yield from _python_conversions(ctx, state)


def _cuda_conversions(ctx: RuleContext) -> Iterator[Finding]:
    for function in ctx.program.functions:
        if function.body is None:
            continue
        # a kernel with fp32 pointers only that computes in half inside; where the data is already
        # half, the conversion at the boundary (Python or wrapper) is the one reported
        fp32_kernel = function.is_kernel and not any(_HALF_POINTER.search(p.type) for p in function.params) \
            and any("float" in p.type and "*" in p.type for p in function.params)
        reported_intrinsic = False
        for node in function.of_type(ir.Call):
            if fp32_kernel and not reported_intrinsic and _INTRINSICS.match(node.callee):
                reported_intrinsic = True
                yield ctx.finding(node.span, (
                    f"`{node.callee}` converts fp32 values to 16 bits inside a kernel whose inputs and outputs "
                    f"are fp32: the fp32 problem is computed in half precision and drifts from the reference"))
            elif _CPP_PRECISION.match(node.callee) and not any(a.text.strip() in ("false", "0", '"highest"')
                                                                for a in node.args) \
                    or node.callee in ("cublasSetMathMode", "cublasGemmEx", "cublasGemmStridedBatchedEx",
                                       "cublasLtMatmulDescCreate") and any(_CPP_TF32_MODES.search(a.text)
                                                                           for a in node.args):
                yield ctx.finding(node.span, (
                    f"`{' '.join(node.text.split())[:60]}` lets an fp32 problem's matmuls run in TF32 or reduced "
                    f"precision: the result has fewer significant bits than the fp32 reference"))
            elif node.receiver is not None and (node.callee in _HALF_METHODS or (
                    node.callee in ("to", "toType", "type") and any(_CPP_HALF.search(a.text) for a in node.args))):
                yield ctx.finding(node.span, (
                    f"`{' '.join(node.text.split())[:60]}` converts a tensor of an fp32 problem to 16 bits: the "
                    f"kernel computes in half precision and the result drifts from the fp32 reference"))


def _python_conversions(ctx: RuleContext, state) -> Iterator[Finding]:
    flow = state.flow
    solution = state.solution
    if flow is None or solution.model_new is None:
        return
    functions = [info.node for info in flow.functions]
    init = solution.method(solution.model_new, "__init__")
    if init is not None:
        functions.append(init)
    imports = solution.imports
    for node in pyast.of_type(solution.module, ast.Assign, ast.Call):
        what = _precision_flag(node, imports)
        if what:
            yield ctx.finding_at(node_location(ctx.document, node), (
                f"`{what}` lets fp32 matmuls and convolutions run in TF32 or reduced precision, for the whole "
                f"process: the fp32 problem is computed with fewer significant bits than it asks for"))
    seen: set[int] = set()
    for function in functions:
        for node in pyast.walk(function):
            if not isinstance(node, ast.Call) or id(node) in seen:
                continue
            seen.add(id(node))
            what = _python_downgrade(node, imports)
            if what:
                yield ctx.finding_at(node_location(ctx.document, node), (
                    f"`{what}` runs an fp32 problem in 16-bit precision: the output drifts from the fp32 "
                    f"reference (and may pass only by luck of the tolerance)"))


def _precision_flag(node: ast.AST, imports) -> str | None:
    """`torch.backends.cuda.matmul.allow_tf32 = True`, `...allow_fp16_reduced_precision_reduction = True`,
    `...fp32_precision = "tf32"`, `torch.set_float32_matmul_precision("high")`."""
    if isinstance(node, ast.Assign):
        value = node.value.value if isinstance(node.value, ast.Constant) else None
        for target in node.targets:
            qualified = imports.qualify(target) or ""
            if not qualified.startswith("torch.backends."):
                continue
            last = qualified.rsplit(".", 1)[-1]
            if (last in _LOWER_PRECISION_FLAGS and value is True) or (last == "fp32_precision" and value == "tf32"):
                return ast.unparse(node)[:70]
        return None
    qualified = imports.qualify(node.func) or ""
    if qualified == "torch.set_float32_matmul_precision" and node.args and not (
            isinstance(node.args[0], ast.Constant) and node.args[0].value == "highest"):
        return ast.unparse(node)[:70]
    return None


def _python_downgrade(call: ast.Call, imports) -> str | None:
    qualified = imports.qualify(call.func) or ""
    if qualified in _AUTOCAST:
        dtype = next((imports.qualify(k.value) for k in call.keywords if k.arg == "dtype"), None)
        if dtype is None or dtype in HALF_DTYPES:
            return ast.unparse(call)[:60]
        return None
    if not isinstance(call.func, ast.Attribute):
        return None
    method = call.func.attr
    if method in _HALF_METHODS and not call.args:
        return ast.unparse(call)[:60]
    if method in ("to", "type"):
        values = list(call.args) + [k.value for k in call.keywords if k.arg in ("dtype", None)]
        if any((imports.qualify(v) or "") in HALF_DTYPES | _HALF_TYPES for v in values):
            return ast.unparse(call)[:60]
    return None
