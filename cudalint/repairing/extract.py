"""Take the code out of a model's answer and turn it into a complete new version of the input file.

Rules, in order:

1. An answer whose `finish_reason` is "length" was cut off by the token limit: rejected ("truncated").
2. Fenced blocks (``` or ~~~, any info string) are collected; a fence that never closes means the answer
   was cut off: rejected ("truncated").
3. With no fenced block, the whole answer is taken as code only when it looks like code from its first
   line (a CUDA file starting with `#include`, `#define`, `#pragma`, a comment, `template`, `__global__`,
   ...; a Python file that parses and holds an `import`, `def` or `class`); anything else is prose:
   "no code in answer".
4. Blocks are sorted by language: ```python/```py are Python; ```cuda, ```cu, ```cpp, ```c++, ```c, ```h
   are CUDA; an untagged block is Python when it parses as Python and holds an import, def or class,
   otherwise CUDA; other languages (diff, bash, text) are ignored.
5. For a `.cu`/`.cuh` input: the longest CUDA block is the answer. It is a whole-file answer when it
   defines every top-level function of the input (or the input defines none); it is a kernel-only answer
   when each function it defines replaces the input's function of the same name: those are replaced in
   place, its new functions go before the first replaced one, its `#define`s replace the input's of the
   same name and its new `#include`s go after the input's last include.
6. For a `.py` input: the longest Python block is a whole-file answer, provided it keeps the input's
   `load_inline` / `RawKernel` / `RawModule` call when the input has one. Without a Python block, the
   longest CUDA block is a kernel-only answer, merged as in 5 into the CUDA source string it shares
   function names with, and that string literal is rewritten in place.

The result is an `Extraction`; only `status == "ok"` carries the new file text.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

from cudalint.pyast import PARSE_FAILURES
from cudalint.rule_docs import code_blocks as markdown_code_blocks

OK, NO_CODE, TRUNCATED, UNUSABLE = "ok", "no_code", "truncated", "unusable"

CUDA_LANGUAGES = frozenset({"cuda", "cu", "cuh", "cpp", "c++", "cxx", "cc", "c", "h", "hpp", "cuda-c", "cuda-cpp"})
PYTHON_LANGUAGES = frozenset({"python", "py", "python3", "py3"})

_CODE_START = re.compile(r"^\s*(#\s*(include|define|pragma|if|ifdef|ifndef)\b|//|/\*|template\s*<|"
                         r"__global__|__device__|extern\s|static\s|namespace\s|using\s|struct\s|typedef\s)")


@dataclass(frozen=True)
class Extraction:
    status: str  # "ok", "no_code", "truncated" or "unusable"
    text: str | None = None  # the complete new file, when ok
    form: str | None = None  # how the answer was used, when ok: "whole file", "function k only, merged into ..."
    reason: str = ""  # why the answer was not used, a clause about the answer ("it contains no code block")

    @property
    def ok(self) -> bool:
        return self.status == OK


@dataclass(frozen=True)
class Block:
    language: str  # lower-cased info string; "" when untagged
    code: str


def code_blocks(answer: str) -> tuple[list[Block], bool]:
    """The closed fenced blocks of `answer`, and whether the last fence is left open."""
    fenced = markdown_code_blocks(answer)
    blocks = [Block(b.language.lower().split("{")[0], "" if b.code == "\n" else b.code) for b in fenced if b.closed]
    return blocks, bool(fenced) and not fenced[-1].closed


def _looks_like_python(code: str) -> bool:
    try:
        module = ast.parse(code)
    except PARSE_FAILURES:
        return False
    return any(isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)) for n in module.body)


def _classify(block: Block) -> str | None:
    if block.language in PYTHON_LANGUAGES:
        return "python"
    if block.language in CUDA_LANGUAGES:
        return "cuda"
    if block.language == "":
        return "python" if _looks_like_python(block.code) else "cuda"
    return None


def extract_code(answer: str, finish_reason: str | None, original: str, path: str) -> Extraction:
    """Turn the model's answer into a new version of the file at `path` (whose text is `original`)."""
    if finish_reason == "length":
        return Extraction(TRUNCATED, reason='it reached the token limit (finish_reason "length")')
    blocks, unclosed = code_blocks(answer)
    if unclosed:
        return Extraction(TRUNCATED, reason="it ends inside a code block that is never closed")
    if not blocks:
        stripped = answer.strip("\n")
        if stripped.strip() and (_looks_like_python(stripped) or _CODE_START.match(stripped)):
            blocks = [Block("", stripped + "\n")]
        else:
            return Extraction(NO_CODE, reason="it contains no code block")
    by_kind: dict[str, list[Block]] = {"python": [], "cuda": []}
    for block in blocks:
        kind = _classify(block)
        if kind is not None and block.code.strip():
            by_kind[kind].append(block)
    python_input = path.endswith(".py")
    if python_input:
        return _python_answer(by_kind, original)
    if not by_kind["cuda"]:
        found = sorted({b.language or "untagged" for b in blocks})
        return Extraction(NO_CODE, reason=f"it contains no CUDA code block (only {', '.join(found)})")
    code = max(by_kind["cuda"], key=lambda b: len(b.code)).code
    return _merge_result(original, code, "the file")


