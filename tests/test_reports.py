"""The renderers: SARIF against the official schema, level mapping, relative URIs, stable fingerprints;
text excerpts and summaries; GitHub escaping."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cudalint.checks.registry import all_rules, find_rule
from cudalint.config import LintOptions
from cudalint.engine import FileResult, lint_paths
from cudalint.findings import Finding, Location, RelatedLocation
from cudalint.report import FORMATS, render
from cudalint.report.common import load_sources, statistics
from cudalint.report.github import annotation, escape_data, escape_property, render_github
from cudalint.report.json_format import render_json
from cudalint.report.sarif import FINGERPRINT_KEY, render_sarif
from cudalint.report.text import render_text, summary_line

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "cli"
SCHEMA_PATH = REPO / "tests" / "data" / "sarif-schema-2.1.0.json"  # the official SARIF 2.1.0 schema, shipped


@pytest.fixture(scope="module")
def sarif_validator():
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is needed to validate SARIF")
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


def assert_valid(validator, log: dict) -> None:
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def _finding(code: str, path: str, line: int, column: int, end_column: int, message: str = "something is wrong",
             related: tuple[RelatedLocation, ...] = ()) -> Finding:
    rule = find_rule(code)
    return Finding(rule.code, rule.name, rule.severity, Location(path, line, column, line, end_column), message,
                   related)


def _lint(*paths: Path) -> list[FileResult]:
    return lint_paths([str(p) for p in paths], LintOptions())


# --------------------------------------------------------------------------------------------- SARIF


def test_sarif_validates_against_the_official_schema(sarif_validator, monkeypatch):
    monkeypatch.chdir(REPO)
    results = lint_paths(["tests/fixtures/cli/statistics.cu", "tests/fixtures/cli/unused_suppression.cu",
                          "tests/fixtures/cli/unknown_header.cu", "tests/fixtures/cli/syntax_error.py"],
                         LintOptions())
    log = json.loads(render_sarif(results, load_sources(results)))
    assert_valid(sarif_validator, log)
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-schema-2.1.0.json")
    run = log["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"  # columns count characters, as cudalint's do
    driver = run["tool"]["driver"]
    assert driver["name"] == "cudalint"
    assert driver["version"] and driver["informationUri"].startswith("https://")
    # all rules by default, each fully described
    assert [r["id"] for r in driver["rules"]] == [r.code for r in all_rules()]
    for descriptor in driver["rules"]:
        rule = find_rule(descriptor["id"])
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["fullDescription"]["text"]
        assert descriptor["help"]["text"].startswith(f"# {rule.code} {rule.name}")
        assert descriptor["help"]["markdown"] == descriptor["help"]["text"]
    cl301 = next(r for r in driver["rules"] if r["id"] == "CL301")
    assert cl301["fullDescription"]["text"].startswith("A kernel whose shared memory does not fit")
    # results point at their rule
    assert {r["ruleId"] for r in run["results"]} == {"CL301", "CL302", "CL400", "CL902", "CL903"}
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert set(region) == {"startLine", "startColumn", "endLine", "endColumn"}
        assert FINGERPRINT_KEY in result["partialFingerprints"]
    first = run["results"][0]
    assert first["ruleId"] == "CL301"
    assert first["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 7, "startColumn": 5, "endLine": 7, "endColumn": 35}


def test_sarif_levels(sarif_validator, tmp_path):
    path = str(tmp_path / "k.cu")
    results = [FileResult(path, [_finding("CL301", path, 1, 1, 2), _finding("CL902", path, 2, 1, 2),
                                 _finding("CL903", path, 3, 1, 2)])]
    log = json.loads(render_sarif(results, root=str(tmp_path)))
    assert_valid(sarif_validator, log)
    run = log["runs"][0]
    assert [r["level"] for r in run["results"]] == ["error", "warning", "note"]
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in run["tool"]["driver"]["rules"]}
    expected = {"error": "error", "warning": "warning", "info": "note"}
    assert levels == {r.code: expected[r.severity.value] for r in all_rules()}


def test_sarif_uri_is_relative_to_the_working_directory(sarif_validator, tmp_path, monkeypatch):
    inside = tmp_path / "repo" / "kernels dir" / "k.cu"
    inside.parent.mkdir(parents=True)
    inside.write_text("// k\n")
    outside = tmp_path / "elsewhere.cu"
    outside.write_text("// e\n")
    monkeypatch.chdir(tmp_path / "repo")
    results = [FileResult("kernels dir/k.cu", [_finding("CL301", "kernels dir/k.cu", 1, 1, 3)]),
               FileResult(str(inside), [_finding("CL302", str(inside), 1, 1, 3)]),
               FileResult(str(outside), [_finding("CL301", str(outside), 1, 1, 3)])]
    log = json.loads(render_sarif(results))
    assert_valid(sarif_validator, log)
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]]
    relative = {"uri": "kernels%20dir/k.cu", "uriBaseId": "%SRCROOT%"}
    assert locations[0] == relative
    assert locations[1] == relative  # an absolute path under the working directory is made relative too
    assert locations[2] == {"uri": outside.resolve().as_uri()}
    assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/repo/")


def test_sarif_related_locations_and_selected_rules(sarif_validator, tmp_path):
    path = str(tmp_path / "k.cu")
    related = (RelatedLocation(Location(path, 3, 5, 3, 9), "declared here"),
               RelatedLocation(Location(path, 9, 1, 9, 4), "launched here"))
    results = [FileResult(path, [_finding("CL301", path, 4, 5, 20, related=related)])]
    log = json.loads(render_sarif(results, rules=[find_rule("CL302")], root=str(tmp_path)))
    assert_valid(sarif_validator, log)
    run = log["runs"][0]
    # the selected rules, plus any rule that has a result
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["CL301", "CL302"]
    assert run["results"][0]["ruleIndex"] == 0
    related_out = run["results"][0]["relatedLocations"]
    assert [r["id"] for r in related_out] == [1, 2]
    assert [r["message"]["text"] for r in related_out] == ["declared here", "launched here"]
    assert related_out[0]["physicalLocation"]["region"]["startLine"] == 3


def test_sarif_input_errors_are_notifications(sarif_validator, tmp_path):
    results = [FileResult(str(tmp_path / "bad.cu"), error=f"{tmp_path / 'bad.cu'}: binary file (contains NUL bytes)")]
    log = json.loads(render_sarif(results, root=str(tmp_path)))
    assert_valid(sarif_validator, log)
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert "binary file" in invocation["toolExecutionNotifications"][0]["message"]["text"]
    assert log["runs"][0]["results"] == []


def _fingerprints(results, root) -> list[str]:
    log = json.loads(render_sarif(results, load_sources(results), root=root))
    return [r["partialFingerprints"][FINGERPRINT_KEY] for r in log["runs"][0]["results"]]


def test_sarif_fingerprints_are_stable(tmp_path):
    kernel = tmp_path / "kernel.cu"
    shutil.copy(FIXTURES / "statistics.cu", kernel)
    first = _fingerprints(_lint(kernel), str(tmp_path))
    second = _fingerprints(_lint(kernel), str(tmp_path))
    assert first == second
    assert len(set(first)) == len(first) == 3
    # moving the code down keeps the fingerprints; the lines change
    kernel.write_text("// a comment added at the top\n\n" + kernel.read_text())
    moved = _lint(kernel)
    assert [f.line for f in moved[0].findings] == [9, 21, 34]
    assert _fingerprints(moved, str(tmp_path)) == first
    # editing a flagged line changes that finding's fingerprint only
    kernel.write_text(kernel.read_text().replace("float window[13312];  // 52 KB", "float window[13000];"))
    edited = _fingerprints(_lint(kernel), str(tmp_path))
    assert edited[0] != first[0] and edited[1:] == first[1:]


def test_sarif_fingerprints_number_identical_lines(tmp_path):
    path = str(tmp_path / "k.cu")
    text = "int a;\nint a;\n"
    results = [FileResult(path, [_finding("CL301", path, 1, 1, 6), _finding("CL301", path, 2, 1, 6)])]
    hashes = json.loads(render_sarif(results, {path: text}, root=str(tmp_path)))["runs"][0]["results"]
    first, second = (r["partialFingerprints"][FINGERPRINT_KEY] for r in hashes)
    assert first.endswith(":1") and second.endswith(":2")
    assert first.split(":")[0] == second.split(":")[0]


# ---------------------------------------------------------------------------------------------- text


def test_text_excerpt_and_caret():
    path = "k.cu"
    source = "int main() {\n    __shared__ float tile[8];\n\tx = y;\n}\n"
    results = [FileResult(path, [
        _finding("CL301", path, 2, 5, 30, "too big"),
        _finding("CL302", path, 3, 2, 7, "tab before", related=(RelatedLocation(Location(path, 1, 5, 1, 9), "here"),)),
        _finding("CL903", path, 4, 1, 1, "empty span"),
    ])]
    lines = render_text(results, {path: source}).splitlines()
    assert lines[:3] == ["k.cu:2:5: CL301 [error] too big", "    __shared__ float tile[8];",
                         "    ^" + "~" * 24]  # columns 5..29: up to the `;`
    assert lines[3:7] == ["k.cu:3:2: CL302 [error] tab before", "\tx = y;", "\t^~~~~", "  k.cu:1:5: note: here"]
    assert lines[7:9] == ["k.cu:4:1: CL903 [info] empty span", "}", ] and lines[9] == "^"
    assert lines[-1] == "Found 3 findings (2 errors, 1 info) in 1 file."


def test_text_without_sources_or_summary():
    path = "k.cu"
    results = [FileResult(path, [_finding("CL301", path, 2, 5, 30, "too big")])]
    assert render_text(results, None, summary=False) == "k.cu:2:5: CL301 [error] too big\n"
    coloured = render_text(results, None, color=True)
    assert "\033[" in coloured and "too big" in coloured
    assert render_text([FileResult("a.cu"), FileResult("b.cu")]) == "All checks passed.\n"


def test_summary_line():
    one = FileResult("a.cu", [_finding("CL902", "a.cu", 1, 1, 2)])
    two = FileResult("b.cu", [_finding("CL301", "b.cu", 1, 1, 2), _finding("CL301", "b.cu", 2, 1, 2)])
    bad = FileResult("c.cu", error="c.cu: binary file (contains NUL bytes)")
    assert summary_line([one]) == "Found 1 finding (1 warning) in 1 file."
    assert summary_line([one, two]) == "Found 3 findings (2 errors, 1 warning) in 2 files."
    assert summary_line([one, bad]) == "Found 1 finding (1 warning) in 1 file. 1 file could not be checked."
    assert summary_line([bad]) == "No findings; 1 file could not be checked."
    assert summary_line([]) == "All checks passed."


def test_statistics_order():
    results = [FileResult("a.cu", [_finding("CL302", "a.cu", 1, 1, 2), _finding("CL301", "a.cu", 2, 1, 2),
                                   _finding("CL301", "a.cu", 3, 1, 2), _finding("CL903", "a.cu", 4, 1, 2)])]
    assert statistics(results) == [(2, "CL301", "shared-memory-oversize"), (1, "CL302", "invalid-launch-config"),
                                   (1, "CL903", "unknown-header")]


# ----------------------------------------------------------------------------------------- github/json


def test_github_escaping():
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a,b:c%\n") == "a%2Cb%3Ac%25%0A"
    finding = _finding("CL903", "dir,1/x:y.cu", 3, 2, 5, "line one\nline two 100%",
                       related=(RelatedLocation(Location("dir,1/x:y.cu", 1, 1, 1, 2), "see"),))
    assert annotation(finding) == (
        "::notice title=CL903 unknown-header,file=dir%2C1/x%3Ay.cu,line=3,col=2,endLine=3,endColumn=5::"
        "line one%0Aline two 100%25%0Adir,1/x:y.cu:1:1: note: see")
    assert render_github([FileResult("a.cu")]) == ""


def test_json_is_a_list_of_finding_dicts():
    results = [FileResult("b.cu", [_finding("CL301", "b.cu", 2, 1, 2)]), FileResult("a.cu", error="boom"),
               FileResult("c.cu", [_finding("CL903", "c.cu", 1, 1, 2)])]
    data = json.loads(render_json(results))
    assert data == [f.to_dict() for r in results for f in r.findings]


def test_render_dispatch():
    results = [FileResult("a.cu", [_finding("CL301", "a.cu", 1, 1, 2)])]
    for fmt in FORMATS:
        assert render(fmt, results, {"a.cu": "x\n"})
    with pytest.raises(ValueError):
        render("xml", results)


def test_junit_has_a_suite_per_file_a_failure_per_finding_and_an_error_per_unread_file():
    import xml.etree.ElementTree as ElementTree

    from cudalint.report.junit import render_junit

    results = [FileResult("b.cu", [_finding("CL301", "b.cu", 2, 1, 2, "a <bad> & \"quoted\" message")]),
               FileResult("a.cu", error="a.cu: not UTF-8"), FileResult("clean.cu")]
    root = ElementTree.fromstring(render_junit(results))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "1")
    suites = {suite.get("name"): suite for suite in root}
    [case] = suites["b.cu"]
    assert case.get("name").startswith("CL301 ") and case.get("line") == "2"
    failure = case.find("failure")
    assert failure.get("message") == "a <bad> & \"quoted\" message" and failure.get("type") == "error"
    assert failure.text.startswith("b.cu:2:1: a <bad>")
    assert suites["a.cu"].find("testcase/error").get("message") == "a.cu: not UTF-8"
    [passing] = suites["clean.cu"]
    assert list(passing) == [] and suites["clean.cu"].get("failures") == "0"
