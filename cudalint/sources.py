"""Turn an input file into CUDA units: the code clang parses, with a map back to the file's lines.

A `.cu`/`.cuh` file is one unit. A Python file holds CUDA in strings passed to
`torch.utils.cpp_extension.load_inline` or `cupy.RawKernel`/`RawModule`; each such source becomes a unit
whose every character knows its line and column in the .py file.
"""

from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from cudalint import pyast
from cudalint.caching import Analysed

CUDA_SUFFIXES = (".cu", ".cuh")
PYTHON_SUFFIXES = (".py",)
SUFFIXES = CUDA_SUFFIXES + PYTHON_SUFFIXES


def with_lines(matches: Iterable[re.Match], text: str) -> Iterator[tuple[re.Match, int]]:
    """Each of `matches` (in `text`, in order) with the 1-based line it starts on, counting the text's
    newlines once in all (a count from the start per match grows with the square of the text)."""
    line, position = 1, 0
    for match in matches:
        line += text.count("\n", position, match.start())
        position = match.start()
        yield match, line


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str, keepends: bool = False) -> list[str]:
    """The lines of `text` as clang and Python's tokenizer count them: broken at \\n, \\r\\n and \\r only.
    (`str.splitlines` also breaks at a form feed, a vertical tab, U+2028 and others, which are whitespace
    inside a line to both.)"""
    lines, start = [], 0
    for match in _LINE_BREAK.finditer(text):
        lines.append(text[start:match.end() if keepends else match.start()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


class Position(NamedTuple):
    line: int  # 1-based
    column: int  # 1-based


class CharPositions:
    """The file (line, column) of each character of a unit's text, kept as runs: a run's first character
    is at its place, and each following one a column further, up to the next run. A kernel string has
    thousands of characters but a run per line (and per escape), and only a finding's position is asked."""

    __slots__ = ("starts", "places", "length")

    def __init__(self, starts: list[int], places: list[tuple[int, int]], length: int) -> None:
        self.starts = starts  # the index of each run's first character, ascending
        self.places = places  # the (line, column) of each run's first character
        self.length = length

    @classmethod
    def of_text(cls, text: str, line: int, column0: int) -> CharPositions:
        """`text` as it stands in the file from (line, 0-based column0) on: a run per line, its newline
        included."""
        starts, places = [], []
        index = 0
        for piece in text.split("\n"):
            if index < len(text):
                starts.append(index)
                places.append((line, column0 + 1))
            index += len(piece) + 1
            line, column0 = line + 1, 0
        return cls(starts, places, len(text))

    @classmethod
    def of_list(cls, positions: list[tuple[int, int]]) -> CharPositions:
        """The runs of a place per character (decoded escapes)."""
        starts, places = [], []
        previous = None
        for index, place in enumerate(positions):
            if previous is None or place != (previous[0], previous[1] + 1):
                starts.append(index)
                places.append(place)
            previous = place
        return cls(starts, places, len(positions))

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> tuple[int, int]:
        if index < 0:
            index += self.length
        if not 0 <= index < self.length:
            raise IndexError("character index out of range")
        run = bisect.bisect_right(self.starts, index) - 1
        line, column = self.places[run]
        return line, column + index - self.starts[run]

    def __iter__(self) -> Iterator[tuple[int, int]]:
        bounds = self.starts[1:] + [self.length]
        for start, end, (line, column) in zip(self.starts, bounds, self.places):
            for offset in range(end - start):
                yield line, column + offset

    def __add__(self, other: CharPositions) -> CharPositions:
        starts = self.starts + [start + self.length for start in other.starts]
        places = self.places + other.places
        if self.length and other.length:  # a run that goes on across the seam is one run
            line, column = self[self.length - 1]
            if other.places[0] == (line, column + 1):
                del starts[len(self.starts)], places[len(self.places)]
        return CharPositions(starts, places, self.length + other.length)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CharPositions):
            return NotImplemented
        return (self.starts, self.places, self.length) == (other.starts, other.places, other.length)

    def __repr__(self) -> str:
        return f"CharPositions({len(self.starts)} runs, {self.length} characters)"


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
    resolver = StringResolver(pyast.of_type(module, ast.Assign, ast.AnnAssign), text)
    units: list[CudaUnit] = []
    name = path.rsplit("/", 1)[-1]
    for call in pyast.of_type(module, ast.Call):
        callee = _callee_name(call)
        if callee == "load_inline":
            for keyword, position, language in (("cpp_sources", 1, "c++"), ("cuda_sources", 2, "cuda")):
                node = _argument(call, keyword, position)
                if node is None:
                    continue
                mapped = resolver.mapped(node)
                if mapped is not None and mapped[0].strip():
                    units.append(CudaUnit(f"{name}:{keyword}", mapped[0], language, "load_inline", mapped[1]))
        elif callee in ("RawKernel", "RawModule"):
            node = _argument(call, "code", 0)
            mapped = resolver.mapped(node) if node is not None else None
            if mapped is not None and mapped[0].strip():
                units.append(CudaUnit(f"{name}:{callee}", mapped[0], "cuda", "cupy", mapped[1]))
    return SourceDocument(path, text, "python", units, python_module=module)


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


_Mapped = tuple[str, CharPositions]  # text, and the file (line, column) of each character


class StringResolver:
    """The string an expression statically stands for: a literal, a module variable (its last assignment
    before the use), a list or tuple (joined with newlines, as load_inline joins sources), `+`, an
    f-string without substitutions. `mapped` also gives each character's file position; `value` only
    the text (what the harness rules compare units by)."""

    def __init__(self, nodes: Iterable[ast.AST], text: str) -> None:
        self._text_lines = split_lines(text, keepends=True)
        self._assignments: dict[str, list[ast.expr]] = {}
        for node in nodes:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self._assignments.setdefault(target.id, []).append(node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                self._assignments.setdefault(node.target.id, []).append(node.value)

    def mapped(self, node: ast.expr) -> _Mapped | None:
        return self._resolve(node, 0, self._literal)

    def value(self, node: ast.expr) -> str | None:
        found = self._resolve(node, 0, _literal_value)
        return None if found is None else found[0]

    def assigned_value(self, name: ast.Name) -> ast.expr | None:
        """The value last assigned to `name` textually before the use (load_inline calls sit after their
        sources), else its last assignment."""
        values = self._assignments.get(name.id, [])
        before = [v for v in values if v.lineno <= name.lineno] or values
        return before[-1] if before else None

    def _resolve(self, node: ast.expr, depth: int, literal) -> _Mapped | None:
        if depth > 20:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return literal(node)
        if isinstance(node, ast.JoinedStr):
            if all(isinstance(v, ast.Constant) for v in node.values):
                return literal(node)
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self._resolve(node.left, depth + 1, literal)
            right = self._resolve(node.right, depth + 1, literal)
            if left is None or right is None:
                return None
            return left[0] + right[0], left[1] + right[1]
        if isinstance(node, (ast.List, ast.Tuple)):
            # load_inline joins a list of sources with newlines into one file
            parts = [self._resolve(element, depth + 1, literal) for element in node.elts]
            if not parts or any(p is None for p in parts):
                return None
            text, positions = parts[0]
            for part_text, part_positions in parts[1:]:
                glue = positions[-1] if positions else (node.lineno, node.col_offset + 1)
                text = text + "\n" + part_text
                positions = positions + CharPositions([0], [glue], 1) + part_positions
            return text, positions
        if isinstance(node, ast.Name):
            value = self.assigned_value(node)
            if value is not None:
                return self._resolve(value, depth + 1, literal)
        return None

    def _literal(self, node: ast.expr) -> _Mapped | None:
        """Decode the literal token(s) of `node`, recording where each resulting character came from."""
        segment = self._segment(node)
        if segment is None:
            return None
        single = _single_token(segment, node)
        if single is not None:
            return single
        text_parts: list[str] = []
        positions = _NO_POSITIONS
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(segment).readline))
        except (tokenize.TokenError, SyntaxError):
            return None
        for token in tokens:
            if token.type == tokenize.STRING:
                decoded = _decode_string_token(token.string, node.lineno + token.start[0] - 1,
                                               token.start[1] + (node.col_offset if token.start[0] == 1 else 0))
                if decoded is None:
                    return None
                text_parts.append(decoded[0])
                positions = positions + decoded[1]
            elif token.type == getattr(tokenize, "FSTRING_START", -1):
                return _fallback_literal(node)
        if not text_parts:
            return _fallback_literal(node)
        return "".join(text_parts), positions

    def _segment(self, node: ast.expr) -> str | None:
        if node.end_lineno is None or node.end_col_offset is None:
            return None
        lines = self._text_lines[node.lineno - 1 : node.end_lineno]
        if not lines:
            return None
        # ast offsets are UTF-8 byte offsets
        first = lines[0].encode("utf-8")
        last = lines[-1].encode("utf-8")
        if len(lines) == 1:
            return first[node.col_offset : node.end_col_offset].decode("utf-8", errors="replace")
        head = first[node.col_offset :].decode("utf-8", errors="replace")
        tail = last[: node.end_col_offset].decode("utf-8", errors="replace")
        return head + "".join(lines[1:-1]) + tail


