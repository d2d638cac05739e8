"""Measuring cudalint on real generated kernels: lint every kernel of labelled run archives with its own
reference and GPU architecture, and compare with the harness's verdicts.

The labels are JSON Lines, one row per kernel (the format of KernelBench run archives' evaluations):

    {"path": "run/level_1_problem_7_sample_0_kernel.py", "hardware": "NVIDIA A100-SXM4-40GB",
     "reference": "level1/7_Matmul.py", "compiled": true, "correct": false, "cause": "I", "subcause": ""}

- `path`: the kernel, relative to the kernels directory (`kernels/` beside the labels file when there
  is one, else the labels file's directory);
- `reference` (optional): its KernelBench problem, relative to the problems directory (`problems/`
  beside the labels file when there is one, else the labels file's directory);
- `arch` (optional, `sm_80`) or `hardware` (the GPU's name): the architecture it is linted for;
- `correct`: the harness's verdict; `cause` and `subcause`: why it failed (see CAUSES).

A *false reject* is a correct kernel with a finding that `prefilter` rejects on (error level), unless a
person reviewed that finding as a real latent defect (a race that did not show at the test's shapes).
A *catch* is a broken kernel with such a finding; it is *explained* when one of its rejecting rules is
one that can cause the harness's failure (EXPLAINS). Failures of the evaluation machine (C, D) are left
out.

Reviews are TOML, one `[[review]]` per finding: `path` (as in the labels), `code`, `line`, `verdict`
("real" or "false") and a one-line `reason`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from dataclasses import dataclass, field

from cudalint.archs import architecture_of_gpu
from cudalint.config import LintOptions
from cudalint.engine import iter_lint_each
from cudalint.findings import Finding
from cudalint.prefilter import rejecting_findings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# the harness failure causes, as the labels name them
CAUSES = {
    "A": "Python syntax error / no ModelNew",
    "B1": "CUDA-side torch API used without its header", "B2": "undeclared identifier",
    "B3": "wrong API or call", "B4": "other C++ error", "B5": "resource limit at build",
    "B6": "link/binding", "B?": "build error without detail",
    "C": "no kernel image (environment)", "D": "out of memory on the test GPU (environment)",
    "E": "illegal memory access", "F": "invalid launch configuration",
    "G1": "Python call does not match the bound C++ function", "G2": "the solution's own check rejects the input",
    "G3": "dtype or device", "G4": "other host-side runtime error",
    "H": "output shape differs from the reference", "I": "numerical mismatch", "J": "timeout",
}
ENVIRONMENT_CAUSES = frozenset({"C", "D"})  # the evaluation machine failed, not the code

_MEMORY = {"CL201", "CL202", "CL203", "CL204", "CL205", "CL206", "CL207", "CL208", "CL209", "CL210", "CL211",
           "CL212", "CL214", "CL216"}
_BUILD = {"CL400", "CL401", "CL901"}
# which rules' findings can explain each failure: a rule's bug would make the harness fail that way
EXPLAINS: dict[str, frozenset[str]] = {cause: frozenset(rules) for cause, rules in {
    "A": {"CL400"},
    "B1": {"CL901"}, "B2": {"CL901"}, "B3": _BUILD, "B4": {"CL901"},
    "B5": {"CL301", "CL302", "CL901"}, "B6": {"CL401"}, "B?": _BUILD,
    "E": _MEMORY | {"CL104", "CL302", "CL405", "CL423"},
    "F": {"CL301", "CL302"},
    # CL436 is the dry run reproducing the harness's runtime error in the solution's own Python, whichever
    # subcause the label gives it
    "G1": {"CL401", "CL421", "CL424", "CL434", "CL436"}, "G2": {"CL206", "CL407", "CL433", "CL436"},
    "G3": {"CL206", "CL212", "CL406", "CL436"},
    "G4": {"CL401", "CL407", "CL422", "CL423", "CL431", "CL432", "CL433", "CL434", "CL435", "CL436"},
    "H": {"CL405", "CL407", "CL422", "CL430"},
    # a launch that cannot run, unchecked, leaves the output unwritten: wrong values (CL302)
    "I": _MEMORY | {"CL213", "CL101", "CL102", "CL103", "CL104", "CL105", "CL106", "CL302", "CL402", "CL403", "CL405",
                    "CL406", "CL407", "CL415", "CL420", "CL421", "CL422", "CL425"},
    "J": {"CL102", "CL104"},
}.items()}


class LabelsError(ValueError):
    """Labels or reviews that cannot be read; the CLI reports it with exit code 2."""


@dataclass(frozen=True)
class LabelledKernel:
    path: str  # as in the labels: relative to the kernels directory
    file: str  # on disk
    correct: bool
    compiled: bool  # the harness built it
    cause: str  # a key of CAUSES ("ok" for a correct kernel)
    arch: str | None
    reference: str | None  # on disk


@dataclass(frozen=True)
class Review:
    path: str
    code: str
    line: int
    verdict: str  # "real" or "false"
    reason: str


@dataclass
class KernelOutcome:
    kernel: LabelledKernel
    findings: list[Finding]
    rejecting: list[Finding]  # error-level findings that prefilter rejects on
    error: str | None = None  # the kernel could not be read
    real: list[Finding] = field(default_factory=list)  # rejecting findings reviewed as real defects

    @property
    def rejected(self) -> bool:
        return self.error is not None or bool(self.rejecting)

    @property
    def falsely_rejected(self) -> bool:
        """A correct kernel rejected by a finding nobody confirmed as a real defect."""
        return self.kernel.correct and (self.error is not None or len(self.real) < len(self.rejecting))

    @property
    def explained(self) -> bool:
        return any(f.code in EXPLAINS.get(self.kernel.cause, ()) for f in self.rejecting)


@dataclass
class RunsEvaluation:
    outcomes: list[KernelOutcome]
    reviews: dict[tuple[str, str, int], Review]
    seconds: float  # wall time of the linting

    @property
    def correct(self) -> list[KernelOutcome]:
        return [o for o in self.outcomes if o.kernel.correct]

    @property
    def broken(self) -> list[KernelOutcome]:
        """Failed kernels whose failure is the code's (environment failures left out)."""
        return [o for o in self.outcomes if not o.kernel.correct and o.kernel.cause not in ENVIRONMENT_CAUSES]

    @property
    def false_rejects(self) -> list[KernelOutcome]:
        return [o for o in self.correct if o.falsely_rejected]

    @property
    def false_reject_rate(self) -> float:
        return len(self.false_rejects) / len(self.correct) if self.correct else 0.0

    @property
    def confirmed(self) -> list[KernelOutcome]:
        """Correct kernels with a rejecting finding reviewed as a real latent defect."""
        return [o for o in self.correct if o.real]

    @property
    def catches(self) -> list[KernelOutcome]:
        return [o for o in self.broken if o.rejected]

    @property
    def explained_catches(self) -> list[KernelOutcome]:
        return [o for o in self.catches if o.explained]

    def per_rule(self) -> dict[str, tuple[int, int, int, int]]:
        """rule -> kernels it (falsely rejects, rejects with a confirmed defect, catches, catches explained)."""
        counts: dict[str, list[int]] = {}
        for outcome in self.outcomes:
            unconfirmed = {f.code for f in outcome.rejecting if f not in outcome.real}
            for code in {f.code for f in outcome.rejecting}:
                row = counts.setdefault(code, [0, 0, 0, 0])
                if outcome.kernel.correct:
                    row[0] += code in unconfirmed
                    row[1] += code in {f.code for f in outcome.real}
                elif outcome.kernel.cause not in ENVIRONMENT_CAUSES:
                    row[2] += 1
                    row[3] += code in EXPLAINS.get(outcome.kernel.cause, ())
        return {code: tuple(counts[code]) for code in sorted(counts)}

    def per_cause(self) -> dict[str, tuple[int, int, int]]:
        """cause -> (broken kernels, caught, explained)."""
        table: dict[str, list[int]] = {}
        for outcome in self.broken:
            row = table.setdefault(outcome.kernel.cause, [0, 0, 0])
            row[0] += 1
            row[1] += outcome.rejected
            row[2] += outcome.rejected and outcome.explained
        return {cause: tuple(table[cause]) for cause in sorted(table, key=_cause_order)}

    def stale_reviews(self) -> list[Review]:
        """Reviews of findings no longer reported (a real defect now missed, or a false alarm fixed); a
        finding now marked latent (it rejects only under `strict`) is still reported."""
        reported = {_review_key(o.kernel, f) for o in self.outcomes for f in rejecting_findings(o.findings, strict=True)}
        return [review for key, review in sorted(self.reviews.items()) if key not in reported]

    @property
    def false_build_claims(self) -> list[KernelOutcome]:
        """Kernels the harness built that cudalint says do not compile (CL901)."""
        return [o for o in self.outcomes if o.kernel.compiled and any(f.code == "CL901" for f in o.rejecting)]

    @property
    def files_per_second(self) -> float:
        return len(self.outcomes) / self.seconds if self.seconds > 0 else 0.0


