"""Turn an input file into CUDA units: the code clang parses, with a map back to the file's lines.

A `.cu`/`.cuh` file is one unit. A Python file holds CUDA in strings passed to
`torch.utils.cpp_extension.load_inline` or `cupy.RawKernel`/`RawModule`; each such source becomes a unit
whose every character knows its line and column in the .py file. The string is followed through the
operations that make one string of others without running the file (`string_resolver.py`); a source it
cannot follow is not analysed, and the document says where and why (`SourceDocument.unanalysed`): the
file was not checked, so it must not pass.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import cached_property

from cudalint import pyast
from cudalint.caching import Analysed
from cudalint.positions import CharPositions, NotAnalysed, Position, split_lines
from cudalint.string_resolver import StringResolver, Unresolved


CUDA_SUFFIXES = (".cu", ".cuh")
PYTHON_SUFFIXES = (".py",)
SUFFIXES = CUDA_SUFFIXES + PYTHON_SUFFIXES


@dataclass
class CudaUnit:
    """One translation unit as clang will see it."""

    name: str  # a label: "kernel.cu", or "model.py:cuda_sources" for embedded code
    text: str
    language: str  # "cuda" or "c++" (load_inline's cpp_sources are compiled as C++)
    origin: str  # "file", "load_inline", "cupy"
    # file position of each character of `text`; None for a file unit (identity mapping)
    char_positions: CharPositions | None = None
    _line_starts: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self._line_starts = [0] + [match.end() for match in re.finditer("\n", self.text)]

    @cached_property
    def lines(self) -> list[str]:
        """`split_lines(text)`, made once: rules read lines of a function, a span or a finding."""
        return split_lines(self.text)

    def to_file(self, line: int, column: int) -> Position:
        """Map a 1-based (line, byte column) of this unit to the 1-based position in the input file, whose
        columns count characters, as editors do."""
        starts = self._line_starts
        if self.char_positions is None and not 1 <= line <= len(starts):
            return Position(line, column)
        line = min(max(line, 1), len(starts))
        start = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        # clang columns count bytes; convert to a character index on this line
        line_bytes = self.text[start:end].encode("utf-8")
        char_index = len(line_bytes[: max(column - 1, 0)].decode("utf-8", errors="ignore"))
        if self.char_positions is None:  # a column past the line's end stays past it
            return Position(line, char_index + 1 + max(column - 1 - len(line_bytes), 0))
        offset = min(start + char_index, len(self.char_positions) - 1)
        if offset < 0:
            return Position(1, 1)
        return Position(*self.char_positions[offset])


@dataclass
class SourceDocument(Analysed):
    """An input file: its text, the CUDA units in it, and whether it is Python that does not parse."""

    path: str
    text: str
    kind: str  # "cuda" or "python"
    units: list[CudaUnit]
    python_syntax_error: SyntaxError | None = None
    python_module: ast.Module | None = None
    unanalysed: list[NotAnalysed] = field(default_factory=list)  # sources that no unit holds
    analyses: dict = field(default_factory=dict, repr=False)  # see `Analysed`

    @cached_property
    def lines(self) -> list[str]:
        """`split_lines(text)`, made once (a rule asks for one line per finding)."""
        return split_lines(self.text)


def load_document(path: str, text: str) -> SourceDocument:
    if path.endswith(PYTHON_SUFFIXES):
        return _python_document(path, text)
    name = path.rsplit("/", 1)[-1]
    return SourceDocument(path, text, "cuda", [CudaUnit(name, text, "cuda", "file")])


# ----------------------------------------------------------------------------------------------- Python


def _python_document(path: str, text: str) -> SourceDocument:
    try:
        module = ast.parse(text, filename=path)
    except SyntaxError as error:
        # without its traceback, whose frames would make a cycle with the document
        return SourceDocument(path, text, "python", [], python_syntax_error=error.with_traceback(None))
    except (ValueError, RecursionError, MemoryError) as error:  # null bytes; nesting too deep for the parser
        syntax_error = SyntaxError(str(error) if isinstance(error, ValueError)
                                   else "too deeply nested for Python's parser")
        syntax_error.lineno, syntax_error.offset = 1, 1
        return SourceDocument(path, text, "python", [], python_syntax_error=syntax_error)
    resolver = StringResolver(module, text)
    units: list[CudaUnit] = []
    unanalysed: list[NotAnalysed] = []
    name = path.rsplit("/", 1)[-1]

    def add(node: ast.expr, label: str, language: str, origin: str) -> None:
        try:
            mapped = resolver.source(node)
        except Unresolved as why:
            what = "C++" if language == "c++" else "CUDA"
            unanalysed.append(resolver.not_analysed(why.node, f"{what} source not analysed: {why.reason}"))
            return
        if mapped is not None and mapped[0].strip():
            units.append(CudaUnit(label, mapped[0], language, origin, mapped[1]))

    for call in pyast.of_type(module, ast.Call):
        qualified = resolver.qualified(call.func)  # an imported builder by what it is bound to, whatever its alias
        callee = qualified.rsplit(".", 1)[-1] if qualified else _callee_name(call)
        unpacked = next((a for a in [*call.args, *call.keywords] if isinstance(a, ast.Starred) or
                         isinstance(a, ast.keyword) and a.arg is None), None)
        if callee in ("load_inline", "RawKernel", "RawModule") and unpacked is not None:
            # `load_inline(**options)`: which arguments are the sources is known only when the file runs
            unanalysed.append(resolver.not_analysed(unpacked, f"CUDA source not analysed: `{callee}` is given "
                                                              f"arguments unpacked from a value cudalint does not follow"))
        elif callee == "load_inline":
            for keyword, position, language in (("cpp_sources", 1, "c++"), ("cuda_sources", 2, "cuda")):
                node = _argument(call, keyword, position)
                if node is not None:
                    add(node, f"{name}:{keyword}", language, "load_inline")
        elif callee in ("RawKernel", "RawModule"):
            node = _argument(call, "code", 0)
            if node is not None:
                add(node, f"{name}:{callee}", "cuda", "cupy")
            elif any(keyword.arg == "path" for keyword in call.keywords):
                unanalysed.append(resolver.not_analysed(call, f"CUDA source not analysed: `{callee}` compiles the "
                                                              f"file its `path` names, which cudalint does not read"))
        elif resolver.qualified(call.func) == "torch.utils.cpp_extension.load":
            unanalysed.append(resolver.not_analysed(call, "CUDA source not analysed: `load` compiles the files its "
                                                          "`sources` name, which cudalint does not read"))
    return SourceDocument(path, text, "python", units, python_module=module, unanalysed=unanalysed)


def _callee_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _argument(call: ast.Call, keyword: str, position: int) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    if len(call.args) > position:
        return call.args[position]
    return None
