"""The metamorphic rewrites (benchmarks/metamorphic.py): each keeps the file a Python module with a
ModelNew and leaves the CUDA and C++ that cudalint reads from it unchanged, whatever shape it gives the
Python around them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cudalint.sources import load_document
from tests.benchmark_scripts import load_script

metamorphic = load_script("metamorphic")
CONTROLS = sorted((Path(__file__).resolve().parents[1] / "benchmarks" / "hacks" / "kernels" / "controls").glob("*.py"))


def _units(text: str) -> list[str]:
    return sorted(unit.text for unit in load_document("solution.py", text).units)


@pytest.mark.parametrize("operator", sorted(metamorphic.OPERATORS))
def test_a_rewrite_keeps_model_new_and_the_cuda_it_builds(operator: str) -> None:
    applied = 0
    for path in CONTROLS:
        original = path.read_text()
        rewritten = metamorphic.transform(original, operator)
        if rewritten is None:
            continue
        applied += 1
        module = ast.parse(rewritten)
        assert any(isinstance(n, (ast.ClassDef, ast.Name)) and getattr(n, "name", getattr(n, "id", None)) == "ModelNew"
                   for n in ast.walk(module)), path.name
        assert _units(rewritten) == _units(original), (operator, path.name)
    assert applied, f"{operator} applies to no control"


def test_the_alias_rewrite_renames_every_call_of_load_inline() -> None:
    text = metamorphic.transform(CONTROLS[0].read_text(), "alias_name")
    assert "_compile_cuda(" in text and "load_inline(" not in text.replace("import load_inline as", "")
