"""Parsing a CUDA unit with libclang in stub-header mode (no CUDA toolkit, no system headers)."""

from __future__ import annotations

import atexit
import hashlib
import multiprocessing.util
import os
import re
import shutil
import tempfile
import itertools
import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

import clang.cindex as ci

from cudalint.caching import cache_root, make_cache_folder, mark_used_and_prune
from cudalint.compile_flags import CompileFlags
from cudalint.frontend import limits
from cudalint.frontend.clang_api import diagnostics, inclusions, reparse
from cudalint.positions import with_lines
from cudalint.sources import CudaUnit

VIRTUAL_INCLUDE_DIR = "/__cudalint__/include"
_VIRTUAL_UNKNOWN_DIR = "/__cudalint__/unknown"
_VIRTUAL_MAIN_DIR = "/__cudalint__/main"

_BASE_ARGS = ["-std=c++17", "-nostdinc", "-nostdinc++", "-ferror-limit=0", "-Wno-unknown-cuda-version"]
# One device-side parse covers kernels and host wrappers: host bodies and their <<<>>> launches stay
# in the AST.
_LANGUAGE_ARGS = {
    "cuda": ["-x", "cuda", "-nocudalib", "-nocudainc", "--cuda-device-only"],
    "c++": ["-x", "c++"],
}
# What the real build puts in front of the source without a line of it: nvcc force-includes
# cuda_runtime.h; load_inline prepends torch/types.h to cuda_sources and torch/extension.h to
# cpp_sources. Each prelude is parsed once per process into a precompiled header, which turns a
# 50 ms parse of the stub headers into a few ms per unit.
_PRELUDES = {
    ("cuda", "file"): ("cuda_runtime.h",),
    ("cuda", "cupy"): ("cuda_runtime.h",),
    ("cuda", "load_inline"): ("cuda_runtime.h", "torch/types.h"),
    ("c++", "load_inline"): ("torch/extension.h",),
}

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.MULTILINE)
_INCLUDE_DIRECTIVE = re.compile(r'#[ \t]*include[ \t]*[<"]([^>"]+)[>"]')  # `_INCLUDE` from its `#`
_NOT_FOUND = re.compile(r"'(.+)' file not found")  # clang's err_pp_file_not_found, the name after macro expansion


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" or "warning"
    message: str
    line: int  # in the unit
    column: int
    in_main_file: bool


@dataclass(frozen=True)
class IncludedFiles:
    """What a parse read from disk besides its unit's text and cudalint's stub headers, as the preprocessor
    resolved its includes: results made from the parse hold while each file still has the bytes read and each
    place where an include was looked for without a file there still has none."""

    files: tuple[tuple[str, str], ...] = ()  # (path, SHA-256 of the bytes the parse read)
    absent: tuple[str, ...] = ()  # paths that would have been read instead, had a file been there

    @staticmethod
    def union(parts: Iterable[IncludedFiles]) -> IncludedFiles:
        files: dict[str, str] = {}
        absent: set[str] = set()
        for part in parts:
            files.update(part.files)
            absent.update(part.absent)
        return IncludedFiles(tuple(sorted(files.items())), tuple(sorted(absent)))


@dataclass
class ParsedUnit:
    """A parsed unit. Its translation unit is borrowed: valid until the next parse in this thread with the
    same language, prelude and directory (see `_TranslationUnitPool`)."""

    unit: CudaUnit
    translation_unit: ci.TranslationUnit
    main_file: str
    diagnostics: list[Diagnostic]
    # headers the unit includes that are neither stubbed nor on disk: parsed as empty files
    unknown_headers: list[tuple[str, int]] = field(default_factory=list)  # (header, unit line)
    included: IncludedFiles = IncludedFiles()


@cache
def stub_headers() -> tuple[tuple[str, str], ...]:
    """The stub headers as (path under the virtual include directory, text), in their folders' order."""
    found: list[tuple[str, str]] = []

    def walk(folder: str, prefix: str) -> None:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir():
                    walk(entry.path, f"{prefix}/{entry.name}")
                elif entry.name.endswith((".h", ".hpp", ".cuh")) or "." not in entry.name:
                    with open(entry.path, encoding="utf-8") as handle:
                        found.append((f"{prefix}/{entry.name}", handle.read()))

    walk(os.path.join(os.path.dirname(__file__), "stubs"), VIRTUAL_INCLUDE_DIR)
    return tuple(found)


