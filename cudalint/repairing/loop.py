"""The repair loop: lint, prompt, ask the model, extract its code, re-lint, follow up; and the model-less
repair with built-in fixes.

One file, one conversation. Round 1 sends the system prompt and the repair prompt; each later round sends
a follow-up about the version the previous round left. A round's answer becomes a candidate when code can
be taken out of it (see `extract.py`); the candidate is linted and, with a `gpu_check` (`repair --verify`),
a candidate that lints clean is built, run against its reference and timed: what that reports (compile
errors, mismatches, sanitizer reports, a speedup below the one asked for) goes into the next follow-up. A
file that lints clean is checked on the GPU before round 1. The loop stops when a candidate has no finding
left to repair (warnings and errors, cudalint's internal errors aside) and passes the GPU check, when the
rounds are used up, when the model refuses, or on a server error.

The result is the best candidate: fewest error findings and GPU failures, then fast enough, then fewest
warnings; the input itself competes, and wins ties. So the result is written only when it has fewer error
findings than the input, or as many and fewer warnings; a result with more error findings than the input is
never written. An answer whose code does not parse (a Python syntax error, more compile errors than the
input) or that cudalint could not analyse completely never competes: it has fewer findings only because
less of it was seen.

Outputs, never touching the input unless `write=True`:
- `write`: the input file is replaced (atomically: a temporary file in its folder, then os.replace).
- `out_dir`: the result goes to `out_dir/<path relative to the working directory>` (the file name alone
  for inputs outside it).
- neither: the result goes next to the input as `<stem>.repaired<suffix>`.
- `diff`: a unified diff is returned and nothing is written, not even the transcript.
The transcript, `<input file name>.repair.jsonl` in the output's folder, holds one JSON object per line:
the run's settings, every prompt and answer, each round's findings and the result.
"""

from __future__ import annotations

import ast
import difflib
import errno
import json
import os
import stat
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from cudalint import __version__
from cudalint.config import LintOptions
from cudalint.engine import BOM
from cudalint.findings import Finding, Severity
from cudalint.fixes import PARSE_ERROR_CODES, FixReport, default_linter, fix_source
from cudalint.prefilter import INCOMPLETE
from cudalint.pyast import PARSE_FAILURES
from cudalint.repairing.client import ChatClient, Completion, ModelError, ModelRefused
from cudalint.repairing.extract import extract_code
from cudalint.repairing.prompts import (SLOW, GpuReport, actionable, code_changes, describe, guidance_for,
                                        render_followup, render_repair, render_system)

GpuCheck = Callable[[str, str], Sequence[GpuReport]]  # (path, text) -> reports; empty when it passes


class GpuCheckFailed(Exception):
    """The GPU check could not judge the candidate (no GPU, the reference fails, a worker that cannot start):
    nothing the model could repair, so the loop stops."""


class OutputError(Exception):
    """Outputs that cannot be written as asked (e.g. --out that would overwrite the input)."""


@dataclass(frozen=True)
class OutputPlan:
    out_dir: str | None = None
    write: bool = False
    diff: bool = False

    def output_path(self, path: str) -> str | None:
        """Where the result of `path` goes; None with `diff`."""
        if self.diff:
            return None
        if self.write:
            return path
        if self.out_dir is not None:
            relative = os.path.relpath(os.path.abspath(path))
            if relative.startswith(os.pardir + os.sep) or relative == os.pardir or os.path.isabs(relative):
                relative = os.path.basename(path)
            target = os.path.join(self.out_dir, relative)
            if os.path.abspath(target) == os.path.abspath(path):
                raise OutputError(f"{path}: --out {self.out_dir} would overwrite the input; use --write to "
                                  f"replace inputs")
            return target
        stem, suffix = os.path.splitext(path)
        return f"{stem}.repaired{suffix}"

    def transcript_path(self, path: str) -> str | None:
        target = self.output_path(path)
        if target is None:
            return None
        return os.path.join(os.path.dirname(target), os.path.basename(path) + ".repair.jsonl")


