"""The lint result cache: a file's findings, kept in the user's cache directory and reused while nothing
that they depend on has changed.

An entry is found by the file's path and the settings it was linted with. It holds a digest of what its
findings depend on that is known before linting: cudalint's own code and version, the libclang library, the
file's text, the selected rules, architecture and build flags and its KernelBench reference; and what the
lint read from disk as the preprocessor resolved its includes (clang's own inclusion list, however an include
is spelled): each file with a digest of the bytes read, and each place where a file would have been read
instead, had one been there. An entry is used only when its digest matches, those files are unchanged and
those places still hold no file; one that cannot be read whole is not used; a result with an incomplete
analysis (CL900) is never stored. Entries are written to a temporary file and renamed into place, so
concurrent processes read a whole entry or none.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import cache

from cudalint.caching import cache_root, make_cache_folder, mark_used_and_prune
from cudalint.config import LintOptions
from cudalint.findings import Finding
from cudalint.frontend import IncludedFiles
from cudalint.frontend.parse import libclang_identity
from cudalint.harness.kernelbench import reference_for
from cudalint.prefilter import INCOMPLETE


class ResultCache:
    """Findings per file in `directory`. `digest` first, then `lookup` with it; on a miss, lint and `store`."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    @classmethod
    def default(cls) -> ResultCache | None:
        """The cache in the user's cache directory (`results-<code digest>`), marked as used now; None when
        caching is off or cudalint's code cannot be told."""
        root, code = cache_root(), _code_digest()
        if root is None or code is None:
            return None
        directory = os.path.join(root, "results-" + code[:24])
        try:
            make_cache_folder(directory)
        except OSError:
            return None
        mark_used_and_prune(directory)
        return cls(directory)

    def digest(self, path: str, text: str, options: LintOptions) -> str:
        """The digest of what the findings of `path`, with this text and these options, depend on, as far as
        it is known before linting."""
        return _digest(path, text, options)

    def lookup(self, path: str, options: LintOptions, digest: str) -> list[Finding] | None:
        """The findings stored for `path` and these options when they were made under `digest` from files
        that are still as they were read; None when there are none, they are stale or the entry is damaged."""
        try:
            with open(self._entry(path, options), encoding="utf-8") as handle:
                entry = json.load(handle)
            if entry["digest"] != digest or not all(_file_digest(name) == read for name, read in entry["files"]) \
                    or any(os.path.isfile(name) for name in entry["absent"]):
                return None
            return [Finding.from_dict(data) for data in entry["findings"]]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):  # a missing, partial or foreign entry
            return None

    def store(self, path: str, text: str, options: LintOptions, findings: list[Finding], digest: str,
              included: IncludedFiles = IncludedFiles()) -> None:
        """Keep `findings`, made from `text` when its dependencies had `digest` (taken before the lint: if they
        changed meanwhile, the findings may be of either state and are not kept) and from the files
        `included`."""
        if any(f.code == INCOMPLETE for f in findings) or _digest(path, text, options) != digest:
            return
        entry = json.dumps({"digest": digest, "files": included.files, "absent": included.absent,
                            "findings": [f.to_dict() for f in findings]})
        target = self._entry(path, options)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".entry-", dir=os.path.dirname(target))
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as file:
                    file.write(entry)
                os.replace(temporary, target)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:
            return  # a full or read-only cache: the result is simply not kept

    def _entry(self, path: str, options: LintOptions) -> str:
        name = _hash(repr((os.path.abspath(path), path, _settings(path, options))).encode("utf-8", "surrogatepass"))
        return os.path.join(self.directory, name[:2], name[2:32] + ".json")


def _settings(path: str, options: LintOptions) -> tuple:
    """What of `options` the findings of `path` depend on (not fail-on: it only reads them)."""
    from cudalint.engine import selected_rules

    from cudalint.dryrun.runner import torch_version

    return (tuple(rule.code for rule in selected_rules(options, path)), options.arch,
            options.compile_flags(path), reference_for(path, options.reference, options.problems),
            options.honour_suppressions, options.dry_run and torch_version())


def _digest(path: str, text: str, options: LintOptions) -> str:
    settings = _settings(path, options)
    reference = settings[3]
    parts = [_code_digest(), repr((os.path.abspath(path), path, settings)), text]
    if reference is not None:
        try:
            with open(reference, "rb") as handle:
                parts.append(_hash(handle.read()))
        except OSError:
            parts.append("no reference")
    return _hash("\0".join(parts).encode("utf-8", "surrogatepass"))


@cache
def _code_digest() -> str | None:
    """A digest of cudalint's version, its files (names, sizes, times) and the libclang library; None when
    libclang cannot be told."""
    from cudalint.version import __version__

    library = libclang_identity()
    if library is None:
        return None
    package = os.path.dirname(os.path.abspath(__file__))  # this module sits at the top of the package
    parts = [__version__, library]
    for root, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            status = os.stat(os.path.join(root, name))
            parts.append(f"{os.path.relpath(os.path.join(root, name), package)}:{status.st_size}:{status.st_mtime_ns}")
    return _hash("\0".join(parts).encode("utf-8", "surrogatepass"))


def _file_digest(path: str) -> str | None:
    """The SHA-256 of the file's bytes (as `IncludedFiles` has them); None when it cannot be read or is not a
    regular file (a FIFO would block the read)."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
