"""The pre-filter API: lint a batch of generated kernels in parallel and split them into the ones worth
sending to the evaluation harness and the ones that cannot pass, with the findings that say why.

    from cudalint import prefilter

    result = prefilter(["runs/my_run/"], jobs=8)
    for item in result.rejected:
        feedback = item.render()          # send back to the generator, or on to `cudalint repair`
    evaluate([item.path for item in result.accepted])

Inputs (`paths_or_sources`): paths (str or os.PathLike) to files or directories (searched recursively
for .py/.cu/.cuh files, leaving out hidden, build and virtualenv folders and what .gitignore ignores, as
`cudalint check` does: `cudalint.file_selection`); a str that contains a newline is source text (linted as Python, named
`source_<i>.py`); a `(name, text)` pair is source text with a name (its suffix picks Python or CUDA;
none means Python). Sources are written to a temporary directory so that they are linted in
parallel like files, and findings name them by their given name.

A file is *rejected* when it cannot be read, when cudalint could not analyse it completely (CL900,
whatever `fail_on` says: an unchecked kernel never passes), or when it has a finding at or above
`fail_on` ("error" by default, the same threshold as the CLI's exit code) from a rule other than the
tool rules that never judge the kernel (CL902 unused suppression, CL903 unknown header). CL400
(invalid solution) rejects like any other error. A *latent* finding (`Finding.latent`: a real defect the
analysis proves cannot occur at the reference problem's shapes) is reported but rejects only with
`strict=True`.

The inputs are untrusted: a `// cudalint: ignore-file` in a generated kernel would otherwise hide every
finding, so their suppression comments are ignored (`honour_suppressions=True` honours them, for code
whose comments the caller trusts). Nothing hides an incomplete analysis: CL900 rejects whatever the
options select or ignore, and no comment suppresses it.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from cudalint.config import LintOptions, options_by_nearest_config
from cudalint.engine import Budget, FileResult, expand_paths, iter_lint_each
from cudalint.findings import Finding, Location, RelatedLocation, Severity

NEVER_REJECTS = frozenset({"CL902", "CL903"})  # about the file's comments and headers, not about the kernel
INCOMPLETE = "CL900"  # the analysis did not complete: the file was not checked, so it cannot pass


@dataclass
class PrefilterItem:
    name: str  # the path as given (or found in a directory), or the name of a source
    # what to pass on (to a generator, to `cudalint repair`, to the harness): the file on disk, or for a source
    # given as text its name (given, or source_<i>.py), with the text in `text`
    path: str
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None  # why the input could not be read
    reasons: list[Finding] = field(default_factory=list)  # the findings that reject it
    text: str | None = None  # the source, for a source given as text; None for a file

    @property
    def rejected(self) -> bool:
        return self.error is not None or bool(self.reasons)

    def render(self) -> str:
        """The findings as text, one per line (`name:line:col: CODE name: message`), for feedback to a
        generator or a repair prompt."""
        if self.error is not None:
            return self.error  # a one-line message that names the input
        lines = []
        for finding in self.findings:
            loc = finding.location
            lines.append(f"{loc.path}:{loc.line}:{loc.column}: {finding.code} {finding.name} "
                         f"[{finding.severity.value}]: {finding.message}")
        return "\n".join(lines)


class PrefilterResult(NamedTuple):
    accepted: list[PrefilterItem]
    rejected: list[PrefilterItem]
    dry_run_skipped: str | None = None  # why the dry run (cudalint/dryrun/) could not run, when it was wanted

    @property
    def items(self) -> list[PrefilterItem]:
        return sorted(self.accepted + self.rejected, key=lambda item: item.name)

    def summary(self) -> BatchSummary:
        return summarize(self)


def rejecting_findings(findings: Iterable[Finding], fail_on: str = "error", strict: bool = False) -> list[Finding]:
    """The findings that reject a file at threshold `fail_on` ("error", "warning" or "info"); a latent
    finding (a defect proven not to occur at the reference's shapes) rejects only when `strict`."""
    threshold = Severity(fail_on).rank
    return [f for f in findings
            if (f.severity.rank >= threshold or f.code == INCOMPLETE) and f.code not in NEVER_REJECTS
            and (strict or not f.latent)]


def prefilter(paths_or_sources: Iterable, *, options: LintOptions | None = None, fail_on: str | None = None,
              jobs: int | None = None, problems: str | None = None, reference: str | None = None,
              use_config: bool = True, honour_suppressions: bool = False, strict: bool = False,
              dry_run: bool = True, budget: Budget | None = None,
              references: Mapping[str, str] | None = None) -> PrefilterResult:
    """Lint every input (in parallel over `jobs` processes; default: every core) and split them into
    (accepted, rejected). `options` default to each file's nearest configuration (with `use_config`) or
    the defaults; `fail_on` defaults to the options' `fail-on`. `problems` (a
    KernelBench problems directory) and `reference` (one reference file for all inputs) let the
    shape and precision rules compare with the reference problem; `references` gives inputs of different
    problems each its own ({path as given: reference}; one call lints them all in one pool, whose workers
    keep their dry-run server); with a reference, `dry_run` runs each
    solution's Python (never its CUDA) on the CPU in a sandboxed process to observe what the harness would
    (see cudalint/dryrun/). The inputs' own `cudalint: ignore` comments are not honoured (their authors are
    the ones judged) unless `honour_suppressions` says so. With `strict`, latent findings (defects proven not
    to occur at the reference's shapes) reject too. `budget` is what linting one input may take (default:
    `Budget()`, 60 s of CPU and of wall time and 2 GiB); past it the input gets an incomplete-analysis finding."""
    if isinstance(paths_or_sources, (str, os.PathLike)) or _is_named_source(paths_or_sources):
        paths_or_sources = [paths_or_sources]
    inputs = list(paths_or_sources)
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    temp_dir: str | None = None
    entries: list[tuple[str, str, str | None]] = []  # (name, file to lint, the text of a source given as text)
    missing: list[PrefilterItem] = []
    try:
        for index, item in enumerate(inputs):
            if isinstance(item, tuple):
                name, text = item
                temp_dir = temp_dir or tempfile.mkdtemp(prefix="cudalint-prefilter-")
                entries.append((str(name), _write_source(temp_dir, index, str(name), text), text))
            elif isinstance(item, str) and "\n" in item:
                name = f"source_{index}.py"
                temp_dir = temp_dir or tempfile.mkdtemp(prefix="cudalint-prefilter-")
                entries.append((name, _write_source(temp_dir, index, name, item), item))
            else:
                path = os.fspath(item)
                if not os.path.exists(path):
                    missing.append(PrefilterItem(path, path, error=f"{path}: no such file or directory"))
                    continue
                entries.extend((found, found, None) for found in expand_paths([path]))
        files = [file for _, file, _ in entries]
        if options is not None:
            per_file = [options] * len(files)
        elif use_config:  # each file's nearest configuration; sources given as text have none
            defaults = LintOptions()
            configured = iter(options_by_nearest_config([file for _, file, text in entries if text is None]))
            per_file = [defaults if text is not None else next(configured) for _, _, text in entries]
        else:
            per_file = [LintOptions()] * len(files)
        judged: dict[tuple[int, str | None], LintOptions] = {}
        resolved = []
        for (name, _, _), file_options in zip(entries, per_file):
            file_reference = (references or {}).get(name) or reference or file_options.reference
            key = (id(file_options), file_reference)
            if key not in judged:
                judged[key] = dataclasses.replace(file_options, problems=problems or file_options.problems,
                                                  reference=file_reference, honour_suppressions=honour_suppressions,
                                                  dry_run=dry_run and file_options.dry_run)
            resolved.append(judged[key])
        per_file = resolved
        # untrusted: never in this process
        results = list(iter_lint_each(files, per_file, jobs, isolate=True, budget=budget or Budget()))
    finally:
        if temp_dir is not None:
            shutil.rmtree(temp_dir, ignore_errors=True)
    accepted: list[PrefilterItem] = []
    rejected: list[PrefilterItem] = list(missing)
    for (name, file, text), result, file_options in zip(entries, results, per_file):
        is_source = text is not None
        findings = [_renamed(f, name) for f in result.findings] if is_source else result.findings
        error = result.error.replace(file, name) if (result.error and is_source) else result.error
        item = PrefilterItem(name, name if is_source else file, findings, error,
                             rejecting_findings(findings, fail_on or file_options.fail_on, strict), text)
        (rejected if item.rejected else accepted).append(item)
    return PrefilterResult(accepted, rejected, dry_run_unavailable(wants_dry_run(per_file)))


def wants_dry_run(per_file: Iterable[LintOptions]) -> bool:
    """Whether some of these options ask for the dry run and give a reference to run against."""
    return any(o.dry_run and (o.reference or o.problems) for o in per_file)


def dry_run_unavailable(wanted: bool) -> str | None:
    """Why the dry run cannot run when it is `wanted`; None when it can or is not wanted."""
    if not wanted:
        return None
    from cudalint.dryrun.runner import torch_version  # with importlib.metadata: 10 ms of a check's start

    if torch_version() is None:
        return "dry run skipped: torch is not installed (the harness rules judge from the static reading alone)"
    return None


def _is_named_source(item) -> bool:
    return isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item) \
        and "\n" in item[1]


