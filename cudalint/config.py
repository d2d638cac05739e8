"""Configuration: `[tool.cudalint]` in pyproject.toml or a `cudalint.toml`, found by walking up."""

from __future__ import annotations

import fnmatch
import os
import sys
from dataclasses import dataclass, field

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from cudalint.archs import DEFAULT_ARCH, architecture
from cudalint.checks.registry import is_valid_selector
from cudalint.compile_flags import CompileFlags, CompileFlagsError, check_define, flags_for

SEVERITY_LEVELS = ("error", "warning", "info")
_KEYS = {"select", "extend-select", "ignore", "per-file-ignores", "arch", "fail-on", "include-dirs", "defines",
         "compile-commands", "exclude", "extend-exclude", "respect-gitignore"}


class ConfigError(ValueError):
    """A configuration problem the user must fix; the CLI reports it with exit code 2."""


@dataclass
class LintOptions:
    select: list[str] = field(default_factory=lambda: ["ALL"])
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    arch: str = DEFAULT_ARCH
    fail_on: str = "error"
    config_path: str | None = None
    # KernelBench reference problem for CL406/CL407: a reference file, or a problems directory in which
    # the reference of a run file `level_<L>_problem_<P>_sample_<S>_kernel.py` is looked up
    reference: str | None = None
    problems: str | None = None
    # the project's build: absolute include directories, NAME[=VALUE] macros, a compile_commands.json
    include_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    compile_commands: str | None = None
    # which files a directory holds (cudalint.file_selection): gitignore patterns relative to the configuration
    # file's folder; None: the defaults
    exclude: list[str] | None = None
    extend_exclude: list[str] = field(default_factory=list)
    respect_gitignore: bool = True
    # in-source `cudalint: ignore` comments are the author's: honoured for one's own code, not for code
    # being judged (the pre-filter, `check --ignore-noqa`), whose author could hide any finding with one
    honour_suppressions: bool = True
    # run the solution's Python on the CPU against its reference (cudalint/dryrun/) when a reference is known
    dry_run: bool = True

    def validate(self) -> LintOptions:
        for selector in [*self.select, *self.ignore, *(c for cs in self.per_file_ignores.values() for c in cs)]:
            if not is_valid_selector(selector):
                raise ConfigError(f"unknown rule selector {selector!r}")
        try:
            architecture(self.arch)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        if self.fail_on not in SEVERITY_LEVELS:
            raise ConfigError(f"fail-on must be one of {', '.join(SEVERITY_LEVELS)}, not {self.fail_on!r}")
        try:
            for define in self.defines:
                check_define(define)
            if self.compile_commands is not None:
                flags_for(self.compile_commands, "")  # reads (and keeps) the database: a bad one is reported now
        except CompileFlagsError as error:
            raise ConfigError(str(error)) from None
        return self

    def compile_flags(self, path: str) -> CompileFlags:
        """The build flags for the file `path`: the include directories and macros given, then its entry in
        the compilation database."""
        given = CompileFlags(tuple(self.include_dirs), tuple(self.defines))
        if self.compile_commands is None:
            return given
        try:
            return given + flags_for(self.compile_commands, path)
        except CompileFlagsError:
            return given  # changed since validation into something unreadable: the flags given still hold

    def ignored_for(self, path: str) -> list[str]:
        base = self.config_path and os.path.dirname(self.config_path)
        relative = os.path.relpath(path, base) if base else path
        found = []
        for pattern, codes in self.per_file_ignores.items():
            if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern):
                found.extend(codes)
        return found


def find_config(start: str) -> str | None:
    """The nearest cudalint.toml, or pyproject.toml with a [tool.cudalint] table, at or above `start`."""
    directory = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        candidate = os.path.join(directory, "cudalint.toml")
        if os.path.isfile(candidate):
            return candidate
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate) and _tool_table(_read_toml(candidate), candidate) is not None:
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def options_by_nearest_config(files: list[str]) -> list[LintOptions]:
    """Each file's options from its nearest configuration file, as ruff finds one per file (so the order
    files come in changes nothing); files under one configuration share one LintOptions. Raises
    ConfigError."""
    by_config: dict[str | None, LintOptions] = {}
    by_directory: dict[str, str | None] = {}
    per_file = []
    for path in files:
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in by_directory:
            by_directory[directory] = find_config(path)
        found = by_directory[directory]
        if found not in by_config:
            by_config[found] = load_config(found) if found else LintOptions()
        per_file.append(by_config[found])
    return per_file


def load_config(path: str) -> LintOptions:
    data = _read_toml(path)
    table = (_tool_table(data, path) or {}) if path.endswith("pyproject.toml") else data
    for key in table:
        if key not in _KEYS:
            raise ConfigError(f"{path}: unknown configuration key {key!r} (known: {', '.join(sorted(_KEYS))})")
    options = LintOptions(config_path=os.path.abspath(path))
    if "select" in table:
        options.select = _string_list(table, "select", path)
    options.select += _string_list(table, "extend-select", path) if "extend-select" in table else []
    if "ignore" in table:
        options.ignore = _string_list(table, "ignore", path)
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{path}: per-file-ignores must be a table of glob = [codes]")
    options.per_file_ignores = {k: _string_list(per_file, k, path) for k in per_file}
    if "arch" in table:
        options.arch = str(table["arch"])
    if "fail-on" in table:
        options.fail_on = str(table["fail-on"])
    # paths in the configuration are relative to its folder, as a build's are to its own
    base = os.path.dirname(options.config_path)
    if "include-dirs" in table:
        options.include_dirs = [os.path.normpath(os.path.join(base, d))
                                for d in _string_list(table, "include-dirs", path)]
    if "defines" in table:
        options.defines = _string_list(table, "defines", path)
    if "compile-commands" in table:
        if not isinstance(table["compile-commands"], str):
            raise ConfigError(f"{path}: compile-commands must be a string (a compile_commands.json)")
        options.compile_commands = os.path.join(base, table["compile-commands"])
    if "exclude" in table:
        options.exclude = _string_list(table, "exclude", path)
    if "extend-exclude" in table:
        options.extend_exclude = _string_list(table, "extend-exclude", path)
    if "respect-gitignore" in table:
        if not isinstance(table["respect-gitignore"], bool):
            raise ConfigError(f"{path}: respect-gitignore must be true or false")
        options.respect_gitignore = table["respect-gitignore"]
    try:
        return options.validate()
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def _read_toml(path: str) -> dict:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read configuration: {error}") from None
    except RecursionError:
        raise ConfigError(f"{path}: cannot read configuration: nested too deeply") from None


def _tool_table(data: dict, path: str) -> dict | None:
    """pyproject.toml's [tool.cudalint] table; None when it has none."""
    tool = data.get("tool", {})
    table = tool.get("cudalint") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.cudalint] must be a table")
    return table


def _string_list(table: dict, key: str, path: str) -> list[str]:
    value = table[key]
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: {key} must be a list of strings")
    return value
