"""The engine: parse each input once, run the selected rules, apply suppressions and configuration.

The library API lives here. It returns data; it never prints or exits.
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import os
import pickle
import queue
import resource
import select
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cudalint.archs import architecture
from cudalint.checks.context import RuleContext, UnitFacts
from cudalint.checks.registry import Rule, all_rules, find_rule, matches, selects
from cudalint.compile_flags import CompileFlags
from cudalint.config import ConfigError, LintOptions, options_by_nearest_config
from cudalint.dryrun.facts import DryRunFacts
from cudalint.file_selection import FileSelection
from cudalint.findings import Finding, Location, Severity
from cudalint.frontend import HostDefinitions, IncludedFiles, LoweredUnit, limits, lower_unit, prepare_workspace
from cudalint.harness.kernelbench import missing_reference
from cudalint.model.program import build_program
from cudalint.sources import SourceDocument, load_document
from cudalint.suppressions import apply_suppressions, parse_suppressions, problems

if TYPE_CHECKING:
    from concurrent.futures import Future

    from cudalint.result_cache import ResultCache

BOM = "\ufeff"
MAX_FILE_BYTES = 4 * 1024 * 1024  # larger inputs are not kernels; refusing them keeps lint time bounded
UNANALYSED = "CL904"  # code that no rule could check: a source known only at run time, nesting too deep

# libclang parses on a thread of its own with an 8 MB stack unless LIBCLANG_NOTHREADS is set (it reads
# the variable at each parse); thousands of nested statements or unary operators overflow that stack and
# the process dies with SIGSEGV, taking the caller with it. With it set, libclang parses on the calling
# thread: the lint thread below, whose stack is far larger.
os.environ.setdefault("LIBCLANG_NOTHREADS", "1")


@dataclass(frozen=True)
class Budget:
    """What linting one file in a worker process may take. Past any limit the worker is ended, the file gets
    an incomplete-analysis finding (CL900) and every other file keeps its result."""

    # CPU time, the same on a busy machine as on an idle one (the heaviest real kernel takes 8 s)
    seconds: int = 60
    # time on the clock, for a file that waits instead of computing, or a machine too busy to give it the CPU:
    # never more than a minute per file (issue 38), so an input cannot hold a batch longer than that
    wall_seconds: float = 60.0
    # address space a worker may add to what it shares with the process that forked it (its 512 MiB
    # lint-thread stack included; a real kernel takes under 100 MB more): the memory linting can take
    memory_bytes: int = 2 * 1024 ** 3


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
                directory: str | None = None, isolate: bool = False) -> list[Finding]:
    """Lint CUDA (or Python with embedded CUDA, when `filename` ends in .py) given as text; with `isolate`,
    in a worker process with the default `Budget` (untrusted text then cannot take down the caller)."""
    options = (options or LintOptions()).validate()
    if isolate:
        return next(_lint_in_workers([(filename, lint_source, (text, filename, options, directory))], 1,
                                     Budget())).findings
    return _lint_thread.run(_lint_text, filename, text.removeprefix(BOM), options, directory)[0]


def read_source(path: str) -> str:
    """Read an input file as text (without a UTF-8 byte order mark: editors do not show it, clang and Python
    skip it, and columns do not count it), or raise InputError with a one-line reason."""
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
        return data.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text (byte {error.start})") from None


def expand_paths(paths: Iterable[str], selection: FileSelection | None = None) -> Iterator[str]:
    """Files to lint: given files as they are, directories searched recursively by extension, leaving out
    what `selection` excludes (default: hidden, build and virtualenv folders, and what .gitignore ignores;
    see `cudalint.file_selection`)."""
    selection = selection or FileSelection()
    for path in paths:
        if not os.path.exists(path):
            raise InputError(f"{path}: no such file or directory")
        if not selection.keeps_given(path):
            continue
        if os.path.isdir(path):
            yield from selection.walk(path)
        else:
            yield path


def lint_file(path: str, options: LintOptions, cache: ResultCache | None = None) -> FileResult:
    """Lint the file `path`; with a `cache`, its stored findings when nothing they depend on changed."""
    try:
        text = read_source(path)
    except InputError as error:
        return FileResult(path, error=str(error))
    unjudged = missing_reference(path, options.reference, options.problems)
    if unjudged is not None:  # the reference-aware rules would be off without a word: not a pass
        return FileResult(path, error=unjudged)
    digest = cache.digest(path, text, options) if cache is not None else ""
    if cache is not None:
        found = cache.lookup(path, options, digest)
        if found is not None:
            return FileResult(path, found)
    try:
        findings, included = _lint_thread.run(_lint_text, path, text, options,
                                              os.path.dirname(os.path.abspath(path)))
    except Exception as error:  # noqa: BLE001 - out of memory, or a bug outside the rules: this file only
        return FileResult(path, [_internal_error(path, error, stage="the engine")])
    if cache is not None:
        cache.store(path, text, options, findings, digest, included)
    return FileResult(path, findings)


def lint_paths(paths: Iterable[str], options: LintOptions | None = None, use_config: bool = True,
               jobs: int = 1, cache: ResultCache | None = None, isolate: bool = False) -> list[FileResult]:
    """Lint files and directories (selected as `expand_paths` selects them). With `use_config`, each file's
    nearest configuration file applies
    unless `options` are given; with a `cache` (`ResultCache.default()`), unchanged files' findings are
    reused; with `isolate`, even one file is linted in a worker process under a `Budget` (as
    `iter_lint_each`). Raises InputError for a path that does not exist, ConfigError for bad config."""
    files = list(expand_paths(list(paths)))
    per_file = [options] * len(files) if options is not None else \
        options_by_nearest_config(files) if use_config else [LintOptions()] * len(files)
    return list(iter_lint_each(files, per_file, jobs, cache, isolate))


def iter_lint_files(files: list[str], options: LintOptions, jobs: int = 1,
                    cache: ResultCache | None = None, isolate: bool = False) -> Iterator[FileResult]:
    """The result of each file, in order, as soon as it is ready; `jobs` > 1 lints in worker processes
    (libclang is not known to be thread-safe; processes are), as `isolate` does with any `jobs`."""
    return iter_lint_each(files, [options] * len(files), jobs, cache, isolate)


def iter_lint_each(files: list[str], options_per_file: list[LintOptions], jobs: int = 1,
                   cache: ResultCache | None = None, isolate: bool = False,
                   budget: Budget = Budget()) -> Iterator[FileResult]:
    """`iter_lint_files` with options of each file's own (its reference problem, its GPU's architecture).
    Files linted in worker processes (`jobs` > 1 with several files, or `isolate`) each have the `budget`:
    a file that crashes its worker or goes past the budget ends with a CL900 finding of its own, and
    cannot take down the caller. Without them, files are linted in this process."""
    for options in {id(o): o for o in options_per_file}.values():
        options.validate()
    if isolate or (jobs > 1 and len(files) > 1):
        tasks = [(path, lint_file, (path, options, cache)) for path, options in zip(files, options_per_file)]
        yield from _lint_in_workers(tasks, max(1, min(jobs, len(files))), budget)
    else:
        for path, options in zip(files, options_per_file):
            yield lint_file(path, options, cache)


def _lint_in_workers(tasks: list[tuple[str, Callable, tuple]], jobs: int, budget: Budget) -> Iterator[FileResult]:
    """The result of each task (path, function, arguments) run in a worker process under `budget`: the
    function's FileResult (or findings), or a CL900 finding when the worker failed or went past the budget.
    The functions lint on the lint thread themselves (`lint_file`, `lint_source`)."""
    if not tasks:
        return
    forks = multiprocessing.get_start_method() == "fork"
    if forks:
        prepare_workspace([path for path, _, _ in tasks])  # forked workers share its headers and preludes
    if forks and len(tasks) == 1:  # one file (a `cudalint check` of it): a child of its own, no pool
        yield _lint_in_child(*tasks[0], budget)
        return
    import pebble  # with its imports (asyncio among them) 15 ms of a one-file check's start, which needs no pool

    # pebble's pools poll every 0.1 s: a batch waited that long for a free worker after each file, and for its
    # pool to stop. 10 ms polls cost a few microseconds each.
    pebble.common.CONSTS.sleep_unit = 0.01
    # pebble ends a worker whose task is past the time limit and starts another in its place
    try:
        pool = pebble.ProcessPool(max_workers=jobs, initializer=_start_worker, initargs=(budget.memory_bytes,))
    except OSError:  # no process-shared semaphores (some sandboxes): linted here, complete but without a budget
        for path, function, args in tasks:
            result = function(*args)
            yield result if isinstance(result, FileResult) else FileResult(path, result)
        return
    try:
        futures = [pool.schedule(_within_cpu_time, (budget.seconds, function, args), timeout=budget.wall_seconds)
                   for _, function, args in tasks]
        for (path, _, _), future in zip(tasks, futures):
            yield _worker_result(path, future, budget)
    finally:
        # the workers are idle once every result is in (stopped, they end at once: a close waits on pebble's
        # polling loops, 0.1 s); after an error, or a caller that stopped reading, what is left is not wanted
        pool.stop()
        pool.join()


def _start_worker(memory_bytes: int) -> None:
    # on top of what the worker was forked with: a caller that mapped gigabytes (torch does) has workers that
    # start above any fixed limit, and could not start even a thread under one
    _lower_limit(resource.RLIMIT_AS, _address_space() + memory_bytes)
    _lower_limit(resource.RLIMIT_CORE, 0)  # a worker ended by a limit leaves no core file
    tune_garbage_collector()


def _address_space() -> int:
    """This process's virtual memory size in bytes (0 where /proc does not tell)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            return int(handle.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def _within_cpu_time(seconds: int, function: Callable, args: tuple):
    """`function(*args)`, the worker ended by SIGXCPU once it has spent `seconds` more of CPU time."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    _lower_limit(resource.RLIMIT_CPU, math.ceil(used.ru_utime + used.ru_stime) + seconds, replace=True)
    return function(*args)


def _lower_limit(which: int, value: int, replace: bool = False) -> None:
    """Set the soft limit `which` to `value` (within the hard limit); unless `replace`, only to lower it."""
    soft, hard = resource.getrlimit(which)
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    if replace or soft == resource.RLIM_INFINITY or soft > value:
        resource.setrlimit(which, (value, hard))


def _worker_result(path: str, future: Future, budget: Budget) -> FileResult:
    import pebble

    try:
        result = future.result()
        return result if isinstance(result, FileResult) else FileResult(path, result)
    except TimeoutError:
        return _past_budget(path, _took_too_long(budget))
    except pebble.ProcessExpired as error:
        return _past_budget(path, _ended(error.exitcode, budget))
    except Exception as error:  # noqa: BLE001 - one file's failure must not lose the others' results
        return FileResult(path, [_internal_error(path, error, stage="the worker")])


def _lint_in_child(path: str, function: Callable, args: tuple, budget: Budget) -> FileResult:
    """`function(*args)` (a FileResult or findings) in a forked child process under `budget`, as a pool's
    worker would run it: for one file, without the pool's threads and imports."""
    readable, writable = os.pipe()
    try:
        child = os.fork()
    except OSError:  # no process can be made: linted here, complete but without a budget
        os.close(readable)
        os.close(writable)
        result = function(*args)
        return result if isinstance(result, FileResult) else FileResult(path, result)
    if child == 0:  # pragma: no cover - the child (coverage does not follow a fork)
        os.close(readable)
        _serve_in_child(writable, path, function, args, budget)
    os.close(writable)
    chunks, status, deadline = [], None, time.monotonic() + budget.wall_seconds
    try:
        while status is None:
            left = deadline - time.monotonic()
            if left <= 0:
                return _past_budget(path, _took_too_long(budget))
            if select.select([readable], [], [], min(left, 0.05))[0]:
                chunk = os.read(readable, 1 << 20)
                if chunk:
                    chunks.append(chunk)
                else:  # all sent: the child is ending
                    status = os.waitpid(child, 0)[1]
            else:  # ended without a word (a crash), unless a process it started holds the pipe open
                ended, status_now = os.waitpid(child, os.WNOHANG)
                status = status_now if ended else None
        while select.select([readable], [], [], 0)[0] and (chunk := os.read(readable, 1 << 20)):
            chunks.append(chunk)
    finally:
        os.close(readable)
        if status is None:  # past the budget, or the caller was interrupted
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        return _past_budget(path, _ended(code, budget))
    try:
        result = pickle.loads(b"".join(chunks))
    except Exception as error:  # noqa: BLE001 - cut short
        return FileResult(path, [_internal_error(path, error, stage="the worker")])
    return result if isinstance(result, FileResult) else FileResult(path, result)


