"""Render repair prompts from findings.

All prompt wording lives in the jinja2 templates of the top-level `repair/` folder (shipped as the package
`cudalint.prompt_templates`): `system.j2`, `repair.j2`, `followup.j2` and the shared macros in
`_findings.j2`. This module only gathers the data the templates show: the file, each finding with a
source excerpt whose line is marked, its related locations, and the "How to repair" section of the rule
page of every rule that fired.
"""

from __future__ import annotations

import ast
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import jinja2

from cudalint.checks.registry import find_rule
from cudalint.findings import Finding, Severity
from cudalint.pyast import PARSE_FAILURES

TEMPLATE_PACKAGE = "cudalint.prompt_templates"
CONTEXT_LINES = 2  # lines shown before and after a finding's line in its excerpt
MAX_MARKED_LINES = 6  # a finding spanning more lines has only its first lines marked


@dataclass(frozen=True)
class KernelInfo:
    """What kind of input the prompt is about; the system prompt's constraints depend on it."""

    kind: str  # "python" or "cuda"
    uses_load_inline: bool = False
    uses_cupy: bool = False
    has_model_new: bool = False

    @property
    def language(self) -> str:
        return "python" if self.kind == "python" else "cuda"


@dataclass(frozen=True)
class Guidance:
    code: str
    name: str
    text: str


SLOW = "slower than required"  # the kind of a GpuReport about a correct candidate that is not fast enough


@dataclass(frozen=True)
class GpuReport:
    """A report from a GPU stage (compile error, output mismatch, sanitizer report, a speedup below the
    one asked for: kind `SLOW`) for the follow-up."""

    kind: str
    text: str


def describe(path: str, text: str) -> KernelInfo:
    """The kind of file and the structure the answer must keep."""
    if not path.endswith(".py"):
        return KernelInfo("cuda")
    load_inline = cupy = model_new = False
    try:
        module = ast.parse(text)
    except PARSE_FAILURES:
        return KernelInfo("python", "load_inline" in text, "RawKernel" in text or "RawModule" in text,
                          "class ModelNew" in text)
    for node in ast.walk(module):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            load_inline |= name == "load_inline"
            cupy |= name in ("RawKernel", "RawModule")
        elif isinstance(node, ast.ClassDef) and node.name == "ModelNew":
            model_new = True
    return KernelInfo("python", load_inline, cupy, model_new)


# ------------------------------------------------------------------------------------------- templates


def _load_template(name: str) -> str | None:
    resource = resources.files(TEMPLATE_PACKAGE) / name
    if not resource.is_file():
        return None
    return resource.read_text(encoding="utf-8")


@cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FunctionLoader(_load_template),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def _render(name: str, **context) -> str:
    return environment().get_template(name).render(**context).strip("\n") + "\n"


# ------------------------------------------------------------------------------------------ data for them


def actionable(findings: Iterable[Finding], perf: bool = False) -> list[Finding]:
    """Findings a repair should address: warnings and errors, except cudalint's own internal errors; with
    `perf` (a request for a faster kernel) the performance advisories of every severity too."""
    return [f for f in findings if f.code != "CL900"
            and (f.severity.rank >= Severity.WARNING.rank or (perf and is_performance(f)))]


def is_performance(finding: Finding) -> bool:
    """A performance advisory (CL5xx): advice about speed, not a defect."""
    rule = find_rule(finding.code)
    return rule is not None and rule.category == "performance"


def fence_for(text: str) -> str:
    """A backtick fence longer than any backtick run in `text`, so the file cannot close it."""
    longest, run = 0, 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _excerpt(lines: Sequence[str], finding: Finding) -> list[dict]:
    loc = finding.location
    if not lines:
        return []
    first_line = min(max(loc.line, 1), len(lines))
    last_marked = min(max(loc.end_line, first_line), first_line + MAX_MARKED_LINES - 1, len(lines))
    start = max(1, first_line - CONTEXT_LINES)
    end = min(len(lines), last_marked + CONTEXT_LINES)
    width = len(str(end))
    rows = []
    for number in range(start, end + 1):
        text = lines[number - 1].rstrip()
        marked = first_line <= number <= last_marked
        caret = None
        if marked and number == first_line and loc.end_line == loc.line:
            caret = _caret(text, loc.column, loc.end_column)
        rows.append({"number": str(number).rjust(width), "gutter": " " * width, "text": text,
                     "marked": marked, "caret": caret})
    return rows


def _caret(line: str, column: int, end_column: int) -> str:
    column = max(column, 1)
    pad = "".join("\t" if ch == "\t" else " " for ch in line[: column - 1])
    length = max(1, min(end_column, len(line) + 1) - column)
    return pad + "^" + "~" * (length - 1)


def finding_data(finding: Finding, lines: Sequence[str], path: str) -> dict:
    related = []
    for item in finding.related:
        same_file = os.path.normpath(item.location.path) == os.path.normpath(path)
        text = lines[item.location.line - 1].strip() if same_file and 0 < item.location.line <= len(lines) else ""
        related.append({"path": None if same_file else item.location.path, "line": item.location.line,
                        "column": item.location.column, "message": item.message, "text": text})
    return {"code": finding.code, "name": finding.name, "severity": finding.severity.value,
            "line": finding.line, "column": finding.column, "message": finding.message,
            "excerpt": _excerpt(lines, finding), "related": related}


