"""The JSON report: an array of findings, each `Finding.to_dict()` (code, name, severity, path, line,
column, end_line, end_column, message, related, and fix when there is one). Input errors are not
findings and do not appear here."""

from __future__ import annotations

import json

from cudalint.engine import FileResult
from cudalint.report import all_findings, statistics


def render_json(results: list[FileResult]) -> str:
    return json.dumps([f.to_dict() for f in all_findings(results)], indent=2, ensure_ascii=False) + "\n"


def render_json_lines(results: list[FileResult]) -> str:
    """One JSON object per finding per line, for CI systems that stream or grep."""
    return "".join(json.dumps(f.to_dict(), ensure_ascii=False) + "\n" for f in all_findings(results))


def render_json_statistics(results: list[FileResult]) -> str:
    rows = [{"count": count, "code": code, "name": name} for count, code, name in statistics(results)]
    return json.dumps(rows, indent=2) + "\n"


__all__ = ["render_json", "render_json_lines", "render_json_statistics"]
