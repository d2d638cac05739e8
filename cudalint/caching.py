"""Analyses cached on the object they analyse: a document, a program, a function."""

from __future__ import annotations

from collections.abc import Callable
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