def _single_token(segment: str, node: ast.expr) -> _Mapped | None:
    """The literal decoded without the tokenizer (pure Python, the larger part of reading a .py), when the
    segment is one string token: it holds its closing quotes nowhere but at its end, and decodes to the
    value Python gave the literal."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return None
    match = _PREFIX.match(segment)
    if match is None or "f" in match.group(1).lower():
        return None
    quote = match.group(2)
    body = segment[match.end():]
    if body.find(quote) != len(body) - len(quote):
        return None
    decoded = _decode_string_token(segment, node.lineno, node.col_offset)
    return decoded if decoded is not None and decoded[0] == node.value else None


def _literal_value(node: ast.expr) -> _Mapped:
    """A literal's value without positions (`StringResolver.value`)."""
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values), _NO_POSITIONS
    return node.value, _NO_POSITIONS


def _fallback_literal(node: ast.expr) -> _Mapped | None:
    """For literals we cannot re-tokenize (f-strings on 3.12+): the value, each line anchored at its start."""
    if isinstance(node, ast.JoinedStr):
        value = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        value = node.value
    else:
        return None
    return value, CharPositions.of_text(value, node.lineno, node.col_offset)


_NO_POSITIONS = CharPositions([], [], 0)


_PREFIX = re.compile(r"^([rRbBuUfF]*)('''|\"\"\"|'|\")")
_ESCAPE = re.compile(r"x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|N\{[^}]*\}")
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b",
                   "f": "\f", "v": "\v", "0": "\0"}


