"""Lowering libclang cursors to cudalint's IR (`cudalint.model.ir`)."""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, field
from functools import cached_property

import clang.cindex as ci

from cudalint.frontend.clang_api import (MainFileOffsets, binary_operator, children, cursor_type, evaluate, in_main_file,
                                         referenced, spelling, unary_operator, usr)
from cudalint.frontend.parse import Diagnostic, ParsedUnit, parse_unit
from cudalint.model import ir
from cudalint.sources import CudaUnit

K = ci.CursorKind
# cursor kinds by id: cindex's `cursor.kind` builds the same answer through two Python calls
_KIND = {kind.value: kind for kind in K.get_all_kinds()}


class _ExpressionKinds:
    """The cursor kinds that are expressions, asked of libclang on first use: importing cudalint must not
    load libclang (`cudalint rules` works without it, and a caller may still point cindex elsewhere)."""

    def __init__(self) -> None:
        self._kinds: frozenset[ci.CursorKind] | None = None

    def __contains__(self, kind: ci.CursorKind) -> bool:
        if self._kinds is None:
            self._kinds = frozenset(k for k in _KIND.values() if k.is_expression())
        return kind in self._kinds


_EXPRESSION_KINDS = _ExpressionKinds()


def _kind(cursor: ci.Cursor) -> ci.CursorKind:
    return _KIND[cursor._kind_id]


_CAST_KINDS = {K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR,
               K.CXX_REINTERPRET_CAST_EXPR, K.CXX_CONST_CAST_EXPR, K.CXX_DYNAMIC_CAST_EXPR}
_LITERAL_KINDS = {K.INTEGER_LITERAL, K.FLOATING_LITERAL, K.CXX_BOOL_LITERAL_EXPR, K.CHARACTER_LITERAL}
_FUNCTION_KINDS = {K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD}
_SPACE_ATTRS = {K.CUDAGLOBAL_ATTR: "global", K.CUDADEVICE_ATTR: "device", K.CUDAHOST_ATTR: "host"}
_CONFIG_CALLEES = {"cudaConfigureCall", "__cudaPushCallConfiguration"}
_MAX_DEPTH = 120


@dataclass
class LoweredUnit:
    """What the frontend knows of one unit: clang's diagnostics and the unit's code in cudalint's IR."""

    unit: CudaUnit
    diagnostics: list[Diagnostic]
    unknown_headers: list[tuple[str, int]]  # (header, unit line): included, neither stubbed nor on disk
    functions: list[ir.Function] = field(default_factory=list)  # definitions
    globals: list[ir.VarDecl] = field(default_factory=list)
    prototypes: list[ir.Function] = field(default_factory=list)  # declarations without a body (`body` None)


def lower_unit(unit: CudaUnit, directory: str | None = None) -> LoweredUnit:
    """Parse and lower `unit`; `directory` is where its file lives, for relative includes."""
    return Lowering(parse_unit(unit, directory)).lower()


_NAME_KINDS = {K.PARM_DECL: "param", K.VAR_DECL: "var", K.FUNCTION_DECL: "function", K.ENUM_CONSTANT_DECL: "enum",
               K.FIELD_DECL: "field", K.TEMPLATE_NON_TYPE_PARAMETER: "template_param"}


class _Declaration:
    """What lowering needs of a declaration that code refers to (valid while its unit is being lowered)."""

    def __init__(self, cursor: ci.Cursor) -> None:
        self.cursor = cursor
        self.kind = _kind(cursor)
        self.usr = usr(cursor)  # "" when clang gives none
        self.name_kind = _NAME_KINDS.get(self.kind, "")  # ir.Name.decl_kind

    @cached_property
    def spelling(self) -> str:
        return spelling(self.cursor)

    @cached_property
    def ref(self) -> str:
        """The USR, else the declaration's line:column."""
        location = self.cursor.location
        return self.usr or f"{location.line}:{location.column}"

    @cached_property
    def constant(self) -> int | float | None:
        """The value of an enumerator or const variable."""
        if self.kind == K.ENUM_CONSTANT_DECL or (self.kind == K.VAR_DECL and self.cursor.type.is_const_qualified()):
            return evaluate(self.cursor)
        return None

    @cached_property
    def is_kernel(self) -> bool:
        # asked of called functions only: visiting a declaration's children can deserialize its body
        return any(_kind(c) == K.CUDAGLOBAL_ATTR for c in children(self.cursor))