def rule_guidance(code: str) -> str | None:
    """The "How to repair" section of the rule's page, or None when the rule has no usable page."""
    rule = find_rule(code)
    if rule is None:
        return None
    from cudalint.rule_docs import page_for

    page = page_for(rule)
    return page.how_to_repair if page is not None else None


def guidance_for(findings: Iterable[Finding], skip: Iterable[str] = ()) -> list[Guidance]:
    """Repair guidance of each rule that fired (in code order), except the codes in `skip`."""
    skipped = set(skip)
    result = []
    for code in sorted({f.code for f in findings} - skipped):
        text = rule_guidance(code)
        if text:
            rule = find_rule(code)
            result.append(Guidance(code, rule.name if rule else code, text))
    return result


def _display(path: str) -> str:
    return os.path.basename(path) or path


# --------------------------------------------------------------------------------------------- prompts


def render_system(info: KernelInfo, perf: bool = False) -> str:
    return _render("system.j2", info=info, perf=perf)


def _split(findings: Sequence[Finding], lines: Sequence[str], path: str) -> tuple[list[dict], list[dict]]:
    """The template data of the defects and, apart, of the performance advisories."""
    defects = [finding_data(f, lines, path) for f in findings if not is_performance(f)]
    advisories = [finding_data(f, lines, path) for f in findings if is_performance(f)]
    return defects, advisories


def render_repair(path: str, text: str, findings: Sequence[Finding],
                  guidance: Sequence[Guidance] | None = None, perf: bool = False,
                  gpu_reports: Sequence[GpuReport] = ()) -> str:
    """The first user prompt: the file, its findings with excerpts (performance advisories apart), the
    fired rules' guidance, and what building and running it on a GPU reported (`cudalint repair --verify`
    on a file that lints clean). `perf`: the request is for a faster kernel that stays correct.

    `guidance` defaults to the "How to repair" sections of the rule pages of the findings' rules."""
    info = describe(path, text)
    lines = text.splitlines()
    if guidance is None:
        guidance = guidance_for(findings)
    defects, advisories = _split(findings, lines, path)
    return _render("repair.j2", path=_display(path), text=text.rstrip("\n"), language=info.language,
                   fence=fence_for(text), findings=defects, advisories=advisories, perf=perf,
                   guidance=list(guidance), gpu_reports=_gpu_data(gpu_reports))


def _gpu_data(reports: Sequence[GpuReport]) -> list[dict]:
    return [{"kind": r.kind, "text": r.text} for r in reports]


def render_followup(path: str, text: str, findings: Sequence[Finding], previous: Sequence[Finding] = (),
                    problem: str | None = None, problem_detail: str = "", show_file: bool = False,
                    guidance: Sequence[Guidance] = (), gpu_reports: Sequence[GpuReport] = (),
                    perf: bool = False) -> str:
    """The prompt after a round: what is left in `text` (the current version of the file).

    `previous` are the findings of the version before, to name what was resolved and what is new;
    `problem` ("no_code", "truncated", "unusable") says why the last answer was not used;
    `show_file` includes the current file (when the model has not seen it as it now stands);
    `guidance` holds the repair sections of rules not explained in an earlier prompt."""
    assert problem in (None, "no_code", "truncated", "unusable"), problem
    info = describe(path, text)
    lines = text.splitlines()
    resolved, new_codes = code_changes(previous, findings)
    defects, advisories = _split(findings, lines, path)
    return _render("followup.j2", path=_display(path), text=text.rstrip("\n"), language=info.language,
                   fence=fence_for(text), findings=defects, advisories=advisories, perf=perf,
                   problem=problem, problem_detail=problem_detail, show_file=show_file,
                   resolved=resolved if problem is None else [], new_codes=new_codes if problem is None else [],
                   guidance=list(guidance), gpu_reports=_gpu_data(gpu_reports))


def code_changes(before: Sequence[Finding], after: Sequence[Finding]) -> tuple[list[str], list[str]]:
    """Codes with fewer findings after than before ("resolved") and with more ("new"), as `CL302` or
    `CL302 (2 of 3)` when only some of that code's findings went away or appeared."""
    old, new = Counter(f.code for f in before), Counter(f.code for f in after)
    resolved, added = [], []
    for code in sorted(set(old) | set(new)):
        if new[code] < old[code]:
            resolved.append(code if new[code] == 0 else f"{code} ({old[code] - new[code]} of {old[code]})")
        elif new[code] > old[code]:
            added.append(code if old[code] == 0 else f"{code} ({new[code] - old[code]} more)")
    return resolved, added


def initial_messages(path: str, text: str, findings: Sequence[Finding],
                     guidance: Sequence[Guidance] | None = None, perf: bool = False) -> list[dict]:
    """The chat messages of the first round, as `cudalint repair` (`--perf`) sends them."""
    return [{"role": "system", "content": render_system(describe(path, text), perf)},
            {"role": "user", "content": render_repair(path, text, findings, guidance, perf)}]


__all__ = ["SLOW", "GpuReport", "Guidance", "KernelInfo", "actionable", "code_changes", "describe", "environment",
           "fence_for", "finding_data", "guidance_for", "initial_messages", "is_performance", "render_followup",
           "render_repair", "render_system", "rule_guidance"]
