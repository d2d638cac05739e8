"""libclang C functions bound through ctypes where cindex.py does not wrap them, or wraps them at a cost
that matters on the lowering's hot path (a Python object and a Python-level check per call)."""

from __future__ import annotations

import bisect
import ctypes
import re
from array import array
from functools import cache

import clang.cindex as ci

from cudalint.model.ir import Span

try:  # the compiled traversal (cudalint/frontend/_subtree.c), when the install could build it
    from cudalint.frontend import _subtree as _native
except ImportError:
    _native = None

_EVAL_INT = 1
_EVAL_FLOAT = 2


def diagnostics(tu: ci.TranslationUnit) -> list[ci.Diagnostic]:
    """The unit's diagnostics. (cindex's `tu.diagnostics` defines a class at each call: a reference cycle
    per parse, left to the cycle collector.)"""
    lib = ci.conf.lib
    return [ci.Diagnostic(lib.clang_getDiagnostic(tu, index)) for index in range(lib.clang_getNumDiagnostics(tu))]


class _String(ctypes.Structure):
    """CXString, disposed by its reader (cindex's _CXString disposes itself in __del__, a Python call)."""

    _fields_ = [("data", ctypes.c_void_p), ("flags", ctypes.c_uint)]


@cache
def _raw():
    """A second handle on libclang, so that these prototypes leave cindex's own untouched."""
    lib = ctypes.CDLL(ci.conf.lib._name)
    lib.clang_getCursorExtent.argtypes = [ci.Cursor]
    lib.clang_getCursorExtent.restype = ci.SourceRange
    lib.clang_getCursorType.argtypes = [ci.Cursor]
    lib.clang_getCursorType.restype = ci.Type
    lib.clang_getFile.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.clang_getFile.restype = ctypes.c_void_p
    lib.clang_getLocationForOffset.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
    lib.clang_getLocationForOffset.restype = ci.SourceLocation
    lib.clang_getCursorReferenced.argtypes = [ci.Cursor]
    lib.clang_getCursorReferenced.restype = ci.Cursor
    lib.clang_Cursor_isNull.argtypes = [ci.Cursor]
    lib.clang_Cursor_isNull.restype = ctypes.c_int
    for name in ("clang_getCursorSpelling", "clang_getCursorUSR"):
        getattr(lib, name).argtypes = [ci.Cursor]
        getattr(lib, name).restype = _String
    lib.clang_getTypeSpelling.argtypes = [ci.Type]
    lib.clang_getTypeSpelling.restype = _String
    for name in ("clang_getCanonicalType", "clang_getArrayElementType"):
        getattr(lib, name).argtypes = [ci.Type]
        getattr(lib, name).restype = ci.Type
    lib.clang_getCursorResultType.argtypes = [ci.Cursor]
    lib.clang_getCursorResultType.restype = ci.Type
    for name in ("clang_isConstQualifiedType", "clang_isVolatileQualifiedType"):
        getattr(lib, name).argtypes = [ci.Type]
        getattr(lib, name).restype = ctypes.c_uint
    for name in ("clang_getArraySize", "clang_Type_getSizeOf"):
        getattr(lib, name).argtypes = [ci.Type]
        getattr(lib, name).restype = ctypes.c_longlong
    lib.clang_Cursor_getStorageClass.argtypes = [ci.Cursor]
    lib.clang_Cursor_getStorageClass.restype = ctypes.c_int
    lib.clang_getCursorLocation.argtypes = [ci.Cursor]
    lib.clang_getCursorLocation.restype = ci.SourceLocation
    lib.clang_getExpansionLocation.argtypes = [ci.SourceLocation, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint),
                                               ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)]
    lib.clang_getExpansionLocation.restype = None
    lib.clang_Location_isFromMainFile.argtypes = [ci.SourceLocation]
    lib.clang_Location_isFromMainFile.restype = ctypes.c_int
    lib.clang_getCString.argtypes = [_String]
    lib.clang_getCString.restype = ctypes.c_char_p
    lib.clang_disposeString.argtypes = [_String]
    lib.clang_disposeString.restype = None
    lib.clang_isExpression.argtypes = [ctypes.c_int]
    lib.clang_isExpression.restype = ctypes.c_uint
    lib.clang_getFileContents.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    lib.clang_getFileContents.restype = ctypes.c_void_p
    return lib