class Lowering:
    """Lowers the definitions of one parsed unit. Only code in the unit itself is lowered."""

    def __init__(self, parsed: ParsedUnit) -> None:
        self.parsed = parsed
        self.main_file = parsed.main_file
        self.data = parsed.unit.text.encode("utf-8")
        self.macros = _integer_macros(parsed.unit.text)
        self.ascii_text = parsed.unit.text if parsed.unit.text.isascii() else None
        self._line_starts = [0] + [match.end() for match in re.finditer(b"\n", self.data)]
        self._line_columns: dict[int, tuple[int, int]] = {}  # byte offset -> (line, column)
        self._offsets = MainFileOffsets(parsed.translation_unit, parsed.main_file, len(self.data))
        self._declarations: dict[tuple[int, int], _Declaration] = {}  # by (kind, clang's Decl pointer)
        self._type_spellings: dict[tuple[int, int, int], str] = {}
        self._depth = 0

    # ------------------------------------------------------------------------------------- top level

    def lower(self) -> LoweredUnit:
        lowered = LoweredUnit(self.parsed.unit, self.parsed.diagnostics, self.parsed.unknown_headers)
        self._top_level(self.parsed.translation_unit.cursor, lowered)
        return lowered

    def _top_level(self, cursor: ci.Cursor, lowered: LoweredUnit) -> None:
        for child in children(cursor):
            if not in_main_file(child):
                continue
            if _kind(child) in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL, K.CLASS_DECL, K.STRUCT_DECL,
                              K.CLASS_TEMPLATE):
                self._top_level(child, lowered)
            elif _kind(child) in _FUNCTION_KINDS:
                if child.is_definition():
                    lowered.functions.append(self._function(child))
                elif _kind(child) != K.CXX_METHOD:
                    lowered.prototypes.append(self._function(child))
            elif _kind(child) == K.VAR_DECL:
                lowered.globals.append(self._var_decl(child))

    def _function(self, cursor: ci.Cursor) -> ir.Function:
        spaces = {_SPACE_ATTRS[_kind(c)] for c in children(cursor) if _kind(c) in _SPACE_ATTRS}
        space = "global" if "global" in spaces else (
            "host_device" if spaces == {"host", "device"} else ("device" if "device" in spaces else "host"))
        params = [ir.Param(p.spelling, p.get_usr() or None, p.type.spelling, self._span(p),
                           p.type.get_canonical().spelling)
                  for p in children(cursor) if _kind(p) == K.PARM_DECL]
        body_cursor = next((c for c in children(cursor) if _kind(c) == K.COMPOUND_STMT), None)
        body = self._block(body_cursor) if body_cursor is not None else None
        name_location = cursor.location
        name_span = ir.Span(name_location.line, name_location.column, name_location.line,
                            name_location.column + len(cursor.spelling))
        return ir.Function(
            name=cursor.spelling, space=space, params=params, body=body, span=self._span(cursor),
            name_span=name_span, ref=cursor.get_usr() or None, templated=_kind(cursor) == K.FUNCTION_TEMPLATE,
            max_threads_per_block=self._launch_bounds(cursor), return_type=cursor.result_type.spelling,
        )

    def _launch_bounds(self, cursor: ci.Cursor) -> int | None:
        head = self._text_between(cursor.extent.start.offset, cursor.location.offset)
        match = re.search(r"__launch_bounds__\s*\(\s*([^,)]+)", head)
        if match is None:
            return None
        return _eval_macro_text(match.group(1), self.macros)

    # ------------------------------------------------------------------------------------- statements

    def _block(self, cursor: ci.Cursor) -> ir.Block:
        return ir.Block(self._span(cursor), [s for s in map(self._stmt, children(cursor)) if s is not None])

    def _stmt(self, cursor: ci.Cursor) -> ir.Stmt | None:
        if self._depth > _MAX_DEPTH:
            return ir.OpaqueStmt(self._span(cursor))
        self._depth += 1
        try:
            return self._stmt_at_depth(cursor)
        finally:
            self._depth -= 1

    def _stmt_at_depth(self, cursor: ci.Cursor) -> ir.Stmt | None:
        kind = _kind(cursor)
        span = self._span(cursor)
        if kind == K.COMPOUND_STMT:
            return self._block(cursor)
        if kind == K.DECL_STMT:
            return ir.DeclStmt(span, [self._var_decl(c) for c in children(cursor) if _kind(c) == K.VAR_DECL])
        if kind == K.NULL_STMT:
            return None
        kids = children(cursor)
        if kind == K.IF_STMT:
            parts = [c for c in kids if _kind(c) != K.DECL_STMT] or kids
            cond = self._expr(parts[0]) if parts else ir.Opaque(span)
            then = self._stmt_or_empty(parts[1], span) if len(parts) > 1 else ir.Block(span)
            otherwise = self._stmt_or_empty(parts[2], span) if len(parts) > 2 else None
            return ir.If(span, cond, then, otherwise)
        if kind == K.FOR_STMT:
            return self._for(cursor, kids, span)
        if kind == K.WHILE_STMT:
            return ir.While(span, self._expr(kids[0]), self._stmt_or_empty(kids[-1], span))
        if kind == K.DO_STMT:
            return ir.While(span, self._expr(kids[-1]), self._stmt_or_empty(kids[0], span), do_while=True)
        if kind == K.SWITCH_STMT:
            return ir.Switch(span, self._expr(kids[0]), self._stmt_or_empty(kids[-1], span))
        if kind in (K.CASE_STMT, K.DEFAULT_STMT, K.LABEL_STMT):
            inner = [s for s in map(self._stmt, kids[-1:]) if s is not None]
            return ir.OpaqueStmt(span, inner)
        if kind == K.RETURN_STMT:
            return ir.Return(span, self._expr(kids[0]) if kids else None)
        if kind == K.BREAK_STMT:
            return ir.Break(span)
        if kind == K.CONTINUE_STMT:
            return ir.Continue(span)
        if kind in _EXPRESSION_KINDS:
            return ir.ExprStmt(span, self._expr(cursor))
        return ir.OpaqueStmt(span, [s for s in map(self._stmt, kids) if s is not None])

    def _stmt_or_empty(self, cursor: ci.Cursor, span: ir.Span) -> ir.Stmt:
        return self._stmt(cursor) or ir.Block(span)

    def _for(self, cursor: ci.Cursor, kids: list[ci.Cursor], span: ir.Span) -> ir.For:
        # libclang omits absent parts of `for (init; cond; step)`: place each child by the header's semicolons
        body = kids[-1] if kids else None
        first_semi, second_semi = self._for_semicolons(cursor, body)
        init = cond = step = None
        for child in kids[:-1]:
            offset = self._offsets(child)[0]
            if first_semi is not None and offset < first_semi:
                init = self._stmt(child)
            elif second_semi is not None and offset < second_semi:
                if _kind(child) != K.DECL_STMT:
                    cond = self._expr(child)
            else:
                step = self._expr(child)
        return ir.For(span, init, cond, step, self._stmt_or_empty(body, span) if body is not None else ir.Block(span))

    def _for_semicolons(self, cursor: ci.Cursor, body: ci.Cursor | None) -> tuple[int | None, int | None]:
        start, end = self._offsets(cursor)
        if body is not None:
            end = self._offsets(body)[0]
        header = self.data[start:end]
        depth = 0
        semis = []
        for i, byte in enumerate(header):
            if byte == 0x28:  # (
                depth += 1
            elif byte == 0x29:  # )
                depth -= 1
            elif byte == 0x3B and depth == 1:  # ;
                semis.append(start + i)
        if len(semis) >= 2:
            return semis[0], semis[1]
        return None, None

    def _var_decl(self, cursor: ci.Cursor) -> ir.VarDecl:
        attrs = {_kind(c) for c in children(cursor)}
        init = None
        for child in children(cursor):
            if _kind(child) in _EXPRESSION_KINDS:
                init = child
        type_ = cursor.type
        dims: list[int | None] = []
        element = type_
        while element.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY,
                               ci.TypeKind.DEPENDENTSIZEDARRAY, ci.TypeKind.VARIABLEARRAY):
            count = element.element_count if element.kind == ci.TypeKind.CONSTANTARRAY else None
            dims.append(count)
            element = element.element_type
        size = type_.get_size()
        decl = ir.VarDecl(
            self._span(cursor), name=cursor.spelling, ref=cursor.get_usr() or None, type=type_.spelling,
            init=None, shared=K.CUDASHARED_ATTR in attrs,
            extern=cursor.storage_class == ci.StorageClass.EXTERN,
            constant_memory=K.CUDACONSTANT_ATTR in attrs, is_const=type_.is_const_qualified(),
            volatile=type_.is_volatile_qualified() or element.is_volatile_qualified(),
            dims=dims, size_bytes=size if size > 0 and None not in dims else None,
            element_type=element.spelling,
        )
        if init is not None and not (_kind(init) == K.CALL_EXPR and not children(init) and dims):
            decl.init = self._expr(init)
        return decl

    # ------------------------------------------------------------------------------------ expressions

    def _expr(self, cursor: ci.Cursor) -> ir.Expr:
        # generated code can nest thousands deep (a + a + ...); past this depth the tree stays opaque, so
        # neither lowering nor later walks can exhaust Python's stack
        if self._depth > _MAX_DEPTH:
            return ir.Opaque(self._span(cursor), self._text(cursor), cursor.type.spelling)
        self._depth += 1
        try:
            return self._expr_at_depth(cursor)
        finally:
            self._depth -= 1

    def _expr_at_depth(self, cursor: ci.Cursor) -> ir.Expr:
        kind = _kind(cursor)
        # implicit conversions and parentheses are transparent: step through a chain of them in a loop
        # (they are a third of all expression cursors); the outermost parentheses give the span and text
        parentheses = None
        while kind is K.UNEXPOSED_EXPR or kind is K.PAREN_EXPR:
            kids = children(cursor)
            if len(kids) != 1:
                span, text = self._span_and_text(cursor)
                lowered = ir.Opaque(span, text, self._type_spelling(cursor), [self._expr(c) for c in kids])
                break
            if kind is K.PAREN_EXPR and parentheses is None:
                parentheses = cursor
            cursor = kids[0]
            kind = _kind(cursor)
        else:
            lowered = self._expr_of_kind(cursor, kind)
        if parentheses is not None:
            lowered.span, lowered.text = self._span_and_text(parentheses)
        return lowered

    def _expr_of_kind(self, cursor: ci.Cursor, kind: ci.CursorKind) -> ir.Expr:
        span, text = self._span_and_text(cursor)
        type_ = self._type_spelling(cursor)
        if kind == K.DECL_REF_EXPR:
            return self._name(cursor, span, text, type_)
        if kind in _LITERAL_KINDS:
            value = _literal_value(text) if kind != K.CXX_BOOL_LITERAL_EXPR else None
            if value is None:
                value = evaluate(cursor)
            if kind == K.CXX_BOOL_LITERAL_EXPR and value is not None:
                value = bool(value)
            return ir.Const(span, text, type_, value)
        if kind == K.MEMBER_REF_EXPR:
            kids = children(cursor)
            base = self._expr(kids[0]) if kids else None
            return ir.Member(span, text, type_, base, spelling(cursor))
        if kind == K.ARRAY_SUBSCRIPT_EXPR:
            base, index = (self._expr(c) for c in children(cursor))
            return ir.Index(span, text, type_, base, index)
        if kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            kids = children(cursor)
            if len(kids) != 2:
                return ir.Opaque(span, text, type_, [self._expr(c) for c in kids])
            return ir.Binary(span, text, type_, binary_operator(cursor), self._expr(kids[0]),
                             self._expr(kids[1]))
        if kind == K.UNARY_OPERATOR:
            kids = children(cursor)
            return ir.Unary(span, text, type_, unary_operator(cursor), self._expr(kids[0]))
        if kind == K.CONDITIONAL_OPERATOR:
            cond, then, otherwise = (self._expr(c) for c in children(cursor))
            return ir.Conditional(span, text, type_, cond, then, otherwise)
        if kind == K.CALL_EXPR:
            return self._call(cursor, span, text, type_)
        if kind in _CAST_KINDS:
            kids = [c for c in children(cursor) if _kind(c) in _EXPRESSION_KINDS]
            if not kids:
                return ir.Opaque(span, text, type_)
            if kind == K.CXX_FUNCTIONAL_CAST_EXPR and _kind(kids[-1]) == K.INIT_LIST_EXPR:
                return ir.Construct(span, text, type_, [self._expr(c) for c in children(kids[-1])])
            return ir.Cast(span, text, type_, self._expr(kids[-1]))
        if kind == K.CXX_UNARY_EXPR:  # sizeof, alignof
            value = evaluate(cursor)
            return ir.Const(span, text, type_, value) if value is not None else ir.Opaque(span, text, type_)
        if kind == K.INIT_LIST_EXPR:
            return ir.InitList(span, text, type_, [self._expr(c) for c in children(cursor)])
        if kind == K.LAMBDA_EXPR:
            body = next((c for c in children(cursor) if _kind(c) == K.COMPOUND_STMT), None)
            return ir.Lambda(span, text, type_, self._block(body) if body is not None else ir.Block(span))
        if kind == K.CXX_NULL_PTR_LITERAL_EXPR:
            return ir.Const(span, text, type_, 0)
        return ir.Opaque(span, text, type_, [self._expr(c) for c in children(cursor) if _kind(c) in _EXPRESSION_KINDS])

    def _declaration(self, cursor: ci.Cursor) -> _Declaration | None:
        """The declaration `cursor` refers to, looked up once per declaration."""
        found = referenced(cursor)
        if found is None:
            return None
        key = (found._kind_id, found.data[0])
        declaration = self._declarations.get(key)
        if declaration is None:
            declaration = self._declarations[key] = _Declaration(found)
        return declaration

    def _name(self, cursor: ci.Cursor, span: ir.Span, text: str, type_: str) -> ir.Name:
        declaration = self._declaration(cursor)
        if declaration is None:
            return ir.Name(span, text, type_, spelling(cursor))
        return ir.Name(span, text, type_, spelling(cursor), declaration.ref, declaration.name_kind,
                       declaration.constant)

    def _call(self, cursor: ci.Cursor, span: ir.Span, text: str, type_: str) -> ir.Expr:
        kids = children(cursor)
        declaration = self._declaration(cursor)
        if declaration is not None and declaration.kind == K.CONSTRUCTOR:
            args = [self._expr(c) for c in kids if _kind(c) in _EXPRESSION_KINDS and not _is_default_argument(c)]
            if len(args) == 1 and not text.strip().startswith(declaration.spelling):
                return args[0]  # an implicit conversion or copy, not a construction the user wrote
            return ir.Construct(span, text, type_, args)
        config = next((c for c in kids[1:2] if _kind(c) == K.CALL_EXPR and spelling(c) in _CONFIG_CALLEES), None)
        if config is not None or (declaration is not None and declaration.is_kernel):
            return self._launch(cursor, kids, config, span, text, type_)
        name = spelling(cursor)
        if name.startswith("operator") and len(kids) >= 2:
            lowered = self._operator_call(cursor, name, kids, span, text, type_)
            if lowered is not None:
                return lowered
        callee_cursor = kids[0] if kids else None
        receiver, callee, callee_ref, template_args = None, name, None, ""
        target = _strip_implicit(callee_cursor) if callee_cursor is not None else None
        if target is not None:
            if _kind(target) == K.MEMBER_REF_EXPR:
                members = children(target)
                receiver = self._expr(members[0]) if members else None
                callee = spelling(target) or callee
            elif _kind(target) in (K.DECL_REF_EXPR, K.OVERLOADED_DECL_REF):
                callee = spelling(target) or callee
            target_declaration = self._declaration(target)
            if target_declaration is not None:
                callee_ref = target_declaration.usr or None
            callee_text = self._text(target)
            angle = re.search(r"<(.*)>\s*$", callee_text, re.DOTALL)
            if angle:
                template_args = angle.group(1).strip()
        args = [self._expr(c) for c in kids[1:] if not _is_default_argument(c)]
        return ir.Call(span, text, type_, callee, args, receiver, template_args, callee_ref)

    def _operator_call(self, cursor: ci.Cursor, name: str, kids: list, span: ir.Span, text: str,
                       type_: str) -> ir.Expr | None:
        """An overloaded operator written as an operator (`h[i] = x` on __half, `f4[i] = make_float4(...)`):
        lowered like the built-in one. libclang lists its children in source order (lhs, operator, rhs),
        so the callee is not the first child."""
        op = name[len("operator"):].strip()

        def is_operator_ref(child: ci.Cursor) -> bool:
            inner = _strip_implicit(child)
            return _kind(inner) == K.DECL_REF_EXPR and spelling(inner) == name

        operands = [c for c in kids if not is_operator_ref(c) and not _is_default_argument(c)]
        if len(operands) == len(kids):  # an explicit call `a.operator=(b)`: keep it a call
            return None
        if op in ("++", "--") and operands:
            prefix = text.lstrip().startswith(op)
            return ir.Unary(span, text, type_, op if prefix else "post" + op, self._expr(operands[0]))
        if len(operands) == 2 and op == "[]":
            return ir.Index(span, text, type_, self._expr(operands[0]), self._expr(operands[1]))
        if len(operands) == 2 and re.fullmatch(r"[-+*/%^&|<>=!]{1,3}", op) and op != "->":
            return ir.Binary(span, text, type_, op, self._expr(operands[0]), self._expr(operands[1]))
        if len(operands) == 1 and op in ("-", "+", "!", "~", "*", "&"):
            return ir.Unary(span, text, type_, op, self._expr(operands[0]))
        if op == "()" and operands:  # a callable object called: `[&] { ... }()` (AT_DISPATCH_* lambdas)
            return ir.Call(span, text, type_, "operator()", [self._expr(c) for c in operands[1:]],
                           self._expr(operands[0]))
        return None

    def _launch(self, cursor, kids, config, span, text, type_) -> ir.Launch:
        target = _strip_implicit(kids[0]) if kids else None
        kernel = (spelling(target) if target is not None else "") or spelling(cursor)
        declaration = self._declaration(target) if target is not None else None
        kernel_ref = declaration.usr if declaration is not None else None
        parts: list[ir.Expr | None] = [None, None, None, None]
        if config is not None:
            config_args = children(config)[1:]
            for i, arg in enumerate(config_args[:4]):
                parts[i] = None if _is_default_argument(arg) else self._expr(arg)
        args = [self._expr(c) for c in kids[2 if config is not None else 1:]]
        return ir.Launch(span, text, type_, kernel, kernel_ref, parts[0], parts[1], parts[2], parts[3], args)

    # ------------------------------------------------------------------------------------------ helpers

    def _span(self, cursor: ci.Cursor) -> ir.Span:
        return self._span_and_text(cursor)[0]

    def _text(self, cursor: ci.Cursor) -> str:
        return self._span_and_text(cursor)[1]

    def _span_and_text(self, cursor: ci.Cursor) -> tuple[ir.Span, str]:
        start, end = self._offsets(cursor)
        line_column = self._line_columns
        first, last = line_column.get(start), line_column.get(end)
        if first is None:
            first = line_column[start] = self._line_column(start)
        if last is None:
            last = line_column[end] = self._line_column(end)
        span = ir.Span(first[0], first[1], last[0], last[1])
        if end <= start or end > len(self.data):
            # inside a macro expansion every node sits on the macro's name: fall back to the spelling
            return span, spelling(cursor)
        if self.ascii_text is not None:  # byte offsets are character offsets
            return span, self.ascii_text[start:end]
        return span, self._text_between(start, end)

    def _line_column(self, offset: int) -> tuple[int, int]:
        """1-based line and byte column of a byte offset in the unit, as clang reports them."""
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def _type_spelling(self, cursor: ci.Cursor) -> str:
        # most expressions share a handful of types (int, float, float *): spell each type once
        type_ = cursor_type(cursor)
        key = (type_._kind_id, type_.data[0], type_.data[1])
        spelling = self._type_spellings.get(key)
        if spelling is None:
            spelling = self._type_spellings[key] = type_.spelling
        return spelling

    def _text_between(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", errors="replace")


_INTEGER_LITERAL = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)[uUlL]*")
_FLOAT_LITERAL = re.compile(r"((?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)[fFlL]?")


