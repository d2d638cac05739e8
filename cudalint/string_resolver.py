"""The CUDA source a Python expression stands for, followed through the operations that make one string of
others without running the file (`StringResolver`): literals, with every character mapped to its place in
the file, variables, concatenation, joins, formatting and the text functions that only trim lines. What it
cannot follow raises `Unresolved`, and the document reports it as not analysed.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Callable, Iterable, Iterator
from functools import cached_property

from cudalint import pyast
from cudalint.positions import CharPositions, NotAnalysed, split_lines


_Mapped = tuple[str, CharPositions]  # text, and the file (line, column) of each character

MAX_SOURCE_CHARS = 4 * 1024 * 1024  # a longer source is no kernel, and building one could take any memory
_MAX_STEPS = 100  # operations followed into one another for one value (a name's value, an operand, ...)
# statements whose body may run or not (or more than once): an assignment in one is not the only one reaching
_BRANCHES = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.Match,
             *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


def _keyword(statement: ast.stmt) -> str:
    return {ast.If: "if", ast.For: "for", ast.AsyncFor: "async for", ast.While: "while", ast.With: "with",
            ast.AsyncWith: "async with", ast.Match: "match"}.get(type(statement), "try")
_MAX_NUMBER = 2 ** 64
# functions of a string that only remove characters at the starts and ends of lines
_TEXT_FUNCTIONS: dict[str, Callable[[str], str]] = {"textwrap.dedent": textwrap.dedent,
                                                    "inspect.cleandoc": inspect.cleandoc}
_ARITHMETIC: dict[type, Callable] = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                                     ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b,
                                     ast.Mod: lambda a, b: a % b}
_LIST_CHANGES = {"append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort"}


class Unresolved(Exception):
    """The text of an expression is not known without running the file: why, and the node where it stops."""

    def __init__(self, reason: str, node: ast.AST) -> None:
        super().__init__(reason)
        self.reason, self.node = reason, node


class StringResolver:
    """The string an expression stands for, followed through what makes one string of others without
    running anything: literals (implicitly concatenated ones and f-strings included), variables (the last
    assignment before the use, `+=` included), `+`, lists and tuples of strings (load_inline joins a list of
    sources with newlines), `sep.join(list)`, `.strip()`/`.lstrip()`/`.rstrip()`, `.replace(old, new)`,
    `textwrap.dedent` and `inspect.cleandoc`, and f-strings, `%` and `.format()` of known strings and
    numbers. `source` gives each character's file position too: a literal's character the place it is
    written at, a character a format writes (a number, a padded string) the place of its replacement field.
    What it cannot follow raises `Unresolved`."""

    def __init__(self, module: ast.Module, text: str) -> None:
        self._source_text = text
        # name -> (where the statement starts, where it ends, the value, the statement), in the order of the file
        self._assignments: dict[str, list[tuple[tuple[int, int], tuple[int, int], ast.AST, ast.stmt]]] = {}
        self._module = module
        self._imports: dict[str, str] = {}  # local name -> the module or function it imports
        self._bound: set[str] = set()  # names bound otherwise: they shadow an import
        self._parameters: set[str] = set()
        self._list_changes: dict[str, tuple[ast.AST, str]] = {}  # a variable -> what first changes it in place
        self._memo: dict[int, object] = {}  # id(node) -> its value, once known
        self._in_loops: set[int] = set()  # `s += t` in a loop runs as often as the loop: it is not followed
        if pyast.of_type(module, ast.AugAssign):
            self._in_loops = {id(n) for loop in pyast.of_type(module, ast.For, ast.AsyncFor, ast.While)
                              for n in pyast.of_type(loop, ast.AugAssign)}
        for node in pyast.of_type(module, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Import, ast.ImportFrom,
                                  ast.Call, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.arg):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._assign(target, node.value, node)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self._assign(node.target, node.value, node)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                # `s += t` is `s = s + t`: the `s` read is the value before the statement
                value = node
                if isinstance(node.op, ast.Add) and id(node) not in self._in_loops:
                    value = ast.copy_location(ast.BinOp(ast.copy_location(ast.Name(node.target.id, ast.Load()), node),
                                                         ast.Add(), node.value), node)
                self._assign(node.target, value, node)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.partition(".")[0]
                    self._imports[local] = alias.name if alias.asname else local
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    self._imports[alias.asname or alias.name] = f"{node.module or ''}.{alias.name}"
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                        and func.attr in _LIST_CHANGES:
                    self._list_changes.setdefault(func.value.id, (node, f"`.{func.attr}()`"))
            elif isinstance(node, ast.arg):
                self._parameters.add(node.arg)
                self._bound.add(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._bound.add(node.name)
        for values in self._assignments.values():
            values.sort(key=lambda assignment: assignment[0])

    def _assign(self, target: ast.expr, value: ast.AST, statement: ast.stmt) -> None:
        where = ((statement.lineno, statement.col_offset), (statement.end_lineno, statement.end_col_offset))
        if isinstance(target, ast.Name):
            self._bound.add(target.id)
            self._assignments.setdefault(target.id, []).append((*where, value, statement))
        elif isinstance(target, (ast.Tuple, ast.List)):
            # `a, b = "x", "y"`: each name its element; otherwise each name a value nothing follows
            pairs = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) \
                and not any(isinstance(e, ast.Starred) for e in (*value.elts, *target.elts))
            for index, element in enumerate(target.elts):
                self._assign(element, value.elts[index] if pairs else statement, statement)
        elif isinstance(target, ast.Starred):
            self._assign(target.value, statement, statement)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            self._list_changes.setdefault(target.value.id, (statement, "an item assignment"))

    @cached_property
    def _text_lines(self) -> list[str]:
        return split_lines(self._source_text, keepends=True)

    # ------------------------------------------------------------------------------------------- queries

    def source(self, node: ast.expr) -> _Mapped | None:
        """The text compiled from the source argument `node` (a list's strings joined with newlines, as
        load_inline joins them), with each character's file position; None for `None` (no source). Raises
        Unresolved."""
        if _is_none(self._followed(node)):
            return None
        if not self._is_list(node):
            return self._text(node, 0)
        parts: list[_Mapped] = []
        for text, positions in self._strings(node, 0):
            if parts:  # the newline stands where the previous source ends
                glue = parts[-1][1][-1] if parts[-1][1] else (node.lineno, node.col_offset + 1)
                parts.append(("\n", CharPositions([0], [glue], 1)))
            parts.append((text, positions))
        return _concatenation(parts, node)

    def value(self, node: ast.expr) -> str | None:
        """The text of `source`, or None where it is unknown or there is none."""
        try:
            found = self.source(node)
        except Unresolved:
            return None
        return None if found is None else found[0]

    def assigned_value(self, name: ast.Name) -> ast.AST | None:
        """The value last assigned to `name` by a statement that ends before the use (load_inline calls sit
        after their sources), else its last assignment; never by the statement the use is in (`s = s + t`).
        An assignment nothing follows (`s *= 2`, a starred target) gives the statement itself."""
        use = (name.lineno, name.col_offset)
        values = [(end, value) for start, end, value, _ in self._assignments.get(name.id, ()) if not start <= use < end]
        before = [value for end, value in values if end <= use] or [value for _, value in values]
        return before[-1] if before else None

    def _branch_assigned(self, name: ast.Name) -> ast.stmt | None:
        """The compound statement (`if`, a loop, `try`, `with`, `match`) that holds the assignment of `name`
        reaching its use but not the use, where the name has other assignments too: which value reaches
        the use is then decided when the file runs (`src = CLEAN` then `if flag: src = OTHER`)."""
        assignments = self._assignments.get(name.id, ())
        use = (name.lineno, name.col_offset)
        reaching = [statement for start, end, _, statement in assignments if end <= use]
        if len(assignments) < 2 or not reaching or id(reaching[-1]) in self._in_loops:
            return None  # (`s += t` in a loop has its own reason)
        enclosing_use = set(map(id, self._branches_around(name)))
        return next((b for b in self._branches_around(reaching[-1]) if id(b) not in enclosing_use), None)

    def _branches_around(self, node: ast.AST) -> list[ast.stmt]:
        branches = []
        node = self._parents.get(id(node))
        while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            if isinstance(node, _BRANCHES):
                branches.append(node)
            node = self._parents.get(id(node))
        return branches

    @cached_property
    def _parents(self) -> dict[int, ast.AST]:
        return {id(child): parent for parent in pyast.walk(self._module) for child in ast.iter_child_nodes(parent)}

    def qualified(self, node: ast.expr) -> str | None:
        """The dotted name of the imported module or function `node` names (`tw.dedent` after `import
        textwrap as tw`: "textwrap.dedent"); None for anything else."""
        attributes = []
        while isinstance(node, ast.Attribute):
            attributes.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self._bound or node.id not in self._imports:
            return None
        return ".".join([self._imports[node.id], *reversed(attributes)])

    def not_analysed(self, node: ast.AST, message: str) -> NotAnalysed:
        line, column = self._place(node.lineno, node.col_offset)
        end_line, end_column = self._place(node.end_lineno or node.lineno, node.end_col_offset or node.col_offset)
        return NotAnalysed(line, column, end_line, end_column, message)

    # ------------------------------------------------------------------------------------------ values

    def _text(self, node: ast.AST, steps: int) -> _Mapped:
        value = self._value(node, steps)
        if not isinstance(value, tuple):
            raise Unresolved(f"`{self._short(node)}` is a number, not a string", node)
        return value

    def _value(self, node: ast.AST, steps: int) -> _Mapped | int | float:
        found = self._memo.get(id(node))
        if found is None:
            if steps > _MAX_STEPS:
                raise Unresolved(f"it is built through more than {_MAX_STEPS} operations", node)
            found = self._memo[id(node)] = self._compute(node, steps + 1)
        return found

    def _compute(self, node: ast.AST, steps: int) -> _Mapped | int | float:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                return _concatenation(self._literal(node), node)
            if isinstance(node.value, (int, float)):
                return node.value
        elif isinstance(node, ast.JoinedStr):
            return self._fstring(node, steps)
        elif isinstance(node, ast.Name):
            self._refuse_branch_assigned(node)
            value = self.assigned_value(node)
            if value is not None:
                return self._value(value, steps)
            if node.id in self._parameters:
                raise Unresolved(f"`{node.id}` is a parameter, known only when its function is called", node)
            raise Unresolved(f"`{node.id}` is given no value cudalint can read in this file", node)
        elif isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Add):
                return self._sum(node, steps)
            left = self._value(node.left, steps)
            if isinstance(node.op, ast.Mod) and isinstance(left, tuple):
                return self._printf(left, node, steps)
            if type(node.op) in _ARITHMETIC:
                return self._number(_ARITHMETIC[type(node.op)], left, self._value(node.right, steps), node)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self._value(node.operand, steps)
            if not isinstance(operand, tuple):
                return -operand if isinstance(node.op, ast.USub) else operand
        elif isinstance(node, ast.Call):
            return self._call(node, steps)
        elif id(node) in self._in_loops:
            raise Unresolved(f"`{self._short(node)}` runs in a loop", node)
        raise Unresolved(f"`{self._short(node)}` is computed when the file runs", node)

    def _number(self, operation: Callable, left, right, node: ast.AST) -> int | float:
        if isinstance(left, tuple) or isinstance(right, tuple):
            raise Unresolved(f"`{self._short(node)}` mixes strings and numbers", node)
        try:
            result = operation(left, right)
        except (ArithmeticError, ValueError):
            raise Unresolved(f"`{self._short(node)}` has no value (division by zero)", node) from None
        if abs(result) > _MAX_NUMBER:
            raise Unresolved(f"`{self._short(node)}` is a number larger than cudalint follows", node)
        return result

    def _sum(self, node: ast.BinOp, steps: int) -> _Mapped | int | float:
        # a long `a + b + c + ...` nests to the left: read its operands in a loop, not a recursion
        operands, whole = [], node
        while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            operands.append(node.right)
            node = node.left
        operands.append(node)
        values = [self._value(operand, steps) for operand in reversed(operands)]
        if all(isinstance(value, tuple) for value in values):
            return _concatenation(values, whole)
        total = values[0]
        for value in values[1:]:
            total = self._number(lambda a, b: a + b, total, value, whole)
        return total

    def _refuse_branch_assigned(self, name: ast.Name) -> None:
        branch = self._branch_assigned(name)
        if branch is not None:
            raise Unresolved(f"`{name.id}` is assigned under the `{_keyword(branch)}` at line {branch.lineno} and "
                             f"elsewhere: which value reaches here is decided when the file runs", name)

    def _followed(self, node: ast.AST) -> ast.AST:
        """`node`, or the value a variable it names was last given (through variables)."""
        for _ in range(_MAX_STEPS):
            value = self.assigned_value(node) if isinstance(node, ast.Name) else None
            if value is None:
                break
            node = value
        return node

    def _is_list(self, node: ast.AST) -> bool:
        """Whether `node` is a list or tuple (through variables and `+`)."""
        for _ in range(_MAX_STEPS):
            node = self._followed(node)
            if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
                return isinstance(node, (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp))
            node = node.left
        return False

    def _strings(self, node: ast.AST, steps: int) -> list[_Mapped]:
        """The strings of a list or tuple of them (through variables and `+`)."""
        if steps > _MAX_STEPS:
            raise Unresolved(f"it is built through more than {_MAX_STEPS} operations", node)
        if isinstance(node, (ast.List, ast.Tuple)):
            starred = next((e for e in node.elts if isinstance(e, ast.Starred)), None)
            if starred is not None:
                raise Unresolved(f"`{self._short(starred)}` unpacks a value cudalint does not follow", starred)
            return [self._text(element, steps + 1) for element in node.elts]
        if isinstance(node, ast.Name):
            if node.id in self._list_changes:
                change, how = self._list_changes[node.id]
                raise Unresolved(f"the list `{node.id}` is changed by {how} (line {change.lineno})", change)
            self._refuse_branch_assigned(node)
            value = self.assigned_value(node)
            if value is None:
                raise Unresolved(f"`{node.id}` is given no value cudalint can read in this file", node)
            return self._strings(value, steps + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self._strings(node.left, steps + 1) + self._strings(node.right, steps + 1)
        raise Unresolved(f"`{self._short(node)}` is not a list of strings cudalint can read", node)

    # ----------------------------------------------------------------------------------------- calls

    def _call(self, node: ast.Call, steps: int) -> _Mapped:
        plain = not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)
        function = self.qualified(node.func)
        if function in _TEXT_FUNCTIONS and plain and len(node.args) == 1:
            source = self._text(node.args[0], steps)
            return _lines_shortened(source, _TEXT_FUNCTIONS[function](source[0]), node, self._short(node.func))
        method = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if method == "format" and not any(k.arg is None for k in node.keywords) \
                and not any(isinstance(a, ast.Starred) for a in node.args):
            return self._format(self._text(node.func.value, steps), node, steps)
        if method in ("strip", "lstrip", "rstrip") and plain and len(node.args) <= 1:
            text, positions = self._text(node.func.value, steps)
            chars = self._text(node.args[0], steps)[0] if node.args and not _is_none(node.args[0]) else None
            start = 0 if method == "rstrip" else len(text) - len(text.lstrip(chars))
            end = len(text) if method == "lstrip" else max(len(text.rstrip(chars)), start)
            return text[start:end], positions.slice(start, end)
        if method == "replace" and plain and len(node.args) in (2, 3):
            return self._replace(self._text(node.func.value, steps), node, steps)
        if method == "join" and plain and len(node.args) == 1:
            separator = self._text(node.func.value, steps)
            parts: list[_Mapped] = []
            for part in self._strings(node.args[0], steps):
                parts += [separator, part] if parts else [part]
            return _concatenation(parts, node)
        raise Unresolved(f"`{self._short(node.func)}(...)` is computed when the file runs", node)

    def _replace(self, text: _Mapped, node: ast.Call, steps: int) -> _Mapped:
        old, new = (self._text(argument, steps) for argument in node.args[:2])
        count = self._value(node.args[2], steps) if len(node.args) == 3 else -1
        if not old[0] or isinstance(count, tuple):
            raise Unresolved(f"`{self._short(node)}` is a replacement cudalint does not follow", node)
        parts, index = [], 0
        while count < 0 or len(parts) < 2 * count:
            found = text[0].find(old[0], index)
            if found < 0:
                break
            parts += [(text[0][index:found], text[1].slice(index, found)), new]
            index = found + len(old[0])
            if sum(len(part) for part, _ in parts) > MAX_SOURCE_CHARS:
                break  # the concatenation says it is too long
        parts.append((text[0][index:], text[1].slice(index, len(text[0]))))
        return _concatenation(parts, node)

    # --------------------------------------------------------------------------------------- formats

    def _fstring(self, node: ast.JoinedStr, steps: int) -> _Mapped:
        parts = []
        for piece in self._literal(node):
            if isinstance(piece[0], str):
                parts.append(piece)
                continue
            field, place = piece
            spec = field.format_spec
            if spec is not None and not all(isinstance(v, ast.Constant) for v in spec.values):
                raise Unresolved(f"the format of `{self._short(field.value)}` is computed when the file runs", field)
            conversion = chr(field.conversion) if field.conversion >= 0 else ""
            parts.append(self._formatted(self._value(field.value, steps), conversion,
                                         "".join(v.value for v in spec.values) if spec else "", place, field))
        return _concatenation(parts, node)

    def _format(self, template: _Mapped, node: ast.Call, steps: int) -> _Mapped:
        """`template.format(...)`: its text, and each field formatted from the arguments it names."""
        text, positions = template
        keywords = {keyword.arg: keyword.value for keyword in node.keywords}
        parts, automatic = [], 0
        try:
            pieces = list(_format_pieces(text))
        except ValueError:
            raise Unresolved(f"`{self._short(node)}` raises ValueError: the template is not a format", node) from None
        for is_field, start, end in pieces:
            if not is_field:
                parts.append((text[start:end], positions.slice(start, end)))
                continue
            field = re.fullmatch(r"(?P<name>[^!:]*)(?:!(?P<conversion>[rsa]))?(?::(?P<spec>.*))?", text[start:end],
                                 re.DOTALL)
            name = field.group("name") if field else "."
            if field is None or "." in name or "[" in name or "{" in (field.group("spec") or ""):
                raise Unresolved(f"the field `{{{text[start:end]}}}` of `{self._short(node)}` is one cudalint "
                                 f"does not follow", node)
            if name.isdigit() or not name:
                index = int(name) if name else automatic
                automatic += not name
                argument = node.args[index] if index < len(node.args) else None
            else:
                argument = keywords.get(name)
            if argument is None:
                raise Unresolved(f"`{self._short(node)}` raises: no argument for `{{{text[start:end]}}}`", node)
            parts.append(self._formatted(self._value(argument, steps), field.group("conversion") or "",
                                         field.group("spec") or "", positions[start - 1], argument))
        return _concatenation(parts, node)

    def _printf(self, template: _Mapped, node: ast.BinOp, steps: int) -> _Mapped:
        """`template % values`, the printf-style format."""
        text, positions = template
        values = self._followed(node.right)  # `template % args` with `args = (...)`
        mapping = values if isinstance(values, ast.Dict) else None
        ordered = list(values.elts) if isinstance(values, ast.Tuple) else [] if mapping else [values]
        parts, index, used = [], 0, 0
        for match in _PRINTF.finditer(text):
            parts.append((text[index:match.start()], positions.slice(index, match.start())))
            index, spec, place = match.end(), match.group("spec"), positions[match.start()]
            if spec == "%":
                parts.append(("%", CharPositions([0], [place], 1)))
                continue
            key = match.group("key")
            if mapping is not None and key is not None:
                keys = [k.value if isinstance(k, ast.Constant) else None for k in mapping.keys]
                argument = mapping.values[keys.index(key)] if key in keys else None
            else:
                argument = ordered[used] if key is None and used < len(ordered) else None
                used += 1
            if argument is None or "*" in spec:
                raise Unresolved(f"`{self._short(node)}` has a conversion `%{spec}` cudalint does not follow", node)
            parts.append(self._formatted(self._value(argument, steps), "", spec, place, argument, printf=True))
        if mapping is None and used != len(ordered):
            raise Unresolved(f"`{self._short(node)}` raises TypeError: its values do not match the format", node)
        parts.append((text[index:], positions.slice(index, len(text))))
        return _concatenation(parts, node)

    def _formatted(self, value: _Mapped | int | float, conversion: str, spec: str, place: tuple[int, int],
                   node: ast.AST, printf: bool = False) -> _Mapped:
        """`value` as a replacement field (or a printf conversion, `spec` ending in its type) writes it: a
        string written as it is keeps its characters' places; anything else stands at the field's `place`."""
        if isinstance(value, tuple) and not conversion and spec in ("", "s"):
            return value
        if any(len(number) > 4 for number in re.findall(r"\d+", spec)):
            raise Unresolved(f"the format `{spec}` is wider than cudalint follows", node)
        subject = value[0] if isinstance(value, tuple) else value
        subject = {"r": repr, "s": str, "a": ascii}.get(conversion, lambda v: v)(subject)
        try:
            text = ("%" + spec) % (subject,) if printf else format(subject, spec)
        except (ValueError, TypeError, OverflowError):
            raise Unresolved(f"`{self._short(node)}` cannot be written with the format `{spec}`", node) from None
        return text, CharPositions.at(place, len(text))

    # -------------------------------------------------------------------------------------- literals

    def _literal(self, node: ast.Constant | ast.JoinedStr) -> list:
        """A literal (its implicitly concatenated tokens included) in pieces: each run of text decoded, with
        each character's file position, and for each replacement field of an f-string its FormattedValue and
        the place of its opening brace."""
        segment, line, column0 = self._segment(node)
        positions = CharPositions.of_text(segment, line, column0)
        pieces: list = []
        try:
            for prefix, start, end, fields in _string_tokens(segment):
                raw, fstring, chunk = "r" in prefix, "f" in prefix, start
                for field_start, field_end in fields:
                    pieces.append(_decode_body(segment[chunk:field_start - 1], positions.slice(chunk, field_start - 1),
                                               raw, fstring))
                    pieces.append(positions[field_start - 1])  # the opening brace
                    chunk = field_end + 1
                pieces.append(_decode_body(segment[chunk:end], positions.slice(chunk, end), raw, fstring))
        except ValueError:
            pieces = []
        expected = node.values if isinstance(node, ast.JoinedStr) else [node]
        matched = _matched(pieces, expected)
        if matched is not None:
            return matched
        # a literal the reading above does not take apart as Python does (an f-string's `{x=}`): Python's
        # value, every character at the literal's start
        start = (line, column0 + 1)
        return [(v.value, CharPositions.at(start, len(v.value))) if isinstance(v, ast.Constant) else (v, start)
                for v in expected]

    def _segment(self, node: ast.AST) -> tuple[str, int, int]:
        """The source text of `node`, newlines as `\\n`, with its 1-based line and 0-based column (in
        characters)."""
        lines = self._text_lines[node.lineno - 1: node.end_lineno]
        first, last = lines[0].encode("utf-8"), lines[-1].encode("utf-8")  # ast offsets count UTF-8 bytes
        if len(lines) == 1:
            segment = first[node.col_offset: node.end_col_offset].decode("utf-8", errors="replace")
        else:
            segment = (first[node.col_offset:].decode("utf-8", errors="replace") + "".join(lines[1:-1])
                       + last[: node.end_col_offset].decode("utf-8", errors="replace"))
        column0 = len(first[: node.col_offset].decode("utf-8", errors="ignore"))
        return segment.replace("\r\n", "\n").replace("\r", "\n"), node.lineno, column0

    def _place(self, line: int, byte_column: int) -> tuple[int, int]:
        text = self._text_lines[line - 1] if 0 < line <= len(self._text_lines) else ""
        return line, len(text.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore")) + 1

    def _short(self, node: ast.AST) -> str:
        """`node` as written, on one line and cut to a length a message can quote."""
        text = " ".join(self._segment(node)[0].split())
        return text if len(text) <= 60 else text[:57] + "..."


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _concatenation(parts: Iterable[_Mapped], node: ast.AST) -> _Mapped:
    parts = list(parts)
    if sum(len(text) for text, _ in parts) > MAX_SOURCE_CHARS:
        raise Unresolved(f"it would be longer than {MAX_SOURCE_CHARS // (1024 * 1024)} MiB, so it is no kernel", node)
    return "".join(text for text, _ in parts), CharPositions.concat(positions for _, positions in parts)


def _lines_shortened(source: _Mapped, result: str, node: ast.AST, function: str) -> _Mapped:
    """`result`, which `function` made from `source` by removing characters at the starts of lines and whole
    blank lines at its start and end (dedent, cleandoc), with the place of each character kept: each line of
    it is the end of a line of the source, from the first source line on that gives it."""
    text, positions = source
    lines, wanted = text.split("\n"), result.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    for skip in range(len(lines) - len(wanted) + 1):
        if all(line.endswith(want) for line, want in zip(lines[skip:], wanted)):
            parts = []
            for number, want in enumerate(wanted):
                end = starts[skip + number] + len(lines[skip + number])
                parts.append(positions.slice(end - len(want), end + (number < len(wanted) - 1)))
            return result, CharPositions.concat(parts)
        if lines[skip].strip():
            break  # only blank lines are dropped at the start
    raise Unresolved(f"`{function}` changes the text in a way cudalint does not map (tabs expanded)", node)


def _matched(pieces: list, expected: list[ast.AST]) -> list | None:
    """The pieces of a literal as read, paired with Python's reading of it (`expected`: its Constant and
    FormattedValue parts): None unless they agree."""
    expected = [part for part in expected if not (isinstance(part, ast.Constant) and part.value == "")]
    merged: list = []
    for piece in pieces:
        if isinstance(piece[0], str):
            if not piece[0]:
                continue
            if merged and isinstance(merged[-1][0], str):
                merged[-1] = (merged[-1][0] + piece[0], merged[-1][1] + piece[1])
                continue
        merged.append(piece)
    if len(merged) != len(expected):
        return None
    matched = []
    for piece, part in zip(merged, expected):
        if isinstance(part, ast.Constant) and isinstance(piece[0], str) and piece[0] == part.value:
            matched.append(piece)
        elif isinstance(part, ast.FormattedValue) and not isinstance(piece[0], str):
            matched.append((part, piece))
        else:
            return None
    return matched


# printf-style conversions: `%(key)` flags, width, precision, length, type
_PRINTF = re.compile(r"%(?:\((?P<key>[^)]*)\))?(?P<spec>[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?[diouxXeEfFgGcrsa%])")


def _format_pieces(text: str) -> Iterator[tuple[bool, int, int]]:
    """`str.format`'s reading of a template: (is a field, start, end) for each run of text (a doubled brace is
    a run of its first brace) and each replacement field (what is between its braces). ValueError where the
    template has a lone brace."""
    chunk = index = 0
    while True:
        brace = _BRACE.search(text, index)
        if brace is None:
            yield False, chunk, len(text)
            return
        at = brace.start()
        if text.startswith(("{{", "}}"), at):
            yield False, chunk, at + 1
            chunk = index = at + 2
            continue
        if text[at] == "}":
            raise ValueError("single '}'")
        depth, end = 1, at + 1
        while depth:
            brace = _BRACE.search(text, end)
            if brace is None:
                raise ValueError("unmatched '{'")
            depth += 1 if brace.group() == "{" else -1
            end = brace.end()
        yield False, chunk, at
        yield True, at + 1, end - 1
        chunk = index = end


_BRACE = re.compile(r"[{}]")
_STRING_START = re.compile(r"([rRbBuUfF]{0,2})('''|\"\"\"|'|\")")
_GAP = re.compile(r"(?:[ \t\f\n]|\\\n|#[^\n]*)*")  # between the tokens of an implicit concatenation
_STRING_STOP = re.compile(r"[\\'\"{}]")


def _string_tokens(segment: str) -> list[tuple[str, int, int, list[tuple[int, int]]]]:
    """The string tokens of `segment`, the source of one literal (implicitly concatenated tokens included):
    each one's prefix (lower case), the start and end of its body, and in an f-string the start and end of
    each replacement field's inside. ValueError where the segment is no such literal."""
    tokens = []
    index = _GAP.match(segment).end()
    while index < len(segment):
        start = _STRING_START.match(segment, index)
        if start is None:
            raise ValueError("not a string literal")
        prefix, quote = start.group(1).lower(), start.group(2)
        fields: list[tuple[int, int]] = []
        end = _body_end(segment, start.end(), quote, prefix, fields)
        tokens.append((prefix, start.end(), end, fields))
        index = _GAP.match(segment, end + len(quote)).end()
    return tokens


