"""The evaluation: lint every corpus case and every mutant, score each rule, time the linting."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field

from cudalint.config import LintOptions
from cudalint.engine import lint_source
from cudalint.evaluation.corpus import CorpusCase, load_corpus
from cudalint.evaluation.mutations import mutants

# rules reported by the tool about itself are not scored
UNSCORED = {"CL900", "CL902", "CL903"}


@dataclass
class RuleScore:
    code: str
    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0

    @property
    def precision(self) -> float | None:
        found = self.true_positives + self.false_positives
        return self.true_positives / found if found else None

    @property
    def recall(self) -> float | None:
        expected = self.true_positives + self.false_negatives
        return self.true_positives / expected if expected else None

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None or p + r == 0:
            return None
        return 2 * p * r / (p + r)


@dataclass
class Miss:
    kind: str  # "miss" or "false-alarm"
    path: str
    line: int | None
    code: str
    message: str = ""


@dataclass
class EvaluationResult:
    corpus_scores: dict[str, RuleScore]
    mutant_scores: dict[str, RuleScore]  # recall only: mutants are labelled with the bug they plant
    detected_by_operator: Counter
    mutants_by_operator: Counter
    misses: list[Miss]
    latencies_ms: dict[str, float]  # corpus path -> lint time
    files: int
    clean_files: int
    clean_files_with_false_alarms: int
    nvcc_ms: list[float] = field(default_factory=list)
    nvcc_paths: list[str] = field(default_factory=list)

    @property
    def nvcc_files(self) -> int:
        return len(self.nvcc_paths)

    def overall(self, scores: dict[str, RuleScore]) -> RuleScore:
        total = RuleScore("ALL")
        for score in scores.values():
            total.true_positives += score.true_positives
            total.false_positives += score.false_positives
            total.false_negatives += score.false_negatives
        return total


def evaluate(root: str, per_operator: int = 2, nvcc_sample: int = 0, options: LintOptions | None = None
             ) -> EvaluationResult:
    options = options or LintOptions()
    cases = load_corpus(root)
    corpus_scores: dict[str, RuleScore] = {}
    misses: list[Miss] = []
    latencies: dict[str, float] = {}
    original_counts: dict[str, Counter] = {}
    clean_with_alarm = 0
    for case in cases:
        start = time.perf_counter()
        findings = lint_source(case.text, filename=case.path, options=options)
        latencies[case.path] = (time.perf_counter() - start) * 1000
        found = {(f.line, f.code): f for f in findings if f.code not in UNSCORED}
        original_counts[case.path] = Counter(code for _, code in found)
        for key in case.expected:
            score = corpus_scores.setdefault(key[1], RuleScore(key[1]))
            if key in found:
                score.true_positives += 1
            else:
                score.false_negatives += 1
                misses.append(Miss("miss", case.path, key[0], key[1]))
        for key, finding in found.items():
            if key not in case.expected:
                corpus_scores.setdefault(key[1], RuleScore(key[1])).false_positives += 1
                misses.append(Miss("false-alarm", case.path, key[0], key[1], finding.message))
        if case.clean and found:
            clean_with_alarm += 1

    mutant_scores: dict[str, RuleScore] = {}
    detected, produced = Counter(), Counter()
    for case in cases:
        for mutant in mutants(case, per_operator):
            (line, code), = mutant.expected
            produced[mutant.origin] += 1
            findings = [f for f in lint_source(mutant.text, filename=case.path, options=options) if f.code == code]
            if line is not None:
                hit = any(f.line == line for f in findings)
            else:
                hit = len(findings) > original_counts[case.path][code]
            score = mutant_scores.setdefault(code, RuleScore(code))
            if hit:
                score.true_positives += 1
                detected[mutant.origin] += 1
            else:
                score.false_negatives += 1
                misses.append(Miss("mutant-miss", mutant.path, line, code))

    nvcc_ms, nvcc_paths = time_nvcc(root, cases, nvcc_sample) if nvcc_sample else ([], [])
    return EvaluationResult(corpus_scores, mutant_scores, detected, produced, misses, latencies, len(cases),
                            sum(c.clean for c in cases), clean_with_alarm, nvcc_ms, nvcc_paths)


def time_nvcc(root: str, cases: list[CorpusCase], sample: int) -> tuple[list[float], list[str]]:
    """Wall time of `nvcc -c -arch=sm_90` on the first `sample` .cu files (the compile cudalint avoids)."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return [], []
    files = [c for c in cases if c.path.endswith(".cu")][:sample]
    times = []
    with tempfile.TemporaryDirectory() as out:
        for case in files:
            start = time.perf_counter()
            subprocess.run([nvcc, "-c", "-arch=sm_90", "-o", os.path.join(out, "k.o"), os.path.join(root, case.path)],
                           capture_output=True, timeout=300, check=False)
            times.append((time.perf_counter() - start) * 1000)
    return times, [c.path for c in files]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def to_json(result: EvaluationResult) -> dict:
    def scores(table: dict[str, RuleScore]) -> dict:
        return {code: {"tp": s.true_positives, "fp": s.false_positives, "fn": s.false_negatives,
                       "precision": s.precision, "recall": s.recall, "f1": s.f1}
                for code, s in sorted(table.items())}

    latency = list(result.latencies_ms.values())
    data = {
        "files": result.files, "clean_files": result.clean_files,
        "clean_files_with_false_alarms": result.clean_files_with_false_alarms,
        "corpus": scores(result.corpus_scores), "mutants": scores(result.mutant_scores),
        "mutants_by_operator": {op: {"produced": n, "detected": result.detected_by_operator[op]}
                                for op, n in sorted(result.mutants_by_operator.items())},
        "latency_ms": {"median": statistics.median(latency) if latency else None,
                       "p95": percentile(latency, 0.95)},
        "misses": [m.__dict__ for m in result.misses],
    }
    if result.nvcc_ms:
        nvcc_median, lint_median = nvcc_comparison(result)
        data["nvcc"] = {"files": result.nvcc_files, "nvcc_median_ms": nvcc_median,
                        "lint_median_ms_same_files": lint_median, "ratio": nvcc_median / lint_median}
    return data


def nvcc_comparison(result: EvaluationResult) -> tuple[float, float]:
    """Median nvcc time and median lint time over the same .cu files, from one run."""
    same = [result.latencies_ms[path] for path in result.nvcc_paths]
    return statistics.median(result.nvcc_ms), statistics.median(same)
