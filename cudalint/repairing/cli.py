"""The `prompt` and `repair` commands; `register(app)` adds them to a typer app.

Which repair runs: a model is configured when `--model/-m MODEL` is given or the environment
variable CUDALINT_MODEL names one (the option wins). With a model, `repair` runs the model loop
(cudalint.repairing.loop.repair_file) and needs the API key variable (default OPENAI_API_KEY) to be set.
Without one, `repair` applies the checked built-in fixes only (cudalint.fixes.fix_source) and says so; an
API key alone does not pick a model, since cudalint has no default model name.

Exit codes: 0 every file ends with nothing to repair; 1 some file still has warning or error findings
(including files whose answers were refused or not usable), or with --verify fails or is too slow on the
GPU; 2 usage, configuration or input errors, a missing key, or a request that failed (unreachable server,
HTTP errors after the retries, a GPU check that cannot judge). The report goes to stdout; with `--diff`,
the diff goes to stdout and the report to stderr.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import sys
import threading
import time
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from cudalint.config import ConfigError, LintOptions, find_config, load_config
from cudalint.engine import InputError, expand_paths, read_source
from cudalint.findings import Finding, Severity
from cudalint.repairing.client import DEFAULT_API_KEY_ENV, ChatClient, ClientSettings, ModelError

if TYPE_CHECKING:
    from cudalint.repairing.loop import FixOutcome, OutputPlan, RepairOutcome

# The repair loop and its prompt templates (jinja2) are imported by the commands that use them: the CLI
# registers these commands on every start, also when it only lints.

MODEL_ENV = "CUDALINT_MODEL"
# the options that only a model run reads: given without a model they would be ignored without a word
_MODEL_SETTINGS = ("base_url", "api_key_env", "temperature", "max_tokens", "rounds", "timeout", "frequency_penalty",
                   "stop")
EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _plural(count: int, word: str) -> str:
    if count == 1:
        return f"{count} {word}"
    return f"{count} {word[:-1]}ies" if word.endswith("y") else f"{count} {word}s"


def _counts(findings: list[Finding]) -> str:
    errors = sum(1 for f in findings if f.severity == Severity.ERROR)
    warnings = sum(1 for f in findings if f.severity == Severity.WARNING)
    parts = [_plural(errors, "error")] if errors else []
    parts += [_plural(warnings, "warning")] if warnings else []
    return f"{_plural(len(findings), 'finding')}" + (f" ({', '.join(parts)})" if parts else "")


def _finding_line(finding: Finding) -> str:
    return f"    {finding.line}:{finding.column} {finding.code} {finding.name}: {finding.message}"


class _Output:
    def __init__(self, to_stderr: bool) -> None:
        self.stream = sys.stderr if to_stderr else sys.stdout

    def __call__(self, line: str = "") -> None:
        self.stream.write(line + "\n")
        self.stream.flush()


def _error(message: str) -> None:
    sys.stderr.write(f"cudalint: error: {message}\n")


def _fail(message: str) -> typer.Exit:
    _error(message)
    return typer.Exit(EXIT_ERROR)


def _options(paths: list[str], config: str | None, no_config: bool, perf: bool = False) -> LintOptions:
    """The configured options; with `perf`, the performance advisories (opt-in rules) selected too."""
    if config is not None and no_config:
        raise _fail("--config and --no-config cannot be used together")
    try:
        if no_config:
            options = LintOptions().validate()
        else:
            found = config if config is not None else (find_config(paths[0]) if paths else None)
            options = load_config(found) if found else LintOptions().validate()
    except ConfigError as error:
        raise _fail(str(error)) from None
    if perf:
        options.select = [*options.select, "CL5"]
    return options


def _nothing_to_repair(perf: bool) -> str:
    return "no performance advisory, warning or error findings" if perf else "no warning or error findings"


_PerfOption = Annotated[bool, typer.Option(
    "--perf", help="Ask for a faster kernel that stays correct: the performance advisories (CL5xx) are "
                   "selected and are what the prompt asks to address.")]
_ConfigOption = Annotated[Optional[str], typer.Option(
    "--config", metavar="FILE", help="Configuration file; default: the nearest one above the first path.")]
_NoConfigOption = Annotated[bool, typer.Option("--no-config", help="Ignore all configuration files.")]


# ---------------------------------------------------------------------------------------------- prompt


def prompt_command(
    path: Annotated[str, typer.Argument(metavar="FILE", help="The .cu, .cuh or .py file to build the prompt for.",
                                        show_default=False)],
    system: Annotated[bool, typer.Option("--system", help="Print the system prompt instead of the repair prompt.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the chat messages (system and user) as JSON: "
                                                         '{"path", "findings", "messages"}.')] = False,
    perf: _PerfOption = False,
    config: _ConfigOption = None,
    no_config: _NoConfigOption = False,
) -> None:
    """Print the prompt `cudalint repair` would send first, for harnesses that call their own model.

    A file without warning or error findings (with --perf: nor performance advisories) gets no prompt (with
    --json: no messages) and a note on stderr.
    """
    options = _options([path], config, no_config, perf)
    try:
        text = read_source(path)
    except InputError as error:
        raise _fail(str(error)) from None
    from cudalint.fixes import default_linter
    from cudalint.repairing.prompts import actionable, initial_messages

    findings = actionable(default_linter(options)(text, path), perf)
    messages = initial_messages(path, text, findings, perf=perf) if findings else []
    if as_json:
        payload = {"path": path, "findings": [f.to_dict() for f in findings], "messages": messages}
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    elif messages:
        sys.stdout.write(messages[0 if system else 1]["content"])
    if not findings:
        sys.stderr.write(f"{path}: nothing to repair ({_nothing_to_repair(perf)})\n")
    raise typer.Exit(EXIT_OK)


# ---------------------------------------------------------------------------------------------- repair


def repair_command(
    context: typer.Context,
    paths: Annotated[list[str], typer.Argument(metavar="FILE", help="Files or directories to repair (.cu, .cuh, .py).",
                                               show_default=False)],
    model: Annotated[Optional[str], typer.Option(
        "--model", "-m", metavar="MODEL",
        help=f"The model to ask (default: ${MODEL_ENV}). Without a model, only built-in fixes are applied.")] = None,
    base_url: Annotated[Optional[str], typer.Option(
        "--base-url", metavar="URL",
        help="OpenAI-compatible server, e.g. http://localhost:8000/v1 (default: $OPENAI_BASE_URL, else OpenAI).")] = None,
    api_key_env: Annotated[str, typer.Option(
        "--api-key-env", metavar="NAME", help="Environment variable holding the API key.")] = DEFAULT_API_KEY_ENV,
    temperature: Annotated[float, typer.Option("--temperature", min=0.0, max=2.0, help="Sampling temperature.")] = 0.3,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=1, help="Most tokens per answer.")] = 4096,
    rounds: Annotated[int, typer.Option("--rounds", min=1, help="Most model rounds per file.")] = 3,
    timeout: Annotated[float, typer.Option("--timeout", min=1.0, metavar="SECONDS",
                                           help="Seconds to wait for each answer.")] = 120.0,
    out: Annotated[Optional[str], typer.Option(
        "--out", metavar="DIR", help="Write results (and transcripts) under DIR, by path relative to the "
                                     "working directory; default: next to each input as NAME.repaired.EXT.")] = None,
    write: Annotated[bool, typer.Option("--write", help="Replace the input files (atomically).")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print a unified diff of each result; write no file.")] = False,
    perf: _PerfOption = False,
    config: _ConfigOption = None,
    no_config: _NoConfigOption = False,
    frequency_penalty: Annotated[Optional[float], typer.Option(
        "--frequency-penalty", min=-2.0, max=2.0, help="Frequency penalty (default: the server's).")] = None,
    stop: Annotated[Optional[list[str]], typer.Option(
        "--stop", metavar="TEXT", help="A stop sequence; repeatable (default: the server's).")] = None,
    verify: Annotated[bool, typer.Option(
        "--verify", help="Each round, build, check and time an answer that lints clean on this machine's GPU "
                         "(the `verify` stage); its reports go back to the model. Needs --reference or --problems.")] = False,
    reference: Annotated[Optional[str], typer.Option("--reference", metavar="REFERENCE.py",
                                                     help="The reference problem, with --verify.")] = None,
    problems: Annotated[Optional[str], typer.Option(
        "--problems", metavar="DIR", help="KernelBench problems directory: each file's reference, with --verify.")] = None,
    sanitize: Annotated[Optional[str], typer.Option(
        "--sanitize", metavar="TOOLS", help="With --verify: compute-sanitizer tools to run too (memcheck,racecheck,"
                                            "synccheck,initcheck).")] = None,
    min_speedup: Annotated[float, typer.Option(
        "--min-speedup", min=0.0, help="With --verify: a correct answer slower than this over the eager PyTorch "
                                       "reference is sent back to be made faster (0: no performance guard).")] = 1.0,
    harness: Annotated[str, typer.Option(
        "--harness", metavar="cudalint|kernelbench|kernelbench-v0.1",
        help="With --verify: the verify settings (see `verify`).")] = "cudalint",
    llm: Annotated[Optional[str], typer.Option("--llm", hidden=True)] = None,  # the old spelling of --model
    ref: Annotated[Optional[str], typer.Option("--ref", hidden=True)] = None,  # the old spelling of --reference
) -> None:
    """Repair findings with a model (any OpenAI-compatible server), or with built-in fixes when no model is set.

    Inputs are never modified without --write. A result is written only when it lints better than its input
    (with --verify: when it also does better on the GPU: correct, then fast enough). With --perf the model
    is asked for a faster kernel that stays correct, and a result is written when it has no more errors and
    fewer warnings (performance advisories included) than its input.
    """
    model, ref = model or llm, reference or ref
    if (ref or problems or sanitize) and not verify:
        raise _fail("--reference, --problems and --sanitize go with --verify")
    if verify and not (ref or problems):
        raise _fail("--verify needs the reference: --reference REFERENCE.py, or --problems DIR")
    if diff and (write or out is not None):
        raise _fail("--diff writes nothing: it cannot be combined with --write or --out")
    if write and out is not None:
        raise _fail("--write replaces the inputs: it cannot be combined with --out")
    from cudalint.repairing.loop import OutputError, OutputPlan

    options = _options(paths, config, no_config, perf)
    plan = OutputPlan(out_dir=out, write=write, diff=diff)
    files, input_errors = [], []
    seen: set[str] = set()
    for path in paths:
        try:
            for found in expand_paths([path]):
                if os.path.abspath(found) not in seen:  # a file given twice, or also inside a given folder
                    seen.add(os.path.abspath(found))
                    files.append(found)
        except InputError as error:
            input_errors.append(str(error))
    for path in files:
        try:
            plan.output_path(path)
        except OutputError as error:
            raise _fail(str(error)) from None
    say = _Output(to_stderr=diff)
    model = model or os.environ.get(MODEL_ENV) or None
    if model is None and verify:
        raise _fail("--verify sends the GPU's reports to a model: give --model MODEL")
    if model is None and perf:
        raise _fail(f"--perf asks a model for a faster kernel: name one with --model MODEL or ${MODEL_ENV}")
    for_the_model = [f"--{name.replace('_', '-')}" for name in _MODEL_SETTINGS
                     if getattr(context.get_parameter_source(name), "name", "") == "COMMANDLINE"]
    if model is None and for_the_model:
        raise _fail(f"{', '.join(for_the_model)} set{'s' * (len(for_the_model) == 1)} how the model is asked, and no "
                    f"model is named: give --model MODEL (or ${MODEL_ENV})")
    if model is None:
        code = _builtin(files, options, plan, say, input_errors)
    else:
        settings = ClientSettings(model=model, base_url=base_url, api_key_env=api_key_env, temperature=temperature,
                                  max_tokens=max_tokens, frequency_penalty=frequency_penalty,
                                  stop=tuple(stop or ()), timeout=timeout)
        try:
            client = ChatClient(settings)
            gpu = _GpuSetup(ref, problems, sanitize, min_speedup, harness) if verify else None
        except (ModelError, ValueError) as error:
            raise _fail(str(error)) from None
        code = _with_model(files, client, options, rounds, plan, say, input_errors, gpu, perf)
    raise typer.Exit(code)


class _GpuSetup:
    """`repair --verify`: one GPU check per file, against the file's reference."""

    def __init__(self, ref: str | None, problems: str | None, sanitize: str | None, min_speedup: float,
                 harness: str) -> None:
        from cudalint.harness.kernelbench import reference_options_error
        from cudalint.verify.runner import VerifyOptions, harness_tolerances

        unusable = reference_options_error(ref, problems)
        if unusable is not None:
            raise ValueError(unusable)
        self.ref, self.problems, self.min_speedup = ref, problems, min_speedup or None
        tolerances = harness_tolerances(harness)
        self.options = VerifyOptions(sanitize=tuple(t.strip() for t in (sanitize or "").split(",") if t.strip()),
                                     parity=harness, **({"tolerances": tolerances} if tolerances else {})).validate()
        no_gpu = self.options.missing_gpu()
        if no_gpu is not None:  # before any model call
            raise ValueError(no_gpu)
        self.records: list[dict] = []

    def check_for(self, path: str):
        """The gpu_check of `path` and its reference, or (None, None, the reason) when the reference is not
        known."""
        from cudalint.harness.kernelbench import missing_reference, reference_for
        from cudalint.verify.gpu_check import make_gpu_check

        reference = reference_for(path, self.ref, self.problems)
        problem = missing_reference(path, self.ref, self.problems)
        if problem is not None or reference is None:
            return None, None, problem or f"{path}: no reference found in {self.problems}"
        return make_gpu_check(reference, self.options, self.min_speedup, self.records), reference, None


