"""The evaluation rendered as a table for people."""

from __future__ import annotations

import statistics

from cudalint.checks.registry import find_rule
from cudalint.evaluation.run import EvaluationResult, RuleScore, nvcc_comparison, percentile
from cudalint.report.tables import render_table


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def format_table(result: EvaluationResult, show_misses: bool = True) -> str:
    lines = [f"corpus: {result.files} files ({result.clean_files} clean; "
             f"{result.clean_files_with_false_alarms} clean files with a false alarm)", ""]
    codes = sorted(set(result.corpus_scores) | set(result.mutant_scores))
    rows = [_row(code, result.corpus_scores.get(code, RuleScore(code)), result.mutant_scores.get(code)) for code in codes]
    total = _row("ALL", result.overall(result.corpus_scores), result.overall(result.mutant_scores))
    lines += render_table(["rule", "name", "TP", "FP", "FN", "prec", "recall", "F1", "mutants", "m-recall"], rows,
                          numeric=[False, False, *[True] * 8], total=total).splitlines()
    latency = list(result.latencies_ms.values())
    if latency:
        lines += ["", f"lint latency per file: median {statistics.median(latency):.1f} ms, "
                      f"p95 {percentile(latency, 0.95):.1f} ms ({len(latency)} files)"]
    if result.nvcc_ms:
        nvcc_median, lint_median = nvcc_comparison(result)
        lines.append(f"nvcc -c -arch=sm_90 on {result.nvcc_files} of the same .cu files: median {nvcc_median:.0f} ms "
                     f"vs lint {lint_median:.1f} ms: {nvcc_median / lint_median:.0f}x faster")
    if result.mutants_by_operator:
        operators = [(operator, result.detected_by_operator[operator], produced)
                     for operator, produced in sorted(result.mutants_by_operator.items())]
        lines += ["", "mutants by operator:"]
        lines += ["  " + line for line in render_table(["operator", "detected", "produced"], operators,
                                                       numeric=[False, True, True], rule=False).splitlines()]
    if show_misses and result.misses:
        lines += ["", "misses and false alarms:"]
        for miss in result.misses:
            where = f"{miss.path}:{miss.line}" if miss.line else miss.path
            lines.append(f"  {miss.kind:<12} {miss.code} {where} {miss.message}".rstrip())
    return "\n".join(lines)


def _row(code: str, score: RuleScore, mutant: RuleScore | None) -> list[object]:
    rule = find_rule(code)
    mutant_count = (mutant.true_positives + mutant.false_negatives) if mutant else 0
    return [code, rule.name if rule else "", score.true_positives, score.false_positives, score.false_negatives,
            _fmt(score.precision), _fmt(score.recall), _fmt(score.f1), mutant_count,
            _fmt(mutant.recall if mutant else None)]
