"""Walking Python syntax trees, memoized: the harness rules walk the same module and functions many
times per file, and `ast.walk` costs a generator step per node every time."""

from __future__ import annotations

import ast
from functools import lru_cache

from cudalint.caching import ClassIndex


@lru_cache(maxsize=4096)
def walk(node: ast.AST) -> tuple[ast.AST, ...]:
    """`node` and every node below it, in `ast.walk`'s order. The tree must not change afterwards."""
    found = [node]  # breadth first: the list is its own queue
    append, extend = found.append, found.extend
    AST = ast.AST
    for current in found:
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, AST):
                append(value)
            elif value.__class__ is list:
                extend([item for item in value if isinstance(item, AST)])
    return tuple(found)


@lru_cache(maxsize=256)  # a file asks for its module's and its functions' indexes while it is linted
def _class_index(node: ast.AST) -> ClassIndex:
    return ClassIndex(walk(node))


def of_type(node: ast.AST, *classes: type) -> tuple[ast.AST, ...]:
    """The nodes of `walk(node)` whose class is one of `classes`, in its order (see `ClassIndex`)."""
    return _class_index(node).select(classes)


# What ast.parse raises on text it cannot take: not Python (SyntaxError), a NUL byte (ValueError), nesting
# too deep for its parser (RecursionError, MemoryError).
PARSE_FAILURES = (SyntaxError, ValueError, RecursionError, MemoryError)