def _decode_string_token(token: str, line: int, column0: int) -> _Mapped | None:
    """Decode one string token starting at file (line, 0-based column)."""
    match = _PREFIX.match(token)
    if match is None:
        return None
    prefix, quote = match.group(1).lower(), match.group(2)
    if "b" in prefix:
        return None
    raw, fstring = "r" in prefix, "f" in prefix
    body_start = len(prefix) + len(quote)
    body = token[body_start : len(token) - len(quote)]
    positions = CharPositions.of_text(body, line, column0 + body_start)
    if (raw or "\\" not in body) and not (fstring and ("{{" in body or "}}" in body)):
        return body, positions  # nothing to decode: every character stands for itself
    source_positions = list(positions)
    out: list[str] = []
    out_positions: list[tuple[int, int]] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if fstring and ch in "{}" and body[i : i + 2] in ("{{", "}}"):
            out.append(ch)
            out_positions.append(source_positions[i])
            i += 2
            continue
        if ch == "\\" and not raw and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt == "\n":  # line continuation: no character
                i += 2
                continue
            if nxt in _SIMPLE_ESCAPES and not (nxt == "0" and body[i + 2 : i + 3].isdigit()):
                out.append(_SIMPLE_ESCAPES[nxt])
                out_positions.append(source_positions[i])
                i += 2
                continue
            escaped = _ESCAPE.match(body, i + 1)
            if escaped:
                out.append(_decode_escape(escaped.group(0)))
                out_positions.append(source_positions[i])
                i += 1 + len(escaped.group(0))
                continue
        out.append(ch)
        out_positions.append(source_positions[i])
        i += 1
    return "".join(out), CharPositions.of_list(out_positions)


def _decode_escape(escape: str) -> str:
    try:
        return ast.literal_eval('"\\' + escape + '"')
    except (SyntaxError, ValueError):
        return "?"