def load_labels(path: str, kernels_dir: str | None = None, problems_dir: str | None = None) -> list[LabelledKernel]:
    """The labelled kernels of a labels file (or of a directory holding `labels.jsonl`)."""
    if os.path.isdir(path):
        path = os.path.join(path, "labels.jsonl")
    base = os.path.dirname(os.path.abspath(path))
    kernels_dir = kernels_dir or _beside(base, "kernels")
    problems_dir = problems_dir or _beside(base, "problems")
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise LabelsError(f"{path}: cannot read: {error.strerror or error}") from None
    kernels = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            kernels.append(LabelledKernel(
                path=row["path"], file=os.path.join(kernels_dir, row["path"]), correct=bool(row["correct"]),
                compiled=bool(row.get("compiled", row["correct"])) and not _build_failed(row),
                cause="ok" if row["correct"] else _cause_of(row),
                arch=row.get("arch") or architecture_of_gpu(row.get("hardware", "")),
                reference=os.path.join(problems_dir, row["reference"]) if row.get("reference") else None))
        except (ValueError, KeyError, TypeError) as error:
            raise LabelsError(f"{path}:{number}: not a label row ({type(error).__name__}: {error})") from None
    return kernels


def load_reviews(path: str) -> dict[tuple[str, str, int], Review]:
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise LabelsError(f"{path}: cannot read reviews: {error}") from None
    reviews = {}
    for index, entry in enumerate(data.get("review", []), 1):
        try:
            review = Review(str(entry["path"]), str(entry["code"]), int(entry["line"]), str(entry["verdict"]),
                            str(entry["reason"]))
        except (KeyError, TypeError, ValueError) as error:
            raise LabelsError(f"{path}: review {index}: missing or bad field ({error})") from None
        if review.verdict not in ("real", "false"):
            raise LabelsError(f"{path}: review {index}: verdict must be \"real\" or \"false\", not {review.verdict!r}")
        reviews[(review.path, review.code, review.line)] = review
    return reviews


