"""The real-kernel evaluation (`cudalint eval --runs`) rendered as tables for people."""

from __future__ import annotations

from cudalint.checks.registry import find_rule
from cudalint.evaluation.runs import CAUSES, ENVIRONMENT_CAUSES, KernelOutcome, RunsEvaluation, review_of
from cudalint.findings import short_text
from cudalint.report.tables import render_table


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def format_runs_table(evaluation: RunsEvaluation, show_kernels: bool = True) -> str:
    correct, broken = evaluation.correct, evaluation.broken
    false_rejects, catches = evaluation.false_rejects, evaluation.catches
    environment = sum(o.kernel.cause in ENVIRONMENT_CAUSES for o in evaluation.outcomes)
    lines = [
        f"real kernels: {len(evaluation.outcomes)} ({len(correct)} correct, {len(broken)} broken by their code, "
        f"{environment} left out as failures of the machine); linted in {evaluation.seconds:.1f} s, "
        f"{evaluation.files_per_second:.0f} files/s",
        "",
        f"false rejects: {len(false_rejects)} of {len(correct)} correct kernels "
        f"({_percent(len(false_rejects), len(correct))}); "
        f"confirmed by a review as a real defect on {len(evaluation.confirmed)}",
        f"catches:       {len(catches)} of {len(broken)} broken kernels ({_percent(len(catches), len(broken))}), "
        f"{len(evaluation.explained_catches)} by a rule that explains the failure",
        f"build claims on kernels the harness built (CL901): {len(evaluation.false_build_claims)}",
        "",
    ]
    per_rule = evaluation.per_rule()
    lines += render_table(["rule", "name", "false rejects", "confirmed", "catches", "explained"],
                          [(code, rule.name if (rule := find_rule(code)) else "", *counts)
                           for code, counts in per_rule.items()], numeric=[False, False, True, True, True, True]
                          ).splitlines()
    lines += [""] + render_table(["cause", "what", "broken", "caught", "explained"],
                                 [(cause, CAUSES.get(cause, ""), *counts)
                                  for cause, counts in evaluation.per_cause().items()],
                                 numeric=[False, False, True, True, True]).splitlines()
    if show_kernels:
        lines += _kernel_list(evaluation, "false rejects (correct kernels):", false_rejects)
        lines += _kernel_list(evaluation, "confirmed defects (correct kernels, reviewed real):", evaluation.confirmed)
        stale = evaluation.stale_reviews()
        if stale:
            lines += ["", "reviews of findings no longer reported:"]
            lines += [f"  {r.path}:{r.line} {r.code} [{r.verdict}] {r.reason}" for r in stale]
    return "\n".join(lines)


def _kernel_list(evaluation: RunsEvaluation, title: str, outcomes: list[KernelOutcome]) -> list[str]:
    if not outcomes:
        return []
    lines = ["", title]
    for outcome in outcomes:
        if outcome.error is not None:
            lines.append(f"  {outcome.kernel.path}: {outcome.error}")
        for finding in outcome.rejecting:
            review = review_of(evaluation, outcome, finding)
            note = f"  [reviewed {review.verdict}: {review.reason}]" if review else ""
            lines.append(f"  {outcome.kernel.path}:{finding.location.line} {finding.code} "
                         f"{short_text(finding.message, 100)}{note}")
    return lines