class _WaitingLine:
    """While an answer is awaited, one line on stderr, rewritten each half second (a terminal only): the
    file, the findings being repaired, the round, the seconds waited and the attempt."""

    def __init__(self, client: ChatClient, rounds: int, perf: bool, stream=None) -> None:
        self.model, self.rounds, self.perf = client.settings.model, rounds, perf
        self.stream = stream or sys.stderr
        self.lock = threading.Lock()
        self.path, self.findings, self.round, self.attempt, self.since = "", [], 0, 0, None
        client.on_attempt = self._attempt_started

    def _attempt_started(self, attempt: int) -> None:
        with self.lock:
            if attempt == 1:
                self.round, self.since = self.round + 1, time.monotonic()
            self.attempt = attempt

    def linter(self, lint):
        """`lint`, noting the findings of what is sent next (the input, then each answer)."""
        from cudalint.repairing.prompts import actionable

        def lint_and_note(text: str, path: str) -> list[Finding]:
            findings = lint(text, path)
            with self.lock:
                self.findings, self.since = actionable(findings, self.perf), None
            return findings

        return lint_and_note

    @contextlib.contextmanager
    def file(self, path: str):
        with self.lock:
            self.path, self.findings, self.round, self.since = path, [], 0, None
        stop = threading.Event()
        ticker = threading.Thread(target=self._tick, args=(stop,), name="cudalint-repair-progress", daemon=True)
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join()
            self.stream.write("\r\033[K")
            self.stream.flush()

    def _tick(self, stop: threading.Event) -> None:
        while not stop.wait(0.5):
            with self.lock:
                line = self.line()
            if line is not None:
                width = shutil.get_terminal_size().columns - 1
                self.stream.write("\r\033[K" + line[:width])
                self.stream.flush()

    def line(self) -> str | None:
        if self.since is None:
            return None
        codes = ", ".join(sorted({f.code for f in self.findings}))
        repairing = f"{_plural(len(self.findings), 'finding')} ({codes})" if self.findings else "GPU reports"
        return (f"{self.path}: repairing {repairing}; round {self.round}/{self.rounds}: waiting for {self.model}, "
                f"{time.monotonic() - self.since:.0f} s, attempt {self.attempt}")


