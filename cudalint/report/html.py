"""The HTML report (`cudalint report`): one self-contained page from lint, evaluation and verify results.

`render_html(runs)` returns the page as a string: charts are inline SVG (`html_charts`, matplotlib),
the styles are in the page, and it has no script and loads nothing (its Content-Security-Policy
forbids both), so it opens anywhere with no network. Source excerpts are untrusted text: the jinja2
template autoescapes everything but the SVG the charts module made.
"""

from __future__ import annotations

import datetime
import math
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import jinja2

from cudalint.checks.registry import find_rule
from cudalint.engine import FileResult, InputError, read_source
from cudalint.positions import split_lines
from cudalint.sources import SUFFIXES
from cudalint.evaluation.runs import CAUSES, ENVIRONMENT_CAUSES
from cudalint.findings import Finding
from cudalint.prefilter import rejecting_findings, summarize
from cudalint.report import html_charts as charts
from cudalint.report.html_inputs import MALFORMED, CorpusRun, LintRun, Run, VerifyRun, not_of_its_shape
from cudalint.verify import results as verify_results

CONTEXT_LINES = 2  # source lines shown above and below a finding's line
TREND_RULES = 10  # rules drawn in the findings-over-runs chart (the table has them all)
CHART_BARS = 40  # directories drawn in a run's chart
FAST_P_TABLE = (0.0, 1.0, 1.5, 2.0)  # thresholds tabulated besides the chosen p


@dataclass
class Excerpt:
    anchor: str
    lines: list[tuple[int, str, bool]]  # (number, text, whether it is the finding's line)


@dataclass
class LineMessage:
    """A finding, compile error or sanitizer report on a line of a file, linking to its excerpt."""

    label: str  # "CL201", "compile error", "memcheck"
    line: int | None
    text: str
    severity: str
    anchor: str | None  # the excerpt's id, when the source could be read
    rejects: bool = False
    review: str | None = None  # a person's verdict on the finding


@dataclass
class FileView:
    anchor: str
    path: str
    rejected: bool
    error: str | None
    messages: list[LineMessage]
    excerpts: list[Excerpt]


class _Sources:
    """Reads each source once; relative paths are taken from `root`. Builds the excerpts' anchors.

    The paths come from result files, which may come from anywhere: only a source file (`.cu`, `.cuh`,
    `.py`) under `root` (default: the current directory) or under a result file's folder is quoted, after
    symbolic links and `..` are resolved; any other path (`/etc/shadow`, `../../.ssh/x.py`) is not read."""

    def __init__(self, root: str | None, result_files: Sequence[str] = ()) -> None:
        self.root = root
        self.folders = [os.path.realpath(folder) for folder in
                        [root or os.getcwd(), *(os.path.dirname(os.path.abspath(f)) for f in result_files)]]
        self.texts: dict[str, list[str] | None] = {}
        self.count = 0

    def lines(self, path: str) -> list[str] | None:
        if path not in self.texts:
            on_disk = path if os.path.isabs(path) or self.root is None else os.path.join(self.root, path)
            self.texts[path] = None
            if self._may_quote(on_disk):
                try:
                    self.texts[path] = split_lines(read_source(on_disk))
                except InputError:
                    pass
        return self.texts[path]

    def _may_quote(self, path: str) -> bool:
        real = os.path.realpath(path)
        return real.endswith(SUFFIXES) and any(real.startswith(os.path.join(folder, "")) for folder in self.folders)

    def file_anchor(self) -> str:
        self.count += 1
        return f"f{self.count}"

    def excerpts(self, anchor: str, path: str, lines: Iterable[int]) -> dict[int, Excerpt]:
        """One excerpt per line of `path` that exists, keyed by line."""
        text = self.lines(path)
        found = {}
        for line in sorted(set(lines)):
            if text is None or not 1 <= line <= len(text):
                continue
            first, last = max(1, line - CONTEXT_LINES), min(len(text), line + CONTEXT_LINES)
            found[line] = Excerpt(f"{anchor}-L{line}", [(n, text[n - 1], n == line) for n in range(first, last + 1)])
        return found


# ------------------------------------------------------------------------------------------ lint runs


@dataclass
class Link:
    text: str
    href: str