@cache
def _stub_files() -> tuple[tuple[str, str], ...]:
    """The stub headers as (path relative to the include directory, text)."""
    return tuple((path[len(VIRTUAL_INCLUDE_DIR) + 1:], text) for path, text in stub_headers())


@cache
def _stub_texts() -> dict[str, str]:
    """The stub headers' texts by their path relative to the include directory."""
    return dict(_stub_files())


@cache
def stub_header_names() -> frozenset[str]:
    """The names the stub headers are included by (`cuda_fp16.h`, `cub/cub.cuh`)."""
    return frozenset(_stub_texts())


# a stub header that stands for one real header says so in its first comment (`what <c10/cuda/CUDAStream.h>
# declares`); the stub headers under __cudalint/ without one hold what other headers share
_DECLARES_FOR = re.compile(r"cudalint stub: what <([^>]+)> declares")
# what a translation unit declares at namespace scope, by kind; records and enums count where they are defined
# (a forward declaration of __nv_bfloat16 in cuda_fp16.h does not make it usable)
_NAMED_KINDS = frozenset({
    ci.CursorKind.FUNCTION_DECL, ci.CursorKind.FUNCTION_TEMPLATE, ci.CursorKind.VAR_DECL, ci.CursorKind.TYPEDEF_DECL,
    ci.CursorKind.TYPE_ALIAS_DECL, ci.CursorKind.TYPE_ALIAS_TEMPLATE_DECL, ci.CursorKind.USING_DECLARATION,
    ci.CursorKind.MACRO_DEFINITION})
# in the name of the file the index is kept in: a change to what the index holds must change it
_DECLARATIONS_FORMAT = 1
_DEFINED_KINDS = frozenset({ci.CursorKind.STRUCT_DECL, ci.CursorKind.CLASS_DECL, ci.CursorKind.UNION_DECL,
                            ci.CursorKind.CLASS_TEMPLATE, ci.CursorKind.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION,
                            ci.CursorKind.ENUM_DECL})


@cache
def _declarations() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """Each qualified name the stub headers declare at namespace scope (`__half`, `cub::BlockReduce`, `cuda`,
    `C10_CUDA_CHECK`) with the headers that declare it, and each namespace with the namespaces its names are
    also looked up in (`at::cuda` -> `c10::cuda`, `torch` -> `at`: using-directives; a namespace alias). Made
    when a message first needs it: read from the persistent workspace, else one parse of every stub header
    (0.4 s), then kept there."""
    path = _workspace.cache_file(f"declarations-{_DECLARATIONS_FORMAT}.json")
    try:
        with open(path or "", encoding="utf-8") as handle:
            declared, namespaces = json.load(handle)
        return ({name: frozenset(headers) for name, headers in declared.items()},
                {name: frozenset(targets) for name, targets in namespaces.items()})
    except (OSError, ValueError):
        pass
    declared, namespaces = _parse_declarations()
    if path is not None:
        staged = f"{path}.{os.getpid()}"
        try:
            with open(staged, "w", encoding="utf-8") as handle:
                json.dump([{n: sorted(h) for n, h in declared.items()}, {n: sorted(t) for n, t in namespaces.items()}],
                          handle)
            os.replace(staged, path)  # readers in other processes see a whole file or none
        except OSError:
            pass  # a read-only cache: parsed again by the next process
    return declared, namespaces