def _read(path: str, errors: list[str]) -> str | None:
    try:
        return read_source(path)
    except InputError as error:
        errors.append(str(error))
        _error(str(error))
        return None


def _with_model(files: list[str], client: ChatClient, options: LintOptions, rounds: int, plan: OutputPlan,
                say: _Output, input_errors: list[str], gpu: _GpuSetup | None = None, perf: bool = False) -> int:
    from cudalint.fixes import default_linter
    from cudalint.repairing.loop import repair_file

    for message in input_errors:
        _error(message)
    outcomes: list[RepairOutcome] = []
    failed = bool(input_errors)
    checked = "; each answer that lints clean is verified on the GPU" if gpu else ""
    say(f"model {client.settings.model} at {client.server}, up to {_plural(rounds, 'round')} per file{checked}")
    waiting = _WaitingLine(client, rounds, perf) if sys.stderr.isatty() else None
    for index, path in enumerate(files):
        text = _read(path, input_errors)
        if text is None:
            failed = True
            continue
        gpu_check, file_options = None, options
        if gpu is not None:
            gpu_check, reference, problem = gpu.check_for(path)
            if problem:
                _error(problem)
                failed = True
                continue
            # answers are linted with the reference too: the GPU gets what `check --reference` passes
            file_options = dataclasses.replace(options, reference=reference)
        try:
            with waiting.file(path) if waiting else contextlib.nullcontext():
                lint = waiting.linter(default_linter(file_options)) if waiting else None
                outcome = repair_file(path, text, client, file_options, rounds, plan, gpu_check=gpu_check,
                                      lint=lint, perf=perf)
        except OSError as error:  # the output or transcript folder is not writable
            _error(f"{path}: cannot write: {error}")
            failed = True
            continue
        outcomes.append(outcome)
        _report_repair(outcome, plan, say, perf)
        if outcome.diff:
            sys.stdout.write(outcome.diff)
            sys.stdout.flush()
        if outcome.error and not outcome.refused:
            failed = True
            if outcome.fatal and index + 1 < len(files):
                left = len(files) - index - 1
                _error(f"stopping: {_plural(left, 'file')} not processed, since the same error would recur")
                break
    statuses = [o.status for o in outcomes]
    tokens_p = sum(o.prompt_tokens for o in outcomes)
    tokens_c = sum(o.completion_tokens for o in outcomes)
    unknown = "" if all(o.tokens_known for o in outcomes) else " (the server did not report all token counts)"
    say(f"{_plural(len(outcomes), 'file')}: {_summary(statuses)}; tokens: {tokens_p} prompt + {tokens_c} "
        f"completion{unknown}")
    if failed:
        return EXIT_ERROR
    return EXIT_FINDINGS if any(o.findings_after or o.gpu_reports_after for o in outcomes) else EXIT_OK


