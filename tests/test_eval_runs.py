"""`cudalint eval --runs`: figures against harness verdicts on a small labelled run (tests/fixtures/runs),
and the gate on the real-kernel development set (../shared/data/realkernels, where it is present)."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from typer.testing import CliRunner

from cudalint.cli import app
from cudalint.evaluation.runs import (
    EXPLAINS, LabelsError, evaluate_runs, gate_violations, load_labels, load_reviews,
)
from cudalint.evaluation.thresholds import load_thresholds

HERE = os.path.dirname(__file__)
RUNS = os.path.join(HERE, "fixtures", "runs")
REPO = os.path.dirname(HERE)
DEV_SET = os.environ.get("CUDALINT_REALKERNELS", os.path.join(REPO, "..", "shared", "data", "realkernels"))
DEV_RECORD = os.path.join(REPO, "benchmarks", "realkernels")


@pytest.fixture(scope="module")
def evaluation():
    return evaluate_runs(load_labels(RUNS), load_reviews(os.path.join(RUNS, "reviews.toml")))


def test_labels_resolve_paths_architectures_and_causes():
    kernels = {k.path: k for k in load_labels(os.path.join(RUNS, "labels.jsonl"))}
    assert len(kernels) == 6  # the blank line is skipped
    clean = kernels["run/clean.cu"]
    assert clean.file == os.path.join(RUNS, "kernels", "run", "clean.cu")
    assert clean.reference == os.path.join(RUNS, "problems", "level1", "1_Scale.py")
    assert clean.arch == "sm_80" and clean.cause == "ok"
    assert kernels["run/race_accepted.cu"].arch == "sm_89"
    assert kernels["run/unguarded_accepted.cu"].arch == "sm_90"  # an explicit arch wins
    assert kernels["run/environment.cu"].arch is None  # unknown GPU: the options' default
    assert kernels["run/unguarded_crashed.cu"].cause == "E"  # "E0 crash ..." is no cause of its own
    assert not kernels["run/unguarded_crashed.cu"].compiled


def test_figures_against_the_verdicts(evaluation):
    assert [o.kernel.path for o in evaluation.false_rejects] == ["run/unguarded_accepted.cu"]
    assert evaluation.false_reject_rate == pytest.approx(1 / 3)
    # the race a review confirmed is rejected, but it is not a false reject
    assert [o.kernel.path for o in evaluation.confirmed] == ["run/race_accepted.cu"]
    assert [o.kernel.path for o in evaluation.catches] == ["run/unguarded_crashed.cu"]
    assert [o.kernel.path for o in evaluation.explained_catches] == ["run/unguarded_crashed.cu"]
    # the machine's failure (D) is in neither figure
    assert {o.kernel.path for o in evaluation.broken} == {"run/unguarded_crashed.cu", "run/clean_wrong.cu"}
    assert evaluation.per_cause() == {"E": (1, 1, 1), "I": (1, 0, 0)}
    assert evaluation.per_rule() == {"CL101": (0, 1, 0, 0), "CL201": (1, 0, 1, 1)}
    assert [(r.path, r.line) for r in evaluation.stale_reviews()] == [("run/clean.cu", 5)]
    assert evaluation.false_build_claims == []


def test_a_review_marked_false_keeps_the_kernel_a_false_reject(evaluation):
    outcome, = evaluation.false_rejects
    assert [f.location.line for f in outcome.rejecting] == [5, 6]
    assert outcome.real == []


def test_gate(evaluation):
    assert gate_violations(evaluation, load_thresholds(os.path.join(RUNS, "thresholds.json"))) == []
    problems = gate_violations(evaluation, {"max_false_reject_rate": 0.2, "min_catches": 2,
                                            "min_explained_catches": 2})
    assert problems == ["false-reject rate 0.3333 is above its ceiling 0.2000", "catches 1 is below its floor 2",
                        "explained catches 1 is below its floor 2"]


def test_gate_fails_when_a_confirmed_defect_is_no_longer_reported(evaluation, tmp_path):
    reviews = tmp_path / "reviews.toml"
    reviews.write_text('[[review]]\npath = "run/clean.cu"\ncode = "CL201"\nline = 5\nverdict = "real"\n'
                       'reason = "an overflow"\n')
    stale = evaluate_runs(load_labels(RUNS), load_reviews(str(reviews)))
    assert gate_violations(stale, {}) == ["confirmed defect no longer reported: run/clean.cu:5 CL201 (an overflow)"]


def test_a_kernels_own_suppressions_are_not_honoured(tmp_path):
    # judged as the pre-filter judges: a comment in the kernel does not turn a catch into a pass
    shutil.copytree(RUNS, tmp_path / "runs")
    crashed = tmp_path / "runs" / "kernels" / "run" / "unguarded_crashed.cu"
    crashed.write_text("// cudalint: ignore-file\n" + crashed.read_text())
    evaluation = evaluate_runs(load_labels(str(tmp_path / "runs")))
    [caught] = evaluation.catches
    assert caught.kernel.path == "run/unguarded_crashed.cu" and {f.code for f in caught.rejecting} == {"CL201"}


def test_every_cause_names_rules_that_exist():
    from cudalint.checks.registry import find_rule

    assert all(find_rule(code) is not None for rules in EXPLAINS.values() for code in rules)


def test_cli_table_json_and_exit_codes(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["eval", "--runs", RUNS, "--check"])
    assert result.exit_code == 0, result.output
    assert "false rejects: 1 of 3 correct kernels (33.3%); confirmed by a review as a real defect on 1" \
        in result.output
    assert "run/unguarded_accepted.cu:6 CL201" in result.output
    result = runner.invoke(app, ["eval", "--runs", os.path.join(RUNS, "labels.jsonl"), "--format", "json"])
    data = json.loads(result.output)
    assert data["false_rejects"]["kernels"] == 1 and data["catches"]["explained"] == 1
    assert data["per_rule"]["CL101"] == {"false_rejects": 0, "confirmed": 1, "catches": 0, "explained": 0}
    strict = tmp_path / "strict.json"
    strict.write_text('{"max_false_reject_rate": 0.0}')
    result = runner.invoke(app, ["eval", "--runs", RUNS, "--thresholds", str(strict), "--no-misses"])
    assert result.exit_code == 1
    assert "cudalint: threshold: false-reject rate 0.3333 is above its ceiling 0.0000" in result.output
    (tmp_path / "damaged.json").write_text("{not json")
    for thresholds, words in ((tmp_path / "absent.json", "No such file or directory"), (tmp_path / "damaged.json", "")):
        result = runner.invoke(app, ["eval", "--runs", RUNS, "--thresholds", str(thresholds), "--no-misses"])
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        assert f"cudalint: error: thresholds {thresholds}: {words}" in result.output


@pytest.mark.parametrize("labels, message", [
    ('{"path": "run/clean.cu"}\n', "labels.jsonl:1: not a label row"),
    ('{"path": "run/nothing.cu", "correct": true}\n', "nothing.cu: no such kernel"),
])
def test_cli_bad_labels_exit_2(tmp_path, labels, message):
    shutil.copytree(os.path.join(RUNS, "kernels"), tmp_path / "kernels")
    (tmp_path / "labels.jsonl").write_text(labels)
    result = CliRunner().invoke(app, ["eval", "--runs", str(tmp_path)])
    assert result.exit_code == 2
    assert message in result.output


def test_bad_review_verdict(tmp_path):
    reviews = tmp_path / "reviews.toml"
    reviews.write_text('[[review]]\npath = "a"\ncode = "CL101"\nline = 1\nverdict = "maybe"\nreason = "?"\n')
    with pytest.raises(LabelsError, match='verdict must be "real" or "false"'):
        load_reviews(str(reviews))


@pytest.mark.slow  # 400-odd real kernels linted, about 3 minutes (`pytest -m slow`)
@pytest.mark.skipif(not os.path.isfile(os.path.join(DEV_SET, "labels.jsonl")),
                    reason=f"the real-kernel development set is not at {DEV_SET} (set CUDALINT_REALKERNELS)")
def test_development_set_gate():
    """CI's gate: false rejects no higher, catches no lower than recorded, and every reviewed defect still
    reported (benchmarks/realkernels/)."""
    evaluation = evaluate_runs(load_labels(DEV_SET), load_reviews(os.path.join(DEV_RECORD, "reviews.toml")), jobs=2)
    assert len(evaluation.outcomes) >= 400
    assert gate_violations(evaluation, load_thresholds(os.path.join(DEV_RECORD, "thresholds.json"))) == []


def test_a_runtime_error_that_is_a_failed_build_counts_as_a_build_failure(tmp_path):
    rows = [
        {"path": "a.py", "correct": False, "compiled": True, "cause": "G", "subcause": "G4 other",
         "message": "runtime_error: Error building extension 'fused': [1/3] nvcc ... error: identifier undefined"},
        {"path": "b.py", "correct": False, "compiled": True, "cause": "G", "subcause": "G4 other",
         "message": "runtime_error: CUDA error: an illegal memory access was encountered"},
    ]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("\n".join(json.dumps(row) for row in rows))
    built, crashed = load_labels(str(labels))
    assert (built.compiled, built.cause) == (False, "B?")
    assert (crashed.compiled, crashed.cause) == (True, "G4")
