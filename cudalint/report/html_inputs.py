"""The result files `cudalint report` reads, recognised by their shape, as plain data.

- `cudalint check --format json` (an array of findings: only files with findings appear) and
  `--format json-files` (every checked file, with its verdict): a LintRun;
- `cudalint eval --runs ... --format json`: a LintRun of every kernel, with the harness's figures;
- `cudalint eval CORPUS --format json`: a CorpusRun;
- `cudalint verify` results: a batch (`--json FILE`, `--format json`), one record (`--output-dir`), a
  list of records, or an object whose members hold lists of records (as `benchmarks/verify_gpu_demo.py`
  writes its steps: `{"steps": {"cold": {"records": [...]}}}`): a VerifyRun per list.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from cudalint.config import SEVERITY_LEVELS
from cudalint.engine import FileResult
from cudalint.findings import Finding
from cudalint.report.json_format import FILES_SCHEMA

VERIFY_RECORD = "cudalint.verify/1"
VERIFY_BATCH = "cudalint.verify.batch/1"
_RUNS_KEYS = {"false_rejects", "catches", "per_rule"}
_CORPUS_KEYS = {"corpus", "mutants", "clean_files"}


class ReportInputError(ValueError):
    """A results file that cannot be read or is of no known shape; the CLI exits 2 with its message."""


# what reading a value of the wrong type or a missing field raises, here or when the report is made of it
MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError)


def not_of_its_shape(path: str, error: Exception) -> ReportInputError:
    return ReportInputError(f"{path}: not a cudalint result of the shape it looks like "
                            f"({type(error).__name__}: {str(error)[:200]})")


@dataclass
class LintRun:
    """Lint results of one batch: each file with its findings and whether the pre-filter rejects it."""

    name: str
    results: list[FileResult]  # paths as the results name them
    fail_on: str
    complete: bool  # every checked file is listed, not only those with findings
    evaluation: dict | None = None  # `eval --runs`: the harness's figures (false rejects, catches)
    labels: dict[str, str] = field(default_factory=dict)  # file on disk -> the path the labels give it
    file: str = ""  # the result file it was read from
    strict: bool = False  # latent findings reject too (`check --strict`)


@dataclass
class CorpusRun:
    name: str
    data: dict  # `cudalint.evaluation.run.to_json`
    file: str = ""  # the result file it was read from


@dataclass
class VerifyRun:
    name: str
    records: list[dict]  # `cudalint.verify.runner.new_record`, as completed
    file: str = ""  # the result file it was read from


Run = LintRun | CorpusRun | VerifyRun


def load_results(path: str) -> list[Run]:
    """The runs one results file holds (several for a file of verify steps). Raises ReportInputError."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as error:
        raise ReportInputError(f"{path}: cannot read: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ReportInputError(f"{path}: not a JSON file ({error})") from None
    except RecursionError:
        raise ReportInputError(f"{path}: not a cudalint result (JSON nested too deeply)") from None
    try:
        runs = _runs_of(path, data)
    except ReportInputError:
        raise
    except MALFORMED as error:
        raise not_of_its_shape(path, error) from None
    if not runs:
        raise ReportInputError(f"{path}: not a cudalint result (check --format json or json-files, eval "
                               "--format json, or verify JSON)")
    for run in runs:
        run.file = path
    return runs


def _runs_of(path: str, data) -> list[Run]:
    if isinstance(data, list):
        if all(_is_record(item) for item in data) and data:
            return [VerifyRun(path, data)]
        if all(isinstance(item, dict) and "code" in item and "path" in item for item in data):
            return [_findings_array(path, data)]
        return []
    if not isinstance(data, dict):
        return []
    if data.get("schema") == FILES_SCHEMA:
        results = [FileResult(str(entry["path"]), [Finding.from_dict(f) for f in entry["findings"]],
                              entry.get("error")) for entry in data["files"]]
        if data["fail_on"] not in SEVERITY_LEVELS:
            raise ValueError(f"fail_on is {data['fail_on']!r}")
        return [LintRun(path, results, data["fail_on"], complete=True, strict=bool(data.get("strict", False)))]
    if data.get("schema") == VERIFY_BATCH:
        return [VerifyRun(path, list(data["results"]))]
    if _is_record(data):
        return [VerifyRun(path, [data])]
    if _RUNS_KEYS <= data.keys():
        if "outcomes" not in data:
            raise ReportInputError(f"{path}: an eval --runs result without its outcomes list (an older "
                                   "cudalint wrote it): run the evaluation again")
        return [_runs_evaluation(path, data)]
    if _CORPUS_KEYS <= data.keys():
        return [CorpusRun(path, data)]
    return [VerifyRun(f"{path} [{name}]", records) for name, records in _record_lists(data, "")]


def _record_lists(data: dict, trail: str, depth: int = 3) -> list[tuple[str, list[dict]]]:
    """(name, records) for each list of verify records (or single record) among the members of `data`,
    named by the keys that lead to it (`records`/`results` left out), searched `depth` levels down."""
    found = []
    for key, value in data.items():
        name = trail if key in ("records", "results") and trail else f"{trail}/{key}" if trail else key
        if _records_list(value):
            found.append((name, value))
        elif _is_record(value):
            found.append((name, [value]))
        elif isinstance(value, dict) and depth > 1:
            found += _record_lists(value, f"{trail}/{key}" if trail else key, depth - 1)
    return found


def _findings_array(path: str, findings: list[dict]) -> LintRun:
    """`check --format json`: the files with findings, in order of appearance."""
    by_path: dict[str, list[Finding]] = {}
    for item in findings:
        finding = Finding.from_dict(item)
        by_path.setdefault(finding.path, []).append(finding)
    return LintRun(path, [FileResult(p, found) for p, found in by_path.items()], "error", complete=False)


def _runs_evaluation(path: str, data: dict) -> LintRun:
    """`eval --runs --format json`: every kernel, judged at the pre-filter's default threshold as the
    evaluation judges it."""
    results, labels = [], {}
    for outcome in data["outcomes"]:
        results.append(FileResult(str(outcome["file"]), [Finding.from_dict(f) for f in outcome["findings"]],
                                  outcome.get("error")))
        labels[str(outcome["file"])] = str(outcome["path"])
    return LintRun(path, results, "error", complete=True, evaluation=data, labels=labels)


def _is_record(item) -> bool:
    return isinstance(item, dict) and item.get("schema") == VERIFY_RECORD


def _records_list(value) -> bool:
    return isinstance(value, list) and bool(value) and all(_is_record(item) for item in value)


__all__ = ["MALFORMED", "CorpusRun", "LintRun", "ReportInputError", "Run", "VerifyRun", "load_results",
           "not_of_its_shape"]
