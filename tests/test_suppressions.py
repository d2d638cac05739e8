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


RANGE = """__global__ void k(float* x, float* y, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    {begin}
    x[i] = 0;
    {end}
    y[i] = 0;
}}
"""


def range_findings(begin: str, end: str) -> list[tuple[str, int, str]]:
    text = RANGE.format(begin=begin, end=end)
    return [(f.code, f.line, f.message) for f in cudalint.lint_source(text, filename="k.cu")]


@pytest.mark.parametrize("begin, end", [
    ("// cudalint: ignore-begin[CL201]", "// cudalint: ignore-end"),
    ("// CUDALINT: Ignore-Begin[unguarded-thread-index]", "/* cudalint: ignore-end */"),
    ("// cudalint: ignore-begin", "// cudalint: ignore-end"),  # no list: every rule
    ("// cudalint: ignore-begin[CL2]", "// cudalint: ignore-end[CL2]"),  # an end naming its begin's list
])
def test_a_range_covers_the_lines_between_begin_and_end_only(begin, end):
    assert range_findings(begin, end) == [
        ("CL201", 6, cudalint.lint_source(RANGE.format(begin="", end=""), filename="k.cu")[1].message)]


def test_an_unmatched_begin_suppresses_nothing_and_is_reported():
    codes = range_findings("// cudalint: ignore-begin[CL201]", "")
    assert [(code, line) for code, line, _ in codes] == [("CL902", 3), ("CL201", 4), ("CL201", 6)]
    assert codes[0][2] == "`ignore-begin` without a matching `ignore-end` below it: it suppresses nothing"


def test_an_end_without_a_begin_is_reported():
    codes = range_findings("", "// cudalint: ignore-end")
    assert [(code, line) for code, line, _ in codes] == [("CL201", 4), ("CL902", 5), ("CL201", 6)]
    assert codes[1][2] == "`ignore-end` without an open `ignore-begin` above it: it ends nothing"
    # an end naming a list closes only a begin of the same list
    other = range_findings("// cudalint: ignore-begin[CL101]", "// cudalint: ignore-end[CL201]")
    assert [(code, line) for code, line, _ in other] == [("CL902", 3), ("CL201", 4), ("CL902", 5), ("CL201", 6)]


def test_nested_ranges_each_end_at_their_own_end():
    text = """__global__ void k(float* x, float* y, float* z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // cudalint: ignore-begin[CL201]
    x[i] = 0;
    // cudalint: ignore-begin[CL101]
    y[i] = 0;
    // cudalint: ignore-end[CL101]
    z[i] = 0;
    // cudalint: ignore-end
    z[i + 1] = 0;
}
"""
    found = [(f.code, f.line) for f in cudalint.lint_source(text, filename="k.cu")]
    assert found == [("CL902", 5), ("CL201", 10)]  # the inner range is unused; the outer covers lines 3-9