def _serve_in_child(writable: int, path: str, function: Callable, args: tuple, budget: Budget) -> None:
    """The forked child of `_lint_in_child`: sends back the result (an exception raised: the file's internal-error
    finding, placed where it was raised), then ends (0: all sent) without the parent's exit handlers and output
    buffers; never returns."""
    status = 1
    try:
        try:
            _start_worker(budget.memory_bytes)
            result = _within_cpu_time(budget.seconds, function, args)
        except Exception as error:  # noqa: BLE001 - this file's failure, reported as its finding
            result = [_internal_error(path, error, stage="the worker")]
        with os.fdopen(writable, "wb") as pipe:
            pipe.write(pickle.dumps(result))
        status = 0
    finally:
        os._exit(status)


def _took_too_long(budget: Budget) -> str:
    return f"its analysis took longer than {budget.wall_seconds:g} s, the limit for one file"


def _ended(exitcode: int, budget: Budget) -> str:
    """Why a worker process that ended with `exitcode` (negative: the signal) left its file unchecked."""
    if exitcode == -signal.SIGXCPU:
        return f"its analysis took more than {budget.seconds} s of CPU time, the limit for one file"
    # a stack overflow in libclang, or an allocation past the limit that libclang cannot survive
    cause = f"signal {-exitcode}" if exitcode < 0 else f"exit code {exitcode}"
    return (f"the process linting it ended ({cause}): a crash, or more memory than the "
            f"{budget.memory_bytes / 1024 ** 3:g} GiB allowed for one file")