def _summary(statuses: list[str]) -> str:
    order = ("clean", "improved", "not improved", "already clean")
    return ", ".join(f"{statuses.count(s)} {s}" for s in order if statuses.count(s)) or "nothing done"


def _round_line(report) -> str:
    head = f"  round {report.number}: "
    if report.outcome == "error":
        return head + f"request failed: {report.detail}"
    if report.outcome == "refused":
        return head + report.detail
    if report.findings_after is not None:
        resolved, new = report.resolved_and_new
        changes = "; ".join(part for part in (f"resolved: {', '.join(resolved)}" if resolved else "",
                                              f"new: {', '.join(new)}" if new else "") if part)
        body = (f"{report.form}; findings {len(report.findings_before)} -> {len(report.findings_after)}"
                + (f" ({changes})" if changes else ""))
        if report.gpu_reports:
            body += f"; GPU checks failed: {', '.join(r.kind for r in report.gpu_reports)}"
        elif report.gpu_checked:
            body += "; passed the GPU check"
    else:
        what = {"no_code": "no code", "truncated": "truncated", "unusable": "code not usable"}[report.outcome]
        body = f"answer not used ({what}): {report.detail}"
    if report.prompt_tokens is not None and report.completion_tokens is not None:
        body += f"; tokens: {report.prompt_tokens} prompt + {report.completion_tokens} completion"
    else:
        body += "; tokens: not reported by the server"
    if report.retry_notes:
        body += f" (after {_plural(len(report.retry_notes), 'retry')}: {'; '.join(report.retry_notes)})"
    return head + body


