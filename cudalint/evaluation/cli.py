"""`cudalint eval [CORPUS]`: the evaluation table (or JSON), and the threshold gate CI runs."""

from __future__ import annotations

import json
import os

import typer



def eval_command(
    corpus: str = typer.Argument("corpus", help="the labelled corpus directory"),
    runs: str = typer.Option(None, "--runs", metavar="LABELS",
                             help="measure on real generated kernels instead: a labels.jsonl of harness verdicts "
                                  "(or a directory holding one)"),
    kernels_dir: str = typer.Option(None, "--kernels", help="with --runs: where the labels' paths are "
                                                            "[default: kernels/ beside the labels]"),
    problems_dir: str = typer.Option(None, "--problems", help="with --runs: where the labels' references are "
                                                              "[default: problems/ beside the labels]"),
    reviews: str = typer.Option(None, "--reviews", help="with --runs: reviews of findings on correct kernels "
                                                        "[default: reviews.toml beside the labels]"),
    jobs: int = typer.Option(1, "--jobs", "-j", help="with --runs: worker processes"),
    output_format: str = typer.Option("table", "--format", help="table or json"),
    mutants_per_operator: int = typer.Option(2, "--mutants", help="mutants per operator per clean file (0: none)"),
    nvcc: int = typer.Option(0, "--nvcc", help="also time nvcc -c on this many .cu files, in the same run"),
    thresholds: str = typer.Option(None, "--thresholds",
                                   help="fail (exit 1) when a figure is below these floors [default: "
                                        "thresholds.json of the corpus, or beside the labels, with --check]"),
    check: bool = typer.Option(False, "--check", help="compare with the recorded thresholds"),
    misses: bool = typer.Option(True, "--misses/--no-misses", help="list each miss, false alarm and false reject"),
    dry_run: bool = typer.Option(True, "--dry-run/--no-dry-run", help="with --runs: run each solution's Python on "
                                                                      "the CPU against its reference"),
) -> None:
    """Measure every rule on the labelled corpus (precision, recall, F1, mutant recall, latency), or with
    --runs on real generated kernels against their harness's verdicts (false rejects, catches)."""
    if output_format not in ("table", "json"):
        typer.echo(f"cudalint: error: --format must be table or json, not {output_format!r}", err=True)
        raise typer.Exit(2)
    if runs is not None:
        _eval_runs(runs, kernels_dir, problems_dir, reviews, jobs, output_format, thresholds, check, misses, dry_run)
        return
    if not os.path.isdir(corpus):
        typer.echo(f"cudalint: error: {corpus}: no such directory", err=True)
        raise typer.Exit(2)
    from cudalint.evaluation.run import evaluate, to_json  # here: the CLI registers `eval` on every start
    from cudalint.evaluation.thresholds import load_thresholds, violations
    from cudalint.report.evaluation_table import format_table

    result = evaluate(corpus, per_operator=mutants_per_operator, nvcc_sample=nvcc)
    if not result.files:
        typer.echo(f"cudalint: error: {corpus}: no .cu, .cuh or .py corpus files", err=True)
        raise typer.Exit(2)
    _report(to_json(result) if output_format == "json" else format_table(result, show_misses=misses),
            thresholds or (os.path.join(corpus, "thresholds.json") if check else None),
            lambda path: violations(result, load_thresholds(path)))


def _eval_runs(runs: str, kernels_dir: str | None, problems_dir: str | None, reviews: str | None, jobs: int,
               output_format: str, thresholds: str | None, check: bool, misses: bool, dry_run: bool = True) -> None:
    from cudalint.evaluation.runs import LabelsError, evaluate_runs, gate_violations, load_labels, load_reviews, to_json
    from cudalint.evaluation.thresholds import load_thresholds
    from cudalint.report.runs_table import format_runs_table

    beside = os.path.dirname(os.path.abspath(os.path.join(runs, "labels.jsonl") if os.path.isdir(runs) else runs))
    reviews = reviews or (os.path.join(beside, "reviews.toml") if os.path.isfile(os.path.join(beside, "reviews.toml"))
                          else None)
    try:
        kernels = load_labels(runs, kernels_dir, problems_dir)
        loaded_reviews = load_reviews(reviews) if reviews else {}
        missing = next((k.file for k in kernels if not os.path.isfile(k.file)), None)
        if missing:
            raise LabelsError(f"{missing}: no such kernel (use --kernels to say where the labels' paths are)")
    except LabelsError as error:
        typer.echo(f"cudalint: error: {error}", err=True)
        raise typer.Exit(2) from None
    from cudalint.config import LintOptions
    from cudalint.prefilter import dry_run_unavailable

    options = LintOptions(dry_run=dry_run)
    skipped = dry_run_unavailable(dry_run and bool(kernels))
    if skipped:
        typer.echo(f"cudalint: {skipped}", err=True)
    evaluation = evaluate_runs(kernels, loaded_reviews, options, jobs=max(1, jobs))
    _report(to_json(evaluation) if output_format == "json" else format_runs_table(evaluation, show_kernels=misses),
            thresholds or (os.path.join(beside, "thresholds.json") if check else None),
            lambda path: gate_violations(evaluation, load_thresholds(path)))


def _report(output: dict | str, threshold_path: str | None, violations_at) -> None:
    """Print the evaluation (a JSON document or a table), then exit 1 when it falls short of the
    thresholds at `threshold_path` (`violations_at(path)` lists how)."""
    typer.echo(json.dumps(output, indent=2) if isinstance(output, dict) else output)
    if not threshold_path:
        return
    try:
        problems = violations_at(threshold_path)
    except (OSError, ValueError) as error:  # missing or unreadable thresholds: no gate was applied
        typer.echo(f"cudalint: error: thresholds {threshold_path}: {getattr(error, 'strerror', None) or error}",
                   err=True)
        raise typer.Exit(2) from None
    for problem in problems:
        typer.echo(f"cudalint: threshold: {problem}", err=True)
    if problems:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)