def _past_budget(path: str, reason: str) -> FileResult:
    return FileResult(path, [_incomplete(path, f"{reason}; it was not checked")])


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
        limits.on_a_large_stack()
        while True:
            function, args, done = self._tasks.get()
            try:
                done.put((True, function(*args)))
            except BaseException as error:  # noqa: BLE001 - handed to the caller, who raises it
                done.put((False, error))


_lint_thread = _LintThread()


def _lint_text(path: str, text: str, options: LintOptions,
               directory: str | None) -> tuple[list[Finding], IncludedFiles]:
    try:
        document = load_document(path, text)
    except Exception as error:  # noqa: BLE001 - a bug reading one file must not stop the others
        return [_internal_error(path, error, stage="reading the file")], IncludedFiles()
    return _lint_document(document, options, directory)


def _lint_document(document: SourceDocument, options: LintOptions,
                   directory: str | None) -> tuple[list[Finding], IncludedFiles]:
    """The document's findings, and the files on disk its parses read."""
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
    # code no rule can check is reported whatever the selection: a file with some never passes
    unanalysed = RuleContext(find_rule(UNANALYSED), document, arch, options=options)
    findings += [unanalysed.finding_at(Location(document.path, *place[:4]), place.message)
                 for place in document.unanalysed]
    programs = []
    included = []
    for facts in units:
        programs.append(facts.program)
        included.append(facts.lowered.included)
        for rule in unit_rules:
            findings += _run(rule, RuleContext(rule, document, arch, facts, options, harness))
    # cached analyses refer back to what they analyse: dropped here, the file's IR is freed now instead
    # of waiting for the cycle collector
    for program in programs:
        program.analyses.clear()
    document.analyses.clear()
    findings = _dedupe(findings)
    read = IncludedFiles.union(included)
    if not options.honour_suppressions:
        return sorted(findings, key=Finding.sort_key), read
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
    return sorted(findings, key=Finding.sort_key), read


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
    from cudalint.harness.document_state import state_of

    solution = state_of(document).solution
    if solution is None or not solution.model_new_named:
        return DryRunFacts.skip("dry run skipped: not a KernelBench solution")
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
            findings.append(_internal_error(document.path, error))
    for unit in document.units:
        if id(unit) not in lowered:
            continue
        for line, why in lowered[id(unit)].incomplete:
            where = unit.to_file(line, 1)
            findings.append(_incomplete(document.path, why, where.line, where.column))
        try:
            program = build_program(unit, lowered[id(unit)].functions, lowered[id(unit)].globals)
        except Exception as error:  # noqa: BLE001 - as above
            findings.append(_internal_error(document.path, error))
            continue
        yield UnitFacts(unit, lowered[id(unit)], program)


