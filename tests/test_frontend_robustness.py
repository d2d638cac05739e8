"""The front end never crashes or hangs: malformed CUDA is a finding, random bytes are handled."""

import re
import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import cudalint

VALID = """#include <cuda_runtime.h>
__global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
void launch(float* x, float a, int n) { scale<<<(n + 255) / 256, 256>>>(x, a, n); }
"""

CUDA_TOKENS = st.sampled_from([
    "__global__", "__device__", "__shared__", "void", "float", "int", "k", "(", ")", "{", "}", "[", "]", ";",
    "threadIdx.x", "blockIdx.x", "__syncthreads()", "if", "for", "<", "<<<", ">>>", "=", "+", "1", "n", ",",
    "#include <cuda_runtime.h>\n", "#define N 4\n", "\n", "template<int B>", "return", "extern", "\"", "/*", "*/",
])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CUDA_TOKENS, max_size=60))
def test_random_token_soup_never_crashes(tokens: list[str]) -> None:
    findings = cudalint.lint_source(" ".join(tokens), filename="soup.cu")
    assert all(f.code != "CL900" for f in findings), [f.message for f in findings if f.code == "CL900"]


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=len(VALID)), st.text(max_size=8))
def test_truncated_and_spliced_kernels(cut: int, insert: str) -> None:
    source = VALID[:cut] + insert + VALID[cut:]
    findings = cudalint.lint_source(source, filename="spliced.cu")
    assert all(f.code != "CL900" for f in findings), [f.message for f in findings if f.code == "CL900"]


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=300))
def test_random_python_text(text: str) -> None:
    findings = cudalint.lint_source(text, filename="random.py")
    assert all(f.code != "CL900" for f in findings)


def test_parse_error_is_a_finding() -> None:
    findings = cudalint.lint_source("__global__ void k(float* a { a[0] = 1; }\n", filename="broken.cu")
    assert any(f.code == "CL901" and f.line == 1 for f in findings)


def test_deeply_nested_expression_does_not_hang_or_crash() -> None:
    source = "__global__ void k(int* a) { a[0] = " + "(" * 200 + "1" + ")" * 200 + "; }\n"
    start = time.perf_counter()
    findings = cudalint.lint_source(source, filename="deep.cu")
    assert time.perf_counter() - start < 10
    assert all(f.code != "CL900" for f in findings)


TOO_DEEP = re.compile(r"code nested more than 120 levels deep \(from column \d+\) was not analysed|"
                      r"the code nests more than 5,000 levels deep, past what cudalint parses: this CUDA unit was "
                      r"not analysed")


def not_analysed(findings) -> list[str]:
    """The CL900 messages, each one that says code was too deep to analyse (anything else is a bug)."""
    messages = [f.message for f in findings if f.code == "CL900"]
    assert all(TOO_DEEP.fullmatch(m) for m in messages), messages
    return messages


def test_long_expression_chain() -> None:
    """A chain of 3000 additions is a tree 3000 deep: linted without a crash, and said to be incomplete."""
    source = "__global__ void k(int* a) {\n  a[0] = " + " + ".join(["a[1]"] * 3000) + ";\n}\n"
    findings = cudalint.lint_source(source, filename="chain.cu")
    assert [(f.line, f.message) for f in findings if f.code == "CL900"] == [
        (2, "code nested more than 120 levels deep (from column 10) was not analysed")]
    short = source.replace(" + ".join(["a[1]"] * 3000), " + ".join(["a[1]"] * 100))
    assert not not_analysed(cudalint.lint_source(short, filename="chain.cu"))


def test_large_valid_file_is_linted_quickly() -> None:
    source = VALID + "".join(VALID.split("\n", 1)[1].replace("scale", f"scale{i}").replace("launch", f"launch{i}")
                             for i in range(200))
    start = time.perf_counter()
    cudalint.lint_source(source, filename="big.cu")
    assert time.perf_counter() - start < 20


