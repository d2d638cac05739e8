"""libclang C functions bound through ctypes where cindex.py does not wrap them, or wraps them at a cost
that matters on the lowering's hot path (a Python object and a Python-level check per call)."""

from __future__ import annotations

import ctypes
from functools import cache

import clang.cindex as ci

_EVAL_INT = 1
_EVAL_FLOAT = 2


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
    lib.clang_getCString.argtypes = [_String]
    lib.clang_getCString.restype = ctypes.c_char_p
    lib.clang_disposeString.argtypes = [_String]
    lib.clang_disposeString.restype = None
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
    lib.clang_getExpansionLocation.argtypes = [ci.SourceLocation, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint),
                                               ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)]
    lib.clang_getExpansionLocation.restype = None
    lib.clang_Location_isFromMainFile.argtypes = [ci.SourceLocation]
    lib.clang_Location_isFromMainFile.restype = ctypes.c_int
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


_offset_out = ctypes.c_uint()
_offset_ref = ctypes.byref(_offset_out)


class MainFileOffsets:
    """Byte offsets of cursor extents in a translation unit's main file. A source location is encoded as
    its file's start in clang's location space plus the offset, so a range that lies in the main file
    and outside macros needs one C call; any other goes through clang's expansion locations. Not
    thread-safe: one lowering per thread at a time (the engine parallelizes with processes)."""

    def __init__(self, tu: ci.TranslationUnit, main_file: str, size: int) -> None:
        raw = _raw()
        handle = raw.clang_getFile(tu.obj, main_file.encode())
        self._base = raw.clang_getLocationForOffset(tu.obj, handle, 0).int_data if handle else -1
        self._limit = self._base + size
        self._extent = raw.clang_getCursorExtent

    def __call__(self, cursor: ci.Cursor) -> tuple[int, int]:
        extent = self._extent(cursor)
        start, end = extent.begin_int_data, extent.end_int_data
        base = self._base
        if base >= 0 and base <= start <= self._limit and base <= end <= self._limit:
            return start - base, end - base  # (a macro location has the top bit set: never in range)
        return extent_offsets(cursor)


def extent_offsets(cursor: ci.Cursor) -> tuple[int, int]:
    """Byte offsets of the start and end of a cursor's extent (expansion locations), in whatever file
    they lie."""
    lib = _lib()
    extent = lib.clang_getCursorExtent(cursor)
    lib.clang_getExpansionLocation(lib.clang_getRangeStart(extent), None, None, None, _offset_ref)
    start = _offset_out.value
    lib.clang_getExpansionLocation(lib.clang_getRangeEnd(extent), None, None, None, _offset_ref)
    return start, _offset_out.value


def cursor_type(cursor: ci.Cursor) -> ci.Type:
    """A cursor's type as a bare struct: `.spelling` and `._kind_id` work, methods that need the
    translation unit do not."""
    return _raw().clang_getCursorType(cursor)


def spelling(cursor: ci.Cursor) -> str:
    return _string(_raw().clang_getCursorSpelling(cursor))


def usr(cursor: ci.Cursor) -> str:
    return _string(_raw().clang_getCursorUSR(cursor))


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


def in_main_file(cursor: ci.Cursor) -> bool:
    return bool(_lib().clang_Location_isFromMainFile(cursor.location))


@cache
def _binary_spelling(kind: int) -> str:
    return _lib().clang_getBinaryOperatorKindSpelling(kind)


def binary_operator(cursor: ci.Cursor) -> str:
    """The operator of a BINARY_OPERATOR or COMPOUND_ASSIGNMENT_OPERATOR cursor: '+', '<=', '+=', ..."""
    return _binary_spelling(_lib().clang_getCursorBinaryOperatorKind(cursor))


# CXUnaryOperatorKind values, in libclang's order.
_UNARY = {1: "post++", 2: "post--", 3: "++", 4: "--", 5: "&", 6: "*", 7: "+", 8: "-", 9: "~", 10: "!"}


def unary_operator(cursor: ci.Cursor) -> str:
    """The operator of a UNARY_OPERATOR cursor; postfix increments are 'post++' / 'post--'."""
    return _UNARY.get(_lib().clang_getCursorUnaryOperatorKind(cursor), "?")


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