def _run(rule: Rule, context: RuleContext) -> list[Finding]:
    try:
        return list(rule.check(context))
    except Exception as error:  # noqa: BLE001 - one rule's bug must not hide the others' findings
        return [_internal_error(context.document.path, error, rule)]


def _internal_error(path: str, error: BaseException, rule: Rule | None = None, stage: str = "") -> Finding:
    stage = stage or (f"rule {rule.code}" if rule else "the front end")
    if isinstance(error, MemoryError):
        return _incomplete(path, f"cudalint ran out of memory in {stage}; the file was not fully checked")
    frames = traceback.extract_tb(error.__traceback__)
    where = f" ({os.path.basename(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    return _incomplete(path, f"cudalint internal error in {stage}: {type(error).__name__}: {error}{where}; "
                             f"please report it")


def _incomplete(path: str, message: str, line: int = 1, column: int = 1) -> Finding:
    """A CL900 finding: the analysis of the file did not complete."""
    internal = find_rule("CL900")
    return Finding(internal.code, internal.name, internal.severity, Location(path, line, column, line, column),
                   message)


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen, kept = set(), []
    for finding in findings:
        key = (finding.code, finding.location, finding.message)
        if key not in seen:
            seen.add(key)
            kept.append(finding)
    return kept


def exceeds(findings: Iterable[Finding], fail_on: str, strict: bool = False) -> bool:
    """Whether a finding is at or above `fail_on`; a latent one (it cannot occur at the reference's shapes)
    counts only when `strict`."""
    threshold = Severity(fail_on).rank
    return any(f.severity.rank >= threshold and (strict or not f.latent) for f in findings)


__all__ = [
    "Budget", "ConfigError", "DryRunFacts", "FileResult", "InputError", "LintOptions", "default_jobs", "dry_run",
    "exceeds", "expand_paths",
    "iter_lint_each", "iter_lint_files", "lint_file", "lint_paths", "lint_source", "read_source", "selected_rules",
    "tune_garbage_collector"]
