"""Walking Python syntax trees, memoized: the harness rules walk the same module and functions many
times per file, and `ast.walk` costs a generator step per node every time."""

from __future__ import annotations

import ast
from collections import deque
from functools import lru_cache


@lru_cache(maxsize=4096)
def walk(node: ast.AST) -> tuple[ast.AST, ...]:
    """`node` and every node below it, in `ast.walk`'s order. The tree must not change afterwards."""
    found = []
    queue = deque([node])
    while queue:
        current = queue.popleft()
        found.append(current)
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, ast.AST):
                queue.append(value)
            elif isinstance(value, list):
                queue.extend(item for item in value if isinstance(item, ast.AST))
    return tuple(found)