def evaluate_runs(kernels: list[LabelledKernel], reviews: dict[tuple[str, str, int], Review] | None = None,
                  options: LintOptions | None = None, jobs: int = 1) -> RunsEvaluation:
    """Lint each kernel with its reference and architecture (the rest of `options` as given), judged as
    `prefilter` judges: its own suppression comments are not honoured."""
    options = options or LintOptions()
    reviews = reviews or {}
    per_file = [dataclasses.replace(options, arch=k.arch or options.arch, reference=k.reference or options.reference,
                                    honour_suppressions=False)
                for k in kernels]
    start = time.perf_counter()
    results = list(iter_lint_each([k.file for k in kernels], per_file, jobs))
    seconds = time.perf_counter() - start
    outcomes = []
    for kernel, result in zip(kernels, results):
        rejecting = rejecting_findings(result.findings)
        real = [f for f in rejecting if getattr(reviews.get(_review_key(kernel, f)), "verdict", None) == "real"]
        outcomes.append(KernelOutcome(kernel, result.findings, rejecting, result.error, real))
    return RunsEvaluation(outcomes, reviews, seconds)


def review_of(evaluation: RunsEvaluation, outcome: KernelOutcome, finding: Finding) -> Review | None:
    return evaluation.reviews.get(_review_key(outcome.kernel, finding))


def _review_key(kernel: LabelledKernel, finding: Finding) -> tuple[str, str, int]:
    """What a review names: the kernel as the labels give it, the rule and the line."""
    return kernel.path, finding.code, finding.location.line