@cache
def _lib():
    lib = ci.conf.lib
    lib.clang_getCursorBinaryOperatorKind.argtypes = [ci.Cursor]
    lib.clang_getCursorBinaryOperatorKind.restype = ctypes.c_int
    lib.clang_getBinaryOperatorKindSpelling.argtypes = [ctypes.c_int]
    lib.clang_getBinaryOperatorKindSpelling.restype = ci._CXString
    lib.clang_getBinaryOperatorKindSpelling.errcheck = ci._CXString.from_result
    lib.clang_getCursorUnaryOperatorKind.argtypes = [ci.Cursor]
    lib.clang_getCursorUnaryOperatorKind.restype = ctypes.c_int
    lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
    lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
    lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getKind.restype = ctypes.c_int
    lib.clang_EvalResult_getAsLongLong.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsLongLong.restype = ctypes.c_longlong
    lib.clang_EvalResult_getAsDouble.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsDouble.restype = ctypes.c_double
    lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_dispose.restype = None
    return lib


def _collect_child(child: ci.Cursor, _parent: ci.Cursor, found: list) -> int:
    found.append(child)
    return 1  # CXChildVisit_Continue


_COLLECT_CHILD = ci.callbacks["cursor_visit"](_collect_child)


def children(cursor: ci.Cursor) -> list[ci.Cursor]:
    """The children of a cursor; cindex's get_children makes two extra C calls per child."""
    found: list[ci.Cursor] = []
    _lib().clang_visitChildren(cursor, _COLLECT_CHILD, found)
    for child in found:
        child._tu = cursor._tu
    return found


def main_file_bounds(tu: ci.TranslationUnit, main_file: str, size: int) -> tuple[int, int]:
    """The main file's first and last location in clang's encoding, or (-1, -1) when clang has no such file.
    A source location is encoded as its file's start in clang's location space plus the offset, so a range
    that lies between the two (and outside macros) gives its offsets by a subtraction."""
    raw = _raw()
    handle = raw.clang_getFile(tu.obj, main_file.encode())
    if not handle:
        return -1, -1
    base = raw.clang_getLocationForOffset(tu.obj, handle, 0).int_data
    return base, base + size


# ------------------------------------------------------------------------------------------ subtrees

# A node of a subtree is a tuple; these are its fields.
KIND = 0  # the cursor kind's id
START, END = 1, 2  # byte offsets of the extent's expansion locations (in the main file, unless in a macro)
TYPE = 3  # for an expression, its type's index in `Subtree.type_spellings`; else -1
CHILDREN = 4  # a tuple of nodes
INDEX = 5  # the cursor's index, for `Subtree.cursor`
SPELLING = 6  # the cursor's spelling for the kinds in REFERENCING_KINDS, else None
REFERENCED = 7  # for REFERENCING_KINDS, the declaration referred to as (kind id, pointer, index), or None
OPERATOR = 8  # the CXBinaryOperatorKind or CXUnaryOperatorKind of an operator, else None
SPAN = 9  # the ir.Span of START and END (line and byte column, 1-based)

_K = ci.CursorKind
# the kinds whose spelling and referenced declaration a subtree carries: a None REFERENCED there means
# libclang knows no declaration
REFERENCING_KINDS = frozenset((_K.DECL_REF_EXPR.value, _K.MEMBER_REF_EXPR.value, _K.CALL_EXPR.value,
                               _K.OVERLOADED_DECL_REF.value))
_BINARY = (_K.BINARY_OPERATOR.value, _K.COMPOUND_ASSIGNMENT_OPERATOR.value)
_UNARY_KINDS = (_K.UNARY_OPERATOR.value,)
_MAX_DEPTH = 1024  # as in _subtree.c: deeper nodes keep no children
_CURSOR_SIZE = ctypes.sizeof(ci.Cursor)


def line_starts(data: bytes) -> array:
    """The byte offset of each line of `data`, as a subtree's spans need them."""
    return array("I", [0, *(match.end() for match in re.finditer(b"\n", data))])


class Subtree:
    """A cursor and everything below it, read from libclang in one pass: what the lowering asks of
    most nodes, and each cursor (`cursor(index)`) for the rarer questions."""

    def __init__(self, cursor: ci.Cursor, main_file_bounds: tuple[int, int], line_starts: array) -> None:
        """`line_starts`: the byte offset of each line of the unit (`array("I")`, ascending, the first 0)."""
        walk = _native_subtree() or _subtree_python
        self.root, self.type_spellings, self._cursors = walk(bytes(cursor), *main_file_bounds, line_starts)
        self._tu = cursor._tu

    def cursor(self, index: int) -> ci.Cursor:
        cursor = ci.Cursor.from_buffer_copy(self._cursors, index * _CURSOR_SIZE)
        cursor._tu = self._tu
        return cursor


