"""GitHub Actions workflow commands: one `::error title=...,file=...,line=...,col=...::message` line per
finding, which GitHub shows as an annotation on the pull request's diff."""

from __future__ import annotations

from cudalint.engine import FileResult
from cudalint.findings import Finding, Severity
from cudalint.report.common import all_findings

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    """Escape a command's message as the runner expects (`%`, CR, LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property value: as data, plus `:` and `,`, which separate properties."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    loc = finding.location
    properties = {
        "title": f"{finding.code} {finding.name}", "file": loc.path, "line": loc.line, "col": loc.column,
        "endLine": loc.end_line, "endColumn": loc.end_column,
    }
    message = finding.message + "".join(
        f"\n{r.location.path}:{r.location.line}:{r.location.column}: note: {r.message}" for r in finding.related)
    joined = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    return f"::{_COMMAND[finding.severity]} {joined}::{escape_data(message)}"


def render_github(results: list[FileResult]) -> str:
    return "".join(annotation(f) + "\n" for f in all_findings(results))


__all__ = ["annotation", "escape_data", "escape_property", "render_github"]
