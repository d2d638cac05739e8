"""Caches: analyses cached on the object they analyse (a document, a program, a function), and the
persistent cache directory that the precompiled preludes and the lint results share."""

from __future__ import annotations

import os
import shutil
import time
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


def user_cache_dir() -> str:
    """`$CUDALINT_CACHE_DIR`, else `$XDG_CACHE_HOME/cudalint` or `~/.cache/cudalint`: the one folder of all
    of cudalint's caches (preludes, results, and the GPU stage's builds in `verify/`)."""
    return os.environ.get("CUDALINT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser(os.path.join("~", ".cache")), "cudalint")


def cache_root() -> str | None:
    """The user's cache directory for cudalint (not yet created): `$CUDALINT_CACHE_DIR`, else
    `$XDG_CACHE_HOME/cudalint` or `~/.cache/cudalint`; None when caching is off (`CUDALINT_NO_CACHE=1`) or
    no absolute directory is known."""
    if os.environ.get("CUDALINT_NO_CACHE", "") not in ("", "0"):
        return None
    root = user_cache_dir()
    if not os.path.isabs(root):
        return None  # no home directory: never a cache relative to wherever the user runs us
    return root


_UNUSED_FOR = 30 * 24 * 3600  # seconds after which another version's cache folder is removed
# The marker of a folder cudalint created, in the Cache Directory Tagging format (backup tools skip such a
# folder); only a folder holding it, with these exact words, is ever removed.
CACHE_TAG = "CACHEDIR.TAG"
_TAG_TEXT = ("Signature: 8a477f597d28d172789f06886806bc55\n"
             "# This file is a cache directory tag created by cudalint.\n"
             "# For information about cache directory tags see https://bford.info/cachedir/\n")


def make_cache_folder(directory: str) -> None:
    """Create the cache folder `directory` (and its parents) with cudalint's marker in it, unless it exists;
    OSError when it cannot be made."""
    os.makedirs(os.path.dirname(directory), exist_ok=True)
    try:
        os.mkdir(directory)
    except FileExistsError:
        if os.path.isdir(directory):
            return
        raise
    with open(os.path.join(directory, CACHE_TAG), "w", encoding="utf-8") as handle:
        handle.write(_TAG_TEXT)


def _made_by_cudalint(folder: str) -> bool:
    if os.path.islink(folder):
        return False
    try:
        with open(os.path.join(folder, CACHE_TAG), encoding="utf-8") as handle:
            return handle.read(len(_TAG_TEXT) + 1) == _TAG_TEXT
    except (OSError, UnicodeDecodeError):
        return False


def mark_used_and_prune(directory: str) -> None:
    """Mark the cache folder `directory` (`<kind>-<digest>`) as used now, and remove the cache's other
    folders of its kind (other cudalint versions, other libclang installations) that cudalint created (they
    hold its marker) and no process has used for 30 days. Whatever else is there, wherever the cache directory
    points, is left alone."""
    kind = os.path.basename(directory).split("-")[0] + "-"
    try:
        os.utime(directory)
        names = os.listdir(os.path.dirname(directory))
    except OSError:
        return  # a read-only cache is still usable
    now = time.time()
    for name in names:
        other = os.path.join(os.path.dirname(directory), name)
        if not name.startswith(kind) or other == directory:
            continue
        try:
            if now - os.stat(other).st_mtime > _UNUSED_FOR and _made_by_cudalint(other):
                shutil.rmtree(other, ignore_errors=True)
        except OSError:
            continue  # removed by another process meanwhile
