"""What the front end refuses before libclang sees a unit: include targets that are not regular files (or
are the kernel's pseudo-files, or too large for a header), and code nested too deeply or expressions too
long for libclang to parse safely.

libclang reads an included device until it runs out of memory (`/dev/zero`) and blocks on a FIFO or on
`/dev/stdin`; its recursive-descent parser overflows any stack on a few hundred thousand nested unary
operators or statements; and some long expressions take it quadratic time. A scan of the unit's tokens
finds these first, the way the preprocessor would: the includes of the unit and of the files they name
on the search path (spelled with `%:`, across continued lines, or through an object-like macro), and an
upper bound of the nesting the parser recurses through (macros counted as they expand).
"""

from __future__ import annotations

import bisect
import os
import re
import stat
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

# Past these the unit is not parsed. Real kernels stay far below: their statements nest a few dozen levels
# and hold a few hundred operators. (The lowering stops at a lower depth anyway; these protect libclang:
# its parser needs about 10 KB of stack a level, and a 20,000-operator product takes it seconds.)
MAX_NESTING = 5000
# on a thread of an ordinary stack (8 MB: the main thread, where no thread with a larger one could be made), for
# which 2,400 nested casts are too deep already
MAX_NESTING_ON_A_SMALL_STACK = 500
MAX_EXPRESSION = 10000  # operators in one statement
MAX_EXPANSION = 1_000_000  # tokens that the macros used in a unit expand to

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\f\v]+|\\\n)
  | (?P<newline>\n)
  | (?P<comment>//(?:[^\n\\]|\\.|\\\n)*|/\*.*?(?:\*/|\Z))
  | (?P<string>(?:u8|[uUL])?(?:"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?))
  | (?P<name>[A-Za-z_]\w*)
  | (?P<number>\.?\d(?:[eEpP][+-]|[\w.'])*)
  | (?P<punct>%:%:|%:|<<=|>>=|\.\.\.|->\*|::|\+\+|--|->|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=|.)
""", re.VERBOSE | re.DOTALL)

# tokens the parser recurses through: prefix operators, statements that hold a statement, right-associative
# operators; a minus or a star is a prefix operator only where no operand precedes it
_NESTING_WORDS = frozenset({"if", "while", "for", "switch", "else", "do", "case", "default", "sizeof", "alignof",
                            "new", "delete", "throw", "co_await", "_Alignof", "__alignof__", "__extension__"})
_ALWAYS_PREFIX = frozenset({"!", "~", "?", ":", "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})
_PREFIX_IF_NO_OPERAND = frozenset({"-", "+", "*", "&", "++", "--", "("})
_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = frozenset(_OPENERS.values())
_INCLUDE_WORDS = frozenset({"include", "include_next", "import"})


_large_stack = threading.local()


def on_a_large_stack() -> None:
    """Declare that the calling thread has a stack for MAX_NESTING (about 50 MB); other threads get
    MAX_NESTING_ON_A_SMALL_STACK."""
    _large_stack.declared = True


def _max_nesting() -> int:
    return MAX_NESTING if getattr(_large_stack, "declared", False) else MAX_NESTING_ON_A_SMALL_STACK


class TooComplex(Exception):
    """The unit is not parsed: `line` of it is past a limit, for the reason `why`."""

    def __init__(self, line: int, why: str) -> None:
        super().__init__(f"line {line}: {why}")
        self.line, self.why = line, why


@dataclass(frozen=True)
class RefusedInclude:
    line: int  # of the unit: the include, or the include of the header that leads to it
    target: str  # the path the include resolves to
    what: str  # "a character device, not a regular file", ...
    through: str | None = None  # the header on disk that includes it, when not the unit itself

    @property
    def message(self) -> str:
        what = f"{self.target} is {self.what}: it was not read"
        return f"{self.through} includes {self.target}; {what}" if self.through else f"the include of {what}"


@dataclass
class Refusals:
    includes: list[RefusedInclude] = field(default_factory=list)
    # files on disk to parse with their refused includes blanked: (path, text)
    replacements: list[tuple[str, str]] = field(default_factory=list)
    text: str | None = None  # the unit's text with its refused includes blanked, when it has any


def scan(text: str, directory: str | None, search: Sequence[str]) -> Refusals:
    """What to refuse in the unit `text`, whose file lives in `directory` (its quoted includes look there
    first), its `#include`s found on the folders `search`. Raises TooComplex when the unit must not be
    parsed at all."""
    refusals = Refusals()
    lexed = _Lexed(text)
    too_complex = _complexity(lexed)
    if too_complex is not None:
        raise TooComplex(*too_complex)
    blanked = _refuse_includes(lexed, directory, search, refusals, None, 0, set())
    if blanked is not None:
        refusals.text = blanked
    return refusals


# a directive's logical line: `#` or `%:` first on a line, with its continuation lines
_DIRECTIVE = re.compile(r"^[ \t]*(?:#|%:)(?:[^\n\\]|\\.|\\\n)*", re.MULTILINE | re.DOTALL)


class _Lexed:
    """A text's directives as tokens (kind, text, offset), its object-like and function-like macros' bodies,
    and its tokens outside directives on demand."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0, *(match.end() for match in re.finditer("\n", text))]
        self.directives = [list(_tokens(text, match.start(), match.end()))[1:] for match in _DIRECTIVE.finditer(text)]
        self.macros: dict[str, list[tuple[str, str, int]]] = {}
        for directive in self.directives:
            if len(directive) >= 2 and directive[0][1] == "define" and directive[1][0] == "name":
                body = directive[2:]
                function_like = bool(body) and body[0][1] == "(" and body[0][2] == directive[1][2] + len(directive[1][1])
                if function_like:
                    body = body[next((i for i, t in enumerate(body) if t[1] == ")"), len(body) - 1) + 1:]
                self.macros[directive[1][1]] = body

    def tokens(self) -> Iterator[tuple[str, str, int]]:
        """The tokens outside directives."""
        position = 0
        for match in _DIRECTIVE.finditer(self.text):
            yield from _tokens(self.text, position, match.start())
            position = match.end()
        yield from _tokens(self.text, position, len(self.text))

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)


def _tokens(text: str, start: int, end: int) -> Iterator[tuple[str, str, int]]:
    for match in _TOKEN.finditer(text, start, end):
        kind = match.lastgroup
        if kind not in ("space", "newline", "comment"):
            yield kind, match.group(), match.start()


# ----------------------------------------------------------------------------------------------- nesting


def _complexity(lexed: _Lexed) -> tuple[int, str] | None:
    """(line, why) when parsing the unit would nest deeper than the thread's stack allows (`_max_nesting`), hold
    a statement of more than MAX_EXPRESSION operators, or expand macros to more than MAX_EXPANSION tokens; else
    None."""
    weights: dict[str, tuple[int, int, int]] = {}  # macro -> (nesting, operators, tokens) of its expansion
    max_nesting = _max_nesting()
    if _within_limits_at_most(lexed, weights, max_nesting):
        return None
    # per open bracket: its closer and the nesting tokens counted at its level since the level's last reset
    levels: list[list] = [["", 0]]
    nesting = 0  # the sum over levels, plus one a level
    operators = 0  # in the statement so far
    expansion = 0
    previous = ""
    tokens = lexed.tokens()
    following = next(tokens, None)
    while following is not None:
        kind, token, offset = following
        following = next(tokens, None)
        else_follows = following is not None and following[1] == "else"
        operand_before = previous in _CLOSERS or (previous[:1].isalnum() or previous[:1] in "_.'\"") \
            and previous not in _NESTING_WORDS
        before, previous = previous, token
        if kind == "name" and token in lexed.macros:
            macro_nesting, macro_operators, macro_tokens = _weight(token, lexed.macros, weights)
            levels[-1][1] += macro_nesting
            nesting += macro_nesting
            operators += macro_operators
            expansion += macro_tokens
            if expansion > MAX_EXPANSION:
                return lexed.line(offset), f"its macros expand to more than {MAX_EXPANSION:,} tokens"
        elif token in _OPENERS:
            # a parenthesis after an operand's end opens a call, except after a parenthesis: a cast's operand
            if token == "(" and (not operand_before or before == ")"):
                levels[-1][1] += 1
                nesting += 1
            levels.append([_OPENERS[token], 0])
            nesting += 1
            if token == "{":
                operators = 0
        elif token in _CLOSERS:
            if len(levels) > 1 and levels[-1][0] == token:
                nesting -= levels.pop()[1] + 1
            if token == "}":
                operators = 0
                if not else_follows:
                    nesting -= levels[-1][1]  # the statement holding the block ends with it
                    levels[-1][1] = 0
        elif token in (";", ","):
            if token == ";":
                operators = 0
            elif levels[-1][0] == "}":
                operators = 0  # an initializer list's or an enum's items
            if token == "," or not else_follows:
                nesting -= levels[-1][1]
                levels[-1][1] = 0
        elif kind == "punct" or token in _NESTING_WORDS:
            if kind == "punct":
                operators += 1
            if token in _NESTING_WORDS or token in _ALWAYS_PREFIX or (token in _PREFIX_IF_NO_OPERAND and not operand_before):
                levels[-1][1] += 1
                nesting += 1
        if nesting > max_nesting:
            return lexed.line(offset), f"the code nests more than {max_nesting:,} levels deep"
        if operators > MAX_EXPRESSION:
            return lexed.line(offset), f"a statement holds more than {MAX_EXPRESSION:,} operators"
    return None


def _within_limits_at_most(lexed: _Lexed, weights: dict, max_nesting: int) -> bool:
    """Whether counting characters (and each macro's weight for each occurrence of its name) shows the unit
    within the limits without reading its tokens: true of nearly every unit, at a fraction of the cost."""
    text = lexed.text
    nesting = sum(map(text.count, "-+*&(!~?:=")) + sum(map(text.count, _NESTING_WORDS))
    operators = sum(map(text.count, "-+*/%&|^!~=<>?:.,"))
    tokens = 0
    for name in lexed.macros:
        uses = text.count(name)
        weight = _weight(name, lexed.macros, weights)
        nesting, operators, tokens = nesting + uses * weight[0], operators + uses * weight[1], tokens + uses * weight[2]
    return nesting <= max_nesting and operators <= MAX_EXPRESSION and tokens <= MAX_EXPANSION


def _weight(name: str, macros: dict, weights: dict) -> tuple[int, int, int]:
    """(nesting tokens, operators, tokens) of the macro `name`'s expansion, the macros in it expanded (a macro
    met inside its own expansion is one token, as the preprocessor leaves it); capped past the limits, so that a
    macro bomb is weighed in linear time. Without recursion: a chain of thousands of macros is no error."""
    stack, expanding = [name], {name}
    while stack:
        current = stack[-1]
        inner = next((token for kind, token, _ in macros[current]
                      if kind == "name" and token in macros and token not in weights and token not in expanding), None)
        if inner is not None:
            stack.append(inner)
            expanding.add(inner)
            continue
        nesting = operators = tokens = 0
        for kind, token, _ in macros[current]:
            if kind == "name" and token in weights:
                nesting, operators, tokens = (nesting + weights[token][0], operators + weights[token][1],
                                              tokens + weights[token][2])
            else:
                tokens += 1
                operators += kind == "punct"
                nesting += token in _NESTING_WORDS or token in _ALWAYS_PREFIX or token in _PREFIX_IF_NO_OPERAND
        weights[current] = (min(nesting, MAX_NESTING + 1), min(operators, MAX_EXPRESSION + 1),
                            min(tokens, MAX_EXPANSION + 1))
        expanding.discard(stack.pop())
    return weights[name]


# ---------------------------------------------------------------------------------------------- includes


def _refuse_includes(lexed: _Lexed, folder: str | None, search: Sequence[str], refusals: Refusals,
                     header: str | None, unit_line: int, seen: set[str]) -> str | None:
    """Record the includes of `lexed` (the unit, or the `header` on disk it includes at `unit_line`) that name
    what is not a regular file, and the headers on disk to read with theirs blanked; the text with its own
    refused includes blanked, or None when it has none."""
    blank: list[tuple[int, int]] = []
    for directive in lexed.directives:
        if not directive or directive[0][1] not in _INCLUDE_WORDS:
            continue
        name, quoted = _included_name(directive[1:], lexed)
        if not name:
            continue
        line = unit_line or lexed.line(directive[0][2])
        for candidate in _candidates(name, quoted, folder, search):
            what = _not_regular(candidate)
            if what == "missing":
                continue
            if what is not None:
                refusals.includes.append(RefusedInclude(line, candidate, what, header))
                start = lexed.line_starts[lexed.line(directive[0][2]) - 1]
                end = directive[-1][2] + len(directive[-1][1])
                blank.append((start, end))
            elif candidate not in seen and len(seen) < 1000:
                seen.add(candidate)
                _refuse_in_header(candidate, search, refusals, line, seen)
            break  # the first file found is the one included
    if not blank:
        return None
    text = lexed.text
    for start, end in reversed(blank):
        # the directive's lines stay, emptied, so that line numbers do not move
        text = text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]
    return text


def _refuse_in_header(path: str, search: Sequence[str], refusals: Refusals, unit_line: int, seen: set[str]) -> None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(4 * 1024 * 1024)
    except OSError:
        return
    text = data.decode("utf-8", "replace")
    if "include" not in text and "import" not in text:
        return
    blanked = _refuse_includes(_Lexed(text), os.path.dirname(path), search, refusals, path, unit_line, seen)
    if blanked is not None:
        refusals.replacements.append((path, blanked))


def _included_name(tokens: list[tuple[str, str, int]], lexed: _Lexed) -> tuple[str | None, bool]:
    """The file an include directive names, and whether it is quoted (searched from the including file's
    folder first); an object-like macro that stands for the name is followed."""
    for _ in range(10):
        if not tokens:
            return None, False
        kind, token, offset = tokens[0]
        if kind == "string" and token.startswith('"'):
            return token[1:-1], True
        if token == "<":
            closing = next((t for t in tokens[1:] if t[1] == ">" or t[1] == ">="), None)
            if closing is None:
                return None, False
            return lexed.text[offset + 1:closing[2]].strip(), False
        if kind != "name" or token not in lexed.macros:
            return None, False
        tokens = lexed.macros[token]
    return None, False


def _candidates(name: str, quoted: bool, folder: str | None, search: Sequence[str]) -> list[str]:
    if os.path.isabs(name):
        return [name]
    folders = ([folder] if quoted and folder else []) + list(search)
    return [os.path.normpath(os.path.join(base, name)) for base in folders]


_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"))


MAX_HEADER_BYTES = 16 * 1024 * 1024
# the kernel's pseudo-files pass for regular ones, with contents made as they are read (`/proc/self/environ`
# would put the environment into clang's messages)
_PSEUDO_FILE_SYSTEMS = ("/proc/", "/sys/", "/dev/")


def _not_regular(path: str) -> str | None:
    """None for a regular file; "missing" when nothing there is read (no file, a folder: the search goes
    on); else what the path is."""
    try:
        status = os.stat(path)  # through symbolic links, as the include would be read
    except (OSError, ValueError):
        return "missing"
    mode = status.st_mode
    if stat.S_ISDIR(mode):
        return "missing"
    if not stat.S_ISREG(mode):
        kind = next((what for test, what in _KINDS if test(mode)), "something")
        return f"{kind}, not a regular file"
    if os.path.realpath(path).startswith(_PSEUDO_FILE_SYSTEMS):
        return "a file the kernel makes as it is read"
    if status.st_size > MAX_HEADER_BYTES:
        return f"a file of {status.st_size // (1024 * 1024)} MiB, too large for a header"
    return None
