"""`cudalint report`: result files read by their shape, the page's counts and tables, escaping of
untrusted source text, fast_p, and the command's exit codes. (The page in a real browser:
test_report_browser.py.)"""

from __future__ import annotations

import json
import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("matplotlib", reason="the report extra (matplotlib) is not installed")

from cudalint.cli import app  # noqa: E402
from cudalint.findings import Finding  # noqa: E402
from cudalint.report.html import render_html  # noqa: E402
from cudalint.report.html_inputs import LintRun, ReportInputError, VerifyRun, load_results  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
RUNS = REPO / "tests" / "fixtures" / "runs"
RUN_DIR = "tests/fixtures/runs/kernels/run"
VERIFY_DEMO = REPO / "benchmarks" / "results" / "verify_gpu.json"
UNGUARDED = """#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* y, float a, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[idx];  // </pre><script>alert("excerpt")</script>
    y[idx] = a * v;
}

void launch_scale(const float* x, float* y, float a, int n) {
    scale_kernel<<<(n + 255) / 256, 256>>>(x, y, a, n);
}
"""


class _Page(HTMLParser):
    """The page's tables (rows of cell texts, by the heading above them), its element ids, its
    in-page links and how many scripts it has."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tables: dict[str, list[list[list[str]]]] = {}  # heading -> its tables
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.scripts = 0
        self._heading = self._text = None
        self._rows: list[list[str]] | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href", "").startswith("#"):
            self.hrefs.append(attrs["href"][1:])
        if tag == "script":
            self.scripts += 1
        if tag in ("h3", "h4", "td", "th"):
            self._text = ""
        elif tag == "table":
            self._rows = []
        elif tag == "tr" and self._rows is not None:
            self._rows.append([])

    def handle_endtag(self, tag):
        if tag in ("h3", "h4"):
            self._heading, self._text = self._text.strip(), None
        elif tag in ("td", "th") and self._rows is not None:
            self._rows[-1].append(self._text.strip())
            self._text = None
        elif tag == "table":
            self.tables.setdefault(self._heading, []).append(self._rows)
            self._rows = None

    def handle_data(self, data):
        if self._text is not None:
            self._text += data


def _cli(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture()
def in_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def _check_files(path: str, out: Path) -> Path:
    result = _cli("check", path, "--format", "json-files")
    assert result.exit_code == 1, result.output
    out.write_text(result.stdout, encoding="utf-8")
    return out


def _record(name: str, status: str, speedup: float | None = None, *, level: int = 1, problem: int = 1,
            solution: str = "", findings: list[dict] | None = None) -> dict:
    """A verify record as `cudalint.verify.runner` completes one (the fields the report reads)."""
    timing = {"candidate": {"median_ms": 1.0 / speedup}, "reference": {"median_ms": 1.0},
              "speedup": speedup} if speedup else None
    return {"schema": "cudalint.verify/1", "name": name, "solution": solution,
            "reference": f"/problems/level{level}/{problem}_Op.py", "level": level, "problem": problem, "sample": 0,
            "status": status, "passed": status == "correct", "message": f"{status} message",
            "lint": {"ran": True, "findings": findings or []}, "build": None,
            "correctness": {"max_abs_error": 0.0} if status == "correct" else None, "timing": timing,
            "sanitizer": {}, "compile_errors": [], "notes": [], "worker": {}, "seconds": {}}


# ------------------------------------------------------------------------------------ check results


def test_check_json_files_lists_every_file_with_its_verdict(in_repo, tmp_path):
    data = json.loads(_check_files(RUN_DIR, tmp_path / "check.json").read_text())
    assert data["schema"] == "cudalint.check.files/1" and data["fail_on"] == "error"
    verdicts = {os.path.basename(f["path"]): f["rejected"] for f in data["files"]}
    assert verdicts == {"clean.cu": False, "clean_wrong.cu": False, "environment.cu": False,
                        "race_accepted.cu": True, "unguarded_accepted.cu": True, "unguarded_crashed.cu": True}
    finding = next(f for f in data["files"] if f["path"].endswith("race_accepted.cu"))["findings"][0]
    assert Finding.from_dict(finding).to_dict() == finding


def test_lint_run_counts_per_directory_and_rule(in_repo, tmp_path):
    runs = load_results(str(_check_files(RUN_DIR, tmp_path / "check.json")))
    assert [type(run) for run in runs] == [LintRun]
    page = _Page(render_html(runs))
    assert page.tables["Per directory"][0] == [
        ["directory", "files", "accepted", "rejected", "rejected %"], [RUN_DIR, "6", "3", "3", "50.0%"]]
    assert page.tables["Per rule"][0][1:] == [["CL101", "missing-syncthreads", "error", "1", "1", "1"],
                                           ["CL201", "unguarded-thread-index", "error", "4", "2", "2"]]
    # each rule links to a file with its finding, each finding to its excerpt, which exists
    assert page.hrefs and set(page.hrefs) <= page.ids
    assert any(re.fullmatch(r"f\d+-L12", anchor) for anchor in page.ids)  # race_accepted.cu line 12


def test_a_plain_findings_array_says_that_clean_files_are_not_counted(in_repo, tmp_path):
    result = _cli("check", RUN_DIR, "--format", "json")
    (tmp_path / "plain.json").write_text(result.stdout)
    [run] = load_results(str(tmp_path / "plain.json"))
    assert not run.complete and len(run.results) == 3
    html = render_html([run])
    assert "lists only files with findings" in html
    assert _Page(html).tables["Per directory"][0][1] == [RUN_DIR, "3", "0", "3", "100.0%"]


def test_hostile_source_text_and_names_are_escaped(tmp_path):
    folder = tmp_path / "<svg onload=alert(3)>"  # a directory name: it labels a chart's bar as well
    folder.mkdir()
    evil = folder / 'k<img src=x onerror="alert(1)">.cu'
    evil.write_text(UNGUARDED, encoding="utf-8")
    report = _check_files(str(folder), tmp_path / "check.json")
    data = json.loads(report.read_text())
    data["files"][0]["findings"][0]["message"] = "<b onmouseover=alert(2)>bold</b>"
    report.write_text(json.dumps(data))
    html = render_html(load_results(str(report)))
    page = _Page(html)
    assert page.scripts == 0
    assert "<script>alert" not in html and "<img src=x" not in html and "<b onmouseover" not in html
    assert "<svg onload" not in html and "&lt;svg onload=alert(3)&gt;" in html
    assert '&lt;/pre&gt;&lt;script&gt;alert(&#34;excerpt&#34;)&lt;/script&gt;' in html  # shown, as text
    assert "&lt;b onmouseover=alert(2)&gt;bold&lt;/b&gt;" in html
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;.cu" in html
    assert "default-src 'none'" in html  # and were anything to slip through, the page may run no script


def test_a_run_of_many_directories_charts_the_largest(tmp_path):
    files = [{"path": f"run{d:02d}/k{k}.py", "error": None, "rejected": False, "findings": []}
             for d in range(45) for k in range(1 + d % 3)]
    (tmp_path / "wide.json").write_text(json.dumps({"schema": "cudalint.check.files/1", "fail_on": "error",
                                                    "files": files}))
    html = render_html(load_results(str(tmp_path / "wide.json")))
    assert len(_Page(html).tables["Per directory"][0]) == 1 + 45
    assert 'aria-label="Accepted and rejected files per directory (the 40 largest of 45)"' in html


def test_findings_by_rule_over_several_runs(in_repo, tmp_path):
    first = _check_files(RUN_DIR, tmp_path / "first.json")
    second = _check_files(f"{RUN_DIR}/unguarded_accepted.cu", tmp_path / "second.json")
    page = _Page(render_html(load_results(str(first)) + load_results(str(second))))
    assert page.tables["Findings by rule over the runs"][0] == [
        ["rule", "name", "1: first.json", "2: second.json"],
        ["CL101", "missing-syncthreads", "1", "0"], ["CL201", "unguarded-thread-index", "4", "2"]]


def test_runs_evaluation_with_the_harness_verdicts(tmp_path):
    result = _cli("eval", "--runs", str(RUNS), "--format", "json")
    assert result.exit_code == 0, result.output
    (tmp_path / "runs.json").write_text(result.stdout)
    [run] = load_results(str(tmp_path / "runs.json"))
    assert run.evaluation is not None and len(run.results) == 6
    html = render_html([run])
    page = _Page(html)
    assert page.tables["Per directory"][0][1] == ["run", "6", "3", "3", "50.0%", "3", "1", "1 of 2"]
    assert page.tables["Against the harness's verdicts: broken kernels per failure cause"][0][1:] == [
        ["E", "illegal memory access", "1", "1", "1"], ["I", "numerical mismatch", "1", "0", "0"]]
    assert "1 of 3" in html  # false rejects of the harness-correct kernels
    assert "reviewed real: " in html  # the review of the confirmed race, next to its finding


def test_corpus_evaluation_table(tmp_path):
    data = {"files": 2, "clean_files": 1, "clean_files_with_false_alarms": 0,
            "corpus": {"CL101": {"tp": 3, "fp": 1, "fn": 0, "precision": 0.75, "recall": 1.0, "f1": 0.857}},
            "mutants": {"CL101": {"tp": 9, "fp": 0, "fn": 1, "precision": 1.0, "recall": 0.9, "f1": 0.947}}}
    (tmp_path / "corpus.json").write_text(json.dumps(data))
    page = _Page(render_html(load_results(str(tmp_path / "corpus.json"))))
    assert page.tables[str(tmp_path / "corpus.json")][0][1] == [
        "CL101", "missing-syncthreads", "3", "1", "0", "0.75", "1.00", "10", "0.90"]


# ------------------------------------------------------------------------------------------- verify


def test_verify_verdicts_fast_p_and_problem_tables(tmp_path):
    solution = tmp_path / "level_1_problem_2_sample_1_kernel.py"
    solution.write_text("import torch\n\nx = 1\ny = x[idx]\n", encoding="utf-8")
    records = [
        _record("p1_s0", "correct", 2.5, problem=1), _record("p1_s1", "correct", 0.5, problem=1),
        _record("p2_s0", "correct", 1.0, problem=2),  # not faster than p = 1: fast_p wants more
        _record("p2_s1", "rejected", problem=2, solution=str(solution),
                findings=[{"code": "CL201", "name": "unguarded-thread-index", "severity": "error", "line": 4,
                           "column": 5, "message": "unguarded"}]),
        _record("p3_s0", "timeout", level=2, problem=3),
    ]
    batch = tmp_path / "verify.json"
    batch.write_text(json.dumps({"schema": "cudalint.verify.batch/1", "summary": {}, "results": records}))
    [run] = load_results(str(batch))
    assert isinstance(run, VerifyRun) and len(run.records) == 5
    html = render_html([run], p=1.0)
    page = _Page(html)
    statuses, fast_p = page.tables[str(batch)]
    assert statuses[1:] == [["correct", "3"], ["rejected", "1"], ["timeout", "1"]]
    # p; over the 3 problems (at p = 1 only problem 1 has a correct candidate faster than p); over candidates
    assert fast_p[1:] == [["0", "0.667", "0.600"], ["1", "0.333", "0.200"], ["1.5", "0.333", "0.200"],
                          ["2", "0.333", "0.200"]]
    problem_two = page.tables["level 1 problem 2: 2_Op.py"][0]
    assert [row[:2] for row in problem_two[1:]] == [["p2_s0", "correct"], ["p2_s1", "rejected"]]
    assert problem_two[2][-1] == "CL201 line 4"
    anchor = next(a for a in page.hrefs if a.endswith("-L4"))
    assert anchor in page.ids and "y = x[idx]" in html
    assert html.count("<svg") == 3  # verdicts, speedup distribution, fast_p curve
    assert "log scale" in html


def test_results_that_measured_nothing_are_marked_not_measured(tmp_path):
    """A batch run without a GPU judged only what the lint gate rejected: its fractions count those, and a
    batch that judged nothing shows `-`, never fast_p 0.000 as if it had been measured."""
    records = [_record(f"p{i}", "no_gpu", problem=i) for i in range(3)] + [_record("p3", "rejected", problem=3)]
    batch = tmp_path / "verify.json"
    batch.write_text(json.dumps({"schema": "cudalint.verify.batch/1", "summary": {}, "results": records}))
    out = tmp_path / "report.html"
    assert _cli("report", str(batch), "-o", str(out)).exit_code == 0
    html = out.read_text(encoding="utf-8")
    assert "3 not measured (3 no_gpu): the fractions count the 1 judged" in html
    assert _Page(html).tables[str(batch)][1][1:] == [["0", "0.000", "0.000"], ["1", "0.000", "0.000"],
                                                      ["1.5", "0.000", "0.000"], ["2", "0.000", "0.000"]]
    batch.write_text(json.dumps({"schema": "cudalint.verify.batch/1", "summary": {}, "results": records[:3]}))
    assert _cli("report", str(batch), "-o", str(out)).exit_code == 0
    html = out.read_text(encoding="utf-8")
    assert "0.000" not in html and "0.00<" not in html and "3 not measured (3 no_gpu)" in html
    assert [row[1:] for row in _Page(html).tables[str(batch)][1][1:]] == [["-", "-"]] * 4


def test_recorded_verify_results_give_one_run_per_step():
    runs = load_results(str(VERIFY_DEMO))
    names = {run.name.rpartition("[")[2].rstrip("]"): run for run in runs}
    assert {"steps/cold", "steps/warm_build", "steps/warm_run"} <= names.keys()
    assert len(names["steps/cold"].records) == 20
    assert all(isinstance(run, VerifyRun) for run in runs)


# ------------------------------------------------------------------------------------------ the CLI


def test_cli_writes_the_report(in_repo, tmp_path):
    check = _check_files(RUN_DIR, tmp_path / "check.json")
    out = tmp_path / "out" / "report.html"
    missing = _cli("report", str(check), "-o", str(out))  # a mistyped folder is not created silently
    assert missing.exit_code == 2 and missing.stderr == f"cudalint: error: {out}: no such folder {out.parent}\n"
    out.parent.mkdir()
    result = _cli("report", str(check), str(VERIFY_DEMO), "-o", str(out), "--fast-p", "1.5")
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "fast_1.5 over" in html


@pytest.mark.parametrize("content, message", [
    (None, "cannot read: No such file or directory"),
    ("{not json", "not a JSON file"),
    ('{"files": 3}', "not a cudalint result (check --format json"),
    ('[{"code": "CL201", "path": "a.cu"}]', "not a cudalint result of the shape it looks like"),
    ('{"false_rejects": {}, "catches": {}, "per_rule": {}}', "an eval --runs result without its outcomes list"),
])
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, content, message):
    path = tmp_path / "results.json"
    if content is not None:
        path.write_text(content)
    result = _cli("report", str(path), "-o", str(tmp_path / "report.html"))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert not (tmp_path / "report.html").exists()
    with pytest.raises(ReportInputError):
        load_results(str(path))


_CORPUS = {"files": 2, "clean_files": 1, "clean_files_with_false_alarms": 0,
           "corpus": {"CL101": {"tp": 3, "fp": 1, "fn": 0, "precision": 0.75, "recall": 1.0, "f1": 0.857}},
           "mutants": {"CL101": {"tp": 9, "fp": 0, "fn": 1, "precision": 1.0, "recall": 0.9, "f1": 0.947}}}


@pytest.mark.parametrize("content", [
    "[" * 100_000 + "]" * 100_000,
    '[{"code": "CL201", "path": "a.cu", "line": Infinity, "column": 1, "severity": "error", "message": "m"}]',
    json.dumps({**_CORPUS, "corpus": {"CL101": 10 ** 30}}),
    json.dumps({**_CORPUS, "mutants": {"CL101": {**_CORPUS["mutants"]["CL101"], "tp": {}}}}),
    json.dumps({**_CORPUS, "corpus": {"CL101": {**_CORPUS["corpus"]["CL101"], "precision": ""}}}),
    json.dumps({"schema": "cudalint.check.files/1", "fail_on": None, "files": [{"path": "a.cu", "findings": []}]}),
], ids=["deep", "infinite-line", "corpus-entry-a-number", "count-an-object", "precision-a-string", "fail-on-null"])
def test_cli_odd_values_in_a_known_shape_are_one_line_and_exit_2(tmp_path, content):
    path = tmp_path / "results.json"
    path.write_text(content)
    result = _cli("report", str(path), "-o", str(tmp_path / "report.html"))
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.stderr.count("\n") == 1 and str(path) in result.stderr, result.stderr
    assert not (tmp_path / "report.html").exists()


def test_cli_without_the_report_extra(monkeypatch, tmp_path):
    import cudalint.report

    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith(("matplotlib.", "cudalint.report.html"))]:
        monkeypatch.delitem(sys.modules, name)
    for module in ("html", "html_charts", "html_inputs"):
        monkeypatch.delattr(cudalint.report, module, raising=False)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    result = _cli("report", str(VERIFY_DEMO), "-o", str(tmp_path / "report.html"))
    assert result.exit_code == 2
    assert result.stderr == "cudalint: error: cudalint report needs matplotlib: pip install 'cudalint[report]'\n"


def test_only_sources_the_results_may_reference_are_quoted(tmp_path, monkeypatch):
    """A result file from elsewhere must not make the report quote arbitrary local files."""
    work, results, outside = tmp_path / "work", tmp_path / "results", tmp_path / "outside"
    for folder in (work, results, outside):
        folder.mkdir()
    monkeypatch.chdir(work)
    secret = "SECRET-LINE = 1"
    (outside / "secret.py").write_text(f"{secret}\n")
    (results / "notes.txt").write_text(f"{secret}\n")
    (work / "escape.py").symlink_to(outside / "secret.py")
    (results / "kernel.py").write_text("QUOTED-LINE = 1\n")
    (work / "local.py").write_text("LOCAL-LINE = 1\n")
    paths = [str(outside / "secret.py"), "../outside/secret.py", "escape.py", str(results / "notes.txt"),
             "/etc/shadow", str(results / "kernel.py"), "local.py"]
    finding = {"code": "CL201", "name": "unguarded-thread-index", "severity": "error", "line": 1, "column": 1,
               "end_line": 1, "end_column": 2, "message": "m"}
    data = {"schema": "cudalint.check.files/1", "fail_on": "error",
            "files": [{"path": p, "findings": [{**finding, "path": p}]} for p in paths]}
    (results / "check.json").write_text(json.dumps(data))
    html = render_html(load_results(str(results / "check.json")))
    assert "QUOTED-LINE" in html and "LOCAL-LINE" in html  # beside the results; under the source root
    assert "SECRET-LINE" not in html and "root:" not in html
