"""SARIF 2.1.0, as GitHub code scanning reads it: one run, the rules with their pages as help, one result
per finding with a repo-relative location and a fingerprint that stays the same across runs."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from urllib.parse import quote

from cudalint.checks.registry import Rule, all_rules, find_rule
from cudalint.engine import FileResult
from cudalint.findings import Finding, Location, Severity
from cudalint.report.common import all_findings, source_line

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_VERSION = "2.1.0"
INFORMATION_URI = "https://github.com/cudalint/cudalint"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "cudalintLineHash/v1"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def level(severity: Severity) -> str:
    return _LEVEL[severity]


def artifact_location(path: str, root: str | None = None) -> dict:
    """`uri` relative to `root` (default: the working directory) with uriBaseId %SRCROOT% when the file
    is under it; an absolute file: URI otherwise."""
    root_path = Path(root or os.getcwd()).resolve()
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(root_path)
    except ValueError:
        try:
            relative = absolute.resolve().relative_to(root_path)
        except ValueError:
            return {"uri": absolute.as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": SRCROOT}


def _region(location: Location) -> dict:
    return {"startLine": location.line, "startColumn": location.column,
            "endLine": max(location.end_line, location.line),
            "endColumn": max(location.end_column, 1) if location.end_line > location.line
            else max(location.end_column, location.column)}


def _physical(location: Location, root: str | None) -> dict:
    return {"artifactLocation": artifact_location(location.path, root), "region": _region(location)}


def _rule_descriptor(rule: Rule) -> dict:
    from cudalint.rule_docs import fallback_page, page_for

    page = page_for(rule)
    help_text = page.text if page else fallback_page(rule)
    full = page.what_it_finds if page else rule.summary
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": full},
        "help": {"text": help_text, "markdown": help_text},
        "defaultConfiguration": {"level": level(rule.severity)},
        "properties": {"tags": [rule.category], "category": rule.category},
    }


def fingerprint(code: str, uri: str, line_text: str | None) -> str:
    """A hash of what identifies a finding independently of its line number: rule, file, line text."""
    data = "\0".join((code, uri, (line_text or "").strip()))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:32]


def render_sarif(results: list[FileResult], sources: Mapping[str, str] | None = None, *,
                 rules: Sequence[Rule] | None = None, root: str | None = None) -> str:
    """SARIF for `results`. `rules`: the rules to describe (the selected ones; default all); rules with
    results are always included. `sources` gives line texts for fingerprints; `root` the directory
    that locations are relative to (default: the working directory)."""
    from cudalint.version import __version__

    findings = all_findings(results)
    described = {r.code: r for r in (rules if rules is not None else all_rules())}
    for finding in findings:
        if finding.code not in described:
            rule = find_rule(finding.code)
            if rule is not None:
                described[rule.code] = rule
    ordered = sorted(described.values(), key=lambda r: r.code)
    index = {rule.code: i for i, rule in enumerate(ordered)}

    occurrences: Counter[str] = Counter()
    sarif_results = []
    for finding in findings:
        sarif_results.append(_result(finding, index, sources, root, occurrences))

    notifications = [
        {"level": "error", "message": {"text": r.error},
         "locations": [{"physicalLocation": {"artifactLocation": artifact_location(r.path, root)}}]}
        for r in results if r.error is not None
    ]
    # a file whose analysis did not complete (CL900) was not fully checked either
    invocation = {"executionSuccessful": not notifications and all(f.code != "CL900" for f in findings)}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    run = {
        "tool": {"driver": {
            "name": "cudalint", "version": __version__, "semanticVersion": __version__,
            "informationUri": INFORMATION_URI, "rules": [_rule_descriptor(r) for r in ordered],
        }},
        "invocations": [invocation],
        "originalUriBaseIds": {SRCROOT: {"uri": Path(root or os.getcwd()).resolve().as_uri() + "/"}},
        # columns count characters (without it, SARIF readers count UTF-16 code units)
        "columnKind": "unicodeCodePoints",
        "results": sarif_results,
    }
    log = {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _result(finding: Finding, index: dict[str, int], sources: Mapping[str, str] | None, root: str | None,
            occurrences: Counter[str]) -> dict:
    physical = _physical(finding.location, root)
    uri = physical["artifactLocation"]["uri"]
    digest = fingerprint(finding.code, uri, source_line(sources, finding.path, finding.line))
    occurrences[digest] += 1  # identical lines in one file: number them in file order, as GitHub does
    result = {
        "ruleId": finding.code,
        "ruleIndex": index.get(finding.code, -1),
        "level": level(finding.severity),
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": physical}],
        "partialFingerprints": {FINGERPRINT_KEY: f"{digest}:{occurrences[digest]}"},
    }
    if finding.related:
        result["relatedLocations"] = [
            {"id": i, "physicalLocation": _physical(r.location, root), "message": {"text": r.message}}
            for i, r in enumerate(finding.related, start=1)
        ]
    return result


__all__ = ["FINGERPRINT_KEY", "INFORMATION_URI", "SARIF_SCHEMA", "SARIF_VERSION", "artifact_location",
           "fingerprint", "level", "render_sarif"]