def _python_answer(by_kind: dict[str, list[Block]], original: str) -> Extraction:
    if by_kind["python"]:
        code = max(by_kind["python"], key=lambda b: len(b.code)).code
        for call in ("load_inline", "RawKernel", "RawModule"):
            if re.search(rf"\b{call}\s*\(", original) and not re.search(rf"\b{call}\s*\(", code):
                return Extraction(UNUSABLE, reason=f"the Python code block is not the complete file: "
                                                   f"it has no {call}(...) call")
        return Extraction(OK, code, "whole file")
    if not by_kind["cuda"]:
        return Extraction(NO_CODE, reason="it contains no Python or CUDA code block")
    code = max(by_kind["cuda"], key=lambda b: len(b.code)).code
    literals = cuda_literals(original)
    if not literals:
        return Extraction(UNUSABLE, reason="it holds only CUDA code, and the file has no CUDA source string "
                                           "literal to put it in")
    answer_names = {name for name, _ in function_keys(code)}
    best = max(literals, key=lambda lit: len(answer_names & {n for n, _ in function_keys(lit.value)}))
    if not answer_names & {n for n, _ in function_keys(best.value)} and len(literals) > 1:
        return Extraction(UNUSABLE, reason="the CUDA code block defines none of the functions of the file's "
                                           "CUDA sources, so it is not clear where it belongs")
    merged = merge_cuda(best.value, code)
    if not merged.ok:
        return merged
    replacement = python_string_literal(merged.text, best.token)
    text = original[:best.start] + replacement + original[best.end:]
    if merged.form == "whole file":
        return Extraction(OK, text, f"CUDA code only, put into the {best.argument} string")
    return Extraction(OK, text, f"{merged.form}, merged into the {best.argument} string")


def _merge_result(original: str, code: str, where: str) -> Extraction:
    merged = merge_cuda(original, code)
    if merged.ok and merged.form != "whole file":
        return Extraction(OK, merged.text, f"{merged.form}, merged into {where}")
    return merged


# ------------------------------------------------------------------------------- top-level C++ items


@dataclass(frozen=True)
class Item:
    kind: str  # "function", "pp" (preprocessor line), "decl" (ends with ;), "block" (struct, namespace...)
    name: str | None  # function name; macro name for #define; header for #include
    start: int
    end: int

    def text(self, source: str) -> str:
        return source[self.start:self.end]


_IDENT_CALL = re.compile(r"(~?[A-Za-z_]\w*(?:\s*::\s*~?[A-Za-z_]\w*)*)\s*\(")
_NOT_NAMES = {"__launch_bounds__", "__attribute__", "__declspec", "alignas", "decltype", "__align__",
              "__cluster_dims__", "sizeof", "noexcept", "throw", "requires"}


def _strip_template(head: str) -> str:
    """`head` without its leading `template <...>` clauses."""
    rest = head.lstrip()
    while rest.startswith("template"):
        open_at = rest.find("<")
        if open_at < 0:
            return rest
        depth, j = 0, open_at
        while j < len(rest):
            if rest[j] == "<":
                depth += 1
            elif rest[j] == ">":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        rest = rest[j + 1:].lstrip()
    return rest


def _head_kind(head: str) -> str:
    """What a top-level `{` opens, from the text before it: "function", "block" (struct, class, enum,
    union, an initializer: ends at a `;`) or "scope" (namespace, extern "C": ends at its `}`)."""
    rest = _strip_template(head)
    if re.match(r'(namespace\b|extern\s+"C(\+\+)?"\s*$|$)', rest):
        return "scope"
    if re.match(r"(typedef\s+)?(struct|class|union|enum)\b", rest) or re.search(r"=\s*$", rest) or ")" not in rest:
        return "block"
    return "function"


def _skip_literal(text: str, i: int) -> int:
    """From a quote at `i`, the index after the closing quote."""
    quote = text[i]
    i += 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote or text[i] == "\n":
            return i + 1
        i += 1
    return i


def _skip_comment(text: str, i: int) -> int:
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    end = text.find("*/", i + 2)
    return len(text) if end < 0 else end + 2


def _matching_brace(text: str, i: int) -> int:
    """From a `{` at `i`, the index after its matching `}` (or the end of the text)."""
    depth = 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            i = _skip_literal(text, i)
            continue
        if text.startswith("//", i) or text.startswith("/*", i):
            i = _skip_comment(text, i)
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