def _parse_declarations() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    include = _workspace.include_dir()
    real = {path: _real_header(path, text) for path, text in _stub_files()}
    main = os.path.join(_VIRTUAL_MAIN_DIR, "__cudalint_declarations__.cu")
    text = "".join(f"#include <{path}>\n" for path, header in sorted(real.items()) if header)
    try:
        tu = ci.Index.create().parse(
            main, args=_LANGUAGE_ARGS["cuda"] + _search_args(include),
            unsaved_files=[(main, text), *_in_memory_headers(include)],
            options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD | ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)
    except ci.TranslationUnitLoadError:
        return {}, {}  # messages then name no header
    prefix = (include or VIRTUAL_INCLUDE_DIR) + os.sep
    found: dict[str, set[str]] = {}
    namespaces: dict[str, set[str]] = {}

    def record(cursor: ci.Cursor, name: str) -> None:
        file = cursor.location.file
        header = real.get(file.name[len(prefix):]) if file is not None and file.name.startswith(prefix) else None
        if header is not None and cursor.spelling and not cursor.spelling.startswith("__CUDALINT"):
            found.setdefault(name, set()).add(header)

    def walk(scope: ci.Cursor, qualifier: str) -> None:
        for cursor in scope.get_children():
            kind, name = cursor.kind, qualifier + cursor.spelling
            if kind == ci.CursorKind.NAMESPACE:
                record(cursor, name)
                namespaces.setdefault(name, set())
                walk(cursor, name + "::" if cursor.spelling else qualifier)
            elif kind in (ci.CursorKind.USING_DIRECTIVE, ci.CursorKind.NAMESPACE_ALIAS):
                # `using namespace c10::cuda;` refers to c10, then to cuda: the last is the namespace
                named = [c.referenced for c in cursor.get_children() if c.kind == ci.CursorKind.NAMESPACE_REF]
                target = named[-1] if named else None
                if target is not None:
                    looked_in = qualifier[:-2] if kind == ci.CursorKind.USING_DIRECTIVE else name
                    namespaces.setdefault(looked_in, set()).add(_qualified(target))
                if kind == ci.CursorKind.NAMESPACE_ALIAS:
                    record(cursor, name)
            elif kind == ci.CursorKind.LINKAGE_SPEC:
                walk(cursor, qualifier)
            elif kind in _NAMED_KINDS or kind in _DEFINED_KINDS and cursor.is_definition():
                record(cursor, name)
                if kind == ci.CursorKind.ENUM_DECL:
                    # an unscoped enum's values are names of the enclosing scope
                    inner = name + "::" if cursor.is_scoped_enum() else qualifier
                    for value in cursor.get_children():
                        record(value, inner + value.spelling)

    walk(tu.cursor, "")
    return ({name: frozenset(headers) for name, headers in found.items()},
            {name: frozenset(targets) for name, targets in namespaces.items()})


def _qualified(cursor: ci.Cursor) -> str:
    parts = []
    while cursor is not None and cursor.kind != ci.CursorKind.TRANSLATION_UNIT:
        parts.append(cursor.spelling)
        cursor = cursor.semantic_parent
    return "::".join(reversed(parts))


def _real_header(path: str, text: str) -> str | None:
    """The real header whose declarations the stub header `path` holds; None for shared parts."""
    marker = _DECLARES_FOR.search(text[:400])
    if marker is not None:
        return marker.group(1)
    return None if path.startswith("__cudalint/") else path


def header_declaring(name: str) -> str | None:
    """The real header a unit must include to use the qualified `name` (`__half` -> `cuda_fp16.h`,
    `at::cuda::getCurrentCUDAStream` -> `c10/cuda/CUDAStream.h`): the one header that declares it, or of
    several, the one that all the others include (`cooperative_groups` -> `cooperative_groups.h`)."""
    headers = _headers_of(name, 0)
    roots = [h for h in headers if all(h in _closure((other,)) for other in headers)]
    return roots[0] if len(roots) == 1 else None


def _headers_of(name: str, depth: int) -> frozenset[str]:
    """The headers declaring `name`, else the name as the namespaces its qualifier reads declare it."""
    declared, namespaces = _declarations()
    if name in declared or depth > 4:
        return declared.get(name, frozenset())
    qualifier = name.rpartition("::")[0]
    while qualifier:
        for target in sorted(namespaces.get(qualifier, ())):
            found = _headers_of(target + name[len(qualifier):], depth + 1)
            if found:
                return found
        qualifier = qualifier.rpartition("::")[0]
    return frozenset()


def namespaces_named(name: str) -> list[str]:
    """The namespaces the stub headers declare whose last part is `name` (`wmma` -> `nvcuda::wmma`)."""
    return sorted(n for n in _declarations()[1] if n.rsplit("::", 1)[-1] == name)


_local = threading.local()


def _index() -> ci.Index:
    # one Index per thread; reusing it saves most of the set-up cost of a parse
    if not hasattr(_local, "index"):
        # excludeDecls: visiting the translation unit yields only its own declarations, not the thousand
        # from the precompiled stub prelude (4 ms per parse when it does)
        _local.index = ci.Index.create(excludeDecls=True)
    return _local.index