def _write_source(directory: str, index: int, name: str, text: str) -> str:
    base = os.path.basename(name) or f"source_{index}.py"
    if not base.endswith((".py", ".cu", ".cuh")):
        base += ".py"
    path = os.path.join(directory, f"{index:06d}_{base}")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def _renamed(finding: Finding, name: str) -> Finding:
    def relocate(location: Location) -> Location:
        return dataclasses.replace(location, path=name)

    return dataclasses.replace(finding, location=relocate(finding.location), related=tuple(
        RelatedLocation(relocate(r.location), r.message) for r in finding.related))


# ------------------------------------------------------------------------------------------- summary


@dataclass
class RuleCount:
    code: str
    name: str
    severity: str
    findings: int  # how many findings of this rule
    files: int  # how many files have at least one
    rejected_files: int  # how many rejected files it helps reject


@dataclass
class BatchSummary:
    """What a batch run found: for the CLI's summary table and `--format json`."""

    files: int
    accepted: int
    rejected: int
    unreadable: int
    rules: list[RuleCount]  # rules with at least one finding, most files first

    @property
    def findings_per_rule(self) -> dict[str, int]:
        return {r.code: r.findings for r in self.rules}

    def to_dict(self) -> dict:
        return {"files": self.files, "accepted": self.accepted, "rejected": self.rejected,
                "unreadable": self.unreadable, "rules": [dataclasses.asdict(r) for r in self.rules]}