def _function_name(head: str) -> str | None:
    depth = 0
    cleaned = []
    for ch in head:  # keep only the text outside parentheses, with each "name(" marked
        if ch == "(":
            if depth == 0:
                cleaned.append("(")
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            cleaned.append(ch)
    for match in _IDENT_CALL.finditer("".join(cleaned)):
        name = re.sub(r"\s+", "", match.group(1))
        if name.split("::")[-1] not in _NOT_NAMES:
            return name
    return None


def top_level_items(text: str) -> list[Item]:
    """Split C++/CUDA source into top-level items; comments and blank space between items are not items."""
    items: list[Item] = []
    i, n = 0, len(text)
    start: int | None = None
    at_line_start = True
    while i < n:
        ch = text[i]
        if start is None:
            if ch in " \t\r":
                i += 1
                continue
            if ch == "\n":
                at_line_start = True
                i += 1
                continue
            if text.startswith("//", i) or text.startswith("/*", i):
                i = _skip_comment(text, i)
                continue
            if ch == "#" and at_line_start:
                end = i
                while True:
                    newline = text.find("\n", end)
                    if newline < 0:
                        end = n
                        break
                    if text[newline - 1] == "\\":
                        end = newline + 1
                        continue
                    end = newline
                    break
                line = text[i:end]
                macro = re.match(r"#\s*define\s+(\w+)", line)
                include = re.match(r"#\s*include\s*[<\"]([^>\"]+)", line)
                name = ("define " + macro.group(1)) if macro else ("include " + include.group(1)) if include else None
                items.append(Item("pp", name, i, end))
                i = end
                continue
            start = i
        at_line_start = False
        if ch in "\"'":
            i = _skip_literal(text, i)
            continue
        if text.startswith("//", i) or text.startswith("/*", i):
            i = _skip_comment(text, i)
            continue
        if ch == ";":
            items.append(Item("decl", None, start, i + 1))
            start, i = None, i + 1
            continue
        if ch == "{":
            head = text[start:i]
            close = _matching_brace(text, i)
            kind = _head_kind(head)
            if kind == "function":
                items.append(Item("function", _function_name(head), start, close))
                if text[close:close + 1] == ";":
                    close += 1
            else:
                end = close
                tail = re.match(r"[^;{}#]*;", text[close:]) if kind == "block" else None
                if tail:
                    end = close + tail.end()
                items.append(Item("block", None, start, end))
                close = end
            start, i = None, close
            continue
        i += 1
    if start is not None and text[start:].strip():
        items.append(Item("decl", None, start, n))
    return items


def function_keys(text: str) -> list[tuple[str, int]]:
    """(name, occurrence) of each top-level function definition, overloads numbered in order."""
    seen: dict[str, int] = {}
    keys = []
    for item in top_level_items(text):
        if item.kind == "function" and item.name:
            seen[item.name] = seen.get(item.name, 0) + 1
            keys.append((item.name, seen[item.name]))
    return keys


def _keyed_functions(text: str) -> dict[tuple[str, int], Item]:
    seen: dict[str, int] = {}
    found = {}
    for item in top_level_items(text):
        if item.kind == "function" and item.name:
            seen[item.name] = seen.get(item.name, 0) + 1
            found[(item.name, seen[item.name])] = item
    return found


def merge_cuda(original: str, answer: str) -> Extraction:
    """Merge a CUDA answer into the original CUDA text (see the module docstring, rule 5)."""
    old_functions = _keyed_functions(original)
    new_items = top_level_items(answer)
    new_functions = _keyed_functions(answer)
    if not new_functions:
        if old_functions:
            return Extraction(UNUSABLE, reason="the code block defines no function, so it is neither the "
                                               "complete file nor a replacement for one of its functions")
        return Extraction(OK, answer, "whole file")
    if set(old_functions) <= set(new_functions):
        return Extraction(OK, answer, "whole file")
    replaced = [key for key in new_functions if key in old_functions]
    if not replaced:
        names = ", ".join(sorted({name for name, _ in old_functions}))
        return Extraction(UNUSABLE, reason=f"the code block leaves out functions of the file ({names}) and "
                                           f"replaces none of them, so it is not clear where it belongs")
    edits: list[tuple[int, int, str]] = []  # (start, end, text) in the original
    for key in replaced:
        item = old_functions[key]
        edits.append((item.start, item.end, new_functions[key].text(answer)))
    first = min(old_functions[key].start for key in replaced)
    old_items = top_level_items(original)
    old_defines = {it.name: it for it in old_items if it.kind == "pp" and it.name and it.name.startswith("define ")}
    old_texts = {" ".join(it.text(original).split()) for it in old_items}
    includes = [it for it in old_items if it.kind == "pp" and it.name and it.name.startswith("include ")]
    new_includes, inserted = [], []
    for item in new_items:
        item_text = item.text(answer)
        if item.kind == "function" and item.name and any(key == item.name for key, _ in replaced):
            continue
        if item.kind == "pp" and item.name and item.name.startswith("define ") and item.name in old_defines:
            old = old_defines[item.name]
            if " ".join(old.text(original).split()) != " ".join(item_text.split()):
                edits.append((old.start, old.end, item_text))
            continue
        if " ".join(item_text.split()) in old_texts:
            continue
        if item.kind == "pp" and item.name and item.name.startswith("include "):
            new_includes.append(item_text)
        else:
            inserted.append(item_text)
    if inserted:
        edits.append((first, first, "\n\n".join(inserted) + "\n\n"))
    if new_includes:
        at = includes[-1].end if includes else 0
        text = "\n".join(new_includes)
        edits.append((at, at, ("\n" + text) if includes else (text + "\n")))
    merged = original
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        merged = merged[:start] + text + merged[end:]
    names = list(dict.fromkeys(name for name, _ in replaced))
    return Extraction(OK, merged, f"function{'s' if len(names) > 1 else ''} {', '.join(names)} only")


