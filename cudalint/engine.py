"""The engine: parse each input once, run the selected rules, apply suppressions and configuration.

The library API lives here. It returns data; it never prints or exits.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import queue
import threading
import traceback
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cudalint.archs import architecture
from cudalint.checks.context import RuleContext, UnitFacts
from cudalint.checks.registry import Rule, all_rules, find_rule, matches, selects
from cudalint.compile_flags import CompileFlags
from cudalint.config import ConfigError, LintOptions, options_by_nearest_config
from cudalint.dryrun.facts import DryRunFacts
from cudalint.findings import Finding, Location, Severity
from cudalint.frontend import HostDefinitions, LoweredUnit, lower_unit, prepare_workspace
from cudalint.model.program import build_program
from cudalint.sources import SUFFIXES, SourceDocument, load_document
from cudalint.suppressions import apply_suppressions, parse_suppressions, problems

if TYPE_CHECKING:
    from cudalint.result_cache import ResultCache

MAX_FILE_BYTES = 4 * 1024 * 1024  # larger inputs are not kernels; refusing them keeps lint time bounded

# libclang parses on a thread of its own with an 8 MB stack unless LIBCLANG_NOTHREADS is set (it reads
# the variable at each parse); thousands of nested statements or unary operators overflow that stack and
# the process dies with SIGSEGV, taking the caller with it. With it set, libclang parses on the calling
# thread: the lint thread below, whose stack is far larger.
os.environ.setdefault("LIBCLANG_NOTHREADS", "1")


class InputError(Exception):
    """An input cudalint cannot read: missing, unreadable, binary, not UTF-8, too large."""


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None  # an InputError's message; no findings then


def selected_rules(options: LintOptions, path: str | None = None) -> list[Rule]:
    ignore = list(options.ignore) + (options.ignored_for(path) if path else [])
    return [r for r in all_rules()
            if any(selects(s, r) for s in options.select) and not any(matches(s, r) for s in ignore)]


def lint_source(text: str, filename: str = "<input>.cu", options: LintOptions | None = None,
                directory: str | None = None) -> list[Finding]:
    """Lint CUDA (or Python with embedded CUDA, when `filename` ends in .py) given as text."""
    options = (options or LintOptions()).validate()
    return _lint_thread.run(_lint_text, filename, text, options, directory)


def read_source(path: str) -> str:
    """Read an input file as text, or raise InputError with a one-line reason."""
    try:
        # a FIFO or a device would block the read (forever, for a FIFO nobody writes)
        if os.path.exists(path) and not os.path.isdir(path) and not os.path.isfile(path):
            raise InputError(f"{path}: not a regular file")
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        try:
            os.listdir(path)
        except OSError as error:
            raise InputError(f"{path}: cannot read the directory: {error.strerror or error}") from None
        raise InputError(f"{path}: is a directory") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror or error}") from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"{path}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB, not a kernel source")
    if b"\0" in data:
        raise InputError(f"{path}: binary file (contains NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text (byte {error.start})") from None


def expand_paths(paths: Iterable[str]) -> Iterator[str]:
    """Files to lint: given files as they are, directories searched recursively by extension."""
    for path in paths:
        if os.path.isdir(path):
            unreadable: list[str] = []
            # a folder that cannot be listed is yielded itself: reading it then fails with the reason, so it
            # is reported with the unreadable files instead of being skipped without a word
            for root, dirs, files in os.walk(path, onerror=lambda error: unreadable.append(error.filename)):
                yield from _drain(unreadable)
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("__pycache__", "node_modules"))
                for name in sorted(files):
                    if name.endswith(SUFFIXES):
                        yield os.path.join(root, name)
            yield from _drain(unreadable)
        elif os.path.exists(path):
            yield path
        else:
            raise InputError(f"{path}: no such file or directory")


def _drain(items: list[str]) -> Iterator[str]:
    while items:
        yield items.pop(0)


def lint_file(path: str, options: LintOptions, cache: ResultCache | None = None) -> FileResult:
    """Lint the file `path`; with a `cache`, its stored findings when nothing they depend on changed."""
    try:
        text = read_source(path)
    except InputError as error:
        return FileResult(path, error=str(error))
    digest = cache.digest(path, text, options) if cache is not None else ""
    if cache is not None:
        found = cache.lookup(path, options, digest)
        if found is not None:
            return FileResult(path, found)
    findings = _lint_thread.run(_lint_text, path, text, options, os.path.dirname(os.path.abspath(path)))
    if cache is not None:
        cache.store(path, text, options, findings, digest)
    return FileResult(path, findings)


def lint_paths(paths: Iterable[str], options: LintOptions | None = None, use_config: bool = True,
               jobs: int = 1, cache: ResultCache | None = None) -> list[FileResult]:
    """Lint files and directories. With `use_config`, each file's nearest configuration file applies
    unless `options` are given; with a `cache` (`ResultCache.default()`), unchanged files' findings are
    reused. Raises InputError for a path that does not exist, ConfigError for bad config."""
    files = list(expand_paths(list(paths)))
    if options is not None:
        return list(iter_lint_files(files, options, jobs, cache))
    per_file = options_by_nearest_config(files) if use_config else [LintOptions()] * len(files)
    return list(iter_lint_each(files, per_file, jobs, cache))


def iter_lint_files(files: list[str], options: LintOptions, jobs: int = 1,
                    cache: ResultCache | None = None) -> Iterator[FileResult]:
    """The result of each file, in order, as soon as it is ready; `jobs` > 1 lints in worker processes
    (libclang is not known to be thread-safe; processes are)."""
    return iter_lint_each(files, [options] * len(files), jobs, cache)


def iter_lint_each(files: list[str], options_per_file: list[LintOptions], jobs: int = 1,
                   cache: ResultCache | None = None) -> Iterator[FileResult]:
    """`iter_lint_files` with options of each file's own (its reference problem, its GPU's architecture)."""
    for options in {id(o): o for o in options_per_file}.values():
        options.validate()
    if jobs > 1 and len(files) > 1:
        chunk = max(1, min(16, len(files) // (4 * jobs)))
        if multiprocessing.get_start_method() == "fork":
            prepare_workspace(files)  # forked workers share its headers and precompiled preludes
        done = 0
        try:
            with ProcessPoolExecutor(max_workers=jobs, initializer=tune_garbage_collector) as pool:
                for result in pool.map(lint_file, files, options_per_file, [cache] * len(files), chunksize=chunk):
                    done += 1
                    yield result
        except BrokenProcessPool:
            # a worker died (a crash in libclang): the files it had are lost with it, and the pool with them;
            # each file left gets a process of its own, so that only the one that crashes goes unchecked
            for path, options in zip(files[done:], options_per_file[done:]):
                yield _lint_alone(path, options, cache)
    else:
        for path, options in zip(files, options_per_file):
            yield lint_file(path, options, cache)


def _lint_alone(path: str, options: LintOptions, cache: ResultCache | None) -> FileResult:
    try:
        with ProcessPoolExecutor(max_workers=1) as pool:
            return pool.submit(lint_file, path, options, cache).result()
    except BrokenProcessPool:
        internal = find_rule("CL900")
        return FileResult(path, [Finding(internal.code, internal.name, internal.severity, Location(path, 1, 1, 1, 1),
                                         "the process linting this file crashed; it was not checked")])


def tune_garbage_collector() -> None:
    """Set up this process's garbage collector for linting: what was loaded at start-up is never garbage,
    and a file's objects, freed by reference counting when it is done (the analyses hold no reference
    cycles; tests/test_prefilter.py checks), rarely reach the first threshold. The CLI and the worker
    processes call this; it changes process-wide settings, so a library caller decides for itself."""
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


def default_jobs(file_count: int) -> int:
    """Worker processes worth starting: one per core, but none for a handful of files (a worker's start
    costs about as much as linting a few files)."""
    return max(1, min(os.cpu_count() or 1, file_count // 8))


# --------------------------------------------------------------------------------------------- internals


class _LintThread:
    """The one thread of a process that parses and analyses. Its stack is 512 MiB of address space (pages
    are committed only as deep code touches them), so that libclang's recursive descent over deeply
    nested code and the C walk of its tree do not overflow where the main thread's 8 MB would; it also
    keeps libclang, which is not known to be thread-safe, on one thread whoever calls."""

    STACK_BYTES = 512 * 1024 * 1024

    def __init__(self) -> None:
        self._pid: int | None = None
        self._lock = threading.Lock()

    def run(self, function, *args):
        with self._lock:  # callers on several threads take turns
            if threading.current_thread() is getattr(self, "_thread", None):
                return function(*args)
            if self._pid != os.getpid():  # first use, or a forked child: the parent's thread is not here
                self._start()
            if self._thread is None:  # no thread could be made with that stack: lint here instead
                return function(*args)
            done: queue.Queue = queue.Queue(maxsize=1)
            self._tasks.put((function, args, done))
            ok, value = done.get()
        if not ok:
            raise value
        return value

    def _start(self) -> None:
        self._pid, self._tasks = os.getpid(), queue.Queue()
        try:
            previous = threading.stack_size(self.STACK_BYTES)
        except (ValueError, RuntimeError):
            self._thread = None
            return
        try:
            self._thread = threading.Thread(target=self._serve, name="cudalint-lint", daemon=True)
            self._thread.start()
        except RuntimeError:  # the address space is limited (ulimit -v)
            self._thread = None
        finally:
            threading.stack_size(previous)

    def _serve(self) -> None:
        while True:
            function, args, done = self._tasks.get()
            try:
                done.put((True, function(*args)))
            except BaseException as error:  # noqa: BLE001 - handed to the caller, who raises it
                done.put((False, error))


_lint_thread = _LintThread()


def _lint_text(path: str, text: str, options: LintOptions, directory: str | None) -> list[Finding]:
    return _lint_document(load_document(path, text), options, directory)


def _lint_document(document: SourceDocument, options: LintOptions, directory: str | None) -> list[Finding]:
    arch = architecture(options.arch)
    rules = selected_rules(options, document.path)
    findings: list[Finding] = []
    unit_rules = [r for r in rules if r.scope == "unit"]
    harness_wanted = options.dry_run and any(r.code.startswith("CL4") for r in rules)
    units = list(_unit_facts(document, directory, findings, options.compile_flags(document.path))) \
        if unit_rules or harness_wanted else []
    harness = _dry_run_of(document, options, units) if harness_wanted else None
    for rule in rules:
        if rule.scope == "document":
            findings += _run(rule, RuleContext(rule, document, arch, options=options, harness=harness))
    programs = []
    for facts in units:
        programs.append(facts.program)
        for rule in unit_rules:
            findings += _run(rule, RuleContext(rule, document, arch, facts, options, harness))
    # cached analyses refer back to what they analyse: dropped here, the file's IR is freed now instead
    # of waiting for the cycle collector
    for program in programs:
        program.analyses.clear()
    document.analyses.clear()
    findings = _dedupe(findings)
    suppressions = parse_suppressions(document.path, document.text)
    findings = apply_suppressions(findings, suppressions)
    unused_rule = find_rule("CL902")
    if unused_rule in rules:
        active = {r.code for r in rules}
        for suppression in suppressions:
            wrong = problems(suppression, active)
            if wrong:
                findings.append(Finding(unused_rule.code, unused_rule.name, unused_rule.severity,
                                        suppression.location, "; ".join(wrong)))
    return sorted(findings, key=Finding.sort_key)


def dry_run(solution_path: str, reference_path: str | None = None, *, use_cache: bool = True,
            timeout: float | None = None) -> DryRunFacts:
    """Run the Python layer of the KernelBench solution at `solution_path` on the CPU against the reference
    problem at `reference_path` (None: the solution file's own `Model`), with its compiled extensions
    replaced by their model, and return what happened (see cudalint/dryrun/). The solution's code runs in a
    sandboxed process of its own, never in this one. Raises InputError for an unreadable solution."""
    document = load_document(solution_path, read_source(solution_path))
    units = _lint_thread.run(lambda: list(_unit_facts(document, os.path.dirname(os.path.abspath(solution_path)),
                                                      [], LintOptions().compile_flags(solution_path))))
    return _dry_run_facts(document, reference_path, units, use_cache, timeout)


def _dry_run_of(document: SourceDocument, options: LintOptions, units: list[UnitFacts]) -> DryRunFacts | None:
    """The dry run of a document the harness rules will judge: a KernelBench solution with a reference."""
    from cudalint.harness.kernelbench import reference_for

    reference = reference_for(document.path, options.reference, options.problems)
    if reference is not None and os.path.abspath(reference) == os.path.abspath(document.path):
        reference = None
    if reference is None and not (document.python_module is not None and _defines_reference(document)):
        return None
    return _dry_run_facts(document, reference, units, True)


def _defines_reference(document: SourceDocument) -> bool:
    names = {getattr(node, "name", None) for node in document.python_module.body}
    return {"Model", "get_inputs", "get_init_inputs"} <= names


def _dry_run_facts(document: SourceDocument, reference: str | None, units: list[UnitFacts],
                   use_cache: bool, timeout: float | None = None) -> DryRunFacts:
    from cudalint.dryrun.extension import extension_model
    from cudalint.dryrun.runner import run_dry
    from cudalint.harness.forward import state_of

    solution = state_of(document).solution
    if solution is None or not solution.model_new_named or not solution.load_inline_calls:
        return DryRunFacts.skip("dry run skipped: not a KernelBench solution with load_inline")
    extension = extension_model(solution, units)
    if timeout is None:
        return run_dry(document.text, reference, extension, use_cache=use_cache)
    return run_dry(document.text, reference, extension, use_cache=use_cache, timeout=timeout)


def _unit_facts(document: SourceDocument, directory: str | None, findings: list[Finding],
                flags: CompileFlags = CompileFlags()) -> Iterator[UnitFacts]:
    # the CUDA units first: a C++ unit that only declares functions they define is read from them
    lowered: dict[int, LoweredUnit] = {}
    definitions: HostDefinitions | None = None  # of all the CUDA units, made for the first C++ unit
    for unit in sorted(document.units, key=lambda u: u.language != "cuda"):
        try:
            if unit.language != "cuda" and definitions is None:
                definitions = HostDefinitions([lowered[id(u)] for u in document.units if id(u) in lowered])
            lowered[id(unit)] = lower_unit(unit, directory, definitions or (), flags)
        except Exception as error:  # noqa: BLE001 - a frontend bug must not stop the other files
            findings.append(_internal_error(document, error))
    for unit in document.units:
        if id(unit) not in lowered:
            continue
        try:
            program = build_program(unit, lowered[id(unit)].functions, lowered[id(unit)].globals)
        except Exception as error:  # noqa: BLE001 - as above
            findings.append(_internal_error(document, error))
            continue
        yield UnitFacts(unit, lowered[id(unit)], program)


def _run(rule: Rule, context: RuleContext) -> list[Finding]:
    try:
        return list(rule.check(context))
    except Exception as error:  # noqa: BLE001 - one rule's bug must not hide the others' findings
        return [_internal_error(context.document, error, rule)]


def _internal_error(document: SourceDocument, error: Exception, rule: Rule | None = None) -> Finding:
    internal = find_rule("CL900")
    where = traceback.extract_tb(error.__traceback__)[-1]
    stage = f"rule {rule.code}" if rule else "the front end"
    message = (f"cudalint internal error in {stage}: {type(error).__name__}: {error} "
               f"({os.path.basename(where.filename)}:{where.lineno}); please report it")
    return Finding(internal.code, internal.name, internal.severity, Location(document.path, 1, 1, 1, 1), message)


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen, kept = set(), []
    for finding in findings:
        key = (finding.code, finding.location, finding.message)
        if key not in seen:
            seen.add(key)
            kept.append(finding)
    return kept


def exceeds(findings: Iterable[Finding], fail_on: str) -> bool:
    threshold = Severity(fail_on).rank
    return any(f.severity.rank >= threshold for f in findings)


__all__ = [
    "ConfigError", "DryRunFacts", "FileResult", "InputError", "LintOptions", "default_jobs", "dry_run", "exceeds", "expand_paths",
    "iter_lint_each", "iter_lint_files", "lint_file", "lint_paths", "lint_source", "read_source", "selected_rules",
    "tune_garbage_collector"]
