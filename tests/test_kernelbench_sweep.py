"""The sweep benchmark's CPU parts (benchmarks/kernelbench_sweep.py): arguments, the selection, and the table
and JSON written from fake results of both sides."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent.parent / "benchmarks" / "kernelbench_sweep.py"


@pytest.fixture(scope="module")
def sweep():
    spec = importlib.util.spec_from_file_location("kernelbench_sweep", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows() -> list[dict]:
    rows = []
    for index in range(12):
        rows.append({"path": f"a100/run/level_1_problem_{index}_sample_0_kernel.py", "level": 1 + index % 3,
                     "problem_id": index, "reference": f"a100/level1/{index}_x.py", "correct": index % 2 == 0,
                     "cause": "ok" if index % 2 == 0 else ("C" if index == 3 else "I")})
    rows.append(dict(rows[0], path="a100/run/level_1_problem_0_sample_1_kernel.py"))  # the same problem again
    return rows


def test_arguments(sweep) -> None:
    arguments = sweep.parse_arguments(["--out", "/tmp/x", "--limit", "6", "--levels", "1,2", "--no-kb-build-cache"])
    assert (arguments.limit, arguments.levels, arguments.kb_build_cache, arguments.phase) == (6, (1, 2), False, "both")
    with pytest.raises(SystemExit):
        sweep.parse_arguments(["--out", "/tmp/x", "--limit", "0"])
    with pytest.raises(SystemExit):
        sweep.parse_arguments(["--limit", "3"])  # --out is required


def test_selection_is_stable_balanced_and_leaves_out_the_machines_failures(sweep) -> None:
    chosen = sweep.select(_rows(), 6, (1, 2))
    assert chosen == sweep.select(list(reversed(_rows())), 6, (1, 2))  # the same N every time
    assert all(r["level"] in (1, 2) and r["cause"] != "C" for r in chosen)
    assert [r["correct"] for r in chosen[:4]] == [True, False, True, False]
    assert len({(r["level"], r["problem_id"]) for r in chosen}) == len(chosen)  # one per problem
    assert len(sweep.select(_rows(), 100, (1, 2, 3))) == 11  # 13 rows: a repeated problem, one `C`


def test_table_and_json_from_fake_results(sweep, tmp_path: Path) -> None:
    chosen = sweep.select(_rows(), 4, (1, 2, 3))
    keys = [sweep.sample_id(r) for r in chosen]
    ours = {"wall_s": 60.0, "results": {k: {"status": "correct" if i != 1 else "incorrect", "correct": i != 1,
                                            "build_s": 10.0 + i, "speedup": 1.5} for i, k in enumerate(keys)}}
    theirs = {"wall_s": 300.0, "build_cache": True, "results": {
        k: {"compiled": True, "correct": i not in (1, 2), "build_s": 50.0, "speedup": 1.4} for i, k in enumerate(keys)}}
    (tmp_path / "cudalint.json").write_text(json.dumps(ours))
    (tmp_path / "kernelbench.json").write_text(json.dumps(theirs))
    (tmp_path / "device.json").write_text(json.dumps({"name": "NVIDIA H200"}))
    summary = sweep.write_report(str(tmp_path), chosen)
    assert (summary["cudalint_per_hour"], summary["kernelbench_per_hour"]) == (240.0, 48.0)
    assert summary["throughput_ratio"] == 5.0 and (summary["agree"], summary["compared"]) == (3, 4)
    assert (summary["cudalint_median_build_s"], summary["kernelbench_median_build_s"]) == (11.5, 50.0)
    table = (tmp_path / "sweep.md").read_text()
    assert "on NVIDIA H200" in table and "| solutions verified per hour | 240 | 48 |" in table
    assert "Verdicts agree on 3 of 4 solutions" in table and "| correct | incorrect | no |" in table
    assert json.loads((tmp_path / "sweep.json").read_text())["rows"][2]["agree"] is False
    # one side only: no ratio, no agreement, the table still written
    (tmp_path / "kernelbench.json").unlink()
    summary = sweep.write_report(str(tmp_path), chosen)
    assert summary["throughput_ratio"] is None and summary["compared"] == 0
    assert "| - | - |" in (tmp_path / "sweep.md").read_text()
