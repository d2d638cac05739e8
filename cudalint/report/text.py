"""The human-readable report: one `path:line:col: CODE [severity] message` line per finding, the source
line with a caret under the span, related locations as notes, and a summary line."""

from __future__ import annotations

from collections.abc import Mapping

from cudalint.engine import FileResult
from cudalint.findings import Finding, Severity
from cudalint.report.common import all_findings, source_line, statistics

_RESET = "\033[0m"
_BOLD = "\033[1m"
_DIM = "\033[2m"
_SEVERITY_COLOR = {Severity.ERROR: "\033[1;31m", Severity.WARNING: "\033[1;33m", Severity.INFO: "\033[1;36m"}
_CARET_COLOR = "\033[1;32m"
_NOTE_COLOR = "\033[1;34m"


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.color and text else text


def render_text(results: list[FileResult], sources: Mapping[str, str] | None = None, *, color: bool = False,
                show_source: bool = True, summary: bool = True, fixable: Mapping[int, str] | None = None) -> str:
    """Findings of `results` as text; `sources` maps paths to file texts for the excerpts (files
    missing from it get no excerpt). Input errors are not shown here, only counted in the summary.
    `fixable` (`cudalint.fixes.fixability`: id(finding) -> "safe" or "unsafe") says which findings `--fix`
    fixes; without it, a finding counts as fixable when it carries a fix."""
    style = _Style(color)
    kind = (lambda finding: fixable.get(id(finding))) if fixable is not None else _carried_fix
    lines: list[str] = []
    findings = all_findings(results)
    for finding in findings:
        lines.append(_headline(finding, style, kind(finding) == "safe"))
        if show_source:
            lines += _excerpt(finding, sources, style)
        for related in finding.related:
            loc = related.location
            lines.append(f"  {style(f'{loc.path}:{loc.line}:{loc.column}:', _BOLD)} "
                         f"{style('note:', _NOTE_COLOR)} {related.message}")
    if summary:
        if findings and show_source:
            lines.append("")
        lines.append(summary_line(results))
        counted = fixable_line([kind(f) for f in findings])
        if counted:
            lines.append(counted)
    return "\n".join(lines) + ("\n" if lines else "")


def render_concise(results: list[FileResult]) -> str:
    """`path:line:col: severity: message [CODE]`, one line per finding: the shape editors' problem matchers
    (and gcc-style error parsers) read."""
    return "".join(f"{f.location.path}:{f.location.line}:{f.location.column}: {f.severity.value}: "
                   f"{' '.join(f.message.split())} [{f.code}]\n" for f in all_findings(results))


def _carried_fix(finding: Finding) -> str | None:
    """"safe" or "unsafe" when the finding carries a fix (`--unsafe-fixes` for the latter)."""
    if finding.fix is None or not finding.fix.edits:
        return None
    return "safe" if finding.fix.safe else "unsafe"


def _headline(finding: Finding, style: _Style, fixable: bool) -> str:
    loc = finding.location
    severity = style(f"[{finding.severity.value}]", _SEVERITY_COLOR[finding.severity])
    marker = " [*]" if fixable else ""
    latent = " [latent]" if finding.latent else ""
    return f"{style(f'{loc.path}:{loc.line}:{loc.column}:', _BOLD)} {style(finding.code, _BOLD)} {severity}{latent}{marker} " \
           f"{finding.message}"


def _excerpt(finding: Finding, sources: Mapping[str, str] | None, style: _Style) -> list[str]:
    loc = finding.location
    text = source_line(sources, loc.path, loc.line)
    if text is None:
        return []
    text = text.rstrip()
    start = max(loc.column - 1, 0)
    if start > len(text):
        start = len(text)
    end = loc.end_column - 1 if loc.end_line == loc.line else len(text)
    end = min(max(end, start + 1), max(len(text), start + 1))
    # keep tabs so the caret lines up under the same characters in any terminal
    padding = "".join(ch if ch == "\t" else " " for ch in text[:start])
    marker = "^" + "~" * (end - start - 1)
    return [text, padding + style(marker, _CARET_COLOR)]


def _plural(count: int, word: str) -> str:
    if word == "info":
        return f"{count} info"
    return f"{count} {word}" + ("" if count == 1 else "s")


def fixable_line(kinds: list[str | None]) -> str | None:
    """`[*] 2 fixable with --fix (1 more with --unsafe-fixes).`, or None when nothing is; `kinds`: "safe",
    "unsafe" or None per finding."""
    safe, unsafe = kinds.count("safe"), kinds.count("unsafe")
    if not safe and not unsafe:
        return None
    more = f" ({unsafe} more with --fix --unsafe-fixes)" if unsafe else ""
    return f"[*] {safe} fixable with --fix{more}."


def summary_line(results: list[FileResult]) -> str:
    """`Found 3 findings (2 errors, 1 warning) in 2 files.`, or `All checks passed.`"""
    findings = all_findings(results)
    failed = sum(1 for r in results if r.error is not None)
    unchecked = f" {_plural(failed, 'file')} could not be checked." if failed else ""
    if not findings:
        return f"No findings;{unchecked}" if failed else "All checks passed."
    by_severity = [(_plural(n, name)) for name, n in (
        ("error", sum(f.severity is Severity.ERROR for f in findings)),
        ("warning", sum(f.severity is Severity.WARNING for f in findings)),
        ("info", sum(f.severity is Severity.INFO for f in findings)),
    ) if n]
    files = len({f.path for f in findings})
    return f"Found {_plural(len(findings), 'finding')} ({', '.join(by_severity)}) in {_plural(files, 'file')}." \
           f"{unchecked}"


def render_statistics(results: list[FileResult]) -> str:
    """`count code name` per rule with findings, most frequent first (like `ruff --statistics`)."""
    rows = statistics(results)
    if not rows:
        return ""
    width = max(len(str(count)) for count, _, _ in rows)
    return "".join(f"{count:>{width}}  {code}  {name}\n" for count, code, name in rows)


__all__ = ["fixable_line", "render_concise", "render_statistics", "render_text", "summary_line"]


def render_batch_summary(summary) -> str:
    """The table after a batch run: files accepted and rejected, and findings per rule."""
    lines = ["", f"Batch: {summary.files} files, {summary.accepted} accepted, {summary.rejected} rejected"
                 + (f" ({summary.unreadable} could not be checked)" if summary.unreadable else "")
                 + "."]
    text = "\n".join(lines) + "\n"
    if summary.rules:
        from cudalint.report.tables import render_table

        text += render_table(["rule", "name", "severity", "findings", "files", "rejected"],
                             [(r.code, r.name, r.severity, r.findings, r.files, r.rejected_files) for r in summary.rules],
                             numeric=[False, False, False, True, True, True])
    return text
