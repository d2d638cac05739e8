"""The command line: parse options, build LintOptions, call the engine, render, choose the exit code.

This is the only module that prints. Exit codes: 0 no finding at or above `--fail-on` (or `--exit-zero`,
or `--fix-only`), 1 some finding at or above it (or a file fixed, with `--exit-non-zero-on-fix`), 2 usage,
configuration or input errors, or a file whose analysis did not complete (CL900; one line each on stderr).
"""

from __future__ import annotations

import dataclasses
import gc
import os
import re
import sys
import traceback
from enum import Enum
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, NoReturn, Optional

import typer

from cudalint.cli_coercion import install as _convert_plain_values
from cudalint.version import version_line

if TYPE_CHECKING:  # the engine, the rules and the configuration load when a command needs them (start-up)
    from cudalint.config import LintOptions
    from cudalint.engine import FileResult
    from cudalint.file_selection import FileSelection
    from cudalint.fixes import FixReport, Linter
    from cudalint.result_cache import ResultCache

_DUNDER = re.compile(r"(?<![`\w])(__\w+__)(?![`\w])")  # __launch_bounds__ would render as bold

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2

_convert_plain_values()  # typer's pydantic adapters, for what needs one only (cli_coercion.py)

app = typer.Typer(
    name="cudalint",
    help="Find the bugs in generated CUDA kernels before any compilation.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class OutputFormat(str, Enum):
    text = "text"
    concise = "concise"
    json = "json"
    json_files = "json-files"
    json_lines = "json-lines"
    sarif = "sarif"
    github = "github"
    junit = "junit"


class Color(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


class FailOn(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"


class TableFormat(str, Enum):
    text = "text"
    markdown = "markdown"
    json = "json"


# ------------------------------------------------------------------------------------------- helpers


def _error(message: str) -> None:
    sys.stderr.write(f"cudalint: error: {message}\n")


def _fail(message: str) -> NoReturn:
    _error(message)
    raise typer.Exit(EXIT_ERROR)


def _write(text: str) -> None:
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()


def _use_color(choice: Color = Color.auto) -> bool:
    if choice is not Color.auto:
        return choice is Color.always
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _split(values: list[str] | None) -> list[str]:
    """`--select A,B --select C` -> ["A", "B", "C"]."""
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def _version(value: bool) -> None:
    if value:
        _write(version_line())
        raise typer.Exit(EXIT_OK)


def build_options(paths: list[str], *, config: str | None = None, no_config: bool = False,
                  select: list[str] | None = None, ignore: list[str] | None = None, arch: str | None = None,
                  fail_on: str | None = None, reference: str | None = None, problems: str | None = None,
                  include_dirs: list[str] | None = None, defines: list[str] | None = None,
                  compile_commands: str | None = None, ignore_noqa: bool = False,
                  dry_run: bool | None = None) -> LintOptions:
    """LintOptions from the configuration file (explicit, discovered from the first path, or none) with
    the command line on top. `select` replaces the configured selection; `ignore` adds to the configured
    ignores; a rule that `select` names exactly (full code or name) is not dropped by the configured
    ignores; include directories and macros given are searched and defined before the configured ones, and
    `compile_commands` replaces the configured database; `ignore_noqa` turns the files' suppression comments
    off. Raises ConfigError."""
    from cudalint.config import LintOptions, find_config, load_config

    if no_config:
        found = None
    else:
        found = config if config is not None else (find_config(paths[0]) if paths else None)
    return _with_command_line(load_config(found) if found else LintOptions(), select=select, ignore=ignore,
                              arch=arch, fail_on=fail_on, reference=reference, problems=problems,
                              include_dirs=include_dirs, defines=defines, compile_commands=compile_commands,
                              ignore_noqa=ignore_noqa, dry_run=dry_run)


def options_per_file(files: list[str], *, config: str | None = None, no_config: bool = False,
                     **command_line) -> list[LintOptions]:
    """Each file's LintOptions: its nearest configuration file, or the one `config` names, with the
    command line on top. Raises ConfigError."""
    from cudalint.config import options_by_nearest_config

    if config is not None or no_config:
        options = build_options(files, config=config, no_config=no_config, **command_line)
        return [options] * len(files)
    overridden: dict[int, LintOptions] = {}
    per_file = []
    for base in options_by_nearest_config(files):
        if id(base) not in overridden:
            overridden[id(base)] = _with_command_line(dataclasses.replace(base), **command_line)
        per_file.append(overridden[id(base)])
    return per_file


def _with_command_line(options: LintOptions, *, select: list[str] | None, ignore: list[str] | None,
                       arch: str | None, fail_on: str | None, reference: str | None, problems: str | None,
                       include_dirs: list[str] | None = None, defines: list[str] | None = None,
                       compile_commands: str | None = None, ignore_noqa: bool = False,
                       dry_run: bool | None = None) -> LintOptions:
    """`options` (changed in place) with the command line's choices on top of the configured ones."""
    from cudalint.checks.registry import all_rules, find_rule, matches
    from cudalint.config import LintOptions

    if dry_run is not None:
        options.dry_run = dry_run
    if select:
        LintOptions(select=select).validate()  # report a bad selector as it was written
        named = {rule.code for rule in all_rules()
                 for selector in select if find_rule(selector) is rule}
        configured = [rule.code for rule in all_rules() if any(matches(s, rule) for s in options.ignore)]
        options.select = list(select)
        options.ignore = [code for code in configured if code not in named]
    if ignore:
        options.ignore = [*options.ignore, *ignore]
    if arch is not None:
        options.arch = arch
    if fail_on is not None:
        options.fail_on = fail_on
    if reference is not None:
        options.reference = reference
    if problems is not None:
        options.problems = problems
    if include_dirs:
        options.include_dirs = [*(os.path.abspath(d) for d in include_dirs), *options.include_dirs]
    if defines:
        options.defines = [*defines, *options.defines]
    if compile_commands is not None:
        options.compile_commands = os.path.abspath(compile_commands)
    if ignore_noqa:
        options.honour_suppressions = False
    return options.validate()


def _existing(paths: list[str]) -> tuple[list[str], list[FileResult]]:
    """Split the given paths into ones that exist and the results (errors) of ones that do not."""
    from cudalint.engine import FileResult, InputError, expand_paths

    found, missing = [], []
    for path in paths:
        try:
            for _ in expand_paths([path]):
                break
            found.append(path)
        except InputError as error:
            missing.append(FileResult(path, error=str(error)))
    return found, missing


# ------------------------------------------------------------------------------------------- commands


@app.callback()
def _main(
    version: Annotated[bool, typer.Option("--version", "-V", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Find the bugs in generated CUDA kernels before any compilation."""
    # a command runs (not --version, not the group's --help): the engine it needs loads now, then the
    # garbage collector is set up for linting with what is loaded frozen
    from cudalint.engine import tune_garbage_collector

    tune_garbage_collector()
    gc.enable()  # off while `__main__` imported the command line


@app.command()
def check(
    paths: Annotated[list[str], typer.Argument(metavar="PATH", help="Files and directories to check (.cu, .cuh, .py; "
                                                    "directories are searched recursively).",
                                               show_default=False)],
    output_format: Annotated[OutputFormat, typer.Option(
        "--format", envvar="CUDALINT_OUTPUT_FORMAT", help="Output format (also $CUDALINT_OUTPUT_FORMAT).")
    ] = OutputFormat.text,
    output_format_alias: Annotated[Optional[OutputFormat], typer.Option("--output-format", hidden=True)] = None,
    select: Annotated[Optional[list[str]], typer.Option(
        "--select", metavar="RULES",
        help="Rules to run: codes, code prefixes (CL3) or names, comma-separated, repeatable; replaces "
             "the configured selection.")] = None,
    ignore: Annotated[Optional[list[str]], typer.Option(
        "--ignore", metavar="RULES",
        help="Rules not to run: codes, prefixes or names, comma-separated, repeatable; added to the "
             "configured ignores.")] = None,
    arch: Annotated[Optional[str], typer.Option(
        "--arch", metavar="SM_XX", help="Target GPU architecture, e.g. sm_90 (default: from the "
                                        "configuration, else sm_90).")] = None,
    fail_on: Annotated[Optional[FailOn], typer.Option(
        "--fail-on", help="Exit with 1 when a finding has this severity or a higher one "
                          "(default: from the configuration, else error).")] = None,
    exit_zero: Annotated[bool, typer.Option("--exit-zero", help="Exit with 0 even when there are findings "
                                                                "(input and configuration errors still exit 2).")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Latent findings (defects proven not to occur at the "
                                                          "reference's shapes, marked [latent]) fail too.")] = False,
    show_statistics: Annotated[bool, typer.Option("--statistics", help="Print the number of findings per "
                                                                      "rule instead of the findings.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the findings, no summary.")] = False,
    config: Annotated[Optional[str], typer.Option(
        "--config", metavar="FILE", help="Configuration file (cudalint.toml, or pyproject.toml with a "
                                         "tool.cudalint table); default: the nearest one above each file.")] = None,
    no_config: Annotated[bool, typer.Option("--no-config", help="Ignore all configuration files.")] = False,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=0, metavar="N",
                                      help="Files checked in parallel processes (0: one per core for large "
                                           "batches).")] = 0,
    reference: Annotated[Optional[str], typer.Option(
        "--reference", metavar="FILE", help="The KernelBench reference (Model, get_inputs) of the checked "
                                            "solution, for CL406/CL407.")] = None,
    problems: Annotated[Optional[str], typer.Option(
        "--problems", metavar="DIR", help="A KernelBench problems directory: the reference of each run file "
                                          "level_<L>_problem_<P>_sample_<S>_kernel.py is found in it.")] = None,
    color: Annotated[Color, typer.Option("--color", help="Colour the text output: auto (on a terminal, unless "
                                                         "NO_COLOR is set), always or never.")] = Color.auto,
    stdin_filename: Annotated[Optional[str], typer.Option(
        "--stdin-filename", metavar="NAME", help="With PATH `-`: the name of the source read from standard input "
                                                 "(its suffix picks CUDA or Python; its folder, the configuration "
                                                 "and relative includes).")] = None,
    fix: Annotated[bool, typer.Option("--fix", help="Apply the built-in fixes, each kept only when the file still "
                                                    "parses and re-lints free of the fixed finding; files are "
                                                    "rewritten atomically.")] = False,
    unsafe_fixes: Annotated[bool, typer.Option("--unsafe-fixes", help="With --fix, also apply the fixes marked "
                                                                      "unsafe (they can change what correct code "
                                                                      "does).")] = False,
    fix_only: Annotated[bool, typer.Option("--fix-only", help="Apply the fixes as --fix does, and report nothing else: "
                                                              "the remaining findings are not printed and do not "
                                                              "set the exit code.")] = False,
    exit_non_zero_on_fix: Annotated[bool, typer.Option("--exit-non-zero-on-fix", help="With --fix or --fix-only, exit "
                                                                                      "with 1 when a file was fixed, "
                                                                                      "even if no finding "
                                                                                      "remains.")] = False,
    add_ignore: Annotated[bool, typer.Option(
        "--add-ignore", help="Add a `cudalint: ignore[CODES]` comment on each line with findings (inside the CUDA "
                             "string for embedded CUDA) instead of reporting them; a file is rewritten only when it "
                             "then re-lints clean.")] = False,
    reason: Annotated[str, typer.Option("--reason", metavar="TEXT", help="With --add-ignore: the text written after "
                                                                         "the codes (why they are ignored).")] = "",
    diff: Annotated[bool, typer.Option("--diff", help="Print what --fix would change, as a unified diff per file, "
                                                      "instead of the findings, and write nothing; exit 1 when "
                                                      "there are changes.")] = False,
    show_fixes: Annotated[bool, typer.Option("--show-fixes", help="With --fix or --diff, list the findings fixed "
                                                                  "per file and rule.")] = False,
    include_dirs: Annotated[Optional[list[str]], typer.Option(
        "-I", "--include-dir", metavar="DIR",
        help="A directory of the project's headers, searched after the file's own folder (repeatable; before "
             "the configured ones).")] = None,
    defines: Annotated[Optional[list[str]], typer.Option(
        "-D", "--define", metavar="NAME[=VALUE]", help="A macro defined for every file (repeatable).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Lint every file afresh: neither read nor write "
                                                              "the result cache (also CUDALINT_NO_CACHE=1).")] = False,
    compile_commands: Annotated[Optional[str], typer.Option(
        "--compile-commands", metavar="FILE", help="A compile_commands.json: each file listed in it is parsed "
                                                   "with its -I, -isystem, -D and -std flags.")] = None,
    ignore_noqa: Annotated[bool, typer.Option(
        "--ignore-noqa", help="Ignore the files' `cudalint: ignore` comments: report every finding, as the "
                              "pre-filter judges untrusted code (no unused-suppression findings then).")] = False,
    exclude: Annotated[Optional[list[str]], typer.Option(
        "--exclude", metavar="PATTERNS", help="Gitignore patterns of files and folders not to check inside the "
                                              "folders given, comma-separated, repeatable; replaces the configured "
                                              "and default ones (hidden, build, dist, venv, ...).")] = None,
    extend_exclude: Annotated[Optional[list[str]], typer.Option(
        "--extend-exclude", metavar="PATTERNS", help="Patterns to exclude as well as the configured and default "
                                                     "ones.")] = None,
    respect_gitignore: Annotated[Optional[bool], typer.Option(
        "--respect-gitignore/--no-respect-gitignore",
        help="Leave out what .gitignore files ignore (default: from the configuration, else yes).",
        show_default=False)] = None,
    force_exclude: Annotated[bool, typer.Option(
        "--force-exclude", help="Apply the exclusions to the paths given too (for pre-commit and editors, which "
                                "name every file).")] = False,
    show_files: Annotated[bool, typer.Option("--show-files", help="Print the files that would be checked, and "
                                                                  "check nothing.")] = False,
    show_settings: Annotated[bool, typer.Option("--show-settings", help="Print the settings the first file would "
                                                                        "be checked with, and check nothing.")] = False,
    no_dry_run: Annotated[bool, typer.Option(
        "--no-dry-run", help="Do not run the solutions' Python on the CPU against their reference (the harness "
                             "rules then judge from the static reading alone).")] = False,
) -> None:
    """Check CUDA sources (.cu, .cuh) and Python files with embedded CUDA for bugs."""
    from cudalint.config import ConfigError
    from cudalint.engine import InputError, default_jobs, exceeds, expand_paths
    from cudalint.file_selection import file_selection
    from cudalint.harness.kernelbench import reference_options_error
    from cudalint.prefilter import INCOMPLETE
    from cudalint.result_cache import ResultCache

    output_format = output_format_alias or output_format  # ruff's spelling, accepted
    if show_statistics and output_format not in (OutputFormat.text, OutputFormat.json):  # tables, not findings
        _fail(f"--statistics prints text or JSON, not {output_format.value}")
    if config is not None and no_config:
        _fail("--config and --no-config cannot be used together")
    command_line = dict(select=_split(select), ignore=_split(ignore), arch=arch,
                        fail_on=fail_on.value if fail_on else None, reference=reference, problems=problems,
                        include_dirs=include_dirs, defines=defines, compile_commands=compile_commands,
                        ignore_noqa=ignore_noqa, dry_run=False if no_dry_run else None)
    try:
        options = build_options(paths, config=config, no_config=no_config, **command_line)
    except ConfigError as error:
        _fail(str(error))
    unusable = reference_options_error(reference, problems)
    if unusable is not None:
        _fail(unusable)

    fixes = fix or fix_only or diff
    for meaningless, message in (
            (add_ignore and fixes, "--add-ignore cannot be used with --fix, --fix-only or --diff"),
            (add_ignore and ignore_noqa, "--add-ignore writes suppression comments that --ignore-noqa ignores: give "
                                         "one of them"),
            (diff and (fix or fix_only), "--diff writes nothing: it cannot be combined with --fix or --fix-only"),
            (not fixes and (unsafe_fixes or show_fixes), "--unsafe-fixes and --show-fixes go with --fix, --fix-only "
                                                         "or --diff"),
            (exit_non_zero_on_fix and not (fix or fix_only), "--exit-non-zero-on-fix goes with --fix or --fix-only"),
            (exit_zero and (fix_only or add_ignore), "--fix-only and --add-ignore always exit with 0 on findings: "
                                                     "--exit-zero changes nothing"),
            (show_statistics and (fix_only or diff or add_ignore), "--statistics reports findings, which --fix-only, "
                                                                  "--diff and --add-ignore do not print"),
            ((show_files or show_settings) and (fixes or add_ignore or "-" in paths),
             "--show-files and --show-settings check nothing: they cannot be combined with `-`, --fix, --fix-only, "
             "--diff or --add-ignore"),
            (stdin_filename is not None and "-" not in paths, "--stdin-filename names the source read from `-`: "
                                                              "give `-` as the path"),
    ):
        if meaningless:
            _fail(message)
    fix = fix or fix_only
    if reason and not add_ignore:
        _fail("--reason is the text of the comments --add-ignore adds: give --add-ignore too")
    if "\n" in reason or "*/" in reason:
        _fail("the --reason must be one line without `*/`")
    if "-" in paths:
        if paths != ["-"] or add_ignore:
            _fail("`-` (standard input) is checked alone, and without --add-ignore")
        _check_stdin(stdin_filename or "stdin.cu", config, no_config, command_line, output_format, show_statistics,
                     quiet, color, exit_zero, fix, fix_only, diff, unsafe_fixes, show_fixes, exit_non_zero_on_fix,
                     strict)
    try:
        selection = file_selection(options.exclude, options.extend_exclude, options.config_path,
                                   exclude=_split(exclude) if exclude else None, extend_exclude=_split(extend_exclude),
                                   respect_gitignore=options.respect_gitignore if respect_gitignore is None
                                   else respect_gitignore, force_exclude=force_exclude)
    except ConfigError as error:
        _fail(str(error))
    existing, missing = _existing(paths)
    if show_files or show_settings:
        _show_selection(existing, selection, config, no_config, command_line, show_settings)
    try:
        files = list(expand_paths(existing, selection))
        per_file = options_per_file(files, config=config, no_config=no_config, **command_line)
        cache = None if no_cache else ResultCache.default()
        _say_dry_run_skipped(per_file)
        linted = _lint_with_progress(files, per_file, jobs or default_jobs(len(files)), cache,
                                     show=not quiet and len(files) > 1)
        results: list[FileResult] = missing + linted
    except (InputError, ConfigError) as error:  # a path that vanished meanwhile, a late config problem
        _fail(str(error))
    except Exception as error:  # noqa: BLE001 - a cudalint bug: one line, the traceback only on request
        if os.environ.get("CUDALINT_DEBUG"):
            traceback.print_exc()
        _fail(f"internal error: {type(error).__name__}: {error} (set CUDALINT_DEBUG=1 for the traceback; "
              f"please report it)")
    fixed_any = False
    if diff:
        changed = _show_diffs(linted, per_file, unsafe_fixes, show_fixes)
    elif fix:
        fixed_any = _apply_fixes(linted, per_file, unsafe_fixes, show_fixes)
    elif add_ignore:
        _add_ignores(linted, per_file, reason)
    input_errors = [result.error for result in results if result.error is not None]
    for message in input_errors:
        _error(message)
    if not results and not input_errors:
        sys.stderr.write("cudalint: warning: no .cu, .cuh or .py files found in the given paths\n")

    # a diff is the output; --fix-only and --add-ignore report only what they changed
    reports = not diff and not fix_only and not add_ignore
    if reports:
        fixable = _fixability(linted, per_file) if output_format is OutputFormat.text else None
        _write(_render(results, output_format.value, options, show_statistics, quiet, color, fixable=fixable,
                       strict=strict))
    batch = any(os.path.isdir(path) for path in existing)
    if batch and output_format is OutputFormat.text and not quiet and not show_statistics and len(results) > 1 \
            and reports:
        from cudalint.prefilter import summarize
        from cudalint.report.text import render_batch_summary

        _write(render_batch_summary(summarize(results, options.fail_on, strict)))

    incomplete = sorted({r.path for r in results for f in r.findings if f.code == INCOMPLETE})
    for path in incomplete:
        _error(f"{path}: the analysis did not complete (CL900), so the file was not fully checked")
    if input_errors or incomplete:
        raise typer.Exit(EXIT_ERROR)
    if diff:
        raise typer.Exit(EXIT_FINDINGS if changed and not exit_zero else EXIT_OK)
    if fix and exit_non_zero_on_fix and fixed_any:
        raise typer.Exit(EXIT_FINDINGS)
    if fix_only or add_ignore:
        raise typer.Exit(EXIT_OK)
    if not exit_zero and any(exceeds(r.findings, o.fail_on, strict) for r, o in zip(linted, per_file)):
        raise typer.Exit(EXIT_FINDINGS)
    raise typer.Exit(EXIT_OK)


def _check_stdin(name: str, config: str | None, no_config: bool, command_line: dict, output_format: OutputFormat,
                 show_statistics: bool, quiet: bool, color: Color, exit_zero: bool, fix: bool, fix_only: bool,
                 diff: bool, unsafe_fixes: bool, show_fixes: bool, exit_non_zero_on_fix: bool,
                 strict: bool) -> NoReturn:
    """Check the source on standard input as the file `name`. With --fix, the fixed source goes to stdout
    and the findings left to stderr (with --fix-only, none); with --diff, the diff goes to stdout."""
    from cudalint.engine import exceeds
    from cudalint.prefilter import INCOMPLETE

    result, text, options = _lint_stdin(name, config, no_config, command_line)
    if any(f.code == INCOMPLETE for f in result.findings):
        _fail(f"{result.path}: the analysis did not complete (CL900), so the file was not fully checked")
    changed = False
    if fix or diff:
        from cudalint.fixes import default_linter, fix_source
        from cudalint.repairing.loop import unified_diff

        report = fix_source(text, name, default_linter(options), unsafe=unsafe_fixes, findings=result.findings)
        changed = report.changed
        _write(unified_diff(name, text, report.text) if diff else report.text)
        sys.stderr.write(_fixes_summary("would fix" if diff else "fixed", [(name, report)], show_fixes))
        if diff:
            raise typer.Exit(EXIT_FINDINGS if changed and not exit_zero else EXIT_OK)
        result.findings, text = report.findings_after, report.text
    if not fix_only:
        fixable = _fixability([result], [options], {name: text}) if output_format is OutputFormat.text else None
        rendered = _render([result], output_format.value, options, show_statistics, quiet, color,
                           sources={name: text}, fixable=fixable, strict=strict)
        (sys.stderr.write if fix else _write)(rendered)
    if fix and exit_non_zero_on_fix and changed:
        raise typer.Exit(EXIT_FINDINGS)
    if fix_only:
        raise typer.Exit(EXIT_OK)
    failed = not exit_zero and exceeds(result.findings, options.fail_on, strict)
    raise typer.Exit(EXIT_FINDINGS if failed else EXIT_OK)


def _show_selection(paths: list[str], selection: FileSelection, config: str | None, no_config: bool,
                    command_line: dict, settings: bool) -> NoReturn:
    """--show-files: the files a run would check; --show-settings: what the first of them is checked with."""
    from cudalint.config import ConfigError
    from cudalint.engine import InputError, expand_paths, selected_rules

    try:
        files = list(expand_paths(paths, selection))
        options = options_per_file(files[:1], config=config, no_config=no_config, **command_line)[0] if files else None
    except (InputError, ConfigError) as error:
        _fail(str(error))
    if not settings:
        _write("".join(f"{path}\n" for path in files))
        raise typer.Exit(EXIT_OK)
    if options is None:
        _fail("no file to check in the given paths: no settings to show")
    import json

    settings_shown = {"file": files[0], "config": options.config_path}
    for name in ("select", "ignore", "per_file_ignores", "arch", "fail_on", "reference", "problems", "include_dirs",
                 "defines", "compile_commands"):
        settings_shown[name.replace("_", "-")] = getattr(options, name)
    settings_shown["rules"] = [rule.code for rule in selected_rules(options, files[0])]
    settings_shown["exclude"] = [{"relative-to": p.base, "patterns": list(p.patterns)} for p in selection.exclude]
    settings_shown["respect-gitignore"] = selection.respect_gitignore
    settings_shown["force-exclude"] = selection.force_exclude
    lines = [f"{key} = {json.dumps(value)}" for key, value in settings_shown.items()]
    _write("\n".join(lines) + "\n")
    raise typer.Exit(EXIT_OK)


def _lint_stdin(name: str, config: str | None, no_config: bool,
                command_line: dict) -> tuple[FileResult, str, LintOptions]:
    """Lint the source on standard input as the file `name` (which need not exist): its result, its text
    and the options it was linted with."""
    from cudalint.engine import MAX_FILE_BYTES, FileResult, lint_source
    from cudalint.harness.kernelbench import missing_reference

    try:
        data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        _fail(f"standard input: cannot read UTF-8 text: {error}")
    if len(data) > MAX_FILE_BYTES:
        _fail(f"standard input: larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB, not a kernel source")
    options = options_per_file([name], config=config, no_config=no_config, **command_line)[0]
    unjudged = missing_reference(name, options.reference, options.problems)
    if unjudged is not None:
        _fail(unjudged)
    findings = lint_source(text, filename=name, options=options, directory=os.path.dirname(os.path.abspath(name)),
                           isolate=True)
    return FileResult(name, findings), text, options


def _say_dry_run_skipped(per_file: list[LintOptions]) -> None:
    """One line on stderr when the dry run was wanted and cannot run."""
    from cudalint.prefilter import dry_run_unavailable, wants_dry_run

    reason = dry_run_unavailable(wants_dry_run(per_file))
    if reason:
        sys.stderr.write(f"cudalint: {reason}\n")


def _lint_with_progress(files: list[str], per_file: list[LintOptions], jobs: int, cache: ResultCache | None,
                        show: bool) -> list[FileResult]:
    """Lint `files`, with a progress bar on stderr when it is a terminal."""
    from cudalint.engine import iter_lint_each

    results = iter_lint_each(files, per_file, jobs, cache, isolate=True)  # within each file's budget
    if not (show and sys.stderr.isatty()):
        return list(results)
    with typer.progressbar(results, length=len(files), label="checking", file=sys.stderr) as progress:
        return list(progress)


def _with_fixes(results: list[FileResult], per_file: list[LintOptions]) -> Iterator[tuple[FileResult, Linter]]:
    """Each readable result with a finding that carries a fix, and the linter of its options."""
    from cudalint.fixes import carries_fix, default_linter

    linters: dict[int, Linter] = {}  # one per configuration
    for result, options in zip(results, per_file):
        if result.error is None and any(carries_fix(f) for f in result.findings):
            if id(options) not in linters:
                linters[id(options)] = default_linter(options)
            yield result, linters[id(options)]


def _fixability(results: list[FileResult], per_file: list[LintOptions],
                texts: dict[str, str] | None = None) -> dict[int, str]:
    """Which findings `--fix` fixes (the `[*]` marks and the fixable count): the checked fixes are run, so a
    fix that would be dropped is not promised. `texts`: sources not on disk."""
    from cudalint.engine import InputError, read_source
    from cudalint.fixes import fixability

    marks: dict[int, str] = {}
    for result, lint in _with_fixes(results, per_file):
        try:
            text = texts[result.path] if texts else read_source(result.path)
        except InputError:
            continue  # vanished meanwhile: nothing --fix could fix
        marks.update(fixability(text, result.path, result.findings, lint))
    return marks


def _fix_reports(results: list[FileResult], per_file: list[LintOptions],
                 unsafe: bool) -> Iterator[tuple[FileResult, FixReport]]:
    """Each file with fixes to try, with the report of its checked fixes."""
    from cudalint.engine import read_source
    from cudalint.fixes import fix_source

    for result, lint in _with_fixes(results, per_file):
        yield result, fix_source(read_source(result.path), result.path, lint, unsafe=unsafe, findings=result.findings)


def _apply_fixes(results: list[FileResult], per_file: list[LintOptions], unsafe: bool, show_fixes: bool) -> bool:
    """Rewrite each file with its checked fixes; its result then holds the findings that remain. Whether
    any file was rewritten."""
    from cudalint.repairing.loop import atomic_write

    tried = []
    for result, report in _fix_reports(results, per_file, unsafe):
        if report.changed:
            try:
                atomic_write(result.path, report.text, like=result.path)
            except OSError as error:
                result.error = f"{result.path}: cannot write the fixes: {error.strerror or error}"
                continue
            result.findings = report.findings_after
        tried.append((result.path, report))
    sys.stderr.write(_fixes_summary("fixed", tried, show_fixes))
    return any(report.changed for _, report in tried)


def _add_ignores(results: list[FileResult], per_file: list[LintOptions], reason: str) -> None:
    """Write the checked suppressions of each file with findings; a file they fail on gets an error."""
    from cudalint.engine import InputError, read_source
    from cudalint.fixes import default_linter
    from cudalint.repairing.loop import atomic_write
    from cudalint.sources import load_document
    from cudalint.suppressions import UNSUPPRESSIBLE, checked_suppressions

    added = files = 0
    for result, options in zip(results, per_file):
        if result.error is not None or all(f.code in UNSUPPRESSIBLE for f in result.findings):
            continue
        try:
            document = load_document(result.path, read_source(result.path))
        except InputError as error:
            result.error = str(error)
            continue
        outcome = checked_suppressions(document, result.findings, reason, default_linter(options))
        if outcome is None:
            result.error = f"{result.path}: the suppressions would not be honoured or would break the file; not changed"
            continue
        for line in outcome.unplaced:
            sys.stderr.write(f"cudalint: warning: {result.path}:{line}: the line ends inside a Python string, where "
                             f"no comment can go; its findings are left\n")
        if not outcome.added:
            continue
        try:
            atomic_write(result.path, outcome.text, like=result.path)
        except OSError as error:
            result.error = f"{result.path}: cannot write the suppressions: {error.strerror or error}"
            continue
        added, files = added + outcome.added, files + 1
    sys.stderr.write(f"cudalint: added {added} suppression{'s' * (added != 1)} in {files} file{'s' * (files != 1)}\n")


def _show_diffs(results: list[FileResult], per_file: list[LintOptions], unsafe: bool, show_fixes: bool) -> bool:
    """Print the unified diff of each file's checked fixes, writing nothing; whether any file would change."""
    from cudalint.repairing.loop import unified_diff

    tried = []
    for result, report in _fix_reports(results, per_file, unsafe):
        if report.changed:
            _write(unified_diff(result.path, report.original, report.text))
        tried.append((result.path, report))
    sys.stderr.write(_fixes_summary("would fix", tried, show_fixes))
    return any(report.changed for _, report in tried)


def _fixes_summary(verb: str, reports: list[tuple[str, FixReport]], show_fixes: bool) -> str:
    """`cudalint: fixed 3 findings in 2 files`, with `show_fixes` then, per file, the count per rule and each
    fix not applied with the reason (the file would no longer parse, the finding would still be reported,
    ...)."""
    changed = [(path, report) for path, report in reports if report.changed]
    count = sum(len(report.applied) for _, report in changed)
    shown = [(path, report) for path, report in reports if report.changed or report.rejected] if show_fixes else []
    lines = [f"cudalint: {verb} {count} finding{'s' * (count != 1)} in {len(changed)} "
             f"file{'s' * (len(changed) != 1)}{':' if shown else ''}"]
    for path, report in shown:
        lines.append(f"  {path}:")
        per_rule = Counter((fixed.finding.code, fixed.finding.name) for fixed in report.applied)
        lines += [f"    {number} × {code} ({name})" for (code, name), number in sorted(per_rule.items())]
        lines += [f"    not fixed: {finding.line}:{finding.column} {finding.code} ({finding.name}): {why}"
                  for finding, why in report.rejected]
    return "\n".join(lines) + "\n"


def _render(results: list[FileResult], fmt: str, options: LintOptions, show_statistics: bool,
            quiet: bool, color: Color = Color.auto, sources: dict[str, str] | None = None,
            fixable: dict[int, str] | None = None, strict: bool = False) -> str:
    from cudalint.engine import selected_rules

    if show_statistics:
        if fmt == "json":
            from cudalint.report.json_format import render_json_statistics

            return render_json_statistics(results)
        from cudalint.report.text import render_statistics

        return render_statistics(results)
    from cudalint.report import render

    if fmt == "text":
        return render(fmt, results, sources, color=_use_color(color), summary=not quiet, fixable=fixable)
    if fmt == "json-files":
        return render(fmt, results, fail_on=options.fail_on, strict=strict)
    if fmt == "sarif":
        return render(fmt, results, sources, rules=selected_rules(options))
    return render(fmt, results, sources)


@app.command("rule")
def rule_command(
    code: Annotated[str, typer.Argument(metavar="CODE|NAME", help="A rule code (CL301) or name "
                                                                   "(shared-memory-oversize).")],
) -> None:
    """Print a rule's documentation page."""
    from cudalint.checks.registry import find_rule
    from cudalint.rule_docs import fallback_page, page_text

    found = find_rule(code)
    if found is None:
        _fail(f"unknown rule {code!r} (`cudalint rules` lists them)")
    text = page_text(found.code) or fallback_page(found)
    _write(text if text.endswith("\n") else text + "\n")


@app.command("rules")
def rules_command(
    output_format: Annotated[TableFormat, typer.Option(
        "--format", help="text: an aligned table; markdown: the README's table; json: a list of objects.")
    ] = TableFormat.text,
) -> None:
    """List all rules: code, name, severity, category and summary."""
    from cudalint.checks.registry import all_rules

    rows = [(r.code, r.name, r.severity.value, r.category, r.summary) for r in all_rules()]
    if output_format is TableFormat.json:
        import json

        keys = ("code", "name", "severity", "category", "summary")
        _write(json.dumps([dict(zip(keys, row)) for row in rows], indent=2) + "\n")
    elif output_format is TableFormat.markdown:
        lines = ["| Code | Name | Severity | Category | Summary |", "| --- | --- | --- | --- | --- |"]
        for code, name, severity, category, summary in rows:
            summary = _DUNDER.sub(r"`\1`", summary.replace("|", "\\|"))
            lines.append(f"| [{code}](rules/{code}.md) | `{name}` | {severity} | {category} | {summary} |")
        _write("\n".join(lines) + "\n")
    else:
        from cudalint.report.tables import render_table

        _write(render_table(("CODE", "NAME", "SEVERITY", "CATEGORY", "SUMMARY"), rows, rule=False))


@app.command("report")
def report_command(
    results: Annotated[list[str], typer.Argument(
        metavar="RESULTS", show_default=False,
        help="Result files: check --format json or json-files, eval [--runs] --format json, verify JSON "
             "(--json FILE, --format json, --output-dir records).")],
    output: Annotated[str, typer.Option("--output", "-o", metavar="FILE", help="The HTML file to write.")],
    fast_p: Annotated[float, typer.Option("--fast-p", help="Speedup threshold p of fast_p.")] = 1.0,
    source_root: Annotated[Optional[str], typer.Option(
        "--source-root", metavar="DIR", help="Where relative paths of findings are read from for the source "
                                             "excerpts (default: the current directory).")] = None,
    title: Annotated[str, typer.Option("--title", help="The page's title.")] = "cudalint report",
) -> None:
    """Write one self-contained HTML report (charts, tables, source excerpts; opens with no network) of
    lint, evaluation and GPU verification results. Needs the report extra: pip install 'cudalint[report]'."""
    try:
        from cudalint.report.html import render_html
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] != "matplotlib":
            raise
        _fail("cudalint report needs matplotlib: pip install 'cudalint[report]'")
    from cudalint.report.html_inputs import ReportInputError, load_results

    if fast_p <= 0:
        _fail(f"--fast-p must be positive, not {fast_p:g}")
    folder = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(folder):  # as ruff's --output-file: a mistyped folder is not created silently
        _fail(f"{output}: no such folder {folder}")
    runs = []
    try:
        for path in results:
            runs += load_results(path)
        page = render_html(runs, p=fast_p, source_root=source_root, title=title)
    except ReportInputError as error:
        _fail(str(error))
    from cudalint.repairing.loop import atomic_write

    try:
        atomic_write(output, page)
    except OSError as error:
        _fail(f"{output}: cannot write: {error.strerror or error}")
    sys.stderr.write(f"cudalint: wrote {output} ({len(runs)} result set{'s' * (len(runs) != 1)})\n")


def _register_subsystem_commands() -> None:
    """Commands that live with their subsystem (evaluation, repair, ...) add themselves to the app."""
    from cudalint.evaluation.cli import register as register_eval
    from cudalint.repairing.cli import register as register_repair
    from cudalint.verify.cli import register as register_verify

    register_eval(app)
    register_repair(app)
    register_verify(app)


_register_subsystem_commands()


def main() -> None:
    """The console script `cudalint`. Typer makes a click command of every registered command, reading each
    signature, before it runs one (20 ms for all of them): a command line that names a command first (the
    group has no other option than `--version` and `--help`) gets a group of that command alone."""
    from typer.main import get_command_name

    commands = app.registered_commands
    app.registered_commands = [command for command in commands if sys.argv[1:2] == [
        command.name or get_command_name(command.callback.__name__)]] or commands
    try:
        app(prog_name="cudalint")
    finally:
        app.registered_commands = commands


__all__ = ["EXIT_ERROR", "EXIT_FINDINGS", "EXIT_OK", "app", "build_options", "main"]
