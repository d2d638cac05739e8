"""Embedded CUDA in Python: every character of a unit maps back to its line and column in the .py."""

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cudalint.sources import load_document


def unit_position_of(document, unit_index: int, needle: str):
    unit = document.units[unit_index]
    offset = unit.text.index(needle)
    line = unit.text.count("\n", 0, offset) + 1
    column = offset - (unit.text.rfind("\n", 0, offset) + 1) + 1
    return unit.to_file(line, column)


def file_position_of(text: str, needle: str):
    offset = text.index(needle)
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def test_module_variable_triple_quoted() -> None:
    text = textwrap.dedent('''\
        from torch.utils.cpp_extension import load_inline
        src = """
        __global__ void k(float* a) { a[threadIdx.x] = 1; }
        """
        mod = load_inline(name="m", cpp_sources="void f();", cuda_sources=src, functions=["f"])
        ''')
    document = load_document("m.py", text)
    assert [u.language for u in document.units] == ["c++", "cuda"]
    position = unit_position_of(document, 1, "a[threadIdx.x]")
    assert (position.line, position.column) == file_position_of(text, "a[threadIdx.x]")


def test_escapes_shift_columns_correctly() -> None:
    text = 'from torch.utils.cpp_extension import load_inline\n' \
           'load_inline("m", "void f();", cuda_sources="#include <x.h>\\n__global__ void k() { int q = 1; }\\n")\n'
    document = load_document("m.py", text)
    position = unit_position_of(document, 1, "int q")
    assert (position.line, position.column) == file_position_of(text, "int q")


def test_concatenation_list_and_fstring() -> None:
    text = textwrap.dedent('''\
        import torch.utils.cpp_extension as ext
        head = "#include <cuda_runtime.h>\\n"
        body = f"""
        __global__ void k(float* a) {{ a[0] = 2; }}
        """
        ext.load_inline(name="m", cpp_sources=["void f();"], cuda_sources=[head + body], functions=["f"])
        ''')
    document = load_document("m.py", text)
    cuda = document.units[1]
    assert "{ a[0] = 2; }" in cuda.text  # f-string braces decoded
    position = unit_position_of(document, 1, "a[0] = 2")
    assert (position.line, position.column) == file_position_of(text, "a[0] = 2")


def test_cupy_raw_kernel() -> None:
    text = textwrap.dedent("""\
        import cupy as cp
        add = cp.RawKernel(r'''
        extern "C" __global__ void add(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x]; }
        ''', "add")
        """)
    document = load_document("k.py", text)
    assert [u.origin for u in document.units] == ["cupy"]
    position = unit_position_of(document, 0, "y[threadIdx.x]")
    assert (position.line, position.column) == file_position_of(text, "y[threadIdx.x]")


def test_syntax_error_is_recorded_not_raised() -> None:
    document = load_document("bad.py", "def f(:\n    pass\n")
    assert document.python_syntax_error is not None
    assert document.units == []


def test_unresolvable_sources_are_skipped() -> None:
    text = "from torch.utils.cpp_extension import load_inline\nload_inline('m', cpp_sources=make(), cuda_sources=x)\n"
    assert load_document("m.py", text).units == []


_LITERAL_TEXT = st.lists(st.sampled_from(list("ab{}\\'\"\n\t é") + ["\\n", "\\x41", "\\u00e9", "'''", '"""']),
                         max_size=12).map("".join)


@settings(max_examples=200, deadline=None)
@given(_LITERAL_TEXT, st.sampled_from(["", "r", "u", "R"]), st.sampled_from(["'", '"', "'''", '"""']),
       st.booleans())
def test_string_positions_without_the_tokenizer_match_the_tokenizer(body: str, prefix: str, quote: str,
                                                                    concatenated: bool) -> None:
    """Reading a one-token literal skips Python's tokenizer; where that applies, the characters and their
    positions are those the tokenizer route gives (and adjacent literals, escapes, quotes inside and raw
    strings still take the tokenizer route)."""
    import ast
    import io
    import tokenize
    import warnings

    from cudalint import sources

    literal = prefix + quote + body + quote + (' "tail"' if concatenated else "")
    source = "x = " + literal + "\n"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences: Python keeps them as written
            tree = ast.parse(source)
        list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (SyntaxError, tokenize.TokenError, ValueError):
        return
    node = tree.body[0].value
    resolver = sources.StringResolver(ast.walk(tree), source)
    fast = sources._single_token(resolver._segment(node), node)
    if fast is None:
        return
    monkey = sources._single_token
    try:
        sources._single_token = lambda segment, node: None
        slow = resolver._literal(node)
    finally:
        sources._single_token = monkey
    assert fast == slow
    assert fast[0] == node.value