@dataclass
class Table:
    headers: list[str]
    rows: list[list]  # cells: text, a number, a Link, or a list of them
    numeric: set[int] = field(default_factory=set)  # columns aligned right


@dataclass
class LintView:
    name: str
    complete: bool
    totals: dict
    charts: list
    directories: Table
    rules: Table
    evaluation: dict | None
    causes: Table | None
    rule_verdicts: Table | None
    groups: list[tuple[str, list[FileView]]]  # directory -> its files with findings or errors


def _directory(path: str) -> str:
    return os.path.dirname(path) or "."


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _rule_name(code: str) -> str:
    rule = find_rule(code)
    return rule.name if rule else ""


def _lint_view(index: int, run: LintRun, sources: _Sources) -> LintView:
    shown = {result.path: run.labels.get(result.path, result.path) for result in run.results}
    by_directory: dict[str, list[FileResult]] = {}
    for result in run.results:
        by_directory.setdefault(_directory(shown[result.path]), []).append(result)
    parts = {directory: summarize(by_directory[directory], run.fail_on, run.strict) for directory in sorted(by_directory)}
    batch = summarize(run.results, run.fail_on, run.strict)
    evaluation = run.evaluation

    headers = ["directory", "files", "accepted", "rejected", "rejected %"]
    rows = [[directory, part.files, part.accepted, part.rejected, _percent(part.rejected, part.files)]
            for directory, part in parts.items()]
    if evaluation:
        headers += ["harness: correct", "false rejects", "broken caught"]
        harness = _harness_sets(evaluation)
        for row in rows:
            labels = {shown[r.path] for r in by_directory[row[0]]}
            row += [len(labels & harness["correct"]), len(labels & harness["false_rejects"]),
                    f"{len(labels & harness['catches'])} of {len(labels & harness['broken'])}"]
    directory_table = Table(headers, rows, numeric=set(range(1, len(headers))))

    reviews = _reviews(evaluation) if evaluation else {}
    groups = []
    for directory in parts:
        views = [_file_view(result, shown[result.path], run.fail_on, run.strict, reviews.get(shown[result.path], {}),
                            sources)
                 for result in by_directory[directory] if result.findings or result.error]
        if views:
            groups.append((directory, views))
    first_file: dict[str, str] = {}  # rule -> the first file with its finding
    for _, views in groups:
        for view in views:
            for line_message in view.messages:
                first_file.setdefault(line_message.label, view.anchor)
    rule_table = Table(["rule", "name", "severity", "findings", "files", "files it rejects"],
                       [[Link(r.code, f"#{first_file[r.code]}") if r.code in first_file else r.code, r.name,
                         r.severity, r.findings, r.files, r.rejected_files]
                        for r in sorted(batch.rules, key=lambda r: r.code)], numeric={3, 4, 5})

    drawn = sorted(sorted(parts, key=lambda d: -parts[d].files)[:CHART_BARS])  # the table has them all
    chart_list = [charts.stacked_bars(
        f"lint{index}-directories", drawn,
        {"accepted": [parts[d].accepted for d in drawn], "rejected": [parts[d].rejected for d in drawn]},
        "Accepted and rejected files per directory" + (
            f" (the {len(drawn)} largest of {len(parts)})" if len(drawn) < len(parts) else ""),
        colors=(charts.ACCEPTED, charts.REJECTED))]
    if batch.rules:
        ordered = sorted(batch.rules, key=lambda r: (-r.files, r.code))
        chart_list.append(charts.stacked_bars(
            f"lint{index}-rules", [f"{r.code} {r.name}" for r in ordered],
            {"files it rejects": [r.rejected_files for r in ordered],
             "files it flags, not rejected by it": [r.files - r.rejected_files for r in ordered]},
            "Files per rule", colors=(charts.REJECTED, charts.PALETTE[3])))
    causes = rule_verdicts = None
    if evaluation:
        causes, rule_verdicts, cause_chart = _harness_figures(index, evaluation)
        chart_list.append(cause_chart)
    totals = {"files": batch.files, "accepted": batch.accepted, "rejected": batch.rejected,
              "unreadable": batch.unreadable, "findings": sum(r.findings for r in batch.rules),
              "fail_on": run.fail_on}
    return LintView(run.name, run.complete, totals, chart_list, directory_table, rule_table, evaluation, causes,
                    rule_verdicts, groups)


