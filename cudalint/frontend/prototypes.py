"""A load_inline `cpp_sources` that only declares the functions `cuda_sources` defines, read without a
parse.

Nearly every generated `cpp_sources` is one line, `torch::Tensor forward(torch::Tensor x);`, repeating
the declarator of a function defined in `cuda_sources`. Parsing it still costs a whole libclang parse
(1 to 2 ms, up to a tenth of linting a KernelBench file). When each of its declarations is, token for token, the
declarator of a file-scope host function of a CUDA unit that clang accepted, clang would give the
C++ unit exactly that function's name, signature and types, so the unit is lowered from that
function instead.

The tokens are read the same way in both units only when nothing in the CUDA unit changes what they
mean: its names are keywords, the `<cstdint>` typedefs and a list of torch and std types that the C++
prelude (`torch/extension.h`) declares, always qualified (a `using namespace torch;` in the CUDA unit
must not make a bare `Tensor` look valid), and the CUDA unit defines no macro of those names and opens or
uses none of their namespaces. Anything else (a `#include`, a default argument, a template, a comment with
text that is not ASCII) is parsed as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cudalint.frontend.clang_api import line_starts
from cudalint.frontend.parse import main_file_name
from cudalint.model import ir
from cudalint.sources import CudaUnit

if TYPE_CHECKING:
    from cudalint.frontend.lower import LoweredUnit

_KEYWORDS = frozenset({"const", "volatile", "unsigned", "signed", "int", "long", "short", "char", "float",
                       "double", "bool", "void"})
_GLOBAL_TYPES = frozenset({"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
                           "uint64_t", "size_t"})
# qualified names the C++ prelude declares (tests/test_prototypes.py parses each in a C++ unit)
QUALIFIED_TYPES = frozenset({
    ("torch", "Tensor"), ("at", "Tensor"), ("torch", "Scalar"), ("at", "Scalar"), ("c10", "Scalar"),
    ("torch", "ScalarType"), ("at", "ScalarType"), ("c10", "ScalarType"), ("at", "IntArrayRef"),
    ("c10", "IntArrayRef"), ("torch", "IntArrayRef"), ("std", "vector"), ("std", "tuple"), ("std", "pair"),
    ("std", "optional"), ("c10", "optional"), ("at", "optional"), ("torch", "optional"), ("std", "string"),
})
_NAMESPACES = frozenset(first for first, _ in QUALIFIED_TYPES)
_TOKEN = re.compile(r"\s+|//[^\n]*|/\*.*?\*/|(?P<token>[A-Za-z_]\w*|::|[&*<>,();])", re.DOTALL)


class HostDefinitions:
    """The file-scope host function definitions of a file's trusted CUDA units (see `_trusted`), by name,
    each with its declarator's tokens and the macros of its unit; in unit order, then source order. Made
    once per file: a file with many load_inline modules has as many C++ units to read against them."""

    def __init__(self, cuda_units: Sequence[LoweredUnit]) -> None:
        self.by_name: dict[str, list[tuple[ir.Function, list[str], set[str]]]] = {}
        for lowered in cuda_units:
            if _trusted(lowered):
                macros = _macros(lowered.unit.text)
                for name, definitions in _declarators(lowered).items():
                    self.by_name.setdefault(name, []).extend((f, tokens, macros) for f, tokens in definitions)


def from_definitions(unit: CudaUnit, cuda_units: Sequence[LoweredUnit] | HostDefinitions) -> list[ir.Function] | None:
    """The declarations of the C++ unit `unit` (all it holds) read from the definitions of `cuda_units`
    (lowered CUDA units of the same file, or their `HostDefinitions`), or None when `unit` is not made only
    of declarations that repeat one of them."""
    definitions = cuda_units if isinstance(cuda_units, HostDefinitions) else HostDefinitions(cuda_units)
    if not definitions.by_name or not unit.text.isascii():
        return None
    declarations = _declarations(unit.text)
    if not declarations:
        return None
    prototypes = []
    for declaration in declarations:
        words = {text for text, _ in declaration if _is_identifier(text)}
        definition = next((function for function, tokens, macros in definitions.by_name.get(_name(declaration), ())
                           if words.isdisjoint(macros) and tokens == [text for text, _ in declaration]), None)
        prototype = _prototype(unit, declaration, definition) if definition is not None else None
        if prototype is None:
            return None
        prototypes.append(prototype)
    return prototypes


_Token = tuple[str, int]  # text, offset in the unit


def _tokens(text: str) -> list[_Token] | None:
    """The tokens of `text` (comments and white space dropped), or None when it holds any other token."""
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            return None
        position = match.end()
        if match.group("token") is not None:
            tokens.append((match.group("token"), match.start()))
    return tokens


def _declarations(text: str) -> list[list[_Token]] | None:
    """The unit's declarations as token lists (each ending with `;`), or None when it holds anything but
    declarations of the form `type name(type name, ...);` spelled with trusted names."""
    tokens = _tokens(text)
    if not tokens or tokens[-1][0] != ";":
        return None
    declarations: list[list[_Token]] = []
    current: list[_Token] = []
    for token in tokens:
        current.append(token)
        if token[0] == ";":
            if not _well_formed([t for t, _ in current]):
                return None
            declarations.append(current)
            current = []
    return declarations


def _well_formed(tokens: list[str]) -> bool:
    if tokens.count("(") != 1 or tokens.count(")") != 1 or tokens[-2:] != [")", ";"]:
        return False
    opening = tokens.index("(")
    if opening < 2 or not _is_identifier(tokens[opening - 1]) or tokens[opening - 2] == "::":
        return False
    for index, token in enumerate(tokens):
        if not _is_identifier(token) or index == opening - 1:
            continue
        follows_scope = index > 0 and tokens[index - 1] == "::"
        if follows_scope:
            if (tokens[index - 2], token) not in QUALIFIED_TYPES:
                return False
        elif token in _NAMESPACES:
            if index + 1 >= len(tokens) or tokens[index + 1] != "::":
                return False
        elif token not in _KEYWORDS and token not in _GLOBAL_TYPES and not _is_parameter_name(tokens, index):
            return False
    return True


def _is_parameter_name(tokens: list[str], index: int) -> bool:
    """A parameter's name: the last word of a parameter (before `,` or `)`, outside template brackets) after
    its type (a lone word is a type)."""
    if tokens[index + 1] not in (",", ")") or tokens[index - 1] in ("(", ","):
        return False
    depth = 0
    for token in tokens[index + 1:]:
        depth += (token == "<") - (token == ">")
        if depth < 0:
            return False
    return tokens.index("(") < index


def _is_identifier(token: str) -> bool:
    return token[0].isalpha() or token[0] == "_"


def _name(declaration: list[_Token]) -> str:
    tokens = [t for t, _ in declaration]
    return tokens[tokens.index("(") - 1]


def _trusted(lowered: LoweredUnit) -> bool:
    """Whether clang read every declarator of this CUDA unit as it will read the same tokens in the C++
    unit: no error, no header cudalint could not see (which may define macros), and no namespace of a
    trusted type opened or used."""
    return not lowered.unknown_headers and not any(d.severity == "error" for d in lowered.diagnostics) \
        and not any(name in _NAMESPACES for name in re.findall(r"\bnamespace\s+(\w+)", lowered.unit.text))


def _macros(text: str) -> set[str]:
    """The names of the macros `text` defines (a declaration using one may mean something else there)."""
    return set(re.findall(r"#\s*define\s+(\w+)", text))


def _declarators(lowered: LoweredUnit) -> dict[str, list[tuple[ir.Function, list[str]]]]:
    """The file-scope, C++-linkage, non-template host function definitions of a unit, by name, each with
    the tokens of its declarator (from its first token to the body)."""
    data = lowered.unit.text.encode("utf-8")
    starts = line_starts(data)
    found: dict[str, list[tuple[ir.Function, list[str]]]] = {}
    for function in lowered.functions:
        if function.space != "host" or function.templated or function.body is None or not function.ref \
                or not function.ref.startswith("c:@F@") or "#" not in function.ref:
            continue
        start = starts[function.span.line - 1] + function.span.column - 1
        end = starts[function.body.span.line - 1] + function.body.span.column - 1
        tokens = _tokens(data[start:end].decode("utf-8", errors="replace"))
        if tokens is not None:
            found.setdefault(function.name, []).append((function, [t for t, _ in tokens] + [";"]))
    return found


def _prototype(unit: CudaUnit, declaration: list[_Token], definition: ir.Function) -> ir.Function | None:
    """The declaration as clang's lowering gives it: the definition's name, types and symbol, with this
    unit's spans and parameter symbols (None for a parameter list this does not split as clang does, such
    as `(void)`)."""
    tokens = [t for t, _ in declaration]
    opening = tokens.index("(")
    params = []
    parameter_tokens: list[_Token] = []
    depth = 0
    for token, offset in declaration[opening + 1: -1]:
        depth += (token == "<") - (token == ">")
        if (token == "," and depth == 0) or token == ")":
            params.append(parameter_tokens)
            parameter_tokens = []
        else:
            parameter_tokens.append((token, offset))
    params = [p for p in params if p]
    if len(params) != len(definition.params):
        return None
    file_name = main_file_name(unit.language)
    lowered_params = []
    for tokens_of, param in zip(params, definition.params):
        start = tokens_of[0][1]
        ref = f"c:{file_name}@{start}{definition.ref[2:]}@{param.name}" if param.ref else None
        lowered_params.append(ir.Param(param.name, ref, param.type, _span(unit, start, _end(tokens_of[-1])),
                                       param.canonical_type))
    name_token = declaration[opening - 1]
    return ir.Function(
        name=definition.name, space="host", params=lowered_params, body=None,
        span=_span(unit, declaration[0][1], _end(declaration[-2])),
        name_span=_span(unit, name_token[1], _end(name_token)), ref=definition.ref,
        return_type=definition.return_type)


def _end(token: _Token) -> int:
    return token[1] + len(token[0])


def _span(unit: CudaUnit, start: int, end: int) -> ir.Span:
    """The span of unit characters [start, end) (ASCII: columns are offsets)."""
    line = unit.text.count("\n", 0, start) + 1
    end_line = line + unit.text.count("\n", start, end)
    return ir.Span(line, start - unit.text.rfind("\n", 0, start), end_line, end - unit.text.rfind("\n", 0, end))