def test_memoized_walk_visits_what_ast_walk_visits_in_its_order() -> None:
    """And `of_type` keeps that order for the node classes asked for (exact classes only)."""
    import ast
    from pathlib import Path

    from cudalint import pyast

    checked = 0
    for path in sorted(Path(__file__).resolve().parents[1].joinpath("corpus", "py").rglob("*.py"))[:40]:
        try:
            module = ast.parse(path.read_text())
        except SyntaxError:
            continue
        scopes = [n for n in ast.walk(module) if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.Call))]
        for node in [module] + scopes:
            assert list(pyast.walk(node)) == list(ast.walk(node))
            checked += 1
        for classes in [(ast.Call,), (ast.Assign, ast.Call, ast.FunctionDef), (ast.Name, ast.arg), (ast.stmt,)]:
            assert pyast.of_type(module, *classes) == tuple(n for n in ast.walk(module) if type(n) in classes)
    assert checked > 400


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="ab\n", max_size=8), st.integers(1, 5), st.integers(0, 4)), max_size=4))
def test_character_positions_kept_as_runs_read_as_one_place_per_character(pieces) -> None:
    """A unit's map to file positions is kept as runs; read back, it is the place of every character,
    across concatenation too (a run continuing over the seam is merged, as a fresh build would have it)."""
    from cudalint.sources import CharPositions

    combined, expected = CharPositions([], [], 0), []
    for text, line, column0 in pieces:
        part = CharPositions.of_text(text, line, column0)
        places = []
        for offset, char in enumerate(text):
            places.append((line, column0 + 1))
            line, column0 = (line + 1, 0) if char == "\n" else (line, column0 + 1)
        assert list(part) == places and len(part) == len(text)
        combined, expected = combined + part, expected + places
    assert list(combined) == expected
    assert [combined[i] for i in range(len(expected))] == expected
    assert combined == CharPositions.of_list(expected)
    if expected:
        assert combined[-1] == expected[-1]


# ----------------------------------------------------------------------- lines and columns as editors count


def _check_concise(*args: str):
    from typer.testing import CliRunner

    from cudalint.cli import app

    return CliRunner().invoke(app, ["check", "--no-config", "--no-cache", "--output-format", "concise", *args])


def test_columns_of_cuda_findings_count_characters_not_bytes(tmp_path) -> None:
    path = tmp_path / "k.cu"
    path.write_text("__global__ void k(float* x, int n) {\n"
                    "    /* é, 日本 */ int i = blockIdx.x * blockDim.x + threadIdx.x; x[i] = 1.0f;\n}\n",
                    encoding="utf-8")
    line = path.read_text(encoding="utf-8").splitlines()[1]
    result = _check_concise("--select", "CL201", str(path))
    assert result.stdout.startswith(f"{path}:2:{line.index('x[i]') + 1}: error: ")  # 64 characters, 68 bytes


def test_columns_of_python_findings_count_characters_not_bytes() -> None:
    import ast

    from cudalint.harness.forward import node_location
    from cudalint.sources import load_document

    text = 'x = "日本"; y = len(x)\n'
    document = load_document("m.py", text)
    call = next(node for node in ast.walk(document.python_module) if isinstance(node, ast.Call))
    location = node_location(document, call)
    assert (location.column, location.end_column) == (text.index("len") + 1, text.index("\n") + 1)


@pytest.mark.parametrize("separator", ["\f", "\v", "\x85", "\u2028"])
def test_a_form_feed_or_other_unicode_separator_is_no_line_break_for_suppressions(tmp_path, separator) -> None:
    path = tmp_path / "k.cu"
    path.write_text("__global__ void k(float* x, int n) {\n"
                    f"{separator}    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "    x[i] = 1.0f;  // cudalint: ignore[CL201]\n}\n", encoding="utf-8")
    result = _check_concise("--select", "CL201,CL902", str(path))
    assert (result.exit_code, result.stdout) == (0, "")