class _Workspace:
    """Where parsing finds the stub headers (written out once, so a parse reads only the headers it includes
    instead of receiving all of them as in-memory files, 1 ms a parse) and the precompiled preludes.

    By default that is the user's cache directory (`$CUDALINT_CACHE_DIR`, else `$XDG_CACHE_HOME/cudalint`
    or `~/.cache/cudalint`), in a folder named by a digest of the stub headers, the parser arguments and
    the libclang library: building the preludes costs 0.1 to 0.3 s per process, a third of a cold
    `cudalint check` of a .py file. A cached prelude is loaded once on trial before it is trusted, and
    rebuilt when clang refuses it; other versions' folders unused for 30 days are removed.
    `CUDALINT_NO_CACHE=1`, or a cache directory that cannot be written, gives a private temporary
    directory instead, removed at exit by the process that made it. Worker processes forked after the
    workspace was prepared read it as it is. Without any usable directory, parsing falls back to
    in-memory headers and no precompiled prelude."""

    MAX_PRELUDES = 32
    MAX_CACHED = 64  # preludes in the persistent cache, about 1 MB each: units' own ones stop being added there

    def __init__(self) -> None:
        self._directory: str | None = None
        self._include: str | None = None
        self._persistent = False
        self._pch: dict[tuple[str, tuple[str, ...]], str | None] = {}  # (language, headers) -> path
        self._names = itertools.count()  # file numbers, unique however builds interleave
        self._lock = threading.Lock()

    def prepare(self, keys: set[tuple[str, tuple[str, ...]]]) -> None:
        """Make the directory and these preludes now (before forking workers, which then share them), two
        at a time: a build is a parse in libclang, which runs without Python's lock."""
        with self._lock:
            self._prepare()
            for key in keys - self._pch.keys():
                cached = self._cached(*key)
                if cached is not None:
                    self._pch[key] = cached
            missing = sorted(key for key in keys if key not in self._pch)
        if not missing:
            return
        from concurrent.futures import ThreadPoolExecutor  # with logging: 2.5 ms of a start that builds none

        with ThreadPoolExecutor(max_workers=2) as pool:
            built = dict(zip(missing, pool.map(lambda key: self._build(*key), missing)))
        with self._lock:
            for key, path in built.items():
                self._pch.setdefault(key, path)

    def include_dir(self) -> str | None:
        with self._lock:
            self._prepare()
            return self._include

    def cache_file(self, name: str) -> str | None:
        """Where a file derived from the stub headers alone is kept: in the persistent workspace (named by their
        digest), else nowhere."""
        with self._lock:
            self._prepare()
            return os.path.join(self._directory, name) if self._persistent and self._directory else None

    def prelude(self, language: str, headers: tuple[str, ...]) -> str | None:
        """The precompiled prelude of `headers`, or None: the unit then includes them as text. Built (or
        loaded from the cache) on first use, for at most `MAX_PRELUDES` header lists per process: files that
        each bring another list of heavy headers must not each pay for a build."""
        key = (language, headers)
        with self._lock:
            self._prepare()
            if key not in self._pch:
                if len(self._pch) >= self.MAX_PRELUDES:
                    return None
                self._pch[key] = self._build(language, headers)
            return self._pch[key]

    def _prepare(self) -> None:
        if self._directory is not None:
            return
        cached = _cache_directory()
        if cached is not None:
            try:
                self._include = _write_headers_once(cached)
                self._directory, self._persistent = cached, True
                mark_used_and_prune(cached)
                return
            except OSError:
                pass  # a read-only or full cache: a private directory instead
        try:
            self._directory = tempfile.mkdtemp(prefix="cudalint-")
            # atexit for this process; multiprocessing's finalizers for a worker process, which exits
            # without running atexit
            atexit.register(_remove_if_owner, self._directory, os.getpid())
            multiprocessing.util.Finalize(None, _remove_if_owner, args=(self._directory, os.getpid()),
                                          exitpriority=0)
            include = os.path.join(self._directory, "include")
            _write_headers(include)
            self._include = include
        except OSError:
            self._directory = self._directory or ""

    def _cached(self, language: str, headers: tuple[str, ...]) -> str | None:
        """The persistent cache's prelude of `headers`, when it is there and clang accepts it."""
        if not self._directory or not self._persistent:
            return None
        path = self._cached_path(language, headers)
        return path if os.path.exists(path) and self._accepted(language, path) else None

    def _cached_path(self, language: str, headers: tuple[str, ...]) -> str:
        text = "".join(f"#include <{h}>\n" for h in headers)
        return os.path.join(self._directory or "", f"{language}-{_digest(text)[:16]}.pch")

    def _build(self, language: str, headers: tuple[str, ...]) -> str | None:
        if not self._directory:
            return None
        text = "".join(f"#include <{h}>\n" for h in headers)
        # named by process: forked workers that share the directory may each build a missing one
        stem = os.path.join(self._directory, f"prelude{next(self._names)}-{os.getpid()}")
        path = stem + ".pch"
        if self._persistent:
            path = self._cached_path(language, headers)
            if self._cached(language, headers) is not None:
                return path
            if headers not in _PRELUDES.values() and _count_preludes(self._directory) >= self.MAX_CACHED:
                return None  # the cache keeps what it has (a file in use must not go), and grows no further
        try:
            tu = _index().parse(stem + ".h", args=_LANGUAGE_ARGS[language] + _search_args(self._include),
                                unsaved_files=[(stem + ".h", text), *_in_memory_headers(self._include)])
            if any(d.severity >= ci.Diagnostic.Error for d in diagnostics(tu)):
                return None  # a broken stub: fall back to parsing the prelude with every unit
            tu.save(stem + ".pch")
            if stem + ".pch" != path:
                os.replace(stem + ".pch", path)  # readers in other processes see a whole file or none
                self._mark_accepted(path)
            return path
        except (ci.TranslationUnitLoadError, ci.TranslationUnitSaveError, OSError):
            if self._persistent and os.path.exists(stem + ".pch"):
                os.remove(stem + ".pch")  # no half-written file left in the shared cache
            return None

    def _accepted(self, language: str, path: str) -> bool:
        """Whether clang accepts the cached prelude `path`: tried (`_loads`, a parse: 3-5 ms) once, then known
        from a mark beside it that names the file and the headers' folder as they were then. A prelude rebuilt,
        replaced or changed, or headers written again, do not match the mark: the prelude is tried again."""
        try:
            with open(path + ".accepted", encoding="utf-8") as handle:
                if handle.read() == self._state_of(path):
                    return True
        except OSError:
            pass
        if not self._loads(language, path):
            return False
        self._mark_accepted(path)
        return True

    def _mark_accepted(self, path: str) -> None:
        staged = f"{path}.accepted.{os.getpid()}"
        try:
            with open(staged, "w", encoding="utf-8") as handle:
                handle.write(self._state_of(path))
            os.replace(staged, path + ".accepted")  # a whole mark or none
        except OSError:
            pass  # a read-only cache: tried again by the next process

    def _state_of(self, path: str) -> str:
        """The prelude file and the headers' folder it was built from, as the file system tells them."""
        prelude, headers = os.stat(path), os.stat(self._include or "")
        return (f"{prelude.st_ino}:{prelude.st_size}:{prelude.st_mtime_ns} "
                f"{headers.st_ino}:{headers.st_mtime_ns}")

    def _loads(self, language: str, path: str) -> bool:
        """Whether clang accepts the precompiled prelude `path` (a cached file may come from an interrupted
        or tampered-with cache: clang would refuse it with an error in every unit)."""
        main = os.path.join(self._directory or "", f"check{next(self._names)}-{os.getpid()}.cu")
        try:
            tu = _index().parse(main, args=_LANGUAGE_ARGS[language] + ["-include-pch", path]
                                + _search_args(self._include), unsaved_files=[(main, "")])
        except ci.TranslationUnitLoadError:
            return False
        return not any(d.severity >= ci.Diagnostic.Error for d in diagnostics(tu))


