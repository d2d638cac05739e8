"""A load_inline `cpp_sources` that only repeats declarators of `cuda_sources` functions is read from the
CUDA unit instead of parsed (cudalint/frontend/prototypes.py). What it reads must be what clang's parse
gives, and anything it cannot vouch for must still be parsed."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cudalint
from cudalint.frontend.lower import Lowering, lower_unit
from cudalint.frontend.parse import parse_unit
from cudalint.frontend.prototypes import QUALIFIED_TYPES, from_definitions
from cudalint.sources import CudaUnit, load_document

ROOT = Path(__file__).resolve().parents[1]
PYTHON_FILES = sorted(p for folder in ("corpus", "tests/fixtures", "examples")
                      for p in (ROOT / folder).rglob("*.py"))


def _fields(value):
    """A lowering as plain data, for comparison (nodes compare by identity)."""
    if isinstance(value, list):
        return [_fields(item) for item in value]
    if dataclasses.is_dataclass(value):
        return {f.name: _fields(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "analyses"}
    return value


def _parsed(unit: CudaUnit):
    return Lowering(parse_unit(unit)).lower()


def _cuda(text: str) -> CudaUnit:
    return CudaUnit("m.py:cuda_sources", text, "cuda", "load_inline", None)


def _cpp(text: str) -> CudaUnit:
    return CudaUnit("m.py:cpp_sources", text, "c++", "load_inline", None)


def test_declarations_read_from_definitions_equal_clangs_parse() -> None:
    read = 0
    for path in PYTHON_FILES:
        document = load_document(str(path), path.read_text(encoding="utf-8"))
        cuda_units = [_parsed(u) for u in document.units if u.language == "cuda"]
        for unit in document.units:
            if unit.language != "c++":
                continue
            prototypes = from_definitions(unit, cuda_units)
            if prototypes is None:
                continue
            parsed = _parsed(unit)
            assert (parsed.functions, parsed.globals, parsed.diagnostics, parsed.unknown_headers) == ([], [], [], [])
            assert _fields(prototypes) == _fields(parsed.prototypes), path
            read += 1
    assert read > 150  # of 180 C++ units; the rest have no clean CUDA unit or do not repeat it


def test_trusted_names_are_declared_by_the_cpp_prelude() -> None:
    templates = {"vector": "<int>", "tuple": "<int, float>", "pair": "<int, float>", "optional": "<int>"}
    params = [f"{ns}::{name}{templates.get(name, '')} p{i}" for i, (ns, name) in enumerate(sorted(QUALIFIED_TYPES))]
    params += ["int8_t a", "int16_t b", "int32_t c", "int64_t d", "uint8_t e", "uint16_t f", "uint32_t g",
               "uint64_t h", "size_t i", "const volatile unsigned long long j", "signed short k", "char l",
               "bool m", "double n", "float o"]
    unit = _cpp(f"void f({', '.join(params)});")
    assert [d.message for d in parse_unit(unit).diagnostics] == []


CUDA = """
#include <torch/extension.h>
{prefix}
torch::Tensor scale_cuda(torch::Tensor x, double s) {{
    return x * s;
}}
"""


@pytest.mark.parametrize("cpp", [
    "torch::Tensor scale_cuda(torch::Tensor x, double s);",
    "// the binding\ntorch::Tensor scale_cuda(\n    torch::Tensor x,   /* input */\n    double s);\n",
    "torch::Tensor scale_cuda(torch::Tensor x, double s); torch::Tensor scale_cuda(torch::Tensor x, double s);",
])
def test_repeated_declarators_are_read(cpp: str) -> None:
    cuda = _cuda(CUDA.format(prefix=""))
    unit = _cpp(cpp)
    prototypes = from_definitions(unit, [_parsed(cuda)])
    assert prototypes is not None
    assert _fields(prototypes) == _fields(_parsed(unit).prototypes)


@pytest.mark.parametrize("cpp, prefix", [
    # what the C++ unit means depends on the CUDA unit's context, or is not a plain declaration
    ("Tensor scale_cuda(Tensor x, double s);", "using namespace torch;\nusing at::Tensor;"),
    ("torch::Tensor scale_cuda(torch::Tensor, double);", "#define double float"),
    ("torch::Tensor scale_cuda(torch::Tensor x, double s);", "#define s scale"),
    ("torch::Tensor scale_cuda(torch::Tensor x, double s);", "namespace torch { struct Tensor2; }"),
    ("torch::Tensor scale_cuda(torch::Tensor x, double s = 1.0);", ""),
    ("#include <torch/extension.h>\ntorch::Tensor scale_cuda(torch::Tensor x, double s);", ""),
    ("torch::Tensor scale_cuda(torch::Tensor x, float s);", ""),
    ("torch::Tensor scale_cuda(torch::Tensor x, double s);\nint helper();", ""),
    ("torch::Tensor scale_cuda(torch::Tensor x, double s)", ""),
    ("torch::Tensor scale_cuda(torch::Tensor x, double s);", "struct Broken { int"),
    ("torch::Tensor scale_cuda(torch::Tensor x, double s); // é", ""),
])
def test_declarations_that_cannot_be_vouched_for_are_parsed(cpp: str, prefix: str) -> None:
    cuda = _cuda(CUDA.format(prefix=prefix))
    unit = _cpp(cpp)
    assert from_definitions(unit, [_parsed(cuda)]) is None


@pytest.mark.parametrize("definition", [
    "namespace ops { torch::Tensor scale_cuda(torch::Tensor x, double s) { return x * s; } }",
    'extern "C" torch::Tensor scale_cuda(torch::Tensor x, double s) { return x * s; }',
    "static torch::Tensor scale_cuda(torch::Tensor x, double s) { return x * s; }",
    "template <typename T> torch::Tensor scale_cuda(torch::Tensor x, T s) { return x * s; }",
    "__device__ torch::Tensor scale_cuda(torch::Tensor x, double s) { return x * s; }",
])
def test_only_file_scope_host_definitions_vouch(definition: str) -> None:
    cuda = _cuda("#include <torch/extension.h>\n" + definition)
    unit = _cpp("torch::Tensor scale_cuda(torch::Tensor x, double s);")
    assert from_definitions(unit, [_parsed(cuda)]) is None


def test_a_void_parameter_list_is_parsed() -> None:
    cuda = _cuda("#include <torch/extension.h>\ntorch::Tensor make(void) { return {}; }\n")
    unit = _cpp("torch::Tensor make(void);")
    assert _parsed(cuda).diagnostics == [] and [len(f.params) for f in _parsed(unit).prototypes] == [0]
    assert from_definitions(unit, [_parsed(cuda)]) is None
    assert [f.name for f in lower_unit(unit, None, [lower_unit(cuda)]).prototypes] == ["make"]


def test_a_lone_word_is_a_type_not_a_parameter_name() -> None:
    cuda = _cuda("#include <torch/extension.h>\nusing at::Tensor;\nvoid scale_cuda(Tensor) {}\n")
    unit = _cpp("void scale_cuda(Tensor);")
    assert _parsed(cuda).diagnostics == [] and _parsed(unit).diagnostics != []
    assert from_definitions(unit, [_parsed(cuda)]) is None


def test_a_declaration_the_cpp_build_rejects_is_still_reported() -> None:
    """Under `using namespace torch` the CUDA unit accepts `Tensor`; the C++ unit, compiled alone, does not."""
    source = textwrap.dedent('''
        from torch.utils.cpp_extension import load_inline
        cuda = """
        #include <torch/extension.h>
        using namespace torch;
        Tensor scale_cuda(Tensor x, double s) { return x * s; }
        """
        ext = load_inline(name="scale", cpp_sources="Tensor scale_cuda(Tensor x, double s);",
                          cuda_sources=cuda, functions=["scale_cuda"])
        ''')
    findings = cudalint.lint_source(source, filename="model.py")
    assert any(f.code == "CL901" and f.location.line == 8 and "Tensor" in f.message for f in findings), findings


def test_lower_unit_reads_declarations_only_given_the_cuda_units() -> None:
    cuda = _cuda(CUDA.format(prefix=""))
    unit = _cpp("torch::Tensor scale_cuda(torch::Tensor x, double s);")
    read = lower_unit(unit, None, [lower_unit(cuda)])
    assert [f.name for f in read.prototypes] == ["scale_cuda"]
    assert _fields(read.prototypes) == _fields(lower_unit(unit).prototypes)


_VOCABULARY = ["torch", "::", "Tensor", "at", "std", "vector", "<", ">", "int64_t", "int", "double", "const",
               "&", "*", "scale_cuda", "x", "s", "(", ")", ",", ";", "void"]
_MATCHING = ["torch", "::", "Tensor", "scale_cuda", "(", "torch", "::", "Tensor", "x", ",", "double", "s", ")", ";"]
_SEPARATORS = st.sampled_from([" ", "\n", "  /* c */ ", " // note\n"])


@st.composite
def _near_declarations(draw) -> str:
    """The declaration that `scale_cuda`'s definition repeats, with up to two tokens changed, added or
    dropped, and any spacing and comments between tokens."""
    tokens = list(_MATCHING)
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(tokens) - 1))
        change = draw(st.sampled_from(["replace", "insert", "drop"]))
        if change == "drop":
            del tokens[at]
        elif change == "insert":
            tokens.insert(at, draw(st.sampled_from(_VOCABULARY)))
        else:
            tokens[at] = draw(st.sampled_from(_VOCABULARY))
    return "".join(draw(_SEPARATORS) + token for token in tokens)


@settings(max_examples=80, deadline=None)
@given(_near_declarations())
def test_declarations_near_the_accepted_form_are_read_as_clang_reads_them_or_parsed(text: str) -> None:
    """Never an exception, and whatever is read is what clang's parse of the C++ unit gives."""
    cuda = _parsed(_cuda(CUDA.format(prefix="")))
    unit = _cpp(text)
    prototypes = from_definitions(unit, [cuda])
    if prototypes is not None:
        parsed = _parsed(unit)
        assert [d for d in parsed.diagnostics if d.severity == "error"] == []
        assert _fields(prototypes) == _fields(parsed.prototypes)