def test_deeply_nested_statements() -> None:
    """An error nested past the depth the analysis reaches is never a silent pass: the file is incomplete."""
    body = "int i = threadIdx.x + blockIdx.x * blockDim.x; x[i] = 0;"  # CL201 unguarded
    for depth, complete in ((100, True), (150, False), (2000, False)):
        source = "__global__ void k(float* x, int n) {\n" + "if (n) " * depth + "{ " + body + " }\n}\n"
        findings = cudalint.lint_source(source, filename="nested.cu")
        assert bool(not_analysed(findings)) is not complete, depth
        assert ("CL201" in {f.code for f in findings}) is complete, depth


def test_a_failed_reparse_is_reported_never_silently_clean() -> None:
    """The frontend reparses a pooled translation unit; when clang cannot (here: its precompiled prelude
    vanished), the lint says so instead of returning no findings, and recovers once the cause is gone."""
    import os

    from cudalint.frontend import parse

    source = "__global__ void k(float* a, int n) { a[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }\n"
    assert [f.code for f in cudalint.lint_source(source, filename="a.cu")] == ["CL201"]
    prelude = parse._workspace.prelude("cuda", ("cuda_runtime.h",))
    assert prelude is not None
    os.rename(prelude, prelude + ".moved")
    try:
        broken = cudalint.lint_source(source, filename="a.cu")
    finally:
        os.rename(prelude + ".moved", prelude)
    assert [f.code for f in broken] == ["CL900"], [f.message for f in broken]
    assert [f.code for f in cudalint.lint_source(source, filename="a.cu")] == ["CL201"]


