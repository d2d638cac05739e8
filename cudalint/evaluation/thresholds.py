"""Per-rule quality floors recorded in the repository (corpus/thresholds.json); they only go up."""

from __future__ import annotations

import json

from cudalint.evaluation.run import EvaluationResult


def load_thresholds(path: str) -> dict[str, dict[str, float]]:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def violations(result: EvaluationResult, thresholds: dict[str, dict[str, float]]) -> list[str]:
    """Each rule whose corpus precision or recall (or mutant recall) is below its recorded floor."""
    problems = []
    for code, floors in sorted(thresholds.items()):
        if code.startswith("_"):
            continue
        for metric, floor in floors.items():
            table = result.mutant_scores if metric.startswith("mutant_") else result.corpus_scores
            score = table.get(code)
            value = getattr(score, metric.removeprefix("mutant_")) if score is not None else None
            if value is None:
                # no case exercised the metric: precision with no finding is vacuous; recall with no case is a gap
                if metric.endswith("recall"):
                    problems.append(f"{code} {metric}: no labelled case in the corpus (floor {floor:.2f})")
                continue
            if value + 1e-9 < floor:
                problems.append(f"{code} {metric} {value:.3f} is below its floor {floor:.2f}")
    return problems