# ------------------------------------------------------------------------------ CUDA strings in Python


@dataclass(frozen=True)
class CudaLiteral:
    argument: str  # "cuda_sources", "code"
    value: str  # the string's value: the CUDA source
    token: str  # the literal as written in the file
    start: int  # character offsets of the literal in the file
    end: int


def _offsets(text: str) -> list[int]:
    starts = [0]
    for index, ch in enumerate(text):
        if ch == "\n":
            starts.append(index + 1)
    return starts


def _char_offset(text: str, starts: list[int], line: int, byte_col: int) -> int:
    begin = starts[line - 1]
    end = starts[line] if line < len(starts) else len(text)
    return begin + len(text[begin:end].encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def cuda_literals(text: str) -> list[CudaLiteral]:
    """The single string literals holding the CUDA source of `load_inline(cuda_sources=...)` or
    `RawKernel`/`RawModule(code=...)` calls, directly or through a variable assigned once before."""
    try:
        module = ast.parse(text)
    except PARSE_FAILURES:
        return []
    assignments: dict[str, list[ast.expr]] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assignments.setdefault(target.id, []).append(node.value)
    starts = _offsets(text)
    found: list[CudaLiteral] = []
    for call in ast.walk(module):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name == "load_inline":
            argument, position = "cuda_sources", 2
        elif name in ("RawKernel", "RawModule"):
            argument, position = "code", 0
        else:
            continue
        node = next((k.value for k in call.keywords if k.arg == argument), None)
        if node is None and len(call.args) > position:
            node = call.args[position]
        if isinstance(node, ast.Name):
            before = [v for v in assignments.get(node.id, []) if v.lineno <= call.lineno]
            node = before[-1] if before else None
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or node.end_lineno is None:
            continue
        start = _char_offset(text, starts, node.lineno, node.col_offset)
        end = _char_offset(text, starts, node.end_lineno, node.end_col_offset)
        token = text[start:end]
        if _single_string_token(token) and all(lit.start != start for lit in found):
            found.append(CudaLiteral(argument, node.value, token, start, end))
    return found


def _single_string_token(token: str) -> bool:
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(token).readline)
                  if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)]
    except (tokenize.TokenError, SyntaxError):
        return False
    return len(tokens) == 1 and tokens[0].type == tokenize.STRING


def python_string_literal(value: str, like: str) -> str:
    """A Python literal for `value`, in the style (prefix, quotes) of the literal `like` where it can."""
    match = re.match(r"^([rRuU]?)('''|\"\"\"|'|\")", like)
    prefix, quote = (match.group(1), match.group(2)) if match else ("", '"""')
    if len(quote) == 1 and "\n" in value:
        quote = quote * 3
    q = quote[0]
    raw = prefix.lower() == "r"
    if raw:
        literal = prefix + quote + value + quote
        try:
            if ast.literal_eval(literal) == value:
                return literal
        except (SyntaxError, ValueError):
            pass
    body = value.replace("\\", "\\\\").replace("\r", "\\r")
    if len(quote) == 1:
        body = body.replace(q, "\\" + q)
    elif quote in body or body.endswith(q):
        body = body.replace(q, "\\" + q)
    literal = ("" if raw else prefix) + quote + body + quote
    try:
        if ast.literal_eval(literal) == value:
            return literal
    except (SyntaxError, ValueError):
        pass
    return repr(value)


__all__ = ["Block", "CudaLiteral", "Extraction", "Item", "NO_CODE", "OK", "TRUNCATED", "UNUSABLE", "code_blocks",
           "cuda_literals", "extract_code", "function_keys", "merge_cuda", "python_string_literal",
           "top_level_items"]
