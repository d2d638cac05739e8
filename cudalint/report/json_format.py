"""The JSON reports. `json`: an array of findings, each `Finding.to_dict()` (code, name, severity, path,
line, column, end_line, end_column, message, related, fix: null when there is none); input errors are not
findings and do not appear there. `json-files`: one entry per checked file, passed or not, for reports
of a whole batch (`cudalint report`)."""

from __future__ import annotations

import json

from cudalint.engine import FileResult
from cudalint.findings import Finding
from cudalint.prefilter import rejecting_findings
from cudalint.report.common import all_findings, statistics

FILES_SCHEMA = "cudalint.check.files/1"


def render_json(results: list[FileResult]) -> str:
    return json.dumps([f.to_dict() for f in all_findings(results)], indent=2, ensure_ascii=False) + "\n"


def render_json_files(results: list[FileResult], fail_on: str = "error", strict: bool = False) -> str:
    """`{"schema", "fail_on", "strict", "files": [{"path", "rejected", "error", "findings"}]}`: every checked
    file, `rejected` judged as `prefilter` judges at `fail_on` (an unreadable file, CL900, or a finding at or
    above `fail_on` that is not latent, or latent too with `strict`)."""
    files = []
    for result in results:
        findings = sorted(result.findings, key=Finding.sort_key)
        files.append({"path": result.path, "error": result.error,
                      "rejected": result.error is not None or bool(rejecting_findings(findings, fail_on, strict)),
                      "findings": [f.to_dict() for f in findings]})
    payload = {"schema": FILES_SCHEMA, "fail_on": fail_on, "strict": strict, "files": files}
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def render_json_lines(results: list[FileResult]) -> str:
    """One JSON object per finding per line, for CI systems that stream or grep."""
    return "".join(json.dumps(f.to_dict(), ensure_ascii=False) + "\n" for f in all_findings(results))


def render_json_statistics(results: list[FileResult]) -> str:
    rows = [{"count": count, "code": code, "name": name} for count, code, name in statistics(results)]
    return json.dumps(rows, indent=2) + "\n"


__all__ = ["FILES_SCHEMA", "render_json", "render_json_files", "render_json_lines", "render_json_statistics"]