def _harness_figures(index: int, evaluation: dict) -> tuple[Table, Table, object]:
    """`eval --runs`: broken kernels caught per failure cause (a table and its chart), and each rule's
    kernels by the harness's verdict."""
    per_cause = evaluation["catches"]["per_cause"]
    causes = Table(["cause", "what", "broken", "caught", "explained"],
                   [[cause, CAUSES.get(cause, ""), row["broken"], row["caught"], row["explained"]]
                    for cause, row in per_cause.items()], numeric={2, 3, 4})
    chart = charts.stacked_bars(
        f"lint{index}-causes", [f"{cause} {CAUSES.get(cause, '')}" for cause in per_cause],
        {"caught, explained": [row["explained"] for row in per_cause.values()],
         "caught": [row["caught"] - row["explained"] for row in per_cause.values()],
         "missed": [row["broken"] - row["caught"] for row in per_cause.values()]},
        "Broken kernels per harness failure cause", colors=(charts.ACCEPTED, charts.PALETTE[3], "#b8b8b8"),
        xlabel="kernels")
    rules = Table(["rule", "name", "false rejects", "confirmed defects", "catches", "explained"],
                  [[code, _rule_name(code), row["false_rejects"], row["confirmed"], row["catches"], row["explained"]]
                   for code, row in evaluation["per_rule"].items()], numeric={2, 3, 4, 5})
    return causes, rules, chart


def _harness_sets(evaluation: dict) -> dict[str, set[str]]:
    """Kernel paths (as labelled) by the harness's verdict and the evaluation's."""
    outcomes = evaluation["outcomes"]
    return {
        "correct": {o["path"] for o in outcomes if o["correct"]},
        "broken": {o["path"] for o in outcomes if not o["correct"] and o["cause"] not in ENVIRONMENT_CAUSES},
        "false_rejects": {k["path"] for k in evaluation["false_rejects"]["list"]},
        "catches": {k["path"] for k in evaluation["catches"]["list"]},
    }


def _file_view(result: FileResult, shown: str, fail_on: str, strict: bool, reviews: dict[tuple[str, int], dict],
               sources: _Sources) -> FileView:
    anchor = sources.file_anchor()
    findings = sorted(result.findings, key=Finding.sort_key)
    rejecting = {id(f) for f in rejecting_findings(findings, fail_on, strict)}
    excerpts = sources.excerpts(anchor, result.path, (f.line for f in findings))
    messages = []
    for finding in findings:
        review = reviews.get((finding.code, finding.line))
        messages.append(LineMessage(finding.code, finding.line, finding.message, finding.severity.value,
                                    excerpts[finding.line].anchor if finding.line in excerpts else None,
                                    id(finding) in rejecting,
                                    f"reviewed {review['verdict']}: {review['reason']}" if review else None))
    rejected = result.error is not None or bool(rejecting)
    return FileView(anchor, shown, rejected, result.error, messages, list(excerpts.values()))


def _reviews(evaluation: dict) -> dict[str, dict[tuple[str, int], dict]]:
    """kernel path (as labelled) -> (rule, line) -> the review of that finding."""
    return {o["path"]: {(f["code"], f["line"]): f["review"] for f in o["findings"] if f.get("review")}
            for o in evaluation["outcomes"]}


def _trend(lint_runs: list[LintRun]) -> tuple[Table, object] | None:
    """Findings per rule in each run, when there are several."""
    if len(lint_runs) < 2:
        return None
    counts = [Counter({r.code: r.findings for r in summarize(run.results, run.fail_on, run.strict).rules}) for run in lint_runs]
    codes = sorted(set().union(*counts))
    names = [_short_name(run.name, index) for index, run in enumerate(lint_runs)]
    table = Table(["rule", "name", *names], [[code, _rule_name(code), *(c[code] for c in counts)] for code in codes],
                  numeric=set(range(2, 2 + len(names))))
    top = sorted(codes, key=lambda code: (-sum(c[code] for c in counts), code))[:TREND_RULES]
    chart = charts.trend("trend", names, {code: [c[code] for c in counts] for code in top},
                         f"Findings by rule over the runs (the {len(top)} most frequent rules)")
    return table, chart