def summarize(results, fail_on: str = "error", strict: bool = False) -> BatchSummary:
    """Summarize a batch: `results` is a PrefilterResult, or the FileResults of `lint_paths` (judged
    at threshold `fail_on` the same way `prefilter` judges)."""
    if isinstance(results, PrefilterResult):
        items = results.accepted + results.rejected
    else:
        items = []
        for result in results:
            if isinstance(result, PrefilterItem):
                items.append(result)
            elif isinstance(result, FileResult):
                items.append(PrefilterItem(result.path, result.path, result.findings, result.error,
                                           rejecting_findings(result.findings, fail_on, strict)))
            else:
                raise TypeError(f"cannot summarize {type(result).__name__}")
    findings: Counter[str] = Counter()
    files: Counter[str] = Counter()
    rejecting: Counter[str] = Counter()
    meta: dict[str, tuple[str, str]] = {}
    for item in items:
        for finding in item.findings:
            findings[finding.code] += 1
            meta[finding.code] = (finding.name, finding.severity.value)
        files.update({f.code for f in item.findings})
        rejecting.update({f.code for f in item.reasons})
    rules = [RuleCount(code, meta[code][0], meta[code][1], findings[code], files[code], rejecting[code])
             for code in findings]
    rules.sort(key=lambda r: (-r.files, r.code))
    rejected = sum(1 for item in items if item.rejected)
    return BatchSummary(files=len(items), accepted=len(items) - rejected, rejected=rejected,
                        unreadable=sum(1 for item in items if item.error is not None), rules=rules)


__all__ = ["BatchSummary", "INCOMPLETE", "dry_run_unavailable", "wants_dry_run", "NEVER_REJECTS", "PrefilterItem", "PrefilterResult", "RuleCount", "prefilter",
           "rejecting_findings", "summarize"]