def _report_repair(outcome: RepairOutcome, plan: OutputPlan, say: _Output, perf: bool = False) -> None:
    path = outcome.path
    if outcome.status == "already clean":
        say(f"{path}: {outcome.not_written} ({_nothing_to_repair(perf)})")
        return
    parts = [_counts(outcome.findings_before)] if outcome.findings_before or not outcome.gpu_reports_before else []
    if outcome.gpu_reports_before:
        parts.append(_plural(len(outcome.gpu_reports_before), "GPU report"))
    say(f"{path}: {', '.join(parts)} to repair")
    for finding in outcome.findings_before:
        say(_finding_line(finding))
    for report in outcome.gpu_reports_before:
        say(f"  GPU: {report.kind}: {report.text}")
    for report in outcome.rounds:
        say(_round_line(report))
    if outcome.error:
        say(f"{path}: stopped: {outcome.error}")
    if outcome.status == "not improved":
        say(f"{path}: not improved; nothing written: {outcome.not_written}")
    else:
        left = outcome.findings_after
        gpu_left = f", {', '.join(r.kind for r in outcome.gpu_reports_after)} on the GPU" \
            if outcome.gpu_reports_after else ""
        state = "clean" if outcome.status == "clean" else f"improved, {_counts(left)}{gpu_left} left"
        where = ("diff on stdout, nothing written" if plan.diff else
                 f"input replaced: {outcome.written}" if plan.write else f"written to {outcome.written}")
        say(f"{path}: {state} (result of round {outcome.result_round}); {where}")
        for finding in left:
            say(_finding_line(finding))
    if outcome.transcript and os.path.exists(outcome.transcript):
        say(f"  transcript: {outcome.transcript}")


