"""`cudalint eval [CORPUS]`: the evaluation table (or JSON), and the threshold gate CI runs."""

from __future__ import annotations

import json
import os

import typer



def eval_command(
    corpus: str = typer.Argument("corpus", help="the labelled corpus directory"),
    output_format: str = typer.Option("table", "--format", help="table or json"),
    mutants_per_operator: int = typer.Option(2, "--mutants", help="mutants per operator per clean file (0: none)"),
    nvcc: int = typer.Option(0, "--nvcc", help="also time nvcc -c on this many .cu files, in the same run"),
    thresholds: str = typer.Option(None, "--thresholds",
                                   help="fail (exit 1) when a rule is below these floors [default: CORPUS/thresholds.json "
                                        "with --check]"),
    check: bool = typer.Option(False, "--check", help="compare with the corpus's recorded thresholds"),
    misses: bool = typer.Option(True, "--misses/--no-misses", help="list each miss and false alarm"),
) -> None:
    """Measure every rule on the labelled corpus: precision, recall, F1, mutant recall, latency."""
    if not os.path.isdir(corpus):
        typer.echo(f"cudalint: error: {corpus}: no such directory", err=True)
        raise typer.Exit(2)
    if output_format not in ("table", "json"):
        typer.echo(f"cudalint: error: --format must be table or json, not {output_format!r}", err=True)
        raise typer.Exit(2)
    from cudalint.evaluation.run import evaluate, to_json  # here: the CLI registers `eval` on every start
    from cudalint.evaluation.thresholds import load_thresholds, violations
    from cudalint.report.evaluation_table import format_table

    result = evaluate(corpus, per_operator=mutants_per_operator, nvcc_sample=nvcc)
    if output_format == "json":
        typer.echo(json.dumps(to_json(result), indent=2))
    else:
        typer.echo(format_table(result, show_misses=misses))
    threshold_path = thresholds or (os.path.join(corpus, "thresholds.json") if check else None)
    if threshold_path:
        problems = violations(result, load_thresholds(threshold_path))
        for problem in problems:
            typer.echo(f"cudalint: threshold: {problem}", err=True)
        if problems:
            raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)
