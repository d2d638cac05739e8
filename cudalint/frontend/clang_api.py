"""The few libclang C functions that clang 18's cindex.py does not wrap, bound through ctypes."""

from __future__ import annotations

import ctypes
from functools import cache

import clang.cindex as ci

_EVAL_INT = 1
_EVAL_FLOAT = 2


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
    lib.clang_hashCursor.argtypes = [ci.Cursor]
    lib.clang_hashCursor.restype = ctypes.c_uint
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


def extent_offsets(cursor: ci.Cursor) -> tuple[int, int]:
    """Byte offsets of the start and end of a cursor's extent (expansion locations): the cheapest way to
    place a node, with lines and columns computed from the unit's text. Not thread-safe: one lowering
    per thread at a time (the engine parallelizes with processes)."""
    lib = _lib()
    extent = lib.clang_getCursorExtent(cursor)
    lib.clang_getExpansionLocation(lib.clang_getRangeStart(extent), None, None, None, _offset_ref)
    start = _offset_out.value
    lib.clang_getExpansionLocation(lib.clang_getRangeEnd(extent), None, None, None, _offset_ref)
    return start, _offset_out.value


def cursor_hash(cursor: ci.Cursor) -> int:
    return _lib().clang_hashCursor(cursor)


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