def _builtin(files: list[str], options: LintOptions, plan: OutputPlan, say: _Output, input_errors: list[str]) -> int:
    from cudalint.repairing.loop import fix_file
    from cudalint.repairing.prompts import actionable

    for message in input_errors:
        _error(message)
    say(f"no model configured (--model MODEL or ${MODEL_ENV}): applying built-in fixes only")
    failed = bool(input_errors)
    outcomes: list[FixOutcome] = []
    for path in files:
        text = _read(path, input_errors)
        if text is None:
            failed = True
            continue
        try:
            outcome = fix_file(path, text, options, plan)
        except OSError as error:
            _error(f"{path}: cannot write: {error}")
            failed = True
            continue
        outcomes.append(outcome)
        _report_fixes(outcome, plan, say)
        if outcome.diff:
            sys.stdout.write(outcome.diff)
            sys.stdout.flush()
    say(f"{_plural(len(outcomes), 'file')}: {_summary([o.status for o in outcomes])}")
    if failed:
        return EXIT_ERROR
    return EXIT_FINDINGS if any(actionable(o.report.findings_after) for o in outcomes) else EXIT_OK


def _report_fixes(outcome: FixOutcome, plan: OutputPlan, say: _Output) -> None:
    from cudalint.repairing.prompts import actionable

    path, report = outcome.path, outcome.report
    before = actionable(report.findings_before)
    if not before:
        say(f"{path}: nothing to repair (no warning or error findings)")
        return
    say(f"{path}: {_counts(before)} to repair")
    for applied in report.applied:
        f = applied.finding
        later = f" (after the fixes of pass {applied.pass_number - 1})" if applied.pass_number > 1 else ""
        say(f"  fixed: {f.code} at {f.line}:{f.column}{later}: {f.fix.description}")
    for finding, why in report.rejected:
        say(f"  fix not applied: {finding.code} at {finding.line}:{finding.column}: {why}")
    left = actionable(report.findings_after)
    if not report.changed:
        reason = "no built-in fix could be applied" if report.rejected else "no finding has a built-in fix"
        say(f"{path}: not improved; nothing written: {reason}")
    else:
        state = "clean" if not left else f"improved, {_counts(left)} left"
        where = ("diff on stdout, nothing written" if plan.diff else
                 f"input replaced: {outcome.written}" if plan.write else f"written to {outcome.written}")
        say(f"{path}: {state}; {where}")
    if left:
        say("  left" + (" (line numbers of the fixed file):" if report.changed else ":"))
        for finding in left:
            fixable = finding.fix is not None and finding.fix.edits
            say(_finding_line(finding) + ("" if fixable else " [no built-in fix]"))


def register(app: typer.Typer) -> None:
    """Add the `prompt` and `repair` commands to `app`."""
    app.command("prompt")(prompt_command)
    app.command("repair")(repair_command)


__all__ = ["MODEL_ENV", "prompt_command", "register", "repair_command"]