def _body_end(segment: str, index: int, quote: str, prefix: str, fields: list[tuple[int, int]]) -> int:
    """Where the body of a string token that starts at `index` ends (its closing quote); the replacement
    fields of an f-string are added to `fields`."""
    fstring, raw = "f" in prefix, "r" in prefix
    while True:
        stop = _STRING_STOP.search(segment, index)
        if stop is None:
            raise ValueError("unterminated string")
        index, char = stop.start(), stop.group()
        if char == "\\":
            if fstring and not raw and segment.startswith("\\N{", index):
                index = segment.index("}", index) + 1  # a named character, not a field
            else:  # an escaped character; in an f-string a brace after a backslash is still a brace
                index += 1 if fstring and segment[index + 1: index + 2] in ("{", "}") else 2
        elif segment.startswith(quote, index):
            return index
        elif fstring and char == "{" and not segment.startswith("{{", index):
            end = _field_end(segment, index + 1)
            fields.append((index + 1, end))
            index = end + 1
        else:
            index += 2 if fstring and char in "{}" else 1  # `{{` or `}}`; a quote of the other kind


def _field_end(segment: str, index: int) -> int:
    """Where the replacement field whose inside starts at `index` ends (its closing brace): brackets and
    strings in its expression are skipped, and so are the fields nested in its format spec."""
    depth, in_spec = 0, False
    while index < len(segment):
        char = segment[index]
        if char == "}" and depth == 0:
            return index
        if in_spec:
            if char == "{":
                index = _field_end(segment, index + 1)
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char in "'\"":
            prefix = re.search(r"(?<![\w])[rRbBuUfF]{0,2}$", segment[max(0, index - 3): index])
            start = _STRING_START.match(segment, index)
            end = _body_end(segment, start.end(), start.group(2), prefix.group().lower() if prefix else "", [])
            index = end + len(start.group(2))
            continue
        elif char == "#":  # a comment (Python 3.12)
            index = segment.find("\n", index)
            if index < 0:
                break
        elif char == ":" and depth == 0:
            in_spec = True
        index += 1
    raise ValueError("unterminated replacement field")


_ESCAPE = re.compile(r"x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|N\{[^}]*\}")
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b",
                   "f": "\f", "v": "\v", "0": "\0"}


def _decode_body(body: str, positions: CharPositions, raw: bool, fstring: bool) -> _Mapped:
    """The text a string token's `body` (or a run of an f-string's text) stands for, each character at the
    place of what wrote it (an escape sequence's backslash)."""
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
