"""JUnit XML, the test-report format CI systems show (GitLab, Jenkins, Azure): one test suite per checked
file, one failing test case per finding (its type the severity), one passing case for a file with none,
and an `<error>` case for a file that could not be read or fully analysed."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

from cudalint.engine import FileResult
from cudalint.findings import Finding


def render_junit(results: list[FileResult]) -> str:
    root = ElementTree.Element("testsuites", name="cudalint")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for result in results:
        suite = ElementTree.SubElement(root, "testsuite", name=result.path)
        counts = {"tests": 0, "failures": 0, "errors": 0}
        if result.error is not None:
            case = ElementTree.SubElement(suite, "testcase", name="cudalint", classname=result.path)
            ElementTree.SubElement(case, "error", message=result.error).text = result.error
            counts.update(tests=1, errors=1)
        for finding in sorted(result.findings, key=Finding.sort_key):
            loc = finding.location
            case = ElementTree.SubElement(suite, "testcase", name=f"{finding.code} {finding.name}",
                                          classname=result.path, file=loc.path, line=str(loc.line))
            text = f"{loc.path}:{loc.line}:{loc.column}: {finding.message}" + "".join(
                f"\n{r.location.path}:{r.location.line}:{r.location.column}: note: {r.message}"
                for r in finding.related)
            ElementTree.SubElement(case, "failure", message=finding.message,
                                   type=finding.severity.value).text = text
            counts["tests"] += 1
            counts["failures"] += 1
        if not counts["tests"]:
            ElementTree.SubElement(suite, "testcase", name="cudalint", classname=result.path)
            counts["tests"] = 1
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"


__all__ = ["render_junit"]
