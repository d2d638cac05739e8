"""Lowering libclang cursors to cudalint's IR (`cudalint.model.ir`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import clang.cindex as ci

from cudalint.frontend.clang_api import (CHILDREN, END, INDEX, KIND, OPERATOR, REFERENCED, REFERENCING_KINDS, SPAN,
                                         SPELLING, START, TYPE, Subtree, array_element_type, array_size,
                                         binary_operator_spelling, canonical_type, children, cursor_type, evaluate,
                                         in_main_file, is_const_qualified, is_extern, is_static, is_volatile_qualified,
                                         line_starts, location, main_file_bounds, referenced, result_type, size_of,
                                         spelling, type_spelling, unary_operator_spelling, usr)
from cudalint.compile_flags import CompileFlags
from cudalint.frontend.parse import Diagnostic, ParsedUnit, parse_unit
from cudalint.frontend.prototypes import HostDefinitions, from_definitions
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


def _kind(node: tuple) -> ci.CursorKind:
    """The kind of a subtree node (see `clang_api.Subtree`)."""
    return _KIND[node[KIND]]


def _cursor_kind(cursor: ci.Cursor) -> ci.CursorKind:
    return _KIND[cursor._kind_id]


_CAST_KINDS = {K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR,
               K.CXX_REINTERPRET_CAST_EXPR, K.CXX_CONST_CAST_EXPR, K.CXX_DYNAMIC_CAST_EXPR}
_LITERAL_KINDS = {K.INTEGER_LITERAL, K.FLOATING_LITERAL, K.CXX_BOOL_LITERAL_EXPR, K.CHARACTER_LITERAL}
_FUNCTION_KINDS = {K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD}
_CONSTANT_ARRAY = ci.TypeKind.CONSTANTARRAY.value
_ARRAY_TYPE_KINDS = {_CONSTANT_ARRAY, ci.TypeKind.INCOMPLETEARRAY.value, ci.TypeKind.DEPENDENTSIZEDARRAY.value,
                     ci.TypeKind.VARIABLEARRAY.value}
_SPACE_ATTRS = {K.CUDAGLOBAL_ATTR: "global", K.CUDADEVICE_ATTR: "device", K.CUDAHOST_ATTR: "host"}
_CONFIG_CALLEES = {"cudaConfigureCall", "__cudaPushCallConfiguration"}
MAX_NESTING = 120  # statements and expressions lowered inside one another; deeper code stays opaque


@dataclass
class LoweredUnit:
    """What the frontend knows of one unit: clang's diagnostics and the unit's code in cudalint's IR."""

    unit: CudaUnit
    diagnostics: list[Diagnostic]
    unknown_headers: list[tuple[str, int]]  # (header, unit line): included, neither stubbed nor on disk
    functions: list[ir.Function] = field(default_factory=list)  # definitions
    globals: list[ir.VarDecl] = field(default_factory=list)
    prototypes: list[ir.Function] = field(default_factory=list)  # declarations without a body (`body` None)
    too_deep: ir.Span | None = None  # the first code nested past MAX_NESTING: left opaque, so no rule checked it


def lower_unit(unit: CudaUnit, directory: str | None = None,
               cuda_units: Sequence[LoweredUnit] | HostDefinitions = (),
               flags: CompileFlags = CompileFlags()) -> LoweredUnit:
    """Parse and lower `unit`; `directory` is where its file lives, for relative includes. `cuda_units`, the
    file's CUDA units already lowered (or their `HostDefinitions`, made once for all the file's C++ units),
    spare the parse of a C++ unit that only declares functions they define (see `prototypes`); `flags`, the
    project's build flags."""
    if unit.language == "c++" and cuda_units:
        prototypes = from_definitions(unit, cuda_units)
        if prototypes is not None:
            return LoweredUnit(unit, [], [], prototypes=prototypes)
    return Lowering(parse_unit(unit, directory, flags)).lower()


_NAME_KINDS = {K.PARM_DECL: "param", K.VAR_DECL: "var", K.FUNCTION_DECL: "function", K.ENUM_CONSTANT_DECL: "enum",
               K.FIELD_DECL: "field", K.TEMPLATE_NON_TYPE_PARAMETER: "template_param"}