NESTINGS = st.sampled_from(["-", "!", "~", "(", "if (n) ", "while (n--) ", "else if (n) ", "{"])
HEADER_NAMES = st.text(alphabet="ab/._-\\ <>\"", min_size=0, max_size=12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(NESTINGS, st.integers(min_value=1, max_value=4000), HEADER_NAMES, st.sampled_from(["<>", '""']))
@example("(", 241, "<", "<>")  # found by CI: 241 parentheses, analysed whole
def test_deep_nesting_and_odd_includes_never_crash_or_pass_unchecked(nesting, depth, header, quotes):
    """Deep code is linted (it once overflowed libclang's stack: SIGSEGV) or said to be too deep, never
    passed unchecked, and an include of any name is a finding or nothing, never an internal error."""
    opener, closer = quotes
    if nesting in "-!~":
        body = f"x[0] = {nesting * depth}1;"
    elif nesting == "(":
        body = f"x[0] = {'(' * depth}1{')' * depth};"
    elif nesting == "{":
        body = "{" * depth + "x[0] = 1;" + "}" * depth
    else:
        body = "if (n) x[0] = 0;\n" + nesting * depth + "x[0] = 1;" if nesting.startswith("else") \
            else nesting * depth + "x[0] = 1;"
    text = f"#include {opener}{header}{closer}\n__global__ void k(float* x, int n) {{\n{body}\n}}\n"
    findings = cudalint.lint_source(text, filename="deep.cu")
    incomplete = not_analysed(findings)
    # past the analysis' depth: said so, or refused by clang; parentheses are no level of the analysis (they
    # fold away when lowered), so up to clang's 256 they are analysed whole, and past it refused (CL901)
    if depth > (256 if nesting == "(" else 2 * 120):
        assert incomplete or any(f.code == "CL901" for f in findings)


KERNEL = "__global__ void k(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = 0; }\n"


@pytest.mark.parametrize(("source", "expected"), [
    # issue 38: each was an internal error (CL900) of constant evaluation
    ("#define B 1e999\n" + KERNEL + "void go(float* x, int n) { k<<<(n + B - 1) / B, B>>>(x, n); }\n", []),
    (KERNEL + "void go(float* x, int n) { k<<<(n + 255) / 256, -1>>>(x, n); }\n",
     [("CL302", "launch of `k` cannot run: block dimension x is -1")]),
    (KERNEL + "void go(float* x, int n) { k<<<(n + 255) / 256, 1 << -1>>>(x, n); }\n", []),
    (KERNEL + "void go(float* x, int n) { k<<<(n + 255) / 256, 256, 1e999>>>(x, n); }\n", []),
    ("__global__ void k(float* x) { __shared__ float s[1ULL << 63]; s[threadIdx.x] = x[threadIdx.x]; }\n"
     "void go(float* x) { k<<<1, 256>>>(x); }\n", [("CL901", "array is too large (9223372036854775808 elements)")]),
    ("__global__ void k(float* x, long long n) { long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;"
     " if (i < n) x[i] = 0; }\nvoid go(float* x) { long long n = 1LL << 62; k<<<(n + 255) / 256, 256>>>(x, n); }\n",
     [("CL302", "launch of `k` cannot run: grid dimension x is 18014398509481984, over the limit of 2147483647")]),
    (KERNEL + "void go(float* x, int n) { long long a = 1LL << 62; long long b = a * a * a * a;"
              " k<<<(n + 255) / 256, b << 200>>>(x, n); }\n", []),  # past 64 bits: unknown, never a huge integer
], ids=["block-inf", "block-negative", "negative-shift", "dynamic-shared-inf", "shared-2**63", "grid-64-bit",
        "squares"])
def test_extreme_constants_give_ordinary_findings(source, expected):
    findings = cudalint.lint_source(source, filename="k.cu")
    assert [(f.code, f.message) for f in findings] == expected


EXTREME = st.sampled_from(["1e999", "-1e999", "0", "-1", "1<<63", "1ULL<<63", "1<<64", "1<<-1", "1>>70", "0.5",
                           "9223372036854775807", "18446744073709551615ULL", "-9223372036854775807-1", "0.0/0.0",
                           "(int)1e10", "(size_t)-1", "~0ULL", "65536*65536", "1 / 0", "1 % 0", "3.7", "1ULL<<40"])
_KERNEL = KERNEL.replace("{", "{{").replace("}", "}}")  # a format string
PLACES = st.sampled_from([
    _KERNEL + "void go(float* x, int n) {{ k<<<{a}, {b}>>>(x, n); }}\n",
    _KERNEL + "void go(float* x, int n) {{ dim3 b({a}, {b}); k<<<dim3(1, {a}), b, {b}>>>(x, n); }}\n",
    "__global__ void k(float* x) {{ __shared__ float s[{a}][{b}]; s[threadIdx.y][threadIdx.x] = x[threadIdx.x];"
    " __syncthreads(); x[threadIdx.x] = s[threadIdx.x][threadIdx.y]; }}\nvoid go(float* x) {{ k<<<1, dim3(16, 16)>>>(x); }}\n",
    "__global__ void k(float* x, int n) {{ int i = (blockIdx.x << ({a})) + threadIdx.x; if (i < n) x[i] = x[i >> ({b})];"
    " }}\nvoid go(float* x, int n) {{ k<<<n / 256, 256>>>(x, n); }}\n",
    "__global__ void k(float* x, int n) {{ for (long long i = threadIdx.x * ({a}); i < ({b}); i += blockDim.x) x[i] = 0; }}"
    "\nvoid go(float* x, int n) {{ k<<<1, 256>>>(x, n); }}\n",
    "template <int B> __global__ void k(float* x) {{ __shared__ float s[B]; s[threadIdx.x % B] = x[threadIdx.x]; }}\n"
    "void go(float* x) {{ k<({a})><<<1, {b}>>>(x); }}\n",
    "__global__ void __launch_bounds__({a}) k(float* x, int n) {{ int m = (int)({b}); if (threadIdx.x < m) x[threadIdx.x] = 0; }}"
    "\nvoid go(float* x, int n) {{ k<<<1, {b}>>>(x, n); }}\n",
])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PLACES, EXTREME, EXTREME)
def test_extreme_constants_anywhere_are_never_an_internal_error(place, a, b):
    findings = cudalint.lint_source(place.format(a=a, b=b), filename="k.cu")
    assert all(f.code != "CL900" for f in findings), [f.message for f in findings if f.code == "CL900"]