@cache
def _native_subtree():
    """The compiled walk, configured with this process's libclang; None without a matching build."""
    if _native is None or getattr(_native, "ABI_VERSION", None) != 3:  # (a stale build: use the Python walk)
        return None
    raw = _raw()
    names = ("clang_visitChildren", "clang_getCursorExtent", "clang_getRangeStart", "clang_getRangeEnd",
             "clang_getExpansionLocation", "clang_isExpression", "clang_getCursorType", "clang_getTypeSpelling",
             "clang_getCursorSpelling", "clang_getCString", "clang_disposeString", "clang_getCursorReferenced",
             "clang_Cursor_isNull", "clang_getCursorBinaryOperatorKind", "clang_getCursorUnaryOperatorKind")
    addresses = tuple(ctypes.cast(getattr(raw, name), ctypes.c_void_p).value for name in names)
    _native.configure(addresses, tuple(REFERENCING_KINDS), _BINARY, _UNARY_KINDS, Span)
    return _native.subtree


def _subtree_python(cursor_bytes: bytes, base: int, limit: int, line_starts: array) -> tuple[tuple, list[str], bytes]:
    """The walk in Python, for installs without the compiled one: the same result, node for node."""
    raw, lib = _raw(), _lib()
    offset = ctypes.c_uint()

    def line_column(at: int) -> tuple[int, int]:
        line = bisect.bisect_right(line_starts, at)
        return line, at - (line_starts[line - 1] if line else 0) + 1

    def offsets(cursor: ci.Cursor) -> tuple[int, int]:
        extent = raw.clang_getCursorExtent(cursor)
        start, end = extent.begin_int_data, extent.end_int_data
        if base >= 0 and base <= start <= limit and base <= end <= limit:
            return start - base, end - base  # (a macro location has the top bit set: never in range)
        found = []
        for location in (lib.clang_getRangeStart(extent), lib.clang_getRangeEnd(extent)):
            offset.value = 0
            raw.clang_getExpansionLocation(location, None, None, None, ctypes.byref(offset))
            found.append(offset.value)
        return found[0], found[1]

    cursors: list[ci.Cursor] = []
    spellings: list[str] = []
    types: dict[tuple, int] = {}

    def open_node(cursor: ci.Cursor, depth: int) -> list:
        index = len(cursors)
        cursors.append(cursor)
        kind = cursor._kind_id
        start, end = offsets(cursor)
        type_index = -1
        if raw.clang_isExpression(kind):
            type_ = cursor_type(cursor)
            key = (type_._kind_id, type_.data[0], type_.data[1])
            type_index = types.get(key, -1)
            if type_index < 0:
                type_index = types[key] = len(spellings)
                spellings.append(type_.spelling)
        spelled = reference = operator = None
        if kind in REFERENCING_KINDS:
            spelled = spelling(cursor)
            found = referenced(cursor)
            if found is not None:
                reference = (found._kind_id, found.data[0] or 0, len(cursors))
                cursors.append(found)
        if kind in _BINARY:
            operator = lib.clang_getCursorBinaryOperatorKind(cursor)
        elif kind in _UNARY_KINDS:
            operator = lib.clang_getCursorUnaryOperatorKind(cursor)
        kids = children(cursor) if depth < _MAX_DEPTH else []
        span = Span(*line_column(start), *line_column(end))
        # the node's fields, its children's cursors, the next child to open, the finished children
        return [(kind, start, end, type_index, None, index, spelled, reference, operator, span), kids, 0, [], depth]

    root = ci.Cursor.from_buffer_copy(cursor_bytes)
    root._tu = None  # (children() hands it on; nothing here needs it)
    stack = [open_node(root, 0)]
    while True:  # depth first without recursion: generated code nests deeper than Python's stack
        frame = stack[-1]
        fields, kids, next_child, finished, depth = frame
        if next_child < len(kids):
            frame[2] += 1
            stack.append(open_node(kids[next_child], depth + 1))
            continue
        node = (*fields[:CHILDREN], tuple(finished), *fields[CHILDREN + 1:])
        stack.pop()
        if not stack:
            return node, spellings, b"".join(bytes(c) for c in cursors)
        stack[-1][3].append(node)


def cursor_type(cursor: ci.Cursor) -> ci.Type:
    """A cursor's type as a bare struct: `.spelling` and `._kind_id` work, methods that need the
    translation unit do not."""
    return _raw().clang_getCursorType(cursor)


def spelling(cursor: ci.Cursor) -> str:
    return _string(_raw().clang_getCursorSpelling(cursor))


def usr(cursor: ci.Cursor) -> str:
    return _string(_raw().clang_getCursorUSR(cursor))


def type_spelling(type_: ci.Type) -> str:
    return _string(_raw().clang_getTypeSpelling(type_))


def canonical_type(type_: ci.Type) -> ci.Type:
    return _raw().clang_getCanonicalType(type_)


def result_type(cursor: ci.Cursor) -> ci.Type:
    return _raw().clang_getCursorResultType(cursor)


