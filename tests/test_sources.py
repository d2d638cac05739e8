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


def test_unresolvable_sources_are_recorded_where_they_stop_being_known() -> None:
    text = "from torch.utils.cpp_extension import load_inline\nload_inline('m', cpp_sources=make(), cuda_sources=x)\n"
    document = load_document("m.py", text)
    assert document.units == []
    assert [tuple(n) for n in document.unanalysed] == [
        (2, 30, 2, 36, "C++ source not analysed: `make(...)` is computed when the file runs"),
        (2, 51, 2, 52, "CUDA source not analysed: `x` is given no value cudalint can read in this file")]


_LITERAL_TEXT = st.lists(st.sampled_from(list("ab{}\\'\"\n\t é") + ["\\n", "\\x41", "\\u00e9", "'''", '"""',
                                                                     "{{", "}}", "{X}", "{N:>3}", "{X!r}"]),
                         max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(_LITERAL_TEXT, st.sampled_from(["", "r", "u", "R", "f", "rf", "F"]), st.sampled_from(["'", '"', "'''", '"""']),
       st.booleans(), st.sampled_from(["", "é = 1; "]))
def test_every_character_of_a_literal_maps_to_what_wrote_it(body: str, prefix: str, quote: str, concatenated: bool,
                                                            before: str) -> None:
    """Whatever the literal (escapes, quotes, raw and f-strings with fields, implicit concatenation, a
    non-ASCII character before it on the line), its text is Python's value and each character's place
    is in the file: the character itself, the backslash of its escape, the first of a doubled brace, or
    (written by a field) the field's first character; a string a field substitutes keeps its own places."""
    import ast
    import warnings

    from cudalint.string_resolver import StringResolver

    source = f'X = "x{{y"\nN = 7\n{before}s = {prefix}{quote}{body}{quote}' + (' "tail"' if concatenated else "") + "\n"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences: Python keeps them as written
            tree = ast.parse(source)
            expected: dict = {}
            exec(compile(tree, "<literal>", "exec"), {}, expected)
    except (SyntaxError, ValueError, TypeError, KeyError, NameError):  # a field naming no variable of the file
        return
    # the assignment of `s` (the literal's text may close the string and add statements after it)
    node = [n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == "s"][-1].value
    text, positions = StringResolver(tree, source).source(node)
    assert text == expected["s"]
    lines = source.splitlines(keepends=True)
    for char, (line, column) in zip(text, positions):
        written = lines[line - 1][column - 1]
        assert written == char or written in "\\{" or (char == "}" and written == "}"), (char, line, column)


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
    from cudalint.positions import CharPositions

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


# ------------------------------------------------------------------------- sources followed through operations

_FOLLOWED = {
    "strip": 'SRC = """\n\n  __global__ void k(float* a) { MARK; }\n\n"""\ncuda = SRC.strip()',
    "strip_chars": 'cuda = "xx__global__ void k(float* a) { MARK; }xx".strip("x")',
    "dedent": 'cuda = textwrap.dedent("""\n        __global__ void k(float* a) {\n            MARK;\n        }\n    """)',
    "cleandoc": 'cuda = inspect.cleandoc("""\n\n    __global__ void k(float* a) {\n        MARK;\n    }\n""")',
    "dedent_alias": 'cuda = dd("""\n    __global__ void k(float* a) {\n        MARK;\n    }\n""")',
    "join": 'cuda = "\\n".join(("__global__ void k(float* a) {", "    MARK;", "}"))',
    "join_names": 'HEAD = "__global__ void k(float* a) {"\nBODY = ["    MARK;", "}"]\ncuda = " ".join([HEAD] + BODY)',
    "fstring": 'NAME = "k"\nBLOCK = 128\ncuda = f"#define B {BLOCK * 2}\\n__global__ void {NAME}(float* a) {{ MARK; }}"',
    "fstring_concatenated": 'cuda = (f"__global__ void k(float* a) "\n        "{ MARK; }")',
    "format": 'cuda = "#define B {:>5}\\n__global__ void {name}(float* a) {{ MARK; }}".format(64, name="k")',
    "printf": 'cuda = "#define B %(b)05d\\n__global__ void %(n)s(float* a) { MARK; } // 100%%" % {"n": "k", "b": 8}',
    "printf_tuple": 'ARGS = (32, "k")\ncuda = "#define B %d\\n__global__ void %s(float* a) { MARK; }" % ARGS',
    "replace": 'NEW = "MARK"\ncuda = "__global__ void k(float* a) { OLD; }".replace("OLD", NEW)',
    "augmented": 'cuda = "__global__ void k(float* a) {"\ncuda += " MARK; }"',
    "tuple_assignment": 'head, cuda = "x", "__global__ void k(float* a) { MARK; }"',
}


@pytest.mark.parametrize("name", sorted(_FOLLOWED))
def test_sources_are_followed_through_operations_that_keep_their_text(name: str) -> None:
    """The unit is the text Python makes, and the marked statement (written in a literal) maps to the
    line and column where that literal holds it."""
    text = ("import inspect\nimport textwrap\nfrom textwrap import dedent as dd\n"
            "from torch.utils.cpp_extension import load_inline\n"
            + _FOLLOWED[name].replace("MARK", "a[threadIdx.x] = 1")
            + '\nload_inline("m", "", cuda_sources=cuda)\n')
    namespace: dict = {"load_inline": lambda *args, **kwargs: None}
    exec(text.replace("from torch.utils.cpp_extension import load_inline\n", ""), namespace)
    document = load_document("m.py", text)
    assert document.unanalysed == []
    [unit] = document.units
    assert unit.text == namespace["cuda"]
    position = unit_position_of(document, 0, "a[threadIdx.x] = 1")
    assert (position.line, position.column) == file_position_of(text, "a[threadIdx.x] = 1")


def test_a_number_or_a_padded_string_stands_at_its_replacement_field() -> None:
    text = 'from torch.utils.cpp_extension import load_inline\nB = 64\n' \
           'load_inline("m", "", cuda_sources=f"#define B {B}\\n#define C {B:>4}\\n")\n'
    [unit] = load_document("m.py", text).units
    assert unit.text == "#define B 64\n#define C   64\n"
    assert unit.to_file(1, 11) == file_position_of(text, "{B}")  # "64" is written by `{B}`
    assert unit.to_file(2, 11) == file_position_of(text, "{B:>4}")


_NOT_FOLLOWED = {
    "open(path).read()": "`open(path).read(...)` is computed when the file runs",
    "SRC.upper()": "`SRC.upper(...)` is computed when the file runs",
    "make(SRC)": "`make(...)` is computed when the file runs",
    "undefined_name": "`undefined_name` is given no value cudalint can read in this file",
    "f'{SRC}{undefined_name}'": "`undefined_name` is given no value cudalint can read in this file",
    "f'{SRC:{WIDTH}}'": "the format of `SRC` is computed when the file runs",
    "f'{N:>99999}'": "the format `>99999` is wider than cudalint follows",
    "'{0.real}'.format(N)": "the field `{0.real}` of `'{0.real}'.format(N)` is one cudalint does not follow",
    "'{} {}'.format(SRC)": "`'{} {}'.format(SRC)` raises: no argument for `{}`",
    "'%s %s' % (SRC,)": "`'%s %s' % (SRC,)` has a conversion `%s` cudalint does not follow",
    "'%s' % (SRC, SRC)": "`'%s' % (SRC, SRC)` raises TypeError: its values do not match the format",
    "SRC + N": "`SRC + N` mixes strings and numbers",
    "SRC.replace('', 'x')": "`SRC.replace('', 'x')` is a replacement cudalint does not follow",
    "inspect.cleandoc('\\n\\tint x;\\n\\t\\tint y;')": "`inspect.cleandoc` changes the text in a way cudalint does not map",
    "dedent(SRC)": "`dedent(...)` is computed when the file runs",  # the file's own dedent, not textwrap's
    "LOOP": "`LOOP += SRC` runs in a loop",
    "SCALED": "`SCALED *= 2` is computed when the file runs",
    "CYCLE_A": "it is built through more than 100 operations",
    "HUGE": "it would be longer than 4 MiB, so it is no kernel",
}


@pytest.mark.parametrize("expression", sorted(_NOT_FOLLOWED))
def test_a_source_not_followed_is_recorded_with_the_reason(expression: str) -> None:
    text = textwrap.dedent("""\
        import inspect
        from torch.utils.cpp_extension import load_inline
        SRC = "__global__ void k() {}"
        N = 3
        WIDTH = 10
        LOOP = ""
        for _ in range(2):
            LOOP += SRC
        SCALED = SRC
        SCALED *= 2
        CYCLE_A = CYCLE_B
        CYCLE_B = CYCLE_A
        HUGE = "x"
        """)
    text += "".join(f"HUGE = HUGE + HUGE + HUGE + HUGE\n" for _ in range(12))
    text += f"def dedent(text):\n    return text\nload_inline('m', '', cuda_sources={expression})\n"
    document = load_document("m.py", text)
    assert document.units == []
    [unanalysed] = document.unanalysed
    assert unanalysed.message.startswith("CUDA source not analysed: ")
    assert _NOT_FOLLOWED[expression] in unanalysed.message


def test_a_long_concatenation_is_read_in_a_loop() -> None:
    """`a + b + c + ...` nests to the left, deeper than the operations followed into one another."""
    text = "from torch.utils.cpp_extension import load_inline\nload_inline('m', '', cuda_sources=" \
           + " + ".join(f"'int v{i};\\n'" for i in range(500)) + ")\n"
    [unit] = load_document("m.py", text).units
    assert unit.text.count("\n") == 500 and unit.to_file(500, 5) == file_position_of(text, "v499")


_ATOMS = ["'a{b}'", '"x"', "S", "N", "'%s-%d'", "'{}{}'", "'{0}|{n:>3}'", "f'{S}{N:02d}'", "f'{{{S!r}}}'",
          "'  pad \\t\\n'", "r'\\n'", "'\\x41\\u00e9'", "L", "'\\n    int x;\\n      int y;\\n'", "None", "3", "1.5"]
_OPERATIONS = ["({} + {})", "({} % ({}, {}))", "({} % {})", "{}.format({}, n={})", "{}.strip()", "{}.lstrip({})",
               "{}.replace({}, {})", "{}.replace('a', 'Z', 1)", "textwrap.dedent({})", "inspect.cleandoc({})",
               "{}.join([{}, {}])", "'-'.join(L + [{}])", "f'<{{{}}}>'", "f'{{{}!s:>4}}'", "({} * {})", "{}.upper()",
               "({}, {})"]
_EXPRESSIONS = st.recursive(st.sampled_from(_ATOMS), lambda inner: st.builds(
    lambda operation, parts: operation.format(*parts[:operation.count("{}")]),
    st.sampled_from(_OPERATIONS), st.lists(inner, min_size=3, max_size=3)), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(_EXPRESSIONS)
def test_what_is_followed_is_what_python_computes(expression: str) -> None:
    """Differential: a source the resolver follows is the text Python makes (a list joined as load_inline
    joins it), with a place for each character; anything else is Unresolved, never an exception."""
    import ast

    from cudalint.string_resolver import StringResolver, Unresolved

    source = ("import textwrap, inspect\nS = 'sss'\nS += '{x}'\nN = 7\nL = ['l1', 'l2']\n"
              f"R = {expression}\n")
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    try:
        namespace: dict = {}
        exec(compile(tree, "<expression>", "exec"), namespace)
        expected = namespace["R"]
    except Exception:  # noqa: BLE001 - Python itself fails: whatever cudalint reads is never compiled
        return
    try:
        found = StringResolver(tree, source).source(tree.body[-1].value)
    except Unresolved:
        return
    if isinstance(expected, (list, tuple)):
        expected = "\n".join(expected)
    assert (found and found[0]) == expected
    assert found is None or len(found[1]) == len(found[0])


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

    from cudalint.harness.statements import node_location
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
