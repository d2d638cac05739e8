"""Suppression comments: what they cover, and what CL902 says of one that does nothing."""

from __future__ import annotations

import pytest

import cudalint

KERNEL = """__global__ void k(float* x, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    x[i] = 0;{comment}
}}
"""


def findings(comment: str) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in cudalint.lint_source(KERNEL.format(comment=comment), filename="k.cu")]


@pytest.mark.parametrize("comment", [
    "  // cudalint: ignore[CL201]",
    "  // CUDALINT: IGNORE[cl201]",  # any case
    "  /* cudalint: ignore[CL201] */",  # a block comment
    "  // cudalint: ignore[CL2]",  # a prefix, as --select takes it
    "  // cudalint: ignore[unguarded-thread-index]",
    "  // cudalint: ignore",  # no list: every rule
])
def test_suppressions_that_cover_the_finding(comment):
    assert findings(comment) == []


def test_an_empty_list_suppresses_nothing_and_says_so():
    assert [code for code, _ in findings("  // cudalint: ignore[]")] == ["CL201", "CL902"]
    assert findings("  // cudalint: ignore[]")[1][1] == \
        "an empty code list suppresses nothing (leave out the brackets to cover every rule)"


def test_an_unknown_code_is_named_as_unknown_not_unused():
    assert findings("  // cudalint: ignore[CL201, CL999]") == [("CL902", "`CL999` names no rule")]


def test_a_suppression_of_another_rule_is_unused():
    assert findings("  // cudalint: ignore[CL101]")[-1] == \
        ("CL902", "unused suppression of CL101: no such finding here")