def array_element_type(type_: ci.Type) -> ci.Type:
    return _raw().clang_getArrayElementType(type_)


def array_size(type_: ci.Type) -> int:
    return _raw().clang_getArraySize(type_)


def size_of(type_: ci.Type) -> int:
    """The type's size in bytes; negative when clang cannot tell (incomplete, dependent)."""
    return _raw().clang_Type_getSizeOf(type_)


def is_const_qualified(type_: ci.Type) -> bool:
    return bool(_raw().clang_isConstQualifiedType(type_))


def is_volatile_qualified(type_: ci.Type) -> bool:
    return bool(_raw().clang_isVolatileQualifiedType(type_))


def is_extern(cursor: ci.Cursor) -> bool:
    return _raw().clang_Cursor_getStorageClass(cursor) == ci.StorageClass.EXTERN.value


def is_static(cursor: ci.Cursor) -> bool:
    return _raw().clang_Cursor_getStorageClass(cursor) == ci.StorageClass.STATIC.value


def location(cursor: ci.Cursor) -> tuple[int, int, int]:
    """(line, column, offset) of the cursor's location, where it is expanded (cindex's `location`)."""
    raw = _raw()
    line, column, offset = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
    raw.clang_getExpansionLocation(raw.clang_getCursorLocation(cursor), None, ctypes.byref(line),
                                   ctypes.byref(column), ctypes.byref(offset))
    return line.value, column.value, offset.value


def _string(string: _String) -> str:
    raw = _raw()
    try:
        return (raw.clang_getCString(string) or b"").decode("utf-8", errors="replace")
    finally:
        raw.clang_disposeString(string)


def referenced(cursor: ci.Cursor) -> ci.Cursor | None:
    """The declaration a reference or call names, or None."""
    raw = _raw()
    found = raw.clang_getCursorReferenced(cursor)
    if raw.clang_Cursor_isNull(found):
        return None
    found._tu = cursor._tu
    return found


def reparse(tu: ci.TranslationUnit, unsaved_files: list[tuple[str, str]]) -> bool:
    """Reparse `tu` with new file contents; False when clang failed (the unit is then unusable: only
    disposing of it is allowed). cindex's `reparse` drops this result."""
    files = (ci._CXUnsavedFile * len(unsaved_files))()
    for entry, (name, contents) in zip(files, unsaved_files):
        data = contents.encode("utf-8")
        entry.name, entry.contents, entry.length = name.encode("utf-8"), data, len(data)
    return _lib().clang_reparseTranslationUnit(tu, len(unsaved_files), files, 0) == 0


def inclusions(tu: ci.TranslationUnit) -> list[tuple[str, str, bytes | None]]:
    """Each file the preprocessor entered through an `#include` (or `-include`), as clang's own inclusion list
    has it: (path of the including file, "" for one the command line includes; path of the included file as
    found; the bytes the parse read from it, None when clang no longer holds them)."""
    raw = _raw()
    found = []
    for inclusion in tu.get_includes():
        size = ctypes.c_size_t()
        data = raw.clang_getFileContents(tu.obj, inclusion.include.obj, ctypes.byref(size))
        found.append((inclusion.source.name if inclusion.source is not None else "", inclusion.include.name,
                      ctypes.string_at(data, size.value) if data else None))
    return found


def in_main_file(cursor: ci.Cursor) -> bool:
    raw = _raw()
    return bool(raw.clang_Location_isFromMainFile(raw.clang_getCursorLocation(cursor)))


@cache
def binary_operator_spelling(kind: int) -> str:
    """A CXBinaryOperatorKind as C writes it: '+', '<=', '+=', ..."""
    return _lib().clang_getBinaryOperatorKindSpelling(kind)


# CXUnaryOperatorKind values, in libclang's order.
_UNARY = {1: "post++", 2: "post--", 3: "++", 4: "--", 5: "&", 6: "*", 7: "+", 8: "-", 9: "~", 10: "!"}


def unary_operator_spelling(kind: int) -> str:
    """A CXUnaryOperatorKind as C writes it; postfix increments are 'post++' / 'post--'."""
    return _UNARY.get(kind, "?")


def evaluate(cursor: ci.Cursor) -> int | float | None:
    """clang's constant evaluation of an expression or constexpr variable; None when not constant."""
    lib = _lib()
    result = lib.clang_Cursor_Evaluate(cursor)
    if not result:
        return None
    try:
        kind = lib.clang_EvalResult_getKind(result)
        if kind == _EVAL_INT:
            return lib.clang_EvalResult_getAsLongLong(result)
        if kind == _EVAL_FLOAT:
            return lib.clang_EvalResult_getAsDouble(result)
        return None
    finally:
        lib.clang_EvalResult_dispose(result)