def _count_preludes(directory: str) -> int:
    try:
        return sum(1 for name in os.listdir(directory) if name.endswith(".pch"))
    except OSError:
        return 0


def _cache_directory() -> str | None:
    """The persistent workspace's directory (not yet created), or None when caching is off."""
    root = cache_root()
    if root is None:
        return None
    identity = [repr((_BASE_ARGS, _LANGUAGE_ARGS, _PRELUDES))]
    library = libclang_identity()
    if library is None:
        return None  # an unknown libclang: a prelude built by another version would be refused anyway
    identity.append(library)
    identity += [f"{path}\0{text}" for path, text in stub_headers()]
    return os.path.join(root, "preludes-" + _digest("\0".join(identity))[:24])


def libclang_identity() -> str | None:
    """The libclang library's path, size and time; None when it cannot be told."""
    library = ci.conf.lib._name
    try:
        status = os.stat(library)
    except (OSError, TypeError):
        return None
    return f"{library}:{status.st_size}:{status.st_mtime_ns}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _write_headers(include: str) -> None:
    for name, text in _stub_files():
        path = os.path.join(include, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)


def _write_headers_once(directory: str) -> str:
    """`directory`/include with the stub headers, written by the first process that needs it: staged
    under another name and renamed into place, so no process ever sees half of it. The digest in the
    directory's name makes its content fixed; precompiled preludes record the headers' sizes and times,
    so they must never be rewritten; one found changed is not used."""
    include = os.path.join(directory, "include")
    if os.path.isdir(include):
        if not _headers_match(include):
            raise OSError(f"{include}: changed since it was written")  # edited by hand: use a private copy
        return include
    make_cache_folder(directory)
    staging = tempfile.mkdtemp(prefix="include-", dir=directory)
    try:
        _write_headers(staging)
        os.rename(staging, include)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if not os.path.isdir(include):  # not another process winning the race: a real failure
            raise
    return include