def to_json(evaluation: RunsEvaluation) -> dict:
    def review(outcome: KernelOutcome, f: Finding) -> dict | None:
        found = review_of(evaluation, outcome, f)
        return dataclasses.asdict(found) if found else None

    def finding(outcome: KernelOutcome, f: Finding) -> dict:
        return {"code": f.code, "line": f.location.line, "message": f.message, "review": review(outcome, f)}

    def kernel(outcome: KernelOutcome) -> dict:
        return {"path": outcome.kernel.path, "cause": outcome.kernel.cause, "error": outcome.error,
                "explained": outcome.explained if not outcome.kernel.correct else None,
                "findings": [finding(outcome, f) for f in outcome.rejecting]}

    return {
        "kernels": len(evaluation.outcomes), "correct": len(evaluation.correct), "broken": len(evaluation.broken),
        "environment": sum(o.kernel.cause in ENVIRONMENT_CAUSES for o in evaluation.outcomes),
        "false_rejects": {"kernels": len(evaluation.false_rejects), "rate": evaluation.false_reject_rate,
                          "list": [kernel(o) for o in evaluation.false_rejects]},
        "confirmed_defects": {"kernels": len(evaluation.confirmed), "list": [kernel(o) for o in evaluation.confirmed]},
        "catches": {"kernels": len(evaluation.catches), "explained": len(evaluation.explained_catches),
                    "per_cause": {cause: {"broken": n, "caught": caught, "explained": explained}
                                  for cause, (n, caught, explained) in evaluation.per_cause().items()},
                    "list": [kernel(o) for o in evaluation.catches]},
        "per_rule": {code: {"false_rejects": false, "confirmed": confirmed, "catches": caught, "explained": explained}
                     for code, (false, confirmed, caught, explained) in evaluation.per_rule().items()},
        "false_build_claims": [o.kernel.path for o in evaluation.false_build_claims],
        "stale_reviews": [dataclasses.asdict(r) for r in evaluation.stale_reviews()],
        "throughput": {"files": len(evaluation.outcomes), "seconds": evaluation.seconds,
                       "files_per_second": evaluation.files_per_second},
        # every kernel, with all its findings (`Finding.to_dict()`, path: the file on disk): for reports
        "outcomes": [{"path": o.kernel.path, "file": o.kernel.file, "correct": o.kernel.correct,
                      "cause": o.kernel.cause, "error": o.error,
                      "findings": [{**f.to_dict(), "review": review(o, f)} for f in o.findings]}
                     for o in evaluation.outcomes],
    }


def gate_violations(evaluation: RunsEvaluation, thresholds: dict) -> list[str]:
    """What falls short of the recorded thresholds (`max_false_reject_rate`, `min_catches`,
    `min_explained_catches`; they only move towards better figures), and each defect a review confirmed
    that is no longer reported (fix the rule, or review the finding again)."""
    problems = [f"confirmed defect no longer reported: {r.path}:{r.line} {r.code} ({r.reason})"
                for r in evaluation.stale_reviews() if r.verdict == "real"]
    ceiling = thresholds.get("max_false_reject_rate")
    if ceiling is not None and evaluation.false_reject_rate > ceiling + 1e-9:
        problems.append(f"false-reject rate {evaluation.false_reject_rate:.4f} is above its ceiling {ceiling:.4f}")
    for key, value in (("min_catches", len(evaluation.catches)),
                       ("min_explained_catches", len(evaluation.explained_catches))):
        floor = thresholds.get(key)
        if floor is not None and value < floor:
            problems.append(f"{key.removeprefix('min_').replace('_', ' ')} {value} is below its floor {floor}")
    return problems


def _build_failed(row: dict) -> bool:
    """Whether the harness's own message says the extension did not build. Some archives record a build
    started in `__init__` or forward as a runtime error of a compiled kernel (cause G); the message decides."""
    return "Error building extension" in str(row.get("message") or "")


def _cause_of(row: dict) -> str:
    """The label's cause, refined by its subcause where that names one (`B` + `B3 ...` -> `B3`); a runtime
    error whose message is a failed build is a build error (`B?`: the label names no detail)."""
    cause = str(row.get("cause") or "?")
    if cause.startswith("G") and _build_failed(row):
        return "B?"
    detail = str(row.get("subcause") or "").split()
    if detail and detail[0] in CAUSES and detail[0].startswith(cause):
        return detail[0]
    return cause


def _cause_order(cause: str) -> tuple[int, str]:
    return (list(CAUSES).index(cause) if cause in CAUSES else len(CAUSES), cause)


def _beside(base: str, name: str) -> str:
    candidate = os.path.join(base, name)
    return candidate if os.path.isdir(candidate) else base
