"""Analyses cached on the object they analyse: a document, a program, a function."""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import Any, TypeVar

T = TypeVar("T")


class Analysed:
    """`analysis(make)` is `make(self)`, made on first use and kept in the object's `analyses` (keyed by
    `make`), so that every rule shares one and it dies with the object: a module-level table would keep
    every linted file alive. An analysis that refers back to its object makes a cycle, so the engine drops
    a file's analyses when the file is done. Subclasses declare the `analyses` dict."""

    analyses: dict[Callable, Any]

    def analysis(self, make: Callable[[Any], T]) -> T:
        found = self.analyses.get(make)
        if found is None:
            found = self.analyses[make] = make(self)
        return found


class ClassIndex:
    """A sequence of tree nodes (a walk), with the nodes of given classes picked out in order on demand:
    analyses scan a function or a module for a few node classes, over and over, and an `isinstance`
    chain over every node each time cost more than the scan's work. Classes match exactly: both trees'
    concrete node classes have no subclasses (an abstract class matches nothing)."""

    __slots__ = ("nodes", "_positions", "_selections")

    def __init__(self, nodes: tuple) -> None:
        self.nodes = nodes
        positions: dict[type, list[int]] = {}
        for position, node in enumerate(nodes):
            found = positions.get(node.__class__)
            if found is None:
                positions[node.__class__] = [position]
            else:
                found.append(position)
        self._positions = positions
        self._selections: dict[tuple[type, ...], tuple] = {}

    def select(self, classes: tuple[type, ...]) -> tuple:
        found = self._selections.get(classes)
        if found is None:
            lists = [self._positions[cls] for cls in classes if cls in self._positions]
            order = lists[0] if len(lists) == 1 else sorted(chain.from_iterable(lists))
            found = self._selections[classes] = tuple(map(self.nodes.__getitem__, order))
        return found
