"""Walking Python syntax trees, memoized: the harness rules walk the same module and functions many
times per file, and `ast.walk` costs a generator step per node every time."""

from __future__ import annotations

import ast
from functools import lru_cache
from itertools import chain


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


@lru_cache(maxsize=1024)
def _positions_by_class(node: ast.AST) -> dict[type, list[int]]:
    """For each node class under `node`, where its nodes stand in `walk(node)`."""
    index: dict[type, list[int]] = {}
    for position, sub in enumerate(walk(node)):
        found = index.get(sub.__class__)
        if found is None:
            index[sub.__class__] = [position]
        else:
            found.append(position)
    return index


@lru_cache(maxsize=1024)
def of_type(node: ast.AST, *classes: type) -> tuple[ast.AST, ...]:
    """The nodes of `walk(node)` whose class is one of `classes`, in its order: the harness rules scan a
    module for a few node classes, over and over. Exact classes: the parser makes no subclasses of them
    (an abstract class such as `ast.stmt` matches nothing)."""
    index = _positions_by_class(node)
    found = [index[cls] for cls in classes if cls in index]
    if not found:
        return ()
    positions = found[0] if len(found) == 1 else sorted(chain.from_iterable(found))
    return tuple(map(walk(node).__getitem__, positions))