def _headers_match(include: str) -> bool:
    """Whether `include` holds exactly the stub headers (1 ms: cheap next to the preludes it saves)."""
    for name, text in _stub_files():
        try:
            with open(os.path.join(include, name), encoding="utf-8") as handle:
                if handle.read() != text:
                    return False
        except (OSError, UnicodeDecodeError):
            return False
    return True


def _remove_if_owner(directory: str, owner: int) -> None:
    if os.getpid() == owner:  # a forked child inherits exit handlers, not the directory
        shutil.rmtree(directory, ignore_errors=True)


_workspace = _Workspace()


def prepare_workspace(paths: list[str] | None = None) -> None:
    """Write the stub headers and precompile the preludes that linting `paths` (default: anything) will
    need, now; worker processes forked afterwards share them instead of each building its own. (A .py
    file's cupy sources are rare: a worker builds their prelude when it meets one.)"""
    origins = set(_PRELUDES)
    if paths is not None:
        origins = set()
        if any(path.endswith(".py") for path in paths):
            origins |= {("cuda", "load_inline"), ("c++", "load_inline")}
        if not all(path.endswith(".py") for path in paths):
            origins.add(("cuda", "file"))
    _workspace.prepare({(language, _PRELUDES[(language, origin)]) for language, origin in origins})


def _search_args(include: str | None) -> list[str]:
    return [*_BASE_ARGS, "-I" + (include or VIRTUAL_INCLUDE_DIR), "-I" + _VIRTUAL_UNKNOWN_DIR]


def _in_memory_headers(include: str | None) -> tuple[tuple[str, str], ...]:
    return () if include else stub_headers()


class _TranslationUnitPool:
    """A translation unit per parse configuration (the last few used, per thread), reparsed with each new
    text: a reparse skips clang's driver (toolchain and CUDA installation probing, 1 to 2 ms a parse).
    The main file has a fixed name per configuration, in the unit's directory so that quoted includes
    resolve as they would from the real file."""

    SIZE = 4  # configurations kept: the directory is part of one, and each unit holds its whole AST

    def __init__(self) -> None:
        self._pid = os.getpid()
        self._local = threading.local()

    def parse(self, args: tuple[str, ...], main_file: str, unsaved: list[tuple[str, str]]) -> ci.TranslationUnit:
        if self._pid != os.getpid():  # a forked worker keeps its own units
            self.__init__()
        pool = self._local.__dict__.setdefault("units", {})  # least recently used first
        tu = pool.pop(args, None)
        if tu is not None and not reparse(tu, unsaved):
            tu = None  # after a failed reparse the unit is unusable: start a new one
        if tu is None:
            tu = _index().parse(main_file, args=list(args), unsaved_files=unsaved, options=0)
        pool[args] = tu
        while len(pool) > self.SIZE:
            del pool[next(iter(pool))]
        return tu


_pool = _TranslationUnitPool()