class _Declaration:
    """What lowering needs of a declaration that code refers to (valid while its unit is being lowered)."""

    def __init__(self, cursor: ci.Cursor) -> None:
        self.cursor = cursor
        self.kind = _cursor_kind(cursor)
        self.name_kind = _NAME_KINDS.get(self.kind, "")  # ir.Name.decl_kind

    @cached_property
    def spelling(self) -> str:
        return spelling(self.cursor)

    @cached_property
    def usr(self) -> str:
        """Clang's USR ("" when it gives none). Asked only where a symbol is needed: a USR costs clang about
        8 us, and most called functions never need one."""
        return usr(self.cursor)

    @cached_property
    def ref(self) -> str:
        """The USR, else the declaration's line:column."""
        if self.usr:
            return self.usr
        line, column, _ = location(self.cursor)
        return f"{line}:{column}"

    @cached_property
    def constant(self) -> int | float | None:
        """The value of an enumerator or const variable."""
        if self.kind == K.ENUM_CONSTANT_DECL or (
                self.kind == K.VAR_DECL and is_const_qualified(cursor_type(self.cursor))):
            return evaluate(self.cursor)
        return None

    @cached_property
    def is_kernel(self) -> bool:
        # asked of called functions only: visiting a declaration's children can deserialize its body
        return any(_cursor_kind(c) == K.CUDAGLOBAL_ATTR for c in children(self.cursor))