def atomic_write(path: str, text: str, like: str | None = None) -> None:
    """Write `text` to `path` through a temporary file in the same folder and os.replace; the new file
    keeps the permissions of `like` (or of `path` when it exists), its line endings when they are all
    CRLF, and its UTF-8 byte order mark (which reading drops). A symbolic link is written through: its
    target gets the text, the link stays. An existing file that no one may write (no write permission bit)
    is not rewritten: PermissionError. One that a replacement would not be the same file to (another hard
    link to it, another owner or group) is rewritten in place instead, as ruff writes its fixes: the links
    keep sharing it, its owner, group and mode stay (not atomic then)."""
    source = like if like and os.path.exists(like) else path if os.path.exists(path) else None
    if source is not None and _all_crlf(source):
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    if source is not None and _starts_with_bom(source) and not text.startswith(BOM):
        text = BOM + text
    path = os.path.realpath(path)
    try:
        existing = os.stat(path)
    except FileNotFoundError:
        existing = None
    if existing is not None:
        if not existing.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
            raise PermissionError(errno.EACCES, "read-only file, not rewritten", path)
        if existing.st_nlink > 1 or (existing.st_uid, existing.st_gid) != (os.geteuid(), os.getegid()):
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            return
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if source is not None:
            os.chmod(temporary, stat.S_IMODE(os.stat(source).st_mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _starts_with_bom(path: str) -> bool:
    with open(path, "rb") as handle:
        return handle.read(3) == BOM.encode("utf-8")


def _all_crlf(path: str) -> bool:
    with open(path, "rb") as handle:
        data = handle.read()
    return b"\r\n" in data and data.count(b"\r\n") == data.count(b"\n")


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=f"a/{path}", tofile=f"b/{path}")
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


class Transcript:
    """The JSONL transcript; every line goes through `redact` (the key never reaches the file)."""

    def __init__(self, path: str | None, redact: Callable[[str], str] = lambda s: s) -> None:
        self.path = path
        self._redact = redact
        self._handle = None
        self._started = time.monotonic()

    def record(self, kind: str, **data) -> None:
        if self.path is None:
            return
        if self._handle is None:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            self._handle = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 - closed in close()
        entry = {"type": kind, "elapsed_s": round(time.monotonic() - self._started, 3), **data}
        self._handle.write(self._redact(json.dumps(entry, ensure_ascii=False)) + "\n")
        self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def _counts(findings: Sequence[Finding]) -> tuple[int, int]:
    errors = sum(1 for f in findings if f.severity == Severity.ERROR)
    warnings = sum(1 for f in findings if f.severity == Severity.WARNING)
    return errors, warnings


def _finding_record(finding: Finding) -> dict:
    return {"code": finding.code, "severity": finding.severity.value, "line": finding.line,
            "column": finding.column, "message": finding.message}


@dataclass
class RoundReport:
    number: int
    findings_before: list[Finding]  # to repair in the version this round's prompt was about
    findings_after: list[Finding] | None = None  # of the answer's code; None when no code could be used
    outcome: str = ""  # "clean", "fewer", "same", "more", "no_code", "truncated", "unusable", "refused", "error"
    detail: str = ""  # why the answer was not used, the refusal, or the error
    form: str | None = None  # how the answer's code was used
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    attempts: int = 0
    retry_notes: list[str] = field(default_factory=list)
    gpu_reports: list[GpuReport] = field(default_factory=list)
    gpu_checked: bool = False  # the answer was built and run on the GPU

    @property
    def resolved_and_new(self) -> tuple[list[str], list[str]]:
        if self.findings_after is None:
            return [], []
        return code_changes(self.findings_before, self.findings_after)


@dataclass
class RepairOutcome:
    path: str
    status: str  # "already clean", "clean", "improved", "not improved" (see `error` for why it stopped)
    findings_before: list[Finding] = field(default_factory=list)  # to repair, in the input
    findings_after: list[Finding] = field(default_factory=list)  # to repair, in the result
    gpu_reports_before: list[GpuReport] = field(default_factory=list)  # the input's, with a GPU check
    gpu_reports_after: list[GpuReport] = field(default_factory=list)  # the result's
    rounds: list[RoundReport] = field(default_factory=list)
    result_round: int = 0  # the round whose candidate is the result; 0: the input itself
    result_text: str | None = None
    written: str | None = None
    transcript: str | None = None
    diff: str | None = None
    not_written: str | None = None  # why no result was written (or shown as a diff)
    error: str | None = None  # why the loop stopped early: a refusal or a failed request
    refused: bool = False  # the error is the model's refusal (an answer, not a failure to get one)
    fatal: bool = False  # the error will hit every other file too

    @property
    def prompt_tokens(self) -> int:
        return sum(r.prompt_tokens or 0 for r in self.rounds)

    @property
    def completion_tokens(self) -> int:
        return sum(r.completion_tokens or 0 for r in self.rounds)

    @property
    def tokens_known(self) -> bool:
        return all(r.prompt_tokens is not None for r in self.rounds if r.attempts)


@dataclass
class _Candidate:
    text: str
    findings: list[Finding]  # all findings of the text
    round: int
    gpu_reports: list[GpuReport] = field(default_factory=list)
    perf: bool = False  # a request for a faster kernel: the performance advisories are to repair too

    @property
    def score(self) -> tuple[int, int, int]:
        """Lower is better: error findings and GPU failures, then only too slow, then warnings."""
        errors, warnings = _counts(self.findings)
        failed = any(r.kind != SLOW for r in self.gpu_reports)
        slow = any(r.kind == SLOW for r in self.gpu_reports)
        return errors + (1 if failed else 0), 1 if slow else 0, warnings

    @property
    def to_repair(self) -> list[Finding]:
        return actionable(self.findings, self.perf)


def repair_file(path: str, text: str, client: ChatClient, options: LintOptions | None = None,
                rounds: int = 3, plan: OutputPlan = OutputPlan(), gpu_check: GpuCheck | None = None,
                lint: Callable[[str, str], list[Finding]] | None = None, perf: bool = False) -> RepairOutcome:
    """Repair one file (`text` is its content) with the model behind `client`; see the module docstring.
    `perf`: ask for a faster kernel that stays correct, the performance advisories (CL5xx, which `options`
    must select) being what to repair."""
    lint = lint or default_linter(options)
    original = _Candidate(text, lint(text, path), 0, perf=perf)
    outcome = RepairOutcome(path, "already clean", findings_before=original.to_repair,
                            findings_after=original.to_repair)
    if gpu_check is not None and not original.to_repair:
        try:
            original.gpu_reports = outcome.gpu_reports_before = list(gpu_check(path, text))
        except GpuCheckFailed as error:
            outcome.status, outcome.error, outcome.fatal = "not improved", str(error), True
            outcome.not_written = "the GPU check could not run"
            return outcome
    if not original.to_repair and not original.gpu_reports:
        outcome.not_written = "nothing to repair" if gpu_check is None else "nothing to repair: it passed on the GPU"
        return outcome
    output = plan.output_path(path)
    transcript = Transcript(plan.transcript_path(path), client.redact)
    outcome.transcript = transcript.path
    settings = client.settings
    transcript.record("run", tool="cudalint", version=__version__, path=path, model=settings.model,
                      server=client.server, api_key_env=settings.api_key_env, temperature=settings.temperature,
                      max_tokens=settings.max_tokens, rounds=rounds, output=output, perf=perf,
                      started=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                      findings=[_finding_record(f) for f in original.to_repair],
                      gpu_reports=[{"kind": r.kind, "text": r.text} for r in original.gpu_reports],
                      sampling=client.sampling())
    messages = [{"role": "system", "content": render_system(describe(path, text), perf)},
                {"role": "user", "content": render_repair(path, text, original.to_repair, perf=perf,
                                                          gpu_reports=original.gpu_reports)}]
    explained = {f.code for f in original.to_repair}
    for message in messages:
        transcript.record("prompt", round=1, role=message["role"], content=message["content"])
    best = current = original
    try:
        for number in range(1, rounds + 1):
            report = RoundReport(number, current.to_repair)
            outcome.rounds.append(report)
            try:
                completion = client.complete(messages)
            except ModelRefused as error:
                report.outcome, report.detail = "refused", str(error)
                transcript.record("refusal", round=number, refusal=error.refusal, message=str(error))
                outcome.error, outcome.refused = str(error), True
                break
            except ModelError as error:
                report.outcome, report.detail = "error", str(error)
                transcript.record("error", round=number, message=str(error))
                outcome.error, outcome.fatal = str(error), error.fatal
                break
            _account(report, completion)
            transcript.record("answer", round=number, content=completion.text,
                              finish_reason=completion.finish_reason, model=completion.model,
                              prompt_tokens=completion.prompt_tokens,
                              completion_tokens=completion.completion_tokens, attempts=completion.attempts,
                              retries=completion.retry_notes)
            messages.append({"role": "assistant", "content": completion.text})
            extraction = extract_code(completion.text, completion.finish_reason, current.text, path)
            previous = current
            unusable = None
            if extraction.ok:
                candidate = _Candidate(extraction.text, lint(extraction.text, path), number, perf=perf)
                unusable = _cannot_be_judged(path, candidate, original)
            used = extraction.ok and unusable is None
            if unusable is not None:  # followed up as an answer without usable code
                report.outcome, report.detail = "unusable", unusable
            elif extraction.ok:
                if gpu_check is not None and not candidate.to_repair:
                    try:
                        candidate.gpu_reports = list(gpu_check(path, candidate.text))
                    except GpuCheckFailed as error:
                        report.outcome, report.detail = "error", str(error)
                        transcript.record("error", round=number, message=str(error))
                        outcome.error, outcome.fatal = str(error), True
                        break
                    report.gpu_checked = True
                report.findings_after, report.form = candidate.to_repair, extraction.form
                report.gpu_reports = candidate.gpu_reports
                report.outcome = _compare(current, candidate)
                current = candidate
                if candidate.score < best.score:
                    best = candidate
            else:
                report.outcome, report.detail = extraction.status, extraction.reason
            transcript.record("round", round=number, outcome=report.outcome, detail=report.detail,
                              form=report.form, findings_before=[_finding_record(f) for f in report.findings_before],
                              findings_after=None if report.findings_after is None else
                              [_finding_record(f) for f in report.findings_after],
                              gpu_reports=[{"kind": r.kind, "text": r.text} for r in report.gpu_reports])
            if report.outcome == "clean" or number == rounds:
                break
            problem = None if used else "unusable" if unusable else extraction.status
            merged = used and extraction.form != "whole file"
            new_guidance = guidance_for(current.to_repair, skip=explained)
            explained |= {f.code for f in current.to_repair}
            followup = render_followup(path, current.text, current.to_repair,
                                       previous=previous.to_repair if used else (), problem=problem,
                                       problem_detail=unusable or extraction.reason, show_file=bool(problem) or merged,
                                       guidance=new_guidance, gpu_reports=current.gpu_reports, perf=perf)
            messages.append({"role": "user", "content": followup})
            transcript.record("prompt", round=number + 1, role="user", content=followup)
        _finish(outcome, original, best, plan, output, transcript, gpu_check is not None)
    finally:
        transcript.close()
    return outcome


def _cannot_be_judged(path: str, candidate: _Candidate, original: _Candidate) -> str | None:
    """Why the candidate can never be the result, whatever its counts, or None: code that does not parse
    (a Python syntax error, more compile errors than the input) or cudalint could not analyse completely
    lints with fewer findings only because less of it was seen."""
    if path.endswith(".py"):
        try:
            ast.parse(candidate.text)
        except PARSE_FAILURES as error:
            where = f" (line {error.lineno})" if getattr(error, "lineno", None) else ""
            what = getattr(error, "msg", None) or ("nested too deeply" if isinstance(error, (RecursionError, MemoryError))
                                                   else str(error))
            return f"its Python does not parse: {what}{where}"
    for code in sorted(PARSE_ERROR_CODES):
        new = [f for f in candidate.findings if f.code == code]
        if len(new) > sum(1 for f in original.findings if f.code == code):
            return f"its code does not compile: {new[0].message} (line {new[0].line})"
    incomplete = next((f for f in candidate.findings if f.code == INCOMPLETE), None)
    if incomplete is not None:
        return f"cudalint could not analyse it completely: {incomplete.message}"
    return None


def _account(report: RoundReport, completion: Completion) -> None:
    report.prompt_tokens, report.completion_tokens = completion.prompt_tokens, completion.completion_tokens
    report.attempts, report.retry_notes = completion.attempts, list(completion.retry_notes)


def _compare(before: _Candidate, after: _Candidate) -> str:
    if not after.to_repair and not after.gpu_reports:
        return "clean"
    old, new = len(before.to_repair) + len(before.gpu_reports), len(after.to_repair) + len(after.gpu_reports)
    return "fewer" if new < old else "same" if new == old else "more"


def _finish(outcome: RepairOutcome, original: _Candidate, best: _Candidate, plan: OutputPlan,
            output: str | None, transcript: Transcript, gpu_checked: bool) -> None:
    outcome.result_round = best.round
    outcome.findings_after = best.to_repair
    outcome.gpu_reports_after = best.gpu_reports
    if best is original:
        outcome.status = "not improved"
        if not any(r.attempts for r in outcome.rounds):
            outcome.not_written = "the model gave no answer"
        elif all(r.findings_after is None for r in outcome.rounds):
            outcome.not_written = "no answer held usable code"
        else:
            outcome.not_written = ("no answer lints better than the input (fewer error findings, or as many "
                                   "and fewer warnings)" if not gpu_checked else
                                   "no answer does better than the input (fewer error findings or GPU failures, "
                                   "or as many and faster, or fewer warnings)")
        transcript.record("result", status=outcome.status, result_round=0, written=None,
                          reason=outcome.not_written)
        return
    outcome.result_text = best.text
    outcome.status = "clean" if not best.to_repair and not best.gpu_reports else "improved"
    if plan.diff:
        outcome.diff = unified_diff(outcome.path, original.text, best.text)
    elif output is not None:
        atomic_write(output, best.text, like=outcome.path)
        outcome.written = output
    transcript.record("result", status=outcome.status, result_round=best.round, written=outcome.written,
                      findings=[_finding_record(f) for f in best.to_repair],
                      gpu_reports=[{"kind": r.kind, "text": r.text} for r in best.gpu_reports])


# ----------------------------------------------------------------------------------- built-in fixes only


@dataclass
class FixOutcome:
    path: str
    report: FixReport
    written: str | None = None
    diff: str | None = None

    @property
    def status(self) -> str:
        before, after = actionable(self.report.findings_before), actionable(self.report.findings_after)
        if not before:
            return "already clean"
        if not self.report.applied:
            return "not improved"
        return "clean" if not after else "improved"


def fix_file(path: str, text: str, options: LintOptions | None = None, plan: OutputPlan = OutputPlan(),
             lint: Callable[[str, str], list[Finding]] | None = None) -> FixOutcome:
    """Apply the checked built-in fixes (cudalint.fixes.fix_source) and write the result as `plan` says;
    nothing is written when no fix was kept."""
    report = fix_source(text, path, lint or default_linter(options))
    outcome = FixOutcome(path, report)
    if not report.changed:
        return outcome
    if plan.diff:
        outcome.diff = unified_diff(path, text, report.text)
    else:
        target = plan.output_path(path)
        atomic_write(target, report.text, like=path)
        outcome.written = target
    return outcome


__all__ = ["FixOutcome", "GpuCheck", "GpuCheckFailed", "OutputError", "OutputPlan", "RepairOutcome", "RoundReport", "Transcript",
           "atomic_write", "fix_file", "repair_file", "unified_diff"]
