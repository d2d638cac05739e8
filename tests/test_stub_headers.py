"""CL901 must never fire on valid code because of cudalint's own stub headers: every valid fixture
(the plain-CUDA ones compile with nvcc 13 for sm_90) lints with no compile error and no unknown header."""

from pathlib import Path

import pytest

import cudalint

VALID = sorted((Path(__file__).parent / "fixtures" / "valid").glob("*.cu"))


def test_there_are_valid_fixtures() -> None:
    assert len(VALID) >= 40


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_kernel_has_no_compile_error(path: Path) -> None:
    findings = cudalint.lint_source(path.read_text(), filename=path.name)
    noise = [f"{f.line}:{f.column}: {f.code} {f.message}" for f in findings if f.code in ("CL900", "CL901", "CL903")]
    assert not noise, "\n".join(noise)


def test_stubs_do_not_hide_real_errors() -> None:
    broken = """#include <cuda_runtime.h>
__global__ void k(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = undeclared_value;
    float4 v = make_float4(1.0f, 2.0f);
}
"""
    lines = {f.line for f in cudalint.lint_source(broken, filename="broken.cu") if f.code == "CL901"}
    assert lines == {4, 5}


def test_stub_headers_are_included_once() -> None:
    """Each stub header starts with `#pragma once` (an include guard after `#pragma clang system_header` is
    invisible to clang's multiple-include optimization: every #include of a precompiled header would re-read
    and re-lex it). assert.h and <cassert> are re-includable, as the real ones are (NDEBUG may change)."""
    from cudalint.frontend.parse import VIRTUAL_INCLUDE_DIR, stub_headers

    reincludable = {"assert.h", "cassert"}
    missing = [path for path, text in stub_headers()
               if path[len(VIRTUAL_INCLUDE_DIR) + 1:] not in reincludable and not text.startswith("#pragma once\n")]
    assert not missing, missing
    assert len(stub_headers()) > 100


TORCH_CHECKS = """#include <torch/extension.h>
torch::Tensor f(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor, got ", x.device(), " with ", x.dim(), " dims");
    TORCH_CHECK(x.dim() == 2);
    TORCH_CHECK(x.is_cuda, "a member function, not called");
    TORCH_CHECK(x.dim() == 2, "shape ", undeclared_shape);
    return x;
}
"""


@pytest.mark.parametrize("filename, source", [
    ("check.cu", TORCH_CHECKS),  # torch precompiled with the file's own leading include
    ("check.py", "from torch.utils.cpp_extension import load_inline\n"
                 f"m = load_inline(name='m', cpp_sources='', cuda_sources='''{TORCH_CHECKS}''', functions=['f'])\n"),
])
def test_torch_check_still_checks_its_condition_and_message(filename: str, source: str) -> None:
    findings = cudalint.lint_source(source, filename=filename)
    messages = sorted(f.message for f in findings if f.code == "CL901")
    assert len(messages) == 2, messages
    assert "undeclared_shape" in messages[1] or "undeclared_shape" in messages[0]
    offset = 0 if filename.endswith(".cu") else 1  # the .py's CUDA starts on its second line
    assert {f.line for f in findings if f.code == "CL901"} == {5 + offset, 6 + offset}