def _short_name(name: str, index: int) -> str:
    return f"{index + 1}: {os.path.basename(name)}"


# ------------------------------------------------------------------------------------------- verify


@dataclass
class ProblemView:
    title: str
    table: Table
    files: list[FileView]


@dataclass
class VerifyView:
    name: str
    summary: dict
    statuses: Table
    fast_p: Table
    charts: list
    problems: list[ProblemView]


def _verify_view(index: int, run: VerifyRun, p: float, sources: _Sources) -> VerifyView:
    records = run.records
    summary = verify_results.summary(records, p)
    by_status = sorted(summary["by_status"].items(), key=lambda item: (-item[1], item[0]))
    statuses = Table(["verdict", "candidates"], [list(item) for item in by_status], numeric={1})
    thresholds = sorted({*FAST_P_TABLE, p})
    fast_p = Table(["p", "fast_p over problems", "fast_p over candidates"],
                   [[f"{t:g}", verify_results.fraction(verify_results.summary(records, t)['fast_p_by_problem'], 3),
                     verify_results.fraction(verify_results.summary(records, t)['fast_p'], 3)] for t in thresholds],
                   numeric={1, 2})
    chart_list = [charts.stacked_bars(f"verify{index}-verdicts", [status for status, _ in by_status],
                                      {"candidates": [count for _, count in by_status]}, "Verdicts",
                                      colors=(charts.PALETTE[0],), xlabel="candidates")]
    speedups = [r["timing"]["speedup"] for r in records
                if r["status"] == "correct" and (r.get("timing") or {}).get("speedup")]
    if speedups:
        chart_list.append(charts.speedup_histogram(f"verify{index}-speedups", speedups, p,
                                                   "Speedups of the correct candidates"))
        grid = _threshold_grid(speedups, p)
        chart_list.append(charts.fast_p_curve(
            f"verify{index}-fast-p", grid,
            {"over problems (KernelBench)": [verify_results.summary(records, t)["fast_p_by_problem"] for t in grid],
             "over candidates": [verify_results.summary(records, t)["fast_p"] for t in grid]},
            p, "fast_p against the threshold p"))
    return VerifyView(run.name, summary, statuses, fast_p, chart_list, _problem_views(records, sources))


def _threshold_grid(speedups: list[float], p: float) -> list[float]:
    """Log-spaced thresholds around the speedups, and each speedup itself (where fast_p steps)."""
    low = math.log10(min(min(speedups), p) / 2)
    high = math.log10(max(max(speedups), p) * 2)
    return sorted({*(10 ** (low + (high - low) * i / 60) for i in range(61)), *speedups, p})


def _problem_views(records: list[dict], sources: _Sources) -> list[ProblemView]:
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        key = (record.get("level") is None, record.get("level") or 0, record.get("problem") or 0,
               record.get("reference") or record["name"])
        groups.setdefault(key, []).append(record)
    views = []
    for key in sorted(groups, key=lambda k: (k[0], k[1], k[2], str(k[3]))):
        group = groups[key]
        first = group[0]
        reference = os.path.basename(first.get("reference") or "") or "no reference"
        title = (f"level {first['level']} problem {first['problem']}: {reference}" if first.get("level") is not None
                 else f"{first['name']}: {reference}")
        files = [_record_file(record, sources) for record in group]
        rows = []
        for record, cells, view in zip(group, verify_results.table_rows(group), files):
            links = [Link(f"{m.label} line {m.line}", f"#{m.anchor}") if m.anchor else
                     f"{m.label} line {m.line}" if m.line else m.label for m in view.messages]
            name = Link(cells[0], f"#{view.anchor}") if view.messages else cells[0]
            rows.append([name, *cells[1:], record.get("message") or "", links])
        views.append(ProblemView(title, Table([*verify_results.HEADERS, "message", "findings"], rows,
                                              numeric={3, 4, 5, 6, 7}), [v for v in files if v.messages]))
    return views