def _literal_value(text: str) -> int | float | None:
    """The value of a plain numeric literal from its text (cheaper than asking clang); None otherwise."""
    match = _INTEGER_LITERAL.fullmatch(text)
    if match:
        digits = match.group(1)
        if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
            return int(digits, 8)
        return int(digits, 0)
    match = _FLOAT_LITERAL.fullmatch(text)
    if match and any(c in text for c in ".eEfF"):
        return float(match.group(1))
    return None


def _strip_implicit(cursor: ci.Cursor) -> ci.Cursor:
    while _kind(cursor) == K.UNEXPOSED_EXPR:
        kids = children(cursor)
        if len(kids) != 1:
            break
        cursor = kids[0]
    return cursor


def _is_default_argument(cursor: ci.Cursor) -> bool:
    # CXXDefaultArgExpr surfaces as a childless UNEXPOSED_EXPR with an empty extent
    if _kind(cursor) != K.UNEXPOSED_EXPR:
        return False
    if any(True for _ in children(cursor)):
        return False
    extent = cursor.extent
    return extent.start.offset == extent.end.offset or extent.start.file is None


# --------------------------------------------------------------------------------- integer macro values

_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+(.+?)[ \t]*(?://.*)?$", re.MULTILINE)
_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load, ast.Add, ast.Sub,
            ast.Mult, ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift, ast.USub, ast.UAdd, ast.BitAnd, ast.BitOr)


def _integer_macros(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in _DEFINE.finditer(text)}


def _eval_macro_text(expression: str, macros: dict[str, str], depth: int = 0) -> int | None:
    """Value of an integer expression over literals and object-like macros (for __launch_bounds__)."""
    if depth > 10:
        return None
    expression = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", expression.strip()).replace("/", "//")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return None
    if not all(isinstance(node, _ALLOWED) for node in ast.walk(tree)):
        return None
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id not in macros:
                return None
            value = _eval_macro_text(macros[node.id], macros, depth + 1)
            if value is None:
                return None
            names[node.id] = value
    try:
        value = eval(compile(tree, "<macro>", "eval"), {"__builtins__": {}}, names)  # noqa: S307 - whitelisted AST
    except (ArithmeticError, ValueError, TypeError):
        return None
    return value if isinstance(value, int) else None
