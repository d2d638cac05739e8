"""The user's project build flags that change what a unit parses to: include directories, macros and the
language standard, given on the command line, in the configuration or by a compile_commands.json."""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
from dataclasses import dataclass
from functools import lru_cache

_STANDARD = re.compile(r"(?:c|gnu)\+\+\d\w")
_MACRO = re.compile(r"[A-Za-z_]\w*(?:=.*)?", re.DOTALL)


class CompileFlagsError(ValueError):
    """A compile_commands.json that cannot be read, or a malformed flag."""


@dataclass(frozen=True)
class CompileFlags:
    """Flags for one file. Directories are absolute and searched in order, after the file's own folder and
    before cudalint's stub headers (as the real build searches them before the toolkit's)."""

    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()  # NAME or NAME=VALUE
    standard: str | None = None  # c++20; None: cudalint's own, c++17

    def arguments(self) -> list[str]:
        return [*("-I" + d for d in self.include_dirs), *("-D" + d for d in self.defines),
                *(["-std=" + self.standard] if self.standard else [])]

    def __add__(self, other: CompileFlags) -> CompileFlags:
        return CompileFlags(self.include_dirs + other.include_dirs, self.defines + other.defines,
                            other.standard or self.standard)


def check_define(text: str) -> str:
    """`text` if it is a macro definition `NAME` or `NAME=VALUE`; raises CompileFlagsError."""
    if not _MACRO.fullmatch(text):
        raise CompileFlagsError(f"not a macro definition NAME or NAME=VALUE: {text!r}")
    return text


def flags_for(database: str, path: str) -> CompileFlags:
    """The flags of the entry for `path` (matched by absolute, normalized path) in the compile_commands.json
    `database`; none when it has no entry. Raises CompileFlagsError."""
    try:
        status = os.stat(database)
    except (OSError, ValueError) as error:  # ValueError: a NUL in the name
        raise CompileFlagsError(f"{database}: cannot read: {getattr(error, 'strerror', None) or error}") from None
    if not stat.S_ISREG(status.st_mode):  # a FIFO would block the read
        raise CompileFlagsError(f"{database}: not a regular file")
    mtime = status.st_mtime_ns
    return _entries(os.path.abspath(database), mtime).get(os.path.normpath(os.path.abspath(path)), CompileFlags())


@lru_cache(maxsize=8)
def _entries(database: str, mtime: int) -> dict[str, CompileFlags]:
    try:
        with open(database, encoding="utf-8") as handle:
            entries = json.load(handle)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise CompileFlagsError(f"{database}: cannot read a compilation database: {error}") from None
    if not isinstance(entries, list):
        raise CompileFlagsError(f"{database}: a compilation database is a JSON list of entries")
    found: dict[str, CompileFlags] = {}
    for number, entry in enumerate(entries):
        where = f"{database}: entry {number}"
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str) \
                or not isinstance(entry.get("directory", ""), str):
            raise CompileFlagsError(f"{where}: needs a string `file` (and `directory`)")
        directory = os.path.join(os.path.dirname(database), entry.get("directory", ""))
        arguments = entry.get("arguments")
        if arguments is None and isinstance(entry.get("command"), str):
            try:
                arguments = shlex.split(entry["command"])
            except ValueError as error:
                raise CompileFlagsError(f"{where}: cannot split the command: {error}") from None
        if not isinstance(arguments, list) or not all(isinstance(a, str) for a in arguments):
            raise CompileFlagsError(f"{where}: needs `arguments` (a list of strings) or `command`")
        file = os.path.normpath(os.path.join(directory, entry["file"]))
        found.setdefault(file, _parse_arguments(arguments[1:], directory))  # the first entry wins, as in clangd
    return found


# clang/gcc and nvcc spellings, each with its value attached (-Idir, -std=c++17) or as the next argument
_INCLUDE_OPTIONS = ("-I", "-isystem", "--include-path", "-iquote")
_DEFINE_OPTIONS = ("-D", "--define-macro")
_STANDARD_OPTIONS = ("-std", "--std")


def _parse_arguments(arguments: list[str], directory: str) -> CompileFlags:
    """The include directories, macros and standard in a compiler's arguments; the rest is not ours."""
    includes: list[str] = []
    defines: list[str] = []
    standard = None
    pending = None
    for argument in arguments:
        if pending is not None:
            option, pending = pending, None
            value = argument
        else:
            option, value = _split_option(argument)
            if option is None:
                continue
            if value == "":
                pending = option
                continue
        if option in _INCLUDE_OPTIONS:
            includes.append(os.path.normpath(os.path.join(directory, value)))
        elif option in _DEFINE_OPTIONS:
            if _MACRO.fullmatch(value):
                defines.append(value)
        elif _STANDARD.fullmatch(value):
            standard = value
    return CompileFlags(tuple(includes), tuple(defines), standard)


def _split_option(argument: str) -> tuple[str | None, str]:
    """(option, attached value or "") for the options we read; (None, "") for any other argument."""
    for option in (*_INCLUDE_OPTIONS, *_DEFINE_OPTIONS, *_STANDARD_OPTIONS):
        if argument == option:
            return option, ""
        if argument.startswith(option):
            rest = argument[len(option):]
            if option.startswith("--") or option in _STANDARD_OPTIONS:
                if not rest.startswith("="):
                    continue  # --std-foo, -stdlib=...: another option
                rest = rest[1:]
            return option, rest
    return None, ""