def _record_file(record: dict, sources: _Sources) -> FileView:
    """A candidate's lint findings, compile errors and sanitizer reports, on lines of its solution."""
    anchor = sources.file_anchor()
    found: list[tuple[str, int | None, str, str, bool]] = []  # (label, line, text, severity, rejects)
    for finding in (record.get("lint") or {}).get("findings", []):
        found.append((finding["code"], finding.get("line"), finding["message"], finding["severity"],
                      finding["severity"] == "error"))
    for error in record.get("compile_errors") or []:
        found.append(("compile " + error["severity"], error.get("py_line"), error["message"], error["severity"],
                      False))
    for tool, result in (record.get("sanitizer") or {}).items():
        for report in result.get("reports", []):
            found.append((tool, report.get("py_line"), report["message"], report.get("severity", "error"), False))
    solution = record.get("solution") or ""
    excerpts = sources.excerpts(anchor, solution, (line for _, line, *_ in found if line))
    messages = [LineMessage(label, line, text, severity, excerpts[line].anchor if line in excerpts else None, rejects)
                for label, line, text, severity, rejects in found]
    return FileView(anchor, record["name"], not record.get("passed"), None, messages, list(excerpts.values()))


# ------------------------------------------------------------------------------------------- corpus


def _corpus_table(run: CorpusRun) -> Table:
    corpus, mutants = run.data["corpus"], run.data.get("mutants", {})

    def score(value) -> str:
        return "-" if value is None else f"{value:.2f}"

    rows = []
    for code in sorted(set(corpus) | set(mutants)):
        c, m = corpus.get(code, {}), mutants.get(code)
        rows.append([code, _rule_name(code), c.get("tp", 0), c.get("fp", 0), c.get("fn", 0), score(c.get("precision")),
                     score(c.get("recall")), (m["tp"] + m["fn"]) if m else 0, score(m["recall"]) if m else "-"])
    return Table(["rule", "name", "TP", "FP", "FN", "precision", "recall", "mutants", "mutant recall"], rows,
                 numeric=set(range(2, 9)))


# --------------------------------------------------------------------------------------------- page


def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(loader=jinja2.PackageLoader("cudalint.report", "html_templates"),
                                     autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
                                     lstrip_blocks=True)
    environment.filters["fraction"] = verify_results.fraction
    environment.filters["unmeasured_note"] = verify_results.unmeasured_note
    return environment


def render_html(runs: list[Run], *, p: float = 1.0, source_root: str | None = None,
                title: str = "cudalint report", now: Callable[[], datetime.datetime] | None = None) -> str:
    """The report of `runs` (from `html_inputs.load_results`) as one HTML page. `p` is the speedup
    threshold of fast_p; relative source paths are read from `source_root` (default: the current
    directory); only sources under it or under the folder of a run's result file are quoted (`_Sources`).
    Raises ReportInputError, naming the result file, when a run holds a value of the wrong type or lacks
    a field the report reads."""
    try:
        return _render(runs, p, source_root, title, now)
    except (*MALFORMED, jinja2.UndefinedError) as error:
        for run in runs if len(runs) > 1 else ():  # which file: the first whose run alone fails
            try:
                _render([run], p, source_root, title, now)
            except (*MALFORMED, jinja2.UndefinedError):
                raise not_of_its_shape(run.file or run.name, error) from None
        raise not_of_its_shape(runs[0].file or runs[0].name if runs else "the results", error) from None


def _render(runs: list[Run], p: float, source_root: str | None, title: str,
            now: Callable[[], datetime.datetime] | None) -> str:
    sources = _Sources(source_root, [run.file for run in runs if run.file])
    lint_runs = [run for run in runs if isinstance(run, LintRun)]
    lint = [_lint_view(index, run, sources) for index, run in enumerate(lint_runs)]
    verify = [_verify_view(index, run, p, sources) for index, run in enumerate(runs) if isinstance(run, VerifyRun)]
    corpus = [(run.name, _corpus_table(run)) for run in runs if isinstance(run, CorpusRun)]
    generated = (now or datetime.datetime.now)().strftime("%Y-%m-%d %H:%M")
    return _environment().get_template("report.html.j2").render(
        title=title, generated=generated, inputs=[run.name for run in runs], lint=lint, trend=_trend(lint_runs),
        verify=verify, corpus=corpus, p=p)


__all__ = ["render_html"]