class Lowering:
    """Lowers the definitions of one parsed unit. Only code in the unit itself is lowered. Each top-level
    declaration is read from libclang as a `Subtree` and lowered from its nodes (tuples)."""

    def __init__(self, parsed: ParsedUnit) -> None:
        self.parsed = parsed
        self.main_file = parsed.main_file
        self.data = parsed.unit.text.encode("utf-8")
        self.macros = _integer_macros(parsed.unit.text)
        self.ascii_text = parsed.unit.text if parsed.unit.text.isascii() else None
        self._line_starts = line_starts(self.data)
        self._main_file_bounds = main_file_bounds(parsed.translation_unit, parsed.main_file, len(self.data))
        self._declarations: dict[tuple[int, int], _Declaration] = {}  # by (kind, clang's Decl pointer)
        self._type_spellings: dict[tuple[int, int, int], str] = {}  # of nodes that are not expressions
        self._tree: Subtree | None = None  # of the declaration being lowered
        self._depth = 0
        self._too_deep: ir.Span | None = None

    # ------------------------------------------------------------------------------------- top level

    def lower(self) -> LoweredUnit:
        lowered = LoweredUnit(self.parsed.unit, self.parsed.diagnostics, self.parsed.unknown_headers)
        self._top_level(self.parsed.translation_unit.cursor, lowered)
        lowered.too_deep = self._too_deep
        return lowered

    def _top_level(self, cursor: ci.Cursor, lowered: LoweredUnit) -> None:
        for child in children(cursor):
            if not in_main_file(child):
                continue
            kind = _cursor_kind(child)
            if kind in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL, K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE):
                self._top_level(child, lowered)
            elif kind in _FUNCTION_KINDS:
                if child.is_definition():
                    lowered.functions.append(self._function(child))
                elif kind != K.CXX_METHOD:
                    lowered.prototypes.append(self._function(child))
            elif kind == K.VAR_DECL:
                lowered.globals.append(self._var_decl(self._read(child)))

    def _read(self, cursor: ci.Cursor) -> tuple:
        """Read a top-level declaration's subtree; returns its root node."""
        self._tree = Subtree(cursor, self._main_file_bounds, self._line_starts)
        return self._tree.root

    def _cursor(self, node: tuple) -> ci.Cursor:
        return self._tree.cursor(node[INDEX])

    def _function(self, cursor: ci.Cursor) -> ir.Function:
        kids = self._read(cursor)[CHILDREN]
        spaces = {_SPACE_ATTRS[_kind(c)] for c in kids if _kind(c) in _SPACE_ATTRS}
        space = "global" if "global" in spaces else (
            "host_device" if spaces == {"host", "device"} else ("device" if "device" in spaces else "host"))
        params = []
        for node in kids:
            if _kind(node) == K.PARM_DECL:
                p = self._cursor(node)
                p_type = cursor_type(p)
                params.append(ir.Param(spelling(p), self._declared(p).usr or None, type_spelling(p_type),
                                       self._span(node), type_spelling(canonical_type(p_type))))
        body_node = next((c for c in kids if _kind(c) == K.COMPOUND_STMT), None)
        body = self._block(body_node) if body_node is not None else None
        name = spelling(cursor)
        line, column, name_offset = location(cursor)
        name_span = ir.Span(line, column, line, column + len(name))
        return ir.Function(
            name=name, space=space, params=params, body=body, span=self._span(self._tree.root),
            name_span=name_span, ref=usr(cursor) or None, templated=_cursor_kind(cursor) == K.FUNCTION_TEMPLATE,
            max_threads_per_block=self._launch_bounds(self._tree.root[START], name_offset),
            return_type=type_spelling(result_type(cursor)),
        )

    def _launch_bounds(self, start: int, name_offset: int) -> int | None:
        head = self._text_between(start, name_offset)
        match = re.search(r"__launch_bounds__\s*\(\s*([^,)]+)", head)
        if match is None:
            return None
        return _eval_macro_text(match.group(1), self.macros)

    # ------------------------------------------------------------------------------------- statements

    def _block(self, node: tuple) -> ir.Block:
        return ir.Block(self._span(node), [s for s in map(self._stmt, node[CHILDREN]) if s is not None])

    def _stmt(self, node: tuple) -> ir.Stmt | None:
        if self._depth > MAX_NESTING:
            self._too_deep = self._too_deep or self._span(node)
            return ir.OpaqueStmt(self._span(node))
        self._depth += 1
        try:
            return self._stmt_at_depth(node)
        finally:
            self._depth -= 1

    def _stmt_at_depth(self, node: tuple) -> ir.Stmt | None:
        kind = _kind(node)
        span = self._span(node)
        if kind == K.COMPOUND_STMT:
            return self._block(node)
        kids = node[CHILDREN]
        if kind == K.DECL_STMT:
            return ir.DeclStmt(span, [self._var_decl(c) for c in kids if _kind(c) == K.VAR_DECL])
        if kind == K.NULL_STMT:
            return None
        if kind == K.IF_STMT:
            parts = [c for c in kids if _kind(c) != K.DECL_STMT] or kids
            cond = self._expr(parts[0]) if parts else ir.Opaque(span)
            then = self._stmt_or_empty(parts[1], span) if len(parts) > 1 else ir.Block(span)
            otherwise = self._stmt_or_empty(parts[2], span) if len(parts) > 2 else None
            return ir.If(span, cond, then, otherwise)
        if kind == K.FOR_STMT:
            return self._for(node, kids, span)
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
            return ir.ExprStmt(span, self._expr(node))
        return ir.OpaqueStmt(span, [s for s in map(self._stmt, kids) if s is not None])

    def _stmt_or_empty(self, node: tuple, span: ir.Span) -> ir.Stmt:
        return self._stmt(node) or ir.Block(span)

    def _for(self, node: tuple, kids: tuple, span: ir.Span) -> ir.For:
        # libclang omits absent parts of `for (init; cond; step)`: place each child by the header's semicolons
        body = kids[-1] if kids else None
        first_semi, second_semi = self._for_semicolons(node, body)
        init = cond = step = None
        for child in kids[:-1]:
            offset = child[START]
            if first_semi is not None and offset < first_semi:
                init = self._stmt(child)
            elif second_semi is not None and offset < second_semi:
                if _kind(child) != K.DECL_STMT:
                    cond = self._expr(child)
            else:
                step = self._expr(child)
        return ir.For(span, init, cond, step, self._stmt_or_empty(body, span) if body is not None else ir.Block(span))

    def _for_semicolons(self, node: tuple, body: tuple | None) -> tuple[int | None, int | None]:
        start, end = node[START], node[END]
        if body is not None:
            end = body[START]
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

    def _var_decl(self, node: tuple) -> ir.VarDecl:
        kids = node[CHILDREN]
        attrs = {_kind(c) for c in kids}
        init = None
        for child in kids:
            if _kind(child) in _EXPRESSION_KINDS:
                init = child
        cursor = self._cursor(node)
        type_ = cursor_type(cursor)
        dims: list[int | None] = []
        element = type_
        while element._kind_id in _ARRAY_TYPE_KINDS:
            dims.append(array_size(element) if element._kind_id == _CONSTANT_ARRAY else None)
            element = array_element_type(element)
        size = size_of(type_)
        decl = ir.VarDecl(
            self._span(node), name=spelling(cursor), ref=self._declared(cursor).usr or None, type=type_spelling(type_),
            init=None, shared=K.CUDASHARED_ATTR in attrs, extern=is_extern(cursor), static=is_static(cursor),
            constant_memory=K.CUDACONSTANT_ATTR in attrs, is_const=is_const_qualified(type_),
            volatile=is_volatile_qualified(type_) or is_volatile_qualified(element),
            dims=dims, size_bytes=size if size > 0 and None not in dims else None,
            element_type=type_spelling(element),
        )
        if init is not None and not (_kind(init) == K.CALL_EXPR and not init[CHILDREN] and dims):
            decl.init = self._expr(init)
        return decl

    # ------------------------------------------------------------------------------------ expressions

    def _expr(self, node: tuple) -> ir.Expr:
        # generated code can nest thousands deep (a + a + ...); past this depth the tree stays opaque, so
        # neither lowering nor later walks can exhaust Python's stack
        if self._depth > MAX_NESTING:
            span, text = self._span_and_text(node)
            self._too_deep = self._too_deep or span
            return ir.Opaque(span, text, self._type_spelling(node))
        self._depth += 1
        try:
            return self._expr_at_depth(node)
        finally:
            self._depth -= 1

    def _expr_at_depth(self, node: tuple) -> ir.Expr:
        kind = _kind(node)
        # implicit conversions and parentheses are transparent: step through a chain of them in a loop
        # (they are a third of all expression nodes); the outermost parentheses give the span and text
        parentheses = None
        while kind is K.UNEXPOSED_EXPR or kind is K.PAREN_EXPR:
            kids = node[CHILDREN]
            if len(kids) != 1:
                span, text = self._span_and_text(node)
                lowered = ir.Opaque(span, text, self._type_spelling(node), [self._expr(c) for c in kids])
                break
            if kind is K.PAREN_EXPR and parentheses is None:
                parentheses = node
            node = kids[0]
            kind = _kind(node)
        else:
            lowered = self._expr_of_kind(node, kind)
        if parentheses is not None:
            lowered.span, lowered.text = self._span_and_text(parentheses)
        return lowered

    def _expr_of_kind(self, node: tuple, kind: ci.CursorKind) -> ir.Expr:
        span, text = self._span_and_text(node)
        type_ = self._type_spelling(node)
        if kind == K.DECL_REF_EXPR:
            return self._name(node, span, text, type_)
        if kind in _LITERAL_KINDS:
            value = _literal_value(text) if kind != K.CXX_BOOL_LITERAL_EXPR else None
            if value is None:
                value = evaluate(self._cursor(node))
            if kind == K.CXX_BOOL_LITERAL_EXPR and value is not None:
                value = bool(value)
            return ir.Const(span, text, type_, value)
        kids = node[CHILDREN]
        if kind == K.MEMBER_REF_EXPR:
            base = self._expr(kids[0]) if kids else None
            return ir.Member(span, text, type_, base, node[SPELLING])
        if kind == K.ARRAY_SUBSCRIPT_EXPR:
            base, index = (self._expr(c) for c in kids)
            return ir.Index(span, text, type_, base, index)
        if kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            if len(kids) != 2:
                return ir.Opaque(span, text, type_, [self._expr(c) for c in kids])
            return ir.Binary(span, text, type_, binary_operator_spelling(node[OPERATOR]), self._expr(kids[0]),
                             self._expr(kids[1]))
        if kind == K.UNARY_OPERATOR:
            return ir.Unary(span, text, type_, unary_operator_spelling(node[OPERATOR]), self._expr(kids[0]))
        if kind == K.CONDITIONAL_OPERATOR:
            cond, then, otherwise = (self._expr(c) for c in kids)
            return ir.Conditional(span, text, type_, cond, then, otherwise)
        if kind == K.CALL_EXPR:
            return self._call(node, span, text, type_)
        if kind in _CAST_KINDS:
            operands = [c for c in kids if _kind(c) in _EXPRESSION_KINDS]
            if not operands:
                return ir.Opaque(span, text, type_)
            if kind == K.CXX_FUNCTIONAL_CAST_EXPR and _kind(operands[-1]) == K.INIT_LIST_EXPR:
                return ir.Construct(span, text, type_, [self._expr(c) for c in operands[-1][CHILDREN]])
            return ir.Cast(span, text, type_, self._expr(operands[-1]))
        if kind == K.CXX_UNARY_EXPR:  # sizeof, alignof
            value = evaluate(self._cursor(node))
            return ir.Const(span, text, type_, value) if value is not None else ir.Opaque(span, text, type_)
        if kind == K.INIT_LIST_EXPR:
            return ir.InitList(span, text, type_, [self._expr(c) for c in kids])
        if kind == K.LAMBDA_EXPR:
            body = next((c for c in kids if _kind(c) == K.COMPOUND_STMT), None)
            return ir.Lambda(span, text, type_, self._block(body) if body is not None else ir.Block(span))
        if kind == K.CXX_NULL_PTR_LITERAL_EXPR:
            return ir.Const(span, text, type_, 0)
        return ir.Opaque(span, text, type_, [self._expr(c) for c in kids if _kind(c) in _EXPRESSION_KINDS])

    def _declaration(self, node: tuple) -> _Declaration | None:
        """The declaration `node` refers to, looked up once per declaration."""
        reference = node[REFERENCED]
        if reference is not None:
            declaration = self._declarations.get(reference[:2])
            return declaration if declaration is not None else self._declared(self._tree.cursor(reference[2]))
        if node[KIND] in REFERENCING_KINDS:  # the subtree asked libclang already: no declaration
            return None
        found = referenced(self._cursor(node))
        return None if found is None else self._declared(found)

    def _declared(self, cursor: ci.Cursor) -> _Declaration:
        """The record of declaration `cursor`, one per declaration: a variable's declaration and the names
        that refer to it share one USR."""
        key = (cursor._kind_id, cursor.data[0] or 0)  # as the subtree's referenced declarations give it
        declaration = self._declarations.get(key)
        if declaration is None:
            declaration = self._declarations[key] = _Declaration(cursor)
        return declaration

    def _name(self, node: tuple, span: ir.Span, text: str, type_: str) -> ir.Name:
        declaration = self._declaration(node)
        if declaration is None:
            return ir.Name(span, text, type_, node[SPELLING])
        return ir.Name(span, text, type_, node[SPELLING], declaration.ref, declaration.name_kind,
                       declaration.constant)

    def _call(self, node: tuple, span: ir.Span, text: str, type_: str) -> ir.Expr:
        kids = node[CHILDREN]
        declaration = self._declaration(node)
        if declaration is not None and declaration.kind == K.CONSTRUCTOR:
            args = [self._expr(c) for c in kids if _kind(c) in _EXPRESSION_KINDS and not self._is_default_argument(c)]
            if len(args) == 1 and not text.strip().startswith(declaration.spelling):
                return args[0]  # an implicit conversion or copy, not a construction the user wrote
            return ir.Construct(span, text, type_, args)
        config = next((c for c in kids[1:2] if _kind(c) == K.CALL_EXPR and c[SPELLING] in _CONFIG_CALLEES), None)
        if config is not None or (declaration is not None and declaration.is_kernel):
            return self._launch(node, kids, config, span, text, type_)
        name = node[SPELLING]
        if name.startswith("operator") and len(kids) >= 2:
            lowered = self._operator_call(name, kids, span, text, type_)
            if lowered is not None:
                return lowered
        callee_node = kids[0] if kids else None
        receiver, callee, template_args = None, name, ""
        target = _strip_implicit(callee_node) if callee_node is not None else None
        if target is not None:
            if _kind(target) == K.MEMBER_REF_EXPR:
                members = target[CHILDREN]
                receiver = self._expr(members[0]) if members else None
                callee = target[SPELLING] or callee
            elif _kind(target) in (K.DECL_REF_EXPR, K.OVERLOADED_DECL_REF):
                callee = target[SPELLING] or callee
            callee_text = self._text(target)
            angle = re.search(r"<(.*)>\s*$", callee_text, re.DOTALL)
            if angle:
                template_args = angle.group(1).strip()
        args = [self._expr(c) for c in kids[1:] if not self._is_default_argument(c)]
        return ir.Call(span, text, type_, callee, args, receiver, template_args)

    def _operator_call(self, name: str, kids: tuple, span: ir.Span, text: str, type_: str) -> ir.Expr | None:
        """An overloaded operator written as an operator (`h[i] = x` on __half, `f4[i] = make_float4(...)`):
        lowered like the built-in one. libclang lists its children in source order (lhs, operator, rhs),
        so the callee is not the first child."""
        op = name[len("operator"):].strip()

        def is_operator_ref(child: tuple) -> bool:
            inner = _strip_implicit(child)
            return _kind(inner) == K.DECL_REF_EXPR and inner[SPELLING] == name

        operands = [c for c in kids if not is_operator_ref(c) and not self._is_default_argument(c)]
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

    def _launch(self, node, kids, config, span, text, type_) -> ir.Launch:
        target = _strip_implicit(kids[0]) if kids else None
        kernel = (self._spelling(target) if target is not None else "") or node[SPELLING]
        parts: list[ir.Expr | None] = [None, None, None, None]
        if config is not None:
            for i, arg in enumerate(config[CHILDREN][1:5]):
                parts[i] = None if self._is_default_argument(arg) else self._expr(arg)
        args = [self._expr(c) for c in kids[2 if config is not None else 1:]]
        return ir.Launch(span, text, type_, kernel, parts[0], parts[1], parts[2], parts[3], args)

    @staticmethod
    def _is_default_argument(node: tuple) -> bool:
        # CXXDefaultArgExpr surfaces as a childless UNEXPOSED_EXPR with an empty extent (an invalid range:
        # both offsets 0)
        return _kind(node) is K.UNEXPOSED_EXPR and not node[CHILDREN] and node[START] == node[END]

    # ------------------------------------------------------------------------------------------ helpers

    def _span(self, node: tuple) -> ir.Span:
        return self._span_and_text(node)[0]

    def _text(self, node: tuple) -> str:
        return self._span_and_text(node)[1]

    def _span_and_text(self, node: tuple) -> tuple[ir.Span, str]:
        start, end = node[START], node[END]
        if end <= start or end > len(self.data):
            # inside a macro expansion every node sits on the macro's name: fall back to the spelling
            return node[SPAN], self._spelling(node)
        if self.ascii_text is not None:  # byte offsets are character offsets
            return node[SPAN], self.ascii_text[start:end]
        return node[SPAN], self._text_between(start, end)

    def _spelling(self, node: tuple) -> str:
        spelled = node[SPELLING]
        return spelled if spelled is not None else spelling(self._cursor(node))

    def _type_spelling(self, node: tuple) -> str:
        index = node[TYPE]
        if index >= 0:  # an expression: the subtree spelled its type
            return self._tree.type_spellings[index]
        type_ = cursor_type(self._cursor(node))
        key = (type_._kind_id, type_.data[0], type_.data[1])
        spelled = self._type_spellings.get(key)
        if spelled is None:
            spelled = self._type_spellings[key] = type_spelling(type_)
        return spelled

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


def _strip_implicit(node: tuple) -> tuple:
    while _kind(node) == K.UNEXPOSED_EXPR:
        kids = node[CHILDREN]
        if len(kids) != 1:
            break
        node = kids[0]
    return node


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
