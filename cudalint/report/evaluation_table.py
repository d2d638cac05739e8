"""The evaluation rendered as a table for people."""

from __future__ import annotations

import statistics

from cudalint.checks.registry import find_rule
from cudalint.evaluation.run import EvaluationResult, RuleScore, nvcc_comparison, percentile


def _fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:5.3f}"


def format_table(result: EvaluationResult, show_misses: bool = True) -> str:
    lines = [f"corpus: {result.files} files ({result.clean_files} clean; "
             f"{result.clean_files_with_false_alarms} clean files with a false alarm)", ""]
    header = f"{'rule':<6} {'name':<28} {'TP':>4} {'FP':>4} {'FN':>4}  {'prec':>5}  {'recall':>6}  {'F1':>5}" \
             f"   {'mutants':>7}  {'m-recall':>8}"
    lines += [header, "-" * len(header)]
    codes = sorted(set(result.corpus_scores) | set(result.mutant_scores))
    for code in codes:
        lines.append(_row(code, result.corpus_scores.get(code, RuleScore(code)), result.mutant_scores.get(code)))
    lines.append("-" * len(header))
    lines.append(_row("ALL", result.overall(result.corpus_scores), result.overall(result.mutant_scores)))
    latency = list(result.latencies_ms.values())
    if latency:
        lines += ["", f"lint latency per file: median {statistics.median(latency):.1f} ms, "
                      f"p95 {percentile(latency, 0.95):.1f} ms ({len(latency)} files)"]
    if result.nvcc_ms:
        nvcc_median, lint_median = nvcc_comparison(result)
        lines.append(f"nvcc -c -arch=sm_90 on {result.nvcc_files} of the same .cu files: median {nvcc_median:.0f} ms "
                     f"vs lint {lint_median:.1f} ms: {nvcc_median / lint_median:.0f}x faster")
    if result.mutants_by_operator:
        lines += ["", "mutants by operator (detected / produced):"]
        for operator, produced in sorted(result.mutants_by_operator.items()):
            lines.append(f"  {operator:<26} {result.detected_by_operator[operator]:>4} / {produced}")
    if show_misses and result.misses:
        lines += ["", "misses and false alarms:"]
        for miss in result.misses:
            where = f"{miss.path}:{miss.line}" if miss.line else miss.path
            lines.append(f"  {miss.kind:<12} {miss.code} {where} {miss.message}".rstrip())
    return "\n".join(lines)


def _row(code: str, score: RuleScore, mutant: RuleScore | None) -> str:
    rule = find_rule(code)
    name = rule.name if rule else ""
    mutant_count = (mutant.true_positives + mutant.false_negatives) if mutant else 0
    return (f"{code:<6} {name:<28} {score.true_positives:>4} {score.false_positives:>4} {score.false_negatives:>4}  "
            f"{_fmt(score.precision)}  {_fmt(score.recall):>6}  {_fmt(score.f1)}   {mutant_count:>7}  "
            f"{_fmt(mutant.recall if mutant else None):>8}")