def parse_unit(unit: CudaUnit, directory: str | None = None, flags: CompileFlags = CompileFlags()) -> ParsedUnit:
    """Parse `unit`; `directory` is where the file lives, for its relative includes; `flags`, the project's
    build flags (its include directories are searched after `directory`). Raises limits.TooComplex for a
    unit libclang must not be given; includes of what is not a regular file are left out, each an error."""
    args = list(_LANGUAGE_ARGS[unit.language])
    search = _search_folders(directory, flags)
    refusals = limits.scan(unit.text, directory, search)
    headers, base = prelude_headers(unit, search), _build_prelude(unit)
    # a prelude is precompiled in cudalint's own standard: clang refuses it under another one
    pch = _workspace.prelude(unit.language, headers) if headers and not flags.standard else None
    if pch is None and headers != base and not flags.standard:
        # no prelude of its own (over the limit, or it failed to build): its own #include lines read the headers
        headers = base
        pch = _workspace.prelude(unit.language, headers) if headers else None
    if pch is not None:
        args += ["-include-pch", pch]
    else:
        for header in headers:
            args += ["-include", header]
    if directory:
        args.append("-I" + directory)
    include = _workspace.include_dir()
    args += flags.arguments()
    args += _search_args(include)
    main_file = os.path.join(directory or _VIRTUAL_MAIN_DIR, main_file_name(unit.language))
    text = refusals.text or unit.text
    unknown = _unknown_headers(text, search)
    unsaved = [(main_file, text), *_in_memory_headers(include), *refusals.replacements]
    unsaved += [(f"{_VIRTUAL_UNKNOWN_DIR}/{name}", "") for name, _ in unknown]
    tu = _pool.parse(tuple(args), main_file, unsaved)
    reported = [Diagnostic("error", refused.message, refused.line, 1, True) for refused in refusals.includes]
    for d in diagnostics(tu):
        if d.severity < ci.Diagnostic.Warning:
            continue
        location = d.location
        in_main = location.file is not None and location.file.name == main_file
        reported.append(Diagnostic(
            "error" if d.severity >= ci.Diagnostic.Error else "warning",
            d.spelling, location.line if in_main else 0, location.column if in_main else 0, in_main,
        ))
    return ParsedUnit(unit, tu, main_file, reported, unknown, _included_files(tu, headers, search, include))


def _included_files(tu: ci.TranslationUnit, prelude: tuple[str, ...], search: list[str],
                    include: str | None) -> IncludedFiles:
    """What the parse `tu` read from disk (clang's inclusion list, however an include was spelled: through a
    macro, `%:include`, a continued line) and where a file would have changed what it read: for each name it
    looked up (an entered file's path past a folder it is searched in; a name clang found no file for; a
    header of the precompiled prelude `prelude`, which the unit's own includes of it look up again), each
    folder it may be looked up in (the search folders, the including files' folders) where no file is.
    Over-counting is safe: a file appearing there only costs a lint."""
    ours = tuple(folder + os.sep for folder in (include or VIRTUAL_INCLUDE_DIR, _VIRTUAL_UNKNOWN_DIR, _VIRTUAL_MAIN_DIR))
    files: dict[str, str] = {}
    folders = list(search)  # the user's folders a name is looked up in, in order; then the includers'
    names: set[str] = set(_closure(prelude))
    entered: list[str] = []
    for includer, path, data in inclusions(tu):
        folder = os.path.dirname(includer)
        if folder and not folder.startswith(ours) and folder not in folders:
            folders.append(folder)
        if not path.startswith(ours):
            # None: clang no longer holds the bytes; a digest nothing matches keeps no result made from them
            files[path] = "" if data is None else hashlib.sha256(data).hexdigest()
        entered.append(path)
    for path in entered:
        names.update(path[len(root):] for root in (*ours, *(f + os.sep for f in folders)) if path.startswith(root))
    for diagnostic in diagnostics(tu):
        missing = _NOT_FOUND.match(diagnostic.spelling)
        if missing is not None:
            names.add(missing.group(1))
    absent = {candidate for name in names for folder in folders
              if not os.path.isfile(candidate := os.path.join(folder, name))}
    return IncludedFiles(tuple(sorted(files.items())), tuple(sorted(absent)))


def _search_folders(directory: str | None, flags: CompileFlags) -> list[str]:
    """Where a unit's includes are looked for on disk, in order, before the stubs."""
    return [directory, *flags.include_dirs] if directory else list(flags.include_dirs)


# A stub header whose text, with what it includes beyond the build's prelude, has this many lines is worth
# precompiling when a unit includes it (after cuda_runtime.h alone, torch headers cost about 60 ms a parse, the
# C++ library's 15-25 ms, mma.h 13-16 ms, cuda_fp16.h 4-7 ms, cooperative_groups.h 2-3 ms; math.h 0.1-0.2 ms).
_HEAVY_LINES = 100


