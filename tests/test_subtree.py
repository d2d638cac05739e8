"""The lowering reads each declaration as a `Subtree`, walked by compiled code when the install built it
(cudalint/frontend/_subtree.c) and by Python otherwise. The two walks must agree node for node, and
linting must not depend on which one ran."""

from pathlib import Path

import pytest

import cudalint
from cudalint.engine import _lint_thread
from cudalint.frontend import clang_api
from cudalint.frontend.parse import parse_unit
from cudalint.sources import load_document

ROOT = Path(__file__).resolve().parents[1]
CORPUS = sorted(p for p in (ROOT / "corpus").rglob("*") if p.suffix in (".cu", ".py"))
FIXTURES = sorted(p for p in (ROOT / "tests" / "fixtures").rglob("*") if p.suffix in (".cu", ".cuh", ".py"))
DEEP = {
    "chain.cu": "__global__ void k(int* a) { a[0] = " + " + ".join(["a[1]"] * 3000) + "; }\n",
    "nested.cu": "__global__ void k(int* a) { " + "if (a[0]) " * 2000 + "a[0] = 1; }\n",
    "macro.cu": "#define AT(p, i) p[i]\n#define M(x) ((x) * 2)\n"
                "__global__ void k(float* a) { AT(a, threadIdx.x) = M(a[0]) + sizeof(float); }\n",
}
compiled = clang_api._native_subtree()


def _units():
    for path in CORPUS + FIXTURES:
        yield from load_document(str(path), path.read_text(encoding="utf-8")).units
    for name, text in DEEP.items():
        yield from load_document(name, text).units


@pytest.mark.skipif(compiled is None, reason="the compiled walk was not built (no C compiler at install)")
def test_compiled_and_python_walks_agree() -> None:
    # parsed where the linter parses: on its thread of a large stack (the deep units are refused on 8 MB)
    assert _lint_thread.run(_compare_walks) > 1000


def _compare_walks() -> int:
    compared = 0
    for unit in _units():
        parsed = parse_unit(unit)
        data = unit.text.encode()
        bounds = (*clang_api.main_file_bounds(parsed.translation_unit, parsed.main_file, len(data)),
                  clang_api.line_starts(data))
        for top in clang_api.children(parsed.translation_unit.cursor):
            if not clang_api.in_main_file(top):
                continue
            root, types, cursors = compiled(bytes(top), *bounds)
            expected_root, expected_types, expected_cursors = clang_api._subtree_python(bytes(top), *bounds)
            where = (unit.name, clang_api.spelling(top))
            assert list(_preorder(root)) == list(_preorder(expected_root)), where
            assert (types, cursors) == (expected_types, expected_cursors), where
            compared += 1
    return compared


def _preorder(node: tuple):
    """Each node's fields, children replaced by their count (tuples this deep overflow `==`)."""
    stack = [node]
    while stack:
        node = stack.pop()
        children = node[clang_api.CHILDREN]
        yield (*node[:clang_api.CHILDREN], len(children), *node[clang_api.CHILDREN + 1:])
        stack.extend(reversed(children))


def _depth(node: tuple) -> int:
    deepest, stack = 0, [(node, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node[clang_api.CHILDREN])
    return deepest


def test_a_deep_tree_is_cut_at_the_same_depth_by_both_walks() -> None:
    unit = load_document("chain.cu", DEEP["chain.cu"]).units[0]
    parsed = parse_unit(unit)
    data = unit.text.encode()
    bounds = (*clang_api.main_file_bounds(parsed.translation_unit, parsed.main_file, len(data)),
              clang_api.line_starts(data))
    kernel = next(c for c in clang_api.children(parsed.translation_unit.cursor) if clang_api.in_main_file(c))
    walks = [clang_api._subtree_python] + ([compiled] if compiled else [])
    for walk in walks:
        root, _, _ = walk(bytes(kernel), *bounds)
        assert _depth(root) == clang_api._MAX_DEPTH


def test_findings_do_not_depend_on_the_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [(str(p), p.read_text(encoding="utf-8")) for p in CORPUS] + list(DEEP.items())
    default = [cudalint.lint_source(text, filename=name) for name, text in cases]
    monkeypatch.setattr(clang_api, "_native_subtree", lambda: None)
    python = [cudalint.lint_source(text, filename=name) for name, text in cases]
    assert python == default
    assert sum(map(len, default)) > 100  # (162 when written)
