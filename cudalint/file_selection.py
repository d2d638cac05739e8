"""Which files a run checks, as ruff selects them.

A directory is searched recursively for `.cu`, `.cuh` and `.py` files, leaving out:
- what the exclusions match: `DEFAULT_EXCLUDE` (hidden files and folders such as `.git` and `.venv`,
  `__pycache__`, `build`, `dist`, `node_modules`, `site-packages`, `venv`) unless `exclude` replaces it, plus
  `extend-exclude`. Patterns are gitignore patterns (the `pathspec` library): one without a `/` matches a
  file or folder of that name at any depth (`venv`, `*_test.cu`), one with a `/` is relative to the folder of
  the configuration file that sets it (the working directory for the command line's);
- what git ignores: the `.gitignore` files of the repository from its root down and its
  `.git/info/exclude` (outside a git repository, none), unless `respect_gitignore` is off.
A path named explicitly is always checked, as ruff does: exclusions apply to what is found inside the
folders named, not to the names given (`force_exclude` applies them to those too, for tools such as
pre-commit that pass every changed file). Inside a named folder that is itself excluded (or inside an
excluded one), patterns are matched from that folder down.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from cudalint.config import ConfigError
from cudalint.sources import SUFFIXES

if TYPE_CHECKING:
    import pathspec

DEFAULT_EXCLUDE = (".*", "__pycache__", "build", "dist", "node_modules", "site-packages", "venv")


@dataclass(frozen=True)
class Patterns:
    """Gitignore patterns and the folder that patterns with a `/` are relative to."""

    base: str
    patterns: tuple[str, ...]

    def matches(self, path: str, is_dir: bool, floor: str | None = None) -> bool:
        """Whether the patterns match `path` (absolute); with a `floor`, matched relative to it instead of
        the base, so that no folder above the floor counts."""
        if not self.patterns:
            return False
        relative = os.path.relpath(path, floor or self.base)
        if relative == "." or relative.startswith(".." + os.sep) or relative == "..":
            relative = os.path.basename(path)  # outside the base: only the name can match
        relative = relative.replace(os.sep, "/") + ("/" if is_dir else "")
        return _spec(self.patterns).match_file(relative)


@dataclass(frozen=True)
class FileSelection:
    exclude: tuple[Patterns, ...] = field(default_factory=lambda: (Patterns(os.getcwd(), DEFAULT_EXCLUDE),))
    respect_gitignore: bool = True
    force_exclude: bool = False
    # the ignore files read, by folder: read once per selection (a run), so that edits between runs count
    _ignore_files: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def excluded(self, path: str, is_dir: bool, floor: str | None = None) -> bool:
        """Whether the exclusions or the .gitignore files leave `path` out; with a `floor`, only from that
        folder down."""
        path = os.path.abspath(path)
        if any(patterns.matches(path, is_dir, floor) for patterns in self.exclude):
            return True
        return self.respect_gitignore and self._git_ignored(path, is_dir, floor)

    def keeps_given(self, path: str) -> bool:
        """Whether a path named explicitly is checked: always, unless `force_exclude` and it is left out."""
        return not (self.force_exclude and self.excluded(path, os.path.isdir(path)))

    def walk(self, directory: str) -> Iterator[str]:
        """The files to check under `directory`, sorted by folder then name. A folder that cannot be listed
        is yielded itself: reading it then fails with the reason, so it is reported with the unreadable
        files instead of being skipped without a word."""
        floor = os.path.abspath(directory) if self.excluded(directory, True) else None
        unreadable: list[str] = []
        for root, dirs, files in os.walk(directory, onerror=lambda error: unreadable.append(error.filename)):
            yield from _drain(unreadable)
            dirs[:] = sorted(d for d in dirs if not self.excluded(os.path.join(root, d), True, floor))
            for name in sorted(files):
                path = os.path.join(root, name)
                if name.endswith(SUFFIXES) and not self.excluded(path, False, floor):
                    yield path
        yield from _drain(unreadable)

    def _git_ignored(self, path: str, is_dir: bool, floor: str | None) -> bool:
        """Whether a .gitignore of the repository (from its root, or from the floor, down to the path's folder)
        or the repository's .git/info/exclude ignores `path`, or a folder it is in."""
        for folder, lines in self._ignores_in(os.path.dirname(path), floor) or ():
            relative = os.path.relpath(path, folder).replace(os.sep, "/")
            if _spec(lines).match_file(relative + ("/" if is_dir else "")):
                return True
        return False

    def _ignores_in(self, directory: str, floor: str | None) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
        """The ignore files that apply in `directory`, from the top down: (the folder they are relative to,
        their lines); None outside a git repository, where git ignores nothing."""
        key = (directory, floor)
        if key not in self._ignore_files:
            parent = os.path.dirname(directory)
            found: list | None
            if os.path.exists(os.path.join(directory, ".git")):  # a folder, or a file in a worktree
                found = _read_ignore(directory, os.path.join(directory, ".git", "info", "exclude"))
            elif parent == directory:
                found = None
            elif directory == floor:
                found = [] if self._ignores_in(parent, None) is not None else None
            else:
                above = self._ignores_in(parent, floor)
                found = None if above is None else list(above)
            if found is not None:
                found += _read_ignore(directory, os.path.join(directory, ".gitignore"))
            self._ignore_files[key] = None if found is None else tuple(found)
        return self._ignore_files[key]


def file_selection(config_exclude: Iterable[str] | None = None, config_extend_exclude: Iterable[str] = (),
                   config_path: str | None = None, exclude: Iterable[str] | None = None,
                   extend_exclude: Iterable[str] = (), respect_gitignore: bool = True,
                   force_exclude: bool = False) -> FileSelection:
    """The selection of a configuration (patterns relative to its folder) with the command line's
    (relative to the working directory) on top: `exclude` replaces the configured exclusions, which replace
    the defaults; `extend_exclude` of both add to them."""
    here = os.getcwd()
    configured_base = os.path.dirname(os.path.abspath(config_path)) if config_path else here
    if exclude is not None:
        base = [Patterns(here, tuple(exclude))]
    elif config_exclude is not None:
        base = [Patterns(configured_base, tuple(config_exclude))]
    else:
        base = [Patterns(here, DEFAULT_EXCLUDE)]
    extra = [Patterns(configured_base, tuple(config_extend_exclude)), Patterns(here, tuple(extend_exclude))]
    for patterns in base + extra:
        if patterns.patterns is DEFAULT_EXCLUDE:
            continue  # valid: checking them would load the matcher (pathspec) for a check of named files
        for pattern in patterns.patterns:
            try:
                _spec((pattern,))
            except ValueError as error:
                raise ConfigError(f"exclude pattern {pattern!r} is not a gitignore pattern: {error}") from None
    return FileSelection(tuple(p for p in base + extra if p.patterns), respect_gitignore, force_exclude)


def _drain(items: list[str]) -> Iterator[str]:
    while items:
        yield items.pop(0)


@lru_cache(maxsize=256)
def _spec(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    import pathspec  # 8 ms: a check of the files named needs no matching

    return pathspec.GitIgnoreSpec.from_lines(patterns)


def _read_ignore(folder: str, path: str) -> list[tuple[str, tuple[str, ...]]]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = tuple(line for line in handle.read().splitlines() if _valid(line))
    except OSError:
        return []
    return [(folder, lines)] if lines else []


def _valid(line: str) -> bool:
    """Whether git would read the ignore file's line as a pattern (it skips the ones it cannot read)."""
    try:
        _spec((line,))
    except ValueError:
        return False
    return True


__all__ = ["DEFAULT_EXCLUDE", "FileSelection", "Patterns", "file_selection"]