def prelude_headers(unit: CudaUnit, search: Sequence[str] = ()) -> tuple[str, ...]:
    """The headers precompiled in front of `unit`: what the real build puts there, then the unit's leading run of
    `#include`s of stub headers when it brings a heavy one. Only a leading run (nothing but blank lines and
    comments before it, stopping at the first other line or header): the unit then sees the same declarations in
    the same order, and its own `#include` lines find the headers already included."""
    base = _build_prelude(unit)
    known = stub_header_names()
    run: list[str] = []
    for name in _leading_includes(unit.text):
        if name not in known:
            break  # a header of the user's, or one parsed as empty: it and what follows stay in the unit
        if name not in base and name not in run:
            run.append(name)
    if not any(_weight(name, base) >= _HEAVY_LINES for name in run):
        return base  # light headers: a parse reads them faster than a new prelude is built
    if any(os.path.isfile(os.path.join(folder, name)) for folder in search for name in _closure(tuple(run))):
        return base  # one of them, or a header they include, is the user's file: a prelude would not see it
    return base + tuple(run)


def _build_prelude(unit: CudaUnit) -> tuple[str, ...]:
    """What the real build puts in front of the unit's text without a line of it."""
    return _PRELUDES.get((unit.language, unit.origin), ("cuda_runtime.h",) if unit.language == "cuda" else ())


def _leading_includes(text: str) -> list[str]:
    """The headers of the `#include` lines before anything else in `text` (blank lines and comments aside)."""
    found: list[str] = []
    in_comment = False
    for line in text.splitlines():
        if in_comment:
            if "*/" not in line:
                continue
            line, in_comment = line.split("*/", 1)[1], False
        stripped = line.strip()
        while stripped.startswith("/*"):
            if "*/" not in stripped:
                in_comment = True
                stripped = ""
                break
            stripped = stripped.split("*/", 1)[1].strip()
        if not stripped or stripped.startswith("//"):
            continue
        match = _INCLUDE.match(stripped)
        rest = stripped[match.end():].strip() if match is not None else ""
        if match is None or (rest and not rest.startswith("//")):
            break
        found.append(match.group(1).strip())
    return found


@cache
def _closure(headers: tuple[str, ...]) -> frozenset[str]:
    """The stub headers that including `headers` reads, themselves included."""
    texts = _stub_texts()
    seen: set[str] = set()
    stack = list(headers)
    while stack:
        name = stack.pop()
        if name in seen or name not in texts:
            continue
        seen.add(name)
        stack.extend(_includes_of(name))
    return frozenset(seen)


@cache
def _includes_of(name: str) -> tuple[str, ...]:
    """The headers the stub header `name` includes: `_INCLUDE`'s matches, found from each `#` that begins a
    line's text (5x faster than `_INCLUDE`, whose pattern starts with a line's start, on 700 KB of headers)."""
    text = _stub_texts()[name]
    found: list[str] = []
    position = 0
    while (match := _INCLUDE_DIRECTIVE.search(text, position)) is not None:
        start = match.start()
        if text[text.rfind("\n", 0, start) + 1:start].strip(" \t"):
            position = start + 1  # not first on its line: `_INCLUDE` may still match at a later `#`
        else:
            found.append(match.group(1).strip())
            position = match.end()
    return tuple(found)


@cache
def _weight(header: str, base: tuple[str, ...]) -> int:
    """Lines of stub text that including `header` after the prelude `base` reads."""
    texts = _stub_texts()
    return sum(texts[name].count("\n") for name in _closure((header,)) - _closure(base))


def main_file_name(language: str) -> str:
    """The name a unit's text is parsed under (clang puts it in the symbols of local declarations)."""
    return "__cudalint_unit__" + (".cu" if language == "cuda" else ".cpp")


def _unknown_headers(text: str, search: Sequence[str]) -> list[tuple[str, int]]:
    known = stub_header_names()
    unknown = []
    for match, line in with_lines(_INCLUDE.finditer(text), text):
        name = match.group(1).strip()
        if name in known or not name or name.endswith(("/", "\\")):
            continue  # a name that cannot be a file is clang's "file not found" (a stand-in for it crashes libclang)
        if any(os.path.isfile(os.path.join(folder, name)) for folder in search):
            continue
        unknown.append((name, line))
    return unknown
